//! Positional reads of the work files verification reads by document: one read each
//! ([`read_at`]), or, for many documents at once, the spans of nearby documents in one
//! read ([`read_spans`]).

use std::fs::File;
use std::path::Path;

use crate::Error;

/// Up to this many bytes between two spans are read rather than skipped: the intent
/// is that copying them costs less than a second system call, while a block's
/// documents spread over the whole file read at most a few times their own bytes
/// (signatures are 171 bytes each with 8-bit fields). Measured at 1M (verification
/// alone, loaded machine; docs/performance.md, session 13 task B): 4,096 and 16,384
/// made a fifth and more than half fewer reads (2.08 M → 1.62 M, 0.90 M) for no CPU
/// saved beyond the load's spread, 256 a little more CPU.
const GAP: u64 = 1024;

/// The most bytes one read of several spans covers (a single larger span is read
/// whole, as it would be alone).
const MAX_READ: u64 = 1 << 18;

/// Reads per task on rayon's pool (each task reuses one buffer).
const CHUNK: usize = 32;

/// `parse(i, bytes)` of the bytes of each span `spans[i] = (at, len)` of `file`, in
/// order. Spans in increasing `at` order (they may overlap) whose gaps are at most
/// [`GAP`] are read together, up to [`MAX_READ`] bytes at a time; the reads are
/// parsed on rayon's pool when the feature is on and reads are positional.
pub(super) fn read_spans<T: Send>(
    file: &File,
    path: &Path,
    spans: &[(u64, u64)],
    parse: impl Fn(usize, &[u8]) -> Result<T, Error> + Sync + Send,
) -> Result<Vec<T>, Error> {
    let parsed = read_spans_into(
        file,
        path,
        spans,
        |n, _| Vec::with_capacity(n),
        |out, i, bytes| {
            out.push(parse(i, bytes)?);
            Ok(())
        },
    )?;
    Ok(parsed.into_iter().flatten().collect())
}

/// The spans of [`read_spans`], read as it reads them, each passed to `parse(acc, i,
/// bytes)` with the accumulator of its chunk of reads: one accumulator per chunk,
/// made by `init(spans, bytes)` (the number of spans the chunk holds and their
/// bytes, gaps not counted), the chunks in order.
/// A caller that keeps the spans' values in one buffer per chunk makes no allocation
/// per span (the sets of a verification block: about 1,000 buffers for 40,000 sets).
pub(super) fn read_spans_into<A: Send>(
    file: &File,
    path: &Path,
    spans: &[(u64, u64)],
    init: impl Fn(usize, u64) -> A + Sync + Send,
    parse: impl Fn(&mut A, usize, &[u8]) -> Result<(), Error> + Sync + Send,
) -> Result<Vec<A>, Error> {
    // Each read: the spans `first..end`, the bytes `start..stop`.
    struct Group {
        first: usize,
        end: usize,
        start: u64,
        stop: u64,
    }
    let mut groups: Vec<Group> = Vec::new();
    for (i, &(at, len)) in spans.iter().enumerate() {
        let stop = at.checked_add(len).ok_or_else(|| {
            Error::Core(ndd_core::Error::corrupt_data(format!(
                "{}: a span at {at} of {len} bytes is beyond any position",
                path.display()
            )))
        })?;
        match groups.last_mut() {
            Some(g)
                if at >= g.start
                    && at <= g.stop.saturating_add(GAP)
                    && stop.max(g.stop) - g.start <= MAX_READ =>
            {
                g.end = i + 1;
                g.stop = g.stop.max(stop);
            }
            _ => groups.push(Group {
                first: i,
                end: i + 1,
                start: at,
                stop,
            }),
        }
    }
    // One buffer per chunk of reads, reused, and one accumulator per chunk: not an
    // allocation per read (a block of signatures makes about 15,000 reads). The
    // buffer only grows (zeroed once): each read overwrites the bytes it uses.
    let read = |chunk: &[Group]| -> Result<A, Error> {
        let mut buf: Vec<u8> = Vec::new();
        let of_chunk = |g: &Group| spans.get(g.first..g.end).unwrap_or_default();
        let mut out = init(
            chunk.iter().map(|g| g.end - g.first).sum(),
            chunk.iter().flat_map(of_chunk).map(|s| s.1).sum(),
        );
        for g in chunk {
            let n = usize::try_from(g.stop - g.start).unwrap_or(usize::MAX);
            if buf.len() < n {
                buf.resize(n, 0);
            }
            let buf = buf.get_mut(..n).unwrap_or_default();
            read_at(file, path, g.start, buf)?;
            let spans = spans.get(g.first..g.end).unwrap_or_default();
            for (i, &(at, len)) in (g.first..).zip(spans) {
                let from = usize::try_from(at - g.start).unwrap_or(usize::MAX);
                let to = usize::try_from(len).map_or(usize::MAX, |n| from.saturating_add(n));
                let bytes = buf.get(from..to).ok_or_else(|| {
                    Error::Core(ndd_core::Error::corrupt_data(format!(
                        "{}: a span at {at} of {len} bytes is out of its read",
                        path.display()
                    )))
                })?;
                parse(&mut out, i, bytes)?;
            }
        }
        Ok(out)
    };
    #[cfg(all(feature = "rayon", any(unix, windows)))]
    {
        use rayon::prelude::*;
        groups.par_chunks(CHUNK).map(read).collect()
    }
    #[cfg(not(all(feature = "rayon", any(unix, windows))))]
    {
        groups.chunks(CHUNK).map(read).collect()
    }
}

/// Reads `buf.len()` bytes of `file` at `at`: a positional read (no shared cursor, so
/// threads read one file at once) on Unix and Windows.
pub(super) fn read_at(file: &File, path: &Path, at: u64, buf: &mut [u8]) -> Result<(), Error> {
    #[cfg(unix)]
    let read = {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, at)
    };
    #[cfg(windows)]
    let read = {
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        loop {
            let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) else {
                break Ok(());
            };
            match file.seek_read(rest, at + done as u64) {
                Ok(0) => break Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        }
    };
    #[cfg(not(any(unix, windows)))]
    let read = {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(at)).and_then(|_| f.read_exact(buf))
    };
    read.map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, GAP, MAX_READ, read_spans, read_spans_into};

    /// A file of `n` bytes, byte `i` being `i % 251`.
    fn file(n: usize) -> (tempfile::TempDir, std::path::PathBuf, std::fs::File) {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("values.bin");
        let bytes: Vec<u8> = (0..n).map(|i| u8::try_from(i % 251).unwrap_or(0)).collect();
        std::fs::write(&path, bytes).expect("written");
        let f = std::fs::File::open(&path).expect("opened");
        (dir, path, f)
    }

    #[test]
    fn every_span_gets_its_own_bytes_whatever_the_grouping() {
        let n = 3 * usize::try_from(MAX_READ).expect("fits");
        let (_dir, path, f) = file(n);
        let gap = GAP;
        // Adjacent, overlapping, an empty span, a gap of exactly GAP and one more
        // (a new read), a span larger than MAX_READ, and the file's last byte.
        let spans: Vec<(u64, u64)> = vec![
            (0, 8),
            (0, 16),
            (8, 16),
            (24, 0),
            (24 + gap, 5),
            (29 + 2 * gap + 1, 7),
            (MAX_READ / 2, MAX_READ + 3),
            (n as u64 - 1, 1),
        ];
        let got = read_spans(&f, &path, &spans, |i, b| Ok((i, b.to_vec()))).expect("read");
        assert_eq!(got.len(), spans.len());
        for ((i, bytes), (k, &(at, len))) in got.into_iter().zip(spans.iter().enumerate()) {
            assert_eq!(i, k, "in order");
            let expected: Vec<u8> = (at..at + len)
                .map(|j| u8::try_from(j % 251).unwrap_or(0))
                .collect();
            assert_eq!(bytes, expected, "span {k} at {at}, {len} bytes");
        }
    }

    #[test]
    fn accumulators_per_chunk_hold_their_spans_in_order() {
        let (_dir, path, f) = file(1 << 18);
        // Spans each a read of its own (gaps past GAP), enough for several chunks,
        // of lengths 0 to 9.
        let spans: Vec<(u64, u64)> = (0..5 * CHUNK as u64)
            .map(|i| (i * (GAP + 20), i % 10))
            .collect();
        let chunks = read_spans_into(
            &f,
            &path,
            &spans,
            |n, bytes| (n, bytes, Vec::new()),
            |(_, _, got): &mut (usize, u64, Vec<(usize, Vec<u8>)>), i, b| {
                got.push((i, b.to_vec()));
                Ok(())
            },
        )
        .expect("read");
        assert_eq!(chunks.len(), 5, "one accumulator per chunk of reads");
        let mut next = 0;
        for (n, bytes, got) in chunks {
            assert_eq!(n, got.len(), "the spans the chunk was told of");
            assert_eq!(bytes, got.iter().map(|(_, b)| b.len() as u64).sum::<u64>());
            for (i, b) in got {
                assert_eq!(i, next, "in order");
                let (at, len) = spans[i];
                let expected: Vec<u8> = (at..at + len)
                    .map(|j| u8::try_from(j % 251).unwrap_or(0))
                    .collect();
                assert_eq!(b, expected);
                next += 1;
            }
        }
        assert_eq!(next, spans.len());
    }

    #[test]
    fn a_span_past_the_end_is_an_error_not_a_short_read() {
        let (_dir, path, f) = file(100);
        assert!(read_spans(&f, &path, &[(0, 10), (95, 10)], |_, b| Ok(b.len())).is_err());
        assert!(read_spans(&f, &path, &[(u64::MAX, 2)], |_, b| Ok(b.len())).is_err());
        // No spans: nothing read.
        assert_eq!(
            read_spans(&f, &path, &[], |_, b| Ok(b.len())).expect("nothing"),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn a_parse_error_is_returned() {
        let (_dir, path, f) = file(100);
        let failed = read_spans(&f, &path, &[(0, 4), (50, 4)], |i, _| {
            if i == 1 {
                Err(crate::Error::Core(ndd_core::Error::corrupt_data("bad")))
            } else {
                Ok(i)
            }
        });
        assert!(failed.is_err());
    }
}

//! The work files verification and the weights stage read by document position: the
//! shingle sets (`sets.bin`, their end offsets in `sets.idx`) verification's first
//! pass makes (`named.rs`) and the texts (`texts.bin`, `texts.idx`) the sketch stage
//! wrote (its `IndexedOut`), their offsets held in memory when they fit the share of
//! the budget they are given.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::damaged;
use super::reads::{read_at, read_spans, read_spans_into};
use crate::Error;

/// The shingle sets, each sorted and distinct, 8 bytes per value.
pub(super) const SETS: &str = "sets.bin";
/// The sets' end offsets, in values (8 bytes each).
pub(super) const SET_ENDS: &str = "sets.idx";
/// The documents' texts, UTF-8.
pub(super) const TEXTS: &str = "texts.bin";
/// The texts' end offsets, in bytes (8 bytes each).
pub(super) const TEXT_ENDS: &str = "texts.idx";

/// Reads the values of documents of a values file and its end offsets (as the sketch
/// stage's `IndexedOut` and the sets pass write them) by document position, many at once, nearby ones in one read
/// ([`read_spans`]); the offsets held in memory when they fit the share of the budget
/// [`open`](Self::open) is given ([`HeldEnds`]), else read from the ends file (one
/// document's with a positional read, [`read_at`], many by spans).
struct Indexed {
    values: File,
    ends: File,
    values_path: PathBuf,
    ends_path: PathBuf,
    /// The values file's length: a corrupt offset cannot ask for more than it has.
    values_len: u64,
    /// Bytes per unit of the offsets.
    unit: u64,
    /// The ends file's offsets, when they fit the share of the budget `open` was given.
    held: Option<HeldEnds>,
}

impl Indexed {
    /// The files `names` (values, ends) of `dir`, the offsets in units of `unit`
    /// bytes; the offsets are read into memory when [`HeldEnds::bytes`] of them are at
    /// most `share` (and each group's values span less than 2^32 units).
    fn open(dir: &Path, names: [&str; 2], unit: u64, share: u64) -> Result<Self, Error> {
        let values_path = dir.join(names[0]);
        let ends_path = dir.join(names[1]);
        let values = File::open(&values_path).map_err(|e| Error::io(&values_path, e))?;
        let ends = File::open(&ends_path).map_err(|e| Error::io(&ends_path, e))?;
        let len = |f: &File, path: &Path| {
            f.metadata()
                .map(|m| m.len())
                .map_err(|e| Error::io(path, e))
        };
        let values_len = len(&values, &values_path)?;
        let ends_len = len(&ends, &ends_path)?;
        let held = match HeldEnds::bytes(ends_len / 8) <= share {
            true => HeldEnds::read(&ends, &ends_path, ends_len)?,
            false => None,
        };
        Ok(Indexed {
            values,
            ends,
            values_path,
            ends_path,
            values_len,
            unit,
            held,
        })
    }

    /// Where document `doc`'s value lies in the values file: its start and its length,
    /// in bytes, checked against the file's length.
    fn span(&self, doc: u64) -> Result<(u64, u64), Error> {
        if let Some(held) = &self.held {
            let (start, end) = held
                .get(doc)
                .ok_or_else(|| out_of_range(&self.ends_path, doc))?;
            return self.checked(start, end);
        }
        let (at, len) = self.offsets_of(doc)?;
        let mut b = [0u8; 16];
        let b = &mut b[..if len == 8 { 8 } else { 16 }];
        read_at(&self.ends, &self.ends_path, at, b)?;
        self.span_of(b)
    }

    /// The byte lengths of the values of `docs` (in any order), in order, appended to
    /// `out`. With the offsets held, a first pass only loads each document's end:
    /// loads independent of one another, whose cache misses (about one a document,
    /// the ends of a million documents being 4 MB) the processor overlaps, where the
    /// checked lookups of [`span`](Self::span) alone would take them one after another.
    fn lens(&self, docs: &[u64], out: &mut Vec<u64>) -> Result<(), Error> {
        if let Some(held) = &self.held {
            let touched = docs.iter().fold(0u32, |x, &d| x ^ held.touch(d));
            std::hint::black_box(touched);
        }
        out.reserve(docs.len());
        for &d in docs {
            out.push(self.span(d)?.1);
        }
        Ok(())
    }

    /// Where document `doc`'s offsets lie in the ends file: the end before its value's
    /// (its start) and its own, 16 bytes; only its own end, 8 bytes, for the first
    /// document (whose start, 0, is not stored).
    fn offsets_of(&self, doc: u64) -> Result<(u64, u64), Error> {
        match doc.checked_mul(8) {
            Some(0) => Ok((0, 8)),
            Some(at) => Ok((at - 8, 16)),
            None => Err(out_of_range(&self.ends_path, doc)),
        }
    }

    /// The span of the value whose offsets are `b`, as [`offsets_of`](Self::offsets_of)
    /// places them: its start and length in bytes, checked against the values file's
    /// length.
    fn span_of(&self, b: &[u8]) -> Result<(u64, u64), Error> {
        let word = |i: usize| {
            b.get(i..i + 8)
                .and_then(|w| <[u8; 8]>::try_from(w).ok())
                .map_or(0, u64::from_le_bytes)
        };
        let (start, end) = match b.len() {
            8 => (0, word(0)),
            _ => (word(0), word(8)),
        };
        self.checked(start, end)
    }

    /// The value from offset `start` to `end` (in units): its start and length in
    /// bytes, checked against the values file's length.
    fn checked(&self, start: u64, end: u64) -> Result<(u64, u64), Error> {
        let unit = self.unit;
        end.checked_sub(start)
            .and_then(|n| n.checked_mul(unit))
            .zip(start.checked_mul(unit))
            .filter(|&(n, at)| at.saturating_add(n) <= self.values_len)
            .map(|(n, at)| (at, n))
            .ok_or_else(|| {
                Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: offsets {start}..{end} out of range",
                    self.ends_path.display()
                )))
            })
    }

    /// The spans of `docs` (in increasing order): from the offsets held, or with the
    /// offsets read together ([`read_spans`]).
    fn spans(&self, docs: &[u64]) -> Result<Vec<(u64, u64)>, Error> {
        if self.held.is_some() {
            return docs.iter().map(|&d| self.span(d)).collect();
        }
        let offsets = docs
            .iter()
            .map(|&d| self.offsets_of(d))
            .collect::<Result<Vec<_>, _>>()?;
        read_spans(&self.ends, &self.ends_path, &offsets, |_, b| {
            self.span_of(b)
        })
    }

    /// `parse(i, bytes)` of the value of each of `docs` (in increasing order), nearby
    /// ones read together ([`read_spans`]).
    fn get_many<T: Send>(
        &self,
        docs: &[u64],
        parse: impl Fn(usize, &[u8]) -> Result<T, Error> + Sync + Send,
    ) -> Result<Vec<T>, Error> {
        let spans = self.spans(docs)?;
        read_spans(&self.values, &self.values_path, &spans, parse)
    }
}

/// Documents per base offset of [`HeldEnds`].
const HELD_GROUP: u64 = 1024;

/// The end offsets of an ends file held in memory, about 4 bytes a document where the
/// file stores 8: per group of [`HELD_GROUP`] documents, the end before its first
/// document's value (a `u64`), and each document's end less that (a `u32`).
struct HeldEnds {
    bases: Vec<u64>,
    ends: Vec<u32>,
}

impl HeldEnds {
    /// The bytes held for the ends of `documents` documents.
    fn bytes(documents: u64) -> u64 {
        documents
            .saturating_mul(4)
            .saturating_add(documents.div_ceil(HELD_GROUP).saturating_mul(8))
    }

    /// The offsets of the ends file `file` (`len` bytes, 8 per document), read whole;
    /// `None` when a group's values span 2^32 units or more (they are then read from
    /// the file). A length that is not a whole number of offsets, or an offset below
    /// the one before, is a damaged file.
    fn read(file: &File, path: &Path, len: u64) -> Result<Option<Self>, Error> {
        use std::io::Read;
        let damaged = |what: &str| {
            damaged(
                path,
                ndd_scale::RecordError::Corrupt {
                    reason: what.to_owned(),
                },
            )
        };
        if len % 8 != 0 {
            return Err(damaged(
                "its length is not a whole number of 8-byte offsets",
            ));
        }
        let documents = usize::try_from(len / 8).map_err(|_| damaged("too long"))?;
        let mut held = HeldEnds {
            bases: Vec::with_capacity(usize::try_from((len / 8).div_ceil(HELD_GROUP)).unwrap_or(0)),
            ends: Vec::with_capacity(documents),
        };
        let mut r = std::io::BufReader::with_capacity(1 << 16, file);
        let (mut base, mut last) = (0u64, 0u64);
        let mut b = [0u8; 8];
        for i in 0..documents {
            r.read_exact(&mut b).map_err(|e| Error::io(path, e))?;
            let end = u64::from_le_bytes(b);
            if end < last {
                return Err(damaged(&format!(
                    "the offset of document {i}, {end}, is below the one before, {last}"
                )));
            }
            if i as u64 % HELD_GROUP == 0 {
                base = last;
                held.bases.push(base);
            }
            let Ok(delta) = u32::try_from(end - base) else {
                return Ok(None);
            };
            held.ends.push(delta);
            last = end;
        }
        Ok(Some(held))
    }

    /// Document `doc`'s stored end (0 beyond the last document), loaded only to bring
    /// its place into the cache ([`Indexed::lens`]).
    fn touch(&self, doc: u64) -> u32 {
        usize::try_from(doc)
            .ok()
            .and_then(|d| self.ends.get(d))
            .copied()
            .unwrap_or(0)
    }

    /// Document `doc`'s start and end offsets; `None` beyond the last document.
    fn get(&self, doc: u64) -> Option<(u64, u64)> {
        let end = |d: u64| -> Option<u64> {
            let i = usize::try_from(d).ok()?;
            let base = self.bases.get(usize::try_from(d / HELD_GROUP).ok()?)?;
            Some(base + u64::from(*self.ends.get(i)?))
        };
        let start = match doc {
            0 => 0,
            d => end(d - 1)?,
        };
        Some((start, end(doc)?))
    }
}

/// Reads a shingle set of `sets.bin` by document position.
pub(super) struct Sets(Indexed);

impl Sets {
    /// The sets of the work folder `dir`, their offsets held in memory when they fit
    /// in `share` bytes.
    pub(super) fn open(dir: &Path, share: u64) -> Result<Self, Error> {
        Indexed::open(dir, [SETS, SET_ENDS], 8, share).map(Sets)
    }

    /// The bytes of the sets of `docs` (in any order), in order, appended to `out` (8
    /// per shingle), their offsets looked up together.
    pub(super) fn lens(&self, docs: &[u64], out: &mut Vec<u64>) -> Result<(), Error> {
        self.0.lens(docs, out)
    }

    /// Whether the sets' offsets are held in memory: then [`lens`](Self::lens) reads
    /// nothing.
    pub(super) fn held(&self) -> bool {
        self.0.held.is_some()
    }

    /// The shingle sets of `docs` (in increasing order), in order: nearby ones read
    /// together, parsed in parallel under `rayon` into one buffer per chunk of reads
    /// ([`SetsRead`]), not a vector per set. The sketch stage wrote each set's values
    /// sorted and distinct, so they are taken as they are (checked, not sorted again); a
    /// set that is not is a damaged file.
    pub(super) fn get_many(&self, docs: &[u64]) -> Result<SetsRead, Error> {
        let spans = self.0.spans(docs)?;
        let path = &self.0.values_path;
        let chunks = read_spans_into(
            &self.0.values,
            path,
            &spans,
            |sets, bytes| {
                let values = usize::try_from(bytes / 8).unwrap_or(0);
                (Vec::with_capacity(values), Vec::with_capacity(sets))
            },
            |(values, ends): &mut (Vec<u64>, Vec<usize>), i, bytes| {
                let start = values.len();
                values.extend(
                    bytes
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))),
                );
                let set = values.get(start..).unwrap_or_default();
                if let Some(k) = set.windows(2).position(|w| w[0] >= w[1]) {
                    let doc = docs.get(i).copied().unwrap_or_default();
                    return Err(Error::Core(ndd_core::Error::corrupt_data(format!(
                        "{}: the set of document {doc}: its values are not strictly increasing at index {}",
                        path.display(),
                        k + 1
                    ))));
                }
                ends.push(values.len());
                Ok(())
            },
        )?;
        let mut at = Vec::with_capacity(docs.len());
        for (c, (_, ends)) in chunks.iter().enumerate() {
            let mut start = 0;
            for &end in ends {
                at.push((c, start..end));
                start = end;
            }
        }
        let values = chunks.into_iter().map(|(values, _)| values).collect();
        Ok(SetsRead { values, at })
    }
}

/// Shingle sets read together ([`Sets::get_many`]): the values of each chunk of reads
/// in one buffer, and where each set lies among them.
pub(super) struct SetsRead {
    values: Vec<Vec<u64>>,
    /// Per set, in order: its buffer and its values' range there.
    at: Vec<(usize, std::ops::Range<usize>)>,
}

impl SetsRead {
    /// The `i`th set read, sorted and distinct (empty past the last).
    pub(super) fn get(&self, i: usize) -> &[u64] {
        self.at
            .get(i)
            .and_then(|(c, r)| self.values.get(*c)?.get(r.clone()))
            .unwrap_or_default()
    }

    /// The number of sets read.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.at.len()
    }
}

/// Reads a document's text of `texts.bin` by document position.
pub(super) struct Texts(Indexed);

impl Texts {
    /// The texts of the work folder `dir`, their offsets held in memory when they
    /// fit in `share` bytes.
    pub(super) fn open(dir: &Path, share: u64) -> Result<Self, Error> {
        Indexed::open(dir, [TEXTS, TEXT_ENDS], 1, share).map(Texts)
    }

    /// The length of document `doc`'s text in bytes (what holding it costs).
    pub(super) fn len(&self, doc: u64) -> Result<u64, Error> {
        self.0.span(doc).map(|(_, n)| n)
    }

    /// The lengths of the texts of `docs` (in any order), in order, appended to `out`:
    /// [`len`](Self::len) of each, their offsets looked up together.
    pub(super) fn lens(&self, docs: &[u64], out: &mut Vec<u64>) -> Result<(), Error> {
        self.0.lens(docs, out)
    }

    /// The texts of `docs` (in increasing order), in order: nearby ones read
    /// together, checked in parallel under `rayon`.
    pub(super) fn get_many(&self, docs: &[u64]) -> Result<Vec<String>, Error> {
        self.0.get_many(docs, |i, bytes| {
            String::from_utf8(bytes.to_vec()).map_err(|_| {
                let doc = docs.get(i).copied().unwrap_or_default();
                Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: the text of document {doc} is not UTF-8",
                    self.0.values_path.display()
                )))
            })
        })
    }
}

/// A document position no work file can hold (a damaged pair file names it).
pub(super) fn out_of_range(path: &Path, doc: u64) -> Error {
    Error::Core(ndd_core::Error::corrupt_data(format!(
        "{}: document {doc} is beyond any position the file can hold",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]
    use super::{HELD_GROUP, HeldEnds, Indexed, SET_ENDS, SETS, Sets};

    /// A values file of `sizes[i]` 8-byte units per document (unit `j` of the file
    /// holds `j`) and its ends file, as the sketch stage writes them.
    fn files(sizes: &[u64]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        write_files(&dir, sizes, ["v.bin", "v.idx"]);
        dir
    }

    /// [`files`]'s two files, named `names`, in `dir`.
    fn write_files(dir: &tempfile::TempDir, sizes: &[u64], names: [&str; 2]) {
        let total: u64 = sizes.iter().sum();
        let values: Vec<u8> = (0..total).flat_map(u64::to_le_bytes).collect();
        let mut end = 0u64;
        let ends: Vec<u8> = sizes
            .iter()
            .flat_map(|n| {
                end += n;
                end.to_le_bytes()
            })
            .collect();
        std::fs::write(dir.path().join(names[0]), values).unwrap();
        std::fs::write(dir.path().join(names[1]), ends).unwrap();
    }

    /// Sizes from a small generator: zeros among them, some sets far apart (more
    /// than the reads' gap), some close.
    fn sizes(n: usize, max: u64) -> Vec<u64> {
        let mut x = 11u64;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (x >> 33) % max
            })
            .collect()
    }

    #[test]
    fn lens_looked_up_together_are_each_documents_bytes() {
        let sizes = sizes(3 * HELD_GROUP as usize + 7, 300);
        let dir = files(&sizes);
        // Documents in no order, repeated, the first and the last among them.
        let docs: Vec<u64> = (0..5_000u64)
            .map(|i| (i * 7_919) % sizes.len() as u64)
            .chain([0, sizes.len() as u64 - 1, 0])
            .collect();
        for share in [u64::MAX, 0] {
            let ix = open(&dir, share).unwrap();
            let mut got = vec![99];
            ix.lens(&docs, &mut got).unwrap();
            assert_eq!(got[0], 99, "appended, not replaced");
            let expected: Vec<u64> = docs.iter().map(|&d| 8 * sizes[d as usize]).collect();
            assert_eq!(got[1..], expected[..], "share {share}");
            // A document past the last: an error.
            assert!(ix.lens(&[1, sizes.len() as u64], &mut got).is_err());
        }
    }

    #[test]
    fn sets_read_together_are_each_documents_values() {
        let sizes = sizes(2_000, 400);
        let dir = tempfile::tempdir().unwrap();
        write_files(&dir, &sizes, [SETS, SET_ENDS]);
        let starts: Vec<u64> = sizes
            .iter()
            .scan(0u64, |at, &n| {
                *at += n;
                Some(*at - n)
            })
            .collect();
        // Every third document (most of them a read of their own), then a run of
        // neighbours (read together), so that the reads fill many chunks.
        let docs: Vec<u64> = (0..1_500u64).step_by(3).chain(1_500..2_000).collect();
        for share in [u64::MAX, 0] {
            let sets = Sets::open(dir.path(), share).unwrap();
            let read = sets.get_many(&docs).unwrap();
            assert_eq!(read.len(), docs.len());
            for (i, &d) in docs.iter().enumerate() {
                let from = starts[d as usize];
                let expected: Vec<u64> = (from..from + sizes[d as usize]).collect();
                assert_eq!(read.get(i), &expected[..], "document {d}");
            }
            assert!(read.get(docs.len()).is_empty());
        }
    }

    #[test]
    fn a_set_out_of_order_is_a_damaged_file() {
        let dir = tempfile::tempdir().unwrap();
        write_files(&dir, &[3, 2, 4], [SETS, SET_ENDS]);
        let path = dir.path().join(SETS);
        let mut bytes = std::fs::read(&path).unwrap();
        // Document 2's values are 5, 6, 7, 8: its third made 6, a repeat.
        bytes[7 * 8..8 * 8].copy_from_slice(&6u64.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let sets = Sets::open(dir.path(), u64::MAX).unwrap();
        assert_eq!(sets.get_many(&[0, 1]).unwrap().get(1), &[3, 4]);
        let err = sets.get_many(&[0, 2]).err().unwrap().to_string();
        assert!(
            err.contains("document 2") && err.contains("index 2"),
            "{err}"
        );
    }

    fn open(dir: &tempfile::TempDir, share: u64) -> Result<Indexed, crate::Error> {
        Indexed::open(dir.path(), ["v.bin", "v.idx"], 8, share)
    }

    #[test]
    fn held_offsets_give_every_document_its_own_values() {
        // Sizes from a small generator, zeros among them, over several groups.
        let mut x = 7u64;
        let sizes: Vec<u64> = (0..3 * HELD_GROUP + 5)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (x >> 59) % 9
            })
            .collect();
        let dir = files(&sizes);
        let held = open(&dir, u64::MAX).unwrap();
        let read = open(&dir, 0).unwrap();
        assert!(held.held.is_some() && read.held.is_none());
        let docs: Vec<u64> = (0..sizes.len() as u64).collect();
        // The oracle: each document's units are the running count before it, on.
        let mut start = 0u64;
        for (d, &n) in sizes.iter().enumerate() {
            let expected: Vec<u64> = (start..start + n).collect();
            for ix in [&held, &read] {
                assert_eq!(
                    ix.span(d as u64).unwrap(),
                    (8 * start, 8 * n),
                    "document {d}"
                );
            }
            start += n;
            let got = held
                .get_many(&[d as u64], |_, b| {
                    Ok(b.chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                        .collect::<Vec<u64>>())
                })
                .unwrap();
            assert_eq!(got, [expected]);
        }
        assert_eq!(held.spans(&docs).unwrap(), read.spans(&docs).unwrap());
        // A document past the last: an error either way.
        let past = sizes.len() as u64;
        assert!(held.span(past).is_err() && read.span(past).is_err());
    }

    #[test]
    fn offsets_are_held_only_within_the_share() {
        let sizes = vec![1u64; 2_000];
        let dir = files(&sizes);
        let need = HeldEnds::bytes(2_000);
        assert_eq!(need, 4 * 2_000 + 8 * 2);
        assert!(open(&dir, need).unwrap().held.is_some());
        assert!(open(&dir, need - 1).unwrap().held.is_none());
    }

    #[test]
    fn a_group_spanning_2_pow_32_units_is_read_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.idx");
        // The group's base is 0 (the end before its first document): 2^32 is too far.
        let ends: Vec<u8> = [5u64, 6, 1 << 32]
            .iter()
            .flat_map(|e| e.to_le_bytes())
            .collect();
        std::fs::write(&path, &ends).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        assert!(HeldEnds::read(&file, &path, 24).unwrap().is_none());
        // One unit less: held.
        let ends: Vec<u8> = [5u64, 6, (1 << 32) - 1]
            .iter()
            .flat_map(|e| e.to_le_bytes())
            .collect();
        std::fs::write(&path, &ends).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let held = HeldEnds::read(&file, &path, 24).unwrap().unwrap();
        assert_eq!(held.get(2), Some((6, (1 << 32) - 1)));
        assert_eq!((held.get(0), held.get(3)), (Some((0, 5)), None));
    }

    #[test]
    fn a_damaged_ends_file_read_into_memory_is_refused() {
        let dir = files(&[3, 4, 5]);
        let path = dir.path().join("v.idx");
        let good = std::fs::read(&path).unwrap();
        let refused = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let err = open(&dir, u64::MAX).err().unwrap();
            assert!(err.to_string().contains("damaged"), "{err}");
            assert!(err.to_string().contains("v.idx"), "{err}");
        };
        // Cut short by a few bytes.
        refused(&good[..good.len() - 3]);
        // The second offset below the first.
        let mut lower = good.clone();
        lower[8..16].copy_from_slice(&1u64.to_le_bytes());
        refused(&lower);
        // An offset past the values file: held, refused when read, as from the file.
        let mut past = good.clone();
        past[16..24].copy_from_slice(&100u64.to_le_bytes());
        std::fs::write(&path, &past).unwrap();
        for share in [u64::MAX, 0] {
            let ix = open(&dir, share).unwrap();
            assert!(ix.span(1).is_ok());
            let err = ix.span(2).unwrap_err();
            assert!(err.to_string().contains("out of range"), "{err}");
        }
    }
}

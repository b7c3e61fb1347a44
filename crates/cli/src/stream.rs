//! Streamed input (the documents of a JSONL file or a folder, one at a time) and the
//! warnings about bad lines and files every engine prints.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ndd_pipeline::corpus::{
    Accepted, FolderReader, JsonlReader, ParallelJsonl, ReadOptions, RecordFormat,
};
use ndd_pipeline::{Document, InputTexts, Problem, ndd_core};

use crate::error::CliError;
use crate::input::Source;

/// The accepted documents of a JSONL file or a folder, streamed (also `--bloom`'s
/// reader); a JSONL file's lines decoded on rayon's pool a batch at a time, as the
/// in-memory engine reads them.
pub(crate) enum Reader {
    Jsonl(Box<Accepted<ParallelJsonl<Box<dyn std::io::BufRead + Send>>>>),
    Folder(Box<Accepted<FolderReader>>),
}

impl Reader {
    pub(crate) fn open(path: &Path, options: &ReadOptions) -> Result<Self, CliError> {
        // Parquet and zstd records, and folders of shards, are read and copied back
        // by the in-memory engine.
        if let Some(format) = shard_input(path, options) {
            let what = match format {
                RecordFormat::Jsonl | RecordFormat::JsonlGzip => {
                    "a folder of JSON Lines shards".to_owned()
                }
                other => format!("{other:?} input"),
            };
            return Err(CliError::Usage(format!(
                "{}: {what} is read by the in-memory and saved-index engines only \
                 (not with --bloom or --work-dir); convert it to one JSON Lines file for those",
                path.display()
            )));
        }
        if path.is_dir() {
            let r = FolderReader::new(path, options)?;
            Ok(Reader::Folder(Box::new(
                Accepted::new(r, options).with_location(FolderReader::location),
            )))
        } else {
            let r = ParallelJsonl::new(JsonlReader::open(path, options)?);
            Ok(Reader::Jsonl(Box::new(
                Accepted::new(r, options).with_location(ParallelJsonl::location),
            )))
        }
    }

    /// [`open`](Self::open), and for a plain JSON Lines file (not compressed, not a
    /// folder) the start of each line noted as it is read ([`LineStarts`]): the
    /// out-of-core engine reads its documents again by byte range ([`InputLines`]).
    pub(crate) fn open_spanned(
        path: &Path,
        options: &ReadOptions,
    ) -> Result<(Self, Option<LineStarts>), CliError> {
        let plain = !path.is_dir()
            && shard_input(path, options).is_none()
            && first_bytes(path).is_ok_and(|b| {
                !b.starts_with(&[0x1f, 0x8b]) && !b.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            });
        if !plain {
            return Ok((Self::open(path, options)?, None));
        }
        let io = |e: std::io::Error| CliError::Input(format!("{}: {e}", path.display()));
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Ok((Self::open(path, options)?, None));
        }
        let starts = LineStarts::default();
        let noting = Noting {
            file,
            at: 0,
            starts: starts.clone(),
        };
        let r = JsonlReader::from_read(noting, path.display().to_string(), options)
            .map_err(io)?
            .with_total_bytes(meta.len());
        let r = ParallelJsonl::new(r);
        let reader = Reader::Jsonl(Box::new(
            Accepted::new(r, options).with_location(ParallelJsonl::location),
        ));
        Ok((reader, Some(starts)))
    }

    /// The same reader, handing every problem to `skipped` too (its counts by kind
    /// and the `--problems-out` list).
    pub(crate) fn with_skipped(self, skipped: &crate::skipped::Shared) -> Self {
        let sink = crate::skipped::sink(skipped);
        match self {
            Reader::Jsonl(r) => Reader::Jsonl(Box::new((*r).with_problem_sink(sink))),
            Reader::Folder(r) => Reader::Folder(Box::new((*r).with_problem_sink(sink))),
        }
    }

    /// The line of the document last yielded (JSONL).
    pub(crate) fn line(&self) -> Option<u64> {
        match self {
            Reader::Jsonl(r) => Some(r.reader().line()),
            Reader::Folder(_) => None,
        }
    }

    fn problems(&self) -> (&[Problem], u64) {
        match self {
            Reader::Jsonl(r) => (r.problems(), r.rejected()),
            Reader::Folder(r) => (r.problems(), r.rejected()),
        }
    }

    /// After the last document: an input without a usable document is an error (as
    /// when the input is read whole); otherwise the problems are reported on stderr.
    pub(crate) fn finish(&self, source: &Source, documents: u64) -> Result<(), CliError> {
        let (problems, rejected) = self.problems();
        let rejected = usize::try_from(rejected).unwrap_or(usize::MAX);
        if documents == 0 {
            return Err(ndd_pipeline::Error::NoDocuments {
                source_name: source.name(),
                rejected,
                first: problems.first().map_or_else(
                    || "the input is empty (no line or file to read)".to_owned(),
                    Problem::to_string,
                ),
            }
            .into());
        }
        if let Reader::Jsonl(r) = self {
            // A field the options name that no record has; those some lack.
            let jsonl = r.reader().reader();
            let (fields, options) = (jsonl.fields(), jsonl.options());
            fields.check(options)?;
            crate::input::check_fields(Some(fields), options)?;
        }
        crate::skipped::report_problems(problems, rejected);
        Ok(())
    }
}

impl Iterator for Reader {
    type Item = Result<Document, ndd_pipeline::Error>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Reader::Jsonl(r) => r.next().map(|r| r.map_err(Into::into)),
            Reader::Folder(r) => r.next().map(|r| r.map_err(Into::into)),
        }
    }
}

/// The format of an input read as records by ndd-corpus's shard reader and copied
/// back by its writer: a Parquet or zstd JSON Lines file, or a folder of shards
/// ([`RecordFormat::of_folder`]); `None` for a JSON Lines file or a folder read one
/// document per file.
pub(crate) fn shard_input(path: &Path, options: &ReadOptions) -> Option<RecordFormat> {
    if path.is_dir() {
        RecordFormat::of_folder(path, options)
    } else {
        RecordFormat::of_file(path)
            .ok()
            .filter(|f| matches!(f, RecordFormat::Parquet | RecordFormat::JsonlZstd))
    }
}

/// The first bytes of the file at `path` (at most four: gzip's and zstd's magic).
fn first_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut b = Vec::with_capacity(4);
    File::open(path)?.take(4).read_to_end(&mut b)?;
    Ok(b)
}

/// Where the lines of a plain JSON Lines file start, noted as its reader reads it
/// ([`Reader::open_spanned`]); [`span`](Self::span) hands out the byte range of the line
/// of each document yielded and forgets the lines before it, so that only the lines
/// the reader holds ahead of its documents (a batch or two) are kept.
#[derive(Clone, Default)]
pub(crate) struct LineStarts(Arc<Mutex<Starts>>);

#[derive(Default)]
struct Starts {
    /// The line (1-based) of `starts[0]`, 0 before the reader read anything.
    first: u64,
    /// The byte offsets where lines `first`, `first + 1`, ... start.
    starts: VecDeque<u64>,
}

impl LineStarts {
    /// Line `line`'s byte range in the file, its line end included (to `end`, the
    /// file's length, for a last line without one); `None` for a line already
    /// forgotten or not read yet. The lines before `line` are forgotten.
    pub(crate) fn span(&self, line: u64, end: u64) -> Option<Range<u64>> {
        let mut s = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let skip = line.checked_sub(s.first)?;
        for _ in 0..skip {
            if s.starts.pop_front().is_some() {
                s.first += 1;
            }
        }
        if s.first != line {
            return None;
        }
        let start = *s.starts.front()?;
        let stop = s.starts.get(1).copied().unwrap_or(end);
        (start < stop).then_some(start..stop)
    }
}

/// A file read by a JSON Lines reader, the start of each line noted in [`LineStarts`].
struct Noting {
    file: File,
    /// Bytes read so far.
    at: u64,
    starts: LineStarts,
}

impl Read for Noting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        let read = buf.get(..n).unwrap_or_default();
        let mut s = self.starts.0.lock().unwrap_or_else(PoisonError::into_inner);
        if self.at == 0 && n > 0 && s.starts.is_empty() {
            s.first = 1;
            s.starts.push_back(0);
        }
        let at = self.at;
        s.starts
            .extend(memchr::memchr_iter(b'\n', read).map(|i| at + i as u64 + 1));
        self.at += n as u64;
        Ok(n)
    }
}

/// Gaps between the lines read again up to which one read takes them together.
const GAP: u64 = 16 << 10;

/// A plain JSON Lines file read again by the out-of-core engine: the lines at the
/// byte ranges [`LineStarts`] gave, decoded as the stages' reader decoded them (the
/// same reader and options, a block of lines at a time on the pool). Refuses to read
/// a file whose length or modification time changed since it was opened (the run
/// also fingerprints its bytes at the start: a work folder of another input is
/// redone).
pub(crate) struct InputLines {
    file: Mutex<File>,
    path: PathBuf,
    options: ReadOptions,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl InputLines {
    pub(crate) fn open(path: &Path, options: &ReadOptions) -> Result<Self, CliError> {
        let io = |e: std::io::Error| CliError::Input(format!("{}: {e}", path.display()));
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        Ok(InputLines {
            file: Mutex::new(file),
            path: path.to_path_buf(),
            options: options.clone(),
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }

    /// The file's length, for [`LineStarts::span`].
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    fn changed(&self, why: &str) -> ndd_pipeline::Error {
        ndd_pipeline::Error::Core(ndd_core::Error::invalid_input(format!(
            "{}: {why}: the input changed while the stages read it; run again (the \
             stages that read it are redone)",
            self.path.display()
        )))
    }

    /// The bytes of the lines at `spans` (ascending), each ended by a line end, read
    /// a run of nearby lines at a time.
    fn lines(&self, spans: &[Range<u64>]) -> Result<Vec<u8>, ndd_pipeline::Error> {
        use std::io::{Seek, SeekFrom};
        let io = |e| ndd_pipeline::Error::io(&self.path, e);
        let mut f = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        let meta = f.metadata().map_err(io)?;
        if meta.len() != self.len || meta.modified().ok() != self.modified {
            return Err(self.changed("its length or modification time is not the one read"));
        }
        let total: u64 = spans
            .iter()
            .map(|r| r.end.saturating_sub(r.start) + 1)
            .sum();
        let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
        let mut run = Vec::new();
        let mut i = 0;
        while let Some(first) = spans.get(i) {
            let mut j = i + 1;
            while spans
                .get(j)
                .is_some_and(|r| r.start >= spans[j - 1].end && r.start - spans[j - 1].end <= GAP)
            {
                j += 1;
            }
            let end = spans[j - 1].end;
            if first.start > end || end > self.len {
                return Err(self.changed("a document's byte range lies outside it"));
            }
            run.resize(usize::try_from(end - first.start).unwrap_or(0), 0);
            f.seek(SeekFrom::Start(first.start)).map_err(io)?;
            f.read_exact(&mut run).map_err(io)?;
            for r in &spans[i..j] {
                let line = run
                    .get(usize::try_from(r.start - first.start).unwrap_or(usize::MAX)..)
                    .and_then(|b| b.get(..usize::try_from(r.end - r.start).unwrap_or(usize::MAX)))
                    .ok_or_else(|| self.changed("a document's byte range lies outside it"))?;
                out.extend_from_slice(line);
                if !line.ends_with(b"\n") {
                    out.push(b'\n');
                }
            }
            i = j;
        }
        Ok(out)
    }
}

impl InputTexts for InputLines {
    fn texts(&self, spans: &[Range<u64>]) -> Result<Vec<String>, ndd_pipeline::Error> {
        let lines = self.lines(spans)?;
        let name = self.path.display().to_string();
        let reader = JsonlReader::new(std::io::Cursor::new(lines), name, &self.options);
        let mut texts = Vec::with_capacity(spans.len());
        for doc in ParallelJsonl::new(reader) {
            match doc {
                Ok(doc) => texts.push(doc.text),
                Err(p) => {
                    return Err(self.changed(&format!("a line read again is no document ({p})")));
                }
            }
        }
        if texts.len() != spans.len() {
            return Err(self.changed("its lines read again are not the documents read"));
        }
        Ok(texts)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

    use super::*;

    /// The documents of a plain file with a byte order mark, a blank line, a line
    /// that is no JSON, `\r\n` ends and a last line without an end: each one's byte
    /// range noted as the reader reads, then its text read again by it; a file
    /// rewritten since (another length) is refused, not read at the old ranges.
    #[test]
    fn lines_noted_read_again_and_a_changed_file_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.jsonl");
        let lines = [
            "\u{feff}{\"id\":\"a\",\"text\":\"first text\"}\n",
            "\n",
            "{not json\n",
            "{\"id\":\"b\",\"text\":\"second\\u00e9 text\"}\r\n",
            "{\"id\":\"c\",\"text\":\"third text\"}",
        ];
        std::fs::write(&path, lines.concat()).unwrap();
        let options = ReadOptions::default();
        let (mut reader, starts) = Reader::open_spanned(&path, &options).unwrap();
        let starts = starts.unwrap();
        let input = InputLines::open(&path, &options).unwrap();
        let mut docs = Vec::new();
        while let Some(doc) = reader.next() {
            let Ok(doc) = doc else { continue };
            let line = reader.line().unwrap();
            docs.push((doc.text, starts.span(line, input.len()).unwrap()));
        }
        let at = |i: usize| lines[..i].concat().len() as u64;
        let spans: Vec<Range<u64>> = docs.iter().map(|(_, r)| r.clone()).collect();
        assert_eq!(spans, [at(0)..at(1), at(3)..at(4), at(4)..at(5)]);
        let texts = input.texts(&spans).unwrap();
        assert_eq!(texts, ["first text", "second\u{e9} text", "third text"]);
        assert_eq!(input.texts(&spans[1..2]).unwrap(), ["second\u{e9} text"]);
        // Rewritten: refused, whatever the ranges hold now.
        std::fs::write(&path, lines[1..].concat()).unwrap();
        let err = input.texts(&spans[1..]).unwrap_err().to_string();
        assert!(err.contains("the input changed"), "{err}");
        // A compressed file is not read by position.
        let gz = dir.path().join("in.jsonl.gz");
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut z, lines.concat().as_bytes()).unwrap();
        std::fs::write(&gz, z.finish().unwrap()).unwrap();
        assert!(Reader::open_spanned(&gz, &options).unwrap().1.is_none());
    }
}

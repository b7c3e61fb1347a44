//! Streamed input (the documents of a JSONL file or a folder, one at a time) and the
//! warnings about bad lines and files every engine prints.

use std::path::Path;

use ndd_pipeline::corpus::{
    Accepted, FolderReader, JsonlReader, ParallelJsonl, ReadOptions, RecordFormat,
};
use ndd_pipeline::{Document, Problem};

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

//! Corpus input for ndd: JSONL (plain or gzip-compressed) and folders of text/HTML
//! files, read into [`Document`]s.
//!
//! * [`read_corpus`] reads a whole corpus: a path that is a **folder** is read with
//!   [`FolderReader`] (one document per file); a path that is a **file** is JSON
//!   Lines read with [`JsonlReader`], gzip-compressed or not (recognized by its magic
//!   bytes, not its name). There is no single-text-file input: put one document in a
//!   folder, or in a one-line JSONL file.
//! * [`JsonlReader`] and [`FolderReader`] stream: they yield one
//!   `Result<`[`Document`]`, `[`Problem`]`>` at a time, hold one document in memory,
//!   and expose the bytes read for progress.
//! * [`ReadOptions`] names the JSONL fields (top-level names or JSON pointers such as
//!   `/meta/id`), sets HTML conversion, the [`TextEncoding`], the largest document
//!   accepted (64 MiB by default) and the [`ErrorPolicy`].
//! * A gzip file inside a folder is decompressed (bounded by the same limit) and read
//!   as the file it holds; UTF-16 with a byte order mark is decoded; legacy text only
//!   when [`ReadOptions::encoding`] asks. [`ReadStats`] counts what was decoded.
//! * [`FieldCounts`] says how many records had each field the options name; a
//!   required field that no record has is [`Error::FieldNotFound`].
//!
//! Rejected lines and files are [`Problem`]s: under [`ErrorPolicy::Skip`] they are
//! collected in [`Corpus::problems`] and reading goes on; under [`ErrorPolicy::Stop`]
//! the first becomes [`Error::Input`]. Input with no usable document, whether every
//! line or file was rejected or the file or folder is empty, is
//! [`Error::NoDocuments`], never an empty success.
//!
//! * [`Accepted`] streams what [`read_corpus`] keeps (the same duplicate-id rule and
//!   error policy) for corpora that do not fit in memory.
//! * [`input_fingerprint`] hashes the paths, sizes and modification times of an
//!   input's files, and [`input_content_fingerprint`] their bytes as well, to tell
//!   whether work saved for an input still belongs to it.
//!
//! `ndd-pipeline` re-exports this crate as `ndd_pipeline::corpus`, and its error type
//! converts from [`Error`].
//!
//! # Example
//!
//! ```
//! use near_dup::corpus::{read_corpus, ReadOptions};
//! let path = std::env::temp_dir().join(format!("ndd-doc-corpus-{}.jsonl", std::process::id()));
//! std::fs::write(&path, concat!(
//!     "{\"id\": \"a\", \"text\": \"the first letter\"}\n",
//!     "{\"id\": \"a\", \"text\": \"a second document with the same id\"}\n",
//!     "{\"id\": \"b\", \"text\": 42}\n",
//! ))?;
//! let corpus = read_corpus(&path, &ReadOptions::default())?;
//! assert_eq!(corpus.documents.len(), 1);
//! assert_eq!(corpus.problems.len(), 2);
//! assert!(corpus.problems[1].to_string().ends_with(":3: field \"text\" is a number, expected a string"));
//! std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

mod accept;
mod decode;
mod document;
mod error;
mod fields;
mod fingerprint;
mod flat_record;
mod folder;
mod id_runs;
mod jsonl;
mod options;
mod parallel;
#[cfg(feature = "parquet")]
mod parquet;
mod problems;
mod record;
mod shards;

pub use accept::{Accepted, KEPT_PROBLEMS, ProblemSink};
pub use document::{Document, OrderKey};
pub use error::Error;
pub use fields::{FieldCounts, FieldRole, MissingField};
pub use fingerprint::{input_content_fingerprint, input_fingerprint};
pub use folder::FolderReader;
pub use jsonl::JsonlReader;
pub use options::{DEFAULT_MAX_DOCUMENT_BYTES, ErrorPolicy, HtmlMode, ReadOptions, TextEncoding};
pub use parallel::ParallelJsonl;
#[cfg(feature = "parquet")]
pub use parquet::{MAX_ROW_GROUP_BYTES, ParquetCopier, ParquetReader};
pub use problems::{Problem, ProblemKind};
pub use record::{line_record, with_text};
pub use shards::{RecordFormat, RecordWriter, Shard, ShardReader};

/// The JSONL line parse with and without its flat-record path, for the criterion bench
/// that measures one against the other (`benches/jsonl.rs`); not part of the API.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{ReadOptions, bench_hooks};
/// let doc = bench_hooks::parse_line(r#"{"id": "a", "text": "b"}"#, &ReadOptions::default(), false)?;
/// assert_eq!((doc.id.as_str(), doc.text.as_str()), ("a", "b"));
/// # Ok::<(), String>(())
/// ```
#[doc(hidden)]
pub mod bench_hooks {
    use crate::{Document, ReadOptions};

    /// The document of one JSONL record as the reader parses it (`serde_only`: through
    /// `serde_json` alone, as before the flat-record path), or the problem's message.
    ///
    /// # Errors
    ///
    /// The problem's message when the line is not a record the reader accepts.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{bench_hooks::parse_line, ReadOptions};
    /// let opts = ReadOptions::default();
    /// let line = r#"{"id": "a", "text": "x\ny"}"#;
    /// assert_eq!(parse_line(line, &opts, false)?.text, "x\ny");
    /// assert_eq!(parse_line(line, &opts, true)?, parse_line(line, &opts, false)?);
    /// # Ok::<(), String>(())
    /// ```
    pub fn parse_line(
        line: &str,
        opts: &ReadOptions,
        serde_only: bool,
    ) -> Result<Document, String> {
        let parsed = if serde_only {
            crate::record::parse_line_serde(line, 1, opts)
        } else {
            crate::record::parse_line(line, 1, opts)
        };
        parsed.map(|(doc, _)| doc).map_err(|(_, message)| message)
    }

    /// The JSON string whose contents start at byte `start` of `line` (just after its
    /// opening quote), decoded as the flat-record path decodes a member it keeps, and
    /// the index of its closing quote; `None` for a string that path leaves to
    /// `serde_json` (an unknown escape, bad hex, a lone surrogate, no closing quote).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::bench_hooks::decode_string;
    /// let line = r#"{"text": "a\nb\u00e9", "id": "x"}"#;
    /// assert_eq!(decode_string(line, 10), Some(("a\nb\u{e9}".to_owned(), 20)));
    /// assert_eq!(decode_string(r#""bad \x""#, 1), None);
    /// ```
    #[must_use]
    pub fn decode_string(line: &str, start: usize) -> Option<(String, usize)> {
        crate::flat_record::decode_string(line, start)
    }

    /// The walk over a JSON string whose contents start at byte `start` of `bytes`
    /// that the flat-record path makes for a member it does not keep: the index of the
    /// closing quote and the length of the decoded contents in bytes, `None` where
    /// [`decode_string`] answers `None`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::bench_hooks::scan_string;
    /// assert_eq!(scan_string(br#""a\nb\u00e9""#, 1), Some((11, 5)));
    /// ```
    #[must_use]
    pub fn scan_string(bytes: &[u8], start: usize) -> Option<(usize, usize)> {
        crate::flat_record::scan_string(bytes, start)
    }
}

/// A corpus read whole: its documents in input order, the problems met, and counts.
///
/// # Example
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndd-doc-c-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("a.txt"), "some text")?;
/// let corpus = near_dup::corpus::read_corpus(&dir, &Default::default())?;
/// assert_eq!(corpus.documents[0].id, "a.txt");
/// assert!(corpus.problems.is_empty());
/// assert_eq!(corpus.stats.documents, 1);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Corpus {
    /// The accepted documents, in input order, with distinct ids.
    pub documents: Vec<Document>,
    /// The rejected lines and files, in input order (empty under
    /// [`ErrorPolicy::Stop`], which returns the first instead).
    pub problems: Vec<Problem>,
    /// Counts of what was read.
    pub stats: ReadStats,
    /// For a JSONL input, the 1-based line number of each document, in the order of
    /// [`documents`](Self::documents): where its record is, to copy it unchanged into
    /// a deduplicated output. Empty for a folder (a document's id is its path).
    pub lines: Vec<u64>,
    /// The files of records the documents came from, in reading order, with how many
    /// documents each gave: the input file (JSON Lines or Parquet), or the shards of
    /// a folder of shards ([`ShardReader`]); document `i` is in the shard that the
    /// counts place it in, at line (or row) [`lines`](Self::lines)`[i]`. Empty for a
    /// folder of text files and for standard input.
    pub shards: Vec<Shard>,
    /// For a JSONL input, how many records had each field the options name (see
    /// [`FieldCounts::missing`] for the fields some records lack). `None` for a folder.
    pub fields: Option<FieldCounts>,
}

/// Counts of a [`read_corpus`] run.
///
/// `records = documents + rejected`.
///
/// # Example
///
/// ```
/// let s = near_dup::corpus::ReadStats::default();
/// assert_eq!(s.records, s.documents + s.rejected);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ReadStats {
    /// Non-blank JSONL lines, or folder entries that were examined (files read or
    /// rejected, loops, unreadable entries).
    pub records: usize,
    /// Documents accepted.
    pub documents: usize,
    /// Records rejected (one [`Problem`] each).
    pub rejected: usize,
    /// Blank JSONL lines skipped (not problems).
    pub blank_lines: u64,
    /// Folder entries reached again through a symbolic link, and so not read again.
    pub revisited: u64,
    /// Bytes read: of the file on disk for JSONL (compressed, if it is), of the files
    /// read for a folder (as stored, for a gzip file).
    pub bytes_read: u64,
    /// Folder files decoded from UTF-16 (they start with its byte order mark).
    pub utf16_decoded: u64,
    /// Folder files and JSONL lines with a byte outside ASCII decoded from the legacy
    /// encoding [`ReadOptions::encoding`] names.
    pub legacy_decoded: u64,
}

/// Where a [`read_corpus_with_progress`] run stands, passed to its callback after each
/// line or file.
///
/// # Example
///
/// ```
/// let p = near_dup::corpus::Progress::default();
/// assert_eq!((p.bytes_read, p.total_bytes), (0, None));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Progress {
    /// Bytes read so far (see [`ReadStats::bytes_read`]).
    pub bytes_read: u64,
    /// The input's size in the same units, when known (a JSONL file's size; unknown
    /// for a folder, which is not walked twice to learn it).
    pub total_bytes: Option<u64>,
    /// Documents accepted so far.
    pub documents: usize,
    /// Records rejected so far.
    pub rejected: usize,
}

/// Reads a whole corpus: a folder with [`FolderReader`], a file as JSONL (plain or
/// gzip) with [`JsonlReader`].
///
/// Documents keep input order. Ids must be distinct: the first document with an id is
/// kept and every later one is rejected as a [`ProblemKind::DuplicateId`] problem at
/// its own location. Problems follow [`ReadOptions::errors`].
///
/// # Errors
///
/// * [`Error::Io`] if `path` cannot be examined or opened;
/// * [`Error::Input`] at the first problem under [`ErrorPolicy::Stop`];
/// * [`Error::NoDocuments`] if no document was accepted: every record was rejected,
///   or the input is empty (an empty or all-blank file, a folder without files).
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_corpus, ErrorPolicy, ReadOptions};
/// use near_dup::corpus::Error;
/// let path = std::env::temp_dir().join(format!("ndd-doc-read-{}.jsonl", std::process::id()));
/// std::fs::write(&path, "{\"body\": \"kept\"}\n{\"body\": true}\n")?;
/// let opts = ReadOptions::default().with_text_field("body");
/// assert_eq!(read_corpus(&path, &opts)?.documents[0].text, "kept");
/// let stop = opts.with_errors(ErrorPolicy::Stop);
/// match read_corpus(&path, &stop) {
///     Err(Error::Input { location, message }) => {
///         assert!(location.ends_with(":2"));
///         assert_eq!(message, "field \"body\" is a boolean, expected a string");
///     }
///     other => panic!("{other:?}"),
/// }
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_corpus(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Corpus, Error> {
    read_corpus_with_progress(path, options, |_| {})
}

/// [`read_corpus`] calling `progress` after each line or file (for a progress bar).
///
/// # Errors
///
/// As [`read_corpus`].
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_corpus_with_progress, ReadOptions};
/// let path = std::env::temp_dir().join(format!("ndd-doc-prog-{}.jsonl", std::process::id()));
/// std::fs::write(&path, "{\"text\": \"a\"}\n{\"text\": \"b\"}\n")?;
/// let mut last = None;
/// read_corpus_with_progress(&path, &ReadOptions::default(), |p| last = Some(p))?;
/// let last = last.unwrap();
/// assert_eq!((last.documents, Some(last.bytes_read)), (2, last.total_bytes));
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_corpus_with_progress(
    path: impl AsRef<Path>,
    options: &ReadOptions,
    progress: impl FnMut(Progress),
) -> Result<Corpus, Error> {
    read_corpus_hooked::<()>(path.as_ref(), options, progress, None).map(|(corpus, _)| corpus)
}

/// A function of a document computed as the corpus is read
/// ([`read_corpus_with_hook`]): a digest or a fingerprint of its text, say, that a
/// later stage would otherwise compute in a pass of its own over every text.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{DocHook, Document};
/// let length: DocHook<usize> = std::sync::Arc::new(|d: &Document| d.text.len());
/// assert_eq!(length(&Document::new("a", "four")), 4);
/// ```
pub type DocHook<T> = std::sync::Arc<dyn Fn(&Document) -> T + Send + Sync>;

/// [`read_corpus_with_progress`] with `hook`'s value of every document read, one per
/// document of [`Corpus::documents`], in their order.
///
/// A JSON Lines file (plain, gzip or zstd) under the `rayon` feature gets the values
/// where its lines are decoded: on the pool, right after each document is decoded,
/// while its text is still in that core's cache and while the calling thread takes
/// the batch before (work that fills the pool's waits for the next batch instead of
/// a pass of its own after the reading). Other inputs get them after the reading,
/// over the documents (in parallel under `rayon`). The values are the same either way;
/// the hook also runs for documents that are then rejected (a duplicate id), whose
/// values are dropped.
///
/// # Errors
///
/// As [`read_corpus`].
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use near_dup::corpus::{read_corpus_with_hook, Document, ReadOptions};
/// let path = std::env::temp_dir().join(format!("ndd-doc-hook-{}.jsonl", std::process::id()));
/// std::fs::write(&path, "{\"id\": \"a\", \"text\": \"one two\"}\n{\"id\": \"a\", \"text\": \"dropped\"}\n{\"id\": \"b\", \"text\": \"three\"}\n")?;
/// let words = Arc::new(|d: &Document| d.text.split_whitespace().count());
/// let (corpus, values) = read_corpus_with_hook(&path, &ReadOptions::default(), |_| {}, words)?;
/// assert_eq!(corpus.documents.len(), 2); // the second "a" is a duplicate id
/// assert_eq!(values, [2, 1]);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_corpus_with_hook<T: Send + 'static>(
    path: impl AsRef<Path>,
    options: &ReadOptions,
    progress: impl FnMut(Progress),
    hook: DocHook<T>,
) -> Result<(Corpus, Vec<T>), Error> {
    let (corpus, values) =
        read_corpus_hooked(path.as_ref(), options, progress, Some(hook.clone()))?;
    let values = values.unwrap_or_else(|| values_of(&corpus.documents, &*hook));
    Ok((corpus, values))
}

/// `hook`'s value of each document (in parallel under `rayon`).
fn values_of<T: Send>(
    documents: &[Document],
    hook: &(dyn Fn(&Document) -> T + Send + Sync),
) -> Vec<T> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        documents.par_iter().with_min_len(64).map(hook).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        documents.iter().map(hook).collect()
    }
}

/// [`read_corpus_with_progress`], and `hook`'s values when the reader computed them
/// as it decoded (`None`: not computed, the caller computes them).
fn read_corpus_hooked<T: Send + 'static>(
    path: &Path,
    options: &ReadOptions,
    progress: impl FnMut(Progress),
    hook: Option<DocHook<T>>,
) -> Result<(Corpus, Option<Vec<T>>), Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        if let Some(format) = shards::shard_folder(path, options) {
            let mut reader = ShardReader::new(path, format, options);
            let mut corpus = collect(
                &mut reader,
                &path.display().to_string(),
                options,
                progress,
                ShardReader::progress_bytes,
                ShardReader::location,
                |r| {
                    r.accepted();
                    r.last_record().map(|(_, line)| line)
                },
            )?;
            corpus.shards = reader.into_shards();
            return Ok((corpus, None));
        }
        let mut reader = FolderReader::new(path, options)?;
        let mut corpus = collect(
            &mut reader,
            &path.display().to_string(),
            options,
            progress,
            |r| (r.bytes_read(), None),
            FolderReader::location,
            |_| None,
        )?;
        corpus.stats.revisited = reader.revisited();
        (corpus.stats.utf16_decoded, corpus.stats.legacy_decoded) = reader.decoded();
        Ok((corpus, None))
    } else {
        let format = RecordFormat::of_file(path)?;
        let (mut corpus, values) = match format {
            #[cfg(feature = "parquet")]
            RecordFormat::Parquet => {
                let mut reader = ParquetReader::open(path, options)?;
                let corpus = collect(
                    &mut reader,
                    &path.display().to_string(),
                    options,
                    progress,
                    |r| {
                        let (read, total) = r.bytes();
                        (read, Some(total))
                    },
                    ParquetReader::location,
                    |r| Some(r.row()),
                )?;
                (corpus, None)
            }
            _ => read_jsonl_hooked(JsonlReader::open(path, options)?, progress, hook)?,
        };
        corpus.shards = vec![Shard {
            path: path.to_path_buf(),
            format,
            documents: corpus.documents.len(),
        }];
        Ok((corpus, values))
    }
}

/// Reads a whole JSONL corpus from `reader` (standard input, for example:
/// [`JsonlReader::from_read`]) as [`read_corpus`] reads a JSONL file: the same
/// documents, problems, counts and errors, with the reader's name in locations.
///
/// # Errors
///
/// As [`read_corpus`], with the reader's name in place of a path.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_jsonl_with_progress, JsonlReader, ReadOptions};
/// let input: &[u8] = b"{\"id\": \"a\", \"text\": \"alpha\"}\n\n{\"id\": \"b\", \"text\": \"beta\"}\n";
/// let reader = JsonlReader::from_read(input, "<stdin>", &ReadOptions::default())?;
/// let corpus = read_jsonl_with_progress(reader, |_| {})?;
/// assert_eq!(corpus.documents[1].text, "beta");
/// assert_eq!(corpus.lines, [1, 3]); // where each record is
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_jsonl_with_progress<R: std::io::BufRead + Send>(
    reader: JsonlReader<R>,
    progress: impl FnMut(Progress),
) -> Result<Corpus, Error> {
    read_jsonl_hooked::<R, ()>(reader, progress, None).map(|(corpus, _)| corpus)
}

/// [`read_jsonl_with_progress`] with `hook`'s value of every document read, as
/// [`read_corpus_with_hook`] gives them for a JSON Lines file.
///
/// # Errors
///
/// As [`read_jsonl_with_progress`].
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use near_dup::corpus::{read_jsonl_with_hook, Document, JsonlReader, ReadOptions};
/// let input: &[u8] = b"{\"id\": \"a\", \"text\": \"alpha\"}\n{\"id\": \"b\", \"text\": \"be\"}\n";
/// let reader = JsonlReader::from_read(input, "<stdin>", &ReadOptions::default())?;
/// let (corpus, lengths) = read_jsonl_with_hook(reader, |_| {}, Arc::new(|d: &Document| d.text.len()))?;
/// assert_eq!((corpus.documents.len(), lengths), (2, vec![5, 2]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_jsonl_with_hook<R: std::io::BufRead + Send, T: Send + 'static>(
    reader: JsonlReader<R>,
    progress: impl FnMut(Progress),
    hook: DocHook<T>,
) -> Result<(Corpus, Vec<T>), Error> {
    let (corpus, values) = read_jsonl_hooked(reader, progress, Some(hook.clone()))?;
    let values = values.unwrap_or_else(|| values_of(&corpus.documents, &*hook));
    Ok((corpus, values))
}

/// [`read_jsonl_with_progress`], and `hook`'s values when the reader computed them as
/// it decoded (`None`: not computed, without `rayon`).
fn read_jsonl_hooked<R: std::io::BufRead + Send, T: Send + 'static>(
    mut reader: JsonlReader<R>,
    progress: impl FnMut(Progress),
    hook: Option<DocHook<T>>,
) -> Result<(Corpus, Option<Vec<T>>), Error> {
    let options = reader.options().clone();
    let name = reader.name().to_owned();
    #[cfg(feature = "rayon")]
    {
        // Lines decoded in parallel a batch at a time, the next batch read
        // meanwhile: the same items in the same order.
        let hooked = hook.is_some();
        let mut values = Vec::new();
        let corpus = jsonl::read_ahead(&mut reader, hook, |batched| {
            let mut corpus = collect(
                batched,
                &name,
                &options,
                progress,
                jsonl::Batched::bytes,
                jsonl::Batched::location,
                |r| {
                    // Each accepted document's value (a hook gives every document one).
                    values.extend(r.take_value());
                    Some(r.line())
                },
            )?;
            corpus.stats.blank_lines = batched.blank_lines();
            Ok::<_, Error>(corpus)
        })?;
        Ok((finish_jsonl(corpus, &reader)?, hooked.then_some(values)))
    }
    #[cfg(not(feature = "rayon"))]
    {
        drop(hook);
        let mut corpus = collect(
            &mut reader,
            &name,
            &options,
            progress,
            |r| (r.bytes_read(), r.total_bytes()),
            JsonlReader::location,
            |r| Some(r.lines()),
        )?;
        corpus.stats.blank_lines = reader.blank_lines();
        Ok((finish_jsonl(corpus, &reader)?, None))
    }
}

/// A JSONL corpus read: its field counts and legacy decodings, and the error for a
/// field that the options name and no record has.
fn finish_jsonl<R: std::io::BufRead>(
    mut corpus: Corpus,
    reader: &JsonlReader<R>,
) -> Result<Corpus, Error> {
    reader.fields().check(reader.options())?;
    corpus.stats.legacy_decoded = reader.legacy_decoded();
    corpus.fields = Some(reader.fields().clone());
    Ok(corpus)
}

/// Drives a reader: duplicate ids, the error policy, counts, progress, NoDocuments.
fn collect<I>(
    reader: &mut I,
    source_name: &str,
    options: &ReadOptions,
    mut progress: impl FnMut(Progress),
    bytes: impl Fn(&I) -> (u64, Option<u64>),
    location: impl Fn(&I) -> String,
    // The accepted document's line (and, for shards, the count of its shard; for a
    // hooked reader, the document's value).
    mut line: impl FnMut(&mut I) -> Option<u64>,
) -> Result<Corpus, Error>
where
    I: Iterator<Item = Result<Document, Problem>> + IdHash,
{
    let mut documents = Vec::new();
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let mut ids = SeenIds::new(id_hasher());
    let mut sized = false;
    while let Some(item) = reader.next() {
        if !sized && documents.len() == SIZE_AFTER {
            // Room for the ids the input's size promises at this rate: the id set
            // grown by doubling rehashed every id again and again on the calling
            // thread (43 of its 970 samples in the read phase, issue 31).
            sized = true;
            if let Some(n) = expected_documents(bytes(reader), documents.len()) {
                ids.reserve(n);
            }
        }
        let rejected = match item {
            Ok(doc) if !ids.first_time_keyed(reader.id_key(), &doc.id, &documents) => {
                Some(Problem::new(
                    location(reader),
                    format!(
                        "duplicate id {:?}: an earlier document has it (the first is kept)",
                        doc.id
                    ),
                    ProblemKind::DuplicateId,
                ))
            }
            Ok(doc) => {
                documents.push(doc);
                if let Some(l) = line(reader) {
                    lines.push(l);
                }
                None
            }
            Err(problem) => Some(problem),
        };
        if let Some(rejected) = rejected {
            if options.errors == ErrorPolicy::Stop {
                return Err(rejected.into());
            }
            problems.push(rejected);
        }
        report(
            &mut progress,
            reader,
            &bytes,
            documents.len(),
            problems.len(),
        );
    }
    if documents.is_empty() {
        return Err(Error::NoDocuments {
            source_name: source_name.to_owned(),
            rejected: problems.len(),
            first: problems.first().map_or_else(
                || "the input is empty (no line or file to read)".to_owned(),
                Problem::to_string,
            ),
        });
    }
    let (bytes_read, _) = bytes(reader);
    let stats = ReadStats {
        records: documents.len() + problems.len(),
        documents: documents.len(),
        rejected: problems.len(),
        blank_lines: 0,
        revisited: 0,
        bytes_read,
        utf16_decoded: 0,
        legacy_decoded: 0,
    };
    Ok(Corpus {
        documents,
        problems,
        stats,
        lines,
        shards: Vec::new(),
        fields: None,
    })
}

/// Documents read before [`collect`] sizes its vectors and the id set for the rest.
const SIZE_AFTER: usize = 4096;

/// The most ids [`collect`] makes room for at once (a table of 2^21 buckets, 32 MiB
/// allocated, 2 MiB of it written): a guess from a rate, not a promise.
const MAX_SIZED: usize = 1 << 20;

/// The documents still to come when `documents` came with the first `read` bytes of
/// `total`, at the same rate (and an eighth more: `read` is at the end of the batch
/// read, a little ahead of the documents taken), at most [`MAX_SIZED`]; `None` when the
/// total is unknown.
fn expected_documents((read, total): (u64, Option<u64>), documents: usize) -> Option<usize> {
    let total = total?;
    if read == 0 || total <= read {
        return None;
    }
    let rate = documents as f64 / read as f64;
    let rest = (total - read) as f64 * rate * 1.125;
    // Saturating: a rate that promises more than the bound is cut to it.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let rest = rest.min(MAX_SIZED as f64) as usize;
    Some(rest)
}

/// A reader's [`IdKey`] of the last document's id, when it has one (the batched
/// JSONL reader finds it on the pool); `collect` finds it otherwise.
trait IdHash {
    fn id_key(&self) -> Option<IdKey> {
        None
    }
}

/// What the duplicate-id check reads of an id: its hash by [`id_hasher`] and the
/// integer it writes ([`id_runs::integer`]). Found where the id was decoded, the check
/// on the calling thread never reads the id's bytes (unless two hashes collide).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct IdKey {
    hash: u64,
    integer: Option<u64>,
}

impl IdKey {
    /// The key of `id`.
    #[cfg(feature = "rayon")]
    fn of(id: &str) -> Self {
        IdKey {
            hash: std::hash::BuildHasher::hash_one(&id_hasher(), id),
            integer: id_runs::integer(id),
        }
    }
}

impl IdHash for ShardReader {}
impl IdHash for FolderReader {}
#[cfg(feature = "parquet")]
impl IdHash for ParquetReader {}
impl<R: std::io::BufRead> IdHash for JsonlReader<R> {}
#[cfg(feature = "rayon")]
impl<R: std::io::BufRead + Send, T: Send + 'static> IdHash for jsonl::Batched<R, T> {
    fn id_key(&self) -> Option<IdKey> {
        Some(jsonl::Batched::id_key(self))
    }
}

/// The hasher of the duplicate-id check (in memory only, never persisted): `ahash` with
/// fixed keys, so that the batched JSONL reader can hash ids on the pool before the
/// check sees them. Ids whose 64-bit hashes collide are still told apart (by value).
fn id_hasher() -> ahash::RandomState {
    ahash::RandomState::with_seeds(
        0x243F_6A88_85A3_08D3,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
    )
}

/// The ids of the documents kept so far, without a copy of them: integer ids in
/// ascending runs as ranges ([`IdRuns`](id_runs::IdRuns)); each other id's hash
/// maps to the first kept document with that hash, whose id is compared; the rare
/// ids whose hash is already taken by another id are kept apart, by value.
struct SeenIds<H> {
    runs: id_runs::IdRuns,
    hasher: H,
    by_hash: ahash::AHashMap<u64, usize>,
    collided: ahash::AHashSet<String>,
    /// Room [`reserve`](Self::reserve) asked for, made when the first id the runs do
    /// not hold arrives (never, for ascending integer ids).
    wanted: usize,
}

impl<H: std::hash::BuildHasher> SeenIds<H> {
    fn new(hasher: H) -> Self {
        SeenIds {
            runs: id_runs::IdRuns::default(),
            hasher,
            by_hash: ahash::AHashMap::new(),
            collided: ahash::AHashSet::new(),
            wanted: 0,
        }
    }

    /// Makes room for `more` ids in the hash map, once an id arrives that it holds:
    /// ids the runs hold need none.
    fn reserve(&mut self, more: usize) {
        self.wanted = more;
    }

    /// Whether no document of `kept` has `id`, where `kept` holds every document
    /// this set was asked about and answered `true` for, in order; if so, `id` is
    /// recorded as the id of the next document of `kept` (the caller pushes it).
    #[cfg(test)]
    fn first_time(&mut self, id: &str, kept: &[Document]) -> bool {
        self.first_time_keyed(None, id, kept)
    }

    /// Whether no document of `kept` has `id` (the tests' `first_time`), with `id`'s [`IdKey`] when the caller has it
    /// (the batched JSONL reader finds it on the pool, where the id was just decoded; on
    /// the calling thread the id's bytes missed the cache). The key's hash is by
    /// [`id_hasher`], so it is used only with that hasher's set.
    fn first_time_keyed(&mut self, key: Option<IdKey>, id: &str, kept: &[Document]) -> bool {
        use std::collections::hash_map::Entry;
        let integer = match key {
            Some(k) => k.integer,
            None => id_runs::integer(id),
        };
        match self.runs.first_time_integer(integer) {
            id_runs::Known::Seen => return false,
            id_runs::Known::New => return true,
            id_runs::Known::Ask => {}
        }
        if self.wanted > 0 {
            self.by_hash.reserve(std::mem::take(&mut self.wanted));
        }
        let hash = key.map_or_else(|| self.hasher.hash_one(id), |k| k.hash);
        match self.by_hash.entry(hash) {
            Entry::Vacant(v) => {
                v.insert(kept.len());
                true
            }
            Entry::Occupied(o) if kept.get(*o.get()).is_some_and(|d| d.id == id) => false,
            Entry::Occupied(_) => self.collided.insert(id.to_owned()),
        }
    }
}

fn report<I>(
    progress: &mut impl FnMut(Progress),
    reader: &I,
    bytes: &impl Fn(&I) -> (u64, Option<u64>),
    documents: usize,
    rejected: usize,
) {
    let (bytes_read, total_bytes) = bytes(reader);
    progress(Progress {
        bytes_read,
        total_bytes,
        documents,
        rejected,
    });
}

/// `lines` JSONL lines for the readers' tests (three batches by line count at 40,000):
/// every 1,009th blank, every 997th not JSON, the others documents `d{i}` with a
/// two-line text; when `duplicate_every` is not 0, every such line's id repeats the
/// line before's.
#[cfg(test)]
fn mixed_jsonl(lines: u32, duplicate_every: u32) -> String {
    use std::fmt::Write as _;
    let mut input = String::new();
    for i in 0..lines {
        if i % 1_009 == 0 {
            input.push('\n');
        } else if i % 997 == 0 {
            input.push_str("{not json\n");
        } else {
            let id = if duplicate_every != 0 && i % duplicate_every == 0 {
                i - 1
            } else {
                i
            };
            let _ = writeln!(input, r#"{{"id": "d{id}", "text": "word {i}\n again"}}"#);
        }
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

    /// Hashes every id to one of `BUCKETS` values: most ids collide.
    #[derive(Default)]
    struct Few(u64);
    const BUCKETS: u64 = 3;
    impl Hasher for Few {
        fn finish(&self) -> u64 {
            self.0 % BUCKETS
        }
        fn write(&mut self, bytes: &[u8]) {
            self.0 = bytes.iter().map(|&b| u64::from(b)).sum();
        }
    }

    /// Drives `seen` over ids as `collect` does and checks every answer against a set
    /// of the ids by value.
    fn check<H: BuildHasher>(mut seen: SeenIds<H>, ids: &[String]) {
        let mut kept = Vec::new();
        let mut oracle = std::collections::HashSet::new();
        for id in ids {
            let first = seen.first_time(id, &kept);
            assert_eq!(first, oracle.insert(id.clone()), "id {id:?}");
            if first {
                kept.push(Document::new(id.clone(), "t"));
            }
        }
    }

    #[test]
    fn expected_documents_scale_the_rate_to_the_rest_of_the_input() {
        // 4,096 documents in the first 4 MB of 40 MB: 36,864 more, and an eighth.
        assert_eq!(
            expected_documents((4_000_000, Some(40_000_000)), 4096),
            Some(41_472)
        );
        assert_eq!(expected_documents((4_000_000, None), 4096), None);
        assert_eq!(expected_documents((0, Some(10)), 4096), None);
        assert_eq!(expected_documents((10, Some(10)), 4096), None);
        // Tiny documents in a huge input: the bound.
        assert_eq!(
            expected_documents((4096, Some(u64::MAX)), 4096),
            Some(MAX_SIZED)
        );
    }

    #[test]
    fn seen_ids_equal_a_set_of_the_ids_even_when_every_hash_collides() {
        let mut ids = Vec::new();
        let mut x = 12345u64;
        for _ in 0..5_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ids.push(format!("d{}", (x >> 33) % 700));
        }
        check(SeenIds::new(BuildHasherDefault::<Few>::default()), &ids);
        check(SeenIds::new(ahash::RandomState::new()), &ids);
    }

    #[test]
    fn seen_ids_equal_a_set_of_the_ids_when_integer_runs_and_words_mix() {
        // Line numbers with gaps and repeats, integers out of order, other spellings
        // of the same numbers and words: the runs and the hashed ids together.
        let mut ids = Vec::new();
        let mut x = 99u64;
        for i in 0..5_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ids.push(match (x >> 33) % 6 {
                0 => format!("d{}", (x >> 33) % 700),
                1 => ((x >> 33) % 2_000).to_string(),
                2 => format!("0{}", (x >> 33) % 100),
                _ => (i + (x >> 33) % 4).to_string(),
            });
        }
        check(SeenIds::new(BuildHasherDefault::<Few>::default()), &ids);
        check(SeenIds::new(ahash::RandomState::new()), &ids);
    }

    #[test]
    fn seen_ids_make_room_in_the_hash_map_only_for_an_id_the_runs_do_not_hold() {
        // Line numbers: the runs hold them all, the room asked for is never made.
        let mut seen = SeenIds::new(id_hasher());
        let mut kept = Vec::new();
        for i in 1..=100u64 {
            if i == 10 {
                seen.reserve(10_000);
            }
            assert!(seen.first_time(&i.to_string(), &kept));
            kept.push(Document::new(i.to_string(), "t"));
        }
        assert_eq!(seen.by_hash.capacity(), 0);
        // The first other id makes it, before it is recorded.
        assert!(seen.first_time("a", &kept));
        assert!(seen.by_hash.capacity() >= 10_000);
        assert_eq!(seen.by_hash.len(), 1);
        kept.push(Document::new("a", "t"));
        assert!(!seen.first_time("a", &kept));
        assert!(!seen.first_time("50", &kept));
    }

    /// The hooked readers give each accepted document the hook's value of that
    /// document: over several batches, with blank and malformed lines and duplicate
    /// ids (rejected after their value was computed), on the calling thread and inside
    /// a pool of one thread, and for a folder (values computed after the reading).
    #[test]
    fn hooked_reading_gives_each_accepted_document_its_value() {
        // Every 13th id repeats an earlier one: a duplicate id.
        let input = mixed_jsonl(40_000, 13);
        let opts = ReadOptions::default();
        let hook: DocHook<String> =
            std::sync::Arc::new(|d: &Document| format!("{}/{}", d.id, d.text));
        let plain =
            read_jsonl_with_progress(JsonlReader::new(input.as_bytes(), "x", &opts), |_| {})
                .map_err(|e| e.to_string());
        let expected: Vec<String> = match &plain {
            Ok(c) => c.documents.iter().map(|d| hook(d)).collect(),
            Err(e) => panic!("{e}"),
        };
        assert!(expected.len() > 36_000, "{}", expected.len());
        let hooked = || {
            read_jsonl_with_hook(
                JsonlReader::new(input.as_bytes(), "x", &opts),
                |_| {},
                hook.clone(),
            )
            .map_err(|e| e.to_string())
        };
        let (corpus, values) = hooked().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(Ok(&corpus), plain.as_ref());
        assert_eq!(values, expected);
        #[cfg(feature = "rayon")]
        {
            let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(1).build() else {
                panic!("a pool of one thread");
            };
            let (_, values) = pool.install(hooked).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(values, expected);
        }

        let dir = std::env::temp_dir().join(format!("ndd-hooked-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        for (name, text) in [("a.txt", "first"), ("b.txt", "second")] {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        let (corpus, values) = read_corpus_with_hook(&dir, &opts, |_| {}, hook.clone())
            .unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(corpus.documents.len(), 2);
        assert_eq!(values, ["a.txt/first", "b.txt/second"]);
    }
}

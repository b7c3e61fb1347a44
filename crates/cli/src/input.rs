//! Where the documents come from: a path, standard input, or the bundled corpus; and
//! reading the original records again to copy them unchanged.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use ndd_pipeline::corpus::{
    JsonlReader, ReadOptions, RecordFormat, read_corpus_with_hook, read_corpus_with_progress,
    read_jsonl_with_hook,
};
use ndd_pipeline::ndd_core::{self, file as core_file};
use ndd_pipeline::{Corpus, DocDigest, ExactPass};

use crate::error::CliError;
use crate::progress::Bars;

/// The bundled corpus, relative to the source repository's root.
const BUNDLED: &str = "data/debian-copyright.jsonl";

/// The input of a run.
#[derive(Debug)]
pub(crate) enum Source {
    /// A file or folder the user named.
    Path(PathBuf),
    /// The bundled corpus, found beside the program or the working directory.
    Bundled(PathBuf),
    /// JSONL on standard input.
    Stdin,
}

impl Source {
    /// The source `--input` names, or the bundled corpus without one. A file or
    /// folder's fingerprint is taken here, before it is read, for
    /// [`input_unchanged`] to check before any output is committed.
    pub(crate) fn resolve(input: Option<&Path>) -> Result<Self, CliError> {
        let source = match input {
            Some(p) if p.as_os_str() == "-" => Source::Stdin,
            Some(p) => Source::Path(p.to_path_buf()),
            None => bundled_corpus().map(Source::Bundled)?,
        };
        if let Some(path) = source.path() {
            // An input that cannot be fingerprinted cannot be read either: reading it
            // gives the error.
            if let Ok(stamp) = input_stamp(path) {
                *INPUT
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) =
                    Some((path.to_path_buf(), stamp));
            }
        }
        Ok(source)
    }

    /// The path of a file or folder input.
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            Source::Path(p) | Source::Bundled(p) => Some(p),
            Source::Stdin => None,
        }
    }

    /// How the input is named in messages.
    pub(crate) fn name(&self) -> String {
        match self {
            Source::Path(p) => p.display().to_string(),
            Source::Bundled(p) => format!("{} (the bundled corpus)", p.display()),
            Source::Stdin => "<stdin>".to_owned(),
        }
    }
}

/// The bundled corpus: `data/debian-copyright.jsonl` in the nearest ancestor of the
/// program (`target/release/ndd` of a checkout) or of the working directory that has
/// it. No path is compiled in, so a moved checkout still finds it.
fn bundled_corpus() -> Result<PathBuf, CliError> {
    let starts = [std::env::current_exe().ok(), std::env::current_dir().ok()];
    for start in starts.into_iter().flatten() {
        for dir in start.ancestors() {
            let candidate = dir.join(BUNDLED);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(CliError::Usage(format!(
        "no --input given and the bundled corpus ({BUNDLED}) was not found above the \
         program or the working directory; it ships with the source repository. Pass \
         --input PATH (a folder, a JSONL file, or - for standard input)"
    )))
}

/// A corpus read, with what is needed to find its records again.
#[derive(Debug)]
pub(crate) struct Input {
    /// The documents, problems and counts.
    pub(crate) corpus: Corpus,
    /// The JSONL file holding the records (the spooled copy of standard input), or
    /// `None` for a folder.
    pub(crate) records: Option<RecordFile>,
}

/// A JSONL file whose lines are the corpus's records.
#[derive(Debug)]
pub(crate) enum RecordFile {
    /// The user's file.
    Path(PathBuf),
    /// Standard input, copied while it was read; deleted when dropped.
    Spooled(tempfile::TempPath),
}

impl RecordFile {
    fn path(&self) -> &Path {
        match self {
            RecordFile::Path(p) => p,
            RecordFile::Spooled(p) => p,
        }
    }
}

/// Reads the corpus of `source`. `keep_records`: standard input is copied to a
/// temporary file as it is read, so that its records can be copied out afterwards.
pub(crate) fn read(
    source: &Source,
    options: &ReadOptions,
    bars: &Bars,
    keep_records: bool,
) -> Result<Input, CliError> {
    read_digested(source, options, bars, keep_records, None).map(|(input, _)| input)
}

/// [`read`], with each document's digest by `exact` (when given) computed as it is
/// read: for JSON Lines on the pool that decodes the lines
/// ([`read_corpus_with_hook`]), so that the exact stage only groups them
/// ([`Plan::run_digested`](ndd_pipeline::Plan::run_digested)).
pub(crate) fn read_digested(
    source: &Source,
    options: &ReadOptions,
    bars: &Bars,
    keep_records: bool,
    exact: Option<ExactPass>,
) -> Result<(Input, Option<Vec<DocDigest>>), CliError> {
    let bar = bars.reading();
    let progress = |p: ndd_pipeline::corpus::Progress| bar.update(p);
    let mut digests = None;
    let input = match source {
        Source::Path(path) | Source::Bundled(path) => {
            warn_mixed_folder(path, options);
            let corpus = match exact {
                Some(pass) => {
                    let (corpus, d) = read_corpus_with_hook(path, options, progress, pass.hook())?;
                    digests = Some(d);
                    corpus
                }
                None => read_corpus_with_progress(path, options, progress)?,
            };
            // Parquet and zstd records are copied by ndd-corpus's writer
            // (`Writers::copy_shards`), plain and gzip JSONL lines from here.
            let lines = corpus
                .shards
                .first()
                .is_some_and(|s| matches!(s.format, RecordFormat::Jsonl | RecordFormat::JsonlGzip));
            let records = (path.is_file() && lines).then(|| RecordFile::Path(path.clone()));
            Input { corpus, records }
        }
        Source::Stdin => {
            let stdin = io::stdin();
            let (reader, spool): (Box<dyn Read + Send>, _) = if keep_records {
                let (file, path) = tempfile::NamedTempFile::new()
                    .map_err(|e| CliError::Input(format!("a temporary copy of stdin: {e}")))?
                    .into_parts();
                (
                    Box::new(Tee {
                        inner: stdin,
                        copy: io::BufWriter::new(file),
                    }),
                    Some(path),
                )
            } else {
                (Box::new(stdin), None)
            };
            let reader = JsonlReader::from_read(reader, "<stdin>", options)
                .map_err(|e| CliError::Input(format!("<stdin>: {e}")))?;
            let corpus = match exact {
                Some(pass) => {
                    let (corpus, d) = read_jsonl_with_hook(reader, progress, pass.hook())?;
                    digests = Some(d);
                    corpus
                }
                None => ndd_pipeline::corpus::read_jsonl_with_progress(reader, progress)?,
            };
            Input {
                corpus,
                records: spool.map(RecordFile::Spooled),
            }
        }
    };
    bar.finish();
    Ok((input, digests))
}

/// A warning when the folder `path` is read one document per file although some of
/// its files are JSON Lines (beside other files): each such file is then one
/// document, not records (a folder of JSON Lines files only is read as shards).
pub(crate) fn warn_mixed_folder(path: &Path, options: &ReadOptions) {
    if !path.is_dir() {
        return;
    }
    if let Some(first) = RecordFormat::jsonl_beside_others(path, options) {
        eprintln!(
            "warning: {}: JSON Lines files beside other files, so each file is one document \
             ({} too, not its records); give a folder of JSON Lines files only to read records",
            path.display(),
            first.display()
        );
    }
}

/// `ndd dedup`'s fields: an `--attribute-fields` field that no record has is an
/// error; a warning for each field the options name that some records lack (none for
/// a folder). (The id and order fields no record has are the reader's errors.)
pub(crate) fn check_fields(
    fields: Option<&ndd_pipeline::corpus::FieldCounts>,
    options: &ReadOptions,
) -> Result<(), CliError> {
    use ndd_pipeline::corpus::FieldRole;
    let Some(fields) = fields else { return Ok(()) };
    let missing = fields.missing(options);
    if let Some(m) = missing
        .iter()
        .find(|m| m.role == FieldRole::Attribute && m.without == m.records)
    {
        return Err(CliError::Input(format!(
            "--attribute-fields {:?}: no record has this field ({} records read); is the \
             name misspelt? (a nested field is named by a JSON pointer, such as /meta/id)",
            m.field, m.records
        )));
    }
    for m in missing {
        let (flag, then) = match m.role {
            FieldRole::Id => ("--id-field", "; they are numbered by line"),
            FieldRole::Order => ("--order-field", "; they have no order key"),
            _ => ("--attribute-fields", ""),
        };
        eprintln!(
            "warning: {} of {} records have no field {:?} ({flag}){then}",
            m.without, m.records, m.field
        );
    }
    Ok(())
}

/// Copies what it reads into `copy` (standard input spooled for a second pass).
struct Tee<R> {
    inner: R,
    copy: io::BufWriter<File>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 {
            self.copy.flush()?;
        } else {
            self.copy.write_all(&buf[..n])?;
        }
        Ok(n)
    }
}

/// Which file a path named when it was read: a stored state replaced since (renamed
/// over by another run) has another identity.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    /// Device and inode (Unix), or nothing.
    node: Option<(u64, u64)>,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        let node = {
            use std::os::unix::fs::MetadataExt;
            Some((meta.dev(), meta.ino()))
        };
        #[cfg(not(unix))]
        let node = None;
        Identity {
            node,
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// The input of this process's run and its fingerprint when the run resolved it.
static INPUT: std::sync::Mutex<Option<(PathBuf, u64)>> = std::sync::Mutex::new(None);

/// The fingerprint of the input at `path`: [`ndd_pipeline::corpus::input_fingerprint`]
/// (the paths, sizes and modification times of its files) and, for a file, its
/// device and inode, so that a file renamed over it is seen even with the same size
/// and time.
fn input_stamp(path: &Path) -> Result<u64, CliError> {
    let fingerprint = ndd_pipeline::corpus::input_fingerprint(path)?;
    let mut id = ndd_core::SchemeId::new("ndd-cli/input-stamp").with(fingerprint);
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        id = id.with(meta.dev()).with(meta.ino());
    }
    Ok(id.finish().as_u64())
}

/// Checks that the input is the one the run read (fingerprinted when it was
/// resolved): called before records are copied out of it and before any output is
/// moved into place, so that a run whose input was rewritten meanwhile (its groups
/// from the old content, its `--keep-out` records copied from the new) fails with
/// nothing written instead.
///
/// # Errors
///
/// [`CliError::Input`] naming the input when it changed, was removed or replaced.
pub(crate) fn input_unchanged() -> Result<(), CliError> {
    let input = INPUT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let Some((path, then)) = input else {
        return Ok(());
    };
    match input_stamp(&path) {
        Ok(now) if now == then => Ok(()),
        _ => Err(CliError::Input(format!(
            "{}: the input changed while the run read it (a file was rewritten, replaced, \
             added or removed); no output was written, run again on a stable input",
            path.display()
        ))),
    }
}

/// The files [`read_bounded`] read in this process (a run reads a handful), by
/// resolved path, with their identity when read.
static READ: std::sync::Mutex<Vec<(PathBuf, Identity)>> = std::sync::Mutex::new(Vec::new());

/// Whether the file at the resolved path `path` is still the one [`read_bounded`]
/// read (`true` if it was not read): the check of a stored state before it is
/// rewritten, so that an update made by another run meanwhile is not lost.
pub(crate) fn unchanged_since_read(path: &Path) -> bool {
    let read = READ
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some((_, then)) = read.iter().rev().find(|(p, _)| p == path) else {
        return true;
    };
    std::fs::metadata(path).is_ok_and(|now| Identity::of(&now) == *then)
}

/// Reads a whole regular file of at most `max` bytes (an index, Bloom filters, links)
/// that starts with `magic` when one is given (checked before the rest is read:
/// `ndd_core::file::read_bounded`), and remembers the file as read for
/// [`unchanged_since_read`].
pub(crate) fn read_bounded(
    path: &Path,
    max: u64,
    magic: Option<[u8; 4]>,
) -> Result<Vec<u8>, CliError> {
    let (bytes, meta) = core_file::read_bounded(path, max, magic.as_ref().map(|m| &m[..]))
        .map_err(|e| CliError::Input(e.to_string()))?;
    if let Ok(resolved) = std::fs::canonicalize(path) {
        READ.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((resolved, Identity::of(&meta)));
    }
    Ok(bytes)
}

/// The lines of a JSONL file (plain or gzip), read forward: the record at a line
/// number, without its line end or byte order mark.
pub(crate) struct Records {
    reader: Box<dyn BufRead>,
    name: String,
    line: u64,
    buf: Vec<u8>,
}

impl Records {
    /// Opens the records of `file`, once [`input_unchanged`] says the input is still
    /// the one read.
    pub(crate) fn open(file: &RecordFile) -> Result<Self, CliError> {
        input_unchanged()?;
        let path = file.path();
        let fail = |e: io::Error| CliError::Input(format!("{}: {e}", path.display()));
        let mut raw = BufReader::new(File::open(path).map_err(fail)?);
        let gzip = raw.fill_buf().map_err(fail)?.starts_with(&[0x1f, 0x8b]);
        let reader: Box<dyn BufRead> = if gzip {
            Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(raw)))
        } else {
            Box::new(raw)
        };
        Ok(Records {
            reader,
            name: path.display().to_string(),
            line: 0,
            buf: Vec::new(),
        })
    }

    /// The record at `line` when there are `records`, the document has a line and its
    /// record is `wanted`; else `None`.
    pub(crate) fn wanted(
        records: &mut Option<Self>,
        line: Option<u64>,
        wanted: bool,
    ) -> Result<Option<&[u8]>, CliError> {
        match (records, line) {
            (Some(records), Some(line)) if wanted => records.at(line).map(Some),
            _ => Ok(None),
        }
    }

    /// The record at 1-based `line`, which must come after the previous call's.
    pub(crate) fn at(&mut self, line: u64) -> Result<&[u8], CliError> {
        let fail = |m: String| CliError::Input(m);
        if line <= self.line {
            return Err(fail(format!(
                "{}: record {line} asked after {}",
                self.name, self.line
            )));
        }
        while self.line + 1 < line {
            let n = self
                .reader
                .skip_until(b'\n')
                .map_err(|e| fail(format!("{}: {e}", self.name)))?;
            if n == 0 {
                break;
            }
            self.line += 1;
        }
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| fail(format!("{}: {e}", self.name)))?;
        self.line += 1;
        if n == 0 || self.line != line {
            return Err(fail(format!(
                "{}: line {line} is missing (the input changed while it was read?)",
                self.name
            )));
        }
        Ok(ndd_pipeline::corpus::line_record(&self.buf, line))
    }
}

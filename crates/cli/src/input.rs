//! Where the documents come from: a path, standard input, or the bundled corpus; and
//! reading the original records again to copy them unchanged.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use ndd_pipeline::corpus::{JsonlReader, ReadOptions, read_corpus_with_progress};
use ndd_pipeline::{Corpus, ndd_core};

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
    let bar = bars.reading();
    let progress = |p: ndd_pipeline::corpus::Progress| bar.update(p);
    let input = match source {
        Source::Path(path) | Source::Bundled(path) => {
            let corpus = read_corpus_with_progress(path, options, progress)?;
            let records = path.is_file().then(|| RecordFile::Path(path.clone()));
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
            let corpus = ndd_pipeline::corpus::read_jsonl_with_progress(reader, progress)?;
            Input {
                corpus,
                records: spool.map(RecordFile::Spooled),
            }
        }
    };
    bar.finish();
    Ok(input)
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

/// The first bytes of the byte forms the tool reads whole (`ndd_core::codec`'s
/// header: the magic number of each type), checked before the rest is read.
pub(crate) mod magic {
    /// A saved index's single file (`DedupIndex::to_bytes`).
    pub(crate) const INDEX: [u8; 4] = *b"NDDX";
    /// Bloom filters (`BloomDedup::to_bytes`).
    pub(crate) const BLOOM: [u8; 4] = *b"NDDB";
    /// An I-Match lexicon (`Lexicon::to_bytes`).
    pub(crate) const LEXICON: [u8; 4] = *b"IMLX";
    /// A weight model (`WeightModel::to_bytes`).
    pub(crate) const MODEL: [u8; 4] = *b"NDLW";
}

/// Reads a whole regular file of at most `max` bytes (a lexicon, an index) that
/// starts with `magic` when one is given: the first bytes are checked before the
/// rest is read, so that a large file of something else (a 6 GB sparse file given
/// as `--index-in` was read whole, 6.3 GB of memory and 16 s, before its checksum
/// failed) is refused at once. Devices, FIFOs and sockets are refused (`/dev/zero`
/// read forever).
pub(crate) fn read_bounded(
    path: &Path,
    max: u64,
    magic: Option<[u8; 4]>,
) -> Result<Vec<u8>, CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::Input(format!("{}: {e}", path.display()));
    // What the path is, before opening it: opening a FIFO waits for a writer.
    let kind = std::fs::metadata(path).map_err(|e| fail(&e))?;
    if !kind.is_file() && !kind.is_dir() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let t = kind.file_type();
            if t.is_char_device() || t.is_block_device() {
                return Err(fail(&"is a device, not a file"));
            }
        }
        return Err(fail(&"is not a regular file"));
    }
    let mut file = File::open(path).map_err(|e| fail(&e))?;
    let meta = file.metadata().map_err(|e| fail(&e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_block_device() {
            return Err(fail(&"is a device, not a file"));
        }
    }
    if !meta.is_file() {
        return Err(fail(&"is not a regular file"));
    }
    if let Ok(resolved) = std::fs::canonicalize(path) {
        READ.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((resolved, Identity::of(&meta)));
    }
    let len = meta.len();
    if len > max {
        return Err(fail(&format!(
            "{len} bytes, more than the {max} bytes such a file can honestly need"
        )));
    }
    let mut bytes = Vec::new();
    if let Some(magic) = magic {
        let mut head = [0u8; 4];
        let got = (&mut file)
            .take(4)
            .read_to_end(&mut bytes)
            .map_err(|e| fail(&e))?;
        head[..got].copy_from_slice(&bytes[..got]);
        if head != magic {
            return Err(fail(&format!(
                "corrupt data: not a file of this kind (it starts with {:?}, not {:?})",
                String::from_utf8_lossy(&head[..got]),
                String::from_utf8_lossy(&magic)
            )));
        }
    }
    let left = (max + 1).saturating_sub(bytes.len() as u64);
    file.take(left)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(&e))?;
    if bytes.len() as u64 > max {
        return Err(fail(&format!("more than {max} bytes")));
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
        let mut record = self.buf.as_slice();
        if line == 1 {
            record = record.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(record);
        }
        while let [rest @ .., b'\n' | b'\r'] = record {
            record = rest;
        }
        Ok(record)
    }
}

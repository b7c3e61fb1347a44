//! Record files and folders of them ("shards"): the format of a file from its first
//! bytes ([`RecordFormat`]), a folder of Parquet or zstd-compressed JSONL shards read
//! one shard after another ([`ShardReader`]), and chosen records written back in
//! their own format ([`RecordWriter`]).

use std::fs::File;
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

use crate::jsonl::{GZIP_MAGIC, ZSTD_MAGIC};
use crate::options::ReadOptions;
use crate::problems::{Problem, ProblemKind};
use crate::{Document, Error, JsonlReader};

/// The format of a file of records, recognized by its first bytes (never its name).
///
/// # Example
///
/// ```
/// use near_dup::corpus::RecordFormat;
/// assert_eq!(RecordFormat::of_bytes(b"PAR1\x15\x04"), RecordFormat::Parquet);
/// assert_eq!(RecordFormat::of_bytes(&[0x28, 0xb5, 0x2f, 0xfd, 0]), RecordFormat::JsonlZstd);
/// assert_eq!(RecordFormat::of_bytes(&[0x1f, 0x8b, 8]), RecordFormat::JsonlGzip);
/// assert_eq!(RecordFormat::of_bytes(b"{\"text\": \"a\"}"), RecordFormat::Jsonl);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecordFormat {
    /// JSON Lines as they are.
    Jsonl,
    /// gzip-compressed JSON Lines (magic `1f 8b`).
    JsonlGzip,
    /// zstd-compressed JSON Lines (magic `28 b5 2f fd`).
    JsonlZstd,
    /// Parquet (magic `PAR1`).
    Parquet,
}

impl RecordFormat {
    /// The format of a file that starts with `start`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::RecordFormat;
    /// assert_eq!(RecordFormat::of_bytes(b""), RecordFormat::Jsonl);
    /// ```
    #[must_use]
    pub fn of_bytes(start: &[u8]) -> Self {
        if start.starts_with(b"PAR1") {
            RecordFormat::Parquet
        } else if start.starts_with(&ZSTD_MAGIC) {
            RecordFormat::JsonlZstd
        } else if start.starts_with(&GZIP_MAGIC) {
            RecordFormat::JsonlGzip
        } else {
            RecordFormat::Jsonl
        }
    }

    /// The format of the file at `path`, from its first four bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the file cannot be opened or read.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::RecordFormat;
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-1-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("a.jsonl");
    /// std::fs::write(&path, "{\"text\": \"x\"}\n")?;
    /// assert_eq!(RecordFormat::of_file(&path)?, RecordFormat::Jsonl);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of_file(path: &Path) -> Result<Self, Error> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let mut start = Vec::with_capacity(4);
        file.take(4)
            .read_to_end(&mut start)
            .map_err(|e| Error::io(path, e))?;
        Ok(Self::of_bytes(&start))
    }

    /// The format of the shards of the folder `root` when [`read_corpus`](crate::read_corpus)
    /// reads it as a folder of shards ([`ShardReader`]), `None` when it reads it as
    /// one document per file.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{ReadOptions, RecordFormat};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-2-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("a.txt"), "text")?;
    /// assert_eq!(RecordFormat::of_folder(dir.as_path(), &ReadOptions::default()), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn of_folder(root: &Path, options: &ReadOptions) -> Option<Self> {
        shard_folder(root, options)
    }

    /// The first JSON Lines file (by name and content) of a folder that is read as
    /// one document per file because other files are beside its JSON Lines files:
    /// what a warning names, since such a file is then one document, not records.
    /// `None` when the folder is read as shards or has no JSON Lines file.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{ReadOptions, RecordFormat};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-mixed-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("a.jsonl"), "{\"text\": \"x\"}\n")?;
    /// assert_eq!(RecordFormat::of_folder(&dir, &ReadOptions::default()), Some(RecordFormat::Jsonl));
    /// assert_eq!(RecordFormat::jsonl_beside_others(&dir, &ReadOptions::default()), None);
    /// std::fs::write(dir.join("b.txt"), "a text")?;
    /// assert_eq!(RecordFormat::of_folder(&dir, &ReadOptions::default()), None);
    /// assert_eq!(
    ///     RecordFormat::jsonl_beside_others(&dir, &ReadOptions::default()),
    ///     Some(dir.join("a.jsonl"))
    /// );
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn jsonl_beside_others(root: &Path, options: &ReadOptions) -> Option<PathBuf> {
        if shard_folder(root, options).is_some() {
            return None;
        }
        match jsonl_folder(root, options) {
            JsonlFolder::Mixed(first) => Some(first),
            _ => None,
        }
    }
}

/// One file of records a corpus was read from, with how many documents of the corpus
/// came from it ([`Corpus::shards`](crate::Corpus::shards)).
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_corpus, RecordFormat};
/// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-3-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("a.jsonl");
/// std::fs::write(&path, "{\"text\": \"x\"}\n{\"text\": \"y\"}\n")?;
/// let corpus = read_corpus(&path, &Default::default())?;
/// assert_eq!(corpus.shards[0].format, RecordFormat::Jsonl);
/// assert_eq!(corpus.shards[0].documents, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shard {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: RecordFormat,
    /// Documents of the corpus read from it (accepted ones).
    pub documents: usize,
}

/// Whether the folder `root` is a folder of shards; if so, the format of its first
/// file (in the walk's order: sorted by name, hidden entries skipped unless asked).
/// It is when its first file is Parquet or a zstd-compressed file named `*.json*`
/// or `*.ndjson*`, or when every file is plain or gzip JSON Lines by name and content
/// ([`JsonlFolder::All`]).
pub(crate) fn shard_folder(root: &Path, options: &ReadOptions) -> Option<RecordFormat> {
    let first = walk(root, options).find_map(Result::ok)?;
    let format = RecordFormat::of_file(&first).ok()?;
    let zstd_json = |p: &Path| {
        let name = p.file_name().map(|n| n.to_string_lossy().to_lowercase());
        name.is_some_and(|n| n.contains(".jsonl") || n.contains(".ndjson") || n.contains(".json"))
    };
    match format {
        RecordFormat::Parquet => Some(format),
        RecordFormat::JsonlZstd if zstd_json(&first) => Some(format),
        RecordFormat::Jsonl | RecordFormat::JsonlGzip => match jsonl_folder(root, options) {
            JsonlFolder::All => Some(format),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a file is plain or gzip-compressed JSON Lines by its name (`*.jsonl`,
/// `*.ndjson`, either with `.gz`) and its first bytes.
fn jsonl_file(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().to_lowercase()) else {
        return false;
    };
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    (name.ends_with(".jsonl") || name.ends_with(".ndjson"))
        && RecordFormat::of_file(path)
            .is_ok_and(|f| matches!(f, RecordFormat::Jsonl | RecordFormat::JsonlGzip))
}

/// What the files of a folder are, as far as JSON Lines go.
enum JsonlFolder {
    /// Every file is plain or gzip JSON Lines ([`jsonl_file`]): read as shards.
    All,
    /// Some are, beside other files: the folder is one document per file, and the
    /// first JSON Lines file is named in a warning.
    Mixed(PathBuf),
    /// None is.
    None,
}

/// Walks `root` until its files are known to be all JSON Lines, or JSON Lines
/// beside others.
fn jsonl_folder(root: &Path, options: &ReadOptions) -> JsonlFolder {
    let (mut jsonl, mut other) = (None, false);
    for path in walk(root, options).filter_map(Result::ok) {
        if jsonl_file(&path) {
            if other {
                return JsonlFolder::Mixed(path);
            }
            jsonl.get_or_insert(path);
        } else {
            other = true;
            if let Some(first) = jsonl {
                return JsonlFolder::Mixed(first);
            }
        }
    }
    match jsonl {
        Some(_) if !other => JsonlFolder::All,
        _ => JsonlFolder::None,
    }
}

/// Whether a shard of `format` may be read in a folder whose first shard is of
/// `first`: the same format, or plain and gzip JSON Lines together.
fn same_kind(format: RecordFormat, first: RecordFormat) -> bool {
    let lines = |f| matches!(f, RecordFormat::Jsonl | RecordFormat::JsonlGzip);
    format == first || (lines(format) && lines(first))
}

/// The regular files below `root`, depth first in name order.
fn walk(root: &Path, options: &ReadOptions) -> impl Iterator<Item = Result<PathBuf, Problem>> {
    let hidden = options.hidden;
    walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .min_depth(1)
        .into_iter()
        .filter_entry(move |e| hidden || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| match e {
            Ok(e) if e.file_type().is_file() => Some(Ok(e.into_path())),
            Ok(_) => None,
            Err(err) => Some(Err(Problem::new(
                err.path()
                    .map_or_else(String::new, |p| p.display().to_string()),
                format!("cannot read: {err}"),
                ProblemKind::Unreadable,
            ))),
        })
}

/// The reader of the shard being read.
enum Current {
    Jsonl(Box<JsonlReader<Box<dyn BufRead + Send>>>),
    #[cfg(feature = "parquet")]
    Parquet(Box<crate::ParquetReader>),
}

/// A streaming reader of a folder of shards, all Parquet, all zstd-compressed JSON
/// Lines, or all plain or gzip JSON Lines: one `Result<`[`Document`]`, `[`Problem`]`>` per record, the shards in the
/// order a folder is walked (depth first, names sorted byte-wise, hidden entries
/// skipped unless [`ReadOptions::hidden`]).
///
/// [`read_corpus`](crate::read_corpus) reads a folder this way when its first file
/// is a Parquet file, or a zstd-compressed file named `*.jsonl*`, `*.ndjson*` or
/// `*.json*`, or when every file is plain or gzip JSON Lines named `*.jsonl`,
/// `*.ndjson` (either with `.gz`); otherwise a folder is one document per file
/// ([`FolderReader`](crate::FolderReader); [`RecordFormat::jsonl_beside_others`]
/// names a JSON Lines file so read). A file of another format among the shards
/// (plain and gzip JSON Lines go together) is a [`ProblemKind::Unreadable`]
/// problem, and a shard that cannot be opened (a damaged Parquet footer) too.
///
/// A record's id is its id field; a record without one is numbered within its shard
/// and its id is the shard's path relative to the folder, `:` and the number
/// (`part-1.parquet:7`), so ids stay distinct across shards.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_corpus, ReadOptions, RecordFormat};
/// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-4-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// # use near_dup::corpus::ParquetCopier;
/// ParquetCopier::write_example(&dir.join("a.parquet"), &[("a", "alpha")])?;
/// ParquetCopier::write_example(&dir.join("b.parquet"), &[("b", "beta")])?;
/// let corpus = read_corpus(dir.as_path(), &ReadOptions::default())?;
/// assert_eq!(corpus.documents[1].id, "b");
/// assert_eq!(corpus.shards.len(), 2);
/// assert_eq!(corpus.shards[0].format, RecordFormat::Parquet);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ShardReader {
    root: PathBuf,
    format: RecordFormat,
    files: Box<dyn Iterator<Item = Result<PathBuf, Problem>> + Send>,
    options: ReadOptions,
    current: Option<(usize, Current)>,
    shards: Vec<Shard>,
    bytes_done: u64,
    location: String,
}

impl std::fmt::Debug for ShardReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardReader")
            .field("root", &self.root)
            .field("format", &self.format)
            .field("shards", &self.shards)
            .finish_non_exhaustive()
    }
}

impl ShardReader {
    /// A reader of the shards of `root`, all of `format`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{ReadOptions, RecordFormat, ShardReader};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-5-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut r = ShardReader::new(dir.as_path(), RecordFormat::JsonlZstd, &ReadOptions::default());
    /// assert!(r.next().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(root: impl AsRef<Path>, format: RecordFormat, options: &ReadOptions) -> Self {
        let root = root.as_ref().to_path_buf();
        ShardReader {
            files: Box::new(walk(&root, options).collect::<Vec<_>>().into_iter()),
            location: root.display().to_string(),
            root,
            format,
            options: options.clone(),
            current: None,
            shards: Vec::new(),
            bytes_done: 0,
        }
    }

    /// The shards opened so far, with the documents each gave (counted by
    /// [`read_corpus`](crate::read_corpus) as it accepts them).
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ReadOptions, RecordFormat, ShardReader};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-6-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let r = ShardReader::new(dir.as_path(), RecordFormat::Parquet, &ReadOptions::default());
    /// assert!(r.shards().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// The shards, given back.
    pub(crate) fn into_shards(self) -> Vec<Shard> {
        self.shards
    }

    /// The index in [`shards`](Self::shards) of the shard of the last item (the name `position` is `Iterator`'s), and the
    /// 1-based line or row of its record.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ReadOptions, RecordFormat, ShardReader};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-7-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let r = ShardReader::new(dir.as_path(), RecordFormat::Parquet, &ReadOptions::default());
    /// assert_eq!(r.last_record(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_record(&self) -> Option<(usize, u64)> {
        let (i, current) = self.current.as_ref()?;
        Some((
            *i,
            match current {
                Current::Jsonl(r) => r.lines(),
                #[cfg(feature = "parquet")]
                Current::Parquet(r) => r.row(),
            },
        ))
    }

    /// Counts a document of the last shard as accepted.
    pub(crate) fn accepted(&mut self) {
        if let Some(s) = self
            .current
            .as_ref()
            .and_then(|(i, _)| self.shards.get_mut(*i))
        {
            s.documents += 1;
        }
    }

    /// Where the last item came from.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ReadOptions, RecordFormat, ShardReader};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-8-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let r = ShardReader::new(dir.as_path(), RecordFormat::Parquet, &ReadOptions::default());
    /// assert_eq!(r.location(), dir.as_path().display().to_string());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn location(&self) -> String {
        match &self.current {
            Some((_, Current::Jsonl(r))) => r.location(),
            #[cfg(feature = "parquet")]
            Some((_, Current::Parquet(r))) => r.location(),
            None => self.location.clone(),
        }
    }

    /// Bytes read so far, of the shards as stored.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ReadOptions, RecordFormat, ShardReader};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-9-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let r = ShardReader::new(dir.as_path(), RecordFormat::Parquet, &ReadOptions::default());
    /// assert_eq!(r.bytes_read(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bytes_read(&self) -> u64 {
        self.bytes_done + self.current_bytes()
    }

    /// Bytes read, and no total (a folder is not walked twice to learn it).
    pub(crate) fn progress_bytes(&self) -> (u64, Option<u64>) {
        (self.bytes_read(), None)
    }

    fn current_bytes(&self) -> u64 {
        match &self.current {
            Some((_, Current::Jsonl(r))) => r.bytes_read(),
            #[cfg(feature = "parquet")]
            Some((_, Current::Parquet(r))) => r.bytes().0,
            None => 0,
        }
    }

    /// The id of the shard `path`, relative to the root.
    fn shard_name(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.join("/")
    }

    /// Opens the shard `path`.
    fn open(&mut self, path: PathBuf) -> Result<(), Problem> {
        let fail = |e: Error| {
            let message = match &e {
                Error::Io { source, .. } => format!("cannot read: {source}"),
                Error::Format { message, .. } => message.clone(),
                other => other.to_string(),
            };
            Problem::new(path.display().to_string(), message, ProblemKind::Unreadable)
        };
        let format = RecordFormat::of_file(&path).map_err(fail)?;
        if !same_kind(format, self.format) {
            return Err(fail(Error::Format {
                path: path.clone(),
                message: format!(
                    "is {format:?}, not {:?} as the folder's first shard: not read",
                    self.format
                ),
            }));
        }
        let current = match format {
            #[cfg(feature = "parquet")]
            RecordFormat::Parquet => Current::Parquet(Box::new(
                crate::ParquetReader::open(&path, &self.options).map_err(fail)?,
            )),
            _ => Current::Jsonl(Box::new(
                JsonlReader::open(&path, &self.options).map_err(fail)?,
            )),
        };
        self.bytes_done += self.current_bytes();
        self.shards.push(Shard {
            path,
            format,
            documents: 0,
        });
        self.current = Some((self.shards.len() - 1, current));
        Ok(())
    }

    /// A record without an id field was numbered within its shard: its id gets the
    /// shard's name in front, so that ids stay distinct across shards.
    fn numbered_id(&self, doc: &mut Document, had_id: bool) {
        if had_id {
            return;
        }
        if let Some((i, _)) = &self.current {
            let name = self.shard_name(&self.shards[*i].path);
            doc.id = format!("{name}:{}", doc.id);
        }
    }
}

impl Iterator for ShardReader {
    type Item = Result<Document, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let item = match &mut self.current {
                Some((_, Current::Jsonl(r))) => {
                    let before = r.fields().id;
                    r.next().map(|d| d.map(|d| (d, r.fields().id > before)))
                }
                #[cfg(feature = "parquet")]
                Some((_, Current::Parquet(r))) => {
                    let before = r.with_id();
                    r.next().map(|d| d.map(|d| (d, r.with_id() > before)))
                }
                None => None,
            };
            match item {
                Some(Ok((mut doc, had_id))) => {
                    self.numbered_id(&mut doc, had_id);
                    return Some(Ok(doc));
                }
                Some(Err(problem)) => return Some(Err(problem)),
                None => {}
            }
            match self.files.next()? {
                Ok(path) => {
                    if let Err(problem) = self.open(path) {
                        self.location = problem.location.clone();
                        return Some(Err(problem));
                    }
                }
                Err(problem) => return Some(Err(problem)),
            }
        }
    }
}

/// Writes chosen records of a corpus's shards to one output, in their own format:
/// JSON Lines records as they were (a zstd-compressed output for zstd-compressed
/// shards), Parquet rows with every column ([`ParquetCopier`](crate::ParquetCopier)),
/// each with added fields (`--annotate-out`'s) appended.
///
/// Records are named by their shard and 1-based line or row, in increasing order
/// within a shard ([`Corpus::shards`](crate::Corpus::shards) and
/// [`Corpus::lines`](crate::Corpus::lines) give them). The shards must share one
/// format (a corpus's do).
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_corpus, RecordWriter};
/// # let dir = std::env::temp_dir().join(format!("ndd-doc-shards-10-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("in.jsonl");
/// std::fs::write(&path, "{\"id\": \"a\", \"text\": \"x\", \"lang\": \"en\"}\n{\"id\": \"b\", \"text\": \"y\"}\n")?;
/// let corpus = read_corpus(&path, &Default::default())?;
/// let mut out = RecordWriter::new(corpus.shards[0].format, Vec::new())?;
/// out.copy(&corpus.shards[0], corpus.lines[1], &Default::default())?;
/// assert_eq!(out.finish()?, b"{\"id\": \"b\", \"text\": \"y\"}\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RecordWriter<W: Write + Send> {
    inner: Inner<W>,
    /// The JSONL shard being read forward: its path, reader, line and buffer.
    lines: Option<(PathBuf, Box<dyn BufRead + Send>, u64)>,
    buf: Vec<u8>,
}

enum Inner<W: Write + Send> {
    Plain(W),
    #[cfg(feature = "zstd")]
    Zstd(zstd::stream::write::Encoder<'static, W>),
    #[cfg(feature = "parquet")]
    Parquet(Box<crate::ParquetCopier<W>>),
}

impl<W: Write + Send> std::fmt::Debug for RecordWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordWriter")
            .field("shard", &self.lines.as_ref().map(|l| &l.0))
            .finish_non_exhaustive()
    }
}

impl<W: Write + Send> RecordWriter<W> {
    /// A writer of records of `format` to `out`.
    ///
    /// # Errors
    ///
    /// [`Error::Format`] for a format this build cannot write (Parquet or zstd
    /// without their features) or an output zstd cannot start.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{RecordFormat, RecordWriter};
    /// let w = RecordWriter::new(RecordFormat::Jsonl, Vec::new())?;
    /// assert!(w.finish()?.is_empty());
    /// # Ok::<(), near_dup::corpus::Error>(())
    /// ```
    pub fn new(format: RecordFormat, out: W) -> Result<Self, Error> {
        let unsupported = |what: &str| Error::Format {
            path: PathBuf::new(),
            message: format!("{what} output needs ndd-corpus's feature of that name"),
        };
        let inner = match format {
            RecordFormat::Jsonl | RecordFormat::JsonlGzip => Inner::Plain(out),
            #[cfg(feature = "zstd")]
            RecordFormat::JsonlZstd => {
                Inner::Zstd(zstd::stream::write::Encoder::new(out, 0).map_err(|e| {
                    Error::Format {
                        path: PathBuf::new(),
                        message: format!("zstd: {e}"),
                    }
                })?)
            }
            #[cfg(feature = "parquet")]
            RecordFormat::Parquet => Inner::Parquet(Box::new(crate::ParquetCopier::new(out))),
            #[allow(unreachable_patterns)]
            _ => return Err(unsupported(&format!("{format:?}"))),
        };
        Ok(RecordWriter {
            inner,
            lines: None,
            buf: Vec::new(),
        })
    }

    /// Copies the record at 1-based `line` (a row, for Parquet) of `shard`, with
    /// `fields` appended.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the shard cannot be read or the output written;
    /// [`Error::Format`] if the record is missing, is not after the last one copied
    /// from its shard, is not a JSON object or already has one of `fields` (or, for
    /// Parquet, as [`ParquetCopier::copy`](crate::ParquetCopier::copy)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{read_corpus, RecordWriter};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-rcopy-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("in.jsonl");
    /// std::fs::write(&path, "{\"text\": \"x\"}\n{\"text\": \"y\"}\n")?;
    /// let corpus = read_corpus(&path, &Default::default())?;
    /// let mut out = RecordWriter::new(corpus.shards[0].format, Vec::new())?;
    /// out.copy(&corpus.shards[0], 2, &Default::default())?;
    /// assert!(out.copy(&corpus.shards[0], 2, &Default::default()).is_err()); // forward only
    /// assert_eq!(out.finish()?, b"{\"text\": \"y\"}\n");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn copy(
        &mut self,
        shard: &Shard,
        line: u64,
        fields: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), Error> {
        self.copy_changed(shard, line, Change::Fields(fields))
    }

    /// Copies the record at 1-based `line` (a row, for Parquet) of `shard` with its
    /// text replaced by `text`: a JSON Lines record by [`with_text`](crate::with_text)
    /// on its field `text_field` (a name or a JSON pointer), every other byte kept; a
    /// Parquet row with the value of its column `text_field` replaced
    /// ([`ParquetCopier::copy_edited`](crate::ParquetCopier::copy_edited)).
    ///
    /// # Errors
    ///
    /// As [`copy`](Self::copy); [`Error::Format`] as well if the record is not UTF-8
    /// or has no field `text_field`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{read_corpus, RecordWriter};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-redit-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("in.jsonl");
    /// std::fs::write(&path, "{\"text\": \"x y\", \"n\": 1}\n")?;
    /// let corpus = read_corpus(&path, &Default::default())?;
    /// let mut out = RecordWriter::new(corpus.shards[0].format, Vec::new())?;
    /// out.copy_edited(&corpus.shards[0], 1, "text", "x")?;
    /// assert_eq!(out.finish()?, b"{\"text\": \"x\", \"n\": 1}\n");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn copy_edited(
        &mut self,
        shard: &Shard,
        line: u64,
        text_field: &str,
        text: &str,
    ) -> Result<(), Error> {
        self.copy_changed(shard, line, Change::Text { text_field, text })
    }

    /// [`copy`](Self::copy) or [`copy_edited`](Self::copy_edited).
    fn copy_changed(&mut self, shard: &Shard, line: u64, change: Change<'_>) -> Result<(), Error> {
        let out: &mut dyn Write = match (&mut self.inner, change) {
            #[cfg(feature = "parquet")]
            (Inner::Parquet(p), Change::Fields(fields)) => {
                return p.copy(&shard.path, line, fields);
            }
            #[cfg(feature = "parquet")]
            (Inner::Parquet(p), Change::Text { text_field, text }) => {
                return p.copy_edited(&shard.path, line, text_field, text);
            }
            (Inner::Plain(w), _) => w,
            #[cfg(feature = "zstd")]
            (Inner::Zstd(w), _) => w,
        };
        let path = &shard.path;
        let format_error = |message: String| Error::Format {
            path: path.clone(),
            message,
        };
        if self.lines.as_ref().is_none_or(|(p, _, _)| p != path) {
            let file = File::open(path).map_err(|e| Error::io(path, e))?;
            let reader: Box<dyn BufRead + Send> =
                JsonlReader::from_read(file, path.display().to_string(), &ReadOptions::default())
                    .map_err(|e| Error::io(path, e))?
                    .into_inner();
            self.lines = Some((path.clone(), reader, 0));
        }
        let Some((_, reader, at)) = &mut self.lines else {
            return Ok(());
        };
        if line <= *at {
            return Err(format_error(format!(
                "line {line} asked for after line {at}"
            )));
        }
        let io = |e: io::Error| Error::io(path, e);
        while *at + 1 < line {
            if reader.skip_until(b'\n').map_err(io)? == 0 {
                break;
            }
            *at += 1;
        }
        self.buf.clear();
        let n = reader.read_until(b'\n', &mut self.buf).map_err(io)?;
        *at += 1;
        if n == 0 || *at != line {
            return Err(format_error(format!("line {line} is missing")));
        }
        let record = crate::line_record(&self.buf, line);
        match change {
            Change::Fields(fields) if fields.is_empty() => out.write_all(record).map_err(io)?,
            Change::Fields(fields) => {
                let joined = append_fields(record, fields)
                    .map_err(|m| format_error(format!("line {line}: {m}")))?;
                out.write_all(&joined).map_err(io)?;
            }
            Change::Text { text_field, text } => {
                let record = std::str::from_utf8(record).map_err(|_| {
                    format_error(format!(
                        "line {line}: the record is not UTF-8; it cannot be written back \
                         with its text replaced"
                    ))
                })?;
                let edited = crate::with_text(record, text_field, text)
                    .map_err(|e| format_error(format!("line {line}: {e}")))?;
                out.write_all(edited.as_bytes()).map_err(io)?;
            }
        }
        out.write_all(b"\n").map_err(io)
    }

    /// Ends the output (a zstd frame's end, a Parquet footer) and gives it back.
    ///
    /// # Errors
    ///
    /// [`Error::Format`] if the output cannot be ended.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{RecordFormat, RecordWriter};
    /// let zstd = RecordWriter::new(RecordFormat::JsonlZstd, Vec::new())?.finish()?;
    /// assert_eq!(zstd[..4], [0x28, 0xb5, 0x2f, 0xfd]); // an empty zstd frame
    /// # Ok::<(), near_dup::corpus::Error>(())
    /// ```
    pub fn finish(self) -> Result<W, Error> {
        match self.inner {
            Inner::Plain(w) => Ok(w),
            #[cfg(feature = "zstd")]
            Inner::Zstd(w) => w.finish().map_err(|e| Error::Format {
                path: PathBuf::new(),
                message: format!("ending the zstd output: {e}"),
            }),
            #[cfg(feature = "parquet")]
            Inner::Parquet(p) => p.finish(),
        }
    }
}

/// What a copied record gets: added fields, or its text replaced.
#[derive(Clone, Copy)]
enum Change<'a> {
    Fields(&'a serde_json::Map<String, serde_json::Value>),
    Text { text_field: &'a str, text: &'a str },
}

/// A JSON object's bytes with `fields` added as members before its closing brace; the
/// object's own bytes come first, unchanged. A field the object has already is
/// refused (the output would hold a duplicate key).
fn append_fields(
    object: &[u8],
    fields: &serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<u8>, String> {
    let members: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(object).map_err(|e| format!("not a JSON object: {e}"))?;
    if let Some(name) = fields.keys().find(|k| members.contains_key(*k)) {
        return Err(format!("the record already has a field {name:?}"));
    }
    let close = object
        .iter()
        .rposition(|&b| b == b'}')
        .ok_or_else(|| "not a JSON object".to_owned())?;
    let mut out = object[..close].to_vec();
    let mut first = members.is_empty();
    for (name, value) in fields {
        if !first {
            out.push(b',');
        }
        first = false;
        let member = serde_json::to_string(&serde_json::json!({ name: value }))
            .map_err(|e| e.to_string())?;
        out.extend_from_slice(&member.as_bytes()[1..member.len() - 1]);
    }
    out.extend_from_slice(&object[close..]);
    Ok(out)
}

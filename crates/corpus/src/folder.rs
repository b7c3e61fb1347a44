//! [`FolderReader`]: a folder of text and HTML files, one document per file, walked
//! with `walkdir` so that symbolic-link loops end instead of hanging.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use ndd_core::file::read_up_to;
use ndd_shingle::html::{html_to_text, looks_like_html};

use super::decode::{BOM, Decoded, NotText, decode};
use super::jsonl::{ENCODING_HINT, GZIP_MAGIC};
use super::options::{HtmlMode, ReadOptions};
use super::problems::{Problem, ProblemKind};
use crate::{Document, Error};

/// What identifies a file or folder whatever path reaches it.
#[cfg(unix)]
type FileKey = (u64, u64);
#[cfg(not(unix))]
type FileKey = PathBuf;

#[cfg(unix)]
fn file_key(_path: &Path, meta: &Metadata) -> Option<FileKey> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_key(path: &Path, _meta: &Metadata) -> Option<FileKey> {
    std::fs::canonicalize(path).ok()
}

/// A streaming reader of a folder: yields one `Result<`[`Document`]`, `[`Problem`]`>`
/// per file below it, reading one file at a time.
///
/// * **Order.** Depth first, each folder's entries sorted by file name (byte-wise), so
///   the order is the same on every run and platform.
/// * **Ids.** The file's path relative to the folder, components joined by `/` (a
///   name that is not UTF-8 is converted lossily).
/// * **Symbolic links** within the folder are followed; a link to a file or folder
///   outside it is an [`ProblemKind::Unreadable`] problem and is not read, unless
///   [`ReadOptions::follow_links_out`] is set. A link to one of its own ancestor folders is a
///   loop: it is yielded as a [`ProblemKind::SymlinkLoop`] problem and not entered. A
///   file or folder reached again through another link is neither read nor walked a
///   second time (files and folders are recognized by device and inode on Unix, by
///   canonical path elsewhere); [`revisited`](Self::revisited) counts those. So the walk
///   reads each file once and visits each folder once, whatever the links.
/// * **Hidden entries** (name starting with `.`) are skipped unless
///   [`ReadOptions::hidden`] is set.
/// * **Gzip.** A file that starts with the gzip magic bytes (`1f 8b`), whatever its
///   name, is decompressed and then read as the same file uncompressed would be: one
///   document (text or HTML; `page.html.gz` is HTML), its id the file's own path
///   (`.gz` included). A JSON Lines file in a folder is one document whether
///   compressed or not: give the file itself to read its records.
/// * **Text.** The bytes must be UTF-8 (a byte order mark at the start is dropped),
///   or UTF-16 with its byte order mark, or in the legacy encoding
///   [`ReadOptions::encoding`] names ([`decoded`](Self::decoded) counts such files);
///   a NUL byte is a [`ProblemKind::Binary`] problem, bytes that are not UTF-8 (by
///   default) an [`ProblemKind::Encoding`] problem, each naming the byte offset. HTML
///   is converted to text per [`ReadOptions::html`]. A file with no text left is a
///   [`ProblemKind::Empty`] problem.
/// * **Bounds.** A file larger than [`ReadOptions::max_document_bytes`] is a
///   [`ProblemKind::TooLarge`] problem, read no further than the limit (a gzip file
///   both as stored and decompressed: a gzip bomb is refused once its output passes
///   the limit); FIFOs, sockets
///   and devices are [`ProblemKind::Unreadable`] problems and never opened (opening a
///   FIFO could block forever), as are files and folders that cannot be opened and
///   dangling links.
///
/// The reader yields every problem; [`ReadOptions::errors`] and duplicate ids are the
/// business of [`read_corpus`](super::read_corpus), which drives it.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{FolderReader, ReadOptions};
/// let dir = std::env::temp_dir().join(format!("ndd-doc-folder-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("sub"))?;
/// std::fs::write(dir.join("b.txt"), "plain text")?;
/// std::fs::write(dir.join("sub/a.html"), "<p>Hello <script>x()</script>world</p>")?;
/// let docs: Vec<_> = FolderReader::new(&dir, &ReadOptions::default())?
///     .collect::<Result<_, _>>()?;
/// assert_eq!(docs[0].id, "b.txt");
/// assert_eq!((docs[1].id.as_str(), docs[1].text.trim()), ("sub/a.html", "Hello world"));
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FolderReader {
    root: PathBuf,
    canonical_root: PathBuf,
    walker: walkdir::IntoIter,
    options: ReadOptions,
    files: HashSet<FileKey>,
    folders: HashSet<FileKey>,
    bytes: u64,
    files_read: u64,
    revisited: u64,
    utf16_decoded: u64,
    legacy_decoded: u64,
    last: PathBuf,
}

impl FolderReader {
    /// A reader of the folder `root`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if `root` cannot be examined or is not a folder (its error kind is
    /// then [`std::io::ErrorKind::InvalidInput`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{FolderReader, ReadOptions};
    /// assert!(FolderReader::new("/no/such/folder", &ReadOptions::default()).is_err());
    /// ```
    pub fn new(root: impl AsRef<Path>, options: &ReadOptions) -> Result<Self, Error> {
        let root = root.as_ref();
        let meta = std::fs::metadata(root).map_err(|e| Error::io(root, e))?;
        if !meta.is_dir() {
            return Err(Error::io(
                root,
                io::Error::new(io::ErrorKind::InvalidInput, "not a folder"),
            ));
        }
        let mut folders = HashSet::new();
        if let Some(key) = file_key(root, &meta) {
            folders.insert(key);
        }
        Ok(FolderReader {
            // Where links may lead: the folder itself, as the file system resolves it.
            canonical_root: std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?,
            root: root.to_path_buf(),
            walker: walkdir::WalkDir::new(root)
                .follow_links(true)
                .sort_by_file_name()
                .min_depth(1)
                .into_iter(),
            options: options.clone(),
            files: HashSet::new(),
            folders,
            bytes: 0,
            files_read: 0,
            revisited: 0,
            utf16_decoded: 0,
            legacy_decoded: 0,
            last: root.to_path_buf(),
        })
    }

    /// Bytes of files read so far.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-bytes-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("a.txt"), "12345")?;
    /// let mut r = near_dup::corpus::FolderReader::new(&dir, &Default::default())?;
    /// r.next();
    /// assert_eq!((r.bytes_read(), r.files_read()), (5, 1));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// Files opened and read so far (rejected ones included).
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-files-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let r = near_dup::corpus::FolderReader::new(&dir, &Default::default())?;
    /// assert_eq!(r.files_read(), 0);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn files_read(&self) -> u64 {
        self.files_read
    }

    /// Files and folders reached again through a symbolic link, and so neither read
    /// nor walked again.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-rev-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let r = near_dup::corpus::FolderReader::new(&dir, &Default::default())?;
    /// assert_eq!(r.revisited(), 0);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn revisited(&self) -> u64 {
        self.revisited
    }

    /// Files decoded from UTF-16 (they start with its byte order mark) and files
    /// decoded from a single-byte encoding ([`ReadOptions::encoding`]) so far.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-dec-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let utf16: Vec<u8> = [0xFF, 0xFE].into_iter()
    ///     .chain("hé".encode_utf16().flat_map(u16::to_le_bytes)).collect();
    /// std::fs::write(dir.join("a.txt"), utf16)?;
    /// let mut r = near_dup::corpus::FolderReader::new(&dir, &Default::default())?;
    /// assert_eq!(r.next().unwrap()?.text, "hé");
    /// assert_eq!(r.decoded(), (1, 0));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decoded(&self) -> (u64, u64) {
        (self.utf16_decoded, self.legacy_decoded)
    }

    /// The path of the last entry examined: where the last item came from.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-last-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("a.txt"), "x")?;
    /// let mut r = near_dup::corpus::FolderReader::new(&dir, &Default::default())?;
    /// r.next();
    /// assert_eq!(r.location(), dir.join("a.txt").display().to_string());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn location(&self) -> String {
        self.last.display().to_string()
    }

    /// The id of `path`: relative to the root, `/`-separated.
    fn id_of(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let mut id = String::new();
        for c in rel.components() {
            if let Component::Normal(part) = c {
                if !id.is_empty() {
                    id.push('/');
                }
                id.push_str(&part.to_string_lossy());
            }
        }
        id
    }

    fn problem(&self, path: &Path, kind: ProblemKind, message: impl Into<String>) -> Problem {
        Problem::new(path.display().to_string(), message, kind)
    }

    /// Reads one regular file into a document.
    fn read_file(&mut self, path: &Path, meta: &Metadata) -> Result<Document, Problem> {
        let max = self.options.max_document_bytes;
        let too_large = |size: String| {
            format!("file is {size} bytes, more than the limit of {max} bytes (max_document_bytes)")
        };
        if meta.len() > max {
            return Err(self.problem(
                path,
                ProblemKind::TooLarge,
                too_large(meta.len().to_string()),
            ));
        }
        let mut file = File::open(path).map_err(|e| {
            self.problem(path, ProblemKind::Unreadable, format!("cannot open: {e}"))
        })?;
        self.files_read += 1;
        let mut magic = [0u8; 2];
        let n = read_up_to(&mut file, &mut magic)
            .map_err(|e| self.problem(path, ProblemKind::Unreadable, format!("read error: {e}")))?;
        let gzip = n == 2 && magic == GZIP_MAGIC;
        // The first bytes again, then the rest: at most `max + 1` bytes as stored.
        let mut stored = CountingRead {
            inner: (&magic[..n]).chain(file).take(max.saturating_add(1)),
            count: 0,
        };
        let mut bytes = Vec::new();
        let read = if gzip {
            // Decompressed, bounded again: a gzip bomb is refused after `max + 1`
            // bytes, whatever it would grow to.
            flate2::read::MultiGzDecoder::new(&mut stored)
                .take(max.saturating_add(1))
                .read_to_end(&mut bytes)
        } else {
            stored.read_to_end(&mut bytes)
        };
        self.bytes += stored.count;
        if let Err(e) = read {
            let what = if gzip {
                "gzip read error"
            } else {
                "read error"
            };
            return Err(self.problem(path, ProblemKind::Unreadable, format!("{what}: {e}")));
        }
        if bytes.len() as u64 > max {
            return Err(self.problem(
                path,
                ProblemKind::TooLarge,
                if gzip {
                    format!(
                        "gzip file decompresses to more than the limit of {max} bytes \
                         (max_document_bytes); not read further"
                    )
                } else {
                    // The file grew since its size was taken.
                    too_large(format!("over {max}"))
                },
            ));
        }
        let utf16 = bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]);
        if !utf16 {
            if let Some(at) = bytes.iter().position(|&b| b == 0) {
                return Err(self.problem(
                    path,
                    ProblemKind::Binary,
                    format!("binary file: NUL byte at byte offset {at}"),
                ));
            }
        }
        let bom = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
        // Decoded text is new; UTF-8 as read is the buffer itself (not copied).
        let decoded = decode(&bytes[bom..], self.options.encoding, true).map(|(text, how)| {
            let text = match text {
                Cow::Owned(text) => Some(text),
                Cow::Borrowed(_) => None,
            };
            (text, how)
        });
        let text = match decoded {
            Ok((text, how)) => {
                match how {
                    Decoded::Utf8 => {}
                    Decoded::Utf16 => self.utf16_decoded += 1,
                    Decoded::Legacy => self.legacy_decoded += 1,
                }
                match text {
                    Some(text) => text,
                    None => {
                        bytes.drain(..bom);
                        // Valid: `decode` checked it.
                        String::from_utf8(bytes)
                            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
                    }
                }
            }
            Err(NotText::NotUtf8(at)) => {
                return Err(self.problem(
                    path,
                    ProblemKind::Encoding,
                    format!(
                        "not UTF-8 text: invalid byte sequence at byte offset {}{}",
                        at + bom,
                        ENCODING_HINT
                    ),
                ));
            }
            Err(NotText::BadUtf16(name)) => {
                return Err(self.problem(
                    path,
                    ProblemKind::Encoding,
                    format!("starts with a {name} byte order mark but is not valid {name}"),
                ));
            }
            Err(NotText::Nul(at)) => {
                return Err(self.problem(
                    path,
                    ProblemKind::Binary,
                    format!("binary file: NUL character at character {at} of its UTF-16 text"),
                ));
            }
        };
        let is_html = match self.options.html {
            HtmlMode::Always => true,
            HtmlMode::Never => false,
            HtmlMode::Auto => html_name(path, gzip) || looks_like_html(&text),
        };
        let text = if is_html { html_to_text(&text) } else { text };
        if text.trim().is_empty() {
            let message = if is_html {
                "file has no text (empty, whitespace or markup only)"
            } else {
                "file is empty or only whitespace"
            };
            return Err(self.problem(path, ProblemKind::Empty, message));
        }
        Ok(Document {
            id: self.id_of(path),
            text,
            order: None,
            attributes: Vec::new(),
        })
    }

    /// The problem for a walk error: a loop, a dangling link or an unreadable entry.
    fn walk_problem(&self, err: &walkdir::Error) -> Problem {
        let path = err.path().unwrap_or(&self.root);
        if let Some(ancestor) = err.loop_ancestor() {
            return self.problem(
                path,
                ProblemKind::SymlinkLoop,
                format!(
                    "symbolic link loop: it leads back to the folder {} above it; not followed",
                    ancestor.display()
                ),
            );
        }
        let dangling = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
            && std::fs::metadata(path).is_err();
        let message = if dangling {
            "dangling symbolic link: its target does not exist".to_owned()
        } else {
            match err.io_error() {
                Some(e) => format!("cannot read: {e}"),
                None => format!("cannot read: {err}"),
            }
        };
        self.problem(path, ProblemKind::Unreadable, message)
    }
}

/// Whether `path` names an HTML file: `*.html` or `*.htm` (any case), or, for a
/// gzip file, `*.html.gz` and the like.
fn html_name(path: &Path, gzip: bool) -> bool {
    let is_html = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
    };
    is_html(path)
        || (gzip
            && path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
            && is_html(Path::new(path.file_stem().unwrap_or_default())))
}

/// A reader that counts the bytes it hands out (the stored bytes of a gzip file).
struct CountingRead<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for CountingRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

fn is_hidden(entry: &walkdir::DirEntry) -> bool {
    entry.file_name().as_encoded_bytes().first() == Some(&b'.')
}

impl Iterator for FolderReader {
    type Item = Result<Document, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let entry = match self.walker.next()? {
                Ok(entry) => entry,
                Err(err) => {
                    let problem = self.walk_problem(&err);
                    self.last = err.path().unwrap_or(&self.root).to_path_buf();
                    return Some(Err(problem));
                }
            };
            let path = entry.path();
            if !self.options.hidden && is_hidden(&entry) {
                if entry.file_type().is_dir() {
                    self.walker.skip_current_dir();
                }
                continue;
            }
            if entry.path_is_symlink() && !self.options.follow_links_out {
                // A dangling link is reported below; one that resolves outside the
                // folder is not followed.
                if let Ok(target) = std::fs::canonicalize(path) {
                    if !target.starts_with(&self.canonical_root) {
                        if entry.file_type().is_dir() {
                            self.walker.skip_current_dir();
                        }
                        let path = path.to_path_buf();
                        self.last.clone_from(&path);
                        return Some(Err(self.problem(
                            &path,
                            ProblemKind::Unreadable,
                            format!(
                                "a symbolic link out of the input folder (to {}); not \
                                 followed (follow_links_out, or --follow-links in the \
                                 tool, to read it)",
                                target.display()
                            ),
                        )));
                    }
                }
            }
            let meta = match entry.metadata() {
                Ok(m) => m,
                Err(err) => {
                    self.last = path.to_path_buf();
                    return Some(Err(self.walk_problem(&err)));
                }
            };
            let key = file_key(path, &meta);
            if meta.is_dir() {
                if let Some(key) = key {
                    if !self.folders.insert(key) {
                        self.revisited += 1;
                        self.walker.skip_current_dir();
                    }
                }
                continue;
            }
            let path = path.to_path_buf();
            self.last.clone_from(&path);
            if !meta.is_file() {
                return Some(Err(self.problem(
                    &path,
                    ProblemKind::Unreadable,
                    "not a regular file (a FIFO, socket or device); not opened",
                )));
            }
            if let Some(key) = key {
                if !self.files.insert(key) {
                    self.revisited += 1;
                    continue;
                }
            }
            return Some(self.read_file(&path, &meta));
        }
    }
}

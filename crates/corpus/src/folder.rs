//! [`FolderReader`]: a folder of text and HTML files, one document per file, walked
//! with `walkdir` so that symbolic-link loops end instead of hanging.

use std::collections::HashSet;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use ndd_shingle::html::{html_to_text, looks_like_html};

use super::jsonl::BOM;
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
/// * **Text.** The bytes must be UTF-8 (a byte order mark at the start is dropped);
///   a NUL byte or invalid UTF-8 is a [`ProblemKind::Binary`] problem naming the
///   byte offset. HTML is converted to text per [`ReadOptions::html`]. A file with no
///   text left is a [`ProblemKind::Empty`] problem.
/// * **Bounds.** A file larger than [`ReadOptions::max_document_bytes`] is a
///   [`ProblemKind::TooLarge`] problem, read no further than the limit; FIFOs, sockets
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
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a folder"),
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
        let file = File::open(path).map_err(|e| {
            self.problem(path, ProblemKind::Unreadable, format!("cannot open: {e}"))
        })?;
        self.files_read += 1;
        let mut bytes = Vec::new();
        let read = file.take(max.saturating_add(1)).read_to_end(&mut bytes);
        self.bytes += bytes.len() as u64;
        if let Err(e) = read {
            return Err(self.problem(path, ProblemKind::Unreadable, format!("read error: {e}")));
        }
        if bytes.len() as u64 > max {
            // The file grew since its size was taken.
            return Err(self.problem(
                path,
                ProblemKind::TooLarge,
                too_large(format!("over {max}")),
            ));
        }
        if let Some(at) = bytes.iter().position(|&b| b == 0) {
            return Err(self.problem(
                path,
                ProblemKind::Binary,
                format!("binary file: NUL byte at byte offset {at}"),
            ));
        }
        let bom = if bytes.starts_with(BOM) {
            bytes.drain(..BOM.len());
            BOM.len()
        } else {
            0
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to() + bom;
            self.problem(
                path,
                ProblemKind::Binary,
                format!("not UTF-8 text: invalid byte sequence at byte offset {at}"),
            )
        })?;
        let is_html = match self.options.html {
            HtmlMode::Always => true,
            HtmlMode::Never => false,
            HtmlMode::Auto => {
                path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                    e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm")
                }) || looks_like_html(&text)
            }
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

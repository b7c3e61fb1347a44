//! [`input_fingerprint`]: what an input's files are, as one number.

use std::path::Path;

use crate::Error;

/// The fingerprint of the file or folder at `path`: a hash of its canonical path and,
/// for a file, its size and modification time; for a folder, the path, size and
/// modification time of every file below it (symbolic links followed, in file-name
/// order). Work saved for one input (the out-of-core stages of `ndd dedup
/// --work-dir`) carries it, so that it is not reused for another input, nor for this
/// one after a file was added, removed, resized or touched.
///
/// Only metadata is read, never the files' contents: cheap beside reading the corpus,
/// and blind to a change that keeps a file's size and modification time. The value is
/// a specified hash ([`ndd_core::SchemeId`], scheme `ndd-cli/work-dir-input`, kept
/// from when the tool computed it so that earlier work folders stay valid); it
/// depends on the paths, so it is the same only for the same input at the same place.
///
/// # Errors
///
/// [`Error::Io`] naming `path` when it does not exist, cannot be resolved, or a
/// folder entry or its metadata cannot be read (a dangling symbolic link, a
/// symbolic-link loop, a permission).
///
/// # Example
///
/// ```
/// use near_dup::corpus::input_fingerprint;
/// let dir = std::env::temp_dir().join(format!("ndd-doc-fingerprint-{}", std::process::id()));
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("a.txt"), "some text")?;
/// let before = input_fingerprint(&dir)?;
/// assert_eq!(input_fingerprint(&dir)?, before); // nothing changed
/// std::fs::write(dir.join("b.txt"), "another text")?;
/// assert_ne!(input_fingerprint(&dir)?, before); // a file was added
/// std::fs::remove_dir_all(&dir)?;
/// assert!(input_fingerprint(&dir).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn input_fingerprint(path: impl AsRef<Path>) -> Result<u64, Error> {
    let path = path.as_ref();
    let canonical = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
    // A walk error keeps walkdir's message (it names the entry).
    let walk_fail = |e: walkdir::Error| Error::io(path, std::io::Error::other(e));
    let mut id =
        ndd_core::SchemeId::new("ndd-cli/work-dir-input").with_str(&canonical.to_string_lossy());
    let stamp = |meta: &std::fs::Metadata| {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        (meta.len(), u64::try_from(modified % (1 << 64)).unwrap_or(0))
    };
    if canonical.is_dir() {
        // Metadata only, in a fixed order: cheap beside reading the files.
        let walk = walkdir::WalkDir::new(&canonical)
            .follow_links(true)
            .sort_by_file_name();
        for entry in walk {
            let entry = entry.map_err(walk_fail)?;
            if entry.file_type().is_file() {
                let meta = entry.metadata().map_err(walk_fail)?;
                let (len, modified) = stamp(&meta);
                id = id
                    .with_str(&entry.path().to_string_lossy())
                    .with(len)
                    .with(modified);
            }
        }
    } else {
        let meta = std::fs::metadata(&canonical).map_err(|e| Error::io(path, e))?;
        let (len, modified) = stamp(&meta);
        id = id.with(len).with(modified);
    }
    Ok(id.finish().as_u64())
}

/// [`input_fingerprint`] and the content of every file: the same metadata, then a
/// specified hash (XXH3-64) of each file's bytes in the same order. What work saved
/// for an input is checked against (`ndd dedup --work-dir`): a file replaced by
/// another of the same size and modification time, which [`input_fingerprint`]
/// cannot see, gives another value. It reads the whole input once (at the speed of
/// the disk; hashing runs at several GB/s).
///
/// # Errors
///
/// As [`input_fingerprint`], and [`Error::Io`] naming a file that cannot be read.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{input_content_fingerprint, input_fingerprint};
/// let dir = std::env::temp_dir().join(format!("ndd-doc-content-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let file = dir.join("a.jsonl");
/// std::fs::write(&file, "{\"id\": 1, \"text\": \"one\"}\n")?;
/// let when = std::fs::metadata(&file)?.modified()?;
/// let (meta, content) = (input_fingerprint(&file)?, input_content_fingerprint(&file)?);
/// // The same size and time, another text: only the content fingerprint sees it.
/// std::fs::write(&file, "{\"id\": 1, \"text\": \"two\"}\n")?;
/// std::fs::File::options().write(true).open(&file)?.set_modified(when)?;
/// assert_eq!(input_fingerprint(&file)?, meta);
/// assert_ne!(input_content_fingerprint(&file)?, content);
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn input_content_fingerprint(path: impl AsRef<Path>) -> Result<u64, Error> {
    use std::io::Read;
    let path = path.as_ref();
    let mut id = ndd_core::SchemeId::new("ndd-corpus/input-content").with(input_fingerprint(path)?);
    let canonical = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
    let files: Vec<std::path::PathBuf> = if canonical.is_dir() {
        let walk_fail = |e: walkdir::Error| Error::io(path, std::io::Error::other(e));
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(&canonical)
            .follow_links(true)
            .sort_by_file_name()
        {
            let entry = entry.map_err(walk_fail)?;
            if entry.file_type().is_file() {
                files.push(entry.into_path());
            }
        }
        files
    } else {
        vec![canonical]
    };
    let mut buf = vec![0u8; 1 << 16];
    for file in files {
        let mut f = std::fs::File::open(&file).map_err(|e| Error::io(&file, e))?;
        let mut hash = ndd_core::hash::StableHasher::new(0);
        loop {
            let n = f.read(&mut buf).map_err(|e| Error::io(&file, e))?;
            let Some(chunk) = buf.get(..n).filter(|c| !c.is_empty()) else {
                break;
            };
            hash.update(chunk);
        }
        id = id.with(hash.finish());
    }
    Ok(id.finish().as_u64())
}

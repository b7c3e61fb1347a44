//! Reading a saved byte form (a lexicon, a learned model, an index) from a file with a
//! bound on its size, so that a wrong path to a large file or a device is refused at
//! once instead of read into memory; and reading a header or magic number that a short
//! input may lack ([`read_up_to`]).

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::Error;

/// Why a file holding a saved byte form could not be read or decoded. Each message
/// starts with the file's path.
///
/// # Example
///
/// ```
/// use near_dup::file::{FileError, read_bounded};
/// let missing = std::path::Path::new("/nonexistent/ndd/file");
/// let err = read_bounded(missing, 1 << 20, None).unwrap_err();
/// assert!(matches!(err, FileError::Io { .. }));
/// assert!(err.to_string().starts_with("/nonexistent/ndd/file: "));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The path names a device, not a file.
    #[error("{}: is a device, not a file", path.display())]
    Device {
        /// The path.
        path: PathBuf,
    },
    /// The path names a FIFO, a socket or a folder: not a regular file (opening a FIFO
    /// would wait for a writer).
    #[error("{}: is not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file does not start with the magic number of the byte form asked for,
    /// checked before the rest is read (a large file of something else is refused at
    /// once, not read whole and then refused by its checksum).
    #[error(
        "{}: corrupt data: not a file of this kind (it starts with {:?}, not {:?})",
        path.display(),
        String::from_utf8_lossy(found),
        String::from_utf8_lossy(expected)
    )]
    WrongKind {
        /// The file.
        path: PathBuf,
        /// Its first bytes (fewer when the file is shorter).
        found: Vec<u8>,
        /// The magic number asked for.
        expected: Vec<u8>,
    },
    /// The file is larger than such a file can honestly be.
    #[error(
        "{}: {len} bytes, more than the {max} bytes such a file can honestly need",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The bound.
        max: u64,
    },
    /// The file grew past the bound while it was read.
    #[error("{}: more than {max} bytes", path.display())]
    Grew {
        /// The file.
        path: PathBuf,
        /// The bound.
        max: u64,
    },
    /// The bytes are not the byte form asked for.
    #[error("{}: {source}", path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// Why the bytes were refused.
        #[source]
        source: Error,
    },
}

/// The bytes of the file at `path`, at most `max` of them, and the metadata of the file
/// as opened (to tell later whether it changed since). With `magic`, the file must
/// start with those bytes; they are checked before the rest is read.
///
/// Cost: one `stat`, one open and one read of at most `max + 1` bytes (only
/// `magic.len()` of them for a file of another kind).
///
/// # Errors
///
/// [`FileError::Io`] when the file cannot be opened or read, [`FileError::Device`]
/// for a character or block device, [`FileError::NotAFile`] for a FIFO, a socket or a
/// folder (checked before opening: opening a FIFO waits for a writer),
/// [`FileError::TooLarge`] or [`FileError::Grew`] for a file of more than `max` bytes,
/// [`FileError::WrongKind`] when it does not start with `magic`.
///
/// # Example
///
/// ```
/// use near_dup::file::{FileError, read_bounded};
/// let path = std::env::temp_dir().join(format!("ndd-read-bounded-{}", std::process::id()));
/// std::fs::write(&path, b"four")?;
/// assert_eq!(read_bounded(&path, 4, None)?.0, b"four");
/// assert_eq!(read_bounded(&path, 4, Some(b"fo"))?.0, b"four");
/// assert!(matches!(read_bounded(&path, 3, None), Err(FileError::TooLarge { len: 4, max: 3, .. })));
/// assert!(matches!(read_bounded(&path, 4, Some(b"NDDX")), Err(FileError::WrongKind { .. })));
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_bounded(
    path: &Path,
    max: u64,
    magic: Option<&[u8]>,
) -> Result<(Vec<u8>, Metadata), FileError> {
    let io = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    // What the path names, before opening it.
    let before = std::fs::metadata(path).map_err(io)?;
    check_kind(path, &before)?;
    let mut file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    check_kind(path, &meta)?;
    let len = meta.len();
    if len > max {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            len,
            max,
        });
    }
    let mut bytes = Vec::new();
    if let Some(magic) = magic {
        (&mut file)
            .take(magic.len() as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes != magic {
            return Err(FileError::WrongKind {
                path: path.to_path_buf(),
                found: bytes,
                expected: magic.to_vec(),
            });
        }
    }
    let left = (max + 1).saturating_sub(bytes.len() as u64);
    file.take(left).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(FileError::Grew {
            path: path.to_path_buf(),
            max,
        });
    }
    Ok((bytes, meta))
}

/// Refuses what is not a regular file: a device, a FIFO, a socket, a folder.
fn check_kind(path: &Path, meta: &Metadata) -> Result<(), FileError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_block_device() {
            return Err(FileError::Device {
                path: path.to_path_buf(),
            });
        }
    }
    if meta.is_file() {
        Ok(())
    } else {
        Err(FileError::NotAFile {
            path: path.to_path_buf(),
        })
    }
}

/// The value `decode` reads from the file at `path` of at most `max` bytes (see
/// [`read_bounded`], with the form's `magic` number checked first): how the owners of
/// byte forms load them from files.
///
/// # Errors
///
/// As [`read_bounded`]; [`FileError::Decode`] with `decode`'s error for bytes it
/// refuses.
///
/// # Example
///
/// ```
/// use near_dup::Error;
/// use near_dup::file::{FileError, load_bounded};
/// let path = std::env::temp_dir().join(format!("ndd-load-bounded-{}", std::process::id()));
/// std::fs::write(&path, b"abc")?;
/// let len = |b: &[u8]| if b.is_empty() { Err(Error::corrupt_data("empty")) } else { Ok(b.len()) };
/// assert_eq!(load_bounded(&path, 16, None, len)?, 3);
/// std::fs::write(&path, b"")?;
/// assert!(matches!(load_bounded(&path, 16, None, len), Err(FileError::Decode { .. })));
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_bounded<T>(
    path: &Path,
    max: u64,
    magic: Option<&[u8]>,
    decode: impl FnOnce(&[u8]) -> Result<T, Error>,
) -> Result<T, FileError> {
    let (bytes, _) = read_bounded(path, max, magic)?;
    decode(&bytes).map_err(|source| FileError::Decode {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads from `r` until `buf` is full or the input ends, retrying a read that was
/// interrupted; returns how many bytes it read (fewer than `buf.len()` only at the
/// end of the input). For a header or a magic number that a short input may lack,
/// where [`Read::read_exact`] would fail without saying how much there was.
///
/// # Errors
///
/// The first error of `r` other than [`std::io::ErrorKind::Interrupted`].
///
/// # Example
///
/// ```
/// use near_dup::file::read_up_to;
/// let mut magic = [0u8; 2];
/// assert_eq!(read_up_to(&mut &b"\x1f\x8b rest"[..], &mut magic)?, 2);
/// assert_eq!(magic, [0x1f, 0x8b]);
/// assert_eq!(read_up_to(&mut &b"x"[..], &mut magic)?, 1);
/// assert_eq!(read_up_to(&mut std::io::empty(), &mut magic)?, 0);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

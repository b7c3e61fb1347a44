//! Record files: band keys, edges and component assignments as versioned,
//! little-endian, fixed-size records between a header and a checksummed trailer.
//!
//! A file is a 32-byte header, `n` records of one kind, and a 24-byte trailer:
//!
//! ```text
//! header   0  8  magic  "NDDSCALE"
//!          8  2  format version, u16 LE (FORMAT_VERSION = 1)
//!         10  2  record kind, u16 LE (1 band keys, 2 edges, 3 assignments, 4 digests,
//!                5 scores)
//!         12  4  record size in bytes, u32 LE (18, 16, 16, 28, 8)
//!         16  8  fingerprint, u64 LE (band keys: band_key_fingerprint; others: the
//!                writer's choice, 0 for none)
//!         24  8  reserved, zero
//! records 32  n × size, each field u64/u16 LE, packed, no padding
//! trailer  0  8  end magic "NDDSCEND"
//!          8  8  record count n, u64 LE
//!         16  8  XXH3-64 (seed 0) of every byte of the file before this field
//! ```
//!
//! The trailer is written last, by [`RecordWriter::finish`], into a temporary file
//! that is then renamed into place: a file without it is incomplete (its writer died)
//! and a reader refuses it. The full specification, and what a job on another engine
//! (Spark, for example) needs to read or write these files, is in `docs/formats.md`.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use ndd_core::SchemeId;
use ndd_core::file::read_up_to;
use ndd_lsh::LshParams;
use xxhash_rust::xxh3::Xxh3;

/// The first eight bytes of every record file.
///
/// # Example
///
/// ```
/// assert_eq!(&near_dup::scale::MAGIC, b"NDDSCALE");
/// ```
pub const MAGIC: [u8; 8] = *b"NDDSCALE";

/// The first eight bytes of the trailer: present only in a file whose writer finished.
///
/// # Example
///
/// ```
/// assert_eq!(&near_dup::scale::END_MAGIC, b"NDDSCEND");
/// ```
pub const END_MAGIC: [u8; 8] = *b"NDDSCEND";

/// The layout version this crate writes and reads. A reader refuses other versions.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::scale::FORMAT_VERSION, 1);
/// ```
pub const FORMAT_VERSION: u16 = 1;

/// The header's length in bytes.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::scale::HEADER_LEN, 32);
/// ```
pub const HEADER_LEN: usize = 32;

/// The trailer's length in bytes.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::scale::TRAILER_LEN, 24);
/// ```
pub const TRAILER_LEN: usize = 24;

/// The largest record size of any kind (a digest record, 28 bytes).
const MAX_RECORD_SIZE: usize = 28;

/// Bytes of records a [`RecordWriter`] holds before it hashes and writes them, and a
/// [`RecordReader`] reads and hashes at once (about; whole records).
const BLOCK: usize = 16 << 10;

/// What a record file holds: the kind code in the header.
///
/// # Example
///
/// ```
/// use near_dup::scale::RecordKind;
/// assert_eq!(RecordKind::BandKeys.code(), 1);
/// assert_eq!(RecordKind::from_code(2), Some(RecordKind::Edges));
/// assert_eq!(RecordKind::Assignments.record_size(), 16);
/// assert_eq!(RecordKind::from_code(9), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// [`BandKeyRecord`]s: `(doc: u64, band: u16, key: u64)`, 18 bytes.
    BandKeys,
    /// [`Edge`]s: `(a: u64, b: u64)`, 16 bytes.
    Edges,
    /// [`Assignment`]s: `(doc: u64, rep: u64)`, 16 bytes.
    Assignments,
    /// [`DigestRecord`]: a document and the 20-byte digest of its content, for
    /// finding exact copies by sorting (code 4).
    Digests,
    /// [`Score`]s: one `f64` per record, the score of the edge at the same position in
    /// an edge file written beside it (code 5), 8 bytes.
    Scores,
}

impl RecordKind {
    /// The kind's code in the header (1 to 5).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::scale::RecordKind::Assignments.code(), 3);
    /// ```
    #[must_use]
    pub const fn code(self) -> u16 {
        match self {
            RecordKind::BandKeys => 1,
            RecordKind::Edges => 2,
            RecordKind::Assignments => 3,
            RecordKind::Digests => 4,
            RecordKind::Scores => 5,
        }
    }

    /// The kind of a header code, `None` for an unknown one.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::RecordKind;
    /// assert_eq!(RecordKind::from_code(1), Some(RecordKind::BandKeys));
    /// assert_eq!(RecordKind::from_code(0), None);
    /// ```
    #[must_use]
    pub const fn from_code(code: u16) -> Option<Self> {
        match code {
            1 => Some(RecordKind::BandKeys),
            2 => Some(RecordKind::Edges),
            3 => Some(RecordKind::Assignments),
            4 => Some(RecordKind::Digests),
            5 => Some(RecordKind::Scores),
            _ => None,
        }
    }

    /// The size of one record in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::scale::RecordKind::BandKeys.record_size(), 18);
    /// ```
    #[must_use]
    pub const fn record_size(self) -> usize {
        match self {
            RecordKind::BandKeys => 18,
            RecordKind::Edges | RecordKind::Assignments => 16,
            RecordKind::Digests => 28,
            RecordKind::Scores => 8,
        }
    }

    /// `band-keys`, `edges`, `assignments`, `digests` or `scores`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::scale::RecordKind::Edges.name(), "edges");
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RecordKind::BandKeys => "band-keys",
            RecordKind::Edges => "edges",
            RecordKind::Assignments => "assignments",
            RecordKind::Digests => "digests",
            RecordKind::Scores => "scores",
        }
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a record file could not be written or read. Every malformed file is one of
/// these, never a panic or a silently short result.
///
/// # Example
///
/// ```
/// use near_dup::scale::{Edge, RecordError, RecordReader};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-records-200");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("edges.bin");
/// std::fs::write(&path, b"not a record file, but long enough to have a header")?;
/// let err = RecordReader::<Edge, _>::open(&path).unwrap_err();
/// assert!(matches!(err, RecordError::BadMagic));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// Reading or writing failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// The file does not start with [`MAGIC`]: not a record file.
    #[error("not an ndd record file (bad magic)")]
    BadMagic,
    /// The header's version is not [`FORMAT_VERSION`].
    #[error("unsupported record format version {found} (this reader reads version {supported})")]
    UnsupportedVersion {
        /// The version in the file.
        found: u16,
        /// The version this reader reads.
        supported: u16,
    },
    /// The file holds another kind of record than the one asked for.
    #[error("wrong record kind: expected {expected}, the file's kind code is {found}")]
    WrongKind {
        /// The kind the reader was asked for.
        expected: RecordKind,
        /// The kind code in the file.
        found: u16,
    },
    /// The file was written for other parameters (for band keys: another signature
    /// scheme or other bands and rows).
    #[error("fingerprint mismatch: expected {expected:016x}, the file has {found:016x}")]
    FingerprintMismatch {
        /// The fingerprint the reader expects.
        expected: u64,
        /// The fingerprint in the file.
        found: u64,
    },
    /// The file ends before its header does.
    #[error("truncated record file: {reason}")]
    Truncated {
        /// What is missing.
        reason: String,
    },
    /// The file has no trailer: its writer did not finish (it died, or the file was
    /// cut short), so its records may be a fraction of the output.
    #[error("incomplete record file: no trailer (the writer did not finish)")]
    Incomplete,
    /// The header or trailer is inconsistent (reserved bytes set, a record size or
    /// count that does not match the file's length).
    #[error("corrupt record file: {reason}")]
    Corrupt {
        /// What is inconsistent.
        reason: String,
    },
    /// The trailer's checksum does not match the bytes: some byte changed after
    /// writing.
    #[error("checksum mismatch: the trailer says {stored:016x}, the bytes hash to {computed:016x}")]
    ChecksumMismatch {
        /// The checksum in the trailer.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
}

/// A fixed-size record of one [`RecordKind`], encoded little-endian.
///
/// Implemented by [`BandKeyRecord`], [`Edge`] and [`Assignment`].
///
/// # Example
///
/// ```
/// use near_dup::scale::{Edge, Record, RecordKind};
/// let mut bytes = Vec::new();
/// Edge { a: 1, b: 2 }.encode_into(&mut bytes);
/// assert_eq!(bytes.len(), Edge::KIND.record_size());
/// assert_eq!(Edge::decode(&bytes), Some(Edge { a: 1, b: 2 }));
/// assert_eq!(Edge::KIND, RecordKind::Edges);
/// ```
///
/// Records are plain values, [`Send`] so that [`ExternalSort`](crate::ExternalSort)
/// can sort a run on rayon's pool (feature `rayon`).
pub trait Record: Copy + Send {
    /// The kind of file these records go in.
    const KIND: RecordKind;

    /// Appends the record's [`KIND`](Self::KIND)`.record_size()` bytes to `out`.
    fn encode_into(&self, out: &mut Vec<u8>);

    /// The record encoded in `bytes`, `None` unless `bytes` has exactly the record's
    /// size.
    fn decode(bytes: &[u8]) -> Option<Self>;
}

/// `bytes` when they are one record of `kind` (its size), else `None`.
fn of_kind(bytes: &[u8], kind: RecordKind) -> Option<&[u8]> {
    (bytes.len() == kind.record_size()).then_some(bytes)
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let b: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let b: [u8; 2] = bytes.get(at..at.checked_add(2)?)?.try_into().ok()?;
    Some(u16::from_le_bytes(b))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

/// One document's key in one LSH band: documents sharing `(band, key)` are candidates.
/// Encoded as `doc` (8 bytes), `band` (2), `key` (8), little-endian.
///
/// # Example
///
/// ```
/// use near_dup::scale::{BandKeyRecord, Record};
/// let r = BandKeyRecord { doc: 7, band: 3, key: 0xABCD };
/// let mut bytes = Vec::new();
/// r.encode_into(&mut bytes);
/// assert_eq!(bytes.len(), 18);
/// assert_eq!(&bytes[8..10], &3u16.to_le_bytes());
/// assert_eq!(BandKeyRecord::decode(&bytes), Some(r));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BandKeyRecord {
    /// The document id.
    pub doc: u64,
    /// The band index (`0..bands`).
    pub band: u16,
    /// The band key ([`ndd_lsh::band_key`]).
    pub key: u64,
}

impl Record for BandKeyRecord {
    const KIND: RecordKind = RecordKind::BandKeys;

    fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.doc.to_le_bytes());
        out.extend_from_slice(&self.band.to_le_bytes());
        out.extend_from_slice(&self.key.to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let bytes = of_kind(bytes, Self::KIND)?;
        Some(BandKeyRecord {
            doc: u64_at(bytes, 0)?,
            band: u16_at(bytes, 8)?,
            key: u64_at(bytes, 10)?,
        })
    }
}

/// An edge of the candidate graph: `a` and `b` belong to one component. Encoded as `a`
/// then `b`, 8 bytes each, little-endian. Star edges
/// ([`ndd_core::bucket_edges`]) have `a` = the bucket's smallest id.
///
/// # Example
///
/// ```
/// use near_dup::scale::Edge;
/// let e: Edge = (3, 9).into();
/// assert_eq!(e, Edge { a: 3, b: 9 });
/// assert_eq!(<(u64, u64)>::from(e), (3, 9));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    /// One end.
    pub a: u64,
    /// The other end.
    pub b: u64,
}

/// A document's component: `rep` is the smallest document id of the component
/// ([`ndd_core::DocUnionFind::assignments`]); a document is kept when `doc == rep`.
/// Encoded as `doc` then `rep`, 8 bytes each, little-endian.
///
/// # Example
///
/// ```
/// use near_dup::scale::Assignment;
/// let a: Assignment = (12, 4).into();
/// assert!(!a.is_representative());
/// assert!(Assignment { doc: 4, rep: 4 }.is_representative());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Assignment {
    /// The document id.
    pub doc: u64,
    /// Its component's representative (the smallest id in it).
    pub rep: u64,
}

impl Assignment {
    /// Whether the document represents its component (`doc == rep`).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::scale::Assignment { doc: 1, rep: 1 }.is_representative());
    /// ```
    #[must_use]
    pub const fn is_representative(&self) -> bool {
        self.doc == self.rep
    }
}

/// [`Record`] and the conversions from and to `(u64, u64)` for a record of two `u64`
/// fields, encoded in field order, 8 bytes each, little-endian.
macro_rules! pair_record {
    ($ty:ident, $kind:ident, $first:ident, $second:ident) => {
        impl Record for $ty {
            const KIND: RecordKind = RecordKind::$kind;

            fn encode_into(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.$first.to_le_bytes());
                out.extend_from_slice(&self.$second.to_le_bytes());
            }

            fn decode(bytes: &[u8]) -> Option<Self> {
                let bytes = of_kind(bytes, Self::KIND)?;
                Some($ty {
                    $first: u64_at(bytes, 0)?,
                    $second: u64_at(bytes, 8)?,
                })
            }
        }

        impl From<(u64, u64)> for $ty {
            fn from(($first, $second): (u64, u64)) -> Self {
                $ty { $first, $second }
            }
        }

        impl From<$ty> for (u64, u64) {
            fn from(r: $ty) -> Self {
                (r.$first, r.$second)
            }
        }
    };
}

pair_record!(Edge, Edges, a, b);
pair_record!(Assignment, Assignments, doc, rep);

/// The score of one pair: the records of a score file are the scores of the edges at
/// the same positions in the edge file beside it (how the out-of-core verify stage
/// writes its accepted pairs). Encoded as the `f64`'s bits, little-endian.
///
/// # Example
///
/// ```
/// use near_dup::scale::{Record, RecordKind, Score};
/// let mut bytes = Vec::new();
/// Score(0.875).encode_into(&mut bytes);
/// assert_eq!(bytes, 0.875f64.to_le_bytes());
/// assert_eq!(Score::decode(&bytes), Some(Score(0.875)));
/// assert_eq!(Score::KIND, RecordKind::Scores);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score(pub f64);

impl Record for Score {
    const KIND: RecordKind = RecordKind::Scores;

    fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let bytes = of_kind(bytes, Self::KIND)?;
        Some(Score(f64::from_bits(u64_at(bytes, 0)?)))
    }
}

/// A document and the 20-byte digest of its content (the SHA-1 of its document string,
/// as `ndd_pipeline::ExactPass` computes it): sorted by digest, the documents of equal
/// digests are exact copies of the first. Encoded as `doc` (8 bytes, little-endian)
/// then the digest (20 bytes).
///
/// # Example
///
/// ```
/// use near_dup::scale::{DigestRecord, Record, RecordKind};
/// let r = DigestRecord { doc: 5, digest: [7; 20] };
/// let mut bytes = Vec::new();
/// r.encode_into(&mut bytes);
/// assert_eq!(bytes.len(), RecordKind::Digests.record_size());
/// assert_eq!(DigestRecord::decode(&bytes), Some(r));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DigestRecord {
    /// The document id.
    pub doc: u64,
    /// The digest of its content.
    pub digest: [u8; 20],
}

impl Record for DigestRecord {
    const KIND: RecordKind = RecordKind::Digests;

    fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.doc.to_le_bytes());
        out.extend_from_slice(&self.digest);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let bytes = of_kind(bytes, Self::KIND)?;
        Some(DigestRecord {
            doc: u64_at(bytes, 0)?,
            digest: bytes.get(8..28)?.try_into().ok()?,
        })
    }
}

/// The fingerprint a band-key file carries: the signature scheme (sketch, shingles,
/// seed) and the banding, so that band keys computed with other parameters are
/// refused instead of bucketed together (equal keys would mean nothing).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::LshParams;
/// use near_dup::scale::band_key_fingerprint;
/// let scheme = SchemeId::new("minhash").with(128).finish();
/// let a = band_key_fingerprint(scheme, LshParams::new(16, 8)?);
/// assert_eq!(a, band_key_fingerprint(scheme, LshParams::new(16, 8)?));
/// assert_ne!(a, band_key_fingerprint(scheme, LshParams::new(8, 16)?));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[must_use]
pub fn band_key_fingerprint(signature_scheme: SchemeId, params: LshParams) -> u64 {
    SchemeId::new("ndd-scale/band-keys")
        .with(params.bands() as u64)
        .with(params.rows() as u64)
        .with_scheme(signature_scheme)
        .finish()
        .as_u64()
}

/// The same 64 bits as a signed integer, for engines without unsigned 64-bit columns
/// (Spark, Java): ids and keys travel as bit-cast `i64` and come back unchanged with
/// [`i64_to_u64`]. Order differs: ids at or above 2⁶³ sort before the others as `i64`.
///
/// # Example
///
/// ```
/// use near_dup::scale::{i64_to_u64, u64_to_i64};
/// assert_eq!(u64_to_i64(5), 5);
/// assert_eq!(u64_to_i64(u64::MAX), -1);
/// assert_eq!(i64_to_u64(u64_to_i64(1 << 63)), 1 << 63);
/// ```
#[must_use]
pub const fn u64_to_i64(x: u64) -> i64 {
    i64::from_le_bytes(x.to_le_bytes())
}

/// The inverse of [`u64_to_i64`].
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::scale::i64_to_u64(-1), u64::MAX);
/// ```
#[must_use]
pub const fn i64_to_u64(x: i64) -> u64 {
    u64::from_le_bytes(x.to_le_bytes())
}

/// The temporary name a [`RecordWriter`] writes `path` under until
/// [`finish`](RecordWriter::finish) renames it: the file name with `.tmp` appended.
///
/// # Example
///
/// ```
/// use std::path::Path;
/// assert_eq!(near_dup::scale::temp_path(Path::new("out/a.bin")), Path::new("out/a.bin.tmp"));
/// ```
#[must_use]
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

fn header_bytes(kind: RecordKind, fingerprint: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    let size = u32::try_from(kind.record_size()).unwrap_or(u32::MAX);
    for (dst, src) in h.iter_mut().zip(
        MAGIC
            .iter()
            .chain(&FORMAT_VERSION.to_le_bytes())
            .chain(&kind.code().to_le_bytes())
            .chain(&size.to_le_bytes())
            .chain(&fingerprint.to_le_bytes()),
    ) {
        *dst = *src;
    }
    h
}

/// Writes one record file, streaming: records go through a buffer to `path.tmp`
/// ([`temp_path`]), and [`finish`](Self::finish) writes the trailer, syncs the file to
/// disk and renames it to `path`. Until then no file exists at `path`, so a crashed
/// writer leaves nothing that looks complete; dropping an unfinished writer deletes
/// the temporary file.
///
/// # Example
///
/// ```
/// use near_dup::scale::{Assignment, RecordReader, RecordWriter};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-records-642");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("assignments.bin");
/// let mut w = RecordWriter::create(&path, 0)?;
/// w.write(&Assignment { doc: 1, rep: 1 })?;
/// w.write(&Assignment { doc: 5, rep: 1 })?;
/// assert!(!path.exists());
/// assert_eq!(w.finish()?, 2);
/// let back: Vec<Assignment> = RecordReader::open(&path)?.collect::<Result<_, _>>()?;
/// assert_eq!(back, vec![Assignment { doc: 1, rep: 1 }, Assignment { doc: 5, rep: 1 }]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RecordWriter<T: Record> {
    /// `None` once finished (or failed while finishing).
    out: Option<BufWriter<File>>,
    path: PathBuf,
    tmp: PathBuf,
    hasher: Xxh3,
    count: u64,
    buf: Vec<u8>,
    _records: PhantomData<T>,
}

impl<T: Record> RecordWriter<T> {
    /// Starts `path` (as `path.tmp`) with a header carrying `fingerprint` (for band
    /// keys, [`band_key_fingerprint`]; otherwise any value a reader may check, 0 for
    /// none). An existing `path.tmp` is overwritten; `path` is untouched until
    /// [`finish`](Self::finish).
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when the temporary file cannot be created or written, or
    /// `path` has no file name.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-679");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let w = RecordWriter::<Edge>::create(dir.join("e.bin"), 0)?;
    /// assert!(dir.join("e.bin.tmp").exists());
    /// drop(w); // unfinished: the temporary file is removed
    /// assert!(!dir.join("e.bin.tmp").exists());
    /// assert!(RecordWriter::<Edge>::create(dir.join("no/such/dir/e.bin"), 0).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create(path: impl AsRef<Path>, fingerprint: u64) -> Result<Self, RecordError> {
        let path = path.as_ref().to_path_buf();
        if path.file_name().is_none() {
            return Err(RecordError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} has no file name", path.display()),
            )));
        }
        let tmp = temp_path(&path);
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
        let header = header_bytes(T::KIND, fingerprint);
        let mut hasher = Xxh3::new();
        hasher.update(&header);
        let mut w = RecordWriter {
            out: None,
            path,
            tmp,
            hasher,
            count: 0,
            buf: Vec::with_capacity(BLOCK + MAX_RECORD_SIZE),
            _records: PhantomData,
        };
        // Set before writing, so that a failure removes the temporary file on drop.
        out.write_all(&header)?;
        w.out = Some(out);
        Ok(w)
    }

    /// Appends one record. Records are hashed and written a block (16 KiB) at a
    /// time: a failure to write this one may come from a later call, or from
    /// [`finish`](Self::finish).
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when writing fails, or the writer already failed while
    /// finishing.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{BandKeyRecord, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-726");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let mut w = RecordWriter::create(dir.join("k.bin"), 42)?;
    /// w.write(&BandKeyRecord { doc: 1, band: 0, key: 99 })?;
    /// assert_eq!(w.len(), 1);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write(&mut self, record: &T) -> Result<(), RecordError> {
        let out = self.out.as_mut().ok_or_else(|| {
            RecordError::Io(io::Error::other("record writer already finished or failed"))
        })?;
        record.encode_into(&mut self.buf);
        self.count += 1;
        if self.buf.len() >= BLOCK {
            // Hashed and written a block at a time: the hash's per-call cost is paid
            // once per block, not per record.
            self.hasher.update(&self.buf);
            out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// The number of records written so far.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-749");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let w = near_dup::scale::RecordWriter::<near_dup::scale::Edge>::create(dir.join("e"), 0)?;
    /// assert_eq!(w.len(), 0);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether no record has been written.
    ///
    /// # Example
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-764");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let w = near_dup::scale::RecordWriter::<near_dup::scale::Edge>::create(dir.join("e"), 0)?;
    /// assert!(w.is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Writes the trailer (end magic, record count, checksum), flushes and syncs the
    /// file, and renames it from `path.tmp` to `path`; returns the record count.
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when any of these fails; the temporary file is then
    /// removed and `path` is untouched.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-786");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("edges.bin");
    /// let mut w = RecordWriter::create(&path, 0)?;
    /// w.write(&Edge { a: 1, b: 2 })?;
    /// assert_eq!(w.finish()?, 1);
    /// assert_eq!(std::fs::metadata(&path)?.len(), 32 + 16 + 24);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(mut self) -> Result<u64, RecordError> {
        let mut out = self.out.take().ok_or_else(|| {
            RecordError::Io(io::Error::other("record writer already finished or failed"))
        })?;
        self.hasher.update(&self.buf);
        out.write_all(&self.buf)?;
        self.buf.clear();
        let mut trailer = [0u8; TRAILER_LEN];
        trailer[..8].copy_from_slice(&END_MAGIC);
        trailer[8..16].copy_from_slice(&self.count.to_le_bytes());
        self.hasher.update(&trailer[..16]);
        trailer[16..].copy_from_slice(&self.hasher.digest().to_le_bytes());
        out.write_all(&trailer)?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path)?;
        // Renamed: nothing left for `drop` to remove.
        self.tmp = PathBuf::new();
        Ok(self.count)
    }
}

impl<T: Record> fmt::Debug for RecordWriter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordWriter")
            .field("kind", &T::KIND)
            .field("path", &self.path)
            .field("count", &self.count)
            .field("finished", &self.out.is_none())
            .finish_non_exhaustive()
    }
}

impl<T: Record> Drop for RecordWriter<T> {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            drop(self.out.take());
            // Best effort: an unfinished file must not linger (its name already says
            // it is incomplete, and it has no trailer).
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Reads one record file, streaming: [`new`](Self::new) / [`open`](Self::open) check
/// the header and that the trailer is present and consistent with the file's length;
/// the iterator then yields the records, and after the last one checks the checksum,
/// yielding [`RecordError::ChecksumMismatch`] as its final item if any byte changed.
/// So **a consumer must read to the end (or use [`read_all`]) before trusting what it
/// read**. Any error ends the iteration.
///
/// Memory is bounded: one record buffer; nothing is sized by the file's claims.
///
/// # Example
///
/// ```
/// use near_dup::scale::{Edge, RecordError, RecordReader, RecordWriter};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-records-849");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("edges.bin");
/// let mut w = RecordWriter::create(&path, 7)?;
/// for i in 0..3 {
///     w.write(&Edge { a: 0, b: i })?;
/// }
/// w.finish()?;
/// let reader = RecordReader::<Edge, _>::open(&path)?.expect_fingerprint(7)?;
/// assert_eq!(reader.len(), 3);
/// let edges: Vec<Edge> = reader.collect::<Result<_, _>>()?;
/// assert_eq!(edges[2], Edge { a: 0, b: 2 });
/// // Another kind, or another fingerprint, is refused.
/// assert!(matches!(
///     RecordReader::<near_dup::scale::Assignment, _>::open(&path),
///     Err(RecordError::WrongKind { .. })
/// ));
/// assert!(matches!(
///     RecordReader::<Edge, _>::open(&path)?.expect_fingerprint(8),
///     Err(RecordError::FingerprintMismatch { expected: 8, found: 7 })
/// ));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RecordReader<T: Record, R: Read + Seek> {
    inner: R,
    fingerprint: u64,
    count: u64,
    remaining: u64,
    /// Records not yet read into `block`.
    unread: u64,
    /// Records read (and hashed) a block at a time; those from `at` on not returned.
    block: Vec<u8>,
    at: usize,
    hasher: Xxh3,
    /// The trailer's end magic and count (hashed after the records) and checksum.
    trailer: [u8; TRAILER_LEN],
    done: bool,
    /// Whether the checksum is computed while reading and checked after the last
    /// record (false for a reader of a range, [`RecordReader::open_range`]).
    check_end: bool,
    _records: PhantomData<T>,
}

impl<T: Record> RecordReader<T, BufReader<File>> {
    /// Opens the file at `path` (see [`new`](Self::new)).
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] when the file cannot be opened; otherwise as
    /// [`new`](Self::new).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordError, RecordReader};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-895");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let err = RecordReader::<Edge, _>::open(dir.join("missing.bin")).unwrap_err();
    /// assert!(matches!(err, RecordError::Io(_)));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        Self::new(BufReader::with_capacity(1 << 16, File::open(path)?))
    }

    /// As [`open`](Self::open), but the whole file's checksum is checked only after
    /// the last record (the final item is [`RecordError::ChecksumMismatch`] if a byte
    /// changed), not also before the first: one reading of the file instead of two,
    /// for a consumer that reads every record and trusts none of its results before
    /// the end (an external sort's merge, whose stage fails on the error).
    pub(crate) fn open_streaming(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        Self::checked(BufReader::with_capacity(1 << 16, File::open(path)?), false)
    }

    /// A reader of the file at `path` without its checksum: the header and trailer
    /// are checked (as [`open`](Self::open) checks them), not the bytes, before the
    /// first record or after the last. For a reader that goes on to
    /// [`restrict`](RecordReader::restrict) itself to a range, whose caller checks
    /// the whole file once in another way. Its buffer is one block: the reader's
    /// reads of whole blocks go to the file directly, not through a second buffer
    /// (several such readers of one file, in parallel, hold no more than one of
    /// [`open`](Self::open)'s).
    pub(crate) fn open_unchecked(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        Self::checked(BufReader::with_capacity(BLOCK, File::open(path)?), false)
    }

    /// A reader of the records at positions `records` (the first record is 0) of the
    /// file at `path`, and of no other: its header and trailer are checked as
    /// [`open`](Self::open) checks them, but **not its checksum**, which covers the
    /// whole file; a caller that trusts what it read checks the file whole once
    /// otherwise (for example with [`open`](Self::open)). Several readers of disjoint
    /// ranges read a file in parallel. [`len`](RecordReader::len) is still the
    /// file's count.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open) (the checksum aside); [`RecordError::Io`] of kind
    /// `InvalidInput` when `records` does not lie within the file's records.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordReader, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-open-range");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("e.bin");
    /// let mut w = RecordWriter::create(&path, 0)?;
    /// for a in 0..10 {
    ///     w.write(&Edge { a, b: a + 1 })?;
    /// }
    /// w.finish()?;
    /// let middle: Vec<u64> = RecordReader::<Edge, _>::open_range(&path, 3..6)?
    ///     .map(|e| e.map(|e| e.a))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(middle, [3, 4, 5]);
    /// assert!(RecordReader::<Edge, _>::open_range(&path, 8..11).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_range(
        path: impl AsRef<Path>,
        records: std::ops::Range<u64>,
    ) -> Result<Self, RecordError> {
        let mut reader = Self::open_unchecked(path)?;
        reader.restrict(records)?;
        Ok(reader)
    }
}

impl<T: Record, R: Read + Seek> RecordReader<T, R> {
    /// Checks the header (magic, version, kind `T::KIND`, record size, reserved bytes),
    /// the trailer (end magic, a record count matching the length) and the checksum
    /// of the whole file (one read of it), then positions at the first record: a
    /// reader that stops before the last record has still read no damaged one. The
    /// checksum is checked again when the last record has been read (the file could
    /// change in between).
    ///
    /// # Errors
    ///
    /// [`RecordError::Truncated`] (shorter than a header), [`RecordError::BadMagic`],
    /// [`RecordError::UnsupportedVersion`], [`RecordError::WrongKind`],
    /// [`RecordError::Corrupt`], [`RecordError::Incomplete`] (no trailer),
    /// [`RecordError::ChecksumMismatch`], [`RecordError::Io`].
    ///
    /// # Example
    ///
    /// ```
    /// use std::io::Cursor;
    /// use near_dup::scale::{Edge, RecordError, RecordReader};
    /// // A header and no trailer: what a writer that died leaves behind.
    /// let mut bytes = b"NDDSCALE".to_vec();
    /// bytes.extend_from_slice(&1u16.to_le_bytes()); // version
    /// bytes.extend_from_slice(&2u16.to_le_bytes()); // edges
    /// bytes.extend_from_slice(&16u32.to_le_bytes()); // record size
    /// bytes.extend_from_slice(&[0; 16]); // fingerprint, reserved
    /// bytes.extend_from_slice(&[0; 16 * 3]); // three records
    /// let err = RecordReader::<Edge, _>::new(Cursor::new(bytes)).unwrap_err();
    /// assert!(matches!(err, RecordError::Incomplete));
    /// ```
    pub fn new(inner: R) -> Result<Self, RecordError> {
        Self::checked(inner, true)
    }

    /// The reader of [`new`](Self::new), the whole file's checksum checked before the
    /// first record when `whole` (always after the last).
    fn checked(mut inner: R, whole: bool) -> Result<Self, RecordError> {
        let len = inner.seek(SeekFrom::End(0))?;
        inner.seek(SeekFrom::Start(0))?;
        let mut header = [0u8; HEADER_LEN];
        let got = read_up_to(&mut inner, &mut header)?;
        if got < MAGIC.len() || header[..MAGIC.len()] != MAGIC {
            return Err(if got < MAGIC.len() && header[..got] == MAGIC[..got] {
                truncated(format!("{len} bytes, shorter than the magic"))
            } else {
                RecordError::BadMagic
            });
        }
        if got < HEADER_LEN {
            return Err(truncated(format!(
                "{len} bytes, shorter than the {HEADER_LEN}-byte header"
            )));
        }
        let field = |v: Option<u64>| v.ok_or_else(|| corrupt("header field out of range"));
        let version = u16_at(&header, 8).ok_or_else(|| corrupt("header"))?;
        if version != FORMAT_VERSION {
            return Err(RecordError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let code = u16_at(&header, 10).ok_or_else(|| corrupt("header"))?;
        if code != T::KIND.code() {
            return Err(RecordError::WrongKind {
                expected: T::KIND,
                found: code,
            });
        }
        let size = u32_at(&header, 12).ok_or_else(|| corrupt("header"))?;
        if usize::try_from(size).ok() != Some(T::KIND.record_size()) {
            return Err(corrupt(format!(
                "record size {size} in the header, {} records are {} bytes",
                T::KIND,
                T::KIND.record_size()
            )));
        }
        let fingerprint = field(u64_at(&header, 16))?;
        if field(u64_at(&header, 24))? != 0 {
            return Err(corrupt("reserved header bytes are not zero"));
        }
        let frame = (HEADER_LEN + TRAILER_LEN) as u64;
        if len < frame {
            return Err(RecordError::Incomplete);
        }
        let mut trailer = [0u8; TRAILER_LEN];
        inner.seek(SeekFrom::Start(len - TRAILER_LEN as u64))?;
        if read_up_to(&mut inner, &mut trailer)? != TRAILER_LEN {
            return Err(truncated("the file shrank while being opened"));
        }
        if trailer[..END_MAGIC.len()] != END_MAGIC {
            return Err(RecordError::Incomplete);
        }
        let count = field(u64_at(&trailer, 8))?;
        let body = len - frame;
        let size = u64::from(size);
        if count.checked_mul(size) != Some(body) {
            return Err(corrupt(format!(
                "the trailer counts {count} records of {size} bytes, the file holds {body} \
                 bytes of records"
            )));
        }
        // The whole file's checksum, before any record is returned: a reader that
        // stops early (the scores beside their pairs, the assignments of a second
        // pass) would otherwise never reach the check at the end, and take damaged
        // records for good ones.
        if whole {
            check_whole(&mut inner, len, &trailer)?;
        }
        inner.seek(SeekFrom::Start(HEADER_LEN as u64))?;
        let mut hasher = Xxh3::new();
        hasher.update(&header);
        Ok(RecordReader {
            inner,
            fingerprint,
            count,
            remaining: count,
            unread: count,
            block: Vec::new(),
            at: 0,
            hasher,
            trailer,
            done: false,
            check_end: true,
            _records: PhantomData,
        })
    }

    /// Refuses the file unless its header carries `fingerprint`.
    ///
    /// # Errors
    ///
    /// [`RecordError::FingerprintMismatch`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordReader, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-1022");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("e.bin");
    /// RecordWriter::<Edge>::create(&path, 3)?.finish()?;
    /// assert!(RecordReader::<Edge, _>::open(&path)?.expect_fingerprint(3).is_ok());
    /// assert!(RecordReader::<Edge, _>::open(&path)?.expect_fingerprint(4).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expect_fingerprint(self, fingerprint: u64) -> Result<Self, RecordError> {
        if self.fingerprint == fingerprint {
            Ok(self)
        } else {
            Err(RecordError::FingerprintMismatch {
                expected: fingerprint,
                found: self.fingerprint,
            })
        }
    }

    /// The fingerprint in the header.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordReader, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-1046");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("e.bin");
    /// RecordWriter::<Edge>::create(&path, 0xF00D)?.finish()?;
    /// assert_eq!(RecordReader::<Edge, _>::open(&path)?.fingerprint(), 0xF00D);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The number of records the trailer counts (checked against the file's length).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordReader, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-1063");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("e.bin");
    /// let mut w = RecordWriter::create(&path, 0)?;
    /// w.write(&Edge { a: 1, b: 2 })?;
    /// w.finish()?;
    /// assert_eq!(RecordReader::<Edge, _>::open(&path)?.len(), 1);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether the file holds no record.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordReader, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-1082");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("e.bin");
    /// RecordWriter::<Edge>::create(&path, 0)?.finish()?;
    /// assert!(RecordReader::<Edge, _>::open(&path)?.is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Makes this reader read the records at positions `records` (the first record
    /// of the file is 0), and no other, from the first of them, whatever it read
    /// before; the file's checksum is then **not** checked (it covers the whole
    /// file: see [`open_range`](RecordReader::open_range)).
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`] of kind `InvalidInput` when `records` does not lie within
    /// the file's records, or when seeking fails.
    ///
    /// # Example
    ///
    /// ```
    /// use std::io::Cursor;
    /// use near_dup::scale::{Edge, RecordReader, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-restrict");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("e.bin");
    /// let mut w = RecordWriter::create(&path, 0)?;
    /// for a in 0..5 {
    ///     w.write(&Edge { a, b: 0 })?;
    /// }
    /// w.finish()?;
    /// let mut reader = RecordReader::<Edge, _>::new(Cursor::new(std::fs::read(&path)?))?;
    /// reader.restrict(4..5)?;
    /// assert_eq!(reader.map(|e| e.map(|e| e.a)).collect::<Result<Vec<_>, _>>()?, [4]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn restrict(&mut self, records: std::ops::Range<u64>) -> Result<(), RecordError> {
        if records.start > records.end || records.end > self.count {
            return Err(RecordError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "records {}..{} of a file of {} records",
                    records.start, records.end, self.count
                ),
            )));
        }
        let size = T::KIND.record_size() as u64;
        // Within the file: `records.start <= count` and the length was checked.
        self.inner
            .seek(SeekFrom::Start(HEADER_LEN as u64 + records.start * size))?;
        self.remaining = records.end - records.start;
        self.unread = self.remaining;
        self.block.clear();
        self.at = 0;
        self.done = false;
        self.check_end = false;
        Ok(())
    }

    /// The number of records, from the first, for which `pred` holds, when it holds
    /// for every record before some position and for none after it (a file sorted
    /// by what `pred` tests, as [`slice::partition_point`]): a binary search that
    /// reads about `log2(len)` records, one at a time. Where the reader stood is
    /// kept: iteration goes on from where it was. (On a file not so partitioned the
    /// result is some position, not an error.) The records read are not checked
    /// against the checksum.
    ///
    /// # Errors
    ///
    /// [`RecordError::Io`], [`RecordError::Truncated`] when the file shrank.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::scale::{Edge, RecordReader, RecordWriter};
    /// let dir = std::env::temp_dir().join("ndd-doc-scale-records-partition-point");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("e.bin");
    /// let mut w = RecordWriter::create(&path, 0)?;
    /// for a in [1, 1, 2, 5, 5, 5, 9] {
    ///     w.write(&Edge { a, b: 0 })?;
    /// }
    /// w.finish()?;
    /// let mut reader = RecordReader::<Edge, _>::open(&path)?;
    /// assert_eq!(reader.partition_point(|e| e.a < 5)?, 3);
    /// assert_eq!(reader.partition_point(|e| e.a <= 5)?, 6);
    /// assert_eq!(reader.partition_point(|_| true)?, 7);
    /// assert_eq!(reader.count(), 7); // iteration still starts at the first record
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn partition_point(
        &mut self,
        mut pred: impl FnMut(&T) -> bool,
    ) -> Result<u64, RecordError> {
        let size = T::KIND.record_size();
        let back = self.inner.stream_position()?;
        let mut buf = [0u8; MAX_RECORD_SIZE];
        let record = buf.get_mut(..size).ok_or_else(|| corrupt("record size"))?;
        let (mut lo, mut hi) = (0u64, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.inner
                .seek(SeekFrom::Start(HEADER_LEN as u64 + mid * size as u64))?;
            self.inner.read_exact(record).map_err(|e| {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    truncated("the file shrank while being read")
                } else {
                    RecordError::Io(e)
                }
            })?;
            let r = T::decode(record).ok_or_else(|| corrupt("record of the wrong size"))?;
            if pred(&r) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.inner.seek(SeekFrom::Start(back))?;
        Ok(lo)
    }

    fn next_record(&mut self) -> Result<Option<T>, RecordError> {
        if self.remaining == 0 {
            if !self.check_end {
                return Ok(None);
            }
            self.hasher.update(&self.trailer[..16]);
            let computed = self.hasher.digest();
            let stored = u64_at(&self.trailer, 16).ok_or_else(|| corrupt("trailer"))?;
            if computed != stored {
                return Err(RecordError::ChecksumMismatch { stored, computed });
            }
            return Ok(None);
        }
        let size = T::KIND.record_size();
        if self.at >= self.block.len() {
            // The next block of whole records (the last may be shorter).
            let records = self.unread.min((BLOCK / size).max(1) as u64);
            let bytes = usize::try_from(records).map_err(|_| corrupt("record count"))? * size;
            self.block.resize(bytes, 0);
            self.inner.read_exact(&mut self.block).map_err(|e| {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    truncated("the file shrank while being read")
                } else {
                    RecordError::Io(e)
                }
            })?;
            if self.check_end {
                self.hasher.update(&self.block);
            }
            self.unread -= records;
            self.at = 0;
        }
        let record = self
            .block
            .get(self.at..self.at + size)
            .ok_or_else(|| corrupt("record size"))?;
        self.at += size;
        self.remaining -= 1;
        T::decode(record)
            .map(Some)
            .ok_or_else(|| corrupt("record of the wrong size"))
    }
}

impl<T: Record, R: Read + Seek> fmt::Debug for RecordReader<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordReader")
            .field("kind", &T::KIND)
            .field("fingerprint", &self.fingerprint)
            .field("count", &self.count)
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

impl<T: Record, R: Read + Seek> Iterator for RecordReader<T, R> {
    type Item = Result<T, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        if self.done {
            (0, Some(0))
        } else {
            (0, n.checked_add(1))
        }
    }
}

/// Every record of the file at `path`, checked to the last byte (header, trailer,
/// checksum) before any is returned; refused unless its header carries
/// `fingerprint`, when one is given. The vector is sized by the record count, which
/// was checked against the file's real length.
///
/// # Errors
///
/// As [`RecordReader::open`], [`RecordReader::expect_fingerprint`] and the reader's
/// iteration.
///
/// # Example
///
/// ```
/// use near_dup::scale::{read_all, Assignment, RecordWriter};
/// let dir = std::env::temp_dir().join("ndd-doc-scale-records-1177");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("a.bin");
/// let mut w = RecordWriter::create(&path, 0)?;
/// w.write(&Assignment { doc: 2, rep: 2 })?;
/// w.finish()?;
/// assert_eq!(read_all::<Assignment>(&path, None)?, vec![Assignment { doc: 2, rep: 2 }]);
/// assert!(read_all::<Assignment>(&path, Some(1)).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_all<T: Record>(
    path: impl AsRef<Path>,
    fingerprint: Option<u64>,
) -> Result<Vec<T>, RecordError> {
    let mut reader = RecordReader::<T, _>::open(path)?;
    if let Some(f) = fingerprint {
        reader = reader.expect_fingerprint(f)?;
    }
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(reader.len()).unwrap_or(usize::MAX))
        .map_err(|_| corrupt("more records than fit in memory"))?;
    for r in reader {
        out.push(r?);
    }
    Ok(out)
}

/// Checks the checksum of the whole file (`len` bytes, its trailer `trailer`) in one
/// reading from its start.
fn check_whole<R: Read + Seek>(
    inner: &mut R,
    len: u64,
    trailer: &[u8; TRAILER_LEN],
) -> Result<(), RecordError> {
    inner.seek(SeekFrom::Start(0))?;
    let mut whole = Xxh3::new();
    let mut left = len - 8;
    let mut buf = vec![0u8; 1 << 16];
    while left > 0 {
        let n = usize::try_from(left.min(buf.len() as u64)).unwrap_or(buf.len());
        let chunk = buf.get_mut(..n).ok_or_else(|| corrupt("buffer"))?;
        inner.read_exact(chunk).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                truncated("the file shrank while being opened")
            } else {
                RecordError::Io(e)
            }
        })?;
        whole.update(chunk);
        left -= n as u64;
    }
    let stored = u64_at(trailer, 16).ok_or_else(|| corrupt("trailer"))?;
    let computed = whole.digest();
    if computed != stored {
        return Err(RecordError::ChecksumMismatch { stored, computed });
    }
    Ok(())
}

fn truncated(reason: impl Into<String>) -> RecordError {
    RecordError::Truncated {
        reason: reason.into(),
    }
}

fn corrupt(reason: impl Into<String>) -> RecordError {
    RecordError::Corrupt {
        reason: reason.into(),
    }
}

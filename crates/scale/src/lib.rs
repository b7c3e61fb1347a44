//! Building blocks for running ndd beyond one machine's memory and beyond one machine.
//!
//! Sketching and band keys are per document; grouping by band key is a shuffle, and
//! connected components a graph job. Between those stages, this crate gives every
//! intermediate result a file format that any program can write and read, whatever
//! engine runs it (an out-of-core run on one machine, a timely dataflow job, a Spark
//! job):
//!
//! * [`records`]: band keys `(doc, band, key)`, edges `(a, b)` and assignments
//!   `(doc, rep)` as versioned, little-endian, fixed-size records with a header
//!   (magic, kind, version, a parameters fingerprint) and a checksummed trailer whose
//!   absence marks an incomplete file. Streaming [`RecordWriter`] (temporary name,
//!   renamed on [`finish`](RecordWriter::finish)) and [`RecordReader`] (typed errors for
//!   truncated, corrupt, incomplete or mismatched files; no panics; memory bounded).
//!   The byte-by-byte specification is `docs/formats.md` in the repository.
//!
//! * [`runs`]: [`ExternalSort`], records sorted with a bounded number in memory:
//!   sorted runs spilled to record files and merged back in order.
//!
//! * [`bandkeys`]: [`BandKeySort`], the same for band keys pushed a document at a time,
//!   held band by band in 16 bytes a record.
//!
//! Components of the edges, merged deterministically across partial results, are
//! [`ndd_core::DocUnionFind`]; the edges of a bucket are [`ndd_core::bucket_edges`].
//!
//! # Example: band keys to a file and back
//!
//! ```
//! use near_dup::SchemeId;
//! use near_dup::lsh::LshParams;
//! use near_dup::scale::{band_key_fingerprint, read_all, BandKeyRecord, RecordWriter};
//!
//! let params = LshParams::new(2, 2)?;
//! let fingerprint = band_key_fingerprint(SchemeId::new("my-minhash").finish(), params);
//! let dir = std::env::temp_dir().join("ndd-doc-scale-lib-32");
//! # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("keys-0.bin");
//! let mut w = RecordWriter::create(&path, fingerprint)?;
//! for (doc, slots) in [(10, [1, 2, 3, 4]), (11, [1, 2, 9, 9])] {
//!     for (band, key) in params.band_keys(&slots)?.into_iter().enumerate() {
//!         w.write(&BandKeyRecord { doc, band: u16::try_from(band)?, key })?;
//!     }
//! }
//! w.finish()?;
//! let keys: Vec<BandKeyRecord> = read_all(&path, Some(fingerprint))?;
//! assert_eq!(keys.len(), 4);
//! assert_eq!(keys[0].key, keys[2].key); // band 0 agrees: a candidate pair
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bandkeys;
mod radix;
pub mod records;
pub mod runs;

pub use bandkeys::BandKeySort;
pub use records::{
    Assignment, BandKeyRecord, DigestRecord, END_MAGIC, Edge, FORMAT_VERSION, HEADER_LEN, MAGIC,
    Record, RecordError, RecordKind, RecordReader, RecordWriter, Score, TRAILER_LEN,
    band_key_fingerprint, i64_to_u64, read_all, temp_path, u64_to_i64,
};
pub use runs::{ExternalSort, MAX_FAN_IN, Merge, SortedRuns};

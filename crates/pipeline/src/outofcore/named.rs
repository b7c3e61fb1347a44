//! The documents candidate pairs name, for the exact verifiers (Jaccard, containment):
//! the candidates stage marks both documents of every pair it emits in a bitmap
//! ([`Named`], written to `named.bin`), and verification, before its blocks, shingles
//! those documents alone from `texts.bin` into `sets.bin` / `sets.idx` ([`make_sets`]),
//! in the format its blocks read (an empty set for every other document). The
//! in-memory engine likewise shingles only the documents its candidates name (about a
//! third of them at 1M); the sketch stage signs from the texts, as in memory.
//!
//! `named.bin`: the magic `NDDNAMED`, the format version (u32 LE, 1), four zero
//! bytes, the candidates stage's fingerprint (u64 LE), the number of documents `n`
//! (u64 LE), `⌈n / 64⌉` words (u64 LE; bit `d % 64` of word `d / 64` set when a
//! candidate pair names document `d`, no bit set at or past `n`), and the XXH3-64
//! (seed `b"ndd-name"` as u64 LE) of every byte before it (u64 LE).

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use ndd_scale::{Edge, RecordError};

use super::indexed::{SET_ENDS, SETS, Texts};
use super::sketch::IndexedOut;
use super::{Job, damaged};
use crate::Error;
use crate::sets::PackedSets;

/// The bitmap file of the named documents.
pub(super) const NAMED: &str = "named.bin";

const MAGIC: [u8; 8] = *b"NDDNAMED";
const VERSION: u32 = 1;
/// Magic, version, reserved, fingerprint, documents.
const HEADER: usize = 32;
/// The seed of the file's checksum: "ndd-name" in ASCII.
const SEED: u64 = u64::from_le_bytes(*b"ndd-name");

/// One bit per document: whether a candidate pair names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Named {
    words: Vec<u64>,
    documents: u64,
}

impl Named {
    /// No document of `documents` named yet (`documents / 8` bytes of memory).
    pub(super) fn new(documents: u64) -> Result<Self, Error> {
        let n = usize::try_from(documents.div_ceil(64)).unwrap_or(usize::MAX);
        let mut words = Vec::new();
        words.try_reserve_exact(n).map_err(|_| {
            Error::Core(ndd_core::Error::invalid_input(format!(
                "{documents} documents: their named bits do not fit in memory"
            )))
        })?;
        words.resize(n, 0);
        Ok(Named { words, documents })
    }

    /// Marks both documents of `e` (a position past the documents is ignored: the
    /// candidates stage refuses those before it pairs them).
    pub(super) fn mark(&mut self, e: Edge) {
        for d in [e.a, e.b] {
            if d < self.documents
                && let Some(w) = usize::try_from(d / 64)
                    .ok()
                    .and_then(|i| self.words.get_mut(i))
            {
                *w |= 1 << (d % 64);
            }
        }
    }

    /// Marks the documents `other` marks (a part of the pairs marked elsewhere: a
    /// group of bands, say) of the same documents.
    pub(super) fn or(&mut self, other: &Named) {
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            *w |= o;
        }
    }

    /// Whether a candidate pair names `doc`.
    pub(super) fn is_named(&self, doc: u64) -> bool {
        usize::try_from(doc / 64)
            .ok()
            .and_then(|i| self.words.get(i))
            .is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }

    /// The number of documents named.
    pub(super) fn count(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The file's bytes (see the module's documentation).
    fn to_bytes(&self, fingerprint: u64) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER + 8 * self.words.len() + 8);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&fingerprint.to_le_bytes());
        b.extend_from_slice(&self.documents.to_le_bytes());
        for w in &self.words {
            b.extend_from_slice(&w.to_le_bytes());
        }
        let sum = ndd_core::hash::stable_hash64(&b, SEED);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Writes `named.bin` into `dir` for the candidates stage of `fingerprint`
    /// (a temporary file synced, then renamed): the bytes written.
    pub(super) fn write(&self, dir: &Path, fingerprint: u64) -> Result<u64, Error> {
        let path = dir.join(NAMED);
        let tmp = ndd_scale::temp_path(&path);
        let bytes = self.to_bytes(fingerprint);
        let mut f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        f.write_all(&bytes)
            .and_then(|()| f.sync_all())
            .map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        Ok(bytes.len() as u64)
    }

    /// Reads `named.bin` of `dir`, written for `documents` documents by the
    /// candidates stage of `fingerprint`; a file missing, cut short, of another
    /// stage or with a byte changed is a damaged work file.
    pub(super) fn load(dir: &Path, documents: u64, fingerprint: u64) -> Result<Self, Error> {
        let path = dir.join(NAMED);
        let bad = |reason: String| damaged(&path, RecordError::Corrupt { reason });
        let words = usize::try_from(documents.div_ceil(64))
            .map_err(|_| bad(format!("{documents} documents do not fit in memory")))?;
        let want = words
            .checked_mul(8)
            .and_then(|n| n.checked_add(HEADER + 8))
            .ok_or_else(|| bad(format!("{documents} documents do not fit in memory")))?;
        let mut f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(bad("missing: the candidates stage writes it".to_owned()));
            }
            Err(e) => return Err(Error::io(&path, e)),
        };
        let len = f.metadata().map_err(|e| Error::io(&path, e))?.len();
        if len != want as u64 {
            return Err(bad(format!(
                "{len} bytes where {documents} documents take {want}"
            )));
        }
        let mut b = Vec::new();
        b.try_reserve_exact(want)
            .map_err(|_| bad(format!("{documents} documents do not fit in memory")))?;
        f.read_to_end(&mut b).map_err(|e| Error::io(&path, e))?;
        let (body, sum) = b.split_at(b.len().saturating_sub(8).min(want - 8));
        let word = |s: &[u8]| <[u8; 8]>::try_from(s).map_or(0, u64::from_le_bytes);
        let computed = ndd_core::hash::stable_hash64(body, SEED);
        if word(sum) != computed {
            return Err(damaged(
                &path,
                RecordError::ChecksumMismatch {
                    stored: word(sum),
                    computed,
                },
            ));
        }
        if body.get(..8) != Some(&MAGIC[..]) {
            return Err(bad("not a named-documents file".to_owned()));
        }
        let field = |at: usize| body.get(at..at + 8).map_or(0, word);
        if field(8) != u64::from(VERSION) {
            return Err(bad(format!("version {} (this program reads 1)", field(8))));
        }
        if field(16) != fingerprint || field(24) != documents {
            return Err(bad(
                "written for other settings or another input (its fingerprint or its \
                 number of documents differs)"
                    .to_owned(),
            ));
        }
        let named = Named {
            words: body
                .get(HEADER..)
                .unwrap_or_default()
                .chunks_exact(8)
                .map(word)
                .collect(),
            documents,
        };
        let tail = documents % 64;
        if tail != 0 && named.words.last().is_some_and(|w| w >> tail != 0) {
            return Err(bad(format!("a bit set past the {documents} documents")));
        }
        Ok(named)
    }
}

/// Verification's first pass (the exact verifiers): one sequential pass over
/// `texts.bin` that shingles the documents `named` marks, in chunks of at most a 32nd
/// of the budget of text (at least one document), each chunk's texts read together
/// and shingled on every core (the in-memory verifier's
/// [`packed_sets`](crate::sets::packed_sets)), and writes every document's set to
/// `sets.bin` and its end offset to `sets.idx`, as the sketch stage wrote them before
/// (an empty set for a document no pair names). Chunk `i` is shingled on the pool
/// while chunk `i - 1` is written (on the pool too) and chunk `i + 1` read, on this
/// thread: three chunks held at once. The files are created anew (an interrupted
/// pass's are replaced, not appended to) and not synced: verification reads them at
/// once and the stage removes them at its end. The bytes written.
pub(super) fn make_sets(job: &Job<'_>, documents: u64, named: &Named) -> Result<u64, Error> {
    let dir = job.dir;
    let texts = Texts::open(dir, job.budget / 8)?;
    let mut out = SetsOut {
        files: IndexedOut::create(dir, SETS, SET_ENDS, false)?,
        bytes: Vec::new(),
        units: Vec::new(),
    };
    let chunk_bytes = (job.budget / 32).max(1);
    let mut doc = 0u64;
    // The next chunk of positions, and the texts of its named documents.
    let read_next = |doc: &mut u64| -> Result<Option<Chunk>, Error> {
        if *doc >= documents {
            return Ok(None);
        }
        let (start, mut held) = (*doc, 0u64);
        let mut docs = Vec::new();
        while *doc < documents {
            if named.is_named(*doc) {
                let n = texts.len(*doc)?;
                if !docs.is_empty() && held.saturating_add(n) > chunk_bytes {
                    break;
                }
                held = held.saturating_add(n);
                docs.push(*doc);
            }
            *doc += 1;
        }
        let texts = texts.get_many(&docs)?;
        Ok(Some(Chunk {
            positions: start..*doc,
            texts,
        }))
    };
    let features = job.features;
    let mut next = read_next(&mut doc)?;
    let mut pending: Option<(std::ops::Range<u64>, PackedSets)> = None;
    while next.is_some() || pending.is_some() {
        let current = next.take();
        let before = pending.take();
        let (made, written, read) = super::sketch::overlap(
            move || -> Result<_, Error> {
                let Some(c) = current else { return Ok(None) };
                let strs: Vec<&str> = c.texts.iter().map(String::as_str).collect();
                let sets = crate::sets::packed_sets(features, &strs, &vec![true; strs.len()])?;
                Ok(Some((c.positions, sets)))
            },
            || match &before {
                Some((positions, sets)) => out.chunk(positions.clone(), named, sets),
                None => Ok(()),
            },
            || read_next(&mut doc),
        );
        written?;
        pending = made?;
        next = read?;
    }
    out.files.finish_scratch()
}

/// A chunk of the pass: its positions, and the texts of those of them named.
struct Chunk {
    positions: std::ops::Range<u64>,
    texts: Vec<String>,
}

/// `sets.bin` and `sets.idx` being written (scratch files, [`IndexedOut`]), with a
/// chunk's buffers (reused).
struct SetsOut {
    files: IndexedOut,
    /// A chunk's named sets' values, as bytes.
    bytes: Vec<u8>,
    /// A chunk's set lengths, one per position (0 for a document no pair names).
    units: Vec<u64>,
}

impl SetsOut {
    /// Writes the sets of `positions`: the next of `sets` for each named one, an
    /// empty one for the others.
    fn chunk(
        &mut self,
        positions: std::ops::Range<u64>,
        named: &Named,
        sets: &PackedSets,
    ) -> Result<(), Error> {
        self.bytes.clear();
        self.units.clear();
        let mut k = 0usize;
        for d in positions {
            let len = match named.is_named(d) {
                true => {
                    let set = sets.get(k);
                    k += 1;
                    self.bytes.extend(set.iter().flat_map(|v| v.to_le_bytes()));
                    set.len() as u64
                }
                false => 0,
            };
            self.units.push(len);
        }
        self.files.push_chunk(&self.bytes, &self.units)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn marked(documents: u64, pairs: &[(u64, u64)]) -> Named {
        let mut n = Named::new(documents).unwrap();
        for &(a, b) in pairs {
            n.mark(Edge { a, b });
        }
        n
    }

    #[test]
    fn marks_are_the_documents_the_pairs_name() {
        let pairs = [(0, 5), (5, 64), (63, 129), (2, 3), (3, 129)];
        let n = marked(130, &pairs);
        // The oracle: a document is named when some pair has it at either end.
        for d in 0..140 {
            let want = pairs.iter().any(|&(a, b)| a == d || b == d);
            assert_eq!(n.is_named(d), want, "document {d}");
        }
        assert_eq!(n.count(), 7);
        // Marked in two parts, or'ed: the same.
        let mut first = marked(130, &pairs[..2]);
        first.or(&marked(130, &pairs[2..]));
        assert_eq!(first, n);
    }

    #[test]
    fn a_written_file_reads_back_and_a_damaged_or_missing_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let err = |r: Result<Named, Error>| r.unwrap_err().to_string();
        let missing = err(Named::load(d, 130, 7));
        assert!(
            missing.contains("damaged") && missing.contains("missing"),
            "{missing}"
        );
        let n = marked(130, &[(0, 5), (63, 129)]);
        n.write(d, 7).unwrap();
        assert_eq!(Named::load(d, 130, 7).unwrap(), n);
        // Another stage's fingerprint, another number of documents: refused.
        assert!(err(Named::load(d, 130, 8)).contains("damaged"));
        assert!(err(Named::load(d, 131, 7)).contains("damaged"));
        let path = d.join(NAMED);
        let good = std::fs::read(&path).unwrap();
        // Every bit flipped in turn, and the file cut short: each refused as damaged.
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            let e = err(Named::load(d, 130, 7));
            assert!(e.contains("this work file is damaged"), "byte {at}: {e}");
        }
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert!(err(Named::load(d, 130, 7)).contains("damaged"));
    }
}

//! Stage 2, exact copies: the digests of stage 1 merged in digest order; the documents
//! of one digest are exact copies of the first (the in-memory exact pass's rule).
//! Their pairs `(first, copy)` go to `exact.bin`, sorted: later stages leave the
//! copies out of the buckets and report these pairs with score 1.

use ndd_scale::{DigestRecord, Edge, RecordWriter, SortedRuns};

use super::{EXACT, Job, damaged, file_size, pair_order, pair_radix};
use crate::Error;
use crate::progress::Stage;

/// What the exact stage wrote.
pub(super) struct Copies {
    pub(super) groups: u64,
    pub(super) copies: u64,
    pub(super) bytes_written: u64,
}

pub(super) fn run(
    job: &Job<'_>,
    digests: Option<&SortedRuns<DigestRecord, ([u8; 20], u64)>>,
    fingerprint: u64,
) -> Result<Copies, Error> {
    let dir = job.dir;
    let mut pairs = job
        .sort("exact-pairs", pair_order, job.budget / 2, fingerprint)?
        .radix(pair_radix);
    let (mut groups, mut copies) = (0u64, 0u64);
    job.progress.start(Stage::Exact, None);
    if let Some(digests) = digests {
        let mut first: Option<([u8; 20], u64)> = None;
        let mut in_group = false;
        for r in digests.merge_to_end().map_err(|e| damaged(dir, e))? {
            let r = r.map_err(|e| damaged(dir, e))?;
            match first {
                Some((digest, doc)) if digest == r.digest => {
                    pairs
                        .push(Edge { a: doc, b: r.doc })
                        .map_err(|e| damaged(dir, e))?;
                    copies += 1;
                    if !in_group {
                        groups += 1;
                        in_group = true;
                    }
                }
                _ => {
                    first = Some((r.digest, r.doc));
                    in_group = false;
                }
            }
        }
    }
    let runs = pairs.finish().map_err(|e| damaged(dir, e))?;
    let path = dir.join(EXACT);
    let mut out =
        RecordWriter::<Edge>::create(&path, fingerprint).map_err(|e| damaged(&path, e))?;
    for e in runs.merge_to_end().map_err(|e| damaged(dir, e))? {
        out.write(&e.map_err(|e| damaged(dir, e))?)
            .map_err(|e| damaged(&path, e))?;
    }
    out.finish().map_err(|e| damaged(&path, e))?;
    runs.remove().map_err(|e| damaged(dir, e))?;
    job.progress.finish(Stage::Exact);
    let bytes_written = file_size(&path)?;
    Ok(Copies {
        groups,
        copies,
        bytes_written,
    })
}

/// Which documents are exact copies of an earlier one: one bit per document, from
/// `exact.bin`.
pub(super) struct CopyBits {
    words: Vec<u64>,
    documents: u64,
}

impl CopyBits {
    pub(super) fn load(job: &Job<'_>, documents: u64, fingerprint: u64) -> Result<Self, Error> {
        let dir = job.dir;
        let n = usize::try_from(documents.div_ceil(64)).unwrap_or(usize::MAX);
        let mut words = Vec::new();
        words.try_reserve_exact(n).map_err(|_| {
            Error::Core(ndd_core::Error::invalid_input(format!(
                "{documents} documents: their copy bits do not fit in memory"
            )))
        })?;
        words.resize(n, 0);
        let exact_path = dir.join(EXACT);
        let reader = ndd_scale::RecordReader::<Edge, _>::open(&exact_path)
            .and_then(|r| r.expect_fingerprint(fingerprint))
            .map_err(|e| damaged(&exact_path, e))?;
        for e in reader {
            let e = e.map_err(|e| damaged(&exact_path, e))?;
            if e.b >= documents || e.a >= e.b {
                return Err(Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: exact pair ({}, {}) out of range",
                    dir.join(EXACT).display(),
                    e.a,
                    e.b
                ))));
            }
            if let Some(w) = usize::try_from(e.b / 64)
                .ok()
                .and_then(|i| words.get_mut(i))
            {
                *w |= 1 << (e.b % 64);
            }
        }
        Ok(CopyBits { words, documents })
    }

    /// The number of documents (every position below it has a bit).
    pub(super) fn len(&self) -> u64 {
        self.documents
    }

    pub(super) fn is_copy(&self, doc: u64) -> bool {
        usize::try_from(doc / 64)
            .ok()
            .and_then(|i| self.words.get(i))
            .is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }
}

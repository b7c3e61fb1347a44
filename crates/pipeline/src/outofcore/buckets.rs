//! Stage 3, the shuffle: band keys merged in bucket order; within a bucket each
//! document is paired with at most `scan` of the members before it (the plan's
//! [`bucket_scan`](crate::Plan::bucket_scan)), the newest first (what the in-memory
//! LSH index's bounded walk reads, its cuts counted by the same rule,
//! [`ndd_lsh::ScanCuts::cuts`]), and the pairs are
//! sorted and written as candidate runs. A hot bucket costs at most `scan` pairs per
//! member and `scan` ids of memory, whatever its size. For the set verifiers, the
//! documents each pair names are marked as it is emitted ([`Named`], `named.bin`).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use ndd_scale::{BandKeyRecord, Edge, ExternalSort, RecordError, SortedRuns};

use super::named::Named;
use super::{Job, damaged, file_size, pair_order, pair_radix};
use crate::Error;
use crate::progress::Stage;

/// What stage 2 wrote.
pub(super) struct Bucketed {
    pub(super) runs: Vec<PathBuf>,
    pub(super) candidates: u64,
    pub(super) bytes_written: u64,
    /// Bucket reads the bound cut: a document whose bucket held more than `scan`
    /// earlier members (as the in-memory index counts them).
    pub(super) cut_reads: u64,
    /// Documents with at least one cut read.
    pub(super) cut_documents: u64,
    /// The documents the pairs name, for the set verifiers ([`Job::needs_sets`]);
    /// `None` for the others. The caller writes it.
    pub(super) named: Option<Named>,
}

pub(super) fn run(
    job: &Job<'_>,
    keys: &SortedRuns<BandKeyRecord, (u16, u64, u64)>,
    copies: &super::exact::CopyBits,
    fingerprint: u64,
) -> Result<Bucketed, Error> {
    let dir = job.dir;
    let mut pairs = job
        .sort("candidates", pair_order, job.budget / 2, fingerprint)?
        .radix(pair_radix);
    let scan = job.scan;
    let mut named = named_bits(job, copies.len())?;
    let mut bucket: Option<(u16, u64)> = None;
    let mut recent: VecDeque<u64> = VecDeque::new();
    // Members of the current bucket before this record, and the documents whose read
    // was cut (one bit each, grown only when a cut happens).
    let mut members = 0usize;
    let (mut cut_reads, mut cut_documents) = (0u64, 0u64);
    let mut cut_bits: Vec<u64> = Vec::new();
    for_each_key(job, keys, copies, |r| {
        if bucket != Some((r.band, r.key)) {
            bucket = Some((r.band, r.key));
            recent.clear();
            members = 0;
        }
        if ndd_lsh::ScanCuts::cuts(members, scan) {
            cut_reads += 1;
            if let Ok(word) = usize::try_from(r.doc / 64) {
                if cut_bits.len() <= word {
                    cut_bits.resize(word + 1, 0);
                }
                let bit = 1u64 << (r.doc % 64);
                if cut_bits[word] & bit == 0 {
                    cut_bits[word] |= bit;
                    cut_documents += 1;
                }
            }
        }
        members = members.saturating_add(1);
        for &earlier in recent.iter().rev() {
            let e = Edge {
                a: earlier,
                b: r.doc,
            };
            // The one place a pair is emitted.
            if let Some(named) = &mut named {
                named.mark(e);
            }
            pairs.push(e).map_err(|e| damaged(dir, e))?;
        }
        recent.push_back(r.doc);
        if recent.len() > scan {
            recent.pop_front();
        }
        Ok(())
    })?;
    let mut bucketed = finish(dir, pairs)?;
    bucketed.cut_reads = cut_reads;
    bucketed.cut_documents = cut_documents;
    bucketed.named = named;
    Ok(bucketed)
}

/// A bitmap of the `documents` for the pairs to mark when the verifier reads sets
/// ([`Job::needs_sets`]), else `None`.
pub(super) fn named_bits(job: &Job<'_>, documents: u64) -> Result<Option<Named>, Error> {
    job.needs_sets.then(|| Named::new(documents)).transpose()
}

/// Calls `f` with each band key of `keys` in bucket order, those of exact copies left
/// out (as in memory), reporting the candidate stage's progress. The runs are merged
/// on a thread of their own ([`merged`]) while `f` runs on this one. The merge yields
/// a run's records before its checksum is checked, so a key naming a document past
/// the `copies.len()` documents (a damaged run) is refused here, before `f` sees it.
pub(super) fn for_each_key(
    job: &Job<'_>,
    keys: &SortedRuns<BandKeyRecord, (u16, u64, u64)>,
    copies: &super::exact::CopyBits,
    mut f: impl FnMut(BandKeyRecord) -> Result<(), Error>,
) -> Result<(), Error> {
    let dir = job.dir;
    let mut read = 0u64;
    job.progress.start(Stage::Candidates, None);
    merged(dir, keys, |batch| {
        for &r in batch {
            read += 1;
            if read % 65_536 == 0 {
                job.progress.advance(Stage::Candidates, 65_536);
            }
            if r.doc >= copies.len() {
                return Err(damaged(
                    dir,
                    RecordError::Corrupt {
                        reason: format!(
                            "a band key names document {}, beyond the {} documents",
                            r.doc,
                            copies.len()
                        ),
                    },
                ));
            }
            if !copies.is_copy(r.doc) {
                f(r)?;
            }
        }
        Ok(())
    })?;
    job.progress.finish(Stage::Candidates);
    Ok(())
}

/// Records handed from the merging thread to the walk at once.
const BATCH: usize = 16_384;

/// Calls `each` with the records of `keys`' merge in order, a batch at a time: the
/// merge (reading, checking and ordering the runs) runs on a thread of its own, at
/// most four batches ahead (1.5 MiB), while `each` runs on this thread; an error of
/// either ends both. A plain thread, not rayon's pool: it blocks while the walk
/// catches up, and the walk's spills sort on the pool.
fn merged(
    dir: &Path,
    keys: &SortedRuns<BandKeyRecord, (u16, u64, u64)>,
    mut each: impl FnMut(&[BandKeyRecord]) -> Result<(), Error>,
) -> Result<(), Error> {
    type Batch = Result<Vec<BandKeyRecord>, RecordError>;
    let merge = keys.merge_to_end().map_err(|e| damaged(dir, e))?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH);
            for record in merge {
                let full = match record {
                    Ok(r) => {
                        batch.push(r);
                        batch.len() == BATCH
                    }
                    Err(e) => {
                        // The walk stops at the error; nothing more is sent.
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                if full {
                    let done = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    // A failed send: the walk stopped (its error is the result).
                    if tx.send(Ok(done)).is_err() {
                        return;
                    }
                }
            }
            if !batch.is_empty() {
                let _ = tx.send(Ok(batch));
            }
        });
        // Dropping `rx` on an error stops the merging thread at its next send.
        for batch in rx {
            each(&batch.map_err(|e| damaged(dir, e))?)?;
        }
        Ok(())
    })
}

/// The candidate runs of `pairs`, written out, and their count and size (no cut
/// bucket reads: the caller that bounds a walk fills those in).
pub(super) fn finish(dir: &Path, pairs: ExternalSort<Edge, (u64, u64)>) -> Result<Bucketed, Error> {
    let candidates = pairs.len();
    let runs = pairs.finish().map_err(|e| damaged(dir, e))?;
    let mut bytes_written = 0;
    for p in runs.paths() {
        bytes_written += file_size(p)?;
    }
    Ok(Bucketed {
        runs: runs.paths().to_vec(),
        candidates,
        bytes_written,
        cut_reads: 0,
        cut_documents: 0,
        named: None,
    })
}

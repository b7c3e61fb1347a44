//! Stage 3, the shuffle: band keys merged in bucket order; within a bucket each
//! document is paired with at most `scan` of the members before it (the plan's
//! [`bucket_scan`](crate::Plan::bucket_scan)), the newest first (what the in-memory
//! LSH index's bounded walk reads, its cuts counted by the same rule,
//! [`ndd_lsh::ScanCuts::cuts`]), and the pairs are
//! sorted and written as candidate runs. A hot bucket costs at most `scan` pairs per
//! member and `scan` ids of memory, whatever its size. For the set verifiers, the
//! documents each pair names are marked as it is emitted ([`Named`], `named.bin`).

use std::collections::VecDeque;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use ndd_scale::{BandKeyRecord, Edge, ExternalSort, Merge, RecordError, SortedRuns};

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

/// The bands' groups at most: each merges and pairs its bands' section of every run,
/// in parallel (with the `rayon` feature, as many as the pool has threads,
/// at most this many; one without).
const MAX_GROUPS: usize = 4;

/// How many groups the stage splits `bands` bands into ([`MAX_GROUPS`]).
pub(super) fn groups(bands: usize) -> usize {
    #[cfg(feature = "rayon")]
    let threads = rayon::current_num_threads();
    #[cfg(not(feature = "rayon"))]
    let threads = 1;
    threads.clamp(1, MAX_GROUPS).min(bands.max(1))
}

/// The MinHash candidates: the `bands` bands split into `groups` groups of
/// consecutive bands (a bucket `(band, key)` lies in one group), each walked
/// ([`Group`]) over its section of every run ([`SortedRuns::merge_range`]), in
/// parallel: the first on this thread, the others on threads of their own, each
/// group's merge on one more ([`merged`]). Each group has its own pair sort (runs
/// `candidates-g{g}-*.bin`, half the budget shared between them) and, for the set
/// verifiers, its own bitmap of the documents its pairs name (OR'ed at the end: a bit
/// per document and group). Verification merges all the groups' runs in pair order,
/// so the pairs it reads are those of one walk, whatever `groups` is. The runs'
/// checksums are checked on a thread of their own meanwhile (the sections leave them
/// out).
pub(super) fn run(
    job: &Job<'_>,
    keys: &SortedRuns<BandKeyRecord, (u16, u64, u64)>,
    copies: &super::exact::CopyBits,
    bands: usize,
    groups: usize,
    fingerprint: u64,
) -> Result<Bucketed, Error> {
    let dir = job.dir;
    let groups = groups.clamp(1, bands.max(1));
    // The band range of each group, `bands` split evenly.
    let span = |g: usize| -> Result<(u16, u16), Error> {
        let band = |i: usize| {
            u16::try_from(i * bands / groups).map_err(|_| {
                damaged(
                    dir,
                    RecordError::Corrupt {
                        reason: format!("{bands} bands, more than a band key holds"),
                    },
                )
            })
        };
        Ok((band(g)?, band(g + 1)?))
    };
    let spans = (0..groups).map(span).collect::<Result<Vec<_>, _>>()?;
    // Each group's share of the pair sorts' half of the budget: together, what one
    // sort held before.
    let share = job.budget / 2 / groups as u64;
    let mut sorts = Vec::with_capacity(groups);
    for g in 0..groups {
        let prefix = format!("candidates-g{g}");
        sorts.push(
            job.sort(&prefix, pair_order, share, fingerprint)?
                .radix(pair_radix),
        );
    }
    let stop = AtomicBool::new(false);
    job.progress.start(Stage::Candidates, None);
    // One group's walk over its section of the runs: `Ok(None)` when it stopped
    // because another group failed.
    let walk = |(lo, hi): (u16, u16), pairs| -> Result<Option<Group<'_>>, Error> {
        let mut group = Group::new(job, copies, pairs)?;
        let mut halted = false;
        let walked = keys
            .merge_range(section(lo, hi, bands))
            .map_err(|e| damaged(dir, e))
            .and_then(|merge| {
                merged(dir, merge, |batch| {
                    if stop.load(Ordering::Relaxed) {
                        halted = true;
                        return Err(halt());
                    }
                    group.walk(batch)
                })
            });
        match walked {
            Ok(()) => Ok(Some(group)),
            // Another group failed: its error is the stage's.
            Err(_) if halted => Ok(None),
            Err(e) => {
                // The other groups stop at their next batch.
                stop.store(true, Ordering::Relaxed);
                Err(e)
            }
        }
    };
    let (checked, walked) = std::thread::scope(|s| {
        // The runs' checksums, one sequential reading of each, beside the walks.
        let checked = s.spawn(|| keys.check());
        let mut groups = spans.iter().copied().zip(sorts);
        let first = groups.next();
        // Every group but the first on a thread of its own; the first on this one
        // (its pair buffers in this thread's memory, which the later stages reuse,
        // rather than in one more thread's).
        let others: Vec<_> = groups
            .map(|(span, pairs)| s.spawn(move || walk(span, pairs)))
            .collect();
        let mut walked = Vec::with_capacity(spans.len());
        walked.push(first.map_or(Ok(None), |(span, pairs)| walk(span, pairs)));
        walked.extend(
            others
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
        );
        let checked = checked
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (checked, walked)
    });
    // The first group's error (a group halted by another's error has none), then a
    // run's damage that no group came upon (the groups are not stopped by it: which
    // error a damaged run gives does not depend on the threads' timing).
    let mut done = Vec::with_capacity(groups);
    for w in walked {
        done.extend(w?);
    }
    checked.map_err(|e| damaged(dir, e))?;
    // Unreachable: a group halts only after another's error.
    if done.len() < groups {
        return Err(halt());
    }
    let mut bucketed = Bucketed {
        runs: Vec::new(),
        candidates: 0,
        bytes_written: 0,
        cut_reads: 0,
        cut_documents: 0,
        named: None,
    };
    let mut cut_bits: Vec<u64> = Vec::new();
    for g in done {
        bucketed.cut_reads += g.cut_reads;
        // A document named in several groups is named once.
        if let Some(n) = g.named {
            match &mut bucketed.named {
                Some(all) => all.or(&n),
                None => bucketed.named = Some(n),
            }
        }
        // A document cut in several groups counts once.
        if cut_bits.len() < g.cut_bits.len() {
            cut_bits.resize(g.cut_bits.len(), 0);
        }
        for (w, b) in cut_bits.iter_mut().zip(&g.cut_bits) {
            *w |= b;
        }
        let b = finish(dir, g.pairs)?;
        bucketed.runs.extend(b.runs);
        bucketed.candidates += b.candidates;
        bucketed.bytes_written += b.bytes_written;
    }
    bucketed.cut_documents = cut_bits.iter().map(|w| u64::from(w.count_ones())).sum();
    job.progress.finish(Stage::Candidates);
    Ok(bucketed)
}

/// A band key's place in bucket order, `(band, key, doc)`.
type Bucket = (u16, u64, u64);

/// The keys of the group of bands `lo..hi` of `bands`: the last group's has no end,
/// so that every record of a run is read by exactly one group, whatever its band.
fn section(lo: u16, hi: u16, bands: usize) -> (Bound<Bucket>, Bound<Bucket>) {
    let end = match usize::from(hi) >= bands {
        true => Bound::Unbounded,
        false => Bound::Excluded((hi, 0, 0)),
    };
    (Bound::Included((lo, 0, 0)), end)
}

/// What a group's walk ends with when another group failed: never the stage's
/// result, which is that group's error.
fn halt() -> Error {
    Error::Core(ndd_core::Error::invalid_input(
        "the candidates stage stopped: another group of bands failed",
    ))
}

/// One group's walk of its buckets, in bucket order: within a bucket each document
/// is paired with at most `scan` of the members before it, the newest first, and its
/// read counted as cut by [`ndd_lsh::ScanCuts::cuts`]'s rule.
struct Group<'a> {
    job: &'a Job<'a>,
    copies: &'a super::exact::CopyBits,
    pairs: ExternalSort<Edge, (u64, u64)>,
    bucket: Option<(u16, u64)>,
    recent: VecDeque<u64>,
    /// Members of the current bucket before this record.
    members: usize,
    cut_reads: u64,
    /// The documents whose read was cut, one bit each (grown only when a cut happens).
    cut_bits: Vec<u64>,
    /// Band keys read (progress).
    read: u64,
    /// The documents the group's pairs name, for the set verifiers (the groups'
    /// bitmaps are OR'ed at the end: one bit per document each).
    named: Option<Named>,
}

impl<'a> Group<'a> {
    fn new(
        job: &'a Job<'a>,
        copies: &'a super::exact::CopyBits,
        pairs: ExternalSort<Edge, (u64, u64)>,
    ) -> Result<Self, Error> {
        Ok(Group {
            job,
            copies,
            pairs,
            bucket: None,
            recent: VecDeque::new(),
            members: 0,
            cut_reads: 0,
            cut_bits: Vec::new(),
            read: 0,
            named: named_bits(job, copies.len())?,
        })
    }

    /// Walks a batch of the group's band keys (in bucket order, following the last).
    /// A key naming a document past the `copies.len()` documents (a damaged run) is
    /// refused; those of exact copies are left out (as in memory).
    fn walk(&mut self, batch: &[BandKeyRecord]) -> Result<(), Error> {
        let (job, copies) = (self.job, self.copies);
        let mut read = self.read;
        let walked = kept_keys(job, copies, &mut read, batch, |r| self.step(r));
        self.read = read;
        walked
    }

    /// One band key of a document that is not an exact copy, in bucket order.
    fn step(&mut self, r: BandKeyRecord) -> Result<(), Error> {
        let scan = self.job.scan;
        if self.bucket != Some((r.band, r.key)) {
            self.bucket = Some((r.band, r.key));
            self.recent.clear();
            self.members = 0;
        }
        if ndd_lsh::ScanCuts::cuts(self.members, scan) {
            self.cut_reads += 1;
            if let Ok(word) = usize::try_from(r.doc / 64) {
                if self.cut_bits.len() <= word {
                    self.cut_bits.resize(word + 1, 0);
                }
                self.cut_bits[word] |= 1u64 << (r.doc % 64);
            }
        }
        self.members = self.members.saturating_add(1);
        for i in (0..self.recent.len()).rev() {
            let earlier = self.recent[i];
            self.pair(earlier, r.doc)?;
        }
        self.recent.push_back(r.doc);
        if self.recent.len() > scan {
            self.recent.pop_front();
        }
        Ok(())
    }

    /// Every candidate pair the group finds, `a` the earlier member, goes through here.
    fn pair(&mut self, a: u64, b: u64) -> Result<(), Error> {
        let e = Edge { a, b };
        if let Some(named) = &mut self.named {
            named.mark(e);
        }
        self.pairs.push(e).map_err(|e| damaged(self.job.dir, e))
    }
}

/// The error of a band key naming document `doc`, beyond the `documents` documents.
fn beyond(dir: &Path, doc: u64, documents: u64) -> Error {
    damaged(
        dir,
        RecordError::Corrupt {
            reason: format!("a band key names document {doc}, beyond the {documents} documents"),
        },
    )
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
#[cfg(feature = "simhash")]
pub(super) fn for_each_key(
    job: &Job<'_>,
    keys: &SortedRuns<BandKeyRecord, (u16, u64, u64)>,
    copies: &super::exact::CopyBits,
    mut f: impl FnMut(BandKeyRecord) -> Result<(), Error>,
) -> Result<(), Error> {
    let dir = job.dir;
    let mut read = 0u64;
    job.progress.start(Stage::Candidates, None);
    let merge = keys.merge_to_end().map_err(|e| damaged(dir, e))?;
    merged(dir, merge, |batch| {
        kept_keys(job, copies, &mut read, batch, &mut f)
    })?;
    job.progress.finish(Stage::Candidates);
    Ok(())
}

/// Calls `f` with each band key of `batch` but those of exact copies (left out, as
/// in memory), counting every key in `read` for the candidate stage's progress. A
/// merge yields a run's records before its checksum is checked, so a key naming a
/// document past the `copies.len()` documents (a damaged run) is refused here,
/// before `f` sees it. Both methods walk their band keys through it (MinHash's
/// groups, SimHash's one merge).
fn kept_keys(
    job: &Job<'_>,
    copies: &super::exact::CopyBits,
    read: &mut u64,
    batch: &[BandKeyRecord],
    mut f: impl FnMut(BandKeyRecord) -> Result<(), Error>,
) -> Result<(), Error> {
    for &r in batch {
        *read += 1;
        if *read % 65_536 == 0 {
            job.progress.advance(Stage::Candidates, 65_536);
        }
        if r.doc >= copies.len() {
            return Err(beyond(job.dir, r.doc, copies.len()));
        }
        if !copies.is_copy(r.doc) {
            f(r)?;
        }
    }
    Ok(())
}

/// Records handed from the merging thread to the walk at once.
const BATCH: usize = 16_384;

/// Calls `each` with the records of `merge` in order, a batch at a time: the
/// merge (reading, checking and ordering the runs) runs on a thread of its own, at
/// most four batches ahead (1.5 MiB), while `each` runs on this thread; an error of
/// either ends both. A plain thread, not rayon's pool: it blocks while the walk
/// catches up, and the walk's spills sort on the pool.
fn merged(
    dir: &Path,
    merge: Merge<BandKeyRecord, (u16, u64, u64)>,
    mut each: impl FnMut(&[BandKeyRecord]) -> Result<(), Error>,
) -> Result<(), Error> {
    type Batch = Result<Vec<BandKeyRecord>, RecordError>;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeSet;

    use ndd_scale::{BandKeySort, RecordWriter};

    use super::super::exact::CopyBits;
    use super::super::{EXACT, Job, pair_order};
    use super::*;
    use crate::progress::NoProgress;

    const DOCS: u64 = 400;
    const BANDS: usize = 7;
    /// Few keys per band: buckets of about 25 members, many reads cut at `SCAN`.
    const KEYS: u64 = 16;
    const SCAN: usize = 5;

    /// Document `doc`'s key in `band`, from a small generator (some documents share
    /// every key: whole buckets of repeats).
    fn key(doc: u64, band: usize) -> u64 {
        let x = (doc % 350).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (band as u64) << 40;
        ((x ^ x >> 29).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 40) % KEYS
    }

    /// Every third document of the first 60 is an exact copy (left out of buckets).
    fn is_copy(doc: u64) -> bool {
        doc < 60 && doc % 3 == 2
    }

    /// The candidates by the definition, the slow way: each bucket's members (copies
    /// left out) in document order, each paired with the `SCAN` members before it;
    /// the reads cut (more than `SCAN` members before) and their distinct documents.
    fn oracle() -> (Vec<(u64, u64)>, u64, u64) {
        let mut pairs = Vec::new();
        let (mut cut_reads, mut cut_docs) = (0u64, BTreeSet::new());
        for band in 0..BANDS {
            for k in 0..KEYS {
                let members: Vec<u64> = (0..DOCS)
                    .filter(|&d| !is_copy(d) && key(d, band) == k)
                    .collect();
                for (i, &d) in members.iter().enumerate() {
                    for &e in &members[i.saturating_sub(SCAN)..i] {
                        pairs.push((e, d));
                    }
                    if i > SCAN {
                        cut_reads += 1;
                        cut_docs.insert(d);
                    }
                }
            }
        }
        pairs.sort_unstable();
        (pairs, cut_reads, cut_docs.len() as u64)
    }

    /// The candidates, cut reads, cut documents and candidate runs of [`stage`].
    type Staged = (Vec<(u64, u64)>, u64, u64, usize);

    /// The stage's candidates (all of its runs merged in pair order), cut reads and
    /// cut documents, with the bands in `groups` groups, in a folder of its own.
    fn stage(
        root: &Path,
        keys: &SortedRuns<BandKeyRecord, (u16, u64, u64)>,
        groups: usize,
    ) -> Result<Staged, Error> {
        let dir = root.join(format!("groups-{groups}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = RecordWriter::<Edge>::create(dir.join(EXACT), 9).unwrap();
        for d in (0..DOCS).filter(|&d| is_copy(d)) {
            w.write(&Edge { a: d - 1, b: d }).unwrap();
        }
        w.finish().unwrap();
        let plan = crate::Dedup::new().plan().unwrap();
        let job = Job {
            dir: &dir,
            // 1,024 pairs in memory over the groups: several runs in each group.
            budget: 1024 * 16 * 2,
            scan: SCAN,
            threshold: plan.threshold,
            emit: plan.emit(),
            num_perm: 128,
            max_hamming: None,
            fields: None,
            verifier: &plan.verifier,
            features: plan.features,
            exact: plan.exact,
            needs_sets: false,
            needs_texts: false,
            progress: &NoProgress,
        };
        let copies = CopyBits::load(&job, DOCS, 9)?;
        let b = run(&job, keys, &copies, BANDS, groups, 5)?;
        let runs = SortedRuns::from_paths(b.runs.clone(), pair_order, 5);
        let pairs: Vec<(u64, u64)> = runs
            .merge()
            .unwrap()
            .map(|e| e.map(Into::into))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(b.candidates, pairs.len() as u64);
        Ok((pairs, b.cut_reads, b.cut_documents, b.runs.len()))
    }

    fn key_runs(dir: &Path) -> SortedRuns<BandKeyRecord, (u16, u64, u64)> {
        // 200 records in memory: runs of 14 documents' keys, 29 runs.
        let mut sort = BandKeySort::new(dir, "keys", 200, 3).unwrap();
        for doc in 0..DOCS {
            let keys: Vec<u64> = (0..BANDS).map(|b| key(doc, b)).collect();
            sort.push_document(doc, &keys).unwrap();
        }
        sort.finish().unwrap()
    }

    #[test]
    fn any_number_of_band_groups_gives_the_pairs_and_cuts_of_the_definition() {
        let root = tempfile::tempdir().unwrap();
        let keys = key_runs(root.path());
        assert!(keys.paths().len() > 3, "{} runs", keys.paths().len());
        let (pairs, cut_reads, cut_docs) = oracle();
        assert!(cut_reads > 0 && !pairs.is_empty());
        let mut runs = Vec::new();
        for groups in [1, 2, 3, 4, BANDS, 50] {
            let (got, reads, docs, n) = stage(root.path(), &keys, groups).unwrap();
            assert_eq!(got, pairs, "{groups} groups");
            assert_eq!((reads, docs), (cut_reads, cut_docs), "{groups} groups");
            runs.push(n);
        }
        // Each group has runs of its own.
        assert!(runs[1] > runs[0]);
    }

    #[test]
    fn a_damaged_key_run_is_refused_whatever_the_groups() {
        let root = tempfile::tempdir().unwrap();
        let keys = key_runs(root.path());
        // A byte of a record in the last band's section of the first run: only the
        // checksum pass reads it in the other groups' runs.
        let path = &keys.paths()[0];
        let mut bytes = std::fs::read(path).unwrap();
        let at = bytes.len() - ndd_scale::TRAILER_LEN - 3;
        bytes[at] ^= 0x10;
        std::fs::write(path, bytes).unwrap();
        for groups in [1, 2, 4] {
            let err = stage(root.path(), &keys, groups).unwrap_err();
            assert!(
                err.to_string().contains("damaged"),
                "{groups} groups: {err}"
            );
        }
    }
}

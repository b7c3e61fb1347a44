//! [`SegmentedIndex`]: a folder index whose batches are checked one committed segment
//! at a time, with the stages of the whole load.
//!
//! In memory stay the ids, group labels, exact-pass digests and set sizes of every
//! document (what grouping, the exact pass and the next segment need), the
//! candidate structure of the documents added since the last save, and the batch.
//! A batch is checked against the documents added since the last save first (query,
//! then insert, as the candidate stream does), then against each committed segment
//! from the newest to the oldest: the segment's record is read, its signatures
//! sketched again from its sets and banded (the whole load's `read_documents`), the
//! batch queried against it, the candidates passed through the plan's
//! [`EstimateFilter`] and verified by the same stage, and the segment dropped.
//!
//! Why the order: the whole load's LSH index reads at most the bound's newest members
//! of a bucket. Each batch document carries one budget per band, starting at the
//! bound, spent by every part it reads from the newest part to the oldest
//! ([`LshIndex::query_within`]): it meets the members the whole index's walk meets,
//! and a band is cut exactly when the whole walk cuts it.

use std::path::Path;
use std::time::Instant;

use ndd_core::ScoredPair;
use ndd_lsh::{LshIndex, QueryScratch};
use ndd_minhash::MinHashSignature;

use super::{Batch, DedupIndex, SetStore, key};
use crate::candidates::estimate::EstimateFilter;
use crate::progress::Stage;
use crate::report::{BucketScan, Outcome, Report};
use crate::verify::VerifyReport;
use crate::{Dedup, Document, Error, Progress};

/// A folder index ([`DedupIndex::save_dir`]) opened to check and add batches without
/// loading every segment: each batch is checked against one committed segment at a
/// time, which is read, banded, queried and dropped. Pairs, scores, groups, kept
/// documents and the segment [`save`](Self::save) writes are those of
/// [`DedupIndex::load_dir`] followed by [`DedupIndex::add`] and
/// [`DedupIndex::save_dir`].
///
/// When to use it: an index that grows by batches and no longer fits in memory as a
/// whole, or whose whole load costs more than a batch. What it bounds: memory is the
/// ids, group labels (4 bytes), exact-pass digests (20 bytes and a map entry) and set
/// sizes (8 bytes) of every document, plus one segment's candidate structure (its
/// signatures and sets) and the batch's; the whole load holds every segment's. What
/// it costs: every batch reads and sketches every committed segment again (the whole
/// load does it once per process, then adds batches against it), and the batch's
/// signatures are queried once per segment. Measured in `docs/performance.md`.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, DedupIndex, Document, SegmentedIndex};
/// let dir = std::env::temp_dir().join(format!("ndd-segmented-{}", std::process::id()));
/// # let _ = std::fs::remove_dir_all(&dir);
/// let mut index = DedupIndex::new(&Dedup::new())?;
/// index.add(&[Document::new("m1", "the committee approved the budget for the library")])?;
/// index.save_dir(&dir)?; // segment 1
/// index.add(&[Document::new("m2", "a different story about the weather in the hills")])?;
/// index.save_dir(&dir)?; // segment 2
///
/// let mut index = SegmentedIndex::open(&dir)?; // ids, labels, digests: no segment loaded
/// let out = index.add(&[Document::new("t1", "The committee approved the budget for the library!")])?;
/// assert_eq!((out.pairs[0].a, out.pairs[0].b), (0, 2)); // found in segment 1
/// assert_eq!(out.dropped(), vec![2]);
/// index.save()?; // segment 3: t1 alone
/// assert_eq!(DedupIndex::load(&dir)?.ids(), ["m1", "m2", "t1"]);
/// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug)]
pub struct SegmentedIndex {
    /// The resident part: every document's id, label, digest and set size; the
    /// candidate structure of the documents added since the last save only.
    pub(super) index: DedupIndex,
    /// The documents not sketched (exact copies left out of the LSH index), ascending.
    pub(super) unsketched: Vec<u32>,
}

impl SegmentedIndex {
    /// Opens the folder index `dir`: reads its manifest and, from each segment, the
    /// ids, group labels, digests and set sizes (the sets and signatures are checked
    /// for their shape and dropped).
    ///
    /// # Errors
    ///
    /// As [`DedupIndex::load_dir`]; [`Error::Core`] with `CorruptData` for a folder
    /// holding segments of version 1 (written before the compact record; load it
    /// whole with [`DedupIndex::load_dir`] and save it to a new folder).
    ///
    /// # Example
    ///
    /// ```
    /// let missing = std::path::Path::new("/nonexistent/ndd/index-folder");
    /// assert!(near_dup::pipeline::SegmentedIndex::open(missing).is_err());
    /// ```
    pub fn open(dir: &Path) -> Result<Self, Error> {
        let mut unsketched = Vec::new();
        let index = DedupIndex::read_dir(dir, Some(&mut unsketched))?;
        Ok(SegmentedIndex { index, unsketched })
    }

    /// Checks `docs` against everything indexed and against each other, then adds
    /// them (in memory: [`save`](Self::save) appends them to the folder). The
    /// outcome is [`DedupIndex::add`]'s.
    ///
    /// # Errors
    ///
    /// As [`DedupIndex::add`]; [`Error::Io`] when a segment cannot be read or differs
    /// from the manifest, [`Error::Core`] with `CorruptData` for one whose contents do
    /// not fit.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-add-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&[Document::new("a", "a notice about the new parking rules downtown")])?;
    /// index.save_dir(&dir)?;
    /// let mut index = SegmentedIndex::open(&dir)?;
    /// let out = index.add(&[Document::new("b", "A notice about the new parking rules downtown!")])?;
    /// assert_eq!(out.dropped(), vec![1]);
    /// assert_eq!(index.ids(), ["a", "b"]);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn add(&mut self, docs: &[Document]) -> Result<Outcome, Error> {
        self.add_with_progress(docs, &crate::NoProgress)
    }

    /// [`add`](Self::add), reporting the exact pass, sketching, the candidate search
    /// (in chunks of documents, once per part searched) and grouping to `progress`.
    ///
    /// # Errors
    ///
    /// As [`add`](Self::add).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, NoProgress, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-progress-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// let mut index = SegmentedIndex::open(&dir)?;
    /// assert!(index.add_with_progress(&[Document::new("a", "some words")], &NoProgress)?.pairs.is_empty());
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn add_with_progress(
        &mut self,
        docs: &[Document],
        progress: &dyn Progress,
    ) -> Result<Outcome, Error> {
        let before = self.index.len();
        let outcome = self.index.add_batch(docs, progress, true)?;
        let lsh = &self.index.lsh;
        self.unsketched.extend(
            (before..self.index.len())
                .map(key)
                .filter(|k| !lsh.contains_key(k)),
        );
        Ok(outcome)
    }

    /// Appends the documents added since the folder was opened or last saved as one
    /// new segment ([`DedupIndex::save_dir`] to the folder it was opened from), then
    /// drops their candidate structure: the next batch reads them from the segment.
    ///
    /// # Errors
    ///
    /// As [`DedupIndex::save_dir`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-save-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// let mut index = SegmentedIndex::open(&dir)?;
    /// index.add(&[Document::new("a", "some words here")])?;
    /// index.save()?;
    /// assert_eq!(SegmentedIndex::open(&dir)?.ids(), ["a"]);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn save(&mut self) -> Result<(), Error> {
        let Some(dir) = self.index.saved_dir() else {
            return Err(crate::sketching::corrupt(
                "a segmented index without its folder",
            ));
        };
        self.index.save_dir(&dir)?;
        // Everything is in a segment now: keep only the resident part.
        let n = self.index.ids.len();
        self.index.lsh = self.index.empty_lsh();
        if let Some(store) = &mut self.index.sets {
            *store = SetStore::new();
            store.push_dropped(n);
        }
        Ok(())
    }

    /// The ids of the documents indexed, in the order they were added.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-ids-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&[Document::new("x", "text")])?;
    /// index.save_dir(&dir)?;
    /// assert_eq!(SegmentedIndex::open(&dir)?.ids(), ["x"]);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn ids(&self) -> &[String] {
        self.index.ids()
    }

    /// Documents indexed so far.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-len-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// assert_eq!(SegmentedIndex::open(&dir)?.len(), 0);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no document has been added.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-empty-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// assert!(SegmentedIndex::open(&dir)?.is_empty());
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The settings the index was built with ([`DedupIndex::settings`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-settings-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new().threshold(0.7))?.save_dir(&dir)?;
    /// assert_eq!(SegmentedIndex::open(&dir)?.settings().threshold_value(), 0.7);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn settings(&self) -> Dedup {
        self.index.settings()
    }

    /// Sets the bucket-scan bound for the batches added from now on
    /// ([`DedupIndex::set_max_bucket_scan`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-scan-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// let mut index = SegmentedIndex::open(&dir)?;
    /// index.set_max_bucket_scan(Some(8));
    /// assert_eq!(index.max_bucket_scan(), Some(8));
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn set_max_bucket_scan(&mut self, members: Option<usize>) {
        self.index.set_max_bucket_scan(members);
    }

    /// The bucket-scan bound ([`DedupIndex::max_bucket_scan`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, SegmentedIndex, DEFAULT_MAX_BUCKET_SCAN};
    /// let dir = std::env::temp_dir().join(format!("ndd-segmented-bound-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// assert_eq!(SegmentedIndex::open(&dir)?.max_bucket_scan(), Some(DEFAULT_MAX_BUCKET_SCAN));
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn max_bucket_scan(&self) -> Option<usize> {
        self.index.max_bucket_scan()
    }
}

/// The candidate search of one batch across parts, each document's band budgets kept
/// from one part to the next.
struct Search<'a> {
    sigs: &'a [MinHashSignature],
    /// The batch's keys (positions in the collection), by signature.
    keys: Vec<u32>,
    bands: usize,
    budget: Vec<usize>,
    cut: Vec<bool>,
    filter: &'a EstimateFilter,
    found: Vec<u32>,
    /// The bounded walks' set of reported documents, reused from query to query.
    scratch: QueryScratch,
    candidates: u64,
}

impl Search<'_> {
    /// Queries document `u` of the batch against `lsh` within its budgets and appends
    /// the candidates that pass the filter to `out` as (earlier key, key).
    fn query(
        &mut self,
        lsh: &LshIndex<u32, MinHashSignature>,
        u: usize,
        out: &mut Vec<ScoredPair>,
    ) -> Result<(), Error> {
        let bands = u * self.bands..(u + 1) * self.bands;
        let sig = &self.sigs[u];
        self.found.clear();
        lsh.query_within_using(
            sig,
            &mut self.budget[bands.clone()],
            &mut self.cut[bands],
            &mut self.scratch,
            &mut self.found,
        )?;
        self.candidates += self.found.len() as u64;
        // In the order found: the batch's pairs are sorted once, at the end (`add_batch`).
        for &j in &self.found {
            if let Some(e) = lsh.signature(&j) {
                let score = self.filter.score(e, sig)?;
                if self.filter.passes(score) {
                    out.push(ScoredPair::new(j as usize, self.keys[u] as usize, score));
                }
            }
        }
        Ok(())
    }

    /// The bucket reads the budgets cut.
    fn bucket_scan(&self, bound: usize) -> BucketScan {
        let per_doc = self.cut.chunks(self.bands.max(1));
        BucketScan {
            bound,
            cut_reads: self.cut.iter().filter(|&&c| c).count() as u64,
            cut_documents: per_doc.filter(|c| c.iter().any(|&c| c)).count() as u64,
        }
    }
}

impl DedupIndex {
    /// The verified candidate pairs of this batch's sketched documents `texts` (the
    /// documents `unique` of the batch): against the documents since the last save
    /// and each other (query, then insert into this index), then against each
    /// committed segment, newest first, each read and dropped in turn.
    pub(super) fn candidates_by_segment(
        &mut self,
        texts: &[&str],
        unique: &[usize],
        batch: &Batch<'_>,
        filter: &EstimateFilter,
        progress: &dyn Progress,
        report: &mut Report,
    ) -> Result<Vec<ScoredPair>, Error> {
        let n = texts.len() as u64;
        progress.start(Stage::Sketch, Some(n));
        let t = Instant::now();
        let sigs = self.sketching.sketch_batch(texts);
        progress.advance(Stage::Sketch, n);
        progress.finish(Stage::Sketch);
        report.timings.push((Stage::Sketch, t.elapsed()));

        let t = Instant::now();
        let bands = self.lsh.params().bands();
        let bound = self.lsh.max_bucket_scan().unwrap_or(usize::MAX);
        let mut search = Search {
            sigs: &sigs,
            keys: unique.iter().map(|&i| key(batch.base + i)).collect(),
            bands,
            budget: vec![bound; sigs.len() * bands],
            cut: vec![false; sigs.len() * bands],
            filter,
            found: Vec::new(),
            scratch: QueryScratch::new(),
            candidates: 0,
        };
        let mut verified = Vec::new();
        let mut verify = VerifyReport::default();
        // The newest part: the documents since the last save and this batch's earlier
        // ones, each batch document queried before it is inserted.
        progress.start(Stage::Candidates, Some(n));
        let mut candidates = Vec::new();
        for (u, sig) in sigs.iter().enumerate() {
            search.query(&self.lsh, u, &mut candidates)?;
            self.lsh.insert(search.keys[u], sig)?;
        }
        let store = self.sets.as_ref();
        let earlier = |k| store.map_or(&[][..], |s| s.get(k));
        self.check(&earlier, batch, candidates, &mut verified, &mut verify)?;
        progress.advance(Stage::Candidates, n);

        // Then each committed segment, newest first: read, banded, queried, dropped.
        for (g, base) in self.committed_segments().into_iter().rev() {
            let part = self.read_part(g, base)?;
            let mut candidates = Vec::new();
            for u in 0..sigs.len() {
                search.query(&part.lsh, u, &mut candidates)?;
            }
            let sets = part.sets.as_ref();
            let earlier = |k: usize| sets.map_or(&[][..], |s| s.get(k.saturating_sub(part.base)));
            self.check(&earlier, batch, candidates, &mut verified, &mut verify)?;
        }
        progress.finish(Stage::Candidates);
        report.candidates = search.candidates;
        report.bucket_scan = Some(search.bucket_scan(bound));
        report
            .timings
            .push((Stage::Candidates, t.elapsed().saturating_sub(verify.time)));
        report.verify = verify;
        Ok(verified)
    }

    /// Verifies `candidates` (pairs of an earlier document, its set `earlier(k)`, or
    /// of this batch, with one of this batch) into `verified`, adding to `verify`; by
    /// the estimate (no sets), they are verified already.
    fn check<'s>(
        &self,
        earlier: &(dyn Fn(usize) -> &'s [u64] + Sync),
        batch: &'s Batch<'s>,
        candidates: Vec<ScoredPair>,
        verified: &mut Vec<ScoredPair>,
        verify: &mut VerifyReport,
    ) -> Result<(), Error> {
        if self.sets.is_none() {
            verified.extend(candidates);
            return Ok(());
        }
        let (pairs, r) = self.verify_with_batch(earlier, batch, candidates, &crate::NoProgress)?;
        verify.checked += r.checked;
        verify.accepted += r.accepted;
        verify.time += r.time;
        verified.extend(pairs);
        Ok(())
    }
}

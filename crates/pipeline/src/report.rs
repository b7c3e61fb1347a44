//! The typed report of a run and its outcome: groups, pairs, what to keep and drop.

use std::time::Duration;

use ndd_core::ScoredPair;

use crate::progress::Stage;
use crate::{Group, VerifyReport};

/// What happened in a run: counts per stage, timings, memory.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document};
/// let docs = vec![Document::new("a", "same words here"), Document::new("b", "Same words, here!")];
/// let report = Dedup::new().run(&docs)?.report;
/// assert_eq!((report.documents, report.exact_copies, report.dropped), (2, 1, 1));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// Documents given.
    pub documents: usize,
    /// Bytes of text given.
    pub bytes: u64,
    /// Groups of exact duplicates found by the exact pass (0 when it is off).
    pub exact_groups: usize,
    /// Documents removed by the exact pass before the costlier stages.
    pub exact_copies: usize,
    /// The method and its parameters, in words.
    pub method: String,
    /// Candidate pairs the method's index proposed.
    pub candidates: u64,
    /// What verification did.
    pub verify: VerifyReport,
    /// Pairs in the outcome (verified pairs plus one pair per exact copy).
    pub pairs: usize,
    /// Groups of two or more documents.
    pub groups: usize,
    /// Documents in those groups.
    pub grouped_documents: usize,
    /// Documents dropped (in a group, not its representative).
    pub dropped: usize,
    /// Time per stage, in the order they ran.
    pub timings: Vec<(Stage, Duration)>,
    /// Bytes of index per document, when the method has an index.
    pub index_bytes_per_document: Option<f64>,
    /// Bytes of signature per document while the method runs (see
    /// [`CandidateReport::signature_bytes_per_document`](crate::CandidateReport::signature_bytes_per_document)).
    pub signature_bytes_per_document: Option<f64>,
    /// Whether the MinHash candidate stage's bucket bound
    /// ([`MinHashConfig::max_bucket_scan`](crate::MinHashConfig::max_bucket_scan)) was
    /// hit on this run; `None` when the method reads no LSH bucket or the engine does
    /// not count (see [`BucketScan`]).
    pub bucket_scan: Option<BucketScan>,
}

/// How often the bucket bound of the MinHash candidate stage was hit on a run: a
/// document reads at most `bound` earlier members of each of its LSH buckets, the
/// newest first, so a hot bucket keeps its group but reports only some of its pairs.
///
/// Counted as the bounded walks stop (no cost per pair) by every engine that streams
/// through the candidate stage: in memory ([`Dedup`](crate::Dedup)) and a saved
/// index's [`DedupIndex::add`](crate::DedupIndex::add) (this batch's documents only).
/// The out-of-core engine counts the same reads in its shuffle
/// ([`OutOfCoreOutcome::bucket_scan`](crate::OutOfCoreOutcome::bucket_scan)). The
/// Bloom engine keeps no buckets (nothing to bound), and the other methods report
/// `None` (the exact Jaccard join and SigNCD bound their partners per document by
/// the same default, uncounted). The largest bucket is not reported: the walk stops
/// at the bound and never learns a hot bucket's size, which would cost a walk of the
/// whole bucket.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Method, MinHashConfig};
/// let texts = vec!["the same few words again and again"; 6];
/// let config = MinHashConfig { max_bucket_scan: Some(2), ..MinHashConfig::default() };
/// let out = Dedup::new().method(Method::MinHash(config)).exact_pass(false).run_texts(&texts)?;
/// let scan = out.report.bucket_scan.expect("MinHash reads LSH buckets");
/// assert_eq!(scan.bound, 2);
/// // Documents 3, 4 and 5 met more than 2 earlier copies in every band.
/// assert_eq!(scan.cut_documents, 3);
/// assert!(scan.hit());
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BucketScan {
    /// Most earlier members of one bucket a document reads (the hard cap
    /// [`MAX_BUCKET_SCAN`](crate::MAX_BUCKET_SCAN) when no bound is asked).
    pub bound: usize,
    /// Bucket reads the bound cut: one per document and band whose bucket held more
    /// than `bound` earlier members.
    pub cut_reads: u64,
    /// Documents with at least one cut read.
    pub cut_documents: u64,
}

impl BucketScan {
    /// Whether the bound was hit: some document left members of a bucket unread.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::BucketScan;
    /// assert!(!BucketScan { bound: 256, cut_reads: 0, cut_documents: 0 }.hit());
    /// assert!(BucketScan { bound: 256, cut_reads: 9, cut_documents: 3 }.hit());
    /// ```
    #[must_use]
    pub fn hit(&self) -> bool {
        self.cut_reads > 0
    }

    /// The warning to show when the bound was hit (`None` when it was not), in words
    /// with the numbers; `remedy` names the setting that raises the bound where the
    /// reader sets it (the tool's `--max-bucket-scan`). At the hard cap
    /// [`MAX_BUCKET_SCAN`](crate::MAX_BUCKET_SCAN) it says so instead.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::BucketScan;
    /// let scan = BucketScan { bound: 256, cut_reads: 9, cut_documents: 3 };
    /// assert_eq!(
    ///     scan.warning("--max-bucket-scan").as_deref(),
    ///     Some("3 documents read only 256 of a bucket's members (9 bucket reads cut): \
    ///           pairs in hot buckets were cut; --max-bucket-scan raises the bound"),
    /// );
    /// assert_eq!(BucketScan { cut_reads: 0, cut_documents: 0, ..scan }.warning("x"), None);
    /// ```
    #[must_use]
    pub fn warning(&self, remedy: &str) -> Option<String> {
        if !self.hit() {
            return None;
        }
        let fix = if self.bound >= crate::MAX_BUCKET_SCAN {
            format!("{} is the hard cap of the bound", crate::MAX_BUCKET_SCAN)
        } else {
            format!("{remedy} raises the bound")
        };
        Some(format!(
            "{} documents read only {} of a bucket's members ({} bucket reads cut): \
             pairs in hot buckets were cut; {fix}",
            self.cut_documents,
            self.bound.min(crate::MAX_BUCKET_SCAN),
            self.cut_reads,
        ))
    }
}

impl Report {
    /// Mean bytes of text per document (0 for no document).
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["abcd", "ef"])?;
    /// assert_eq!(out.report.mean_document_bytes(), 3.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn mean_document_bytes(&self) -> f64 {
        ndd_core::mem::bytes_per(self.bytes, self.documents as u64)
    }

    /// Total time of the stages.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Report::default().total_time(), std::time::Duration::ZERO);
    /// ```
    #[must_use]
    pub fn total_time(&self) -> Duration {
        self.timings.iter().map(|t| t.1).sum()
    }
}

/// The result of a run: the pairs, the groups, and which documents to keep.
///
/// Indices refer to the documents as given.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document};
/// let docs = vec![
///     Document::new("a", "one two three four five six seven eight"),
///     Document::new("b", "something else entirely, with other words"),
///     Document::new("c", "One two three four five six seven eight."),
/// ];
/// let out = Dedup::new().run(&docs)?;
/// assert_eq!(out.kept(), vec![0, 1]);
/// assert_eq!(out.dropped(), vec![2]);
/// assert_eq!(out.groups[0].members, vec![0, 2]);
/// assert_eq!(out.labels(), vec![0, 1, 0]);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Every pair found, `a < b`, sorted by `(a, b)`; exact copies appear once, paired
    /// with the first document of their exact group (score 1).
    pub pairs: Vec<ScoredPair>,
    /// Groups of two or more documents, ordered by their smallest member.
    pub groups: Vec<Group>,
    /// The report.
    pub report: Report,
    pub(crate) group_of: Vec<Option<u32>>,
    /// Per document, the first document of its exact-copy group (itself when it has
    /// no copy or no exact pass ran); empty when no exact pass ran.
    pub(crate) copy_of: Vec<u32>,
}

impl Outcome {
    /// Builds the lookup from documents to groups.
    pub(crate) fn new(
        n: usize,
        pairs: Vec<ScoredPair>,
        groups: Vec<Group>,
        report: Report,
    ) -> Self {
        let mut group_of = vec![None; n];
        for (g, group) in groups.iter().enumerate() {
            for &m in &group.members {
                group_of[m] = u32::try_from(g).ok();
            }
        }
        Outcome {
            pairs,
            groups,
            report,
            group_of,
            copy_of: Vec::new(),
        }
    }

    /// The same outcome, knowing which documents are exact copies of which:
    /// `copy_of[i]` is the first document of `i`'s exact-copy group (`i` itself when
    /// it has no copy).
    pub(crate) fn with_copies(mut self, copy_of: Vec<u32>) -> Self {
        self.copy_of = copy_of;
        self
    }

    /// What happened to document `i`: kept alone, kept for its group, or dropped as an
    /// exact copy or as a near-duplicate of the document kept for its group.
    ///
    /// A dropped document is an [`ExactCopy`](Fate::ExactCopy) when the exact pass
    /// found it to be a copy (the same text after the pass's normalization) of the
    /// kept document or of an earlier document of its group, a
    /// [`NearDuplicate`](Fate::NearDuplicate) otherwise. So each set of `s` exact
    /// copies gives `s − 1` exact copies whatever the method and the grouping (the
    /// exact pass's [`Report::exact_copies`], one count for every method), and at most
    /// one near-duplicate: its first copy, when the group keeps another text. Without
    /// an exact pass every dropped document is a near-duplicate. For the outcome of
    /// [`DedupIndex::add`](crate::DedupIndex::add), copies are known for the new
    /// batch's documents. An index out of range is [`Fate::Unique`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Fate};
    /// let out = Dedup::new().run_texts(&[
    ///     "the quick brown fox jumps over the lazy dog",
    ///     "something else entirely",
    ///     "The quick brown fox jumps over the lazy dog.",   // an exact copy once folded
    ///     "the quick brown fox jumps over the lazy dog again",
    /// ])?;
    /// assert_eq!(out.fate(0), Fate::Kept);
    /// assert_eq!(out.fate(1), Fate::Unique);
    /// assert_eq!(out.fate(2), Fate::ExactCopy);
    /// assert_eq!(out.fate(3), Fate::NearDuplicate);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn fate(&self, i: usize) -> Fate {
        match self.group_of(i) {
            None => Fate::Unique,
            Some(group) => Fate::of_member(group, i, |d| self.copy_of.get(d).map(|&f| f as usize)),
        }
    }

    /// The group document `i` belongs to, if any.
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["a b c d", "z", "a b c d"])?;
    /// assert_eq!(out.group_of(2).map(|g| g.representative), Some(0));
    /// assert!(out.group_of(1).is_none() && out.group_of(9).is_none());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn group_of(&self, i: usize) -> Option<&Group> {
        self.group_of
            .get(i)
            .copied()
            .flatten()
            .and_then(|g| self.groups.get(g as usize))
    }

    /// Whether document `i` is kept: it is in no group, or it represents its group.
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["a b c d", "a b c d"])?;
    /// assert!(out.is_kept(0) && !out.is_kept(1));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn is_kept(&self, i: usize) -> bool {
        self.group_of(i).is_none_or(|g| g.representative == i)
    }

    /// The documents to keep, in input order.
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["a b", "c d", "a b"])?;
    /// assert_eq!(out.kept(), vec![0, 1]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn kept(&self) -> Vec<usize> {
        (0..self.group_of.len())
            .filter(|&i| self.is_kept(i))
            .collect()
    }

    /// The documents to drop (near-duplicates of a kept one), in input order.
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["a b", "c d", "a b"])?;
    /// assert_eq!(out.dropped(), vec![2]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn dropped(&self) -> Vec<usize> {
        (0..self.group_of.len())
            .filter(|&i| !self.is_kept(i))
            .collect()
    }

    /// A cluster label per document: its group's representative, or itself.
    ///
    /// # Example
    ///
    /// ```
    /// let out = near_dup::pipeline::Dedup::new().run_texts(&["a b", "c d", "a b"])?;
    /// assert_eq!(out.labels(), vec![0, 1, 0]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn labels(&self) -> Vec<usize> {
        (0..self.group_of.len())
            .map(|i| self.group_of(i).map_or(i, |g| g.representative))
            .collect()
    }
}

/// What [`Outcome::fate`] says happened to a document.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Fate;
/// assert!(Fate::Kept.is_kept() && Fate::Unique.is_kept());
/// assert!(!Fate::ExactCopy.is_kept() && !Fate::NearDuplicate.is_kept());
/// assert_eq!(Fate::NearDuplicate.name(), "near");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fate {
    /// Kept: no other document is similar enough.
    Unique,
    /// Kept as the representative of its group.
    Kept,
    /// Dropped: an exact copy of the document kept for its group, or of an earlier
    /// document of its group (its first copy, dropped as a near-duplicate).
    ExactCopy,
    /// Dropped: a near-duplicate of a document of its group.
    NearDuplicate,
}

impl Fate {
    /// The fate of member `i` of `group`: [`Kept`](Fate::Kept) when it is the
    /// representative; else an [`ExactCopy`](Fate::ExactCopy) when it is a copy of the
    /// kept document or a later copy of a text the group does not keep (a copy of its
    /// first), a [`NearDuplicate`](Fate::NearDuplicate) otherwise. `first(d)` is the
    /// first document of `d`'s set of exact copies (`d` itself when it has none), or
    /// `None` where that is unknown (no exact pass): identical texts are always in one
    /// group, so the first of a set is its smallest member there.
    ///
    /// The one rule of [`Outcome::fate`] (over the exact pass's copies) and of the
    /// HTML report of a saved run (over the digests of the texts).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Fate, Group};
    /// let group = Group { representative: 1, members: vec![0, 1, 2, 3], copies: None };
    /// // 0 and 2 hold one text, 1 (kept) and 3 another.
    /// let first = |d: usize| Some([0, 1, 0, 1][d]);
    /// let fates: Vec<Fate> = (0..4).map(|i| Fate::of_member(&group, i, first)).collect();
    /// assert_eq!(
    ///     fates,
    ///     [Fate::NearDuplicate, Fate::Kept, Fate::ExactCopy, Fate::ExactCopy]
    /// );
    /// assert_eq!(Fate::of_member(&group, 3, |_| None), Fate::NearDuplicate);
    /// ```
    #[must_use]
    pub fn of_member(group: &Group, i: usize, first: impl Fn(usize) -> Option<usize>) -> Fate {
        if group.representative == i {
            return Fate::Kept;
        }
        match (first(i), first(group.representative)) {
            // A copy of the kept document.
            (Some(a), Some(b)) if a == b => Fate::ExactCopy,
            // A later copy of a text the group does not keep: a copy of its first.
            (Some(a), _) if a != i => Fate::ExactCopy,
            _ => Fate::NearDuplicate,
        }
    }

    /// Whether the document is kept.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::Fate::Unique.is_kept());
    /// ```
    #[must_use]
    pub fn is_kept(self) -> bool {
        matches!(self, Fate::Unique | Fate::Kept)
    }

    /// A short name: `unique`, `kept`, `exact` or `near`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Fate::ExactCopy.name(), "exact");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Fate::Unique => "unique",
            Fate::Kept => "kept",
            Fate::ExactCopy => "exact",
            Fate::NearDuplicate => "near",
        }
    }
}

//! What an [`OutOfCore`](super::OutOfCore) run found: counts, the stages' times, and
//! the pairs and assignments streamed from the work folder.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ndd_core::ScoredPair;
use ndd_scale::{Assignment, Edge, Record, RecordError, RecordReader, Score};

use super::{ASSIGNMENTS, PAIRS, SCORES, damaged};
use crate::Error;
use crate::progress::Stage;

/// One stage of an [`OutOfCore`](crate::OutOfCore) run.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document, OutOfCore, Stage};
/// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-20");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let out = OutOfCore::new(&Dedup::new(), &dir)?.run([Ok(Document::new("a", "text"))])?;
/// let stages: Vec<Stage> = out.stages.iter().map(|s| s.stage).collect();
/// assert_eq!(stages, [Stage::Sketch, Stage::Exact, Stage::Candidates, Stage::Verify, Stage::Group]);
/// assert!(out.stages[0].bytes_written > 0);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct StageRun {
    /// Which stage: [`Stage::Sketch`], [`Stage::Exact`], [`Stage::Candidates`],
    /// [`Stage::Weights`] (align-weighted only), [`Stage::Verify`] or [`Stage::Group`].
    pub stage: Stage,
    /// Whether an earlier run had finished it (nothing was redone).
    pub reused: bool,
    /// How long it took in this run.
    pub time: Duration,
    /// Bytes it wrote to the work directory in this run.
    pub bytes_written: u64,
}

/// What an [`OutOfCore`](crate::OutOfCore) run found; the pairs and the assignments stay in the work
/// directory and are streamed from there.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document, OutOfCore};
/// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-47");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let texts = ["one two three four five six", "one two three four five six", "other"];
/// let out = OutOfCore::new(&Dedup::new(), &dir)?
///     .run(texts.iter().enumerate().map(|(i, t)| Ok(Document::new(i.to_string(), *t))))?;
/// assert_eq!((out.documents, out.pairs, out.groups, out.grouped), (3, 1, 1, 2));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct OutOfCoreOutcome {
    /// Documents read.
    pub documents: u64,
    /// Candidate pairs proposed by the buckets (a pair met in several bands counts
    /// once per band).
    pub candidates: u64,
    /// Distinct candidate pairs scored.
    pub checked: u64,
    /// Distinct candidate pairs whose MinHash estimate reached the plausible floor
    /// and were verified: what [`VerifyReport::checked`](crate::VerifyReport::checked)
    /// counts in memory, so the two summaries agree.
    pub verified: u64,
    /// Pairs accepted, the exact copies' pairs `(first, copy)` included (as in
    /// memory).
    pub pairs: u64,
    /// Documents that are exact copies of an earlier one (0 without the exact pass;
    /// [`Report::exact_copies`](crate::Report::exact_copies) in memory).
    pub exact_copies: u64,
    /// Documents dropped as exact copies: of the document kept for their group or of
    /// an earlier document of it ([`Fate`](crate::Fate)); equal to
    /// [`exact_copies`](Self::exact_copies). The other dropped ones are
    /// near-duplicates.
    pub exact_copies_dropped: u64,
    /// Groups of two or more documents.
    pub groups: u64,
    /// Documents in those groups.
    pub grouped: u64,
    /// How often the bucket bound was hit in the shuffle, counted as in memory (see
    /// [`BucketScan`](crate::BucketScan)); `None` when the shuffle was kept from a
    /// run that did not count. Without a bound (`max_bucket_scan: None`) this engine
    /// reads whole buckets (no hard cap): nothing is cut.
    pub bucket_scan: Option<crate::BucketScan>,
    /// The five stages, in order.
    pub stages: Vec<StageRun>,
    pub(super) work_dir: PathBuf,
    pub(super) fingerprint: u64,
}

impl OutOfCoreOutcome {
    /// Opens this run's record file at `path`, checking that this run wrote it; with
    /// what a record error of it becomes while it is read (that file is damaged).
    #[allow(clippy::type_complexity)] // a reader and its error mapping
    fn open<T: Record>(
        &self,
        path: &Path,
    ) -> Result<
        (
            RecordReader<T, BufReader<File>>,
            impl Fn(RecordError) -> Error + use<T>,
        ),
        Error,
    > {
        let owned = path.to_path_buf();
        let bad = move |e| damaged(&owned, e);
        let r = RecordReader::open(path)
            .and_then(|r| r.expect_fingerprint(self.fingerprint))
            .map_err(&bad)?;
        Ok((r, bad))
    }

    /// Documents that are near-duplicates of a kept one (in a group, not its first).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-89");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let texts = ["one two three four five six", "one two three four five six", "other"];
    /// let out = OutOfCore::new(&Dedup::new(), &dir)?
    ///     .run(texts.iter().enumerate().map(|(i, t)| Ok(Document::new(i.to_string(), *t))))?;
    /// assert_eq!(out.duplicates(), 1);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn duplicates(&self) -> u64 {
        self.grouped - self.groups
    }

    /// The record file of assignments: `(doc, rep)` for every document of a group,
    /// sorted by document, `rep` the group's first-seen document (`docs/formats.md`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-108");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let out = OutOfCore::new(&Dedup::new(), &dir)?.run([Ok(Document::new("a", "x y z"))])?;
    /// assert!(out.assignments_path().ends_with("assignments.bin"));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn assignments_path(&self) -> PathBuf {
        self.work_dir.join(ASSIGNMENTS)
    }

    /// The record file of accepted pairs (edges `a < b`, by position), sorted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-124");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let out = OutOfCore::new(&Dedup::new(), &dir)?.run([Ok(Document::new("a", "x y z"))])?;
    /// assert!(out.pairs_path().ends_with("pairs.bin"));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn pairs_path(&self) -> PathBuf {
        self.work_dir.join(PAIRS)
    }

    /// The assignments, streamed: `(doc, rep)` by position, sorted by document, for
    /// every document of a group of two or more (a document absent is alone, and
    /// kept).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] or a wrapped [`ndd_core::Error::CorruptData`] when the file is
    /// missing or damaged (also as items, for damage found while streaming).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-147");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let docs = ["one two three four five six", "one two three four five six", "other"];
    /// let out = OutOfCore::new(&Dedup::new(), &dir)?
    ///     .run(docs.iter().enumerate().map(|(i, t)| Ok(Document::new(i.to_string(), *t))))?;
    /// let a: Vec<(u64, u64)> = out.assignments()?.map(|a| a.map(|a| (a.doc, a.rep))).collect::<Result<_, _>>()?;
    /// assert_eq!(a, [(0, 0), (1, 0)]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn assignments(
        &self,
    ) -> Result<impl Iterator<Item = Result<Assignment, Error>> + use<>, Error> {
        let path = self.assignments_path();
        let (r, bad) = self.open::<Assignment>(&path)?;
        // Records stream before the trailer's checksum is checked: a damaged record
        // must not pass for a position (a huge one would be a huge allocation).
        let documents = self.documents;
        let mut next = 0u64;
        Ok(r.map(move |a| {
            let a = a.map_err(&bad)?;
            if a.doc < next || a.doc >= documents || a.rep > a.doc {
                return Err(Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: assignment ({}, {}) out of order or range for {documents} documents",
                    path.display(),
                    a.doc,
                    a.rep
                ))));
            }
            next = a.doc + 1;
            Ok(a)
        }))
    }

    /// The positions of the documents kept, in order: every document that is alone or
    /// first in its group. Streams the assignments; memory is the returned vector
    /// (use [`assignments`](Self::assignments) to stream instead).
    ///
    /// # Errors
    ///
    /// As [`assignments`](Self::assignments).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-192");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let texts = ["other", "one two three four five six", "one two three four five six"];
    /// let out = OutOfCore::new(&Dedup::new(), &dir)?
    ///     .run(texts.iter().enumerate().map(|(i, t)| Ok(Document::new(i.to_string(), *t))))?;
    /// assert_eq!(out.kept_positions()?, [0, 1]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn kept_positions(&self) -> Result<Vec<u64>, Error> {
        let mut kept = Vec::new();
        let mut next = 0u64;
        for a in self.assignments()? {
            let a = a?;
            kept.extend(next..a.doc);
            if a.is_representative() {
                kept.push(a.doc);
            }
            next = a.doc + 1;
        }
        kept.extend(next..self.documents);
        Ok(kept)
    }

    /// The accepted pairs with their scores, streamed in `(a, b)` order.
    ///
    /// # Errors
    ///
    /// As [`assignments`](Self::assignments).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-outcome-224");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let docs = ["one two three four five six", "one two three four five six"];
    /// let out = OutOfCore::new(&Dedup::new(), &dir)?
    ///     .run(docs.iter().enumerate().map(|(i, t)| Ok(Document::new(i.to_string(), *t))))?;
    /// let pairs: Vec<_> = out.scored_pairs()?.collect::<Result<_, _>>()?;
    /// assert_eq!((pairs[0].a, pairs[0].b, pairs[0].score), (0, 1, 1.0));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scored_pairs(
        &self,
    ) -> Result<impl Iterator<Item = Result<ScoredPair, Error>> + use<>, Error> {
        let pairs_path = self.pairs_path();
        let (pairs, bad_pair) = self.open::<Edge>(&pairs_path)?;
        let scores_path = self.work_dir.join(SCORES);
        let (mut scores, bad_score) = self.open::<Score>(&scores_path)?;
        if scores.len() != pairs.len() {
            return Err(Error::Core(ndd_core::Error::corrupt_data(format!(
                "{}: {} scores for {} pairs",
                scores_path.display(),
                scores.len(),
                pairs.len()
            ))));
        }
        Ok(pairs.map(move |e| {
            let e = e.map_err(&bad_pair)?;
            let score = match scores.next() {
                Some(s) => s.map_err(&bad_score)?.0,
                None => {
                    return Err(Error::Core(ndd_core::Error::corrupt_data(format!(
                        "{}: a score is missing",
                        scores_path.display()
                    ))));
                }
            };
            let pos = |x: u64| {
                usize::try_from(x).map_err(|_| {
                    Error::Core(ndd_core::Error::corrupt_data("a position beyond usize"))
                })
            };
            Ok(ScoredPair::new(pos(e.a)?, pos(e.b)?, score))
        }))
    }
}

//! Progress callbacks: how a CLI or a service shows a long run without the library
//! printing anything.

/// A stage of a pipeline run, as reported to [`Progress`] and in the
/// [`Report`](crate::Report).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Stage;
/// assert!(Stage::Exact < Stage::Sketch);
/// assert_eq!(Stage::Candidates.to_string(), "candidates");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Stage {
    /// Reading the corpus.
    Read,
    /// The exact-duplicate pass (one SHA-1 per document).
    Exact,
    /// Building signatures (sketches, fingerprints, compressed sizes).
    Sketch,
    /// Finding candidate pairs (index inserts and queries, pair searches).
    Candidates,
    /// Counting the corpus's document frequencies for the verifier that weighs words
    /// by them (align-weighted), where they are not counted in memory (out of core).
    Weights,
    /// Verifying candidates with the chosen measure.
    Verify,
    /// Turning pairs into groups and choosing representatives.
    Group,
}

impl Stage {
    /// A short lower-case name (`"sketch"`, `"candidates"`, ...).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Stage::Verify.name(), "verify");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::Exact => "exact",
            Stage::Sketch => "sketch",
            Stage::Candidates => "candidates",
            Stage::Weights => "weights",
            Stage::Verify => "verify",
            Stage::Group => "group",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Receives progress of a run. Every method has an empty default, so an implementor
/// writes only what it shows. Calls come from the thread that runs the stage, at most
/// a few hundred times per stage (work is reported in chunks), so a callback may take
/// a lock or draw a bar.
///
/// # Example
///
/// ```
/// use std::sync::Mutex;
/// use near_dup::pipeline::{Dedup, Document, Progress, Stage};
///
/// #[derive(Default)]
/// struct Log(Mutex<Vec<String>>);
/// impl Progress for Log {
///     fn start(&self, stage: Stage, total: Option<u64>) {
///         self.0.lock().unwrap().push(format!("{stage} {total:?}"));
///     }
/// }
/// let log = std::sync::Arc::new(Log::default());
/// let docs = vec![Document::new("a", "one two three four five six"), Document::new("b", "seven")];
/// Dedup::new().progress(log.clone()).run(&docs)?;
/// assert!(log.0.lock().unwrap().iter().any(|l| l.starts_with("sketch")));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
pub trait Progress: Send + Sync {
    /// A stage starts; `total` is the amount of work (documents or pairs) when known.
    fn start(&self, stage: Stage, total: Option<u64>) {
        let _ = (stage, total);
    }
    /// `done` more units of the stage's work are finished.
    fn advance(&self, stage: Stage, done: u64) {
        let _ = (stage, done);
    }
    /// The stage is finished.
    fn finish(&self, stage: Stage) {
        let _ = stage;
    }
}

/// A progress sink shows as its name only (it holds no state worth printing), so the
/// types that carry one (`Dedup`, `OutOfCore`, `SourceContext`) derive `Debug`.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{NoProgress, Progress};
/// let sink: &dyn Progress = &NoProgress;
/// assert_eq!(format!("{sink:?}"), "dyn Progress");
/// ```
impl std::fmt::Debug for dyn Progress + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Progress")
    }
}

/// A [`Progress`] that shows nothing (the default).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{NoProgress, Progress, Stage};
/// NoProgress.start(Stage::Sketch, Some(10));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// How many units of work a stage does between two progress reports.
pub(crate) const CHUNK: usize = 4096;

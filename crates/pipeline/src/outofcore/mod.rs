//! [`OutOfCore`]: the MinHash and SimHash pipelines for corpora larger than memory, as
//! five stages (six with align-weighted) that read and write files in a work
//! directory, each reused when a later run finds it finished.
//!
//! 1. **sketch**: per document, shingles → MinHash signature → band keys (or SimHash
//!    fingerprint → its blocks, `hamming`), each chunk on every core; signatures to
//!    `signatures.bin` when verification reads them (not for containment), band keys
//!    to runs sorted by bucket (`keys-*.bin`), texts to `texts.bin` when the verifier
//!    reads them (alignment, a user's function) or shingle sets (exact Jaccard,
//!    containment: verification makes those of the documents candidates name), and
//!    the exact pass's digests to runs sorted by digest (`digests-*.bin`).
//! 2. **exact**: the digests merged; each document whose digest an earlier one has is
//!    an exact copy of it (`exact.bin`), left out of the buckets as in memory.
//! 3. **candidates**: the runs merged in bucket order; each document paired with at
//!    most `max_bucket_scan` earlier members of each of its buckets, the newest first
//!    (exactly the pairs the in-memory index's bounded walk reads); for SimHash, the
//!    pairs within the Hamming bound among the documents agreeing on a block (the
//!    in-memory permuted-table join, run by run); the pairs sorted into
//!    `candidates-*.bin`, and for the set verifiers the documents they name marked
//!    (`named.bin`, one bit each). MinHash's bands are split into groups, one per
//!    thread of the pool (at most four), each merging its bands' section of every run
//!    and sorting its own pairs, in parallel (a bucket lies in one band).
//! 4. **weights** (align-weighted only): each document's distinct words (the exact
//!    copies left out, as in memory) to runs sorted by word (`tokens-*.bin`), merged
//!    into the corpus's document frequencies (`weights.bin`), whose weights
//!    verification reads as the in-memory `CorpusWeights` gives them.
//! 5. **verify**: for the set verifiers, first one pass over `texts.bin` that
//!    shingles the named documents into `sets.bin` (removed at the stage's end), as
//!    the in-memory verifier shingles only the documents its candidates name; then
//!    each distinct candidate scored as the in-memory run scores it; accepted pairs
//!    and the exact copies' pairs to `pairs.bin` (+ `scores.bin`).
//! 6. **group**: connected components by union-find (representative: the first-seen
//!    document) to `assignments.bin`, one record per document of a group.
//!
//! Band keys, pairs and assignments are `ndd_scale` record files (versioned, with a
//! checksummed trailer whose absence marks a file its writer did not finish), so
//! another engine can produce or consume them (`docs/formats.md`).

mod blocks;
mod buckets;
mod components;
mod exact;
#[cfg(feature = "simhash")]
mod hamming;
mod indexed;
mod input;
mod manifest;
mod named;
mod outcome;
mod reads;
mod run;
mod sketch;
mod verify;
mod weights;
mod workdir;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ndd_core::SchemeId;
use ndd_scale::{DigestRecord, Edge, ExternalSort, Record, RecordError};

#[cfg(feature = "simhash")]
use crate::SimHashConfig;
use crate::progress::{NoProgress, Progress, Stage};
use crate::{Dedup, Error, ExactPass, MinHashConfig, Plan, Shingles, Verifier};
use input::InputFingerprintFn;
pub use outcome::{OutOfCoreOutcome, StageRun};

/// The default [`OutOfCore::memory_budget`]: 1 GiB.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::DEFAULT_MEMORY_BUDGET, 1 << 30);
/// ```
pub const DEFAULT_MEMORY_BUDGET: u64 = 1 << 30;

/// The smallest [`OutOfCore::memory_budget`] accepted: 1 MiB (smaller budgets would
/// spend their time writing and merging tiny runs).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, OutOfCore, MIN_MEMORY_BUDGET};
/// let dir = std::env::temp_dir().join("ndd-doc-src-mod-61");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let job = OutOfCore::new(&Dedup::new(), &dir)?;
/// assert!(job.memory_budget(MIN_MEMORY_BUDGET - 1).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MIN_MEMORY_BUDGET: u64 = 1 << 20;

const PAIRS: &str = "pairs.bin";
const SCORES: &str = "scores.bin";
const ASSIGNMENTS: &str = "assignments.bin";
const EXACT: &str = "exact.bin";
const STAGES: [(&str, Stage); 6] = [
    ("sketch", Stage::Sketch),
    ("exact", Stage::Exact),
    ("candidates", Stage::Candidates),
    ("weights", Stage::Weights),
    ("verify", Stage::Verify),
    ("group", Stage::Group),
];

/// The index of each stage in [`STAGES`] (and of its fingerprint).
const SKETCH_STAGE: usize = 0;
const EXACT_STAGE: usize = 1;
const CANDIDATES_STAGE: usize = 2;
/// Run for align-weighted only; for the other verifiers neither run nor listed in
/// [`OutOfCoreOutcome::stages`].
const WEIGHTS_STAGE: usize = 3;
const VERIFY_STAGE: usize = 4;
const GROUP_STAGE: usize = 5;

/// [`pair_order`] as one `u128`, for the spill's radix sort.
fn pair_radix(e: &Edge) -> Option<u128> {
    Some(u128::from(e.a) << 64 | u128::from(e.b))
}

fn digest_order(r: &DigestRecord) -> ([u8; 20], u64) {
    (r.digest, r.doc)
}

fn pair_order(e: &Edge) -> (u64, u64) {
    (e.a, e.b)
}

/// Deduplication of a corpus larger than memory, with the MinHash or SimHash method: the
/// same pairs and groups as [`Dedup::run`] with the same settings, under a memory
/// budget, through files in a work directory.
///
/// What memory holds: band keys and candidate pairs up to the budget before they are
/// spilled as sorted runs (half of it each), a chunk of document text up to a quarter
/// of it, 64 KiB per run while merging, and, beyond the budget, the union-find of the
/// documents that have a near-duplicate (about 40 bytes each); for SimHash, the
/// fingerprints of one run of documents agreeing on a block (16 bytes each). What the
/// work directory holds: per document its signature (`8 × num_perm + 30` bytes; with
/// exact Jaccard only the plausibility filter's 8-bit fields, `num_perm + 43`; 8 for a
/// SimHash fingerprint; none with containment, which reads no estimate) and band keys
/// (18 bytes per band; per block of the
/// fingerprint, `h + 1` of them), its text when the verifier reads texts or sets (its
/// bytes and 8 more), and 16 bytes per candidate pair; for the set verifiers, one bit
/// per document (`named.bin`, held in memory by the candidates stage and by
/// verification) and, during verification, the shingle sets of the documents a pair
/// names (8 bytes per distinct shingle, 8 more per document; made in chunks of a 32nd
/// of the budget of text, three chunks held at once); for align-weighted, 16 bytes per distinct
/// word of the corpus (`weights.bin`, and while it is counted 16 per distinct word of
/// each document in sorted runs, half the budget in memory, and the texts' end offsets
/// beside them when they fit in an eighth of it, as verification holds them). Verification holds two
/// blocks of candidates (the one scored and the next, read meanwhile on a thread of
/// its own); for the exact verifiers, with the sets' end offsets held in memory when
/// they fit in an eighth of the budget (about 4 bytes per document), a block holds its
/// documents' signatures and its pairs within a quarter of it, and is handed on in
/// sub-blocks each holding the sets of its pairs past the estimate (and its pairs)
/// within a quarter: the block, the sub-block read and the one scored, three
/// quarters (without the offsets in memory,
/// each block reads them from `sets.idx`, and holds its documents' signatures
/// within an eighth of the budget); for the verifiers that read texts, their texts
/// within a 64th of it, their end offsets held likewise (alignment
/// prepares each text into about five times its size: together within about a
/// fifth), at least one pair whatever its size. Align-weighted's weights are held whole when they
/// fit in an eighth of the budget (16 bytes per word); else 8 bytes per 4,096 words,
/// and each block reads the 64 KiB pages of `weights.bin` that hold its words.
///
/// Each stage marks its end in the work directory (`{stage}.done`, with a fingerprint
/// of the settings and of the input, see [`input_fingerprint`](Self::input_fingerprint)).
/// A later run with the same settings reuses every finished stage and redoes the
/// rest, so a crash or a kill costs the stage it interrupted, not the run; changing a
/// setting redoes the stages it affects.
///
/// Supported: the MinHash method with binary weights, and the SimHash method with
/// 64-bit fingerprints and binary or term-frequency weights; with or without the exact
/// pass; verified by every [`Verifier`]: the method's score (the MinHash estimate,
/// SimHash's `1 − h/64`), exact Jaccard or containment of the shingle sets, token
/// alignment or a user's function of the texts (align-weighted with the document
/// frequencies of the whole corpus, the exact copies left out, which its own stage
/// counts before verification); grouped by connected components with
/// the first-seen document kept. Verification reads candidates in blocks sorted by
/// `(a, b)`, each document's data once per block, and scores a block's pairs on every
/// core under `rayon`, in the same order as on one thread, with the in-memory run's
/// measures (for alignment and user functions, its verification stage over the
/// block's texts). A user's function has no fingerprint: a rerun redoes its
/// verification and grouping rather than reuse them. [`new`](Self::new) refuses other
/// settings, saying why.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document, OutOfCore};
/// let docs = vec![
///     Document::new("a", "the committee approved the budget for the new library building on monday"),
///     Document::new("b", "The committee approved the budget for the new library building on Monday!"),
///     Document::new("c", "a different story about the weather this weekend"),
/// ];
/// let dir = std::env::temp_dir().join("ndd-doc-src-mod-161");
/// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
/// std::fs::create_dir_all(&dir)?;
/// let job = OutOfCore::new(&Dedup::new(), &dir)?.memory_budget(64 << 20)?;
/// let outcome = job.run(docs.into_iter().map(Ok))?;
/// assert_eq!((outcome.documents, outcome.pairs, outcome.groups), (3, 1, 1));
/// let kept: Vec<u64> = outcome.kept_positions()?;
/// assert_eq!(kept, [0, 2]); // "b" is a near-duplicate of "a"
/// // A second run finds every stage finished and redoes none.
/// let again = job.run(std::iter::empty())?;
/// assert!(again.stages.iter().all(|s| s.reused));
/// assert_eq!(again.pairs, 1);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct OutOfCore {
    plan: Plan,
    engine: Engine,
    work_dir: PathBuf,
    budget: u64,
    input: u64,
    /// The input's fingerprint computed when the run needs it
    /// ([`input_fingerprint_with`](OutOfCore::input_fingerprint_with)); `None`:
    /// `input` holds it.
    input_by: Option<InputFingerprintFn>,
    progress: Arc<dyn Progress>,
}

/// The method whose state the stages keep on disk.
#[derive(Clone, Debug)]
enum Engine {
    MinHash(MinHashConfig),
    /// 64-bit fingerprints, binary or term-frequency weights.
    #[cfg(feature = "simhash")]
    SimHash(SimHashConfig),
}

/// The settings one run of the stages works with.
struct Job<'a> {
    dir: &'a Path,
    budget: u64,
    scan: usize,
    threshold: ndd_core::Threshold,
    /// Which candidates verification scores: the plan's, as in memory.
    emit: crate::Emit,
    /// MinHash values per signature (0 for SimHash).
    num_perm: usize,
    /// SimHash's Hamming bound, `None` for MinHash.
    max_hamming: Option<u32>,
    /// The bits per slot `signatures.bin` keeps of each MinHash signature when the
    /// plausibility filter is all that reads it ([`OutOfCore::fields`]); `None`: the
    /// whole signature.
    fields: Option<u32>,
    verifier: &'a Verifier,
    /// The plan's features: the shingle sets' extractor, and what the text verifiers
    /// tokenize.
    features: crate::Features,
    exact: Option<ExactPass>,
    /// Whether the verifier reads shingle sets (exact Jaccard, containment): the
    /// sketch stage keeps the texts in `texts.bin`, the candidates stage marks the
    /// documents its pairs name (`named.bin`), and verification shingles those into
    /// `sets.bin` before its blocks.
    needs_sets: bool,
    /// Whether the verifier reads texts (alignment, a user's function): the sketch
    /// stage keeps them in `texts.bin`.
    needs_texts: bool,
    progress: &'a dyn Progress,
}

impl OutOfCore {
    /// The out-of-core run of `dedup`'s settings, working in `work_dir` (created if
    /// missing; files of an earlier run with the same settings are reused).
    ///
    /// # Errors
    ///
    /// [`ndd_core::Error::InvalidParameter`] (wrapped) for settings the stages do not
    /// support: another method than MinHash or SimHash, learned weights, SimHash
    /// signatures of other than 64 bits or with TF-IDF weights, a representative other
    /// than the first-seen document, DURIAN grouping; or invalid settings
    /// ([`Dedup::validate`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method, OutOfCore, SimHashConfig};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-mod-223");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// assert!(OutOfCore::new(&Dedup::new(), &dir).is_ok());
    /// let simhash = Dedup::new().method(Method::SimHash(SimHashConfig::default()));
    /// assert!(OutOfCore::new(&simhash, &dir).is_ok());
    /// let align = Dedup::new().verifier("align".parse()?); // keeps the texts
    /// assert!(OutOfCore::new(&align, &dir).is_ok());
    /// assert!(OutOfCore::new(&Dedup::new().method(Method::ExactJaccard), &dir).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(dedup: &Dedup, work_dir: impl Into<PathBuf>) -> Result<Self, Error> {
        Self::from_plan(dedup.plan()?, work_dir)
    }

    /// [`new`](Self::new) from a plan already made ([`Dedup::plan`]): a program that
    /// checked its settings before reading its input runs the plan it holds, and the
    /// MinHash banding is not searched again.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), parameters aside (the plan checked them).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-outofcore-from-plan");
    /// let plan = Dedup::new().threshold(0.8).plan()?; // every setting checked here
    /// assert!(OutOfCore::from_plan(plan, &dir).is_ok()); // nothing written yet
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn from_plan(plan: Plan, work_dir: impl Into<PathBuf>) -> Result<Self, Error> {
        const ENGINE: &str = "the out-of-core engine";
        // Every verifier: the set verifiers read the shingle sets verification makes
        // from the texts the sketch stage keeps, the alignment and custom verifiers
        // those texts.
        // align-weighted also reads the weights stage's document frequencies.
        const VERIFIERS: [&str; 9] = [
            "method",
            "jaccard",
            "containment",
            "align",
            "align-dice",
            "align-containment",
            "align-max",
            "align-weighted",
            "custom",
        ];
        const WHY: &str = "the measures of its files";
        let engine = match &plan.method {
            #[cfg(feature = "simhash")]
            crate::Method::SimHash(config) => {
                plan.engine_runs(ENGINE, &VERIFIERS, WHY)?;
                simhash_supported(config)?;
                Engine::SimHash(config.clone())
            }
            _ => Engine::MinHash(plan.minhash_engine(ENGINE, &VERIFIERS, WHY)?.clone()),
        };
        Ok(OutOfCore {
            plan,
            engine,
            work_dir: work_dir.into(),
            budget: DEFAULT_MEMORY_BUDGET,
            input: 0,
            input_by: None,
            progress: Arc::new(NoProgress),
        })
    }

    /// Bytes of memory the stages' buffers may use ([`DEFAULT_MEMORY_BUDGET`]): more
    /// means fewer, longer runs (fewer files, faster merges), not different results.
    ///
    /// # Errors
    ///
    /// [`ndd_core::Error::InvalidParameter`] (wrapped) below [`MIN_MEMORY_BUDGET`].
    ///
    /// # Example
    ///
    /// ```
    /// let job = near_dup::pipeline::OutOfCore::new(&near_dup::pipeline::Dedup::new(), "work")?;
    /// let job = job.memory_budget(256 << 20)?; // 256 MiB
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memory_budget(mut self, bytes: u64) -> Result<Self, Error> {
        if bytes < MIN_MEMORY_BUDGET {
            return Err(Error::Core(ndd_core::Error::invalid_parameter(
                "memory_budget",
                format!("must be at least {MIN_MEMORY_BUDGET} bytes (1 MiB), got {bytes}"),
            )));
        }
        self.budget = bytes;
        Ok(self)
    }

    /// A fingerprint of the input (`ndd dedup --work-dir` passes
    /// [`input_content_fingerprint`](crate::corpus::input_content_fingerprint): its
    /// paths, sizes, times and bytes): finished stages are reused only when it
    /// matches, so a work directory left by another input is not taken for this
    /// one's. Default 0: the caller vouches that the input is the same.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-mod-281");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let first = OutOfCore::new(&Dedup::new(), &dir)?.input_fingerprint(1);
    /// first.run([Ok(Document::new("a", "one text"))])?;
    /// let second = OutOfCore::new(&Dedup::new(), &dir)?.input_fingerprint(2);
    /// let out = second.run([Ok(Document::new("a", "one text")), Ok(Document::new("b", "two"))])?;
    /// assert!(!out.stages[0].reused);
    /// assert_eq!(out.documents, 2);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn input_fingerprint(mut self, fingerprint: u64) -> Self {
        self.input = fingerprint;
        self.input_by = None;
        self
    }

    /// [`input_fingerprint`](Self::input_fingerprint) computed by `fingerprint` when a
    /// run needs it: first, when the work directory holds a finished sketch stage
    /// (whether it is reused depends on the value); otherwise on a thread of its own
    /// beside the sketch stage, since nothing can be reused and the value only goes
    /// into the stages' markers, which are written once it is known (a run
    /// interrupted before leaves no marker). `ndd dedup --work-dir` passes a reading
    /// of the whole input
    /// ([`input_content_fingerprint`](crate::corpus::input_content_fingerprint)) so,
    /// and its stages start at once. An `Err` of `fingerprint` stops the run with it,
    /// no marker written.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Document, OutOfCore};
    /// let dir = std::env::temp_dir().join("ndd-doc-src-mod-input-with");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let docs = || [Ok(Document::new("a", "one text")), Ok(Document::new("b", "two"))];
    /// let job = |input: u64| OutOfCore::new(&Dedup::new(), &dir).map(|j| j.input_fingerprint_with(move || Ok(input)));
    /// let first = job(1)?.run(docs())?; // computed beside the sketch stage
    /// assert!(!first.stages[0].reused);
    /// assert!(job(1)?.run(docs())?.stages.iter().all(|s| s.reused)); // the same input
    /// assert!(!job(2)?.run(docs())?.stages[0].reused); // another input: redone
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn input_fingerprint_with(
        mut self,
        fingerprint: impl Fn() -> Result<u64, Error> + Send + Sync + 'static,
    ) -> Self {
        self.input_by = Some(InputFingerprintFn(Arc::new(fingerprint)));
        self
    }

    /// Reports the stages' progress (documents sketched, band keys merged, pairs
    /// checked).
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::Arc;
    /// let dir = std::env::temp_dir().join("ndd-doc-src-mod-303");
    /// # let _ = std::fs::remove_dir_all(&dir); // a previous run's leftovers
    /// std::fs::create_dir_all(&dir)?;
    /// let job = near_dup::pipeline::OutOfCore::new(&near_dup::pipeline::Dedup::new(), &dir)?
    ///     .progress(Arc::new(near_dup::pipeline::NoProgress));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn progress(mut self, progress: Arc<dyn Progress>) -> Self {
        self.progress = progress;
        self
    }

    /// The work directory.
    ///
    /// # Example
    ///
    /// ```
    /// let job = near_dup::pipeline::OutOfCore::new(&near_dup::pipeline::Dedup::new(), "work")?;
    /// assert_eq!(job.work_dir(), std::path::Path::new("work"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn work_dir(&self) -> &Path {
        &self.work_dir
    }

    /// The fingerprint of what each stage's output depends on, by stage.
    /// (For MinHash, `params` are its bands and rows.)
    fn fingerprints(&self, input: u64, params: Option<ndd_lsh::LshParams>) -> [u64; 6] {
        self.fingerprints_of_layout(input, params, self.kept_layout())
    }

    /// [`fingerprints`](Self::fingerprints) with `layout` for what the sketch stage
    /// keeps ([`kept_layout`](Self::kept_layout); the tests give the layout before).
    fn fingerprints_of_layout(
        &self,
        input: u64,
        params: Option<ndd_lsh::LshParams>,
        layout: u64,
    ) -> [u64; 6] {
        let shingles = match self.plan.features.shingles() {
            Shingles::Words(k) => k as u64,
            Shingles::Chars(k) => (1 << 32) | k as u64,
        };
        // The method and its parameters first (MinHash's as before SimHash came, so
        // that its work folders stay valid), then what every method shares.
        let (sketch, scan) = match &self.engine {
            Engine::MinHash(config) => (
                SchemeId::new("ndd-pipeline/out-of-core/sketch")
                    .with(u64::from(ndd_scale::FORMAT_VERSION))
                    .with(input)
                    .with(config.num_perm as u64)
                    .with(config.seed)
                    .with(params.map_or(0, |p| p.bands() as u64))
                    .with(params.map_or(0, |p| p.rows() as u64)),
                // The plan's resolved scan (before it capped `None`, u64::MAX: such
                // folders are redone with the cap).
                self.plan.bucket_scan().map_or(u64::MAX, |s| s as u64),
            ),
            #[cfg(feature = "simhash")]
            Engine::SimHash(config) => (
                SchemeId::new("ndd-pipeline/out-of-core/sketch/simhash")
                    .with(u64::from(ndd_scale::FORMAT_VERSION))
                    .with(input)
                    .with(config.bits as u64)
                    .with(config.max_hamming() as u64)
                    .with(hamming::weighting(config).map_or(u64::MAX, |w| w.1)),
                0,
            ),
        };
        // "no signatures": a containment run does not write them (a work folder of a
        // run that did is reused; one without them is not taken for a run that reads
        // them).
        let simhash = !matches!(self.engine, Engine::MinHash(_));
        let sketch = match reads_signatures(simhash, self.plan.emit(), &self.plan.verifier) {
            true => sketch,
            false => sketch.with_str("no signatures"),
        };
        // b-bit fields in place of the signatures: a folder of full signatures is
        // redone, not read as fields (nor the other way round).
        let sketch = match self.fields() {
            Some(bits) => sketch.with_str("fields").with(u64::from(bits)),
            None => sketch,
        };
        let sketch = sketch
            .with(shingles)
            .with(u64::from(self.plan.features.normalizes_nfkc()))
            // What the sketch stage keeps for verification: bit 1, the texts; bit 2,
            // the texts of the set verifiers, whose sets verification makes from the
            // documents candidates name (`named.bin`). Bit 0 (the sets, written by the
            // sketch stage) was that layout before: such folders are redone.
            .with(layout)
            .with(match self.plan.exact {
                None => 0,
                Some(p) => 1 | u64::from(p.folds_case()) << 1 | u64::from(p.normalizes_nfkc()) << 2,
            })
            .finish();
        let exact = SchemeId::new("ndd-pipeline/out-of-core/exact")
            .with_scheme(sketch)
            .finish();
        let candidates = SchemeId::new("ndd-pipeline/out-of-core/candidates")
            .with_scheme(exact)
            .with(scan)
            .finish();
        // The document frequencies of the texts the sketch stage kept, the exact
        // copies left out.
        let weights = SchemeId::new("ndd-pipeline/out-of-core/weights")
            .with(u64::from(ndd_scale::FORMAT_VERSION))
            .with_scheme(exact)
            .finish();
        // "/2": scores became a record file (kind 5) beside the pairs; "/3": the
        // marker counts the verified candidates. A verify stage finished before that
        // is redone, not read.
        let verify = SchemeId::new("ndd-pipeline/out-of-core/verify/3")
            .with_scheme(candidates)
            .with_f64(self.plan.threshold.get())
            .with_str(self.plan.verifier.name())
            .finish();
        // "/2": exact copies are counted as `Outcome::fate` does (issue 30); a group
        // stage finished before that is redone.
        let group = SchemeId::new("ndd-pipeline/out-of-core/group/2")
            .with_scheme(verify)
            .finish();
        [sketch, exact, candidates, weights, verify, group].map(SchemeId::as_u64)
    }

    /// The bits per slot the sketch stage keeps of each MinHash signature: the
    /// width of the plan's [`EstimateFilter`](crate::EstimateFilter) when it filters
    /// on b-bit fields (before exact Jaccard), all that reads the signatures then, so
    /// that out of core keeps what the in-memory stream keeps; `None` (the whole
    /// signature) otherwise, and for SimHash.
    fn fields(&self) -> Option<u32> {
        match &self.engine {
            Engine::MinHash(config) => self.plan.estimate_filter(config.num_perm).field_bits(),
            #[cfg(feature = "simhash")]
            Engine::SimHash(_) => None,
        }
    }

    fn needs_sets(&self) -> bool {
        matches!(
            self.plan.verifier,
            Verifier::ExactJaccard | Verifier::Containment
        )
    }

    /// What the sketch stage keeps for verification, as its fingerprint has it
    /// ([`fingerprints`](Self::fingerprints)): 2 for the texts (the verifiers that read
    /// them), 6 for the texts of the set verifiers (their sets made by verification
    /// from the named documents), 0 for neither. 1 was the sets of the set verifiers,
    /// written by the sketch stage: a folder of that layout is redone, not misread.
    fn kept_layout(&self) -> u64 {
        u64::from(self.needs_sets() || self.needs_texts()) << 1 | u64::from(self.needs_sets()) << 2
    }

    fn needs_texts(&self) -> bool {
        matches!(
            self.plan.verifier,
            Verifier::Align(_) | Verifier::AlignWeighted | Verifier::Custom(_)
        )
    }
}

/// Whether a run's verification reads its signatures ([`Job::reads_signatures`]).
fn reads_signatures(simhash: bool, emit: crate::Emit, verifier: &Verifier) -> bool {
    simhash
        || matches!(verifier, Verifier::MethodScore)
        || !matches!(emit, crate::Emit::AllCandidates)
}

/// `Ok` for the SimHash settings the stages run: 64-bit fingerprints (searched with
/// permuted tables, exactly, as in memory), binary or term-frequency weights.
#[cfg(feature = "simhash")]
fn simhash_supported(config: &SimHashConfig) -> Result<(), Error> {
    let unsupported = |m: &str| {
        Error::Core(ndd_core::Error::invalid_parameter(
            "dedup",
            format!("the out-of-core engine {m}"),
        ))
    };
    if config.bits != 64 {
        return Err(unsupported(&format!(
            "searches 64-bit SimHash fingerprints only (exactly, with permuted tables), not \
             {} bits: longer signatures are searched by bit-sampling LSH, not yet out of core",
            config.bits
        )));
    }
    if hamming::weighting(config).is_none() {
        return Err(unsupported(
            "weighs SimHash features by binary or term-frequency weights only: TF-IDF and \
             learned weights need the whole collection's statistics first",
        ));
    }
    Ok(())
}

/// The size of the file at `path`, for a stage's `bytes_written`.
pub(super) fn file_size(path: &Path) -> Result<u64, Error> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Error::io(path, e))
}

impl Job<'_> {
    /// Whether verification reads the signatures: SimHash's fingerprints always, the
    /// MinHash estimate unless every candidate goes on to a measure the estimate does
    /// not bound (containment): then `signatures.bin` is not written.
    fn reads_signatures(&self) -> bool {
        reads_signatures(self.max_hamming.is_some(), self.emit, self.verifier)
    }

    /// An external sort in the work folder, its runs named after `prefix`, holding
    /// `bytes` of records in memory (at least one record): two buffers of half of
    /// them, one filling while the other is sorted and written on a thread of its own
    /// ([`ExternalSort::overlapped`]), so that a spill does not stop the stage.
    fn sort<T: Record + 'static, K: Ord + 'static>(
        &self,
        prefix: &str,
        key: fn(&T) -> K,
        bytes: u64,
        fingerprint: u64,
    ) -> Result<ExternalSort<T, K>, Error> {
        let records = (bytes / size_of::<T>() as u64).max(1);
        let records = usize::try_from(records).unwrap_or(usize::MAX);
        ExternalSort::new(self.dir, prefix, key, records, fingerprint)
            .map(ExternalSort::overlapped)
            .map_err(|e| damaged(self.dir, e))
    }
}

/// What a record error of the work file `file` becomes: an I/O error naming it, or
/// corrupt data naming it and saying what is wrong (a checksum mismatch, a file cut
/// short). `file` is the work folder only where the error comes from one of several
/// files (the runs of a sort); a refusal named the folder for every file.
pub(super) fn damaged(file: &Path, e: RecordError) -> Error {
    match e {
        RecordError::Io(source) => Error::io(file, source),
        other => {
            let what = if file.is_dir() {
                "a work file in this folder is damaged"
            } else {
                "this work file is damaged"
            };
            Error::Core(ndd_core::Error::corrupt_data(format!(
                "{}: {what} ({other}); remove the work directory to start over",
                file.display()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::manifest::Marker;
    use super::*;
    use crate::Document;

    /// Near-duplicate letters (a word changed), several groups, and unrelated ones.
    fn docs() -> Vec<Document> {
        (0..120)
            .map(|i| {
                let g = i / 4;
                let words: Vec<String> = (0..40)
                    .map(|w| match w == 7 + i % 4 {
                        true => format!("changed{i}"),
                        false => format!("g{g}w{w}"),
                    })
                    .collect();
                Document::new(format!("{i}"), words.join(" "))
            })
            .collect()
    }

    /// A work folder of the layout before (the sketch stage kept the set verifiers'
    /// sets, `sets.bin`, not their texts; no `named.bin`) is redone, not misread: its
    /// markers re-saved under the fingerprints of that layout, the folder is taken for
    /// none of this run's stages. The control: the same markers re-saved under this
    /// layout's fingerprints are all reused.
    #[test]
    fn a_work_folder_of_the_set_layout_before_is_redone() {
        let docs = docs();
        for verifier in [Verifier::ExactJaccard, Verifier::Containment] {
            let dedup = Dedup::new().threshold(0.8).verifier(verifier.clone());
            let memory = dedup.run(&docs).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let job = OutOfCore::new(&dedup, dir.path())
                .unwrap()
                .input_fingerprint(9);
            let first = job.run(docs.iter().cloned().map(Ok)).unwrap();
            assert_eq!(first.pairs, memory.pairs.len() as u64);
            assert!(first.pairs > 20, "{}", first.pairs);
            let params = Some(job.plan.minhash_banding().unwrap());
            // Every marker saved under layout `from`'s fingerprints re-saved under
            // layout `to`'s (the weights stage, not run, has none).
            let (now, before) = (job.kept_layout(), 1);
            assert_eq!(now, 6, "{}", verifier.name());
            let resave = |from: u64, to: u64| {
                let from = job.fingerprints_of_layout(9, params, from);
                let to = job.fingerprints_of_layout(9, params, to);
                let mut saved = 0;
                for (i, (name, _)) in STAGES.iter().enumerate() {
                    if let Some(m) = Marker::load(dir.path(), name, from[i]) {
                        m.save(dir.path(), name, to[i]).unwrap();
                        saved += 1;
                    }
                }
                assert_eq!(saved, 5);
            };
            // The layout before: 1 (the sets kept by the sketch stage).
            resave(now, before);
            let again = job.run(docs.iter().cloned().map(Ok)).unwrap();
            assert!(again.stages.iter().all(|s| !s.reused), "{:?}", again.stages);
            let kept: Vec<u64> = memory.kept().into_iter().map(|k| k as u64).collect();
            assert_eq!(again.kept_positions().unwrap(), kept);
            assert_eq!(again.pairs, first.pairs);
            // The control: re-saved there and back, every stage reused.
            resave(now, before);
            resave(before, now);
            let reused = job.run(std::iter::empty()).unwrap();
            assert!(
                reused.stages.iter().all(|s| s.reused),
                "{:?}",
                reused.stages
            );
        }
    }
}

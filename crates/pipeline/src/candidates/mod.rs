//! Stage 2: candidate generation, one implementation per [`Method`].

use std::time::{Duration, Instant};

use ndd_core::{Error, PairSink, ScoredPair, Threshold};

use crate::Features;
use crate::progress::{NoProgress, Progress, Stage};

mod exact_jaccard;
mod method;
mod source;

pub use method::Method;
pub use source::CandidateSource;
pub(crate) use source::ExactJaccardSource;
#[cfg(feature = "minhash")]
pub(crate) mod estimate;
#[cfg(feature = "imatch")]
mod imatch;
#[cfg(feature = "minhash")]
pub(crate) mod minhash;
#[cfg(feature = "ncd")]
mod signcd;
#[cfg(feature = "simhash")]
mod simhash;

/// Which pairs a candidate stage passes on.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::Emit::default(), near_dup::pipeline::Emit::Accepted);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Emit {
    /// Only the pairs the method itself accepts (estimate ≥ T, within the Hamming
    /// bound, a shared signature): the method is its own verifier.
    #[default]
    Accepted,
    /// Every candidate the method's index proposes, scored by the method's estimate,
    /// for a later verifier to decide (MinHash and bit-sampled SimHash propose more
    /// than they accept; the exact searches propose only what they accept).
    AllCandidates,
    /// The candidates whose similarity may reach `T`: for MinHash, those whose
    /// estimate is at least `T − 4σ`, where `σ = sqrt(J(1 − J)/k)` is the estimate's
    /// standard error at the least favourable `J ≥ T`. A pair of true similarity `J ≥
    /// T` is dropped here with probability below 3.2·10⁻⁵ (the normal tail at 4σ);
    /// most band collisions of dissimilar documents are. What an exact Jaccard
    /// verifier needs to see. Other methods pass every candidate, as with
    /// [`AllCandidates`](Emit::AllCandidates).
    Plausible,
}

/// How many standard errors below `T` a MinHash estimate may fall before
/// [`Emit::Plausible`] drops the candidate.
///
/// # Example
///
/// ```
/// // The normal tail beyond 4 standard errors: about 3.2e-5.
/// assert_eq!(near_dup::pipeline::PLAUSIBLE_SIGMAS, 4.0);
/// ```
pub const PLAUSIBLE_SIGMAS: f64 = 4.0;

/// What a candidate stage did, for the [`Report`](crate::Report).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{CandidateGenerator, Method};
/// let mut pairs = Vec::new();
/// let r = CandidateGenerator::new(Method::ExactJaccard, 0.8).run(&["a b c d", "a b c d"], &mut pairs)?;
/// assert_eq!((r.candidates, r.emitted), (1, 1));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CandidateReport {
    /// The method and its parameters in words (bands and rows, bits, lexicon sizes).
    pub description: String,
    /// Candidate pairs the index proposed (before the method's own check).
    pub candidates: u64,
    /// Pairs passed on to the sink.
    pub emitted: u64,
    /// Time spent building signatures.
    pub sketch_time: Duration,
    /// Time spent in the index or search.
    pub search_time: Duration,
    /// Bytes of index (and kept signatures) per document, when the method has an
    /// index.
    pub index_bytes_per_document: Option<f64>,
    /// Bytes of signature (or exact feature set) per document held while the method
    /// runs: `8 × num_perm` for MinHash, `bits / 8` for SimHash, 21 per I-Match
    /// coordinate, `8 ×` the mean shingle count for the exact join; `None` for SigNCD
    /// (its signatures are strings of varying length).
    pub signature_bytes_per_document: Option<f64>,
    /// How often the LSH bucket bound was hit (MinHash); `None` for a method that
    /// reads no bounded bucket.
    pub bucket_scan: Option<crate::BucketScan>,
}

/// Finds candidate pairs among documents with one [`Method`]: the stage to call on
/// its own when you want pairs and will group or verify them yourself.
///
/// Pairs are [`ScoredPair`]s of indices into the texts given, with `a < b`, each at
/// most once, scored by the method's own measure (higher is more similar), in an
/// order that depends only on the input (not on the thread count).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{CandidateGenerator, Method};
/// let texts = [
///     "the quick brown fox jumps over the lazy dog near the river bank today",
///     "the quick brown fox jumps over the lazy dog near the river bank today!",
///     "an unrelated sentence about compression distances and signatures",
/// ];
/// let mut pairs = Vec::new();
/// let report = CandidateGenerator::new(Method::default(), 0.8).run(&texts, &mut pairs)?;
/// assert_eq!(pairs.len(), 1);
/// assert_eq!((pairs[0].a, pairs[0].b), (0, 1));
/// assert!(report.description.contains("MinHash"));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CandidateGenerator {
    method: Method,
    features: Features,
    threshold: f64,
    emit: Emit,
}

impl CandidateGenerator {
    /// A generator for `method` at the similarity threshold `T` in `(0, 1]`
    /// (validated by [`run`](Self::run)), over word 3-grams; as
    /// [`Verification::new`](crate::Verification::new) takes its verifier and threshold.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateGenerator, Method};
    /// let g = CandidateGenerator::new(Method::ExactJaccard, 0.8);
    /// assert_eq!(g.method().name(), "exact");
    /// let too_high = CandidateGenerator::new(Method::ExactJaccard, 1.5);
    /// assert!(too_high.run(&["a"], &mut Vec::new()).is_err());
    /// ```
    #[must_use]
    pub fn new(method: Method, threshold: f64) -> Self {
        CandidateGenerator {
            method,
            features: Features::default(),
            threshold,
            emit: Emit::default(),
        }
    }

    /// The features the candidate stream sketches, with their normalization, as one
    /// value (word 3-grams without NFKC by default; SigNCD and I-Match keep their own
    /// features). Take it from a [`Plan`](crate::Plan) to drive the stage as
    /// [`Dedup`](crate::Dedup) does.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateGenerator, Features, Method, Shingles};
    /// let g = CandidateGenerator::new(Method::ExactJaccard, 1.0);
    /// let words = Features::new(Shingles::Words(1));
    /// let (mut plain, mut folded, mut bags) = (Vec::new(), Vec::new(), Vec::new());
    /// g.clone().run(&["ＡＢＣ ｄｅｆ ｇｈｉ", "ABC def ghi"], &mut plain)?;
    /// g.clone().features(words.nfkc(true)).run(&["ＡＢＣ ｄｅｆ ｇｈｉ", "ABC def ghi"], &mut folded)?;
    /// g.features(words).run(&["b a", "a b"], &mut bags)?; // same word set
    /// assert_eq!((plain.len(), folded.len(), bags.len()), (0, 1, 1));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn features(mut self, features: Features) -> Self {
        self.features = features;
        self
    }

    /// Which pairs to pass on.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateGenerator, Emit, Method};
    /// let texts = ["a b c d e f g h", "a b c d e f g x"];
    /// let (mut accepted, mut all) = (Vec::new(), Vec::new());
    /// let g = CandidateGenerator::new(Method::default(), 0.99);
    /// g.clone().run(&texts, &mut accepted)?;
    /// g.emit(Emit::AllCandidates).run(&texts, &mut all)?;
    /// assert!(accepted.len() <= all.len());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn emit(mut self, emit: Emit) -> Self {
        self.emit = emit;
        self
    }

    /// The method.
    ///
    /// # Example
    ///
    /// ```
    /// let g = near_dup::pipeline::CandidateGenerator::new(near_dup::pipeline::Method::default(), 0.8);
    /// assert_eq!(g.method().name(), "minhash");
    /// ```
    #[must_use]
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// Runs the stage over `texts`, pushing pairs into `sink`.
    ///
    /// # Errors
    ///
    /// [`Error::Core`](crate::Error::Core) for invalid parameters (a threshold outside `(0, 1]`, a
    /// shingle length of 0, bands × rows larger than the sketch, …) or more than
    /// 2^32 documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateGenerator, Method};
    /// let mut pairs = Vec::new();
    /// CandidateGenerator::new(Method::ExactJaccard, 0.8).run(&["x y z"; 3], &mut pairs)?;
    /// assert_eq!(pairs.len(), 3); // every pair of three identical texts
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn run<D: AsRef<str> + Sync>(
        &self,
        texts: &[D],
        sink: &mut dyn PairSink,
    ) -> Result<CandidateReport, crate::Error> {
        self.run_with_progress(texts, &NoProgress, sink)
    }

    /// [`run`](Self::run) with progress reported to `progress`.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateGenerator, Method, NoProgress};
    /// let mut pairs = Vec::new();
    /// let g = CandidateGenerator::new(Method::ExactJaccard, 0.8);
    /// g.run_with_progress(&["x y", "x y"], &NoProgress, &mut pairs)?;
    /// assert_eq!(pairs.len(), 1);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn run_with_progress<D: AsRef<str> + Sync>(
        &self,
        texts: &[D],
        progress: &dyn Progress,
        sink: &mut dyn PairSink,
    ) -> Result<CandidateReport, crate::Error> {
        let (threshold, banding) = self.checked()?;
        generate(
            &self.method,
            &Ctx {
                threshold,
                banding,
                emit: self.emit,
                features: self.features,
                progress,
            },
            texts,
            sink,
        )
    }

    /// The threshold, checked with every other parameter, and the banding resolved.
    fn checked(&self) -> Result<(Threshold, Option<ndd_lsh::LshParams>), crate::Error> {
        let threshold = Threshold::new(self.threshold)?;
        let banding = validate_method(&self.method, self.features, threshold)?;
        Ok((threshold, banding))
    }
}

/// The candidate stage of every engine: `method` over `texts` with checked
/// parameters, pairs into `sink`.
pub(crate) fn generate<D: AsRef<str> + Sync>(
    method: &Method,
    ctx: &Ctx<'_>,
    texts: &[D],
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, crate::Error> {
    if u32::try_from(texts.len()).is_err() {
        return Err(Error::invalid_input("more than 2^32 documents in one run").into());
    }
    if texts.len() < 2 {
        // No pair to find (and collection statistics need two documents).
        return Ok(CandidateReport {
            description: format!("{} (fewer than two documents)", method.name()),
            ..CandidateReport::default()
        });
    }
    let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
    let mut counted = Counted { sink, n: 0 };
    // Every method's parameters were checked when the plan (or the generator's
    // settings) were; the sources do not check them again.
    let mut report = method.source().run(&texts, ctx, &mut counted)?;
    report.emitted = counted.n;
    Ok(report)
}

/// Checks `method`'s parameters for `features` and `threshold`; returns the LSH
/// banding the check resolved ([`CandidateSource::validate_banding`]: MinHash's, as
/// the method or a custom source; `None` for the others).
pub(crate) fn validate_method(
    method: &Method,
    features: Features,
    threshold: Threshold,
) -> Result<Option<ndd_lsh::LshParams>, crate::Error> {
    features.validate()?;
    method.source().validate_banding(features, threshold)
}

impl CandidateGenerator {
    /// Checks every parameter without running (also done by [`run`](Self::run), even
    /// on fewer than two documents).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateGenerator, Method};
    /// assert!(CandidateGenerator::new(Method::default(), 0.0).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), crate::Error> {
        self.checked().map(drop)
    }
}

/// What a [`CandidateSource`] is run with: the plan's checked threshold and features,
/// which pairs to pass on, and where progress goes.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Emit, Features, NoProgress, SourceContext, Threshold};
/// let ctx = SourceContext::new(Threshold::new(0.9)?, Features::default(), Emit::Plausible, &NoProgress);
/// assert_eq!((ctx.threshold().get(), ctx.emit()), (0.9, Emit::Plausible));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug)]
pub struct SourceContext<'a> {
    pub(crate) threshold: Threshold,
    /// The LSH banding the plan resolved for a banded source (`None` from
    /// [`SourceContext::new`]: the MinHash source then resolves it itself).
    #[cfg_attr(not(feature = "minhash"), allow(dead_code))]
    pub(crate) banding: Option<ndd_lsh::LshParams>,
    pub(crate) emit: Emit,
    pub(crate) features: Features,
    pub(crate) progress: &'a dyn Progress,
}

/// The context under the short name the methods' files use.
pub(crate) use SourceContext as Ctx;

impl Ctx<'_> {
    /// Times `f` as `stage`, with start/finish reported.
    pub(crate) fn stage<R>(
        &self,
        stage: Stage,
        total: Option<u64>,
        f: impl FnOnce() -> Result<R, Error>,
    ) -> Result<(R, Duration), Error> {
        self.progress.start(stage, total);
        let t = Instant::now();
        let r = f()?;
        let took = t.elapsed();
        self.progress.finish(stage);
        Ok((r, took))
    }
}

/// Counts what goes into the caller's sink.
pub(crate) struct Counted<'a> {
    sink: &'a mut dyn PairSink,
    n: u64,
}

impl PairSink for Counted<'_> {
    fn push_pair(&mut self, pair: ScoredPair) {
        self.n += 1;
        self.sink.push_pair(pair);
    }
}

#[cfg_attr(
    not(any(feature = "minhash", feature = "simhash", feature = "imatch")),
    allow(dead_code)
)]
/// Document `i` as an index key (the caller checked there are fewer than 2^32).
#[inline]
pub(crate) fn key(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Calls `f` on consecutive chunks of `items` of at most [`CHUNK`](crate::progress::CHUNK)
/// and reports each as progress of `stage`.
// MinHash calls it only without `rayon` (with it, sketching overlaps the search).
#[cfg_attr(
    not(any(
        all(feature = "minhash", not(feature = "rayon")),
        feature = "simhash",
        feature = "imatch"
    )),
    allow(dead_code)
)]
pub(crate) fn in_chunks<T, R>(
    items: &[T],
    stage: Stage,
    progress: &dyn Progress,
    mut f: impl FnMut(&[T]) -> Vec<R>,
) -> Vec<R> {
    let mut out = Vec::with_capacity(items.len());
    for chunk in items.chunks(crate::progress::CHUNK) {
        out.extend(f(chunk));
        progress.advance(stage, chunk.len() as u64);
    }
    out
}

/// Drops `value` on rayon's pool (at once without the `rayon` feature): the pages of a
/// large index or of the signatures given back to the system by a pool thread while the
/// calling thread goes on to verification (on the calling thread, unmapping them and
/// freeing each signature was serial work between the search and verification, issue
/// 31's timeline).
#[cfg_attr(not(any(feature = "minhash", feature = "simhash")), allow(dead_code))]
pub(crate) fn drop_on_pool<T: Send + 'static>(value: T) {
    #[cfg(feature = "rayon")]
    rayon::spawn(move || drop(value));
    #[cfg(not(feature = "rayon"))]
    drop(value);
}

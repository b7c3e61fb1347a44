//! Stage 3: verification of candidate pairs with a measure and a threshold.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ndd_align::{Aligner, CorpusWeights, Prepared, TokenOptions, TokenWeights, Tokens};
use ndd_core::{
    Error, ScoredPair, Threshold, containment, containment_at_least, jaccard, jaccard_at_least,
};

use crate::Features;
use crate::progress::{NoProgress, Progress, Stage};

pub use ndd_align::Measure as AlignMeasure;

/// A user's measure: the similarity of two documents' texts, higher is more
/// similar (a non-finite value rejects the pair).
///
/// # Example
///
/// ```
/// let same_length: near_dup::pipeline::PairScorer =
///     std::sync::Arc::new(|a: &str, b: &str| if a.len() == b.len() { 1.0 } else { 0.0 });
/// assert_eq!(same_length("ab", "cd"), 1.0);
/// ```
pub type PairScorer = Arc<dyn Fn(&str, &str) -> f64 + Send + Sync>;

/// How candidate pairs are checked.
///
/// When to use which:
/// * [`MethodScore`](Verifier::MethodScore) (default): the method decides (the
///   MinHash estimate ≥ T, the Hamming bound, a shared I-Match signature, SigNCD ≤
///   1 − T). Nothing extra is computed or held.
/// * [`ExactJaccard`](Verifier::ExactJaccard): the exact Jaccard coefficient of the
///   two shingle sets ≥ T. Removes the estimate's noise (±0.035 at 128 MinHash
///   values) at the cost of shingling each document in a candidate pair again.
/// * [`Containment`](Verifier::Containment): `|A ∩ B| / min(|A|, |B|)` ≥ T: one
///   document contained in the other (a form letter inside a longer comment).
/// * [`Align`](Verifier::Align): the two documents as word sequences, scored by
///   a measure of their longest common subsequence ([`AlignMeasure`]; the
///   recommended [`Combined`](AlignMeasure::Combined) is the mean of LCS
///   containment and word 3-gram Jaccard) ≥ T. The only verifier that sees word
///   order: shuffled text scores low. On real labeled sets (Debian descriptions by
///   source package, DEP-5 license paragraphs by license) the combined measure is
///   within +0.008 to +0.015 Max F1 of word-set Jaccard on the same candidates, too
///   small a margin to claim it ranks pairs better (docs/decisions.md, "Verification
///   measures on real labels"). Costs
///   O(|a|·|b|/64) per pair, stopping early once T is out of reach (`ndd-align`),
///   and sees every candidate (no estimate pre-filter).
/// * [`AlignWeighted`](Verifier::AlignWeighted) (recommended to rank pairs): LCS
///   Dice over words weighted by their rarity in the documents verified (`1/sqrt(df)`)
///   and numbers 16 times more ([`CorpusWeights`]) ≥ T. On the same real sets it beat
///   word-set Jaccard by +0.042 and +0.038 Max F1 (held out +0.042 and +0.063) and
///   matched it on a generated set (docs/decisions.md, "A measure that beats word-set
///   Jaccard on both real sets"). Costs one more tokenizing pass over every document
///   and a table of the distinct words (about 40 bytes each) while verifying, then
///   O(n'·m') per pair for the n' and m' tokens both sides share, stopping early
///   once T is out of reach.
/// * [`Custom`](Verifier::Custom): any function of the two texts.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use near_dup::pipeline::Verifier;
/// let by_length = Verifier::Custom(Arc::new(|a: &str, b: &str| {
///     a.len().min(b.len()) as f64 / a.len().max(b.len()).max(1) as f64
/// }));
/// assert_eq!(by_length.name(), "custom");
/// ```
#[derive(Clone, Default)]
pub enum Verifier {
    /// Keep what the method accepted, with its score.
    #[default]
    MethodScore,
    /// Exact Jaccard of the shingle sets.
    ExactJaccard,
    /// Exact containment of the smaller shingle set in the larger.
    Containment,
    /// Token alignment: a measure of the longest common subsequence of the two
    /// documents' words.
    Align(AlignMeasure),
    /// Token alignment over weighted words: LCS Dice where a word weighs
    /// `1/sqrt(df)`, `df` the number of the corpus's documents it occurs in, and a
    /// number 16 times more (the heaviest common subsequence,
    /// [`Aligner::weighted_dice`], over [`CorpusWeights`]). The document frequencies
    /// are counted once over every document the stage is given.
    AlignWeighted,
    /// A user function.
    Custom(PairScorer),
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Verifier {
    /// `method`, `jaccard`, `containment`, `align` (the combined measure),
    /// `align-dice`, `align-containment`, `align-max`, `align-weighted` or `custom`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Verifier::ExactJaccard.name(), "jaccard");
    /// ```
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Verifier::MethodScore => "method",
            Verifier::ExactJaccard => "jaccard",
            Verifier::Containment => "containment",
            Verifier::Align(AlignMeasure::Combined) => "align",
            Verifier::Align(AlignMeasure::Dice) => "align-dice",
            Verifier::Align(AlignMeasure::Containment) => "align-containment",
            Verifier::Align(AlignMeasure::MaxJaccardDice) => "align-max",
            Verifier::AlignWeighted => "align-weighted",
            Verifier::Custom(_) => "custom",
        }
    }
}

impl Verifier {
    /// Every name [`FromStr`](std::str::FromStr) accepts (aliases aside), with what
    /// the verifier measures: the choices a tool's `--verify` offers.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::Verifier;
    /// for (name, _) in Verifier::CHOICES {
    ///     assert_eq!(name.parse::<Verifier>()?.name(), *name);
    /// }
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub const CHOICES: &'static [(&'static str, &'static str)] = &[
        ("jaccard", "Exact Jaccard of the shingle sets"),
        ("method", "The method's own score"),
        ("containment", "The smaller shingle set within the larger"),
        (
            "align",
            "Token alignment: the mean of the share of the shorter document's words found \
             in order in the longer (LCS containment) and word 3-gram Jaccard",
        ),
        (
            "align-dice",
            "Token alignment: twice the words found in order in both (LCS) over the words \
             of both documents",
        ),
        (
            "align-containment",
            "Token alignment: the share of the shorter document's words found in order in \
             the longer (LCS containment)",
        ),
        (
            "align-max",
            "Token alignment: the higher of word-set Jaccard and LCS Dice (twice the words \
             found in order in both over the words of both documents)",
        ),
        (
            "align-weighted",
            "Token alignment over weighted words: LCS Dice where a word weighs \
             1/sqrt(the number of input documents it occurs in) and a number 16 times \
             that, so names and versions count more than common words",
        ),
    ];
}

impl std::str::FromStr for Verifier {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "method" | "estimate" => Ok(Verifier::MethodScore),
            "jaccard" | "exact" => Ok(Verifier::ExactJaccard),
            "containment" => Ok(Verifier::Containment),
            "align" | "align-combined" => Ok(Verifier::Align(AlignMeasure::Combined)),
            "align-dice" => Ok(Verifier::Align(AlignMeasure::Dice)),
            "align-containment" => Ok(Verifier::Align(AlignMeasure::Containment)),
            "align-max" | "align-max-jaccard-dice" => {
                Ok(Verifier::Align(AlignMeasure::MaxJaccardDice))
            }
            "align-weighted" => Ok(Verifier::AlignWeighted),
            other => Err(Error::invalid_parameter(
                "verifier",
                format!(
                    "must be method, jaccard, containment, align, align-dice, \
                     align-containment, align-max or align-weighted, got {other:?}"
                ),
            )),
        }
    }
}

/// What verification did.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::pipeline::{Verification, Verifier};
/// let (_, r) = Verification::new(Verifier::ExactJaccard, 0.5)
///     .run(&["a b c", "a b c"], vec![ScoredPair::new(0, 1, 0.9)])?;
/// assert_eq!((r.checked, r.accepted), (1, 1));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyReport {
    /// Candidate pairs checked.
    pub checked: u64,
    /// Pairs that passed.
    pub accepted: u64,
    /// Time spent.
    pub time: Duration,
}

/// Checks candidate pairs with a [`Verifier`] at a threshold: the stage to call on
/// its own to re-score pairs from any source.
///
/// Pairs out keep their order and are re-scored by the verifier's measure (the
/// method's own score for [`Verifier::MethodScore`]). The result is the same whatever
/// the thread count.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::pipeline::{Features, Shingles, Verification, Verifier};
/// let texts = ["a b c d e", "a b c d f", "v w x y z"];
/// let candidates = vec![ScoredPair::new(0, 1, 0.9), ScoredPair::new(0, 2, 0.9)];
/// let words = Features::new(Shingles::Words(1));
/// let v = Verification::new(Verifier::ExactJaccard, 0.5).features(words);
/// let (kept, report) = v.run(&texts, candidates)?;
/// assert_eq!(kept, vec![ScoredPair::new(0, 1, 4.0 / 6.0)]);
/// assert_eq!(report.checked, 2);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Verification {
    verifier: Verifier,
    threshold: f64,
    features: Features,
}

impl Verification {
    /// Verification with `verifier` at `threshold` (validated by [`run`](Self::run)),
    /// over word 3-grams.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Verification, Verifier};
    /// let v = Verification::new(Verifier::Containment, 0.9);
    /// assert_eq!(v.verifier().name(), "containment");
    /// ```
    #[must_use]
    pub fn new(verifier: Verifier, threshold: f64) -> Self {
        Verification {
            verifier,
            threshold,
            features: Features::default(),
        }
    }

    /// The features the exact verifiers compare, with their normalization, as one value
    /// (word 3-grams without NFKC by default). Take it from a [`Plan`](crate::Plan) to
    /// verify as [`Dedup`](crate::Dedup) does.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::pipeline::{Features, Shingles, Verification, Verifier};
    /// let pair = || vec![ScoredPair::new(0, 1, 0.0)];
    /// let words = Features::new(Shingles::Words(1));
    /// let v = Verification::new(Verifier::ExactJaccard, 1.0).features(words);
    /// assert_eq!(v.clone().run(&["b a", "a b"], pair())?.0.len(), 1); // same word set
    /// let folded = v.features(words.nfkc(true));
    /// assert_eq!(folded.run(&["ﬁne ｄａｙ", "fine day"], pair())?.0.len(), 1);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn features(mut self, features: Features) -> Self {
        self.features = features;
        self
    }

    /// The verifier.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Verification, Verifier};
    /// assert_eq!(Verification::new(Verifier::MethodScore, 0.8).verifier().name(), "method");
    /// ```
    #[must_use]
    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// Verifies `candidates` (indices into `texts`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a threshold
    /// outside `(0, 1]` or an invalid shingle length; `InvalidInput` for a pair
    /// naming a document outside `texts`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::pipeline::{Features, Shingles, Verification, Verifier};
    /// let words = Features::new(Shingles::Words(1));
    /// let v = Verification::new(Verifier::ExactJaccard, 0.5).features(words);
    /// let (kept, _) = v.run(&["a b", "a c"], vec![ScoredPair::new(0, 1, 0.9)])?;
    /// assert!(kept.is_empty()); // Jaccard 1/3
    /// assert!(v.run(&["a"], vec![ScoredPair::new(0, 5, 0.9)]).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn run<D: AsRef<str> + Sync>(
        &self,
        texts: &[D],
        candidates: Vec<ScoredPair>,
    ) -> Result<(Vec<ScoredPair>, VerifyReport), crate::Error> {
        self.run_with_progress(texts, candidates, &NoProgress)
    }

    /// [`run`](Self::run) with progress.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::pipeline::{NoProgress, Verification, Verifier};
    /// let v = Verification::new(Verifier::MethodScore, 0.5);
    /// let (kept, _) = v.run_with_progress(&["a", "b"], vec![ScoredPair::new(0, 1, 0.7)], &NoProgress)?;
    /// assert_eq!(kept.len(), 1);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn run_with_progress<D: AsRef<str> + Sync>(
        &self,
        texts: &[D],
        candidates: Vec<ScoredPair>,
        progress: &dyn Progress,
    ) -> Result<(Vec<ScoredPair>, VerifyReport), crate::Error> {
        let threshold = Threshold::new(self.threshold)?;
        self.features.validate()?;
        verify(
            &self.verifier,
            threshold,
            self.features,
            texts,
            candidates,
            progress,
        )
    }
}

/// The verification stage of every engine: `candidates` (indices into `texts`)
/// checked by `verifier` at `threshold` over `features`, all checked by the caller.
/// The exact set verifiers shingle the documents named by a pair and score them with
/// [`verify_by_sets`]'s loop.
pub(crate) fn verify<D: AsRef<str> + Sync>(
    verifier: &Verifier,
    threshold: Threshold,
    features: Features,
    texts: &[D],
    candidates: Vec<ScoredPair>,
    progress: &dyn Progress,
) -> Result<(Vec<ScoredPair>, VerifyReport), crate::Error> {
    if let Some(p) = candidates
        .iter()
        .find(|p| p.a >= texts.len() || p.b >= texts.len())
    {
        return Err(Error::invalid_input(format!(
            "pair ({}, {}) names a document outside the {} given",
            p.a,
            p.b,
            texts.len()
        ))
        .into());
    }
    let t = threshold.get();
    stage(candidates, progress, |candidates| {
        Ok(match verifier {
            Verifier::MethodScore => candidates,
            Verifier::Custom(f) => {
                let score =
                    |p: &ScoredPair| p.with_score(f(texts[p.a].as_ref(), texts[p.b].as_ref()));
                filter_map_pairs(&candidates, progress, |p| {
                    Some(score(p)).filter(|q| q.score >= t)
                })
            }
            Verifier::Align(measure) => {
                let docs = prepared(texts, &candidates, features.normalizes_nfkc());
                let measure = *measure;
                filter_map_pairs_with(&candidates, progress, Aligner::new, |al, p| {
                    // The threshold was checked above, so verify cannot fail.
                    let score = al
                        .verify_prepared(&docs[p.a], &docs[p.b], measure, t)
                        .ok()
                        .flatten()?;
                    Some(p.with_score(score))
                })
            }
            Verifier::AlignWeighted => {
                let (tokens, weights) =
                    weighted_tokens(texts, &candidates, features.normalizes_nfkc());
                weighted_dice_pairs(&tokens, &weights, t, &candidates, progress)
            }
            Verifier::ExactJaccard | Verifier::Containment => {
                let needed = named_by(texts.len(), &candidates);
                let strs: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
                let sets = crate::sets::packed_sets(features, &strs, &needed)?;
                let jac = matches!(verifier, Verifier::ExactJaccard);
                score_by_sets(jac, t, &|i| sets.get(i), &candidates, progress)
            }
        })
    })
}

/// The verification stage of [`Verifier::AlignWeighted`] over documents tokenized
/// already ([`TokenOptions::hashes`] with the plan's NFKC setting) with weights counted
/// elsewhere: what the out-of-core engine runs over a block of candidates, the
/// weights of the whole corpus read from its work file. `candidates` index `tokens`
/// (checked by the caller); `weights` holds every token of a document a pair names.
#[cfg_attr(not(feature = "minhash"), allow(dead_code))] // MinHash's stages call it
pub(crate) fn verify_weighted(
    threshold: Threshold,
    tokens: &[Vec<u64>],
    weights: &TokenWeights,
    candidates: Vec<ScoredPair>,
    progress: &dyn Progress,
) -> Result<(Vec<ScoredPair>, VerifyReport), crate::Error> {
    stage(candidates, progress, |candidates| {
        Ok(weighted_dice_pairs(
            tokens,
            weights,
            threshold.get(),
            &candidates,
            progress,
        ))
    })
}

/// The scoring loop of [`Verifier::AlignWeighted`]: each pair's weighted LCS Dice,
/// kept with that score when it reaches `t` (checked as a threshold by the caller).
fn weighted_dice_pairs(
    tokens: &[Vec<u64>],
    weights: &TokenWeights,
    t: f64,
    candidates: &[ScoredPair],
    progress: &dyn Progress,
) -> Vec<ScoredPair> {
    filter_map_pairs_with(candidates, progress, Aligner::new, |al, p| {
        // The threshold was checked, so weighted_dice cannot fail.
        let score = al
            .weighted_dice(&tokens[p.a], &tokens[p.b], weights, t)
            .ok()
            .flatten()?;
        Some(p.with_score(score))
    })
}

/// The verification stage over shingle sets held already: `candidates` (keys that
/// `set_of` maps to each document's sorted distinct shingle hashes, as
/// [`crate::sets::shingle_sets`] cuts them) checked by exact Jaccard or containment at
/// `threshold`, with the loop [`verify`] runs over sets it cut from texts. What an
/// engine that keeps sets instead of texts ([`DedupIndex`](crate::DedupIndex)) runs.
///
/// # Errors
///
/// `InvalidParameter` for a verifier that needs more than the sets (the method's
/// score, alignment, a user function).
#[cfg(feature = "minhash")]
pub(crate) fn verify_by_sets<'s>(
    verifier: &Verifier,
    threshold: Threshold,
    set_of: &(dyn Fn(usize) -> &'s [u64] + Sync),
    candidates: Vec<ScoredPair>,
    progress: &dyn Progress,
) -> Result<(Vec<ScoredPair>, VerifyReport), crate::Error> {
    let jac = match verifier {
        Verifier::ExactJaccard => true,
        Verifier::Containment => false,
        other => {
            return Err(Error::invalid_parameter(
                "verifier",
                format!("{} does not verify from shingle sets", other.name()),
            )
            .into());
        }
    };
    stage(candidates, progress, |candidates| {
        Ok(score_by_sets(
            jac,
            threshold.get(),
            set_of,
            &candidates,
            progress,
        ))
    })
}

/// Runs `check` over `candidates` as the verification stage: progress, time, counts.
fn stage(
    candidates: Vec<ScoredPair>,
    progress: &dyn Progress,
    check: impl FnOnce(Vec<ScoredPair>) -> Result<Vec<ScoredPair>, crate::Error>,
) -> Result<(Vec<ScoredPair>, VerifyReport), crate::Error> {
    let started = Instant::now();
    progress.start(Stage::Verify, Some(candidates.len() as u64));
    let checked = candidates.len() as u64;
    let kept = check(candidates)?;
    progress.finish(Stage::Verify);
    let report = VerifyReport {
        checked,
        accepted: kept.len() as u64,
        time: started.elapsed(),
    };
    Ok((kept, report))
}

/// The one scoring loop of the set verifiers: each pair's exact Jaccard (`jac`) or
/// containment of the smaller set, from the sets `set_of` gives, kept with that score
/// when it reaches `t`, in the order of `candidates` (the sets read ahead,
/// [`READ_AHEAD`]). Out of core's verification calls it with each block's sets.
pub(crate) fn score_by_sets<'s>(
    jac: bool,
    t: f64,
    set_of: &(dyn Fn(usize) -> &'s [u64] + Sync),
    candidates: &[ScoredPair],
    progress: &dyn Progress,
) -> Vec<ScoredPair> {
    filter_map_indexed(
        candidates,
        progress,
        || (),
        |(), k, p| {
            if k % READ_AHEAD == 0 {
                // The next group's sets, read now: their cache misses overlap one
                // another rather than each stalling its own pair's merge.
                let next = (k + READ_AHEAD).min(candidates.len());
                let last = (k + 2 * READ_AHEAD).min(candidates.len());
                for q in &candidates[next..last] {
                    touch(set_of(q.a));
                    touch(set_of(q.b));
                }
            }
            set_measure_at_least(jac, set_of(p.a), set_of(p.b), t).map(|s| p.with_score(s))
        },
    )
}

/// Pairs [`score_by_sets`] reads ahead at once: every `READ_AHEAD` pairs, the sets of
/// the `READ_AHEAD` after them. Pairs arrive by their later document, so the earlier
/// document's set lies anywhere in memory: past the last-level cache at about a
/// million documents, each merge used to begin with a stall of its own. Eight pairs'
/// sets (sixteen reads in flight) took the verification stage's samples at 1M shuffled
/// documents down by half; one pair's sets four pairs ahead, within the noise
/// (docs/performance.md, "Verification and the estimate filter read ahead").
const READ_AHEAD: usize = 8;

/// The cache lines of a set [`touch`] reads: the first 16 (128 hashes; a 3-gram set
/// of a typical description has about 100).
const TOUCH_LINES: usize = 16;

/// Reads one value in each of the first [`TOUCH_LINES`] cache lines of `set`, so that
/// they are in the cache when the set is merged.
fn touch(set: &[u64]) {
    // Keeps the reads: their value is used nowhere else.
    std::hint::black_box(crate::cache::touch_lines(set, TOUCH_LINES));
}

/// The set verifiers' measure of two sorted sets: exact Jaccard (`jac`) or the
/// containment of the smaller set in the larger. Every engine's set verification
/// (in memory, the saved index, out of core, the distributed job of `dedup-cluster`)
/// asks its thresholded form, [`set_measure_at_least`], the same value when it
/// reaches the threshold.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::set_measure;
/// let (a, b) = ([1u64, 2, 3, 4], [3u64, 4, 5, 6]);
/// assert_eq!(set_measure(true, &a, &b), 2.0 / 6.0); // Jaccard
/// assert_eq!(set_measure(false, &a, &[3, 4]), 1.0); // {3, 4} lies within a
/// ```
#[must_use]
pub fn set_measure(jac: bool, a: &[u64], b: &[u64]) -> f64 {
    if jac {
        jaccard(a, b)
    } else {
        containment_of_smaller(a, b)
    }
}

/// [`set_measure`] when it is at least `t` (the same value, bit for bit), `None` when it
/// is not: each merge stops once `t` is out of reach ([`jaccard_at_least`],
/// [`containment_at_least`]). What every engine's set verification asks, so that a
/// pair is accepted, and scored, alike in each.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{set_measure, set_measure_at_least};
/// let (a, b) = ([1u64, 2, 3, 4], [3u64, 4, 5, 6]);
/// assert_eq!(set_measure_at_least(true, &a, &b, 0.3), Some(set_measure(true, &a, &b)));
/// assert_eq!(set_measure_at_least(true, &a, &b, 0.5), None); // 2/6 < 0.5
/// assert_eq!(set_measure_at_least(false, &a, &[3, 4], 1.0), Some(1.0));
/// ```
#[must_use]
pub fn set_measure_at_least(jac: bool, a: &[u64], b: &[u64], t: f64) -> Option<f64> {
    if jac {
        jaccard_at_least(a, b, t)
    } else {
        let (small, large) = smaller_first(a, b);
        containment_at_least(small, large, t)
    }
}

/// `|A ∩ B| / min(|A|, |B|)` of two sorted sets; two empty sets contain each other
/// (1).
fn containment_of_smaller(a: &[u64], b: &[u64]) -> f64 {
    let (small, large) = smaller_first(a, b);
    containment(small, large)
}

/// The two sets, the smaller first (`a` first when they are as large): the order the
/// containment of the smaller set in the larger takes them in.
fn smaller_first<'s>(a: &'s [u64], b: &'s [u64]) -> (&'s [u64], &'s [u64]) {
    if a.len() <= b.len() { (a, b) } else { (b, a) }
}

/// For each of `n` documents, whether a pair names it.
fn named_by(n: usize, pairs: &[ScoredPair]) -> Vec<bool> {
    let mut needed = vec![false; n];
    for p in pairs {
        needed[p.a] = true;
        needed[p.b] = true;
    }
    needed
}

/// Every document named by a pair, tokenized (the word tokenizer, case folded, NFKC
/// when asked) and prepared for alignment; empty for the others.
fn prepared<D: AsRef<str> + Sync>(texts: &[D], pairs: &[ScoredPair], nfkc: bool) -> Vec<Prepared> {
    let needed = named_by(texts.len(), pairs);
    let options = TokenOptions::default().nfkc(nfkc);
    let one = |(t, &need): (&D, &bool)| {
        if need {
            Prepared::new(&options, t.as_ref())
        } else {
            Prepared::default()
        }
    };
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        texts.par_iter().zip(needed.par_iter()).map(one).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        texts.iter().zip(needed.iter()).map(one).collect()
    }
}

/// For [`Verifier::AlignWeighted`]: the tokens of every document a pair names (empty
/// for the others) and the weights of [`CorpusWeights`] counted over every one of
/// `texts`. One tokenizing pass over `texts`; memory: the tables of distinct words
/// (about 16 bytes each in the counts, 16 in the weights) and the tokens of the named
/// documents.
fn weighted_tokens<D: AsRef<str> + Sync>(
    texts: &[D],
    pairs: &[ScoredPair],
    nfkc: bool,
) -> (Vec<Vec<u64>>, TokenWeights) {
    let needed = named_by(texts.len(), pairs);
    let options = TokenOptions::default().nfkc(nfkc);
    let mut counts = CorpusWeights::new();
    let mut tokens = Vec::with_capacity(texts.len());
    // Chunks tokenized (in parallel under rayon), then counted in order.
    for (chunk, need) in texts
        .chunks(crate::progress::CHUNK * 4)
        .zip(needed.chunks(crate::progress::CHUNK * 4))
    {
        #[cfg(feature = "rayon")]
        let tokenized: Vec<Tokens<'_>> = {
            use rayon::prelude::*;
            chunk
                .par_iter()
                .map(|t| options.tokens(t.as_ref()))
                .collect()
        };
        #[cfg(not(feature = "rayon"))]
        let tokenized: Vec<Tokens<'_>> = chunk.iter().map(|t| options.tokens(t.as_ref())).collect();
        for (t, &n) in tokenized.iter().zip(need) {
            counts.add_document(t);
            tokens.push(if n { t.hashes().to_vec() } else { Vec::new() });
        }
    }
    (tokens, counts.weights())
}

/// Maps pairs in order (in parallel under `rayon`), reporting progress per chunk.
fn filter_map_pairs(
    pairs: &[ScoredPair],
    progress: &dyn Progress,
    f: impl Fn(&ScoredPair) -> Option<ScoredPair> + Sync,
) -> Vec<ScoredPair> {
    filter_map_pairs_with(pairs, progress, || (), |(), p| f(p))
}

/// [`filter_map_pairs`] with per-thread scratch state made by `init`.
fn filter_map_pairs_with<S>(
    pairs: &[ScoredPair],
    progress: &dyn Progress,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &ScoredPair) -> Option<ScoredPair> + Sync + Send,
) -> Vec<ScoredPair> {
    filter_map_indexed(pairs, progress, init, |s, _, p| f(s, p))
}

/// The most pairs one task of [`filter_map_indexed`] maps: pairs' costs differ by
/// their documents' lengths (two long license texts' sets merge a hundred times
/// slower than two short descriptions'), and rayon's adaptive split alone leaves
/// tasks of about a quarter of a chunk per thread, so the chunk's last task ran on
/// one thread while the other waited (issue 31's timeline).
#[cfg(feature = "rayon")]
const PAIRS_PER_TASK: usize = 256;

/// [`filter_map_pairs_with`] where `f` is also given the pair's position in `pairs`.
fn filter_map_indexed<S>(
    pairs: &[ScoredPair],
    progress: &dyn Progress,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &ScoredPair) -> Option<ScoredPair> + Sync + Send,
) -> Vec<ScoredPair> {
    let mut out = Vec::new();
    #[cfg(not(feature = "rayon"))]
    let mut state = init();
    let len = crate::progress::CHUNK * 4;
    for (c, chunk) in pairs.chunks(len).enumerate() {
        let first = c * len;
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            let part: Vec<Option<ScoredPair>> = chunk
                .par_iter()
                .enumerate()
                .with_max_len(PAIRS_PER_TASK)
                .map_init(&init, |s, (k, p)| f(s, first + k, p))
                .collect();
            out.extend(part.into_iter().flatten());
        }
        #[cfg(not(feature = "rayon"))]
        {
            out.extend(
                chunk
                    .iter()
                    .enumerate()
                    .filter_map(|(k, p)| f(&mut state, first + k, p)),
            );
        }
        progress.advance(Stage::Verify, chunk.len() as u64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shingles;

    /// Texts from a small vocabulary, so that many pairs pass a threshold of 0.3 and
    /// many do not.
    fn texts(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                (0..3 + i % 9)
                    .map(|w| format!("w{}", (i % 11 + w * 3) % 17))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn set_verification_keeps_each_pair_in_its_place_with_the_plain_measure() {
        let texts = texts(5_000);
        let strs: Vec<&str> = texts.iter().map(String::as_str).collect();
        // More pairs than one scoring chunk, in the candidate stage's order (by the
        // later document, then the earlier), many of them far apart: across the packed
        // sets' parts and chunks, and neighbours too.
        let mut candidates = Vec::new();
        for b in 1..strs.len() {
            let far = (b.wrapping_mul(7_919) ^ 0x5bd1) % b;
            let mut earlier = vec![b - 1, b / 2, far, b.saturating_sub(4_097)];
            earlier.sort_unstable();
            earlier.dedup();
            candidates.extend(earlier.into_iter().map(|a| ScoredPair::new(a, b, 0.0)));
        }
        assert!(candidates.len() > 4 * crate::progress::CHUNK);
        let features = Features::new(Shingles::Words(1));
        let sets = crate::sets::shingle_sets(features, &strs, None, Stage::Verify, &NoProgress)
            .expect("valid features");
        for (verifier, jac) in [
            (Verifier::ExactJaccard, true),
            (Verifier::Containment, false),
        ] {
            let t = 0.3;
            // The plain loop: every pair in order, its measure from unpacked sets.
            let want: Vec<ScoredPair> = candidates
                .iter()
                .filter_map(|p| {
                    let s = set_measure(jac, sets[p.a].as_slice(), sets[p.b].as_slice());
                    (s >= t).then(|| p.with_score(s))
                })
                .collect();
            let (kept, report) = Verification::new(verifier, t)
                .features(features)
                .run(&strs, candidates.clone())
                .expect("valid verification");
            assert_eq!(report.checked, candidates.len() as u64);
            assert!(!want.is_empty() && want.len() < candidates.len());
            assert_eq!(kept, want);
        }
    }
}

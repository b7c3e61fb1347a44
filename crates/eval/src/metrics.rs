//! Pairwise precision, recall and F1 of scored document pairs, at one threshold or
//! swept over every threshold (Max F1).

use ndd_core::{Error, ScoredPair};

use crate::Labels;

/// Pair counts of a predicted set of near-duplicate pairs against the truth.
///
/// A *pair* is an unordered pair of distinct documents. It is *true* when both documents
/// are in the same cluster of the ground truth, and *predicted* when the detector
/// reported it (for scored pairs: score `>=` threshold).
///
/// * `true_positives`: predicted and true;
/// * `false_positives`: predicted but not true;
/// * `false_negatives`: true but not predicted.
///
/// Conventions for the empty cases: [`precision`](Self::precision) is `1` when nothing
/// was predicted (no wrong claims were made), [`recall`](Self::recall) is `1` when there
/// are no true pairs (nothing could be missed), and [`f1`](Self::f1) is `0` when both
/// precision and recall are `0`.
///
/// # Example
///
/// ```
/// let c = near_dup::eval::Confusion { true_positives: 3, false_positives: 1, false_negatives: 3 };
/// assert_eq!(c.precision(), 0.75);
/// assert_eq!(c.recall(), 0.5);
/// assert!((c.f1() - 0.6).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Confusion {
    /// Pairs predicted as near-duplicates that are in the same true cluster.
    pub true_positives: u64,
    /// Pairs predicted as near-duplicates that are in different true clusters.
    pub false_positives: u64,
    /// Pairs in the same true cluster that were not predicted.
    pub false_negatives: u64,
}

impl Confusion {
    /// Fraction of predicted pairs that are true: `tp / (tp + fp)`; `1` when no pair
    /// was predicted.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::eval::Confusion { true_positives: 0, false_positives: 0, false_negatives: 5 };
    /// assert_eq!(c.precision(), 1.0);
    /// ```
    #[must_use]
    pub fn precision(&self) -> f64 {
        fraction_or_one(self.true_positives, self.false_positives)
    }

    /// Fraction of true pairs that were predicted: `tp / (tp + fn)`; `1` when there are
    /// no true pairs.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::eval::Confusion { true_positives: 1, false_positives: 0, false_negatives: 3 };
    /// assert_eq!(c.recall(), 0.25);
    /// ```
    #[must_use]
    pub fn recall(&self) -> f64 {
        fraction_or_one(self.true_positives, self.false_negatives)
    }

    /// Harmonic mean of precision and recall, `2PR / (P + R)`; `0` when both are `0`.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::eval::Confusion { true_positives: 2, false_positives: 2, false_negatives: 0 };
    /// assert!((c.f1() - 2.0 / 3.0).abs() < 1e-12); // P = 0.5, R = 1
    /// ```
    #[must_use]
    pub fn f1(&self) -> f64 {
        let p = self.precision();
        let r = self.recall();
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

/// Precision, recall and F1 at one threshold: a point of a [`ThresholdSweep`] or the
/// result of [`max_f1`].
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::eval::{max_f1, Labels};
/// let labels = Labels::new(&[0, 0, 1]);
/// let best = max_f1(&[ScoredPair::new(0, 1, 0.9), ScoredPair::new(1, 2, 0.4)], &labels)?;
/// assert_eq!(best.threshold, 0.9);
/// assert_eq!((best.precision, best.recall, best.f1), (1.0, 1.0, 1.0));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    /// Pairs with a score `>=` this value are predicted near-duplicates. `+∞` stands for
    /// "predict nothing".
    pub threshold: f64,
    /// The pair counts at this threshold.
    pub confusion: Confusion,
    /// [`Confusion::precision`] at this threshold.
    pub precision: f64,
    /// [`Confusion::recall`] at this threshold.
    pub recall: f64,
    /// [`Confusion::f1`] at this threshold.
    pub f1: f64,
}

impl SweepPoint {
    /// The point for `confusion` at `threshold`, with precision, recall and F1 filled in.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::{Confusion, SweepPoint};
    /// let c = Confusion { true_positives: 1, false_positives: 1, false_negatives: 0 };
    /// let p = SweepPoint::new(0.5, c);
    /// assert_eq!(p.precision, 0.5);
    /// assert_eq!(p.recall, 1.0);
    /// ```
    #[must_use]
    pub fn new(threshold: f64, confusion: Confusion) -> Self {
        SweepPoint {
            threshold,
            confusion,
            precision: confusion.precision(),
            recall: confusion.recall(),
            f1: confusion.f1(),
        }
    }
}

/// Checks ids and scores, makes pairs unordered, drops self-pairs and keeps the maximum
/// score of duplicate pairs. Returns `(score, is_true)` per distinct pair.
fn normalize(pairs: &[ScoredPair], labels: &Labels) -> Result<Vec<(f64, bool)>, Error> {
    let n = labels.len();
    let mut norm: Vec<(usize, usize, f64)> = Vec::with_capacity(pairs.len());
    for (i, p) in pairs.iter().enumerate() {
        let (a, b, s) = (p.a, p.b, p.score);
        if a >= n || b >= n {
            return Err(Error::invalid_input(format!(
                "pair {i} = ({a}, {b}) names a document outside 0..{n}"
            )));
        }
        if s.is_nan() {
            return Err(Error::invalid_input(format!(
                "pair {i} has a NaN score (an unscored candidate)"
            )));
        }
        if a != b {
            norm.push((a.min(b), a.max(b), s));
        }
    }
    // Group duplicates with the highest score first, then keep the first of each group.
    norm.sort_unstable_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)).then(y.2.total_cmp(&x.2)));
    norm.dedup_by(|later, first| later.0 == first.0 && later.1 == first.1);
    let ids = labels.cluster_ids();
    Ok(norm
        .into_iter()
        .map(|(a, b, s)| (s, ids[a] == ids[b]))
        .collect())
}

/// Pair counts of the scored pairs at `threshold`: pairs with `score >= threshold` are
/// predicted near-duplicates; every true pair not among them is a false negative.
///
/// `pairs` holds [`ScoredPair`]s `(a, b, score)` with higher scores meaning more similar
/// (for example an estimated Jaccard similarity), as every candidate source produces. Pairs are unordered (`(1, 2)` and `(2, 1)`
/// are the same pair); when a pair occurs more than once its highest score counts;
/// self-pairs `(a, a)` are ignored. Pairs that are absent count as not predicted.
///
/// Runs in O(P log P) for P pairs.
///
/// # Errors
///
/// * [`Error::InvalidParameter`] when `threshold` is NaN.
/// * [`Error::InvalidInput`] when a pair names a document `>= labels.len()` or has a
///   NaN score.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::eval::{evaluate_pairs, Labels};
/// // Clusters {0,1,2}, {3,4}, {5}: true pairs 01 02 12 34.
/// let labels = Labels::new(&[0, 0, 0, 1, 1, 2]);
/// let pairs = [(0, 1, 0.9), (2, 1, 0.8), (3, 5, 0.7), (3, 4, 0.3)].map(ScoredPair::from);
/// let c = evaluate_pairs(&pairs, &labels, 0.5)?;
/// assert_eq!((c.true_positives, c.false_positives, c.false_negatives), (2, 1, 2));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn evaluate_pairs(
    pairs: &[ScoredPair],
    labels: &Labels,
    threshold: f64,
) -> Result<Confusion, Error> {
    if threshold.is_nan() {
        return Err(Error::invalid_parameter("threshold", "must not be NaN"));
    }
    let scored = normalize(pairs, labels)?;
    let mut tp = 0u64;
    let mut fp = 0u64;
    for &(s, is_true) in &scored {
        if s >= threshold {
            if is_true {
                tp += 1;
            } else {
                fp += 1;
            }
        }
    }
    Ok(Confusion {
        true_positives: tp,
        false_positives: fp,
        false_negatives: labels.true_pairs() - tp,
    })
}

/// Pair counts of an unscored set of predicted pairs (every listed pair is predicted).
/// Same conventions as [`evaluate_pairs`]: unordered, duplicates counted once,
/// self-pairs ignored.
///
/// # Errors
///
/// [`Error::InvalidInput`] when a pair names a document `>= labels.len()`.
///
/// # Example
///
/// ```
/// use near_dup::eval::{evaluate_predicted_pairs, Labels};
/// let labels = Labels::new(&[0, 0, 1]);
/// let c = evaluate_predicted_pairs(&[(1, 0), (0, 1), (2, 2), (1, 2)], &labels)?;
/// assert_eq!((c.true_positives, c.false_positives, c.false_negatives), (1, 1, 0));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn evaluate_predicted_pairs(
    pairs: &[(usize, usize)],
    labels: &Labels,
) -> Result<Confusion, Error> {
    let scored: Vec<ScoredPair> = pairs
        .iter()
        .map(|&(a, b)| ScoredPair::new(a, b, 1.0))
        .collect();
    evaluate_pairs(&scored, labels, 1.0)
}

/// Precision, recall and F1 at every distinct score of a set of scored pairs, and the
/// threshold with the highest F1 ("Max F1", the measure reported by Hajishirzi, Yih and
/// Kołcz, *Adaptive Near-Duplicate Detection via Similarity Learning*, SIGIR 2010,
/// Tables 4 and 5).
///
/// Built by [`ThresholdSweep::new`] or [`sweep`]: the pairs are sorted once by
/// descending score and every distinct score is tried as a threshold in one pass, so
/// the cost is O(P log P) for P pairs. Pairs with equal scores enter together.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::eval::{sweep, Labels};
/// let labels = Labels::new(&[0, 0, 0, 1]);
/// let pairs = [(0, 1, 0.9), (0, 3, 0.8), (1, 2, 0.5), (0, 2, 0.5)].map(ScoredPair::from);
/// let s = sweep(&pairs, &labels)?;
/// let thresholds: Vec<f64> = s.points().iter().map(|p| p.threshold).collect();
/// assert_eq!(thresholds, vec![0.9, 0.8, 0.5]);
/// assert_eq!(s.best().threshold, 0.5); // tp 3, fp 1: F1 = 6/7
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdSweep {
    points: Vec<SweepPoint>,
    best: SweepPoint,
}

impl ThresholdSweep {
    /// Sweeps every distinct score of `pairs` as a threshold (see [`evaluate_pairs`]
    /// for how pairs are read).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a pair names a document `>= labels.len()` or has a
    /// NaN score.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::eval::{Labels, ThresholdSweep};
    /// let s = ThresholdSweep::new(&[ScoredPair::new(0, 1, 1.0)], &Labels::new(&[3, 3]))?;
    /// assert_eq!(s.points().len(), 1);
    /// assert_eq!(s.best().f1, 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(pairs: &[ScoredPair], labels: &Labels) -> Result<Self, Error> {
        let mut points = Vec::new();
        let best = run_sweep(pairs, labels, |p| points.push(p))?;
        Ok(ThresholdSweep { points, best })
    }

    /// One point per distinct score, by descending threshold. Empty when there are no
    /// (non-self) pairs.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::eval::{sweep, Labels};
    /// let pairs = [ScoredPair::new(0, 1, 0.2), ScoredPair::new(0, 1, 0.7)];
    /// let s = sweep(&pairs, &Labels::new(&[0, 0]))?;
    /// assert_eq!(s.points().len(), 1); // the duplicate keeps its max score
    /// assert_eq!(s.points()[0].threshold, 0.7);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn points(&self) -> &[SweepPoint] {
        &self.points
    }

    /// The point with the highest F1. Candidates are every point of
    /// [`points`](Self::points) and "predict nothing" (threshold `+∞`, which wins only
    /// when it is strictly best, for example when there are no true pairs). Among equal
    /// F1 values the highest threshold wins.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::eval::{sweep, Labels};
    /// // No true pairs: predicting nothing is perfect.
    /// let s = sweep(&[ScoredPair::new(0, 1, 0.9)], &Labels::new(&[0, 1]))?;
    /// assert_eq!(s.best().threshold, f64::INFINITY);
    /// assert_eq!(s.best().f1, 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn best(&self) -> SweepPoint {
        self.best
    }

    /// Consumes the sweep, returning its points.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::eval::{sweep, Labels};
    /// let points = sweep(&[ScoredPair::new(0, 1, 0.9)], &Labels::new(&[0, 0]))?.into_points();
    /// assert_eq!(points.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn into_points(self) -> Vec<SweepPoint> {
        self.points
    }
}

/// Sorts once and walks distinct scores in descending order, handing each point to
/// `visit`; returns the best point (see [`ThresholdSweep::best`]).
fn run_sweep(
    pairs: &[ScoredPair],
    labels: &Labels,
    mut visit: impl FnMut(SweepPoint),
) -> Result<SweepPoint, Error> {
    let mut scored = normalize(pairs, labels)?;
    scored.sort_unstable_by(|x, y| y.0.total_cmp(&x.0));
    let true_pairs = labels.true_pairs();
    let mut best = SweepPoint::new(
        f64::INFINITY,
        Confusion {
            true_positives: 0,
            false_positives: 0,
            false_negatives: true_pairs,
        },
    );
    let mut tp = 0u64;
    let mut fp = 0u64;
    let mut i = 0;
    while i < scored.len() {
        let threshold = scored[i].0;
        // `==` (not total order) so that 0.0 and -0.0 form one group.
        while i < scored.len() && scored[i].0 == threshold {
            if scored[i].1 {
                tp += 1;
            } else {
                fp += 1;
            }
            i += 1;
        }
        let point = SweepPoint::new(
            threshold,
            Confusion {
                true_positives: tp,
                false_positives: fp,
                false_negatives: true_pairs - tp,
            },
        );
        if point.f1 > best.f1 {
            best = point;
        }
        visit(point);
    }
    Ok(best)
}

/// Sweeps every distinct score of `pairs` as a threshold and keeps the whole curve.
/// Shorthand for [`ThresholdSweep::new`].
///
/// # Errors
///
/// [`Error::InvalidInput`] when a pair names a document `>= labels.len()` or has a NaN
/// score.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::eval::{sweep, Labels};
/// let pairs = [ScoredPair::new(0, 1, 0.9), ScoredPair::new(1, 2, 0.1)];
/// let s = sweep(&pairs, &Labels::new(&[0, 0, 0]))?;
/// assert_eq!(s.points().last().map(|p| p.recall), Some(2.0 / 3.0));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn sweep(pairs: &[ScoredPair], labels: &Labels) -> Result<ThresholdSweep, Error> {
    ThresholdSweep::new(pairs, labels)
}

/// The best threshold of `pairs` by F1, with its precision and recall (the "Max F1"
/// of the papers' tables), without storing the curve. Same result as
/// `sweep(pairs, labels)?.best()`; O(P log P) time.
///
/// # Errors
///
/// [`Error::InvalidInput`] when a pair names a document `>= labels.len()` or has a NaN
/// score.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::eval::{max_f1, Labels};
/// // Clusters {0,1,2}, {3,4}, {5}: 4 true pairs.
/// let labels = Labels::new(&[0, 0, 0, 1, 1, 2]);
/// let pairs = [(0, 1, 0.9), (1, 2, 0.8), (3, 5, 0.7), (3, 4, 0.6), (2, 5, 0.2)].map(ScoredPair::from);
/// let best = max_f1(&pairs, &labels)?;
/// // At 0.6: tp = 3 (01, 12, 34), fp = 1 (35), fn = 1 (02): P = R = F1 = 0.75.
/// // At 0.2 the extra false positive (25) lowers F1 to 2/3.
/// assert_eq!(best.threshold, 0.6);
/// assert_eq!(best.f1, 0.75);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn max_f1(pairs: &[ScoredPair], labels: &Labels) -> Result<SweepPoint, Error> {
    run_sweep(pairs, labels, |_| {})
}

/// `hits / (hits + misses)`, or `1` when both are `0` (nothing to get wrong).
fn fraction_or_one(hits: u64, misses: u64) -> f64 {
    let all = hits + misses;
    if all == 0 {
        1.0
    } else {
        hits as f64 / all as f64
    }
}

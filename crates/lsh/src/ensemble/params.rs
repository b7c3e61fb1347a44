//! [`EnsembleParams`]: the containment threshold and the per-partition choice of
//! bands and rows (weighted false-positive and false-negative probabilities of
//! containment, LSH Ensemble section 5).

use ndd_core::Error;

use crate::{LshParams, MAX_SEARCH_SLOTS};

/// The ratios `x/q` (partition's largest set over query set) a table of parameters
/// covers: `2^j` for `j` in `RATIO_MIN..=RATIO_MAX`; a ratio is rounded up to the
/// next point (a lower Jaccard threshold: more candidates, never fewer).
pub(super) const RATIO_MIN: i32 = -7;
pub(super) const RATIO_MAX: i32 = 24;

/// The parameters of an [`LshEnsemble`](crate::LshEnsemble): the containment
/// threshold, the signature slots used, the longest band it may choose, how finely
/// documents are partitioned by set size, and the weights of the two errors.
///
/// # How bands and rows are chosen
///
/// A query set `Q` (size `q`) is contained in an indexed set `X` (size `x`) to the
/// degree `t = |Q ∩ X| / q`; their Jaccard similarity is then `t / (x/q + 1 − t)`, so
/// with `b` bands of `r` rows `X` becomes a candidate with probability `P(t) = 1 − (1
/// − (t / (x/q + 1 − t))^r)^b`. For a partition whose largest set has `u` elements the
/// ensemble uses `x = u` (a lower bound on every member's Jaccard, so the size
/// approximation never loses a result) and picks, among `b × r ≤ num_slots` with `r ≤
/// max_rows`, the pair minimizing `fp_weight · ∫₀^t* P + fn_weight · ∫_t*^1 (1 − P)`
/// for the threshold `t*` (the integrals bounded by `u/q` where containment cannot
/// exceed it), as datasketch's `MinHashLSHEnsemble` does. The choice is tabulated at
/// construction for the ratios `u/q = 2^j`, `j = −7 … 24`, and a query rounds its
/// ratio up to the next one.
///
/// Cost of a table: `32 · Σ_{r ≤ max_rows} ⌊num_slots / r⌋` shapes, each integrated
/// with 64 evaluations (about 0.7 million evaluations, a few milliseconds, for 128
/// slots and 8 rows). Memory of the ensemble: one banded index per distinct `r` in the
/// table per partition (see [`LshEnsemble`](crate::LshEnsemble)).
///
/// # Example
///
/// ```
/// use near_dup::lsh::EnsembleParams;
/// let p = EnsembleParams::new(0.8, 128)?;
/// assert_eq!((p.max_rows(), p.classes_per_doubling()), (8, 2));
/// // Equal sizes (x = q): containment 0.8 is Jaccard 0.67; a long band fits.
/// let same = p.bands_rows_for(1.0)?;
/// // A set 64 times larger: containment 0.8 is Jaccard 0.012; shorter bands.
/// let large = p.bands_rows_for(64.0)?;
/// assert!(same.rows() > large.rows());
/// # Ok::<(), near_dup::Error>(())
/// ```
///
/// # References
///
/// - E. Zhu, F. Nargesian, K. Q. Pu and R. J. Miller, "LSH Ensemble: Internet-Scale
///   Domain Search", PVLDB 9(12), VLDB 2016 (section 4: containment to Jaccard with
///   the partition's upper size bound; section 5: the false-positive and
///   false-negative probabilities and the per-partition parameter choice).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnsembleParams {
    threshold: f64,
    num_slots: usize,
    max_rows: usize,
    classes_per_doubling: u8,
    fp_weight: f64,
    fn_weight: f64,
}

impl EnsembleParams {
    /// Containment `threshold` over signatures of (at least) `num_slots` slots, with
    /// the defaults: bands of at most 8 rows (datasketch's `m = 8`), two partitions per
    /// doubling of set size, errors weighted equally.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `threshold` is not strictly between 0 and 1
    /// or `num_slots` is 0 or above [`MAX_SEARCH_SLOTS`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::EnsembleParams;
    /// let p = EnsembleParams::new(0.5, 128)?;
    /// assert_eq!((p.threshold(), p.num_slots()), (0.5, 128));
    /// assert!(EnsembleParams::new(1.0, 128).is_err());
    /// assert!(EnsembleParams::new(0.5, 0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(threshold: f64, num_slots: usize) -> Result<Self, Error> {
        if !(threshold > 0.0 && threshold < 1.0) {
            return Err(Error::invalid_parameter(
                "threshold",
                format!("must lie strictly between 0 and 1, got {threshold}"),
            ));
        }
        if num_slots == 0 || num_slots > MAX_SEARCH_SLOTS {
            return Err(Error::invalid_parameter(
                "num_slots",
                format!("must lie in [1, {MAX_SEARCH_SLOTS}], got {num_slots}"),
            ));
        }
        Ok(EnsembleParams {
            threshold,
            num_slots,
            max_rows: num_slots.min(8),
            classes_per_doubling: 2,
            fp_weight: 0.5,
            fn_weight: 0.5,
        })
    }

    /// The longest band (rows) the choice may use, `1..=min(num_slots, 64)`. Each
    /// distinct `r` chosen in a partition is one more banded index there, so a smaller
    /// bound costs less memory and loses accuracy for high Jaccard equivalents.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] outside `1..=min(num_slots, 64)`.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::EnsembleParams::new(0.8, 128)?.with_max_rows(4)?;
    /// assert!(p.bands_rows_for(1.0)?.rows() <= 4);
    /// assert!(near_dup::lsh::EnsembleParams::new(0.8, 128)?.with_max_rows(0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn with_max_rows(mut self, max_rows: usize) -> Result<Self, Error> {
        if max_rows == 0 || max_rows > self.num_slots.min(64) {
            return Err(Error::invalid_parameter(
                "max_rows",
                format!(
                    "must lie in [1, {}], got {max_rows}",
                    self.num_slots.min(64)
                ),
            ));
        }
        self.max_rows = max_rows;
        Ok(self)
    }

    /// Partitions per doubling of set size: 1 (sizes `[2^c, 2^(c+1))`) or 2 (sizes
    /// `[2^(c/2), 2^((c+1)/2))`, ratio √2). Within a partition every set is treated as
    /// large as its largest, so a finer partition gives fewer false positives; each
    /// occupied partition costs one band lookup per query.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for other values.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::EnsembleParams::new(0.8, 128)?.with_classes_per_doubling(1)?;
    /// assert_eq!(p.classes_per_doubling(), 1);
    /// assert!(near_dup::lsh::EnsembleParams::new(0.8, 128)?.with_classes_per_doubling(3).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn with_classes_per_doubling(mut self, classes: u8) -> Result<Self, Error> {
        if !matches!(classes, 1 | 2) {
            return Err(Error::invalid_parameter(
                "classes_per_doubling",
                format!("must be 1 or 2, got {classes}"),
            ));
        }
        self.classes_per_doubling = classes;
        Ok(self)
    }

    /// The weights of the false-positive and false-negative probabilities (default
    /// 0.5 each); raising `fn_weight` favours recall.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when a weight is negative or not finite, or both
    /// are 0.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::EnsembleParams::new(0.8, 128)?.with_weights(0.2, 0.8)?;
    /// assert_eq!(p.weights(), (0.2, 0.8));
    /// assert!(near_dup::lsh::EnsembleParams::new(0.8, 128)?.with_weights(0.0, 0.0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn with_weights(mut self, fp_weight: f64, fn_weight: f64) -> Result<Self, Error> {
        crate::params::check_weights(fp_weight, fn_weight)?;
        self.fp_weight = fp_weight;
        self.fn_weight = fn_weight;
        Ok(self)
    }

    /// The containment threshold.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::EnsembleParams::new(0.7, 64)?.threshold(), 0.7);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The signature slots the bands may use.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::EnsembleParams::new(0.7, 64)?.num_slots(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_slots(&self) -> usize {
        self.num_slots
    }

    /// The longest band the choice may use.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::EnsembleParams::new(0.7, 4)?.max_rows(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_rows(&self) -> usize {
        self.max_rows
    }

    /// Partitions per doubling of set size.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::EnsembleParams::new(0.7, 64)?.classes_per_doubling(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn classes_per_doubling(&self) -> u8 {
        self.classes_per_doubling
    }

    /// `(fp_weight, fn_weight)`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::EnsembleParams::new(0.7, 64)?.weights(), (0.5, 0.5));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn weights(&self) -> (f64, f64) {
        (self.fp_weight, self.fn_weight)
    }

    /// The bands and rows minimizing the weighted error for a partition whose largest
    /// set is `ratio` times the query's size (see the type's docs), computed directly
    /// (the ensemble tabulates it at powers of 2).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `ratio` is not finite and positive.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::EnsembleParams::new(0.5, 128)?;
    /// let lp = p.bands_rows_for(2.0)?;
    /// assert!(lp.slots_used() <= 128 && lp.rows() <= 8);
    /// assert!(p.bands_rows_for(0.0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn bands_rows_for(&self, ratio: f64) -> Result<LshParams, Error> {
        if !(ratio.is_finite() && ratio > 0.0) {
            return Err(Error::invalid_parameter(
                "ratio",
                format!("must be finite and positive, got {ratio}"),
            ));
        }
        Ok(self.optimal(ratio))
    }

    /// The table: for `j` in `RATIO_MIN..=RATIO_MAX`, the choice at ratio `2^j`.
    pub(super) fn table(&self) -> Vec<LshParams> {
        (RATIO_MIN..=RATIO_MAX)
            .map(|j| self.optimal(f64::from(j).exp2()))
            .collect()
    }

    fn optimal(&self, xq: f64) -> LshParams {
        let t = self.threshold;
        let mut best = (1, 1);
        let mut best_cost = f64::INFINITY;
        for r in 1..=self.max_rows {
            for b in 1..=self.num_slots / r {
                let p = |c: f64| candidate_probability(c, xq, b, r);
                let fp = integrate(p, 0.0, t.min(xq));
                let fneg = if xq >= t {
                    integrate(|c| 1.0 - p(c), t, xq.min(1.0))
                } else {
                    0.0
                };
                let cost = self.fp_weight * fp + self.fn_weight * fneg;
                if cost < best_cost {
                    best_cost = cost;
                    best = (b, r);
                }
            }
        }
        // b, r ≥ 1 and b × r ≤ num_slots ≤ MAX_SEARCH_SLOTS: valid.
        LshParams::from_valid(best.0, best.1)
    }
}

/// `1 − (1 − s^r)^b` with `s = c / (xq + 1 − c)`: the candidate probability of a set
/// `xq` times the query's size containing a fraction `c` of it.
fn candidate_probability(c: f64, xq: f64, b: usize, r: usize) -> f64 {
    let s = (c / (xq + 1.0 - c)).clamp(0.0, 1.0);
    let sr = s.powi(i32::try_from(r).unwrap_or(i32::MAX));
    -(b as f64 * (-sr).ln_1p()).exp_m1()
}

/// `∫ₐᵇ f`: Gauss–Legendre with 8 points on each of 4 equal panels (the integrands
/// are smooth S-curves; the choice needs their relative sizes, not 1e-9 accuracy).
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const X: [f64; 4] = [
        0.183_434_642_495_649_8,
        0.525_532_409_916_329,
        0.796_666_477_413_626_7,
        0.960_289_856_497_536_3,
    ];
    const W: [f64; 4] = [
        0.362_683_783_378_362,
        0.313_706_645_877_887_3,
        0.222_381_034_453_374_5,
        0.101_228_536_290_376_3,
    ];
    if b <= a {
        return 0.0;
    }
    let panels = 4;
    let width = (b - a) / f64::from(panels);
    let mut total = 0.0;
    for i in 0..panels {
        let centre = a + width * (f64::from(i) + 0.5);
        let half = 0.5 * width;
        for (x, w) in X.iter().zip(W) {
            total += w * half * (f(centre - half * x) + f(centre + half * x));
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quadrature_matches_closed_forms() {
        // ∫₀¹ c^5 = 1/6; ∫ of the r = 1, b = 1 curve at xq = 1: ∫ c/(2 − c) dc.
        assert!((integrate(|c| c.powi(5), 0.0, 1.0) - 1.0 / 6.0).abs() < 1e-12);
        let want = -1.0 + 2.0 * 2f64.ln(); // ∫₀¹ c/(2−c) = 2 ln 2 − 1
        let got = integrate(|c| candidate_probability(c, 1.0, 1, 1), 0.0, 1.0);
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
}

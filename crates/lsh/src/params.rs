//! [`LshParams`]: b bands of r rows, the S-curve, choosing b and r for a threshold,
//! and the stable band keys.

use ndd_core::Error;
use ndd_core::hash::hash_u64s;

/// The largest `num_slots` that [`LshParams::optimal`] and
/// [`LshParams::min_candidates_for_recall`] search (`optimal` evaluates every
/// `b × r ≤ num_slots`, about `num_slots · ln(num_slots)` candidates, each needing two
/// numerical integrals; 8192 slots take about 0.75 s in a release build;
/// `min_candidates_for_recall` integrates at most one shape per row count).
///
/// # Example
///
/// ```
/// use near_dup::lsh::{LshParams, MAX_SEARCH_SLOTS};
/// assert!(LshParams::for_threshold(0.8, MAX_SEARCH_SLOTS + 1).is_err());
/// ```
pub const MAX_SEARCH_SLOTS: usize = 8192;

/// Checks a banded shape of `outer.1` groups of `inner.1` slots each (bands × rows,
/// trees × depth): both at least 1, their product at most [`MAX_BANDED_SLOTS`];
/// `note` ends the message of a product too large. The parameter named in an error is
/// the one at fault (`outer` for the product).
pub(crate) fn check_shape(
    outer: (&'static str, usize),
    inner: (&'static str, usize),
    note: &str,
) -> Result<(), Error> {
    for (name, n) in [outer, inner] {
        if n == 0 {
            return Err(Error::invalid_parameter(name, "must be at least 1"));
        }
    }
    let ((o, a), (i, b)) = (outer, inner);
    if a.checked_mul(b).is_none_or(|n| n > MAX_BANDED_SLOTS) {
        return Err(Error::invalid_parameter(
            o,
            format!("{o} × {i} = {a} × {b} is above {MAX_BANDED_SLOTS}{note}"),
        ));
    }
    Ok(())
}

/// The error of a banded shape of `outer × inner` slots (named `name`, as
/// `"bands × rows"`) that reads more slots than a signature's `len`.
pub(crate) fn check_slots_read(
    name: &'static str,
    outer: usize,
    inner: usize,
    len: usize,
) -> Result<(), Error> {
    let used = outer * inner;
    if used > len {
        return Err(Error::invalid_parameter(
            name,
            format!("{outer} × {inner} = {used} exceeds the signature's {len} slots"),
        ));
    }
    Ok(())
}

/// The most signature values LSH parameters may band: `bands × rows ≤ 65,536`, the
/// largest MinHash signature (`ndd_minhash::MAX_NUM_HASHES`).
///
/// An index holds one bucket table per band (about 90 bytes empty), so the limit
/// bounds what [`LshIndex::new`](crate::LshIndex::new) allocates before any document
/// (under 6 MiB); `LshParams::new(2^61, 1)` used to make it abort.
///
/// # Example
///
/// ```
/// use near_dup::lsh::{LshParams, MAX_BANDED_SLOTS};
/// assert!(LshParams::new(MAX_BANDED_SLOTS, 1).is_ok());
/// assert!(LshParams::new(MAX_BANDED_SLOTS / 2, 3).is_err());
/// ```
pub const MAX_BANDED_SLOTS: usize = 1 << 16;

/// The recall at the threshold that [`LshParams::for_threshold`] guarantees, and the
/// `ndd` tool's default banding (`Banding::Recall(0.99)` in `ndd-pipeline`): a pair of
/// similarity exactly `T` becomes a candidate with probability at least 0.99, pairs
/// above it with more.
///
/// # Example
///
/// ```
/// use near_dup::lsh::{DEFAULT_MIN_RECALL, LshParams};
/// let p = LshParams::for_threshold(0.8, 128)?;
/// assert_eq!(p, LshParams::min_candidates_for_recall(0.8, 128, DEFAULT_MIN_RECALL)?);
/// assert!(p.probability(0.8) >= DEFAULT_MIN_RECALL);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_MIN_RECALL: f64 = 0.99;

/// Banding parameters: a signature's first `bands × rows` slots are cut into `bands`
/// bands of `rows` consecutive slots; two documents become a candidate pair when all
/// `rows` slots of at least one band agree.
///
/// For a pair whose slots agree independently with probability `s` (MinHash: `s` is
/// the Jaccard similarity), one band agrees with probability `s^r`, so the pair is a
/// candidate with probability `1 − (1 − s^r)^b`: the S-curve of
/// [`probability`](Self::probability), steepest near
/// [`threshold_estimate`](Self::threshold_estimate) `≈ (1/b)^(1/r)`. (Giorgio Gambosi,
/// "Near duplicate detection", slides for the Course of Information Retrieval,
/// University of Rome Tor Vergata, derived from slides by C. Manning and H. Schütze:
/// Gambosi's near-duplicate detection slides (after Manning and Schütze), "Partition in bands" to "Picking the S-curve".)
///
/// Choose `b` and `r` for a similarity threshold with
/// [`for_threshold`](Self::for_threshold) (99% recall at the threshold, the `ndd`
/// tool's default) or [`min_candidates_for_recall`](Self::min_candidates_for_recall)
/// (any recall), or with [`optimal`](Self::optimal) /
/// [`for_threshold_balanced`](Self::for_threshold_balanced) (weighted
/// false-positive and false-negative areas, the method of datasketch's `MinHashLSH`).
///
/// # Example
///
/// ```
/// use near_dup::lsh::LshParams;
/// // Gambosi's slides' example: 20 bands of 5 rows.
/// let p = LshParams::new(20, 5)?;
/// assert!((p.probability(0.8) - 0.9996).abs() < 1e-4);
/// assert!((p.probability(0.3) - 0.0475).abs() < 1e-4);
/// // For 128-slot signatures and a 0.8 threshold, weighing both errors equally:
/// assert_eq!(LshParams::for_threshold_balanced(0.8, 128)?, LshParams::new(9, 13)?);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LshParams {
    bands: usize,
    rows: usize,
}

impl LshParams {
    /// `bands` bands of `rows` rows each.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when either is 0 or `bands × rows` is above
    /// [`MAX_BANDED_SLOTS`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::LshParams;
    /// let p = LshParams::new(9, 13)?;
    /// assert_eq!((p.bands(), p.rows(), p.slots_used()), (9, 13, 117));
    /// assert!(LshParams::new(0, 5).is_err());
    /// assert!(LshParams::new(5, 0).is_err());
    /// assert!(LshParams::new(1 << 61, 1).is_err()); // an index would need 2^61 tables
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(bands: usize, rows: usize) -> Result<Self, Error> {
        check_shape(
            ("bands", bands),
            ("rows", rows),
            ", the most signature values an index bands",
        )?;
        Ok(LshParams { bands, rows })
    }

    /// `bands × rows` already known to be valid (both ≥ 1, product ≤ the limit).
    pub(crate) const fn from_valid(bands: usize, rows: usize) -> Self {
        LshParams { bands, rows }
    }

    /// The number of bands `b`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::LshParams::new(20, 5)?.bands(), 20);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn bands(&self) -> usize {
        self.bands
    }

    /// The number of rows (slots) per band `r`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::LshParams::new(20, 5)?.rows(), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn rows(&self) -> usize {
        self.rows
    }

    /// `bands × rows`: how many leading slots of a signature the bands use (later
    /// slots are ignored). Signatures must have at least this many.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::LshParams::new(9, 13)?.slots_used(), 117);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn slots_used(&self) -> usize {
        self.bands * self.rows
    }

    /// The probability `1 − (1 − s^r)^b` that two signatures whose slots agree with
    /// probability `s` share at least one band: the S-curve (Gambosi's near-duplicate detection slides (after Manning and Schütze), "Collision
    /// probability in a band").
    ///
    /// Computed as `−expm1(b · ln_1p(−s^r))`, which keeps full relative precision for
    /// tiny probabilities. `s` outside `[0, 1]` is clamped into it; NaN gives NaN.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::LshParams::new(20, 5)?;
    /// // Gambosi's slides' table, "Example: b = 20, r = 5".
    /// for (s, printed) in [(0.2, 0.006), (0.5, 0.47), (0.8, 0.9996)] {
    ///     assert!((p.probability(s) - printed).abs() < 1e-3);
    /// }
    /// assert_eq!(p.probability(0.0), 0.0);
    /// assert_eq!(p.probability(1.0), 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn probability(&self, s: f64) -> f64 {
        if s.is_nan() {
            return f64::NAN;
        }
        s_curve(s.clamp(0.0, 1.0), self.bands, self.rows)
    }

    /// The similarity where the S-curve rises most steeply, approximately
    /// `(1/b)^(1/r)`: a quick guide to where these parameters put the threshold.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::LshParams::new(20, 5)?;
    /// assert!((p.threshold_estimate() - 0.5493).abs() < 1e-4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn threshold_estimate(&self) -> f64 {
        (1.0 / self.bands as f64).powf(1.0 / self.rows as f64)
    }

    /// The false-positive area `∫₀ᵗ P(s) ds`: how much probability of becoming a
    /// candidate pairs below the threshold `t` get (the green area of Gambosi's slides'
    /// "Picking the S-curve").
    ///
    /// Adaptive Gauss–Kronrod (7, 15) quadrature, absolute error below 1e-9. `t`
    /// outside `[0, 1]` is clamped into it; NaN gives NaN.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::LshParams::new(1, 3)?; // P(s) = s³, area t⁴/4
    /// assert!((p.false_positive_area(0.5) - 0.5f64.powi(4) / 4.0).abs() < 1e-12);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn false_positive_area(&self, t: f64) -> f64 {
        if t.is_nan() {
            return f64::NAN;
        }
        let (b, r) = (self.bands, self.rows);
        integrate(|s| s_curve(s, b, r), r, 0.0, t.clamp(0.0, 1.0))
    }

    /// The false-negative area `∫ₜ¹ (1 − P(s)) ds`: how much probability of being
    /// missed pairs above the threshold `t` get (the blue area of Gambosi's slides'
    /// "Picking the S-curve").
    ///
    /// Same quadrature and clamping as
    /// [`false_positive_area`](Self::false_positive_area).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::LshParams::new(1, 1)?; // P(s) = s, area (1 − t)² / 2
    /// assert!((p.false_negative_area(0.8) - 0.02).abs() < 1e-12);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn false_negative_area(&self, t: f64) -> f64 {
        if t.is_nan() {
            return f64::NAN;
        }
        let (b, r) = (self.bands, self.rows);
        // 1 − P(s) = (1 − s^r)^b, computed without cancellation.
        integrate(
            |s| (b as f64 * (-pow_usize(s, r)).ln_1p()).exp(),
            r,
            t.clamp(0.0, 1.0),
            1.0,
        )
    }

    /// The `b × r ≤ num_slots` minimizing
    /// `fp_weight · false_positive_area(threshold) + fn_weight · false_negative_area(threshold)`.
    ///
    /// Every pair `(b, r)` is evaluated, `b` ascending then `r` ascending, and the
    /// first strict minimum wins: the method and tie rule of datasketch's
    /// `MinHashLSH` (`_optimal_param`), so `optimal(0.8, 128, 0.5, 0.5)` gives its 9 × 13.
    /// Raising `fn_weight` moves the curve left (more candidates, fewer misses).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `threshold` is not strictly between 0 and 1,
    /// `num_slots` is 0 or above [`MAX_SEARCH_SLOTS`], a weight is negative or not
    /// finite, or both weights are 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::LshParams;
    /// let balanced = LshParams::optimal(0.8, 128, 0.5, 0.5)?;
    /// assert_eq!((balanced.bands(), balanced.rows()), (9, 13));
    /// let recall_first = LshParams::optimal(0.8, 128, 0.1, 0.9)?;
    /// assert!(recall_first.probability(0.8) > balanced.probability(0.8));
    /// assert!(LshParams::optimal(0.8, 128, 0.0, 0.0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn optimal(
        threshold: f64,
        num_slots: usize,
        fp_weight: f64,
        fn_weight: f64,
    ) -> Result<Self, Error> {
        check_threshold(threshold)?;
        check_num_slots(num_slots)?;
        check_weights(fp_weight, fn_weight)?;
        let mut best = LshParams { bands: 1, rows: 1 };
        let mut best_cost = f64::INFINITY;
        for_each_shape(num_slots, |p| {
            let mut cost = 0.0;
            if fp_weight > 0.0 {
                cost += fp_weight * p.false_positive_area(threshold);
            }
            if fn_weight > 0.0 {
                cost += fn_weight * p.false_negative_area(threshold);
            }
            if cost < best_cost {
                best_cost = cost;
                best = p;
            }
        });
        Ok(best)
    }

    /// The `ndd` tool's banding: the fewest candidates with recall at least
    /// [`DEFAULT_MIN_RECALL`] (0.99) at `threshold`
    /// ([`min_candidates_for_recall`](Self::min_candidates_for_recall)). Pairs just
    /// above the threshold are not lost; verification removes the extra candidates.
    ///
    /// In 0.1.0 this weighed false positives and negatives equally, which misses
    /// about 60% of the pairs exactly at the threshold (9 × 13 at 0.8 with 128
    /// slots); that choice is [`for_threshold_balanced`](Self::for_threshold_balanced).
    ///
    /// # Errors
    ///
    /// As [`min_candidates_for_recall`](Self::min_candidates_for_recall): also when
    /// `num_slots` is too small for 99% recall at `threshold`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::LshParams;
    /// let p = LshParams::for_threshold(0.8, 128)?;
    /// assert_eq!((p.bands(), p.rows()), (16, 6));
    /// // 1 − (1 − 0.8⁶)¹⁶ = 0.992
    /// assert!((p.probability(0.8) - 0.9923).abs() < 1e-4);
    /// assert!(LshParams::for_threshold(1.0, 128).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn for_threshold(threshold: f64, num_slots: usize) -> Result<Self, Error> {
        Self::min_candidates_for_recall(threshold, num_slots, DEFAULT_MIN_RECALL)
    }

    /// [`optimal`](Self::optimal) with equal weights (0.5, 0.5): the default of
    /// datasketch's `MinHashLSH(threshold, num_perm)`, and what
    /// [`for_threshold`](Self::for_threshold) gave in 0.1.0. Fewer candidates than
    /// [`for_threshold`](Self::for_threshold), and lower recall near the threshold
    /// (the S-curve's midpoint lands above it).
    ///
    /// # Errors
    ///
    /// As [`optimal`](Self::optimal).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::LshParams;
    /// let p = LshParams::for_threshold_balanced(0.8, 128)?;
    /// assert_eq!((p.bands(), p.rows()), (9, 13));
    /// // 1 − (1 − 0.8¹³)⁹ = 0.399: 40% recall exactly at the threshold.
    /// assert!((p.probability(0.8) - 0.3988).abs() < 1e-4);
    /// assert!(LshParams::for_threshold_balanced(1.0, 128).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn for_threshold_balanced(threshold: f64, num_slots: usize) -> Result<Self, Error> {
        Self::optimal(threshold, num_slots, 0.5, 0.5)
    }

    /// Among all `b × r ≤ num_slots` whose candidate probability at `threshold` is at
    /// least `min_recall`, the one with the smallest
    /// [`false_positive_area`](Self::false_positive_area): the fewest candidates below
    /// the threshold for a guaranteed recall at it (ties: smallest `b`, then `r`).
    ///
    /// The constraint is evaluated in `f64`, so `min_recall = 1` accepts curves
    /// within rounding of 1 at the threshold.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `threshold` is not strictly between 0 and 1,
    /// `num_slots` is 0 or above [`MAX_SEARCH_SLOTS`], `min_recall` is not in `(0, 1]`,
    /// or no `b × r ≤ num_slots` reaches `min_recall`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::LshParams;
    /// let p = LshParams::min_candidates_for_recall(0.8, 128, 0.99)?;
    /// assert!(p.probability(0.8) >= 0.99);
    /// assert!(p.slots_used() <= 128);
    /// // One slot cannot promise 99% recall at 0.5.
    /// assert!(LshParams::min_candidates_for_recall(0.5, 1, 0.99).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn min_candidates_for_recall(
        threshold: f64,
        num_slots: usize,
        min_recall: f64,
    ) -> Result<Self, Error> {
        check_threshold(threshold)?;
        check_num_slots(num_slots)?;
        if !(min_recall > 0.0 && min_recall <= 1.0) {
            return Err(Error::invalid_parameter(
                "min_recall",
                format!("must lie in (0, 1], got {min_recall}"),
            ));
        }
        let mut best = None;
        let mut best_fp = f64::INFINITY;
        for p in fewest_bands_for_recall(threshold, num_slots, min_recall) {
            let fp = p.false_positive_area(threshold);
            if fp < best_fp {
                best_fp = fp;
                best = Some(p);
            }
        }
        best.ok_or_else(|| {
            Error::invalid_parameter(
                "min_recall",
                format!(
                    "no bands × rows ≤ {num_slots} reaches recall {min_recall} at similarity {threshold}"
                ),
            )
        })
    }

    /// `Ok` when a signature of `len` slots is long enough for these parameters.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `bands × rows > len`.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::LshParams::new(9, 13)?;
    /// assert!(p.check_signature_len(128).is_ok());
    /// assert!(p.check_signature_len(100).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn check_signature_len(&self, len: usize) -> Result<(), Error> {
        check_slots_read("bands × rows", self.bands, self.rows, len)
    }

    /// Appends the `b` band keys of a signature's slot values to `out`: key `i` is
    /// [`band_key`]`(i, &slots[i·r .. (i+1)·r])`.
    ///
    /// These are plain, stable values (the same on every platform, process and run),
    /// so a distributed job can compute them per document and shuffle on
    /// `(band index, key)`: documents sharing a group are candidate pairs. Appending
    /// lets a batch of documents fill one flat `n × b` buffer.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `slots` is shorter than `bands × rows`; nothing
    /// is appended.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{band_key, LshParams};
    /// let p = LshParams::new(2, 3)?;
    /// let mut keys = Vec::new();
    /// p.band_keys_into(&[1, 2, 3, 4, 5, 6, 7], &mut keys)?; // slot 7 is unused
    /// assert_eq!(keys, vec![0x7c68_b490_6e7e_a780, 0x8a7e_a1d6_fbae_d2f0]);
    /// assert_eq!(keys[1], band_key(1, &[4, 5, 6]));
    /// assert!(p.band_keys_into(&[1, 2, 3], &mut keys).is_err());
    /// assert_eq!(keys.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn band_keys_into(&self, slots: &[u64], out: &mut Vec<u64>) -> Result<(), Error> {
        self.check_signature_len(slots.len())?;
        out.reserve(self.bands);
        out.extend(
            slots
                .chunks_exact(self.rows)
                .take(self.bands)
                .enumerate()
                .map(|(i, band)| band_key(i, band)),
        );
        Ok(())
    }

    /// The `b` band keys of a signature's slot values (allocates; see
    /// [`band_keys_into`](Self::band_keys_into)).
    ///
    /// # Errors
    ///
    /// As [`band_keys_into`](Self::band_keys_into).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::LshParams::new(4, 2)?;
    /// let a = p.band_keys(&[1, 2, 3, 4, 5, 6, 7, 8])?;
    /// let b = p.band_keys(&[1, 2, 3, 4, 5, 6, 7, 9])?;
    /// assert_eq!(a[..3], b[..3]);
    /// assert_ne!(a[3], b[3]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn band_keys(&self, slots: &[u64]) -> Result<Vec<u64>, Error> {
        let mut out = Vec::with_capacity(self.bands);
        self.band_keys_into(slots, &mut out)?;
        Ok(out)
    }

    /// Writes the band keys of `slots` (already checked to be long enough) into `out`
    /// (`out.len() == bands`).
    #[inline]
    pub(crate) fn write_band_keys(&self, slots: &[u64], out: &mut [u64]) {
        for (i, (dst, band)) in out
            .iter_mut()
            .zip(slots.chunks_exact(self.rows))
            .enumerate()
        {
            *dst = band_key(i, band);
        }
    }
}

/// The stable key of one band: XXH3-64 ([`ndd_core::hash::stable_hash64`]) of the
/// little-endian bytes of the band's slot values, in order, with seed `band`
/// ([`ndd_core::hash::hash_u64s`], the hash super-shingles use too).
///
/// The seed makes equal slot values in different bands give different keys, so all
/// bands can share one key space (one shuffle) in a distributed job. Allocation-free.
///
/// # Example
///
/// ```
/// use near_dup::lsh::band_key;
/// use near_dup::hash::stable_hash64;
/// let mut bytes = Vec::new();
/// for v in [1u64, 2, 3] {
///     bytes.extend_from_slice(&v.to_le_bytes());
/// }
/// assert_eq!(band_key(0, &[1, 2, 3]), stable_hash64(&bytes, 0));
/// assert_eq!(band_key(0, &[1, 2, 3]), 0x7c68_b490_6e7e_a780); // python-xxhash
/// assert_ne!(band_key(0, &[1, 2, 3]), band_key(1, &[1, 2, 3]));
/// ```
#[inline]
#[must_use]
pub fn band_key(band: usize, band_slots: &[u64]) -> u64 {
    hash_u64s(band_slots, band as u64)
}

/// The weights of false positives and false negatives: finite, non-negative, not both
/// 0 (`LshParams::optimal`, `EnsembleParams::with_weights`).
pub(crate) fn check_weights(fp_weight: f64, fn_weight: f64) -> Result<(), Error> {
    for (name, w) in [("fp_weight", fp_weight), ("fn_weight", fn_weight)] {
        if !(w.is_finite() && w >= 0.0) {
            return Err(Error::invalid_parameter(
                name,
                format!("must be finite and non-negative, got {w}"),
            ));
        }
    }
    if fp_weight == 0.0 && fn_weight == 0.0 {
        return Err(Error::invalid_parameter(
            "fp_weight",
            "fp_weight and fn_weight cannot both be 0",
        ));
    }
    Ok(())
}

fn check_threshold(t: f64) -> Result<(), Error> {
    if t > 0.0 && t < 1.0 {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            "threshold",
            format!("must lie strictly between 0 and 1, got {t}"),
        ))
    }
}

fn check_num_slots(n: usize) -> Result<(), Error> {
    if n == 0 || n > MAX_SEARCH_SLOTS {
        return Err(Error::invalid_parameter(
            "num_slots",
            format!("must lie in [1, {MAX_SEARCH_SLOTS}], got {n}"),
        ));
    }
    Ok(())
}

/// Calls `f` on every `(b, r)` with `b × r ≤ num_slots`, `b` ascending then `r`.
fn for_each_shape(num_slots: usize, mut f: impl FnMut(LshParams)) {
    for bands in 1..=num_slots {
        for rows in 1..=num_slots / bands {
            f(LshParams { bands, rows });
        }
    }
}

/// The shapes [`LshParams::min_candidates_for_recall`] integrates: for each row count
/// `r`, the fewest bands `b` (with `b × r ≤ num_slots`) whose probability at
/// `threshold` reaches `min_recall`, in the search's order (`b` ascending, then `r`).
///
/// For a fixed `r`, more bands raise the S-curve at every similarity (`1 − (1 −
/// s^r)^b` grows with `b`, and so does its `f64` form, `b` multiplying a fixed
/// logarithm), so the recall constraint holds from some `b` on and the
/// false-positive area only grows past it: the other shapes of that `r` cannot win.
/// Integrating one shape per row count instead of every feasible shape took the
/// search from about 11.4 million instructions to 0.26 million at `(0.8, 128,
/// 0.99)`, work the `ndd` tool does on its calling thread before reading (issue 31).
/// The test `pruned_search_equals_every_shape` checks the choice against the search
/// over every shape.
fn fewest_bands_for_recall(threshold: f64, num_slots: usize, min_recall: f64) -> Vec<LshParams> {
    let mut shapes: Vec<LshParams> = (1..=num_slots)
        .filter_map(|rows| {
            (1..=num_slots / rows)
                .map(|bands| LshParams { bands, rows })
                .find(|p| p.probability(threshold) >= min_recall)
        })
        .collect();
    shapes.sort_unstable_by_key(|p| (p.bands, p.rows));
    shapes
}

/// `x^n` for a non-negative integer exponent.
#[inline]
fn pow_usize(x: f64, n: usize) -> f64 {
    match i32::try_from(n) {
        Ok(n) => x.powi(n),
        Err(_) => x.powf(n as f64),
    }
}

/// `1 − (1 − s^r)^b` for `s` in `[0, 1]`.
#[inline]
fn s_curve(s: f64, b: usize, r: usize) -> f64 {
    -(b as f64 * (-pow_usize(s, r)).ln_1p()).exp_m1()
}

/// Absolute error target of [`integrate`] over `[0, 1]` (scaled by panel width).
const QUAD_TOL: f64 = 1e-11;
/// Maximum bisection depth of [`integrate`] within one initial panel.
const QUAD_MAX_DEPTH: u32 = 30;
/// The initial panels end where `s^r = 2^-j` for `j = 0, 4, 8, …, 64`.
const QUAD_STEP: u32 = 4;
const QUAD_LAST: u32 = 64;

/// `∫ₐᵇ f` for an integrand that depends on `s` through `u = s^r`: the S-curve and
/// its complement.
///
/// The interval is first cut where `u` falls by a factor 16 (`s = 2^(-j/r)`), so each
/// initial panel sees a smooth piece of the curve however steep it is (for `r` in the
/// thousands all the mass sits within 1% of `s = 1`, where a plain adaptive rule
/// would sample nothing). Below `u = 2^-64` one panel remains, where `P ≤ b·u` is
/// negligible. Each panel is then integrated by adaptive Gauss–Kronrod (7, 15),
/// accepted when the Gauss and Kronrod estimates differ by at most
/// `QUAD_TOL × width` (a pessimistic bound: the Kronrod estimate is far more accurate
/// than that difference).
fn integrate(f: impl Fn(f64) -> f64 + Copy, r: usize, a: f64, b: f64) -> f64 {
    if b <= a {
        return 0.0;
    }
    let mut total = 0.0;
    let mut hi = b;
    let mut j = 0;
    while j <= QUAD_LAST {
        // Breakpoints descend from 1: s_j = 2^(-j/r).
        let s_j = (-f64::from(j) / r as f64).exp2();
        if s_j <= a {
            break;
        }
        if s_j < hi {
            total += adaptive(f, s_j, hi, QUAD_MAX_DEPTH);
            hi = s_j;
        }
        j += QUAD_STEP;
    }
    total + adaptive(f, a, hi, QUAD_MAX_DEPTH)
}

fn adaptive(f: impl Fn(f64) -> f64 + Copy, a: f64, b: f64, depth: u32) -> f64 {
    let (kronrod, gauss) = gauss_kronrod_15(f, a, b);
    if depth == 0 || (kronrod - gauss).abs() <= QUAD_TOL * (b - a) {
        return kronrod;
    }
    let m = 0.5 * (a + b);
    adaptive(f, a, m, depth - 1) + adaptive(f, m, b, depth - 1)
}

/// The 15-point Kronrod and embedded 7-point Gauss estimates of `∫ₐᵇ f`
/// (nodes and weights of QUADPACK's `qk15`).
fn gauss_kronrod_15(f: impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    const XGK: [f64; 8] = [
        0.991_455_371_120_812_6,
        0.949_107_912_342_758_5,
        0.864_864_423_359_769_1,
        0.741_531_185_599_394_4,
        0.586_087_235_467_691_1,
        0.405_845_151_377_397_2,
        0.207_784_955_007_898_5,
        0.0,
    ];
    const WGK: [f64; 8] = [
        0.022_935_322_010_529_22,
        0.063_092_092_629_978_55,
        0.104_790_010_322_250_2,
        0.140_653_259_715_525_9,
        0.169_004_726_639_267_9,
        0.190_350_578_064_785_4,
        0.204_432_940_075_298_9,
        0.209_482_141_084_727_8,
    ];
    // Gauss weights for the odd-indexed Kronrod nodes (1, 3, 5) and the centre.
    const WG: [f64; 4] = [
        0.129_484_966_168_869_7,
        0.279_705_391_489_276_7,
        0.381_830_050_505_118_9,
        0.417_959_183_673_469_4,
    ];
    let centre = 0.5 * (a + b);
    let half = 0.5 * (b - a);
    let fc = f(centre);
    let mut kronrod = fc * WGK[7];
    let mut gauss = fc * WG[3];
    for j in 0..7 {
        let dx = half * XGK[j];
        let pair = f(centre - dx) + f(centre + dx);
        kronrod += WGK[j] * pair;
        if j % 2 == 1 {
            gauss += WG[j / 2] * pair;
        }
    }
    (kronrod * half, gauss * half)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`LshParams::min_candidates_for_recall`] as it searched before the pruning of
    /// [`fewest_bands_for_recall`]: every feasible shape integrated, the first
    /// strict minimum kept.
    fn every_shape_search(threshold: f64, num_slots: usize, min_recall: f64) -> Option<LshParams> {
        let mut best = None;
        let mut best_fp = f64::INFINITY;
        for_each_shape(num_slots, |p| {
            if p.probability(threshold) >= min_recall {
                let fp = p.false_positive_area(threshold);
                if fp < best_fp {
                    best_fp = fp;
                    best = Some(p);
                }
            }
        });
        best
    }

    #[test]
    fn pruned_search_equals_every_shape() {
        let mut found = 0;
        for num_slots in [1usize, 2, 3, 7, 16, 40, 64, 128, 200, 512] {
            for threshold in [0.01, 0.1, 0.3, 0.5, 0.65, 0.8, 0.9, 0.95, 0.99] {
                for min_recall in [0.5, 0.9, 0.99, 0.999, 1.0] {
                    let want = every_shape_search(threshold, num_slots, min_recall);
                    let got =
                        LshParams::min_candidates_for_recall(threshold, num_slots, min_recall).ok();
                    assert_eq!(
                        got, want,
                        "t={threshold} slots={num_slots} recall={min_recall}"
                    );
                    found += usize::from(want.is_some());
                }
            }
        }
        // The grid holds both feasible and infeasible searches.
        assert!(found > 100 && found < 10 * 9 * 5, "{found}");
    }

    #[test]
    fn quadrature_is_exact_on_closed_forms() {
        // b = 1: ∫₀ᵗ s^r = t^(r+1)/(r+1).
        for r in [1usize, 2, 5, 13, 128, 1000, 8192] {
            for t in [0.1, 0.5, 0.8, 0.99, 0.999] {
                let p = LshParams::new(1, r).unwrap();
                let want = pow_usize(t, r + 1) / (r + 1) as f64;
                let got = p.false_positive_area(t);
                assert!((got - want).abs() < 1e-9, "r={r} t={t}: {got} vs {want}");
            }
        }
        // r = 1: ∫₀ᵗ 1 − (1 − s)^b = t − (1 − (1 − t)^(b+1)) / (b + 1).
        for b in [1usize, 2, 20, 128, 8192] {
            for t in [0.001, 0.1, 0.5, 0.8] {
                let p = LshParams::new(b, 1).unwrap();
                let want = t - (1.0 - pow_usize(1.0 - t, b + 1)) / (b + 1) as f64;
                let got = p.false_positive_area(t);
                assert!((got - want).abs() < 1e-9, "b={b} t={t}: {got} vs {want}");
                let fn_want = pow_usize(1.0 - t, b + 1) / (b + 1) as f64;
                let fn_got = p.false_negative_area(t);
                assert!((fn_got - fn_want).abs() < 1e-9, "b={b} t={t}");
            }
        }
    }

    #[test]
    fn band_key_streams_long_bands_identically() {
        use ndd_core::hash::stable_hash64;
        let slots: Vec<u64> = (0..100u64).map(|i| i.wrapping_mul(0x9E37)).collect();
        let mut bytes = Vec::new();
        for v in &slots {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        for len in [0, 1, 31, 32, 33, 64, 65, 100] {
            assert_eq!(
                band_key(3, &slots[..len]),
                stable_hash64(&bytes[..len * 8], 3)
            );
        }
    }
}

//! The test a MinHash candidate pair passes before verification, the same in every
//! engine ([`EstimateFilter`]): the in-memory sorted join and the streamed search of
//! a saved index ([`super::minhash`]), out of core's block scoring, the explanations
//! and the distributed job.

use ndd_core::{Error, Signature, Threshold};
use ndd_minhash::MinHashSignature;

use super::{Emit, PLAUSIBLE_SIGMAS};

/// The lowest estimate a pair of similarity at least `t` shows with probability above
/// 1 − 3.2·10⁻⁵: `t − 4·sqrt(v/k)` with `v` the largest `J(1 − J)` over `J ≥ t`.
pub(crate) fn plausible_floor(t: f64, k: usize) -> f64 {
    let v = if t >= 0.5 { t * (1.0 - t) } else { 0.25 };
    t - PLAUSIBLE_SIGMAS * (v / k as f64).sqrt()
}

/// The lowest estimate of a pair the candidate stream passes on for `emit`: the
/// threshold (the estimate decides), the plausible floor (exact Jaccard decides), or
/// none (a measure the estimate does not bound decides). Every engine's stream uses it,
/// through [`EstimateFilter`].
pub(crate) fn floor(emit: Emit, threshold: Threshold, num_perm: usize) -> f64 {
    match emit {
        Emit::Accepted => threshold.get(),
        Emit::AllCandidates => f64::NEG_INFINITY,
        Emit::Plausible => plausible_floor(threshold.get(), num_perm),
    }
}

/// Bits per slot of the fields [`Emit::Plausible`] compares: 8 (128 bytes for 128
/// values, against 1,024 for full signatures; docs/decisions.md, "Compact state of the
/// main job" and "One plausibility filter for every engine").
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::PLAUSIBLE_FIELD_BITS, 8);
/// ```
pub const PLAUSIBLE_FIELD_BITS: u32 = 8;

/// The test a MinHash candidate pair passes before verification, the same in every
/// engine (in memory, the saved index, out of core, the distributed job): its
/// [`score`](Self::score) must reach its [`floor`](Self::floor).
///
/// When the estimate verifies ([`Emit::Accepted`]) the score is the MinHash estimate
/// and the floor the threshold; when every candidate goes on ([`Emit::AllCandidates`])
/// the floor is minus infinity. When exact Jaccard decides ([`Emit::Plausible`]) the
/// score is the fraction of equal [`PLAUSIBLE_FIELD_BITS`]-bit fields (the lowest bits
/// of each slot, as [`BBitSlots`](ndd_minhash::BBitSlots) keeps them) and the floor the plausible one: never
/// below the estimate (equal slots have equal fields), so it drops no pair the estimate
/// would pass, and an engine may keep 128 bytes of fields per document instead of the
/// signature. What passes beyond the estimate the exact measure rejects.
///
/// # Example
///
/// ```
/// use near_dup::{Signature, Sketcher};
/// use near_dup::minhash::MinHasher;
/// use near_dup::pipeline::{Dedup, Verifier};
/// let h = MinHasher::new(128)?;
/// let (a, b) = (h.sketch_features(0..1000), h.sketch_features(100..1100));
/// let exact = Dedup::new().threshold(0.8).plan()?.estimate_filter(128);
/// assert_eq!(exact.field_bits(), Some(8));
/// assert!(exact.score(&a, &b)? >= a.similarity(&b)?.value());
/// assert!(exact.passes(exact.score(&a, &b)?));
/// let estimate = Dedup::new().threshold(0.8).verifier(Verifier::MethodScore).plan()?;
/// let estimate = estimate.estimate_filter(128);
/// assert_eq!((estimate.field_bits(), estimate.floor()), (None, 0.8));
/// assert_eq!(estimate.score(&a, &b)?, a.similarity(&b)?.value());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimateFilter {
    pub(super) floor: f64,
    pub(super) field_bits: Option<u32>,
}

impl EstimateFilter {
    /// The filter of the candidate stream for `emit` at `threshold` with `num_perm`
    /// values.
    pub(crate) fn new(emit: Emit, threshold: Threshold, num_perm: usize) -> Self {
        EstimateFilter {
            floor: floor(emit, threshold, num_perm),
            field_bits: (emit == Emit::Plausible).then_some(PLAUSIBLE_FIELD_BITS),
        }
    }

    /// The filter that passes every candidate, scored by its estimate.
    pub(crate) fn every_candidate() -> Self {
        EstimateFilter {
            floor: f64::NEG_INFINITY,
            field_bits: None,
        }
    }

    /// The lowest score that passes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Verifier};
    /// let plan = Dedup::new().verifier(Verifier::Containment).plan()?;
    /// assert_eq!(plan.estimate_filter(128).floor(), f64::NEG_INFINITY);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn floor(&self) -> f64 {
        self.floor
    }

    /// The bits per slot of the fields the score compares, `None` when it is the
    /// estimate of the full signatures.
    ///
    /// # Example
    ///
    /// ```
    /// let plan = near_dup::pipeline::Dedup::new().plan()?;
    /// assert_eq!(plan.estimate_filter(128).field_bits(), Some(8));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn field_bits(&self) -> Option<u32> {
        self.field_bits
    }

    /// The pair's score from the two full signatures: the fraction of equal fields, or
    /// the estimate (see the type's documentation).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] or [`Error::LengthMismatch`] when the signatures cannot
    /// be compared.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let a = near_dup::minhash::MinHasher::new(128)?.sketch_features(0..10);
    /// let filter = near_dup::pipeline::Dedup::new().plan()?.estimate_filter(128);
    /// assert_eq!(filter.score(&a, &a)?, 1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn score(&self, a: &MinHashSignature, b: &MinHashSignature) -> Result<f64, Error> {
        match self.field_bits {
            Some(bits) => Ok(a.field_matches(b, bits)? as f64 / a.values().len().max(1) as f64),
            None => Ok(a.similarity(b)?.value()),
        }
    }

    /// Whether a pair of this `score` goes on to verification.
    ///
    /// # Example
    ///
    /// ```
    /// let filter = near_dup::pipeline::Dedup::new().threshold(0.8).plan()?.estimate_filter(128);
    /// assert!(filter.passes(0.8) && !filter.passes(0.5));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn passes(&self, score: f64) -> bool {
        score >= self.floor
    }
}

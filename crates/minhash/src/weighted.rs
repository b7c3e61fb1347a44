//! Weighted MinHash for real-valued sparse vectors: [`IcwsMinHasher`](crate::IcwsMinHasher) (Improved
//! Consistent Weighted Sampling, the recommended route) and [`BucketizedMinHasher`](crate::BucketizedMinHasher)
//! (Hajishirzi, Yih and Kołcz's (SIGIR 2010) bucketization of the weights into a set, then ordinary MinHash).
//!
//! Both produce a [`MinHashSignature`](crate::MinHashSignature) whose fraction of agreeing slots estimates the
//! weighted (generalized) Jaccard coefficient
//! `J_w(a, b) = Σ_f min(a_f, b_f) / Σ_f max(a_f, b_f)` ([`ndd_core::weighted_jaccard`]),
//! so the usual `r/k` estimator with its standard error, LSH banding and the byte
//! form work unchanged. This module holds what the two share; each has its own file
//! (`icws.rs`, `bucketized.rs`).

use ndd_core::{Error, SchemeId, Weighted};

/// The largest `k` accepted (as for [`MinHasher`](crate::MinHasher)).
pub(crate) const MAX_K: usize = crate::MAX_NUM_HASHES;
/// SplitMix64's increment (the golden ratio in 64 bits).
pub(crate) const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The feature scheme assumed when the caller does not name one.
pub(crate) fn default_feature_scheme() -> SchemeId {
    SchemeId::new("external-weighted-features").finish()
}

/// Checks that every weight is finite and non-negative.
pub(crate) fn check_entries(entries: &[Weighted]) -> Result<(), Error> {
    for (i, w) in entries.iter().enumerate() {
        if !w.weight.is_finite() || w.weight < 0.0 {
            return Err(Error::invalid_input(format!(
                "weight {} of feature {:#x} at index {i} is not a finite non-negative number",
                w.weight, w.feature
            )));
        }
    }
    Ok(())
}

//! Helpers shared by the test files of `ndd-minhash`.

use ndd_core::{ExternalFeatures, SchemeId};
use ndd_minhash::{MinHashScheme, MinHasher};

/// A `k`-slot MinHasher of `scheme` with `seed` over caller-given feature ids, whose
/// feature scheme is named `features`.
pub(crate) fn hasher_for_features(
    scheme: MinHashScheme,
    k: usize,
    seed: u64,
    features: &str,
) -> MinHasher<ExternalFeatures> {
    MinHasher::builder()
        .scheme(scheme)
        .num_hashes(k)
        .seed(seed)
        .build_for_features(SchemeId::new(features).finish())
        .expect("valid MinHash parameters")
}

/// The mean estimation error lies within three standard errors of zero.
#[track_caller]
pub(crate) fn assert_unbiased(what: &str, mean_error: f64, standard_error: f64) {
    assert!(
        mean_error.abs() < 3.0 * standard_error,
        "{what}: mean error {mean_error} exceeds 3 SE = {}",
        3.0 * standard_error
    );
}

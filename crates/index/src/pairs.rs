//! The sorted form of the pair joins: `hamming_pairs` and `exact_similar_pairs` run
//! their streaming `_into` form into a vector and sort it (`hamming_pairs` under
//! `rayon` joins its tables on the pool and sorts with `sort_pairs`).

use ndd_core::{Error, ScoredPair};

/// The pairs that `join` pushes, sorted by `(a, b)`.
pub(crate) fn sorted_pairs(
    join: impl FnOnce(&mut Vec<ScoredPair>) -> Result<(), Error>,
) -> Result<Vec<ScoredPair>, Error> {
    let mut out = Vec::new();
    join(&mut out)?;
    sort_pairs(&mut out);
    Ok(out)
}

/// Sorts join output by `(a, b)`, on the pool under `rayon`. A join pushes each pair
/// once, so the keys are distinct and an unstable sort has the one order.
pub(crate) fn sort_pairs(pairs: &mut [ScoredPair]) {
    #[cfg(feature = "rayon")]
    rayon::slice::ParallelSliceMut::par_sort_unstable_by_key(pairs, |p| (p.a, p.b));
    #[cfg(not(feature = "rayon"))]
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
}

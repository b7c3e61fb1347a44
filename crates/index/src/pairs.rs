//! The sorted form of the pair joins: `hamming_pairs` and `exact_similar_pairs` run
//! their streaming `_into` form into a vector and sort it.

use ndd_core::{Error, ScoredPair};

/// The pairs that `join` pushes, sorted by `(a, b)`.
pub(crate) fn sorted_pairs(
    join: impl FnOnce(&mut Vec<ScoredPair>) -> Result<(), Error>,
) -> Result<Vec<ScoredPair>, Error> {
    let mut out = Vec::new();
    join(&mut out)?;
    out.sort_unstable_by_key(|p| (p.a, p.b));
    Ok(out)
}

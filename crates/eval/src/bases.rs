//! [`distinct_texts`]: real texts that are not near-duplicates of each other, the
//! bases of a labeled set.

use ndd_core::{Error, FeatureExtractor, FeatureSet};
use ndd_index::exact_similar_pairs;

/// The texts of `pool`, in order, that share less than `max_jaccard` of their
/// features (by `extractor`) with every earlier text kept, at most `n` of them: real
/// documents that are not already near-duplicates, so that generated variants of them
/// are the only near-duplicates of a labeled set.
///
/// Exact: every pair at or above `max_jaccard` is found ([`exact_similar_pairs`]);
/// of each such pair the later text is dropped unless the earlier was dropped itself.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `max_jaccard` is not in `(0, 1]`.
///
/// # Example
///
/// ```
/// use near_dup::{FeatureExtractor, FeatureSink, SchemeId};
/// /// Words as features.
/// struct Words;
/// impl FeatureExtractor for Words {
///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
///         for w in doc.split_whitespace() {
///             sink.push(near_dup::hash::stable_hash64(w.as_bytes(), 0));
///         }
///     }
///     fn scheme(&self) -> SchemeId {
///         SchemeId::new("words").finish()
///     }
/// }
/// let pool = ["a b c d", "a b c e", "w x y z", "a b c d"];
/// let kept = near_dup::eval::distinct_texts(&pool, &Words, 0.5, 10)?;
/// assert_eq!(kept, ["a b c d", "w x y z"]); // "a b c e" shares 3 of 5 words with the first
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn distinct_texts<S: AsRef<str>, E: FeatureExtractor + ?Sized>(
    pool: &[S],
    extractor: &E,
    max_jaccard: f64,
    n: usize,
) -> Result<Vec<String>, Error> {
    let sets: Vec<FeatureSet> = pool
        .iter()
        .map(|t| extractor.feature_set(t.as_ref()))
        .collect();
    let mut dropped = vec![false; pool.len()];
    let mut close = exact_similar_pairs(&sets, max_jaccard)?;
    close.sort_unstable_by_key(|p| (p.a.min(p.b), p.a.max(p.b)));
    for p in close {
        let (a, b) = (p.a.min(p.b), p.a.max(p.b));
        if !dropped[a] {
            dropped[b] = true;
        }
    }
    Ok(pool
        .iter()
        .zip(dropped)
        .filter(|(_, d)| !d)
        .map(|(t, _)| t.as_ref().to_owned())
        .take(n)
        .collect())
}

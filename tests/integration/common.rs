//! What several cross-crate test files share: the bundled corpus, distinct bases taken
//! from it, and planted near-duplicates of bases.

#![allow(clippy::unwrap_used, dead_code)]

/// Every document of the bundled Debian copyright corpus, in file order.
pub(crate) use crate::corpus::bundled as bundled_texts;

/// The first `n` mid-sized texts of `all` (400 to 4,000 bytes) that are not
/// near-duplicates of one already taken (word 5-gram Jaccard above 0.3), so that the
/// only near-duplicates of a corpus planted from them are the planted ones. Panics
/// ("fixture too small") when `all` has fewer than `n` such texts.
#[cfg(feature = "shingle")]
pub(crate) fn distinct_bases(all: &[String], n: usize) -> Vec<String> {
    use near_dup::shingle::WordShingler;
    use near_dup::{FeatureExtractor, FeatureSet};
    let shingler = WordShingler::new(5).unwrap();
    let mut kept: Vec<(String, FeatureSet)> = Vec::new();
    for text in all {
        let set = shingler.feature_set(text);
        if !(400..4000).contains(&text.len())
            || kept
                .iter()
                .any(|(_, s)| near_dup::jaccard(s.as_slice(), set.as_slice()) > 0.3)
        {
            continue;
        }
        kept.push((text.clone(), set));
        if kept.len() == n {
            break;
        }
    }
    assert_eq!(kept.len(), n, "fixture too small");
    kept.into_iter().map(|(t, _)| t).collect()
}

/// `variants_per_base` planted variants of each of `bases` (ndd-eval's generator
/// seeded with `seed`), of the edit kinds `kinds` with their weights.
#[cfg(feature = "eval")]
pub(crate) fn planted(
    bases: &[String],
    seed: u64,
    variants_per_base: usize,
    kinds: &[(near_dup::eval::EditKind, f64)],
) -> near_dup::eval::SyntheticCorpus {
    let mut config = near_dup::eval::SynthConfig::new(seed);
    config.variants_per_base = variants_per_base;
    config.kinds = kinds.to_vec();
    near_dup::eval::generate_corpus(bases, &config).unwrap()
}

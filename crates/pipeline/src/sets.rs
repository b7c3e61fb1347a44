//! Shingle sets of many documents, for the exact join and the exact verifiers.

use ndd_core::{Error, FeatureExtractor, FeatureSet};

use crate::Features;
use crate::progress::{CHUNK, Progress, Stage};

/// The shingle set of every text whose `needed` flag is set (every text when `None`;
/// the others get an empty set), in parallel under `rayon`, with the extractor's
/// per-shingle calls monomorphized and one scratch buffer per worker.
pub(crate) fn shingle_sets(
    features: Features,
    texts: &[&str],
    needed: Option<&[bool]>,
    stage: Stage,
    progress: &dyn Progress,
) -> Result<Vec<FeatureSet>, Error> {
    crate::method::for_extractor!(features, |e| Ok(sets_with(
        &e, texts, needed, stage, progress
    )))
}

fn sets_with<E: FeatureExtractor + Sync>(
    extractor: &E,
    texts: &[&str],
    needed: Option<&[bool]>,
    stage: Stage,
    progress: &dyn Progress,
) -> Vec<FeatureSet> {
    let mut out = Vec::with_capacity(texts.len());
    for (c, chunk) in texts.chunks(CHUNK).enumerate() {
        let first = c * CHUNK;
        let one = |scratch: &mut Vec<u64>, (i, t): (usize, &&str)| {
            if needed.is_some_and(|n| !n[first + i]) {
                return FeatureSet::default();
            }
            scratch.clear();
            extractor.extract(t, scratch);
            FeatureSet::from_unsorted(scratch.clone())
        };
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            let part: Vec<FeatureSet> = chunk
                .par_iter()
                .enumerate()
                .map_init(Vec::new, one)
                .collect();
            out.extend(part);
        }
        #[cfg(not(feature = "rayon"))]
        {
            let mut scratch = Vec::new();
            out.extend(chunk.iter().enumerate().map(|x| one(&mut scratch, x)));
        }
        progress.advance(stage, chunk.len() as u64);
    }
    out
}

/// The number of distinct shingles of every text (the set sizes LSH Ensemble needs),
/// in parallel under `rayon`, one scratch buffer per worker; no set is kept.
#[cfg(feature = "minhash")]
pub(crate) fn set_sizes(features: Features, texts: &[&str]) -> Result<Vec<u64>, Error> {
    crate::method::for_extractor!(features, |e| Ok(sizes_with(&e, texts)))
}

#[cfg(feature = "minhash")]
fn sizes_with<E: FeatureExtractor + Sync>(extractor: &E, texts: &[&str]) -> Vec<u64> {
    let one = |scratch: &mut Vec<u64>, t: &&str| {
        scratch.clear();
        extractor.extract(t, scratch);
        scratch.sort_unstable();
        scratch.dedup();
        scratch.len() as u64
    };
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        texts.par_iter().map_init(Vec::new, one).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        let mut scratch = Vec::new();
        texts.iter().map(|t| one(&mut scratch, t)).collect()
    }
}

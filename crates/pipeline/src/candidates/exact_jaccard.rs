//! Exact Jaccard of the shingle sets: every pair at or above the threshold, found by
//! the prefix-filtered all-pairs join of `ndd_core::exact_similar_pairs`.

use ndd_core::{Error, FeatureSet, PairSink, ScoredPair, exact_similar_pairs};

use super::{CandidateReport, Ctx, in_chunks};
use crate::progress::Stage;

/// The shingle set of every text (in parallel under `rayon`).
pub(crate) fn feature_sets(
    shingles: crate::Shingles,
    texts: &[&str],
    ctx: &Ctx<'_>,
) -> Result<Vec<FeatureSet>, Error> {
    let extractor = shingles.extractor()?;
    Ok(in_chunks(texts, Stage::Sketch, ctx.progress, |chunk| {
        let one = |t: &&str| {
            let mut v: Vec<u64> = Vec::new();
            extractor.extract_dyn(t, &mut v);
            FeatureSet::from_unsorted(v)
        };
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            chunk.par_iter().map(one).collect::<Vec<_>>()
        }
        #[cfg(not(feature = "rayon"))]
        {
            chunk.iter().map(one).collect::<Vec<_>>()
        }
    }))
}

pub(crate) fn run(
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let n = texts.len() as u64;
    let (sets, sketch_time) = ctx.stage(Stage::Sketch, Some(n), || {
        feature_sets(ctx.shingles, texts, ctx)
    })?;
    let (pairs, search_time) = ctx.stage(Stage::Candidates, None, || {
        exact_similar_pairs(&sets, ctx.threshold)
    })?;
    let count = pairs.len() as u64;
    for (a, b, s) in pairs {
        sink.push_pair(ScoredPair::new(a, b, s));
    }
    Ok(CandidateReport {
        description: format!("exact Jaccard of {} (prefix-filtered join)", ctx.shingles),
        candidates: count,
        emitted: 0,
        sketch_time,
        search_time,
        index_bytes_per_document: None,
    })
}

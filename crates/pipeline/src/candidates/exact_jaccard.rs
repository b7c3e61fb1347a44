//! Exact Jaccard of the shingle sets: every pair at or above the threshold, found by
//! the prefix-filtered all-pairs join of `ndd_index::exact_similar_pairs`, with at
//! most `MAX_PARTNERS` pairs per document among those before it (a hot cluster).

use ndd_core::{Error, PairSink};
use ndd_index::exact_similar_pairs_capped_into;

use super::{CandidateReport, Ctx};
use crate::progress::Stage;

pub(crate) fn run(
    _source: &super::ExactJaccardSource,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let n = texts.len() as u64;
    let (sets, sketch_time) = ctx.stage(Stage::Sketch, Some(n), || {
        crate::sets::shingle_sets(ctx.features, texts, None, Stage::Sketch, ctx.progress)
    })?;
    let (pairs, search_time) = ctx.stage(Stage::Candidates, None, || {
        let mut pairs = Vec::new();
        exact_similar_pairs_capped_into(
            &sets,
            ctx.threshold.get(),
            Some(crate::method::MAX_PARTNERS),
            &mut pairs,
        )
        .map(|()| {
            pairs.sort_unstable_by_key(|p: &ndd_core::ScoredPair| (p.a, p.b));
            pairs
        })
    })?;
    let count = pairs.len() as u64;
    let shingles: usize = sets.iter().map(ndd_core::FeatureSet::len).sum();
    for p in pairs {
        sink.push_pair(p);
    }
    Ok(CandidateReport {
        description: format!(
            "exact Jaccard of {} (prefix-filtered join)",
            ctx.features.shingles()
        ),
        candidates: count,
        emitted: 0,
        sketch_time,
        search_time,
        index_bytes_per_document: None,
        signature_bytes_per_document: Some(8.0 * shingles as f64 / sets.len().max(1) as f64),
        bucket_scan: None,
    })
}

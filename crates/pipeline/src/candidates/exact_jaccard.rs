//! Exact Jaccard of the shingle sets: every pair at or above the threshold, found by
//! the prefix-filtered all-pairs join of `ndd_core::exact_similar_pairs`.

use ndd_core::{Error, PairSink};
use ndd_index::exact_similar_pairs;

use super::{CandidateReport, Ctx};
use crate::progress::Stage;

pub(crate) fn run(
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let n = texts.len() as u64;
    let (sets, sketch_time) = ctx.stage(Stage::Sketch, Some(n), || {
        crate::sets::shingle_sets(ctx.features, texts, None, Stage::Sketch, ctx.progress)
    })?;
    let (pairs, search_time) = ctx.stage(Stage::Candidates, None, || {
        exact_similar_pairs(&sets, ctx.threshold.get())
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
    })
}

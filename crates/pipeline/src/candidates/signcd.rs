//! SigNCD (normalized compression distance of punctuation-spot signatures) with the
//! exact P1-pruned all-pairs search; a pair is kept when SigNCD ≤ 1 − T, scored
//! 1 − SigNCD.

use ndd_core::{Error, PairSink};
use ndd_ncd::{Pruning, SearchConfig, SigNcd};

use super::{CandidateReport, Ctx};
use crate::SigNcdConfig;
use crate::progress::Stage;

pub(crate) fn validate(config: &SigNcdConfig, threshold: ndd_core::Threshold) -> Result<(), Error> {
    SigNcd::builder().compressor(config.compressor).build()?;
    SearchConfig::builder((1.0 - threshold.get()).max(0.0)).build()?;
    Ok(())
}

pub(crate) fn run(
    config: &SigNcdConfig,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let s = SigNcd::builder().compressor(config.compressor).build()?;
    let n = texts.len() as u64;
    let (corpus, sketch_time) = ctx.stage(Stage::Sketch, Some(n), || {
        #[cfg(feature = "rayon")]
        let corpus = s.par_corpus(texts);
        #[cfg(not(feature = "rayon"))]
        let corpus = s.corpus(texts);
        corpus
    })?;
    let tau = (1.0 - ctx.threshold.get()).max(0.0);
    let search = SearchConfig::builder(tau)
        .pruning(Pruning::P1)
        .parallel(cfg!(feature = "rayon"))
        .max_partners(Some(crate::method::MAX_PARTNERS))
        .build()?;
    // One row of the search per document.
    let (out, search_time) = ctx.stage(Stage::Candidates, Some(n), || {
        search.search_with_progress(&corpus, &|rows| {
            ctx.progress.advance(Stage::Candidates, rows);
        })
    })?;
    let r = out.report;
    for &p in &out.pairs {
        sink.push_pair(p.normalized());
    }
    let mut description = format!(
        "SigNCD ({}, Sig-1L comma signatures, {} full-text fallbacks), SigNCD <= {tau:.3}; \
         {} of {} pairs compared, {:.1}% pruned by P1",
        corpus.compressor_name(),
        corpus.fallback_count(),
        r.compared,
        r.total_pairs,
        // What P1 pruned: neither compared nor cut by the cap (0 of 0 pairs: none).
        100.0 * (r.pruned_fraction() - r.capped as f64 / r.total_pairs.max(1) as f64)
    );
    if r.capped > 0 {
        description.push_str(&format!(
            ", {} cut by the cap of {} pairs per document",
            r.capped,
            crate::method::MAX_PARTNERS
        ));
    }
    Ok(CandidateReport {
        description,
        candidates: r.compared,
        emitted: 0,
        sketch_time,
        search_time,
        index_bytes_per_document: None,
        signature_bytes_per_document: None,
        bucket_scan: None,
    })
}

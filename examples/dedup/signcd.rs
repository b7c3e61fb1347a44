//! `--method signcd`: SigNCD (normalized compression distance of punctuation-spot
//! signatures, Zhang et al. 2016) with the exact P1-pruned all-pairs search. A pair
//! is kept when SigNCD <= 1 - threshold; its score is 1 - SigNCD.

use std::time::Instant;

use ndd::ncd::{CompressorKind, Pruning, SearchConfig, SigNcd};

use crate::{Doc, Found, Options};

pub(crate) fn pairs(docs: &[Doc], o: &Options) -> Result<Found, String> {
    let kind: CompressorKind = o
        .compressor
        .parse()
        .map_err(|e| format!("--compressor: {e}"))?;
    let s = SigNcd::builder()
        .compressor(kind)
        .build()
        .map_err(|e| e.to_string())?;
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let t = Instant::now();
    #[cfg(feature = "rayon")]
    let corpus = s.par_corpus(&texts);
    #[cfg(not(feature = "rayon"))]
    let corpus = s.corpus(&texts);
    let corpus = corpus.map_err(|e| e.to_string())?;
    let signed = t.elapsed();
    let tau = (1.0 - o.threshold).max(0.0);
    let config = SearchConfig::builder(tau)
        .pruning(Pruning::P1)
        .parallel(cfg!(feature = "rayon"))
        .build()
        .map_err(|e| e.to_string())?;
    let t = Instant::now();
    let out = config.search(&corpus).map_err(|e| e.to_string())?;
    let searched = t.elapsed();
    let r = out.report;
    Ok(Found {
        pairs: out.pairs,
        method: format!(
            "SigNCD ({}, Sig-1L comma signatures, {} full-text fallbacks), SigNCD <= {tau:.3}",
            corpus.compressor_name(),
            corpus.fallback_count()
        ),
        timing: format!(
            "signatures {signed:.2?}, all-pairs search {searched:.2?} ({} of {} pairs compared, {:.1}% pruned by P1)",
            r.compared,
            r.total_pairs,
            100.0 * r.pruned_fraction()
        ),
    })
}

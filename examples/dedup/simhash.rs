//! `--method simhash`: a Charikar SimHash signature of `--bits` bits per document
//! (`±1` hyperplanes, weighted features), pairs at most `--max-hamming` bits apart.
//!
//! 64-bit fingerprints (the web-crawl setting of Manku et al.) are searched exactly
//! with permuted sorted tables (`ndd::lsh::hamming_pairs`); longer signatures through
//! bit-sampling banded LSH, whose candidates are then checked against the Hamming
//! bound. The score is `1 − h/m`.

use std::time::Instant;

#[cfg(not(feature = "rayon"))]
use ndd::DocSketcher;
use ndd::FeatureExtractor;
use ndd::lsh::{BitSampler, HammingParams, LshParams, candidate_pairs, hamming_pairs};
use ndd::shingle::{CharShingler, WordShingler};
use ndd::simhash::{SimHashSignature, SimHasher, Weighting};
use ndd::stats::DocumentFrequencies;

use crate::{Doc, Found, Options};

/// How features are weighted (`--weighting`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SimWeighting {
    Binary,
    Tf,
    TfIdf,
}

impl SimWeighting {
    pub(crate) fn parse(v: &str) -> Result<Self, String> {
        match v {
            "binary" => Ok(SimWeighting::Binary),
            "tf" => Ok(SimWeighting::Tf),
            "tfidf" => Ok(SimWeighting::TfIdf),
            _ => Err(format!("--weighting must be binary, tf or tfidf, got {v}")),
        }
    }

    fn name(self) -> &'static str {
        match self {
            SimWeighting::Binary => "binary",
            SimWeighting::Tf => "term-frequency",
            SimWeighting::TfIdf => "TF-IDF (statistics of the input)",
        }
    }
}

/// The Hamming bound: `--max-hamming`, or 3 bits per 64 (Manku et al.'s 3 of 64).
pub(crate) fn max_hamming(o: &Options) -> usize {
    o.max_hamming.unwrap_or(3 * o.bits / 64)
}

pub(crate) fn pairs(docs: &[Doc], o: &Options) -> Result<Found, String> {
    match o.char_k {
        Some(k) => with_extractor(docs, CharShingler::new(k).map_err(|e| e.to_string())?, o),
        None => with_extractor(docs, WordShingler::new(o.k).map_err(|e| e.to_string())?, o),
    }
}

fn with_extractor<E: FeatureExtractor + Sync>(
    docs: &[Doc],
    extractor: E,
    o: &Options,
) -> Result<Found, String> {
    let err = |e: ndd::Error| e.to_string();
    let max_h = max_hamming(o);
    if max_h >= o.bits {
        return Err(format!(
            "--max-hamming must be below --bits ({}), got {max_h}",
            o.bits
        ));
    }
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();

    let t = Instant::now();
    let weighting = match o.weighting {
        SimWeighting::Binary => Weighting::Binary,
        SimWeighting::Tf => Weighting::TermFrequency,
        SimWeighting::TfIdf => Weighting::tf_idf(DocumentFrequencies::from_documents(
            &extractor,
            texts.iter().copied(),
        )),
    };
    let hasher = SimHasher::builder()
        .bits(o.bits)
        .weighting(weighting)
        .build_with(extractor)
        .map_err(err)?;
    #[cfg(feature = "rayon")]
    let sigs: Vec<SimHashSignature> = hasher.par_sketch_batch(&texts);
    #[cfg(not(feature = "rayon"))]
    let sigs: Vec<SimHashSignature> = hasher.sketch_batch(&texts);
    let sketched = t.elapsed();

    let t = Instant::now();
    let m = o.bits as f64;
    let (pairs, search) = if let Some(fps) = sigs
        .iter()
        .map(SimHashSignature::as_u64)
        .collect::<Option<Vec<u64>>>()
    {
        let h = u32::try_from(max_h).map_err(|_| "--max-hamming too large".to_string())?;
        let params = HammingParams::for_collection(h, fps.len()).map_err(err)?;
        let pairs = hamming_pairs(&fps, params)
            .map_err(err)?
            .into_iter()
            .map(|(a, b, d)| (a, b, 1.0 - f64::from(d) / m))
            .collect();
        let search = format!(
            "permuted tables ({} tables of {} leading bits)",
            params.tables(),
            params.leading_bits()
        );
        (pairs, search)
    } else {
        // Bands tuned to the bit agreement 1 − h/m that the Hamming bound allows, from
        // at most 2 × bits sampled positions.
        let agreement = 1.0 - max_h as f64 / m;
        let params =
            LshParams::for_threshold(agreement.clamp(0.01, 0.99), 2 * o.bits).map_err(err)?;
        let sampler = BitSampler::new(params, o.bits, 0x5349_4d48).map_err(err)?;
        let sampled = sigs
            .iter()
            .map(|s| sampler.sample(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let candidates = candidate_pairs(&sampled, params).map_err(err)?;
        let n_candidates = candidates.len();
        let mut pairs = Vec::new();
        for (a, b) in candidates {
            let h = sigs[a].hamming_distance(&sigs[b]).map_err(err)? as usize;
            if h <= max_h {
                pairs.push((a, b, 1.0 - h as f64 / m));
            }
        }
        let search = format!(
            "bit-sampling LSH ({} bands x {} bits, {n_candidates} candidates)",
            params.bands(),
            params.rows()
        );
        (pairs, search)
    };
    let searched = t.elapsed();
    Ok(Found {
        pairs,
        method: format!(
            "SimHash ({} bits, {} weights) + {search}, Hamming distance <= {max_h}, \
             score 1 - h/{}",
            o.bits,
            o.weighting.name(),
            o.bits
        ),
        timing: format!("sketch {sketched:.2?}, search {searched:.2?}"),
    })
}

//! `--method simhash`: a Charikar SimHash signature of `--bits` bits per document
//! (`±1` hyperplanes, weighted features), pairs at most `--max-hamming` bits apart.
//!
//! 64-bit fingerprints (the web-crawl setting of Manku et al.) are searched exactly
//! with permuted sorted tables (`ndd::lsh::hamming_pairs`, whose block layout assumes
//! 64 signature bits); other lengths through bit-sampling banded LSH tuned for 99%
//! recall at the bound, whose candidates are then checked against it. The score is
//! `1 − h/m`.

use std::time::Instant;

#[cfg(not(feature = "rayon"))]
use ndd::DocSketcher;
use ndd::FeatureExtractor;
use ndd::lsh::{
    BitSampler, HammingParams, LshIndex, LshParams, MAX_SEARCH_SLOTS, SampledBits, hamming_pairs,
};
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
    let (pairs, search) = if sigs.is_empty() {
        (Vec::new(), "nothing to search".to_string())
    } else if o.bits == 64 {
        let fps = sigs
            .iter()
            .map(SimHashSignature::as_u64)
            .collect::<Option<Vec<u64>>>()
            .ok_or("a 64-bit signature has no u64 form")?;
        let h = u32::try_from(max_h).map_err(|_| "--max-hamming too large".to_string())?;
        let params = HammingParams::for_collection(h, fps.len()).map_err(err)?;
        // Scored 1 − h/64, the same value as 1 − h/m for these 64-bit fingerprints.
        let pairs = hamming_pairs(&fps, params).map_err(err)?;
        let search = format!(
            "permuted tables ({} tables of {} leading bits)",
            params.tables(),
            params.leading_bits()
        );
        (pairs, search)
    } else {
        // Bands with 99% recall at the bound's bit agreement 1 − h/m (from at most
        // 2 × bits sampled positions): LSH only proposes candidates, and the exact
        // Hamming distance then removes every false positive. Documents stream through
        // the index, which keeps b band keys per document, not the sampled bits.
        let agreement = (1.0 - max_h as f64 / m).clamp(0.01, 0.99);
        let budget = (2 * o.bits).min(MAX_SEARCH_SLOTS);
        let params = LshParams::min_candidates_for_recall(agreement, budget, 0.99)
            .or_else(|_| LshParams::for_threshold(agreement, budget))
            .map_err(err)?;
        let sampler = BitSampler::new(params, o.bits, 0x5349_4d48).map_err(err)?;
        let mut index: LshIndex<u32, SampledBits> =
            LshIndex::builder(params).capacity(sigs.len()).build();
        let mut sampled = sampler.sample(&sigs[0]).map_err(err)?;
        let (mut candidates, mut pairs, mut n_candidates) = (Vec::new(), Vec::new(), 0usize);
        for (i, sig) in sigs.iter().enumerate() {
            sampler.sample_into(sig, &mut sampled).map_err(err)?;
            let key = u32::try_from(i).map_err(|_| "more than 2^32 documents".to_string())?;
            candidates.clear();
            index
                .query_then_insert(key, &sampled, &mut candidates)
                .map_err(err)?;
            n_candidates += candidates.len();
            for &j in &candidates {
                let j = j as usize;
                let h = sigs[j].hamming_distance(sig).map_err(err)? as usize;
                if h <= max_h {
                    pairs.push(ndd::ScoredPair::new(j, i, 1.0 - h as f64 / m));
                }
            }
        }
        let search = format!(
            "bit-sampling LSH ({} bands x {} bits, recall {:.3} at the bound, \
             {n_candidates} candidates)",
            params.bands(),
            params.rows(),
            params.probability(agreement)
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

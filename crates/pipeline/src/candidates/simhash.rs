//! SimHash fingerprints, then every pair within the Hamming bound.
//!
//! 64-bit fingerprints (the web-crawl setting of Manku et al.) are searched exactly
//! with permuted sorted tables; other lengths through bit-sampling banded LSH tuned
//! for 99% recall at the bound, whose candidates are then checked against it. Why the
//! split: the permuted-table layout needs the fingerprint in one 64-bit word, and its
//! table count grows with the bound (`C(blocks, h)` tables); for longer signatures
//! and proportionally larger bounds, sampling bits into bands keeps memory at one key
//! per band per document and the exact Hamming check removes every false positive.

use ndd_core::stats::DocumentFrequencies;
use ndd_core::{Error, FeatureExtractor, PairSink, ScoredPair};
use ndd_index::{HammingParams, hamming_pairs};
use ndd_lsh::{BitSampler, LshIndex, LshParams, MAX_SEARCH_SLOTS, SampledBits};
use ndd_simhash::{SimHashSignature, SimHasher, Weighting};

use super::{CandidateReport, Ctx, Emit, in_chunks, key};
use crate::progress::Stage;
use crate::{SimHashConfig, SimWeighting};

/// Longest signature the pipeline accepts.
pub(crate) const MAX_BITS: usize = 4096;

pub(crate) fn run(
    config: &SimHashConfig,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    #[cfg(feature = "learn")]
    if let SimWeighting::Learned(model) = &config.weighting {
        // The model's k-grams, weighted with document frequencies of this corpus.
        let stats =
            ndd_learn::CollectionStats::from_documents(model.kgrams(), texts.iter().copied());
        let extractor = ndd_learn::LearnedKgrams::new(model, &stats);
        return with_extractor(config, extractor, texts, ctx, sink);
    }
    crate::method::for_extractor!(ctx.features, |e| with_extractor(
        config, e, texts, ctx, sink
    ))
}

pub(crate) fn validate(config: &SimHashConfig) -> Result<(), Error> {
    if config.bits == 0 || config.bits > MAX_BITS {
        return Err(Error::invalid_parameter(
            "bits",
            format!("must lie in 1..={MAX_BITS}, got {}", config.bits),
        ));
    }
    if config.max_hamming() >= config.bits {
        return Err(Error::invalid_parameter(
            "max_hamming",
            format!(
                "must be below the signature length ({}), got {}",
                config.bits,
                config.max_hamming()
            ),
        ));
    }
    Ok(())
}

fn with_extractor<E: FeatureExtractor + Sync>(
    config: &SimHashConfig,
    extractor: E,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let max_h = config.max_hamming();
    let n = texts.len() as u64;
    let (sigs, sketch_time) = ctx.stage(Stage::Sketch, Some(n), || {
        let weighting = match &config.weighting {
            SimWeighting::Binary => Weighting::Binary,
            // The extractor pushes each k-gram once with its learned weight.
            #[cfg(feature = "learn")]
            SimWeighting::Learned(_) => Weighting::TermFrequency,
            SimWeighting::TermFrequency => Weighting::TermFrequency,
            SimWeighting::TfIdf => Weighting::tf_idf(DocumentFrequencies::from_documents(
                &extractor,
                texts.iter().copied(),
            )),
        };
        let hasher = SimHasher::builder()
            .bits(config.bits)
            .weighting(weighting)
            .build_with(extractor)?;
        Ok(in_chunks(texts, Stage::Sketch, ctx.progress, |chunk| {
            #[cfg(feature = "rayon")]
            {
                ndd_core::ParDocSketcher::par_sketch_batch(&hasher, chunk)
            }
            #[cfg(not(feature = "rayon"))]
            {
                ndd_core::DocSketcher::sketch_batch(&hasher, chunk)
            }
        }))
    })?;
    let m = config.bits as f64;
    let ((candidates, search, bytes), search_time) =
        ctx.stage(Stage::Candidates, Some(n), || {
            if sigs.is_empty() {
                return Ok((0, "nothing to search".to_string(), None));
            }
            if config.bits == 64 {
                let fps = sigs
                    .iter()
                    .map(SimHashSignature::as_u64)
                    .collect::<Option<Vec<u64>>>()
                    .ok_or_else(|| Error::invalid_input("a 64-bit signature has no u64 form"))?;
                let h = u32::try_from(max_h)
                    .map_err(|_| Error::invalid_parameter("max_hamming", "too large"))?;
                let params = HammingParams::for_collection(h, fps.len())?;
                let pairs = hamming_pairs(&fps, params)?;
                let count = pairs.len() as u64;
                // Scored 1 − h/64 by the join itself.
                for p in pairs {
                    sink.push_pair(p);
                }
                let search = format!(
                    "permuted tables ({} tables of {} leading bits)",
                    params.tables(),
                    params.leading_bits()
                );
                let bytes = params.table_bytes_per_fingerprint() as f64;
                return Ok((count, search, Some(bytes)));
            }
            // Bands with 99% recall at the bound's bit agreement 1 − h/m, from at
            // most 2 × bits sampled positions: LSH only proposes candidates, and the
            // exact Hamming distance then removes every false positive.
            let agreement = (1.0 - max_h as f64 / m).clamp(0.01, 0.99);
            let budget = (2 * config.bits).min(MAX_SEARCH_SLOTS);
            let params = LshParams::min_candidates_for_recall(agreement, budget, 0.99)
                .or_else(|_| LshParams::for_threshold_balanced(agreement, budget))?;
            let sampler = BitSampler::new(params, config.bits, 0x5349_4d48)?;
            let mut index: LshIndex<u32, SampledBits> =
                LshIndex::builder(params).capacity(sigs.len()).build();
            let mut sampled = sampler.sample(&sigs[0])?;
            let (mut found, mut candidates) = (Vec::new(), 0u64);
            for (i, sig) in sigs.iter().enumerate() {
                sampler.sample_into(sig, &mut sampled)?;
                found.clear();
                index.query_then_insert(key(i), &sampled, &mut found)?;
                candidates += found.len() as u64;
                found.sort_unstable();
                for &j in &found {
                    let j = j as usize;
                    let h = sigs[j].hamming_distance(sig)? as usize;
                    if ctx.emit != Emit::Accepted || h <= max_h {
                        sink.push_pair(ScoredPair::new(j, i, 1.0 - h as f64 / m));
                    }
                }
            }
            let search = format!(
                "bit-sampling LSH ({} bands x {} bits, recall {:.3} at the bound)",
                params.bands(),
                params.rows(),
                params.probability(agreement)
            );
            Ok((
                candidates,
                search,
                Some(index.memory().bytes_per_document()),
            ))
        })?;
    super::drop_on_pool(sigs);
    Ok(CandidateReport {
        description: format!(
            "SimHash ({} bits, {} weights) + {search}, Hamming distance <= {max_h}, \
             score 1 - h/{}",
            config.bits,
            match &config.weighting {
                SimWeighting::Binary => "binary",
                SimWeighting::TermFrequency => "term-frequency",
                SimWeighting::TfIdf => "TF-IDF",
                #[cfg(feature = "learn")]
                SimWeighting::Learned(_) => "learned",
            },
            config.bits
        ),
        candidates,
        emitted: 0,
        sketch_time,
        search_time,
        index_bytes_per_document: bytes,
        signature_bytes_per_document: Some(config.bits.div_ceil(64) as f64 * 8.0),
        bucket_scan: None,
    })
}

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

/// A function that sketches one text into its 64-bit fingerprint (`None` for a
/// signature of another length: then none is made).
pub(crate) type SketchOne = std::sync::Arc<dyn Fn(&str) -> Option<u64> + Send + Sync>;

/// The function that sketches one text as the stage of `config` in `ctx` would (the
/// same hasher and signature), for a reader to run as it decodes; `None` when the
/// stage does not start from fingerprints: signatures of more than 64 bits, or weights
/// from the collection (TF-IDF, learned).
pub(crate) fn sketch_one(
    config: &SimHashConfig,
    ctx: &Ctx<'_>,
) -> Result<Option<SketchOne>, Error> {
    let weighting = match &config.weighting {
        SimWeighting::Binary => Weighting::Binary,
        SimWeighting::TermFrequency => Weighting::TermFrequency,
        _ => return Ok(None),
    };
    if config.bits != 64 {
        return Ok(None);
    }
    crate::method::for_extractor!(ctx.features, |e| {
        let hasher = hasher(config, weighting, e)?;
        // States kept for the next document, at most one per thread sketching at once:
        // a state made per document grew its set of seen features from empty each time
        // (`SeenSet::grow`, 8% of a SimHash run's samples).
        let states = std::sync::Mutex::new(Vec::new());
        let one: SketchOne = std::sync::Arc::new(move |text: &str| {
            use ndd_core::{DocSketcher, Sketcher};
            let kept = states.lock().ok().and_then(|mut s| s.pop());
            let mut state = kept.unwrap_or_else(|| hasher.new_state());
            let mut out = hasher.new_signature();
            hasher.sketch_with(&mut state, text, &mut out);
            if let Ok(mut s) = states.lock() {
                s.push(state);
            }
            out.as_u64()
        });
        Ok(Some(one))
    })
}

/// The SimHash stage of `config` from the 64-bit fingerprints of its documents, in
/// order (made as they were read, by [`sketch_one`]'s function): what [`run`] gives
/// over their texts.
pub(crate) fn run_sketched(
    config: &SimHashConfig,
    fps: Vec<u64>,
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let n = fps.len() as u64;
    // The sketches were made as the documents were read: nothing is left to time.
    ctx.progress.start(Stage::Sketch, Some(n));
    ctx.progress.advance(Stage::Sketch, n);
    ctx.progress.finish(Stage::Sketch);
    let ((candidates, search, bytes), search_time) =
        ctx.stage(Stage::Candidates, Some(n), || {
            if fps.is_empty() {
                return Ok((0, "nothing to search".to_string(), None));
            }
            permuted_tables(&fps, config.max_hamming(), sink)
        })?;
    Ok(report(
        config,
        (candidates, search, bytes),
        std::time::Duration::ZERO,
        search_time,
    ))
}

/// The SimHash sketcher of `config` with `weighting` over `extractor`.
fn hasher<E: FeatureExtractor>(
    config: &SimHashConfig,
    weighting: Weighting,
    extractor: E,
) -> Result<SimHasher<E>, Error> {
    SimHasher::builder()
        .bits(config.bits)
        .weighting(weighting)
        .build_with(extractor)
}

/// Every pair of `fps` within `max_h` bits, found by permuted sorted tables, into
/// `sink` (scored `1 − h/64`): their number, the search's description and its bytes
/// per fingerprint.
fn permuted_tables(
    fps: &[u64],
    max_h: usize,
    sink: &mut dyn PairSink,
) -> Result<(u64, String, Option<f64>), Error> {
    let h =
        u32::try_from(max_h).map_err(|_| Error::invalid_parameter("max_hamming", "too large"))?;
    let params = HammingParams::for_collection(h, fps.len())?;
    let pairs = hamming_pairs(fps, params)?;
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
    Ok((count, search, Some(bytes)))
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
        let hasher = hasher(config, weighting, extractor)?;
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
                return permuted_tables(&fps, max_h, sink);
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
    Ok(report(
        config,
        (candidates, search, bytes),
        sketch_time,
        search_time,
    ))
}

/// The stage's report: the number of candidates, the search's description
/// and its bytes per document.
fn report(
    config: &SimHashConfig,
    (candidates, search, bytes): (u64, String, Option<f64>),
    sketch_time: std::time::Duration,
    search_time: std::time::Duration,
) -> CandidateReport {
    CandidateReport {
        description: format!(
            "SimHash ({} bits, {} weights) + {search}, Hamming distance <= {}, \
             score 1 - h/{}",
            config.bits,
            match &config.weighting {
                SimWeighting::Binary => "binary",
                SimWeighting::TermFrequency => "term-frequency",
                SimWeighting::TfIdf => "TF-IDF",
                #[cfg(feature = "learn")]
                SimWeighting::Learned(_) => "learned",
            },
            config.max_hamming(),
            config.bits
        ),
        candidates,
        emitted: 0,
        sketch_time,
        search_time,
        index_bytes_per_document: bytes,
        signature_bytes_per_document: Some(config.bits.div_ceil(64) as f64 * 8.0),
        bucket_scan: None,
    }
}

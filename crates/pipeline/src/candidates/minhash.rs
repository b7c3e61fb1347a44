//! MinHash (one-permutation hashing) + banded LSH, streamed: each document's
//! candidates are the earlier documents sharing a band.

use ndd_core::{Error, FeatureExtractor, PairSink, ScoredPair, Signature};
use ndd_lsh::{LshIndex, LshParams};
use ndd_minhash::{MinHashSignature, MinHasher};

use super::{CandidateReport, Ctx, Emit, in_chunks, key};
use crate::method::ExtractorFn;
use crate::progress::Stage;
use crate::{Banding, MinHashConfig};

/// The LSH parameters `config` asks for at `threshold`.
pub(crate) fn lsh_params(config: &MinHashConfig, threshold: f64) -> Result<LshParams, Error> {
    // A threshold of 1 asks for identical signatures: tune the bands for 0.99.
    let t = threshold.min(0.99);
    let params = match config.banding {
        Banding::Recall(r) => LshParams::min_candidates_for_recall(t, config.num_perm, r)?,
        Banding::Balanced => LshParams::for_threshold(t, config.num_perm)?,
        Banding::Fixed { bands, rows } => LshParams::new(bands, rows)?,
    };
    params.check_signature_len(config.num_perm)?;
    Ok(params)
}

/// Checks `num_perm` against the pipeline's bound.
pub(crate) fn check_num_perm(num_perm: usize) -> Result<(), Error> {
    if num_perm == 0 || num_perm > crate::method::MAX_NUM_PERM {
        return Err(Error::invalid_parameter(
            "num_perm",
            format!(
                "must lie in 1..={}, got {num_perm}",
                crate::method::MAX_NUM_PERM
            ),
        ));
    }
    Ok(())
}

/// Signatures of `texts`, reported in chunks (in parallel under `rayon`).
pub(crate) fn sketch_all<E: FeatureExtractor + Sync>(
    hasher: &MinHasher<E>,
    texts: &[&str],
    ctx: &Ctx<'_>,
) -> Vec<MinHashSignature> {
    in_chunks(texts, Stage::Sketch, ctx.progress, |chunk| {
        #[cfg(feature = "rayon")]
        {
            ndd_core::ParDocSketcher::par_sketch_batch(hasher, chunk)
        }
        #[cfg(not(feature = "rayon"))]
        {
            ndd_core::DocSketcher::sketch_batch(hasher, chunk)
        }
    })
}

/// The lowest estimate a pair of similarity at least `t` shows with probability above
/// 1 − 3.2·10⁻⁵: `t − 4·sqrt(v/k)` with `v` the largest `J(1 − J)` over `J ≥ t`.
pub(crate) fn plausible_floor(t: f64, k: usize) -> f64 {
    let v = if t >= 0.5 { t * (1.0 - t) } else { 0.25 };
    t - super::PLAUSIBLE_SIGMAS * (v / k as f64).sqrt()
}

pub(crate) fn validate(config: &MinHashConfig, threshold: f64) -> Result<(), Error> {
    check_num_perm(config.num_perm)?;
    lsh_params(config, threshold).map(drop)
}

pub(crate) fn run(
    config: &MinHashConfig,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    struct Go<'a, 'c> {
        config: &'a MinHashConfig,
        texts: &'a [&'a str],
        ctx: &'a Ctx<'c>,
        sink: &'a mut dyn PairSink,
    }
    impl ExtractorFn<CandidateReport> for Go<'_, '_> {
        fn call<E: FeatureExtractor + Send + Sync + 'static>(
            self,
            extractor: E,
        ) -> Result<CandidateReport, Error> {
            with_extractor(self.config, extractor, self.texts, self.ctx, self.sink)
        }
    }
    check_num_perm(config.num_perm)?;
    ctx.shingles.with(
        ctx.nfkc,
        Go {
            config,
            texts,
            ctx,
            sink,
        },
    )
}

fn with_extractor<E: FeatureExtractor + Sync>(
    config: &MinHashConfig,
    extractor: E,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let hasher = MinHasher::builder()
        .num_hashes(config.num_perm)
        .seed(config.seed)
        .build_with(extractor)?;
    let params = lsh_params(config, ctx.threshold)?;
    let n = texts.len() as u64;
    let (sigs, sketch_time) = ctx.stage(Stage::Sketch, Some(n), || {
        Ok(sketch_all(&hasher, texts, ctx))
    })?;

    let floor = match ctx.emit {
        Emit::Accepted => ctx.threshold,
        Emit::AllCandidates => f64::NEG_INFINITY,
        Emit::Plausible => plausible_floor(ctx.threshold, config.num_perm),
    };
    let ((candidates, bytes), search_time) = ctx.stage(Stage::Candidates, Some(n), || {
        let mut index: LshIndex<u32, MinHashSignature> =
            LshIndex::builder(params).capacity(sigs.len()).build();
        let mut found = Vec::new();
        let mut candidates = 0u64;
        for (i, sig) in sigs.iter().enumerate() {
            found.clear();
            index.query_then_insert(key(i), sig, &mut found)?;
            candidates += found.len() as u64;
            found.sort_unstable();
            for &j in &found {
                let j = j as usize;
                let est = sigs[j].similarity(sig)?.value();
                if est >= floor {
                    sink.push_pair(ScoredPair::new(j, i, est));
                }
            }
            if (i + 1) % crate::progress::CHUNK == 0 {
                ctx.progress
                    .advance(Stage::Candidates, crate::progress::CHUNK as u64);
            }
        }
        Ok((candidates, index.memory().bytes_per_document()))
    })?;
    Ok(CandidateReport {
        description: format!(
            "MinHash ({} values, one-permutation, seed {}) + LSH ({} bands x {} rows; \
             recall {:.3} at {})",
            config.num_perm,
            config.seed,
            params.bands(),
            params.rows(),
            params.probability(ctx.threshold.min(0.99)),
            ctx.threshold,
        ),
        candidates,
        emitted: 0,
        sketch_time,
        search_time,
        index_bytes_per_document: Some(bytes),
        signature_bytes_per_document: Some(8.0 * config.num_perm as f64),
    })
}

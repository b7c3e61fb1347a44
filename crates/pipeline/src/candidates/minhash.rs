//! MinHash (one-permutation hashing) + banded LSH, streamed: each document's
//! candidates are the earlier documents sharing a band.

use std::ops::Range;
use std::time::{Duration, Instant};

use ndd_core::{DocSketcher, Error, PairSink, ScoredPair, Signature, Threshold};
use ndd_lsh::LshIndex;
use ndd_minhash::{MinHashSignature, MinHasher};

#[cfg(not(feature = "rayon"))]
use super::in_chunks;
use super::{CandidateReport, Ctx, Emit};
use crate::progress::{Progress, Stage};
use crate::{BucketScan, MinHashConfig};

/// What sketches documents into MinHash signatures here: one-permutation MinHash over
/// the pipeline's shingles, or ICWS over learned k-gram weights.
trait MinHashSketcher: DocSketcher<Signature = MinHashSignature, State: Send> + Sync {}
impl<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync> MinHashSketcher for S {}

/// The lowest estimate a pair of similarity at least `t` shows with probability above
/// 1 − 3.2·10⁻⁵: `t − 4·sqrt(v/k)` with `v` the largest `J(1 − J)` over `J ≥ t`.
pub(crate) fn plausible_floor(t: f64, k: usize) -> f64 {
    let v = if t >= 0.5 { t * (1.0 - t) } else { 0.25 };
    t - super::PLAUSIBLE_SIGMAS * (v / k as f64).sqrt()
}

/// The lowest estimate of a pair the candidate stream passes on for `emit`: the
/// threshold (the estimate decides), the plausible floor (exact Jaccard decides), or
/// none (a measure the estimate does not bound decides). Every engine's stream uses it.
pub(crate) fn floor(emit: Emit, threshold: Threshold, num_perm: usize) -> f64 {
    match emit {
        Emit::Accepted => threshold.get(),
        Emit::AllCandidates => f64::NEG_INFINITY,
        Emit::Plausible => plausible_floor(threshold.get(), num_perm),
    }
}

pub(crate) fn validate(config: &MinHashConfig, threshold: Threshold) -> Result<(), Error> {
    crate::method::check_num_perm(config.num_perm)?;
    if config.max_bucket_scan == Some(0) {
        return Err(Error::invalid_parameter(
            "max_bucket_scan",
            "must be at least 1 (or None for no bound): 0 would find no candidate",
        ));
    }
    config.banding_for(threshold).map(drop)
}

pub(crate) fn run(
    config: &MinHashConfig,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    #[cfg(feature = "learn")]
    if let crate::MinHashWeighting::Learned(model) = &config.weighting {
        // The model's k-grams, weighted with document frequencies of this corpus, into
        // consistent weighted samples (ANDD's LSH-Jaccard).
        let stats =
            ndd_learn::CollectionStats::from_documents(model.kgrams(), texts.iter().copied());
        let learned = ndd_learn::LearnedKgrams::new(model, &stats);
        let icws = ndd_minhash::IcwsMinHasher::builder()
            .num_hashes(config.num_perm)
            .seed(config.seed)
            .feature_scheme(ndd_core::FeatureExtractor::scheme(&learned))
            .build()?;
        let sketcher = ndd_core::Composed::new(learned, icws)?;
        return with_sketcher(
            config,
            &sketcher,
            "ICWS over learned k-gram weights",
            texts,
            ctx,
            sink,
        );
    }
    crate::method::for_extractor!(ctx.features, |e| {
        let hasher = MinHasher::builder()
            .num_hashes(config.num_perm)
            .seed(config.seed)
            .build_with(e)?;
        with_sketcher(config, &hasher, "one-permutation", texts, ctx, sink)
    })
}

fn with_sketcher<S: MinHashSketcher>(
    config: &MinHashConfig,
    hasher: &S,
    kind: &str,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let params = config.banding_for(ctx.threshold)?;
    let floor = floor(ctx.emit, ctx.threshold, config.num_perm);
    let mut index = LshIndex::builder(params)
        .capacity(texts.len())
        .max_bucket_scan(crate::method::bounded_scan(config.max_bucket_scan))
        .build();
    let streamed = stream(hasher, texts, &|i| i, &mut index, floor, ctx.progress, sink)?;
    let bytes = index.memory().bytes_per_document();
    Ok(CandidateReport {
        description: format!(
            "MinHash ({} values, {kind}, seed {}) + LSH ({} bands x {} rows; \
             recall {:.3} at {})",
            config.num_perm,
            config.seed,
            params.bands(),
            params.rows(),
            params.probability(ctx.threshold.banded()),
            ctx.threshold,
        ),
        candidates: streamed.candidates,
        emitted: 0,
        sketch_time: streamed.sketch_time,
        search_time: streamed.search_time,
        index_bytes_per_document: Some(bytes),
        signature_bytes_per_document: Some(8.0 * config.num_perm as f64),
        bucket_scan: Some(streamed.bucket_scan),
    })
}

/// What [`stream`] did.
pub(crate) struct Streamed {
    /// Candidates the index proposed.
    pub(crate) candidates: u64,
    /// Time until the last signature.
    pub(crate) sketch_time: Duration,
    /// Time of the search after the last signature.
    pub(crate) search_time: Duration,
    /// The bucket reads of this stream that the index's bound cut.
    pub(crate) bucket_scan: BucketScan,
}

/// The MinHash candidate stream of every engine that holds an [`LshIndex`]: sketches
/// `texts`, queries each document (key `key_of(i)`, increasing) against `index` (the
/// documents inserted before: an earlier batch's and this batch's earlier ones) then
/// inserts it, and passes on the pairs whose estimate reaches `floor` as `(earlier
/// key, key)`, in document order. An engine differs only in the index it passes: a
/// fresh one in memory whose keys are the positions in `texts`, or a saved one that
/// keeps every signature, whose keys are positions in its collection.
pub(crate) fn stream<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync>(
    hasher: &S,
    texts: &[&str],
    key_of: &(dyn Fn(usize) -> usize + Sync),
    index: &mut LshIndex<u32, MinHashSignature>,
    floor: f64,
    progress: &dyn Progress,
    sink: &mut dyn PairSink,
) -> Result<Streamed, Error> {
    let cuts_before = index.scan_cuts();
    let mut search = Search {
        index,
        key_of,
        floor,
        found: Vec::new(),
        out: Vec::new(),
        candidates: 0,
    };
    #[cfg(feature = "rayon")]
    let (sketch_time, search_time) =
        sketch_while_searching(hasher, texts, progress, &mut search, sink)?;
    #[cfg(not(feature = "rayon"))]
    let (sketch_time, search_time) = {
        let n = texts.len() as u64;
        progress.start(Stage::Sketch, Some(n));
        let t = Instant::now();
        let sigs = in_chunks(texts, Stage::Sketch, progress, |chunk| {
            hasher.sketch_batch(chunk)
        });
        let sketch_time = t.elapsed();
        progress.finish(Stage::Sketch);
        progress.start(Stage::Candidates, Some(n));
        let t = Instant::now();
        for chunk_start in (0..sigs.len()).step_by(crate::progress::CHUNK) {
            let end = (chunk_start + crate::progress::CHUNK).min(sigs.len());
            let searched = search.run(&sigs, chunk_start..end);
            search.flush(sink);
            searched?;
            progress.advance(Stage::Candidates, (end - chunk_start) as u64);
        }
        let search_time = t.elapsed();
        progress.finish(Stage::Candidates);
        (sketch_time, search_time)
    };
    let cuts = search.index.scan_cuts().since(cuts_before);
    Ok(Streamed {
        candidates: search.candidates,
        sketch_time,
        search_time,
        bucket_scan: BucketScan {
            bound: search.index.max_bucket_scan().unwrap_or(usize::MAX),
            cut_reads: cuts.reads,
            cut_documents: cuts.documents,
        },
    })
}

/// The streamed LSH search: each document's candidates are the documents of the index
/// sharing a band; those whose estimate reaches `floor` are collected in `out`, in
/// document order and then in the order of the earlier document.
struct Search<'i> {
    index: &'i mut LshIndex<u32, MinHashSignature>,
    /// The key of `sigs[i]`: `i` itself, or a position in a saved index's collection
    /// (that index keeps the signatures).
    key_of: &'i (dyn Fn(usize) -> usize + Sync),
    floor: f64,
    found: Vec<u32>,
    out: Vec<ScoredPair>,
    candidates: u64,
}

impl Search<'_> {
    /// Queries then inserts the documents `range` of `sigs` (every document before
    /// `range` is inserted already).
    fn run(&mut self, sigs: &[MinHashSignature], range: Range<usize>) -> Result<(), Error> {
        for i in range {
            let Some(sig) = sigs.get(i) else { break };
            let key = (self.key_of)(i);
            self.found.clear();
            self.index
                .query_then_insert(super::key(key), sig, &mut self.found)?;
            self.candidates += self.found.len() as u64;
            self.found.sort_unstable();
            for &j in &self.found {
                let j = j as usize;
                let earlier = if self.index.keeps_signatures() {
                    self.index.signature(&super::key(j))
                } else {
                    sigs.get(j)
                };
                if let Some(earlier) = earlier {
                    let est = earlier.similarity(sig)?.value();
                    if est >= self.floor {
                        self.out.push(ScoredPair::new(j, key, est));
                    }
                }
            }
        }
        Ok(())
    }

    /// Hands the pairs collected so far to `sink`, in order.
    fn flush(&mut self, sink: &mut dyn PairSink) {
        for pair in self.out.drain(..) {
            sink.push_pair(pair);
        }
    }
}

/// Sketches `texts` in chunks on rayon's pool while the previous chunk is searched
/// (the search is serial: one thread searches while the others sketch). Returns the
/// time until the last signature (the sketch stage) and the time of the search that
/// remains after it (the candidate stage); pairs reach `sink` in the same order as
/// sketching everything first and then searching.
#[cfg(feature = "rayon")]
fn sketch_while_searching<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync>(
    hasher: &S,
    texts: &[&str],
    progress: &dyn Progress,
    search: &mut Search<'_>,
    sink: &mut dyn PairSink,
) -> Result<(Duration, Duration), Error> {
    let n = texts.len() as u64;
    let mut sigs: Vec<MinHashSignature> = Vec::with_capacity(texts.len());
    let mut pending = 0..0;
    progress.start(Stage::Sketch, Some(n));
    let t = Instant::now();
    for chunk in texts.chunks(crate::progress::CHUNK) {
        let (new, searched) = rayon::join(
            || ndd_core::ParDocSketcher::par_sketch_batch(hasher, chunk),
            || search.run(&sigs, pending.clone()),
        );
        search.flush(sink);
        searched?;
        pending = sigs.len()..sigs.len() + new.len();
        sigs.extend(new);
        progress.advance(Stage::Sketch, chunk.len() as u64);
    }
    let sketch_time = t.elapsed();
    progress.finish(Stage::Sketch);
    progress.start(Stage::Candidates, Some(n));
    progress.advance(Stage::Candidates, pending.start as u64);
    let t = Instant::now();
    let searched = search.run(&sigs, pending.clone());
    search.flush(sink);
    searched?;
    progress.advance(Stage::Candidates, pending.len() as u64);
    let search_time = t.elapsed();
    progress.finish(Stage::Candidates);
    Ok((sketch_time, search_time))
}

//! MinHash (one-permutation hashing) + banded LSH, streamed: each document's
//! candidates are the earlier documents sharing a band.

use std::time::{Duration, Instant};

use ndd_core::{DocSketcher, Error, PairSink, ScoredPair, Signature, Threshold};
use ndd_lsh::{FlatLshIndex, LshIndex, ScanCuts};
use ndd_minhash::{BBitSlots, MinHashSignature, MinHasher};

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
/// none (a measure the estimate does not bound decides). Every engine's stream uses it,
/// through [`EstimateFilter`].
pub(crate) fn floor(emit: Emit, threshold: Threshold, num_perm: usize) -> f64 {
    match emit {
        Emit::Accepted => threshold.get(),
        Emit::AllCandidates => f64::NEG_INFINITY,
        Emit::Plausible => plausible_floor(threshold.get(), num_perm),
    }
}

/// Bits per slot of the fields [`Emit::Plausible`] compares: 8 (128 bytes for 128
/// values, against 1,024 for full signatures; docs/decisions.md, "Compact state of the
/// main job" and "One plausibility filter for every engine").
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::PLAUSIBLE_FIELD_BITS, 8);
/// ```
pub const PLAUSIBLE_FIELD_BITS: u32 = 8;

/// The test a MinHash candidate pair passes before verification, the same in every
/// engine (in memory, the saved index, out of core, the distributed job): its
/// [`score`](Self::score) must reach its [`floor`](Self::floor).
///
/// When the estimate verifies ([`Emit::Accepted`]) the score is the MinHash estimate
/// and the floor the threshold; when every candidate goes on ([`Emit::AllCandidates`])
/// the floor is minus infinity. When exact Jaccard decides ([`Emit::Plausible`]) the
/// score is the fraction of equal [`PLAUSIBLE_FIELD_BITS`]-bit fields (the lowest bits
/// of each slot, as [`BBitSlots`] keeps them) and the floor the plausible one: never
/// below the estimate (equal slots have equal fields), so it drops no pair the estimate
/// would pass, and an engine may keep 128 bytes of fields per document instead of the
/// signature. What passes beyond the estimate the exact measure rejects.
///
/// # Example
///
/// ```
/// use near_dup::{Signature, Sketcher};
/// use near_dup::minhash::MinHasher;
/// use near_dup::pipeline::{Dedup, Verifier};
/// let h = MinHasher::new(128)?;
/// let (a, b) = (h.sketch_features(0..1000), h.sketch_features(100..1100));
/// let exact = Dedup::new().threshold(0.8).plan()?.estimate_filter(128);
/// assert_eq!(exact.field_bits(), Some(8));
/// assert!(exact.score(&a, &b)? >= a.similarity(&b)?.value());
/// assert!(exact.passes(exact.score(&a, &b)?));
/// let estimate = Dedup::new().threshold(0.8).verifier(Verifier::MethodScore).plan()?;
/// let estimate = estimate.estimate_filter(128);
/// assert_eq!((estimate.field_bits(), estimate.floor()), (None, 0.8));
/// assert_eq!(estimate.score(&a, &b)?, a.similarity(&b)?.value());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimateFilter {
    floor: f64,
    field_bits: Option<u32>,
}

impl EstimateFilter {
    /// The filter of the candidate stream for `emit` at `threshold` with `num_perm`
    /// values.
    pub(crate) fn new(emit: Emit, threshold: Threshold, num_perm: usize) -> Self {
        EstimateFilter {
            floor: floor(emit, threshold, num_perm),
            field_bits: (emit == Emit::Plausible).then_some(PLAUSIBLE_FIELD_BITS),
        }
    }

    /// The filter that passes every candidate, scored by its estimate.
    pub(crate) fn every_candidate() -> Self {
        EstimateFilter {
            floor: f64::NEG_INFINITY,
            field_bits: None,
        }
    }

    /// The lowest score that passes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Verifier};
    /// let plan = Dedup::new().verifier(Verifier::Containment).plan()?;
    /// assert_eq!(plan.estimate_filter(128).floor(), f64::NEG_INFINITY);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn floor(&self) -> f64 {
        self.floor
    }

    /// The bits per slot of the fields the score compares, `None` when it is the
    /// estimate of the full signatures.
    ///
    /// # Example
    ///
    /// ```
    /// let plan = near_dup::pipeline::Dedup::new().plan()?;
    /// assert_eq!(plan.estimate_filter(128).field_bits(), Some(8));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn field_bits(&self) -> Option<u32> {
        self.field_bits
    }

    /// The pair's score from the two full signatures: the fraction of equal fields, or
    /// the estimate (see the type's documentation).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] or [`Error::LengthMismatch`] when the signatures cannot
    /// be compared.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let a = near_dup::minhash::MinHasher::new(128)?.sketch_features(0..10);
    /// let filter = near_dup::pipeline::Dedup::new().plan()?.estimate_filter(128);
    /// assert_eq!(filter.score(&a, &a)?, 1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn score(&self, a: &MinHashSignature, b: &MinHashSignature) -> Result<f64, Error> {
        match self.field_bits {
            Some(bits) => Ok(a.field_matches(b, bits)? as f64 / a.values().len().max(1) as f64),
            None => Ok(a.similarity(b)?.value()),
        }
    }

    /// Whether a pair of this `score` goes on to verification.
    ///
    /// # Example
    ///
    /// ```
    /// let filter = near_dup::pipeline::Dedup::new().threshold(0.8).plan()?.estimate_filter(128);
    /// assert!(filter.passes(0.8) && !filter.passes(0.5));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn passes(&self, score: f64) -> bool {
        score >= self.floor
    }
}

/// Checks `config` at `threshold` and returns its banding, resolved (what a plan
/// keeps, so that the stage does not search the S-curves again).
pub(crate) fn validate(
    config: &MinHashConfig,
    threshold: Threshold,
) -> Result<ndd_lsh::LshParams, Error> {
    crate::method::check_num_perm(config.num_perm)?;
    if config.max_bucket_scan == Some(0) {
        return Err(Error::invalid_parameter(
            "max_bucket_scan",
            "must be at least 1 (or None for no bound): 0 would find no candidate",
        ));
    }
    config.banding_for(threshold)
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
    // The plan's banding; a context made by hand has none and resolves it here.
    let params = match ctx.banding {
        Some(params) => params,
        None => config.banding_for(ctx.threshold)?,
    };
    let filter = EstimateFilter::new(ctx.emit, ctx.threshold, config.num_perm);
    let new_index = || {
        let mut index = FlatLshIndex::with_capacity(params, texts.len());
        index.set_max_bucket_scan(crate::method::bounded_scan(config.max_bucket_scan));
        index
    };
    // The index's tables (zeroed, faulted in page by page: a serial step of a few
    // milliseconds before anything is sketched, issue 31's timeline) made while the
    // first chunk is sketched.
    #[cfg(feature = "rayon")]
    let (mut index, first) = {
        let first = tapered_chunks(texts, crate::progress::CHUNK, LAST_CHUNK)
            .next()
            .unwrap_or_default();
        let t = Instant::now();
        let (index, sketched) = rayon::join(new_index, || {
            ndd_core::ParDocSketcher::par_sketch_batch(hasher, first)
        });
        (index, Sketched(sketched, t.elapsed()))
    };
    #[cfg(not(feature = "rayon"))]
    let (mut index, first) = (new_index(), Sketched::none());
    // Exact Jaccard decides after the plausible filter: its fields suffice. The
    // estimate verifies, or every candidate goes on with its estimate as its score: the
    // full signatures.
    let kept = match filter.field_bits() {
        Some(bits) => {
            let mut fields = BBitSlots::new(bits, config.num_perm)?;
            fields.reserve(texts.len());
            Kept::Fields(fields)
        }
        None => Kept::Full(Vec::with_capacity(texts.len())),
    };
    let streamed = stream_from(
        hasher,
        texts,
        first,
        Target::Flat(&mut index, kept),
        filter,
        ctx.progress,
        sink,
    )?;
    let bytes = index.memory().bytes_per_document();
    super::drop_on_pool(index);
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
        signature_bytes_per_document: streamed.signature_bytes_per_document,
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
    /// Bytes per document of what the stream kept to estimate pairs with, when it kept
    /// them itself ([`Target::Flat`]).
    pub(crate) signature_bytes_per_document: Option<f64>,
}

/// The index a [`stream`] queries and inserts into, and where the signatures it
/// estimates pairs with live.
pub(crate) enum Target<'i> {
    /// An [`LshIndex`] whose keys are `key_of(i)`: a saved one that keeps every
    /// signature (keys are positions in its collection), or a fresh one that does not
    /// (keys are the positions in `texts`; the stream keeps the full signatures).
    Lsh(
        &'i mut LshIndex<u32, MinHashSignature>,
        &'i (dyn Fn(usize) -> usize + Sync),
    ),
    /// A fresh [`FlatLshIndex`] (numbers are the positions in `texts`) and what the
    /// stream keeps of each signature.
    Flat(&'i mut FlatLshIndex, Kept),
}

/// What a stream over a [`FlatLshIndex`] keeps of each document's signature.
pub(crate) enum Kept {
    /// The full signatures: the estimate is MinHash's.
    Full(Vec<MinHashSignature>),
    /// Their b-bit fields: the estimate is the fraction of equal fields, which is
    /// never below the fraction of equal slots (equal minima have equal low bits), so
    /// every pair the full estimate passes on is passed on, and a few more (on
    /// average `(1 − J)/2^b` more agreement), for exact verification to decide.
    Fields(BBitSlots),
}

/// The MinHash candidate stream of every engine: sketches `texts`, queries each
/// document against the target's index (the documents inserted before: an earlier
/// batch's and this batch's earlier ones) then inserts it, and passes on the pairs
/// that pass `filter` as `(earlier key, key)`, scored by the filter, in document order. An
/// engine differs only in its [`Target`].
pub(crate) fn stream<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync>(
    hasher: &S,
    texts: &[&str],
    target: Target<'_>,
    filter: EstimateFilter,
    progress: &dyn Progress,
    sink: &mut dyn PairSink,
) -> Result<Streamed, Error> {
    let none = Sketched::none();
    stream_from(hasher, texts, none, target, filter, progress, sink)
}

/// The signatures of the first documents of a stream's texts, sketched by its caller
/// (while it made the index), and the time that took (part of the sketch stage's).
pub(crate) struct Sketched(Vec<MinHashSignature>, Duration);

impl Sketched {
    /// No signature yet.
    fn none() -> Self {
        Sketched(Vec::new(), Duration::ZERO)
    }
}

/// [`stream`] with the signatures of the first `first.0.len()` texts sketched already
/// (by `hasher`: the same signatures the stream would make).
fn stream_from<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync>(
    hasher: &S,
    texts: &[&str],
    first: Sketched,
    target: Target<'_>,
    filter: EstimateFilter,
    progress: &dyn Progress,
    sink: &mut dyn PairSink,
) -> Result<Streamed, Error> {
    if let Target::Lsh(index, _) = &target {
        if !index.keeps_signatures() {
            return Err(Error::invalid_parameter(
                "index",
                "the candidate stream scores candidates by the index's kept signatures: \
                 build it with keep_signatures(true)",
            ));
        }
    }
    let cuts_before = target.scan_cuts();
    let mut search = Search {
        target,
        filter,
        found: Vec::new(),
        out: Vec::new(),
        candidates: 0,
    };
    #[cfg(feature = "rayon")]
    let (sketch_time, search_time) =
        sketch_while_searching(hasher, texts, first, progress, &mut search, sink)?;
    #[cfg(not(feature = "rayon"))]
    let (sketch_time, search_time) = {
        let n = texts.len() as u64;
        progress.start(Stage::Sketch, Some(n));
        let t = Instant::now();
        let done = first.0.len().min(texts.len());
        progress.advance(Stage::Sketch, done as u64);
        let mut sigs = first.0;
        sigs.truncate(done);
        sigs.extend(in_chunks(
            &texts[done..],
            Stage::Sketch,
            progress,
            |chunk| hasher.sketch_batch(chunk),
        ));
        let sketch_time = t.elapsed() + first.1;
        progress.finish(Stage::Sketch);
        progress.start(Stage::Candidates, Some(n));
        let t = Instant::now();
        let mut sigs = sigs.into_iter();
        let mut start = 0;
        loop {
            let chunk: Vec<_> = sigs.by_ref().take(crate::progress::CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            let len = chunk.len();
            let searched = search.run(chunk, start);
            search.flush(sink);
            searched?;
            start += len;
            progress.advance(Stage::Candidates, len as u64);
        }
        let search_time = t.elapsed();
        progress.finish(Stage::Candidates);
        (sketch_time, search_time)
    };
    let cuts = search.target.scan_cuts().since(cuts_before);
    let streamed = Streamed {
        candidates: search.candidates,
        sketch_time,
        search_time,
        bucket_scan: BucketScan {
            bound: search.target.max_bucket_scan().unwrap_or(usize::MAX),
            cut_reads: cuts.reads,
            cut_documents: cuts.documents,
        },
        signature_bytes_per_document: search.target.signature_bytes_per_document(),
    };
    if let Target::Flat(_, kept) = search.target {
        super::drop_on_pool(kept);
    }
    Ok(streamed)
}

impl Target<'_> {
    fn scan_cuts(&self) -> ScanCuts {
        match self {
            Target::Lsh(index, _) => index.scan_cuts(),
            Target::Flat(index, _) => index.scan_cuts(),
        }
    }

    fn max_bucket_scan(&self) -> Option<usize> {
        match self {
            Target::Lsh(index, _) => index.max_bucket_scan(),
            Target::Flat(index, _) => index.max_bucket_scan(),
        }
    }

    fn signature_bytes_per_document(&self) -> Option<f64> {
        match self {
            Target::Lsh(..) => None,
            Target::Flat(_, Kept::Full(sigs)) => {
                let values: usize = sigs.iter().map(|s| s.values().len()).sum();
                Some(8.0 * values as f64 / sigs.len().max(1) as f64)
            }
            Target::Flat(_, Kept::Fields(fields)) => Some(fields.bytes_per_document() as f64),
        }
    }
}

/// The streamed LSH search: each document's candidates are the documents of the index
/// sharing a band; those that pass `filter` are collected in `out`, in
/// document order and then in the order of the earlier document.
struct Search<'i> {
    target: Target<'i>,
    filter: EstimateFilter,
    found: Vec<u32>,
    out: Vec<ScoredPair>,
    candidates: u64,
}

impl Search<'_> {
    /// Queries then inserts the documents of `chunk`, the first of which is document
    /// `start` of the stream (every document before it is inserted already).
    fn run(&mut self, chunk: Vec<MinHashSignature>, start: usize) -> Result<(), Error> {
        for (i, sig) in (start..).zip(chunk) {
            self.found.clear();
            let key = match &mut self.target {
                Target::Lsh(index, key_of) => {
                    let key = key_of(i);
                    index.query_then_insert(super::key(key), &sig, &mut self.found)?;
                    key
                }
                Target::Flat(index, kept) => {
                    index.query_then_insert(&sig, &mut self.found)?;
                    if let Kept::Fields(fields) = kept {
                        fields.push(&sig)?;
                    }
                    i
                }
            };
            self.candidates += self.found.len() as u64;
            self.found.sort_unstable();
            for &j in &self.found {
                let j = j as usize;
                let filter = &self.filter;
                let score = match &self.target {
                    // An index that keeps its signatures (checked by `stream`).
                    Target::Lsh(index, _) => index
                        .signature(&super::key(j))
                        .map(|e| filter.score(e, &sig)),
                    Target::Flat(_, Kept::Full(sigs)) => sigs.get(j).map(|e| filter.score(e, &sig)),
                    // Made with the filter's field width (`with_sketcher`).
                    Target::Flat(_, Kept::Fields(fields)) => Some(Ok(fields.raw_similarity(j, i))),
                };
                if let Some(score) = score {
                    let score = score?;
                    if filter.passes(score) {
                        self.out.push(ScoredPair::new(j, key, score));
                    }
                }
            }
            if let Target::Flat(_, Kept::Full(sigs)) = &mut self.target {
                sigs.push(sig);
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
    first: Sketched,
    progress: &dyn Progress,
    search: &mut Search<'_>,
    sink: &mut dyn PairSink,
) -> Result<(Duration, Duration), Error> {
    let n = texts.len() as u64;
    // The signatures sketched already are the first chunk, searched while the next
    // one is sketched.
    let Sketched(mut pending, before) = first;
    pending.truncate(texts.len());
    let mut start = 0;
    progress.start(Stage::Sketch, Some(n));
    progress.advance(Stage::Sketch, pending.len() as u64);
    let t = Instant::now();
    let rest = texts.get(pending.len()..).unwrap_or_default();
    for chunk in tapered_chunks(rest, crate::progress::CHUNK, LAST_CHUNK) {
        let searching = std::mem::take(&mut pending);
        let searched_len = searching.len();
        let (new, searched) = rayon::join(
            || ndd_core::ParDocSketcher::par_sketch_batch(hasher, chunk),
            || search.run(searching, start),
        );
        search.flush(sink);
        searched?;
        start += searched_len;
        pending = new;
        progress.advance(Stage::Sketch, chunk.len() as u64);
    }
    let sketch_time = t.elapsed() + before;
    progress.finish(Stage::Sketch);
    progress.start(Stage::Candidates, Some(n));
    progress.advance(Stage::Candidates, start as u64);
    let t = Instant::now();
    let last = pending.len();
    let searched = search.run(pending, start);
    search.flush(sink);
    searched?;
    progress.advance(Stage::Candidates, last as u64);
    let search_time = t.elapsed();
    progress.finish(Stage::Candidates);
    Ok((sketch_time, search_time))
}

/// The smallest chunk [`tapered_chunks`] cuts: the documents searched alone after the
/// last signature.
#[cfg(feature = "rayon")]
const LAST_CHUNK: usize = 256;

/// `items` in chunks: the last `chunk` items cut in halves down to at most `last`
/// (4,096 → 2,048, 1,024, 512, 256, 256), the items before them in equal chunks of at
/// most `chunk`. Each chunk is sketched while the one before is searched, so only the
/// last, small one is searched alone (a whole last chunk left one thread searching
/// 4,096 documents while the others waited, issue 31's timeline); and no chunk is a
/// sliver beside a whole one (its search would be sketched beside nothing).
#[cfg(feature = "rayon")]
fn tapered_chunks<T>(items: &[T], chunk: usize, last: usize) -> impl Iterator<Item = &[T]> {
    let (chunk, last) = (chunk.max(1), last.max(1));
    let n = items.len();
    let mut tail = n.min(chunk);
    let head = n - tail;
    let per = head.div_ceil(head.div_ceil(chunk).max(1)).max(1);
    let mut sizes = vec![per; head / per];
    if head % per > 0 {
        sizes.push(head % per);
    }
    while tail > last {
        let half = (tail / 2).max(last);
        sizes.push(half);
        tail -= half;
    }
    if tail > 0 {
        sizes.push(tail);
    }
    let mut rest = items;
    sizes.into_iter().map(move |size| {
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        rest = tail;
        chunk
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tapered chunks cover the items once, in order: whole chunks, then halves down
    /// to the last size.
    #[cfg(feature = "rayon")]
    #[test]
    fn tapered_chunks_cover_the_items_in_order_and_shrink_at_the_end() {
        let sizes = |n: usize| -> Vec<usize> {
            let items: Vec<usize> = (0..n).collect();
            let chunks: Vec<&[usize]> = tapered_chunks(&items, 4096, 256).collect();
            assert_eq!(chunks.concat(), items, "{n} items");
            chunks.iter().map(|c| c.len()).collect()
        };
        assert_eq!(sizes(0), Vec::<usize>::new());
        assert_eq!(sizes(100), vec![100]);
        assert_eq!(sizes(300), vec![256, 44]);
        assert_eq!(sizes(4096), vec![2048, 1024, 512, 256, 256]);
        // 8,202 before the tail: three chunks of 2,734, not 4,096, 4,096 and 10.
        assert_eq!(
            sizes(3 * 4096 + 10),
            vec![2734, 2734, 2734, 2048, 1024, 512, 256, 256]
        );
        assert_eq!(
            sizes(5 * 4096),
            vec![4096; 4]
                .into_iter()
                .chain([2048, 1024, 512, 256, 256])
                .collect::<Vec<_>>()
        );
    }

    /// Texts with planted near-duplicates of several degrees: each family shares a
    /// base text and changes a growing number of its words.
    fn texts() -> Vec<String> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::new();
        for _ in 0..40 {
            let base: Vec<u64> = (0..80).map(|_| next() % 3000).collect();
            for changed in [0usize, 1, 2, 3, 5, 8, 12, 20] {
                let mut words = base.clone();
                for _ in 0..changed {
                    let at = (next() % 80) as usize;
                    words[at] = next() % 3000;
                }
                out.push(
                    words
                        .iter()
                        .map(|w| format!("w{w}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
        }
        out
    }

    fn run(texts: &[&str], kept: Kept, filter: EstimateFilter) -> (Vec<ScoredPair>, u64) {
        let hasher = MinHasher::new(128).expect("128 values");
        let params = ndd_lsh::LshParams::new(16, 6).expect("16 x 6");
        let mut index = FlatLshIndex::with_capacity(params, texts.len());
        let mut pairs: Vec<ScoredPair> = Vec::new();
        let streamed = stream(
            &hasher,
            texts,
            Target::Flat(&mut index, kept),
            filter,
            &crate::NoProgress,
            &mut pairs,
        )
        .expect("one scheme");
        (pairs, streamed.candidates)
    }

    /// The plausibility filter gives the same pairs and scores from 8-bit fields as
    /// from full signatures, over a `FlatLshIndex` and an `LshIndex`; and it passes on
    /// every pair the full estimate passes at the same floor, never with a lower score.
    #[test]
    fn fields_and_full_signatures_filter_alike() {
        let owned = texts();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let t = Threshold::new(0.8).expect("0.8");
        let filter = EstimateFilter::new(Emit::Plausible, t, 128);
        assert_eq!(filter.field_bits(), Some(PLAUSIBLE_FIELD_BITS));
        assert_eq!(filter.floor(), plausible_floor(0.8, 128));
        let by_estimate = EstimateFilter {
            field_bits: None,
            ..filter
        };
        let (estimated, estimated_candidates) = run(&texts, Kept::Full(Vec::new()), by_estimate);
        let (full, full_candidates) = run(&texts, Kept::Full(Vec::new()), filter);
        let fields = BBitSlots::new(PLAUSIBLE_FIELD_BITS, 128).expect("8 bits");
        let (compact, compact_candidates) = run(&texts, Kept::Fields(fields), filter);
        assert_eq!(full_candidates, compact_candidates);
        assert_eq!(full_candidates, estimated_candidates);
        assert!(estimated.len() > 100, "{} pairs pass", estimated.len());
        let key = |p: &ScoredPair| (p.a, p.b, p.score.to_bits());
        assert_eq!(
            full.iter().map(key).collect::<Vec<_>>(),
            compact.iter().map(key).collect::<Vec<_>>()
        );
        let scores: std::collections::HashMap<(usize, usize), f64> =
            compact.iter().map(|p| ((p.a, p.b), p.score)).collect();
        for p in &estimated {
            let e = scores.get(&(p.a, p.b));
            assert!(e.is_some_and(|&e| e >= p.score), "pair {} {}", p.a, p.b);
        }

        let hasher = MinHasher::new(128).expect("128 values");
        let mut lsh = LshIndex::builder(ndd_lsh::LshParams::new(16, 6).expect("16 x 6"))
            .keep_signatures(true)
            .build();
        let mut pairs: Vec<ScoredPair> = Vec::new();
        stream(
            &hasher,
            &texts,
            Target::Lsh(&mut lsh, &|i| i),
            filter,
            &crate::NoProgress,
            &mut pairs,
        )
        .expect("one scheme");
        assert_eq!(
            pairs.iter().map(key).collect::<Vec<_>>(),
            full.iter().map(key).collect::<Vec<_>>()
        );
    }
}

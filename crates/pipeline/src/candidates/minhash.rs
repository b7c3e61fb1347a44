//! MinHash (one-permutation hashing) + banded LSH: each document's candidates are the
//! earlier documents sharing a band, found by a sorted band join in memory
//! ([`sorted_join`]) and by a streamed search of a saved index ([`stream`]), the same
//! candidates in the same order.

use std::time::{Duration, Instant};

use ndd_core::{DocSketcher, Error, PairSink, ScoredPair, Threshold};
use ndd_lsh::{BandSorter, LshIndex, ScanCuts, SortedBand, SortedBandJoin};
use ndd_minhash::{BBitSlots, MinHashSignature, MinHasher};

use super::estimate::EstimateFilter;
#[cfg(not(feature = "rayon"))]
use super::in_chunks;
use super::{CandidateReport, Ctx};
use crate::progress::{Progress, Stage};
use crate::{BucketScan, MinHashConfig};

/// What sketches documents into MinHash signatures here: one-permutation MinHash over
/// the pipeline's shingles, or ICWS over learned k-gram weights.
trait MinHashSketcher: DocSketcher<Signature = MinHashSignature, State: Send> + Sync {}
impl<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync> MinHashSketcher for S {}

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
    let scan = crate::method::bounded_scan(config.max_bucket_scan);
    let joined = sorted_join(
        hasher,
        texts,
        params,
        scan,
        kept,
        filter,
        ctx.progress,
        sink,
    )?;
    let (streamed, bytes) = (joined.streamed, joined.index_bytes_per_document);
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

/// What [`sorted_join`] did: its [`Streamed`] report, and the bytes per document of
/// its banding state.
pub(crate) struct Joined {
    pub(crate) streamed: Streamed,
    /// The band keys (held from sketching until the join is built) and the join's
    /// positions and shared members, per document: what the candidate stage holds
    /// besides what it keeps of the signatures, except the band sorters' scratch while
    /// the bands are sorted (16 bytes per document per running sort, at most
    /// min(threads, bands) sorts at once; freed before the join is queried).
    pub(crate) index_bytes_per_document: f64,
}

/// Documents a task of [`sorted_join`]'s query phase takes at once.
const QUERY_CHUNK: usize = 256;

/// The in-memory engine's MinHash candidate stage, off the serial path: sketches
/// `texts` (on the pool, a chunk at a time) into band keys and what `kept` keeps,
/// sorts each band's keys into buckets ([`SortedBand`], bands in parallel) and joins
/// them ([`SortedBandJoin`]: documents in parallel). Each document's candidates are
/// the earlier documents sharing a band, at most `bucket_scan` newest per bucket: those
/// a [`FlatLshIndex`](ndd_lsh::FlatLshIndex) stream over the same texts proposes, with
/// the same cuts; the pairs that pass `filter` reach `sink` as [`stream`] hands them
/// over, `(earlier, later)`, in document order and then in the order of the earlier
/// document.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sorted_join<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync>(
    hasher: &S,
    texts: &[&str],
    params: ndd_lsh::LshParams,
    bucket_scan: Option<usize>,
    mut kept: Kept,
    filter: EstimateFilter,
    progress: &dyn Progress,
    sink: &mut dyn PairSink,
) -> Result<Joined, Error> {
    let (n, b) = (texts.len(), params.bands());
    // Refused before sketching: the join would refuse them once sketched.
    if n > SortedBandJoin::MAX_DOCUMENTS {
        return Err(Error::invalid_input(format!(
            "{n} texts: a sorted band join holds at most {} documents",
            SortedBandJoin::MAX_DOCUMENTS
        )));
    }
    // Band by band, each band's keys in document order: what each band's sort reads.
    // Reserved whole up front (the reported bytes count these capacities): keys that
    // do not fit are refused here, before sketching.
    let mut columns: Vec<Vec<u64>> = (0..b).map(|_| Vec::new()).collect();
    for column in &mut columns {
        column.try_reserve_exact(n).map_err(|_| {
            Error::invalid_input(format!(
                "{n} texts: their band keys ({b} bands, 8 bytes each) do not fit in memory"
            ))
        })?;
    }
    progress.start(Stage::Sketch, Some(n as u64));
    let t = Instant::now();
    for chunk in texts.chunks(crate::progress::CHUNK) {
        #[cfg(feature = "rayon")]
        let sigs = ndd_core::ParDocSketcher::par_sketch_batch(hasher, chunk);
        #[cfg(not(feature = "rayon"))]
        let sigs = hasher.sketch_batch(chunk);
        match &mut kept {
            Kept::Fields(fields) => {
                let (written, pushed) = join2(
                    || append_band_keys(params, &sigs, &mut columns),
                    || sigs.iter().try_for_each(|s| fields.push(s).map(drop)),
                );
                written?;
                pushed?;
                super::drop_on_pool(sigs);
            }
            Kept::Full(all) => {
                append_band_keys(params, &sigs, &mut columns)?;
                all.extend(sigs);
            }
        }
        progress.advance(Stage::Sketch, chunk.len() as u64);
    }
    let sketch_time = t.elapsed();
    progress.finish(Stage::Sketch);

    progress.start(Stage::Candidates, Some(n as u64));
    let t = Instant::now();
    let keys_bytes: usize = columns
        .iter()
        .map(|c| c.capacity() * size_of::<u64>())
        .sum();
    let bands = sort_bands(columns)?;
    let join = SortedBandJoin::from_bands(params, bands, bucket_scan)?;
    let mut candidates = 0u64;
    for start in (0..n).step_by(crate::progress::CHUNK) {
        let end = (start + crate::progress::CHUNK).min(n);
        let parts = map_ordered((end - start).div_ceil(QUERY_CHUNK), |k| {
            let from = start + k * QUERY_CHUNK;
            query(&join, &kept, filter, from..(from + QUERY_CHUNK).min(end))
        });
        for part in parts {
            let (pairs, found) = part?;
            candidates += found;
            for pair in pairs {
                sink.push_pair(pair);
            }
        }
        progress.advance(Stage::Candidates, (end - start) as u64);
    }
    let search_time = t.elapsed();
    progress.finish(Stage::Candidates);
    let cuts = join.scan_cuts();
    let index_bytes = (keys_bytes + join.memory().index_bytes()) as f64 / n.max(1) as f64;
    let signature_bytes_per_document = Some(kept.bytes_per_document());
    super::drop_on_pool(join);
    super::drop_on_pool(kept);
    Ok(Joined {
        streamed: Streamed {
            candidates,
            sketch_time,
            search_time,
            bucket_scan: BucketScan {
                bound: bucket_scan.unwrap_or(usize::MAX),
                cut_reads: cuts.reads,
                cut_documents: cuts.documents,
            },
            signature_bytes_per_document,
        },
        index_bytes_per_document: index_bytes,
    })
}

/// The candidates of the documents `docs` in `join`, scored by `kept` and `filter`:
/// the pairs that pass, in document order and then in the order of the earlier
/// document, and the number of candidates.
fn query(
    join: &SortedBandJoin,
    kept: &Kept,
    filter: EstimateFilter,
    docs: std::ops::Range<usize>,
) -> Result<(Vec<ScoredPair>, u64), Error> {
    let (mut found, mut next, mut out, mut candidates) = (Vec::new(), Vec::new(), Vec::new(), 0u64);
    let end = docs.end;
    if !docs.is_empty() {
        join.candidates_into(docs.start, &mut next);
    }
    for i in docs {
        // This document's candidates were found with the previous document; the next
        // one's are found and their kept rows read now, so that those reads (earlier
        // documents anywhere in memory) overlap this document's scoring.
        std::mem::swap(&mut found, &mut next);
        if i + 1 < end {
            join.candidates_into(i + 1, &mut next);
            touch_rows(kept, &next);
        }
        candidates += found.len() as u64;
        for &j in &found {
            let j = j as usize;
            let score = match kept {
                Kept::Full(sigs) => match (sigs.get(j), sigs.get(i)) {
                    (Some(a), Some(b)) => filter.score(a, b)?,
                    _ => continue,
                },
                // Made with the filter's field width (`with_sketcher`).
                Kept::Fields(fields) => fields.raw_similarity(j, i),
            };
            if filter.passes(score) {
                out.push(ScoredPair::new(j, i, score));
            }
        }
    }
    Ok((out, candidates))
}

/// Reads the cache lines of the kept fields of `docs` (nothing for full signatures:
/// [`query`] keeps fields at the defaults), so that they are in the cache when scored.
fn touch_rows(kept: &Kept, docs: &[u32]) {
    if let Kept::Fields(fields) = kept {
        let mut x = 0u64;
        for &j in docs {
            let row = fields.fields(j as usize);
            // One value per 64-byte line, and the last (a row need not start a line).
            x ^= crate::cache::touch_lines(row, usize::MAX) ^ row.last().copied().unwrap_or(0);
        }
        // Keeps the reads: their value is used nowhere else.
        std::hint::black_box(x);
    }
}

/// Appends the band keys of `sigs` to `columns` (band `i`'s to `columns[i]`; computed
/// on the pool, a part at a time).
fn append_band_keys(
    params: ndd_lsh::LshParams,
    sigs: &[MinHashSignature],
    columns: &mut [Vec<u64>],
) -> Result<(), Error> {
    let b = params.bands();
    let parts = map_ordered(sigs.len().div_ceil(QUERY_CHUNK), |k| {
        let part = &sigs[k * QUERY_CHUNK..((k + 1) * QUERY_CHUNK).min(sigs.len())];
        let mut out = Vec::with_capacity(part.len() * params.bands());
        for sig in part {
            params.band_keys_into(ndd_core::SlotSignature::slots(sig), &mut out)?;
        }
        Ok::<_, Error>(out)
    });
    for part in parts {
        let part = part?;
        for (band, column) in columns.iter_mut().enumerate() {
            column.extend(part.iter().skip(band).step_by(b));
        }
    }
    Ok(())
}

/// Each band's keys sorted into buckets, bands in parallel on the pool; a band's keys
/// are freed once it is sorted. A [`BandSorter`] is made per piece of work rayon
/// splits the bands into (not per thread: a thread that takes several pieces makes a
/// sorter for each) and kept from band to band within it; each holds 16 bytes per
/// document of scratch while it sorts, so up to min(threads, bands) of them are alive
/// at once, none after this returns ([`Joined`]'s reported bytes leave them out).
fn sort_bands(columns: Vec<Vec<u64>>) -> Result<Vec<SortedBand>, Error> {
    #[cfg(feature = "rayon")]
    let sorted: Vec<Result<SortedBand, Error>> = {
        use rayon::prelude::*;
        columns
            .into_par_iter()
            .map_init(BandSorter::new, |sorter, column| sorter.sort(&column))
            .collect()
    };
    #[cfg(not(feature = "rayon"))]
    let sorted: Vec<Result<SortedBand, Error>> = {
        let mut sorter = BandSorter::new();
        columns.into_iter().map(|c| sorter.sort(&c)).collect()
    };
    sorted.into_iter().collect()
}

/// `f(0), f(1), …, f(count − 1)`, in order, computed on rayon's pool.
fn map_ordered<R: Send>(count: usize, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        (0..count).into_par_iter().map(f).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        (0..count).map(f).collect()
    }
}

/// `(a(), b())`, on two threads of rayon's pool when there is one.
fn join2<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "rayon")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "rayon"))]
    {
        (a(), b())
    }
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
    /// Bytes per document of what the stage kept to estimate pairs with, when it kept
    /// them itself ([`sorted_join`]; a [`stream`]'s index keeps them).
    pub(crate) signature_bytes_per_document: Option<f64>,
}

/// The index a [`stream`] queries and inserts into, which keeps the signatures it
/// estimates pairs with.
pub(crate) struct Target<'i> {
    /// An [`LshIndex`] that keeps every signature (a saved one's).
    pub(crate) index: &'i mut LshIndex<u32, MinHashSignature>,
    /// The key of the stream's `i`-th document in `index` (a saved one: its position
    /// in the collection).
    pub(crate) key_of: &'i (dyn Fn(usize) -> usize + Sync),
}

/// What [`sorted_join`] keeps of each document's signature.
pub(crate) enum Kept {
    /// The full signatures: the estimate is MinHash's.
    Full(Vec<MinHashSignature>),
    /// Their b-bit fields: the estimate is the fraction of equal fields, which is
    /// never below the fraction of equal slots (equal minima have equal low bits), so
    /// every pair the full estimate passes on is passed on, and a few more (on
    /// average `(1 − J)/2^b` more agreement), for exact verification to decide.
    Fields(BBitSlots),
}

impl Kept {
    /// Bytes per document of what is kept.
    fn bytes_per_document(&self) -> f64 {
        match self {
            Kept::Full(sigs) => {
                let values: usize = sigs.iter().map(|s| s.values().len()).sum();
                8.0 * values as f64 / sigs.len().max(1) as f64
            }
            Kept::Fields(fields) => fields.bytes_per_document() as f64,
        }
    }
}

/// The MinHash candidate stream of an engine whose index outlives the run (the saved
/// index): sketches `texts`, queries each document against the target's index (the
/// documents inserted before: an earlier batch's and this batch's earlier ones) then
/// inserts it, and passes on the pairs that pass `filter` as `(earlier key, key)`,
/// scored by the filter, in document order. The in-memory engine's [`sorted_join`]
/// hands over the same pairs in the same order.
pub(crate) fn stream<S: DocSketcher<Signature = MinHashSignature, State: Send> + Sync>(
    hasher: &S,
    texts: &[&str],
    target: Target<'_>,
    filter: EstimateFilter,
    progress: &dyn Progress,
    sink: &mut dyn PairSink,
) -> Result<Streamed, Error> {
    if !target.index.keeps_signatures() {
        return Err(Error::invalid_parameter(
            "index",
            "the candidate stream scores candidates by the index's kept signatures: \
             build it with keep_signatures(true)",
        ));
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
        // The index keeps the signatures.
        signature_bytes_per_document: None,
    };
    Ok(streamed)
}

impl Target<'_> {
    fn scan_cuts(&self) -> ScanCuts {
        self.index.scan_cuts()
    }

    fn max_bucket_scan(&self) -> Option<usize> {
        self.index.max_bucket_scan()
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
            let Target { index, key_of } = &mut self.target;
            let key = key_of(i);
            index.query_then_insert(super::key(key), &sig, &mut self.found)?;
            self.candidates += self.found.len() as u64;
            self.found.sort_unstable();
            for &j in &self.found {
                let j = j as usize;
                let filter = &self.filter;
                // An index that keeps its signatures (checked by `stream`).
                let score = index
                    .signature(&super::key(j))
                    .map(|e| filter.score(e, &sig));
                if let Some(score) = score {
                    let score = score?;
                    if filter.passes(score) {
                        self.out.push(ScoredPair::new(j, key, score));
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
    let mut pending = Vec::new();
    let mut start = 0;
    progress.start(Stage::Sketch, Some(n));
    let t = Instant::now();
    for chunk in tapered_chunks(texts, crate::progress::CHUNK, LAST_CHUNK) {
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
    let sketch_time = t.elapsed();
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
    use crate::candidates::Emit;
    use crate::candidates::estimate::{PLAUSIBLE_FIELD_BITS, plausible_floor};

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

    /// The in-memory engine's candidate stage (the sorted band join) over `texts`,
    /// bucket scans bounded by `scan`: its pairs, candidates and cut reads.
    fn join(
        texts: &[&str],
        kept: Kept,
        filter: EstimateFilter,
        scan: Option<usize>,
    ) -> (Vec<ScoredPair>, u64, BucketScan) {
        let hasher = MinHasher::new(128).expect("128 values");
        let params = ndd_lsh::LshParams::new(16, 6).expect("16 x 6");
        let mut pairs: Vec<ScoredPair> = Vec::new();
        let joined = sorted_join(
            &hasher,
            texts,
            params,
            scan,
            kept,
            filter,
            &crate::NoProgress,
            &mut pairs,
        )
        .expect("one scheme");
        let streamed = joined.streamed;
        (pairs, streamed.candidates, streamed.bucket_scan)
    }

    fn run(texts: &[&str], kept: Kept, filter: EstimateFilter) -> (Vec<ScoredPair>, u64) {
        let (pairs, candidates, _) = join(texts, kept, filter, None);
        (pairs, candidates)
    }

    /// The plausibility filter gives the same pairs and scores from 8-bit fields as
    /// from full signatures, over the sorted band join and an `LshIndex`; and it passes
    /// on every pair the full estimate passes at the same floor, never with a lower
    /// score.
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
            Target {
                index: &mut lsh,
                key_of: &|i| i,
            },
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

    /// The sorted band join hands the sink exactly the pairs, in exactly the order, of
    /// the streamed search over an `LshIndex` that keeps its signatures (the oracle of
    /// the flat index the in-memory engine ran before), with the same candidate and
    /// cut counts, with and without a bucket-scan bound; and the bytes it reports are
    /// those of what it held.
    #[test]
    fn the_sorted_join_gives_the_streamed_search() {
        let owned = texts();
        // Hot buckets: the families again, so that bounds of 1 and 3 cut.
        let owned: Vec<String> = owned.iter().chain(&owned).cloned().collect();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let t = Threshold::new(0.8).expect("0.8");
        let hasher = MinHasher::new(128).expect("128 values");
        let params = ndd_lsh::LshParams::new(16, 6).expect("16 x 6");
        let key = |p: &ScoredPair| (p.a, p.b, p.score.to_bits());
        for filter in [
            EstimateFilter::new(Emit::Plausible, t, 128),
            EstimateFilter::every_candidate(),
        ] {
            for scan in [None, Some(1), Some(3), Some(256)] {
                let kept = match filter.field_bits() {
                    Some(bits) => Kept::Fields(BBitSlots::new(bits, 128).expect("8 bits")),
                    None => Kept::Full(Vec::new()),
                };
                let (joined, candidates, cuts) = join(&texts, kept, filter, scan);
                let mut lsh = LshIndex::builder(params)
                    .keep_signatures(true)
                    .max_bucket_scan(scan)
                    .build();
                let mut streamed_pairs: Vec<ScoredPair> = Vec::new();
                let streamed = stream(
                    &hasher,
                    &texts,
                    Target {
                        index: &mut lsh,
                        key_of: &|i| i,
                    },
                    filter,
                    &crate::NoProgress,
                    &mut streamed_pairs,
                )
                .expect("one scheme");
                assert_eq!(
                    joined.iter().map(key).collect::<Vec<_>>(),
                    streamed_pairs.iter().map(key).collect::<Vec<_>>(),
                    "bound {scan:?}"
                );
                assert_eq!(candidates, streamed.candidates, "bound {scan:?}");
                assert_eq!(cuts, streamed.bucket_scan, "bound {scan:?}");
                assert!(joined.len() > 100, "{} pairs, bound {scan:?}", joined.len());
                if scan.is_some_and(|s| s <= 3) {
                    assert!(cuts.cut_reads > 0, "bound {scan:?} cuts");
                }
            }
        }
    }

    /// The bytes per document the join reports are its band keys (8 per band) and
    /// positions (4 per band) at least, and under the bar with the fields.
    #[test]
    fn the_sorted_join_reports_its_bytes() {
        let owned = texts();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let hasher = MinHasher::new(128).expect("128 values");
        let params = ndd_lsh::LshParams::new(16, 6).expect("16 x 6");
        let t = Threshold::new(0.8).expect("0.8");
        let filter = EstimateFilter::new(Emit::Plausible, t, 128);
        let fields = BBitSlots::new(8, 128).expect("8 bits");
        let joined = sorted_join(
            &hasher,
            &texts,
            params,
            Some(256),
            Kept::Fields(fields),
            filter,
            &crate::NoProgress,
            &mut ndd_core::PairCounter::default(),
        )
        .expect("one scheme");
        let index = joined.index_bytes_per_document;
        assert!(index >= 16.0 * 12.0, "{index}");
        assert_eq!(joined.streamed.signature_bytes_per_document, Some(128.0));
        assert!(index + 128.0 <= 512.0, "{index}");
    }
}

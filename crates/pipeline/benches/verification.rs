//! The in-memory set verification (`Verification::run` with exact Jaccard: the shingle
//! sets of the documents pairs name, then each pair's thresholded Jaccard) against its
//! two previous versions, in the same run (issue 31's done-means):
//!
//! * `before_13fee48`: one `FeatureSet` per document (`sets::shingle_sets`), the pairs
//!   scored in arrival order with no read-ahead, rayon's adaptive split;
//! * `before_6326afe`: the sets packed per 256 documents (`sets::PackedSets`) and every
//!   8 pairs the next 8 pairs' sets read ahead (`touch`, 16 cache lines a set), still
//!   rayon's adaptive split (a leaf of about a quarter of the parts or pairs per thread);
//! * `library`: `Verification::run` now: packed and read ahead as above, one part of 256
//!   documents per shingling task and at most 256 pairs per scoring task.
//!
//! The previous versions are copies of the library's code at those commits, kept here
//! (the library carries no dead code). Pairs: the MinHash candidates of the corpus at
//! 0.8 (`CandidateGenerator`, the tool's default method), made once. Before timing, the
//! three give the same pairs with the same scores in the same order.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or the JSONL file named by
//! `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-pipeline --bench verification -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::{FeatureExtractor, FeatureSet, ScoredPair};
use ndd_pipeline::{
    CandidateGenerator, Features, Method, Shingles, Verification, Verifier, set_measure_at_least,
};
use rayon::prelude::*;

#[path = "common/corpus.rs"]
mod corpus;

/// The threshold the pairs are verified at (the tool's default).
const T: f64 = 0.8;
/// `crate::progress::CHUNK`: the pairs of one scoring chunk are `4 × CHUNK`.
const CHUNK: usize = 4096;
/// Documents of one packed part.
const PACK: usize = 256;
/// Pairs read ahead at once, and the cache lines of a set read.
const READ_AHEAD: usize = 8;
const TOUCH_LINES: usize = 16;

/// Which documents a pair names.
fn named_by(n: usize, pairs: &[ScoredPair]) -> Vec<bool> {
    let mut named = vec![false; n];
    for p in pairs {
        named[p.a] = true;
        named[p.b] = true;
    }
    named
}

/// Reads one value in each of the first [`TOUCH_LINES`] cache lines of `set`.
fn touch(set: &[u64]) {
    let mut x = 0u64;
    for v in set.iter().step_by(8).take(TOUCH_LINES) {
        x ^= *v;
    }
    std::hint::black_box(x);
}

/// The scoring loop of both previous versions: chunks of `4 × CHUNK` pairs, each
/// mapped by rayon's adaptive split, in order; `ahead` reads the next group's sets.
fn score<'s>(
    set_of: &(dyn Fn(usize) -> &'s [u64] + Sync),
    pairs: &[ScoredPair],
    ahead: bool,
) -> Vec<ScoredPair> {
    let mut out = Vec::new();
    let len = CHUNK * 4;
    for (c, chunk) in pairs.chunks(len).enumerate() {
        let first = c * len;
        let part: Vec<Option<ScoredPair>> = chunk
            .par_iter()
            .enumerate()
            .map(|(k, p)| {
                let k = first + k;
                if ahead && k % READ_AHEAD == 0 {
                    let next = (k + READ_AHEAD).min(pairs.len());
                    let last = (k + 2 * READ_AHEAD).min(pairs.len());
                    for q in &pairs[next..last] {
                        touch(set_of(q.a));
                        touch(set_of(q.b));
                    }
                }
                set_measure_at_least(true, set_of(p.a), set_of(p.b), T).map(|s| p.with_score(s))
            })
            .collect();
        out.extend(part.into_iter().flatten());
    }
    out
}

/// Before `13fee48`: a `FeatureSet` per document (empty for those no pair names), cut a
/// chunk at a time, and the pairs scored without reading ahead.
fn before_13fee48<E: FeatureExtractor + Sync>(
    e: &E,
    texts: &[&str],
    pairs: &[ScoredPair],
) -> Vec<ScoredPair> {
    let needed = named_by(texts.len(), pairs);
    let mut sets: Vec<FeatureSet> = Vec::with_capacity(texts.len());
    for (c, chunk) in texts.chunks(CHUNK).enumerate() {
        let first = c * CHUNK;
        let part: Vec<FeatureSet> = chunk
            .par_iter()
            .enumerate()
            .map_init(Vec::new, |scratch, (i, t)| {
                if !needed[first + i] {
                    return FeatureSet::default();
                }
                scratch.clear();
                e.extract(t, scratch);
                FeatureSet::from_unsorted(scratch.clone())
            })
            .collect();
        sets.extend(part);
    }
    score(&|i| sets[i].as_slice(), pairs, false)
}

/// One part of [`PACK`] documents' sets: document `k` is `hashes[bounds[k]..bounds[k + 1]]`.
struct Part {
    hashes: Vec<u64>,
    bounds: Vec<usize>,
}

/// Before `6326afe`: the sets packed per part, the parts cut under rayon's adaptive
/// split, and the pairs scored reading ahead.
fn before_6326afe<E: FeatureExtractor + Sync>(
    e: &E,
    texts: &[&str],
    pairs: &[ScoredPair],
) -> Vec<ScoredPair> {
    let needed = named_by(texts.len(), pairs);
    let parts: Vec<Part> = texts
        .par_chunks(PACK)
        .enumerate()
        .map_init(Vec::new, |scratch: &mut Vec<u64>, (p, part)| {
            let first = p * PACK;
            let mut out = Part {
                hashes: Vec::new(),
                bounds: Vec::with_capacity(part.len() + 1),
            };
            out.bounds.push(0);
            for (i, t) in part.iter().enumerate() {
                if needed[first + i] {
                    scratch.clear();
                    e.extract(t, scratch);
                    scratch.sort_unstable();
                    scratch.dedup();
                    out.hashes.extend_from_slice(scratch);
                }
                out.bounds.push(out.hashes.len());
            }
            out.hashes.shrink_to_fit();
            out
        })
        .collect();
    let get = |i: usize| {
        let part = &parts[i / PACK];
        let k = i % PACK;
        &part.hashes[part.bounds[k]..part.bounds[k + 1]]
    };
    score(&get, pairs, true)
}

/// The versions on the features' extractor (monomorphized, as the library does).
fn versions<E: FeatureExtractor + Sync>(
    c: &mut Criterion,
    e: &E,
    features: Features,
    texts: &[&str],
    pairs: &[ScoredPair],
) {
    let library = Verification::new(Verifier::ExactJaccard, T).features(features);
    let run = || library.run(texts, pairs.to_vec()).expect("valid").0;
    let want = run();
    assert_eq!(before_13fee48(e, texts, pairs), want, "before 13fee48");
    assert_eq!(before_6326afe(e, texts, pairs), want, "before 6326afe");
    eprintln!(
        "verification: {} documents, {} candidate pairs, {} kept at {T}, {} threads",
        texts.len(),
        pairs.len(),
        want.len(),
        rayon::current_num_threads()
    );
    let mut g = c.benchmark_group("verification/exact_jaccard");
    g.sample_size(10);
    g.throughput(Throughput::Elements(pairs.len() as u64));
    let n = texts.len();
    g.bench_function(
        BenchmarkId::new("before_13fee48_sets_per_document", n),
        |b| {
            b.iter(|| before_13fee48(e, texts, pairs));
        },
    );
    g.bench_function(BenchmarkId::new("before_6326afe_adaptive_split", n), |b| {
        b.iter(|| before_6326afe(e, texts, pairs));
    });
    g.bench_function(
        BenchmarkId::new("library_part_and_256_pair_tasks", n),
        |b| {
            b.iter(run);
        },
    );
    g.finish();
}

fn bench(c: &mut Criterion) {
    let owned = corpus::load();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let mut pairs: Vec<ScoredPair> = Vec::new();
    CandidateGenerator::new(Method::default(), T)
        .run(&texts, &mut pairs)
        .expect("valid");
    let features = Features::default();
    match features.shingles() {
        Shingles::Words(k) => {
            let e = ndd_shingle::WordShingler::builder()
                .k(k)
                .nfkc(features.normalizes_nfkc())
                .build()
                .expect("valid");
            versions(c, &e, features, &texts, &pairs);
        }
        Shingles::Chars(k) => {
            let e = ndd_shingle::CharShingler::new(k)
                .expect("valid")
                .with_nfkc(features.normalizes_nfkc());
            versions(c, &e, features, &texts, &pairs);
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

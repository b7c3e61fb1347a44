//! The query indexes of issue 18 against a brute-force scan in the same run, on 66,855
//! synthetic 128-slot signatures (the `lsh` bench's rows: random slots with planted
//! near-duplicates at s ~ U(0.8, 1)):
//!
//! - `forest`: top-10 queries of [`LshForest`] (8 trees × 16, 4 candidates per result)
//!   vs scanning every signature for the 10 best slot agreements; and the build.
//! - `ensemble`: containment queries of [`LshEnsemble`] (t = 0.8) vs scanning every
//!   signature and converting its Jaccard estimate to containment with the set sizes
//!   (sizes log-uniform in 10 … 10,000, drawn with a fixed seed); and the build.
//! - `bloom`: the streaming check-then-insert of [`LshBloom`] (9 × 13 bands, 10⁻⁴ per
//!   band) vs [`LshIndex::query_then_insert`] with the same bands and vs exact per-band
//!   key sets (`AHashSet<u64>`), which flag exactly what the index finds.
//!
//! Memory per document and recall against the scan are printed to stderr.
//! Run: `cargo bench -p ndd-lsh --bench search`.
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::time::Duration;

use ahash::AHashSet;
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main,
};
use ndd_lsh::{
    EnsembleParams, ForestParams, LshBloom, LshEnsemble, LshForest, LshIndex, LshParams,
    PlainSlots, SchemeId,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
#[path = "common/synthetic.rs"]
mod synthetic;

const K: usize = 128;
const N: usize = 66_855;
const QUERIES: usize = 500;
const TOP: usize = 10;
/// The scans take ~13 ms per query: they are timed on the first 40 queries.
const SCAN_QUERIES: usize = 40;

fn agreement(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

/// The `TOP` best documents by slot agreement, ties to the lower index.
fn scan_top(m: &[u64], q: &[u64]) -> Vec<(usize, usize)> {
    let mut best: Vec<(usize, usize)> = Vec::with_capacity(TOP + 1);
    for (d, row) in m.chunks_exact(K).enumerate() {
        let a = agreement(row, q);
        if best.len() < TOP || a > best[best.len() - 1].1 {
            let pos = best.partition_point(|&(_, b)| b >= a);
            best.insert(pos, (d, a));
            best.truncate(TOP);
        }
    }
    best
}

/// Every document whose containment of the query, estimated from the Jaccard estimate
/// and the sizes (`c = J (q + x) / (q (1 + J))`), reaches `t`.
fn scan_containment(m: &[u64], sizes: &[u64], q: &[u64], qsize: u64, t: f64) -> Vec<usize> {
    let qs = qsize as f64;
    m.chunks_exact(K)
        .enumerate()
        .filter(|&(d, row)| {
            let j = agreement(row, q) as f64 / K as f64;
            j * (qs + sizes[d] as f64) / (qs * (1.0 + j)) >= t
        })
        .map(|(d, _)| d)
        .collect()
}

/// The group `{name}/{N}` of every part: ten flat samples, one second of warm-up and six
/// of measurement (an iteration is a whole pass over the queries or the corpus).
fn flat_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(format!("{name}/{N}"));
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(6));
    group
}

/// Times `query` over every query of `queries` (throughput: one element a query).
fn bench_queries<T>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    queries: &[usize],
    mut query: impl FnMut(usize) -> T,
) {
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.bench_function(BenchmarkId::from_parameter(id), |b| {
        b.iter(|| {
            for &q in queries {
                black_box(query(q));
            }
        })
    });
}

/// Times one pass over the whole corpus (throughput: the `N` documents).
fn bench_corpus<T>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    mut pass: impl FnMut() -> T,
) {
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function(BenchmarkId::from_parameter(id), |b| {
        b.iter(|| black_box(pass()))
    });
}

fn bench(c: &mut Criterion) {
    let m = synthetic::slots(N, K, 42);
    let scheme = SchemeId::new("bench").finish();
    let sigs: Vec<PlainSlots> = m
        .chunks_exact(K)
        .map(|r| PlainSlots::new(scheme, r.to_vec()).expect("non-empty"))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    // Log-uniform in 10 … 10,000 (2^(log2 10 + u · log2 1000)), integer arithmetic
    // on the exponent's fraction kept simple: 10 · 1000^u, rounded down.
    let sizes: Vec<u64> = (0..N)
        .map(|_| {
            let u: f64 = rng.random_range(0.0..1.0);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // 10..10_000
            let s = (10.0 * 1000f64.powf(u)) as u64;
            s
        })
        .collect();
    let queries: Vec<usize> = (0..QUERIES).map(|_| rng.random_range(0..N)).collect();

    // --- forest ---
    let fparams = ForestParams::for_slots(K).expect("valid");
    let build_forest = || {
        let mut f = LshForest::builder(fparams).capacity(N).build();
        for (d, s) in sigs.iter().enumerate() {
            f.insert(d, s).expect("valid");
        }
        f
    };
    let forest = build_forest();
    // Recall of the scan's top 10 among the documents sharing at least one slot with
    // the query (most synthetic documents share none with anything: the scan's top 10
    // then ends in arbitrary zero-agreement documents that no LSH index returns).
    let (mut hits, mut wanted) = (0usize, 0usize);
    for &q in &queries {
        let qrow = &m[q * K..(q + 1) * K];
        let truth: Vec<(usize, usize)> = scan_top(&m, qrow)
            .into_iter()
            .filter(|&(_, a)| a > 0)
            .collect();
        let kth = truth.last().map_or(1, |t| t.1);
        let got = forest.query(&sigs[q], TOP).expect("valid");
        wanted += truth.len();
        hits += got
            .iter()
            .filter(|(d, _)| agreement(&m[d * K..(d + 1) * K], qrow) >= kth)
            .count()
            .min(truth.len());
    }
    eprintln!(
        "forest: {:.1} bytes/doc; recall@{TOP} of the scan's neighbours sharing a slot {:.4} ({hits}/{wanted})",
        forest.memory().bytes_per_document(),
        hits as f64 / wanted as f64
    );
    let mut group = flat_group(c, "forest");
    bench_queries(
        &mut group,
        "scan: top 10 by agreement",
        &queries[..SCAN_QUERIES],
        |q| scan_top(&m, &m[q * K..(q + 1) * K]),
    );
    bench_queries(&mut group, "ndd: LshForest::query top 10", &queries, |q| {
        forest.query(&sigs[q], TOP).expect("valid")
    });
    bench_corpus(&mut group, "ndd: LshForest build (insert all)", || {
        build_forest().len()
    });
    group.finish();

    // --- ensemble ---
    let t = 0.8;
    let eparams = EnsembleParams::new(t, K).expect("valid");
    let build_ensemble = || {
        let mut e = LshEnsemble::new(eparams);
        for (d, s) in sigs.iter().enumerate() {
            e.insert(d, s, sizes[d]).expect("valid");
        }
        e
    };
    let ensemble = build_ensemble();
    let (mut hits, mut truths, mut candidates) = (0usize, 0usize, 0usize);
    for &q in &queries {
        let truth = scan_containment(&m, &sizes, &m[q * K..(q + 1) * K], sizes[q], t);
        let got: AHashSet<usize> = ensemble
            .query(&sigs[q], sizes[q])
            .expect("valid")
            .into_iter()
            .collect();
        candidates += got.len();
        truths += truth.len();
        hits += truth.iter().filter(|d| got.contains(d)).count();
    }
    eprintln!(
        "ensemble: {:.1} bytes/doc, {} partitions, r in {:?}; recall against the scan {:.4} ({hits}/{truths}), {candidates} candidates",
        ensemble.memory().bytes_per_document(),
        ensemble.partitions(),
        ensemble.rows_used(),
        hits as f64 / truths.max(1) as f64
    );
    let mut group = flat_group(c, "ensemble");
    bench_queries(
        &mut group,
        "scan: containment estimate >= 0.8",
        &queries[..SCAN_QUERIES],
        |q| scan_containment(&m, &sizes, &m[q * K..(q + 1) * K], sizes[q], t),
    );
    bench_queries(&mut group, "ndd: LshEnsemble::query", &queries, |q| {
        ensemble.query(&sigs[q], sizes[q]).expect("valid")
    });
    bench_corpus(&mut group, "ndd: LshEnsemble build (insert all)", || {
        build_ensemble().len()
    });
    group.finish();

    // --- bloom ---
    let lsh = LshParams::for_threshold_balanced(0.8, K).expect("valid");
    let bloom_stream = || {
        let mut f = LshBloom::new(lsh, N, 1e-4).expect("valid");
        let mut flagged = 0usize;
        for s in &sigs {
            flagged += usize::from(f.check_then_insert(s).expect("valid"));
        }
        (flagged, f)
    };
    let index_stream = || {
        let mut index = LshIndex::builder(lsh).capacity(N).build();
        let (mut flagged, mut out) = (0usize, Vec::new());
        for (d, s) in sigs.iter().enumerate() {
            out.clear();
            index.query_then_insert(d, s, &mut out).expect("valid");
            flagged += usize::from(!out.is_empty());
        }
        (flagged, index)
    };
    let exact_stream = || {
        let mut sets: Vec<AHashSet<u64>> = (0..lsh.bands())
            .map(|_| AHashSet::with_capacity(N))
            .collect();
        let (mut flagged, mut keys) = (0usize, Vec::new());
        for row in m.chunks_exact(K) {
            keys.clear();
            lsh.band_keys_into(row, &mut keys).expect("valid");
            let mut hit = false;
            for (set, &k) in sets.iter_mut().zip(&keys) {
                hit |= !set.insert(k);
            }
            flagged += usize::from(hit);
        }
        (flagged, sets)
    };
    let (bloom_flags, bloom) = bloom_stream();
    let (index_flags, index) = index_stream();
    let (exact_flags, sets) = exact_stream();
    assert_eq!(index_flags, exact_flags);
    let set_bytes: usize = sets
        .iter()
        .map(|s| (s.capacity() * 8 / 7).next_power_of_two() * 9)
        .sum();
    eprintln!(
        "bloom: {:.1} bytes/doc (false-positive rate at capacity {:.2e}); flagged {bloom_flags} vs {index_flags} by the index; \
         LshIndex {:.1} bytes/doc; exact key sets {:.1} bytes/doc",
        bloom.bytes_per_document(),
        bloom.false_positive_rate(),
        index.memory().bytes_per_document(),
        set_bytes as f64 / N as f64,
    );
    let mut group = flat_group(c, "bloom");
    bench_corpus(&mut group, "exact: AHashSet<u64> per band", || {
        exact_stream().0
    });
    bench_corpus(&mut group, "ndd: LshIndex::query_then_insert", || {
        index_stream().0
    });
    bench_corpus(&mut group, "ndd: LshBloom::check_then_insert", || {
        bloom_stream().0
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

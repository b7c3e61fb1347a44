//! Hamming search throughput at k = 3 over 1,000,000 64-bit fingerprints, against a
//! brute-force popcount scan measured in the same run.
//!
//! Data: 900,000 random fingerprints plus 100,000 planted near-duplicates (a copy of a
//! random earlier fingerprint with 1–3 bits flipped, so clusters form), shuffled.
//! Parameters: `HammingParams::for_collection(3, 1_000_000)` (4 blocks, 4 tables).
//!
//! * `build`: `HammingIndex::from_fingerprints` (bulk radix-sort build, `u32` keys).
//! * `query`: 10,000 queries (half near-duplicates of indexed fingerprints, half
//!   random) against the built index; baseline: a popcount scan of all 1,000,000
//!   fingerprints per query, on 100 of the queries (per-query cost compared).
//! * `insert`: 10,000 inserts into the built index (two delta merges), and queries
//!   against an index with a full delta (3,999 unmerged inserts).
//! * `all pairs`: every pair within 3 bits, by the one-shot `hamming_pairs` (sorts
//!   included; also with 5 blocks = 10 tables for the trade-off) and by
//!   `HammingIndex::for_each_pair` on the built index; baseline: the
//!   popcount double loop over the first 10,000 fingerprints (per-pair cost, scaled
//!   to the 5·10¹¹ pairs of the full set).
//!
//! Run: `cargo bench -p ndd-index --bench hamming` (pair counts and memory go to stderr).
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main,
};
use ndd_index::{HammingIndex, HammingParams, for_each_hamming_pair};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N: usize = 1_000_000;
const K: u32 = 3;

fn flip(rng: &mut ChaCha8Rng, x: u64, n: u32) -> u64 {
    let mut mask = 0u64;
    while mask.count_ones() < n {
        mask |= 1 << rng.random_range(0..64);
    }
    x ^ mask
}

/// Random fingerprints with 10% planted near-duplicates at 1–3 bits.
fn data(rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut fps: Vec<u64> = (0..N * 9 / 10).map(|_| rng.random()).collect();
    for _ in 0..N / 10 {
        let base = fps[rng.random_range(0..fps.len())];
        let d = rng.random_range(1..=3);
        fps.push(flip(rng, base, d));
    }
    fps.shuffle(rng);
    fps
}

fn brute_query(fps: &[u64], q: u64) -> usize {
    fps.iter().filter(|&&x| (x ^ q).count_ones() <= K).count()
}

/// Times answering every query of `queries` from `index` (throughput: one element a
/// query; the answers go into one reused buffer).
fn bench_index_queries(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    index: &HammingIndex<u32>,
    queries: &[u64],
) {
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.bench_function(BenchmarkId::new(id, N), |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut total = 0;
            for &q in queries {
                out.clear();
                index.query_into(q, &mut out);
                total += out.len();
            }
            black_box(total)
        });
    });
}

/// The pairs of `fps` within `K` bits, as [`for_each_hamming_pair`] finds them.
fn count_batch_pairs(fps: &[u64], params: HammingParams) -> usize {
    let mut n = 0usize;
    for_each_hamming_pair(fps, params, |_, _, _| n += 1).expect("valid");
    n
}

fn brute_pairs(fps: &[u64]) -> usize {
    let mut n = 0;
    for (i, &x) in fps.iter().enumerate() {
        n += fps[i + 1..]
            .iter()
            .filter(|&&y| (x ^ y).count_ones() <= K)
            .count();
    }
    n
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4a11_be9c);
    let fps = data(&mut rng);
    let params = HammingParams::for_collection(K, N).expect("valid");
    let queries: Vec<u64> = (0..10_000)
        .map(|i| {
            if i % 2 == 0 {
                let x = fps[rng.random_range(0..N)];
                let d = rng.random_range(0..=3);
                flip(&mut rng, x, d)
            } else {
                rng.random()
            }
        })
        .collect();

    let index =
        HammingIndex::from_fingerprints(params, (0u32..).zip(fps.iter().copied())).expect("valid");
    let mem = index.memory();
    let batch_pairs = count_batch_pairs(&fps, params);
    let mut index_pairs = 0usize;
    index.for_each_pair(|_, _, _| index_pairs += 1);
    assert_eq!(batch_pairs, index_pairs);
    let mut out = Vec::new();
    let mut hits = 0;
    for &q in &queries[..100] {
        out.clear();
        index.query_into(q, &mut out);
        assert_eq!(out.len(), brute_query(&fps, q));
        hits += out.len();
    }
    eprintln!(
        "hamming n={N} k={K}: {} blocks, {} tables; {batch_pairs} pairs within {K} bits; \
         {hits} answers for the first 100 queries; index {:.1} bytes/fingerprint \
         (+ {:.1} key map, u32 keys)",
        params.blocks(),
        params.tables(),
        mem.bytes_per_document(),
        mem.key_map as f64 / N as f64,
    );

    let mut group = c.benchmark_group("hamming");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));

    group.throughput(Throughput::Elements(N as u64));
    group.bench_function(BenchmarkId::new("build", N), |b| {
        b.iter(|| {
            let index = HammingIndex::from_fingerprints(params, (0u32..).zip(fps.iter().copied()))
                .expect("valid");
            black_box(index.len())
        });
    });

    bench_index_queries(&mut group, "query (index)", &index, &queries);
    group.throughput(Throughput::Elements(100));
    group.bench_function(
        BenchmarkId::new("query (baseline: popcount scan)", N),
        |b| {
            b.iter(|| {
                let total: usize = queries[..100].iter().map(|&q| brute_query(&fps, q)).sum();
                black_box(total)
            });
        },
    );

    // Incremental inserts into the built index: 10,000 new documents, so the delta
    // (limit 4·√N = 4,000) is merged into the tables twice.
    let fresh: Vec<u64> = (0..10_000).map(|_| rng.random()).collect();
    group.throughput(Throughput::Elements(fresh.len() as u64));
    group.bench_function(
        BenchmarkId::new("insert into built index (merges included)", N),
        |b| {
            b.iter_batched_ref(
                || index.clone(),
                |idx| {
                    for (key, &x) in (1_000_000u32..).zip(&fresh) {
                        idx.insert(key, x).expect("valid");
                    }
                    black_box(idx.len())
                },
                criterion::BatchSize::LargeInput,
            );
        },
    );
    // Queries against an index whose delta is full (3,999 unmerged inserts).
    let mut with_delta = index.clone();
    for (key, &x) in (1_000_000u32..).zip(&fresh[..3_999]) {
        with_delta.insert(key, x).expect("valid");
    }
    assert_eq!(with_delta.delta_len(), 3_999);
    bench_index_queries(
        &mut group,
        "query (index, full delta)",
        &with_delta,
        &queries,
    );
    drop(with_delta);

    group.throughput(Throughput::Elements(N as u64));
    group.bench_function(
        BenchmarkId::new("all pairs (hamming_pairs, sorts included)", N),
        |b| {
            b.iter(|| black_box(count_batch_pairs(&fps, params)));
        },
    );
    let ten_tables = HammingParams::new(K, 5).expect("valid");
    group.bench_function(
        BenchmarkId::new("all pairs (hamming_pairs, 5 blocks = 10 tables)", N),
        |b| {
            b.iter(|| black_box(count_batch_pairs(&fps, ten_tables)));
        },
    );
    group.bench_function(BenchmarkId::new("all pairs (built index)", N), |b| {
        b.iter(|| {
            let mut n = 0usize;
            index.for_each_pair(|_, _, _| n += 1);
            black_box(n)
        });
    });
    group.throughput(Throughput::Elements(10_000));
    group.bench_function(
        BenchmarkId::new("all pairs (baseline: popcount double loop)", 10_000),
        |b| b.iter(|| black_box(brute_pairs(&fps[..10_000]))),
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

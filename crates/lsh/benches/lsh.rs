//! LSH index throughput: insert + query of every document of a collection, with the
//! (0.8, 128) parameters (9 bands × 13 rows), against a naive per-band
//! `HashMap<u64, Vec<u32>>` index measured in the same run.
//!
//! Signatures are synthetic 128-slot MinHash-like rows: random 64-bit slots, with
//! planted near-duplicates (half of the documents copy each slot of a random earlier
//! document with probability s ~ U(0.8, 1), else draw a fresh value), so buckets hold
//! realistic groups: 56,050 candidate pairs on 66,855 documents, about the 55,161 raw
//! candidates datasketch's `MinHashLSH(0.8, 128)` returns on the real 66,855-document
//! `shared/bench` corpus. Sizes: 66,855 documents and 1,000,000.
//! Both indexes use the same band keys ([`ndd_lsh::band_key`]), so the comparison is of
//! the index structure.
//!
//! Run: `cargo bench -p ndd-lsh --bench lsh` (memory per document is printed to stderr).
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::time::Duration;

use ahash::AHashMap;
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use ndd_lsh::{Error, Estimate, LshIndex, LshParams, SchemeId, Signature, SlotSignature, band_key};
#[path = "common/synthetic.rs"]
mod synthetic;

const K: usize = 128;

/// A signature borrowing one row of the flat matrix (no allocation per document).
#[derive(Clone, Debug)]
struct Row<'a>(&'a [u64]);

impl Signature for Row<'_> {
    fn scheme(&self) -> SchemeId {
        SchemeId::from_u64(0x0062_656e_6368)
    }
    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        let agree = self.0.iter().zip(other.0).filter(|(a, b)| a == b).count();
        Ok(Estimate::exact(agree as f64 / K as f64))
    }
}

impl SlotSignature for Row<'_> {
    fn slots(&self) -> &[u64] {
        self.0
    }
}

fn synthetic(n: usize, seed: u64) -> Vec<u64> {
    synthetic::slots(n, K, seed)
}

fn rows(m: &[u64]) -> impl Iterator<Item = Row<'_>> {
    m.chunks_exact(K).map(Row)
}

/// ndd-lsh, streaming: one `query_then_insert` per document.
fn ndd_stream(m: &[u64], params: LshParams, capacity: usize) -> (usize, LshIndex<u32, Row<'_>>) {
    let mut index = LshIndex::builder(params).capacity(capacity).build();
    let mut out = Vec::new();
    let mut total = 0;
    for (d, row) in (0u32..).zip(rows(m)) {
        out.clear();
        index.query_then_insert(d, &row, &mut out).expect("valid");
        total += out.len();
    }
    (total, index)
}

/// ndd-lsh, as the peers are measured: insert every document, then query every one.
fn ndd_insert_then_query(m: &[u64], params: LshParams) -> usize {
    let mut index = LshIndex::new(params);
    for (d, row) in (0u32..).zip(rows(m)) {
        index.insert(d, &row).expect("valid");
    }
    let mut out = Vec::new();
    let mut total = 0;
    for row in rows(m) {
        out.clear();
        index.query_into(&row, &mut out).expect("valid");
        total += out.len();
    }
    total
}

/// Baseline: per band an `AHashMap<u64, Vec<u32>>` bucket map; candidates deduplicated
/// with a per-document stamp array (cheaper than a set per query). One `entry` probe
/// per band and document, as in `query_then_insert`.
struct Naive {
    tables: Vec<AHashMap<u64, Vec<u32>>>,
    stamp: Vec<u32>,
}

fn naive_stream(m: &[u64], params: LshParams) -> (usize, Naive) {
    let (b, r) = (params.bands(), params.rows());
    let n = m.len() / K;
    let mut naive = Naive {
        tables: (0..b).map(|_| AHashMap::new()).collect(),
        stamp: vec![u32::MAX; n],
    };
    let mut out = Vec::new();
    let mut total = 0;
    for (d, row) in (0u32..).zip(m.chunks_exact(K)) {
        out.clear();
        for (i, table) in naive.tables.iter_mut().enumerate() {
            let bucket = table
                .entry(band_key(i, &row[i * r..(i + 1) * r]))
                .or_default();
            for &c in bucket.iter() {
                if naive.stamp[c as usize] != d {
                    naive.stamp[c as usize] = d;
                    out.push(c);
                }
            }
            bucket.push(d);
        }
        total += out.len();
    }
    (total, naive)
}

impl Naive {
    /// Heap bytes: hashbrown buckets of (u64, Vec<u32>) + 1 control byte, plus each
    /// bucket vector's capacity.
    fn bytes(&self) -> usize {
        self.tables
            .iter()
            .map(|t| {
                let buckets = (t.capacity() * 8 / 7).next_power_of_two();
                buckets * (size_of::<(u64, Vec<u32>)>() + 1)
                    + t.values().map(|v| v.capacity() * 4).sum::<usize>()
            })
            .sum()
    }
}

fn report_memory(n: usize, m: &[u64], params: LshParams) {
    let (pairs, grown) = ndd_stream(m, params, 0);
    let (_, preset) = ndd_stream(m, params, n);
    let (naive_pairs, naive) = naive_stream(m, params);
    assert_eq!(pairs, naive_pairs, "ndd and baseline disagree");
    for (what, index) in [("grown on demand", &grown), ("capacity preset", &preset)] {
        let mem = index.memory();
        eprintln!(
            "memory n={n} ({what}): {:.1} bytes/doc [tables {:.1}, chains {:.1}, band keys {:.1}]; \
             key map {:.1} bytes/doc (u32 keys); candidate pairs {pairs}",
            mem.bytes_per_document(),
            mem.band_tables as f64 / n as f64,
            mem.chains as f64 / n as f64,
            mem.band_keys as f64 / n as f64,
            mem.key_map as f64 / n as f64,
        );
    }
    eprintln!(
        "memory n={n} (baseline HashMap<u64, Vec<u32>> per band): {:.1} bytes/doc",
        naive.bytes() as f64 / n as f64
    );
}

fn bench(c: &mut Criterion) {
    let params = LshParams::for_threshold_balanced(0.8, K).expect("valid");
    assert_eq!((params.bands(), params.rows()), (9, 13));

    for (n, samples) in [(66_855usize, 20), (1_000_000, 10)] {
        let m = synthetic(n, 42);
        report_memory(n, &m, params);

        let mut group = c.benchmark_group(format!("lsh/{n}"));
        group.throughput(Throughput::Elements(n as u64));
        group.sample_size(samples);
        group.sampling_mode(SamplingMode::Flat);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(if n > 100_000 { 12 } else { 8 }));
        group.bench_function(
            BenchmarkId::from_parameter("baseline: HashMap<u64, Vec<u32>> per band, query+insert"),
            |b| b.iter(|| black_box(naive_stream(&m, params).0)),
        );
        group.bench_function(BenchmarkId::from_parameter("ndd: query_then_insert"), |b| {
            b.iter(|| black_box(ndd_stream(&m, params, 0).0))
        });
        group.bench_function(
            BenchmarkId::from_parameter("ndd: query_then_insert, capacity preset"),
            |b| b.iter(|| black_box(ndd_stream(&m, params, n).0)),
        );
        group.bench_function(
            BenchmarkId::from_parameter("ndd: insert all, then query all"),
            |b| b.iter(|| black_box(ndd_insert_then_query(&m, params))),
        );
        group.bench_function(BenchmarkId::from_parameter("band keys only"), |b| {
            let mut keys = Vec::with_capacity(params.bands());
            b.iter(|| {
                let mut acc = 0u64;
                for row in m.chunks_exact(K) {
                    keys.clear();
                    params.band_keys_into(row, &mut keys).expect("valid");
                    acc ^= keys[0];
                }
                black_box(acc)
            });
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

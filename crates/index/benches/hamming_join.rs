//! The one-shot Hamming join `hamming_pairs` on SimHash fingerprints of real text: the
//! permuted tables joined in parallel on rayon's pool (the `rayon` feature, commit
//! b7aebf9) and their pairs sorted on it too (`par_sort_unstable_by_key`, the pairs
//! being distinct) against the previous serial join, kept below, in the same run
//! (issue 31). The parallel sort against the serial one is a criterion baseline: this
//! bench with `--save-baseline base` before it, `--baseline base` after
//! (docs/performance.md, "The Hamming join's sort on the pool").
//!
//! Fingerprints: 64-bit SimHash (`SimHasher::builder().bits(64).build()`: word
//! 3-grams, binary weights, the defaults of `ndd dedup --method simhash`) of every text
//! of the corpus; the bound is the tool's, 3 bits, with
//! `HammingParams::for_collection(3, n)`. The two joins are checked to give the same
//! pairs before anything is timed. Each is timed by wall time and by the calling
//! thread's CPU time (`common/thread_cpu.rs`: the serial path, which a loaded machine
//! does not inflate).
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS` (`bench`: the 66,855 documents
//! of `bench/data/corpus.jsonl`).
//!
//! Run: `cargo bench -p ndd-index --features rayon --bench hamming_join` (the
//! near-dup dev-dependency turns the feature on for benches anyway; without it both
//! rows time the serial join).
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::{DocSketcher, ScoredPair};
use ndd_index::{HammingParams, hamming_pairs, hamming_pairs_into};

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/thread_cpu.rs"]
mod thread_cpu;

/// The Hamming bound of `ndd dedup --method simhash` at 64 bits.
const K: u32 = 3;

/// `hamming_pairs` before the `rayon` feature (commit b7aebf9's parent): every table
/// joined on the calling thread into one vector, then sorted by `(a, b)`.
fn serial_hamming_pairs(fingerprints: &[u64], params: HammingParams) -> Vec<ScoredPair> {
    let mut out = Vec::new();
    hamming_pairs_into(fingerprints, params, &mut out).expect("fewer than 2^32 fingerprints");
    out.sort_unstable_by_key(|p| (p.a, p.b));
    out
}

/// A join timed: the number of pairs of the fingerprints within the bound.
type Join = fn(&[u64], HammingParams) -> usize;

fn bench(c: &mut Criterion) {
    let texts = corpus::load();
    let hasher = ndd_simhash::SimHasher::builder()
        .bits(64)
        .build()
        .expect("valid");
    let fps: Vec<u64> = texts
        .iter()
        .map(|t| hasher.sketch(t).as_u64().expect("64 bits"))
        .collect();
    let n = fps.len();
    let params = HammingParams::for_collection(K, n).expect("valid");
    let serial = serial_hamming_pairs(&fps, params);
    let parallel = hamming_pairs(&fps, params).expect("valid");
    assert_eq!(
        serial, parallel,
        "the parallel join gives the serial join's pairs"
    );
    eprintln!(
        "hamming join: {n} fingerprints, {} blocks = {} tables, {} pairs within {K} bits, \
         rayon feature {}, {} threads",
        params.blocks(),
        params.tables(),
        serial.len(),
        cfg!(feature = "rayon"),
        rayon_threads(),
    );

    // Each join by wall time and by the calling thread's CPU time (the serial path).
    let joins: [(&str, Join); 2] = [
        ("previous: tables one after the other", |fps, params| {
            serial_hamming_pairs(fps, params).len()
        }),
        ("hamming_pairs (tables on the pool)", |fps, params| {
            hamming_pairs(fps, params).expect("valid").len()
        }),
    ];
    let mut group = c.benchmark_group("hamming join (issue 31)");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    for (name, join) in joins {
        group.bench_function(BenchmarkId::new(format!("wall, {name}"), n), |b| {
            b.iter(|| join(black_box(&fps), params));
        });
        thread_cpu::bench(&mut group, name, n, || join(black_box(&fps), params));
    }
    group.finish();
}

/// The threads of rayon's global pool (1 without the feature).
fn rayon_threads() -> usize {
    #[cfg(feature = "rayon")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "rayon"))]
    {
        1
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

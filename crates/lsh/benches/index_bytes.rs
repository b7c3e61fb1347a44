//! Saving and loading an `LshIndex` (`to_bytes` / `from_bytes`) against the baseline of
//! rebuilding it by inserting the same signatures, measured in the same run.
//!
//! 66,855 synthetic 128-slot signatures (`PlainSlots`, `u32` keys) with planted
//! near-duplicates (the generator of `benches/lsh.rs`), the (0.8, 128) parameters
//! (9 bands × 13 rows), with and without kept signatures. Byte sizes go to stderr.
//! With kept signatures a second baseline decodes each signature from its own byte
//! form before inserting it (what a load from per-signature storage costs).
//!
//! Run: `cargo bench -p ndd-lsh --bench index_bytes -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use ndd_lsh::{LshIndex, LshParams, PlainSlots, SchemeId};
#[path = "common/synthetic.rs"]
mod synthetic;

const K: usize = 128;
const N: usize = 66_855;

/// `n` signatures of `K` slots with planted near-duplicates (as in `benches/lsh.rs`).
fn synthetic(n: usize, seed: u64) -> Vec<PlainSlots> {
    let scheme = SchemeId::new("bench-minhash").with(K as u64).finish();
    synthetic::slots(n, K, seed)
        .chunks_exact(K)
        .map(|row| PlainSlots::new(scheme, row.to_vec()).expect("non-empty"))
        .collect()
}

fn build(sigs: &[PlainSlots], params: LshParams, keep: bool) -> LshIndex<u32, PlainSlots> {
    let mut index = LshIndex::builder(params).keep_signatures(keep).build();
    for (d, s) in (0u32..).zip(sigs) {
        index.insert(d, s).expect("valid");
    }
    index
}

fn bench(c: &mut Criterion) {
    let params = LshParams::for_threshold_balanced(0.8, K).expect("valid");
    let sigs = synthetic(N, 42);
    for keep in [false, true] {
        let index = build(&sigs, params, keep);
        let bytes = index.to_bytes();
        let loaded = LshIndex::<u32, PlainSlots>::from_bytes(&bytes).expect("valid");
        assert_eq!(loaded.len(), N);
        eprintln!(
            "index bytes (keep_signatures = {keep}): {} bytes, {:.1} bytes/doc; in memory \
             {:.1} bytes/doc grown, {:.1} loaded (index_bytes; + signatures {:.1})",
            bytes.len(),
            bytes.len() as f64 / N as f64,
            index.memory().bytes_per_document(),
            loaded.memory().bytes_per_document(),
            loaded.memory().signatures as f64 / N as f64,
        );

        let what = if keep { "signatures kept" } else { "band keys" };
        let mut group = c.benchmark_group(format!("index_bytes/{N}/{what}"));
        group.throughput(Throughput::Elements(N as u64));
        group.sample_size(10);
        group.sampling_mode(SamplingMode::Flat);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(3));
        group.bench_function(
            BenchmarkId::from_parameter("baseline: rebuild by inserting"),
            |b| b.iter(|| black_box(build(&sigs, params, keep).len())),
        );
        if keep {
            // What loading must do at least: decode each signature from its own byte
            // form, then insert it.
            let each: Vec<Vec<u8>> = sigs.iter().map(PlainSlots::to_bytes).collect();
            group.bench_function(
                BenchmarkId::from_parameter("baseline: decode each signature, insert"),
                |b| {
                    b.iter(|| {
                        let mut index = LshIndex::builder(params).keep_signatures(true).build();
                        for (d, bytes) in (0u32..).zip(&each) {
                            let s = PlainSlots::from_bytes(bytes).expect("valid");
                            index.insert(d, &s).expect("valid");
                        }
                        black_box(index.len())
                    })
                },
            );
        }
        group.bench_function(BenchmarkId::from_parameter("to_bytes"), |b| {
            b.iter(|| black_box(index.to_bytes().len()))
        });
        group.bench_function(BenchmarkId::from_parameter("from_bytes"), |b| {
            b.iter(|| {
                black_box(
                    LshIndex::<u32, PlainSlots>::from_bytes(&bytes)
                        .expect("valid")
                        .len(),
                )
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

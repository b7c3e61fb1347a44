//! Saving and loading an `LshIndex` (`to_bytes` / `from_bytes`) against the baseline of
//! rebuilding it by inserting the same signatures, measured in the same run.
//!
//! 66,855 synthetic 128-slot signatures (`PlainSlots`, `u32` keys) with planted
//! near-duplicates (the generator of `benches/lsh.rs`), the (0.8, 128) parameters
//! (9 bands × 13 rows), with and without kept signatures. Byte sizes go to stderr.
//! With kept signatures a second baseline decodes each signature from its own byte
//! form before inserting it (what a load from per-signature storage costs).
//!
//! `bounded_work/*`: the hostile inputs of `tests/integration/hostile.rs` (issue
//! "bounded work"; what the index answers on them is checked by the test
//! `crafted_keys_and_hot_buckets_answer_as_defined`): loading 80,000 documents whose
//! band keys share their high 32 bits (one probe run before: 6.3 s), and re-inserting
//! then removing the 50,000 documents of one hot bucket (a chain walk per document
//! before: 29 s and 59 s).
//!
//! Run: `cargo bench -p ndd-lsh --bench index_bytes -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use ndd_lsh::{LshIndex, LshParams, PlainSlots, SchemeId};
#[path = "../tests/integration/hostile.rs"]
mod hostile;
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

fn bench_bounded_work(c: &mut Criterion) {
    let scheme = SchemeId::new("bench-hostile").finish();
    let mut group = c.benchmark_group("bounded_work");
    group.sample_size(10);
    let n = 80_000u32;
    let bytes = hostile::crafted_keys(scheme, n);
    group.throughput(Throughput::Elements(u64::from(n)));
    group.bench_function("crafted_keys_from_bytes", |b| {
        b.iter(|| {
            black_box(
                LshIndex::<u32, PlainSlots>::from_bytes(black_box(&bytes))
                    .expect("valid")
                    .len(),
            )
        })
    });
    let m = 50_000u32;
    let sig = PlainSlots::new(scheme, vec![7, 7]).expect("two slots");
    let full = hostile::hot_index(&sig, m);
    group.throughput(Throughput::Elements(u64::from(m)));
    group.bench_function("hot_bucket_reinsert_and_remove", |b| {
        b.iter_batched(
            || full.clone(),
            |mut hot| black_box(hostile::churn(&mut hot, &sig, m)),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench, bench_bounded_work);
criterion_main!(benches);

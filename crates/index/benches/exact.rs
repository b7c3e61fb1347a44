//! `ExactIndex` on hostile input (issue "bounded work"): the removal of the 100,000
//! documents of one hot bucket (all with one signature), the oldest half oldest-first
//! and the rest newest-first. Removing walked the bucket's chain per document before
//! (81 s); it now unlinks each in constant time. What the removals answer is checked by
//! the test `hot_exact_buckets_and_wide_forms_are_cheap`, on the same input
//! (`tests/integration/hostile.rs`, included here).
//!
//! Run: `cargo bench -p ndd-index --bench exact -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

#[path = "../tests/integration/hostile.rs"]
mod hostile;

fn bench(c: &mut Criterion) {
    let n = 100_000u32;
    let (full, sig) = hostile::hot_index(n);
    let mut group = c.benchmark_group("exact_hot_bucket");
    group.throughput(Throughput::Elements(u64::from(n)));
    group.sample_size(10);
    group.bench_function("remove_all", |b| {
        b.iter_batched_ref(
            || full.clone(),
            |index| hostile::drain(index, &sig, n),
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

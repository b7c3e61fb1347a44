//! The Max-F1 threshold sweep (`sweep`) on a million scored pairs over 50,000 documents
//! in clusters of five (half the pairs inside a cluster, half anywhere, scores in
//! thousandths: at most a thousand thresholds). Its results are checked against a
//! brute-force oracle on a small draw of the same stream by the integration test
//! `clustered_sweep_matches_brute_force`; this measures the large one.
//!
//! Run: `cargo bench -p ndd-eval --bench sweep -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::ScoredPair;
use ndd_eval::{Labels, sweep};

#[path = "common/clustered.rs"]
mod clustered;

fn bench(c: &mut Criterion) {
    let (labels, pairs) = clustered::clustered_pairs(50_000, 1_000_000);
    let labels = Labels::new(&labels);
    let pairs: Vec<ScoredPair> = pairs.into_iter().map(ScoredPair::from).collect();
    let mut group = c.benchmark_group("sweep");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.sample_size(10);
    group.bench_function("1M_pairs", |b| {
        b.iter(|| black_box(sweep(black_box(&pairs), &labels).map(|s| s.best())));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

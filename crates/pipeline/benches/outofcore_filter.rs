//! Out of core, the plausibility filter in front of exact Jaccard: what verification
//! reads per candidate document and computes per pair, before (`3b82114`: each
//! document's whole MinHash signature in its checked byte form, 1,054 bytes for 128
//! values, parsed, then the MinHash estimate) and after (the signature's 8-bit fields
//! in their checked byte form, 171 bytes, parsed, then the fraction of equal fields),
//! in the same run.
//!
//! * `outofcore_filter/bytes_to_estimate/*`: per pair of consecutive corpus documents,
//!   both byte forms parsed and the estimate taken: the work of `estimate_block`
//!   without the reads.
//!
//! Before measuring, the fields' estimate is checked to be at least the full one for
//! every pair (truncation only adds agreements), so every pair the old filter passed
//! the new one passes too.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or the JSONL file named by
//! `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-pipeline --bench outofcore_filter -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used, clippy::cast_precision_loss)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::{DocSketcher, Signature};
use ndd_minhash::{BBitSignature, MinHashSignature, MinHasher};

#[path = "common/corpus.rs"]
mod corpus;

fn bench(c: &mut Criterion) {
    let texts = corpus::load();
    let hasher = MinHasher::new(128).unwrap();
    let sigs: Vec<MinHashSignature> = texts.iter().map(|t| hasher.sketch(t)).collect();
    let full: Vec<Vec<u8>> = sigs.iter().map(MinHashSignature::to_bytes).collect();
    let fields: Vec<Vec<u8>> = sigs
        .iter()
        .map(|s| BBitSignature::from_minhash(s, 8).unwrap().to_bytes())
        .collect();
    let before = |i: usize| {
        let a = MinHashSignature::from_bytes(&full[i]).unwrap();
        let b = MinHashSignature::from_bytes(&full[i + 1]).unwrap();
        a.similarity(&b).unwrap().value()
    };
    let after = |i: usize| {
        let a = BBitSignature::from_bytes(&fields[i]).unwrap();
        let b = BBitSignature::from_bytes(&fields[i + 1]).unwrap();
        a.matches(&b).unwrap() as f64 / a.num_values() as f64
    };
    let pairs = sigs.len().saturating_sub(1);
    for i in 0..pairs {
        assert!(
            after(i) >= before(i),
            "pair {i}: the fields' estimate is below the full one"
        );
    }
    println!(
        "bytes per document: {} (whole signature) against {} (8-bit fields)",
        full[0].len(),
        fields[0].len()
    );
    let mut g = c.benchmark_group("outofcore_filter/bytes_to_estimate");
    g.throughput(Throughput::Elements(pairs as u64));
    g.bench_function("before_whole_signatures", |b| {
        b.iter(|| (0..pairs).map(|i| black_box(before(i))).sum::<f64>());
    });
    g.bench_function("after_8bit_fields", |b| {
        b.iter(|| (0..pairs).map(|i| black_box(after(i))).sum::<f64>());
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

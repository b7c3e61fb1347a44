//! Out of core with the set verifiers (exact Jaccard, containment): the per-document
//! work the sketch stage and verification's sets pass do, before and after the sets
//! were made of the named documents only (issue 28, item 3, session 14 task Z).
//!
//! * `outofcore_sets/sketch/before`: per document, its shingle set (shingles, sorted
//!   and deduplicated) and the MinHash signature of the set: what the sketch stage did
//!   for every document (then it wrote the set).
//! * `outofcore_sets/sketch/after`: per document, the signature from the text (the
//!   in-memory engine's one-permutation path): what the sketch stage does now.
//! * `outofcore_sets/pass/set`: per document, its shingle set alone: what the sets
//!   pass does for each document a candidate pair names.
//!
//! The pass pays off while the named fraction stays below
//! `(before − after) / set`. Before measuring, the signatures of the two sketch paths
//! are checked to be equal for every document.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or the JSONL file named by
//! `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-pipeline --bench outofcore_sets -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::{DocSketcher, FeatureExtractor, FeatureSet, Sketcher};
use ndd_minhash::MinHasher;

#[path = "common/corpus.rs"]
mod corpus;

fn bench(c: &mut Criterion) {
    let texts = corpus::load();
    let hasher = MinHasher::new(128).unwrap();
    let set = |scratch: &mut Vec<u64>, t: &str| {
        scratch.clear();
        hasher.extractor().extract(t, scratch);
        FeatureSet::from_unsorted(scratch.clone())
    };
    let mut scratch = Vec::new();
    for t in &texts {
        let from_set = hasher.sketch_features(set(&mut scratch, t).as_slice().iter().copied());
        assert_eq!(from_set, hasher.sketch(t), "the two paths sign alike");
    }
    let mut g = c.benchmark_group("outofcore_sets");
    g.throughput(Throughput::Elements(texts.len() as u64));
    g.bench_function("sketch/before", |b| {
        let mut scratch = Vec::new();
        b.iter(|| {
            for t in &texts {
                let s = set(&mut scratch, t);
                black_box(hasher.sketch_features(s.as_slice().iter().copied()));
            }
        });
    });
    g.bench_function("sketch/after", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(hasher.sketch(t));
            }
        });
    });
    g.bench_function("pass/set", |b| {
        let mut scratch = Vec::new();
        b.iter(|| {
            for t in &texts {
                black_box(set(&mut scratch, t));
            }
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

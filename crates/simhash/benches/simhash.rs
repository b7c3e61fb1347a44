//! SimHash sketching throughput on real text: text in, 64- or 384-bit signature out.
//!
//! Compared in the same run with (1) the pass that only tokenizes and hashes the same
//! word 5-gram shingles (the ceiling for any sketch over them), (2) for binary weights,
//! the previous sizing of the per-document set of seen features (grown step by step,
//! through `Composed`, which does not size it from the text), and (3) a naive
//! reference: the same shingle hashes, each bit's sum updated one bit at a time with an
//! `if` on the bit (the textbook loop of most SimHash implementations), binary weights
//! deduplicated with a `HashSet`.
//!
//! Single-thread figures are the thread's CPU time (see `cpu_timed`); the rayon one is
//! wall time.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS`.
//!
//! Run: `cargo bench -p ndd-simhash --features rayon --bench simhash`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::hash::mix64;
use ndd_core::stats::DocumentFrequencies;
use ndd_core::{DocSketcher, FeatureExtractor, FnSink, Sketcher};
#[cfg(feature = "rayon")]
use ndd_simhash::ParDocSketcher;
use ndd_simhash::{Projection, SimHasher, Weighting};

#[path = "common/corpus.rs"]
mod corpus;

/// The naive reference: shingle hashes collected, deduplicated in a `HashSet`, then per
/// feature and bit an `if` adding or subtracting 1 (64-bit, `±1` values of the same
/// mixed hash as the crate, so the same bits).
fn naive_sketch(shingler: &ndd_shingle::WordShingler, key: u64, doc: &str) -> u64 {
    let feats: HashSet<u64> = shingler.features(doc).into_iter().collect();
    let mut v = [0i64; 64];
    for f in feats {
        let s = mix64(f ^ key);
        for (i, c) in v.iter_mut().enumerate() {
            if (s >> i) & 1 == 1 {
                *c += 1;
            } else {
                *c -= 1;
            }
        }
    }
    v.iter()
        .enumerate()
        .fold(0u64, |acc, (i, &c)| acc | (u64::from(c > 0) << i))
}

/// CPU time of the calling thread (Linux `/proc/thread-self/schedstat`, nanoseconds).
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Runs `f` `iters` times and returns the thread's CPU time (wall time where that is
/// not available). On a machine shared with other jobs, CPU time is not inflated by
/// waiting for a core, so the single-thread figures stay comparable across runs; cache
/// and memory-bandwidth contention still show.
fn cpu_timed<F: FnMut()>(iters: u64, mut f: F) -> Duration {
    let wall = Instant::now();
    let start = thread_cpu_ns();
    for _ in 0..iters {
        f();
    }
    match (start, thread_cpu_ns()) {
        (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
        _ => wall.elapsed(),
    }
}

/// Times `h` signing every document of `docs` into one reused signature, each signature
/// passed to `black_box` (CPU time of the thread, see [`cpu_timed`]).
fn bench_sketch_with<S: DocSketcher>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: String,
    h: &S,
    docs: &[String],
) {
    group.bench_function(name, |b| {
        let mut state = h.new_state();
        let mut sig = h.new_signature();
        b.iter_custom(|iters| {
            cpu_timed(iters, || {
                for d in docs {
                    h.sketch_with(&mut state, d, &mut sig);
                    black_box(&sig);
                }
            })
        });
    });
}

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let bytes: usize = docs.iter().map(String::len).sum();
    let shingler = ndd_shingle::WordShingler::new(5).expect("valid");
    let features: usize = docs.iter().map(|d| shingler.features(d).len()).sum();
    eprintln!(
        "corpus: {} docs, {bytes} bytes, {features} word 5-gram features",
        docs.len()
    );
    let stats = DocumentFrequencies::from_documents(&shingler, docs.iter().map(String::as_str));

    let mut group = c.benchmark_group("simhash");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);

    group.bench_function("ceiling: tokenize + hash word 5-grams (no sketch)", |b| {
        b.iter_custom(|iters| {
            cpu_timed(iters, || {
                let mut acc = 0u64;
                for d in &docs {
                    shingler.extract(d, &mut FnSink(|f: u64| acc ^= f));
                }
                black_box(acc);
            })
        });
    });

    let configs: Vec<(String, SimHasher)> = [64usize, 384]
        .iter()
        .flat_map(|&bits| {
            // Word 5-grams throughout (`build()`'s shingles until issue 30).
            let binary = SimHasher::builder()
                .bits(bits)
                .weighting(Weighting::Binary)
                .build_with(shingler.clone())
                .expect("valid");
            let tf = SimHasher::builder()
                .bits(bits)
                .weighting(Weighting::TermFrequency)
                .build_with(shingler.clone())
                .expect("valid");
            let tfidf = SimHasher::builder()
                .bits(bits)
                .weighting(Weighting::tf_idf(stats.clone()))
                .build_with(shingler.clone())
                .expect("valid");
            [
                (format!("sign {bits} bits binary"), binary),
                (format!("sign {bits} bits tf"), tf),
                (format!("sign {bits} bits tf-idf"), tfidf),
            ]
        })
        .collect();
    for (name, h) in &configs {
        group.bench_function(format!("{name} 1 thread"), |b| {
            let mut state = h.new_state();
            let mut sig = h.new_signature();
            b.iter_custom(|iters| {
                cpu_timed(iters, || {
                    let mut acc = 0u64;
                    for d in &docs {
                        h.sketch_with(&mut state, d, &mut sig);
                        acc ^= sig.words()[0];
                    }
                    black_box(acc);
                })
            });
        });
    }
    // The previous sizing of binary weights' seen-feature set, in the same run:
    // `Composed`'s own `extract_into` does not size the set from the text, so the
    // table starts at the size the previous document left and doubles as it fills.
    bench_sketch_with(
        &mut group,
        "sign 64 bits binary 1 thread, set grown step by step (previous)".to_owned(),
        configs[0].1.as_composed(),
        &docs,
    );
    bench_sketch_with(
        &mut group,
        "sign 64 bits binary 1 thread, set sized from the text".to_owned(),
        &configs[0].1,
        &docs,
    );
    #[cfg(feature = "rayon")]
    {
        let h = &configs[1].1;
        group.bench_function("sign 64 bits tf rayon", |b| {
            let mut out = vec![h.new_signature(); docs.len()];
            b.iter(|| {
                h.par_sketch_batch_into(&docs, &mut out)
                    .expect("same length");
                black_box(out[0].words()[0])
            });
        });
    }
    group.finish();

    // The naive reference and the Gaussian values are slower: a prefix of the corpus.
    let sample: Vec<String> = docs.iter().take(5000).cloned().collect();
    let sample_bytes: usize = sample.iter().map(String::len).sum();
    let mut group = c.benchmark_group("simhash-sample");
    group.throughput(Throughput::Bytes(sample_bytes as u64));
    group.sample_size(10);
    let key = mix64(0x7369_6D68_6173_6821); // the crate's sign key for seed 0
    group.bench_function("naive 64 bits binary: HashSet + per-bit if", |b| {
        b.iter_custom(|iters| {
            cpu_timed(iters, || {
                let mut acc = 0u64;
                for d in &sample {
                    acc ^= naive_sketch(&shingler, key, d);
                }
                black_box(acc);
            })
        });
    });
    let h = SimHasher::builder()
        .weighting(Weighting::Binary)
        .build_with(shingler.clone())
        .expect("valid");
    // The naive loop computes the same bits.
    for d in sample.iter().take(200) {
        assert_eq!(Some(naive_sketch(&shingler, key, d)), h.sketch(d).as_u64());
    }
    bench_sketch_with(
        &mut group,
        "sign 64 bits binary 1 thread (same sample)".to_owned(),
        &h,
        &sample,
    );
    for bits in [64, 384] {
        let g = SimHasher::builder()
            .bits(bits)
            .projection(Projection::Gaussian)
            .weighting(Weighting::TermFrequency)
            .build_with(shingler.clone())
            .expect("valid");
        bench_sketch_with(
            &mut group,
            format!("gaussian {bits} bits tf 1 thread"),
            &g,
            &sample,
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

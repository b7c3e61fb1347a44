//! MinHash sketching throughput on real text: text in, 128-value signature out.
//!
//! Compared in the same run with (1) the `shared/bench` reference pass (ASCII tokens,
//! XXH3 of each joined word 5-gram string: the "plain tokenize-and-hash pass" the issue
//! quotes at about 359 MB/s), (2) our own pass that only tokenizes and hashes the same
//! word 5-gram shingles the sketch uses (the ceiling for any sketch over them), and
//! (3) a naive reference: shingle strings hashed `k` times each, the minimum kept per
//! hash (the straightforward k-hash loop of the textbook and of datasketch).
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS`.
//!
//! `bounded_work/largest_signature`: a five-word document sketched with the largest
//! accepted signature (`MAX_NUM_HASHES` values; densification was ~k² over the filled
//! bins before issue "bounded work", 50 s at 2^18; the values are checked by the test
//! `the_largest_signature_sketches_a_short_document`).
//!
//! Run: `cargo bench -p ndd-minhash --features rayon --bench minhash`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::{DocSketcher, FeatureExtractor, FnSink, Sketcher};
use ndd_core::{SparseVector, Weighted};
#[cfg(feature = "rayon")]
use ndd_minhash::ParDocSketcher;
use ndd_minhash::{BucketizedMinHasher, IcwsMinHasher, MAX_NUM_HASHES, MinHashScheme, MinHasher};
use xxhash_rust::xxh3::xxh3_64_with_seed;

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/reference.rs"]
mod reference;

/// The naive reference: lowercase ASCII-alphanumeric words, 5-gram strings, each
/// hashed with k seeds, the minimum kept per seed.
fn naive_sketch(doc: &str, k: usize, out: &mut Vec<u64>) {
    let lower = doc.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let shingles: Vec<String> = if words.len() < 5 {
        vec![words.join(" ")]
    } else {
        words.windows(5).map(|w| w.join(" ")).collect()
    };
    out.clear();
    out.resize(k, u64::MAX);
    for (i, m) in out.iter_mut().enumerate() {
        for s in &shingles {
            *m = (*m).min(xxh3_64_with_seed(s.as_bytes(), i as u64));
        }
    }
}

/// The naive weighted reference: Ioffe's ICWS loop as the paper writes it (ICDM 2010,
/// Algorithm 1), three logarithms and two exponentials per (feature, slot), no pruning,
/// its random draws from seeded XXH3 of `(feature, slot, draw)`.
fn naive_icws(v: &SparseVector, k: usize, out: &mut Vec<(u64, f64)>) {
    let unit = |f: u64, i: usize, j: u64| {
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&f.to_le_bytes());
        key[8..].copy_from_slice(&(i as u64).to_le_bytes());
        ((xxh3_64_with_seed(&key, j) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    out.clear();
    for i in 0..k {
        let (mut best, mut arg) = (f64::INFINITY, (0u64, 0.0));
        for w in v.entries() {
            let (f, s) = (w.feature, w.weight);
            let r = -(unit(f, i, 1) * unit(f, i, 2)).ln();
            let c = -(unit(f, i, 3) * unit(f, i, 4)).ln();
            let beta = unit(f, i, 5);
            let t = (s.ln() / r + beta).floor();
            let y = (r * (t - beta)).exp();
            let a = c / (y * r.exp());
            if a < best {
                best = a;
                arg = (f, t);
            }
        }
        out.push(arg);
    }
}

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let bytes: usize = docs.iter().map(String::len).sum();
    let mut group = c.benchmark_group("minhash");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);

    group.bench_function(
        "baseline: shared/bench reference pass (ascii tokens + xxh3 per 5-gram)",
        |b| {
            let mut r = reference::Reference::default();
            b.iter(|| {
                let mut acc = 0u64;
                for d in &docs {
                    r.shingle_hashes(d, |h| acc ^= h);
                }
                black_box(acc)
            });
        },
    );

    let shingler = ndd_shingle::WordShingler::new(5).expect("valid");
    group.bench_function("ceiling: tokenize + hash word 5-grams (no sketch)", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for d in &docs {
                shingler.extract(d, &mut FnSink(|f: u64| acc ^= f));
            }
            black_box(acc)
        });
    });

    // The floor of one-permutation hashing with these values: the same shingles, each
    // hashed once more with the bin key (fmix64) and kept as its bin's minimum, bins
    // reset per document; no occupancy, no densification, no signature. Not a sketch:
    // it shows how much of the gap to the ceiling the per-shingle work alone takes.
    group.bench_function("floor: + fmix64 and bin minimum per shingle, k=128", |b| {
        let key = ndd_core::hash::mix64(0x6F70_6862_696E_7321);
        let mut bins = [u64::MAX; 128];
        b.iter(|| {
            let mut acc = 0u64;
            for d in &docs {
                shingler.extract(
                    d,
                    &mut FnSink(|f: u64| {
                        let h = ndd_core::hash::mix64(f ^ key);
                        let m = &mut bins[(h >> 57) as usize];
                        *m = (*m).min(h);
                    }),
                );
                acc ^= bins[0];
                bins = [u64::MAX; 128];
            }
            black_box(acc)
        });
    });

    for k in [64, 128, 256] {
        for (name, scheme) in [
            ("oph", MinHashScheme::OnePermutation),
            ("classic", MinHashScheme::Classic),
        ] {
            // Word 5-grams, the shingles `performance.md` measured.
            let h = MinHasher::builder()
                .num_hashes(k)
                .scheme(scheme)
                .build_with(shingler.clone())
                .expect("valid");
            group.bench_function(format!("{name} k={k} 1 thread"), |b| {
                let mut state = h.new_state();
                let mut sig = h.new_signature();
                b.iter(|| {
                    let mut acc = 0u64;
                    for d in &docs {
                        h.sketch_with(&mut state, d, &mut sig);
                        acc ^= sig.values()[0];
                    }
                    black_box(acc)
                });
            });
            #[cfg(feature = "rayon")]
            group.bench_function(format!("{name} k={k} rayon"), |b| {
                let mut out = vec![h.new_signature(); docs.len()];
                b.iter(|| {
                    h.par_sketch_batch_into(&docs, &mut out)
                        .expect("same length");
                    black_box(out[0].values()[0])
                });
            });
            if k == 128 {
                // Allocating one signature per document, single thread and rayon.
                group.bench_function(
                    format!("{name} k={k} 1 thread, sketch_batch (allocates)"),
                    |b| {
                        b.iter(|| black_box(h.sketch_batch(&docs).len()));
                    },
                );
                #[cfg(feature = "rayon")]
                group.bench_function(
                    format!("{name} k={k} rayon, par_sketch_batch (allocates)"),
                    |b| {
                        b.iter(|| black_box(h.par_sketch_batch(&docs).len()));
                    },
                );
            }
        }
    }
    group.finish();

    // The naive reference is ~50x slower: measured on a prefix of the corpus.
    let sample: Vec<String> = docs.iter().take(2000).cloned().collect();
    let sample_bytes: usize = sample.iter().map(String::len).sum();
    let mut group = c.benchmark_group("minhash-naive-sample");
    group.throughput(Throughput::Bytes(sample_bytes as u64));
    group.sample_size(10);
    group.bench_function("naive k=128: shingle strings hashed k times", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            for d in &sample {
                naive_sketch(d, 128, &mut out);
                black_box(&out);
            }
        });
    });
    // Word 5-grams, as the naive reference (`MinHasher::new`'s shingles until issue 30).
    let h = MinHasher::builder()
        .num_hashes(128)
        .build_with(shingler.clone())
        .expect("valid");
    group.bench_function("oph k=128 1 thread (same sample)", |b| {
        let mut state = h.new_state();
        let mut sig = h.new_signature();
        b.iter(|| {
            for d in &sample {
                h.sketch_with(&mut state, d, &mut sig);
                black_box(&sig);
            }
        });
    });
    group.finish();

    // Weighted MinHash: term-frequency vectors of word 5-gram shingles (the counts of
    // repeated shingles), the first 2,000 documents, and the same with TF-IDF weights;
    // throughput in documents.
    let shingler = ndd_shingle::WordShingler::new(5).expect("valid");
    let vectors: Vec<SparseVector> = sample
        .iter()
        .map(|d| {
            let mut entries = Vec::new();
            shingler.extract(
                d,
                &mut FnSink(|f: u64| entries.extend(Weighted::new(f, 1.0))),
            );
            SparseVector::from_unsorted(entries)
        })
        .collect();
    // The same vectors with TF-IDF weights (real-valued, the use ICWS is for): each
    // count times ln(N / df) over the sample, df from ndd_core::stats.
    let mut stats = ndd_core::stats::DocumentFrequencies::new(shingler.scheme());
    for v in &vectors {
        let features: Vec<u64> = v.entries().iter().map(|w| w.feature).collect();
        stats.add_document(&features);
    }
    let tf_idf: Vec<SparseVector> = vectors
        .iter()
        .map(|v| {
            let entries = v
                .entries()
                .iter()
                .filter_map(|w| Weighted::new(w.feature, w.weight * stats.idf(w.feature)).ok());
            SparseVector::from_unsorted(entries.collect())
        })
        .collect();
    let mut group = c.benchmark_group("weighted-minhash");
    group.throughput(Throughput::Elements(vectors.len() as u64));
    group.sample_size(10);
    let icws = IcwsMinHasher::new(128, 0).expect("valid");
    for (name, set) in [("counts", &vectors), ("tf-idf", &tf_idf)] {
        group.bench_function(
            format!("naive ICWS k=128 (paper's loop, no pruning), {name}"),
            |b| {
                let mut out = Vec::new();
                b.iter(|| {
                    for v in set {
                        naive_icws(v, 128, &mut out);
                        black_box(&out);
                    }
                });
            },
        );
        group.bench_function(format!("IcwsMinHasher k=128, {name}"), |b| {
            let mut sig = icws.sketch_weighted(&SparseVector::default());
            b.iter(|| {
                for v in set {
                    icws.sketch_weighted_into(v, &mut sig);
                    black_box(&sig);
                }
            });
        });
    }
    let bucketized = BucketizedMinHasher::new(128, 0, 1.0).expect("valid");
    group.bench_function("BucketizedMinHasher k=128, scale 1 (integer counts)", |b| {
        b.iter(|| {
            for v in &vectors {
                black_box(bucketized.sketch_weighted(v).expect("small counts"));
            }
        });
    });
    group.finish();
}

fn bench_bounded_work(c: &mut Criterion) {
    let h = MinHasher::new(MAX_NUM_HASHES).expect("the largest accepted size");
    let mut group = c.benchmark_group("bounded_work");
    group.sample_size(10);
    group.bench_function("largest_signature", |b| {
        b.iter(|| h.sketch(black_box("one two three four five")))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_bounded_work);
criterion_main!(benches);

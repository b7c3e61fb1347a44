//! Tokenizing + word 5-gram shingling throughput on real text, against a plain
//! reference pass measured in the same run.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS` (for example the 66,855-document
//! corpus that `shared/bench/make_corpus.py` builds).
//!
//! `bounded_work/*`: the longest accepted k (`MAX_KGRAM_LEN`) on a 5,000-word document
//! of 1,500 distinct words, word k-grams (rolling and Rabin) and char k-grams (issue
//! "bounded work": the values are checked by the test
//! `k_gram_lengths_are_bounded_and_the_limit_is_cheap`).
//!
//! Run: `cargo bench -p ndd-shingle --bench shingle`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::hash::MAX_KGRAM_LEN;
use ndd_core::{FeatureExtractor, FnSink, Tokenizer};
use ndd_shingle::{CharShingler, ShingleHash, WordShingler, WordTokenizer};

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/reference.rs"]
mod reference;
use reference::Reference;

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let bytes: usize = docs.iter().map(String::len).sum();
    let mut group = c.benchmark_group("shingle");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);

    group.bench_function(
        "baseline: shared/bench reference (ascii tokens + xxh3 per 5-gram)",
        |b| {
            let mut r = Reference::default();
            b.iter(|| {
                let mut acc = 0u64;
                for d in &docs {
                    r.shingle_hashes(d, |h| acc ^= h);
                }
                black_box(acc)
            });
        },
    );

    group.bench_function("ndd: tokenize only (WordTokenizer)", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for d in &docs {
                WordTokenizer::new().for_each_token(d, |t| n += t.end - t.start);
            }
            black_box(n)
        });
    });

    let word5 = WordShingler::new(5).expect("valid");
    group.bench_function(
        "ndd: word 5-gram shingles (WordShingler, into a sink)",
        |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for d in &docs {
                    word5.extract(d, &mut FnSink(|f: u64| acc ^= f));
                }
                black_box(acc)
            });
        },
    );

    group.bench_function("ndd: word 5-gram shingles into a reused Vec", |b| {
        let mut out: Vec<u64> = Vec::new();
        b.iter(|| {
            for d in &docs {
                out.clear();
                word5.extract(d, &mut out);
                black_box(&out);
            }
        });
    });

    let char5 = CharShingler::new(5).expect("valid");
    group.bench_function("ndd: char 5-gram shingles (CharShingler)", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for d in &docs {
                char5.extract(d, &mut FnSink(|f: u64| acc ^= f));
            }
            black_box(acc)
        });
    });
    group.finish();
}

fn bench_bounded_work(c: &mut Criterion) {
    let words: Vec<String> = (0..5000).map(|i| format!("w{}", i % 1500)).collect();
    let doc = words.join(" ");
    let k = MAX_KGRAM_LEN;
    let mut group = c.benchmark_group("bounded_work");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    for hash in [ShingleHash::Rolling, ShingleHash::Rabin] {
        let s = WordShingler::builder()
            .k(k)
            .hash(hash)
            .build()
            .expect("k accepted");
        group.bench_function(format!("max_k_5000_words/{hash:?}"), |b| {
            b.iter(|| s.features(black_box(&doc)))
        });
    }
    let chars = CharShingler::new(k).expect("k accepted");
    group.bench_function("max_k_5000_words/char", |b| {
        b.iter(|| chars.features(black_box(&doc)))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_bounded_work);
criterion_main!(benches);

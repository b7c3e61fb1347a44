//! ndd-align throughput on real text: verified pairs per second.
//!
//! * `verify/{100,1000,10000}`: `Aligner::verify` (combined measure, T = 0.8) on a
//!   near-duplicate pair (the same window of real text with 5% of its tokens
//!   replaced, which passes) and on an unrelated pair (two windows of different
//!   documents, which fails and exits early), against the quadratic dynamic program
//!   (`quadratic_lcs_len`) on the near-duplicate pair in the same run;
//!   `prepared_pass` is the near-duplicate pair as `Prepared` documents (what the
//!   pipeline's verifier does: the per-document work done once).
//! * `report/{100,1000,10000}`: a block report and its category for the
//!   near-duplicate pair (alignment, moved-text search, classification).
//!
//! * `report_hostile/*`: the block report, its category and the paragraph containment
//!   on the hostile inputs of `tests/integration/hostile.rs` (40,000 one-word
//!   paragraphs with every other word changed; one word 40,000 times against itself
//!   shifted), which took quadratic time before issue "bounded work". Throughput in
//!   tokens of the two texts.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled).
//!
//! Run: `cargo bench -p ndd-align --bench align -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

#[path = "../tests/integration/corpus.rs"]
mod corpus;
#[path = "../tests/integration/hostile.rs"]
mod hostile;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_align::{Aligner, BlockReport, Measure, Prepared, TokenOptions, quadratic_lcs_len};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn corpus_text() -> String {
    corpus::bundled().join("\n\n")
}

/// Words `start..start + n` of the corpus, as text.
fn window(words: &[&str], start: usize, n: usize) -> String {
    words[start..start + n].join(" ")
}

/// One size: the reference window, its near-duplicate and an unrelated window.
struct Case {
    n: usize,
    a: String,
    b: String,
    far: String,
}

fn cases() -> Vec<Case> {
    let text = corpus_text();
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    [100usize, 1000, 10_000]
        .into_iter()
        .map(|n| {
            let a = window(&words, 1000, n);
            let mut edited: Vec<&str> = a.split(' ').collect();
            for _ in 0..n / 20 {
                let i = rng.random_range(0..edited.len());
                edited[i] = words[rng.random_range(0..words.len())];
            }
            Case {
                n,
                b: edited.join(" "),
                far: window(&words, words.len() / 2, n),
                a,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let o = TokenOptions::default();
    let cases = cases();
    let mut al = Aligner::new();
    let mut group = c.benchmark_group("verify");
    group.throughput(Throughput::Elements(1));
    for case in &cases {
        let n = case.n;
        let (a, b, far) = (o.hashes(&case.a), o.hashes(&case.b), o.hashes(&case.far));
        assert!(al.verify(&a, &b, Measure::Combined, 0.8).unwrap().is_some());
        assert!(
            al.verify(&a, &far, Measure::Combined, 0.8)
                .unwrap()
                .is_none()
        );
        group.bench_function(BenchmarkId::new("bit_parallel_pass", n), |bch| {
            bch.iter(|| al.verify(black_box(&a), black_box(&b), Measure::Combined, 0.8))
        });
        let (pa, pb) = (
            Prepared::from_hashes(a.clone()),
            Prepared::from_hashes(b.clone()),
        );
        group.bench_function(BenchmarkId::new("prepared_pass", n), |bch| {
            bch.iter(|| al.verify_prepared(black_box(&pa), black_box(&pb), Measure::Combined, 0.8))
        });
        group.bench_function(BenchmarkId::new("bit_parallel_fail", n), |bch| {
            bch.iter(|| al.verify(black_box(&a), black_box(&far), Measure::Combined, 0.8))
        });
        // 10^8 cells a pair at 10,000 tokens: a handful of samples is enough.
        group.sample_size(if n > 1000 { 10 } else { 100 });
        group.bench_function(BenchmarkId::new("quadratic_dp", n), |bch| {
            bch.iter(|| quadratic_lcs_len(black_box(&a), black_box(&b)))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("report");
    group.throughput(Throughput::Elements(1));
    for case in &cases {
        let (ta, tb) = (o.tokens(&case.a), o.tokens(&case.b));
        group.bench_function(
            BenchmarkId::new("block_report_and_category", case.n),
            |bch| bch.iter(|| BlockReport::new(&mut al, black_box(&ta), black_box(&tb)).classify()),
        );
    }
    group.finish();
}

fn bench_hostile(c: &mut Criterion) {
    let o = TokenOptions::default();
    let mut al = Aligner::new();
    let mut group = c.benchmark_group("report_hostile");
    group.sample_size(10);
    for (name, (x, y)) in [
        ("edited_paragraphs", hostile::edited_paragraphs()),
        ("repeated_word", hostile::repeated_word()),
    ] {
        let (tx, ty) = (o.tokens(&x), o.tokens(&y));
        group.throughput(Throughput::Elements((tx.len() + ty.len()) as u64));
        group.bench_function(name, |bch| {
            bch.iter(|| {
                let r = BlockReport::new(&mut al, black_box(&tx), black_box(&ty));
                (r.classify(), ndd_align::contains_paragraphs(&ty, &tx))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_hostile);
criterion_main!(benches);

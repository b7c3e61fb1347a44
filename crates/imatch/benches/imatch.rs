//! I-Match signing throughput on real text: text in, extended signature out, for
//! K = 0, 2, 5 and 10 randomized extra lexicons, against plain SHA-1 of the full text
//! (exact-duplicate fingerprinting, the floor any I-Match pass pays for hashing) and the
//! pass that only extracts and deduplicates the unigram terms, in the same run.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS`. The lexicon is built from the
//! same corpus before timing (nidf window [0.2, 0.8]).
//!
//! `bounded_work/survival_probability/*`: equation 6 (`analysis::survival_probability`)
//! with `m = 1` of `l = u64::MAX` terms at `n` = 1,024 (the last exact product) and
//! 2^40 (the closed form; a loop over `n` took 2.4 s at 2^30 before issue "bounded
//! work"; the values are checked by the test
//! `survival_probability_matches_the_product_and_is_constant_time`).
//!
//! Run: `NDD_BENCH_CORPUS=/path/corpus.jsonl cargo bench -p ndd-imatch --bench imatch`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::FeatureExtractor;
use ndd_imatch::{DocumentFrequencies, IMatchState, IMatcher, Lexicon, unigram_extractor};
use sha1::{Digest, Sha1};

#[path = "common/corpus.rs"]
mod corpus;

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let bytes: usize = docs.iter().map(String::len).sum();
    let words = unigram_extractor();
    let stats = DocumentFrequencies::from_documents(&words, docs.iter().map(String::as_str));
    let lexicon = Lexicon::builder().build(&stats).expect("a lexicon");
    eprintln!(
        "corpus: {} documents, {:.1} MB; lexicon {} primary + {} secondary terms",
        docs.len(),
        bytes as f64 / 1e6,
        lexicon.len(),
        lexicon.secondary().len()
    );

    let mut group = c.benchmark_group("imatch");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);

    group.bench_function("baseline: SHA-1 of the full text", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for d in &docs {
                acc ^= Sha1::digest(d.as_bytes())[0];
            }
            black_box(acc)
        });
    });

    group.bench_function(
        "ceiling: unigram terms, sorted and deduplicated (no lexicon)",
        |b| {
            let mut terms: Vec<u64> = Vec::new();
            b.iter(|| {
                let mut n = 0usize;
                for d in &docs {
                    terms.clear();
                    words.extract(d, &mut terms);
                    terms.sort_unstable();
                    terms.dedup();
                    n += terms.len();
                }
                black_box(n)
            });
        },
    );

    for k in [0usize, 2, 5, 10] {
        let imatch = IMatcher::builder(lexicon.clone())
            .extra_lexicons(k)
            .seed(1)
            .build()
            .expect("valid parameters");
        let m = imatch.memory();
        eprintln!(
            "K = {k}: table {} terms, {} bytes, {:.1} bytes/term",
            m.terms,
            m.bytes,
            m.bytes_per_term()
        );
        group.bench_function(format!("imatch K = {k}"), |b| {
            let mut scratch = IMatchState::default();
            b.iter(|| {
                let mut signed = 0usize;
                for d in &docs {
                    signed += usize::from(imatch.sign_with(&mut scratch, d).is_ok());
                }
                black_box(signed)
            });
        });
        #[cfg(feature = "rayon")]
        group.bench_function(format!("imatch K = {k}, rayon (par_sign_batch)"), |b| {
            b.iter(|| black_box(imatch.par_sign_batch(&docs).len()));
        });
    }
    group.finish();
}

fn bench_bounded_work(c: &mut Criterion) {
    use ndd_imatch::analysis::survival_probability;
    let mut group = c.benchmark_group("bounded_work/survival_probability");
    for (name, n) in [("n=1024", 1024u64), ("n=2^40", 1 << 40)] {
        group.bench_function(name, |b| {
            b.iter(|| survival_probability(u64::MAX, 1, black_box(n)).expect("n <= l"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_bounded_work);
criterion_main!(benches);

//! ndd-repeats throughput on real text, each against a baseline measured in the same run.
//!
//! * `suffix_array/*`: our SA-IS (`substrings::suffix_array`) on the first 16 KiB,
//!   64 KiB and 1 MiB of the corpus's texts joined and on all of them; the baselines are
//!   `suffix` 1.3.0's `SuffixTable::new` (BurntSushi's SA-IS) at every size and the
//!   naive sort of the suffixes the tests use as oracle (16 and 64 KiB only: it
//!   compares whole suffixes, so repeated licence texts make it quadratic or worse).
//! * `lines/*`: the in-memory count of repeated lines (`lines::Counter`, every
//!   document added, then `finish`), with the default normalization and with
//!   `Normalization::NONE`; the baseline is a plain `std::collections::HashMap` of
//!   each trimmed, non-empty line to its count. Throughput in bytes of text.
//! * `substrings/*`: `RepeatedSubstrings::new(100).find` (the tool's default
//!   `--min-length`) on the corpus, in one pass; the baseline is the suffix array of
//!   the joined texts alone, the share of the whole that the sort takes.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled; 562 documents, 2.8 MB of text), or
//! the JSONL file named by `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`).
//!
//! Run: `cargo bench -p ndd-repeats --bench repeats -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_repeats::lines::{Config, Counter, Normalization, Policy};
use ndd_repeats::substrings::{RepeatedSubstrings, suffix_array};

#[path = "common/corpus.rs"]
mod corpus;

/// The suffix array the slow, obvious way (the tests' oracle): sort the suffixes.
fn naive(text: &[u8]) -> Vec<u32> {
    let n = u32::try_from(text.len()).unwrap();
    let mut sa: Vec<u32> = (0..n).collect();
    sa.sort_by(|&a, &b| text[a as usize..].cmp(&text[b as usize..]));
    sa
}

/// The longest prefix of `text` of at most `bytes` bytes that ends on a character
/// boundary (`suffix` sorts `&str`).
fn prefix(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn suffix_arrays(c: &mut Criterion, joined: &str) {
    let mut group = c.benchmark_group("suffix_array");
    group.sample_size(10);
    let mut sizes = vec![16 << 10, 64 << 10, 1 << 20];
    sizes.retain(|&s| s < joined.len());
    sizes.push(joined.len());
    for size in sizes {
        let text = prefix(joined, size);
        // The three constructions agree before any is timed.
        let ours = suffix_array(text.as_bytes()).unwrap();
        assert_eq!(ours, suffix::SuffixTable::new(text).table());
        group.throughput(Throughput::Bytes(text.len() as u64));
        let id = |name: &str| BenchmarkId::new(name, text.len());
        group.bench_with_input(id("ours (SA-IS)"), text, |b, t| {
            b.iter(|| black_box(suffix_array(t.as_bytes()).unwrap()));
        });
        group.bench_with_input(id("baseline: suffix 1.3 SuffixTable"), text, |b, t| {
            b.iter(|| black_box(suffix::SuffixTable::new(t)));
        });
        if text.len() <= 64 << 10 {
            assert_eq!(ours, naive(text.as_bytes()));
            group.bench_with_input(id("baseline: naive sort"), text, |b, t| {
                b.iter(|| black_box(naive(t.as_bytes())));
            });
        }
    }
    group.finish();
}

/// The plain count: each trimmed, non-empty line to its number of occurrences.
fn hashmap_count(docs: &[String]) -> usize {
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for d in docs {
        for line in d.lines() {
            let line = line.trim();
            if !line.is_empty() {
                *counts.entry(line).or_insert(0) += 1;
            }
        }
    }
    counts.values().filter(|&&n| n >= 2).count()
}

fn count_lines(docs: &[String], config: &Config) -> u64 {
    let mut counter = Counter::new(config.clone()).unwrap();
    for d in docs {
        counter.add(d).unwrap();
    }
    counter.finish().unwrap().stats().repeated
}

fn lines(c: &mut Criterion, docs: &[String], bytes: usize) {
    let mut group = c.benchmark_group("lines");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes as u64));
    let default = Config::new(Policy::AtLeast(2));
    let none = default.clone().with_normalization(Normalization::NONE);
    group.bench_function("baseline: std HashMap<&str, u64> of trimmed lines", |b| {
        b.iter(|| black_box(hashmap_count(docs)));
    });
    group.bench_function("Counter in memory, Normalization::NONE", |b| {
        b.iter(|| black_box(count_lines(docs, &none)));
    });
    group.bench_function("Counter in memory, default normalization", |b| {
        b.iter(|| black_box(count_lines(docs, &default)));
    });
    group.finish();
}

fn substrings(c: &mut Criterion, docs: &[String], joined: &str) {
    let mut group = c.benchmark_group("substrings");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(joined.len() as u64));
    let finder = RepeatedSubstrings::new(100).unwrap();
    let found = finder.find(docs).unwrap();
    assert_eq!(found.passes(), 1);
    eprintln!(
        "substrings: {} spans, {} of {} bytes covered",
        found.spans(),
        found.covered_bytes(),
        joined.len()
    );
    group.bench_function("baseline: suffix_array of the joined texts alone", |b| {
        b.iter(|| black_box(suffix_array(joined.as_bytes()).unwrap()));
    });
    group.bench_function("RepeatedSubstrings::new(100).find, one pass", |b| {
        b.iter(|| black_box(finder.find(docs).unwrap().spans()));
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let joined = docs.concat();
    eprintln!("corpus: {} documents, {} bytes", docs.len(), joined.len());
    suffix_arrays(c, &joined);
    lines(c, &docs, joined.len());
    substrings(c, &docs, &joined);
}

criterion_group!(benches, bench);
criterion_main!(benches);

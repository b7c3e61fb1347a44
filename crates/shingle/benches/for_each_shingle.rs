//! `WordShingler`'s default path (word 3-grams, the `ndd` tool's default) against its
//! previous version, in one run, into the three sinks the tool feeds: a one-permutation
//! MinHash bin update of 128 bins (the sketch), a reused `Vec<u64>` (verification's
//! sets) and a plain fold of the values (the shingling alone).
//!
//! The previous version is the token-at-a-time driver of commit 84e7619
//! ([`previous_shingles`]): the token-at-a-time scan (`WordScanner::next_one`, the
//! library's fallback) in a loop, the short-word XXH3 and the ring roller. The scanner,
//! the short-word hash and the roller are the library's own source files, compiled
//! into this bench (`#[path]`), so both versions run the same helpers and differ only
//! in what changed. Before timing, the bench checks that the
//! two versions give the same values on every document. Each row is timed by the
//! calling thread's CPU (`common/thread_cpu.rs`), which waiting for a core on a shared
//! machine does not inflate.
//!
//! Corpus: `NDD_BENCH_CORPUS` (see `benches/common/corpus.rs`; the bundled corpus when
//! unset).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-shingle --bench for_each_shingle`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::FeatureExtractor;
use ndd_core::FeatureSink;
use ndd_core::hash::mix64;

use ndd_shingle::WordShingler;
use roller::Roll;

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/thread_cpu.rs"]
mod thread_cpu;

/// The library's scanner (`WordScanner::next_one` is the previous driver's scanner,
/// kept in the library as the fallback of `next_token`).
#[allow(dead_code, unreachable_pub)]
#[path = "../src/token.rs"]
mod token;

/// The library's ring roller.
#[allow(dead_code, unreachable_pub)]
#[path = "../src/roller.rs"]
mod roller;

/// The library's short-word XXH3 (its tests' imports are unused when clippy checks the
/// bench as a test).
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../src/xxh3_short.rs"]
mod xxh3_short;

/// The previous default path of `WordShingler::for_each_shingle` (case folding, seed
/// 0, no filter, every shingle, the whole-document fallback).
#[inline(always)]
fn previous_shingles<S: FeatureSink>(k: usize, doc: &str, sink: &mut S) {
    let short = xxh3_short::ShortXxh3::new(0);
    let mut roller = roller::SmallRoller::new(k);
    let mut scanner = token::WordScanner::new(doc);
    while let Some(t) = scanner.next_one() {
        let h = if t.short_ascii {
            short.hash(
                token::ascii_lowercase_word(t.lo),
                token::ascii_lowercase_word(t.hi),
                t.end - t.start,
            )
        } else {
            token::hash_token(&doc[t.start..t.end], true, 0)
        };
        if let Some(g) = roller.push(h) {
            sink.push(g);
        }
    }
    if let Some(g) = roller.partial() {
        sink.push(g);
    }
}

/// One-permutation MinHash bins for `k = 128`, as the sketch's `FixedOphSink` updates
/// them (`fmix64(g ^ key)`, the bin by multiply-high, the minimum, the seen flag).
struct OphBins {
    bins: [u64; 128],
    seen: [u8; 128],
    key: u64,
}

impl FeatureSink for OphBins {
    #[inline(always)]
    fn push(&mut self, feature: u64) {
        let h = mix64(feature ^ self.key);
        #[allow(clippy::cast_possible_truncation)] // below 128
        let bin = ((u128::from(h) * 128) >> 64) as usize % 128;
        let m = &mut self.bins[bin];
        *m = (*m).min(h);
        self.seen[bin] = 1;
    }
}

impl OphBins {
    fn new() -> Self {
        OphBins {
            bins: [u64::MAX; 128],
            seen: [0; 128],
            key: mix64(0x6F70_6862_696E_7321),
        }
    }
}

/// A fold of the values.
struct Fold(u64);

impl FeatureSink for Fold {
    #[inline(always)]
    fn push(&mut self, feature: u64) {
        self.0 = self.0.rotate_left(5) ^ feature;
    }
}

/// A sink the bench empties before each document and reads after it.
trait Sink: FeatureSink {
    fn reset(&mut self);
    fn digest(&self) -> u64;
}

impl Sink for OphBins {
    fn reset(&mut self) {
        self.bins.fill(u64::MAX);
        self.seen.fill(0);
    }
    fn digest(&self) -> u64 {
        self.bins[0] ^ self.bins[127]
    }
}

impl Sink for Vec<u64> {
    fn reset(&mut self) {
        self.clear();
    }
    fn digest(&self) -> u64 {
        self.len() as u64
    }
}

impl Sink for Fold {
    fn reset(&mut self) {}
    fn digest(&self) -> u64 {
        self.0
    }
}

/// The rows `{name}/previous` and `{name}/library`: every document shingled into
/// `sink`, timed by the calling thread's CPU.
fn rows<S: Sink>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    docs: &[String],
    shingler: &WordShingler,
    mut sink: S,
) {
    let k = shingler.k();
    thread_cpu::bench(group, &format!("{name}/previous"), docs.len(), || {
        let mut acc = 0u64;
        for d in docs {
            sink.reset();
            previous_shingles(k, d, &mut sink);
            acc ^= sink.digest();
        }
        acc
    });
    thread_cpu::bench(group, &format!("{name}/library"), docs.len(), || {
        let mut acc = 0u64;
        for d in docs {
            sink.reset();
            shingler.extract(d, &mut sink);
            acc ^= sink.digest();
        }
        acc
    });
}

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let bytes: usize = docs.iter().map(String::len).sum();
    let k = 3;
    let shingler = WordShingler::new(k).expect("valid k");

    // Both versions give the same shingles, in the same order.
    let (mut old, mut new) = (Vec::<u64>::new(), Vec::<u64>::new());
    for d in &docs {
        old.clear();
        new.clear();
        previous_shingles(k, d, &mut old);
        shingler.extract(d, &mut new);
        assert_eq!(old, new, "the versions differ on {d:?}");
    }

    let mut group = c.benchmark_group("for_each_shingle");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);

    rows(&mut group, "oph 128 bins", &docs, &shingler, OphBins::new());
    rows(&mut group, "vec", &docs, &shingler, Vec::new());
    rows(&mut group, "fold", &docs, &shingler, Fold(0));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

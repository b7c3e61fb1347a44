//! ndd-ncd throughput on real text.
//!
//! * `compress/*`: compressions per second and MB/s of each compressor, on
//!   signature-sized inputs (the Sig-1L signatures of the documents) and on
//!   document-sized inputs (the documents), measuring into a reused buffer
//!   (`Compressor::compressed_len`); the baseline in the same run is each crate's
//!   allocating one-shot call (a new encoder/output `Vec` per input).
//! * `all_pairs/*`: the all-pairs SigNCD search at τ = 0.7 and 0.1, pairs/s over
//!   `n(n−1)/2`, without pruning (the baseline), with P1, with P1 compressing every
//!   compared pair (the search before identical signatures shared their
//!   compressions, `SearchBuilder::share_identical(false)`), with P1+P2, and
//!   (feature `rayon`) P1 on all cores. The pruned fractions and compression counts
//!   are printed once before timing.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled; 562 documents), or the first
//! `NDD_NCD_DOCS` (default 600) documents of the JSONL file named by
//! `NDD_BENCH_CORPUS`.
//!
//! Run: `cargo bench -p ndd-ncd --features rayon --bench ncd -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::io::Write;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_ncd::{Compressor, CompressorKind, DeflateFormat, Pruning, SearchConfig, SigNcd};

#[path = "common/corpus.rs"]
mod corpus;

fn load_corpus() -> Vec<String> {
    let n: usize = std::env::var("NDD_NCD_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let mut docs = corpus::load();
    docs.truncate(n);
    docs
}

/// The allocating one-shot call of each compressor's crate (the baseline).
fn one_shot(kind: CompressorKind, x: &[u8]) -> usize {
    match kind {
        CompressorKind::Snappy => snap::raw::Encoder::new().compress_vec(x).unwrap().len(),
        CompressorKind::Lz4 => lz4_flex::block::compress_prepend_size(x).len(),
        CompressorKind::Deflate(f, level) => {
            let c = flate2::Compression::new(level);
            match f {
                DeflateFormat::Raw => {
                    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), c);
                    e.write_all(x).unwrap();
                    e.finish().unwrap().len()
                }
                DeflateFormat::Zlib => {
                    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), c);
                    e.write_all(x).unwrap();
                    e.finish().unwrap().len()
                }
                DeflateFormat::Gzip => {
                    let mut e = flate2::write::GzEncoder::new(Vec::new(), c);
                    e.write_all(x).unwrap();
                    e.finish().unwrap().len()
                }
            }
        }
    }
}

fn bench_compress(c: &mut Criterion) {
    let docs: Vec<String> = load_corpus().into_iter().take(200).collect();
    let s = SigNcd::new();
    let sigs: Vec<String> = docs.iter().map(|d| s.signature(d).0).collect();
    let kinds = [
        CompressorKind::Snappy,
        CompressorKind::Lz4,
        CompressorKind::Deflate(DeflateFormat::Raw, 1),
        CompressorKind::Deflate(DeflateFormat::Raw, 6),
        CompressorKind::Deflate(DeflateFormat::Zlib, 6),
        CompressorKind::Deflate(DeflateFormat::Gzip, 9),
    ];
    for (label, items) in [("signature", &sigs), ("document", &docs)] {
        let bytes: usize = items.iter().map(String::len).sum();
        eprintln!(
            "compress/{label}: {} inputs, mean {} bytes",
            items.len(),
            bytes / items.len()
        );
        let mut g = c.benchmark_group(format!("compress/{label}"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(bytes as u64));
        for kind in kinds {
            let mut comp = kind.build().unwrap();
            let name = comp.name();
            g.bench_function(BenchmarkId::new("reused", &name), |b| {
                b.iter(|| {
                    let mut total = 0;
                    for x in items {
                        total += comp.compressed_len(black_box(x.as_bytes())).unwrap();
                    }
                    total
                });
            });
            g.bench_function(BenchmarkId::new("one-shot", &name), |b| {
                b.iter(|| {
                    let mut total = 0;
                    for x in items {
                        total += one_shot(kind, black_box(x.as_bytes()));
                    }
                    total
                });
            });
        }
        g.finish();
    }
}

fn bench_all_pairs(c: &mut Criterion) {
    let docs = load_corpus();
    let corpus = SigNcd::new().corpus(&docs).unwrap();
    let n = corpus.len() as u64;
    let pairs = n * (n - 1) / 2;
    for tau in [0.7, 0.1] {
        let mut configs = vec![
            ("none", SearchConfig::builder(tau).pruning(Pruning::None)),
            ("P1", SearchConfig::builder(tau).pruning(Pruning::P1)),
            // The previous version: every compared pair compressed, identical
            // signatures or not.
            (
                "P1 every pair compressed",
                SearchConfig::builder(tau)
                    .pruning(Pruning::P1)
                    .share_identical(false),
            ),
            ("P1+P2", SearchConfig::builder(tau).pruning(Pruning::P1P2)),
        ];
        if cfg!(feature = "rayon") {
            configs.push((
                "P1 rayon",
                SearchConfig::builder(tau)
                    .pruning(Pruning::P1)
                    .parallel(true),
            ));
        }
        let mut g = c.benchmark_group(format!("all_pairs/tau={tau}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(pairs));
        for (label, b) in configs {
            let config = b.build().unwrap();
            let out = config.search(&corpus).unwrap();
            let r = out.report;
            eprintln!(
                "all_pairs tau={tau} {label}: {} docs, {} pairs found, compared {} of {} ({} compressions; {:.1}% pruned: P1 {:.1}%, P2 {:.1}%)",
                n,
                out.pairs.len(),
                r.compared,
                r.total_pairs,
                r.compared - r.reused,
                100.0 * r.pruned_fraction(),
                100.0 * r.pruned_p1 as f64 / r.total_pairs as f64,
                100.0 * r.pruned_p2 as f64 / r.total_pairs as f64,
            );
            g.bench_function(label, |bch| {
                bch.iter(|| config.search(black_box(&corpus)).unwrap().pairs.len());
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_compress, bench_all_pairs);
criterion_main!(benches);

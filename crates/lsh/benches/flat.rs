//! The in-memory MinHash candidate stage: the sorted band join (`SortedBandJoin`, issue
//! 31: band keys written at sketch time, each band sorted, each document joined with
//! the members of its buckets before it) against the `FlatLshIndex` stream it replaced
//! (commit f1247f4) and the `LshIndex` stream before that, on MinHash signatures of
//! real text, in the same run: every document's candidates among the earlier ones.
//!
//! Here all three run on one thread (ndd-lsh has no pool): the join's band keys,
//! band sorts and per-document queries are what `ndd-pipeline` spreads over rayon's
//! pool (bands in parallel, documents in parallel), the streams' walks are serial by
//! nature. The join's rows include writing the band keys (the streams write theirs
//! inside `query_then_insert`).
//!
//! Signatures: 128-slot one-permutation MinHash over word 3-grams, seed 0 (`ndd dedup`'s
//! defaults), of every text of the corpus. Banding: the tool's for a 0.8 threshold,
//! `LshParams::min_candidates_for_recall(0.8, 128, DEFAULT_MIN_RECALL)`. Both indexes
//! are sized for the corpus up front, as the stream sizes them, and built inside the
//! timed loop. Rows with the tool's default bucket-scan bound (256 members, the
//! stream's; a per-document set of reported documents in both indexes) and without a
//! bound. The two indexes are checked to propose the same candidates for every
//! document before anything is timed.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS` (`bench`: the 66,855 documents
//! of `bench/data/corpus.jsonl`).
//!
//! Run: `cargo bench -p ndd-lsh --bench flat` (candidates and bytes per document go to
//! stderr).
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::DocSketcher;
use ndd_lsh::{DEFAULT_MIN_RECALL, FlatLshIndex, LshIndex, LshParams, SortedBandJoin};
use ndd_minhash::{MinHashSignature, MinHasher};

#[path = "common/corpus.rs"]
mod corpus;

/// A candidate stage under test: banding, bound, signatures, and what to do with each
/// document's candidates; returns its bytes per document.
type Stage =
    fn(LshParams, Option<usize>, &[MinHashSignature], &mut dyn FnMut(&mut Vec<u32>)) -> f64;

/// The tool's default bucket-scan bound (`DEFAULT_MAX_BUCKET_SCAN` of ndd-pipeline).
const SCAN: usize = 256;

/// The stream over an `LshIndex`, as the in-memory engine ran it before f1247f4:
/// each document's candidates handed to `each`, in stream order; returns the
/// index's bytes per document.
fn stream_lsh(
    params: LshParams,
    bound: Option<usize>,
    sigs: &[MinHashSignature],
    each: &mut dyn FnMut(&mut Vec<u32>),
) -> f64 {
    let mut index: LshIndex<u32, MinHashSignature> = LshIndex::builder(params)
        .capacity(sigs.len())
        .max_bucket_scan(bound)
        .build();
    let mut out = Vec::new();
    for (i, sig) in (0u32..).zip(sigs) {
        out.clear();
        index.query_then_insert(i, sig, &mut out).expect("valid");
        each(&mut out);
    }
    index.memory().bytes_per_document()
}

/// The stream over a `FlatLshIndex`, as the in-memory engine runs it now (the same
/// hand-over and return).
fn stream_flat(
    params: LshParams,
    bound: Option<usize>,
    sigs: &[MinHashSignature],
    each: &mut dyn FnMut(&mut Vec<u32>),
) -> f64 {
    let mut index = FlatLshIndex::with_capacity(params, sigs.len());
    index.set_max_bucket_scan(bound);
    let mut out = Vec::new();
    for sig in sigs {
        out.clear();
        index.query_then_insert(sig, &mut out).expect("valid");
        each(&mut out);
    }
    index.memory().bytes_per_document()
}

/// The sorted band join, as the in-memory engine runs it now (serially here): band
/// keys written, bands sorted, then each document's candidates handed to `each` in
/// stream order; returns the bytes per document of the keys and the join.
fn sorted_join(
    params: LshParams,
    bound: Option<usize>,
    sigs: &[MinHashSignature],
    each: &mut dyn FnMut(&mut Vec<u32>),
) -> f64 {
    let mut keys = Vec::with_capacity(sigs.len() * params.bands());
    for sig in sigs {
        params
            .band_keys_into(ndd_core::SlotSignature::slots(sig), &mut keys)
            .expect("valid");
    }
    let join = SortedBandJoin::build(params, &keys, bound).expect("valid");
    let mut out = Vec::new();
    for doc in 0..sigs.len() {
        join.candidates_into(doc, &mut out);
        each(&mut out);
    }
    (keys.capacity() * 8 + join.memory().index_bytes()) as f64 / sigs.len().max(1) as f64
}

fn bench(c: &mut Criterion) {
    let texts = corpus::load();
    let hasher = MinHasher::builder().num_hashes(128).build().expect("valid");
    let sigs: Vec<MinHashSignature> = texts.iter().map(|t| hasher.sketch(t)).collect();
    let n = sigs.len();
    let params = LshParams::min_candidates_for_recall(0.8, 128, DEFAULT_MIN_RECALL).expect("valid");

    let mut group = c.benchmark_group("sorted join vs flat vs lsh index (issue 31)");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    for (bound, label) in [(Some(SCAN), "scan bound 256"), (None, "no bound")] {
        let mut expected = Vec::new();
        let lsh_bytes = stream_lsh(params, bound, &sigs, &mut |out| {
            out.sort_unstable();
            expected.push(out.clone());
        });
        let mut doc = 0;
        let flat_bytes = stream_flat(params, bound, &sigs, &mut |out| {
            out.sort_unstable();
            assert_eq!(*out, expected[doc], "document {doc}, {label}");
            doc += 1;
        });
        let mut doc = 0;
        let join_bytes = sorted_join(params, bound, &sigs, &mut |out| {
            assert_eq!(*out, expected[doc], "document {doc}, {label}");
            doc += 1;
        });
        let candidates: usize = expected.iter().map(Vec::len).sum();
        eprintln!(
            "{n} documents, {} bands x {} rows, {label}: {candidates} candidates; \
             LshIndex {lsh_bytes:.1} bytes/document, FlatLshIndex {flat_bytes:.1}, \
             SortedBandJoin {join_bytes:.1} (keys included)",
            params.bands(),
            params.rows(),
        );
        let runs: [(&str, Stage); 3] = [
            ("previous: LshIndex", stream_lsh),
            ("previous: FlatLshIndex", stream_flat),
            ("SortedBandJoin", sorted_join),
        ];
        for (name, run) in runs {
            group.bench_function(BenchmarkId::new(format!("{name}, {label}"), n), |b| {
                b.iter(|| {
                    let mut total = 0;
                    run(params, bound, black_box(&sigs), &mut |out| {
                        total += out.len()
                    });
                    black_box(total)
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

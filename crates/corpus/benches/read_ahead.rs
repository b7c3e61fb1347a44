//! The JSONL batches read on a reader thread (`jsonl::read_ahead`, commit `b61ba61`,
//! issue 31 session 10 task G) against the batches read on the calling thread, in the
//! same run.
//!
//! * `previous: batches read on the calling thread`: the same batched decoder
//!   (`Batched`, the pool decoding batch `k + 1`) as `ParallelJsonl` drives it, which
//!   still reads each batch's bytes and splits its lines on the calling thread between
//!   taking the items of one batch and the next, the documents collected into a
//!   vector, a repeated id dropped (a set of the ids' hashes): the shape of
//!   `read_jsonl_with_progress` before `b61ba61` (its collect loop is private to the
//!   library: this copy has no progress, statistics or problems);
//! * `read_jsonl_with_progress (reader thread)`: the library now, the batches read on
//!   a scoped reader thread and handed to the pool, the calling thread only taking items.
//!
//! Input: the corpus file's bytes in memory (no disk read timed). Before timing, both
//! give the same ids and texts. Each is timed by wall time (the overlap is the gain)
//! and by the calling thread's CPU time (`common/thread_cpu.rs`: the reading moved off
//! it).
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or the JSONL file named by
//! `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-corpus --features rayon --bench read_ahead -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_corpus::{Document, JsonlReader, ParallelJsonl, ReadOptions, read_jsonl_with_progress};

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/thread_cpu.rs"]
mod thread_cpu;

/// The documents of `bytes`, the batches read on the calling thread; a document whose
/// id's hash came before is dropped, as the reader's collect loop drops a repeated id
/// (it keys ids by their hash too).
fn calling_thread(bytes: &'static [u8], options: &ReadOptions) -> Vec<Document> {
    let hasher = RandomState::new();
    let mut seen: HashSet<u64> = HashSet::new();
    ParallelJsonl::new(JsonlReader::new(bytes, "corpus", options))
        .flatten()
        .filter(|d| seen.insert(hasher.hash_one(d.id.as_str())))
        .collect()
}

/// The documents of `bytes` as the library reads them now.
fn reader_thread(bytes: &'static [u8], options: &ReadOptions) -> Vec<Document> {
    read_jsonl_with_progress(JsonlReader::new(bytes, "corpus", options), |_| {})
        .expect("a readable corpus")
        .documents
}

/// A reader timed: the documents of the JSON Lines under the options.
type Read = fn(&'static [u8], &ReadOptions) -> Vec<Document>;

fn bench(c: &mut Criterion) {
    let bytes: &'static [u8] = std::fs::read(corpus::path())
        .expect("the corpus file")
        .leak();
    let options = ReadOptions::default();
    let key = |docs: Vec<Document>| -> Vec<(String, String)> {
        docs.into_iter().map(|d| (d.id, d.text)).collect()
    };
    let want = key(calling_thread(bytes, &options));
    assert_eq!(
        key(reader_thread(bytes, &options)),
        want,
        "both read the same documents"
    );
    let n = want.len();
    eprintln!(
        "read_ahead: {n} documents, {:.1} MB of JSON Lines, rayon feature {}",
        bytes.len() as f64 / 1e6,
        cfg!(feature = "rayon"),
    );
    let readers: [(&str, Read); 2] = [
        (
            "previous: batches read on the calling thread",
            calling_thread,
        ),
        ("read_jsonl_with_progress (reader thread)", reader_thread),
    ];
    let mut group = c.benchmark_group("jsonl read_ahead (issue 31)");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    for (name, read) in readers {
        group.bench_function(BenchmarkId::new(format!("wall, {name}"), n), |b| {
            b.iter(|| read(black_box(bytes), &options).len());
        });
        thread_cpu::bench(&mut group, name, n, || {
            read(black_box(bytes), &options).len()
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

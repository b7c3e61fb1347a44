//! JSONL decoding on rayon's pool, `ParallelJsonl` (the `rayon` feature, commits
//! ef8e3bb and 3029552), against the previous serial code, a `JsonlReader` decoding
//! one line at a time on the calling thread, in the same run (issue 31).
//!
//! Input: the texts of the corpus written back as JSON Lines in memory, one
//! `{"id": <line number>, "text": ...}` object a line (serde_json's escaping), read
//! from a byte slice so that no disk read is timed. Both readers are checked to yield
//! the same ids and texts before anything is timed. Each is timed by wall time and by
//! the calling thread's CPU time (`common/thread_cpu.rs`: the serial path, which a
//! loaded machine does not inflate).
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS` (`bench`: the 66,855 documents
//! of `bench/data/corpus.jsonl`).
//!
//! Run: `cargo bench -p ndd-corpus --features rayon --bench parallel_jsonl` (the
//! near-dup dev-dependency turns the feature on for benches anyway; without it both
//! rows time the serial reader).
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_corpus::{Document, JsonlReader, ParallelJsonl, Problem, ReadOptions};

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/thread_cpu.rs"]
mod thread_cpu;

/// The ids and texts of the documents, and the number of problems, that `docs` yields.
fn drain(docs: impl Iterator<Item = Result<Document, Problem>>) -> (Vec<(String, String)>, usize) {
    let mut out = Vec::new();
    let mut problems = 0;
    for item in docs {
        match item {
            Ok(doc) => out.push((doc.id, doc.text)),
            Err(_) => problems += 1,
        }
    }
    (out, problems)
}

/// Documents and text bytes that `docs` yields (what a timed pass hands on).
fn count(docs: impl Iterator<Item = Result<Document, Problem>>) -> (usize, usize) {
    docs.filter_map(Result::ok)
        .fold((0, 0), |(n, bytes), d| (n + 1, bytes + d.text.len()))
}

/// A reader timed: documents and text bytes of the JSON Lines under the options.
type Read = fn(&'static [u8], &ReadOptions) -> (usize, usize);

fn bench(c: &mut Criterion) {
    let mut jsonl = String::new();
    for (i, text) in corpus::load().iter().enumerate() {
        let line = serde_json::json!({ "id": i + 1, "text": text });
        jsonl.push_str(&line.to_string());
        jsonl.push('\n');
    }
    let bytes: &'static [u8] = Box::leak(jsonl.into_bytes().into_boxed_slice());
    let options = ReadOptions::default();
    let serial = drain(JsonlReader::new(bytes, "corpus", &options));
    let parallel = drain(ParallelJsonl::new(JsonlReader::new(
        bytes, "corpus", &options,
    )));
    assert_eq!(
        serial, parallel,
        "the parallel reader yields the serial reader's items"
    );
    let n = serial.0.len();
    eprintln!(
        "jsonl decode: {n} documents, {} problems, {:.1} MB of JSON Lines, rayon feature {}",
        serial.1,
        bytes.len() as f64 / 1e6,
        cfg!(feature = "rayon"),
    );

    // Each reader by wall time and by the calling thread's CPU time (the serial path).
    let readers: [(&str, Read); 2] = [
        (
            "previous: JsonlReader, one line at a time",
            |bytes, options| count(JsonlReader::new(bytes, "corpus", options)),
        ),
        ("ParallelJsonl (batches on the pool)", |bytes, options| {
            count(ParallelJsonl::new(JsonlReader::new(
                bytes, "corpus", options,
            )))
        }),
    ];
    let mut group = c.benchmark_group("jsonl decode (issue 31)");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    for (name, read) in readers {
        group.bench_function(BenchmarkId::new(format!("wall, {name}"), n), |b| {
            b.iter(|| read(black_box(bytes), &options));
        });
        thread_cpu::bench(&mut group, name, n, || read(black_box(bytes), &options));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! JSONL reading: the line parse with the flat-record path (today) against the
//! `serde_json` parse alone (the code before it, still the path of every other line),
//! and the whole batched read of a corpus held in memory.
//!
//! * `jsonl_parse/serde_json` and `jsonl_parse/flat`: every line of the corpus to a
//!   document with the default options. Before measuring, both are checked to give the
//!   same document for every line.
//! * `jsonl_read/read_jsonl_with_progress`: the whole corpus through the reader the
//!   tool uses (`rayon`: lines read in batches, decoded on the pool), duplicate ids
//!   checked, from bytes in memory.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or the JSONL file named by
//! `NDD_BENCH_CORPUS` (`bench`: `bench/data/corpus.jsonl`, the 66,855 documents of the
//! issue 31 measurements).
//!
//! Run: `NDD_BENCH_CORPUS=bench cargo bench -p ndd-corpus --features rayon --bench jsonl -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndd_corpus::bench_hooks::parse_line;
use ndd_corpus::{JsonlReader, ReadOptions, read_jsonl_with_progress};

/// The corpus file's bytes (see the module documentation).
fn corpus() -> Vec<u8> {
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("data/debian-copyright.jsonl").is_file())
        .unwrap()
        .to_path_buf();
    let path = match std::env::var("NDD_BENCH_CORPUS").ok().as_deref() {
        None => root.join("data/debian-copyright.jsonl"),
        Some("bench") => root.join("bench/data/corpus.jsonl"),
        Some(p) if Path::new(p).is_absolute() => PathBuf::from(p),
        Some(p) => root.join(p),
    };
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bench(c: &mut Criterion) {
    let bytes = corpus();
    let text = std::str::from_utf8(&bytes).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let opts = ReadOptions::default();
    for line in &lines {
        assert_eq!(
            parse_line(line, &opts, true),
            parse_line(line, &opts, false)
        );
    }

    let mut g = c.benchmark_group("jsonl_parse");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(20);
    for (name, serde_only) in [("serde_json", true), ("flat", false)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for line in &lines {
                    black_box(parse_line(black_box(line), &opts, serde_only).ok());
                }
            });
        });
    }
    g.finish();

    let mut g = c.benchmark_group("jsonl_read");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(20);
    g.bench_function("read_jsonl_with_progress", |b| {
        b.iter(|| {
            let reader = JsonlReader::new(&bytes[..], "corpus", &opts);
            black_box(
                read_jsonl_with_progress(reader, |_| {})
                    .unwrap()
                    .documents
                    .len(),
            )
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! JSONL reading: the line parse with the flat-record path (today) against the
//! `serde_json` parse alone (the code before it, still the path of every other line),
//! and the whole batched read of a corpus held in memory.
//!
//! * `jsonl_parse/serde_json` and `jsonl_parse/flat`: every line of the corpus to a
//!   document with the default options. Before measuring, both are checked to give the
//!   same document for every line.
//! * `jsonl_text_decode/previous` and `jsonl_text_decode/library`: every record's text
//!   member (its contents after `"text":`), decoded as the flat-record path keeps it:
//!   the previous code (`37c2795`: a walk to the closing quote that counts the decoded
//!   length, then a second walk over the escapes into a string of that length, copied
//!   below) against the library's one pass (`bench_hooks::decode_string`). Both are
//!   checked to give the same string and end first.
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
use ndd_corpus::bench_hooks::{decode_string, parse_line};
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

    // Where each text member's contents start (after `"text"`, its colon and quote).
    let starts: Vec<(&str, usize)> = lines
        .iter()
        .filter_map(|l| {
            let name = l.find("\"text\"")? + 6;
            let quote = name + l[name..].find('"')? + 1;
            Some((*l, quote))
        })
        .collect();
    let mut text_bytes = 0;
    for &(line, start) in &starts {
        let library = decode_string(line, start);
        assert_eq!(previous::decode(line, start), library, "{line}");
        text_bytes += library.map_or(0, |(_, end)| end - start);
    }
    let mut g = c.benchmark_group("jsonl_text_decode");
    g.throughput(Throughput::Bytes(text_bytes as u64));
    g.sample_size(20);
    g.bench_function("previous", |b| {
        b.iter(|| {
            for &(line, start) in &starts {
                black_box(previous::decode(black_box(line), start));
            }
        });
    });
    g.bench_function("library", |b| {
        b.iter(|| {
            for &(line, start) in &starts {
                black_box(decode_string(black_box(line), start));
            }
        });
    });
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

/// The flat-record path's decode of a kept member before the one-pass decode
/// (`37c2795`'s `scan_string`, still the library's, then its `decode_string`, copied
/// from `crates/corpus/src/flat_record.rs`).
mod previous {
    /// The decoded string whose contents start at `start` and its closing quote's index.
    pub(crate) fn decode(line: &str, start: usize) -> Option<(String, usize)> {
        // The walk is the library's, unchanged (it still scans the members not kept).
        let (end, len) = ndd_corpus::bench_hooks::scan_string(line.as_bytes(), start)?;
        Some((decode_string(line.get(start..end)?, len)?, end))
    }

    /// The `\uXXXX` escape (or surrogate pair) at the start of `b` and its length.
    fn unicode_escape(b: &[u8]) -> Option<(char, usize)> {
        let hex4 = |h: &[u8]| {
            h.iter()
                .try_fold(0u32, |n, &c| Some(n * 16 + char::from(c).to_digit(16)?))
        };
        let hi = hex4(b.get(2..6)?)?;
        match hi {
            0xD800..=0xDBFF => {
                let lo = hex4(b.get(8..12).filter(|_| b.get(6..8) == Some(b"\\u"))?)?;
                let c = 0x1_0000 + ((hi - 0xD800) << 10) + lo.checked_sub(0xDC00)?;
                Some((char::from_u32(c).filter(|_| lo <= 0xDFFF)?, 12))
            }
            0xDC00..=0xDFFF => None,
            _ => Some((char::from_u32(hi)?, 6)),
        }
    }

    /// The contents `raw` decoded into a string of capacity `len`.
    fn decode_string(raw: &str, len: usize) -> Option<String> {
        let mut out = String::with_capacity(len);
        let b = raw.as_bytes();
        let mut i = 0;
        while let Some(k) = memchr::memchr(b'\\', b.get(i..)?) {
            out.push_str(raw.get(i..i + k)?);
            i += k;
            let c = match b.get(i + 1)? {
                b'u' => {
                    let (c, used) = unicode_escape(b.get(i..)?)?;
                    out.push(c);
                    i += used;
                    continue;
                }
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                &e => char::from(e),
            };
            out.push(c);
            i += 2;
        }
        out.push_str(raw.get(i..)?);
        Some(out)
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

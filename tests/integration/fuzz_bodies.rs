//! The bodies of the fuzz targets in `fuzz/` (which include this file), so that every
//! input a fuzzer kept (`tests/fuzz/<target>/`: seeds and past crashes) is replayed by
//! `cargo test` as an ordinary test (`fuzz_replay.rs`). Nothing may panic or hang.

use std::io::Cursor;

use near_dup::corpus::{JsonlReader, ReadOptions, read_jsonl_with_progress};
use near_dup::imatch::{IMatchSignature, Lexicon};
use near_dup::index::{ExactIndex, HammingIndex};
use near_dup::learn::WeightModel;
use near_dup::lsh::{LshBloom, LshEnsemble, LshForest, LshIndex, PlainSlots, SampledBits};
use near_dup::minhash::{BBitSignature, MinHashSignature};
use near_dup::pipeline::{BloomDedup, Dedup, DedupIndex, Method};
use near_dup::prelude::*;
use near_dup::scale::{Assignment, BandKeyRecord, DigestRecord, Edge, Record, RecordReader, Score};
use near_dup::simhash::SimHashSignature;
use near_dup::stats::DocumentFrequencies;

/// The text entry points on any bytes: HTML to text, shingles, sketches, and a corpus
/// built from the bytes (JSONL records, HTML documents, broken lines) through the
/// reader and every method. The first byte picks how the corpus is laid out, so the
/// fuzzer reaches the reader's structure, not only its first bytes.
pub(crate) fn text(data: &[u8]) {
    let Some((&layout, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let _ = near_dup::shingle::html::html_to_text(&text);
    for k in [1, 3, 5] {
        if let Ok(s) = near_dup::shingle::WordShingler::new(k) {
            let _ = s.features(&text);
        }
        if let Ok(s) = near_dup::shingle::CharShingler::new(k) {
            let _ = s.features(&text);
        }
    }
    if let Ok(h) = near_dup::minhash::MinHasher::new(64) {
        let _ = h.sketch(&text);
    }
    if let Ok(h) = near_dup::simhash::SimHasher::new(64) {
        let _ = h.sketch(&text);
    }
    // The bytes themselves as a JSONL stream (plain or gzip), then as records.
    read_corpus(rest.to_vec());
    read_corpus(records(layout, rest));
    // Every line a document, through every method.
    let lines: Vec<&str> = text.lines().take(64).collect();
    for method in ["minhash", "simhash", "exact", "signcd", "imatch"] {
        if let Ok(m) = method.parse::<Method>() {
            let _ = Dedup::new().method(m).run_texts(&lines);
        }
    }
}

/// Reads `bytes` as a JSONL corpus; any error is fine, a panic is not.
fn read_corpus(bytes: Vec<u8>) {
    if let Ok(reader) = JsonlReader::from_read(Cursor::new(bytes), "fuzz", &ReadOptions::default())
    {
        if let Ok(corpus) = read_jsonl_with_progress(reader, |_| {}) {
            let texts: Vec<&str> = corpus.documents.iter().map(|d| d.text.as_str()).collect();
            let _ = Dedup::new().run_texts(&texts);
        }
    }
}

/// A JSONL corpus made of `bytes`: pieces split at `0xFF` become records whose text is
/// the piece (as HTML every other record when `layout` says so), with blank lines, CRLF
/// line ends, repeated ids, nested fields and a broken last line as `layout`'s bits ask.
fn records(layout: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, piece) in bytes.split(|&b| b == 0xFF).take(256).enumerate() {
        let piece = String::from_utf8_lossy(piece);
        let text = if layout & 1 != 0 && i % 2 == 1 {
            format!("<html><body><p>{piece}</p><script>x()</script></body></html>")
        } else {
            piece.into_owned()
        };
        let id = if layout & 2 != 0 { i / 2 } else { i };
        let record = if layout & 4 != 0 {
            serde_json::json!({"id": id.to_string(), "text": text, "meta": {"n": i}})
        } else {
            serde_json::json!({"id": id.to_string(), "text": text})
        };
        out.extend_from_slice(record.to_string().as_bytes());
        out.extend_from_slice(if layout & 8 != 0 { b"\r\n" } else { b"\n" });
        if layout & 16 != 0 {
            out.push(b'\n');
        }
    }
    if layout & 32 != 0 {
        out.extend_from_slice(b"{\"id\": \"broken\", \"text\": \"no end");
    }
    out
}

/// Loads `bytes`, saves what loaded and loads that again: it must load.
macro_rules! round_trip {
    ($load:expr, $bytes:expr) => {
        if let Ok(v) = $load($bytes) {
            let saved = v.to_bytes();
            assert!(
                $load(&saved[..]).is_ok(),
                "a saved value does not load again"
            );
        }
    };
}

/// Reads every record of a record file held in `bytes`: a typed error, never a panic.
fn records_of<T: Record>(bytes: &[u8]) {
    if let Ok(reader) = RecordReader::<T, _>::new(Cursor::new(bytes)) {
        for record in reader.take(1 << 16) {
            if record.is_err() {
                break;
            }
        }
    }
}

/// Every decoder of saved bytes: a typed error or a value whose bytes load again, never
/// a panic, a hang or an allocation out of proportion to the input. The first byte
/// picks the decoder; the rest is the input.
pub(crate) fn decoders(data: &[u8]) {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    match which % 22 {
        0 => round_trip!(LshIndex::<u64, PlainSlots>::from_bytes, bytes),
        1 => round_trip!(ExactIndex::<u64, PlainSlots>::from_bytes, bytes),
        2 => round_trip!(HammingIndex::<u64>::from_bytes, bytes),
        3 => round_trip!(MinHashSignature::from_bytes, bytes),
        4 => round_trip!(BBitSignature::from_bytes, bytes),
        5 => round_trip!(SimHashSignature::from_bytes, bytes),
        6 => round_trip!(IMatchSignature::from_bytes, bytes),
        7 => round_trip!(PlainSlots::from_bytes, bytes),
        8 => round_trip!(SampledBits::from_bytes, bytes),
        9 => round_trip!(Lexicon::from_bytes, bytes),
        10 => round_trip!(DocumentFrequencies::from_bytes, bytes),
        11 => round_trip!(LshForest::<u64>::from_bytes, bytes),
        12 => round_trip!(LshEnsemble::<u64>::from_bytes, bytes),
        13 => round_trip!(LshBloom::from_bytes, bytes),
        14 => round_trip!(DedupIndex::from_bytes, bytes),
        15 => round_trip!(BloomDedup::from_bytes, bytes),
        16 => round_trip!(WeightModel::from_bytes, bytes),
        17 => records_of::<BandKeyRecord>(bytes),
        18 => records_of::<Edge>(bytes),
        19 => records_of::<Assignment>(bytes),
        20 => records_of::<Score>(bytes),
        _ => records_of::<DigestRecord>(bytes),
    }
}

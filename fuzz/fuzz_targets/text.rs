//! The text entry points on any bytes: HTML to text, shingles, sketches, the JSONL
//! reader and the whole pipeline. Nothing may panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use near_dup::pipeline::corpus::{JsonlReader, ReadOptions, read_jsonl_with_progress};
use near_dup::pipeline::{Dedup, Method};
use near_dup::prelude::*;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
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
    // The bytes as a JSONL corpus (plain or gzip).
    if let Ok(reader) = JsonlReader::from_read(
        std::io::Cursor::new(data.to_vec()),
        "fuzz",
        &ReadOptions::default(),
    ) {
        let _ = read_jsonl_with_progress(reader, |_| {});
    }
    // Every line a document, through every method.
    let lines: Vec<&str> = text.lines().take(64).collect();
    for method in ["minhash", "simhash", "exact", "signcd", "imatch"] {
        if let Ok(m) = method.parse::<Method>() {
            let _ = Dedup::new().method(m).run_texts(&lines);
        }
    }
});

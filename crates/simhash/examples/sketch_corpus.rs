//! Sketches every document of a JSONL corpus three times with a few `SimHasher`
//! configurations (the defaults, binary weights, TF-IDF, 128 Gaussian bits) and prints
//! a checksum of the signatures: a small, deterministic driver for instruction counts
//! under `valgrind --tool=callgrind` when comparing two versions of the sketching code.
//!
//! ```sh
//! cargo build --release -p ndd-simhash --example sketch_corpus
//! valgrind --tool=callgrind --toggle-collect='*checksum*' \
//!     target/release/examples/sketch_corpus data/debian-copyright.jsonl [tf|binary|tfidf|gaussian]
//! ```

use std::error::Error;

use ndd_core::stats::DocumentFrequencies;
use ndd_core::{DocSketcher, FeatureExtractor, Sketcher};
use ndd_shingle::WordShingler;
use ndd_simhash::{Projection, SimHasher, Weighting};

fn checksum<E: FeatureExtractor>(h: &SimHasher<E>, docs: &[String]) -> u64 {
    let mut state = Sketcher::new_state(h);
    let mut sig = Sketcher::new_signature(h);
    let mut sum = 0u64;
    for _ in 0..3 {
        for d in docs {
            h.sketch_with(&mut state, d, &mut sig);
            for w in sig.words() {
                sum = sum.rotate_left(5) ^ w;
            }
        }
    }
    sum
}

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "data/debian-copyright.jsonl".to_owned());
    let mut docs = Vec::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        if let Some(t) = v.get("text").and_then(|t| t.as_str()) {
            docs.push(t.to_owned());
        }
    }
    let words = WordShingler::new(5)?;
    let stats = DocumentFrequencies::from_documents(&words, docs.iter().map(String::as_str));
    // Word 5-grams throughout (`SimHasher::new`'s shingles until 0.1.0), so the
    // checksums stay comparable with earlier runs.
    let default = SimHasher::builder()
        .weighting(Weighting::TermFrequency)
        .build_with(words.clone())?;
    let binary = SimHasher::builder()
        .weighting(Weighting::Binary)
        .build_with(words.clone())?;
    let tfidf = SimHasher::builder()
        .weighting(Weighting::tf_idf(stats))
        .build_with(words.clone())?;
    let gaussian = SimHasher::builder()
        .bits(128)
        .projection(Projection::Gaussian)
        .weighting(Weighting::TermFrequency)
        .build_with(words)?;
    let only = std::env::args().nth(2).unwrap_or_default();
    let run = |name: &str| only.is_empty() || only == name;
    println!("documents: {}", docs.len());
    if run("tf") {
        println!("tf 64:        {:016x}", checksum(&default, &docs));
    }
    if run("binary") {
        println!("binary 64:    {:016x}", checksum(&binary, &docs));
    }
    if run("tfidf") {
        println!("tf-idf 64:    {:016x}", checksum(&tfidf, &docs));
    }
    if run("gaussian") {
        println!("gaussian 128: {:016x}", checksum(&gaussian, &docs));
    }
    Ok(())
}

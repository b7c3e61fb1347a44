//! The bundled real corpus (`data/debian-copyright.jsonl`, 562 Debian copyright files)
//! as word 5-gram sets and 128-slot MinHash signatures, for the tests that compare an
//! index with brute force.

#![allow(clippy::unwrap_used, dead_code)]

use ndd_core::{DocSketcher, FeatureExtractor, FeatureSet};
use ndd_minhash::{MinHashSignature, MinHasher};
use ndd_shingle::WordShingler;

/// The texts, in file order.
pub(crate) fn texts() -> Vec<String> {
    let raw = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    ))
    .unwrap();
    raw.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["text"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Shingle sets (word 5-grams) and MinHash signatures (128 slots, seed 0) of `texts`.
pub(crate) fn sketch(texts: &[String]) -> (Vec<FeatureSet>, Vec<MinHashSignature>) {
    let shingler = WordShingler::new(5).unwrap();
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .build_with(shingler.clone())
        .unwrap();
    let sets = texts.iter().map(|t| shingler.feature_set(t)).collect();
    let sigs = texts.iter().map(|t| hasher.sketch(t)).collect();
    (sets, sigs)
}

/// Classic MinHash signatures (128 independent hash functions, seed 0) of `texts`:
/// slots that agree independently with probability J, the model of the S-curve.
pub(crate) fn sketch_classic(texts: &[String]) -> Vec<MinHashSignature> {
    let hasher = MinHasher::builder()
        .scheme(ndd_minhash::MinHashScheme::Classic)
        .num_hashes(128)
        .build_with(WordShingler::new(5).unwrap())
        .unwrap();
    texts.iter().map(|t| hasher.sketch(t)).collect()
}

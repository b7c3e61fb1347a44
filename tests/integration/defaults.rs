//! The library's convenience constructors give what the pipeline (and so the `ndd`
//! tool) runs with by default (issue 30): `MinHasher::new` sketches the pipeline's
//! MinHash values, `SimHasher::new` its SimHash fingerprints, and
//! `LshParams::for_threshold` is its banding. Checked on the bundled real corpus, by
//! rebuilding the default pipeline's pairs from the library's pieces.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::BTreeMap;

use near_dup::lsh::{LshIndex, LshParams};
use near_dup::minhash::{MinHashSignature, MinHasher};
use near_dup::pipeline::{Dedup, Method, MinHashConfig, SimHashConfig, Verifier};
use near_dup::simhash::SimHasher;
use near_dup::{DocSketcher, Signature};

use crate::pipeline_real::corpus as texts;

/// Pair -> score bits, for exact comparison.
type Pairs = BTreeMap<(usize, usize), u64>;

/// The pairs `dedup` reports on the bundled corpus without the exact pass (so every
/// pair is listed), with their scores; there are many.
fn pipeline_pairs(dedup: Dedup, docs: &[near_dup::pipeline::Document]) -> Pairs {
    let out = dedup.exact_pass(false).run(docs).unwrap();
    let pairs: Pairs = out
        .pairs
        .iter()
        .map(|p| ((p.a, p.b), p.score.to_bits()))
        .collect();
    assert!(pairs.len() > 100, "{}", pairs.len());
    pairs
}

#[test]
fn for_threshold_is_the_pipelines_banding() {
    for t in [0.5, 0.7, 0.8, 0.9, 0.95] {
        assert_eq!(
            MinHashConfig::default().lsh_params(t).unwrap(),
            LshParams::for_threshold(t, 128).unwrap(),
            "T = {t}"
        );
    }
}

#[test]
fn minhash_new_and_for_threshold_find_the_default_pipelines_pairs() {
    let docs = texts();
    let t = 0.8;
    // The pipeline: default features, sketch and banding; every bucket read; pairs
    // kept by the MinHash estimate, without the exact pass (so every pair is listed).
    let config = MinHashConfig {
        max_bucket_scan: None,
        ..MinHashConfig::default()
    };
    let dedup = Dedup::new()
        .method(Method::MinHash(config))
        .verifier(Verifier::MethodScore)
        .threshold(t);
    let pipeline = pipeline_pairs(dedup, &docs);

    // The library with its defaults.
    let hasher = MinHasher::new(128).unwrap();
    let mut index: LshIndex<usize, MinHashSignature> =
        LshIndex::new(LshParams::for_threshold(t, 128).unwrap());
    let sigs: Vec<MinHashSignature> = docs.iter().map(|d| hasher.sketch(&d.text)).collect();
    let mut library = Pairs::new();
    for (i, sig) in sigs.iter().enumerate() {
        for j in index.query(sig).unwrap() {
            let score = sigs[j].similarity(sig).unwrap().value();
            if score >= t {
                library.insert((j, i), score.to_bits());
            }
        }
        index.insert(i, sig).unwrap();
    }
    assert_eq!(pipeline, library);
}

#[test]
fn simhash_new_gives_the_default_pipelines_fingerprints() {
    let docs = texts();
    let dedup = Dedup::new().method(Method::SimHash(SimHashConfig::default()));
    let pipeline = pipeline_pairs(dedup, &docs);

    // Every pair of SimHasher::new(64) fingerprints within 3 bits, by brute force.
    let hasher = SimHasher::new(64).unwrap();
    let fps: Vec<u64> = docs
        .iter()
        .map(|d| hasher.sketch(&d.text).as_u64().unwrap())
        .collect();
    let mut library = Pairs::new();
    for a in 0..fps.len() {
        for b in a + 1..fps.len() {
            let h = (fps[a] ^ fps[b]).count_ones();
            if h <= 3 {
                library.insert((a, b), (1.0 - f64::from(h) / 64.0).to_bits());
            }
        }
    }
    assert_eq!(pipeline, library);
}

//! The pipeline on the bundled real corpus against the exact definition: every pair
//! the default MinHash pipeline reports has exact Jaccard ≥ T, and it finds (almost)
//! every such pair.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::BTreeSet;

use near_dup::pipeline::corpus::{ReadOptions, read_corpus};
use near_dup::pipeline::{Dedup, Method, Verifier};

/// The bundled corpus (also read by `defaults.rs`).
pub(crate) fn corpus() -> Vec<near_dup::pipeline::Document> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/debian-copyright.jsonl");
    read_corpus(&path, &ReadOptions::default())
        .unwrap()
        .documents
}

fn pairs(out: &near_dup::pipeline::Outcome) -> BTreeSet<(usize, usize)> {
    out.pairs.iter().map(|p| (p.a, p.b)).collect()
}

#[test]
fn default_minhash_pipeline_matches_the_exact_join_on_real_text() {
    let docs = corpus();
    assert_eq!(docs.len(), 562);
    for t in [0.5, 0.8, 0.9] {
        // Without the exact pass both report every pair (no star edges), so the pair
        // sets compare directly.
        let exact = Dedup::new()
            .method(Method::ExactJaccard)
            .exact_pass(false)
            .threshold(t)
            .run(&docs)
            .unwrap();
        let minhash = Dedup::new()
            .exact_pass(false)
            .threshold(t)
            .run(&docs)
            .unwrap();
        let (e, m) = (pairs(&exact), pairs(&minhash));
        assert!(!e.is_empty());
        assert!(
            m.is_subset(&e),
            "T = {t}: a reported pair is below the threshold"
        );
        let recall = m.len() as f64 / e.len() as f64;
        assert!(
            recall >= 0.98,
            "T = {t}: recall {recall} of {} exact pairs",
            e.len()
        );
        // Scores are the exact Jaccard coefficients.
        let by_pair: std::collections::HashMap<(usize, usize), f64> =
            exact.pairs.iter().map(|p| ((p.a, p.b), p.score)).collect();
        for p in &minhash.pairs {
            assert!((p.score - by_pair[&(p.a, p.b)]).abs() < 1e-12);
        }
    }
}

#[test]
fn the_exact_pass_does_not_change_the_groups_on_real_text() {
    let docs = corpus();
    for verifier in [Verifier::ExactJaccard, Verifier::MethodScore] {
        let with = Dedup::new().verifier(verifier.clone()).run(&docs).unwrap();
        let without = Dedup::new()
            .verifier(verifier)
            .exact_pass(false)
            .run(&docs)
            .unwrap();
        assert!(with.report.exact_copies > 100);
        assert_eq!(with.groups, without.groups);
        assert_eq!(with.dropped(), without.dropped());
    }
}

//! SimHash and MinHash over learned weights in the pipeline (`SimWeighting::Learned`,
//! `MinHashWeighting::Learned`): on documents whose shared boilerplate misleads binary
//! weights, a model trained on other clusters of the same kind finds the
//! near-duplicates binary weights miss, at the same bound or threshold.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::sync::Arc;

use ndd_learn::{
    CollectionStats, Document, Kgrams, Objective, Trainer, WeightModel, instances_from_clusters,
};
use ndd_pipeline::{Dedup, Method, SimHashConfig, SimWeighting};

/// Clusters of 3 that share part of a topic; boilerplate of varying length at the end.
fn collection(clusters: usize, salt: usize) -> (Vec<String>, Vec<usize>) {
    let mut x = 7u64 + salt as u64;
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let (mut texts, mut labels) = (Vec::new(), Vec::new());
    for c in 0..clusters {
        for v in 0..3 {
            let mut w: Vec<String> = (0..10)
                .filter(|_| next(10) < 7)
                .map(|i| format!("s{salt}c{c}t{i}"))
                .collect();
            w.extend((0..3).map(|i| format!("s{salt}c{c}v{v}u{i}")));
            w.extend((0..next(25)).map(|i| format!("legal{i}")));
            texts.push(w.join(" "));
            labels.push(c);
        }
    }
    (texts, labels)
}

/// A model trained with `objective` on the first collection (30 clusters, salt 1).
fn trained(objective: Objective) -> WeightModel {
    let (train_texts, train_labels) = collection(30, 1);
    let docs: Vec<Document> = train_texts
        .iter()
        .map(|t| Document::new(t.as_str()))
        .collect();
    let stats = CollectionStats::from_documents(
        Kgrams::new(1).unwrap(),
        train_texts.iter().map(String::as_str),
    );
    let instances = instances_from_clusters(&train_labels, 3000, 1).unwrap();
    let (model, _) = Trainer::new(objective)
        .train(&stats, &docs, &instances, |_| {})
        .unwrap();
    model
}

/// The pairs of `out` within one cluster of `labels` and those across two.
fn right_and_wrong(out: &ndd_pipeline::Outcome, labels: &[usize]) -> (usize, usize) {
    let right = out
        .pairs
        .iter()
        .filter(|p| labels[p.a] == labels[p.b])
        .count();
    (right, out.pairs.len() - right)
}

#[test]
fn learned_weights_find_what_binary_weights_miss() {
    // Train on one collection, deduplicate another of the same kind.
    let model = trained(Objective::Cosine);

    let (texts, labels) = collection(30, 2);
    let run = |weighting: SimWeighting| {
        let config = SimHashConfig {
            bits: 256,
            hamming: Some(60),
            weighting,
        };
        Dedup::new()
            .method(Method::SimHash(config))
            .run_texts(&texts)
            .unwrap()
    };
    let count = |out: &ndd_pipeline::Outcome| right_and_wrong(out, &labels);
    let (binary_right, binary_wrong) = count(&run(SimWeighting::Binary));
    let learned = run(SimWeighting::Learned(Arc::new(model)));
    let (learned_right, learned_wrong) = count(&learned);
    assert!(
        learned.report.method.contains("learned weights"),
        "{}",
        learned.report.method
    );
    // Measured: learned 27 right, 0 wrong; binary 1 right, 49 wrong.
    assert!(
        learned_right > binary_right + 10 && learned_wrong <= binary_wrong,
        "learned {learned_right} right / {learned_wrong} wrong, binary {binary_right} / {binary_wrong}"
    );
}

/// Weighted Jaccard `Σ min / Σ max` of two learned vectors, by a map over features.
fn weighted_jaccard_by_map(a: &ndd_core::SparseVector, b: &ndd_core::SparseVector) -> f64 {
    let mut both = std::collections::BTreeMap::<u64, (f64, f64)>::new();
    for e in a.entries() {
        both.entry(e.feature).or_default().0 += e.weight;
    }
    for e in b.entries() {
        both.entry(e.feature).or_default().1 += e.weight;
    }
    let (min, max) = both.values().fold((0.0, 0.0), |(lo, hi), &(x, y)| {
        (lo + x.min(y), hi + x.max(y))
    });
    if max == 0.0 { 0.0 } else { min / max }
}

#[test]
fn learned_minhash_estimates_the_learned_weighted_jaccard_and_beats_binary() {
    use ndd_pipeline::{MinHashConfig, MinHashWeighting};
    let model = trained(Objective::Jaccard);
    let model = Arc::new(model);

    let (texts, labels) = collection(30, 2);
    let num_perm = 1024;
    let dedup = |weighting: MinHashWeighting| {
        let config = MinHashConfig {
            num_perm,
            weighting,
            ..MinHashConfig::default()
        };
        Dedup::new()
            .method(Method::MinHash(config))
            .threshold(0.5)
            .exact_pass(false)
    };
    let run = |weighting: MinHashWeighting| dedup(weighting).run_texts(&texts).unwrap();
    // Set Jaccard would ignore the weights: learned MinHash verifies by its estimate.
    let learned_weights = MinHashWeighting::Learned(Arc::clone(&model));
    assert_eq!(
        dedup(learned_weights.clone()).verifier_config().name(),
        "method"
    );
    assert_eq!(
        dedup(MinHashWeighting::Binary).verifier_config().name(),
        "jaccard"
    );
    // An incremental index's byte form does not carry the model: refused, not ignored.
    assert!(ndd_pipeline::DedupIndex::new(&dedup(learned_weights.clone())).is_err());

    // Every reported score is the ICWS estimate of the learned weighted Jaccard,
    // computed here the slow way from the model's vectors over this corpus's
    // statistics: within 4 standard errors.
    let learned = run(learned_weights);
    assert!(
        learned.report.method.contains("learned"),
        "{}",
        learned.report.method
    );
    let here = CollectionStats::from_documents(model.kgrams(), texts.iter().map(String::as_str));
    let vectors: Vec<_> = texts
        .iter()
        .map(|t| model.vector(&here, &Document::new(t.as_str())))
        .collect();
    assert!(!learned.pairs.is_empty());
    for p in &learned.pairs {
        let j = weighted_jaccard_by_map(&vectors[p.a], &vectors[p.b]);
        let se = (j * (1.0 - j) / num_perm as f64).sqrt().max(1e-3);
        assert!(
            (p.score - j).abs() <= 4.0 * se,
            "pair {:?}: estimate {} against {j}",
            (p.a, p.b),
            p.score
        );
    }

    // On boilerplate-heavy clusters the learned weights separate what set Jaccard
    // does not, at the same threshold.
    let count = |out: &ndd_pipeline::Outcome| right_and_wrong(out, &labels);
    let (learned_right, learned_wrong) = count(&learned);
    let (binary_right, binary_wrong) = count(&run(MinHashWeighting::Binary));
    // Measured: learned 21 right, 0 wrong; binary 3 right, 46 wrong.
    assert!(
        learned_right > binary_right + 10 && learned_wrong * 4 <= learned_right,
        "learned {learned_right} right / {learned_wrong} wrong, binary {binary_right} / {binary_wrong}"
    );
}

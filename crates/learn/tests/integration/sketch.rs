//! Learned vectors through the weighted sketchers, unchanged: SimHash with Gaussian
//! projections estimates the learned cosine (collision probability `1 − θ/π`, θ the
//! angle), ICWS the weighted Jaccard of the learned vectors; each estimate within 4
//! standard errors of its expectation, fixed seeds.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::{DocSketcher, FeatureExtractor, Signature, weighted_jaccard};
use ndd_learn::{
    CollectionStats, Document, Kgrams, LearnedKgrams, Objective, Trainer, instances_from_clusters,
};
use ndd_minhash::IcwsMinHasher;
use ndd_simhash::{Projection, SimHasher, Weighting};

fn collection() -> (Vec<String>, Vec<usize>) {
    let mut texts = Vec::new();
    let mut labels = Vec::new();
    for c in 0..10 {
        for v in 0..3 {
            let topic: Vec<String> = (0..12).map(|i| format!("c{c}w{i}")).collect();
            texts.push(format!(
                "{} variant{v}x{c} extra{} words here and there click to unsubscribe",
                topic.join(" "),
                (c * 7 + v) % 5
            ));
            labels.push(c);
        }
    }
    (texts, labels)
}

/// The similarity estimate of `a` and `b` from their sketches under `h`.
fn estimate<H: DocSketcher>(h: &H, a: &str, b: &str) -> f64 {
    h.sketch(a).similarity(&h.sketch(b)).unwrap().value()
}

/// An estimate `got` from `n` slots or bits is within 4 binomial standard errors of
/// the probability `p` it estimates.
fn within_4_se(got: f64, p: f64, n: usize, what: &str) {
    let se = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
    assert!(
        (got - p).abs() <= 4.0 * se + 1e-12,
        "{what}: {got} against {p}"
    );
}

#[test]
fn sketches_estimate_the_learned_similarities() {
    let (texts, labels) = collection();
    let docs: Vec<Document> = texts.iter().map(|t| Document::new(t.as_str())).collect();
    let stats =
        CollectionStats::from_documents(Kgrams::new(1).unwrap(), texts.iter().map(String::as_str));
    let instances = instances_from_clusters(&labels, 1000, 2).unwrap();
    let (cosine_model, _) = Trainer::new(Objective::Cosine)
        .train(&stats, &docs, &instances, |_| {})
        .unwrap();
    let (jaccard_model, _) = Trainer::new(Objective::Jaccard)
        .train(&stats, &docs, &instances, |_| {})
        .unwrap();

    let bits = 4096;
    let simhash = SimHasher::builder()
        .bits(bits)
        .projection(Projection::Gaussian)
        // Each k-gram is pushed once with its learned weight (as the pipeline does).
        .weighting(Weighting::TermFrequency)
        .build_with(LearnedKgrams::new(&cosine_model, &stats))
        .unwrap();
    let slots = 2048;
    let learned = LearnedKgrams::new(&jaccard_model, &stats);
    let icws = ndd_core::Composed::new(
        learned,
        IcwsMinHasher::new(slots, 11)
            .unwrap()
            .with_feature_scheme(learned.scheme()),
    )
    .unwrap();
    let pairs = [(0, 1), (0, 2), (0, 3), (3, 4), (5, 9), (10, 11), (12, 20)];
    for &(a, b) in &pairs {
        // SimHash against the learned cosine.
        let (va, vb) = (
            cosine_model.vector(&stats, &docs[a]),
            cosine_model.vector(&stats, &docs[b]),
        );
        let cos = cosine_model.similarity(&va, &vb).clamp(-1.0, 1.0);
        let p = 1.0 - cos.acos() / std::f64::consts::PI;
        let got = estimate(&simhash, &texts[a], &texts[b]);
        within_4_se(got, p, bits, &format!("SimHash ({a}, {b}), cos {cos}"));
        // ICWS against the weighted Jaccard of the learned vectors.
        let (ja, jb) = (
            jaccard_model.vector(&stats, &docs[a]),
            jaccard_model.vector(&stats, &docs[b]),
        );
        let wj = weighted_jaccard(&ja, &jb);
        let got = estimate(&icws, &texts[a], &texts[b]);
        within_4_se(got, wj, slots, &format!("ICWS ({a}, {b})"));
    }
    // The extractor pushes exactly the learned vector.
    let pushed = LearnedKgrams::new(&cosine_model, &stats).features(&texts[0]);
    assert_eq!(pushed.len(), cosine_model.vector(&stats, &docs[0]).len());
}

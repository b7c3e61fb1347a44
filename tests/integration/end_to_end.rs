//! Cross-crate: labeled near-duplicates generated from real bundled texts, found by
//! shingling + the exact all-pairs join, scored by the evaluation toolkit.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use near_dup::eval::{EditKind, Labels, SynthConfig, generate_corpus, max_f1};
use near_dup::index::exact_similar_pairs;
use near_dup::shingle::WordShingler;
use near_dup::{FeatureExtractor, FeatureSet, UnionFind};

/// Real base texts: distinct documents from the bundled Debian copyright corpus.
fn base_texts(n: usize) -> Vec<String> {
    let raw = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/debian-copyright.jsonl"
    ))
    .unwrap();
    let shingler = WordShingler::new(5).unwrap();
    let mut kept: Vec<(String, FeatureSet)> = Vec::new();
    for line in raw.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = v["text"].as_str().unwrap().to_string();
        let set = shingler.feature_set(&text);
        // Keep mid-sized texts that are not near-duplicates of one already kept, so
        // the only near-duplicates in the test corpus are the planted ones.
        if !(400..4000).contains(&text.len())
            || kept
                .iter()
                .any(|(_, s)| near_dup::jaccard(s.as_slice(), set.as_slice()) > 0.3)
        {
            continue;
        }
        kept.push((text, set));
        if kept.len() == n {
            break;
        }
    }
    kept.into_iter().map(|(t, _)| t).collect()
}

#[test]
fn planted_near_duplicates_are_found_and_scored() {
    let bases = base_texts(40);
    assert_eq!(bases.len(), 40, "fixture too small");
    let mut config = SynthConfig::new(7);
    config.variants_per_base = 3;
    config.kinds = vec![
        (EditKind::Exact, 1.0),
        (EditKind::MinorChange, 1.0),
        (EditKind::BlockReordering, 1.0),
    ];
    let corpus = generate_corpus(&bases, &config).unwrap();
    let shingler = WordShingler::new(3).unwrap();
    let sets: Vec<FeatureSet> = corpus
        .docs
        .iter()
        .map(|d| shingler.feature_set(&d.text))
        .collect();
    let pairs = exact_similar_pairs(&sets, 0.2).unwrap();

    // Exact copies have Jaccard exactly 1 with their source and with each other.
    for (i, d) in corpus.docs.iter().enumerate() {
        if d.kind == EditKind::Exact {
            let original = corpus
                .docs
                .iter()
                .position(|o| o.source == d.source && o.kind == EditKind::Original)
                .unwrap();
            let found = pairs
                .iter()
                .find(|p| (p.a, p.b) == (original.min(i), original.max(i)));
            assert_eq!(found.map(|p| p.score), Some(1.0));
        }
    }

    // Light edits keep documents close: the best threshold separates them well.
    let best = max_f1(&pairs, &corpus.labels).unwrap();
    assert!(best.f1 > 0.95, "max F1 {} at {}", best.f1, best.threshold);

    // Grouping the pairs above that threshold recovers the planted clusters.
    let mut uf = UnionFind::new(corpus.docs.len());
    for p in &pairs {
        if p.score >= best.threshold {
            uf.union(p.a, p.b);
        }
    }
    let predicted = Labels::new(&uf.labels());
    let agreement = near_dup::eval::cluster_pairwise(&corpus.labels, &predicted).unwrap();
    assert!(agreement.f1() > 0.95, "clustering F1 {}", agreement.f1());
}

//! Cross-crate: labeled near-duplicates generated from real bundled texts, found by
//! shingling + the exact all-pairs join, scored by the evaluation toolkit.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use near_dup::eval::{EditKind, Labels, max_f1};
use near_dup::index::exact_similar_pairs;
use near_dup::shingle::WordShingler;
use near_dup::{FeatureExtractor, FeatureSet, UnionFind};

use crate::common::{bundled_texts, distinct_bases, planted};

/// Real base texts: distinct documents from the bundled Debian copyright corpus.
fn base_texts(n: usize) -> Vec<String> {
    distinct_bases(&bundled_texts(), n)
}

#[test]
fn planted_near_duplicates_are_found_and_scored() {
    let bases = base_texts(40);
    let corpus = planted(
        &bases,
        7,
        3,
        &[
            (EditKind::Exact, 1.0),
            (EditKind::MinorChange, 1.0),
            (EditKind::BlockReordering, 1.0),
        ],
    );
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

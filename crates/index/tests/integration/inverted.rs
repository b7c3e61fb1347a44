//! The inverted index and the exact all-pairs join (moved from ndd-core's tests with
//! the code): the index's insert, query, remove and scheme checks, and the prefix-filtered
//! join against the definition computed the slow way.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::BTreeSet;

use ndd_core::{
    CandidateIndex, ErrorKind, ExactSetSketcher, FeatureSet, FnPairSink, PairCounter, SchemeId,
    ScoredPair, Sketcher,
};
use ndd_index::{InvertedIndex, exact_similar_pairs, exact_similar_pairs_into};
use proptest::prelude::*;

#[test]
fn mismatched_schemes_are_errors() {
    let a = ExactSetSketcher::new(SchemeId::new("f").with(1).finish());
    let b = ExactSetSketcher::new(SchemeId::new("f").with(2).finish());
    let (sa, sb) = (a.sketch_features([1, 2]), b.sketch_features([1, 2]));
    let mut index = InvertedIndex::new();
    index.insert(0, &sa).unwrap();
    assert_eq!(
        index.insert(1, &sb).unwrap_err().kind(),
        ErrorKind::Incompatible
    );
    assert_eq!(
        index.query(&sb).unwrap_err().kind(),
        ErrorKind::Incompatible
    );
}

#[test]
fn inverted_index_insert_query_remove() {
    let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
    let mut index = InvertedIndex::new();
    index.insert("a", &sk.sketch_features([1, 2, 3])).unwrap();
    index.insert("b", &sk.sketch_features([3, 4])).unwrap();
    index.insert("c", &sk.sketch_features([9])).unwrap();
    let mut hits = index.query(&sk.sketch_features([3])).unwrap();
    hits.sort();
    assert_eq!(hits, vec!["a", "b"]);
    assert!(index.remove(&"a"));
    assert!(!index.remove(&"a"));
    assert_eq!(index.query(&sk.sketch_features([3])).unwrap(), vec!["b"]);
    assert_eq!(index.len(), 2);
    // Re-inserting a key replaces it.
    index.insert("b", &sk.sketch_features([9])).unwrap();
    assert_eq!(index.len(), 2);
    let scored = index.query_scored(&sk.sketch_features([9]), 1.0).unwrap();
    assert_eq!(scored.len(), 2);
}

fn oracle_jaccard(a: &BTreeSet<u64>, b: &BTreeSet<u64>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    a.intersection(b).count() as f64 / a.union(b).count() as f64
}

fn brute_force_pairs(sets: &[FeatureSet], t: f64) -> Vec<ScoredPair> {
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let a: BTreeSet<u64> = sets[i].as_slice().iter().copied().collect();
            let b: BTreeSet<u64> = sets[j].as_slice().iter().copied().collect();
            let s = oracle_jaccard(&a, &b);
            if s >= t {
                out.push(ScoredPair::new(i, j, s));
            }
        }
    }
    out
}

#[test]
fn all_pairs_rejects_bad_threshold() {
    assert!(exact_similar_pairs(&[], 0.0).is_err());
    assert!(exact_similar_pairs(&[], 1.5).is_err());
    assert!(exact_similar_pairs(&[], f64::NAN).is_err());
    assert_eq!(exact_similar_pairs(&[], 0.5).unwrap(), vec![]);
    let mut sink: Vec<ScoredPair> = Vec::new();
    let one = [FeatureSet::from_unsorted(vec![1, 2])];
    assert!(exact_similar_pairs_into(&one, 0.0, &mut sink).is_err());
    assert!(exact_similar_pairs_into(&one, f64::NAN, &mut sink).is_err());
    assert!(sink.is_empty());
}

proptest! {
    #[test]
    fn all_pairs_join_equals_brute_force(
        raw in proptest::collection::vec(proptest::collection::vec(0u64..30, 0..12), 0..25),
        t in 0.05f64..1.0,
    ) {
        let sets: Vec<FeatureSet> = raw.into_iter().map(FeatureSet::from_unsorted).collect();
        let got = exact_similar_pairs(&sets, t).unwrap();
        let want = brute_force_pairs(&sets, t);
        // The sink form pushes the same pairs, unsorted, each once with i < j.
        let mut streamed: Vec<ScoredPair> = Vec::new();
        let mut via_closure = 0usize;
        exact_similar_pairs_into(&sets, t, &mut streamed).unwrap();
        exact_similar_pairs_into(&sets, t, &mut FnPairSink(|p: ScoredPair| {
            assert!(p.a < p.b);
            via_closure += 1;
        })).unwrap();
        let mut counter = PairCounter::default();
        exact_similar_pairs_into(&sets, t, &mut counter).unwrap();
        streamed.sort_unstable_by_key(|p| (p.a, p.b));
        prop_assert_eq!(&streamed, &got);
        prop_assert_eq!(via_closure, want.len());
        prop_assert_eq!(counter.count, want.len() as u64);
        prop_assert_eq!(got, want);
    }
}

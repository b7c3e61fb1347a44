//! Exact measures against definitions computed the slow way (BTreeSet / BTreeMap
//! oracles), hand-computed values, and proptest properties.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::{BTreeMap, BTreeSet};

use ndd_core::hash::{KGramRoller, kgram_hash};
use ndd_core::{
    FeatureSet, SparseVector, Weighted, containment, containment_at_least, cosine,
    extended_jaccard, intersection_len, jaccard, jaccard_at_least, weighted_jaccard,
};
use proptest::prelude::*;

fn oracle_jaccard(a: &BTreeSet<u64>, b: &BTreeSet<u64>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    a.intersection(b).count() as f64 / a.union(b).count() as f64
}

fn set(v: &[u64]) -> FeatureSet {
    FeatureSet::from_unsorted(v.to_vec())
}

fn vector(m: &BTreeMap<u64, f64>) -> SparseVector {
    SparseVector::from_unsorted(
        m.iter()
            .map(|(&f, &w)| Weighted::new(f, w).unwrap())
            .collect(),
    )
}

#[test]
fn paper_002_bigram_example() {
    // Gambosi, "Near duplicate detection" slides (paper 002), "Jaccard coefficient: Example":
    // d1 = {Jack London, London traveled, traveled to, to Oakland}
    // d2 = {Jack London, London traveled, traveled to, to the, the city, city of, of Oakland}
    // d3 = {Jack traveled, traveled from, from Oakland, Oakland to, to London}
    let d1 = set(&[1, 2, 3, 4]);
    let d2 = set(&[1, 2, 3, 5, 6, 7, 8]);
    let d3 = set(&[9, 10, 11, 12, 13]);
    assert_eq!(jaccard(d1.as_slice(), d2.as_slice()), 0.375);
    assert_eq!(jaccard(d1.as_slice(), d3.as_slice()), 0.0);
    assert_eq!(jaccard(d2.as_slice(), d3.as_slice()), 0.0);
}

#[test]
fn hand_computed_vector_measures() {
    // a = (1, 2, 0), b = (2, 0, 2) on features 10, 20, 30.
    let a = vector(&BTreeMap::from([(10, 1.0), (20, 2.0)]));
    let b = vector(&BTreeMap::from([(10, 2.0), (30, 2.0)]));
    // dot = 2, |a|^2 = 5, |b|^2 = 8.
    assert!((cosine(&a, &b) - 2.0 / (5f64.sqrt() * 8f64.sqrt())).abs() < 1e-12);
    assert!((extended_jaccard(&a, &b) - 2.0 / (5.0 + 8.0 - 2.0)).abs() < 1e-12);
    // min: 1 + 0 + 0 = 1, max: 2 + 2 + 2 = 6.
    assert!((weighted_jaccard(&a, &b) - 1.0 / 6.0).abs() < 1e-12);
}

#[test]
fn empty_inputs_have_defined_results() {
    let e = FeatureSet::default();
    let x = set(&[1]);
    assert_eq!(jaccard(e.as_slice(), e.as_slice()), 1.0);
    assert_eq!(jaccard(e.as_slice(), x.as_slice()), 0.0);
    assert_eq!(containment(e.as_slice(), x.as_slice()), 1.0);
    assert_eq!(containment(x.as_slice(), e.as_slice()), 0.0);
    let ev = SparseVector::default();
    let xv = SparseVector::binary(&x);
    assert_eq!(cosine(&ev, &ev), 1.0);
    assert_eq!(cosine(&ev, &xv), 0.0);
    assert_eq!(extended_jaccard(&ev, &xv), 0.0);
    assert_eq!(weighted_jaccard(&ev, &ev), 1.0);
}

#[test]
fn non_finite_weights_are_rejected() {
    assert!(Weighted::new(1, f64::NAN).is_err());
    assert!(Weighted::new(1, f64::NEG_INFINITY).is_err());
    assert!(FeatureSet::from_sorted(vec![3, 2]).is_err());
}

proptest! {
    #[test]
    fn jaccard_matches_oracle_and_is_symmetric(
        a in proptest::collection::btree_set(0u64..64, 0..40),
        b in proptest::collection::btree_set(0u64..64, 0..40),
    ) {
        let (sa, sb) = (FeatureSet::from_unsorted(a.iter().copied().collect()),
                        FeatureSet::from_unsorted(b.iter().copied().collect()));
        let j = jaccard(sa.as_slice(), sb.as_slice());
        prop_assert_eq!(j, oracle_jaccard(&a, &b));
        prop_assert_eq!(j, jaccard(sb.as_slice(), sa.as_slice()));
        prop_assert!((0.0..=1.0).contains(&j));
        prop_assert_eq!(jaccard(sa.as_slice(), sa.as_slice()), 1.0);
        let c = containment(sa.as_slice(), sb.as_slice());
        let want = if a.is_empty() { 1.0 } else { a.intersection(&b).count() as f64 / a.len() as f64 };
        prop_assert_eq!(c, want);
    }

    /// The block merge and the thresholded measures against the definition (BTreeSet
    /// counts) on sets of every size relation: drawn from a small range (many common
    /// values), from a wide one (few), one a subset of the other, equal, empty.
    #[test]
    fn thresholded_measures_match_the_definition(
        a in proptest::collection::btree_set(0u64..200, 0..120),
        b in proptest::collection::btree_set(0u64..200, 0..120),
        wide in proptest::collection::btree_set(any::<u64>(), 0..50),
        t in 0.0f64..1.0,
    ) {
        let c: BTreeSet<u64> = a.iter().copied().filter(|v| v % 3 != 0).collect();
        let cases = [
            (a.clone(), b.clone()),
            (a.clone(), wide.clone()),
            (a.clone(), c.clone()),
            (c, a.clone()),
            (a.clone(), a.clone()),
            (BTreeSet::new(), a.clone()),
            (a.clone(), BTreeSet::new()),
            (BTreeSet::new(), BTreeSet::new()),
        ];
        for (x, y) in &cases {
            let (sx, sy): (Vec<u64>, Vec<u64>) =
                (x.iter().copied().collect(), y.iter().copied().collect());
            let inter = x.intersection(y).count();
            prop_assert_eq!(intersection_len(&sx, &sy), inter);
            let j = oracle_jaccard(x, y);
            // The same expression as `jaccard`'s, so the same rounding.
            prop_assert_eq!(jaccard(&sx, &sy), j);
            let ct = if x.is_empty() { 1.0 } else { inter as f64 / x.len() as f64 };
            // Thresholds on both sides of the value, the value itself, and the edges.
            for th in [t, j, ct, 0.0, 1.0, j + 1e-12, (j - 1e-12).max(0.0), -1.0, 2.0, f64::INFINITY, f64::NEG_INFINITY] {
                prop_assert_eq!(jaccard_at_least(&sx, &sy, th), (j >= th).then_some(j));
                prop_assert_eq!(containment_at_least(&sx, &sy, th), (ct >= th).then_some(ct));
            }
            prop_assert_eq!(jaccard_at_least(&sx, &sy, f64::NAN), None);
            prop_assert_eq!(containment_at_least(&sx, &sy, f64::NAN), None);
        }
    }

    /// Large near-duplicate sets (the merge split in two by value, its bound checked
    /// many times in each half): a set of up to 1,500 values against a copy with
    /// every `drop`-th value removed and `added` values put in, and against a set
    /// lying in one part of the first's range (one half of the split nearly empty),
    /// at thresholds just around the true value, against the BTreeSet counts.
    #[test]
    fn thresholded_measures_of_large_sets_match_the_definition(
        a in proptest::collection::btree_set(0u64..4000, 0..1500),
        added in proptest::collection::btree_set(0u64..4000, 0..200),
        low in proptest::collection::btree_set(0u64..1000, 0..400),
        drop in 2u64..40,
    ) {
        let near: BTreeSet<u64> = a
            .iter()
            .copied()
            .filter(|v| v % drop != 0)
            .chain(added.iter().copied())
            .collect();
        for (x, y) in [(&a, &near), (&near, &a), (&a, &low), (&low, &a)] {
            let (sx, sy): (Vec<u64>, Vec<u64>) =
                (x.iter().copied().collect(), y.iter().copied().collect());
            let inter = x.intersection(y).count();
            prop_assert_eq!(intersection_len(&sx, &sy), inter);
            let j = oracle_jaccard(x, y);
            let ct = if x.is_empty() { 1.0 } else { inter as f64 / x.len() as f64 };
            for th in [j, ct, j + 1e-12, (j - 1e-12).max(0.0), ct + 1e-12, 0.8] {
                prop_assert_eq!(jaccard_at_least(&sx, &sy, th), (j >= th).then_some(j));
                prop_assert_eq!(containment_at_least(&sx, &sy, th), (ct >= th).then_some(ct));
            }
        }
    }

    #[test]
    fn vector_measures_match_definitions(
        a in proptest::collection::btree_map(0u64..32, 0.0f64..10.0, 0..20),
        b in proptest::collection::btree_map(0u64..32, 0.0f64..10.0, 0..20),
    ) {
        let (va, vb) = (vector(&a), vector(&b));
        let keys: BTreeSet<u64> = a.keys().chain(b.keys()).copied().collect();
        let get = |m: &BTreeMap<u64, f64>, k: u64| m.get(&k).copied().unwrap_or(0.0);
        let dot: f64 = keys.iter().map(|&k| get(&a, k) * get(&b, k)).sum();
        let na: f64 = a.values().map(|w| w * w).sum::<f64>();
        let nb: f64 = b.values().map(|w| w * w).sum::<f64>();
        let mins: f64 = keys.iter().map(|&k| get(&a, k).min(get(&b, k))).sum();
        let maxs: f64 = keys.iter().map(|&k| get(&a, k).max(get(&b, k))).sum();
        if na > 0.0 && nb > 0.0 {
            prop_assert!((cosine(&va, &vb) - dot / (na.sqrt() * nb.sqrt())).abs() < 1e-9);
            prop_assert!((extended_jaccard(&va, &vb) - dot / (na + nb - dot)).abs() < 1e-9);
        }
        if maxs > 0.0 {
            prop_assert!((weighted_jaccard(&va, &vb) - mins / maxs).abs() < 1e-9);
        }
        prop_assert!((cosine(&va, &vb) - cosine(&vb, &va)).abs() < 1e-12);
        let wj = weighted_jaccard(&va, &vb);
        prop_assert!((0.0..=1.0).contains(&wj));
    }

    #[test]
    fn rolling_kgram_equals_definition(
        tokens in proptest::collection::vec(any::<u64>(), 0..60),
        k in 1usize..8,
    ) {
        let mut roller = KGramRoller::new(k).unwrap();
        let rolled: Vec<u64> = tokens.iter().filter_map(|&t| roller.push(t)).collect();
        let direct: Vec<u64> = if tokens.len() >= k {
            tokens.windows(k).map(kgram_hash).collect()
        } else {
            vec![]
        };
        prop_assert_eq!(rolled.len(), tokens.len().saturating_sub(k - 1));
        prop_assert_eq!(rolled, direct);
        if !tokens.is_empty() && tokens.len() < k {
            prop_assert_eq!(roller.partial(), Some(kgram_hash(&tokens)));
        }
    }
}

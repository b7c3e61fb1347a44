//! Pairwise metrics and the Max-F1 sweep against hand-computed counts and a brute-force
//! oracle.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::{ErrorKind, ScoredPair};
use ndd_eval::{Confusion, Labels, evaluate_pairs, evaluate_predicted_pairs, max_f1, sweep};
use proptest::prelude::*;

/// Six documents in clusters {0,1,2}, {3,4}, {5}.
/// True pairs: 01, 02, 12, 34 (C(3,2) + C(2,2) = 4).
fn six() -> Labels {
    Labels::new(&[0u64, 0, 0, 1, 1, 2])
}

/// Scored pairs, with a duplicate (kept at its max score) and a self-pair (ignored):
///
/// | pair | score | true? |
/// |------|-------|-------|
/// | 01   | 0.95  | yes   |  ((1,0,0.5) is the same pair: ignored, lower score)
/// | 12   | 0.90  | yes   |
/// | 03   | 0.80  | no    |
/// | 34   | 0.70  | yes   |
/// | 45   | 0.60  | no    |
/// | 02   | 0.30  | yes   |
/// | 25   | 0.10  | no    |
/// The tuples as the one pair currency.
fn sp(pairs: &[(usize, usize, f64)]) -> Vec<ScoredPair> {
    pairs.iter().copied().map(ScoredPair::from).collect()
}

fn scored() -> Vec<(usize, usize, f64)> {
    vec![
        (0, 1, 0.95),
        (1, 0, 0.5),
        (2, 1, 0.9),
        (2, 2, 1.0),
        (0, 3, 0.8),
        (3, 4, 0.7),
        (5, 4, 0.6),
        (0, 2, 0.3),
        (2, 5, 0.1),
    ]
}

fn counts(c: Confusion) -> (u64, u64, u64) {
    (c.true_positives, c.false_positives, c.false_negatives)
}

#[test]
fn labels_count_true_pairs() {
    let l = six();
    assert_eq!(l.true_pairs(), 4);
    assert_eq!(l.total_pairs(), 15);
    assert_eq!(l.cluster_sizes(), &[3, 2, 1]);
    let l = Labels::new(&["x", "y", "x", "x"]);
    assert_eq!(l.cluster_ids(), &[0, 1, 0, 0]);
    assert_eq!(l.true_pairs(), 3);
}

#[test]
fn hand_computed_confusion_at_thresholds() {
    let l = six();
    // >= 0.65: 01, 12, 03, 34 predicted -> tp 3 (01 12 34), fp 1 (03), fn 1 (02).
    let c = evaluate_pairs(&sp(&scored()), &l, 0.65).unwrap();
    assert_eq!(counts(c), (3, 1, 1));
    assert_eq!(c.precision(), 0.75);
    assert_eq!(c.recall(), 0.75);
    assert_eq!(c.f1(), 0.75);
    // >= 0: everything (7 distinct pairs): tp 4, fp 3, fn 0.
    let c = evaluate_pairs(&sp(&scored()), &l, 0.0).unwrap();
    assert_eq!(counts(c), (4, 3, 0));
    assert_eq!(c.precision(), 4.0 / 7.0);
    assert_eq!(c.recall(), 1.0);
    // The duplicate keeps its max: at 0.95 the pair 01 is in.
    assert_eq!(
        counts(evaluate_pairs(&sp(&scored()), &l, 0.95).unwrap()),
        (1, 0, 3)
    );
    // The self-pair (2,2,1.0) is ignored: at 0.99 nothing is predicted.
    let c = evaluate_pairs(&sp(&scored()), &l, 0.99).unwrap();
    assert_eq!(counts(c), (0, 0, 4));
    assert_eq!(c.precision(), 1.0); // nothing predicted
    assert_eq!(c.recall(), 0.0);
    assert_eq!(c.f1(), 0.0);
}

#[test]
fn hand_computed_max_f1() {
    // threshold: tp fp fn  P     R     F1
    // 0.95       1  0  3   1     .25   .4
    // 0.90       2  0  2   1     .5    .667
    // 0.80       2  1  2   .667  .5    .571
    // 0.70       3  1  1   .75   .75   .75
    // 0.60       3  2  1   .6    .75   .667
    // 0.30       4  2  0   .667  1     .8    <- best
    // 0.10       4  3  0   .571  1     .727
    let l = six();
    let s = sweep(&sp(&scored()), &l).unwrap();
    let th: Vec<f64> = s.points().iter().map(|p| p.threshold).collect();
    assert_eq!(th, vec![0.95, 0.9, 0.8, 0.7, 0.6, 0.3, 0.1]);
    let f1: Vec<f64> = s.points().iter().map(|p| (p.f1 * 1000.0).round()).collect();
    assert_eq!(f1, vec![400.0, 667.0, 571.0, 750.0, 667.0, 800.0, 727.0]);
    let best = max_f1(&sp(&scored()), &l).unwrap();
    assert_eq!(best, s.best());
    assert_eq!(best.threshold, 0.3);
    assert_eq!(counts(best.confusion), (4, 2, 0));
    assert!((best.precision - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(best.recall, 1.0);
    assert!((best.f1 - 0.8).abs() < 1e-12);
}

#[test]
fn ties_enter_together() {
    let l = Labels::new(&[0, 0, 1, 1]);
    // 01 and 23 true; 02 false; all three tied.
    let s = sweep(&sp(&[(0, 1, 0.5), (0, 2, 0.5), (2, 3, 0.5)]), &l).unwrap();
    assert_eq!(s.points().len(), 1);
    assert_eq!(counts(s.points()[0].confusion), (2, 1, 0));
    // 0.0 and -0.0 are one threshold.
    let s = sweep(&sp(&[(0, 1, 0.0), (2, 3, -0.0)]), &l).unwrap();
    assert_eq!(s.points().len(), 1);
}

#[test]
fn empty_and_degenerate_inputs() {
    let l = six();
    let s = sweep(&sp(&[]), &l).unwrap();
    assert!(s.points().is_empty());
    assert_eq!(s.best().threshold, f64::INFINITY);
    assert_eq!(counts(s.best().confusion), (0, 0, 4));
    assert_eq!(s.best().f1, 0.0);
    // No true pairs at all: predicting nothing is perfect, predicting anything is not.
    let singles = Labels::new(&[1, 2, 3]);
    let best = max_f1(&sp(&[(0, 1, 0.3)]), &singles).unwrap();
    assert_eq!(best.threshold, f64::INFINITY);
    assert_eq!(best.f1, 1.0);
    // Zero documents.
    let none = Labels::new::<u8>(&[]);
    assert_eq!(max_f1(&sp(&[]), &none).unwrap().f1, 1.0);
    // Infinite scores are fine.
    let c = evaluate_pairs(&sp(&[(0, 1, f64::INFINITY)]), &l, f64::INFINITY).unwrap();
    assert_eq!(counts(c), (1, 0, 3));
}

#[test]
fn unscored_pairs() {
    let c = evaluate_predicted_pairs(&[(0, 1), (1, 0), (3, 4), (4, 5), (5, 5)], &six()).unwrap();
    assert_eq!(counts(c), (2, 1, 2));
}

#[test]
fn errors() {
    let l = six();
    let e = evaluate_pairs(&sp(&[(0, 6, 0.5)]), &l, 0.1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let e = sweep(&sp(&[(9, 1, 0.5)]), &l).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let e = max_f1(&sp(&[(0, 1, f64::NAN)]), &l).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let e = evaluate_pairs(&sp(&[(0, 1, 0.5)]), &l, f64::NAN).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidParameter);
    let e = evaluate_predicted_pairs(&[(0, 7)], &l).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    // Even a self-pair must name a real document.
    assert!(evaluate_pairs(&sp(&[(6, 6, 0.5)]), &l, 0.1).is_err());
}

/// The sweep of a candidate stream drawn as the `sweep` bench draws its million pairs
/// (clusters of five, repeats and self-pairs, scores in thousandths), small enough for
/// the brute-force oracle: every point's counts and the best F1 are the oracle's. Its
/// speed is the bench's to measure (`cargo bench -p ndd-eval --bench sweep`).
#[test]
fn clustered_sweep_matches_brute_force() {
    let (labels, pairs) = crate::clustered::clustered_pairs(200, 3_000);
    let small: Vec<u8> = labels.iter().map(|&l| u8::try_from(l).unwrap()).collect();
    let s = sweep(&sp(&pairs), &Labels::new(&labels)).unwrap();
    // One point per distinct score: at most the thousand thousandths.
    assert!(!s.points().is_empty() && s.points().len() <= 1000);
    let mut best_f1 = 0.0f64;
    for p in s.points() {
        let expected = oracle(&small, &pairs, p.threshold);
        assert_eq!(counts(p.confusion), expected, "at {}", p.threshold);
        best_f1 = best_f1.max(oracle_f1(expected));
    }
    assert!(best_f1 > 0.0);
    assert!((s.best().f1 - best_f1).abs() < 1e-12);
}

/// Brute-force oracle: the set of distinct unordered pairs with some score >= t, and
/// all true pairs by O(n^2) enumeration.
fn oracle(labels: &[u8], pairs: &[(usize, usize, f64)], t: f64) -> (u64, u64, u64) {
    let n = labels.len();
    let mut predicted = std::collections::BTreeSet::new();
    for &(a, b, s) in pairs {
        if a != b && s >= t {
            predicted.insert((a.min(b), a.max(b)));
        }
    }
    let mut tp = 0;
    let mut fp = 0;
    for &(a, b) in &predicted {
        if labels[a] == labels[b] {
            tp += 1;
        } else {
            fp += 1;
        }
    }
    let mut truth = 0;
    for a in 0..n {
        for b in a + 1..n {
            if labels[a] == labels[b] {
                truth += 1;
            }
        }
    }
    (tp, fp, truth - tp)
}

fn case() -> impl Strategy<Value = (Vec<u8>, Vec<(usize, usize, f64)>)> {
    prop::collection::vec(0u8..4, 1..12).prop_flat_map(|labels| {
        let n = labels.len();
        let pairs = prop::collection::vec((0..n, 0..n, 0u8..6), 0..40).prop_map(|v| {
            v.into_iter()
                .map(|(a, b, s)| (a, b, f64::from(s) / 5.0))
                .collect()
        });
        (Just(labels), pairs)
    })
}

proptest! {
    #[test]
    fn sweep_matches_brute_force_at_every_threshold((labels, pairs) in case()) {
        let l = Labels::new(&labels);
        let s = sweep(&sp(&pairs), &l).unwrap();
        // Every distinct max score of a distinct non-self pair appears once, descending.
        let mut max_of = std::collections::BTreeMap::new();
        for &(a, b, s) in pairs.iter().filter(|p| p.0 != p.1) {
            let e = max_of.entry((a.min(b), a.max(b))).or_insert(s);
            *e = f64::max(*e, s);
        }
        let mut distinct: Vec<f64> = max_of.into_values().collect();
        distinct.sort_by(|a, b| b.total_cmp(a));
        distinct.dedup();
        let th: Vec<f64> = s.points().iter().map(|p| p.threshold).collect();
        prop_assert_eq!(th, distinct);
        let mut best_f1 = oracle_f1(oracle(&labels, &pairs, f64::INFINITY));
        for p in s.points() {
            let expected = oracle(&labels, &pairs, p.threshold);
            prop_assert_eq!(counts(p.confusion), expected);
            prop_assert_eq!(counts(evaluate_pairs(&sp(&pairs), &l, p.threshold).unwrap()), expected);
            best_f1 = best_f1.max(oracle_f1(expected));
        }
        let best = max_f1(&sp(&pairs), &l).unwrap();
        prop_assert_eq!(best, s.best());
        prop_assert!((best.f1 - best_f1).abs() < 1e-12);
        prop_assert_eq!(counts(best.confusion), oracle(&labels, &pairs, best.threshold));
    }
}

fn oracle_f1((tp, fp, fn_): (u64, u64, u64)) -> f64 {
    Confusion {
        true_positives: tp,
        false_positives: fp,
        false_negatives: fn_,
    }
    .f1()
}

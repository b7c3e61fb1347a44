//! Per-category precision, recall and F1 against an enumeration of every document's
//! predicted and true group.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ErrorKind;
use ndd_eval::{Labels, category_scores};
use proptest::prelude::*;

/// Each category's mean precision, recall and F1, by listing group members.
fn brute_force(truth: &[u8], predicted: &[u8], cats: &[u8]) -> Vec<(u8, usize, f64, f64, f64)> {
    let mut out: Vec<(u8, usize, f64, f64, f64)> = Vec::new();
    for d in 0..truth.len() {
        let p_group: Vec<usize> = (0..truth.len())
            .filter(|&e| predicted[e] == predicted[d])
            .collect();
        let t_group: Vec<usize> = (0..truth.len()).filter(|&e| truth[e] == truth[d]).collect();
        let both = p_group.iter().filter(|e| t_group.contains(e)).count() as f64;
        let (p, r) = (both / p_group.len() as f64, both / t_group.len() as f64);
        let f = 2.0 * p * r / (p + r);
        match out.iter_mut().find(|s| s.0 == cats[d]) {
            Some(s) => {
                s.1 += 1;
                s.2 += p;
                s.3 += r;
                s.4 += f;
            }
            None => out.push((cats[d], 1, p, r, f)),
        }
    }
    for s in &mut out {
        let k = s.1 as f64;
        s.2 /= k;
        s.3 /= k;
        s.4 /= k;
    }
    out
}

#[test]
fn table_two_by_hand() {
    // Truth: letter A = {0, 1, 2, 3}, singleton {4}. Predicted: {0, 1, 2}, {3, 4}.
    let truth = Labels::new(&[0, 0, 0, 0, 1]);
    let predicted = Labels::new(&[0, 0, 0, 1, 1]);
    let cats = ["exact", "exact", "minor-change", "block-added", "singleton"];
    let s = category_scores(&truth, &predicted, &cats).unwrap();
    let names: Vec<_> = s.iter().map(|x| x.category).collect();
    assert_eq!(names, ["exact", "minor-change", "block-added", "singleton"]);
    // Exact copies: precision 3/3, recall 3/4.
    assert_eq!(
        (s[0].documents, s[0].precision, s[0].recall),
        (2, 1.0, 0.75)
    );
    // Block added (3): predicted {3, 4}, one of them right: p = 1/2; recall 1/4.
    assert_eq!((s[2].precision, s[2].recall), (0.5, 0.25));
    assert!((s[2].f1 - 1.0 / 3.0).abs() < 1e-12);
    // The singleton: p = 1/2, r = 1.
    assert_eq!((s[3].precision, s[3].recall), (0.5, 1.0));
}

#[test]
fn lengths_must_agree() {
    let l = Labels::new(&[0, 1]);
    let e = category_scores(&l, &Labels::new(&[0]), &["a", "b"]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LengthMismatch);
    let e = category_scores(&l, &l, &["a"]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LengthMismatch);
    assert!(
        category_scores::<u8>(&Labels::new::<u8>(&[]), &Labels::new::<u8>(&[]), &[])
            .unwrap()
            .is_empty()
    );
}

proptest! {
    #[test]
    fn matches_brute_force(docs in proptest::collection::vec((0u8..5, 0u8..5, 0u8..3), 1..40)) {
        let truth: Vec<u8> = docs.iter().map(|d| d.0).collect();
        let predicted: Vec<u8> = docs.iter().map(|d| d.1).collect();
        let cats: Vec<u8> = docs.iter().map(|d| d.2).collect();
        let got = category_scores(&Labels::new(&truth), &Labels::new(&predicted), &cats).unwrap();
        let want = brute_force(&truth, &predicted, &cats);
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!((g.category, g.documents), (w.0, w.1));
            prop_assert!((g.precision - w.2).abs() < 1e-12 && (g.recall - w.3).abs() < 1e-12 && (g.f1 - w.4).abs() < 1e-12);
        }
    }
}

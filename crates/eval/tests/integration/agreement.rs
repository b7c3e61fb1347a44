//! Clustering pairwise F1 and AC1 against hand-computed values and a brute-force oracle.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::{ErrorKind, UnionFind};
use ndd_eval::{
    Labels, PairAgreement, ac1, cluster_pairwise, group_agreements, macro_ac1, pair_agreement,
};
use proptest::prelude::*;

#[test]
fn ac1_hand_example() {
    // x: {0,1,2}, {3,4}, {5}      same-group pairs: 01 02 12 34        (4)
    // y: {0,1}, {2,3,4}, {5}      same-group pairs: 01 23 24 34        (4)
    // a (both same)      = 01, 34            = 2
    // b (x same, y diff) = 02, 12            = 2
    // c (x diff, y same) = 23, 24            = 2
    // d = C(6,2) - 6 = 15 - 6                = 9
    // p(A) = (a + d) / m = 11/15
    // P = ((a+b) + (a+c)) / 2m = 8/30 = 4/15
    // p(E) = 2 P (1 - P) = 2 * 4/15 * 11/15 = 88/225
    // AC1 = (11/15 - 88/225) / (1 - 88/225) = (77/225) / (137/225) = 77/137
    let x = Labels::new(&[0, 0, 0, 1, 1, 2]);
    let y = Labels::new(&["p", "p", "q", "q", "q", "r"]);
    let agr = pair_agreement(&x, &y).unwrap();
    assert_eq!(
        agr,
        PairAgreement {
            a: 2,
            b: 2,
            c: 2,
            d: 9
        }
    );
    assert!((agr.observed_agreement().unwrap() - 11.0 / 15.0).abs() < 1e-12);
    assert!((agr.chance_agreement().unwrap() - 88.0 / 225.0).abs() < 1e-12);
    assert!((ac1(&x, &y).unwrap() - 77.0 / 137.0).abs() < 1e-12);
    // Symmetric, and 1 for identical clusterings.
    assert!((ac1(&y, &x).unwrap() - 77.0 / 137.0).abs() < 1e-12);
    assert_eq!(ac1(&x, &x).unwrap(), 1.0);
}

#[test]
fn ac1_all_singletons_agree() {
    // Both say "no near-duplicates": p(A) = 1, P = 0, p(E) = 0, AC1 = 1 (kappa would be
    // undefined here: the prevalence problem AC1 fixes).
    let x = Labels::new(&[1, 2, 3, 4]);
    let y = Labels::new(&[5, 6, 7, 8]);
    assert_eq!(ac1(&x, &y).unwrap(), 1.0);
}

#[test]
fn cluster_pairwise_hand_example() {
    // truth {0,1,2},{3,4},{5}; predicted {0,1},{2,3,4},{5}
    // tp = a = 2, fn = b = 2, fp = c = 2  ->  P = R = F1 = 0.5
    let truth = Labels::new(&[0, 0, 0, 1, 1, 2]);
    let pred = Labels::new(&[0, 0, 1, 1, 1, 2]);
    let c = cluster_pairwise(&truth, &pred).unwrap();
    assert_eq!(
        (c.true_positives, c.false_positives, c.false_negatives),
        (2, 2, 2)
    );
    assert_eq!(c.f1(), 0.5);
    // Everything in one predicted cluster: recall 1, precision 4/15.
    let c = cluster_pairwise(&truth, &Labels::new(&[0; 6])).unwrap();
    assert_eq!(c.recall(), 1.0);
    assert!((c.precision() - 4.0 / 15.0).abs() < 1e-12);
}

#[test]
fn from_union_find_groups() {
    let mut uf = UnionFind::new(6);
    uf.union(0, 1);
    uf.union(1, 2);
    uf.union(3, 4);
    let pred = Labels::from_groups(6, &uf.groups()).unwrap();
    let truth = Labels::new(&[0, 0, 0, 1, 1, 2]);
    assert_eq!(cluster_pairwise(&truth, &pred).unwrap().f1(), 1.0);
    // Partial groups: missing documents become singletons.
    let l = Labels::from_groups(4, &[vec![2, 3]]).unwrap();
    assert_eq!(l.num_clusters(), 3);
    assert_eq!(l.true_pairs(), 1);
    assert_eq!(
        Labels::from_groups(3, &[vec![0, 1], vec![1, 2]])
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        Labels::from_groups(3, &[vec![0, 3]]).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn errors() {
    let x = Labels::new(&[0, 0, 1]);
    let y = Labels::new(&[0, 0]);
    assert_eq!(
        cluster_pairwise(&x, &y).unwrap_err().kind(),
        ErrorKind::LengthMismatch
    );
    assert_eq!(
        pair_agreement(&x, &y).unwrap_err().kind(),
        ErrorKind::LengthMismatch
    );
    assert_eq!(ac1(&x, &y).unwrap_err().kind(), ErrorKind::LengthMismatch);
    let one = Labels::new(&[7]);
    assert_eq!(ac1(&one, &one).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(PairAgreement::default().ac1(), None);
    // Pairwise F1 of a single document is fine: nothing to find, nothing claimed.
    assert_eq!(cluster_pairwise(&one, &one).unwrap().f1(), 1.0);
}

fn brute(x: &[u8], y: &[u8]) -> PairAgreement {
    brute_where(x, y, |_, _| true)
}

/// The agreement of `x` and `y` over the pairs `(i, j)`, `i < j`, that `counted`
/// accepts, by enumerating every pair.
fn brute_where(x: &[u8], y: &[u8], counted: impl Fn(usize, usize) -> bool) -> PairAgreement {
    let mut agr = PairAgreement::default();
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            if !counted(i, j) {
                continue;
            }
            match (x[i] == x[j], y[i] == y[j]) {
                (true, true) => agr.a += 1,
                (true, false) => agr.b += 1,
                (false, true) => agr.c += 1,
                (false, false) => agr.d += 1,
            }
        }
    }
    agr
}

/// The two labelings of the generated pairs `xy`, as raw labels and as [`Labels`].
fn labelings(xy: &[(u8, u8)]) -> (Vec<u8>, Vec<u8>, Labels, Labels) {
    let x: Vec<u8> = xy.iter().map(|p| p.0).collect();
    let y: Vec<u8> = xy.iter().map(|p| p.1).collect();
    let (lx, ly) = (Labels::new(&x), Labels::new(&y));
    (x, y, lx, ly)
}

proptest! {
    #[test]
    fn contingency_matches_brute_force(
        xy in prop::collection::vec((0u8..5, 0u8..5), 0..40)
    ) {
        let (x, y, lx, ly) = labelings(&xy);
        let expected = brute(&x, &y);
        prop_assert_eq!(pair_agreement(&lx, &ly).unwrap(), expected);
        let c = cluster_pairwise(&lx, &ly).unwrap();
        prop_assert_eq!((c.true_positives, c.false_positives, c.false_negatives),
            (expected.a, expected.c, expected.b));
        if x.len() >= 2 {
            let v = ac1(&lx, &ly).unwrap();
            prop_assert!(v.is_finite() && v <= 1.0 + 1e-12);
        }
    }
}

/// Per group of `x` (by its first document's label), the pairs that involve the group,
/// counted by enumerating every pair.
fn brute_groups(x: &[u8], y: &[u8]) -> Vec<(u8, PairAgreement)> {
    let labels: std::collections::BTreeSet<u8> = x.iter().copied().collect();
    labels
        .into_iter()
        .map(|g| (g, brute_where(x, y, |i, j| x[i] == g || x[j] == g)))
        .collect()
}

proptest! {
    #[test]
    fn group_agreements_and_macro_ac1_match_brute_force(
        xy in prop::collection::vec((0u8..6, 0u8..6), 2..40)
    ) {
        let (x, y, lx, ly) = labelings(&xy);
        let got = group_agreements(&lx, &ly).unwrap();
        let want = brute_groups(&x, &y);
        prop_assert_eq!(got.len(), want.len());
        for (g, agr) in &want {
            let first = x.iter().position(|v| v == g).unwrap();
            let id = lx.cluster_of(first).unwrap();
            prop_assert_eq!(got[id], *agr);
        }
        let mean = want.iter().filter_map(|(_, a)| a.ac1()).sum::<f64>()
            / want.iter().filter(|(_, a)| a.ac1().is_some()).count() as f64;
        prop_assert!((macro_ac1(&lx, &ly).unwrap() - mean).abs() < 1e-12);
    }
}

#[test]
fn macro_ac1_counts_every_group_once() {
    // Identical clusterings agree perfectly under both averages.
    let x = Labels::new(&[0, 0, 0, 1, 1, 2]);
    assert_eq!(macro_ac1(&x, &x).unwrap(), 1.0);
    assert_eq!(ac1(&x, &x).unwrap(), 1.0);
    // Errors as for the micro average.
    assert_eq!(
        macro_ac1(&x, &Labels::new(&[0])).unwrap_err().kind(),
        ErrorKind::LengthMismatch
    );
    let one = Labels::new(&[3]);
    assert_eq!(
        macro_ac1(&one, &one).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

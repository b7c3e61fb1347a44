//! The measures added for issue 29 (the maximum of word-set Jaccard and LCS-Dice, and
//! LCS-Dice over weighted tokens) against their definitions computed the slow way: a
//! plain O(n·m) dynamic program and sets built with `BTreeSet`.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::BTreeSet;

use ndd_align::{Aligner, Measure, Prepared, TokenOptions, TokenWeights};
use proptest::prelude::*;

fn seq(max: usize, alphabet: u64) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0..alphabet, 0..max)
}

/// The heaviest common subsequence by the textbook dynamic program, in plain f64
/// (exact here: the weights are multiples of 2^-16 and the sums stay far below 2^53).
fn slow_heaviest(a: &[u64], b: &[u64], w: &dyn Fn(u64) -> f64) -> f64 {
    let mut dp = vec![vec![0.0f64; b.len() + 1]; a.len() + 1];
    for i in 0..a.len() {
        for j in 0..b.len() {
            let mut best = dp[i][j + 1].max(dp[i + 1][j]);
            if a[i] == b[j] {
                best = best.max(dp[i][j] + w(a[i]));
            }
            dp[i + 1][j + 1] = best;
        }
    }
    dp[a.len()][b.len()]
}

fn slow_weighted_dice(a: &[u64], b: &[u64], w: &dyn Fn(u64) -> f64) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let total: f64 = a.iter().chain(b).map(|&t| w(t)).sum();
    2.0 * slow_heaviest(a, b, w) / total
}

fn slow_max_jaccard_dice(a: &[u64], b: &[u64]) -> f64 {
    let (sa, sb): (BTreeSet<u64>, BTreeSet<u64>) =
        (a.iter().copied().collect(), b.iter().copied().collect());
    let union = sa.union(&sb).count();
    let jaccard = if union == 0 {
        1.0
    } else {
        sa.intersection(&sb).count() as f64 / union as f64
    };
    let dice = if a.is_empty() && b.is_empty() {
        1.0
    } else {
        2.0 * slow_heaviest(a, b, &|_| 1.0) / (a.len() + b.len()) as f64
    };
    jaccard.max(dice)
}

/// Weights 0.25 .. 4 by token, with a default for tokens not listed.
fn weights(listed: &[(u64, u8)]) -> TokenWeights {
    TokenWeights::new(
        listed.iter().map(|&(t, q)| (t, f64::from(q) / 4.0 + 0.25)),
        0.75,
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn max_jaccard_dice_is_its_definition(
        a in seq(150, 6),
        b in seq(150, 6),
        t in 0.0f64..=1.0,
    ) {
        let want = slow_max_jaccard_dice(&a, &b);
        let mut al = Aligner::new();
        let m = Measure::MaxJaccardDice;
        prop_assert_eq!(m.score(&al.lcs(&a, &b, 0)), want);
        let (pa, pb) = (Prepared::from_hashes(a.clone()), Prepared::from_hashes(b.clone()));
        let kept = Some(want).filter(|&s| s >= t);
        prop_assert_eq!(al.verify(&a, &b, m, t).unwrap(), kept);
        prop_assert_eq!(al.verify_prepared(&pa, &pb, m, t).unwrap(), kept);
    }

    #[test]
    fn weighted_dice_is_the_heaviest_common_subsequence(
        a in seq(120, 7),
        b in seq(120, 7),
        listed in prop::collection::vec((0u64..7, 0u8..16), 0..7),
        t in 0.0f64..=1.0,
    ) {
        let w = weights(&listed);
        let want = slow_weighted_dice(&a, &b, &|x| w.weight(x));
        let mut al = Aligner::new();
        prop_assert_eq!(al.weighted_dice(&a, &b, &w, 0.0).unwrap(), Some(want));
        // The early exit never changes a decision, at any threshold.
        prop_assert_eq!(al.weighted_dice(&a, &b, &w, t).unwrap(), Some(want).filter(|&s| s >= t));
        prop_assert_eq!(al.weighted_dice(&b, &a, &w, t).unwrap(), Some(want).filter(|&s| s >= t));
    }

    #[test]
    fn weighted_dice_on_wide_alphabets(a in seq(200, 200), b in seq(200, 200), t in 0.0f64..=1.0) {
        let docs = [a.clone(), b.clone(), a.iter().rev().copied().collect()];
        let w = TokenWeights::sqrt_document_frequency(&docs);
        let want = slow_weighted_dice(&a, &b, &|x| w.weight(x));
        prop_assert_eq!(Aligner::new().weighted_dice(&a, &b, &w, t).unwrap(), Some(want).filter(|&s| s >= t));
    }

    #[test]
    fn unit_weights_give_lcs_dice(a in seq(150, 5), b in seq(150, 5)) {
        let mut al = Aligner::new();
        let dice = Measure::Dice.score(&al.lcs(&a, &b, 0));
        let ones = TokenWeights::new([], 1.0).unwrap();
        prop_assert_eq!(al.weighted_dice(&a, &b, &ones, 0.0).unwrap(), Some(dice));
    }
}

#[test]
fn sqrt_document_frequency_counts_documents_not_occurrences() {
    let docs: Vec<Vec<u64>> = vec![vec![1, 1, 1, 2], vec![1, 3], vec![1, 3], vec![1, 3]];
    let w = TokenWeights::sqrt_document_frequency(&docs);
    // 1 is in four documents (six times), 3 in three, 2 in one, 9 in none.
    assert_eq!(w.weight(1), 2.0);
    assert_eq!(w.weight(3), (3.0f64.sqrt() * 65536.0).round() / 65536.0);
    assert_eq!((w.weight(2), w.weight(9)), (1.0, 1.0));
    assert_eq!(w.len(), 3);
    let inv = TokenWeights::inverse_sqrt_document_frequency(&docs);
    assert_eq!(inv.weight(1), 0.5);
    assert_eq!(inv.weight(3), (65536.0 / 3.0f64.sqrt()).round() / 65536.0);
    assert_eq!((inv.weight(2), inv.weight(9)), (1.0, 1.0));
    // Under 1/sqrt(df) the rare name outweighs the shared words.
    let (a, b) = (vec![1u64, 3, 2], vec![1u64, 3, 4]);
    let mut al = Aligner::new();
    let shared = al.weighted_dice(&a, &b, &inv, 0.0).unwrap().unwrap();
    let plain = al
        .weighted_dice(&a, &b, &TokenWeights::default(), 0.0)
        .unwrap()
        .unwrap();
    assert!(shared < plain, "{shared} vs {plain}");
    assert_eq!(shared, slow_weighted_dice(&a, &b, &|x| inv.weight(x)));
}

#[test]
fn weighted_dice_on_real_descriptions_down_weighs_what_is_rare() {
    // Two binaries of one source and a sibling source's: the sibling differs in its
    // name only, a word no other document has.
    let o = TokenOptions::default();
    let texts = [
        "GNU C compiler. This is the GNU C compiler, a fairly portable optimizing compiler for C.",
        "GNU C compiler (cross compiler for arm64). This is the GNU C compiler, a fairly portable optimizing compiler for C.",
        "GNU Fortran compiler. This is the GNU Fortran compiler, which compiles Fortran on platforms supported by gcc.",
    ];
    let docs: Vec<Vec<u64>> = texts.iter().map(|t| o.hashes(t)).collect();
    let w = TokenWeights::sqrt_document_frequency(&docs);
    let mut al = Aligner::new();
    let weighted = al
        .weighted_dice(&docs[0], &docs[1], &w, 0.0)
        .unwrap()
        .unwrap();
    let plain = Measure::Dice.score(&al.lcs(&docs[0], &docs[1], 0));
    // The words only the second has ("cross", "arm64", "for") are in one document
    // each and weigh least: the weighted score is higher than the plain one.
    assert!(weighted > plain, "{weighted} vs {plain}");
    let want = slow_weighted_dice(&docs[0], &docs[1], &|x| w.weight(x));
    assert_eq!(weighted, want);
}

#[test]
fn invalid_weights_and_thresholds_are_refused() {
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e9] {
        assert!(TokenWeights::new([(1, bad)], 1.0).is_err(), "{bad}");
        assert!(TokenWeights::new([], bad).is_err(), "{bad}");
        assert!(TokenWeights::from_document_frequency([[1u64]], |_, _| bad).is_err());
    }
    let w = TokenWeights::default();
    let mut al = Aligner::new();
    for t in [-0.1, 1.1, f64::NAN] {
        assert!(al.weighted_dice(&[1], &[1], &w, t).is_err());
    }
    // The default weighs every token 1.
    assert_eq!(
        al.weighted_dice(&[1, 2], &[1, 3], &w, 0.0).unwrap(),
        Some(0.5)
    );
    // Empty sides: 1 for two, 0 for one.
    assert_eq!(al.weighted_dice(&[], &[], &w, 1.0).unwrap(), Some(1.0));
    assert_eq!(al.weighted_dice(&[], &[1], &w, 0.0).unwrap(), Some(0.0));
}

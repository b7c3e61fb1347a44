//! The measures added for issue 29 (the maximum of word-set Jaccard and LCS-Dice, and
//! LCS-Dice over weighted tokens) against their definitions computed the slow way: a
//! plain O(n·m) dynamic program and sets built with `BTreeSet`.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::{BTreeMap, BTreeSet};

use ndd_align::{Aligner, CorpusWeights, Measure, Prepared, TokenOptions, TokenWeights};
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

/// Random texts of words and numbers, the slow way: for each text, its words (split
/// on spaces, lowercased by hand; the words are ASCII letters or digits).
fn words_of(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_lowercase).collect()
}

/// The weights `CorpusWeights` documents, from their definition over word strings:
/// `1/sqrt(df)`, 16 times that for a word of digits alone, rounded to 2^-16.
fn slow_corpus_weights(texts: &[String]) -> BTreeMap<String, f64> {
    let mut df: BTreeMap<String, usize> = BTreeMap::new();
    for t in texts {
        let distinct: BTreeSet<String> = words_of(t).into_iter().collect();
        for w in distinct {
            *df.entry(w).or_default() += 1;
        }
    }
    df.into_iter()
        .map(|(w, n)| {
            let k = if w.bytes().all(|c| c.is_ascii_digit()) {
                16.0
            } else {
                1.0
            };
            let weight = k / (n as f64).sqrt();
            (w, (weight * 65536.0).round() / 65536.0)
        })
        .collect()
}

fn text(max: usize) -> impl Strategy<Value = String> {
    // Few distinct words, so that they repeat across texts; numbers among them.
    let word = prop::sample::select(vec![
        "gnu", "GPL", "version", "the", "Licence", "2", "3", "21", "any", "later", "or", "libfoo3",
    ]);
    prop::collection::vec(word, 0..max).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn corpus_weights_are_their_definition_and_dice_follows(
        texts in prop::collection::vec(text(40), 2..6),
        t in 0.0f64..=1.0,
    ) {
        let o = TokenOptions::default();
        let mut counts = CorpusWeights::new();
        for x in &texts {
            counts.add_document(&o.tokens(x));
        }
        let w = counts.weights();
        let want = slow_corpus_weights(&texts);
        prop_assert_eq!(counts.frequencies().num_docs(), texts.len() as u64);
        prop_assert_eq!(counts.frequencies().len(), want.len());
        for (word, &weight) in &want {
            prop_assert_eq!(w.weight(o.hashes(word)[0]), weight, "{}", word);
        }
        // Counted elsewhere (each document's distinct tokens, summed by token as an
        // out-of-core run merges them), the same weights for every word.
        let mut elsewhere: BTreeMap<u64, (u64, bool)> = BTreeMap::new();
        for x in &texts {
            let distinct = CorpusWeights::document_tokens(&o.tokens(x));
            prop_assert!(distinct.windows(2).all(|p| p[0].0 < p[1].0));
            for (token, number) in distinct {
                let e = elsewhere.entry(token).or_default();
                *e = (e.0 + 1, e.1 | number);
            }
        }
        let from_counts =
            CorpusWeights::weights_from_counts(elsewhere.iter().map(|(&t, &(df, n))| (t, df, n)));
        prop_assert_eq!(from_counts.len(), want.len());
        for (word, &weight) in &want {
            prop_assert_eq!(from_counts.weight(o.hashes(word)[0]), weight, "{}", word);
        }
        // Weighted LCS Dice of the first two texts by the textbook dynamic program
        // over the word strings, with the same weights.
        let (a, b) = (words_of(&texts[0]), words_of(&texts[1]));
        let heaviest = {
            let mut dp = vec![vec![0.0f64; b.len() + 1]; a.len() + 1];
            for i in 0..a.len() {
                for j in 0..b.len() {
                    let mut best = dp[i][j + 1].max(dp[i + 1][j]);
                    if a[i] == b[j] {
                        best = best.max(dp[i][j] + want[&a[i]]);
                    }
                    dp[i + 1][j + 1] = best;
                }
            }
            dp[a.len()][b.len()]
        };
        let total: f64 = a.iter().chain(&b).map(|x| want[x]).sum();
        let dice = if a.is_empty() && b.is_empty() { 1.0 } else { 2.0 * heaviest / total };
        let (ha, hb) = (o.hashes(&texts[0]), o.hashes(&texts[1]));
        let got = Aligner::new().weighted_dice(&ha, &hb, &w, t).unwrap();
        prop_assert_eq!(got, Some(dice).filter(|&s| s >= t));
    }
}

#[test]
fn corpus_weights_tell_a_license_version_from_a_preamble() {
    // Two copies of one license, one with a pointer added, and the next version: by
    // word count the version is the closer text; weighted, the copy is.
    let o = TokenOptions::default();
    let gpl = |version: u32| {
        format!(
            "This program is free software; you can redistribute it under the terms of the GNU General Public License version {version} or any later version."
        )
    };
    let texts = [
        gpl(2),
        gpl(2) + " On Debian systems see /usr/share/common-licenses/GPL.",
        gpl(3),
    ];
    let mut counts = CorpusWeights::new();
    for t in &texts {
        counts.add_document(&o.tokens(t));
    }
    let w = counts.weights();
    let docs: Vec<Vec<u64>> = texts.iter().map(|t| o.hashes(t)).collect();
    let mut al = Aligner::new();
    let plain = |al: &mut Aligner, i: usize| Measure::Dice.score(&al.lcs(&docs[0], &docs[i], 0));
    assert!(plain(&mut al, 2) > plain(&mut al, 1));
    let weighted = |al: &mut Aligner, i: usize| {
        al.weighted_dice(&docs[0], &docs[i], &w, 0.0)
            .unwrap()
            .unwrap()
    };
    assert!(weighted(&mut al, 1) > 0.8, "{}", weighted(&mut al, 1));
    assert!(weighted(&mut al, 2) < 0.6, "{}", weighted(&mut al, 2));
}

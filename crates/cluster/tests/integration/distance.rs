//! DURIAN's distance against a direct implementation of Yang and Callan's equations
//! 1 and 5–8 (dense vectors over the vocabulary, words as strings), and reference
//! copies against a brute-force choice.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::{BTreeMap, BTreeSet};

use ndd_cluster::{Background, KlDivergence, ReferenceCopy, reference_copies};
use ndd_shingle::WordShingler;
use proptest::prelude::*;

/// Equations 1, 5, 6, 7 and 8 written out over the vocabulary of `collection`.
fn kl_direct(collection: &[Vec<&str>], a: &[&str], b: &[&str], mu: f64) -> f64 {
    let mut c_counts: BTreeMap<&str, f64> = BTreeMap::new();
    for d in collection {
        for w in d {
            *c_counts.entry(w).or_default() += 1.0;
        }
    }
    let c_total: f64 = c_counts.values().sum();
    let p_c = |w: &str| c_counts.get(w).copied().unwrap_or(0.0) / c_total; // (7)
    let tf = |d: &[&str], w: &str| d.iter().filter(|x| **x == w).count() as f64;
    let vocab: BTreeSet<&str> = collection.iter().flatten().copied().collect();
    let mut kl = 0.0;
    for w in vocab {
        let p_a = tf(a, w) / a.len() as f64; // (8)
        if p_a == 0.0 {
            continue; // 0 · log 0 = 0
        }
        let p_b = (tf(b, w) + mu * p_c(w)) / (mu + b.len() as f64); // (5), (6) for unseen
        kl += p_a * (p_a / p_b).ln(); // (1)
    }
    kl
}

fn words(n: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..12, 1..n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn divergence_and_distance_follow_the_equations(
        docs in prop::collection::vec(words(30), 2..6),
        mu in prop_oneof![Just(1.0), 0.01f64..100.0],
    ) {
        let vocab = ["mine", "river", "stop", "the", "now", "please", "we", "oppose",
                     "fish", "water", "law", "rule"];
        let texts: Vec<Vec<&str>> = docs.iter().map(|d| d.iter().map(|&i| vocab[i]).collect()).collect();
        let shingler = WordShingler::new(1).unwrap();
        let counts: Vec<_> = texts.iter().map(|t| shingler.counts(&t.join(" "))).collect();
        let background = Background::from_documents(&counts);
        let kl = KlDivergence::new(&background, mu).unwrap();
        for i in 0..texts.len() {
            for j in 0..texts.len() {
                let want = kl_direct(&texts, &texts[i], &texts[j], mu);
                let got = kl.divergence(&counts[i], &counts[j]);
                prop_assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{} vs {}", got, want);
                prop_assert!(got >= -1e-12, "Gibbs: KL >= 0");
                let d = kl.distance(&counts[i], &counts[j]);
                prop_assert!((d - want.min(kl_direct(&texts, &texts[j], &texts[i], mu))).abs() < 1e-9);
                prop_assert_eq!(d, kl.distance(&counts[j], &counts[i]));
            }
        }
    }

    #[test]
    fn reference_copies_are_the_earliest_of_large_groups(
        sizes in prop::collection::vec(1usize..12, 0..8),
        m in 0usize..8,
        seed in any::<u64>(),
    ) {
        let mut groups = Vec::new();
        let mut next = 0;
        for s in sizes {
            groups.push((next..next + s).rev().collect::<Vec<usize>>());
            next += s;
        }
        // A timestamp per document with ties.
        let time = |d: usize| (d as u64).wrapping_mul(seed | 1) % 5;
        let got = reference_copies(&groups, m, time);
        let want: Vec<ReferenceCopy> = groups
            .iter()
            .filter(|g| g.len() > m)
            .map(|g| {
                let mut best = g[0];
                for &d in g {
                    if (time(d), d) < (time(best), best) {
                        best = d;
                    }
                }
                ReferenceCopy { document: best, copies: g.len() }
            })
            .collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn smoothing_and_edges() {
    let w = WordShingler::new(1).unwrap();
    let (a, b, e) = (w.counts("a b c d"), w.counts("a b c d"), w.counts(" , "));
    let bg = Background::from_documents([&a, &b]);
    // A larger prior pulls both toward the same background: the distance shrinks.
    let kl_ab = KlDivergence::new(&bg, 1.0).unwrap();
    let abcx = w.counts("a b c x");
    let bg2 = Background::from_documents([&a, &w.counts("a b c x")]);
    let d1 = KlDivergence::new(&bg2, 1.0)
        .unwrap()
        .distance(&a, &w.counts("a b c x"));
    let d100 = KlDivergence::new(&bg2, 100.0)
        .unwrap()
        .distance(&a, &w.counts("a b c x"));
    assert!(d100 < d1, "{d100} < {d1}");
    // "x" is in neither `a` nor this background: that direction is infinite, the
    // other is not, and the distance takes the smaller.
    assert!(kl_ab.divergence(&abcx, &a).is_infinite());
    assert!(kl_ab.distance(&a, &abcx).is_finite());
    // Identical documents: at 0 when the background is their own distribution
    // (smoothing toward it changes nothing), close but above 0 against a wider one.
    assert_eq!(kl_ab.distance(&a, &b), 0.0);
    let wider = Background::from_documents([&a, &b, &w.counts("e f")]);
    let same = KlDivergence::new(&wider, 1.0).unwrap().distance(&a, &b);
    assert!(same > 0.0 && same < 0.1, "{same}");
    // Empty documents: defined results, no NaN.
    let kl = KlDivergence::new(&bg, 1.0).unwrap();
    assert_eq!(kl.distance(&e, &e), 0.0);
    assert_eq!(kl.distance(&a, &e), f64::INFINITY);
    assert_eq!(kl.divergence(&e, &a), 0.0);
    // Bad priors are refused.
    for mu in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(KlDivergence::new(&bg, mu).is_err(), "{mu}");
    }
}

#![allow(clippy::unwrap_used)]
//! `LshEnsemble` against brute force on real text (the bundled Debian corpus): recall
//! at the containment threshold against the recall the banding predicts, exact
//! verification, incremental use equal to a rebuild, the byte form.

use crate::common::{self, kind};

use ndd_core::{ErrorKind, FeatureSet, containment, jaccard};
use ndd_lsh::{EnsembleParams, LshEnsemble};
use ndd_minhash::MinHashSignature;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn build(
    params: EnsembleParams,
    sets: &[FeatureSet],
    sigs: &[MinHashSignature],
) -> LshEnsemble<usize> {
    let mut e = LshEnsemble::new(params);
    for (i, (set, sig)) in sets.iter().zip(sigs).enumerate() {
        if !set.is_empty() {
            e.insert(i, sig, set.len() as u64).unwrap();
        }
    }
    e
}

#[test]
fn recall_at_the_threshold_matches_the_banding_on_real_text() {
    // Distinct texts only: a group of byte-identical copies (up to 14 in this corpus)
    // would make its pairs' outcomes one outcome, and the binomial error below assumes
    // independent pairs.
    let mut texts = common::texts();
    let mut seen = std::collections::HashSet::new();
    texts.retain(|t| seen.insert(t.clone()));
    let (sets, oph) = common::sketch(&texts);
    let classic = common::sketch_classic(&texts);
    // (signatures, threshold, weights): the recall must reach the banding's
    // prediction `mean 1 − (1 − J^r)^b` over the true pairs, less 4 (cluster-robust)
    // standard errors, for classic MinHash (independent slots, the model of the
    // S-curve) and for the default one-permutation hashing. Measured: classic 0.916
    // (predicted 0.932) at 0.5, 0.665 (0.644) at 0.8, 0.988 (0.995) at 0.8 with the
    // false negatives weighted 0.9; one-permutation 0.931 (0.932) at 0.5, 0.546
    // (0.644, within 4 SE = 0.12) at 0.8.
    for (name, sigs, t, weights) in [
        ("classic", &classic, 0.5, (0.5, 0.5)),
        ("classic", &classic, 0.8, (0.5, 0.5)),
        ("classic", &classic, 0.8, (0.1, 0.9)),
        ("oph", &oph, 0.5, (0.5, 0.5)),
        ("oph", &oph, 0.8, (0.5, 0.5)),
    ] {
        let params = EnsembleParams::new(t, 128)
            .unwrap()
            .with_weights(weights.0, weights.1)
            .unwrap();
        let e = build(params, &sets, sigs);
        let (recall, predicted, se, candidates) = measure(&e, &sets, sigs, t);
        eprintln!(
            "{name} t = {t} weights {weights:?}: recall {recall:.4} (banding predicts {predicted:.4}, 4 SE {:.4}); {candidates} candidates",
            4.0 * se
        );
        let bound = predicted - 4.0 * se;
        assert!(recall >= bound, "{name} t = {t}: {recall} < {bound}");
    }
}

/// Recall over the true pairs (query q contained in x to at least t, q ≠ x), the
/// recall the banding predicts (each pair's 1 − (1 − J^r)^b for its exact Jaccard J
/// and its class's (b, r)), the standard error of the difference, and the candidate
/// count. The pairs of one query share its signature (and near-duplicate documents
/// share theirs), so their outcomes are correlated: the error is the cluster-robust
/// one, `√Σ_q (found_q − expected_q)²` over queries, not the binomial one, which
/// assumes independent pairs and is too small by a factor of about 2 here.
fn measure(
    e: &LshEnsemble<usize>,
    sets: &[FeatureSet],
    sigs: &[MinHashSignature],
    t: f64,
) -> (f64, f64, f64, usize) {
    let n = sets.len();
    let (mut pairs, mut found, mut expected, mut variance, mut candidates) =
        (0usize, 0usize, 0.0, 0.0, 0usize);
    let mut binomial = 0.0;
    for q in 0..n {
        if sets[q].is_empty() {
            continue;
        }
        let qsize = sets[q].len() as u64;
        let got = e.query(&sigs[q], qsize).unwrap();
        candidates += got.len();
        let verified = e
            .query_verified(&sigs[q], qsize, |&x| {
                containment(sets[q].as_slice(), sets[x].as_slice())
            })
            .unwrap();
        // Verified answers are exact: each reaches t, sorted by containment, and they
        // are exactly the candidates that reach it.
        assert!(verified.iter().all(|(x, c)| *c >= t && *c == containment(sets[q].as_slice(), sets[*x].as_slice())));
        assert!(verified.windows(2).all(|w| w[0].1 >= w[1].1));
        let reaching = got
            .iter()
            .filter(|&&x| containment(sets[q].as_slice(), sets[x].as_slice()) >= t)
            .count();
        assert_eq!(verified.len(), reaching);
        let (mut found_q, mut expected_q) = (0.0, 0.0);
        for x in 0..n {
            if x == q || sets[x].is_empty() {
                continue;
            }
            if containment(sets[q].as_slice(), sets[x].as_slice()) >= t {
                pairs += 1;
                let hit = got.contains(&x);
                found += usize::from(hit);
                found_q += f64::from(u8::from(hit));
                let p = class_choice(e, sets, x, qsize)
                    .probability(jaccard(sets[q].as_slice(), sets[x].as_slice()));
                expected += p;
                expected_q += p;
                binomial += p * (1.0 - p);
            }
        }
        variance += (found_q - expected_q) * (found_q - expected_q);
    }
    eprintln!(
        "  binomial SE {:.4}, cluster-robust SE {:.4}",
        binomial.sqrt() / pairs as f64,
        variance.sqrt() / pairs as f64
    );
    assert!(pairs > 100);
    (
        found as f64 / pairs as f64,
        expected / pairs as f64,
        variance.sqrt() / pairs as f64,
        candidates,
    )
}

/// The bands and rows the ensemble uses for a query of `qsize` in the class of `x`.
fn class_choice(
    e: &LshEnsemble<usize>,
    sets: &[FeatureSet],
    x: usize,
    qsize: u64,
) -> ndd_lsh::LshParams {
    // The class's largest member: the largest indexed size in x's class.
    let per = e.params().classes_per_doubling();
    let class = |s: u64| {
        let ex = 63 - s.leading_zeros();
        if per == 1 {
            ex
        } else {
            2 * ex + u32::from(u128::from(s) * u128::from(s) >= 1u128 << (2 * ex + 1))
        }
    };
    let cx = class(sets[x].len() as u64);
    let largest = sets
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.len() as u64)
        .filter(|&s| class(s) == cx)
        .max()
        .unwrap();
    e.bands_rows(qsize, largest).unwrap()
}

fn all_answers(
    e: &LshEnsemble<usize>,
    sets: &[FeatureSet],
    sigs: &[MinHashSignature],
) -> Vec<Vec<usize>> {
    sets.iter()
        .zip(sigs)
        .filter(|(s, _)| !s.is_empty())
        .map(|(s, sig)| e.query(sig, s.len() as u64).unwrap())
        .collect()
}

#[test]
fn incremental_use_equals_a_rebuild() {
    let (sets, sigs) = common::sketched_corpus();
    let params = EnsembleParams::new(0.6, 128).unwrap();
    let once = build(params, &sets, &sigs);
    let want = all_answers(&once, &sets, &sigs);

    let mut rng = ChaCha8Rng::seed_from_u64(0x00e5_e3b1);
    let mut e = LshEnsemble::new(params);
    let mut i = 0;
    while i < sets.len() {
        let end = (i + rng.random_range(1..90)).min(sets.len());
        for d in i..end {
            if !sets[d].is_empty() {
                e.insert(d, &sigs[d], sets[d].len() as u64).unwrap();
            }
        }
        let q = rng.random_range(0..sets.len());
        let _ = e.query(&sigs[q], sets[q].len().max(1) as u64).unwrap();
        i = end;
    }
    assert_eq!(all_answers(&e, &sets, &sigs), want);

    for d in (0..sets.len()).filter(|d| d % 4 == 1) {
        e.remove(&d);
    }
    let mut never = LshEnsemble::new(params);
    for d in (0..sets.len()).filter(|d| d % 4 != 1 && !sets[*d].is_empty()) {
        never.insert(d, &sigs[d], sets[d].len() as u64).unwrap();
    }
    assert_eq!(
        all_answers(&e, &sets, &sigs),
        all_answers(&never, &sets, &sigs)
    );
    assert_eq!(e.partitions(), never.partitions());
    assert_eq!(e.to_bytes(), never.to_bytes());
    let loaded = LshEnsemble::<usize>::from_bytes(&e.to_bytes()).unwrap();
    assert_eq!(
        all_answers(&loaded, &sets, &sigs),
        all_answers(&never, &sets, &sigs)
    );
}

#[test]
fn corrupt_bytes_are_refused_without_panic() {
    let texts = common::texts();
    let (sets, sigs) = common::sketch(&texts[..30]);
    let e = build(EnsembleParams::new(0.7, 32).unwrap(), &sets, &sigs);
    let bytes = e.to_bytes();
    common::truncations_and_bit_flips_are_refused(
        &bytes,
        LshEnsemble::<usize>::from_bytes,
        5,
        1000,
    );
    // A forged count with a valid checksum is refused before allocating.
    let mut w = ndd_core::codec::ByteWriter::new(*b"LSHE", 1);
    w.f64(0.5);
    w.u64(4);
    w.u64(4);
    w.u8(2);
    w.f64(0.5);
    w.f64(0.5);
    let forged = common::forged_count(w, u64::MAX / 4);
    assert!(LshEnsemble::<usize>::from_bytes(&forged).is_err());
    let other = common::foreign_signature();
    assert_eq!(kind(e.query(&other, 10)), ErrorKind::Incompatible);
}

#[test]
fn candidates_follow_the_definition_under_inserts_and_removals() {
    // By brute force: x is a candidate for (q, size) when, with (b, r) the choice for
    // the largest size in x's class, x agrees with q on every slot of one of the first
    // b bands of r slots.
    let (_, sigs) = common::sketched_corpus();
    let rows = common::slot_rows(&sigs);
    let class = |s: u64| {
        let e = 63 - s.leading_zeros();
        2 * e + u32::from(u128::from(s) * u128::from(s) >= 1u128 << (2 * e + 1))
    };
    let mut rng = ChaCha8Rng::seed_from_u64(0x00c0_47a1);
    let params = EnsembleParams::new(0.7, 128).unwrap();
    let mut e = LshEnsemble::new(params);
    let mut live: Vec<(usize, u64)> = Vec::new();
    let mut total = 0;
    for step in 0..1200 {
        let d = rng.random_range(0..rows.len());
        // Sizes of our choosing (the definition does not care where they come from).
        let size = rng.random_range(1..5000u64);
        if live.iter().any(|(k, _)| *k == d) && rng.random_bool(0.4) {
            assert!(e.remove(&d));
            live.retain(|(k, _)| *k != d);
        } else {
            e.insert(d, &sigs[d], size).unwrap();
            live.retain(|(k, _)| *k != d);
            live.push((d, size));
        }
        if step % 20 == 0 {
            let q = rng.random_range(0..rows.len());
            let qsize = rng.random_range(1..3000u64);
            let mut got = e.query(&sigs[q], qsize).unwrap();
            got.sort_unstable();
            let mut want: Vec<usize> = live
                .iter()
                .filter(|&&(x, size)| {
                    let largest = live
                        .iter()
                        .filter(|(_, s)| class(*s) == class(size))
                        .map(|(_, s)| *s)
                        .max()
                        .unwrap();
                    e.bands_rows(qsize, largest).is_some_and(|lp| {
                        let r = lp.rows();
                        (0..lp.bands())
                            .any(|i| rows[x][i * r..(i + 1) * r] == rows[q][i * r..(i + 1) * r])
                    })
                })
                .map(|&(x, _)| x)
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "step {step}");
            total += got.len();
        }
    }
    assert!(
        total > 20,
        "{total} candidates in all: the test would prove little"
    );
}

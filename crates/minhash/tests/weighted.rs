#![allow(clippy::unwrap_used)]
//! Weighted MinHash: ICWS and bucketization against the exact weighted Jaccard
//! coefficient (`ndd_core::weighted_jaccard`, the oracle), statistically (bias within 3
//! standard errors, spread matching `sqrt(J(1 − J)/k)`), plus consistency, reduction
//! to set Jaccard, errors, the Sketcher state API and stability pins.

use ndd_core::{
    ErrorKind, FeatureSet, FeatureSink, SchemeId, Signature, Sketcher, SparseVector, Weighted,
    jaccard, weighted_jaccard,
};
use ndd_minhash::{BucketizedMinHasher, EMPTY, IcwsMinHasher, MinHashScheme, MinHashSignature};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn vector(entries: &[(u64, f64)]) -> SparseVector {
    SparseVector::from_unsorted(
        entries
            .iter()
            .map(|&(f, w)| Weighted::new(f, w).unwrap())
            .collect(),
    )
}

/// A pair of weighted vectors with a weighted Jaccard coefficient somewhere in
/// `0.1..=0.95`: `b` keeps a random share of `a`'s features with perturbed weights and
/// adds features of its own.
fn random_pair(rng: &mut ChaCha8Rng) -> (SparseVector, SparseVector) {
    loop {
        let n = rng.random_range(20..80);
        let keep = rng.random_range(0.4..1.0);
        let sigma = rng.random_range(0.0..1.2);
        let extra = rng.random_range(0.0..0.4);
        let mut a = Vec::new();
        let mut b = Vec::new();
        for _ in 0..n {
            let f: u64 = rng.random();
            let w = 0.1 + 4.9 * rng.random::<f64>().powi(2);
            a.push(Weighted::new(f, w).unwrap());
            if rng.random::<f64>() < keep {
                let z: f64 = rng.random_range(-1.0..1.0);
                b.push(Weighted::new(f, w * (sigma * z).exp()).unwrap());
            }
            if rng.random::<f64>() < extra {
                let w = 0.1 + 4.9 * rng.random::<f64>().powi(2);
                b.push(Weighted::new(rng.random(), w).unwrap());
            }
        }
        let (a, b) = (
            SparseVector::from_unsorted(a),
            SparseVector::from_unsorted(b),
        );
        let j = weighted_jaccard(&a, &b);
        if (0.1..=0.95).contains(&j) {
            return (a, b);
        }
    }
}

/// Bias and spread of estimates against the truth.
struct Stats {
    n: usize,
    mean_error: f64,
    se_of_mean: f64,
    rms_ratio: f64,
    min_j: f64,
    max_j: f64,
}

impl Stats {
    fn new(k: usize, pairs: &[(f64, f64)]) -> Self {
        let n = pairs.len() as f64;
        let kf = k as f64;
        let mean_error = pairs.iter().map(|(est, j)| est - j).sum::<f64>() / n;
        let mean_var = pairs.iter().map(|(_, j)| j * (1.0 - j) / kf).sum::<f64>() / n;
        let mse = pairs.iter().map(|(est, j)| (est - j).powi(2)).sum::<f64>() / n;
        Stats {
            n: pairs.len(),
            mean_error,
            se_of_mean: (mean_var / n).sqrt(),
            rms_ratio: (mse / mean_var).sqrt(),
            min_j: pairs.iter().map(|p| p.1).fold(f64::INFINITY, f64::min),
            max_j: pairs.iter().map(|p| p.1).fold(0.0, f64::max),
        }
    }

    fn check(&self, what: &str) {
        println!(
            "{what}: n = {}, J in [{:.2}, {:.2}], mean error {:+.5} ({:+.2} SE), RMS observed/predicted {:.3}",
            self.n,
            self.min_j,
            self.max_j,
            self.mean_error,
            self.mean_error / self.se_of_mean,
            self.rms_ratio
        );
        assert!(
            self.mean_error.abs() < 3.0 * self.se_of_mean,
            "{what}: bias {} exceeds 3 SE = {}",
            self.mean_error,
            3.0 * self.se_of_mean
        );
        assert!(
            (0.8..=1.2).contains(&self.rms_ratio),
            "{what}: RMS ratio {}",
            self.rms_ratio
        );
        assert!(
            self.min_j < 0.3 && self.max_j > 0.8,
            "{what}: J range too narrow"
        );
    }
}

// ---------------------------------------------------------------------------------------
// ICWS: statistics.
// ---------------------------------------------------------------------------------------

#[test]
fn icws_is_unbiased_with_binomial_spread_for_weighted_jaccard() {
    let k = 128;
    let h = IcwsMinHasher::new(k, 2024).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut results = Vec::new();
    let mut scaled = Vec::new();
    for _ in 0..400 {
        let (a, b) = random_pair(&mut rng);
        let j = weighted_jaccard(&a, &b);
        let est = h
            .sketch_weighted(&a)
            .similarity(&h.sketch_weighted(&b))
            .unwrap();
        results.push((est.value(), j));
        // The same pair with every weight multiplied by 1000: J is unchanged, and so
        // must be the estimator's distribution.
        let times = |v: &SparseVector| {
            SparseVector::from_unsorted(
                v.entries()
                    .iter()
                    .map(|w| Weighted::new(w.feature, w.weight * 1000.0).unwrap())
                    .collect(),
            )
        };
        let (a2, b2) = (times(&a), times(&b));
        let j2 = weighted_jaccard(&a2, &b2);
        assert!((j2 - j).abs() < 1e-9);
        let est2 = h
            .sketch_weighted(&a2)
            .similarity(&h.sketch_weighted(&b2))
            .unwrap();
        scaled.push((est2.value(), j2));
    }
    Stats::new(k, &results).check("ICWS k=128");
    Stats::new(k, &scaled).check("ICWS k=128, weights × 1000");
}

#[test]
fn icws_reduces_to_set_jaccard_on_binary_weights() {
    let k = 256;
    let h = IcwsMinHasher::new(k, 5).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut results = Vec::new();
    let mut constant = Vec::new();
    for _ in 0..200 {
        let union = rng.random_range(30..200);
        let common = rng.random_range(union / 10..union * 19 / 20);
        let features: Vec<u64> = (0..union).map(|_| rng.random()).collect();
        let split = common + (union - common) / 2;
        let a = FeatureSet::from_unsorted(features[..split].to_vec());
        let b = FeatureSet::from_unsorted(features[split - common..].to_vec());
        let j = jaccard(a.as_slice(), b.as_slice());
        let (va, vb) = (SparseVector::binary(&a), SparseVector::binary(&b));
        assert_eq!(weighted_jaccard(&va, &vb), j);
        let est = h
            .sketch_weighted(&va)
            .similarity(&h.sketch_weighted(&vb))
            .unwrap();
        results.push((est.value(), j));
        // Any constant weight gives the same coefficient.
        let c = |s: &FeatureSet| {
            SparseVector::from_unsorted(
                s.as_slice()
                    .iter()
                    .map(|&f| Weighted::new(f, 3.7).unwrap())
                    .collect(),
            )
        };
        let est = h
            .sketch_weighted(&c(&a))
            .similarity(&h.sketch_weighted(&c(&b)))
            .unwrap();
        constant.push((est.value(), j));
    }
    Stats::new(k, &results).check("ICWS k=256 on sets");
    Stats::new(k, &constant).check("ICWS k=256 on sets, weight 3.7");
}

#[test]
fn icws_sees_weights_not_just_supports() {
    // a and 2a have the same support but weighted Jaccard 1/2; a and 0.25a, 1/4.
    let k = 256;
    let h = IcwsMinHasher::new(k, 8).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for factor in [2.0, 0.25] {
        let truth: f64 = if factor > 1.0 { 1.0 / factor } else { factor };
        let mut results = Vec::new();
        for _ in 0..100 {
            let (a, _) = random_pair(&mut rng);
            let a2 = SparseVector::from_unsorted(
                a.entries()
                    .iter()
                    .map(|w| Weighted::new(w.feature, w.weight * factor).unwrap())
                    .collect(),
            );
            assert!((weighted_jaccard(&a, &a2) - truth).abs() < 1e-12);
            let est = h
                .sketch_weighted(&a)
                .similarity(&h.sketch_weighted(&a2))
                .unwrap();
            results.push((est.value(), truth));
        }
        let s = Stats::new(k, &results);
        println!("ICWS a vs {factor}·a: mean error {:+.4}", s.mean_error);
        assert!(s.mean_error.abs() < 3.0 * s.se_of_mean);
    }
}

// ---------------------------------------------------------------------------------------
// ICWS: consistency, API and errors.
// ---------------------------------------------------------------------------------------

#[test]
fn icws_is_consistent_and_deterministic() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let h = IcwsMinHasher::new(64, 99).unwrap();
    for _ in 0..20 {
        let (a, _) = random_pair(&mut rng);
        let s1 = h.sketch_weighted(&a);
        // A clone of the hasher, a rebuilt hasher, and the same vector: identical.
        assert_eq!(s1, h.clone().sketch_weighted(&a));
        assert_eq!(s1, IcwsMinHasher::new(64, 99).unwrap().sketch_weighted(&a));
        assert_eq!(s1.matches(&h.sketch_weighted(&a)).unwrap(), 64);
        assert!(!s1.is_empty_document());
        assert!(s1.values().iter().all(|&v| v != EMPTY));
        // Entries in another order, with a weight split in two: the same vector.
        let mut entries: Vec<Weighted> = a.entries().to_vec();
        entries.reverse();
        let first = entries[0];
        entries[0].weight /= 2.0;
        entries.push(Weighted::new(first.feature, first.weight / 2.0).unwrap());
        let from_entries = h.sketch_entries(&entries).unwrap();
        assert_eq!(from_entries, s1);
    }
    // Another seed draws other samples.
    let (a, _) = random_pair(&mut rng);
    let other = IcwsMinHasher::new(64, 100).unwrap();
    assert_ne!(
        other.sketch_weighted(&a).values(),
        h.sketch_weighted(&a).values()
    );
    assert!(
        other
            .sketch_weighted(&a)
            .similarity(&h.sketch_weighted(&a))
            .is_err()
    );
}

#[test]
fn icws_sample_is_stable_under_small_weight_changes() {
    // Consistency in Ioffe's sense: a change of one weight that crosses no threshold
    // keeps the sample. A 1e-9 relative change moves almost no slot.
    let h = IcwsMinHasher::new(256, 3).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let (a, _) = random_pair(&mut rng);
    let nudged = SparseVector::from_unsorted(
        a.entries()
            .iter()
            .map(|w| Weighted::new(w.feature, w.weight * (1.0 + 1e-9)).unwrap())
            .collect(),
    );
    let m = h
        .sketch_weighted(&a)
        .matches(&h.sketch_weighted(&nudged))
        .unwrap();
    assert!(m >= 254, "{m} of 256 slots kept");
}

#[test]
fn icws_empty_and_zero_vectors() {
    let h = IcwsMinHasher::new(32, 0).unwrap();
    let empty = h.sketch_weighted(&SparseVector::default());
    assert!(empty.is_empty_document());
    assert!(empty.values().iter().all(|&v| v == EMPTY));
    let zeros = vector(&[(1, 0.0), (2, 0.0)]);
    assert_eq!(h.sketch_weighted(&zeros), empty);
    assert_eq!(h.sketch_entries(&[]).unwrap(), empty);
    // Negative weights count as zero in a SparseVector, like weighted_jaccard.
    let negative = vector(&[(1, -2.0)]);
    assert_eq!(h.sketch_weighted(&negative), empty);
    let one = h.sketch_weighted(&vector(&[(1, 1.0)]));
    assert_eq!(empty.similarity(&empty).unwrap().value(), 1.0);
    assert_eq!(empty.similarity(&one).unwrap().value(), 0.0);
    // Zero-weight entries change nothing.
    assert_eq!(h.sketch_weighted(&vector(&[(1, 1.0), (2, 0.0)])), one);
    // Extreme but finite weights are fine.
    let extreme = h.sketch_weighted(&vector(&[
        (1, f64::MAX),
        (2, f64::MIN_POSITIVE),
        (3, 5e-324),
    ]));
    assert!(extreme.values().iter().all(|&v| v != EMPTY));
}

#[test]
fn icws_rejects_bad_weights() {
    let h = IcwsMinHasher::new(16, 0).unwrap();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, -1e-300] {
        let entries = [
            Weighted::new(1, 1.0).unwrap(),
            Weighted {
                feature: 2,
                weight: bad,
            },
        ];
        let err = h.sketch_entries(&entries).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{bad}");
        assert!(err.to_string().contains("index 1"), "{err}");
    }
    // A SparseVector holding a non-finite weight (only possible by writing the fields)
    // skips it instead of panicking.
    let sneaky = SparseVector::from_unsorted(vec![
        Weighted {
            feature: 1,
            weight: f64::NAN,
        },
        Weighted::new(2, 1.0).unwrap(),
    ]);
    assert_eq!(
        h.sketch_weighted(&sneaky),
        h.sketch_weighted(&vector(&[(2, 1.0)]))
    );
    for k in [0, (1 << 24) + 1] {
        assert_eq!(
            IcwsMinHasher::new(k, 0).unwrap_err().kind(),
            ErrorKind::InvalidParameter
        );
    }
}

#[test]
fn icws_scheme_folds_parameters() {
    let base = IcwsMinHasher::new(64, 1).unwrap();
    let feats = SchemeId::new("tfidf-words").finish();
    assert_ne!(base.scheme(), IcwsMinHasher::new(65, 1).unwrap().scheme());
    assert_ne!(base.scheme(), IcwsMinHasher::new(64, 2).unwrap().scheme());
    let named = base.clone().with_feature_scheme(feats);
    assert_ne!(base.scheme(), named.scheme());
    assert_eq!(named.feature_scheme(), feats);
    let v = vector(&[(1, 1.0)]);
    // Same values (the feature scheme is a label), different scheme: refuse to compare.
    assert_eq!(
        base.sketch_weighted(&v).values(),
        named.sketch_weighted(&v).values()
    );
    let err = base
        .sketch_weighted(&v)
        .similarity(&named.sketch_weighted(&v))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Incompatible);
    // Not the scheme of set MinHash either.
    let set = ndd_minhash::MinHasher::builder()
        .num_hashes(64)
        .seed(1)
        .build_for_features(feats)
        .unwrap();
    assert_ne!(set.scheme(), named.scheme());
}

#[test]
fn icws_sketcher_state_sums_pushes() {
    let h = IcwsMinHasher::new(64, 4).unwrap();
    let mut state = h.new_state();
    let mut sig = h.new_signature();
    // A multiset of shingles becomes its TF vector; push order does not matter.
    for f in [5u64, 9, 5, 5, 9, 12] {
        state.push(f);
    }
    state.push_weighted(12, 0.5);
    state.push_weighted(13, f64::NAN); // ignored
    h.finish_into(&mut state, &mut sig);
    let tf = vector(&[(5, 3.0), (9, 2.0), (12, 1.5)]);
    assert_eq!(sig, h.sketch_weighted(&tf));
    // The state was reset and is reusable.
    for f in [12u64, 9, 5, 9, 5, 5] {
        state.push(f);
    }
    state.push_weighted(12, 0.5);
    let mut again = h.new_signature();
    h.finish_into(&mut state, &mut again);
    assert_eq!(again, sig);
    h.finish_into(&mut state, &mut again);
    assert!(again.is_empty_document());
    // Features whose weights cancel are skipped; sketch_features counts repeats.
    state.push_weighted(1, 1.0);
    state.push_weighted(1, -1.0);
    state.push(2);
    h.finish_into(&mut state, &mut again);
    assert_eq!(again, h.sketch_weighted(&vector(&[(2, 1.0)])));
    assert_eq!(
        h.sketch_features([7, 7, 8]),
        h.sketch_weighted(&vector(&[(7, 2.0), (8, 1.0)]))
    );
    // sketch_weighted_into overwrites whatever was there.
    let mut out = h.sketch_weighted(&tf);
    h.sketch_weighted_into(&vector(&[(2, 1.0)]), &mut out);
    assert_eq!(out, h.sketch_weighted(&vector(&[(2, 1.0)])));
}

#[test]
fn icws_signatures_round_trip_through_bytes() {
    let h = IcwsMinHasher::new(128, 6).unwrap();
    let sig = h.sketch_weighted(&vector(&[(1, 0.5), (2, 7.25)]));
    assert_eq!(MinHashSignature::from_bytes(&sig.to_bytes()).unwrap(), sig);
}

/// Stability pins, not correctness: these values were recorded after the statistical
/// tests above passed, so that an accidental change of the value-defining algorithm
/// (uniform draws, key derivation, slot-value hash) is caught. Change them only with
/// a version bump of the ICWS scheme.
#[test]
fn icws_stability_pins() {
    let h = IcwsMinHasher::new(8, 42).unwrap();
    let sig = h.sketch_weighted(&vector(&[
        (1, 1.0),
        (2, 2.5),
        (3, 0.25),
        (0xdead_beef, 10.0),
    ]));
    let pinned: [u64; 4] = PINNED_ICWS;
    assert_eq!(&sig.values()[..4], &pinned, "{:#018x?}", sig.values());
    assert_eq!(
        h.scheme().as_u64(),
        PINNED_ICWS_SCHEME,
        "{:#018x}",
        h.scheme().as_u64()
    );
}

const PINNED_ICWS: [u64; 4] = [
    0xdb7f_1dca_2478_632f,
    0xb1de_99e1_1c4a_3c12,
    0x7986_480f_9ea8_056f,
    0x2322_1442_052b_ac34,
];
const PINNED_ICWS_SCHEME: u64 = 0xc7ae_c289_c2f7_54ae;

// ---------------------------------------------------------------------------------------
// Bucketization.
// ---------------------------------------------------------------------------------------

#[test]
fn bucketized_is_unbiased_for_the_scaled_integer_jaccard() {
    let k = 128;
    let h = BucketizedMinHasher::new(k, 77, 100.0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut vs_scaled = Vec::new();
    let mut vs_real = Vec::new();
    let mut max_rounding = 0.0f64;
    for _ in 0..400 {
        let (a, b) = random_pair(&mut rng);
        let j_real = weighted_jaccard(&a, &b);
        let j_int = weighted_jaccard(&h.quantize(&a).unwrap(), &h.quantize(&b).unwrap());
        max_rounding = max_rounding.max((j_int - j_real).abs());
        let est = h
            .sketch_weighted(&a)
            .unwrap()
            .similarity(&h.sketch_weighted(&b).unwrap())
            .unwrap();
        vs_scaled.push((est.value(), j_int));
        vs_real.push((est.value(), j_real));
    }
    println!("bucketized scale 100: largest |J_int − J_real| = {max_rounding:.4}");
    assert!(max_rounding < 0.01);
    Stats::new(k, &vs_scaled).check("bucketized k=128 vs scaled-integer J");
    Stats::new(k, &vs_real).check("bucketized k=128 vs real J");
}

#[test]
fn bucketized_expansion_is_the_unary_code() {
    // The expanded set of a vector has Σ n_f elements, so two vectors over one feature
    // with n_a = 30, n_b = 20 have Jaccard 20/30, estimated without bias.
    let k = 256;
    let mut results = Vec::new();
    for seed in 0..100 {
        let h = BucketizedMinHasher::new(k, seed, 100.0).unwrap();
        let a = h.sketch_weighted(&vector(&[(9, 0.3), (10, 0.1)])).unwrap();
        let b = h.sketch_weighted(&vector(&[(9, 0.2), (10, 0.1)])).unwrap();
        results.push((a.similarity(&b).unwrap().value(), 30.0 / 40.0));
    }
    let s = Stats::new(k, &results);
    println!(
        "bucketized single pair, 100 seeds: mean error {:+.4}",
        s.mean_error
    );
    assert!(s.mean_error.abs() < 3.0 * s.se_of_mean);
}

#[test]
fn bucketized_binary_weights_reduce_to_set_jaccard() {
    let h = BucketizedMinHasher::new(128, 3, 1.0).unwrap();
    let set = ndd_minhash::MinHasher::builder()
        .num_hashes(128)
        .seed(3)
        .build_for_features(SchemeId::new("x").finish())
        .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let mut results = Vec::new();
    for _ in 0..100 {
        let feats: Vec<u64> = (0..100).map(|_| rng.random()).collect();
        let a = FeatureSet::from_unsorted(feats[..70].to_vec());
        let b = FeatureSet::from_unsorted(feats[30..].to_vec());
        let j = jaccard(a.as_slice(), b.as_slice());
        let est = h
            .sketch_weighted(&SparseVector::binary(&a))
            .unwrap()
            .similarity(&h.sketch_weighted(&SparseVector::binary(&b)).unwrap())
            .unwrap();
        results.push((est.value(), j));
    }
    let s = Stats::new(128, &results);
    assert!(s.mean_error.abs() < 3.0 * s.se_of_mean, "{}", s.mean_error);
    // Scale 1 and weight 1: one sub-feature per feature, yet not the set hasher's
    // values (the sub-feature is a hash of (f, 1)) nor its scheme.
    let a = SparseVector::binary(&FeatureSet::from_unsorted(vec![1, 2, 3]));
    assert_ne!(h.sketch_weighted(&a).unwrap().scheme(), set.scheme());
}

#[test]
fn bucketized_consistency_schemes_and_classic() {
    let v = vector(&[(1, 0.5), (2, 1.25)]);
    let oph = BucketizedMinHasher::new(64, 1, 20.0).unwrap();
    let classic = BucketizedMinHasher::new(64, 1, 20.0)
        .unwrap()
        .with_minhash_scheme(MinHashScheme::Classic)
        .unwrap();
    let s1 = oph.sketch_weighted(&v).unwrap();
    assert_eq!(s1, oph.sketch_weighted(&v).unwrap());
    assert_eq!(s1.matches(&s1).unwrap(), 64);
    let c1 = classic.sketch_weighted(&v).unwrap();
    assert_eq!(c1, classic.sketch_weighted(&v).unwrap());
    assert!(s1.similarity(&c1).is_err());
    // The scale is part of the scheme; so is the feature scheme.
    let finer = BucketizedMinHasher::new(64, 1, 21.0).unwrap();
    assert!(s1.similarity(&finer.sketch_weighted(&v).unwrap()).is_err());
    let named = BucketizedMinHasher::new(64, 1, 20.0)
        .unwrap()
        .with_feature_scheme(SchemeId::new("tf").finish())
        .unwrap();
    assert!(s1.similarity(&named.sketch_weighted(&v).unwrap()).is_err());
    // The cap does not change values.
    let capped = BucketizedMinHasher::new(64, 1, 20.0)
        .unwrap()
        .with_max_expansion(1000)
        .unwrap();
    assert_eq!(capped.sketch_weighted(&v).unwrap(), s1);
    // Entry form sums repeats; into/with forms agree.
    let e = oph
        .sketch_entries(&[
            Weighted::new(2, 1.0).unwrap(),
            Weighted::new(1, 0.5).unwrap(),
            Weighted::new(2, 0.25).unwrap(),
        ])
        .unwrap();
    assert_eq!(e, s1);
    let mut state = oph.minhash().new_state();
    let mut out = oph.minhash().new_signature();
    oph.sketch_weighted_with(&mut state, &v, &mut out).unwrap();
    assert_eq!(out, s1);
}

#[test]
fn bucketized_errors_and_empty_inputs() {
    for scale in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = BucketizedMinHasher::new(16, 0, scale).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidParameter, "{scale}");
    }
    assert!(BucketizedMinHasher::new(0, 0, 1.0).is_err());
    let h = BucketizedMinHasher::new(16, 0, 100.0).unwrap();
    assert!(h.clone().with_max_expansion(0).is_err());
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        let entries = [Weighted {
            feature: 1,
            weight: bad,
        }];
        assert_eq!(
            h.sketch_entries(&entries).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
    // NaN inside a SparseVector is refused by the fallible API.
    let sneaky = SparseVector::from_unsorted(vec![Weighted {
        feature: 1,
        weight: f64::NAN,
    }]);
    assert_eq!(
        h.sketch_weighted(&sneaky).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert!(h.quantize(&sneaky).is_err());
    // Too many sub-features: refused up front, not after minutes of hashing.
    let huge = vector(&[(1, 1e300)]); // 1e302 sub-features
    let err = h.sketch_weighted(&huge).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("IcwsMinHasher"), "{err}");
    let overflow = vector(&[(1, f64::MAX)]); // scale · weight = ∞
    assert!(h.sketch_weighted(&overflow).is_err());
    let capped = h.clone().with_max_expansion(100).unwrap();
    assert!(
        capped
            .sketch_weighted(&vector(&[(1, 0.5), (2, 0.5)]))
            .is_ok()
    ); // exactly 100
    assert!(
        capped
            .sketch_weighted(&vector(&[(1, 0.5), (2, 0.51)]))
            .is_err()
    );
    // On error, a reused output and state are left untouched and usable.
    let mut state = capped.minhash().new_state();
    let mut out = capped.sketch_weighted(&vector(&[(3, 0.1)])).unwrap();
    let before = out.clone();
    assert!(
        capped
            .sketch_weighted_with(&mut state, &vector(&[(1, 5.0)]), &mut out)
            .is_err()
    );
    assert_eq!(out, before);
    capped
        .sketch_weighted_with(&mut state, &vector(&[(3, 0.1)]), &mut out)
        .unwrap();
    assert_eq!(out, before);
    // Empty, all-zero, negative and rounding-to-zero vectors are the empty document.
    for v in [
        SparseVector::default(),
        vector(&[(1, 0.0)]),
        vector(&[(1, -3.0)]),
        vector(&[(1, 0.004)]),
    ] {
        let sig = h.sketch_weighted(&v).unwrap();
        assert!(sig.is_empty_document(), "{v:?}");
    }
    let q = h
        .quantize(&vector(&[(1, 0.004), (2, 0.016), (3, -1.0)]))
        .unwrap();
    assert_eq!(q, vector(&[(2, 2.0)]));
}

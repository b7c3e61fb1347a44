#![allow(clippy::unwrap_used)]
//! Weighted MinHash: ICWS and bucketization against the exact weighted Jaccard
//! coefficient (`ndd_core::weighted_jaccard`, the oracle), statistically (bias within 3
//! standard errors, spread matching `sqrt(J(1 − J)/k)`), plus consistency, reduction
//! to set Jaccard, errors, the Sketcher state API, and golden vectors from the
//! independent Python specification (`minhash_spec.py`).

use ndd_core::hash::mix64;
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

/// `v` with every weight multiplied by `factor`.
fn scaled(v: &SparseVector, factor: f64) -> SparseVector {
    SparseVector::from_unsorted(
        v.entries()
            .iter()
            .map(|w| Weighted::new(w.feature, w.weight * factor).unwrap())
            .collect(),
    )
}

/// The ICWS estimate of the weighted Jaccard coefficient of `a` and `b` under `h`.
fn estimate(h: &IcwsMinHasher, a: &SparseVector, b: &SparseVector) -> f64 {
    h.sketch_weighted(a)
        .similarity(&h.sketch_weighted(b))
        .unwrap()
        .value()
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
        crate::common::assert_unbiased(what, self.mean_error, self.se_of_mean);
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
    let mut times_1000 = Vec::new();
    for _ in 0..400 {
        let (a, b) = random_pair(&mut rng);
        let j = weighted_jaccard(&a, &b);
        results.push((estimate(&h, &a, &b), j));
        // The same pair with every weight multiplied by 1000: J is unchanged, and so
        // must be the estimator's distribution.
        let (a2, b2) = (scaled(&a, 1000.0), scaled(&b, 1000.0));
        let j2 = weighted_jaccard(&a2, &b2);
        assert!((j2 - j).abs() < 1e-9);
        times_1000.push((estimate(&h, &a2, &b2), j2));
    }
    Stats::new(k, &results).check("ICWS k=128");
    Stats::new(k, &times_1000).check("ICWS k=128, weights × 1000");
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
        results.push((estimate(&h, &va, &vb), j));
        // Any constant weight gives the same coefficient.
        constant.push((estimate(&h, &scaled(&va, 3.7), &scaled(&vb, 3.7)), j));
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
            let a2 = scaled(&a, factor);
            assert!((weighted_jaccard(&a, &a2) - truth).abs() < 1e-12);
            results.push((estimate(&h, &a, &a2), truth));
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
    let nudged = scaled(&a, 1.0 + 1e-9);
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

/// The scheme id is a stability pin, recorded from this crate (it hashes the tag with
/// XXH3, which the Python spec does not reimplement); the signature values are pinned
/// by the golden vectors below. Version 1 of the scheme (values from `f64::ln`) had
/// `0xc7ae_c289_c2f7_54ae`; signatures of that version must not compare with these.
#[test]
fn icws_scheme_pin() {
    let h = IcwsMinHasher::new(8, 42).unwrap();
    let id = h.scheme().as_u64();
    assert_ne!(
        id, 0xc7ae_c289_c2f7_54ae,
        "the version bump must change the scheme"
    );
    assert_eq!(id, PINNED_ICWS_SCHEME, "{id:#018x}");
}

const PINNED_ICWS_SCHEME: u64 = 0xc6b7_645c_87d0_dd16;

// ---------------------------------------------------------------------------------------
// Golden vectors from crates/minhash/tests/minhash_spec.py, an independent Python
// implementation of docs/decisions.md ("Weighted MinHash values"), not printed from Rust.
// A change here is a value-breaking change (bump the scheme's version).
// ---------------------------------------------------------------------------------------

/// The spec's V1: ordinary weights, weight 1.0, a small one, a feature above 2^63.
fn v1() -> SparseVector {
    vector(&[
        (1, 1.0),
        (2, 2.5),
        (3, 0.25),
        (0xdead_beef, 10.0),
        ((1 << 63) + 5, 0.001),
    ])
}

#[test]
fn icws_golden_vectors_from_the_python_specification() {
    let sketch =
        |k, seed, v: &SparseVector| IcwsMinHasher::new(k, seed).unwrap().sketch_weighted(v);
    let want: [u64; 16] = [
        0xdb7f1dca2478632f,
        0xb1de99e11c4a3c12,
        0x7986480f9ea8056f,
        0x23221442052bac34,
        0x1f95318e7826284d,
        0xb1de99e11c4a3c12,
        0x806b68f02cf2748f,
        0x85a69b709f41843a,
        0x91824d1bbd57ab01,
        0x23221442052bac34,
        0x23221442052bac34,
        0xc8727a3ac569b7de,
        0x23221442052bac34,
        0x85a69b709f41843a,
        0x23221442052bac34,
        0x85a69b709f41843a,
    ];
    assert_eq!(sketch(16, 42, &v1()).values(), &want);
    let want: [u64; 16] = [
        0x894519584282f20a,
        0xf38e50eb24bab8de,
        0x894519584282f20a,
        0xe49328c78108f78,
        0x54ce04d7d425d3bb,
        0x894519584282f20a,
        0x894519584282f20a,
        0x894519584282f20a,
        0xbd6b9c5ebc8a9e76,
        0xf93b7e478bec8c66,
        0xe49328c78108f78,
        0x894519584282f20a,
        0xe49328c78108f78,
        0xf38e50eb24bab8de,
        0xe49328c78108f78,
        0xe49328c78108f78,
    ];
    assert_eq!(sketch(16, 7, &v1()).values(), &want);
    // One feature: every slot holds it, with a t that depends on ln S (weight 1 gives
    // t = floor(β) = 0 in every slot). Huge, tiny, smallest normal and subnormal weights.
    let singles: [(f64, [u64; 8]); 7] = [
        (
            1.0,
            [
                0xc3361a43111109dc,
                0xc3361a43111109dc,
                0xc3361a43111109dc,
                0xc3361a43111109dc,
                0xc3361a43111109dc,
                0xc3361a43111109dc,
                0xc3361a43111109dc,
                0xc3361a43111109dc,
            ],
        ),
        (
            1e300,
            [
                0x364eeb645a65c680,
                0xd7942e08c2c9b5a5,
                0xcb5f190f151a578,
                0x4a83ba7b64c59c20,
                0x37c6fd7b9ffc1cef,
                0xf81b2775cb6641c4,
                0xbab495a56989b7fb,
                0xad55ac765e71e32f,
            ],
        ),
        (
            f64::MAX,
            [
                0xebc98d7b360618aa,
                0xc8b3154569472a17,
                0x8a117210b6db98df,
                0x6031b76b033d829c,
                0xfac9592fa090da0e,
                0xeb23e7665519c610,
                0xd893ee9d31930a4b,
                0x5670342b9cb26980,
            ],
        ),
        (
            1e-300,
            [
                0xd76a5d58c0dabccf,
                0x70fb025dbecc0776,
                0xd29053aed9135fd,
                0x5eeb8161ce5272bd,
                0x8922d6868b3b0d3b,
                0xe70dbc2bec031eb2,
                0xd7a87bb46cd150d2,
                0xd8a6b5e56d146aa0,
            ],
        ),
        (
            f64::MIN_POSITIVE,
            [
                0xa4e51155140ead4a,
                0xd715ef4011ed90da,
                0x1f75a299b5dcd340,
                0x7a3293a3c65e6b8b,
                0x145a3d84a5fca63d,
                0xcf2859fab2f88633,
                0xe432c26a46e50aa4,
                0xba72a9ad6efb7576,
            ],
        ),
        (
            3e-310,
            [
                0x3cabe96648da39d5,
                0xbfb7d530a070023e,
                0x764ef66771163737,
                0x90b67d59ec70db3b,
                0x7fc67d106e10833d,
                0xb44766488c3fa728,
                0x3ec781654153c7af,
                0x1536f52701d103d6,
            ],
        ),
        (
            5e-324,
            [
                0x6539634334eebe65,
                0xdc474dcdf5aae151,
                0xd75d097e1b2de86b,
                0xad865976847f25f3,
                0x9ed3c5da7a544e5f,
                0x6877a1c10daedb6c,
                0x8071539138970a68,
                0x588e5a392d2694f0,
            ],
        ),
    ];
    for (w, want) in singles {
        assert_eq!(
            sketch(8, 1, &vector(&[(5, w)])).values(),
            &want,
            "weight {w:e}"
        );
    }
    // Near a floor boundary: in slot 1, ln S / r + β lies within a few ulps of 3, and
    // stable_ln (t = 2) and a correctly rounded ln (t = 3) disagree; `f64::ln` here
    // would fail this vector on glibc.
    let want: [u64; 8] = [
        0xc69dee0cc00d4375,
        0xf3cd5643cb00c024,
        0xc69dee0cc00d4375,
        0xf3cd5643cb00c024,
        0xc69dee0cc00d4375,
        0xc69dee0cc00d4375,
        0xf3cd5643cb00c024,
        0xf3cd5643cb00c024,
    ];
    assert_eq!(
        sketch(8, 1, &vector(&[(5, 5.82711136650451)])).values(),
        &want
    );
    // 64 features with weights 0.001 ..= 100 drawn from a counter, as the spec does.
    let v2: Vec<(u64, f64)> = (0..64u64)
        .map(|i| (mix64(i), (mix64(i + 1000) % 100_000 + 1) as f64 / 1000.0))
        .collect();
    let got = sketch(16, 3, &vector(&v2));
    let want: [u64; 16] = [
        0xb364260dcb706938,
        0x8ae1a1fc90f692ca,
        0xbc29facb124513be,
        0x117eca4ed9a387f8,
        0x2735134d9da3ac97,
        0x29bb6a14a7a28b81,
        0xc023e9391ec83259,
        0x43f2c839dae9b777,
        0x8ae1a1fc90f692ca,
        0xcb5e7c648e7bad69,
        0xb364260dcb706938,
        0x5757ad62b79d1433,
        0x991f8ada4854ea7b,
        0x83cc4e74f807409d,
        0xb18780ca40683178,
        0x3f3a7013791c134c,
    ];
    assert_eq!(got.values(), &want);
    assert_eq!(
        got.values().iter().fold(0u64, |a, &x| a.wrapping_add(x)),
        0xcf9f77f823a7e71a
    );
    // Tiny, subnormal, ordinary and huge weights together.
    let v3 = vector(&[
        (10, 1e-300),
        (11, 5e-324),
        (12, 1.0),
        (13, 1e300),
        (14, 3.5e300),
    ]);
    let want: [u64; 8] = [
        0x1e8110933016421a,
        0x8afdead5a7cfed07,
        0xfb5129433d26096f,
        0xfdb837e35abc12c0,
        0x9b227b1cc4878002,
        0xba8a944e169ebd85,
        0x7792ff4e94897a77,
        0x83493a0300201d91,
    ];
    assert_eq!(sketch(8, 0, &v3).values(), &want);
}

#[test]
#[allow(deprecated)] // pins the values of the old `with_minhash_scheme` route too
fn bucketized_golden_vectors_from_the_python_specification() {
    // 0.26 → round(2.6) = 3 copies, 1.0 → 10, 0.04 → round(0.4) = 0 (dropped),
    // 2.35 → 2.35 · 10 = 23.5 exactly in binary64 → 24 (half away from zero).
    let b1 = vector(&[(1, 0.26), (2, 1.0), (3, 0.04), (0xdead_beef, 2.35)]);
    let oph = BucketizedMinHasher::new(16, 42, 10.0).unwrap();
    let want: [u64; 16] = [
        0x3e30a170ababa8c,
        0x16f3ccc6059b0bda,
        0x21cc4692bc5e2d5e,
        0x35ad82a521755160,
        0x413156011174698a,
        0x52d646778289af90,
        0x64cec4e733e386a2,
        0x71237a4e14a43c99,
        0x81b7a5096ea14c69,
        0x9c548b8d91d3b144,
        0xad2b9576e00933b8,
        0xb05d6bb2da14e8f5,
        0xd235d30be42dbc24,
        0xd235d30be42dbc24,
        0xe139bfccfc91a685,
        0xf0e3901033a95ed2,
    ];
    assert_eq!(oph.sketch_weighted(&b1).unwrap().values(), &want);
    let classic = BucketizedMinHasher::new(8, 42, 10.0)
        .unwrap()
        .with_minhash_scheme(MinHashScheme::Classic)
        .unwrap();
    let want: [u64; 8] = [
        0xf0d289289f3e7b,
        0x4a63adcda75377,
        0x7da76197ae9e55,
        0x1a2bbfc883bcfd7,
        0x265899a3bd3458,
        0xb3684806bfe243,
        0x19a86b3e564f38,
        0x171a062875399ce,
    ];
    assert_eq!(classic.sketch_weighted(&b1).unwrap().values(), &want);
    let counts = BucketizedMinHasher::new(8, 5, 1.0).unwrap();
    let want: [u64; 8] = [
        0x4ff037598b4db90c,
        0x2fc54187f63c1040,
        0x4ff037598b4db90c,
        0x4ff037598b4db90c,
        0x2fc54187f63c1040,
        0xf8afa013d321dfa1,
        0xf8afa013d321dfa1,
        0xf8afa013d321dfa1,
    ];
    assert_eq!(
        counts
            .sketch_weighted(&vector(&[(7, 3.0), (8, 1.0)]))
            .unwrap()
            .values(),
        &want
    );
}

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
    let classic = BucketizedMinHasher::builder()
        .num_hashes(64)
        .seed(1)
        .scale(20.0)
        .minhash_scheme(MinHashScheme::Classic)
        .build()
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
    let named = BucketizedMinHasher::builder()
        .num_hashes(64)
        .seed(1)
        .scale(20.0)
        .feature_scheme(SchemeId::new("tf").finish())
        .build()
        .unwrap();
    assert!(s1.similarity(&named.sketch_weighted(&v).unwrap()).is_err());
    // The cap does not change values.
    let capped = BucketizedMinHasher::builder()
        .num_hashes(64)
        .seed(1)
        .scale(20.0)
        .max_expansion(1000)
        .build()
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
    let zero_cap = BucketizedMinHasher::builder().max_expansion(0).build();
    assert_eq!(zero_cap.unwrap_err().kind(), ErrorKind::InvalidParameter);
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
    let capped = BucketizedMinHasher::builder()
        .num_hashes(16)
        .scale(100.0)
        .max_expansion(100)
        .build()
        .unwrap();
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

/// The builder, `new` and the deprecated `with_*` route configure the same hasher:
/// same scheme, same values, same cap.
#[test]
#[allow(deprecated)]
fn bucketized_builder_new_and_old_setters_agree() {
    let v = vector(&[(1, 0.5), (2, 1.25), (7, 3.0)]);
    let tf = SchemeId::new("tf").finish();
    for which in [MinHashScheme::OnePermutation, MinHashScheme::Classic] {
        let built = BucketizedMinHasher::builder()
            .num_hashes(32)
            .seed(5)
            .scale(20.0)
            .minhash_scheme(which)
            .feature_scheme(tf)
            .max_expansion(200)
            .build()
            .unwrap();
        let old = BucketizedMinHasher::new(32, 5, 20.0)
            .unwrap()
            .with_minhash_scheme(which)
            .unwrap()
            .with_feature_scheme(tf)
            .unwrap()
            .with_max_expansion(200)
            .unwrap();
        assert_eq!(built.minhash().scheme(), old.minhash().scheme());
        assert_eq!(
            built.sketch_weighted(&v).unwrap(),
            old.sketch_weighted(&v).unwrap()
        );
        assert_eq!(
            (built.seed(), built.minhash_scheme(), built.max_expansion()),
            (old.seed(), old.minhash_scheme(), old.max_expansion())
        );
        assert_eq!(built.feature_scheme(), tf);
    }
    // Defaults: 128 slots, seed 0, scale 100, one-permutation hashing, cap 2^26.
    let d = BucketizedMinHasher::builder().build().unwrap();
    let n = BucketizedMinHasher::new(128, 0, 100.0).unwrap();
    assert_eq!(d.minhash().scheme(), n.minhash().scheme());
    assert_eq!(d.max_expansion(), 1 << 26);
    assert!(
        BucketizedMinHasher::new(16, 0, 1.0)
            .unwrap()
            .with_max_expansion(0)
            .is_err()
    );
}

/// The ICWS builder and the `new` + `with_feature_scheme` shortcuts configure the same
/// hasher; `build` validates as `new` does.
#[test]
fn icws_builder_and_shortcuts_agree() {
    let v = vector(&[(1, 0.5), (2, 1.25), (7, 3.0)]);
    let tf = SchemeId::new("tf").finish();
    let built = IcwsMinHasher::builder()
        .num_hashes(48)
        .seed(11)
        .feature_scheme(tf)
        .build()
        .unwrap();
    let short = IcwsMinHasher::new(48, 11).unwrap().with_feature_scheme(tf);
    assert_eq!(built.scheme(), short.scheme());
    assert_eq!(built.sketch_weighted(&v), short.sketch_weighted(&v));
    let d = IcwsMinHasher::builder().build().unwrap();
    assert_eq!(d.scheme(), IcwsMinHasher::new(128, 0).unwrap().scheme());
    for k in [0, (1 << 24) + 1] {
        let err = IcwsMinHasher::builder().num_hashes(k).build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidParameter);
    }
}

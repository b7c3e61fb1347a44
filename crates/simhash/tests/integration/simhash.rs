//! ndd-simhash against independent oracles: golden vectors from `simhash_spec.py` (an
//! independent Python implementation of the value specification), the one-bit
//! collision probability `1 − θ/π` at known angles (Charikar 2002; paper 000 §3.2),
//! the weighted sums computed the slow way, brute-force Hamming distances, and the
//! error cases.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // tests: small values, loud failures

use ndd_core::hash::mix64;
use ndd_core::stats::DocumentFrequencies;
use ndd_core::{
    BitSignature, DocSketcher, ErrorKind, FeatureExtractor, FeatureSink, SchemeId, Signature,
    Sketcher, Weighted,
};
use ndd_shingle::WordShingler;
use ndd_simhash::{FnWeights, Projection, SimHashSignature, SimHasher, Weighting};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TEXT1: &str = "The quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun by the old mill";
const TEXT2: &str =
    "Random hyperplanes estimate the angle between two feature vectors and a few bits are enough";
const TEXT3: &str = "to be or not to be that is the question to be or not to be";

/// Word 5-gram shingles (the golden vectors' features; `SimHasher::new` gave them in
/// 0.1.0) with the other settings given.
fn hasher(bits: usize, seed: u64, projection: Projection, weighting: Weighting) -> SimHasher {
    SimHasher::builder()
        .bits(bits)
        .seed(seed)
        .projection(projection)
        .weighting(weighting)
        .build_with(WordShingler::new(5).unwrap())
        .unwrap()
}

fn features_hasher(
    bits: usize,
    seed: u64,
    projection: Projection,
) -> SimHasher<ndd_core::ExternalFeatures> {
    SimHasher::builder()
        .bits(bits)
        .seed(seed)
        .projection(projection)
        .build_for_features(SchemeId::new("test-ids").finish())
        .unwrap()
}

fn w(feature: u64, weight: f64) -> Weighted {
    Weighted { feature, weight }
}

// ---------------------------------------------------------------------------------
// Golden vectors: printed by `python3 crates/simhash/tests/simhash_spec.py`.

#[test]
fn golden_vectors_match_the_independent_python_spec() {
    use Projection::{Gaussian, Sign};
    use Weighting::{Binary, TermFrequency as Tf};
    // Bits, seed, values, weighting: the spec's six configurations, in the order of
    // each text's expected words below.
    let configs: [(usize, u64, Projection, Weighting); 6] = [
        (64, 0, Sign, Tf),
        (64, 0, Sign, Binary),
        (128, 7, Sign, Tf),
        (100, 3, Sign, Tf),
        (64, 0, Gaussian, Binary),
        (130, 5, Gaussian, Tf),
    ];
    let cases: [(&str, [&[u64]; 6]); 3] = [
        (
            TEXT1,
            [
                &[0x239d0ca4c33eae91],
                &[0x239d0ca4c33eae91],
                &[0x07de05ce5c4cc1ac, 0x636012732c11d43e],
                &[0x526105ff116636da, 0x0000000e4581aec8],
                &[0x4ee0db2703f56f52],
                &[0xc2598912e58f344f, 0x0234b24b0398ec44, 0x0000000000000000],
            ],
        ),
        (
            TEXT2,
            [
                &[0x45a14ba4404dcecf],
                &[0x45a14ba4404dcecf],
                &[0xfc4bc9c2ca5db7b0, 0xffe185760984f1ef],
                &[0x9c6f18f914a593b2, 0x0000000b26cb6351],
                &[0xc2b3ff318b487e0f],
                &[0x187d9a4a2c47c325, 0xbe364cda1ea67def, 0x0000000000000002],
            ],
        ),
        (
            TEXT3, // 12 shingles, 10 distinct: binary and term frequency differ
            [
                &[0xf8b623f498cb8e33],
                &[0xf8b6237498cf8c33],
                &[0x4c9a89b5c157e116, 0x1826901780170b8c],
                &[0x92100f35d01dc260, 0x00000008468ce1a4],
                &[0xb0a6e8e9efd26e34],
                &[0x4a615f3ad365a3f0, 0x0500c7a09dcdb632, 0x0000000000000003],
            ],
        ),
    ];
    for (text, expected_rows) in cases {
        for ((bits, seed, projection, weighting), expected) in
            configs.iter().cloned().zip(expected_rows)
        {
            let h = hasher(bits, seed, projection, weighting.clone());
            let sig = h.sketch(text);
            assert_eq!(
                sig.words(),
                expected,
                "{text:?} {bits} bits seed {seed} {projection:?} {weighting:?}"
            );
        }
    }
    // Explicit real weights (repeats add up).
    let v = [
        w(1, 2.5),
        w(2, -0.75),
        w(3, 1.0),
        w(4, 0.125),
        w(5, 3.0),
        w(6, -2.0),
        w(1, 0.5),
    ];
    let sk = |bits, seed, p| features_hasher(bits, seed, p).sketch_weighted(&v).unwrap();
    assert_eq!(sk(64, 0, Sign).words(), &[0xf4e18df7607b4356]);
    assert_eq!(
        sk(192, 9, Sign).words(),
        &[0xed51a0ad17877c1c, 0x36ff86f23beda1a1, 0x65bef0c726718a21]
    );
    assert_eq!(sk(64, 0, Gaussian).words(), &[0x031a22c7dc13d80e]);
}

// ---------------------------------------------------------------------------------
// The collision probability of one bit: 1 − θ/π.

/// Fraction of equal bits between the signatures of `u` and `v` over seeds `0..seeds`
/// (fresh feature ids per seed), with `bits` bits each.
fn collision_rate(
    projection: Projection,
    bits: usize,
    seeds: u64,
    pair: impl Fn(u64) -> (Vec<Weighted>, Vec<Weighted>),
) -> (f64, f64) {
    let mut equal = 0u64;
    for seed in 0..seeds {
        let h = features_hasher(bits, seed, projection);
        let (u, v) = pair(seed);
        let (a, b) = (
            h.sketch_weighted(&u).unwrap(),
            h.sketch_weighted(&v).unwrap(),
        );
        equal += u64::from(bits as u32 - a.hamming_distance(&b).unwrap());
    }
    let n = (seeds * bits as u64) as f64;
    (equal as f64 / n, n)
}

#[test]
fn gaussian_collision_probability_is_one_minus_theta_over_pi_at_known_angles() {
    // u = e_a, v = cos θ·e_a + sin θ·e_b: exactly at angle θ. With Gaussian values
    // P[bit equal] = 1 − θ/π exactly; 40 seeds × 256 independent bits = 10,240 trials,
    // bound 4.5 standard errors.
    for theta in [
        std::f64::consts::PI / 12.0,
        std::f64::consts::PI / 4.0,
        std::f64::consts::PI / 3.0,
        std::f64::consts::PI / 2.0,
        2.0 * std::f64::consts::PI / 3.0,
    ] {
        let (rate, n) = collision_rate(Projection::Gaussian, 256, 40, |seed| {
            let (a, b) = (mix64(seed * 2 + 1), mix64(seed * 2 + 2));
            (vec![w(a, 1.0)], vec![w(a, theta.cos()), w(b, theta.sin())])
        });
        let p = 1.0 - theta / std::f64::consts::PI;
        let se = (p * (1.0 - p) / n).sqrt();
        assert!(
            (rate - p).abs() < 4.5 * se,
            "θ = {theta}: rate {rate}, expected {p} ± {se}"
        );
    }
}

/// Two sets of 401 features sharing `common`: cosine `common / 401` (odd sizes, so no
/// sum is ever 0 with ±1 values).
fn set_pair(seed: u64, common: usize) -> (Vec<Weighted>, Vec<Weighted>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let shared: Vec<u64> = (0..common).map(|_| rng.random()).collect();
    let mut a: Vec<Weighted> = shared.iter().map(|&f| w(f, 1.0)).collect();
    let mut b = a.clone();
    a.extend((common..401).map(|_| w(rng.random(), 1.0)));
    b.extend((common..401).map(|_| w(rng.random(), 1.0)));
    (a, b)
}

#[test]
fn sign_and_gaussian_collision_probability_on_sets_at_known_angles() {
    // Binary vectors of 401 features with overlap c: cos θ = c/401. For ±1 values the
    // sums are binomial, so the rate is 1 − θ/π only asymptotically; the exact binomial
    // convolution differs from it by less than 0.0006 at these overlaps (computed
    // separately), which the bound allows for on top of 4.5 standard errors.
    for common in [100usize, 200, 300, 360] {
        let theta = (common as f64 / 401.0).acos();
        let p = 1.0 - theta / std::f64::consts::PI;
        for (projection, bias) in [(Projection::Sign, 0.0006), (Projection::Gaussian, 0.0)] {
            let seeds = if projection == Projection::Sign {
                40
            } else {
                8
            };
            let (rate, n) = collision_rate(projection, 256, seeds, |s| set_pair(s, common));
            let se = (p * (1.0 - p) / n).sqrt();
            assert!(
                (rate - p).abs() < 4.5 * se + bias,
                "{projection:?} c = {common}: rate {rate}, expected {p} ± {se}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// Weights against the definition computed the slow way.

/// `r_f[i]` straight from the specification (sign values).
fn sign_value(f: u64, seed: u64, i: usize) -> f64 {
    let s = mix64(f ^ mix64(seed ^ 0x7369_6D68_6173_6821));
    let j = (i / 64) as u64;
    let b = if j == 0 {
        s
    } else {
        mix64(s.wrapping_add(j.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
    };
    if (b >> (i % 64)) & 1 == 1 { 1.0 } else { -1.0 }
}

/// `r_f[i]` from the specification with the standard normal quantile of ndd-core
/// (library `ln`: agrees with the crate's to ~1e-15, enough for a sign test with a
/// margin).
fn gaussian_value(f: u64, seed: u64, i: usize) -> f64 {
    let s = mix64(f ^ mix64(seed ^ 0x6761_7573_7369_616E));
    let x = mix64(s.wrapping_add((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    let u = ((x >> 12) as f64 + 0.5) / 4_503_599_627_370_496.0;
    let z = ndd_core::estimate::z_for_confidence((2.0 * u - 1.0).abs()).unwrap();
    if u < 0.5 { -z } else { z }
}

/// Checks every bit of `sig` against the sign of `Σ_f v_f·r_f[i]` for the weighted
/// vector `v` (distinct features), skipping bits whose sum is within rounding of 0.
fn check_against_sums(sig: &SimHashSignature, v: &[(u64, f64)], seed: u64, p: Projection) {
    let scale: f64 = v.iter().map(|(_, x)| x.abs()).sum();
    let mut checked = 0;
    for i in 0..sig.bits() {
        let s: f64 = v
            .iter()
            .map(|&(f, x)| {
                x * match p {
                    Projection::Sign => sign_value(f, seed, i),
                    Projection::Gaussian => gaussian_value(f, seed, i),
                }
            })
            .sum();
        if s.abs() <= 1e-9 * scale {
            continue;
        }
        assert_eq!(sig.bit(i), s > 0.0, "bit {i}: sum {s}");
        checked += 1;
    }
    assert!(checked > sig.bits() / 2);
}

#[test]
fn weighted_signatures_are_the_signs_of_the_explicit_sums() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for round in 0..20u64 {
        let n = rng.random_range(1..60);
        let v: Vec<(u64, f64)> = (0..n)
            .map(|_| (rng.random(), rng.random_range(-3.0..3.0)))
            .collect();
        let weighted: Vec<Weighted> = v.iter().map(|&(f, x)| w(f, x)).collect();
        for (p, bits) in [(Projection::Sign, 192), (Projection::Gaussian, 100)] {
            let h = features_hasher(bits, round, p);
            check_against_sums(&h.sketch_weighted(&weighted).unwrap(), &v, round, p);
        }
    }
}

#[test]
fn tf_idf_is_term_frequency_times_idf() {
    let shingler = WordShingler::new(1).unwrap();
    let corpus = [
        "the cat sat on the mat",
        "the dog sat on the log",
        "a cat and a dog",
        "the end",
        TEXT1,
        TEXT2,
    ];
    let stats = DocumentFrequencies::from_documents(&shingler, corpus);
    let n = stats.num_docs() as f64;
    for (p, bits) in [(Projection::Sign, 128), (Projection::Gaussian, 64)] {
        let h = SimHasher::builder()
            .bits(bits)
            .seed(4)
            .projection(p)
            .weighting(Weighting::tf_idf(stats.clone()))
            .build_with(shingler.clone())
            .unwrap();
        // The long document spans several internal batches of features.
        let long = format!("{TEXT1} {TEXT2} ").repeat(8);
        for doc in [
            TEXT3,
            "the cat sat on the mat with the dog",
            TEXT1,
            long.as_str(),
        ] {
            // The vector the slow way: tf(f) · ln(N / max(df, 1)).
            let mut tf: Vec<(u64, f64)> = Vec::new();
            for f in shingler.features(doc) {
                match tf.iter_mut().find(|(g, _)| *g == f) {
                    Some((_, c)) => *c += 1.0,
                    None => tf.push((f, 1.0)),
                }
            }
            let v: Vec<(u64, f64)> = tf
                .iter()
                .map(|&(f, c)| (f, c * (n / stats.df(f).max(1) as f64).ln()))
                .collect();
            check_against_sums(&h.sketch(doc), &v, 4, p);
        }
    }
}

#[test]
fn binary_term_frequency_and_custom_weights_follow_their_definitions() {
    let scheme = SchemeId::new("ids").finish();
    let build = |weighting: Weighting| {
        SimHasher::builder()
            .bits(256)
            .weighting(weighting)
            .build_for_features(scheme)
            .unwrap()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..20 {
        // A document with repeats.
        let distinct: Vec<u64> = (0..rng.random_range(1..80)).map(|_| rng.random()).collect();
        let doc: Vec<u64> = (0..200)
            .map(|_| distinct[rng.random_range(0..distinct.len())])
            .collect();
        let mut first: Vec<u64> = Vec::new();
        for &f in &doc {
            if !first.contains(&f) {
                first.push(f);
            }
        }
        let tf: Vec<Weighted> = first
            .iter()
            .map(|&f| w(f, doc.iter().filter(|&&g| g == f).count() as f64))
            .collect();
        let ones: Vec<Weighted> = first.iter().map(|&f| w(f, 1.0)).collect();
        // Binary: the set. Term frequency: the counts (integers: exact in both paths).
        let binary = build(Weighting::Binary);
        assert_eq!(
            binary.sketch_features(doc.iter().copied()).words(),
            binary.sketch_weighted(&ones).unwrap().words()
        );
        let tfh = build(Weighting::TermFrequency);
        assert_eq!(
            tfh.sketch_features(doc.iter().copied()).words(),
            tfh.sketch_weighted(&tf).unwrap().words()
        );
        // Custom: w(f) once per distinct feature, in first-occurrence order.
        let wf = |f: u64| (f % 7) as f64 - 2.5;
        let custom = build(Weighting::custom(FnWeights::new("mod7", wf)));
        let explicit: Vec<Weighted> = first.iter().map(|&f| w(f, wf(f))).collect();
        assert_eq!(
            custom.sketch_features(doc.iter().copied()).words(),
            custom.sketch_weighted(&explicit).unwrap().words()
        );
    }
}

#[test]
fn unit_weight_signatures_do_not_depend_on_feature_order() {
    let h = features_hasher(384, 1, Projection::Sign);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut feats: Vec<u64> = (0..500).map(|_| rng.random()).collect();
    let a = h.sketch_features(feats.iter().copied());
    feats.reverse();
    assert_eq!(a, h.sketch_features(feats.iter().copied()));
}

// ---------------------------------------------------------------------------------
// Stability, reuse, comparison.

#[test]
fn identical_documents_give_identical_signatures_and_reuse_is_clean() {
    let big: String = (0..20_000).map(|i| format!("w{i} ")).collect();
    // Long, with a single distinct 5-gram: first in a state, it sets the distinct
    // features per byte that size a binary state's set for the next documents near 0,
    // so `big` after it outgrows the size guessed for it.
    let repeated = "a ".repeat(20_000);
    for weighting in [Weighting::Binary, Weighting::TermFrequency] {
        for (bits, p) in [
            (64, Projection::Sign),
            (4096, Projection::Sign),
            (128, Projection::Gaussian),
        ] {
            let h = hasher(bits, 0, p, weighting.clone());
            let docs = [
                repeated.as_str(),
                big.as_str(),
                TEXT1,
                TEXT2,
                "",
                TEXT3,
                big.as_str(),
                TEXT1,
            ];
            let fresh: Vec<SimHashSignature> = docs.iter().map(|d| h.sketch(d)).collect();
            assert_eq!(fresh[2], fresh[7]);
            assert_eq!(fresh[1], fresh[6]);
            // One state across documents (large ones in between, of very different
            // densities) gives the same.
            let mut state = h.new_state();
            let mut out = h.new_signature();
            for (d, expect) in docs.iter().zip(&fresh) {
                h.sketch_with(&mut state, d, &mut out);
                assert_eq!(&out, expect);
            }
            assert_eq!(h.sketch_batch(&docs), fresh);
            // The empty document: every sum is 0, every bit 0.
            assert!(fresh[4].words().iter().all(|&x| x == 0));
        }
    }
}

#[test]
fn every_bit_length_works_and_unused_bits_stay_zero() {
    for bits in [1usize, 63, 64, 65, 100, 128, 384, 512, 1024, 4096] {
        let h = hasher(bits, 0, Projection::Sign, Weighting::TermFrequency);
        let sig = h.sketch(TEXT1);
        assert_eq!(sig.bits(), bits);
        assert_eq!(sig.num_bits(), bits);
        assert_eq!(sig.words().len(), bits.div_ceil(64));
        assert!(!sig.bit(bits));
        if bits % 64 != 0 {
            assert_eq!(sig.words().last().unwrap() >> (bits % 64), 0);
        }
        assert_eq!(sig.as_u64().is_some(), bits <= 64);
        assert_eq!(SimHashSignature::from_bytes(&sig.to_bytes()).unwrap(), sig);
    }
}

#[test]
fn hamming_and_estimates_match_brute_force() {
    let h = hasher(384, 0, Projection::Sign, Weighting::TermFrequency);
    let a = h.sketch(TEXT1);
    let b = h.sketch(TEXT2);
    let brute = (0..384).filter(|&i| a.bit(i) != b.bit(i)).count() as u32;
    assert_eq!(a.hamming_distance(&b).unwrap(), brute);
    let sim = a.similarity(&b).unwrap();
    let p = 1.0 - f64::from(brute) / 384.0;
    assert_eq!(sim.value(), p);
    assert!((sim.std_error() - (p * (1.0 - p) / 384.0).sqrt()).abs() < 1e-15);
    let cos = a.cosine_estimate(&b).unwrap();
    assert!((cos.value() - (std::f64::consts::PI * f64::from(brute) / 384.0).cos()).abs() < 1e-15);
    // Unrelated texts: about half the bits differ.
    assert!((100..280).contains(&brute), "{brute}");
}

#[test]
fn near_duplicates_are_close_and_estimates_track_the_cosine() {
    // Paper 000's setting: 384 bits, Gaussian values; one word changed in a
    // 40-word document leaves 31 of 36 word 5-grams: cosine 31/36 = 0.861.
    let words: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    let a = words.join(" ");
    let mut edited = words.clone();
    edited[20] = "changed".into();
    let b = edited.join(" ");
    let exact = 31.0 / 36.0;
    let mut sum = 0.0;
    for seed in 0..20 {
        let h = hasher(384, seed, Projection::Gaussian, Weighting::Binary);
        sum += h.sketch(&a).cosine_estimate(&h.sketch(&b)).unwrap().value();
    }
    // The mean of 20 estimates, each with standard error ~0.03: within 0.03.
    assert!((sum / 20.0 - exact).abs() < 0.03, "{}", sum / 20.0);
}

// ---------------------------------------------------------------------------------
// Errors and defined results.

#[test]
fn invalid_parameters_are_errors() {
    for bits in [0usize, ndd_simhash::MAX_BITS + 1] {
        let e = SimHasher::builder().bits(bits).build().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidParameter);
    }
    assert!(
        SimHasher::builder()
            .bits(ndd_simhash::MAX_BITS)
            .build()
            .is_ok()
    );
    // TF-IDF statistics of other features than the extractor's.
    let stats = DocumentFrequencies::from_documents(&WordShingler::new(1).unwrap(), ["a b"]);
    let e = SimHasher::builder()
        .weighting(Weighting::tf_idf(stats))
        .build() // word 3-grams
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Incompatible);
}

#[test]
fn signatures_of_different_parameters_refuse_to_compare() {
    let base = hasher(64, 0, Projection::Sign, Weighting::TermFrequency).sketch(TEXT1);
    let stats = DocumentFrequencies::from_documents(&WordShingler::new(5).unwrap(), [TEXT2]);
    let others = [
        hasher(64, 1, Projection::Sign, Weighting::TermFrequency).sketch(TEXT1),
        hasher(128, 0, Projection::Sign, Weighting::TermFrequency).sketch(TEXT1),
        hasher(64, 0, Projection::Gaussian, Weighting::TermFrequency).sketch(TEXT1),
        hasher(64, 0, Projection::Sign, Weighting::Binary).sketch(TEXT1),
        hasher(64, 0, Projection::Sign, Weighting::tf_idf(stats)).sketch(TEXT1),
        SimHasher::builder()
            .build_with(WordShingler::new(3).unwrap())
            .unwrap()
            .sketch(TEXT1),
    ];
    for o in &others {
        assert_eq!(
            base.hamming_distance(o).unwrap_err().kind(),
            ErrorKind::Incompatible
        );
        assert_eq!(
            base.similarity(o).unwrap_err().kind(),
            ErrorKind::Incompatible
        );
        assert_eq!(
            base.cosine_estimate(o).unwrap_err().kind(),
            ErrorKind::Incompatible
        );
    }
    // Same scheme, different lengths (only possible through from_words).
    let s = SchemeId::new("x").finish();
    let a = SimHashSignature::from_words(s, 64, vec![1]).unwrap();
    let b = SimHashSignature::from_words(s, 128, vec![1, 0]).unwrap();
    assert_eq!(
        a.hamming_distance(&b).unwrap_err().kind(),
        ErrorKind::LengthMismatch
    );
}

#[test]
fn non_finite_weights_are_rejected_or_skipped_as_documented() {
    let h = features_hasher(64, 0, Projection::Sign);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = h.sketch_weighted(&[w(1, 1.0), w(2, bad)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("feature 1"), "{e}");
        // Streaming: skipped by finish_into, an error from try_finish_into.
        let mut state = h.new_state();
        let mut out = h.new_signature();
        state.push_weighted(1, 1.0);
        state.push_weighted(2, bad);
        h.finish_into(&mut state, &mut out);
        assert_eq!(out, h.sketch_weighted(&[w(1, 1.0)]).unwrap());
        state.push_weighted(2, bad);
        assert_eq!(
            h.try_finish_into(&mut state, &mut out).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        // The state was reset by the failed call.
        state.push(1);
        h.try_finish_into(&mut state, &mut out).unwrap();
        assert_eq!(out, h.sketch_features([1]));
    }
    // Custom weights returning NaN: the feature contributes nothing.
    let custom = SimHasher::builder()
        .weighting(Weighting::custom(FnWeights::new("nan-for-2", |f: u64| {
            if f == 2 { f64::NAN } else { 1.0 }
        })))
        .build_for_features(SchemeId::new("ids").finish())
        .unwrap();
    let binary = SimHasher::builder()
        .weighting(Weighting::Binary)
        .build_for_features(SchemeId::new("ids").finish())
        .unwrap();
    assert_eq!(
        custom.sketch_features([1, 2, 3]).words(),
        binary.sketch_features([1, 3]).words()
    );
    let mut state = custom.new_state();
    state.push(2);
    let mut out = custom.new_signature();
    assert!(custom.try_finish_into(&mut state, &mut out).is_err());
}

#[test]
fn huge_finite_weights_and_zero_weights_have_defined_results() {
    let h = features_hasher(64, 0, Projection::Sign);
    // Zero weight: no contribution.
    assert_eq!(
        h.sketch_weighted(&[w(1, 1.0), w(2, 0.0)]).unwrap(),
        h.sketch_weighted(&[w(1, 1.0)]).unwrap()
    );
    // A vector and its negation: complementary bits where sums are non-zero.
    let v = [w(1, 1.0), w(2, 2.0), w(3, 4.0)];
    let neg: Vec<Weighted> = v.iter().map(|x| w(x.feature, -x.weight)).collect();
    let (a, b) = (
        h.sketch_weighted(&v).unwrap(),
        h.sketch_weighted(&neg).unwrap(),
    );
    assert_eq!(a.words()[0], !b.words()[0]); // sums are odd multiples of 1: never 0
    // Sums that overflow are an error (their infinite and NaN sums have no sign to
    // keep: three weights of f64::MAX used to give an all-zero signature); no panic.
    let big = h.sketch_weighted(&[w(1, f64::MAX), w(2, f64::MAX)]);
    assert_eq!(big.unwrap_err().kind(), ErrorKind::InvalidInput);
}

#[test]
fn corrupt_bytes_are_errors() {
    let sig = hasher(384, 0, Projection::Sign, Weighting::TermFrequency).sketch(TEXT1);
    let bytes = sig.to_bytes();
    for cut in [0, 5, 20, bytes.len() - 1] {
        assert_eq!(
            SimHashSignature::from_bytes(&bytes[..cut])
                .unwrap_err()
                .kind(),
            ErrorKind::CorruptData
        );
    }
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x04;
        assert!(SimHashSignature::from_bytes(&bad).is_err(), "flip at {i}");
    }
    // Well-formed bytes with inconsistent contents: bits set past the end.
    let mut wr = ndd_core::codec::ByteWriter::new(*b"SHS1", 1);
    wr.u64(1);
    wr.u64(10);
    wr.u64_slice(&[1 << 20]);
    let e = SimHashSignature::from_bytes(&wr.finish()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CorruptData);
    // Wrong word count, zero length.
    for (bits, words) in [(128u64, vec![0u64]), (0, vec![])] {
        let mut wr = ndd_core::codec::ByteWriter::new(*b"SHS1", 1);
        wr.u64(1);
        wr.u64(bits);
        wr.u64_slice(&words);
        assert!(SimHashSignature::from_bytes(&wr.finish()).is_err());
    }
}

#[test]
fn debug_is_concise() {
    let sig = hasher(4096, 0, Projection::Sign, Weighting::TermFrequency).sketch(TEXT1);
    let s = format!("{sig:?}");
    assert!(s.len() < 200, "{s}");
    assert!(
        s.contains("4096 bits") && s.contains("60 more words"),
        "{s}"
    );
}

/// `Fingerprinter64` gives, for every document, the bits of the 64-bit signature
/// (`as_u64`), with every weighting, and refuses other lengths at construction.
#[test]
fn fingerprinter64_equals_the_signature_bits() {
    use ndd_simhash::Fingerprinter64;
    let docs = [
        "the committee approved the budget for the new library building",
        "The committee approved the budget for the new library building!",
        "an entirely different sentence about the weather in the mountains",
        "",
        "one",
    ];
    for weighting in [Weighting::Binary, Weighting::TermFrequency] {
        let h = SimHasher::builder()
            .bits(64)
            .weighting(weighting)
            .seed(3)
            .build()
            .unwrap();
        let f = Fingerprinter64::from_hasher(h.clone()).unwrap();
        for d in docs {
            assert_eq!(Some(f.fingerprint(d)), h.sketch(d).as_u64(), "{d:?}");
        }
        assert_eq!(f.fingerprints(&docs).len(), docs.len());
    }
    for bits in [1, 32, 63, 65, 128] {
        let h = SimHasher::new(bits).unwrap();
        assert!(Fingerprinter64::from_hasher(h).is_err(), "{bits}");
    }
}

/// Weights whose sums overflow are an error, not a silent all-zero signature (three
/// weights of `f64::MAX` gave `Ok(0)`); a state made by another configuration is reset
/// by `sketch_with` (the signature is this hasher's) and refused by `try_finish_into`.
#[test]
fn overflowing_weights_and_foreign_states_are_caught() {
    use ndd_core::TrySketcher;
    let h = SimHasher::builder().bits(64).build().unwrap();
    let huge: Vec<Weighted> = (1..=3)
        .map(|f| Weighted {
            feature: f,
            weight: f64::MAX,
        })
        .collect();
    assert!(h.sketch_weighted(&huge).is_err());
    let fine: Vec<Weighted> = (1..=3)
        .map(|f| Weighted {
            feature: f,
            weight: 1e300,
        })
        .collect();
    assert!(h.sketch_weighted(&fine).is_ok());

    let other = SimHasher::builder().bits(128).seed(9).build().unwrap();
    let doc = "the committee approved the budget for the new library building";
    let mut foreign = Sketcher::new_state(&other);
    let mut out = Sketcher::new_signature(&h);
    h.sketch_with(&mut foreign, doc, &mut out);
    assert_eq!(out, h.sketch(doc));
    let mut foreign = Sketcher::new_state(&other);
    foreign.push(7);
    let mut out = TrySketcher::new_signature(&h.checked());
    let err = h
        .checked()
        .try_finish_into(&mut foreign, &mut out)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Incompatible);
}

// ---------------------------------------------------------------------------------
// The integer path (`±1` values, unit weights) against its integer sums, ties included.

proptest::proptest! {
    /// Binary and term-frequency signatures are the signs of the exact integer sums
    /// `Σ r_f[i]` (over distinct features, or every occurrence), a sum of 0 giving 0:
    /// at 64, 128, 192 and 256 bits, from 0 to 700 features (across the batches of 128
    /// and the carry-save groups of 16 of the counting), few distinct features so that
    /// repeats and ties are common.
    #[test]
    fn unit_weight_signatures_are_the_signs_of_the_integer_sums(
        doc in proptest::collection::vec(0u64..300, 0..700),
        bits_index in 0usize..4,
        seed in 0u64..4,
        spread in proptest::prelude::any::<u64>(),
    ) {
        let bits = [64, 128, 192, 256][bits_index];
        // Feature ids spread over 64 bits (and the 0 feature kept as 0).
        let doc: Vec<u64> = doc.iter().map(|&f| f.wrapping_mul(spread | 1)).collect();
        let mut distinct = doc.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for (weighting, features) in [(Weighting::Binary, &distinct), (Weighting::TermFrequency, &doc)] {
            let h = SimHasher::builder()
                .bits(bits)
                .seed(seed)
                .weighting(weighting)
                .build_for_features(SchemeId::new("ids").finish())
                .unwrap();
            let sig = h.sketch_features(doc.iter().copied());
            for i in 0..bits {
                let sum: i64 = features.iter().map(|&f| sign_value(f, seed, i) as i64).sum();
                proptest::prop_assert_eq!(sig.bit(i), sum > 0, "bit {} of {}: sum {}", i, bits, sum);
            }
        }
    }
}

#![allow(clippy::unwrap_used)]
//! b-bit MinHash: packing, the fast equal-field count against a per-field oracle
//! (proptest), the estimator's bias and variance against Li and König's formulas, the
//! small-universe correction of Theorem 1, the byte form and the error cases.

use ndd_core::codec::ByteWriter;
use ndd_core::{ErrorKind, ExternalFeatures, SchemeId, Signature, Sketcher, jaccard};
use ndd_minhash::{BBitSignature, MinHashScheme, MinHashSignature, MinHasher};
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn scheme() -> SchemeId {
    SchemeId::new("bbit-test").finish()
}

fn sig(values: Vec<u64>) -> MinHashSignature {
    MinHashSignature::from_values(scheme(), values).unwrap()
}

fn mask(b: u32) -> u64 {
    if b == 64 { u64::MAX } else { (1 << b) - 1 }
}

/// The packing as the documentation states it, bit by bit.
fn pack_oracle(values: &[u64], b: u32) -> Vec<u64> {
    let total = values.len() * b as usize;
    let mut words = vec![0u64; total.div_ceil(64)];
    for (i, &v) in values.iter().enumerate() {
        for j in 0..b as usize {
            if (v >> j) & 1 == 1 {
                let bit = i * b as usize + j;
                words[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    words
}

fn hasher(scheme: MinHashScheme, k: usize, seed: u64) -> MinHasher<ExternalFeatures> {
    crate::common::hasher_for_features(scheme, k, seed, "bbit-features")
}

// ---------------------------------------------------------------------------------------
// Packing and the fast count.
// ---------------------------------------------------------------------------------------

#[test]
fn packing_round_trips_for_every_width() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for k in [1usize, 2, 3, 7, 63, 64, 65, 100, 257] {
        let values: Vec<u64> = (0..k).map(|_| rng.random()).collect();
        let s = sig(values.clone());
        for b in 1..=64u32 {
            let p = BBitSignature::from_minhash(&s, b).unwrap();
            assert_eq!(p.bits_per_slot(), b);
            assert_eq!(p.num_values(), k);
            assert_eq!(p.words(), pack_oracle(&values, b).as_slice(), "k {k} b {b}");
            assert_eq!(p.memory_bytes(), (k * b as usize).div_ceil(64) * 8);
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(p.field(i), Some(v & mask(b)), "k {k} b {b} i {i}");
            }
            assert_eq!(p.field(k), None);
            let bytes = p.to_bytes();
            assert_eq!(bytes.len(), p.memory_bytes() + 43);
            assert_eq!(BBitSignature::from_bytes(&bytes).unwrap(), p);
            assert_eq!(p.matches(&p).unwrap(), k);
            assert_eq!(p.similarity(&p).unwrap().value(), 1.0);
        }
    }
}

#[test]
fn packing_golden_layout() {
    // Correctness of the documented layout (not a stability pin): fields of 3 bits,
    // first slot in the lowest bits, straddling the word boundary at slot 21.
    let values: Vec<u64> = (0..24u64).map(|i| i % 8).collect();
    let p = BBitSignature::from_minhash(&sig(values), 3).unwrap();
    // Word 0: slots 0..21 as octal digits (lowest first), then the low bit of slot 21
    // (5 = 0b101) in bit 63; word 1: the rest of slot 21 (0b10), slot 22 (6), slot 23 (7).
    assert_eq!(p.words()[0], 0o432107654321076543210 | (1 << 63));
    assert_eq!(p.words()[0], 0xc688_fac6_88fa_c688);
    assert_eq!(p.words()[1], 0b1111_1010); // 111 110 10
    assert_eq!(p.words().len(), 2);
}

/// The equal-field count done the slow way.
fn oracle_matches(a: &BBitSignature, b: &BBitSignature) -> usize {
    (0..a.num_values())
        .filter(|&i| a.field(i) == b.field(i))
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fast_equal_field_count_matches_the_oracle(
        b in 1u32..=64,
        slots in prop::collection::vec((any::<u64>(), any::<u64>(), 0u8..4), 1..300),
    ) {
        // Mode 0: identical slot; 1: same low bits, other high bits; 2: random;
        // 3: differing in exactly one random bit.
        let a: Vec<u64> = slots.iter().map(|s| s.0).collect();
        let other: Vec<u64> = slots
            .iter()
            .map(|&(x, y, mode)| match mode {
                0 => x,
                1 => (x & mask(b)) | (y & !mask(b)),
                2 => y,
                _ => x ^ (1u64 << (y % 64)),
            })
            .collect();
        let pa = BBitSignature::from_minhash(&sig(a.clone()), b).unwrap();
        let pb = BBitSignature::from_minhash(&sig(other.clone()), b).unwrap();
        let fast = pa.matches(&pb).unwrap();
        prop_assert_eq!(fast, oracle_matches(&pa, &pb));
        let direct = a.iter().zip(&other).filter(|(x, y)| (*x ^ *y) & mask(b) == 0).count();
        prop_assert_eq!(fast, direct);
        prop_assert_eq!(pb.matches(&pa).unwrap(), fast);
    }
}

#[test]
fn power_of_two_widths_on_adversarial_words() {
    // Fields that differ only in their top or bottom bit, all widths and offsets.
    for b in [1u32, 2, 4, 8, 16, 32, 64] {
        let k = 640 / b as usize + 3;
        for bit in [0, b - 1, b / 2] {
            for every in [1usize, 2, 3, 7] {
                let a: Vec<u64> = (0..k as u64)
                    .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                    .collect();
                let o: Vec<u64> = a
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| if i % every == 0 { x ^ (1 << bit) } else { x })
                    .collect();
                let pa = BBitSignature::from_minhash(&sig(a), b).unwrap();
                let po = BBitSignature::from_minhash(&sig(o), b).unwrap();
                let want = (0..k).filter(|i| i % every != 0).count();
                assert_eq!(
                    pa.matches(&po).unwrap(),
                    want,
                    "b {b} bit {bit} every {every}"
                );
                assert_eq!(oracle_matches(&pa, &po), want);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The estimator: bias and variance against Li and König.
// ---------------------------------------------------------------------------------------

/// Random feature sets with `|A ∪ B| = union` and `|A ∩ B| = common`.
fn random_sets(rng: &mut ChaCha8Rng, union: usize, common: usize) -> (Vec<u64>, Vec<u64>) {
    let feats: Vec<u64> = (0..union).map(|_| rng.random()).collect();
    let split = common + (union - common) / 2;
    (feats[..split].to_vec(), feats[split - common..].to_vec())
}

struct Outcome {
    bias_in_se: f64,
    variance_ratio: f64,
}

/// Runs `pairs` random set pairs with J in `0.25..0.95` through MinHash then b-bit
/// compression; compares the estimator's mean and spread with the sparse-limit
/// formulas `E R̂ = R`, `Var R̂ = P_b (1 − P_b) / (k (1 − C)²)`, `P_b = C + (1 − C) R`.
fn run(
    scheme: MinHashScheme,
    k: usize,
    pairs: usize,
    sizes: std::ops::Range<usize>,
    seed: u64,
) -> Vec<(u32, Outcome)> {
    let h = hasher(scheme, k, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let widths = [1u32, 2, 4, 8];
    let mut errors: Vec<Vec<(f64, f64)>> = vec![Vec::new(); widths.len()];
    for _ in 0..pairs {
        let union = rng.random_range(sizes.clone());
        let common = rng.random_range(union / 4..union * 19 / 20);
        let (a, b) = random_sets(&mut rng, union, common);
        let mut sa = a.clone();
        sa.sort_unstable();
        let mut sb = b.clone();
        sb.sort_unstable();
        let j = jaccard(&sa, &sb);
        let (ma, mb) = (h.sketch_features(a), h.sketch_features(b));
        for (w, &bits) in widths.iter().enumerate() {
            let pa = BBitSignature::from_minhash(&ma, bits).unwrap();
            let pb = BBitSignature::from_minhash(&mb, bits).unwrap();
            let est = pa.similarity(&pb).unwrap();
            let c = 2f64.powi(-(bits as i32));
            let p = c + (1.0 - c) * j;
            let var = p * (1.0 - p) / (k as f64 * (1.0 - c).powi(2));
            errors[w].push((est.value() - j, var));
        }
    }
    widths
        .iter()
        .zip(errors)
        .map(|(&bits, e)| {
            let n = e.len() as f64;
            let mean = e.iter().map(|x| x.0).sum::<f64>() / n;
            let mean_var = e.iter().map(|x| x.1).sum::<f64>() / n;
            let mse = e.iter().map(|x| x.0 * x.0).sum::<f64>() / n;
            (
                bits,
                Outcome {
                    bias_in_se: mean / (mean_var / n).sqrt(),
                    variance_ratio: mse / mean_var,
                },
            )
        })
        .collect()
}

/// Every b-bit estimate of `runs` (the output of [`run`] with k = 256) is within 3
/// standard errors of unbiased, and its variance is 0.75 to 1.3 times the paper's.
fn check_unbiased_with_the_papers_variance(scheme: &str, runs: Vec<(u32, Outcome)>) {
    for (bits, o) in runs {
        println!(
            "{scheme} k=256 b={bits}: bias {:+.2} SE, variance observed/formula {:.3}",
            o.bias_in_se, o.variance_ratio
        );
        assert!(
            o.bias_in_se.abs() < 3.0,
            "b={bits}: bias {} SE",
            o.bias_in_se
        );
        assert!(
            (0.75..=1.3).contains(&o.variance_ratio),
            "b={bits}: variance ratio {}",
            o.variance_ratio
        );
    }
}

#[test]
fn bbit_estimator_is_unbiased_with_the_papers_variance_classic() {
    check_unbiased_with_the_papers_variance(
        "classic",
        run(MinHashScheme::Classic, 256, 400, 100..400, 31),
    );
}

/// One-permutation hashing on sets much larger than `k`: no empty bins, so no
/// densification copies (on small sets copied bins repeat their chance agreements and
/// the variance of `b = 1` grows by about a third). Its slots sample without
/// replacement, which lowers the variance by a factor near `1 − k/|A ∪ B|`.
#[test]
fn bbit_estimator_is_unbiased_with_the_papers_variance_one_permutation() {
    check_unbiased_with_the_papers_variance(
        "one-permutation",
        run(MinHashScheme::OnePermutation, 256, 400, 5000..10000, 32),
    );
}

#[test]
fn theorem_1_corrects_a_small_universe() {
    // Minima of uniformly random permutations of 0..D: with r = f/D far from 0 the low
    // bits of a minimum are not uniform, the sparse estimator is biased, and Theorem 1's
    // constants remove the bias.
    let d = 1000usize;
    let (f1, f2, common) = (300usize, 450usize, 200usize); // R = 200 / 550
    let r = common as f64 / (f1 + f2 - common) as f64;
    let k = 128;
    let trials = 250;
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let mut perm: Vec<u64> = (0..d as u64).collect();
    let a_elems: Vec<usize> = (0..f1).collect();
    let b_elems: Vec<usize> = (f1 - common..f1 - common + f2).collect();
    for bits in [1u32, 2] {
        let (c1, c2) =
            BBitSignature::correction_constants(bits, f1 as u64, f2 as u64, d as u64).unwrap();
        let (mut sized, mut sparse, mut var) = (0.0, 0.0, 0.0);
        for _ in 0..trials {
            let (mut va, mut vb) = (Vec::with_capacity(k), Vec::with_capacity(k));
            for _ in 0..k {
                perm.shuffle(&mut rng);
                va.push(a_elems.iter().map(|&x| perm[x]).min().unwrap());
                vb.push(b_elems.iter().map(|&x| perm[x]).min().unwrap());
            }
            let pa = BBitSignature::from_minhash(&sig(va), bits).unwrap();
            let pb = BBitSignature::from_minhash(&sig(vb), bits).unwrap();
            sized += pa
                .similarity_with_sizes(&pb, f1 as u64, f2 as u64, d as u64)
                .unwrap()
                .value();
            sparse += pa.similarity(&pb).unwrap().value();
            let p = c1 + (1.0 - c2) * r;
            var += p * (1.0 - p) / (k as f64 * (1.0 - c2).powi(2));
        }
        let n = trials as f64;
        let se = (var / n / n).sqrt();
        let (sized, sparse) = (sized / n - r, sparse / n - r);
        println!(
            "D={d} b={bits}: C1={c1:.4} C2={c2:.4}; bias with sizes {:+.2} SE, sparse-limit bias {:+.1} SE",
            sized / se,
            sparse / se
        );
        assert!(sized.abs() < 3.0 * se, "b={bits}: {sized} vs SE {se}");
        assert!(
            sparse.abs() > 10.0 * se,
            "the sparse limit should be visibly biased here"
        );
    }
}

#[test]
fn correction_constants_match_closed_forms_and_limits() {
    // b = 1: A(r) = (1 − r) / (2 − r).
    let a = |r: f64| (1.0 - r) / (2.0 - r);
    let (c1, c2) = BBitSignature::correction_constants(1, 300, 450, 1000).unwrap();
    let (r1, r2) = (0.3, 0.45);
    assert!((c1 - (a(r1) * r2 + a(r2) * r1) / (r1 + r2)).abs() < 1e-12);
    assert!((c2 - (a(r1) * r1 + a(r2) * r2) / (r1 + r2)).abs() < 1e-12);
    // Direct evaluation of A_{j,b} for b = 3 (no cancellation at these r).
    let a3 = |r: f64| r * (1.0 - r).powi(7) / (1.0 - (1.0 - r).powi(8));
    let (c1, c2) = BBitSignature::correction_constants(3, 300, 450, 1000).unwrap();
    assert!((c1 - (a3(r1) * r2 + a3(r2) * r1) / (r1 + r2)).abs() < 1e-12);
    assert!((c2 - (a3(r1) * r1 + a3(r2) * r2) / (r1 + r2)).abs() < 1e-12);
    // Sparse limit and saturation.
    for b in [1u32, 2, 8, 32, 64] {
        // (At b = 64 the universe 2^64 is not sparse for b bits: 2^b · r = f.)
        let (c1, c2) = BBitSignature::correction_constants(b.min(32), 1, 7, u64::MAX).unwrap();
        let lim = 2f64.powi(-(b.min(32) as i32));
        assert!(
            (c1 / lim - 1.0).abs() < 1e-9 && (c2 / lim - 1.0).abs() < 1e-9,
            "b {b}"
        );
        // f = D: the minimum of the full universe is 0 — the constants stay finite.
        let (c1, c2) = BBitSignature::correction_constants(b, 10, 10, 10).unwrap();
        assert!(c1.is_finite() && c2.is_finite() && c2 < 1.0);
    }
    // Symmetric in the two sets.
    let x = BBitSignature::correction_constants(2, 30, 70, 100).unwrap();
    let y = BBitSignature::correction_constants(2, 70, 30, 100).unwrap();
    assert!((x.0 - y.0).abs() < 1e-15 && (x.1 - y.1).abs() < 1e-15);
    for (b, f1, f2, d) in [
        (0, 1, 1, 2),
        (65, 1, 1, 2),
        (1, 0, 1, 2),
        (1, 3, 1, 2),
        (1, 1, 1, 0),
    ] {
        let err = BBitSignature::correction_constants(b, f1, f2, d).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidParameter);
    }
}

// ---------------------------------------------------------------------------------------
// Errors, empty documents, bytes.
// ---------------------------------------------------------------------------------------

#[test]
fn mismatched_signatures_are_refused() {
    let h = hasher(MinHashScheme::OnePermutation, 64, 0);
    let s = h.sketch_features(0..100);
    let b1 = BBitSignature::from_minhash(&s, 1).unwrap();
    let b2 = BBitSignature::from_minhash(&s, 2).unwrap();
    assert_eq!(b1.matches(&b2).unwrap_err().kind(), ErrorKind::Incompatible);
    assert_eq!(
        b1.similarity(&b2).unwrap_err().kind(),
        ErrorKind::Incompatible
    );
    let other = hasher(MinHashScheme::OnePermutation, 64, 1).sketch_features(0..100);
    let o1 = BBitSignature::from_minhash(&other, 1).unwrap();
    assert_eq!(
        b1.similarity(&o1).unwrap_err().kind(),
        ErrorKind::Incompatible
    );
    // Same scheme, different k (values wrapped by hand).
    let short = BBitSignature::from_minhash(&sig(vec![1, 2, 3]), 4).unwrap();
    let long = BBitSignature::from_minhash(&sig(vec![1, 2, 3, 4]), 4).unwrap();
    assert_eq!(
        short.matches(&long).unwrap_err().kind(),
        ErrorKind::LengthMismatch
    );
    assert!(short.similarity_with_sizes(&long, 1, 1, 10).is_err());
    for b in [0, 65, u32::MAX] {
        assert_eq!(
            BBitSignature::from_minhash(&s, b).unwrap_err().kind(),
            ErrorKind::InvalidParameter
        );
    }
    // Bad sizes.
    for (f1, f2, d) in [(1, 1, 0), (11, 1, 10), (1, 11, 10), (0, 5, 10)] {
        let err = b1.similarity_with_sizes(&b1, f1, f2, d).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidParameter, "{f1} {f2} {d}");
    }
    // The scheme folds b into the MinHash scheme.
    assert_ne!(b1.scheme(), b2.scheme());
    assert_ne!(b1.scheme(), s.scheme());
    assert_eq!(b1.minhash_scheme(), s.scheme());
}

#[test]
fn empty_documents() {
    let h = hasher(MinHashScheme::OnePermutation, 64, 0);
    let empty = BBitSignature::from_minhash(&h.sketch_features([]), 1).unwrap();
    let full = BBitSignature::from_minhash(&h.sketch_features(0..10), 1).unwrap();
    assert!(empty.is_empty_document() && !full.is_empty_document());
    assert_eq!(empty.similarity(&empty).unwrap().value(), 1.0);
    assert_eq!(empty.similarity(&full).unwrap().value(), 0.0);
    assert_eq!(full.similarity(&empty).unwrap().value(), 0.0);
    assert_eq!(empty.similarity(&full).unwrap().std_error(), 0.0);
    assert_eq!(
        empty
            .similarity_with_sizes(&empty, 0, 0, 10)
            .unwrap()
            .value(),
        1.0
    );
    assert_eq!(
        empty
            .similarity_with_sizes(&full, 0, 10, 100)
            .unwrap()
            .value(),
        0.0
    );
    let bytes = empty.to_bytes();
    assert_eq!(BBitSignature::from_bytes(&bytes).unwrap(), empty);
}

#[test]
fn estimates_are_clamped_with_finite_errors() {
    // No field agrees: P̂ = 0, R̂ = −1/(2^b − 1) clamped to 0.
    let a = BBitSignature::from_minhash(&sig(vec![0, 0, 0, 0]), 1).unwrap();
    let b = BBitSignature::from_minhash(&sig(vec![1, 1, 1, 1]), 1).unwrap();
    let e = a.similarity(&b).unwrap();
    assert_eq!(e.value(), 0.0);
    assert_eq!(e.std_error(), 0.0);
    // Every field agrees: 1 in the sparse limit; with sizes the estimate
    // (1 − C1)/(1 − C2) may exceed 1 and is clamped.
    let e = a.similarity_with_sizes(&a, 1, 9, 10).unwrap();
    assert!(e.value() <= 1.0);
    let half = BBitSignature::from_minhash(&sig(vec![0, 0, 1, 1]), 1).unwrap();
    let e = a.similarity(&half).unwrap();
    assert_eq!(e.value(), 0.0); // P̂ = 1/2 = C: no evidence of resemblance
    assert!((e.std_error() - (0.25f64 / 4.0).sqrt() / 0.5).abs() < 1e-12);
}

#[test]
fn corrupt_bytes_are_refused() {
    let h = hasher(MinHashScheme::OnePermutation, 50, 0);
    let p = BBitSignature::from_minhash(&h.sketch_features(0..30), 3).unwrap();
    let bytes = p.to_bytes();
    for cut in 0..bytes.len() {
        let err = BBitSignature::from_bytes(&bytes[..cut]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::CorruptData);
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x10;
        assert_eq!(
            BBitSignature::from_bytes(&b).unwrap_err().kind(),
            ErrorKind::CorruptData
        );
    }
    // A MinHash signature's bytes are not a b-bit signature.
    let m = h.sketch_features(0..30).to_bytes();
    assert_eq!(
        BBitSignature::from_bytes(&m).unwrap_err().kind(),
        ErrorKind::CorruptData
    );
    // Well-formed checksums around inconsistent contents.
    let forge = |bits: u32, k: u64, empty: u8, words: &[u64]| {
        let mut w = ByteWriter::new(*b"MHB1", 1);
        w.u64(scheme().as_u64());
        w.u32(bits);
        w.u64(k);
        w.u8(empty);
        w.u64_slice(words);
        BBitSignature::from_bytes(&w.finish())
    };
    assert!(forge(3, 5, 0, &[0o12345]).is_ok());
    for (bits, k, empty, words) in [
        (0u32, 5u64, 0u8, vec![0u64]), // b = 0
        (65, 5, 0, vec![0; 6]),        // b > 64
        (3, 0, 0, vec![]),             // k = 0
        (3, 5, 0, vec![0, 0]),         // too many words
        (3, 30, 0, vec![0]),           // too few words
        (3, 5, 0, vec![1 << 15]),      // padding bit set
        (3, 5, 2, vec![0]),            // bad flag
        (3, 5, 1, vec![0o77776]),      // "empty" with a field not all ones
        (3, u64::MAX, 0, vec![0]),     // k · b overflows
    ] {
        let err = forge(bits, k, empty, &words).unwrap_err();
        assert_eq!(
            err.kind(),
            ErrorKind::CorruptData,
            "{bits} {k} {empty} {words:?}"
        );
    }
    assert!(forge(3, 5, 1, &[0o77777]).unwrap().is_empty_document());
}

/// Stability pin of the byte form (layout version 1): the exact bytes of a small
/// signature. Not a correctness test; change only with a layout version bump.
#[test]
fn byte_form_stability_pin() {
    let p = BBitSignature::from_minhash(&sig(vec![5, 6, 7]), 4).unwrap();
    let bytes = p.to_bytes();
    assert_eq!(&bytes[..6], b"MHB1\x01\x00");
    assert_eq!(&bytes[6..14], &scheme().as_u64().to_le_bytes());
    assert_eq!(&bytes[14..18], &4u32.to_le_bytes());
    assert_eq!(&bytes[18..26], &3u64.to_le_bytes());
    assert_eq!(bytes[26], 0);
    assert_eq!(&bytes[27..35], &1u64.to_le_bytes());
    assert_eq!(&bytes[35..43], &0x765u64.to_le_bytes());
    assert_eq!(bytes.len(), 51);
}

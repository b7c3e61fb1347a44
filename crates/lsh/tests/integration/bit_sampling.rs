#![allow(clippy::unwrap_used)]
//! Banded bit-sampling LSH: the candidate rate of pairs of long bit signatures at a
//! known Hamming distance follows `p^r` per band and the S-curve `1 − (1 − p^r)^b`
//! for bit agreement `p = 1 − h/m`.
//!
//! Each trial draws a fresh sampler (seed = trial number, a fixed list) and a random
//! `m`-bit signature with a copy at exactly `h` bits, so the sampled positions are
//! independent of the pair, which is the model behind `p^r`. Observed rates must lie
//! within 4 binomial standard errors of the prediction (a false alarm is a ~6e-5
//! event per check).

use crate::common::{self, kind};

use ndd_core::{BitSignature, ErrorKind, Estimate, SchemeId, Signature, SlotSignature};
use ndd_lsh::{BitSampler, LshIndex, LshParams, candidate_pairs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Debug)]
struct Bits {
    words: Vec<u64>,
    num_bits: usize,
}

impl Signature for Bits {
    fn scheme(&self) -> SchemeId {
        SchemeId::new("test-bits")
            .with(self.num_bits as u64)
            .finish()
    }
    fn similarity(&self, o: &Self) -> Result<Estimate, ndd_core::Error> {
        let h: u32 = self
            .words
            .iter()
            .zip(&o.words)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        Ok(Estimate::exact(1.0 - f64::from(h) / self.num_bits as f64))
    }
}

impl BitSignature for Bits {
    fn words(&self) -> &[u64] {
        &self.words
    }
    fn num_bits(&self) -> usize {
        self.num_bits
    }
}

fn random_bits(rng: &mut ChaCha8Rng, m: usize) -> Bits {
    let mut words: Vec<u64> = (0..m.div_ceil(64)).map(|_| rng.random()).collect();
    if m % 64 != 0 {
        let last = words.len() - 1;
        words[last] &= (1u64 << (m % 64)) - 1;
    }
    Bits { words, num_bits: m }
}

/// A copy of `a` with exactly `h` distinct bits flipped.
fn at_distance(rng: &mut ChaCha8Rng, a: &Bits, h: usize) -> Bits {
    let mut b = a.clone();
    let mut flipped = std::collections::BTreeSet::new();
    while flipped.len() < h {
        flipped.insert(rng.random_range(0..a.num_bits));
    }
    for i in flipped {
        b.words[i / 64] ^= 1 << (i % 64);
    }
    b
}

#[test]
fn band_agreement_is_p_to_the_r_and_candidates_follow_the_s_curve() {
    let m = 384; // paper 000's Charikar baseline length
    let params = LshParams::new(12, 8).unwrap();
    let trials = 3000;
    let mut rng = ChaCha8Rng::seed_from_u64(0xb175_0001);
    for h in [0usize, 8, 24, 48, 96, 160] {
        let p = 1.0 - h as f64 / m as f64;
        let (mut band_agree, mut candidates) = (0usize, 0usize);
        for trial in 0..trials {
            let sampler = BitSampler::new(params, m, trial as u64).unwrap();
            let a = random_bits(&mut rng, m);
            let b = at_distance(&mut rng, &a, h);
            let ka = params
                .band_keys(sampler.sample(&a).unwrap().slots())
                .unwrap();
            let kb = params
                .band_keys(sampler.sample(&b).unwrap().slots())
                .unwrap();
            // Band 0 for the per-band rate (bands are exchangeable).
            band_agree += usize::from(ka[0] == kb[0]);
            candidates += usize::from(ka.iter().zip(&kb).any(|(x, y)| x == y));
        }
        common::within_4_se(
            band_agree,
            trials,
            sampler_band(params, p),
            &format!("band, h={h}"),
        );
        common::within_4_se(
            candidates,
            trials,
            params.probability(p),
            &format!("S-curve, h={h}"),
        );
    }
}

fn sampler_band(params: LshParams, p: f64) -> f64 {
    BitSampler::new(params, 64, 0).unwrap().band_probability(p)
}

#[test]
fn index_over_sampled_bits_finds_near_and_skips_far() {
    let m = 1024;
    let sampler = BitSampler::new(LshParams::new(20, 24).unwrap(), m, 9).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let docs: Vec<Bits> = (0..50).map(|_| random_bits(&mut rng, m)).collect();
    let mut index = LshIndex::builder(sampler.params())
        .keep_signatures(true)
        .build();
    for (i, d) in docs.iter().enumerate() {
        index.insert(i, &sampler.sample(d).unwrap()).unwrap();
    }
    // Random 1024-bit signatures agree on ~half their bits: p^24 ≈ 6e-8 per band.
    assert!(index.all_pairs().is_empty());
    let near = at_distance(&mut rng, &docs[7], 10);
    let hits = index.query(&sampler.sample(&near).unwrap()).unwrap();
    assert_eq!(hits, vec![7]);
    let sampled: Vec<_> = docs.iter().map(|d| sampler.sample(d).unwrap()).collect();
    assert!(
        candidate_pairs(&sampled, sampler.params())
            .unwrap()
            .is_empty()
    );
    // Similarity of samples estimates the bit agreement.
    let e = sampler
        .sample(&near)
        .unwrap()
        .similarity(&sampler.sample(&docs[7]).unwrap())
        .unwrap();
    assert!((e.value() - (1.0 - 10.0 / 1024.0)).abs() <= 4.0 * e.std_error().max(0.005));
}

#[test]
fn sampler_errors_are_typed() {
    let p = LshParams::new(4, 4).unwrap();
    assert_eq!(kind(BitSampler::new(p, 0, 1)), ErrorKind::InvalidParameter);
    assert_eq!(
        kind(BitSampler::new(p, (1 << 32) + 1, 1)),
        ErrorKind::InvalidParameter
    );
    // Parameters banding more positions than the sampler takes (2^28) cannot be made
    // at all now: LshParams refuses more than MAX_BANDED_SLOTS.
    assert!(LshParams::new(1 << 15, 1 << 14).is_err());
    let s = BitSampler::new(p, 128, 1).unwrap();
    let wrong_len = Bits {
        words: vec![0; 4],
        num_bits: 256,
    };
    assert_eq!(kind(s.sample(&wrong_len)), ErrorKind::LengthMismatch);
    let short_words = Bits {
        words: vec![0; 1],
        num_bits: 128,
    };
    assert_eq!(kind(s.sample(&short_words)), ErrorKind::InvalidInput);
    let mut keys = vec![1];
    assert!(s.band_keys_into(&short_words, &mut keys).is_err());
    assert_eq!(keys, vec![1]);
    // Samples of different samplers (seeds) are incompatible.
    let t = BitSampler::new(p, 128, 2).unwrap();
    let x = Bits {
        words: vec![3, 4],
        num_bits: 128,
    };
    let (sx, tx) = (s.sample(&x).unwrap(), t.sample(&x).unwrap());
    assert_eq!(kind(sx.similarity(&tx)), ErrorKind::Incompatible);
    let mut index = LshIndex::new(p);
    index.insert(1u8, &sx).unwrap();
    assert_eq!(kind(index.insert(2, &tx)), ErrorKind::Incompatible);
}

#[test]
fn positions_are_stable_and_uniform() {
    let s = BitSampler::new(LshParams::new(1000, 10).unwrap(), 100, 0x5eed).unwrap();
    // Golden: the first positions pin the specified derivation
    // ⌊fmix64(seed ⊕ fmix64(i + 1)) · m / 2^64⌋, computed independently in Python:
    //   M = 2**64 - 1
    //   def mix(x):
    //       x ^= x >> 33; x = x * 0xff51afd7ed558ccd & M; x ^= x >> 33
    //       x = x * 0xc4ceb9fe1a85ec53 & M; return x ^ (x >> 33)
    //   [mix(0x5eed ^ mix(i + 1)) * 100 >> 64 for i in range(8)]
    assert_eq!(&s.positions()[..8], &[73, 67, 68, 62, 57, 5, 97, 0]);
    let again = BitSampler::new(LshParams::new(1000, 10).unwrap(), 100, 0x5eed).unwrap();
    assert_eq!(s.positions(), again.positions());
    // Uniform over 100 bits: each count ~ Binomial(10000, 0.01), SE ≈ 9.95.
    let mut counts = [0usize; 100];
    for &p in s.positions() {
        counts[p as usize] += 1;
    }
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - 100.0).powi(2) / 100.0)
        .sum();
    // χ² with 99 degrees of freedom: mean 99, SD 14; 99 + 4·14 = 155.
    assert!(chi2 < 155.0, "chi2 = {chi2}");
}

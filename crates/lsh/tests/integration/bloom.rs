#![allow(clippy::unwrap_used)]
//! `LshBloom` against the banded index it replaces (real text) and its false-positive
//! rate against the formula (random band keys, many seeds); the byte form.

use crate::common::{self, kind};

use ndd_core::{ErrorKind, SchemeId};
use ndd_lsh::{LshBloom, LshIndex, LshParams, PlainSlots};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn flags_every_document_the_banded_index_finds_and_few_others_on_real_text() {
    let texts = common::texts();
    let (_, sigs) = common::sketch(&texts);
    let params = LshParams::for_threshold(0.8, 128).unwrap();
    // A small filter on purpose, so false positives happen: 1% per band at capacity.
    let mut bloom = LshBloom::new(params, texts.len(), 0.01).unwrap();
    let mut index = LshIndex::new(params);
    let (mut true_flags, mut false_flags, mut clean) = (0usize, 0usize, 0usize);
    let mut found = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        found.clear();
        index.query_then_insert(i, s, &mut found).unwrap();
        let flagged = bloom.check_then_insert(s).unwrap();
        if found.is_empty() {
            clean += 1;
            false_flags += usize::from(flagged);
        } else {
            assert!(
                flagged,
                "document {i} has candidates {found:?} but was not flagged"
            );
            true_flags += 1;
        }
    }
    assert!(true_flags > 100, "{true_flags}");
    // Each clean document i met a filter holding i < n documents, so its chance of a
    // false flag is at most P(n) ≤ 9 · 1%; over `clean` documents the count is at most
    // binomial(clean, P(n)): bound it by mean + 4 SD.
    let p = bloom.false_positive_rate();
    let mean = clean as f64 * p;
    let bound = mean + 4.0 * (mean * (1.0 - p)).sqrt();
    eprintln!("clean {clean}, false flags {false_flags}, bound {bound:.1} (P(n) = {p:.4})");
    assert!((false_flags as f64) <= bound);
    // Memory: far below the banded index's.
    let per_doc = bloom.bytes_per_document();
    assert!(
        per_doc * 4.0 < index.memory().bytes_per_document(),
        "{per_doc}"
    );
}

#[test]
fn false_positive_rate_matches_the_formula_over_many_seeds() {
    // For 20 seeds: fill a filter to capacity with random signatures, then check 5,000
    // fresh ones (which share no band key with the inserted, up to a 2^-64 chance).
    // Per band, a check is a Bernoulli trial with the rate p_band(n); across bands and
    // seeds the count of positives is binomial. The observed rate per seed must sit
    // within 4 standard errors of the formula P(n) = 1 − (1 − p_band(n))^b, and so
    // must the pooled rate (a 4-SE excursion is a ~6e-5 event per check; the seeds
    // are fixed, so the test is deterministic).
    let scheme = SchemeId::new("bloom-stat").finish();
    let mut master = ChaCha8Rng::seed_from_u64(0xb100_f11e);
    let (n, checks) = (3000usize, 5000usize);
    let (mut pooled_hits, mut pooled_trials, mut pooled_p) = (0u64, 0u64, 0.0);
    for seed in 0..20 {
        let mut rng = ChaCha8Rng::seed_from_u64(master.random());
        let band_rate = [0.01, 0.05, 0.002][seed % 3];
        // One band (the document rate is the band rate) or eight.
        let params = if seed % 2 == 0 {
            LshParams::new(1, 16).unwrap()
        } else {
            LshParams::new(8, 2).unwrap()
        };
        let mut bloom = LshBloom::new(params, n, band_rate).unwrap();
        let random_sig = |rng: &mut ChaCha8Rng| {
            PlainSlots::new(scheme, (0..16).map(|_| rng.random()).collect::<Vec<u64>>()).unwrap()
        };
        for _ in 0..n {
            bloom.insert(&random_sig(&mut rng)).unwrap();
        }
        let p_band = bloom.band_false_positive_rate();
        let p_doc = bloom.false_positive_rate();
        // The formula at capacity is the stated rate, up to rounding of h.
        assert!(
            (p_band - band_rate).abs() < 0.25 * band_rate,
            "{p_band} vs {band_rate}"
        );
        let mut flagged = 0u64;
        for _ in 0..checks {
            flagged += u64::from(bloom.contains(&random_sig(&mut rng)).unwrap());
        }
        let trials = checks as f64;
        let rate = flagged as f64 / trials;
        let se = (p_doc * (1.0 - p_doc) / trials).sqrt();
        eprintln!(
            "seed {seed}: p_band {p_band:.5}, P {p_doc:.5}, observed {rate:.5} (4 SE {:.5})",
            4.0 * se
        );
        assert!(
            (rate - p_doc).abs() <= 4.0 * se,
            "seed {seed}: {rate} vs {p_doc}"
        );
        pooled_hits += flagged;
        pooled_trials += checks as u64;
        pooled_p += p_doc * trials;
    }
    let pooled = pooled_hits as f64 / pooled_trials as f64;
    let expected = pooled_p / pooled_trials as f64;
    let se = (expected * (1.0 - expected) / pooled_trials as f64).sqrt();
    eprintln!(
        "pooled: observed {pooled:.5}, formula {expected:.5}, 4 SE {:.5}",
        4.0 * se
    );
    assert!((pooled - expected).abs() <= 4.0 * se);
}

#[test]
fn byte_form_round_trips_and_refuses_corruption() {
    let texts = common::texts();
    let (_, sigs) = common::sketch(&texts[..60]);
    let params = LshParams::new(9, 13).unwrap();
    let mut bloom = LshBloom::new(params, 100, 0.01).unwrap();
    for s in &sigs[..30] {
        bloom.insert(s).unwrap();
    }
    let bytes = bloom.to_bytes();
    let loaded = LshBloom::from_bytes(&bytes).unwrap();
    assert_eq!(loaded, bloom);
    for s in &sigs {
        assert_eq!(loaded.contains(s).unwrap(), bloom.contains(s).unwrap());
    }
    common::truncations_and_bit_flips_are_refused(&bytes, LshBloom::from_bytes, 11, 2000);
    // Forged shapes with valid checksums: a huge word count, bits past the end.
    let forge = |bits: u64, words: &[u64]| {
        let mut w = ndd_core::codec::ByteWriter::new(*b"LSHB", 1);
        for v in [1u64, 1, bits, 3, 10, 0] {
            w.u64(v);
        }
        w.u8(0);
        w.u64(0);
        w.u64_slice(words);
        w.finish()
    };
    assert!(LshBloom::from_bytes(&forge(64, &[0])).is_ok());
    assert!(LshBloom::from_bytes(&forge(65, &[0])).is_err());
    assert!(LshBloom::from_bytes(&forge(10, &[1 << 12])).is_err());
    assert!(LshBloom::from_bytes(&forge(1 << 40, &[0])).is_err());
    // Another scheme is refused.
    let other = common::foreign_signature();
    assert_eq!(kind(bloom.contains(&other)), ErrorKind::Incompatible);
}

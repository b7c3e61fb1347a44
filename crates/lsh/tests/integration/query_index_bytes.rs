#![allow(clippy::unwrap_used)]
//! Loading forged bytes with a valid checksum: mostly valid shapes with a few
//! documents, perturbed (so that parameters are often valid and the documents' parts
//! get read), and
//! every load ends in a value whose bytes load again or a `CorruptData` error, never a
//! panic or an allocation the bytes do not justify.

use ndd_core::ErrorKind;
use ndd_core::codec::ByteWriter;
use ndd_lsh::{LshBloom, LshEnsemble, LshForest};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Usually `v`, sometimes a neighbour or any `u64`.
fn near(rng: &mut ChaCha8Rng, v: u64) -> u64 {
    match rng.random_range(0..12) {
        0 => rng.random(),
        1 => v.wrapping_add(1),
        2 => v.wrapping_sub(1),
        _ => v,
    }
}

/// The flag byte (usually 1, sometimes any byte) and the scheme (one of three) that
/// every form writes before its documents.
fn flag_and_scheme(rng: &mut ChaCha8Rng, w: &mut ByteWriter) {
    w.u8(if rng.random_bool(0.9) {
        1
    } else {
        rng.random()
    });
    w.u64(rng.random_range(0..3));
}

/// Forest bytes: a mostly valid shape with a few documents, perturbed.
fn forge_forest(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let (trees, depth) = (rng.random_range(1..4u64), rng.random_range(1..4u64));
    let n = rng.random_range(0..5u64);
    let mut w = ByteWriter::new(*b"LSHF", 1);
    w.u64(near(rng, trees));
    w.u64(near(rng, depth));
    flag_and_scheme(rng, &mut w);
    w.u64(near(rng, n));
    for _ in 0..n {
        w.u64(rng.random_range(0..4)); // keys repeat sometimes
        for _ in 0..near(rng, trees * depth).min(64) {
            w.u64(rng.random_range(0..3));
        }
    }
    w.finish()
}

/// Ensemble bytes: a mostly valid shape with a few documents, perturbed.
fn forge_ensemble(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let k = rng.random_range(1..6u64);
    let n = rng.random_range(0..5u64);
    let mut w = ByteWriter::new(*b"LSHE", 1);
    w.f64([0.5, 0.8, 0.0, 1.5, f64::NAN][rng.random_range(0..5)]);
    w.u64(near(rng, k));
    w.u64(rng.random_range(0..=k + 1));
    w.u8(rng.random_range(0..4));
    w.f64([0.5, 0.0, -1.0, f64::INFINITY][rng.random_range(0..4)]);
    w.f64([0.5, 0.0, 0.9][rng.random_range(0..3)]);
    flag_and_scheme(rng, &mut w);
    w.u64(near(rng, n));
    for _ in 0..n {
        w.u64(rng.random_range(0..4));
        w.u64(rng.random_range(0..50));
        for _ in 0..near(rng, k).min(64) {
            w.u64(rng.random_range(0..3));
        }
    }
    w.finish()
}

/// Bloom bytes: a mostly valid shape, perturbed.
fn forge_bloom(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let bands = rng.random_range(1..4u64);
    let bits = [1u64, 63, 64, 65, 200][rng.random_range(0..5)];
    let words = bits.div_ceil(64) * bands;
    let mut w = ByteWriter::new(*b"LSHB", 1);
    w.u64(near(rng, bands));
    w.u64(rng.random_range(0..4));
    w.u64(near(rng, bits));
    w.u64(rng.random_range(0..35));
    w.u64(rng.random_range(0..5));
    w.u64(rng.random_range(0..5));
    flag_and_scheme(rng, &mut w);
    let v: Vec<u64> = (0..near(rng, words).min(64))
        .map(|_| {
            if rng.random_bool(0.7) {
                rng.random::<u64>() & 1
            } else {
                rng.random()
            }
        })
        .collect();
    w.u64_slice(&v);
    w.finish()
}

/// Loads `bytes`: a value (counted in `ok`) whose own bytes load again, or a
/// `CorruptData` error.
fn check<T>(
    ok: &mut usize,
    bytes: &[u8],
    save: fn(&T) -> Vec<u8>,
    load: fn(&[u8]) -> Result<T, ndd_core::Error>,
) {
    match load(bytes) {
        Ok(v) => {
            *ok += 1;
            let bytes = save(&v);
            load(&bytes).unwrap();
        }
        Err(e) => assert_eq!(e.kind(), ErrorKind::CorruptData, "{e}"),
    }
}

type Forest = LshForest<u64>;
type Ensemble = LshEnsemble<u64>;

#[test]
fn forged_bodies_with_valid_checksums_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xf0_96ed);
    let mut ok = [0usize; 3];
    for _ in 0..3000 {
        let b = forge_forest(&mut rng);
        check(&mut ok[0], &b, Forest::to_bytes, Forest::from_bytes);
        let b = forge_ensemble(&mut rng);
        check(&mut ok[1], &b, Ensemble::to_bytes, Ensemble::from_bytes);
        let b = forge_bloom(&mut rng);
        check(&mut ok[2], &b, LshBloom::to_bytes, LshBloom::from_bytes);
    }
    eprintln!("loaded: {ok:?} of 3000 each");
    // The forgeries reach the documents' parts: many load.
    assert!(ok.iter().all(|&k| k > 20), "{ok:?}");
}

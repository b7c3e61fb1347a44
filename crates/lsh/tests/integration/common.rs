//! The bundled real corpus (`data/debian-copyright.jsonl`, 562 Debian copyright files)
//! as word 5-gram sets and 128-slot MinHash signatures, for the tests that compare an
//! index with brute force.

#![allow(clippy::unwrap_used, dead_code)]

use ndd_core::codec::ByteWriter;
use ndd_core::{DocSketcher, ErrorKind, FeatureExtractor, FeatureSet, SchemeId, SlotSignature};
use ndd_lsh::PlainSlots;
use ndd_minhash::{MinHashSignature, MinHasher};
use ndd_shingle::WordShingler;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The texts, in file order.
pub(crate) use crate::corpus::bundled as texts;

/// Shingle sets (word 5-grams) and MinHash signatures (128 slots, seed 0) of `texts`.
pub(crate) fn sketch(texts: &[String]) -> (Vec<FeatureSet>, Vec<MinHashSignature>) {
    let shingler = WordShingler::new(5).unwrap();
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .build_with(shingler.clone())
        .unwrap();
    let sets = texts.iter().map(|t| shingler.feature_set(t)).collect();
    let sigs = texts.iter().map(|t| hasher.sketch(t)).collect();
    (sets, sigs)
}

/// [`sketch`] of every text of the corpus.
pub(crate) fn sketched_corpus() -> (Vec<FeatureSet>, Vec<MinHashSignature>) {
    sketch(&texts())
}

/// Classic MinHash signatures (128 independent hash functions, seed 0) of `texts`:
/// slots that agree independently with probability J, the model of the S-curve.
pub(crate) fn sketch_classic(texts: &[String]) -> Vec<MinHashSignature> {
    let hasher = MinHasher::builder()
        .scheme(ndd_minhash::MinHashScheme::Classic)
        .num_hashes(128)
        .build_with(WordShingler::new(5).unwrap())
        .unwrap();
    texts.iter().map(|t| hasher.sketch(t)).collect()
}

/// Asserts that `observed` of `n` trials is within 4 binomial standard errors of the
/// predicted probability `p` (with a fixed seed, a false alarm is a ~6e-5 event).
pub(crate) fn within_4_se(observed: usize, n: usize, p: f64, what: &str) {
    let rate = observed as f64 / n as f64;
    let se = (p * (1.0 - p) / n as f64).sqrt().max(1.0 / n as f64);
    assert!(
        (rate - p).abs() <= 4.0 * se,
        "{what}: observed {rate:.5} vs predicted {p:.5} (4 SE = {:.5})",
        4.0 * se
    );
}

/// The slots of each signature, as plain rows.
pub(crate) fn slot_rows(sigs: &[MinHashSignature]) -> Vec<Vec<u64>> {
    sigs.iter().map(|s| s.slots().to_vec()).collect()
}

/// Asserts that `load` refuses every truncation of the byte form `bytes` as corrupt
/// data, and `flips` copies with one random bit flipped (the seed fixes which).
pub(crate) fn truncations_and_bit_flips_are_refused<T>(
    bytes: &[u8],
    load: fn(&[u8]) -> Result<T, ndd_core::Error>,
    seed: u64,
    flips: usize,
) {
    for cut in 0..bytes.len() {
        let err = load(&bytes[..cut]).err().map(|e| e.kind());
        assert_eq!(err, Some(ErrorKind::CorruptData), "cut at {cut}");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..flips {
        let mut bad = bytes.to_vec();
        let i = rng.random_range(0..bad.len());
        bad[i] ^= 1 << rng.random_range(0..8);
        assert!(load(&bad).is_err());
    }
}

/// The kind of the error that `r` must be.
pub(crate) fn kind<T: std::fmt::Debug>(r: Result<T, ndd_core::Error>) -> ErrorKind {
    r.unwrap_err().kind()
}

/// A 128-slot signature of a scheme (`"other"`) that no test index holds.
pub(crate) fn foreign_signature() -> PlainSlots {
    PlainSlots::new(SchemeId::new("other").finish(), vec![0; 128]).unwrap()
}

/// Ends a hand-made form's header with the scheme flag (bit 1), scheme 0 and a count
/// of `count` documents, none of which follow.
pub(crate) fn forged_count(mut w: ByteWriter, count: u64) -> Vec<u8> {
    w.u8(1);
    w.u64(0);
    w.u64(count);
    w.finish()
}

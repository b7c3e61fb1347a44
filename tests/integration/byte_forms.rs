//! Every saved form behind a recomputed checksum (issue "bounded work"): bytes edited
//! and truncated, then given a valid checksum again so that they reach the decoder,
//! load as a typed error or as a value whose own bytes load back to the same bytes;
//! never a panic. (The index forms have the same test in ndd-lsh; the document
//! frequencies in ndd-core.)
#![allow(clippy::unwrap_used)]

use near_dup::hash::stable_hash64;
use near_dup::imatch::{IMatchSignature, Lexicon};
use near_dup::lsh::{BitSampler, LshParams, PlainSlots, SampledBits};
use near_dup::minhash::{BBitSignature, MinHashSignature, MinHasher};
use near_dup::pipeline::{Dedup, DedupIndex, Document};
use near_dup::prelude::*;
use near_dup::simhash::{SimHashSignature, SimHasher};
use near_dup::stats::DocumentFrequencies;
use proptest::prelude::*;

/// `bytes` with `edits` applied to the body (all but the 8-byte checksum), `cut` bytes
/// dropped from its end, and the checksum recomputed.
fn resealed(bytes: &[u8], edits: &[(prop::sample::Index, u8)], cut: usize) -> Vec<u8> {
    let mut body = bytes[..bytes.len() - 8].to_vec();
    for (at, x) in edits {
        let i = at.index(body.len());
        body[i] ^= x;
    }
    body.truncate(body.len().saturating_sub(cut));
    let check = stable_hash64(&body, 0);
    body.extend_from_slice(&check.to_le_bytes());
    body
}

/// `(type name, sample's bytes, load then save)` of each `Type: sample`.
macro_rules! forms {
    ($($ty:ident: $sample:expr),* $(,)?) => {
        vec![$((
            stringify!($ty),
            $sample.to_bytes(),
            Box::new(|b: &[u8]| $ty::from_bytes(b).ok().map(|v| v.to_bytes()))
                as Box<dyn Fn(&[u8]) -> Option<Vec<u8>>>,
        )),*]
    };
}

/// One sample of every form, and how to load it and save what loaded.
#[allow(clippy::type_complexity)]
fn forms() -> Vec<(&'static str, Vec<u8>, Box<dyn Fn(&[u8]) -> Option<Vec<u8>>>)> {
    let hasher = MinHasher::new(16).unwrap();
    let sig = hasher.sketch("one two three four five six seven eight nine ten");
    let bbit = BBitSignature::from_minhash(&sig, 4).unwrap();
    let sim = SimHasher::new(64)
        .unwrap()
        .sketch("one two three four five six");
    let scheme = near_dup::SchemeId::new("forms").finish();
    let imatch = IMatchSignature::from_parts(scheme, vec![Some([3; 20]), None]).unwrap();
    let slots = PlainSlots::new(scheme, vec![1, 2, 3]).unwrap();
    let sampler = BitSampler::new(LshParams::new(2, 3).unwrap(), 64, 9).unwrap();
    let sampled = sampler.sample(&sim).unwrap();
    let mut stats = DocumentFrequencies::new(scheme);
    for d in 0..50u64 {
        stats.add_document(&[d % 7, d % 11 + 100, d % 3 + 200]);
    }
    let lexicon = Lexicon::builder()
        .nidf_window(0.0, 1.0)
        .build(&stats)
        .unwrap();
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index
        .add(&[
            Document::new("a", "the quick brown fox jumps over the lazy dog"),
            Document::new("b", "the quick brown fox jumps over the lazy dog!"),
        ])
        .unwrap();
    forms![
        MinHashSignature: sig,
        BBitSignature: bbit,
        SimHashSignature: sim,
        IMatchSignature: imatch,
        PlainSlots: slots,
        SampledBits: sampled,
        Lexicon: lexicon,
        DedupIndex: index,
    ]
}

#[test]
fn every_sample_round_trips() {
    for (name, bytes, load) in forms() {
        let loaded = load(&bytes);
        assert_eq!(loaded.as_deref(), Some(&bytes[..]), "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn edits_behind_a_valid_checksum_load_or_are_refused(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in 0usize..24,
    ) {
        for (name, bytes, load) in forms() {
            let altered = resealed(&bytes, &edits, cut);
            if let Some(saved) = load(&altered) {
                // What loaded saves to bytes that load to the same bytes.
                let again = load(&saved);
                prop_assert_eq!(again.as_deref(), Some(&saved[..]), "{}", name);
            }
        }
    }
}

#![allow(clippy::unwrap_used)]
//! Every error case of the index, the batch join and the plain signature: a typed
//! error, never a panic, and nothing changed.

use crate::common::kind;

use ndd_core::{CandidateIndex, ErrorKind, SchemeId, Signature};
use ndd_lsh::{LshIndex, LshParams, PlainSlots, candidate_pairs};

fn scheme(tag: &str) -> SchemeId {
    SchemeId::new(tag).finish()
}

fn sig(tag: &str, slots: &[u64]) -> PlainSlots {
    PlainSlots::new(scheme(tag), slots.to_vec()).unwrap()
}

#[test]
fn mismatched_scheme_is_incompatible() {
    let mut index: LshIndex<u32, PlainSlots> = LshIndex::new(LshParams::new(2, 2).unwrap());
    // Before any insert, a query of any scheme is fine (and finds nothing).
    assert!(index.query(&sig("b", &[1, 2, 3, 4])).unwrap().is_empty());
    index.insert(1, &sig("a", &[1, 2, 3, 4])).unwrap();
    let other = sig("b", &[1, 2, 3, 4]);
    assert_eq!(kind(index.insert(2, &other)), ErrorKind::Incompatible);
    assert_eq!(kind(index.query(&other)), ErrorKind::Incompatible);
    let mut out = vec![99];
    assert_eq!(
        kind(index.query_then_insert(3, &other, &mut out)),
        ErrorKind::Incompatible
    );
    assert_eq!(out, vec![99]);
    assert_eq!(
        kind(CandidateIndex::insert(&mut index, 4, &other)),
        ErrorKind::Incompatible
    );
    // Re-inserting an existing key with a bad signature leaves the old entry.
    assert!(index.insert(1, &other).is_err());
    assert_eq!(index.len(), 1);
    assert_eq!(index.query(&sig("a", &[1, 2, 3, 4])).unwrap(), vec![1]);
    // The scheme stays fixed after the index empties.
    assert!(index.remove(&1));
    assert_eq!(kind(index.insert(5, &other)), ErrorKind::Incompatible);

    let mixed = [sig("a", &[1, 2, 3, 4]), sig("b", &[1, 2, 3, 4])];
    assert_eq!(
        kind(candidate_pairs(&mixed, LshParams::new(2, 2).unwrap())),
        ErrorKind::Incompatible
    );
    assert_eq!(
        kind(mixed[0].similarity(&mixed[1])),
        ErrorKind::Incompatible
    );
}

#[test]
fn too_short_signature_is_invalid_parameter() {
    let params = LshParams::new(9, 13).unwrap();
    let mut index: LshIndex<u32, PlainSlots> =
        LshIndex::builder(params).keep_signatures(true).build();
    let short = sig("a", &[0; 116]);
    assert_eq!(kind(index.insert(1, &short)), ErrorKind::InvalidParameter);
    assert_eq!(kind(index.query(&short)), ErrorKind::InvalidParameter);
    assert_eq!(
        kind(index.query_then_insert(1, &short, &mut Vec::new())),
        ErrorKind::InvalidParameter
    );
    assert_eq!(
        kind(index.query_verified(&short, 0.5)),
        ErrorKind::InvalidParameter
    );
    assert!(index.is_empty());
    assert_eq!(index.scheme(), None);
    assert_eq!(
        kind(candidate_pairs(std::slice::from_ref(&short), params)),
        ErrorKind::InvalidParameter
    );
    assert_eq!(
        kind(params.band_keys(&[0; 116])),
        ErrorKind::InvalidParameter
    );
    // 117 slots is enough; 128 too (the rest is ignored).
    index.insert(1, &sig("a", &[0; 117])).unwrap();
    index.insert(2, &sig("a", &[0; 128])).unwrap();
    assert_eq!(index.all_pairs().len(), 1);
}

#[test]
fn verification_errors() {
    let params = LshParams::new(2, 2).unwrap();
    let mut plain: LshIndex<u32, PlainSlots> = LshIndex::new(params);
    plain.insert(1, &sig("a", &[1, 2, 3, 4])).unwrap();
    let q = sig("a", &[1, 2, 3, 4]);
    // Both verified calls refuse threshold `t` on `index` as an invalid parameter.
    let refused = |index: &LshIndex<u32, PlainSlots>, t: f64| {
        let what = format!("threshold {t}");
        assert_eq!(
            kind(index.query_verified(&q, t)),
            ErrorKind::InvalidParameter,
            "{what}"
        );
        assert_eq!(
            kind(index.all_pairs_verified(t)),
            ErrorKind::InvalidParameter,
            "{what}"
        );
    };
    // Without kept signatures.
    refused(&plain, 0.5);
    assert!(plain.signature(&1).is_none());
    // Bad thresholds: 0, NaN, outside (0, 1].
    let mut kept: LshIndex<u32, PlainSlots> =
        LshIndex::builder(params).keep_signatures(true).build();
    kept.insert(1, &q).unwrap();
    for t in [0.0, -0.1, 1.5, f64::NAN] {
        refused(&kept, t);
    }
    // 1 is a valid verification threshold (identical signatures).
    let hits = kept.query_verified(&q, 1.0).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].1.value(), 1.0);
    // Verification on signatures of the same scheme but different lengths.
    let longer = sig("a", &[1, 2, 3, 4, 5]);
    assert_eq!(
        kind(kept.query_verified(&longer, 0.5)),
        ErrorKind::LengthMismatch
    );
}

#[test]
fn plain_slots_errors() {
    assert_eq!(
        kind(PlainSlots::new(scheme("a"), Vec::new())),
        ErrorKind::InvalidInput
    );
    let a = sig("a", &[1, 2]);
    let b = sig("a", &[1, 2, 3]);
    assert_eq!(kind(a.similarity(&b)), ErrorKind::LengthMismatch);
    assert!(format!("{a:?}").contains("len: 2"));
}

#[test]
fn empty_inputs() {
    let params = LshParams::new(2, 2).unwrap();
    assert!(
        candidate_pairs::<PlainSlots>(&[], params)
            .unwrap()
            .is_empty()
    );
    let index: LshIndex<u32, PlainSlots> = LshIndex::new(params);
    assert!(index.all_pairs().is_empty());
    assert_eq!(index.memory().bytes_per_document(), 0.0);
    let mut index = index;
    assert!(!index.remove(&3));
    // Huge capacity hints are clamped and never panic.
    let big: LshIndex<u32, PlainSlots> = LshIndex::builder(LshParams::new(1, 1).unwrap())
        .capacity(usize::MAX)
        .build();
    drop(big);
}

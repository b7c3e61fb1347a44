#![cfg(feature = "serde")]
#![allow(clippy::unwrap_used)]
//! `LshForest`, `LshEnsemble` and `LshBloom` through serde (their byte form), and a
//! corrupt serialized value refused.

use ndd_core::SchemeId;
use ndd_lsh::{
    EnsembleParams, ForestParams, LshBloom, LshEnsemble, LshForest, LshParams, PlainSlots,
};

#[test]
fn round_trip_through_json() {
    let s = SchemeId::new("serde").finish();
    let a = PlainSlots::new(s, vec![1, 2, 3, 4]).unwrap();
    let b = PlainSlots::new(s, vec![1, 2, 9, 9]).unwrap();

    let mut forest = LshForest::new(ForestParams::new(2, 2).unwrap());
    forest.insert(1u32, &a).unwrap();
    forest.insert(2u32, &b).unwrap();
    let json = serde_json::to_string(&forest).unwrap();
    let back: LshForest<u32> = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes(), forest.to_bytes());

    let mut ensemble = LshEnsemble::new(EnsembleParams::new(0.5, 4).unwrap());
    ensemble.insert(1u32, &a, 10).unwrap();
    let json = serde_json::to_string(&ensemble).unwrap();
    let back: LshEnsemble<u32> = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes(), ensemble.to_bytes());

    let mut bloom = LshBloom::new(LshParams::new(2, 2).unwrap(), 10, 0.01).unwrap();
    bloom.insert(&a).unwrap();
    let json = serde_json::to_string(&bloom).unwrap();
    let back: LshBloom = serde_json::from_str(&json).unwrap();
    assert_eq!(back, bloom);
    // One number changed: the checksum refuses it.
    let mut bad: Vec<u8> = serde_json::from_str(&json).unwrap();
    bad[10] ^= 1;
    assert!(serde_json::from_str::<LshBloom>(&serde_json::to_string(&bad).unwrap()).is_err());
}

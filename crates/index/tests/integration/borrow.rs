//! Lookups by borrowed keys: an index of `String` keys answers `&str` lookups, as a
//! `HashMap` does, for every index type.
#![allow(clippy::unwrap_used)]

use ndd_core::SchemeId;
use ndd_index::{ExactIndex, HammingIndex, HammingParams};
use ndd_lsh::{LshIndex, LshParams, PlainSlots};

#[test]
fn string_keys_are_found_and_removed_by_str() {
    let s = PlainSlots::new(SchemeId::new("b").finish(), vec![1, 2, 3, 4]).unwrap();
    let mut lsh: LshIndex<String, PlainSlots> = LshIndex::new(LshParams::new(2, 2).unwrap());
    lsh.insert("doc-1".to_owned(), &s).unwrap();
    lsh.insert("doc-2".to_owned(), &s).unwrap();
    assert!(lsh.contains_key("doc-1"));
    assert_eq!(lsh.band_keys_of("doc-1").map(<[u64]>::len), Some(2));
    assert!(lsh.remove("doc-1") && !lsh.remove("doc-1"));
    assert_eq!(lsh.query(&s).unwrap(), vec!["doc-2".to_owned()]);

    let mut exact: ExactIndex<String, PlainSlots> = ExactIndex::new();
    exact.insert("a".to_owned(), &s).unwrap();
    assert!(exact.contains_key("a") && !exact.contains_key("b"));
    assert!(exact.remove("a") && exact.is_empty());

    let mut hamming: HammingIndex<String> = HammingIndex::new(HammingParams::new(3, 6).unwrap());
    hamming.insert("x".to_owned(), 0xFFu64).unwrap();
    assert_eq!(hamming.fingerprint("x"), Some(0xFF));
    assert!(hamming.contains_key("x") && hamming.remove("x") && !hamming.contains_key("x"));
}

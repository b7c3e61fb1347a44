//! Value-stability tests: the hash specification pinned by vectors from independent
//! implementations. Changing any of these values is a value-breaking change.
//!
//! * XXH3-64 vectors: computed with python-xxhash, which wraps the reference C xxHash.
//! * fmix64 and k-gram vectors: computed by `hash_spec.py` beside this file, an
//!   independent Python implementation of the specification in `ndd_core::hash`.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::hash::{KGramRoller, kgram_hash, mix64, stable_hash64};

#[test]
fn xxh3_matches_reference_implementation() {
    let long = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(10);
    let cases: [(&[u8], u64, u64); 8] = [
        (b"", 0, 0x2d06800538d394c2),
        (b"a", 0, 0xe6c632b61e964e1f),
        (b"jack", 0, 0x2b0a4a911beeeaf0),
        (b"london", 0, 0xa7b6a18faefb7dad),
        (b"near-duplicate", 42, 0x510f2acf8f8d3c6b),
        ("café".as_bytes(), 0, 0x4c83dbd5f29d367f),
        (&[b'x'; 100], 7, 0xcb55c39477e4e803),
        (long.as_bytes(), 0, 0xf2ec8238ca4f84b2),
    ];
    for (input, seed, want) in cases {
        assert_eq!(
            stable_hash64(input, seed),
            want,
            "input {input:?} seed {seed}"
        );
    }
}

#[test]
fn fmix64_matches_spec() {
    assert_eq!(mix64(1), 0xb456bcfc34c2cb2c);
    assert_eq!(mix64(2), 0x3abf2a20650683e7);
    assert_eq!(mix64(0xdeadbeef), 0xd24bd59f862a1dac);
    assert_eq!(mix64(u64::MAX), 0x64b5720b4b825f21);
}

#[test]
fn kgram_hashes_match_spec() {
    assert_eq!(kgram_hash(&[1, 2, 3]), 0xe20389afc82776d6);
    let words = ["jack", "london", "traveled", "to", "oakland"];
    let tokens: Vec<u64> = words
        .iter()
        .map(|w| stable_hash64(w.as_bytes(), 0))
        .collect();
    let mut roller = KGramRoller::new(2).unwrap();
    let bigrams: Vec<u64> = tokens.iter().filter_map(|&t| roller.push(t)).collect();
    assert_eq!(
        bigrams,
        vec![
            0x65e10d362c9009e0,
            0x4519f3a51d81db4f,
            0x88c3f178d5973bf6,
            0x1434c53142da6378
        ]
    );
    assert_eq!(kgram_hash(&tokens), 0x7f94ea2c85db2aef);
    assert_eq!(kgram_hash(&[stable_hash64(b"jack", 7)]), 0x67159b7e6b15fbe7);
}

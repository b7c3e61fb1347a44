#![allow(clippy::unwrap_used)]
//! The LSH indexes saved and loaded with the signature types of the other crates:
//! MinHash signatures kept in an `LshIndex`, I-Match signatures (20-byte SHA-1
//! coordinates, some absent) in an `ExactIndex`.

use near_dup::codec::ByteForm;
use near_dup::imatch::IMatchSignature;
use near_dup::index::ExactIndex;
use near_dup::lsh::{LshIndex, LshParams};
use near_dup::minhash::{MinHashSignature, MinHasher};
use near_dup::{SchemeId, Sketcher};

#[test]
fn minhash_signatures_kept_in_an_lsh_index_round_trip() {
    let hasher = MinHasher::new(128).unwrap();
    let mut index = LshIndex::builder(LshParams::for_threshold(0.8, 128).unwrap())
        .keep_signatures(true)
        .build();
    let sigs: Vec<MinHashSignature> = (0..50u64)
        .map(|d| hasher.sketch_features((0..100).map(|f| f + (d / 5) * 1000 + d % 5 * 3)))
        .collect();
    for (d, s) in sigs.iter().enumerate() {
        index.insert(format!("doc-{d}"), s).unwrap();
    }
    let bytes = index.to_bytes();
    let loaded = LshIndex::<String, MinHashSignature>::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.to_bytes(), bytes);
    for s in &sigs {
        assert_eq!(loaded.query(s).unwrap(), index.query(s).unwrap());
    }
    let verified = |i: &LshIndex<String, MinHashSignature>| {
        let mut v: Vec<_> = i
            .all_pairs_verified(0.8)
            .unwrap()
            .into_iter()
            .map(|p| (p.a, p.b, p.score.to_bits()))
            .collect();
        v.sort();
        v
    };
    assert!(!verified(&index).is_empty());
    assert_eq!(verified(&loaded), verified(&index));
    // The signature's own byte form is what the index stores.
    let one = &sigs[0];
    assert_eq!(
        <MinHashSignature as ByteForm>::from_bytes(&ByteForm::to_bytes(one)).unwrap(),
        *one
    );
}

#[test]
fn imatch_signatures_in_an_exact_index_round_trip() {
    let scheme = SchemeId::new("imatch-test").finish();
    let digest = |x: u8| Some([x; 20]);
    let mut index = ExactIndex::new();
    for (k, coords) in [
        (1u64, vec![digest(1), digest(2)]),
        (2, vec![digest(1), None]),
        (3, vec![None, digest(2)]),
        (4, vec![digest(9), digest(8)]),
    ] {
        index
            .insert(k, &IMatchSignature::from_parts(scheme, coords).unwrap())
            .unwrap();
    }
    let bytes = index.to_bytes();
    let loaded = ExactIndex::<u64, IMatchSignature>::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.to_bytes(), bytes);
    let mut pairs: Vec<(u64, u64)> = loaded.all_pairs().iter().map(|p| (p.a, p.b)).collect();
    pairs.sort_unstable();
    assert_eq!(pairs, vec![(1, 2), (1, 3)]);
    let q = IMatchSignature::from_parts(scheme, vec![digest(1), None]).unwrap();
    assert_eq!(loaded.query(&q).unwrap(), index.query(&q).unwrap());
}

/// The documented way to use a saved index: rebuild the sketcher from the parameters
/// kept beside it and check its scheme; a sketcher with other parameters is refused
/// instead of answering wrongly.
#[test]
fn a_loaded_index_is_queried_by_a_rebuilt_sketcher_with_the_same_scheme() {
    use near_dup::lsh::{LshIndex, LshParams};
    use near_dup::minhash::{MinHashSignature, MinHasher};
    use near_dup::prelude::*;
    let build = |seed: u64| {
        MinHasher::builder()
            .num_hashes(128)
            .seed(seed)
            .build()
            .unwrap()
    };
    let docs = [
        "the council will meet on tuesday to discuss the new budget for the schools",
        "an unrelated text about gardening tools and the spring planting season",
    ];
    let hasher = build(42);
    let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(LshParams::new(16, 6).unwrap());
    for (i, d) in (0u32..).zip(docs) {
        index.insert(i, &hasher.sketch(d)).unwrap();
    }
    let loaded: LshIndex<u32, MinHashSignature> = LshIndex::from_bytes(&index.to_bytes()).unwrap();

    let rebuilt = build(42);
    assert_eq!(loaded.scheme(), Some(rebuilt.scheme()));
    assert_eq!(loaded.query(&rebuilt.sketch(docs[0])).unwrap(), vec![0]);
    let other = build(7);
    assert_ne!(loaded.scheme(), Some(other.scheme()));
    let err = loaded.query(&other.sketch(docs[0])).unwrap_err();
    assert_eq!(err.kind(), near_dup::ErrorKind::Incompatible);
}

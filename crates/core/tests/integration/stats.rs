//! `DocumentFrequencies` against the definition computed the slow way, merging, and
//! the byte form (round trip, corruption, impossible contents).

use std::collections::{BTreeMap, BTreeSet};

use ndd_core::codec::ByteWriter;
use ndd_core::stats::DocumentFrequencies;
use ndd_core::{ErrorKind, SchemeId};
use proptest::prelude::*;

fn scheme() -> SchemeId {
    SchemeId::new("test-features").finish()
}

/// df by definition: for each feature, the number of documents whose set contains it.
fn slow_df(docs: &[Vec<u64>]) -> BTreeMap<u64, u64> {
    let mut df = BTreeMap::new();
    for doc in docs {
        for f in doc.iter().copied().collect::<BTreeSet<u64>>() {
            *df.entry(f).or_insert(0) += 1;
        }
    }
    df
}

fn count(docs: &[Vec<u64>]) -> DocumentFrequencies {
    let mut s = DocumentFrequencies::new(scheme());
    for d in docs {
        s.add_document(d);
    }
    s
}

proptest! {
    #[test]
    fn matches_the_definition(docs in prop::collection::vec(prop::collection::vec(0u64..40, 0..30), 0..40)) {
        let s = count(&docs);
        let df = slow_df(&docs);
        prop_assert_eq!(s.num_docs(), docs.len() as u64);
        prop_assert_eq!(s.len(), df.len());
        for f in 0..45u64 {
            let d = df.get(&f).copied().unwrap_or(0);
            prop_assert_eq!(s.df(f), d);
            let n = docs.len() as f64;
            if !docs.is_empty() {
                let idf = (n / d.max(1) as f64).ln();
                prop_assert!((s.idf(f) - idf).abs() <= 1e-14 * idf.abs().max(1.0));
            }
            let nidf = s.nidf(f);
            prop_assert!((0.0..=1.0).contains(&nidf), "nidf {nidf}");
        }
    }

    #[test]
    fn merged_parts_equal_the_whole(docs in prop::collection::vec(prop::collection::vec(0u64..40, 0..20), 0..30), cut in 0usize..30) {
        let cut = cut.min(docs.len());
        let mut a = count(&docs[..cut]);
        a.merge(&count(&docs[cut..])).unwrap();
        prop_assert_eq!(a, count(&docs));
    }

    #[test]
    fn bytes_round_trip(docs in prop::collection::vec(prop::collection::vec(any::<u64>(), 0..20), 0..20)) {
        let s = count(&docs);
        let bytes = s.to_bytes();
        let back = DocumentFrequencies::from_bytes(&bytes).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.to_bytes(), bytes);
    }
}

#[test]
fn every_truncation_and_bit_flip_is_an_error() {
    let s = count(&[vec![1, 2, 3], vec![2, 3], vec![3]]);
    let bytes = s.to_bytes();
    for len in 0..bytes.len() {
        let e = DocumentFrequencies::from_bytes(&bytes[..len]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CorruptData, "truncated to {len}");
    }
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut bad = bytes.clone();
            bad[i] ^= 1 << bit;
            assert!(
                DocumentFrequencies::from_bytes(&bad).is_err(),
                "byte {i} bit {bit}"
            );
        }
    }
}

/// Well-formed bytes (valid checksum) whose contents no counting produces.
#[test]
fn impossible_contents_are_refused() {
    let encode = |n: u64, features: &[u64], counts: &[u64]| {
        let mut w = ByteWriter::new(*b"NDF1", 1);
        w.u64(scheme().as_u64());
        w.u64(n);
        w.u64_slice(features);
        w.u64_slice(counts);
        w.finish()
    };
    assert!(DocumentFrequencies::from_bytes(&encode(3, &[1, 2], &[1, 3])).is_ok());
    for bad in [
        encode(3, &[2, 1], &[1, 1]), // unsorted
        encode(3, &[1, 1], &[1, 1]), // repeated
        encode(3, &[1, 2], &[1, 4]), // df > N
        encode(3, &[1, 2], &[0, 1]), // df = 0
        encode(3, &[1, 2], &[1]),    // lengths differ
    ] {
        let e = DocumentFrequencies::from_bytes(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CorruptData);
    }
}

#[test]
fn degenerate_collections_have_defined_values() {
    let empty = DocumentFrequencies::new(scheme());
    assert_eq!((empty.idf(1), empty.nidf(1)), (0.0, 0.0));
    let one = count(&[vec![1]]);
    assert_eq!((one.idf(1), one.nidf(1)), (0.0, 0.0));
    assert!(one.idf(2).is_finite());
}

/// Statistics whose counts come from outside (saved bytes with N near 2^64) cannot
/// overflow: the loader refuses N above MAX_COUNTED_DOCS, a merge past it is an error
/// that leaves the statistics unchanged, and what is left always saves and loads.
#[test]
fn counts_from_outside_cannot_overflow() {
    use ndd_core::stats::MAX_COUNTED_DOCS;
    let scheme = SchemeId::new("w").finish();
    let form = |n: u64, df: u64| {
        let mut w = ByteWriter::new(*b"NDF1", 1);
        w.u64(scheme.as_u64());
        w.u64(n);
        w.u64_slice(&[42]);
        w.u64_slice(&[df]);
        w.finish()
    };
    assert!(DocumentFrequencies::from_bytes(&form(u64::MAX - 1, 5)).is_err());
    let mut a = DocumentFrequencies::from_bytes(&form(MAX_COUNTED_DOCS, 7)).unwrap();
    let b = DocumentFrequencies::from_bytes(&form(1, 1)).unwrap();
    let before = a.to_bytes();
    assert!(a.merge(&b).is_err());
    assert_eq!(a.to_bytes(), before);
    a.add_document(&[42, 43]);
    let reloaded = DocumentFrequencies::from_bytes(&a.to_bytes()).unwrap();
    assert_eq!(reloaded.df(42), 8);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Any payload under a valid checksum (the checksum recomputed after mutation) is
    /// a typed error or statistics that save and load to the same bytes; never a panic.
    #[test]
    fn checksum_valid_mutations_load_or_are_refused(
        n in any::<u64>(),
        feats in proptest::collection::vec(any::<u64>(), 0..8),
        counts in proptest::collection::vec(any::<u64>(), 0..8),
    ) {
        use ndd_core::codec::ByteWriter;
        let mut w = ByteWriter::new(*b"NDF1", 1);
        w.u64(7);
        w.u64(n);
        w.u64_slice(&feats);
        w.u64_slice(&counts);
        if let Ok(mut s) = DocumentFrequencies::from_bytes(&w.finish()) {
            let bytes = s.to_bytes();
            prop_assert_eq!(DocumentFrequencies::from_bytes(&bytes).unwrap().to_bytes(), bytes);
            let copy = s.clone();
            let _ = s.merge(&copy);
            s.add_document(&feats);
            prop_assert!(DocumentFrequencies::from_bytes(&s.to_bytes()).is_ok());
        }
    }
}

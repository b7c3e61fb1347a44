#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // tests: small values, loud failures
//! A bounded bucket scan (`LshIndex::set_max_bucket_scan`) against its definition
//! computed from the insertion history: per band, in band order, the `c` newest
//! documents whose band slots equal the query's, each reported the first time it is
//! met. Unbounded and bounded-but-never-reached scans give the index's usual answer.

use ndd_core::SchemeId;
use ndd_lsh::{LshIndex, LshParams, PlainSlots, ScanCuts};
use proptest::prelude::*;

fn sig(slots: &[u64]) -> PlainSlots {
    PlainSlots::new(SchemeId::new("scan").finish(), slots.to_vec()).unwrap()
}

/// The definition: `history` holds the documents inserted before the query, oldest
/// first.
fn expected(history: &[(u32, Vec<u64>)], b: usize, r: usize, c: usize, q: &[u64]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for i in 0..b {
        let band = |v: &[u64]| v[i * r..(i + 1) * r].to_vec();
        let members = history
            .iter()
            .rev()
            .filter(|(_, v)| band(v) == band(q))
            .take(c);
        for (k, _) in members {
            if !out.contains(k) {
                out.push(*k);
            }
        }
    }
    out
}

fn stream(b: usize, r: usize, alphabet: u64) -> impl Strategy<Value = Vec<Vec<u64>>> {
    proptest::collection::vec(proptest::collection::vec(0..alphabet, b * r), 1..60)
}

/// The cuts by their definition: a document's read of band `i` is cut when more than
/// `c` documents inserted before it share its band-`i` slots.
fn expected_cuts(docs: &[Vec<u64>], b: usize, r: usize, c: usize) -> ScanCuts {
    let mut cuts = ScanCuts::default();
    for (n, q) in docs.iter().enumerate() {
        let band = |v: &[u64], i: usize| v[i * r..(i + 1) * r].to_vec();
        let cut = (0..b)
            .filter(|&i| {
                docs[..n]
                    .iter()
                    .filter(|v| band(v, i) == band(q, i))
                    .count()
                    > c
            })
            .count() as u64;
        cuts.reads += cut;
        cuts.documents += u64::from(cut > 0);
    }
    cuts
}

/// An index of `b` bands of `r` rows reading at most `c` members of a bucket.
fn bounded(b: usize, r: usize, c: usize) -> LshIndex<u32, PlainSlots> {
    LshIndex::builder(LshParams::new(b, r).unwrap())
        .max_bucket_scan(Some(c))
        .build()
}

proptest! {
    #[test]
    fn scan_cuts_count_the_buckets_larger_than_the_bound(
        c in 1usize..6,
        docs in stream(3, 2, 2),
    ) {
        let mut index = bounded(3, 2, c);
        let mut found = Vec::new();
        for (k, v) in docs.iter().enumerate() {
            found.clear();
            index.query_then_insert(k as u32, &sig(v), &mut found).unwrap();
            // Plain queries do not count.
            index.query(&sig(v)).unwrap();
        }
        prop_assert_eq!(index.scan_cuts(), expected_cuts(&docs, 3, 2, c));
        // Without a bound nothing is cut.
        let mut plain: LshIndex<u32, PlainSlots> = LshIndex::new(LshParams::new(3, 2).unwrap());
        for (k, v) in docs.iter().enumerate() {
            plain.query_then_insert(k as u32, &sig(v), &mut found).unwrap();
        }
        prop_assert_eq!(plain.scan_cuts(), ScanCuts::default());
    }

    #[test]
    fn bounded_scan_is_the_newest_c_per_band(
        docs in stream(3, 2, 3),
        c in 1usize..6,
    ) {
        let (b, r) = (3, 2);
        let mut index: LshIndex<u32, PlainSlots> =
            LshIndex::builder(LshParams::new(b, r).unwrap()).max_bucket_scan(Some(c)).build();
        let mut history = Vec::new();
        let mut found = Vec::new();
        for (k, v) in docs.iter().enumerate() {
            let k = k as u32;
            let want = expected(&history, b, r, c, v);
            prop_assert_eq!(index.query(&sig(v)).unwrap(), want.clone());
            found.clear();
            index.query_then_insert(k, &sig(v), &mut found).unwrap();
            prop_assert_eq!(&found, &want);
            history.push((k, v.clone()));
        }
    }

    #[test]
    fn a_bound_never_reached_changes_nothing(docs in stream(4, 2, 4)) {
        let params = LshParams::new(4, 2).unwrap();
        let mut plain: LshIndex<u32, PlainSlots> = LshIndex::new(params);
        let mut bounded: LshIndex<u32, PlainSlots> = LshIndex::new(params);
        bounded.set_max_bucket_scan(Some(docs.len()));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (k, v) in docs.iter().enumerate() {
            a.clear();
            b.clear();
            plain.query_then_insert(k as u32, &sig(v), &mut a).unwrap();
            bounded.query_then_insert(k as u32, &sig(v), &mut b).unwrap();
            prop_assert_eq!(&a, &b);
        }
    }
}

#[test]
fn a_hot_bucket_costs_the_bound_not_its_size() {
    // 20,000 identical signatures: unbounded, the stream reports 2·10^8 pairs; with a
    // bound of 64, at most 64 per document.
    let mut index: LshIndex<u32, PlainSlots> = LshIndex::new(LshParams::new(16, 8).unwrap());
    index.set_max_bucket_scan(Some(64));
    let s = sig(&[7; 128]);
    let (mut found, mut pairs) = (Vec::new(), 0usize);
    for k in 0..20_000u32 {
        found.clear();
        index.query_then_insert(k, &s, &mut found).unwrap();
        assert_eq!(found.len(), (k as usize).min(64));
        // The newest first: the bucket stays connected through them.
        if k > 0 {
            assert_eq!(found[0], k - 1);
        }
        pairs += found.len();
    }
    assert_eq!(pairs, 64 * 20_000 - 64 * 65 / 2);
    index.set_max_bucket_scan(None);
    assert_eq!(index.query(&s).unwrap().len(), 20_000);
}

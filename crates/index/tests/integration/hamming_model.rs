#![allow(clippy::unwrap_used)]
//! Invariants of the Hamming index under random operation sequences, against a
//! brute-force model (a map from key to fingerprint): after every step the index holds
//! the model's keys, a query returns exactly the model's fingerprints within `k` bits
//! (each once, with its distance), and all pairs are the model's pairs, each once.
//! Fingerprints come from a small alphabet of near-identical values so that tables
//! have long runs, deltas fill, and merges and purges run often.

use std::collections::{BTreeMap, BTreeSet};

use ndd_index::{HammingIndex, HammingParams, hamming_pairs};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Insert(u8, u64),
    Remove(u8),
    Query(u64),
    Compact,
    AllPairs,
}

/// A fingerprint near one of four bases (a few flipped bits).
/// The distance behind a Hamming score (every score the index gives is one).
fn dist(score: f64) -> u32 {
    ndd_index::hamming_from_similarity(score).unwrap()
}

fn fingerprint() -> impl Strategy<Value = u64> {
    let bases = [0u64, u64::MAX, 0x0123_4567_89AB_CDEF, 0xFFFF_0000_FFFF_0000];
    (0..4usize, proptest::collection::vec(0..64u32, 0..6))
        .prop_map(move |(b, bits)| bits.iter().fold(bases[b], |x, &i| x ^ (1 << i)))
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..40u8, fingerprint()).prop_map(|(k, x)| Op::Insert(k, x)),
        2 => (0..40u8).prop_map(Op::Remove),
        2 => fingerprint().prop_map(Op::Query),
        1 => Just(Op::Compact),
        1 => Just(Op::AllPairs),
    ]
}

fn model_pairs(model: &BTreeMap<u8, u64>, k: u32) -> BTreeSet<(u8, u8, u32)> {
    let v: Vec<_> = model.iter().collect();
    let mut out = BTreeSet::new();
    for (i, (ka, xa)) in v.iter().enumerate() {
        for (kb, xb) in &v[i + 1..] {
            let d = (**xa ^ **xb).count_ones();
            if d <= k {
                out.insert((**ka, **kb, d));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn index_matches_the_model(
        k in 0..=4u32,
        extra_blocks in 1..=3u32,
        limit in prop_oneof![Just(None), (0..6usize).prop_map(Some)],
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let params = HammingParams::new(k, k + extra_blocks).unwrap();
        let mut index = HammingIndex::new(params).with_delta_limit(limit);
        let mut model: BTreeMap<u8, u64> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Insert(key, x) => {
                    index.insert(key, x).unwrap();
                    model.insert(key, x);
                }
                Op::Remove(key) => {
                    prop_assert_eq!(index.remove(&key), model.remove(&key).is_some());
                }
                Op::Query(q) => {
                    let got = index.query(q);
                    let set: BTreeSet<(u8, u32)> = got.iter().copied().collect();
                    prop_assert_eq!(set.len(), got.len(), "duplicate answers");
                    let want: BTreeSet<(u8, u32)> = model
                        .iter()
                        .map(|(&key, &x)| (key, (x ^ q).count_ones()))
                        .filter(|&(_, d)| d <= k)
                        .collect();
                    prop_assert_eq!(set, want);
                    // Sorted by distance.
                    prop_assert!(got.windows(2).all(|w| w[0].1 <= w[1].1));
                }
                Op::Compact => index.compact(),
                Op::AllPairs => {
                    let got = index.all_pairs();
                    let set: BTreeSet<(u8, u8, u32)> =
                        got.iter().map(|p| (p.a.min(p.b), p.a.max(p.b), dist(p.score))).collect();
                    prop_assert_eq!(set.len(), got.len(), "a pair reported twice");
                    prop_assert_eq!(set, model_pairs(&model, k));
                }
            }
            prop_assert_eq!(index.len(), model.len());
            for (key, &x) in &model {
                prop_assert_eq!(index.fingerprint(key), Some(x));
            }
        }
        // The batch join agrees with the index on the final state.
        let keys: Vec<u8> = model.keys().copied().collect();
        let fps: Vec<u64> = model.values().copied().collect();
        let batch: BTreeSet<(u8, u8, u32)> = hamming_pairs(&fps, params)
            .unwrap()
            .into_iter()
            .map(|p| (keys[p.a], keys[p.b], dist(p.score)))
            .collect();
        prop_assert_eq!(batch, model_pairs(&model, k));
    }
}

#![allow(clippy::unwrap_used)]
//! The index against a brute-force model: a document is a candidate for a signature
//! iff some band's slot values are all equal. Random operation sequences over a small
//! slot alphabet (so buckets collide, chains grow, tables grow and shrink) must give
//! the same answers as the model after every step.

use std::collections::{BTreeMap, BTreeSet};

use ndd_core::{CandidateIndex, SchemeId};
use ndd_lsh::{LshIndex, LshParams, PlainSlots, candidate_pairs};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Insert(u8, Vec<u64>),
    Remove(u8),
    Query(Vec<u64>),
    QueryThenInsert(u8, Vec<u64>),
    AllPairs,
}

fn scheme() -> SchemeId {
    SchemeId::new("model").finish()
}

fn sig(slots: &[u64]) -> PlainSlots {
    PlainSlots::new(scheme(), slots.to_vec()).unwrap()
}

/// Brute force: whether two signatures agree on every slot of some band.
fn shares_band(b: usize, r: usize, x: &[u64], y: &[u64]) -> bool {
    (0..b).any(|i| x[i * r..(i + 1) * r] == y[i * r..(i + 1) * r])
}

fn model_candidates(model: &BTreeMap<u8, Vec<u64>>, b: usize, r: usize, q: &[u64]) -> BTreeSet<u8> {
    model
        .iter()
        .filter(|(_, v)| shares_band(b, r, v, q))
        .map(|(&k, _)| k)
        .collect()
}

fn model_pairs(model: &BTreeMap<u8, Vec<u64>>, b: usize, r: usize) -> BTreeSet<(u8, u8)> {
    let docs: Vec<_> = model.iter().collect();
    let mut out = BTreeSet::new();
    for (n, (ka, va)) in docs.iter().enumerate() {
        for (kb, vb) in &docs[n + 1..] {
            if shares_band(b, r, va, vb) {
                out.insert((**ka, **kb));
            }
        }
    }
    out
}

/// Each key once, as a set.
fn as_set(keys: &[u8]) -> BTreeSet<u8> {
    let set: BTreeSet<u8> = keys.iter().copied().collect();
    assert_eq!(
        set.len(),
        keys.len(),
        "a candidate was reported twice: {keys:?}"
    );
    set
}

fn ops(len: usize, keys: u8, alphabet: u64) -> impl Strategy<Value = Vec<Op>> {
    let slots = prop::collection::vec(0..alphabet, len);
    let op = prop_oneof![
        4 => (0..keys, slots.clone()).prop_map(|(k, v)| Op::Insert(k, v)),
        2 => (0..keys).prop_map(Op::Remove),
        2 => slots.clone().prop_map(Op::Query),
        3 => (0..keys, slots).prop_map(|(k, v)| Op::QueryThenInsert(k, v)),
        1 => Just(Op::AllPairs),
    ];
    prop::collection::vec(op, 1..160)
}

fn params_and_ops() -> impl Strategy<Value = (usize, usize, usize, Vec<Op>)> {
    (1usize..=4, 1usize..=3, 0usize..=2, 2u64..=3, 8u8..=64).prop_flat_map(
        |(b, r, extra, alphabet, keys)| {
            ops(b * r + extra, keys, alphabet).prop_map(move |o| (b, r, extra, o))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn index_matches_brute_force((b, r, _extra, ops) in params_and_ops()) {
        let params = LshParams::new(b, r).unwrap();
        let mut index: LshIndex<u8, PlainSlots> =
            LshIndex::builder(params).keep_signatures(true).build();
        let mut model: BTreeMap<u8, Vec<u64>> = BTreeMap::new();
        let mut out = Vec::new();
        for op in ops {
            match op {
                Op::Insert(k, v) => {
                    index.insert(k, &sig(&v)).unwrap();
                    model.insert(k, v);
                }
                Op::Remove(k) => {
                    prop_assert_eq!(index.remove(&k), model.remove(&k).is_some());
                }
                Op::Query(v) => {
                    out.clear();
                    index.query_into(&sig(&v), &mut out).unwrap();
                    prop_assert_eq!(as_set(&out), model_candidates(&model, b, r, &v));
                    // Through the trait too.
                    let via_trait = CandidateIndex::query(&index, &sig(&v)).unwrap();
                    prop_assert_eq!(as_set(&via_trait), as_set(&out));
                }
                Op::QueryThenInsert(k, v) => {
                    out.clear();
                    index.query_then_insert(k, &sig(&v), &mut out).unwrap();
                    model.remove(&k);
                    prop_assert_eq!(as_set(&out), model_candidates(&model, b, r, &v));
                    model.insert(k, v);
                }
                Op::AllPairs => {
                    let got: Vec<(u8, u8)> = index
                        .all_pairs()
                        .into_iter()
                        .map(|p| (p.a.min(p.b), p.a.max(p.b)))
                        .collect();
                    let set: BTreeSet<(u8, u8)> = got.iter().copied().collect();
                    prop_assert_eq!(set.len(), got.len(), "a pair was reported twice");
                    prop_assert_eq!(set, model_pairs(&model, b, r));
                }
            }
            prop_assert_eq!(index.len(), model.len());
            prop_assert_eq!(CandidateIndex::len(&index), model.len());
        }

        // Final state: all-pairs, verified all-pairs, and the batch join agree.
        let want = model_pairs(&model, b, r);
        let got: BTreeSet<(u8, u8)> = index
            .all_pairs()
            .into_iter()
            .map(|p| (p.a.min(p.b), p.a.max(p.b)))
            .collect();
        prop_assert_eq!(&got, &want);

        let keys: Vec<u8> = model.keys().copied().collect();
        let sigs: Vec<PlainSlots> = model.values().map(|v| sig(v)).collect();
        let batch: BTreeSet<(u8, u8)> = candidate_pairs(&sigs, params)
            .unwrap()
            .into_iter()
            .map(|(i, j)| {
                assert!(i < j);
                (keys[i], keys[j])
            })
            .collect();
        prop_assert_eq!(&batch, &want);

        // Verification keeps exactly the candidates whose slot agreement reaches 1/2.
        let verified: BTreeSet<(u8, u8)> = index
            .all_pairs_verified(0.5)
            .unwrap()
            .into_iter()
            .map(|p| (p.a.min(p.b), p.a.max(p.b)))
            .collect();
        let agree = |x: &[u64], y: &[u64]| {
            x.iter().zip(y).filter(|(a, c)| a == c).count() as f64 / x.len() as f64
        };
        let want_verified: BTreeSet<(u8, u8)> = want
            .iter()
            .copied()
            .filter(|(x, y)| agree(&model[x], &model[y]) >= 0.5)
            .collect();
        prop_assert_eq!(verified, want_verified);

        // Band keys of stored documents are the plain per-document values.
        for (k, v) in &model {
            prop_assert_eq!(index.band_keys_of(k).unwrap(), &params.band_keys(v).unwrap()[..]);
        }
    }
}

#[test]
fn many_documents_with_heavy_duplication() {
    // Larger than the proptest: tables grow several times; buckets hold hundreds of
    // documents; removal in an order unrelated to insertion.
    let (b, r) = (3, 2);
    let params = LshParams::new(b, r).unwrap();
    let mut index: LshIndex<u32, PlainSlots> = LshIndex::new(params);
    let mut model: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    let slots_of = |i: u32| -> Vec<u64> {
        let i = u64::from(i);
        vec![i % 7, i % 5, i, i / 3, i % 11, 0]
    };
    for i in 0..3000u32 {
        index.insert(i, &sig(&slots_of(i))).unwrap();
        model.insert(i, slots_of(i));
    }
    for i in (0..3000u32).filter(|i| (i * 7919) % 3 == 0) {
        assert!(index.remove(&i));
        model.remove(&i);
    }
    for i in (0..3000u32).step_by(97) {
        let mut got = index.query(&sig(&slots_of(i))).unwrap();
        got.sort_unstable();
        let want: Vec<u32> = model
            .iter()
            .filter(|(_, v)| shares_band(b, r, v, &slots_of(i)))
            .map(|(&k, _)| k)
            .collect();
        assert_eq!(got, want, "query {i}");
    }
    // Re-insert everything removed; pairs count matches the brute force.
    for i in (0..3000u32).filter(|i| (i * 7919) % 3 == 0) {
        index.insert(i, &sig(&slots_of(i))).unwrap();
        model.insert(i, slots_of(i));
    }
    let mut count = 0usize;
    index.for_each_candidate_pair(|_, _| count += 1);
    let docs: Vec<&Vec<u64>> = model.values().collect();
    let mut want = 0usize;
    for (n, x) in docs.iter().enumerate() {
        want += docs[n + 1..]
            .iter()
            .filter(|y| shares_band(b, r, x, y))
            .count();
    }
    assert_eq!(count, want);
}

//! Every index through `CandidateIndex`: object safety, `query_then_insert` equal to
//! query then insert, and the all-pairs walk equal to brute force over each index's
//! definition; `HammingIndex` through the trait equal to its `u64` API, with the
//! scheme check every index has.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly
#![allow(clippy::cast_possible_truncation)] // indices below 100 as u32 keys

use std::collections::BTreeSet;

use ndd_core::{
    CandidateIndex, ErrorKind, ExactSet, ExactSetSketcher, PairSink, SchemeId, ScoredPair, Sketcher,
};
use ndd_index::{
    ExactIndex, HammingIndex, HammingParams, InvertedIndex, PlainFingerprint,
    hamming_from_similarity,
};
use ndd_lsh::{LshIndex, LshParams, PlainSlots};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn scheme() -> SchemeId {
    SchemeId::new("candidate-index-test").finish()
}

/// Small random slot vectors with many collisions (values in 0..4).
fn random_slots(rng: &mut ChaCha8Rng, n: usize, width: usize) -> Vec<Vec<u64>> {
    (0..n)
        .map(|_| (0..width).map(|_| rng.random_range(0..4u64)).collect())
        .collect()
}

/// Pairs `(min, max, score bits)` from a walk, checking each pair comes once.
fn walk<I: CandidateIndex<Key = u32> + ?Sized>(index: &I) -> BTreeSet<(u32, u32, u64)> {
    let mut pairs: Vec<ScoredPair<u32>> = Vec::new();
    index.all_pairs_into(&mut pairs);
    let set: BTreeSet<(u32, u32, u64)> = pairs
        .iter()
        .map(|p| (p.a.min(p.b), p.a.max(p.b), p.score.to_bits()))
        .collect();
    assert_eq!(set.len(), pairs.len(), "a pair pushed twice");
    set
}

#[test]
fn lsh_walk_and_query_then_insert_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let docs = random_slots(&mut rng, 60, 6);
    let params = LshParams::new(3, 2).unwrap();
    let mut streamed: Box<dyn CandidateIndex<Key = u32, Signature = PlainSlots>> =
        Box::new(LshIndex::new(params));
    let mut plain: LshIndex<u32, PlainSlots> = LshIndex::new(params);
    let mut found = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let key = u32::try_from(i).unwrap();
        let sig = PlainSlots::new(scheme(), d.clone()).unwrap();
        found.clear();
        streamed.query_then_insert(key, &sig, &mut found).unwrap();
        let mut want = plain.query(&sig).unwrap();
        plain.insert(key, &sig).unwrap();
        found.sort_unstable();
        want.sort_unstable();
        assert_eq!(found, want, "document {i}");
    }
    // Definition: some band (2 consecutive slots) equal; unscored.
    let mut want = BTreeSet::new();
    for (i, x) in docs.iter().enumerate() {
        for (j, y) in docs.iter().enumerate().skip(i + 1) {
            if (0..3).any(|b| x[2 * b..2 * b + 2] == y[2 * b..2 * b + 2]) {
                want.insert((i as u32, j as u32, f64::NAN.to_bits()));
            }
        }
    }
    assert!(!want.is_empty());
    assert_eq!(walk(streamed.as_ref()), want);
}

#[test]
fn exact_index_walk_and_query_then_insert_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let docs = random_slots(&mut rng, 50, 4);
    let mut index: Box<dyn CandidateIndex<Key = u32, Signature = PlainSlots>> =
        Box::new(ExactIndex::new());
    let mut found = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        found.clear();
        let sig = PlainSlots::new(scheme(), d.clone()).unwrap();
        index
            .query_then_insert(u32::try_from(i).unwrap(), &sig, &mut found)
            .unwrap();
        found.sort_unstable();
        let want: Vec<u32> = (0..i)
            .filter(|&j| docs[j].iter().zip(d).any(|(a, b)| a == b))
            .map(|j| j as u32)
            .collect();
        assert_eq!(found, want, "document {i}");
    }
    // Re-inserting a key: its old entry is not its own match.
    found.clear();
    let sig0 = PlainSlots::new(scheme(), docs[0].clone()).unwrap();
    index.query_then_insert(0, &sig0, &mut found).unwrap();
    assert!(!found.contains(&0));
    // Definition: some coordinate equal; score = fraction of coordinates shared.
    let mut want = BTreeSet::new();
    for (i, x) in docs.iter().enumerate() {
        for (j, y) in docs.iter().enumerate().skip(i + 1) {
            let shared = x.iter().zip(y).filter(|(a, b)| a == b).count();
            if shared > 0 {
                want.insert((i as u32, j as u32, (shared as f64 / 4.0).to_bits()));
            }
        }
    }
    assert_eq!(walk(index.as_ref()), want);
}

#[test]
fn inverted_index_walk_and_query_then_insert_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let sk = ExactSetSketcher::new(scheme());
    let sets: Vec<Vec<u64>> = (0..40)
        .map(|_| {
            let n = rng.random_range(0..6);
            (0..n).map(|_| rng.random_range(0..25u64)).collect()
        })
        .collect();
    let sigs: Vec<ExactSet> = sets
        .iter()
        .map(|s| sk.sketch_features(s.iter().copied()))
        .collect();
    let mut index: Box<dyn CandidateIndex<Key = u32, Signature = ExactSet>> =
        Box::new(InvertedIndex::new());
    let mut found = Vec::new();
    for (i, sig) in sigs.iter().enumerate() {
        found.clear();
        index
            .query_then_insert(u32::try_from(i).unwrap(), sig, &mut found)
            .unwrap();
        found.sort_unstable();
        let want: Vec<u32> = (0..i)
            .filter(|&j| {
                ndd_core::intersection_len(sigs[j].set().as_slice(), sig.set().as_slice()) > 0
            })
            .map(|j| j as u32)
            .collect();
        assert_eq!(found, want, "document {i}");
    }
    // Definition: at least one shared feature; score = exact Jaccard (the oracle's
    // own BTreeSet arithmetic).
    let mut want = BTreeSet::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let a: BTreeSet<u64> = sets[i].iter().copied().collect();
            let b: BTreeSet<u64> = sets[j].iter().copied().collect();
            let inter = a.intersection(&b).count();
            if inter > 0 {
                let jac = inter as f64 / a.union(&b).count() as f64;
                want.insert((i as u32, j as u32, jac.to_bits()));
            }
        }
    }
    assert!(!want.is_empty());
    assert_eq!(walk(index.as_ref()), want);
}

#[test]
fn hamming_through_the_trait_equals_its_u64_api_and_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let k = 3;
    let params = HammingParams::new(k, 5).unwrap();
    // Clusters of near fingerprints, so pairs exist.
    let fps: Vec<u64> = (0..80)
        .map(|i| {
            let base = ((i / 8) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let flips = rng.random_range(0..3);
            (0..flips).fold(base, |x, _| x ^ (1 << rng.random_range(0..64)))
        })
        .collect();
    let mut via_trait: Box<dyn CandidateIndex<Key = u32, Signature = PlainFingerprint>> =
        Box::new(HammingIndex::new(params).with_delta_limit(Some(16)));
    let mut via_u64: HammingIndex<u32> = HammingIndex::new(params).with_delta_limit(Some(16));
    let mut found = Vec::new();
    for (i, &fp) in fps.iter().enumerate() {
        let key = u32::try_from(i).unwrap();
        let sig = PlainFingerprint::new(scheme(), fp);
        found.clear();
        via_trait.query_then_insert(key, &sig, &mut found).unwrap();
        let mut want: Vec<u32> = via_u64.query(fp).into_iter().map(|(k, _)| k).collect();
        via_u64.insert(key, fp).unwrap();
        found.sort_unstable();
        want.sort_unstable();
        let brute: Vec<u32> = (0..i)
            .filter(|&j| (fps[j] ^ fp).count_ones() <= k)
            .map(|j| j as u32)
            .collect();
        assert_eq!(found, want, "document {i}");
        assert_eq!(found, brute, "document {i}");
    }
    let mut q = via_trait
        .query(&PlainFingerprint::new(scheme(), fps[0]))
        .unwrap();
    q.sort_unstable();
    let mut q64: Vec<u32> = via_u64.query(fps[0]).into_iter().map(|(k, _)| k).collect();
    q64.sort_unstable();
    assert_eq!(q, q64);
    // All pairs: trait walk = u64 all_pairs = brute force, scored 1 − h/64.
    let mut want = BTreeSet::new();
    for i in 0..fps.len() {
        for j in i + 1..fps.len() {
            let h = (fps[i] ^ fps[j]).count_ones();
            if h <= k {
                want.insert((i as u32, j as u32, (1.0 - f64::from(h) / 64.0).to_bits()));
            }
        }
    }
    assert!(!want.is_empty());
    assert_eq!(walk(via_trait.as_ref()), want);
    let from_u64: BTreeSet<(u32, u32, u64)> = via_u64
        .all_pairs()
        .into_iter()
        .map(|p| (p.a.min(p.b), p.a.max(p.b), p.score.to_bits()))
        .collect();
    assert_eq!(from_u64, want);
    let mut distances = Vec::new();
    via_u64.for_each_pair(|_, _, d| distances.push(d));
    let mut from_scores: Vec<u32> = want
        .iter()
        .map(|&(_, _, s)| hamming_from_similarity(f64::from_bits(s)).unwrap())
        .collect();
    distances.sort_unstable();
    from_scores.sort_unstable();
    assert_eq!(distances, from_scores);
}

#[test]
fn hamming_scheme_mismatch_and_width_are_refused() {
    let params = HammingParams::new(2, 4).unwrap();
    let mut index: HammingIndex<u32> = HammingIndex::new(params);
    let ours = PlainFingerprint::new(scheme(), 0b1011);
    let theirs = PlainFingerprint::new(SchemeId::new("other").finish(), 0b1011);
    CandidateIndex::insert(&mut index, 1, &ours).unwrap();
    assert_eq!(index.scheme(), Some(scheme()));
    let e = CandidateIndex::insert(&mut index, 2, &theirs).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Incompatible);
    let e = CandidateIndex::query(&index, &theirs).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Incompatible);
    let mut out = vec![7];
    let e = index.query_then_insert(3, &theirs, &mut out).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Incompatible);
    assert_eq!((out, CandidateIndex::len(&index)), (vec![7], 1));
    // The scheme survives the byte form.
    let loaded: HammingIndex<u32> = HammingIndex::from_bytes(&index.to_bytes()).unwrap();
    assert_eq!(loaded.scheme(), Some(scheme()));
    assert!(CandidateIndex::query(&loaded, &theirs).is_err());
}

#[test]
fn dyn_pair_sinks_work_through_every_index() {
    let s = scheme();
    let mut lsh: LshIndex<u32, PlainSlots> = LshIndex::new(LshParams::new(1, 1).unwrap());
    lsh.insert(1, &PlainSlots::new(s, vec![5]).unwrap())
        .unwrap();
    lsh.insert(2, &PlainSlots::new(s, vec![5]).unwrap())
        .unwrap();
    let mut counter = ndd_core::PairCounter::default();
    let sink: &mut dyn PairSink<u32> = &mut counter;
    CandidateIndex::all_pairs_into(&lsh, sink);
    assert_eq!(counter.count, 1);
}

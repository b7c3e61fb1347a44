#![allow(clippy::unwrap_used)]
//! The Hamming index and the batch join against brute force: every fingerprint
//! within `k` bits (popcount of the XOR, computed over all pairs) and nothing else,
//! for k = 0…4, every block layout from `k + 1` to `k + 4` blocks and the automatic
//! one, on random data and on adversarial data (fingerprints sharing blocks,
//! duplicates, all-zero, pairs at exactly k and k + 1 bits, differences straddling
//! block boundaries). Also: remove, the delta/merge paths, and typed errors.

use std::collections::BTreeSet;

use ndd_core::ErrorKind;
use ndd_index::{HammingIndex, HammingParams, hamming_pairs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The distance behind a Hamming score (every score the index gives is one).
fn dist(score: f64) -> u32 {
    ndd_index::hamming_from_similarity(score).unwrap()
}

/// Every pair an index reports, as `(smaller key, larger key, distance)`, sorted.
fn sorted_pairs(index: &HammingIndex<usize>) -> Vec<(usize, usize, u32)> {
    let mut pairs: Vec<(usize, usize, u32)> = index
        .all_pairs()
        .into_iter()
        .map(|p| (p.a.min(p.b), p.a.max(p.b), dist(p.score)))
        .collect();
    pairs.sort_unstable();
    pairs
}

fn brute_query(fps: &[u64], q: u64, k: u32) -> BTreeSet<(usize, u32)> {
    fps.iter()
        .enumerate()
        .filter_map(|(i, &x)| {
            let d = (x ^ q).count_ones();
            (d <= k).then_some((i, d))
        })
        .collect()
}

fn brute_pairs(fps: &[u64], k: u32) -> Vec<(usize, usize, u32)> {
    let mut out = Vec::new();
    for i in 0..fps.len() {
        for j in i + 1..fps.len() {
            let d = (fps[i] ^ fps[j]).count_ones();
            if d <= k {
                out.push((i, j, d));
            }
        }
    }
    out
}

/// Flips `n` distinct random bits of `x`.
fn flip(rng: &mut ChaCha8Rng, x: u64, n: u32) -> u64 {
    let mut mask = 0u64;
    while mask.count_ones() < n {
        mask |= 1 << rng.random_range(0..64);
    }
    x ^ mask
}

/// Random fingerprints with planted near-duplicates at distances 0…k + 2.
fn random_data(rng: &mut ChaCha8Rng, n: usize, k: u32) -> Vec<u64> {
    let mut fps: Vec<u64> = Vec::with_capacity(n);
    for _ in 0..n {
        if !fps.is_empty() && rng.random_bool(0.5) {
            let base = fps[rng.random_range(0..fps.len())];
            let d = rng.random_range(0..=k + 2);
            fps.push(flip(rng, base, d));
        } else {
            fps.push(rng.random());
        }
    }
    fps
}

/// Adversarial fingerprints: few distinct values per 8-bit block (so every table has
/// long runs of equal leading bits), exact duplicates, 0 and !0, and variants of a few
/// bases at exactly k and k + 1 bits, including differences on both sides of every
/// block boundary of every layout with up to 8 blocks.
fn adversarial(rng: &mut ChaCha8Rng, k: u32) -> Vec<u64> {
    let mut fps = vec![0u64, 0, u64::MAX, 1, 1 << 63];
    let palette = [0x00u64, 0xFF, 0x0F, 0x01];
    for _ in 0..150 {
        let mut x = 0u64;
        for byte in 0..8 {
            x |= palette[rng.random_range(0..palette.len())] << (8 * byte);
        }
        fps.push(x);
    }
    let bases: Vec<u64> = (0..4).map(|_| rng.random()).chain([0, u64::MAX]).collect();
    for &base in &bases {
        fps.push(base);
        fps.push(base); // duplicate
        for _ in 0..6 {
            fps.push(flip(rng, base, k));
            fps.push(flip(rng, base, k + 1));
        }
        // Differences straddling block boundaries: bits just below and above each
        // boundary of every layout with 1…8 blocks.
        for blocks in 1..=8u32 {
            let (base_len, extra) = (64 / blocks, 64 % blocks);
            let mut start = 0;
            for j in 0..blocks {
                start += base_len + u32::from(j < extra);
                if start >= 64 {
                    break;
                }
                let mut mask = 0u64;
                let around = [
                    start - 1,
                    start,
                    start.saturating_sub(2),
                    (start + 1).min(63),
                ];
                for &b in around.iter().take(k.min(4) as usize) {
                    mask |= 1 << b;
                }
                fps.push(base ^ mask);
                fps.push(base ^ mask ^ (1 << ((start + 7) % 64)));
            }
        }
    }
    fps
}

fn layouts_for(k: u32, n: usize) -> Vec<HammingParams> {
    let mut out: Vec<HammingParams> = (k + 1..=k + 4)
        .filter_map(|b| HammingParams::new(k, b).ok())
        .collect();
    out.push(HammingParams::for_collection(k, n).unwrap());
    out
}

fn check_all(fps: &[u64], k: u32, queries: &[u64], what: &str) {
    let expected_pairs = brute_pairs(fps, k);
    for params in layouts_for(k, fps.len()) {
        let ctx = format!("{what}: k={k} blocks={}", params.blocks());
        // Batch join.
        assert_eq!(
            hamming_pairs(fps, params)
                .unwrap()
                .into_iter()
                .map(|p| (p.a, p.b, dist(p.score)))
                .collect::<Vec<_>>(),
            expected_pairs,
            "{ctx} batch"
        );
        // Index, bulk-built.
        let index =
            HammingIndex::from_fingerprints(params, fps.iter().copied().enumerate()).unwrap();
        assert_eq!(index.delta_len(), 0);
        assert_eq!(
            sorted_pairs(&index),
            expected_pairs,
            "{ctx} index all_pairs"
        );
        for &q in queries {
            let got: Vec<(usize, u32)> = index.query(q);
            let got_set: BTreeSet<_> = got.iter().copied().collect();
            assert_eq!(got.len(), got_set.len(), "{ctx}: duplicate answers");
            assert_eq!(got_set, brute_query(fps, q, k), "{ctx} query {q:#x}");
        }
        // Index built one insert at a time with a tiny delta limit (merges often) and
        // with an unbounded one (everything in the delta), then half in each.
        for limit in [Some(7), Some(usize::MAX)] {
            let mut inc = HammingIndex::new(params).with_delta_limit(limit);
            for (i, &x) in fps.iter().enumerate() {
                inc.insert(i, x).unwrap();
            }
            assert_eq!(
                sorted_pairs(&inc),
                expected_pairs,
                "{ctx} incremental {limit:?}"
            );
            for &q in queries.iter().take(20) {
                let got: BTreeSet<_> = inc.query(q).into_iter().collect();
                assert_eq!(got, brute_query(fps, q, k), "{ctx} incremental query");
            }
        }
        let half = fps.len() / 2;
        let mut mixed =
            HammingIndex::from_fingerprints(params, fps[..half].iter().copied().enumerate())
                .unwrap()
                .with_delta_limit(Some(usize::MAX));
        for (i, &x) in fps.iter().enumerate().skip(half) {
            mixed.insert(i, x).unwrap();
        }
        assert_eq!(sorted_pairs(&mixed), expected_pairs, "{ctx} main + delta");
    }
}

#[test]
fn random_data_matches_brute_force() {
    for k in 0..=4u32 {
        let mut rng = ChaCha8Rng::seed_from_u64(0x4a11_0000 + u64::from(k));
        let fps = random_data(&mut rng, 600, k);
        let mut queries: Vec<u64> = fps.iter().step_by(7).copied().collect();
        queries.extend((0..40).map(|_| rng.random::<u64>()));
        queries.extend(fps.iter().step_by(11).map(|&x| flip(&mut rng, x, k)));
        check_all(&fps, k, &queries, "random");
    }
}

#[test]
fn adversarial_data_matches_brute_force() {
    for k in 0..=4u32 {
        let mut rng = ChaCha8Rng::seed_from_u64(0xad0e_0000 + u64::from(k));
        let fps = adversarial(&mut rng, k);
        let mut queries: Vec<u64> = fps.iter().step_by(3).copied().collect();
        queries.extend([0, u64::MAX, 0xFF, 0xFF00_0000_0000_0000]);
        queries.extend(fps.iter().step_by(5).map(|&x| flip(&mut rng, x, k + 1)));
        check_all(&fps, k, &queries, "adversarial");
    }
}

#[test]
fn exactly_k_is_found_and_k_plus_one_is_not() {
    for k in 0..=4u32 {
        for params in layouts_for(k, 100) {
            let mut rng =
                ChaCha8Rng::seed_from_u64(u64::from(k) * 100 + u64::from(params.blocks()));
            for _ in 0..200 {
                let a: u64 = rng.random();
                let at_k = flip(&mut rng, a, k);
                let beyond = flip(&mut rng, a, k + 1);
                let index =
                    HammingIndex::from_fingerprints(params, [(1u8, at_k), (2, beyond)]).unwrap();
                assert_eq!(index.query(a), vec![(1, k)], "k={k} {params:?}");
            }
        }
    }
}

#[test]
fn remove_and_reinsert() {
    let params = HammingParams::new(3, 4).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let fps = random_data(&mut rng, 400, 3);
    for limit in [None, Some(0), Some(5), Some(usize::MAX)] {
        let mut index = HammingIndex::from_fingerprints(params, fps.iter().copied().enumerate())
            .unwrap()
            .with_delta_limit(limit);
        let mut live: Vec<Option<u64>> = fps.iter().copied().map(Some).collect();
        for i in (0..fps.len()).step_by(3) {
            assert!(index.remove(&i));
            assert!(!index.remove(&i));
            live[i] = None;
        }
        // Re-insert some removed keys with new fingerprints, and replace live ones.
        for i in (0..fps.len()).step_by(6) {
            let x = flip(&mut rng, fps[i], 2);
            index.insert(i, x).unwrap();
            live[i] = Some(x);
        }
        for i in (1..fps.len()).step_by(9) {
            let x = fps[(i * 7) % fps.len()];
            index.insert(i, x).unwrap();
            live[i] = Some(x);
        }
        let n_live = live.iter().flatten().count();
        assert_eq!(index.len(), n_live);
        let idx: Vec<usize> = (0..live.len()).filter(|&i| live[i].is_some()).collect();
        let vals: Vec<u64> = idx.iter().map(|&i| live[i].unwrap()).collect();
        let want: Vec<(usize, usize, u32)> = brute_pairs(&vals, 3)
            .into_iter()
            .map(|(a, b, d)| (idx[a], idx[b], d))
            .collect();
        for round in 0..2 {
            assert_eq!(sorted_pairs(&index), want, "limit {limit:?} round {round}");
            for &q in vals.iter().step_by(13) {
                let got: BTreeSet<(usize, u32)> = index.query(q).into_iter().collect();
                let want: BTreeSet<(usize, u32)> = brute_query(&vals, q, 3)
                    .into_iter()
                    .map(|(i, d)| (idx[i], d))
                    .collect();
                assert_eq!(got, want);
            }
            index.compact();
        }
        for i in 0..fps.len() {
            index.remove(&i);
        }
        assert!(index.is_empty());
        assert!(index.all_pairs().is_empty());
        assert!(index.query(fps[0]).is_empty());
    }
}

#[test]
fn invalid_parameters_are_typed_errors() {
    let kind = |r: Result<HammingParams, ndd_core::Error>| r.unwrap_err().kind();
    assert_eq!(kind(HammingParams::new(0, 0)), ErrorKind::InvalidParameter); // zero tables
    assert_eq!(kind(HammingParams::new(3, 0)), ErrorKind::InvalidParameter);
    assert_eq!(kind(HammingParams::new(3, 3)), ErrorKind::InvalidParameter); // k ≥ blocks
    assert_eq!(kind(HammingParams::new(5, 4)), ErrorKind::InvalidParameter);
    assert_eq!(
        kind(HammingParams::new(64, 64)),
        ErrorKind::InvalidParameter
    );
    assert_eq!(kind(HammingParams::new(1, 65)), ErrorKind::InvalidParameter);
    assert_eq!(
        kind(HammingParams::new(10, 20)),
        ErrorKind::InvalidParameter
    ); // 184,756 tables
    assert_eq!(
        kind(HammingParams::for_collection(64, 1)),
        ErrorKind::InvalidParameter
    );
    assert_eq!(
        kind(HammingParams::for_collection(u32::MAX, 1)),
        ErrorKind::InvalidParameter
    );
    // The largest distances still get a layout (k + 1 blocks, k + 1 tables).
    let p = HammingParams::for_collection(63, 1_000_000).unwrap();
    assert_eq!((p.blocks(), p.tables()), (64, 64));
    let fps = [0u64, u64::MAX, 1];
    assert_eq!(hamming_pairs(&fps, p).unwrap().len(), 2); // 0 and !0 differ in 64 bits
}

#[test]
fn empty_and_tiny_inputs() {
    let p = HammingParams::new(3, 4).unwrap();
    assert!(hamming_pairs(&[], p).unwrap().is_empty());
    assert!(hamming_pairs(&[5], p).unwrap().is_empty());
    let index: HammingIndex<u8> = HammingIndex::new(p);
    assert!(index.query(0).is_empty());
    assert!(index.all_pairs().is_empty());
    let mut index = HammingIndex::new(p);
    index.extend(std::iter::empty::<(u8, u64)>()).unwrap();
    index.compact();
    index.insert(1u8, 0).unwrap();
    assert_eq!(index.query(0b111), vec![(1, 3)]);
}

#[test]
fn automatic_choice_follows_the_cost_model() {
    // 4 blocks (4 tables, 16 leading bits) at a million, more as N grows.
    for (n, blocks) in [
        (1_000_000, 4),
        (2_000_000, 5),
        (1_000_000_000, 6),
        (8_000_000_000, 6),
    ] {
        assert_eq!(
            HammingParams::for_collection(3, n).unwrap().blocks(),
            blocks,
            "n={n}"
        );
    }
    for k in 0..=8 {
        for n in [1, 1000, 1_000_000, 1_000_000_000] {
            let p = HammingParams::for_collection(k, n).unwrap();
            for b in k + 1..=64 {
                let Ok(q) = HammingParams::new(k, b) else {
                    break;
                };
                let cost = |p: HammingParams| p.tables() as f64 * 16.0 + p.expected_candidates(n);
                assert!(cost(p) <= cost(q), "k={k} n={n}: {p:?} vs {q:?}");
            }
        }
    }
}

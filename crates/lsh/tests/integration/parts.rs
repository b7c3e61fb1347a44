#![allow(clippy::unwrap_used)]
//! A collection held as consecutive parts (the segments of a saved index) answers as one
//! structure over the whole: `LshForest` probes merged oldest first against the whole
//! forest's query, `LshEnsemble` parts bounded by the whole collection's set sizes
//! against the whole ensemble. The whole structure is the oracle.

use ndd_core::SchemeId;
use ndd_lsh::{EnsembleParams, ForestParams, LshEnsemble, LshForest, PlainSlots};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` signatures of `len` slots over a small alphabet, so that prefixes are shared at
/// every depth; every seventh a copy of signature 0 (a hot full-depth match).
fn signatures(n: usize, len: usize, seed: u64) -> Vec<PlainSlots> {
    let s = SchemeId::new("parts").finish();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let first: Vec<u64> = (0..len).map(|_| rng.random_range(0..3)).collect();
    (0..n)
        .map(|i| {
            let v = if i % 7 == 0 {
                first.clone()
            } else {
                (0..len).map(|_| rng.random_range(0..3)).collect()
            };
            PlainSlots::new(s, v).unwrap()
        })
        .collect()
}

/// Splits `0..n` at `cuts`.
fn parts(n: usize, cuts: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(n);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

fn forest(
    params: ForestParams,
    max_examined: usize,
    sigs: &[PlainSlots],
    docs: std::ops::Range<usize>,
) -> LshForest<usize> {
    let mut f = LshForest::builder(params)
        .max_examined(max_examined)
        .build();
    for i in docs {
        f.insert(i, &sigs[i]).unwrap();
    }
    f
}

#[test]
fn forest_parts_merged_answer_as_the_whole_forest() {
    let n = 600;
    let params = ForestParams::new(3, 4).unwrap();
    let sigs = signatures(n, 12, 7);
    let queries = signatures(40, 12, 8);
    let mut compared = 0;
    let mut truncated = 0;
    let mut sizes = std::collections::BTreeSet::new();
    // A bound far above the hot bucket, one that cuts the descent, one below the
    // hot bucket's size (the full depth is truncated to each tree's oldest).
    for max_examined in [10_000, 60, 20] {
        let whole = forest(params, max_examined, &sigs, 0..n);
        for cuts in [vec![300], vec![100, 250, 590], vec![1, 2, 3]] {
            let forests: Vec<LshForest<usize>> = parts(n, &cuts)
                .into_iter()
                .map(|r| forest(params, max_examined, &sigs, r))
                .collect();
            for q in queries.iter().chain(&sigs[..3]) {
                for k in [1, 3, 10, 50] {
                    let mut probe = forests[0].probe(q, k).unwrap();
                    for f in &forests[1..] {
                        probe.merge(f.probe(q, k).unwrap()).unwrap();
                    }
                    // Later parts walking no deeper than the older ones show.
                    let mut after = forests[0].probe(q, k).unwrap();
                    for f in &forests[1..] {
                        let next = f.probe_after(q, &after, None::<fn(&usize) -> f64>).unwrap();
                        after.merge(next).unwrap();
                    }
                    // Compacted after every merge: the same answer.
                    let mut compact = forests[0].probe(q, k).unwrap();
                    compact.compact();
                    for f in &forests[1..] {
                        let next = f
                            .probe_after(q, &compact, None::<fn(&usize) -> f64>)
                            .unwrap();
                        compact.merge(next).unwrap();
                        compact.compact();
                    }
                    let by_parts = probe.clone().top();
                    assert_eq!(after.top(), by_parts);
                    assert_eq!(compact.top(), by_parts);
                    let expected = whole.query(q, k).unwrap();
                    let expected: Vec<(usize, f64)> =
                        expected.iter().map(|(d, e)| (*d, e.value())).collect();
                    assert_eq!(
                        by_parts, expected,
                        "bound {max_examined}, cuts {cuts:?}, k {k}"
                    );
                    let mut all = Vec::new();
                    whole
                        .candidates_into(q, k * whole.candidates_per_result(), &mut all)
                        .unwrap();
                    let candidates = probe.candidates();
                    assert_eq!(candidates, all);
                    sizes.insert(candidates.len());
                    // The hot copies of signature 0: more than the bound match it over
                    // the full depth.
                    truncated += usize::from(max_examined == 20 && q == &sigs[0]);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1000 && truncated > 0);
    // The answers were not all alike: several candidate-set sizes were met.
    assert!(sizes.len() > 5, "{sizes:?}");
}

#[test]
fn forest_probe_with_a_caller_measure_merges_as_the_whole() {
    let n = 300;
    let params = ForestParams::new(2, 5).unwrap();
    let sigs = signatures(n, 10, 11);
    let whole = forest(params, 10_000, &sigs, 0..n);
    let forests: Vec<LshForest<usize>> = parts(n, &[50, 200])
        .into_iter()
        .map(|r| forest(params, 10_000, &sigs, r))
        .collect();
    // A measure with many ties, so that the order of ties is compared too; NaN drops.
    let score = |d: &usize| if d % 5 == 0 { f64::NAN } else { (d % 3) as f64 };
    for q in &sigs[..30] {
        let mut probe = forests[0].probe_verified(q, 4, score).unwrap();
        for f in &forests[1..] {
            probe.merge(f.probe_verified(q, 4, score).unwrap()).unwrap();
        }
        let mut after = forests[0].probe_verified(q, 4, score).unwrap();
        for f in &forests[1..] {
            let next = f.probe_after(q, &after, Some(score)).unwrap();
            after.merge(next).unwrap();
        }
        let expected = whole.query_verified(q, 4, score).unwrap();
        assert!(!expected.is_empty());
        let mut compact = after.clone();
        compact.compact();
        assert_eq!(compact.top(), expected);
        assert_eq!(after.top(), expected);
        assert_eq!(probe.top(), expected);
    }
}

#[test]
fn ensemble_parts_bounded_by_the_whole_sizes_find_the_whole_candidates() {
    let n = 400;
    let len = 32;
    let sigs = signatures(n, len, 21);
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let sizes: Vec<u64> = (0..n).map(|_| rng.random_range(1..3_000)).collect();
    let mut differed = 0;
    for t in [0.3, 0.6, 0.9] {
        let params = EnsembleParams::new(t, len).unwrap();
        let mut whole = LshEnsemble::new(params);
        for i in 0..n {
            whole.insert(i, &sigs[i], sizes[i]).unwrap();
        }
        let build = |r: std::ops::Range<usize>, bound: bool| {
            let mut e = LshEnsemble::new(params);
            for i in r {
                e.insert(i, &sigs[i], sizes[i]).unwrap();
            }
            if bound {
                e.bound_classes_by(sizes.iter().copied());
            }
            e
        };
        let cuts = parts(n, &[40, 170, 300]);
        let bounded: Vec<LshEnsemble<usize>> =
            cuts.iter().map(|r| build(r.clone(), true)).collect();
        let unbounded: Vec<LshEnsemble<usize>> =
            cuts.iter().map(|r| build(r.clone(), false)).collect();
        for (qi, q) in signatures(30, len, 23)
            .iter()
            .chain(&sigs[..20])
            .enumerate()
        {
            let q_size = [10, 100, 1_000, 2_500][qi % 4];
            let union = |parts: &[LshEnsemble<usize>]| {
                let mut all: Vec<usize> = parts
                    .iter()
                    .flat_map(|e| e.query(q, q_size).unwrap())
                    .collect();
                all.sort_unstable();
                all
            };
            let mut expected = whole.query(q, q_size).unwrap();
            expected.sort_unstable();
            assert_eq!(union(&bounded), expected, "threshold {t}, query {qi}");
            differed += usize::from(union(&unbounded) != expected);
        }
    }
    // Without the bound, parts choose other bands: the knob is what makes it exact.
    assert!(differed > 0);
}

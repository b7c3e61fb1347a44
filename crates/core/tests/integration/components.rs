//! `DocUnionFind` and `bucket_edges` against brute force: components found by
//! breadth-first search over an adjacency list, representatives the minimum by scan.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use ndd_core::{DocUnionFind, EdgePolicy, bucket_edges};
use proptest::prelude::*;

/// The oracle: `(doc, smallest id of its component)` for every id on an edge, sorted,
/// by breadth-first search.
fn bfs_assignments(edges: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut adj: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(a, b) in edges {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default().push(a);
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for &start in adj.keys() {
        if !seen.insert(start) {
            continue;
        }
        let mut component = vec![start];
        let mut queue = VecDeque::from([start]);
        while let Some(x) = queue.pop_front() {
            for &y in &adj[&x] {
                if seen.insert(y) {
                    component.push(y);
                    queue.push_back(y);
                }
            }
        }
        let mut rep = u64::MAX;
        for &x in &component {
            if x < rep {
                rep = x;
            }
        }
        out.extend(component.iter().map(|&x| (x, rep)));
    }
    out.sort_unstable();
    out
}

/// Edge sets over a small universe of arbitrary `u64` ids (so components form), each
/// edge tagged with the part it goes to.
fn edges_with_parts() -> impl Strategy<Value = (Vec<(u64, u64)>, Vec<usize>, usize)> {
    (
        proptest::collection::vec(any::<u64>(), 1..20),
        1usize..6,
        proptest::collection::vec((any::<usize>(), any::<usize>(), any::<usize>()), 0..60),
    )
        .prop_map(|(universe, parts, picks)| {
            let edges: Vec<(u64, u64)> = picks
                .iter()
                .map(|&(i, j, _)| (universe[i % universe.len()], universe[j % universe.len()]))
                .collect();
            let part_of = picks.iter().map(|&(_, _, p)| p % parts).collect();
            (edges, part_of, parts)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// One pass over every edge gives the BFS components.
    #[test]
    fn single_pass_matches_bfs((edges, _, _) in edges_with_parts()) {
        let uf: DocUnionFind = edges.iter().copied().collect();
        prop_assert_eq!(uf.into_assignments(), bfs_assignments(&edges));
    }

    /// Any partition of the edges, each part solved alone, merged pairwise in any order
    /// (a random merge tree, alternating `merge` and feeding assignments back as
    /// edges), equals the single pass and the oracle.
    #[test]
    fn partitioned_and_merged_in_any_order_matches_bfs(
        (edges, part_of, parts) in edges_with_parts(),
        order in proptest::collection::vec((any::<usize>(), any::<usize>(), any::<bool>()), 8),
    ) {
        let mut partial: Vec<DocUnionFind> = (0..parts).map(|_| DocUnionFind::new()).collect();
        for (&(a, b), &p) in edges.iter().zip(&part_of) {
            partial[p].union(a, b);
        }
        let mut step = 0;
        while partial.len() > 1 {
            let (i, j, by_assignments) = order[step % order.len()];
            step += 1;
            let i = i % partial.len();
            let j = j % (partial.len() - 1);
            let j = if j >= i { j + 1 } else { j };
            let other = partial.swap_remove(j);
            let i = if i == partial.len() { j } else { i };
            if by_assignments {
                partial[i].extend(other.into_assignments());
            } else {
                partial[i].merge(&other);
            }
        }
        let merged = partial.pop().unwrap().into_assignments();
        prop_assert_eq!(&merged, &bfs_assignments(&edges));
        let single: DocUnionFind = edges.iter().copied().collect();
        prop_assert_eq!(merged, single.into_assignments());
    }

    /// Edges in a different order give the same assignments.
    #[test]
    fn edge_order_does_not_matter((mut edges, _, _) in edges_with_parts(), seed in any::<u64>()) {
        let forward: DocUnionFind = edges.iter().copied().collect();
        // A seeded Fisher-Yates shuffle with a plain LCG.
        let mut s = seed | 1;
        for i in (1..edges.len()).rev() {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let j = usize::try_from(s >> 33).unwrap() % (i + 1);
            edges.swap(i, j);
        }
        let shuffled: DocUnionFind = edges.iter().map(|&(a, b)| (b, a)).collect();
        prop_assert_eq!(forward.into_assignments(), shuffled.into_assignments());
    }

    /// Star and chain edges of a bucket: `n − 1` each, the same components as all
    /// pairs of the bucket, and star edges reach every member from the first in one
    /// step (diameter ≤ 2).
    #[test]
    fn bucket_edges_match_all_pairs(members in proptest::collection::btree_set(any::<u64>(), 0..40)) {
        let members: Vec<u64> = members.into_iter().collect();
        let mut all_pairs = Vec::new();
        for (i, &a) in members.iter().enumerate() {
            all_pairs.push((a, a));
            for &b in &members[i + 1..] {
                all_pairs.push((a, b));
            }
        }
        let oracle = bfs_assignments(&all_pairs);
        for policy in [EdgePolicy::Star, EdgePolicy::Chain] {
            let edges: Vec<(u64, u64)> = bucket_edges(&members, policy).collect();
            prop_assert_eq!(edges.len(), members.len().saturating_sub(1));
            prop_assert_eq!(bucket_edges(&members, policy).len(), edges.len());
            let mut uf: DocUnionFind = edges.iter().copied().collect();
            for &m in &members {
                uf.insert(m);
            }
            prop_assert_eq!(uf.into_assignments(), oracle.clone());
        }
        // Star: every edge starts at the smallest member, so any two members are at
        // most two edges apart; chain edges join neighbours in sorted order.
        for (a, b) in bucket_edges(&members, EdgePolicy::Star) {
            prop_assert_eq!(a, members[0]);
            prop_assert!(a < b);
        }
        for (a, b) in bucket_edges(&members, EdgePolicy::Chain) {
            let i = members.binary_search(&a).unwrap();
            prop_assert_eq!(members[i + 1], b);
        }
    }
}

#[test]
fn star_diameter_is_two_chain_diameter_is_n_minus_one() {
    // Eccentricity by BFS over each policy's edges, for a bucket of 50.
    let members: Vec<u64> = (100..150).collect();
    let diameter = |edges: &[(u64, u64)]| {
        let mut adj: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for &(a, b) in edges {
            adj.entry(a).or_default().push(b);
            adj.entry(b).or_default().push(a);
        }
        let mut worst = 0;
        for &s in adj.keys() {
            let mut dist = BTreeMap::from([(s, 0usize)]);
            let mut q = VecDeque::from([s]);
            while let Some(x) = q.pop_front() {
                let d = dist[&x];
                for &y in &adj[&x] {
                    if let std::collections::btree_map::Entry::Vacant(e) = dist.entry(y) {
                        e.insert(d + 1);
                        q.push_back(y);
                    }
                }
            }
            worst = worst.max(*dist.values().max().unwrap());
        }
        worst
    };
    let star: Vec<_> = bucket_edges(&members, EdgePolicy::Star).collect();
    let chain: Vec<_> = bucket_edges(&members, EdgePolicy::Chain).collect();
    assert_eq!(diameter(&star), 2);
    assert_eq!(diameter(&chain), 49);
}

#[test]
fn unseen_ids_and_singletons() {
    let mut uf = DocUnionFind::new();
    assert_eq!(uf.representative(1), None);
    uf.insert(u64::MAX);
    uf.union(0, 0);
    assert_eq!(uf.assignments(), vec![(0, 0), (u64::MAX, u64::MAX)]);
    uf.union(u64::MAX, 0);
    assert_eq!(uf.representative(u64::MAX), Some(0));
    assert_eq!(uf.num_components(), 1);
}

//! The clustering of Figure 3: worked cases whose answer follows from the paper's
//! steps, and properties on random inputs (must-links honoured, cannot-links never
//! violated, every member within θ of its cluster, determinism).
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_cluster::{Closure, ClusterOptions, Clustering, Constraints, Link, Neighbours, cluster};
use ndd_core::ScoredPair;
use proptest::prelude::*;

fn pairs(p: &[(usize, usize)]) -> Vec<ScoredPair> {
    p.iter().map(|&(a, b)| ScoredPair::new(a, b, 1.0)).collect()
}

fn run(
    n: usize,
    refs: &[usize],
    edges: &[(usize, usize)],
    closure: &Closure,
    theta: f64,
    dist: &[Vec<f64>],
) -> Clustering {
    let nb = Neighbours::from_pairs(n, pairs(edges)).unwrap();
    cluster(
        refs,
        &nb,
        closure,
        &ClusterOptions::new(theta).unwrap(),
        |a, b| dist[a][b],
    )
    .unwrap()
}

/// A distance matrix from a list of (a, b, d); every other pair at 10.
fn matrix(n: usize, d: &[(usize, usize, f64)]) -> Vec<Vec<f64>> {
    let mut m = vec![vec![10.0; n]; n];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 0.0;
    }
    for &(a, b, x) in d {
        m[a][b] = x;
        m[b][a] = x;
    }
    m
}

#[test]
fn a_borderline_pair_does_not_chain_two_letters() {
    // Letter 0 with copies 1, 2; letter 3 with copies 4, 5; copy 2 is close to both
    // letters, closer to its own. Single-link grouping (components of the pairs under
    // the threshold) would make one group of all six.
    let d = matrix(
        6,
        &[
            (0, 1, 0.1),
            (0, 2, 0.4),
            (3, 4, 0.1),
            (3, 5, 0.2),
            (2, 3, 0.6),
            (2, 5, 0.5),
        ],
    );
    let edges = [(0, 1), (0, 2), (3, 4), (3, 5), (2, 3), (2, 5)];
    let c = run(6, &[0, 3], &edges, &Closure::none(6), 1.0, &d);
    assert_eq!(c.groups(), vec![vec![0, 1, 2], vec![3, 4, 5]]);
}

#[test]
fn a_candidate_joins_the_nearest_cluster_among_its_candidates() {
    // Seed 3 takes 4. Seed 0 reaches 2 at 0.5; 2's other candidate, 4, is in the
    // cluster of 3, whose centroid is nearer (0.2): 2 joins it.
    let d = matrix(5, &[(3, 4, 0.1), (0, 2, 0.5), (2, 3, 0.2)]);
    let edges = [(3, 4), (0, 2), (2, 4)];
    let c = run(5, &[3, 0], &edges, &Closure::none(5), 1.0, &d);
    assert_eq!(c.groups(), vec![vec![2, 3, 4], vec![0], vec![1]]);
    // Farther than the seed: 2 stays with 0.
    let d = matrix(5, &[(3, 4, 0.1), (0, 2, 0.5), (2, 3, 0.7)]);
    let c = run(5, &[3, 0], &edges, &Closure::none(5), 1.0, &d);
    assert_eq!(c.groups(), vec![vec![3, 4], vec![0, 2], vec![1]]);
}

#[test]
fn must_links_join_far_documents_and_cannot_links_keep_near_ones_apart() {
    let d = matrix(4, &[(0, 1, 0.1), (0, 2, 0.2)]);
    let edges = [(0, 1), (0, 2), (0, 3)];
    let mut k = Constraints::new(4);
    k.add(Link::Must, 0, 3)
        .unwrap()
        .add(Link::Cannot, 1, 3)
        .unwrap();
    let c = run(4, &[0], &edges, &k.close().unwrap(), 1.0, &d);
    // 3 is at distance 10 but must-linked to the seed; 1 is near but cannot-linked
    // to 3, which is already in the cluster.
    assert_eq!(c.groups(), vec![vec![0, 2, 3], vec![1]]);
}

#[test]
fn a_family_link_lowers_the_distance_by_alpha() {
    let d = matrix(2, &[(0, 1, 1.03)]);
    let edges = [(0, 1)];
    let alone = run(2, &[0], &edges, &Closure::none(2), 1.0, &d);
    assert_eq!(alone.num_clusters(), 2);
    let mut k = Constraints::new(2);
    k.add(Link::Family, 0, 1).unwrap();
    let with_family = run(2, &[0], &edges, &k.close().unwrap(), 1.0, &d);
    assert_eq!(with_family.num_clusters(), 1); // 1.03 − 0.05 < 1.0
}

#[test]
fn reference_copies_seed_first() {
    // Without references the first seed is document 0 and takes 1 and 2; with 2 as
    // a reference copy, 2 seeds first and its cluster's centroid is 2.
    let d = matrix(3, &[(0, 1, 0.1), (0, 2, 0.1), (1, 2, 0.1)]);
    let edges = [(0, 1), (0, 2), (1, 2)];
    let plain = run(3, &[], &edges, &Closure::none(3), 1.0, &d);
    assert_eq!(plain.centroid(plain.cluster_of(2)), 0);
    let seeded = run(3, &[2], &edges, &Closure::none(3), 1.0, &d);
    assert_eq!(seeded.centroid(seeded.cluster_of(0)), 2);
}

#[test]
fn documents_without_candidates_are_singletons_and_nan_never_joins() {
    let d = vec![vec![f64::NAN; 3]; 3];
    let c = run(3, &[], &[(0, 1)], &Closure::none(3), f64::INFINITY, &d);
    assert_eq!(c.num_clusters(), 3);
}

#[test]
fn mismatched_inputs_are_errors() {
    let nb = Neighbours::from_pairs(3, []).unwrap();
    let o = ClusterOptions::default();
    let e = cluster(&[], &nb, &Closure::none(4), &o, |_, _| 0.0).unwrap_err();
    assert_eq!(e.kind(), ndd_core::ErrorKind::LengthMismatch);
    let e = cluster(&[3], &nb, &Closure::none(3), &o, |_, _| 0.0).unwrap_err();
    assert_eq!(e.kind(), ndd_core::ErrorKind::InvalidInput);
    let empty = cluster(
        &[],
        &Neighbours::from_pairs(0, []).unwrap(),
        &Closure::none(0),
        &o,
        |_, _| 0.0,
    )
    .unwrap();
    assert_eq!(empty.num_clusters(), 0);
}

#[derive(Debug, Clone)]
struct Case {
    n: usize,
    edges: Vec<(usize, usize)>,
    links: Vec<(Link, usize, usize)>,
    refs: Vec<usize>,
    dist: Vec<Vec<f64>>,
    theta: f64,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..14).prop_flat_map(|n| {
        let link = prop_oneof![Just(Link::Must), Just(Link::Cannot), Just(Link::Family)];
        (
            proptest::collection::vec((0..n, 0..n), 0..3 * n),
            proptest::collection::vec((link, 0..n, 0..n), 0..n),
            proptest::collection::vec(0..n, 0..4),
            proptest::collection::vec(0.0f64..2.0, n * n),
            0.0f64..2.0,
        )
            .prop_map(move |(edges, links, refs, d, theta)| {
                let mut dist = vec![vec![0.0; n]; n];
                for a in 0..n {
                    for b in 0..n {
                        dist[a][b] = if a == b {
                            0.0
                        } else {
                            d[a.min(b) * n + a.max(b)]
                        };
                    }
                }
                Case {
                    n,
                    edges,
                    links: links.into_iter().filter(|&(_, a, b)| a != b).collect(),
                    refs,
                    dist,
                    theta,
                }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn constraints_hold_and_members_are_within_theta(case in case()) {
        let mut k = Constraints::new(case.n);
        for &(l, a, b) in &case.links {
            k.add(l, a, b).unwrap();
        }
        let Ok(closed) = k.close() else { return Ok(()) };
        let c = run(case.n, &case.refs, &case.edges, &closed, case.theta, &case.dist);
        prop_assert_eq!(c.assignments().len(), case.n);
        let alpha = ClusterOptions::default().family_alpha();
        for a in 0..case.n {
            for b in 0..case.n {
                match closed.link(a, b) {
                    Some(Link::Must) => prop_assert_eq!(c.cluster_of(a), c.cluster_of(b)),
                    Some(Link::Cannot) => prop_assert_ne!(c.cluster_of(a), c.cluster_of(b)),
                    _ => {}
                }
            }
            // Every member is the centroid, in the centroid's must class, or in the
            // must class of a member that was within θ of the centroid (α off when
            // family-linked) and a candidate of it or of the seed that placed it.
            let centroid = c.centroid(c.cluster_of(a));
            let class = closed.members(closed.class_of(a));
            let ok = a == centroid
                || closed.link(a, centroid) == Some(Link::Must)
                || class.iter().any(|&m| {
                    let adj = if closed.link(m, centroid) == Some(Link::Family) { alpha } else { 0.0 };
                    case.dist[m][centroid] - adj < case.theta
                });
            prop_assert!(ok, "document {} in the cluster of {}", a, centroid);
        }
        // Deterministic, whatever the order the pairs come in.
        let mut reversed = case.edges.clone();
        reversed.reverse();
        let again = run(case.n, &case.refs, &reversed, &closed, case.theta, &case.dist);
        prop_assert_eq!(again, c);
    }

    #[test]
    fn without_constraints_nothing_joins_at_theta_zero(case in case()) {
        let c = run(case.n, &case.refs, &case.edges, &Closure::none(case.n), 0.0, &case.dist);
        prop_assert_eq!(c.num_clusters(), case.n);
    }
}

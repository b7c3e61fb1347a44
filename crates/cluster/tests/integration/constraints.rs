//! The constraint closure against a brute-force application of Section 4.4.4's rules
//! on boolean matrices, on hand-made cases and on random constraint graphs.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_cluster::{Conflicts, Constraints, Link, LinkPair};
use proptest::prelude::*;

type Matrix = Vec<Vec<bool>>;

/// Applies `rule` to every ordered triple until nothing changes.
fn fixpoint(n: usize, mut step: impl FnMut(usize, usize, usize) -> bool) {
    loop {
        let mut changed = false;
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    changed |= step(a, b, c);
                }
            }
        }
        if !changed {
            return;
        }
    }
}

fn set(m: &mut Matrix, a: usize, c: usize) -> bool {
    if m[a][c] {
        return false;
    }
    m[a][c] = true;
    m[c][a] = true;
    true
}

/// The closure the slow way, as `Constraints::close` states it: the five rules as
/// written, with must stronger than cannot stronger than family. `None` on a conflict.
fn brute_force(n: usize, links: &[(Link, usize, usize)]) -> Option<Vec<Vec<Option<Link>>>> {
    let given = |kind: Link| {
        let mut m = vec![vec![false; n]; n];
        for &(l, a, b) in links {
            if l == kind {
                m[a][b] = true;
                m[b][a] = true;
            }
        }
        m
    };
    let mut must = given(Link::Must);
    for (a, row) in must.iter_mut().enumerate() {
        row[a] = true;
    }
    // Rule 1.
    fixpoint(n, |a, b, c| {
        must[a][b] && must[b][c] && set(&mut must, a, c)
    });
    let mut cannot = given(Link::Cannot);
    let family0 = given(Link::Family);
    // Rule 2 on the given cannot-links; a conflict if one lands on a must pair.
    fixpoint(n, |a, b, c| {
        cannot[a][b] && must[b][c] && set(&mut cannot, a, c)
    });
    if (0..n).any(|a| (0..n).any(|b| cannot[a][b] && must[a][b])) {
        return None;
    }
    let mut family;
    loop {
        let snapshot = cannot.clone();
        family = vec![vec![false; n]; n];
        for a in 0..n {
            for b in 0..n {
                family[a][b] = family0[a][b] && !snapshot[a][b];
            }
        }
        // Rules 3 and 5.
        fixpoint(n, |a, b, c| {
            a != c && family[a][b] && (must[b][c] || family[b][c]) && set(&mut family, a, c)
        });
        let usable: Matrix = (0..n)
            .map(|a| (0..n).map(|b| family[a][b] && !snapshot[a][b]).collect())
            .collect();
        // Rules 2 and 4, never on a must pair.
        fixpoint(n, |a, b, c| {
            !must[a][c] && cannot[b][c] && (must[a][b] || usable[a][b]) && set(&mut cannot, a, c)
        });
        if cannot == snapshot {
            break;
        }
    }
    Some(
        (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| {
                        if a == b {
                            None
                        } else if must[a][b] {
                            Some(Link::Must)
                        } else if cannot[a][b] {
                            Some(Link::Cannot)
                        } else if family[a][b] {
                            Some(Link::Family)
                        } else {
                            None
                        }
                    })
                    .collect()
            })
            .collect(),
    )
}

/// Constraints over `n` documents with `links` added in order (each accepted).
fn linked(n: usize, links: &[(Link, usize, usize)]) -> Constraints {
    let mut c = Constraints::new(n);
    for &(l, x, y) in links {
        c.add(l, x, y).unwrap();
    }
    c
}

fn check(n: usize, links: &[(Link, usize, usize)]) -> Result<(), TestCaseError> {
    let mut c = Constraints::new(n);
    for &(l, a, b) in links {
        c.add(l, a, b)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    match (c.close(), brute_force(n, links)) {
        (Err(_), None) => {}
        (Ok(closed), Some(expected)) => {
            for (a, row) in expected.iter().enumerate() {
                for (b, &want) in row.iter().enumerate() {
                    prop_assert_eq!(
                        closed.link(a, b),
                        want,
                        "pair ({}, {}) of {:?}",
                        a,
                        b,
                        links
                    );
                }
            }
        }
        (got, expected) => {
            prop_assert!(
                false,
                "closure {:?} but brute force {:?} for {:?}",
                got.map(|_| ()),
                expected.map(|_| ()),
                links
            );
        }
    }
    Ok(())
}

/// Documents, links, the pair asked about, the link expected.
type RuleCase<'a> = (
    usize,
    &'a [(Link, usize, usize)],
    (usize, usize),
    Option<Link>,
);

#[test]
fn rules_one_by_one() {
    use Link::*;
    let cases: &[RuleCase] = &[
        // Rule 1.
        (3, &[(Must, 0, 1), (Must, 1, 2)], (0, 2), Some(Must)),
        // Rule 2.
        (3, &[(Cannot, 0, 1), (Must, 1, 2)], (0, 2), Some(Cannot)),
        // Rule 3.
        (3, &[(Family, 0, 1), (Must, 1, 2)], (0, 2), Some(Family)),
        // Rule 4.
        (3, &[(Family, 0, 1), (Cannot, 1, 2)], (0, 2), Some(Cannot)),
        // Rule 5.
        (3, &[(Family, 0, 1), (Family, 1, 2)], (0, 2), Some(Family)),
        // A family-link that is also cannot-linked is a cannot-link.
        (2, &[(Family, 0, 1), (Cannot, 0, 1)], (0, 1), Some(Cannot)),
        // Must wins over a cannot-link rule 4 would derive: a =m b, b =f c, c =c a.
        (
            3,
            &[(Must, 0, 1), (Family, 1, 2), (Cannot, 2, 0)],
            (0, 1),
            Some(Must),
        ),
        (
            3,
            &[(Must, 0, 1), (Family, 1, 2), (Cannot, 2, 0)],
            (1, 2),
            Some(Cannot),
        ),
        // Nothing links unrelated documents.
        (4, &[(Family, 0, 1), (Must, 2, 3)], (1, 3), None),
    ];
    for &(n, links, (a, b), want) in cases {
        let c = linked(n, links);
        assert_eq!(c.close().unwrap().link(a, b), want, "{links:?}");
        check(n, links).unwrap();
    }
}

#[test]
fn a_cannot_link_inside_a_must_class_is_an_error() {
    let c = linked(
        3,
        &[(Link::Must, 0, 1), (Link::Must, 1, 2), (Link::Cannot, 2, 0)],
    );
    let err = c.close().unwrap_err();
    assert_eq!(err.kind(), ndd_core::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("2 and 0"), "{err}");
}

#[test]
fn a_family_group_holding_a_cannot_link_ends_all_cannot() {
    // x =f y, x =f z, y =c z: rule 4 from both ends makes every pair cannot-linked.
    let c = linked(
        3,
        &[
            (Link::Family, 0, 1),
            (Link::Family, 0, 2),
            (Link::Cannot, 1, 2),
        ],
    );
    let closed = c.close().unwrap();
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        assert_eq!(closed.link(a, b), Some(Link::Cannot));
    }
}

#[test]
fn many_documents_close_quickly_and_stay_small() {
    // 100,000 documents in 1,000 must classes, one family chain, cannot-links
    // between neighbouring letters: the work is in the classes, not the documents.
    let n = 100_000;
    let mut c = Constraints::new(n);
    for d in 1000..n {
        c.add(Link::Must, d % 1000, d).unwrap();
    }
    for k in (0..1000).step_by(2) {
        c.add(Link::Cannot, k, k + 1).unwrap();
    }
    let closed = c.close().unwrap();
    assert_eq!(closed.num_classes(), 1000);
    assert_eq!(closed.num_cannot_pairs(), 500);
    assert_eq!(closed.link(1000, 1001), Some(Link::Cannot));
    assert_eq!(closed.link(1000, 2000), Some(Link::Must));
}

fn links(n: usize, max: usize) -> impl Strategy<Value = Vec<(Link, usize, usize)>> {
    let link = prop_oneof![Just(Link::Must), Just(Link::Cannot), Just(Link::Family)];
    proptest::collection::vec((link, 0..n, 0..n), 0..max)
        .prop_map(|v| v.into_iter().filter(|&(_, a, b)| a != b).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn closure_matches_brute_force(n in 2usize..8, seed_links in links(8, 14)) {
        let links: Vec<_> = seed_links.into_iter().filter(|&(_, a, b)| a < n && b < n).collect();
        check(n, &links)?;
    }

    #[test]
    fn closure_matches_brute_force_without_must_links(seed_links in links(7, 12)) {
        let links: Vec<_> = seed_links.into_iter().filter(|&(l, _, _)| l != Link::Must).collect();
        check(7, &links)?;
    }
}

/// Must-connectivity of `n` documents under `musts`, as a matrix (rule 1 by brute force).
fn must_matrix(n: usize, musts: &[(usize, usize)]) -> Matrix {
    let mut m = vec![vec![false; n]; n];
    for (a, row) in m.iter_mut().enumerate() {
        row[a] = true;
    }
    for &(a, b) in musts {
        set(&mut m, a, b);
    }
    fixpoint(n, |a, b, c| m[a][b] && m[b][c] && set(&mut m, a, c));
    m
}

/// The links a policy keeps and drops, the slow way.
fn resolve(
    n: usize,
    links: &[(Link, usize, usize)],
    policy: Conflicts,
) -> (Vec<LinkPair>, Vec<LinkPair>) {
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    match policy {
        Conflicts::DropCannot | Conflicts::Refuse => {
            let musts: Vec<_> = links
                .iter()
                .filter(|l| l.0 == Link::Must)
                .map(|l| (l.1, l.2))
                .collect();
            let m = must_matrix(n, &musts);
            for &l in links {
                if l.0 == Link::Cannot && m[l.1][l.2] {
                    dropped.push(l)
                } else {
                    kept.push(l)
                }
            }
        }
        Conflicts::DropMust => {
            let cannots: Vec<_> = links
                .iter()
                .filter(|l| l.0 == Link::Cannot)
                .map(|l| (l.1, l.2))
                .collect();
            let mut musts = Vec::new();
            for &l in links {
                if l.0 != Link::Must {
                    kept.push(l);
                    continue;
                }
                musts.push((l.1, l.2));
                let m = must_matrix(n, &musts);
                if cannots.iter().any(|&(a, b)| m[a][b]) {
                    musts.pop();
                    dropped.push(l);
                } else {
                    kept.push(l);
                }
            }
        }
    }
    (kept, dropped)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn conflicts_are_resolved_as_stated(seed_links in links(7, 16), drop_must in any::<bool>()) {
        let policy = if drop_must { Conflicts::DropMust } else { Conflicts::DropCannot };
        let mut given = Constraints::new(7);
        for &(l, a, b) in &seed_links {
            given.add(l, a, b).unwrap();
        }
        let (kept, want_dropped) = resolve(7, &seed_links, policy);
        let (closed, dropped) = given.close_with(policy).unwrap();
        prop_assert_eq!(&dropped, &want_dropped);
        prop_assert_eq!(given.close().is_err(), !resolve(7, &seed_links, Conflicts::Refuse).1.is_empty());
        let want = brute_force(7, &kept).expect("no conflict is left");
        for (a, row) in want.iter().enumerate() {
            for (b, &w) in row.iter().enumerate() {
                prop_assert_eq!(closed.link(a, b), w);
            }
        }
    }
}

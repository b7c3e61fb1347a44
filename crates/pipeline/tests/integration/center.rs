//! Groupings that honour the threshold: center grouping (`GroupMethod::Center`)
//! against a brute-force oracle of its rule, the property "no member below the
//! threshold to the document kept" on random corpora, and DURIAN dropping a member
//! only at the threshold (issue 29).
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::BTreeSet;

use ndd_core::ScoredPair;
use ndd_pipeline::{
    Dedup, Document, DurianGrouping, Features, GroupMethod, Grouping, Method, Outcome,
    Representative, Shingles,
};
use proptest::prelude::*;

/// The rule as star clustering states it, over an adjacency matrix: rank documents by
/// partner count (most first), ties by `better` (the policy); walk the ranking, and
/// every document not yet placed becomes a center and takes every partner not yet
/// placed. Groups of two or more, by smallest member, as (kept, members).
fn oracle(
    n: usize,
    pairs: &[(usize, usize)],
    better: impl Fn(usize, usize) -> std::cmp::Ordering,
) -> Vec<(usize, Vec<usize>)> {
    let mut adj = vec![vec![false; n]; n];
    for &(a, b) in pairs {
        if a != b {
            adj[a][b] = true;
            adj[b][a] = true;
        }
    }
    let degree = |d: usize| adj[d].iter().filter(|&&x| x).count();
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by(|&x, &y| degree(y).cmp(&degree(x)).then(better(x, y)));
    let mut placed = vec![false; n];
    let mut groups = Vec::new();
    for &c in &ranked {
        if placed[c] {
            continue;
        }
        placed[c] = true;
        let mut members = vec![c];
        for e in 0..n {
            if adj[c][e] && !placed[e] {
                placed[e] = true;
                members.push(e);
            }
        }
        members.sort_unstable();
        if members.len() > 1 {
            groups.push((c, members));
        }
    }
    groups.sort_by_key(|g| g.1[0]);
    groups
}

fn grouped(groups: &[ndd_pipeline::Group]) -> Vec<(usize, Vec<usize>)> {
    groups
        .iter()
        .map(|g| (g.representative, g.members.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn center_grouping_follows_its_rule(
        n in 1usize..25,
        raw in prop::collection::vec((0usize..25, 0usize..25), 0..60),
        lengths in prop::collection::vec(1usize..6, 25),
    ) {
        let pairs: Vec<(usize, usize)> = raw.into_iter().filter(|&(a, b)| a < n && b < n).collect();
        let docs: Vec<Document> = (0..n)
            .map(|i| Document::new(format!("id{:02}", (i * 7) % 25), "w ".repeat(lengths[i])))
            .collect();
        let scored: Vec<ScoredPair> = pairs.iter().map(|&(a, b)| ScoredPair::new(a, b, 0.9)).collect();
        // First seen: ties by input order.
        let got = Grouping::center(Representative::FirstSeen).run(&docs, &scored).unwrap();
        prop_assert_eq!(grouped(&got), oracle(n, &pairs, |x, y| x.cmp(&y)));
        // Longest: ties by length (longest first), then input order.
        let got = Grouping::center(Representative::Longest).run(&docs, &scored).unwrap();
        let longest = |x: usize, y: usize| lengths[y].cmp(&lengths[x]).then(x.cmp(&y));
        prop_assert_eq!(grouped(&got), oracle(n, &pairs, longest));
        // Smallest id.
        let got = Grouping::center(Representative::SmallestId).run(&docs, &scored).unwrap();
        let by_id = |x: usize, y: usize| docs[x].id.cmp(&docs[y].id).then(x.cmp(&y));
        prop_assert_eq!(grouped(&got), oracle(n, &pairs, by_id));
        // Every member is paired with the document kept for its group.
        let set: BTreeSet<(usize, usize)> = pairs.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        for g in &got {
            for &m in &g.members {
                prop_assert!(m == g.representative || set.contains(&(m, g.representative)));
            }
        }
    }
}

/// Sorted distinct features of `text`, as the run cuts them.
fn features(text: &str, f: Features) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    f.extractor().unwrap().extract_dyn(text, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (a, b): (BTreeSet<u64>, BTreeSet<u64>) =
        (a.iter().copied().collect(), b.iter().copied().collect());
    let union = a.union(&b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

/// The members of `out`'s groups whose Jaccard (over `f`) to the kept document is
/// below `t`.
fn below(texts: &[String], out: &Outcome, f: Features, t: f64) -> Vec<usize> {
    let sets: Vec<Vec<u64>> = texts.iter().map(|x| features(x, f)).collect();
    out.groups
        .iter()
        .flat_map(|g| {
            g.members
                .iter()
                .copied()
                .filter(|&m| jaccard(&sets[m], &sets[g.representative]) < t)
                .collect::<Vec<_>>()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn no_member_is_below_the_threshold_to_the_kept_document(
        words in prop::collection::vec(prop::collection::vec(0u8..9, 3..9), 2..30),
        copies in prop::collection::vec(0usize..30, 0..5),
        t in 0.5f64..0.95,
    ) {
        // A small vocabulary: many near-duplicates and chains; some exact copies
        // (case changed) at the end.
        let mut texts: Vec<String> = words
            .iter()
            .map(|w| w.iter().map(|x| format!("w{x}")).collect::<Vec<_>>().join(" "))
            .collect();
        for c in copies {
            let copy = texts[c % texts.len()].to_uppercase();
            texts.push(copy);
        }
        let f = Features::new(Shingles::Words(1));
        let run = Dedup::new().method(Method::ExactJaccard).features(f).threshold(t);
        for group in [
            GroupMethod::Center,
            GroupMethod::Durian(DurianGrouping::new().theta(f64::INFINITY)),
        ] {
            let out = run.clone().group(group.clone()).run_texts(&texts).unwrap();
            prop_assert!(below(&texts, &out, f, t).is_empty(), "{} dropped below {t}", group.name());
        }
    }
}

#[test]
fn center_grouping_does_not_chain_where_components_do() {
    // A chain of word sets, each sharing 7 of 9 words with the next (Jaccard 0.78 =
    // 7/9), the ends sharing none.
    let texts: Vec<String> = (0..6)
        .map(|i| {
            (i..i + 8)
                .map(|w| format!("w{w}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let f = Features::new(Shingles::Words(1));
    let run = Dedup::new()
        .method(Method::ExactJaccard)
        .features(f)
        .threshold(0.75);
    let components = run.clone().run_texts(&texts).unwrap();
    assert_eq!(components.groups.len(), 1);
    assert_eq!(components.groups[0].members, (0..6).collect::<Vec<_>>());
    // Components drop documents 2..6 for document 0, whose Jaccard to them is < 0.75.
    assert_eq!(below(&texts, &components, f, 0.75), vec![2, 3, 4, 5]);
    let center = run.group(GroupMethod::Center).run_texts(&texts).unwrap();
    // Degrees 1, 2, 2, 2, 2, 1: document 1 takes 0 and 2, document 3 takes 4, 5 stays.
    let groups: Vec<(usize, Vec<usize>)> = grouped(&center.groups);
    assert_eq!(groups, vec![(1, vec![0, 1, 2]), (3, vec![3, 4])]);
    assert!(below(&texts, &center, f, 0.75).is_empty());
}

#[test]
fn exact_copies_follow_their_first_copy() {
    let a = "alpha beta gamma delta epsilon zeta eta theta";
    let b = "alpha beta gamma delta epsilon zeta eta iota";
    let c = "kappa lambda mu nu xi omicron pi rho";
    // Document 3 is an exact copy of 0 (case changed); 1 is near 0.
    let texts = [a, b, c, &a.to_uppercase()];
    let out = Dedup::new()
        .method(Method::ExactJaccard)
        .shingles(Shingles::Words(1))
        .threshold(0.7)
        .group(GroupMethod::Center)
        .run_texts(&texts)
        .unwrap();
    assert_eq!(grouped(&out.groups), vec![(0, vec![0, 1, 3])]);
    // With the longest kept, the copies still move together.
    let out = Dedup::new()
        .method(Method::ExactJaccard)
        .shingles(Shingles::Words(1))
        .threshold(0.7)
        .group(GroupMethod::Center)
        .representative(Representative::SmallestId)
        .run_texts(&["z", b, a, a])
        .unwrap();
    // Ids are positions: the copies 2 and 3 are one set with one partner (1); 1 has
    // one partner too, and the smallest id ("1") ranks first.
    assert_eq!(grouped(&out.groups), vec![(1, vec![1, 2, 3])]);
}

#[test]
fn a_custom_representative_is_refused_by_center_grouping() {
    let custom = Representative::Custom(std::sync::Arc::new(|_: &[&Document]| 0));
    let err = Dedup::new()
        .group(GroupMethod::Center)
        .representative(custom.clone())
        .validate();
    assert!(err.is_err());
    let docs = [Document::new("a", "x"), Document::new("b", "x")];
    assert!(
        Grouping::center(custom)
            .run(&docs, &[ScoredPair::new(0, 1, 1.0)])
            .is_err()
    );
}

#[test]
fn durian_drops_a_member_only_at_the_threshold() {
    // The case: B is near A and C, C near B and D, A and C apart (word
    // Jaccard 6/14 = 0.43 < 0.6). C's words are mostly A's (repeated), so DURIAN's
    // distance puts C with A's cluster when seed D reaches it through B.
    let a = "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10";
    let b = "a1 a2 a3 a4 a5 a6 a7 a8 c9 c10";
    let c = "a1 a2 a3 a4 a5 a6 a1 a2 a3 a4 a5 a6 a1 a2 a3 a4 a5 a6 a1 a2 a3 a4 a5 a6 c7 c8 c9 c10";
    let d = "a1 a2 a3 a4 c7 c8 c9 c10 d1 d2";
    let texts: Vec<String> = [a, b, d, c].iter().map(|s| s.to_string()).collect();
    let f = Features::new(Shingles::Words(1));
    let run = |honour: bool| {
        let durian = DurianGrouping::new()
            .theta(f64::INFINITY)
            .honour_threshold(honour);
        Dedup::new()
            .method(Method::ExactJaccard)
            .features(f)
            .threshold(0.6)
            .group(GroupMethod::Durian(durian))
            .run_texts(&texts)
            .unwrap()
    };
    // DURIAN's distance alone: C (document 3) is dropped for A at Jaccard 0.43.
    let old = run(false);
    assert_eq!(grouped(&old.groups), vec![(0, vec![0, 1, 3])]);
    assert_eq!(below(&texts, &old, f, 0.6), vec![3]);
    // Honouring the threshold: C leaves the group and is kept.
    let new = run(true);
    assert_eq!(grouped(&new.groups), vec![(0, vec![0, 1])]);
    assert!(below(&texts, &new, f, 0.6).is_empty());
    assert!(new.kept().contains(&3));
}

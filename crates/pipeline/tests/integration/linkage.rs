//! Linkage grouping (`GroupMethod::Linkage`) against a brute-force oracle of its rule
//! on small random graphs, equal to connected components at or above its chaining
//! floor, exact copies moving with their first copy (issue 29, item 3).
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ScoredPair;
use ndd_pipeline::{
    Dedup, Document, GroupMethod, Grouping, Linkage, Method, Representative, Shingles,
};
use proptest::prelude::*;

/// The rule stated plainly, over a label per document and a similarity matrix: label
/// documents by reachability through pairs at `floor` or above (repeated relabelling
/// until nothing changes); then walk the weaker pairs by score (highest first, ties by
/// the pair), and when their documents' groups differ, count the pairs between the two
/// groups member by member and merge when they are at least `fraction` of `|A| × |B|`.
/// Groups of two or more, as sorted member lists, by smallest member.
fn oracle(n: usize, pairs: &[(usize, usize, f64)], floor: f64, fraction: f64) -> Vec<Vec<usize>> {
    let mut sim = vec![vec![None::<f64>; n]; n];
    for &(a, b, s) in pairs {
        if a != b {
            let best = sim[a][b].map_or(s, |old: f64| old.max(s));
            sim[a][b] = Some(best);
            sim[b][a] = Some(best);
        }
    }
    let mut label: Vec<usize> = (0..n).collect();
    loop {
        let mut changed = false;
        for a in 0..n {
            for b in 0..n {
                if sim[a][b].is_some_and(|s| s >= floor) && label[a] != label[b] {
                    let (keep, gone) = (label[a].min(label[b]), label[a].max(label[b]));
                    for l in &mut label {
                        if *l == gone {
                            *l = keep;
                        }
                    }
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut weak: Vec<(f64, usize, usize)> = Vec::new();
    for (a, row) in sim.iter().enumerate() {
        for (b, &s) in row.iter().enumerate().skip(a + 1) {
            if let Some(s) = s.filter(|&s| s < floor) {
                weak.push((s, a, b));
            }
        }
    }
    weak.sort_by(|x, y| y.0.total_cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    for (_, a, b) in weak {
        let (la, lb) = (label[a], label[b]);
        if la == lb {
            continue;
        }
        let ga: Vec<usize> = (0..n).filter(|&d| label[d] == la).collect();
        let gb: Vec<usize> = (0..n).filter(|&d| label[d] == lb).collect();
        let shared = ga
            .iter()
            .flat_map(|&x| gb.iter().map(move |&y| (x, y)))
            .filter(|&(x, y)| sim[x][y].is_some())
            .count();
        if shared as f64 >= fraction * (ga.len() * gb.len()) as f64 {
            for l in &mut label {
                if *l == lb {
                    *l = la;
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for l in 0..n {
        let members: Vec<usize> = (0..n).filter(|&d| label[d] == l).collect();
        if members.len() > 1 {
            groups.push(members);
        }
    }
    groups.sort();
    groups
}

fn docs(n: usize) -> Vec<Document> {
    (0..n).map(|i| Document::new(i.to_string(), "t")).collect()
}

fn members(groups: &[ndd_pipeline::Group]) -> Vec<Vec<usize>> {
    groups.iter().map(|g| g.members.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn linkage_grouping_follows_its_rule(
        n in 1usize..20,
        raw in prop::collection::vec((0usize..20, 0usize..20, 0u8..8), 0..60),
        floor_step in 0u8..8,
        fraction in prop::sample::select(vec![0.05, 0.125, 0.25, 0.5, 1.0]),
    ) {
        // Scores on a grid of 0.6 .. 0.95, so that ties and the floor itself occur.
        let score = |s: u8| 0.6 + 0.05 * f64::from(s);
        let floor = score(floor_step);
        let pairs: Vec<(usize, usize, f64)> = raw
            .into_iter()
            .filter(|&(a, b, _)| a < n && b < n)
            .map(|(a, b, s)| (a, b, score(s)))
            .collect();
        let scored: Vec<ScoredPair> = pairs.iter().map(|&(a, b, s)| ScoredPair::new(a, b, s)).collect();
        let linkage = Linkage::new().chain_floor(floor).fraction(fraction);
        let got = Grouping::linkage(Representative::FirstSeen, linkage).run(&docs(n), &scored).unwrap();
        prop_assert_eq!(members(&got), oracle(n, &pairs, floor, fraction));
        // First seen keeps the smallest member.
        for g in &got {
            prop_assert_eq!(g.representative, g.members[0]);
        }
        // Every group lies within one connected component.
        let components = Grouping::default().run(&docs(n), &scored).unwrap();
        for g in &got {
            prop_assert!(components.iter().any(|c| g.members.iter().all(|m| c.members.contains(m))));
        }
        // A floor at or below every score is connected components.
        let low = Linkage::new().chain_floor(0.6).fraction(fraction);
        let got = Grouping::linkage(Representative::FirstSeen, low).run(&docs(n), &scored).unwrap();
        prop_assert_eq!(members(&got), members(&components));
    }
}

/// Documents `0..k` of a chain of word sets, each sharing 7 of 9 words with the next
/// (Jaccard 7/9 = 0.78), `first` the first word.
fn chain(first: usize, k: usize) -> Vec<String> {
    (first..first + k)
        .map(|i| {
            (i..i + 8)
                .map(|w| format!("w{w}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn at_or_above_the_floor_linkage_is_components() {
    let texts = chain(0, 6);
    let run = Dedup::new()
        .method(Method::ExactJaccard)
        .shingles(Shingles::Words(1))
        .threshold(0.75);
    let components = run.clone().run_texts(&texts).unwrap();
    assert_eq!(
        members(&components.groups),
        vec![(0..6).collect::<Vec<_>>()]
    );
    // The chain's pairs score 0.78: above a floor of 0.75, one group as components.
    let low = run
        .clone()
        .group(GroupMethod::Linkage(Linkage::new().chain_floor(0.75)))
        .run_texts(&texts)
        .unwrap();
    assert_eq!(members(&low.groups), members(&components.groups));
    // Below the default floor 0.9 and with a fraction of 1/2, a weak pair joins two
    // groups when they share at least half their cross pairs. The walk (all pairs tie
    // at 7/9, so by position): 0-1 join; {0,1}-2 share 1 of 2 and join; {0,1,2}-3
    // share 1 of 3 and do not; 3-4 join; {3,4}-5 share 1 of 2 and join.
    let half = run
        .group(GroupMethod::Linkage(Linkage::new().fraction(0.5)))
        .run_texts(&texts)
        .unwrap();
    assert_eq!(members(&half.groups), vec![vec![0, 1, 2], vec![3, 4, 5]]);
}

#[test]
fn exact_copies_count_as_their_first_copy() {
    // The chain of six above with document 6 an exact copy of 2 (case changed): the
    // copy is paired with what 2 is paired with and weighs in the counts. With a
    // fraction of 1/2: 0-1 join; {0,1}-{2,6} share 2 of 4 and join; {0,1,2,6}-3 share
    // 2 of 4 (2-3 and 6-3) and join; {0,1,2,3,6}-4 share 1 of 5 and do not; 4-5 join.
    let mut texts = chain(0, 6);
    texts.push(texts[2].to_uppercase());
    let run = Dedup::new()
        .method(Method::ExactJaccard)
        .shingles(Shingles::Words(1))
        .threshold(0.75)
        .group(GroupMethod::Linkage(Linkage::new().fraction(0.5)));
    let out = run.clone().run_texts(&texts).unwrap();
    assert_eq!(members(&out.groups), vec![vec![0, 1, 2, 3, 6], vec![4, 5]]);
    // Without the copy, {0,1,2}-3 share 1 of 3: two groups of three.
    let out = run.run_texts(&texts[..6]).unwrap();
    assert_eq!(members(&out.groups), vec![vec![0, 1, 2], vec![3, 4, 5]]);
}

#[test]
fn bad_settings_are_refused() {
    for bad in [
        Linkage::new().chain_floor(0.0),
        Linkage::new().chain_floor(f64::NAN),
        Linkage::new().fraction(1.5),
    ] {
        assert!(
            Dedup::new()
                .group(GroupMethod::Linkage(bad))
                .validate()
                .is_err()
        );
        let pairs = [ScoredPair::new(0, 1, 1.0)];
        assert!(
            Grouping::linkage(Representative::FirstSeen, bad)
                .run(&docs(2), &pairs)
                .is_err()
        );
    }
    assert_eq!("linkage".parse::<GroupMethod>().unwrap().name(), "linkage");
}

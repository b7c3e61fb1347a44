//! Where constraints come from: the must-link test against its definition (every
//! paragraph of the reference contained, or word-set overlap above the bound) and the
//! attribute rules over candidate pairs.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::HashSet;

use ndd_align::TokenOptions;
use ndd_cluster::{Constraints, DEFAULT_MUST_OVERLAP, Link, is_must_link};
use ndd_core::ErrorKind;
use proptest::prelude::*;

const WORDS: [&str; 12] = [
    "river", "mercury", "plant", "fish", "stop", "protect", "air", "clean", "now", "we", "urge",
    "agency",
];

/// Word-set Jaccard of two lowercase, space-separated texts.
fn overlap(a: &str, b: &str) -> f64 {
    let (x, y): (HashSet<&str>, HashSet<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    x.intersection(&y).count() as f64 / x.union(&y).count() as f64
}

/// Whether every paragraph of `reference` is a contiguous run of words in some
/// paragraph-joined stretch of `candidate` (words compared one by one).
fn contains_all(candidate: &str, reference: &str) -> bool {
    let cand: Vec<&str> = candidate.split_whitespace().collect();
    reference.split("\n\n").all(|p| {
        let para: Vec<&str> = p.split_whitespace().collect();
        para.is_empty() || cand.windows(para.len()).any(|w| w == para.as_slice())
    })
}

fn paragraph() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(WORDS.to_vec()), 4..9)
        .prop_map(|w| w.join(" "))
}

proptest! {
    #[test]
    fn must_link_is_containment_or_overlap(
        reference in proptest::collection::vec(paragraph(), 1..4),
        candidate in proptest::collection::vec(paragraph(), 1..5),
        keep in proptest::collection::vec(any::<bool>(), 4),
    ) {
        // Candidates that contain some, all or none of the reference's paragraphs.
        let mut parts = candidate.clone();
        for (p, &k) in reference.iter().zip(&keep) {
            if k {
                parts.push(p.clone());
            }
        }
        let (r, c) = (reference.join("\n\n"), parts.join("\n\n"));
        let o = TokenOptions::default();
        let want = contains_all(&c, &r) || overlap(&r, &c) > DEFAULT_MUST_OVERLAP;
        prop_assert_eq!(is_must_link(&o.tokens(&r), &o.tokens(&c), DEFAULT_MUST_OVERLAP), want, "{:?} / {:?}", r, c);
    }
}

#[test]
fn must_link_cases() {
    let o = TokenOptions::default();
    let letter = "we urge the agency to protect the river\n\nstop mercury from the plant now";
    // Key block: the letter's paragraphs inside a longer comment, reordered.
    let key = "i fish every summer\n\nstop mercury from the plant now\n\nwe urge the agency to protect the river";
    assert!(is_must_link(
        &o.tokens(letter),
        &o.tokens(key),
        DEFAULT_MUST_OVERLAP
    ));
    // One word changed: not contained, and 11 of 13 distinct words shared (< 95%).
    let minor = "we urge the agency to protect the lake\n\nstop mercury from the plant now";
    assert!(!is_must_link(
        &o.tokens(letter),
        &o.tokens(minor),
        DEFAULT_MUST_OVERLAP
    ));
    assert!(is_must_link(&o.tokens(letter), &o.tokens(minor), 0.8));
    // An empty reference links nothing.
    assert!(!is_must_link(
        &o.tokens(""),
        &o.tokens(key),
        DEFAULT_MUST_OVERLAP
    ));
}

#[test]
fn attribute_rules_link_only_the_pairs_given() {
    let docket = [Some("EPA-1"), Some("EPA-1"), Some("DOT-2"), None];
    let relay = [Some("r1"), Some("r2"), Some("r1"), Some("r1")];
    let pairs = [(0, 1), (0, 2), (1, 2), (2, 3)];
    let mut c = Constraints::new(4);
    assert_eq!(c.cannot_if_different(pairs, &docket).unwrap(), 2); // (0,2), (1,2)
    assert_eq!(c.family_if_same(pairs, &relay).unwrap(), 2); // (0,2), (2,3)
    assert_eq!(
        c.links(),
        &[
            (Link::Cannot, 0, 2),
            (Link::Cannot, 1, 2),
            (Link::Family, 0, 2),
            (Link::Family, 2, 3)
        ]
    );
    // (0, 3) was not a candidate pair: no family-link, though both use relay r1...
    // ...but the closure spreads the cannot-link of 2 to its family (rule 4).
    let closed = c.close().unwrap();
    assert_eq!(closed.link(0, 2), Some(Link::Cannot));
    assert_eq!(closed.link(0, 3), Some(Link::Cannot));
}

#[test]
fn attribute_rules_validate_their_input() {
    let mut c = Constraints::new(2);
    let e = c.cannot_if_different([(0, 1)], &[Some(1)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LengthMismatch);
    let e = c.family_if_same([(0, 5)], &[Some(1), Some(1)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(c.add_where(Link::Must, [(1, 1)], |_, _| true).unwrap(), 0);
    assert!(c.is_empty());
}

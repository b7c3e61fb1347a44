//! The repeated substrings against brute force on small generated corpora: every
//! byte covered by a span of at least L bytes that occurs in another document (or
//! anywhere else, for `Scope::Anywhere`) is found, and no other byte; with one pass
//! and with shards forced by a tiny memory budget.

use std::ops::Range;

use ndd_repeats::substrings::{
    PASS_BYTES_PER_TEXT_BYTE, RepeatedSubstrings, Scope, merge_ranges, remove_ranges,
};
use proptest::prelude::*;

/// Whether `needle` occurs in `hay` at a position other than `except`.
fn occurs(hay: &[u8], needle: &[u8], except: Option<usize>) -> bool {
    hay.len() >= needle.len()
        && (0..=hay.len() - needle.len())
            .any(|p| Some(p) != except && &hay[p..p + needle.len()] == needle)
}

/// The covered ranges the slow, obvious way: every substring `docs[d][a..b]` with
/// `b - a >= l`, looked for in every other document (and, `anywhere`, elsewhere in
/// its own), its bytes covered when found.
fn brute_force(docs: &[Vec<u8>], l: usize, anywhere: bool) -> Vec<Vec<Range<usize>>> {
    docs.iter()
        .enumerate()
        .map(|(d, doc)| {
            let mut covered = Vec::new();
            for a in 0..doc.len() {
                for b in a + l..=doc.len() {
                    let span = &doc[a..b];
                    let elsewhere = docs
                        .iter()
                        .enumerate()
                        .any(|(e, other)| e != d && occurs(other, span, None))
                        || (anywhere && occurs(doc, span, Some(a)));
                    if elsewhere {
                        covered.push(a..b);
                    }
                }
            }
            merge_ranges(covered)
        })
        .collect()
}

/// Documents over a small alphabet with multi-byte characters, so that repeats are
/// common and spans start and end inside characters.
fn corpus() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec("[ab é€]{0,24}", 0..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn equals_brute_force(docs in corpus(), l in 1usize..9, anywhere in any::<bool>()) {
        let bytes: Vec<Vec<u8>> = docs.iter().map(|d| d.as_bytes().to_vec()).collect();
        let scope = if anywhere { Scope::Anywhere } else { Scope::AcrossDocuments };
        let found = RepeatedSubstrings::new(l).unwrap().scope(scope).find(&docs).unwrap();
        prop_assert_eq!(found.ranges(), &brute_force(&bytes, l, anywhere)[..]);
        prop_assert_eq!(found.passes(), 1);
    }

    #[test]
    fn shards_forced_by_a_tiny_budget_give_the_same_answer(
        docs in corpus(),
        l in 1usize..9,
        anywhere in any::<bool>(),
        slack in 0usize..40,
    ) {
        let longest = docs.iter().map(String::len).max().unwrap_or(0);
        let budget = (2 * longest + slack) * PASS_BYTES_PER_TEXT_BYTE;
        let scope = if anywhere { Scope::Anywhere } else { Scope::AcrossDocuments };
        let finder = RepeatedSubstrings::new(l).unwrap().scope(scope);
        let sharded = finder.clone().memory_budget(budget).find(&docs).unwrap();
        prop_assert!(sharded.peak_bytes() <= budget);
        let bytes: Vec<Vec<u8>> = docs.iter().map(|d| d.as_bytes().to_vec()).collect();
        prop_assert_eq!(sharded.ranges(), &brute_force(&bytes, l, anywhere)[..]);
    }

    /// What is left of each document after the removal is valid UTF-8 (a `String`),
    /// made of bytes outside the ranges only, and no longer than the document less
    /// its covered bytes.
    #[test]
    fn removal_takes_out_at_least_the_covered_bytes(docs in corpus(), l in 1usize..9) {
        let found = RepeatedSubstrings::new(l).unwrap().find(&docs).unwrap();
        for (doc, ranges) in docs.iter().zip(found.ranges()) {
            let covered: usize = ranges.iter().map(|r| r.end - r.start).sum();
            let left = remove_ranges(doc, ranges);
            prop_assert!(left.len() + covered <= doc.len());
            // Every byte kept is outside the ranges: the kept text is a subsequence
            // of the bytes outside them.
            let outside: Vec<u8> = doc
                .bytes()
                .enumerate()
                .filter(|(i, _)| !ranges.iter().any(|r| r.contains(i)))
                .map(|(_, b)| b)
                .collect();
            let mut it = outside.iter();
            prop_assert!(left.bytes().all(|b| it.any(|&o| o == b)));
        }
    }
}

#[test]
fn a_span_never_crosses_a_document_boundary() {
    // "abc" + "def" concatenated holds "cde", which the third document has; it is in
    // neither of the first two.
    let docs = ["abc", "def", "xcdex"];
    let found = RepeatedSubstrings::new(3).unwrap().find(&docs).unwrap();
    assert_eq!(found.spans(), 0);
}

#[test]
fn a_budget_too_small_for_the_longest_document_is_a_typed_error() {
    // 120 bytes in passes of 100: two passes at least, each holding two shards of
    // at most 50 bytes, and the first document has 100.
    let docs = ["a".repeat(100), "b".repeat(10), "c".repeat(10)];
    let err = RepeatedSubstrings::new(5)
        .unwrap()
        .memory_budget(100 * PASS_BYTES_PER_TEXT_BYTE)
        .find(&docs)
        .unwrap_err();
    assert_eq!(err.kind(), ndd_core::ErrorKind::InvalidParameter);
    assert!(err.to_string().contains("memory_budget"), "{err}");
}

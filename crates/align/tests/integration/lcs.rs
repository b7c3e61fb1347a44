//! The bit-parallel LCS, the early exit, the alignment and the block report against
//! the definitions computed the slow way.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::corpus::bundled;

use ndd_align::{
    Aligner, BlockKind, BlockReport, Measure, Prepared, TokenOptions, quadratic_lcs_len,
};
use ndd_core::hash::mix64;
use ndd_shingle::{FeatureExtractor, WordShingler};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Sequences over a small alphabet (many matches) of lengths that cross word edges.
fn seq(max: usize, alphabet: u64) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0..alphabet, 0..max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn lcs_equals_the_dynamic_program(a in seq(200, 6), b in seq(200, 6)) {
        prop_assert_eq!(Aligner::new().lcs_len(&a, &b), quadratic_lcs_len(&a, &b));
    }

    #[test]
    fn lcs_equals_the_dynamic_program_on_wide_alphabets(a in seq(300, 300), b in seq(300, 300)) {
        prop_assert_eq!(Aligner::new().lcs_len(&a, &b), quadratic_lcs_len(&a, &b));
    }

    #[test]
    fn the_early_exit_never_changes_a_decision(
        a in seq(150, 5),
        b in seq(150, 5),
        min in 0usize..160,
        t in 0.0f64..=1.0,
    ) {
        let mut al = Aligner::new();
        let full = quadratic_lcs_len(&a, &b);
        let r = al.lcs(&a, &b, min);
        prop_assert_eq!(r.lcs, (full >= min).then_some(full));
        let complete = al.lcs(&a, &b, 0);
        let (pa, pb) = (Prepared::from_hashes(a.clone()), Prepared::from_hashes(b.clone()));
        for m in Measure::ALL {
            let want = Some(m.score(&complete)).filter(|&s| s >= t);
            prop_assert_eq!(al.verify(&a, &b, m, t).unwrap(), want);
            prop_assert_eq!(al.verify_prepared(&pa, &pb, m, t).unwrap(), want);
        }
    }

    #[test]
    fn an_exact_alignment_is_a_longest_common_subsequence(a in seq(300, 4), b in seq(300, 4)) {
        let al = Aligner::new().align(&a, &b);
        prop_assert!(al.is_exact());
        prop_assert_eq!(al.matched(), quadratic_lcs_len(&a, &b));
        let (mut pa, mut pb) = (0, 0);
        for r in al.runs() {
            prop_assert!(r.a >= pa && r.b >= pb && r.len > 0);
            prop_assert_eq!(&a[r.a..r.a + r.len], &b[r.b..r.b + r.len]);
            pa = r.a + r.len;
            pb = r.b + r.len;
        }
    }

    #[test]
    fn block_reports_rebuild_both_texts(
        a in "[a-c ,.\n]{0,80}",
        b in "[a-c ,.\n]{0,80}",
    ) {
        check_report(&a, &b);
    }
}

/// The blocks partition both texts, and shared blocks hold the same tokens on both
/// sides.
fn check_report(a: &str, b: &str) {
    let o = TokenOptions::default();
    let (ta, tb) = (o.tokens(a), o.tokens(b));
    let r = BlockReport::new(&mut Aligner::new(), &ta, &tb);
    let rebuilt_a: String = r.a_blocks().iter().map(|x| r.a_text(x)).collect();
    let rebuilt_b: String = r.b_blocks().iter().map(|x| r.b_text(x)).collect();
    assert_eq!(rebuilt_a, a);
    assert_eq!(rebuilt_b, b);
    let mut next = 0;
    for x in r.a_blocks() {
        assert_eq!(x.tokens.start, next, "token ranges are contiguous");
        next = x.tokens.end;
        if let Some(other) = &x.other {
            assert_ne!(x.kind, BlockKind::Unique);
            assert_eq!(&ta.hashes()[x.tokens.clone()], &tb.hashes()[other.clone()]);
        }
    }
    assert_eq!(next, ta.len());
    let shared = |blocks: &[ndd_align::Block]| {
        blocks
            .iter()
            .filter(|x| x.kind == BlockKind::Shared)
            .map(|x| x.tokens.len())
            .sum::<usize>()
    };
    assert_eq!(shared(r.a_blocks()), r.alignment().matched());
    assert_eq!(shared(r.b_blocks()), r.alignment().matched());
}

#[test]
fn lcs_on_real_text_equals_the_dynamic_program() {
    let docs = bundled();
    let o = TokenOptions::default();
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut al = Aligner::new();
    for _ in 0..60 {
        let a = o.hashes(&docs[rng.random_range(0..docs.len())]);
        let mut b = o.hashes(&docs[rng.random_range(0..docs.len())]);
        // Half the pairs share most text: a copy of `a` with tokens changed.
        if rng.random_bool(0.5) {
            b = a.clone();
            for _ in 0..rng.random_range(0..=b.len() / 10 + 1) {
                if !b.is_empty() {
                    let i = rng.random_range(0..b.len());
                    b[i] = rng.random();
                }
            }
        }
        let (a, b) = (&a[..a.len().min(1500)], &b[..b.len().min(1500)]);
        assert_eq!(al.lcs_len(a, b), quadratic_lcs_len(a, b));
    }
}

#[test]
fn block_reports_rebuild_real_documents() {
    let docs = bundled();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for _ in 0..40 {
        let a = &docs[rng.random_range(0..docs.len())];
        let b = &docs[rng.random_range(0..docs.len())];
        check_report(a, b);
        // And a near copy: the first half of `a` after the second.
        let cut = a
            .char_indices()
            .nth(a.chars().count() / 2)
            .map_or(0, |(i, _)| i);
        check_report(a, &format!("{}{}", &a[cut..], &a[..cut]));
    }
}

#[test]
fn tokens_are_those_of_the_word_shingles() {
    // A word 1-gram shingle is the mixed hash of its token: the shingler's features,
    // in order, are the alignment's tokens (same tokenizer, folding, NFKC and hash).
    let mut docs = bundled();
    docs.truncate(50);
    docs.push("Ｆｕｌｌ ﬁle Straße ÉCOLE école".to_string());
    for nfkc in [false, true] {
        let o = TokenOptions::default().nfkc(nfkc);
        let sh = WordShingler::builder().k(1).nfkc(nfkc).build().unwrap();
        for d in &docs {
            let mixed: Vec<u64> = o.hashes(d).into_iter().map(mix64).collect();
            assert_eq!(mixed, sh.features(d));
        }
    }
}

#[test]
fn shingle_jaccard_is_that_of_the_word_3_gram_shingler() {
    let docs = bundled();
    let o = TokenOptions::default();
    let sh = WordShingler::new(3).unwrap();
    let mut al = Aligner::new();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut extra: Vec<String> = vec!["".into(), "one".into(), "one two".into(), "two one".into()];
    extra.extend((0..30).map(|_| docs[rng.random_range(0..docs.len())].clone()));
    for a in &extra {
        for b in extra.iter().step_by(3) {
            let r = al.lcs(&o.hashes(a), &o.hashes(b), 0);
            let want =
                ndd_core::jaccard(sh.feature_set(a).as_slice(), sh.feature_set(b).as_slice());
            assert_eq!(r.shingle_jaccard(), want, "{a:.40} / {b:.40}");
        }
    }
}

#[test]
fn hostile_inputs_cost_what_the_bound_says() {
    // One repeated word on both sides: every position matches (the worst case of a
    // sparse method), 20,000 tokens each; the early exit rejects an unreachable
    // threshold after the multiset bound without any bit step.
    let a = vec![7u64; 20_000];
    let b = vec![7u64; 20_000];
    let mut al = Aligner::new();
    assert_eq!(al.lcs_len(&a, &b), 20_000);
    let r = al.lcs(&a, &b[..100], 101);
    assert_eq!(r.lcs, None);
    // Sides beyond MAX_TOKENS are cut, not refused.
    let long = vec![1u64; ndd_align::MAX_TOKENS + 5];
    let r = al.lcs(&long, &[1, 1], 0);
    assert_eq!((r.len_a, r.lcs), (ndd_align::MAX_TOKENS, Some(2)));
    // Sides too long for the bit-vector traceback but close: Myers' exact search.
    let long_a: Vec<u64> = (0..12_000).map(|i| i % 997).collect();
    let mut long_b = long_a.clone();
    for k in 0..10 {
        long_b[k * 1_000 + 7] = 5_000 + k as u64;
    }
    let aln = al.align(&long_a, &long_b);
    assert!(aln.is_exact());
    assert_eq!(aln.matched(), 11_990);
    assert_eq!(al.lcs_len(&long_a, &long_b), 11_990);
    // Completely different long sides: the alignment falls back to the bounded
    // search and says so; its runs are still a common subsequence.
    let x: Vec<u64> = (0..30_000).collect();
    let y: Vec<u64> = (0..30_000).map(|i| (i * 7919) % 30_011).collect();
    let aln = al.align(&x, &y);
    assert!(!aln.is_exact());
    assert!(aln.matched() <= al.lcs_len(&x, &y));
    for r in aln.runs() {
        assert_eq!(&x[r.a..r.a + r.len], &y[r.b..r.b + r.len]);
    }
}

/// The hostile inputs of `hostile.rs` get the reports their construction implies;
/// their speed is the `report_hostile` bench's to measure (`cargo bench -p ndd-align
/// --bench align -- report_hostile`), not a clock's here.
#[test]
fn hostile_reports_are_as_constructed() {
    let o = TokenOptions::default();
    let mut al = Aligner::new();
    let (a, b) = crate::hostile::edited_paragraphs();
    let (same, shifted) = crate::hostile::repeated_word();
    // (texts, the tokens they share in order, whether b holds every paragraph of a)
    for (x, y, shared, contained) in [(&a, &b, 20_000, false), (&same, &shifted, 40_000, true)] {
        let (tx, ty) = (o.tokens(x), o.tokens(y));
        let r = BlockReport::new(&mut al, &tx, &ty);
        // The 20,000 even words, in order, and no odd one; every copy of "the".
        assert_eq!(r.alignment().matched(), shared);
        let rebuilt: String = r.b_blocks().iter().map(|k| r.b_text(k)).collect();
        assert_eq!(&rebuilt, y);
        assert!(r.b_blocks().len() <= 2 * ty.len() + 1);
        let _ = r.classify();
        assert_eq!(ndd_align::contains_paragraphs(&ty, &tx), contained);
    }
}

#[test]
fn invalid_thresholds_are_refused() {
    let mut al = Aligner::new();
    for t in [f64::NAN, -0.1, 1.5, f64::INFINITY] {
        assert!(al.verify(&[1], &[1], Measure::Dice, t).is_err(), "{t}");
    }
}

/// Paragraph containment the slow way: the contained text split at blank lines by
/// hand (sentence by sentence when it has one paragraph, as documented), each
/// paragraph's words searched as a contiguous run among the container's words.
fn contains_slow(container: &str, contained: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let hay = words(container);
    let mut paras: Vec<&str> = contained
        .split("\n\n")
        .filter(|p| !words(p).is_empty())
        .collect();
    if paras.len() < 2 {
        paras = contained
            .split_inclusive(". ")
            .filter(|p| !words(p).is_empty())
            .collect();
    }
    paras.iter().all(|p| {
        let needle = words(p);
        hay.windows(needle.len()).any(|w| w == needle.as_slice())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn paragraph_containment_matches_a_naive_search(
        paras in prop::collection::vec(prop::collection::vec(0usize..6, 1..6), 1..5),
        order in prop::collection::vec(0usize..8, 0..8),
        noise in prop::collection::vec(0usize..6, 0..6),
    ) {
        let vocab = ["alpha", "beta", "gamma", "delta", "eps", "zeta"];
        let para = |p: &Vec<usize>| p.iter().map(|&i| vocab[i]).collect::<Vec<_>>().join(" ");
        let contained = paras.iter().map(para).collect::<Vec<_>>().join("\n\n");
        // The container: some of the paragraphs in any order, with noise between.
        let mut parts: Vec<String> = order.iter().filter_map(|&i| paras.get(i).map(para)).collect();
        parts.insert(parts.len() / 2, para(&noise));
        let container = parts.join("\n\n");
        let o = TokenOptions::default();
        prop_assert_eq!(
            ndd_align::contains_paragraphs(&o.tokens(&container), &o.tokens(&contained)),
            contains_slow(&container, &contained),
            "{:?} in {:?}", contained, container
        );
    }
}

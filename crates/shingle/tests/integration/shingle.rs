//! Shingling against definitions, the paper's worked example, golden vectors from the
//! independent spec implementation (`crates/core/tests/hash_spec.py`), and properties.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::hash::{kgram_hash, stable_hash64};
use ndd_core::{FeatureExtractor, Tokenizer, jaccard};
use ndd_shingle::{
    CharShingler, Selection, ShortDocs, TokenFilter, WordShingler, WordTokenizer, hash_token,
};
use proptest::prelude::*;

fn fold(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

#[test]
fn paper_002_bigram_example_through_the_shingler() {
    let s = WordShingler::new(2).unwrap();
    let d1 = s.feature_set("Jack London traveled to Oakland");
    let d2 = s.feature_set("Jack London traveled to the city of Oakland");
    let d3 = s.feature_set("Jack traveled from Oakland to London");
    assert_eq!((d1.len(), d2.len(), d3.len()), (4, 7, 5));
    assert_eq!(jaccard(d1.as_slice(), d2.as_slice()), 3.0 / 8.0);
    assert_eq!(jaccard(d1.as_slice(), d3.as_slice()), 0.0);
    assert_eq!(jaccard(d2.as_slice(), d3.as_slice()), 0.0);
}

#[test]
fn golden_word_bigrams_match_the_spec() {
    // From hash_spec.py: bigrams of "jack london traveled to oakland", seed 0.
    let s = WordShingler::new(2).unwrap();
    assert_eq!(
        s.features("Jack London, traveled to OAKLAND!"),
        vec![
            0x65e10d362c9009e0,
            0x4519f3a51d81db4f,
            0x88c3f178d5973bf6,
            0x1434c53142da6378
        ]
    );
    let five = WordShingler::new(5).unwrap();
    assert_eq!(
        five.features("Jack London traveled to Oakland"),
        vec![0x7f94ea2c85db2aef]
    );
}

#[test]
fn tokenizer_offsets_on_non_ascii_text() {
    let text = "Ça coûte 12,50 € — naïve Straße; хорошо! हिन्दी 東京タワー 🙂ok";
    let got: Vec<(&str, usize, usize)> = WordTokenizer::new()
        .tokens(text)
        .iter()
        .map(|t| (t.text, t.start, t.end))
        .collect();
    let expected = [
        "Ça",
        "coûte",
        "12",
        "50",
        "naïve",
        "Straße",
        "хорошо",
        "हिन्दी",
        "東",
        "京",
        "タ",
        "ワ",
        "ー",
        "ok",
    ];
    let texts: Vec<&str> = got.iter().map(|t| t.0).collect();
    assert_eq!(texts, expected);
    for &(t, a, b) in &got {
        assert_eq!(&text[a..b], t, "offsets must slice the input");
    }
    // Hand-computed offsets: "Ça" is 'Ç' (2 bytes) + 'a'.
    assert_eq!(got[0], ("Ça", 0, 3));
    assert_eq!(got[1], ("coûte", 4, 10));
}

#[test]
fn case_folding_is_unicode_aware() {
    assert_eq!(
        hash_token("ÉCOLE", true, 0),
        stable_hash64("école".as_bytes(), 0)
    );
    assert_eq!(
        hash_token("ΣΟΦΊΑ", true, 3),
        stable_hash64(fold("ΣΟΦΊΑ").as_bytes(), 3)
    );
    let long = "Ä".repeat(200);
    assert_eq!(
        hash_token(&long, true, 1),
        stable_hash64(fold(&long).as_bytes(), 1)
    );
    let long_ascii = "AbC".repeat(100);
    assert_eq!(
        hash_token(&long_ascii, true, 1),
        stable_hash64(long_ascii.to_ascii_lowercase().as_bytes(), 1)
    );
}

#[test]
fn imatch_filter_and_selection_schemes() {
    let s = WordShingler::builder()
        .k(1)
        .filter(TokenFilter::imatch())
        .build()
        .unwrap();
    let kept = s.features("The 2004 lexicon a1b2 randomization of terms");
    let want: Vec<u64> = ["lexicon", "randomization", "terms"]
        .iter()
        .map(|w| kgram_hash(&[stable_hash64(w.as_bytes(), 0)]))
        .collect();
    assert_eq!(kept, want);
    assert!(WordShingler::builder().k(0).build().is_err());
    assert!(
        WordShingler::builder()
            .selection(Selection::EveryNth(0))
            .build()
            .is_err()
    );
}

#[test]
fn char_shingles_count_and_whitespace() {
    let s = CharShingler::new(3).unwrap();
    assert_eq!(s.features("abcdef").len(), 4);
    // Runs of whitespace collapse, so re-wrapped text keeps its shingles.
    assert_eq!(s.feature_set("ab  \n cd"), s.feature_set("ab cd"));
    assert_eq!(s.feature_set("  ab cd  "), s.feature_set("ab cd"));
    assert_eq!(s.feature_set("AB CD"), s.feature_set("ab cd"));
    assert!(s.features("").is_empty());
    assert_eq!(s.features("ab").len(), 1);
    let skip = CharShingler::with_options(3, 0, true, true, ShortDocs::Skip).unwrap();
    assert!(skip.features("ab").is_empty());
}

#[test]
fn multiset_counts() {
    let s = WordShingler::new(2).unwrap();
    let tf = s.counts("a b a b a b");
    // bigrams: ab ba ab ba ab -> {ab: 3, ba: 2}
    let mut weights: Vec<f64> = tf.entries().iter().map(|w| w.weight).collect();
    weights.sort_by(f64::total_cmp);
    assert_eq!(weights, vec![2.0, 3.0]);
}

fn arb_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("word".to_string()),
            Just("Ünïcödé".to_string()),
            Just("東".to_string()),
            Just(" ".to_string()),
            Just(", ".to_string()),
            Just("\n\n".to_string()),
            Just("x1".to_string()),
            any::<char>().prop_map(|c| c.to_string()),
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn shingle_count_is_n_minus_k_plus_one(text in arb_text(), k in 1usize..7) {
        let n = WordTokenizer::new().tokens(&text).len();
        let skip = WordShingler::builder().k(k).short_docs(ShortDocs::Skip).build().unwrap();
        prop_assert_eq!(skip.features(&text).len(), (n + 1).saturating_sub(k));
        let whole = WordShingler::builder().k(k).build().unwrap();
        let want = if n == 0 { 0 } else if n < k { 1 } else { n - k + 1 };
        prop_assert_eq!(whole.features(&text).len(), want);
    }

    #[test]
    fn shingles_are_the_definition_over_tokens(text in arb_text(), k in 1usize..5, seed in any::<u64>()) {
        let tokens: Vec<u64> = WordTokenizer::new()
            .tokens(&text)
            .iter()
            .map(|t| stable_hash64(fold(t.text).as_bytes(), seed))
            .collect();
        let want: Vec<u64> = tokens.windows(k).map(kgram_hash).collect();
        let s = WordShingler::builder().k(k).seed(seed).short_docs(ShortDocs::Skip).build().unwrap();
        prop_assert_eq!(s.features(&text), want.clone());
        // Sampling schemes select from exactly those shingles.
        let modm = WordShingler::builder().k(k).seed(seed).short_docs(ShortDocs::Skip)
            .selection(Selection::ModM(3)).build().unwrap();
        let want_mod: Vec<u64> = want.iter().copied().filter(|g| g % 3 == 0).collect();
        prop_assert_eq!(modm.features(&text), want_mod);
        let nth = WordShingler::builder().k(k).seed(seed).short_docs(ShortDocs::Skip)
            .selection(Selection::EveryNth(5)).build().unwrap();
        let want_nth: Vec<u64> = want.iter().copied().step_by(5).collect();
        prop_assert_eq!(nth.features(&text), want_nth);
    }

    #[test]
    fn tokens_slice_the_input_in_order(text in arb_text()) {
        let tokens = WordTokenizer::new().tokens(&text);
        let mut last_end = 0;
        for t in &tokens {
            prop_assert!(!t.text.is_empty());
            prop_assert!(t.start >= last_end);
            prop_assert_eq!(&text[t.start..t.end], t.text);
            last_end = t.end;
        }
        // Tokenizing the tokens joined by spaces gives the same tokens.
        let joined: Vec<&str> = tokens.iter().map(|t| t.text).collect();
        let again: Vec<String> = WordTokenizer::new()
            .tokens(&joined.join(" "))
            .iter()
            .map(|t| t.text.to_string())
            .collect();
        prop_assert_eq!(again, joined.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    }

    #[test]
    fn char_shingle_count(text in "[a-zé東]{0,30}", k in 1usize..6) {
        let n = text.chars().count();
        let s = CharShingler::with_options(k, 0, false, true, ShortDocs::Skip).unwrap();
        prop_assert_eq!(s.features(&text).len(), (n + 1).saturating_sub(k));
    }
}

#[test]
fn rabin_shingles_fingerprint_the_folded_kgram_text() {
    use ndd_shingle::ShingleHash;
    use ndd_shingle::rabin::RabinFingerprinter;
    let fp = RabinFingerprinter::default();
    let s = WordShingler::builder()
        .k(2)
        .hash(ShingleHash::Rabin)
        .build()
        .unwrap();
    let got = s.features("Jack LONDON, traveled to Überlingen");
    let want: Vec<u64> = [
        "jack london",
        "london traveled",
        "traveled to",
        "to überlingen",
    ]
    .iter()
    .map(|g| fp.fingerprint(g.as_bytes()))
    .collect();
    assert_eq!(got, want);
    // Helper 2's independent long-division golden for "jack london".
    assert_eq!(got[0], 0x5665113c56f3e37a);
    assert_eq!(s.features("alone"), vec![fp.fingerprint(b"alone")]);
}

/// Bounded work (issue "bounded work"): k-gram lengths past `MAX_KGRAM_LEN` are errors
/// for every shingler and hash (usize::MAX used to loop forever, 2^30 to allocate
/// 8 GiB per document, the Rabin variant to abort), and the longest accepted k
/// shingles a long document with the values of the k-gram hash definition (its time
/// is the `bounded_work/max_k_5000_words` bench's to measure, not a clock's here).
#[test]
fn k_gram_lengths_are_bounded_and_the_limit_is_cheap() {
    use ndd_core::hash::MAX_KGRAM_LEN;
    use ndd_shingle::{CharShingler, ShingleHash, ShortDocs};
    for k in [0, MAX_KGRAM_LEN + 1, 1 << 30, 1 << 40, usize::MAX] {
        assert!(WordShingler::new(k).is_err(), "{k}");
        assert!(
            WordShingler::builder()
                .k(k)
                .hash(ShingleHash::Rabin)
                .build()
                .is_err(),
            "{k}"
        );
        assert!(CharShingler::new(k).is_err(), "{k}");
        assert!(CharShingler::with_options(k, 0, true, true, ShortDocs::Skip).is_err());
        assert!(ndd_core::hash::KGramRoller::new(k).is_err(), "{k}");
    }
    let words: Vec<String> = (0..5000).map(|i| format!("w{}", i % 1500)).collect();
    let doc = words.join(" ");
    let k = MAX_KGRAM_LEN;
    let shingler = WordShingler::builder()
        .k(k)
        .fold_case(false)
        .build()
        .unwrap();
    let got = shingler.features(&doc);
    // The definition: the k-gram hash of every window of k token hashes.
    let tokens: Vec<u64> = words
        .iter()
        .map(|w| stable_hash64(w.as_bytes(), 0))
        .collect();
    let expected: std::collections::BTreeSet<u64> = tokens.windows(k).map(kgram_hash).collect();
    assert_eq!(
        got.iter()
            .copied()
            .collect::<std::collections::BTreeSet<u64>>(),
        expected
    );
    for hash in [ShingleHash::Rolling, ShingleHash::Rabin] {
        let s = WordShingler::builder().k(k).hash(hash).build().unwrap();
        assert!(!s.features(&doc).is_empty());
        assert!(!CharShingler::new(k).unwrap().features(&doc).is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Every k-gram length in the whole `usize` range is refused or shingles a document
    /// within the cost documented at `MAX_KGRAM_LEN` (bounded work).
    #[test]
    fn any_k_is_refused_or_cheap(
        k in prop_oneof![
            0usize..=40,
            (ndd_core::hash::MAX_KGRAM_LEN - 2)..=(ndd_core::hash::MAX_KGRAM_LEN + 2),
            any::<usize>(),
        ],
        rabin in any::<bool>(),
        chars in any::<bool>(),
    ) {
        let doc = "word ".repeat(2000);
        let valid = (1..=ndd_core::hash::MAX_KGRAM_LEN).contains(&k);
        if chars {
            let s = CharShingler::new(k);
            prop_assert_eq!(s.is_ok(), valid);
            if let Ok(s) = s {
                prop_assert!(!s.features(&doc).is_empty());
            }
        } else {
            let hash = if rabin { ndd_shingle::ShingleHash::Rabin } else { ndd_shingle::ShingleHash::Rolling };
            let s = WordShingler::builder().k(k).hash(hash).build();
            prop_assert_eq!(s.is_ok(), valid);
            if let Ok(s) = s {
                prop_assert!(!s.features(&doc).is_empty());
            }
        }
        // Bounded work without a clock: whether `k` is accepted is checked above to be
        // exactly `1..=MAX_KGRAM_LEN`, so the window of any accepted shingler is at
        // most the documented limit.
    }
}

//! Spot signatures (SpotSigs) and punctuation-spot signatures (SigNCD) on hand-computed
//! examples, the SigNCD paper's example, fallback, case folding, non-ASCII text, and
//! properties on arbitrary input.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::hash::kgram_hash;
use ndd_core::{ErrorKind, FeatureExtractor};
use ndd_shingle::hash_token;
use ndd_shingle::spots::{PunctSpotExtractor, PunctSpotVariant, SpotOutcome, SpotSigExtractor};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------
// SpotSigs
// ---------------------------------------------------------------------------------

/// Stopwords (default list): The the and the was in a the. Non-stopwords, indexed:
/// quick0 fox1 jumped2 over3 lazy4 dog5 cat6 sleeping7 box8 near9 river10.
/// Antecedents with the number of non-stopwords before them:
/// The(0) the(4) and(6) the(6) was(7) in(8) a(8) the(10).
const FOX: &str =
    "The quick fox jumped over the lazy dog and the cat was sleeping in a box near the river.";

#[test]
fn spotsigs_d1_chain1() {
    let s = SpotSigExtractor::new();
    let expected = [
        "the:quick",
        "the:lazy",
        "and:cat",
        "the:cat",
        "was:sleeping",
        "in:box",
        "a:box",
        "the:river",
    ];
    assert_eq!(s.spot_strings(FOX), expected);
    assert_eq!(s.spots_count(FOX), 8);
    let features = s.features(FOX);
    assert_eq!(features.len(), 8);
    let h = |w: &str| hash_token(w, true, 0);
    assert_eq!(features[0], kgram_hash(&[h("the"), h("quick")]));
    assert_eq!(features[7], kgram_hash(&[h("the"), h("river")]));
    // "the:cat" and "cat:the" differ.
    assert_ne!(
        kgram_hash(&[h("the"), h("cat")]),
        kgram_hash(&[h("cat"), h("the")])
    );
    assert_eq!(features[3], kgram_hash(&[h("the"), h("cat")]));
}

#[test]
fn spotsigs_d2_chain2() {
    let s = SpotSigExtractor::builder()
        .distance(2)
        .chain(2)
        .build()
        .unwrap();
    // Every 2nd non-stopword, two of them: positions idx+1 and idx+3 (0-based).
    // in(8) would need non-stopword 11, past the end: it and all later ones are dropped.
    let expected = [
        "the:fox:over",
        "the:dog:sleeping",
        "and:sleeping:near",
        "the:sleeping:near",
        "was:box:river",
    ];
    assert_eq!(s.spot_strings(FOX), expected);
    let features = s.features(FOX);
    assert_eq!(features.len(), 5);
    let h = |w: &str| hash_token(w, true, 0);
    assert_eq!(features[0], kgram_hash(&[h("the"), h("fox"), h("over")]));
    assert_ne!(features[2], features[3]); // different antecedents
}

#[test]
fn spotsigs_d1_chain3() {
    let s = SpotSigExtractor::builder().chain(3).build().unwrap();
    let expected = [
        "the:quick:fox:jumped",
        "the:lazy:dog:cat",
        "and:cat:sleeping:box",
        "the:cat:sleeping:box",
        "was:sleeping:box:near",
        "in:box:near:river",
        "a:box:near:river",
    ];
    assert_eq!(s.spot_strings(FOX), expected);
    assert_eq!(s.features(FOX).len(), 7);
    assert_eq!(s.spots_count(FOX), 7);
}

/// The running example of the SpotSigs paper (Theobald, Siddharth, Paepcke, SIGIR
/// 2008): antecedents {a, an, the, is}, chain 2, distance 1, other stopwords skipped.
/// That paper is not among the repository's sources; the expected spots below are
/// derived by hand from the rule stated in `SpotSigExtractor`'s docs.
#[test]
fn spotsigs_paper_example() {
    let doc = "At a rally to kick off a weeklong campaign for the South Carolina primary, \
               Obama tried to set the record straight from an attack circulating widely on \
               the Internet that is designed to play on prejudices against Muslims and fears \
               of terrorism.";
    let s = SpotSigExtractor::builder()
        .antecedents(["a", "an", "the", "is"])
        .chain(2)
        .build()
        .unwrap();
    assert_eq!(
        s.spot_strings(doc),
        [
            "a:rally:kick",
            "a:weeklong:campaign",
            "the:south:carolina",
            "the:record:straight",
            "an:attack:circulating",
            "the:internet:designed",
            "is:designed:play",
        ]
    );
}

#[test]
fn spotsigs_min_spotsigs_and_repeats() {
    let s = SpotSigExtractor::new();
    assert!(s.is_too_short("the cat and the dog")); // 3 < 4
    assert!(!s.is_too_short(FOX));
    let s20 = SpotSigExtractor::builder()
        .min_spotsigs(20)
        .build()
        .unwrap();
    assert!(s20.is_too_short(FOX));
    // Multiset: repeated spots are all pushed.
    let f = s.features("the cat the cat");
    assert_eq!(f.len(), 2);
    assert_eq!(f[0], f[1]);
    // Nothing for empty or stopword-only documents.
    assert!(s.features("").is_empty());
    assert!(s.features("the of and a").is_empty());
    assert!(s.features("cat dog mouse").is_empty());
}

#[test]
fn spotsigs_case_folding() {
    let folded = SpotSigExtractor::new();
    assert_eq!(
        folded.features("THE CAT Was Here"),
        folded.features("the cat was here")
    );
    assert_eq!(
        folded.spot_strings("THE CAT Was Here"),
        ["the:cat", "was:here"]
    );
    let exact = SpotSigExtractor::builder()
        .fold_case(false)
        .build()
        .unwrap();
    // Stopwords still match case-insensitively...
    assert_eq!(
        exact.spot_strings("THE CAT Was Here"),
        ["THE:CAT", "Was:Here"]
    );
    // ...but features keep the case.
    assert_ne!(exact.features("THE CAT"), exact.features("the cat"));
    assert_eq!(exact.features("THE CAT").len(), 1);
    assert_ne!(exact.scheme(), folded.scheme());
}

#[test]
fn spotsigs_custom_stopwords_non_ascii() {
    let de = SpotSigExtractor::builder()
        .stopwords(["der", "die", "das", "und"])
        .build()
        .unwrap();
    assert_eq!(
        de.spot_strings("DIE STRAẞE und der Fluß"),
        ["die:straße", "und:fluß", "der:fluß"]
    );
    let fr = SpotSigExtractor::builder()
        .stopwords(["le", "la", "les", "de", "et"])
        .chain(2)
        .build()
        .unwrap();
    assert_eq!(
        fr.spot_strings("Le café de l'École et la crème brûlée"),
        [
            "le:café:l",
            "de:l:école",
            "et:crème:brûlée",
            "la:crème:brûlée"
        ]
    );
    assert_eq!(
        fr.features("LE CAFÉ DE L'ÉCOLE"),
        fr.features("le café de l'école")
    );
    // Stopwords in upper case match too.
    let up = SpotSigExtractor::builder()
        .stopwords(["THE"])
        .build()
        .unwrap();
    assert_eq!(up.spot_strings("the end"), ["the:end"]);
}

#[test]
fn spotsigs_validation_and_schemes() {
    for b in [
        SpotSigExtractor::builder().chain(0),
        SpotSigExtractor::builder().chain(17),
        SpotSigExtractor::builder().distance(0),
        SpotSigExtractor::builder().distance(17),
        SpotSigExtractor::builder().stopwords(Vec::<&str>::new()),
        SpotSigExtractor::builder().stopwords(["two words"]),
        SpotSigExtractor::builder().stopwords([""]),
        SpotSigExtractor::builder().antecedents(["it's"]),
        SpotSigExtractor::builder().antecedents(Vec::<String>::new()),
    ] {
        assert_eq!(b.build().unwrap_err().kind(), ErrorKind::InvalidParameter);
    }
    let d = SpotSigExtractor::new();
    assert_eq!(d, SpotSigExtractor::default());
    assert_eq!(d.scheme(), SpotSigExtractor::new().scheme());
    let others = [
        SpotSigExtractor::builder().chain(2).build().unwrap(),
        SpotSigExtractor::builder().distance(2).build().unwrap(),
        SpotSigExtractor::builder().seed(1).build().unwrap(),
        SpotSigExtractor::builder()
            .stopwords(["the"])
            .build()
            .unwrap(),
        SpotSigExtractor::builder()
            .antecedents(["the"])
            .build()
            .unwrap(),
    ];
    for o in &others {
        assert_ne!(o.scheme(), d.scheme());
    }
    // min_spotsigs does not change the features, so not the scheme either.
    assert_eq!(
        SpotSigExtractor::builder()
            .min_spotsigs(9)
            .build()
            .unwrap()
            .scheme(),
        d.scheme()
    );
    // The default list is the documented one.
    let words = SpotSigExtractor::default_stopwords();
    assert_eq!(words.len(), 50);
    assert!(
        words
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_lowercase()))
    );
}

// ---------------------------------------------------------------------------------
// Punctuation spots
// ---------------------------------------------------------------------------------

/// The example of the SigNCD paper (Zhang, Yao, Ji, Fang 2016, section 4.1 step 2).
#[test]
fn punct_paper_example() {
    let doc = "Given a set of documents, there are four steps to conduct near-duplicate \
               detection for web documents, preprocessing, signature extraction, \
               compression, and comparison, which are described in detail as follows.";
    let p = PunctSpotExtractor::new();
    let (sig, outcome) = p.signature(doc);
    assert_eq!(
        outcome,
        SpotOutcome {
            spots: 6,
            fallback: false
        }
    );
    // The stated rule (one word before each of the six commas) gives this; the paper
    // prints "documents preprocessing extraction comparison", a subsequence of it
    // without the repeated "documents" and without "compression" (see the rustdoc of
    // `PunctSpotExtractor`).
    assert_eq!(
        sig,
        "documents documents preprocessing extraction compression comparison"
    );
    let paper = "documents preprocessing extraction comparison";
    let mut ours = sig.split(' ');
    assert!(paper.split(' ').all(|w| ours.any(|o| o == w)));
    assert_eq!(p.features(doc).len(), 6);
}

/// Tokens: alpha beta | gamma delta epsilon | zeta | eta theta iota (commas at `|`).
const GREEK: &str = "Alpha beta, gamma delta epsilon, zeta, eta theta iota.";

fn variant(v: PunctSpotVariant) -> PunctSpotExtractor {
    PunctSpotExtractor::builder()
        .variant(v)
        .build()
        .expect("the variants are valid")
}

#[test]
fn punct_variants() {
    let cases: [(PunctSpotVariant, [&str; 3]); 5] = [
        (PunctSpotVariant::Sig1L, ["beta", "epsilon", "zeta"]),
        (PunctSpotVariant::Sig1R, ["gamma", "zeta", "eta"]),
        (
            PunctSpotVariant::Sig2,
            ["beta gamma", "epsilon zeta", "zeta eta"],
        ),
        (
            PunctSpotVariant::Sig4,
            [
                "alpha beta gamma delta",
                "delta epsilon zeta eta",
                "epsilon zeta eta theta",
            ],
        ),
        (
            PunctSpotVariant::Sig6,
            [
                "alpha beta gamma delta epsilon", // only two words before the first comma
                "gamma delta epsilon zeta eta theta",
                "delta epsilon zeta eta theta iota",
            ],
        ),
    ];
    let mut schemes = Vec::new();
    for (v, groups) in cases {
        let p = variant(v);
        assert_eq!(p.spot_strings(GREEK), groups, "{v:?}");
        let (sig, outcome) = p.signature(GREEK);
        assert_eq!(sig, groups.join(" "), "{v:?}");
        assert_eq!(
            outcome,
            SpotOutcome {
                spots: 3,
                fallback: false
            }
        );
        assert_eq!(p.features(GREEK).len(), 3);
        schemes.push(p.scheme());
    }
    schemes.sort_unstable();
    schemes.dedup();
    assert_eq!(schemes.len(), 5);
}

#[test]
fn punct_feature_hashes() {
    let h = |w: &str| hash_token(w, true, 0);
    let comma = hash_token(",", false, 0);
    let f = variant(PunctSpotVariant::Sig2).features(GREEK);
    assert_eq!(f[0], kgram_hash(&[h("beta"), comma, h("gamma")]));
    let f = variant(PunctSpotVariant::Sig1L).features(GREEK);
    assert_eq!(f[2], kgram_hash(&[h("zeta"), comma]));
    let f = variant(PunctSpotVariant::Sig1R).features(GREEK);
    assert_eq!(f[0], kgram_hash(&[comma, h("gamma")]));
    // The mark is part of the feature: "a, b" and "a; b" differ.
    let both = PunctSpotExtractor::builder()
        .punctuation([',', ';'])
        .variant(PunctSpotVariant::Sig2)
        .min_spots(0)
        .build()
        .unwrap();
    assert_ne!(both.features("a, b"), both.features("a; b"));
    assert_eq!(both.spot_strings("a, b"), both.spot_strings("a; b"));
}

#[test]
fn punct_fallback() {
    let p = PunctSpotExtractor::new();
    let doc = "One, two and Three.";
    let (sig, outcome) = p.signature(doc);
    assert_eq!(
        outcome,
        SpotOutcome {
            spots: 1,
            fallback: true
        }
    );
    assert_eq!(sig, "one two and three");
    let h = |w: &str| hash_token(w, true, 0);
    assert_eq!(p.features(doc), [h("one"), h("two"), h("and"), h("three")]);
    assert_eq!(p.spot_strings(doc), ["one", "two", "and", "three"]);

    // Two commas still fall back; three do not.
    assert!(p.signature("a, b, c").1.fallback);
    let (sig, outcome) = p.signature("a, b, c, d");
    assert_eq!((sig.as_str(), outcome.fallback), ("a b c", false));

    // The threshold is configurable.
    let p1 = PunctSpotExtractor::builder().min_spots(1).build().unwrap();
    assert_eq!(
        p1.signature(doc),
        (
            "one".to_owned(),
            SpotOutcome {
                spots: 1,
                fallback: false
            }
        )
    );
    let p0 = PunctSpotExtractor::builder().min_spots(0).build().unwrap();
    assert_eq!(
        p0.signature("no commas"),
        (
            String::new(),
            SpotOutcome {
                spots: 0,
                fallback: false
            }
        )
    );
    assert_ne!(p0.scheme(), p.scheme());

    // Empty document.
    assert_eq!(
        p.signature(""),
        (
            String::new(),
            SpotOutcome {
                spots: 0,
                fallback: true
            }
        )
    );
    assert!(p.features("").is_empty());
    // Enough commas but no words: an empty signature, no features.
    assert_eq!(p.signature(",,,,").0, "");
    assert!(p.features(" , , , ").is_empty());
}

#[test]
fn punct_signature_into_reuses_buffer() {
    let p = PunctSpotExtractor::new();
    let mut buf = String::from("stale");
    p.signature_into(GREEK, &mut buf);
    assert_eq!(buf, "beta epsilon zeta");
    p.signature_into("x", &mut buf);
    assert_eq!(buf, "x");
}

#[test]
fn punct_case_folding() {
    let p = PunctSpotExtractor::new();
    assert_eq!(p.signature("ÉCOLE, Straße, CAFÉ, x").0, "école straße café");
    assert_eq!(p.features("A, B, C, D"), p.features("a, b, c, d"));
    let exact = PunctSpotExtractor::builder()
        .fold_case(false)
        .build()
        .unwrap();
    assert_eq!(
        exact.signature("ÉCOLE, Straße, CAFÉ, x").0,
        "ÉCOLE Straße CAFÉ"
    );
    assert_ne!(exact.features("A, B, C, D"), exact.features("a, b, c, d"));
}

#[test]
fn punct_non_ascii() {
    // French and German with accents.
    let p = variant(PunctSpotVariant::Sig2);
    assert_eq!(
        p.signature("Le café, la crème brûlée, l'été, und die Größe.")
            .0,
        "café la brûlée l été und"
    );
    // The Chinese comma as spot punctuation; every Han character is a word.
    let zh = PunctSpotExtractor::builder()
        .punctuation(['，'])
        .build()
        .unwrap();
    let doc = "我们今天，去公园，看花，很开心。";
    assert_eq!(
        zh.signature(doc),
        (
            "天 园 花".to_owned(),
            SpotOutcome {
                spots: 3,
                fallback: false
            }
        )
    );
    assert_eq!(zh.features(doc).len(), 3);
    // Commas of both scripts.
    let mixed = PunctSpotExtractor::builder()
        .punctuation(['，', ',', '、'])
        .build()
        .unwrap();
    assert_eq!(mixed.punctuation(), &[',', '、', '，']);
    assert_eq!(mixed.signature("一，二、三, four").0, "一 二 三");
    // With the ASCII comma only, the Chinese text falls back to all its characters.
    let (sig, outcome) = PunctSpotExtractor::new().signature(doc);
    assert!(outcome.fallback);
    assert_eq!(sig, "我 们 今 天 去 公 园 看 花 很 开 心");
}

#[test]
fn punct_validation() {
    for b in [
        PunctSpotExtractor::builder().words(0, 0),
        PunctSpotExtractor::builder().words(17, 1),
        PunctSpotExtractor::builder().words(1, 17),
        PunctSpotExtractor::builder().punctuation([]),
        PunctSpotExtractor::builder().punctuation([',', 'a']),
        PunctSpotExtractor::builder().punctuation(['é']),
        PunctSpotExtractor::builder().punctuation(['中']),
    ] {
        assert_eq!(b.build().unwrap_err().kind(), ErrorKind::InvalidParameter);
    }
    // Whitespace and symbols are allowed, and duplicates collapse.
    let p = PunctSpotExtractor::builder()
        .punctuation([';', ' ', ';', '—'])
        .build()
        .unwrap();
    assert_eq!(p.punctuation(), &[' ', ';', '—']);
    assert_eq!(PunctSpotExtractor::new(), PunctSpotExtractor::default());
}

// ---------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------

/// Text built from words likely to form spots: stopwords, content words, non-ASCII
/// words, commas of two scripts and other punctuation.
fn spotty_text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "the", "The", "a", "of", "is", "and", "cat", "dog", "Straße", "café", "東", "京", ",",
        "，", ", ", ".", ";", " ", "  ", "\n", "don't", "ÉCOLE", "x1",
    ]);
    prop::collection::vec(piece, 0..60).prop_map(|v| v.join(" "))
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "\\PC{0,200}", spotty_text()]
}

fn spotsig_params() -> impl Strategy<Value = (usize, usize, bool)> {
    (1..=4usize, 1..=4usize, any::<bool>())
}

fn punct_params() -> impl Strategy<Value = (usize, usize, usize, bool, bool)> {
    (
        0..=3usize,
        0..=3usize,
        0..=4usize,
        any::<bool>(),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn spotsigs_counts_agree(doc in any_text(), (chain, d, fold) in spotsig_params()) {
        let s = SpotSigExtractor::builder().chain(chain).distance(d).fold_case(fold)
            .build().unwrap();
        let features = s.features(&doc);
        let strings = s.spot_strings(&doc);
        prop_assert_eq!(features.len(), strings.len());
        prop_assert_eq!(features.len(), s.spots_count(&doc));
        prop_assert_eq!(s.is_too_short(&doc), features.len() < s.min_spotsigs());
        for st in &strings {
            prop_assert_eq!(st.matches(':').count(), chain);
        }
        // Bytes API agrees.
        let mut via_bytes: Vec<u64> = Vec::new();
        s.extract_bytes(doc.as_bytes(), &mut via_bytes).unwrap();
        prop_assert_eq!(via_bytes, features);
    }

    #[test]
    fn punct_counts_agree(doc in any_text(), (before, after, min, fold, cjk) in punct_params()) {
        prop_assume!(before + after > 0);
        let punct: &[char] = if cjk { &[',', '，'] } else { &[','] };
        let p = PunctSpotExtractor::builder()
            .words(before, after)
            .min_spots(min)
            .fold_case(fold)
            .punctuation(punct.iter().copied())
            .build()
            .unwrap();
        let features = p.features(&doc);
        let strings = p.spot_strings(&doc);
        prop_assert_eq!(features.len(), strings.len());
        let (sig, outcome) = p.signature(&doc);
        prop_assert_eq!(outcome.spots, p.spots_count(&doc));
        prop_assert_eq!(outcome.fallback, outcome.spots < min);
        let joined: Vec<&str> = strings.iter().map(String::as_str).filter(|s| !s.is_empty()).collect();
        prop_assert_eq!(sig, joined.join(" "));
        if !outcome.fallback {
            prop_assert!(features.len() <= outcome.spots);
            for st in &strings {
                prop_assert!(st.split(' ').count() <= before + after);
            }
        }
    }
}

//! NFKC normalization as a shingler option: compatibility forms agree with it on,
//! differ with it off; the option changes the scheme and nothing else when off.
#![cfg(feature = "nfkc")]

use ndd_core::FeatureExtractor;
use ndd_shingle::{CharShingler, ShingleHash, WordShingler};

/// Pairs that NFKC makes equal: full-width letters, ligatures and a
/// long full-width token (longer than the stack buffer of the token hash).
fn pairs() -> Vec<(String, String)> {
    vec![
        ("ＡＢＣ".to_owned(), "ABC".to_owned()),
        ("ﬁle ﬁnal".to_owned(), "file final".to_owned()),
        ("oﬀ ﬆop".to_owned(), "off stop".to_owned()),
        ("ｈｅｌｌｏ world".to_owned(), "hello world".to_owned()),
        ("Ａ".repeat(100), "a".repeat(100)),
    ]
}

fn word(k: usize, nfkc: bool, hash: ShingleHash) -> WordShingler {
    WordShingler::builder()
        .k(k)
        .nfkc(nfkc)
        .hash(hash)
        .build()
        .expect("valid parameters")
}

#[test]
fn word_shingles_agree_with_nfkc_and_differ_without() {
    for hash in [ShingleHash::Rolling, ShingleHash::Rabin] {
        for k in [1, 2] {
            let (on, off) = (word(k, true, hash), word(k, false, hash));
            for (a, b) in pairs() {
                assert_eq!(on.features(&a), on.features(&b), "{a} / {b} {hash:?} k={k}");
                assert_ne!(
                    off.features(&a),
                    off.features(&b),
                    "{a} / {b} {hash:?} k={k}"
                );
            }
        }
    }
}

#[test]
fn char_shingles_agree_with_nfkc_and_differ_without() {
    let off = CharShingler::new(2).unwrap();
    let on = off.clone().with_nfkc(true);
    for (a, b) in pairs() {
        assert_eq!(on.features(&a), on.features(&b), "{a} / {b}");
        assert_ne!(off.features(&a), off.features(&b), "{a} / {b}");
    }
}

#[test]
fn tokens_are_found_before_normalization() {
    // `²` is a symbol to the tokenizer, so it separates tokens before NFKC could turn
    // it into `2`: the documented limit of normalizing per token.
    let s = word(1, true, ShingleHash::Rolling);
    assert_eq!(s.features("x² km²"), s.features("x km"));
}

#[test]
fn nfkc_without_case_folding_keeps_case() {
    let s = WordShingler::builder()
        .k(1)
        .nfkc(true)
        .fold_case(false)
        .build()
        .unwrap();
    assert_eq!(s.features("ＡＢＣ"), s.features("ABC"));
    assert_ne!(s.features("ＡＢＣ"), s.features("abc"));
}

#[test]
fn the_option_changes_the_scheme_only_when_on() {
    let default = WordShingler::new(5).unwrap();
    assert_eq!(word(5, false, ShingleHash::Rolling), default);
    assert_eq!(
        word(5, false, ShingleHash::Rolling).scheme(),
        default.scheme()
    );
    assert_ne!(
        word(5, true, ShingleHash::Rolling).scheme(),
        default.scheme()
    );
    let chars = CharShingler::new(3).unwrap();
    assert_eq!(chars.clone().with_nfkc(false).scheme(), chars.scheme());
    assert_ne!(chars.clone().with_nfkc(true).scheme(), chars.scheme());
}

#[test]
fn text_already_in_nfkc_gets_the_same_features_either_way() {
    let texts = [
        "The quick brown fox jumps over the lazy dog",
        "École normale, Straße, naïve café; 東京 と 大阪",
        "Ελληνικά κείμενα και русский текст",
        // Decomposed é (e + combining acute) is not NFKC: excluded on purpose below.
    ];
    for t in texts {
        for hash in [ShingleHash::Rolling, ShingleHash::Rabin] {
            assert_eq!(
                word(3, true, hash).features(t),
                word(3, false, hash).features(t),
                "{t}"
            );
        }
        let c = CharShingler::new(3).unwrap();
        assert_eq!(c.clone().with_nfkc(true).features(t), c.features(t), "{t}");
    }
    // Canonical composition is part of NFKC: decomposed and composed é agree with it.
    let (composed, decomposed) = ("caf\u{e9}", "cafe\u{301}");
    assert_eq!(
        word(1, true, ShingleHash::Rolling).features(composed),
        word(1, true, ShingleHash::Rolling).features(decomposed)
    );
    assert_ne!(
        word(1, false, ShingleHash::Rolling).features(composed),
        word(1, false, ShingleHash::Rolling).features(decomposed)
    );
}

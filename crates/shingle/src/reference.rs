//! The byte-by-byte word scanner and word shingler as they were before the SWAR fast
//! path (`WordScanner`, `ShortXxh3`, `SmallRoller`), kept verbatim as the test oracle:
//! the fast path must give the same token boundaries, token hashes and shingles for
//! every input. The character classes (`ASCII_WORD`, `is_separator`,
//! `is_ideographic`) are the tokenizer's own: the oracle checks the scanning, not the
//! classes.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::hash::{KGramRoller, stable_hash64};

use crate::token::{ASCII_WORD, decode_at, hash_token, is_ideographic, is_separator};
use crate::{Selection, ShingleHash, ShortDocs, TokenFilter};

const FOLD_BUF: usize = 48;

/// The previous scanner: calls `f(start, end, folded)` for every token.
pub(crate) fn scan_words<const FOLD: bool, F: FnMut(usize, usize, Option<&[u8]>)>(
    text: &str,
    mut f: F,
) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut buf = [0u8; FOLD_BUF];
    let mut i = 0;
    while i < n {
        // Skip separators.
        let b = bytes[i];
        if b < 0x80 {
            if !ASCII_WORD[b as usize] {
                i += 1;
                continue;
            }
        } else {
            let c = decode_at(text, i);
            if is_separator(c) {
                i += c.len_utf8();
                continue;
            }
            if is_ideographic(c) {
                let end = i + c.len_utf8();
                f(i, end, None);
                i = end;
                continue;
            }
        }
        // A word starts at i.
        let start = i;
        let mut ascii = true;
        while i < n {
            let b = bytes[i];
            if b < 0x80 {
                if !ASCII_WORD[b as usize] {
                    break;
                }
                if FOLD {
                    if let Some(slot) = buf.get_mut(i - start) {
                        *slot = b.to_ascii_lowercase();
                    }
                }
                i += 1;
            } else {
                let c = decode_at(text, i);
                if is_separator(c) || is_ideographic(c) {
                    break;
                }
                ascii = false;
                i += c.len_utf8();
            }
        }
        let folded = (FOLD && ascii && i - start <= FOLD_BUF).then(|| &buf[..i - start]);
        f(start, i, folded);
    }
}

/// The token boundaries of the previous scanner.
pub(crate) fn tokens(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    scan_words::<false, _>(text, |s, e, _| out.push((s, e)));
    out
}

/// The parameters of a word shingler, spelled out for the reference.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    pub(crate) k: usize,
    pub(crate) seed: u64,
    pub(crate) fold_case: bool,
    pub(crate) filter: TokenFilter,
    pub(crate) selection: Selection,
    pub(crate) short_docs: ShortDocs,
}

impl Params {
    pub(crate) fn build(self) -> crate::WordShingler {
        crate::WordShingler::builder()
            .k(self.k)
            .seed(self.seed)
            .fold_case(self.fold_case)
            .filter(self.filter)
            .selection(self.selection)
            .short_docs(self.short_docs)
            .hash(ShingleHash::Rolling)
            .build()
            .unwrap()
    }
}

/// The previous `WordShingler::for_each_shingle` (rolling hash), collected.
pub(crate) fn shingles(p: Params, doc: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut roller = KGramRoller::new(p.k).unwrap();
    let mut position = 0u64;
    let mut select = |g: u64| {
        let keep = match p.selection {
            Selection::All => true,
            Selection::ModM(m) => g % m == 0,
            Selection::EveryNth(s) => position % s == 0,
        };
        position += 1;
        if keep {
            out.push(g);
        }
    };
    let filter = p.filter;
    let no_filter = filter.is_none();
    let (fold, seed) = (p.fold_case, p.seed);
    scan_words::<true, _>(doc, |start, end, folded| {
        let token = &doc[start..end];
        if no_filter || filter.keeps(token) {
            let h = match folded {
                Some(lower) if fold => stable_hash64(lower, seed),
                _ => hash_token(token, fold, seed),
            };
            if let Some(g) = roller.push(h) {
                select(g);
            }
        }
    });
    if p.short_docs == ShortDocs::WholeDocument {
        if let Some(g) = roller.partial() {
            select(g);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Params, shingles, tokens};
    use crate::token::WordScanner;
    use crate::{Selection, ShortDocs, TokenFilter, WordTokenizer};
    use ndd_core::{FeatureExtractor, Tokenizer};
    use proptest::prelude::*;

    /// The default word shingler's parameters (5-grams, seed 0, case folding, every
    /// token and shingle, whole-document fallback).
    fn default_params() -> Params {
        Params {
            k: 5,
            seed: 0,
            fold_case: true,
            filter: TokenFilter::none(),
            selection: Selection::All,
            short_docs: ShortDocs::WholeDocument,
        }
    }

    /// The new scanner's tokens, checking the short-ASCII register contents on the way.
    fn fast_tokens(text: &str) -> Vec<(usize, usize)> {
        let mut scanner = WordScanner::new(text);
        let mut out = Vec::new();
        while let Some(t) = scanner.next_token() {
            if t.short_ascii {
                let token = &text.as_bytes()[t.start..t.end];
                assert!((1..=16).contains(&token.len()), "{t:?}");
                assert!(token.iter().all(u8::is_ascii_alphanumeric), "{t:?}");
                let mut regs = [0u8; 16];
                regs[..8].copy_from_slice(&t.lo.to_le_bytes());
                regs[8..].copy_from_slice(&t.hi.to_le_bytes());
                assert_eq!(&regs[..token.len()], token, "register bytes of {t:?}");
            }
            out.push((t.start, t.end));
        }
        out
    }

    /// The tokens of the token-at-a-time scan alone (the fast path's fallback).
    fn one_at_a_time(text: &str) -> Vec<(usize, usize)> {
        let mut scanner = WordScanner::new(text);
        let mut out = Vec::new();
        while let Some(t) = scanner.next_one() {
            out.push((t.start, t.end));
        }
        out
    }

    fn check_tokens(text: &str) {
        let want = tokens(text);
        assert_eq!(fast_tokens(text), want, "scanner on {text:?}");
        assert_eq!(one_at_a_time(text), want, "next_one on {text:?}");
        let via_trait: Vec<(usize, usize)> = WordTokenizer::new()
            .tokens(text)
            .iter()
            .map(|t| (t.start, t.end))
            .collect();
        assert_eq!(via_trait, want, "WordTokenizer on {text:?}");
    }

    fn check_shingles(p: Params, text: &str) {
        assert_eq!(
            p.build().features(text),
            shingles(p, text),
            "{p:?} on {text:?}"
        );
    }

    /// Characters from every class the scanner treats differently: ASCII separators,
    /// letters and digits at the class edges, Latin-1 letters and symbols, combining
    /// marks, case-changing letters (İ, ẞ, ǅ, ﬁ, Kelvin and Ohm signs), Greek,
    /// Cyrillic, Devanagari, Han, kana (also half-width), full-width forms, CJK and
    /// general punctuation, BOM, U+FFFD, emoji with a skin-tone modifier, a
    /// supplementary ideograph, the last code point, NEL and the line separator.
    const SPECIAL: &str = " \n\t\r\0\u{7f},.'-_@[`{/:09AZaz\
        éÉßẞÀÿ×÷¡¿\u{a0}\u{ad}\u{301}İıΣςяЖहि्東京あターｱ！：Ａａ１\u{3000}、—€\
        \u{212a}\u{2126}\u{feff}\u{fffd}🙂👍\u{1f3fd}𠀀\u{10ffff}\u{85}\u{2028}ǅﬁ";

    fn arb_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[A-Za-z0-9]{1,40}",
            2 => "[a-z]{1,12}",
            3 => "[ ,.;:!?'\\-_()\\n\\t]{1,3}",
            2 => proptest::sample::select(SPECIAL.chars().collect::<Vec<_>>())
                .prop_map(String::from),
            1 => "[a-zA-Z0-9éÉßÀ東あ🙂 ,\u{301}]{1,20}",
            1 => any::<char>().prop_map(String::from),
        ]
    }

    fn arb_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(arb_piece(), 0..80).prop_map(|v| v.concat())
    }

    fn arb_filter() -> impl Strategy<Value = TokenFilter> {
        prop_oneof![
            Just(TokenFilter::none()),
            Just(TokenFilter::imatch()),
            (0usize..6, proptest::option::of(0usize..3)).prop_map(|(min_chars, max_digits)| {
                TokenFilter {
                    min_chars,
                    max_digits,
                }
            }),
        ]
    }

    fn arb_params() -> impl Strategy<Value = Params> {
        (
            prop_oneof![1usize..8, 1usize..=40],
            prop_oneof![Just(0u64), any::<u64>()],
            any::<bool>(),
            arb_filter(),
            prop_oneof![
                Just(Selection::All),
                (1u64..5).prop_map(Selection::ModM),
                (1u64..5).prop_map(Selection::EveryNth),
            ],
            prop_oneof![Just(ShortDocs::WholeDocument), Just(ShortDocs::Skip)],
        )
            .prop_map(
                |(k, seed, fold_case, filter, selection, short_docs)| Params {
                    k,
                    seed,
                    fold_case,
                    filter,
                    selection,
                    short_docs,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn scanner_matches_the_byte_by_byte_scanner(text in arb_text()) {
            check_tokens(&text);
        }

        #[test]
        fn shingler_matches_the_previous_shingler(text in arb_text(), p in arb_params()) {
            check_shingles(p, &text);
        }

        #[test]
        fn default_shingler_matches_on_mixed_case_ascii(text in "[A-Za-z0-9 ,.\\n]{0,400}") {
            check_tokens(&text);
            check_shingles(default_params(), &text);
        }
    }

    /// Every word length around the 16-byte short-token limit and the 64-byte block,
    /// at every offset in the block, ended by ASCII, by non-ASCII word chars, by
    /// non-ASCII separators, by an ideograph and by the end of the text.
    #[test]
    fn word_lengths_and_offsets_around_block_boundaries() {
        let params = Params {
            k: 2,
            seed: 7,
            fold_case: true,
            filter: TokenFilter::none(),
            selection: Selection::All,
            short_docs: ShortDocs::WholeDocument,
        };
        for offset in 0..70 {
            for len in 1..70 {
                let word: String = (0..len)
                    .map(|i| char::from(b"aB3xYz09Qm"[i % 10]))
                    .collect();
                for tail in ["", " ", "é", "\u{301}x", "—", "東", "\u{a0}z", ",w", "🙂"] {
                    for lead in [" ", "é", "."] {
                        let text = format!("{}{word}{tail} {word}", lead.repeat(offset));
                        check_tokens(&text);
                        check_shingles(params, &text);
                    }
                }
            }
        }
    }

    #[test]
    fn edge_texts() {
        for text in [
            "",
            " ",
            "a",
            "é",
            "東",
            "🙂",
            "a🙂b",
            "\u{301}",
            "ab\u{301}",
            "x".repeat(100).as_str(),
            "é".repeat(100).as_str(),
            &"Ab1 ".repeat(40),
            &"  ,, ".repeat(40),
        ] {
            check_tokens(text);
        }
    }

    fn corpus_docs(path: &str) -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_owned))
            .collect()
    }

    fn check_corpus(docs: &[String]) {
        let default = default_params();
        let imatch = Params {
            k: 3,
            seed: 99,
            filter: TokenFilter::imatch(),
            ..default
        };
        let (s5, s3) = (default.build(), imatch.build());
        for d in docs {
            assert_eq!(fast_tokens(d), tokens(d));
            assert_eq!(s5.features(d), shingles(default, d));
            assert_eq!(s3.features(d), shingles(imatch, d));
        }
    }

    #[test]
    fn bundled_corpus_matches_the_previous_implementation() {
        let docs = corpus_docs(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/debian-copyright.jsonl"
        ));
        assert!(docs.len() > 100);
        check_corpus(&docs);
    }

    /// `NDD_EQUIV_CORPUS=/path/corpus.jsonl cargo test -p ndd-shingle --release --lib
    /// -- --ignored equivalence_on_a_corpus` compares the two implementations on any
    /// JSONL corpus (for example the benchmark corpora).
    #[test]
    #[ignore = "needs NDD_EQUIV_CORPUS"]
    fn equivalence_on_a_corpus() {
        let path = std::env::var("NDD_EQUIV_CORPUS").expect("set NDD_EQUIV_CORPUS");
        check_corpus(&corpus_docs(&path));
    }
}

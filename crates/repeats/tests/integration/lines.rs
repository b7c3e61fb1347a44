//! The line and paragraph stage against a brute-force oracle: units found, counted
//! and removed the slow obvious way (normalized strings, not hashes), over generated
//! corpora, with the in-memory and the out-of-core engines.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use ndd_core::hash::{hash_u64s, stable_hash64};
use ndd_repeats::lines::{
    Config, CountBy, Counter, Error, Normalization, Normalizer, Policy, Summary, Unit, run,
    run_with, units,
};
use proptest::prelude::*;

/// One unit as the oracle sees it.
struct OracleUnit {
    /// What its removal cuts.
    removal: Range<usize>,
    /// Its normalized words joined by one space.
    key: String,
    /// Its text, without line end.
    text: String,
}

/// The lines of `text`: byte range with the line end, and content without it.
fn oracle_lines(text: &str) -> Vec<(Range<usize>, &str)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .map(|piece| {
            let r = at..at + piece.len();
            at += piece.len();
            (r, piece.trim_end_matches(['\n', '\r']))
        })
        .collect()
}

/// The units of `text`: removal range and text.
fn oracle_units(text: &str, unit: Unit) -> Vec<(Range<usize>, String)> {
    let lines = oracle_lines(text);
    if unit == Unit::Line {
        return lines.into_iter().map(|(r, s)| (r, s.to_owned())).collect();
    }
    let blank = |i: usize| lines[i].1.trim().is_empty();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if blank(i) {
            i += 1; // before the first paragraph: no unit
            continue;
        }
        let start = lines[i].0.start;
        let mut body_end = start;
        while i < lines.len() && !blank(i) {
            // The paragraph's text runs to its last line's content, its inner line
            // ends as they are.
            body_end = lines[i].0.start + lines[i].1.len();
            i += 1;
        }
        while i < lines.len() && blank(i) {
            i += 1;
        }
        let end = if i < lines.len() {
            lines[i].0.start
        } else {
            text.len()
        };
        out.push((start..end, text[start..body_end].to_owned()));
    }
    out
}

/// Words with digits as 0 and lowercase (the generated text is ASCII, so NFKC
/// changes nothing), joined by one space; and the length with whitespace collapsed.
fn normalize(s: &str, n: Normalization) -> (String, usize) {
    let words: Vec<String> = s
        .split_whitespace()
        .map(|w| {
            let w: String = w
                .chars()
                .map(|c| if n.digits && c.is_numeric() { '0' } else { c })
                .collect();
            if n.fold_case { w.to_lowercase() } else { w }
        })
        .collect();
    let chars = s
        .split_whitespace()
        .map(|w| w.chars().count())
        .sum::<usize>()
        + words.len().saturating_sub(1);
    (words.join(" "), chars)
}

fn oracle_doc(text: &str, config: &Config) -> Vec<OracleUnit> {
    oracle_units(text, config.unit)
        .into_iter()
        .filter_map(|(removal, text)| {
            let (key, chars) = normalize(&text, config.normalization);
            (!key.is_empty() && chars >= config.min_chars).then_some(OracleUnit {
                removal,
                key,
                text,
            })
        })
        .collect()
}

/// What the oracle expects: per document the removed ranges; the summary's numbers
/// (documents, units, distinct, repeated, removable, removed units, removed bytes,
/// emptied); the top units as (occurrences, documents, sample).
#[derive(Debug, PartialEq)]
struct Expected {
    ranges: Vec<Vec<Range<usize>>>,
    numbers: [u64; 8],
    top: Vec<(u64, u64, String)>,
}

/// Per distinct unit: occurrences, documents, first position, first text.
type Count<'a> = (u64, HashSet<usize>, u64, &'a str);

fn oracle(docs: &[String], config: &Config) -> Expected {
    let per_doc: Vec<Vec<OracleUnit>> = docs.iter().map(|d| oracle_doc(d, config)).collect();
    let mut counts: HashMap<&str, Count<'_>> = HashMap::new();
    let mut seq = 0u64;
    for (d, us) in per_doc.iter().enumerate() {
        for u in us {
            let e =
                counts
                    .entry(u.key.as_str())
                    .or_insert((0, HashSet::new(), seq, u.text.as_str()));
            e.0 += 1;
            e.1.insert(d);
            seq += 1;
        }
    }
    let units = seq;
    let count = |e: &Count<'_>| match config.count_by {
        CountBy::Occurrence => e.0,
        CountBy::Document => e.1.len() as u64,
    };
    let goes_at_all = |e: &Count<'_>| match config.policy {
        Policy::AtLeast(n) => count(e) >= n,
        Policy::KeepFirst => e.0 >= 2,
    };
    let mut seq = 0u64;
    let (mut removed_units, mut removed_bytes, mut emptied) = (0u64, 0u64, 0u64);
    let mut ranges = Vec::new();
    for (d, us) in per_doc.iter().enumerate() {
        let mut mine = Vec::new();
        for u in us {
            let e = &counts[u.key.as_str()];
            let goes = match config.policy {
                Policy::AtLeast(n) => count(e) >= n,
                Policy::KeepFirst => e.2 != seq,
            };
            if goes {
                removed_units += 1;
                removed_bytes += u.removal.len() as u64;
                mine.push(u.removal.clone());
            }
            seq += 1;
        }
        let kept: String = docs[d]
            .char_indices()
            .filter(|(i, _)| !mine.iter().any(|r| r.contains(i)))
            .map(|(_, c)| c)
            .collect();
        if !mine.is_empty() && kept.trim().is_empty() {
            emptied += 1;
        }
        ranges.push(mine);
    }
    let mut top: Vec<&Count<'_>> = counts.values().filter(|e| e.0 >= 2).collect();
    top.sort_by_key(|e| (std::cmp::Reverse(count(e)), e.2));
    Expected {
        ranges,
        numbers: [
            docs.len() as u64,
            units,
            counts.len() as u64,
            counts.values().filter(|e| e.0 >= 2).count() as u64,
            counts.values().filter(|e| goes_at_all(e)).count() as u64,
            removed_units,
            removed_bytes,
            emptied,
        ],
        top: top
            .into_iter()
            .take(config.top)
            .map(|e| (e.0, e.1.len() as u64, e.3.to_owned()))
            .collect(),
    }
}

/// The library's answer in the oracle's shape.
fn actual(edits: &[ndd_repeats::lines::Edits], s: &Summary) -> Expected {
    Expected {
        ranges: edits.iter().map(|e| e.ranges().to_vec()).collect(),
        numbers: [
            s.stats.documents,
            s.stats.units,
            s.stats.distinct,
            s.stats.repeated,
            s.stats.removable,
            s.removed_units,
            s.removed_bytes,
            s.emptied,
        ],
        top: s
            .top
            .iter()
            .map(|t| (t.occurrences, t.documents, t.sample.clone()))
            .collect(),
    }
}

/// Lines drawn from a small pool (so that they repeat), varied in case, spacing,
/// digits and line ends, and blank lines.
fn corpus() -> impl Strategy<Value = Vec<String>> {
    const POOL: [&str; 8] = [
        "Home | About",
        "cookie notice",
        "x",
        "",
        "  \t",
        "Copyright 2019 Acme",
        "the story goes on",
        "ab",
    ];
    let line = (
        0..POOL.len(),
        any::<bool>(),
        0..3usize,
        0..10u8,
        any::<bool>(),
    );
    let doc = (prop::collection::vec(line, 0..9), any::<bool>());
    prop::collection::vec(doc, 1..9).prop_map(|docs| {
        docs.into_iter()
            .map(|(lines, last_end)| {
                let n = lines.len();
                let mut text = String::new();
                for (i, (p, upper, spaces, digit, crlf)) in lines.into_iter().enumerate() {
                    let mut s = POOL[p].replace("2019", &format!("20{digit}9"));
                    if upper {
                        s = s.to_uppercase();
                    }
                    s = s.replacen(' ', &" ".repeat(spaces + 1), 1);
                    text.push_str(&s);
                    if i + 1 < n || last_end {
                        text.push_str(if crlf { "\r\n" } else { "\n" });
                    }
                }
                text
            })
            .collect()
    })
}

fn config() -> impl Strategy<Value = Config> {
    let policy = prop_oneof![
        Just(Policy::AtLeast(2)),
        Just(Policy::AtLeast(3)),
        Just(Policy::KeepFirst)
    ];
    let unit = prop_oneof![Just(Unit::Line), Just(Unit::Paragraph)];
    let by = prop_oneof![Just(CountBy::Occurrence), Just(CountBy::Document)];
    let norm = prop_oneof![
        Just(Normalization::default()),
        Just(Normalization::NONE),
        Just(Normalization {
            fold_case: true,
            nfkc: false,
            digits: false
        })
    ];
    (
        policy,
        unit,
        by,
        norm,
        prop_oneof![Just(0usize), Just(4)],
        0..4usize,
    )
        .prop_map(|(policy, unit, by, norm, min, top)| {
            Config::new(policy)
                .with_unit(unit)
                .with_count_by(by)
                .with_normalization(norm)
                .with_min_chars(min)
                .with_top(top)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every repeated unit found, none else; the same edits and summary in memory and
    /// out of core (runs of 1 and 3 records, so that they spill and merge).
    #[test]
    fn engines_agree_with_the_oracle(docs in corpus(), config in config(), run_len in prop_oneof![Just(1usize), Just(3)]) {
        let expected = oracle(&docs, &config);
        let (edits, summary) = run(&docs, &config).unwrap();
        prop_assert_eq!(&actual(&edits, &summary), &expected);
        let dir = tempfile::tempdir().unwrap();
        let counter = Counter::out_of_core(config.clone(), dir.path(), run_len).unwrap();
        let (edits, summary) = run_with(counter, &docs).unwrap();
        prop_assert_eq!(&actual(&edits, &summary), &expected);
        // The out-of-core files are gone.
        prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        // Applying the edits leaves the text outside them.
        for (d, e) in docs.iter().zip(&edits) {
            prop_assert_eq!(e.apply(d).len(), d.len() - e.removed_bytes());
        }
    }
}

#[test]
fn unit_hash_is_pinned() {
    // The words' token hashes (XXH3-64, seed 0, lowercased, digits as 0), hashed as
    // little-endian u64s: computed here from the specification, not from the code.
    let words = [
        stable_hash64(b"all", 0),
        stable_hash64(b"rights", 0),
        stable_hash64(b"reserved", 0),
        stable_hash64(b"0000", 0),
    ];
    let mut n = Normalizer::new(Normalization::default());
    assert_eq!(
        n.hash("  All RIGHTS\treserved 2024 "),
        Some((hash_u64s(&words, 0), 24))
    );
    // Golden value: a change here changes every persisted run (value-breaking).
    assert_eq!(
        hash_u64s(&words, 0),
        n.hash("all rights reserved 1999").unwrap().0
    );
}

#[test]
fn nfkc_and_case_are_options() {
    let h = |n: Normalization, s: &str| Normalizer::new(n).hash(s).map(|(h, _)| h);
    let all = Normalization::default();
    assert_eq!(h(all, "ﬁle Ｔｏｋｙｏ"), h(all, "file tokyo"));
    let no_nfkc = Normalization { nfkc: false, ..all };
    assert_ne!(h(no_nfkc, "ﬁle"), h(no_nfkc, "file"));
    assert_eq!(h(no_nfkc, "FILE"), h(no_nfkc, "file"));
    assert_ne!(
        h(Normalization::NONE, "FILE"),
        h(Normalization::NONE, "file")
    );
    assert_ne!(h(Normalization::NONE, "v1"), h(Normalization::NONE, "v2"));
}

#[test]
fn paragraphs_take_their_blank_lines() {
    let text = "\n\nnav one\nnav two\n \n\nbody\r\n";
    let spans: Vec<(&str, &str)> = units(text, Unit::Paragraph)
        .map(|u| (&text[u.text], &text[u.removal]))
        .collect();
    assert_eq!(
        spans,
        [
            ("nav one\nnav two", "nav one\nnav two\n \n\n"),
            ("body", "body\r\n")
        ]
    );
    assert_eq!(units("", Unit::Line).count(), 0);
    assert_eq!(units(" \n\n", Unit::Paragraph).count(), 0);
}

#[test]
fn keep_first_counts_within_a_document_too() {
    let docs = ["menu\nmenu\nA", "MENU\nB"];
    let (edits, summary) = run(&docs, &Config::new(Policy::KeepFirst)).unwrap();
    assert_eq!(edits[0].apply(docs[0]), "menu\nA");
    assert_eq!(edits[1].apply(docs[1]), "B");
    assert_eq!(
        (summary.top[0].occurrences, summary.top[0].documents),
        (3, 2)
    );
    // By document, "menu" is in 2 documents: AtLeast(3) keeps it, by occurrence not.
    let by_doc = Config::new(Policy::AtLeast(3)).with_count_by(CountBy::Document);
    assert_eq!(run(&docs, &by_doc).unwrap().1.removed_units, 0);
    assert_eq!(
        run(&docs, &Config::new(Policy::AtLeast(3)))
            .unwrap()
            .1
            .removed_units,
        3
    );
}

#[test]
fn bad_parameters_and_mismatched_passes_are_typed_errors() {
    for n in [0, 1] {
        assert!(matches!(
            Counter::new(Config::new(Policy::AtLeast(n))),
            Err(Error::InvalidParameter { name: "policy", .. })
        ));
    }
    let mut c = Counter::new(Config::new(Policy::AtLeast(2))).unwrap();
    c.add("a\nb").unwrap();
    let mut r = c.finish().unwrap();
    // A document with a unit the count never saw.
    assert!(matches!(r.edits("zzz"), Err(Error::Mismatch { .. })));
    let mut c = Counter::with_budget(Config::new(Policy::AtLeast(2)), 1).unwrap();
    assert!(matches!(
        c.add("a\nb"),
        Err(Error::OverBudget { budget: 1 })
    ));
}

#[test]
fn long_samples_are_cut_at_a_character_boundary() {
    let long = "é".repeat(700); // 1,400 bytes
    let docs = [long.clone(), long];
    let (_, summary) = run(&docs, &Config::new(Policy::AtLeast(2))).unwrap();
    let sample = &summary.top[0].sample;
    assert_eq!(sample.len(), ndd_repeats::lines::SAMPLE_BYTES);
    assert!(sample.chars().all(|c| c == 'é'));
}

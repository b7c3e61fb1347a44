//! The hard-negative sibling generator: every sibling differs from its base in exactly
//! the way its kind says, and nowhere else.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ErrorKind;
use ndd_eval::{SiblingConfig, SiblingKind, SynthConfig, generate_corpus, generate_siblings};

const LICENSE: &str = "Copyright (c) 2009-2014 Jane Doe <jane@example.org>\n\n\
Permission is hereby granted, free of charge, to any person obtaining a copy of this \
software, to deal in the Software without restriction. Jane Doe shall not be liable \
for any claim.\n\n\
THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND.";

const DESCRIPTION: &str = "fast image viewer for the desktop. It reads PNG, JPEG and \
GIF files, shows thumbnails of a folder and can rotate pictures; version 2 adds \
slide shows.";

const NO_CAPS_NO_DIGITS: &str = "a small tool that prints text, counts words and exits.";

const UNICODE: &str = "Ünïcödé wörds 👩‍👩‍👧 Zoë met Ådne in 1999.\n\n環境を守る。";

fn bases() -> Vec<&'static str> {
    vec![LICENSE, DESCRIPTION, NO_CAPS_NO_DIGITS, UNICODE]
}

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

/// Positions where two texts of the same word count differ.
fn differing(a: &str, b: &str) -> Vec<usize> {
    let (wa, wb) = (words(a), words(b));
    assert_eq!(wa.len(), wb.len(), "{a:?} vs {b:?}");
    (0..wa.len()).filter(|&i| wa[i] != wb[i]).collect()
}

fn siblings_of(kind: SiblingKind, seed: u64) -> Vec<ndd_eval::Sibling> {
    let config = SiblingConfig {
        siblings_per_base: 4,
        ..SiblingConfig::new(seed).only(kind)
    };
    generate_siblings(&bases(), &config).unwrap()
}

/// The siblings of `kind` (seeds 0 to 29) that got it, each with its base text and
/// the positions of the words that differ from it. Base 2 has no digits and no names:
/// both kinds fall back to a changed clause there, which this checks and leaves out.
fn edited(kind: SiblingKind) -> Vec<(ndd_eval::Sibling, &'static str, Vec<usize>)> {
    let mut out = Vec::new();
    for seed in 0..30 {
        for s in siblings_of(kind, seed) {
            let base = bases()[s.base];
            if s.base == 2 {
                assert_eq!(s.kind, SiblingKind::ClauseChanged);
                continue;
            }
            assert_eq!(s.kind, kind);
            let d = differing(base, &s.text);
            out.push((s, base, d));
        }
    }
    out
}

#[test]
fn deterministic_and_every_sibling_differs() {
    let config = SiblingConfig {
        siblings_per_base: 6,
        ..SiblingConfig::new(11)
    };
    let a = generate_siblings(&bases(), &config).unwrap();
    assert_eq!(a, generate_siblings(&bases(), &config).unwrap());
    assert_ne!(
        a,
        generate_siblings(
            &bases(),
            &SiblingConfig {
                seed: 12,
                ..config.clone()
            }
        )
        .unwrap()
    );
    assert_eq!(a.len(), 4 * 6);
    for (i, s) in a.iter().enumerate() {
        assert_eq!(s.base, i / 6);
        assert_ne!(s.text, bases()[s.base], "{s:?}");
    }
}

#[test]
fn number_changed_changes_one_digit_of_one_word() {
    for (s, base, d) in edited(SiblingKind::NumberChanged) {
        assert_eq!(d.len(), 1, "{s:?}");
        let (wa, wb) = (words(base)[d[0]], words(&s.text)[d[0]]);
        let diff: Vec<(char, char)> = wa.chars().zip(wb.chars()).filter(|(x, y)| x != y).collect();
        assert_eq!(wa.chars().count(), wb.chars().count());
        assert_eq!(diff.len(), 1);
        assert!(diff[0].0.is_ascii_digit() && diff[0].1.is_ascii_digit());
    }
}

#[test]
fn name_changed_replaces_every_occurrence_of_one_name() {
    let mut saw_double = false;
    for (s, base, d) in edited(SiblingKind::NameChanged) {
        assert!(!d.is_empty());
        let core = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
        let old: Vec<String> = d.iter().map(|&i| core(words(base)[i])).collect();
        let new: Vec<String> = d.iter().map(|&i| core(words(&s.text)[i])).collect();
        // One name, replaced everywhere by one other capitalized word.
        assert!(old.iter().all(|w| *w == old[0]), "{old:?}");
        assert!(new.iter().all(|w| *w == new[0]), "{new:?}");
        assert!(old[0].chars().next().unwrap().is_uppercase());
        assert!(new[0].chars().next().unwrap().is_uppercase());
        let occurrences = words(base).iter().filter(|w| core(w) == old[0]).count();
        assert_eq!(d.len(), occurrences);
        saw_double |= occurrences >= 2;
    }
    assert!(saw_double, "the license names Jane and Doe twice");
}

#[test]
fn clause_changed_stays_inside_a_window() {
    let config = SiblingConfig {
        siblings_per_base: 4,
        max_clause_words: 5,
        ..SiblingConfig::new(0).only(SiblingKind::ClauseChanged)
    };
    for seed in 0..30 {
        let sibs = generate_siblings(
            &bases(),
            &SiblingConfig {
                seed,
                ..config.clone()
            },
        )
        .unwrap();
        for s in sibs {
            assert_eq!(s.kind, SiblingKind::ClauseChanged);
            // Count positions among words with a letter or digit (the edit replaces
            // word cores; emoji-only words are not words to it).
            let alnum = |t: &str| -> String {
                words(t)
                    .into_iter()
                    .filter(|w| w.chars().any(char::is_alphanumeric))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let d = differing(&alnum(bases()[s.base]), &alnum(&s.text));
            assert!(!d.is_empty());
            assert!(d[d.len() - 1] - d[0] < 5, "{d:?}");
        }
    }
}

#[test]
fn paragraph_added_inserts_a_few_words_and_nothing_else() {
    for seed in 0..30 {
        for s in siblings_of(SiblingKind::ParagraphAdded, seed) {
            let (wb, ws) = (words(bases()[s.base]), words(&s.text));
            let added = ws.len() - wb.len();
            assert!((3..=8).contains(&added), "{added}");
            // The sibling is the base with one run of `added` words, ending a
            // sentence, inserted somewhere.
            let inserted_at = (0..=wb.len()).find(|&p| {
                ws[..p] == wb[..p] && ws[p + added..] == wb[p..] && ws[p + added - 1].ends_with('.')
            });
            assert!(inserted_at.is_some(), "{s:?}");
        }
    }
}

#[test]
fn siblings_are_separate_clusters_in_a_corpus() {
    let siblings = generate_siblings(&bases(), &SiblingConfig::new(3)).unwrap();
    let mut texts: Vec<String> = bases().iter().map(|s| s.to_string()).collect();
    texts.extend(siblings.iter().map(|s| s.text.clone()));
    let corpus = generate_corpus(
        &texts,
        &SynthConfig {
            variants_per_base: 2,
            ..SynthConfig::new(3)
        },
    )
    .unwrap();
    let ids = corpus.labels.cluster_ids();
    // Base b's original is document 3b, its sibling's original document 3(4 + b).
    for b in 0..4 {
        assert_ne!(ids[3 * b], ids[3 * (4 + b)]);
    }
    assert_eq!(corpus.labels.num_clusters(), 8);
}

#[test]
fn names_round_trip_and_config_errors() {
    crate::check_kind_names(
        &SiblingKind::ALL,
        &[("Clause_Changed", SiblingKind::ClauseChanged)],
    );
    let bad = [
        SiblingConfig {
            kinds: vec![(SiblingKind::NameChanged, -1.0)],
            ..SiblingConfig::new(0)
        },
        SiblingConfig {
            kinds: vec![(SiblingKind::NameChanged, f64::NAN)],
            ..SiblingConfig::new(0)
        },
        SiblingConfig {
            kinds: vec![],
            ..SiblingConfig::new(0)
        },
        SiblingConfig {
            max_clause_words: 0,
            ..SiblingConfig::new(0)
        },
        SiblingConfig {
            max_paragraph_words: 2,
            ..SiblingConfig::new(0)
        },
    ];
    for c in bad {
        assert_eq!(
            generate_siblings(&bases(), &c).unwrap_err().kind(),
            ErrorKind::InvalidParameter,
            "{c:?}"
        );
    }
    // No kinds is fine when no siblings are asked for.
    let none = SiblingConfig {
        kinds: vec![],
        siblings_per_base: 0,
        ..SiblingConfig::new(0)
    };
    assert!(generate_siblings(&bases(), &none).unwrap().is_empty());
}

#[test]
fn empty_and_wordless_inputs() {
    let empty: [&str; 0] = [];
    assert!(
        generate_siblings(&empty, &SiblingConfig::new(0))
            .unwrap()
            .is_empty()
    );
    for bad in ["", "   \n", "... --- !!!"] {
        assert_eq!(
            generate_siblings(&[bad], &SiblingConfig::new(0))
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidInput
        );
    }
    // A one-word base still gets a differing sibling of every kind.
    for kind in SiblingKind::ALL {
        for seed in 0..10 {
            let s = generate_siblings(&["word"], &SiblingConfig::new(seed).only(kind)).unwrap();
            assert_ne!(s[0].text, "word", "{kind}");
        }
    }
}

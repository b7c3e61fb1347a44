//! The labeled near-duplicate generator.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ErrorKind;
use ndd_eval::{EditKind, SynthConfig, generate_corpus, generate_variants, labels_of};

const LETTER: &str = "Dear Administrator,\n\n\
I am writing to urge the Environmental Protection Agency to adopt the strongest possible \
standard for mercury emissions from power plants.\n\n\
Mercury is a potent neurotoxin that harms the developing brains of children. Pregnant \
women and young children are most at risk.\n\n\
Please require a ninety percent reduction in mercury pollution by 2008.\n\n\
Sincerely, a concerned citizen";

const NOTE: &str = "The proposed fuel economy standards are far too weak. Automakers can \
build cars that go farther on a gallon of gas. Raising the standard would save consumers \
money at the pump! It would also cut our dependence on foreign oil.";

const SHORT: &str = "Support the wetlands rule";

const GREEK: &str = "Η προστασία του περιβάλλοντος είναι υποχρέωση όλων μας.\n\n\
Ζητάμε αυστηρότερα όρια για τον υδράργυρο — όχι αύριο, σήμερα!\n\n\
Με εκτίμηση, ένας πολίτης 🌍";

const JAPANESE: &str =
    "環境を守ることは私たちの責任です。水銀の排出を減らしてください。子供たちの未来のために。";

const COMBINING: &str = "Cafe\u{301} na\u{308}ive co\u{308}operation. Ünïcödé wörds 👩‍👩‍👧 here!";

fn bases() -> Vec<&'static str> {
    vec![LETTER, NOTE, SHORT, GREEK, JAPANESE, COMBINING]
}

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

#[test]
fn deterministic_per_seed() {
    let config = SynthConfig {
        variants_per_base: 8,
        ..SynthConfig::new(123)
    };
    let a = generate_variants(&bases(), &config).unwrap();
    let b = generate_variants(&bases(), &config).unwrap();
    assert_eq!(a, b);
    let c = generate_variants(
        &bases(),
        &SynthConfig {
            seed: 124,
            ..config.clone()
        },
    )
    .unwrap();
    assert_ne!(a, c);
    // generate_corpus uses the same variants.
    let corpus = generate_corpus(&bases(), &config).unwrap();
    let variants: Vec<_> = corpus
        .docs
        .iter()
        .filter(|d| d.kind != EditKind::Original)
        .cloned()
        .collect();
    assert_eq!(variants, a);
}

#[test]
fn every_kind_differs_and_keeps_its_source() {
    let bases = bases();
    for kind in EditKind::EDITS {
        for seed in 0..5 {
            let config = SynthConfig {
                variants_per_base: 4,
                ..SynthConfig::new(seed).only(kind)
            };
            let docs = generate_variants(&bases, &config).unwrap();
            assert_eq!(docs.len(), bases.len() * 4);
            for (i, d) in docs.iter().enumerate() {
                assert_eq!(d.source, i / 4, "{kind}");
                assert_eq!(d.kind, kind);
                if kind == EditKind::Exact {
                    assert_eq!(d.text, bases[d.source]);
                } else {
                    assert_ne!(d.text, bases[d.source], "{kind} seed {seed}");
                    assert!(!d.text.trim().is_empty());
                }
            }
        }
    }
}

#[test]
fn single_word_base_still_differs() {
    for kind in EditKind::EDITS {
        if kind == EditKind::AppendedUnrelated {
            continue;
        }
        let docs = generate_variants(&["Hello"], &SynthConfig::new(3).only(kind)).unwrap();
        for d in docs {
            if kind != EditKind::Exact {
                assert_ne!(d.text, "Hello", "{kind}");
            }
        }
    }
}

#[test]
fn minor_change_changes_the_requested_fraction() {
    let base: String = (0..200)
        .map(|i| format!("word{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let other = "alpha beta gamma delta epsilon zeta eta theta";
    for (fraction, expected) in [(0.05, 10), (0.1, 20), (0.5, 100), (0.0, 1), (1.0, 200)] {
        let config = SynthConfig {
            minor_change_fraction: fraction,
            ..SynthConfig::new(5).only(EditKind::MinorChange)
        };
        for d in generate_variants(&[base.as_str(), other], &config).unwrap() {
            if d.source != 0 {
                continue;
            }
            let (a, b) = (words(&base), words(&d.text));
            assert_eq!(a.len(), b.len());
            let changed = a.iter().zip(&b).filter(|(x, y)| x != y).count();
            assert_eq!(changed, expected, "fraction {fraction}");
        }
    }
}

#[test]
fn misspelling_changes_the_requested_fraction_by_small_edits() {
    let base = "Outstanding prices and huge discounts on the software you have ever wanted \
                download now from our park of computer code for everyone";
    let config = SynthConfig {
        misspell_fraction: 0.25,
        variants_per_base: 10,
        ..SynthConfig::new(8).only(EditKind::Misspelled)
    };
    let n = words(base).len(); // 24
    for d in generate_variants(&[base], &config).unwrap() {
        let (a, b) = (words(base), words(&d.text));
        assert_eq!(a.len(), b.len());
        let changed: Vec<_> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
        assert_eq!(changed.len(), 6, "{n} words");
        for (x, y) in changed {
            let dx = x.chars().count() as i64;
            let dy = y.chars().count() as i64;
            assert!((dx - dy).abs() <= 1, "{x} -> {y}");
        }
    }
}

#[test]
fn appended_paragraphs_come_from_other_bases() {
    let bases = bases();
    let config = SynthConfig {
        variants_per_base: 6,
        max_blocks: 3,
        ..SynthConfig::new(77).only(EditKind::AppendedUnrelated)
    };
    for d in generate_variants(&bases, &config).unwrap() {
        let base = bases[d.source].trim_end();
        assert!(d.text.starts_with(base));
        let tail = &d.text[base.len()..];
        let tail = tail.strip_prefix("\n\n").unwrap();
        let appended: Vec<&str> = tail.split("\n\n").collect();
        assert!((1..=3).contains(&appended.len()));
        for p in appended {
            let from: Vec<usize> = (0..bases.len()).filter(|&j| bases[j].contains(p)).collect();
            assert!(!from.is_empty(), "{p:?} not from any base");
            assert!(
                from.iter().any(|&j| j != d.source),
                "{p:?} from its own base"
            );
        }
    }
}

#[test]
fn block_edits_keep_base_blocks() {
    let paragraphs: Vec<&str> = LETTER.split("\n\n").collect();
    let run = |kind| {
        generate_variants(
            &[LETTER, NOTE],
            &SynthConfig {
                variants_per_base: 6,
                ..SynthConfig::new(2).only(kind)
            },
        )
        .unwrap()
        .into_iter()
        .filter(|d| d.source == 0)
    };
    for d in run(EditKind::BlockReordering) {
        let mut got: Vec<&str> = d.text.split("\n\n").collect();
        let mut want = paragraphs.clone();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }
    for d in run(EditKind::BlockDeleted) {
        let got: Vec<&str> = d.text.split("\n\n").collect();
        assert!(got.len() >= paragraphs.len() - 2 && got.len() < paragraphs.len());
        assert!(got.iter().all(|p| paragraphs.contains(p)));
    }
    for d in run(EditKind::BlockAdded) {
        let got: Vec<&str> = d.text.split("\n\n").collect();
        assert!(got.len() > paragraphs.len() && got.len() <= paragraphs.len() + 2);
        assert_eq!(
            got.iter().filter(|p| paragraphs.contains(p)).count(),
            paragraphs.len()
        );
    }
    for d in run(EditKind::KeyBlock) {
        let got: Vec<&str> = d.text.split("\n\n").collect();
        let kept = got.iter().filter(|p| paragraphs.contains(p)).count();
        assert!(kept >= 1 && kept <= paragraphs.len() / 2);
        assert!(got.len() > kept);
    }
    for d in run(EditKind::Repeated) {
        let copies = d.text.matches("Dear Administrator").count();
        assert!((2..=3).contains(&copies));
        assert!(d.text.starts_with(LETTER));
    }
}

#[test]
fn corpus_has_originals_and_labels() {
    let bases = bases();
    let config = SynthConfig {
        variants_per_base: 3,
        ..SynthConfig::new(4)
    };
    let corpus = generate_corpus(&bases, &config).unwrap();
    assert_eq!(corpus.len(), bases.len() * 4);
    for (i, base) in bases.iter().enumerate() {
        assert_eq!(corpus.docs[i * 4].text, *base);
        assert_eq!(corpus.docs[i * 4].kind, EditKind::Original);
    }
    assert_eq!(corpus.labels, labels_of(&corpus.docs));
    assert_eq!(corpus.labels.num_clusters(), bases.len());
    assert_eq!(corpus.labels.true_pairs(), bases.len() as u64 * 6);
    // Owned strings work too.
    let owned: Vec<String> = bases.iter().map(|s| s.to_string()).collect();
    assert_eq!(generate_corpus(&owned, &config).unwrap(), corpus);
}

#[test]
fn many_seeds_on_unicode_do_not_panic() {
    let bases = bases();
    for seed in 0..40 {
        let config = SynthConfig {
            variants_per_base: 10,
            minor_change_fraction: 0.3,
            misspell_fraction: 0.5,
            max_blocks: 4,
            max_repeats: 4,
            ..SynthConfig::new(seed)
        };
        let docs = generate_variants(&bases, &config).unwrap();
        assert_eq!(docs.len(), 60);
    }
}

#[test]
fn edit_kind_names_round_trip() {
    crate::check_kind_names(
        &EditKind::ALL,
        &[
            ("Block_Added", EditKind::BlockAdded),
            ("minor change", EditKind::MinorChange),
        ],
    );
}

#[test]
fn config_errors() {
    let base = [LETTER, NOTE];
    let check = |config: SynthConfig, name: &str| {
        let err = generate_variants(&base, &config).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidParameter);
        assert!(err.to_string().contains(name), "{err}");
    };
    check(
        SynthConfig {
            minor_change_fraction: 1.5,
            ..SynthConfig::new(0)
        },
        "minor_change_fraction",
    );
    check(
        SynthConfig {
            minor_change_fraction: f64::NAN,
            ..SynthConfig::new(0)
        },
        "minor_change_fraction",
    );
    check(
        SynthConfig {
            misspell_fraction: -0.1,
            ..SynthConfig::new(0)
        },
        "misspell_fraction",
    );
    check(
        SynthConfig {
            max_blocks: 0,
            ..SynthConfig::new(0)
        },
        "max_blocks",
    );
    check(
        SynthConfig {
            max_repeats: 1,
            ..SynthConfig::new(0)
        },
        "max_repeats",
    );
    check(SynthConfig::new(0).only(EditKind::Original), "kinds");
    check(
        SynthConfig {
            kinds: vec![],
            ..SynthConfig::new(0)
        },
        "kinds",
    );
    check(
        SynthConfig {
            kinds: vec![(EditKind::Exact, 0.0)],
            ..SynthConfig::new(0)
        },
        "kinds",
    );
    check(
        SynthConfig {
            kinds: vec![(EditKind::Exact, f64::INFINITY)],
            ..SynthConfig::new(0)
        },
        "kinds",
    );
    check(
        SynthConfig {
            kinds: vec![(EditKind::Exact, -1.0)],
            ..SynthConfig::new(0)
        },
        "kinds",
    );
    // Appending unrelated paragraphs needs a second base.
    let err = generate_variants(&[LETTER], &SynthConfig::new(0)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidParameter);
    // ...but not when that kind has weight 0.
    let config = SynthConfig {
        kinds: vec![
            (EditKind::AppendedUnrelated, 0.0),
            (EditKind::Repeated, 1.0),
        ],
        ..SynthConfig::new(0)
    };
    assert_eq!(generate_variants(&[LETTER], &config).unwrap().len(), 5);
    // Empty base texts are rejected.
    let err = generate_variants(&[LETTER, "  \n "], &SynthConfig::new(0)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let none = SynthConfig {
        variants_per_base: 0,
        ..SynthConfig::new(0)
    };
    assert_eq!(
        generate_corpus(&[""], &none).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn empty_inputs() {
    let empty: [&str; 0] = [];
    assert!(
        generate_variants(&empty, &SynthConfig::new(0))
            .unwrap()
            .is_empty()
    );
    assert!(
        generate_corpus(&empty, &SynthConfig::new(0))
            .unwrap()
            .is_empty()
    );
    let none = SynthConfig {
        variants_per_base: 0,
        kinds: vec![],
        ..SynthConfig::new(0)
    };
    assert!(generate_variants(&[LETTER], &none).unwrap().is_empty());
    assert_eq!(generate_corpus(&[LETTER], &none).unwrap().len(), 1);
}

#[test]
fn punctuation_and_emoji_only_bases_do_not_panic() {
    let bases = ["!!! ???", "…", "🌍🌍 👩‍👩‍👧", "a", "x\r\n\r\ny"];
    for kind in EditKind::EDITS {
        for seed in 0..10 {
            let config = SynthConfig {
                variants_per_base: 3,
                max_blocks: 3,
                ..SynthConfig::new(seed).only(kind)
            };
            for d in generate_variants(&bases, &config).unwrap() {
                if kind != EditKind::Exact {
                    assert_ne!(d.text, bases[d.source], "{kind}");
                }
            }
        }
    }
}

/// Bounded work (issue "bounded work"): huge generator parameters are refused before
/// any work (`max_blocks = usize::MAX` used to hang in the block-adding edit), and the
/// largest accepted values generate quickly.
#[test]
fn huge_generator_parameters_are_refused_and_the_limits_are_cheap() {
    let bases = [
        "one two three. four five six. seven eight nine. ten eleven twelve.",
        "alpha beta gamma. delta epsilon zeta. eta theta iota. kappa lambda mu.",
    ];
    for bad in [
        SynthConfig {
            max_blocks: usize::MAX,
            ..SynthConfig::new(1)
        },
        SynthConfig {
            max_repeats: usize::MAX,
            ..SynthConfig::new(1)
        },
        SynthConfig {
            variants_per_base: usize::MAX,
            ..SynthConfig::new(1)
        },
    ] {
        assert!(generate_corpus(&bases, &bad).is_err());
    }
    let at_limits = SynthConfig {
        max_blocks: SynthConfig::MAX_BLOCKS,
        max_repeats: SynthConfig::MAX_REPEATS,
        variants_per_base: 200,
        ..SynthConfig::new(1)
    };
    let corpus = generate_corpus(&bases, &at_limits).unwrap();
    assert_eq!(corpus.len(), 402);
    // Bounded work without a clock: the output the generator wrote is counted. By the
    // documented limits a variant holds at most `MAX_REPEATS` copies of its base, or
    // its base plus `MAX_BLOCKS` added blocks of at most 40 words each.
    for d in &corpus.docs {
        let base = bases[d.source].split_whitespace().count();
        let bound = base * (SynthConfig::MAX_REPEATS + 1) + SynthConfig::MAX_BLOCKS * 40;
        let got = d.text.split_whitespace().count();
        assert!(got <= bound, "{got} words from a {base}-word base");
    }
}

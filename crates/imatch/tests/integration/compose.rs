//! I-Match through the shared composition: `IMatchSigner` as a `TrySketcher`, the
//! `Composed` paths and the parallel batch, each against an oracle written from the
//! rules of paper 003 §3 (not from the crate's code), on generated documents that hit
//! every rejection kind.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common::{sha1_of_sorted, words};

use ndd_core::hash::mix64;
use ndd_core::{Composed, DynFeatureExtractor, FeatureExtractor, FeatureSink, TrySketcher};
use ndd_imatch::{
    IMatchSignature, IMatchState, IMatcher, IMatcherBuilder, Lexicon, Rejection, unigram_extractor,
};
use ndd_shingle::{WordShingler, hash_token};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MIN_UNIQUE: usize = 5;
const MIN_TERMS: usize = 3;
// The coverage rule at 0.1: `k / n >= 0.1` is `10 k >= n`, so `need = ceil(n / 10)`.
const MIN_COVERAGE: f64 = 0.1;

/// The term of a letters-only word of at least four characters, the slow way: the
/// lower-cased XXH3-64 token hash through ndd-shingle's unigram mix.
fn oracle_term(word: &str) -> u64 {
    mix64(hash_token(word, true, 0))
}

/// Primary lexicon words, secondary lexicon words (in rank order), outside words.
struct Vocab {
    primary: Vec<String>,
    secondary: Vec<String>,
    outside: Vec<String>,
}

fn vocab() -> Vocab {
    Vocab {
        primary: words(60, "lexw"),
        secondary: words(40, "secw"),
        outside: words(300, "outw"),
    }
}

fn lexicon(v: &Vocab) -> Lexicon {
    Lexicon::from_terms(
        unigram_extractor().scheme(),
        v.primary.iter().map(|w| oracle_term(w)).collect(),
        v.secondary.iter().map(|w| oracle_term(w)).collect(),
    )
    .unwrap()
}

/// The primary coordinate of paper 003 §3 for a document of `unique` terms (steps 1–5,
/// the secondary lexicon taken in rank order), written from the rules.
fn oracle(v: &Vocab, doc_words: &[String]) -> Result<[u8; 20], Rejection> {
    let mut u: Vec<&String> = doc_words.iter().collect();
    u.sort();
    u.dedup();
    let n = u.len();
    if n < MIN_UNIQUE {
        return Err(Rejection::TooShort {
            unique_terms: n,
            min: MIN_UNIQUE,
        });
    }
    let s: Vec<u64> = u
        .iter()
        .filter(|w| v.primary.contains(w))
        .map(|w| oracle_term(w))
        .collect();
    let need = n.div_ceil(10);
    if s.len() >= need {
        return if s.len() < MIN_TERMS {
            Err(Rejection::TooFewLexiconTerms {
                found: s.len(),
                min: MIN_TERMS,
            })
        } else {
            Ok(sha1_of_sorted(s))
        };
    }
    let from_b: Vec<u64> = v
        .secondary
        .iter()
        .filter(|w| u.contains(w))
        .take(need - s.len())
        .map(|w| oracle_term(w))
        .collect();
    let found = s.len() + from_b.len();
    if found < need {
        Err(Rejection::LowCoverage {
            found,
            unique_terms: n,
            min_coverage: MIN_COVERAGE,
        })
    } else if found < MIN_TERMS {
        Err(Rejection::TooFewLexiconTerms {
            found,
            min: MIN_TERMS,
        })
    } else {
        Ok(sha1_of_sorted(s.into_iter().chain(from_b).collect()))
    }
}

/// One generated document: its words, in shuffled order with repeats.
fn document(v: &Vocab, kind: usize, rng: &mut ChaCha8Rng) -> Vec<String> {
    let pick = |from: &[String], n: usize, rng: &mut ChaCha8Rng| -> Vec<String> {
        from.choose_multiple(rng, n).cloned().collect()
    };
    // `l` primary words, `b` secondary ones and outside words up to `n` in all.
    let three_lexicons = |l: usize, b: usize, n: usize, rng: &mut ChaCha8Rng| {
        let mut w = pick(&v.primary, l, rng);
        w.extend(pick(&v.secondary, b, rng));
        w.extend(pick(&v.outside, n - l - b, rng));
        w
    };
    let mut w = match kind {
        // Too short: fewer than five unique terms, any mix.
        0 => {
            let n = rng.random_range(0..MIN_UNIQUE);
            let l = rng.random_range(0..=n);
            let mut w = pick(&v.primary, l, rng);
            w.extend(pick(&v.outside, n - l, rng));
            w
        }
        // Too few lexicon terms: coverage met (1–2 of 5–10 unique terms), |S| < 3.
        1 => {
            let l = rng.random_range(1..MIN_TERMS);
            let n = rng.random_range(MIN_UNIQUE..=10);
            let mut w = pick(&v.primary, l, rng);
            w.extend(pick(&v.outside, n - l, rng));
            w
        }
        // Low coverage: 40–120 unique terms, few primary and secondary ones.
        2 => {
            let n = rng.random_range(40..=120);
            let l = rng.random_range(0..=3);
            let b = rng.random_range(0..=2);
            three_lexicons(l, b, n, rng)
        }
        // Long documents rescued (or not) by the secondary lexicon.
        3 => {
            let n = rng.random_range(30..=100);
            let l = rng.random_range(0..=6);
            let b = rng.random_range(0..=12);
            three_lexicons(l, b, n, rng)
        }
        // Ordinary documents, mostly signed.
        _ => {
            let l = rng.random_range(3..=15);
            let o = rng.random_range(2..=20);
            let mut w = pick(&v.primary, l, rng);
            w.extend(pick(&v.outside, o, rng));
            w
        }
    };
    // Repeats and order do not matter to I-Match; mix both in.
    let repeats: Vec<String> = w.iter().filter(|_| rng.random_bool(0.2)).cloned().collect();
    w.extend(repeats);
    w.shuffle(rng);
    w
}

fn corpus(v: &Vocab, n: usize, seed: u64) -> Vec<(Vec<String>, String)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let w = document(v, i % 5, &mut rng);
            let text = w.join(" ");
            (w, text)
        })
        .collect()
}

/// The settings of every matcher here: seed 11 and the rules' constants.
fn builder(lex: Lexicon, extra: usize) -> IMatcherBuilder {
    IMatcher::builder(lex)
        .extra_lexicons(extra)
        .seed(11)
        .min_unique_terms(MIN_UNIQUE)
        .min_terms(MIN_TERMS)
        .min_coverage(MIN_COVERAGE)
}

fn matcher(lex: Lexicon, extra: usize) -> IMatcher {
    builder(lex, extra).build().unwrap()
}

#[test]
fn try_sketcher_path_equals_sign_and_the_rules_on_1500_documents() {
    let v = vocab();
    let docs = corpus(&v, 1500, 2026);
    for extra in [0, 3] {
        let m = matcher(lexicon(&v), extra);
        let signer = m.signer();
        let mut state = signer.new_state();
        // One output signature reused across all documents: a rejection must leave it
        // as it was, a signature must overwrite all of it.
        let mut out = signer.new_signature();
        let (mut short, mut few, mut low, mut signed) = (0, 0, 0, 0);
        for (w, text) in &docs {
            let want = oracle(&v, w);
            match want {
                Err(Rejection::TooShort { .. }) => short += 1,
                Err(Rejection::TooFewLexiconTerms { .. }) => few += 1,
                Err(Rejection::LowCoverage { .. }) => low += 1,
                Ok(_) => signed += 1,
                Err(_) => unreachable!(),
            }
            let by_sign = m.sign(text);
            // The trait path, with the terms pushed by hand rather than by the extractor.
            for t in w {
                state.push(oracle_term(t));
            }
            let before = out.clone();
            let by_trait = signer.try_finish_into(&mut state, &mut out);
            match (&want, &by_trait) {
                (Ok(d), Ok(())) => {
                    assert_eq!(out.primary(), Some(d), "{text}");
                    assert_eq!(out.coordinates().len(), extra + 1);
                    assert_eq!(by_sign.as_ref(), Ok(&out), "{text}");
                }
                (Err(r), Err(e)) => {
                    assert_eq!(r, e, "{text}");
                    assert_eq!(out, before, "a rejection wrote the output");
                    assert_eq!(by_sign.as_ref(), Err(r), "{text}");
                }
                _ => panic!("{text}: oracle {want:?}, trait {by_trait:?}"),
            }
        }
        // Every kind of outcome is exercised many times.
        assert!(
            short >= 250 && few >= 250 && low >= 250,
            "{short} {few} {low}"
        );
        assert!(signed >= 400, "{signed}");
    }
}

#[test]
fn a_rejection_resets_the_state() {
    let v = vocab();
    let m = matcher(lexicon(&v), 2);
    let signer = m.signer();
    let good = [&v.primary[..6], &v.outside[..4]].concat().join(" ");
    let fresh = m.sign(&good).unwrap();
    let rejected = [
        v.primary[..2].join(" "),                              // too short
        [&v.primary[..2], &v.outside[..5]].concat().join(" "), // too few lexicon terms
        v.outside[..80].join(" "),                             // low coverage
    ];
    let mut state = IMatchState::default();
    for bad in &rejected {
        assert!(m.sign_with(&mut state, bad).is_err());
        // The next document signs as with a fresh state.
        assert_eq!(m.sign_with(&mut state, &good).unwrap(), fresh);
        assert!(m.sign_with(&mut state, bad).is_err());
        // Nothing of the rejected document is left: signing nothing sees no terms.
        let mut out = signer.new_signature();
        assert_eq!(
            signer.try_finish_into(&mut state, &mut out),
            Err(Rejection::TooShort {
                unique_terms: 0,
                min: MIN_UNIQUE
            })
        );
    }
    // The same through Composed::try_sketch_with.
    let c = m.as_composed();
    let mut out = signer.new_signature();
    for bad in &rejected {
        assert!(c.try_sketch_with(&mut state, bad, &mut out).is_err());
        c.try_sketch_with(&mut state, &good, &mut out).unwrap();
        assert_eq!(out, fresh);
    }
}

#[test]
fn composed_with_a_run_time_extractor_equals_the_named_signer() {
    let v = vocab();
    let docs = corpus(&v, 600, 7);
    let lex = lexicon(&v);
    let m = matcher(lex.clone(), 3);
    let signer = builder(lex.clone(), 3).build_sketcher().unwrap();
    assert_eq!(signer.scheme(), m.scheme());
    // The extractor chosen at run time, as a trait object.
    let boxed: Box<dyn DynFeatureExtractor> = Box::new(unigram_extractor());
    let c = Composed::new(boxed, signer.clone()).unwrap();
    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let want: Vec<_> = docs.iter().map(|(w, _)| oracle(&v, w)).collect();
    let got = c.try_sketch_batch(&texts);
    for ((got, want), named) in got.iter().zip(&want).zip(m.sign_batch(&texts)) {
        assert_eq!(got, &named);
        match (got, want) {
            (Ok(sig), Ok(d)) => assert_eq!(sig.primary(), Some(d)),
            (Err(r), Err(e)) => assert_eq!(r, e),
            _ => panic!("{got:?} against {want:?}"),
        }
    }
    // A signer is composed only with an extractor of its lexicon's features.
    let bigrams = WordShingler::new(2).unwrap();
    assert!(Composed::new(bigrams, signer).is_err());
}

#[test]
fn sign_terms_and_try_sketch_features_agree() {
    let v = vocab();
    let m = matcher(lexicon(&v), 1);
    for (w, _) in corpus(&v, 200, 3) {
        let terms: Vec<u64> = w.iter().map(|t| oracle_term(t)).collect();
        let a: Result<IMatchSignature, Rejection> =
            m.signer().try_sketch_features(terms.iter().copied());
        assert_eq!(a, m.sign_terms(&terms));
        assert_eq!(a.map(|s| *s.primary().unwrap()), oracle(&v, &w));
    }
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_batches_equal_the_sequential_loop() {
    use ndd_core::ParTryDocSketcher;
    let v = vocab();
    let docs: Vec<String> = corpus(&v, 1500, 99).into_iter().map(|(_, t)| t).collect();
    for extra in [0, 4] {
        let m = matcher(lexicon(&v), extra);
        let want: Vec<_> = docs.iter().map(|d| m.sign(d)).collect();
        assert!(want.iter().any(Result::is_err) && want.iter().any(Result::is_ok));
        assert_eq!(m.par_sign_batch(&docs), want);
        assert_eq!(m.as_composed().par_try_sketch_batch(&docs), want);
        assert_eq!(m.sign_batch(&docs), want);
    }
}

//! Each stage of the pipeline against an oracle computed the slow way.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)] // tests: small values, loud failures

use std::collections::{BTreeMap, BTreeSet, HashSet};

use ndd_align::quadratic_lcs_len;
use ndd_core::{FeatureExtractor, ScoredPair};
use ndd_pipeline::{
    AlignMeasure, Banding, CandidateGenerator, Dedup, Document, Emit, ExactPass, Features,
    Grouping, Method, MinHashConfig, OrderKey, Representative, Shingles, Verification, Verifier,
};
use ndd_shingle::WordShingler;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn vocab(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("w{i}x")).collect()
}

fn random_doc(rng: &mut ChaCha8Rng, words: &[String], len: usize) -> Vec<String> {
    (0..len)
        .map(|_| words[rng.random_range(0..words.len())].clone())
        .collect()
}

/// The exact Jaccard of two texts' word k-gram sets, from hash sets.
fn jaccard_slow(k: usize, a: &str, b: &str) -> f64 {
    let sh = WordShingler::new(k).unwrap();
    let sa: HashSet<u64> = sh.features(a).into_iter().collect();
    let sb: HashSet<u64> = sh.features(b).into_iter().collect();
    let inter = sa.intersection(&sb).count();
    let union = sa.union(&sb).count();
    if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    }
}

#[test]
fn exact_pass_equals_brute_force_grouping_of_document_strings() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let words = vocab(6);
    let mut docs = Vec::new();
    for _ in 0..300 {
        // Short documents from a tiny vocabulary, dressed in random case, spacing
        // and punctuation: many collide as document strings.
        let n = rng.random_range(0..4);
        let mut s = String::new();
        for w in random_doc(&mut rng, &words, n) {
            let w = if rng.random_bool(0.5) {
                w.to_uppercase()
            } else {
                w
            };
            s.push_str(&w);
            s.push_str([" ", ", ", "! ", "  -- ", "\n"][rng.random_range(0..5)]);
        }
        docs.push(s);
    }
    // Oracle: for ASCII text the document string is every letter and digit, lower-cased.
    let key = |d: &str| -> String {
        d.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let mut expected: Vec<Vec<usize>> = Vec::new();
    let mut seen = vec![false; docs.len()];
    for i in 0..docs.len() {
        if seen[i] {
            continue;
        }
        let g: Vec<usize> = (i..docs.len())
            .filter(|&j| key(&docs[j]) == key(&docs[i]))
            .collect();
        for &j in &g {
            seen[j] = true;
        }
        if g.len() > 1 {
            expected.push(g);
        }
    }
    let found = ExactPass::new().run(&docs);
    assert!(!expected.is_empty());
    assert_eq!(found.groups(), expected.as_slice());
    let copies: usize = expected.iter().map(|g| g.len() - 1).sum();
    assert_eq!(found.copies(), copies);
    assert_eq!(found.unique().len(), docs.len() - copies);
}

#[test]
fn exact_pass_case_sensitive_when_told() {
    let found = ExactPass::new()
        .fold_case(false)
        .run(&["Ab c", "ab c", "A b C"]);
    assert!(found.groups().is_empty());
    let found = ExactPass::new().fold_case(false).run(&["Ab c", "A-b c"]);
    assert_eq!(found.groups(), &[vec![0, 1]]);
}

/// A corpus of `bases` random documents and, per base, one variant whose word
/// 5-gram Jaccard with it lies in `[lo, hi]` (resampled until it does).
fn planted(seed: u64, bases: usize, lo: f64, hi: f64) -> (Vec<String>, Vec<(usize, usize)>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let words = vocab(20_000);
    let mut docs = Vec::new();
    let mut pairs = Vec::new();
    let mut attempts = 0;
    while pairs.len() < bases {
        attempts += 1;
        assert!(attempts < 20 * bases, "cannot plant pairs in [{lo}, {hi}]");
        let base = random_doc(&mut rng, &words, 300);
        let base_text = base.join(" ");
        let mut found = None;
        for _ in 0..50 {
            let mut v = base.clone();
            let edits = rng.random_range(1..12);
            for _ in 0..edits {
                let at = rng.random_range(0..v.len());
                v[at] = words[rng.random_range(0..words.len())].clone();
            }
            let t = v.join(" ");
            let j = jaccard_slow(5, &base_text, &t);
            if j >= lo && j <= hi {
                found = Some(t);
                break;
            }
        }
        if let Some(t) = found {
            docs.push(base_text);
            docs.push(t);
            pairs.push((docs.len() - 2, docs.len() - 1));
        }
    }
    (docs, pairs)
}

fn found_pairs(
    method: Method,
    verifier: Verifier,
    t: f64,
    docs: &[String],
) -> BTreeSet<(usize, usize)> {
    let out = Dedup::new()
        .method(method)
        .verifier(verifier)
        .shingles(Shingles::Words(5))
        .threshold(t)
        .run_texts(docs)
        .unwrap();
    out.pairs.iter().map(|p| (p.a, p.b)).collect()
}

#[test]
fn recall_banding_finds_pairs_just_above_the_threshold() {
    // 300 planted pairs with exact 5-gram Jaccard in [0.80, 0.84]: the band where
    // the balanced S-curve (midpoint near 0.845 for 128 values) loses many.
    let (docs, planted) = planted(11, 300, 0.80, 0.84);
    let t = 0.8;
    let recall = |banding| {
        let m = Method::MinHash(MinHashConfig {
            banding,
            ..MinHashConfig::default()
        });
        let got = found_pairs(m, Verifier::ExactJaccard, t, &docs);
        planted.iter().filter(|p| got.contains(p)).count() as f64 / planted.len() as f64
    };
    let recall_default = recall(Banding::default());
    let recall_balanced = recall(Banding::Balanced);
    // 99% per pair at exactly T, more above it: 300 pairs put the total well above 0.97.
    assert!(recall_default >= 0.97, "recall banding: {recall_default}");
    assert!(
        recall_balanced < recall_default - 0.1,
        "balanced {recall_balanced} vs {recall_default}"
    );
}

#[test]
fn exact_method_equals_brute_force_all_pairs() {
    let (mut docs, _) = planted(3, 40, 0.5, 0.95);
    docs.truncate(60);
    for t in [0.5, 0.7, 0.9] {
        let got = found_pairs(Method::ExactJaccard, Verifier::MethodScore, t, &docs);
        let mut expected = BTreeSet::new();
        for i in 0..docs.len() {
            for j in i + 1..docs.len() {
                if jaccard_slow(5, &docs[i], &docs[j]) >= t {
                    expected.insert((i, j));
                }
            }
        }
        assert_eq!(got, expected, "threshold {t}");
    }
}

#[test]
fn exact_verification_scores_are_the_definition_and_a_subset_of_brute_force() {
    let (docs, _) = planted(5, 60, 0.6, 0.95);
    let mut candidates = Vec::new();
    CandidateGenerator::new(Method::default(), 0.7)
        .features(Features::new(Shingles::Words(5)))
        .emit(Emit::AllCandidates)
        .run(&docs, &mut candidates)
        .unwrap();
    assert!(!candidates.is_empty());
    let (kept, report) = Verification::new(Verifier::ExactJaccard, 0.7)
        .features(Features::new(Shingles::Words(5)))
        .run(&docs, candidates.clone())
        .unwrap();
    assert_eq!(report.checked as usize, candidates.len());
    for p in &kept {
        let j = jaccard_slow(5, &docs[p.a], &docs[p.b]);
        assert!((p.score - j).abs() < 1e-12);
        assert!(j >= 0.7);
    }
    let rejected = candidates.len() - kept.len();
    let below = candidates
        .iter()
        .filter(|p| jaccard_slow(5, &docs[p.a], &docs[p.b]) < 0.7)
        .count();
    assert_eq!(rejected, below);
}

#[test]
fn containment_verifier_is_the_smaller_set_in_the_larger() {
    let a = "one two three four five six seven eight nine ten";
    let b = "one two three four five six seven eight nine ten and a long tail of other words here";
    let docs = [a, b];
    let (kept, _) = Verification::new(Verifier::Containment, 0.99)
        .features(Features::new(Shingles::Words(2)))
        .run(&docs, vec![ScoredPair::new(0, 1, f64::NAN)])
        .unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].score, 1.0);
    let (kept, _) = Verification::new(Verifier::ExactJaccard, 0.99)
        .features(Features::new(Shingles::Words(2)))
        .run(&docs, vec![ScoredPair::new(0, 1, f64::NAN)])
        .unwrap();
    assert!(kept.is_empty());
}

/// The alignment verifier's measures the slow way: words split and lowercased by
/// hand (the test texts are ASCII words and spaces), the LCS by the textbook dynamic
/// program (`quadratic_lcs_len`, the reference `ndd-align`'s bit-parallel LCS is tested
/// against), the word 3-gram sets as sets of string triples (a text of one or two
/// words is one shingle).
fn align_slow(measure: AlignMeasure, a: &str, b: &str) -> f64 {
    let wa: Vec<String> = a.split_whitespace().map(str::to_lowercase).collect();
    let wb: Vec<String> = b.split_whitespace().map(str::to_lowercase).collect();
    let lcs = quadratic_lcs_len(&wa, &wb) as f64;
    let (n, m) = (wa.len() as f64, wb.len() as f64);
    let grams = |w: &[String]| -> BTreeSet<Vec<String>> {
        if w.len() < 3 {
            [w.to_vec()].into_iter().collect()
        } else {
            w.windows(3).map(<[String]>::to_vec).collect()
        }
    };
    let (sa, sb) = (grams(&wa), grams(&wb));
    let jac = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
    match measure {
        AlignMeasure::Dice => 2.0 * lcs / (n + m),
        AlignMeasure::Containment => lcs / n.min(m),
        AlignMeasure::Combined => (lcs / n.min(m) + jac) / 2.0,
        AlignMeasure::MaxJaccardDice => {
            let (ta, tb): (BTreeSet<&String>, BTreeSet<&String>) =
                (wa.iter().collect(), wb.iter().collect());
            let words = ta.intersection(&tb).count() as f64 / ta.union(&tb).count() as f64;
            words.max(2.0 * lcs / (n + m))
        }
    }
}

/// `n` random documents of `words` and an edit of each (words replaced in upper case,
/// a run moved, words added), as texts; the pairs of each document with its edit and
/// with the document before it.
fn edited_docs(rng: &mut ChaCha8Rng, words: &[String], n: usize) -> (Vec<String>, Vec<ScoredPair>) {
    let mut docs: Vec<String> = Vec::new();
    let mut pairs = Vec::new();
    for i in 0..n {
        let len = rng.random_range(5..80);
        let base = random_doc(rng, words, len);
        let mut copy = base.clone();
        // Edits of every kind: words replaced, a run moved, words added.
        for _ in 0..rng.random_range(0..6) {
            let at = rng.random_range(0..copy.len());
            copy[at] = words[rng.random_range(0..words.len())].to_uppercase();
        }
        if rng.random_bool(0.3) {
            let third = copy.len() / 3;
            copy.rotate_left(third);
        }
        if rng.random_bool(0.3) {
            copy.extend(random_doc(rng, words, 10));
        }
        docs.push(base.join(" "));
        docs.push(copy.join("  "));
        pairs.push(ScoredPair::new(2 * i, 2 * i + 1, 0.0));
        if i > 0 {
            pairs.push(ScoredPair::new(2 * i, 2 * i - 2, 0.0));
        }
    }
    (docs, pairs)
}

#[test]
fn align_verifier_scores_pairs_by_the_definition() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let words = vocab(40);
    let (docs, pairs) = edited_docs(&mut rng, &words, 60);
    for measure in [
        AlignMeasure::Combined,
        AlignMeasure::Dice,
        AlignMeasure::Containment,
        AlignMeasure::MaxJaccardDice,
    ] {
        for t in [0.3, 0.6, 0.9] {
            let (kept, report) = Verification::new(Verifier::Align(measure), t)
                .run(&docs, pairs.clone())
                .unwrap();
            let want: Vec<(usize, usize, f64)> = pairs
                .iter()
                .map(|p| (p.a, p.b, align_slow(measure, &docs[p.a], &docs[p.b])))
                .filter(|&(_, _, s)| s >= t)
                .collect();
            assert_eq!(report.checked, pairs.len() as u64);
            assert_eq!(kept.len(), want.len(), "{measure} at {t}");
            for (k, w) in kept.iter().zip(&want) {
                assert_eq!((k.a, k.b), (w.0, w.1));
                assert!((k.score - w.2).abs() < 1e-12, "{} vs {}", k.score, w.2);
            }
        }
    }
}

/// `align-weighted` the slow way: words split and lowercased by hand, document
/// frequencies over every text given (not only those a pair names), a word weighing
/// `1/sqrt(df)` and a word of digits 16 times that (rounded to 2^-16, as documented),
/// and the heaviest common subsequence by the textbook dynamic program.
fn align_weighted_slow(texts: &[String], a: usize, b: usize) -> f64 {
    let words = |t: &str| -> Vec<String> { t.split_whitespace().map(str::to_lowercase).collect() };
    let mut df: BTreeMap<String, usize> = BTreeMap::new();
    for t in texts {
        for w in words(t).into_iter().collect::<BTreeSet<_>>() {
            *df.entry(w).or_default() += 1;
        }
    }
    let weight = |w: &String| {
        let k = if w.bytes().all(|c| c.is_ascii_digit()) {
            16.0
        } else {
            1.0
        };
        (k / (df[w] as f64).sqrt() * 65536.0).round() / 65536.0
    };
    let (wa, wb) = (words(&texts[a]), words(&texts[b]));
    let mut dp = vec![vec![0.0f64; wb.len() + 1]; wa.len() + 1];
    for i in 0..wa.len() {
        for j in 0..wb.len() {
            let mut best = dp[i][j + 1].max(dp[i + 1][j]);
            if wa[i] == wb[j] {
                best = best.max(dp[i][j] + weight(&wa[i]));
            }
            dp[i + 1][j + 1] = best;
        }
    }
    let total: f64 = wa.iter().chain(&wb).map(weight).sum();
    if total == 0.0 {
        1.0
    } else {
        2.0 * dp[wa.len()][wb.len()] / total
    }
}

#[test]
fn align_weighted_verifier_scores_pairs_by_the_definition() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut words = vocab(30);
    words.extend((0..8).map(|i| format!("{}", 2 + i)));
    let (mut docs, pairs) = edited_docs(&mut rng, &words, 40);
    // Documents no pair names still count in the document frequencies.
    for _ in 0..20 {
        let len = rng.random_range(5..30);
        docs.push(random_doc(&mut rng, &words, len).join(" "));
    }
    let verifier: Verifier = "align-weighted".parse().unwrap();
    assert_eq!(verifier.name(), "align-weighted");
    for t in [0.2, 0.5, 0.8] {
        let (kept, report) = Verification::new(verifier.clone(), t)
            .run(&docs, pairs.clone())
            .unwrap();
        let want: Vec<(usize, usize, f64)> = pairs
            .iter()
            .map(|p| (p.a, p.b, align_weighted_slow(&docs, p.a, p.b)))
            .filter(|&(_, _, s)| s >= t)
            .collect();
        assert_eq!(report.checked, pairs.len() as u64);
        assert_eq!(kept.len(), want.len(), "at {t}");
        assert!(
            !want.is_empty() && want.len() < pairs.len(),
            "at {t}: a test that decides"
        );
        for (k, w) in kept.iter().zip(&want) {
            assert_eq!((k.a, k.b), (w.0, w.1));
            assert!((k.score - w.2).abs() < 1e-12, "{} vs {}", k.score, w.2);
        }
    }
}

#[test]
fn align_weighted_counts_every_document_given() {
    // "beta" is in the pair's two documents and a third no pair names: df 3, so it
    // weighs 1/sqrt(3); without the third it would weigh 1/sqrt(2).
    let texts = ["alpha beta gamma", "alpha beta delta", "beta epsilon zeta"];
    let (kept, _) = Verification::new("align-weighted".parse().unwrap(), 0.1)
        .run(&texts, vec![ScoredPair::new(0, 1, 0.0)])
        .unwrap();
    let (alpha, beta) = (1.0 / 2f64.sqrt(), 1.0 / 3f64.sqrt());
    let want = (alpha + beta) / (alpha + beta + 1.0);
    assert!(
        (kept[0].score - want).abs() < 1e-4,
        "{} vs {want}",
        kept[0].score
    );
    let (two, _) = Verification::new("align-weighted".parse().unwrap(), 0.1)
        .run(&texts[..2], vec![ScoredPair::new(0, 1, 0.0)])
        .unwrap();
    let alone = (2.0 / 2f64.sqrt()) / (2.0 / 2f64.sqrt() + 1.0);
    assert!(
        (two[0].score - alone).abs() < 1e-4,
        "{} vs {alone}",
        two[0].score
    );
}

#[test]
fn align_verifier_tells_order_from_vocabulary() {
    // The same words, shuffled: set Jaccard 1, the alignment far lower.
    let a = "the agency should adopt the strict mercury standard for power plants now";
    let b = "now plants power for standard mercury strict the adopt should agency the";
    let pair = vec![ScoredPair::new(0, 1, 0.0)];
    let jac = Verification::new(Verifier::ExactJaccard, 0.9)
        .features(Features::new(Shingles::Words(1)))
        .run(&[a, b], pair.clone())
        .unwrap();
    assert_eq!(jac.0.len(), 1);
    let al = Verification::new("align".parse().unwrap(), 0.9)
        .run(&[a, b], pair)
        .unwrap();
    assert!(al.0.is_empty());
    for name in ["align", "align-dice", "align-containment"] {
        assert_eq!(name.parse::<Verifier>().unwrap().name(), name);
    }
    assert!("align-foo".parse::<Verifier>().is_err());
}

/// Groups as sets of ids, with the representative's id.
fn groups_by_id(out: &ndd_pipeline::Outcome, docs: &[Document]) -> BTreeMap<Vec<String>, String> {
    out.groups
        .iter()
        .map(|g| {
            let mut ids: Vec<String> = g.members.iter().map(|&i| docs[i].id.clone()).collect();
            ids.sort();
            (ids, docs[g.representative].id.clone())
        })
        .collect()
}

fn family_corpus(seed: u64) -> Vec<Document> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let words = vocab(5_000);
    let mut docs = Vec::new();
    for f in 0..40 {
        let base = random_doc(&mut rng, &words, 120);
        for v in 0..rng.random_range(1..5) {
            let mut d = base.clone();
            for _ in 0..rng.random_range(0..3) {
                let at = rng.random_range(0..d.len());
                d[at] = words[rng.random_range(0..words.len())].clone();
            }
            let mut text = d.join(" ");
            if v % 3 == 2 {
                text = text.to_uppercase(); // an exact copy under the document string
            }
            docs.push(Document::new(format!("f{f:02}v{v}"), text));
        }
    }
    docs
}

#[test]
fn groups_do_not_depend_on_input_order() {
    let docs = family_corpus(21);
    let run = |docs: &[Document]| {
        let out = Dedup::new()
            .representative(Representative::SmallestId)
            .threshold(0.7)
            .run(docs)
            .unwrap();
        groups_by_id(&out, docs)
    };
    let reference = run(&docs);
    assert!(reference.len() >= 20, "{} groups", reference.len());
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..5 {
        let mut shuffled = docs.clone();
        shuffled.shuffle(&mut rng);
        assert_eq!(run(&shuffled), reference);
    }
}

#[cfg(feature = "rayon")]
#[test]
fn outcome_does_not_depend_on_thread_count() {
    let docs = family_corpus(22);
    let in_pool = |threads: usize, method: Method, verifier: Verifier| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let out = Dedup::new()
                .method(method)
                .verifier(verifier)
                .threshold(0.7)
                .run(&docs)
                .unwrap();
            (out.pairs, out.groups)
        })
    };
    for (method, verifier) in [
        (Method::default(), Verifier::MethodScore),
        (Method::default(), Verifier::ExactJaccard),
        ("simhash".parse().unwrap(), Verifier::MethodScore),
        ("exact".parse().unwrap(), Verifier::Containment),
        (Method::default(), Verifier::Align(AlignMeasure::Combined)),
    ] {
        let one = in_pool(1, method.clone(), verifier.clone());
        assert!(!one.1.is_empty());
        assert_eq!(in_pool(2, method, verifier), one);
    }
}

#[test]
fn representative_policies_follow_their_definitions() {
    let texts = ["bb", "a much longer text", "ccc", "zz"];
    let ids = ["m", "k", "z", "a"];
    let orders = [Some(3.0), None, Some(1.0), Some(2.0)];
    let docs: Vec<Document> = (0..4)
        .map(|i| {
            let d = Document::new(ids[i], texts[i]);
            match orders[i] {
                Some(o) => d.with_order(OrderKey::Number(o)),
                None => d,
            }
        })
        .collect();
    // 0-1-2 connected, 3 alone.
    let pairs = [ScoredPair::new(0, 1, 0.9), ScoredPair::new(2, 1, 0.9)];
    let pick = |r: Representative| Grouping::new(r).run(&docs, &pairs).unwrap()[0].representative;
    let members = [0usize, 1, 2];
    let first = *members.iter().min().unwrap();
    let smallest = *members.iter().min_by_key(|&&i| ids[i]).unwrap();
    let longest = *members.iter().max_by_key(|&&i| texts[i].len()).unwrap();
    let earliest = *members
        .iter()
        .filter(|&&i| orders[i].is_some())
        .min_by(|&&a, &&b| orders[a].unwrap().total_cmp(&orders[b].unwrap()))
        .unwrap();
    assert_eq!(pick(Representative::FirstSeen), first);
    assert_eq!(pick(Representative::SmallestId), smallest);
    assert_eq!(pick(Representative::Longest), longest);
    assert_eq!(pick(Representative::Order), earliest);
    let last = Representative::Custom(std::sync::Arc::new(|g: &[&Document]| g.len() - 1));
    assert_eq!(pick(last), 2);
    let bad = Representative::Custom(std::sync::Arc::new(|g: &[&Document]| g.len()));
    assert!(Grouping::new(bad).run(&docs, &pairs).is_err());
    assert!(
        Grouping::default()
            .run(&docs, &[ScoredPair::new(0, 9, 1.0)])
            .is_err()
    );
}

#[test]
fn outcome_keeps_one_per_group_and_every_singleton() {
    let docs = family_corpus(23);
    let out = Dedup::new().threshold(0.7).run(&docs).unwrap();
    let kept = out.kept();
    let dropped = out.dropped();
    assert_eq!(kept.len() + dropped.len(), docs.len());
    assert_eq!(out.report.dropped, dropped.len());
    for g in &out.groups {
        let k: Vec<usize> = g
            .members
            .iter()
            .copied()
            .filter(|&m| out.is_kept(m))
            .collect();
        assert_eq!(k, vec![g.representative]);
    }
    // Every pair's documents share a group; every exact copy is dropped or represents.
    for p in &out.pairs {
        assert!(p.a < p.b);
        assert_eq!(out.group_of(p.a), out.group_of(p.b));
        assert!(out.group_of(p.a).is_some());
    }
    assert!(out.report.exact_copies > 0);
}

#[test]
fn bad_parameters_are_typed_errors_and_empty_input_is_an_empty_outcome() {
    let docs = [Document::new("a", "some text")];
    for t in [0.0, -1.0, 1.5, f64::NAN] {
        assert!(
            Dedup::new().threshold(t).run(&docs).is_err(),
            "threshold {t}"
        );
    }
    assert!(
        Dedup::new()
            .shingles(Shingles::Words(0))
            .run(&docs)
            .is_err()
    );
    assert!(
        Dedup::new()
            .shingles(Shingles::Chars(1 << 20))
            .run(&docs)
            .is_err()
    );
    for num_perm in [0, ndd_pipeline::MAX_NUM_PERM + 1, usize::MAX] {
        let m = Method::MinHash(MinHashConfig {
            num_perm,
            ..MinHashConfig::default()
        });
        assert!(
            Dedup::new().method(m).run(&docs).is_err(),
            "num_perm {num_perm}"
        );
    }
    let m = Method::MinHash(MinHashConfig {
        banding: Banding::Fixed {
            bands: 20,
            rows: 20,
        },
        ..MinHashConfig::default()
    });
    assert!(Dedup::new().method(m).run(&docs).is_err());
    let m = Method::MinHash(MinHashConfig {
        banding: Banding::Recall(1.5),
        ..MinHashConfig::default()
    });
    assert!(Dedup::new().method(m).run(&docs).is_err());
    let s = ndd_pipeline::SimHashConfig {
        bits: 0,
        ..Default::default()
    };
    assert!(Dedup::new().method(Method::SimHash(s)).run(&docs).is_err());
    let s = ndd_pipeline::SimHashConfig {
        bits: 64,
        hamming: Some(64),
        ..Default::default()
    };
    assert!(Dedup::new().method(Method::SimHash(s)).run(&docs).is_err());
    assert!("fuzzy".parse::<Method>().is_err());

    for method in ["minhash", "simhash", "imatch", "signcd", "exact"] {
        let out = Dedup::new()
            .method(method.parse().unwrap())
            .run(&[])
            .unwrap();
        assert!(out.pairs.is_empty() && out.groups.is_empty() && out.kept().is_empty());
        // Documents without any word: one exact group, nothing else breaks.
        let blank = [
            Document::new("x", ""),
            Document::new("y", " ,. "),
            Document::new("z", "word"),
        ];
        let out = Dedup::new()
            .method(method.parse().unwrap())
            .run(&blank)
            .unwrap_or_else(|e| panic!("{method}: {e}"));
        assert_eq!(out.groups.len(), 1, "{method}");
        assert_eq!(out.groups[0].members, vec![0, 1]);
    }
}

#[test]
fn nfkc_joins_compatibility_forms_in_every_stage_and_only_when_asked() {
    let plain = "the ﬁnal report of the board on the ﬁscal year ahead of us all";
    let wide: String = plain
        .replace('ﬁ', "fi")
        .chars()
        .map(|c| match c {
            'a'..='z' => char::from_u32(c as u32 - 'a' as u32 + 0xFF41).unwrap(),
            _ => c,
        })
        .collect();
    let ascii = plain.replace('ﬁ', "fi");
    let docs = [
        plain,
        wide.as_str(),
        ascii.as_str(),
        "something else entirely here",
    ];
    for method in ["minhash", "exact", "simhash"] {
        let off = Dedup::new()
            .method(method.parse().unwrap())
            .run_texts(&docs)
            .unwrap();
        let on = Dedup::new()
            .method(method.parse().unwrap())
            .nfkc(true)
            .run_texts(&docs)
            .unwrap();
        assert!(
            off.groups.iter().all(|g| !g.members.contains(&1)),
            "{method}"
        );
        assert_eq!(on.groups.len(), 1, "{method}");
        assert_eq!(on.groups[0].members, vec![0, 1, 2], "{method}");
        // Under NFKC all three share one document string: the exact pass sees copies.
        assert_eq!(on.report.exact_copies, 2, "{method}");
    }
    // Shingles alone (no exact pass): the same group.
    let on = Dedup::new()
        .exact_pass(false)
        .nfkc(true)
        .run_texts(&docs)
        .unwrap();
    assert_eq!(on.groups[0].members, vec![0, 1, 2]);
}

/// The document string the slow way: the tokenizer's tokens, case-folded one by one,
/// concatenated.
fn document_string_by_tokens(doc: &str, fold: bool) -> Vec<u8> {
    use ndd_core::Tokenizer;
    let mut out = String::new();
    ndd_shingle::WordTokenizer::new().for_each_token(doc, |t| {
        if fold {
            ndd_shingle::fold_case_into(t.text, &mut out);
        } else {
            out.push_str(t.text);
        }
    });
    out.into_bytes()
}

/// The exact pass's digest of `doc`, with and without case folding, is the SHA-1 of
/// the document string the slow way; `what` names the case in a failure.
fn check_digest_by_tokens(doc: &str, what: &str) {
    use sha1::{Digest, Sha1};
    for fold in [true, false] {
        let pass = ExactPass::new().fold_case(fold);
        let string = document_string_by_tokens(doc, fold);
        let expected: [u8; 20] = Sha1::digest(&string).into();
        assert_eq!(pass.digest(doc), expected, "{what}, fold {fold}: {doc:?}");
        // The string built in a buffer (ascii or not, of any length) is the same.
        let mut buf = b"left over".to_vec();
        assert_eq!(pass.digest_with(doc, &mut buf), expected, "{what}: {doc:?}");
        assert_eq!(buf, string, "{what}, fold {fold}: {doc:?}");
    }
}

#[test]
fn exact_pass_document_string_equals_the_tokens_concatenated_on_any_text() {
    // Characters from every class the tokenizer distinguishes.
    let pool: Vec<char> = "aZ09 \t\n.,;-_'\"éÉßİıΣσς K©×÷…—“”€→∑─☃東京ひらカタ한국\u{3000}、。ＡＢａ１！\u{FEFF}\u{FFFD}\u{0301}\u{0915}\u{093F}😀\u{1F600}\u{200B}\u{00A0}\u{2028}"
        .chars()
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for round in 0..3000 {
        let len = rng.random_range(0..40);
        let doc: String = (0..len)
            .map(|_| pool[rng.random_range(0..pool.len())])
            .collect();
        check_digest_by_tokens(&doc, &format!("round {round}"));
    }
    // ASCII-only text (the table path), every ASCII byte, lengths up to 600.
    for round in 0..2000 {
        let len = rng.random_range(0..600);
        let doc: String = (0..len)
            .map(|_| char::from(rng.random_range(0..128u8)))
            .collect();
        check_digest_by_tokens(&doc, &format!("ascii round {round}"));
    }
    // Long ASCII runs (across the 256-byte pieces the digest compacts) between
    // a few characters from the pool.
    for round in 0..300 {
        let len = rng.random_range(0..900);
        let doc: String = (0..len)
            .map(|_| match rng.random_range(0..100) {
                0 => pool[rng.random_range(0..pool.len())],
                _ => char::from(rng.random_range(0..128u8)),
            })
            .collect();
        check_digest_by_tokens(&doc, &format!("mixed round {round}"));
    }
}

/// The MinHash candidate stage over several chunks of 4,096 documents (under `rayon`
/// the next chunk is sketched while the previous one is searched) gives the pairs of
/// the plain loop, in the same order: every signature first, then each document
/// queried and inserted in turn, its earlier candidates sorted.
#[test]
fn minhash_candidates_over_many_chunks_equal_sketch_then_search() {
    use ndd_core::{DocSketcher, Signature};
    use ndd_lsh::{LshIndex, LshParams};
    use ndd_minhash::MinHasher;
    let mut rng = ChaCha8Rng::seed_from_u64(4096);
    let words = vocab(300);
    let mut docs: Vec<String> = Vec::new();
    for i in 0..10_000 {
        if i % 5 == 4 {
            // A near copy of an earlier document: a few words replaced.
            let mut d: Vec<String> = docs[rng.random_range(0..docs.len())]
                .split(' ')
                .map(str::to_owned)
                .collect();
            for _ in 0..2 {
                let at = rng.random_range(0..d.len());
                d[at] = words[rng.random_range(0..words.len())].clone();
            }
            docs.push(d.join(" "));
        } else {
            let len = rng.random_range(8..40);
            docs.push(random_doc(&mut rng, &words, len).join(" "));
        }
    }
    let texts: Vec<&str> = docs.iter().map(String::as_str).collect();
    let mut got = Vec::new();
    CandidateGenerator::new(Method::default(), 0.8)
        .emit(Emit::AllCandidates)
        .run(&texts, &mut got)
        .unwrap();

    let hasher = MinHasher::builder()
        .num_hashes(128)
        .seed(0)
        .build_with(Shingles::default().extractor().unwrap())
        .unwrap();
    let sigs: Vec<_> = texts.iter().map(|t| hasher.sketch(t)).collect();
    let params = LshParams::min_candidates_for_recall(0.8, 128, 0.99).unwrap();
    let mut index = LshIndex::new(params);
    let mut expected = Vec::new();
    let mut found: Vec<u32> = Vec::new();
    for (i, sig) in sigs.iter().enumerate() {
        found.clear();
        index
            .query_then_insert(u32::try_from(i).unwrap(), sig, &mut found)
            .unwrap();
        found.sort_unstable();
        for &j in &found {
            let est = sigs[j as usize].similarity(sig).unwrap().value();
            expected.push(ScoredPair::new(j as usize, i, est));
        }
    }
    assert!(expected.len() > 1_000, "{}", expected.len());
    assert_eq!(got, expected);
}

/// `Outcome::fate` against its definition: a dropped document is an exact copy when
/// its text, folded as the exact pass folds it, equals the kept document's or that of
/// an earlier document of its group (issue 30: each set of `s` copies gives `s − 1`
/// exact copies whatever the grouping); checked with a representative policy that
/// keeps a later copy, and without an exact pass.
#[test]
fn fate_names_exact_copies_of_the_kept_document() {
    use ndd_pipeline::{Fate, OrderKey, Representative};
    let base = "notice of the public hearing on the proposed zoning change for the east district";
    let docs = vec![
        Document::new("a", base).with_order(OrderKey::Number(3.0)),
        Document::new("b", format!("{base} tonight")).with_order(OrderKey::Number(1.0)),
        Document::new("c", base.to_uppercase()).with_order(OrderKey::Number(2.0)),
        Document::new("d", "an unrelated letter about the library")
            .with_order(OrderKey::Number(0.0)),
    ];
    // Folded as the exact pass does by default (case and punctuation), by hand.
    let fold = |t: &str| t.to_lowercase();
    let check = |dedup: Dedup, exact_pass: bool| {
        let out = dedup.run(&docs).unwrap();
        for i in 0..docs.len() {
            let expected = match out.group_of(i) {
                None => Fate::Unique,
                Some(g) if g.representative == i => Fate::Kept,
                Some(g)
                    if exact_pass
                        && (fold(&docs[i].text) == fold(&docs[g.representative].text)
                            || g.members
                                .iter()
                                .any(|&m| m < i && fold(&docs[m].text) == fold(&docs[i].text))) =>
                {
                    Fate::ExactCopy
                }
                Some(_) => Fate::NearDuplicate,
            };
            assert_eq!(
                out.fate(i),
                expected,
                "document {i}, exact pass {exact_pass}"
            );
        }
        out
    };
    // First seen kept: c is a copy of a, b a near-duplicate.
    let out = check(Dedup::new().threshold(0.7), true);
    assert_eq!(
        (out.fate(1), out.fate(2)),
        (Fate::NearDuplicate, Fate::ExactCopy)
    );
    // Earliest order kept (b): a is a near-duplicate of b, c an exact copy of a.
    let out = check(
        Dedup::new()
            .threshold(0.7)
            .representative(Representative::Order),
        true,
    );
    assert_eq!(
        (out.fate(0), out.fate(2)),
        (Fate::NearDuplicate, Fate::ExactCopy)
    );
    // c's order (2) comes before a's (3): among {a, b, c} without b, c would be kept and
    // a is its copy.
    let two = [docs[0].clone(), docs[2].clone()];
    let out = Dedup::new()
        .representative(Representative::Order)
        .run(&two)
        .unwrap();
    assert_eq!((out.fate(0), out.fate(1)), (Fate::ExactCopy, Fate::Kept));
    // Without an exact pass nothing is called a copy.
    let out = check(Dedup::new().threshold(0.7).exact_pass(false), false);
    assert_eq!(out.fate(2), Fate::NearDuplicate);
}

/// A method the pipeline does not know, added from outside through `Method::Custom`:
/// every pair, unscored (the brute force a verifier then decides).
#[derive(Debug)]
struct EveryPair;

impl ndd_pipeline::CandidateSource for EveryPair {
    fn name(&self) -> &str {
        "every-pair"
    }

    fn validate(
        &self,
        _features: Features,
        threshold: ndd_pipeline::Threshold,
    ) -> Result<(), ndd_pipeline::Error> {
        // A setting of its own to refuse, so the plan is seen to ask.
        if threshold.get() < 0.1 {
            return Err(
                ndd_core::Error::invalid_parameter("threshold", "too low for every pair").into(),
            );
        }
        Ok(())
    }

    fn run(
        &self,
        texts: &[&str],
        ctx: &ndd_pipeline::SourceContext<'_>,
        sink: &mut dyn ndd_pipeline::PairSink,
    ) -> Result<ndd_pipeline::CandidateReport, ndd_pipeline::Error> {
        assert_eq!(
            ctx.emit(),
            Emit::AllCandidates,
            "an exact verifier after an unscored source"
        );
        let mut n = 0;
        for b in 0..texts.len() {
            for a in 0..b {
                sink.push_pair(ScoredPair::new(a, b, f64::NAN));
                n += 1;
            }
        }
        Ok(ndd_pipeline::CandidateReport {
            description: "every pair".into(),
            candidates: n,
            ..Default::default()
        })
    }
}

#[test]
fn a_custom_method_runs_through_every_stage_and_matches_brute_force() {
    let (mut docs, _) = planted(13, 30, 0.5, 0.95);
    // Exact copies too, so the exact pass runs before the custom source.
    docs.push(docs[0].clone());
    docs.push(docs[3].to_uppercase());
    for t in [0.5, 0.8] {
        let out = Dedup::new()
            .method(Method::custom(EveryPair))
            .verifier(Verifier::Containment)
            .shingles(Shingles::Words(5))
            .threshold(t)
            .run_texts(&docs)
            .unwrap();
        assert_eq!(out.report.method, "every pair");
        // Copies leave the source's input: n(n-1)/2 over the unique documents.
        let unique = (docs.len() - out.report.exact_copies) as u64;
        assert_eq!(out.report.candidates, unique * (unique - 1) / 2);
        // Oracle: containment of the smaller 5-gram set in the larger, from hash sets.
        let sh = WordShingler::new(5).unwrap();
        let sets: Vec<HashSet<u64>> = docs
            .iter()
            .map(|d| sh.features(d).into_iter().collect())
            .collect();
        let mut expected = BTreeSet::new();
        for i in 0..docs.len() {
            for j in i + 1..docs.len() {
                let inter = sets[i].intersection(&sets[j]).count() as f64;
                let c = inter / sets[i].len().min(sets[j].len()).max(1) as f64;
                if c >= t {
                    expected.insert((i, j));
                }
            }
        }
        // Pairs between an exact copy and another document are reported once, through
        // the copy's first occurrence: compare the groups' members instead.
        let mut expected_groups = ndd_core::UnionFind::new(docs.len());
        for &(i, j) in &expected {
            expected_groups.union(i, j);
        }
        let mut want: Vec<Vec<usize>> = expected_groups
            .groups()
            .into_iter()
            .filter(|g| g.len() > 1)
            .collect();
        let mut got: Vec<Vec<usize>> = out.groups.iter().map(|g| g.members.clone()).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "threshold {t}");
    }
    // The source's own check runs when the plan is built, before any document.
    let low = Dedup::new()
        .method(Method::custom(EveryPair))
        .threshold(0.05);
    assert!(low.plan().is_err());
    // And the name is the source's.
    assert_eq!(Method::custom(EveryPair).name(), "every-pair");
}

/// A banded source of another crate: MinHash wrapped, noting the banding its context
/// carries.
mod noted {
    use ndd_lsh::LshParams;
    use ndd_pipeline::{
        CandidateReport as Report, CandidateSource, Error, Features, MinHashConfig, PairSink,
        SourceContext as Ctx, Threshold,
    };
    use std::sync::Mutex;

    #[derive(Debug, Default)]
    pub(crate) struct NotedMinHash {
        pub(crate) config: MinHashConfig,
        pub(crate) banding: Mutex<Vec<Option<LshParams>>>,
    }

    impl CandidateSource for NotedMinHash {
        fn name(&self) -> &str {
            "noted-minhash"
        }

        fn validate_banding(&self, f: Features, t: Threshold) -> Result<Option<LshParams>, Error> {
            self.config.validate_banding(f, t)
        }

        fn run(&self, t: &[&str], c: &Ctx<'_>, s: &mut dyn PairSink) -> Result<Report, Error> {
            self.banding.lock().unwrap().push(c.lsh_params());
            self.config.run(t, c, s)
        }
    }
}

#[test]
fn a_banded_custom_source_runs_with_the_banding_its_plan_resolved() {
    let (docs, _) = planted(17, 20, 0.5, 0.95);
    let source = std::sync::Arc::new(noted::NotedMinHash::default());
    let method = Method::Custom(source.clone());
    let plan = Dedup::new().method(method).threshold(0.7).plan().unwrap();
    // Bands × rows chosen for 99% recall at 0.7 out of 128 values: its S-curve.
    let banding = plan.lsh_params().unwrap();
    assert!(banding.slots_used() <= 128);
    assert!(banding.probability(0.7) >= 0.99, "{banding:?}");
    let documents: Vec<Document> = docs
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(i.to_string(), t.as_str()))
        .collect();
    let out = plan.run(&documents, &ndd_pipeline::NoProgress).unwrap();
    assert_eq!(*source.banding.lock().unwrap(), vec![Some(banding)]);
    // The same pairs as MinHash the method.
    let minhash = Dedup::new().threshold(0.7).run_texts(&docs).unwrap();
    assert!(!minhash.pairs.is_empty());
    let keys = |o: &ndd_pipeline::Outcome| o.pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>();
    assert_eq!(keys(&out), keys(&minhash));
}

/// `set_measure_at_least` against the definition counted on `BTreeSet`s: the measure
/// when it reaches `t`, nothing when it does not, for both set verifiers, on random
/// sets of small values (many common elements) with `t` at, above and below the value.
#[test]
fn the_thresholded_set_measure_is_the_measure_at_or_above_t() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for _ in 0..2_000 {
        let draw = |rng: &mut ChaCha8Rng| -> Vec<u64> {
            let n = rng.random_range(0..30);
            let set: BTreeSet<u64> = (0..n).map(|_| rng.random_range(0..40)).collect();
            set.into_iter().collect()
        };
        let (a, b) = (draw(&mut rng), draw(&mut rng));
        let (sa, sb): (BTreeSet<u64>, BTreeSet<u64>) =
            (a.iter().copied().collect(), b.iter().copied().collect());
        let common = sa.intersection(&sb).count() as f64;
        let union = sa.union(&sb).count() as f64;
        let smaller = sa.len().min(sb.len()) as f64;
        let jaccard = if union == 0.0 { 1.0 } else { common / union };
        let containment = if smaller == 0.0 {
            1.0
        } else {
            common / smaller
        };
        for (jac, value) in [(true, jaccard), (false, containment)] {
            assert_eq!(ndd_pipeline::set_measure(jac, &a, &b), value);
            for t in [value, value + 1e-9, value - 1e-9, 0.0, 0.5, 0.8, 1.0] {
                let want = (value >= t).then_some(value);
                assert_eq!(
                    ndd_pipeline::set_measure_at_least(jac, &a, &b, t),
                    want,
                    "jac {jac}, t {t}, a {a:?}, b {b:?}"
                );
            }
        }
    }
}

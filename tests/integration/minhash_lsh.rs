//! Cross-crate: MinHash + banded LSH on real text with planted near-duplicates, checked
//! against the exact all-pairs join (the oracle), and the S-curve checked on real
//! MinHash signatures.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::HashSet;

use near_dup::eval::EditKind;
use near_dup::index::exact_similar_pairs;
use near_dup::lsh::{LshIndex, LshParams, candidate_pairs};
use near_dup::minhash::{MinHashSignature, MinHasher};
use near_dup::shingle::WordShingler;
use near_dup::{DocSketcher, FeatureExtractor, FeatureSet, Signature, Sketcher};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::{bundled_texts, planted};

#[test]
fn lsh_all_pairs_recovers_the_high_similarity_pairs_of_a_planted_corpus() {
    // Bases: the 562 real documents (which contain natural near-duplicates too), each
    // with planted variants: exact copies, small edits, appended paragraphs,
    // misspellings and reordered blocks.
    let bases = bundled_texts();
    let corpus = planted(
        &bases,
        2026,
        2,
        &[
            (EditKind::Exact, 1.0),
            (EditKind::MinorChange, 2.0),
            (EditKind::BlockReordering, 1.0),
        ],
    );
    let texts: Vec<&str> = corpus.docs.iter().map(|d| d.text.as_str()).collect();
    assert!(texts.len() > 1500);

    // The oracle: exact Jaccard of the word 5-gram sets, every pair with J >= 0.9.
    let shingler = WordShingler::new(5).unwrap();
    let sets: Vec<FeatureSet> = texts.iter().map(|t| shingler.feature_set(t)).collect();
    let truth = exact_similar_pairs(&sets, 0.9).unwrap();
    assert!(truth.len() > 1000, "only {} true pairs", truth.len());

    // Two users' questions, each verified at 0.8 by the MinHash estimate:
    // balanced banding at 0.8 (9 x 13, false positives and negatives weighed equally:
    // `for_threshold` until 0.1.0), and "at least 99% of the pairs with J >= 0.9,
    // fewest candidates".
    let k = 128;
    let hasher = MinHasher::builder()
        .num_hashes(k)
        .build_with(shingler)
        .unwrap();
    let sigs: Vec<MinHashSignature> = hasher.sketch_batch(&texts);
    let mut last = None;
    for params in [
        LshParams::for_threshold_balanced(0.8, k).unwrap(),
        LshParams::min_candidates_for_recall(0.9, k, 0.99).unwrap(),
    ] {
        let candidates = candidate_pairs(&sigs, params).unwrap();
        let found: HashSet<(usize, usize)> = candidates
            .iter()
            .copied()
            .filter(|&(a, b)| sigs[a].similarity(&sigs[b]).unwrap().value() >= 0.8)
            .collect();

        let missed: Vec<(usize, usize, f64)> = truth
            .iter()
            .map(|p| p.into_tuple())
            .filter(|(a, b, _)| !found.contains(&(*a, *b)))
            .collect();
        for (a, b, j) in &missed {
            let est = sigs[*a].similarity(&sigs[*b]).unwrap();
            eprintln!(
                "missed: documents {a} and {b}, exact J {j:.3}, MinHash estimate {:.3}, candidate {}",
                est.value(),
                candidates.contains(&(*a, *b))
            );
        }
        let recall = 1.0 - missed.len() as f64 / truth.len() as f64;
        eprintln!(
            "{} true pairs (J >= 0.9), {} candidates from {} bands x {} rows, recall {recall:.4}",
            truth.len(),
            candidates.len(),
            params.bands(),
            params.rows()
        );
        assert!(recall >= 0.99, "recall {recall} below 0.99");
        // Far fewer candidates than the n(n-1)/2 pairs an all-pairs loop would compare.
        let n = texts.len();
        assert!(candidates.len() < n * (n - 1) / 2 / 50);
        last = Some((params, candidates));
    }
    let (params, candidates) = last.unwrap();

    // The streaming index finds the same candidates as the batch join.
    let mut index: LshIndex<usize, MinHashSignature> = LshIndex::new(params);
    let mut streamed = HashSet::new();
    let mut out = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        out.clear();
        index.query_then_insert(i, s, &mut out).unwrap();
        streamed.extend(out.iter().map(|&j| (j.min(i), j.max(i))));
    }
    let batch: HashSet<(usize, usize)> = candidates.into_iter().collect();
    assert_eq!(streamed, batch);
}

/// Random feature sets with a given Jaccard: `common` shared of `union` features.
fn pair_with_jaccard(rng: &mut ChaCha8Rng, union: usize, common: usize) -> (Vec<u64>, Vec<u64>) {
    let all: Vec<u64> = (0..union).map(|_| rng.random()).collect();
    let (shared, rest) = all.split_at(common);
    let half = rest.len() / 2;
    let mut a = shared.to_vec();
    a.extend_from_slice(&rest[..half]);
    let mut b = shared.to_vec();
    b.extend_from_slice(&rest[half..]);
    (a, b)
}

#[test]
fn candidate_rate_follows_the_s_curve_on_real_minhash_signatures() {
    // Pairs of exact Jaccard s, sketched by one-permutation MinHash, banded 20 x 5
    // (paper 002's example): the fraction that become candidates is 1 - (1 - s^5)^20.
    let hasher = MinHasher::builder()
        .num_hashes(100)
        .build_for_features(near_dup::SchemeId::new("random-ids").finish())
        .unwrap();
    let params = LshParams::new(20, 5).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(20);
    let trials = 1500;
    for (common, union) in [(60, 300), (120, 300), (150, 300), (180, 300), (210, 300)] {
        let s = common as f64 / union as f64;
        let mut hits = 0;
        for _ in 0..trials {
            let (a, b) = pair_with_jaccard(&mut rng, union, common);
            let sigs = [hasher.sketch_features(a), hasher.sketch_features(b)];
            hits += candidate_pairs(&sigs, params).unwrap().len();
        }
        let p = params.probability(s);
        let rate = hits as f64 / f64::from(trials);
        let se = (p * (1.0 - p) / f64::from(trials)).sqrt().max(1e-3);
        eprintln!("s = {s:.2}: candidate rate {rate:.4}, S-curve {p:.4}");
        assert!(
            (rate - p).abs() < 4.0 * se,
            "s = {s}: rate {rate} vs S-curve {p}"
        );
    }
}

#[test]
fn signatures_round_trip_and_refuse_other_parameters_end_to_end() {
    let texts = bundled_texts();
    let hasher = MinHasher::new(64).unwrap();
    let sig = hasher.sketch(&texts[0]);
    let restored = MinHashSignature::from_bytes(&sig.to_bytes()).unwrap();
    assert_eq!(restored.similarity(&sig).unwrap().value(), 1.0);
    let other = MinHasher::builder().num_hashes(64).seed(9).build().unwrap();
    assert!(other.sketch(&texts[0]).similarity(&sig).is_err());
    // An index built for one scheme refuses signatures of another.
    let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(LshParams::new(8, 8).unwrap());
    index.insert(0, &sig).unwrap();
    assert!(index.insert(1, &other.sketch(&texts[1])).is_err());
    assert_eq!(hasher.scheme(), sig.scheme());
    assert_eq!(hasher.extractor().scheme(), hasher.feature_scheme());
}

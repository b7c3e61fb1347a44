//! Top-k and containment search over a `DedupIndex`, checked against brute force over
//! independently computed signatures and shingle sets; set sizes in the byte form,
//! and indexes of the previous byte form (a golden file) still loading.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::BTreeSet;

use ndd_core::{DocSketcher, FeatureExtractor, Signature, containment};
use ndd_minhash::MinHasher;
use ndd_pipeline::{ContainmentSearch, Dedup, DedupIndex, Document, Error, NeighbourSearch};
use ndd_shingle::WordShingler;

use crate::common::{DESCRIPTIONS, debian, documents, index_bytes};

/// Every document in the LSH index: no exact pass, so brute force sees the same set.
fn settings() -> Dedup {
    Dedup::new().exact_pass(false)
}

#[test]
fn top_k_finds_what_brute_force_over_the_same_signatures_ranks_first() {
    let docs = debian();
    let (indexed, queries) = docs.split_at(400);
    let mut index = DedupIndex::new(&settings()).unwrap();
    index.add(indexed).unwrap();
    let search = NeighbourSearch::new(&index).unwrap();
    // The oracle: the same MinHash parameters built here, every pair estimated.
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .seed(0)
        .build_with(WordShingler::new(3).unwrap())
        .unwrap();
    let sigs: Vec<_> = indexed.iter().map(|d| hasher.sketch(&d.text)).collect();
    let k = 10;
    let (mut found, mut wanted) = (0usize, 0usize);
    for q in queries.iter().take(80) {
        let qs = hasher.sketch(&q.text);
        let mut brute: Vec<(usize, f64)> = sigs
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.similarity(&qs).unwrap().value()))
            .collect();
        brute.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        // The estimate's ranking (what `top_k` gives for an index without sets).
        let top = search.top_k_estimated(&q.text, k).unwrap();
        assert!(top.len() <= k);
        assert!(top.windows(2).all(|w| w[0].score >= w[1].score));
        // Every score is the estimate brute force computes for that document.
        for n in &top {
            assert_eq!(n.score, brute.iter().find(|b| b.0 == n.doc).unwrap().1);
        }
        // Recall of the brute-force top k (ties at the k-th score count as either).
        let kth = brute[k - 1].1;
        let acceptable: BTreeSet<usize> =
            brute.iter().filter(|b| b.1 >= kth).map(|b| b.0).collect();
        found += top.iter().filter(|n| acceptable.contains(&n.doc)).count();
        wanted += k;
        // The verified mode with an exact measure ranks by it.
        let qset = WordShingler::new(3).unwrap().feature_set(&q.text);
        let shingler = WordShingler::new(3).unwrap();
        let verified = search
            .top_k_verified(&q.text, k, |doc| {
                ndd_core::jaccard(
                    qset.as_slice(),
                    shingler.feature_set(&indexed[doc].text).as_slice(),
                )
            })
            .unwrap();
        assert!(verified.windows(2).all(|w| w[0].score >= w[1].score));
    }
    let recall = found as f64 / wanted as f64;
    // decisions.md: the default forest finds 97% of what the brute-force estimate ranks.
    assert!(recall >= 0.9, "recall {recall}");
    assert!(search.top_k("anything", 0).is_err());
}

#[test]
fn top_k_finds_an_indexed_document_from_its_own_text() {
    let docs = debian();
    let mut index = DedupIndex::new(&settings()).unwrap();
    index.add(&docs[..200]).unwrap();
    let search = NeighbourSearch::new(&index).unwrap();
    for (i, d) in docs[..200].iter().enumerate().step_by(7) {
        let top = search.top_k(&d.text, 1).unwrap();
        assert_eq!(top[0].score, 1.0, "{}", d.id);
        // An identical text elsewhere ties at 1.0; the document itself or its twin.
        assert!(docs[top[0].doc].text == d.text || top[0].doc == i);
    }
}

#[test]
fn containment_finds_the_documents_that_contain_a_query() {
    // decisions.md: at t = 0.8 equal weights favour precision (recall about 0.55 with
    // one-permutation MinHash), false negatives weighted 0.9 reach about 0.99.
    let equal = containment_recall(None);
    let recall_first = containment_recall(Some((0.1, 0.9)));
    eprintln!("recall: equal weights {equal:?}, fn weight 0.9 {recall_first:?}");
    assert!(equal.0 >= 0.4, "{equal:?}");
    assert!(recall_first.0 >= 0.9, "{recall_first:?}");
    // A query's own source document is found.
    assert!(recall_first.1 >= 0.95, "{recall_first:?}");
}

/// Recall of the verified containment search (of all documents containing a query,
/// and of the query's source document) with these error weights.
fn containment_recall(weights: Option<(f64, f64)>) -> (f64, f64) {
    let docs = debian();
    let indexed = &docs[..300];
    let mut index = DedupIndex::new(&settings()).unwrap();
    index.add(indexed).unwrap();
    let shingler = WordShingler::new(3).unwrap();
    let sets: Vec<_> = indexed
        .iter()
        .map(|d| shingler.feature_set(&d.text))
        .collect();
    // Set sizes counted by the index are the sizes of the shingle sets.
    let sizes = index.set_sizes().unwrap();
    for (s, set) in sizes.iter().zip(&sets) {
        assert_eq!(*s, set.len() as u64);
    }
    let t = 0.8;
    let search = match weights {
        None => {
            // Equal weights (the default before recall-oriented banding).
            let p = ndd_lsh::EnsembleParams::new(t, 128)
                .unwrap()
                .with_weights(0.5, 0.5)
                .unwrap();
            ContainmentSearch::with_params(&index, p).unwrap()
        }
        Some((fp, fnw)) => {
            let p = ndd_lsh::EnsembleParams::new(t, 128)
                .unwrap()
                .with_weights(fp, fnw)
                .unwrap();
            ContainmentSearch::with_params(&index, p).unwrap()
        }
    };
    let mut own = 0usize;
    // Queries: the middle half of the words of every 5th document of 200 words or more,
    // contained in that document (and in any other that includes it).
    let (mut found, mut wanted, mut queries) = (0usize, 0usize, 0usize);
    for (i, d) in indexed.iter().enumerate().step_by(5) {
        let words: Vec<&str> = d.text.split_whitespace().collect();
        if words.len() < 200 {
            continue;
        }
        queries += 1;
        let query = words[words.len() / 4..3 * words.len() / 4].join(" ");
        let q = shingler.feature_set(&query);
        let truth: BTreeSet<usize> = sets
            .iter()
            .enumerate()
            .filter(|(_, s)| containment(q.as_slice(), s.as_slice()) >= t)
            .map(|(j, _)| j)
            .collect();
        assert!(truth.contains(&i));
        let verified = search
            .query_verified(&query, |doc| {
                containment(q.as_slice(), sets[doc].as_slice())
            })
            .unwrap();
        // What the verified mode returns is exact, and all of it is true.
        for n in &verified {
            assert!(truth.contains(&n.doc));
            assert_eq!(n.score, containment(q.as_slice(), sets[n.doc].as_slice()));
        }
        found += verified.len();
        wanted += truth.len();
        own += usize::from(verified.iter().any(|n| n.doc == i));
        // The estimated mode: scores in [t, 1], highest first.
        let estimated = search.query(&query).unwrap();
        assert!(estimated.iter().all(|n| n.score >= t && n.score <= 1.0));
        assert!(estimated.windows(2).all(|w| w[0].score >= w[1].score));
    }
    assert!(queries >= 20, "{queries} queries");
    assert!(search.query("").unwrap().is_empty());
    assert!(ContainmentSearch::new(&index, 0.0).is_err());
    assert!(ContainmentSearch::new(&index, f64::NAN).is_err());
    assert!(ContainmentSearch::new(&index, 1.0).is_ok());
    (found as f64 / wanted as f64, own as f64 / queries as f64)
}

/// Tie-tolerant recall@k of the close neighbours (issue 29): per query, the exact top
/// `k` by Jaccard among all documents, kept where Jaccard >= 0.5, is what is wanted; a
/// returned document counts when its exact Jaccard reaches both 0.5 and the exact
/// `k`-th best (a tie with the `k`-th counts as either). With `without_self`, the
/// query's own document (the `usize` beside it) is left out of both sides: only other
/// documents count.
fn close_recall(
    sets: &[ndd_core::FeatureSet],
    queries: &[(usize, Vec<u64>, Vec<usize>)],
    k: usize,
    without_self: bool,
) -> f64 {
    let (mut hit, mut want) = (0usize, 0usize);
    for (own, q, got) in queries {
        let other = |d: &usize| !without_self || d != own;
        let mut js: Vec<f64> = (0..sets.len())
            .filter(other)
            .map(|d| ndd_core::jaccard(q, sets[d].as_slice()))
            .collect();
        js.sort_by(|a, b| b.total_cmp(a));
        let kth = js[k.min(js.len()) - 1];
        let close = js.iter().take(k).filter(|&&j| j >= 0.5).count();
        let bar = kth.max(0.5);
        hit += got
            .iter()
            .filter(|d| other(d))
            .filter(|&&d| ndd_core::jaccard(q, sets[d].as_slice()) >= bar)
            .count()
            .min(close);
        want += close;
    }
    hit as f64 / want.max(1) as f64
}

#[test]
fn top_k_reaches_recall_at_10_of_close_neighbours_on_real_descriptions_at_the_defaults() {
    // Issue 29: 200 indexed descriptions as queries, word 3-grams, the defaults. Ranked
    // by the estimate the forest reached 0.856; re-ranked by the index's stored sets
    // it must reach 0.9 (docs/decisions.md has the measured figure).
    let docs = documents(DESCRIPTIONS);
    let mut index = DedupIndex::new(&if std::env::var("DEFAULTS").is_ok() {
        Dedup::new()
    } else {
        settings()
    })
    .unwrap();
    index.add(&docs).unwrap();
    let search = NeighbourSearch::new(&index).unwrap();
    assert!(search.exact_scores());
    let shingler = WordShingler::new(3).unwrap();
    let sets: Vec<_> = docs.iter().map(|d| shingler.feature_set(&d.text)).collect();
    let k = 10;
    let (mut exact, mut estimated) = (Vec::new(), Vec::new());
    for (i, d) in docs.iter().enumerate().step_by(docs.len() / 200) {
        let top = search.top_k(&d.text, k).unwrap();
        assert!(top.len() <= k);
        // Scores are the exact Jaccard of the sets, highest first.
        for n in &top {
            assert!(n.is_exact());
            assert_eq!(
                n.score,
                ndd_core::jaccard(sets[i].as_slice(), sets[n.doc].as_slice())
            );
        }
        assert!(top.windows(2).all(|w| w[0].score >= w[1].score));
        let q = sets[i].as_slice().to_vec();
        exact.push((i, q.clone(), top.iter().map(|n| n.doc).collect::<Vec<_>>()));
        let est = search.top_k_estimated(&d.text, k).unwrap();
        estimated.push((i, q, est.iter().map(|n| n.doc).collect::<Vec<_>>()));
    }
    assert_eq!(exact.len(), 200);
    let r_exact = close_recall(&sets, &exact, k, false);
    let r_est = close_recall(&sets, &estimated, k, false);
    // The stricter count: the query's own document (always found) left out.
    let o_exact = close_recall(&sets, &exact, k, true);
    let o_est = close_recall(&sets, &estimated, k, true);
    eprintln!(
        "recall@10 of close neighbours: exact re-ranking {r_exact:.3} ({o_exact:.3} without \
         the query itself), estimate {r_est:.3} ({o_est:.3})"
    );
    assert!(r_exact >= 0.9, "exact re-ranking {r_exact}");
    assert!(
        o_exact >= 0.9,
        "exact re-ranking without the query {o_exact}"
    );
    assert!(r_exact >= r_est, "{r_exact} < {r_est}");
}

#[test]
fn containment_at_the_defaults_finds_the_sources_of_prefix_queries() {
    // Issue 29: queries made of the first 25% of the words of bundled documents
    // (containment 1.0 in their source); at 0.9 with the defaults the source must come
    // back for at least 95% of them, scored exactly.
    let docs = debian();
    let mut index = DedupIndex::new(&settings()).unwrap();
    index.add(&docs).unwrap();
    let shingler = WordShingler::new(3).unwrap();
    let sets: Vec<_> = docs.iter().map(|d| shingler.feature_set(&d.text)).collect();
    let search = ContainmentSearch::new(&index, 0.9).unwrap();
    assert!(search.exact_scores());
    let (mut queries, mut sources, mut found, mut truths, mut returned) = (0, 0, 0, 0, 0);
    for (i, d) in docs.iter().enumerate().step_by(4) {
        let words: Vec<&str> = d.text.split_whitespace().collect();
        let query = words[..words.len() / 4].join(" ");
        let q = shingler.feature_set(&query);
        if q.is_empty() {
            continue;
        }
        queries += 1;
        assert_eq!(containment(q.as_slice(), sets[i].as_slice()), 1.0);
        let truth: BTreeSet<usize> = (0..docs.len())
            .filter(|&j| containment(q.as_slice(), sets[j].as_slice()) >= 0.9)
            .collect();
        let hits = search.query(&query).unwrap();
        for n in &hits {
            assert!(n.is_exact());
            assert_eq!(n.score, containment(q.as_slice(), sets[n.doc].as_slice()));
            assert!(truth.contains(&n.doc));
        }
        sources += usize::from(hits.iter().any(|n| n.doc == i));
        found += hits.len();
        truths += truth.len();
        returned += hits.len();
    }
    let source_recall = sources as f64 / queries as f64;
    let recall = found as f64 / truths as f64;
    eprintln!(
        "containment 0.9: {queries} queries, source found for {sources} ({source_recall:.3}), \
         recall {recall:.3} ({found}/{truths}), {returned} results"
    );
    assert!(queries >= 130, "{queries}");
    assert!(source_recall >= 0.95, "{source_recall}");
    assert!(recall >= 0.95, "{recall}");
}

#[test]
fn an_index_without_sets_flags_its_containment_estimates_with_their_error() {
    // A short query against a long document: one shared MinHash value moves the
    // estimate a lot, which its standard error says; the exact index scores it.
    let docs = debian();
    let long = docs.iter().max_by_key(|d| d.text.len()).unwrap();
    let words: Vec<&str> = long.text.split_whitespace().collect();
    let query = words[..words.len().min(40)].join(" ");
    let mut estimated =
        DedupIndex::new(&settings().verifier(ndd_pipeline::Verifier::MethodScore)).unwrap();
    estimated.add(std::slice::from_ref(long)).unwrap();
    let search = ContainmentSearch::new(&estimated, 0.5).unwrap();
    assert!(!search.exact_scores());
    let hits = search.query(&query).unwrap();
    let shingler = WordShingler::new(3).unwrap();
    let truth = containment(
        shingler.feature_set(&query).as_slice(),
        shingler.feature_set(&long.text).as_slice(),
    );
    assert_eq!(truth, 1.0);
    for n in &hits {
        let se = n.std_error.unwrap();
        // The document is about 100 times the query: one MinHash value of 128 moves
        // the estimate by about 0.8, so the error is that large.
        assert!(se > 0.2, "{se}");
    }
    let mut exact = DedupIndex::new(&settings()).unwrap();
    exact.add(std::slice::from_ref(long)).unwrap();
    let search = ContainmentSearch::new(&exact, 0.5).unwrap();
    let hits = search.query(&query).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].score, hits[0].std_error), (1.0, None));
}

/// `index-v1.nddx` was written by `ndd dedup --input index-v1.jsonl --index-out
/// index-v1.nddx --num-perm 32` before set sizes were added (byte-form version 1).
const V1: &[u8] = include_bytes!("../data/index-v1.nddx");

#[test]
fn an_index_of_byte_form_version_1_loads_answers_top_k_and_refuses_containment() {
    assert_eq!(&V1[..6], b"NDDX\x01\x00");
    let index = DedupIndex::from_bytes(V1).unwrap();
    assert_eq!(index.ids(), ["a", "b", "c", "d"]);
    assert_eq!(index.set_sizes(), None);
    let search = NeighbourSearch::new(&index).unwrap();
    let text = "the committee approved the budget for the new library building on monday after a long debate";
    let top = search.top_k(text, 2).unwrap();
    assert_eq!((top[0].doc, top[0].score), (0, 1.0));
    assert!(matches!(
        ContainmentSearch::new(&index, 0.5),
        Err(Error::MissingSetSizes)
    ));
    // A batch added to it keeps it without sizes; it saves in the current version and
    // loads again.
    let mut index = index;
    index
        .add(&[Document::new(
            "e",
            "yet another text about something else entirely",
        )])
        .unwrap();
    assert_eq!(index.set_sizes(), None);
    let bytes = index.to_bytes();
    assert_eq!(&bytes[..6], b"NDDX\x04\x00");
    let again = DedupIndex::from_bytes(&bytes).unwrap();
    assert_eq!(again.set_sizes(), None);
    assert_eq!(again.to_bytes(), bytes);
    // Truncated or flipped version-1 bytes are refused.
    for cut in 0..V1.len() {
        assert!(DedupIndex::from_bytes(&V1[..cut]).is_err(), "cut {cut}");
    }
    for at in (6..V1.len()).step_by(11) {
        let mut b = V1.to_vec();
        b[at] ^= 0x10;
        assert!(DedupIndex::from_bytes(&b).is_err(), "flip at {at}");
    }
}

#[test]
fn set_sizes_round_trip_and_exact_copies_share_their_size() {
    let docs = [
        Document::new("a", "one two three four five six"),
        Document::new("b", "ONE two three four five six!"), // an exact copy of a
        Document::new("c", "seven eight nine"),
        Document::new("d", "ten"),
    ];
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&docs[..2]).unwrap();
    index.add(&docs[2..]).unwrap();
    let shingler = WordShingler::new(3).unwrap();
    let expect: Vec<u64> = docs
        .iter()
        .map(|d| shingler.feature_set(&d.text).len() as u64)
        .collect();
    assert_eq!(index.set_sizes().unwrap(), expect.as_slice());
    let bytes = index.to_bytes();
    let loaded = DedupIndex::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.set_sizes().unwrap(), expect.as_slice());
    for cut in 0..bytes.len() {
        assert!(DedupIndex::from_bytes(&bytes[..cut]).is_err(), "cut {cut}");
    }
}

/// Version-2 bytes written field by field (the layout of `DedupIndex::to_bytes`),
/// around an LSH index whose documents are `keys`.
fn v2_bytes(ids: &[&str], keys: &[u32], sizes: Option<&[u64]>) -> Vec<u8> {
    index_bytes(2, ids, keys, sizes, |_| {})
}

#[test]
fn version_2_bytes_written_by_hand_load_and_inconsistent_ones_are_refused() {
    let ok = DedupIndex::from_bytes(&v2_bytes(&["a", "b"], &[0, 1], Some(&[7, 9]))).unwrap();
    assert_eq!(ok.set_sizes(), Some(&[7u64, 9][..]));
    let search = NeighbourSearch::new(&ok).unwrap();
    assert_eq!(
        search.top_k("text number 1 with a few words", 1).unwrap()[0].doc,
        1
    );
    let none = DedupIndex::from_bytes(&v2_bytes(&["a", "b"], &[0, 1], None)).unwrap();
    assert_eq!(none.set_sizes(), None);
    // An LSH entry for a document the index does not list.
    assert!(DedupIndex::from_bytes(&v2_bytes(&["a", "b"], &[0, 5], Some(&[7, 9]))).is_err());
    // Sizes for another number of documents.
    assert!(DedupIndex::from_bytes(&v2_bytes(&["a", "b"], &[0, 1], Some(&[7]))).is_err());
}

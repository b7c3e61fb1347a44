#![allow(clippy::unwrap_used)]
//! `SegmentedIndex::top_k` and `SegmentedIndex::containment` (one committed segment at
//! a time) against `NeighbourSearch` and `ContainmentSearch` over the whole load of the
//! same folder: the whole load is the oracle.

use ndd_pipeline::{
    ContainmentSearch, Dedup, DedupIndex, Document, Neighbour, NeighbourSearch, SegmentedIndex,
    Verifier,
};

use crate::common::debian;

/// The bundled corpus, with copies: a document of glued words followed by its exact
/// copy (the same digest) with the words apart (a larger shingle set, left out of the
/// LSH index by the exact pass), and 30 identical copies of one document (a hot
/// full-depth match when the exact pass is off).
fn corpus() -> Vec<Document> {
    let mut docs = debian();
    let base = docs[3].text.clone();
    let words: Vec<&str> = base.split_whitespace().take(200).collect();
    docs.insert(100, Document::new("glued", words.concat()));
    docs.insert(101, Document::new("apart", words.join(" ")));
    for i in 0..30 {
        docs.insert(
            200 + i,
            Document::new(format!("hot{i}"), docs[7].text.clone()),
        );
    }
    docs
}

/// Queries: edited copies of indexed documents, their prefixes (contained), the hot
/// document, and a text unlike any.
fn queries(docs: &[Document]) -> Vec<String> {
    let mut q: Vec<String> = (0..docs.len())
        .step_by(23)
        .map(|i| {
            let words: Vec<&str> = docs[i].text.split_whitespace().collect();
            let mut edited: Vec<&str> = words.iter().copied().filter(|w| w.len() != 4).collect();
            edited.push("appended");
            edited.join(" ")
        })
        .collect();
    q.extend((0..docs.len()).step_by(31).map(|i| {
        let words: Vec<&str> = docs[i].text.split_whitespace().collect();
        words[..words.len() / 2].join(" ")
    }));
    q.push(docs[7].text.clone());
    q.push("nothing here resembles any copyright file whatsoever at all".into());
    q
}

/// The corpus and its queries.
fn corpus_and_queries() -> (Vec<Document>, Vec<String>) {
    let docs = corpus();
    let q = queries(&docs);
    (docs, q)
}

/// A folder of `dedup` holding `docs` in three segments; the whole load of it.
fn folder(dedup: &Dedup, docs: &[Document]) -> (tempfile::TempDir, DedupIndex) {
    let dir = tempfile::tempdir().unwrap();
    let mut index = DedupIndex::new(dedup).unwrap();
    let n = docs.len();
    for batch in [&docs[..n / 3], &docs[n / 3..2 * n / 3], &docs[2 * n / 3..]] {
        index.add(batch).unwrap();
        index.save_dir(dir.path()).unwrap();
    }
    let whole = DedupIndex::load_dir(dir.path()).unwrap();
    (dir, whole)
}

/// Settings: default (exact Jaccard from the sets), by the estimate (no sets), and
/// without the exact pass (identical copies in the LSH index).
fn settings() -> [Dedup; 3] {
    [
        Dedup::new(),
        Dedup::new().verifier(Verifier::MethodScore),
        Dedup::new().exact_pass(false),
    ]
}

#[test]
fn top_k_by_segment_equals_the_whole_load() {
    let (docs, queries) = corpus_and_queries();
    let texts: Vec<&str> = queries.iter().map(String::as_str).collect();
    let mut answered = 0;
    let mut hot = 0;
    for (i, dedup) in settings().into_iter().enumerate() {
        let (dir, whole) = folder(&dedup, &docs);
        let mut segmented = SegmentedIndex::open(dir.path()).unwrap();
        // Default; few candidates and a tight work bound (cuts the descent and, with
        // the hot copies, the full depth); another shape.
        let configs: [(Option<usize>, Option<usize>, usize, usize); 3] = [
            (None, None, 4, 10_000),
            (None, None, 1, 5),
            (Some(16), Some(4), 8, 40),
        ];
        for (trees, depth, per_result, bound) in configs {
            let search = NeighbourSearch::builder(&whole)
                .unwrap()
                .shape(trees, depth)
                .unwrap()
                .candidates_per_result(per_result)
                .max_examined(bound);
            let forest = segmented
                .neighbour_search()
                .unwrap()
                .shape(trees, depth)
                .unwrap()
                .candidates_per_result(per_result)
                .max_examined(bound)
                .forest_builder();
            let search = search.build().unwrap();
            for k in [1, 3, 10] {
                let got = segmented.top_k(&forest, &texts, k).unwrap();
                assert_eq!(got.len(), texts.len());
                for (text, got) in texts.iter().zip(&got) {
                    let expected: Vec<Neighbour> = search.top_k(text, k).unwrap();
                    assert_eq!(
                        got, &expected,
                        "{dedup:?} {trees:?} {bound} k {k}: {text:.40}"
                    );
                    answered += usize::from(!got.is_empty());
                }
                // Without the exact pass, the 30 copies match the hot query over the
                // full depth of every tree: more than the bound of 5.
                hot += usize::from(bound == 5 && i == 2);
            }
        }
    }
    assert!(answered > 500, "{answered}");
    assert!(hot > 0);
}

#[test]
fn containment_by_segment_equals_the_whole_load() {
    let (docs, queries) = corpus_and_queries();
    let texts: Vec<&str> = queries.iter().map(String::as_str).collect();
    let mut hits = 0;
    for dedup in settings() {
        let (dir, whole) = folder(&dedup, &docs);
        let mut segmented = SegmentedIndex::open(dir.path()).unwrap();
        for t in [0.5, 0.8, 1.0] {
            for weight in [0.9, 0.5] {
                let search = ContainmentSearch::builder(&whole, t)
                    .unwrap()
                    .false_negative_weight(weight)
                    .unwrap()
                    .build()
                    .unwrap();
                let (params, threshold) = segmented
                    .containment_search(t)
                    .unwrap()
                    .false_negative_weight(weight)
                    .unwrap()
                    .into_params();
                let got = segmented.containment(params, threshold, &texts).unwrap();
                for (text, got) in texts.iter().zip(&got) {
                    assert_eq!(
                        got,
                        &search.query(text).unwrap(),
                        "{dedup:?} t {t} w {weight}"
                    );
                    hits += got.len();
                }
                assert_eq!(
                    segmented.containment_partitions(params),
                    search.ensemble().partitions()
                );
            }
        }
    }
    assert!(hits > 300, "{hits}");
}

/// Documents added after the folder was opened (not saved) are searched too, as the
/// whole load followed by the same `add` searches them.
#[test]
fn searches_by_segment_see_the_documents_added_since_the_save() {
    let (docs, queries) = corpus_and_queries();
    let texts: Vec<&str> = queries.iter().map(String::as_str).collect();
    let n = docs.len();
    let (dir, mut whole) = folder(&Dedup::new(), &docs[..n - 100]);
    whole.add(&docs[n - 100..]).unwrap();
    let mut segmented = SegmentedIndex::open(dir.path()).unwrap();
    segmented.add(&docs[n - 100..]).unwrap();
    let forest = segmented.neighbour_search().unwrap().forest_builder();
    let got = segmented.top_k(&forest, &texts, 5).unwrap();
    let search = NeighbourSearch::new(&whole).unwrap();
    let mut newest = 0;
    for (text, got) in texts.iter().zip(&got) {
        assert_eq!(got, &search.top_k(text, 5).unwrap());
        newest += got.iter().filter(|h| h.doc >= n - 100).count();
    }
    assert!(newest > 0);
    let (params, t) = segmented.containment_search(0.7).unwrap().into_params();
    let got = segmented.containment(params, t, &texts).unwrap();
    let search = ContainmentSearch::new(&whole, 0.7).unwrap();
    for (text, got) in texts.iter().zip(&got) {
        assert_eq!(got, &search.query(text).unwrap());
    }
    assert!(segmented.top_k(&forest, &texts, 0).is_err());
}

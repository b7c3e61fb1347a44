//! Top-k and containment search over a `DedupIndex`, checked against brute force over
//! independently computed signatures and shingle sets; set sizes in the byte form,
//! and indexes of the previous byte form (a golden file) still loading.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::collections::BTreeSet;

use ndd_core::{DocSketcher, FeatureExtractor, Signature, containment};
use ndd_minhash::MinHasher;
use ndd_pipeline::{ContainmentSearch, Dedup, DedupIndex, Document, Error, NeighbourSearch};
use ndd_shingle::WordShingler;

/// The bundled corpus of the repository (562 Debian copyright files).
fn debian() -> Vec<Document> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            Document::new(v["id"].as_str().unwrap(), v["text"].as_str().unwrap())
        })
        .collect()
}

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
        let top = search.top_k(&q.text, k).unwrap();
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
        None => ContainmentSearch::new(&index, t).unwrap(),
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
    assert_eq!(&bytes[..6], b"NDDX\x03\x00");
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
    use ndd_core::codec::ByteWriter;
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .seed(0)
        .build_with(WordShingler::new(3).unwrap())
        .unwrap();
    let mut lsh: ndd_lsh::LshIndex<u32, ndd_minhash::MinHashSignature> =
        ndd_lsh::LshIndex::builder(ndd_lsh::LshParams::new(16, 6).unwrap())
            .keep_signatures(true)
            .build();
    for &k in keys {
        lsh.insert(
            k,
            &hasher.sketch(&format!("text number {k} with a few words")),
        )
        .unwrap();
    }
    let mut w = ByteWriter::new(*b"NDDX", 2);
    w.u64(128); // num_perm
    w.u64(0); // seed
    w.u8(0); // word shingles
    w.u64(3); // of 3 words
    w.f64(0.8); // threshold
    w.u8(0); // no exact pass
    w.u8(0); // no NFKC
    w.u64(ids.len() as u64);
    for id in ids {
        w.bytes(id.as_bytes());
    }
    w.u64_slice(&(0..ids.len() as u64).collect::<Vec<_>>()); // each its own group
    w.u64(0); // no digests
    w.bytes(&lsh.to_bytes());
    match sizes {
        Some(s) => {
            w.u8(1);
            w.u64_slice(s);
        }
        None => w.u8(0),
    }
    w.finish()
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

//! Incremental batches through a saved and reloaded `DedupIndex` equal one run.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ScoredPair;
use ndd_pipeline::{Dedup, DedupIndex, Document, Method, Representative, Verifier};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn corpus(seed: u64) -> Vec<Document> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let words: Vec<String> = (0..3000).map(|i| format!("t{i}q")).collect();
    let mut docs = Vec::new();
    for f in 0..60 {
        let base: Vec<String> = (0..80)
            .map(|_| words[rng.random_range(0..words.len())].clone())
            .collect();
        for v in 0..rng.random_range(1..5) {
            let mut d = base.clone();
            for _ in 0..rng.random_range(0..3) {
                let at = rng.random_range(0..d.len());
                d[at] = words[rng.random_range(0..words.len())].clone();
            }
            let text = if v == 2 {
                d.join(" ").to_uppercase()
            } else {
                d.join(" ")
            };
            docs.push(Document::new(format!("f{f}v{v}"), text));
        }
    }
    // Interleave families so batches cut across them.
    let mut shuffled = Vec::with_capacity(docs.len());
    let mut rest = docs;
    while !rest.is_empty() {
        let i = rng.random_range(0..rest.len());
        shuffled.push(rest.swap_remove(i));
    }
    shuffled
}

fn key(p: &ScoredPair) -> (usize, usize, u64) {
    (p.a, p.b, p.score.to_bits())
}

#[test]
fn batches_through_saved_indexes_equal_one_run() {
    let docs = corpus(5);
    // The index verifies by the estimate: the one-shot run must too.
    let dedup = Dedup::new().threshold(0.7).verifier(Verifier::MethodScore);
    let one = dedup.run(&docs).unwrap();
    assert!(one.groups.len() > 20 && one.report.exact_copies > 0);
    for cuts in [
        vec![docs.len() / 2],
        vec![10, 70, 71, 150],
        vec![0, docs.len()],
    ] {
        let mut index = DedupIndex::new(&dedup).unwrap();
        let mut pairs = Vec::new();
        let mut last = None;
        let mut start = 0;
        for end in cuts.iter().copied().chain([docs.len()]) {
            // Save and reload between every two batches.
            index = DedupIndex::from_bytes(&index.to_bytes()).unwrap();
            let out = index.add(&docs[start..end]).unwrap();
            assert!(out.pairs.iter().all(|p| p.b >= start));
            pairs.extend(out.pairs.iter().map(key));
            last = Some(out);
            start = end;
        }
        pairs.sort_unstable();
        let mut expected: Vec<_> = one.pairs.iter().map(key).collect();
        expected.sort_unstable();
        assert_eq!(pairs, expected, "cuts {cuts:?}");
        let last = last.unwrap();
        assert_eq!(last.groups, one.groups, "cuts {cuts:?}");
        assert_eq!(last.dropped(), one.dropped());
        assert_eq!(index.len(), docs.len());
        assert_eq!(
            index.ids(),
            docs.iter().map(|d| d.id.clone()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn only_the_signature_only_settings_are_supported() {
    assert!(DedupIndex::new(&Dedup::new().method(Method::ExactJaccard)).is_err());
    assert!(DedupIndex::new(&Dedup::new().verifier(Verifier::ExactJaccard)).is_err());
    assert!(DedupIndex::new(&Dedup::new().representative(Representative::Longest)).is_err());
    assert!(DedupIndex::new(&Dedup::new().threshold(2.0)).is_err());
    assert!(DedupIndex::new(&Dedup::new()).is_ok());
}

#[test]
fn corrupt_and_truncated_bytes_are_errors_not_panics() {
    let docs = corpus(6);
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&docs[..40]).unwrap();
    let bytes = index.to_bytes();
    assert!(DedupIndex::from_bytes(&bytes).is_ok());
    for cut in (0..bytes.len()).step_by(7) {
        assert!(
            DedupIndex::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..500 {
        let mut b = bytes.clone();
        let at = rng.random_range(0..b.len());
        b[at] ^= 1 << rng.random_range(0..8);
        assert!(DedupIndex::from_bytes(&b).is_err());
    }
    assert!(DedupIndex::from_bytes(b"").is_err());
    assert!(DedupIndex::from_bytes(&[0xff; 64]).is_err());
}

#[test]
fn save_and_load_through_a_file() {
    let dir = std::env::temp_dir().join(format!("ndd-persist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("index.ndd");
    let docs = corpus(7);
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&docs[..50]).unwrap();
    index.save(&path).unwrap();
    let loaded = DedupIndex::load(&path).unwrap();
    assert_eq!(loaded.to_bytes(), index.to_bytes());
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    assert!(DedupIndex::load(&dir.join("missing.ndd")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_nfkc_setting_is_saved_with_the_index() {
    let dedup = Dedup::new().nfkc(true);
    let mut index = DedupIndex::new(&dedup).unwrap();
    index
        .add(&[Document::new(
            "wide",
            "ｔｈｅ ｂｏａｒｄ ｍｅｅｔｓ ｏｎ ｍｏｎｄａｙ ａｔ ｎｏｏｎ",
        )])
        .unwrap();
    let mut index = DedupIndex::from_bytes(&index.to_bytes()).unwrap();
    // An exact copy under NFKC, and a near copy through the NFKC shingles.
    let out = index
        .add(&[
            Document::new("plain", "the board meets on monday at noon"),
            Document::new("near", "the board meets on monday at noon today"),
        ])
        .unwrap();
    assert_eq!(out.dropped(), vec![1, 2]);
    assert_eq!(out.report.exact_copies, 1);
    // Without NFKC the same batch finds nothing.
    let mut plain = DedupIndex::new(&Dedup::new()).unwrap();
    plain
        .add(&[Document::new(
            "wide",
            "ｔｈｅ ｂｏａｒｄ ｍｅｅｔｓ ｏｎ ｍｏｎｄａｙ ａｔ ｎｏｏｎ",
        )])
        .unwrap();
    let out = plain
        .add(&[Document::new("plain", "the board meets on monday at noon")])
        .unwrap();
    assert!(out.dropped().is_empty());
}

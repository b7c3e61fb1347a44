//! Incremental batches through a saved and reloaded `DedupIndex` equal one run (the
//! in-memory run, which the pipeline's own tests check against brute force): by the
//! estimate, and by exact Jaccard or containment over the shingle sets the index keeps.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::sync::Arc;

use ndd_core::ScoredPair;
use ndd_pipeline::{
    AlignMeasure, Dedup, DedupIndex, Document, Method, Outcome, Representative, SegmentedIndex,
    Verifier,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::{debian, documents, index_bytes};

/// Near-duplicate families: 60 bases of 80 words, each with 1 to 4 variants of up to 2
/// word edits, variant 2 in upper case; interleaved so batches cut across them.
fn corpus(seed: u64) -> Vec<Document> {
    let words: Vec<String> = (0..3000).map(|i| format!("t{i}q")).collect();
    generated(seed, &words, (60, 80), (1..5, 0..3), |v, d| {
        if v == 2 {
            d.join(" ").to_uppercase()
        } else {
            d.join(" ")
        }
    })
}

/// `families` bases of `len` words drawn from `words` with the seed `seed`, each
/// followed by a number of variants drawn from `variants`, each with a number of word
/// edits drawn from `edits`; variant `v` of the edited words `d` is the text
/// `text(v, d)`. Interleaved so batches cut across the families.
fn generated(
    seed: u64,
    words: &[String],
    (families, len): (usize, usize),
    (variants, edits): (std::ops::Range<i32>, std::ops::Range<i32>),
    text: impl Fn(i32, &[String]) -> String,
) -> Vec<Document> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut docs = Vec::new();
    for f in 0..families {
        let base: Vec<String> = (0..len)
            .map(|_| words[rng.random_range(0..words.len())].clone())
            .collect();
        for v in 0..rng.random_range(variants.clone()) {
            let mut d = base.clone();
            for _ in 0..rng.random_range(edits.clone()) {
                let at = rng.random_range(0..d.len());
                d[at] = words[rng.random_range(0..words.len())].clone();
            }
            docs.push(Document::new(format!("f{f}v{v}"), text(v, &d)));
        }
    }
    let mut shuffled = Vec::with_capacity(docs.len());
    while !docs.is_empty() {
        let i = rng.random_range(0..docs.len());
        shuffled.push(docs.swap_remove(i));
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
    let one = check_batches_equal_one_run(
        &dedup,
        &docs,
        &[&[docs.len() / 2], &[10, 70, 71, 150], &[0, docs.len()]],
    );
    assert!(one.groups.len() > 20 && one.report.exact_copies > 0);
}

#[test]
fn the_verifiers_an_index_runs_without_texts_are_supported_and_the_others_refused() {
    assert!(DedupIndex::new(&Dedup::new().method(Method::ExactJaccard)).is_err());
    assert!(DedupIndex::new(&Dedup::new().representative(Representative::Longest)).is_err());
    assert!(DedupIndex::new(&Dedup::new().threshold(2.0)).is_err());
    assert!(DedupIndex::new(&Dedup::new()).is_ok());
    // Exact Jaccard (the default), containment and the estimate; alignment and a
    // user's function need the texts, which the index does not keep.
    for (verifier, name) in [
        (Verifier::ExactJaccard, "jaccard"),
        (Verifier::Containment, "containment"),
        (Verifier::MethodScore, "method"),
    ] {
        let index = DedupIndex::new(&Dedup::new().verifier(verifier)).unwrap();
        assert_eq!(index.settings().verifier_config().name(), name);
    }
    assert_eq!(
        DedupIndex::new(&Dedup::new())
            .unwrap()
            .settings()
            .verifier_config()
            .name(),
        "jaccard"
    );
    for refused in [
        Verifier::Align(AlignMeasure::Combined),
        Verifier::Custom(Arc::new(|_: &str, _: &str| 1.0)),
    ] {
        let err = DedupIndex::new(&Dedup::new().verifier(refused))
            .unwrap_err()
            .to_string();
        assert!(err.contains("texts"), "{err}");
    }
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

/// Near-duplicate families: word edits, an upper-case copy, a full-width copy (the
/// same text under NFKC), a prefix (contained in its base), interleaved.
fn families(seed: u64) -> Vec<Document> {
    let words: Vec<String> = (0..2000).map(|i| format!("w{i}x")).collect();
    generated(seed, &words, (50, 60), (1..6, 0..4), |v, d| match v {
        2 => d.join(" ").to_uppercase(),
        // Full-width forms: NFKC maps them back to ASCII.
        3 => d
            .join(" ")
            .chars()
            .map(|c| match c {
                '!'..='~' => char::from_u32(c as u32 + 0xFEE0).unwrap(),
                c => c,
            })
            .collect(),
        4 => d[..40].join(" "),
        _ => d.join(" "),
    })
}

/// `docs` added in batches ending at `cuts` (then the rest) to a new index of
/// `dedup`, passed through `reload` before every batch; every batch's pairs, the last
/// outcome and the index, which lists every document in order.
fn add_in_batches(
    dedup: &Dedup,
    docs: &[Document],
    cuts: &[usize],
    mut reload: impl FnMut(DedupIndex) -> DedupIndex,
) -> (Vec<ScoredPair>, Outcome, DedupIndex) {
    let mut index = DedupIndex::new(dedup).unwrap();
    let mut pairs = Vec::new();
    let mut last = None;
    let mut start = 0;
    for end in cuts.iter().copied().chain([docs.len()]) {
        index = reload(index);
        let out = index.add(&docs[start..end]).unwrap();
        assert!(out.pairs.iter().all(|p| p.b >= start && p.a < p.b));
        pairs.extend(out.pairs.iter().copied());
        last = Some(out);
        start = end;
    }
    assert_eq!(index.len(), docs.len());
    assert_eq!(
        index.ids(),
        docs.iter().map(|d| d.id.clone()).collect::<Vec<_>>()
    );
    (pairs, last.unwrap(), index)
}

/// `docs` added in batches ending at `cuts` (then the rest) to a new index of
/// `dedup`, saved and loaded between every two batches; every batch's pairs and the
/// last outcome.
fn in_batches(dedup: &Dedup, docs: &[Document], cuts: &[usize]) -> (Vec<ScoredPair>, Outcome) {
    let (pairs, last, _) = add_in_batches(dedup, docs, cuts, |index| {
        DedupIndex::from_bytes(&index.to_bytes()).unwrap()
    });
    (pairs, last)
}

/// Batches cut at each of `cuts` by `batches` give `dedup`'s one run over `docs`: the
/// same pairs with the same scores (to the bit), groups, kept and dropped documents.
/// Returns the one run.
fn check_equal_one_run(
    dedup: &Dedup,
    docs: &[Document],
    cuts: &[&[usize]],
    batches: impl Fn(&[usize]) -> (Vec<ScoredPair>, Outcome),
) -> Outcome {
    let one = dedup.run(docs).unwrap();
    let mut expected: Vec<_> = one.pairs.iter().map(key).collect();
    expected.sort_unstable();
    for cuts in cuts {
        let (pairs, last) = batches(cuts);
        let mut pairs: Vec<_> = pairs.iter().map(key).collect();
        pairs.sort_unstable();
        assert_eq!(pairs, expected, "cuts {cuts:?}");
        assert_eq!(last.groups, one.groups, "cuts {cuts:?}");
        assert_eq!(last.kept(), one.kept(), "cuts {cuts:?}");
        assert_eq!(last.dropped(), one.dropped(), "cuts {cuts:?}");
    }
    one
}

/// Batches through saved indexes give `dedup`'s one run over `docs` (see
/// [`check_equal_one_run`]). Returns the one run.
fn check_batches_equal_one_run(dedup: &Dedup, docs: &[Document], cuts: &[&[usize]]) -> Outcome {
    check_equal_one_run(dedup, docs, cuts, |cuts| in_batches(dedup, docs, cuts))
}

/// Cuts of `n` documents into 2 and into 5 batches.
fn halves_and_fifths(n: usize) -> [Vec<usize>; 2] {
    [vec![n / 2], (1..5).map(|i| i * n / 5).collect()]
}

#[test]
fn at_default_settings_batches_of_the_bundled_corpus_equal_one_run() {
    let docs = debian();
    let dedup = Dedup::new();
    let [two, five] = halves_and_fifths(docs.len());
    let one = check_batches_equal_one_run(&dedup, &docs, &[&two, &five]);
    assert!(
        one.pairs.len() > 50 && one.groups.len() > 20,
        "{}",
        one.pairs.len()
    );
    // Verified by exact Jaccard: scores are set ratios, and some pair falls between
    // what the estimate and the exact measure decide, so the estimate's index differs.
    let estimate = Dedup::new().verifier(Verifier::MethodScore);
    let (by_estimate, _) = in_batches(&estimate, &docs, &two);
    let mut a: Vec<_> = by_estimate.iter().map(|p| (p.a, p.b)).collect();
    let mut b: Vec<_> = one.pairs.iter().map(|p| (p.a, p.b)).collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_ne!(a, b, "the exact and the estimated verification agree here");
}

#[test]
fn batches_of_generated_near_duplicates_equal_one_run_with_and_without_the_exact_pass() {
    let docs = families(11);
    let [two, five] = halves_and_fifths(docs.len());
    let uneven: &[usize] = &[0, 3, 4, 100, docs.len()];
    for dedup in [
        Dedup::new(),
        Dedup::new().exact_pass(false),
        Dedup::new().threshold(0.6),
    ] {
        let one = check_batches_equal_one_run(&dedup, &docs, &[&two, &five, uneven]);
        assert!(
            one.groups.len() >= 20,
            "{dedup:?}: {} groups",
            one.groups.len()
        );
    }
}

#[test]
fn batches_with_nfkc_equal_one_run_and_find_the_full_width_copies() {
    let docs = families(12);
    let [two, five] = halves_and_fifths(docs.len());
    let nfkc = check_batches_equal_one_run(&Dedup::new().nfkc(true), &docs, &[&two, &five]);
    let plain = check_batches_equal_one_run(&Dedup::new(), &docs, &[&two, &five]);
    // Full-width copies join their family under NFKC only.
    let wide = docs
        .iter()
        .position(|d| d.id.ends_with("v3"))
        .expect("a full-width copy");
    assert!(nfkc.dropped().len() > plain.dropped().len());
    assert!(nfkc.pairs.iter().any(|p| p.a == wide || p.b == wide));
    assert!(!plain.pairs.iter().any(|p| p.a == wide || p.b == wide));
}

#[test]
fn batches_verified_by_containment_equal_one_run_and_find_the_prefixes() {
    let docs = families(13);
    let [two, five] = halves_and_fifths(docs.len());
    let contained = Dedup::new().verifier(Verifier::Containment);
    let one = check_batches_equal_one_run(&contained, &docs, &[&two, &five]);
    let by_jaccard = Dedup::new().run(&docs).unwrap();
    // A prefix of 40 of 60 words is contained in its base, at Jaccard about 2/3.
    assert!(one.pairs.len() > by_jaccard.pairs.len());
    let prefix_pair = |p: &ScoredPair| docs[p.a].id.ends_with("v4") || docs[p.b].id.ends_with("v4");
    assert!(one.pairs.iter().any(|p| prefix_pair(p) && p.score >= 0.8));
    let from_bytes = DedupIndex::from_bytes(
        &{
            let mut ix = DedupIndex::new(&contained).unwrap();
            ix.add(&docs[..10]).unwrap();
            ix
        }
        .to_bytes(),
    )
    .unwrap();
    assert_eq!(
        from_bytes.settings().verifier_config().name(),
        "containment"
    );
}

/// `index-v2.nddx` was written by `ndd dedup --input index-v1.jsonl --index-out
/// index-v2.nddx --num-perm 32` at commit 365843d (byte-form version 2: set sizes, no
/// shingle sets).
const V2: &[u8] = include_bytes!("../data/index-v2.nddx");

#[test]
fn an_index_of_byte_form_version_2_loads_and_verifies_by_the_estimate() {
    assert_eq!(&V2[..6], b"NDDX\x02\x00");
    let mut index = DedupIndex::from_bytes(V2).unwrap();
    assert_eq!(index.ids(), ["a", "b", "c", "d"]);
    assert_eq!(index.set_sizes().map(<[u64]>::len), Some(4));
    // It says it verifies by the estimate, and a batch added to it equals one run of
    // those settings over every document.
    let settings = index.settings();
    assert_eq!(settings.verifier_config().name(), "method");
    later_batch_equals_one_run(&mut index, &documents("tests/data/index-v1.jsonl"));
    // Saved again in the current version, still without sets.
    let bytes = index.to_bytes();
    assert_eq!(&bytes[..6], b"NDDX\x04\x00");
    let again = DedupIndex::from_bytes(&bytes).unwrap();
    assert_eq!(again.settings().verifier_config().name(), "method");
    assert_eq!(again.to_bytes(), bytes);
    for cut in 0..V2.len() {
        assert!(DedupIndex::from_bytes(&V2[..cut]).is_err(), "cut {cut}");
    }
}

/// Version-3 bytes written field by field (the layout of `DedupIndex::to_bytes`) for
/// two documents, both in the LSH index with `sizes`, followed by `tail` (the
/// verifier and the sets).
fn v3_bytes(sizes: Option<&[u64]>, tail: impl FnOnce(&mut ndd_core::codec::ByteWriter)) -> Vec<u8> {
    index_bytes(3, &["a", "b"], &[0, 1], sizes, tail)
}

#[test]
fn version_3_sets_that_do_not_fit_are_refused_not_a_panic() {
    let sets = |verifier: u8, values: &'static [u64]| {
        move |w: &mut ndd_core::codec::ByteWriter| {
            w.u8(verifier);
            w.u64_slice(values);
        }
    };
    // Consistent: sizes 2 and 1, sets [1, 5] and [3].
    let ok = DedupIndex::from_bytes(&v3_bytes(Some(&[2, 1]), sets(1, &[1, 5, 3]))).unwrap();
    assert_eq!(ok.settings().verifier_config().name(), "jaccard");
    let ok = DedupIndex::from_bytes(&v3_bytes(Some(&[2, 1]), sets(2, &[1, 5, 3]))).unwrap();
    assert_eq!(ok.settings().verifier_config().name(), "containment");
    let method = DedupIndex::from_bytes(&v3_bytes(Some(&[2, 1]), |w| w.u8(0))).unwrap();
    assert_eq!(method.settings().verifier_config().name(), "method");
    for (what, bytes) in [
        ("unsorted", v3_bytes(Some(&[2, 1]), sets(1, &[5, 1, 3]))),
        ("repeated", v3_bytes(Some(&[2, 1]), sets(1, &[5, 5, 3]))),
        ("too short", v3_bytes(Some(&[2, 1]), sets(1, &[1, 5]))),
        ("too long", v3_bytes(Some(&[2, 1]), sets(1, &[1, 5, 3, 4]))),
        (
            "huge size",
            v3_bytes(Some(&[u64::MAX, 1]), sets(1, &[1, 5, 3])),
        ),
        ("no sizes", v3_bytes(None, sets(1, &[1, 5, 3]))),
        (
            "unknown verifier",
            v3_bytes(Some(&[2, 1]), sets(3, &[1, 5, 3])),
        ),
        ("no verifier", v3_bytes(Some(&[2, 1]), |_| {})),
        (
            "sets with the estimate",
            v3_bytes(Some(&[2, 1]), sets(0, &[1, 5, 3])),
        ),
    ] {
        assert!(DedupIndex::from_bytes(&bytes).is_err(), "{what}");
    }
    // Any cut or flipped bit of a real index with sets, saved in the current version
    // (4; a real version-3 one: `index-v3.nddx`).
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&families(14)[..30]).unwrap();
    let bytes = index.to_bytes();
    assert_eq!(&bytes[..6], b"NDDX\x04\x00");
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..300 {
        let cut = rng.random_range(0..bytes.len());
        assert!(DedupIndex::from_bytes(&bytes[..cut]).is_err(), "cut {cut}");
        let mut b = bytes.clone();
        b[cut] ^= 1 << rng.random_range(0..8);
        assert!(DedupIndex::from_bytes(&b).is_err(), "flip at {cut}");
    }
}

// The folder form: a manifest and one segment per save.

/// `docs` added in batches ending at `cuts` (then the rest), the index saved to the
/// folder `dir` and loaded from it between every two batches; every batch's pairs and
/// the last outcome. Each load equals the index that was saved.
fn in_folder_batches(
    dedup: &Dedup,
    docs: &[Document],
    cuts: &[usize],
    dir: &std::path::Path,
) -> (Vec<ScoredPair>, Outcome) {
    let (pairs, last, mut index) = add_in_batches(dedup, docs, cuts, |mut index| {
        index.save_dir(dir).unwrap();
        let saved = index.to_bytes();
        let index = DedupIndex::load_dir(dir).unwrap();
        assert_eq!(index.to_bytes(), saved, "the folder loads as saved");
        index
    });
    index.save_dir(dir).unwrap();
    assert_eq!(DedupIndex::load(dir).unwrap().to_bytes(), index.to_bytes());
    (pairs, last)
}

/// Batches through a folder give `dedup`'s one run over `docs`: the same pairs and
/// scores, groups, kept and dropped documents.
fn check_folder_batches_equal_one_run(dedup: &Dedup, docs: &[Document], cuts: &[&[usize]]) {
    check_equal_one_run(dedup, docs, cuts, |cuts| {
        let dir = tempfile::tempdir().unwrap();
        in_folder_batches(dedup, docs, cuts, dir.path())
    });
}

#[test]
fn batches_through_a_folder_index_equal_one_run() {
    let docs = debian();
    let [two, five] = halves_and_fifths(docs.len());
    check_folder_batches_equal_one_run(&Dedup::new(), &docs, &[&two, &five]);
    let docs = families(11);
    let [two, five] = halves_and_fifths(docs.len());
    for dedup in folder_settings() {
        check_folder_batches_equal_one_run(&dedup, &docs, &[&two, &five]);
    }
}

/// The settings folder batches are checked under besides the defaults: NFKC,
/// containment, the estimate without the exact pass.
fn folder_settings() -> [Dedup; 3] {
    [
        Dedup::new().threshold(0.7).nfkc(true),
        Dedup::new().threshold(0.6).verifier(Verifier::Containment),
        Dedup::new()
            .threshold(0.7)
            .verifier(Verifier::MethodScore)
            .exact_pass(false),
    ]
}

/// The segment files of `dir`, sorted, with their bytes and modification times.
fn segments(dir: &std::path::Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with("segment-"))
        .map(|e| {
            let meta = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
                meta.modified().unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn appending_a_batch_writes_that_batch_and_leaves_the_earlier_segments_alone() {
    let docs = debian();
    let fifth = docs.len() / 5;
    let dir = tempfile::tempdir().unwrap();
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&docs[..fifth]).unwrap();
    index.save_dir(dir.path()).unwrap();
    let first = segments(dir.path());
    assert_eq!(first.len(), 1);
    // Modification times have a coarse grain on some file systems.
    std::thread::sleep(std::time::Duration::from_millis(20));

    let mut index = DedupIndex::load_dir(dir.path()).unwrap();
    index.add(&docs[fifth..2 * fifth]).unwrap();
    index.save_dir(dir.path()).unwrap();
    let second = segments(dir.path());
    assert_eq!(second.len(), 2);
    assert_eq!(second[0], first[0], "segment 1's name, bytes and mtime");
    // The second segment holds about one batch, not two: well under 1.5 times the
    // first (the batches are the same size), and the whole single-file form is larger.
    let (one, two) = (first[0].1.len(), second[1].1.len());
    assert!(two * 2 < one * 3, "segment 2 {two} bytes, segment 1 {one}");
    assert!(index.to_bytes().len() > two * 3 / 2);
    // Saving again without a new batch writes nothing.
    index.save_dir(dir.path()).unwrap();
    assert_eq!(segments(dir.path()), second);
}

/// A folder with batches `a` and `b` added and saved one after the other; the bytes
/// of the index after each save and the folder's manifest after the first.
fn two_saves(a: &[Document], b: &[Document], dir: &std::path::Path) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(a).unwrap();
    index.save_dir(dir).unwrap();
    let before = index.to_bytes();
    let manifest = std::fs::read(dir.join("MANIFEST")).unwrap();
    index.add(b).unwrap();
    index.save_dir(dir).unwrap();
    (before, index.to_bytes(), manifest)
}

#[test]
fn a_crash_before_the_manifest_is_replaced_loads_as_the_state_before() {
    let docs = debian();
    let (a, b, c) = (&docs[..200], &docs[200..400], &docs[400..]);
    let dir = tempfile::tempdir().unwrap();
    let (before, after, manifest) = two_saves(a, b, dir.path());
    assert_ne!(before, after);
    // The crash: segment 2 written, the manifest not replaced (a manifest half
    // written beside it too).
    std::fs::write(dir.path().join("MANIFEST"), &manifest).unwrap();
    std::fs::write(
        dir.path().join("MANIFEST.tmp"),
        &manifest[..manifest.len() / 2],
    )
    .unwrap();
    let mut index = DedupIndex::load_dir(dir.path()).unwrap();
    assert_eq!(index.to_bytes(), before);
    // The same with segment 2 cut short.
    let seg2 = dir.path().join("segment-00000002.ndds");
    let len = std::fs::metadata(&seg2).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&seg2)
        .unwrap()
        .set_len(len / 3)
        .unwrap();
    assert_eq!(DedupIndex::load_dir(dir.path()).unwrap().to_bytes(), before);
    // The next writer removes the leftovers and appends its own batch.
    index.add(c).unwrap();
    index.save_dir(dir.path()).unwrap();
    assert!(!dir.path().join("MANIFEST.tmp").exists());
    let names: Vec<String> = segments(dir.path()).into_iter().map(|s| s.0).collect();
    assert_eq!(names, ["segment-00000001.ndds", "segment-00000002.ndds"]);
    assert_eq!(
        DedupIndex::load_dir(dir.path()).unwrap().to_bytes(),
        index.to_bytes()
    );
    assert_eq!(index.ids().len(), a.len() + c.len());

    // A segment the manifest lists that was changed afterwards is an error, not a
    // different index.
    let seg1 = dir.path().join("segment-00000001.ndds");
    let mut bytes = std::fs::read(&seg1).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&seg1, &bytes).unwrap();
    let e = DedupIndex::load_dir(dir.path()).unwrap_err().to_string();
    assert!(e.contains("differs from the manifest"), "{e}");
}

#[test]
fn a_second_writer_is_refused_rather_than_losing_a_batch() {
    let docs = debian();
    let dir = tempfile::tempdir().unwrap();
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&docs[..100]).unwrap();
    index.save_dir(dir.path()).unwrap();
    let mut one = DedupIndex::load_dir(dir.path()).unwrap();
    let mut two = DedupIndex::load_dir(dir.path()).unwrap();
    one.add(&docs[100..200]).unwrap();
    two.add(&docs[200..300]).unwrap();
    one.save_dir(dir.path()).unwrap();
    let e = two.save_dir(dir.path()).unwrap_err().to_string();
    assert!(e.contains("another writer added to this index"), "{e}");
    assert_eq!(
        DedupIndex::load_dir(dir.path()).unwrap().to_bytes(),
        one.to_bytes()
    );
    // A writer at work holds the lock: the next one is refused while it does.
    std::fs::write(dir.path().join("WRITER-LOCK"), "12345\n").unwrap();
    one.add(&docs[300..310]).unwrap();
    let e = one.save_dir(dir.path()).unwrap_err().to_string();
    assert!(e.contains("another writer (process 12345)"), "{e}");
    // Another index is not saved into a folder that holds one.
    std::fs::remove_file(dir.path().join("WRITER-LOCK")).unwrap();
    let mut other = DedupIndex::new(&Dedup::new()).unwrap();
    let e = other.save_dir(dir.path()).unwrap_err().to_string();
    assert!(e.contains("holds another index"), "{e}");
    // The refused saves changed nothing.
    assert_eq!(DedupIndex::load_dir(dir.path()).unwrap().len(), 200);
}

#[test]
fn a_single_file_index_loads_and_moves_to_a_folder() {
    let docs = debian();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("old.ndd");
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&docs[..300]).unwrap();
    index.save(&file).unwrap();
    let mut loaded = DedupIndex::load(&file).unwrap();
    let folder = dir.path().join("index");
    loaded.save_dir(&folder).unwrap();
    assert_eq!(
        DedupIndex::load(&folder).unwrap().to_bytes(),
        index.to_bytes()
    );
    assert!(DedupIndex::load_dir(&file).is_err());
    assert!(
        DedupIndex::load_dir(dir.path()).is_err(),
        "a folder without a manifest"
    );
}

// Byte-form version 4 and version-2 segments: the compact record, which stores no
// signature when the index keeps shingle sets.

/// `index-v3.nddx` was written by `ndd dedup --input index-v1.jsonl --index-out
/// index-v3.nddx --num-perm 32` at commit 3b82114 (byte-form version 3: shingle sets,
/// exact Jaccard, every signature in the LSH index's byte form).
const V3: &[u8] = include_bytes!("../data/index-v3.nddx");

/// A batch added to the fixtures of `index-v1.jsonl`: a near copy of `a` and a
/// document of its own.
fn later_batch() -> [Document; 2] {
    [
        Document::new(
            "e",
            "the committee approved the budget for the new library building on monday after a long debate today",
        ),
        Document::new("f", "something else entirely about the weather"),
    ]
}

/// Adds [`later_batch`] to `index`, which holds the documents `earlier`: its pairs are
/// the new pairs of one run of the index's settings over every document (there are
/// some), its groups the run's.
fn later_batch_equals_one_run(index: &mut DedupIndex, earlier: &[Document]) {
    let settings = index.settings();
    let batch = later_batch();
    let out = index.add(&batch).unwrap();
    let all: Vec<Document> = earlier.iter().chain(&batch).cloned().collect();
    let one = settings.run(&all).unwrap();
    let new_pairs: Vec<_> = one.pairs.iter().filter(|p| p.b >= 4).map(key).collect();
    assert_eq!(out.pairs.iter().map(key).collect::<Vec<_>>(), new_pairs);
    assert!(!new_pairs.is_empty());
    assert_eq!(out.groups, one.groups);
}

#[test]
fn an_index_of_byte_form_version_3_loads_adds_and_saves_without_signatures() {
    assert_eq!(&V3[..6], b"NDDX\x03\x00");
    let mut index = DedupIndex::from_bytes(V3).unwrap();
    assert_eq!(index.ids(), ["a", "b", "c", "d"]);
    let settings = index.settings();
    assert_eq!(settings.verifier_config().name(), "jaccard");
    // Today's code indexing the same documents gives the same index.
    let earlier = documents("tests/data/index-v1.jsonl");
    let mut fresh = DedupIndex::new(&settings).unwrap();
    fresh.add(&earlier).unwrap();
    assert_eq!(index.to_bytes(), fresh.to_bytes());
    // Version 4 holds no signature: the three sketched documents' 32 values (b is an
    // exact copy of a) are gone, 768 bytes.
    let v4 = index.to_bytes();
    assert_eq!(&v4[..6], b"NDDX\x04\x00");
    assert!(
        v4.len() + 3 * 32 * 8 <= V3.len(),
        "{} and {}",
        v4.len(),
        V3.len()
    );
    later_batch_equals_one_run(&mut index, &earlier);
    let bytes = index.to_bytes();
    let again = DedupIndex::from_bytes(&bytes).unwrap();
    assert_eq!(again.to_bytes(), bytes);
    for cut in 0..V3.len() {
        assert!(DedupIndex::from_bytes(&V3[..cut]).is_err(), "cut {cut}");
    }
}

/// `index-v3-folder` was written by the same `ndd` (commit 3b82114): the first two
/// lines of `index-v1.jsonl` with `--index-out index-v3-folder/ --num-perm 32`, the
/// last two with `--index-in index-v3-folder --add`: two segments of version 1.
#[test]
fn a_folder_of_version_1_segments_loads_and_appends_a_version_2_segment() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/index-v3-folder");
    for name in ["MANIFEST", "segment-00000001.ndds", "segment-00000002.ndds"] {
        std::fs::copy(fixture.join(name), dir.path().join(name)).unwrap();
    }
    let old = segments(dir.path());
    assert_eq!(old.len(), 2);
    assert!(old.iter().all(|s| s.1.starts_with(b"NDDS\x01\x00")));
    let mut index = DedupIndex::load_dir(dir.path()).unwrap();
    // The same documents and settings as `index-v3.nddx`.
    assert_eq!(
        index.to_bytes(),
        DedupIndex::from_bytes(V3).unwrap().to_bytes()
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    index.add(&later_batch()).unwrap();
    index.save_dir(dir.path()).unwrap();
    let now = segments(dir.path());
    assert_eq!(now.len(), 3);
    assert_eq!(
        now[..2],
        old[..],
        "the version-1 segments' names, bytes and mtimes"
    );
    assert!(now[2].1.starts_with(b"NDDS\x02\x00"));
    let loaded = DedupIndex::load_dir(dir.path()).unwrap();
    assert_eq!(loaded.to_bytes(), index.to_bytes());
    let mut from_file = DedupIndex::from_bytes(V3).unwrap();
    from_file.add(&later_batch()).unwrap();
    assert_eq!(loaded.to_bytes(), from_file.to_bytes());
}

#[test]
fn a_set_that_does_not_give_its_saved_signature_is_refused() {
    let mut index = DedupIndex::new(&Dedup::new()).unwrap();
    index.add(&families(3)[..12]).unwrap();
    let bytes = index.to_bytes();
    // The check value of the signatures is the last 8 bytes before the checksum.
    let at = bytes.len() - 16;
    let mut body = bytes[..bytes.len() - 8].to_vec();
    body[at] ^= 1;
    let check = ndd_core::hash::stable_hash64(&body, 0);
    body.extend_from_slice(&check.to_le_bytes());
    let err = DedupIndex::from_bytes(&body).unwrap_err().to_string();
    assert!(err.contains("signatures"), "{err}");
    assert!(DedupIndex::from_bytes(&bytes).is_ok());
}

// Reading a folder one segment at a time (`SegmentedIndex`) against the whole load.

/// What must not differ between the whole load and the segmented one: pairs and
/// scores (to the bit), groups, kept and dropped documents, candidates, verified
/// pairs and the bucket reads the bound cut.
fn facts(out: &Outcome) -> impl PartialEq + std::fmt::Debug {
    let mut pairs: Vec<_> = out.pairs.iter().map(key).collect();
    pairs.sort_unstable();
    (
        pairs,
        format!("{:?}", out.groups),
        out.kept(),
        out.dropped(),
        out.report.candidates,
        (out.report.verify.checked, out.report.verify.accepted),
        out.report.bucket_scan,
    )
}

/// `docs` added in batches ending at `cuts` (then the rest) to two folders: one by
/// the whole load (`DedupIndex::load_dir`, `add`, `save_dir`), one by the segmented
/// index (`open`, `add`, `save`), both with the bucket-scan bound `scan`. Every
/// batch's outcome and the segment it writes are the same. Returns the pairs found.
fn check_segmented_equals_whole(
    dedup: &Dedup,
    docs: &[Document],
    cuts: &[usize],
    scan: Option<usize>,
) -> (usize, u64) {
    let (whole, by_segment) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut first = DedupIndex::new(dedup).unwrap();
    first.save_dir(whole.path()).unwrap();
    let mut first = DedupIndex::new(dedup).unwrap();
    first.save_dir(by_segment.path()).unwrap();
    let mut start = 0;
    let (mut found, mut cut_reads) = (0, 0);
    for end in cuts.iter().copied().chain([docs.len()]) {
        let batch = &docs[start..end];
        let mut a = DedupIndex::load_dir(whole.path()).unwrap();
        a.set_max_bucket_scan(scan);
        let expected = a.add(batch).unwrap();
        a.save_dir(whole.path()).unwrap();
        let mut b = SegmentedIndex::open(by_segment.path()).unwrap();
        b.set_max_bucket_scan(scan);
        let got = b.add(batch).unwrap();
        b.save().unwrap();
        assert_eq!(facts(&got), facts(&expected), "batch ending at {end}");
        assert_eq!(b.ids(), a.ids());
        found += got.pairs.len();
        cut_reads += got.report.bucket_scan.map_or(0, |b| b.cut_reads);
        start = end;
    }
    let files = |d: &std::path::Path| -> Vec<(String, Vec<u8>)> {
        segments(d).into_iter().map(|(n, b, _)| (n, b)).collect()
    };
    assert_eq!(files(by_segment.path()), files(whole.path()));
    (found, cut_reads)
}

#[test]
fn a_segmented_index_gives_the_whole_loads_batches_and_segments() {
    let docs = debian();
    let [two, five] = halves_and_fifths(docs.len());
    for cuts in [&two, &five] {
        let (pairs, _) = check_segmented_equals_whole(&Dedup::new(), &docs, cuts, None);
        assert!(pairs > 50, "{pairs}");
    }
    let docs = families(11);
    let [two, five] = halves_and_fifths(docs.len());
    for dedup in folder_settings() {
        for cuts in [&two, &five] {
            let (pairs, _) = check_segmented_equals_whole(&dedup, &docs, cuts, None);
            assert!(pairs > 20, "{dedup:?}: {pairs}");
        }
    }
}

/// A hot bucket cut by a small bound across segments: each document's budget is
/// spent from the newest part to the oldest, as the whole index's walk spends it.
#[test]
fn a_segmented_index_cuts_hot_buckets_where_the_whole_load_does() {
    // Near-identical comments, a number apart: one hot bucket per band.
    let comment = "please keep the old library open on sundays for the students of the town";
    let docs: Vec<Document> = (0..120)
        .map(|i| Document::new(format!("c{i}"), format!("{comment}, signed {i}")))
        .collect();
    let dedup = Dedup::new().threshold(0.7);
    for scan in [Some(3), Some(40)] {
        let (pairs, cut_reads) =
            check_segmented_equals_whole(&dedup, &docs, &[30, 55, 60, 100], scan);
        assert!(pairs > 100, "{pairs}");
        if scan == Some(3) {
            // The compared batches themselves were cut by the bound.
            assert!(cut_reads > 0, "no cut under bound 3");
        }
    }
    // The bound cut reads in the last batch: the comparison covered cuts.
    let dir = tempfile::tempdir().unwrap();
    let mut index = DedupIndex::new(&dedup).unwrap();
    index.add(&docs[..100]).unwrap();
    index.save_dir(dir.path()).unwrap();
    let mut index = SegmentedIndex::open(dir.path()).unwrap();
    index.set_max_bucket_scan(Some(3));
    let out = index.add(&docs[100..]).unwrap();
    assert!(out.report.bucket_scan.unwrap().cut_reads > 0);
}

/// Two batches before a save: the second meets the first in memory, the earlier
/// ones in the segments.
#[test]
fn a_segmented_index_takes_several_batches_before_a_save() {
    let docs = families(7);
    let dedup = Dedup::new().threshold(0.7);
    let dir = tempfile::tempdir().unwrap();
    let third = docs.len() / 3;
    let mut index = DedupIndex::new(&dedup).unwrap();
    index.add(&docs[..third]).unwrap();
    index.save_dir(dir.path()).unwrap();
    let mut whole = DedupIndex::load_dir(dir.path()).unwrap();
    let mut segmented = SegmentedIndex::open(dir.path()).unwrap();
    for batch in [&docs[third..2 * third], &docs[2 * third..]] {
        let expected = whole.add(batch).unwrap();
        let got = segmented.add(batch).unwrap();
        assert_eq!(facts(&got), facts(&expected));
        assert!(
            !got.pairs.is_empty(),
            "a batch with no pairs compares nothing"
        );
    }
    segmented.save().unwrap();
    assert_eq!(
        DedupIndex::load_dir(dir.path()).unwrap().to_bytes(),
        whole.to_bytes()
    );
}

#[test]
fn a_folder_of_version_1_segments_is_refused_by_the_segmented_index() {
    let dir = tempfile::tempdir().unwrap();
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/index-v3-folder");
    for name in ["MANIFEST", "segment-00000001.ndds", "segment-00000002.ndds"] {
        std::fs::copy(from.join(name), dir.path().join(name)).unwrap();
    }
    let e = SegmentedIndex::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("version 1"), "{e}");
    assert_eq!(DedupIndex::load_dir(dir.path()).unwrap().len(), 4);
}

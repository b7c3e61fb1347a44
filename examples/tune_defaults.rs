//! Which shingle size, weighting and signature length should each method default to?
//! Max F1 (`near_dup::eval::max_f1`, every pair of a labeled set scored) on labeled sets
//! generated from real text, with hard negatives.
//!
//! Every set is built the same way from one real source:
//!
//! 1. base texts: real documents of the source within a word-count range, exact
//!    copies removed, shuffled with the seed, and greedily thinned so that no two
//!    bases share 50% or more of their word 3-grams (real near-duplicates among the
//!    bases would be labeled as different documents);
//! 2. hard negatives: one sibling (`near_dup::eval::generate_siblings`: one clause, one name,
//!    one number changed, or one paragraph of 3–8 words added) of half of the bases,
//!    each a base of its own (a different document);
//! 3. positives: `generate_corpus` with 4 variants of every base and sibling (every
//!    edit kind of `near_dup::eval::EditKind`, equal weights).
//!
//! Every pair of documents with a score above 0 enters the sweep (a pair scored 0 is
//! never predicted at any threshold above 0). Each cell shows Max F1 on the whole set,
//! then in parentheses on the same set without the sibling clusters (no hard
//! negatives).
//!
//! ```text
//! cargo run --release --example tune_defaults -- [--bench data/corpus.jsonl] [--bases 200] [--seed 1]
//! ```
//!
//! `--bench` is the corpus of `shared/bench/make_corpus.py` (Debian package descriptions
//! and ScanCode license texts): it adds a license set and a description set. The
//! bundled `data/debian-copyright.jsonl` always gives a third set.

use std::time::Instant;

use near_dup::imatch::{IMatcher, Lexicon, unigram_extractor};
use near_dup::minhash::MinHasher;
use near_dup::shingle::{CharShingler, WordShingler};
use near_dup::simhash::{SimHashSignature, SimHasher, Weighting};
use near_dup::stats::DocumentFrequencies;
use near_dup::{DocSketcher, FeatureExtractor, FeatureSet, Signature};

#[path = "labeled/mod.rs"]
mod labeled;

use labeled::{LabeledSet, Res, cell, row, score};

fn minhash<E: FeatureExtractor>(set: &LabeledSet, e: E) -> Res<(f64, f64, f64)> {
    let h = MinHasher::builder().num_hashes(128).build_with(e)?;
    let sigs = h.sketch_batch(&set.texts);
    score(set, |a, b| {
        sigs[a].similarity(&sigs[b]).map_or(0.0, |e| e.value())
    })
}

fn exact(set: &LabeledSet, k: usize) -> Res<(f64, f64, f64)> {
    let e = WordShingler::new(k)?;
    let sets: Vec<FeatureSet> = set.texts.iter().map(|t| e.feature_set(t)).collect();
    score(set, |a, b| {
        near_dup::jaccard(sets[a].as_slice(), sets[b].as_slice())
    })
}

#[derive(Clone, Copy)]
enum W {
    Binary,
    Tf,
    TfIdf,
}

fn simhash(set: &LabeledSet, k: usize, bits: usize, w: W) -> Res<(f64, f64, f64)> {
    let e = WordShingler::new(k)?;
    let weighting = match w {
        W::Binary => Weighting::Binary,
        W::Tf => Weighting::TermFrequency,
        W::TfIdf => Weighting::tf_idf(DocumentFrequencies::from_documents(
            &e,
            set.texts.iter().map(String::as_str),
        )),
    };
    let h = SimHasher::builder()
        .bits(bits)
        .weighting(weighting)
        .build_with(e)?;
    let sigs: Vec<SimHashSignature> = h.sketch_batch(&set.texts);
    let m = bits as f64;
    score(set, |a, b| {
        sigs[a]
            .hamming_distance(&sigs[b])
            .map_or(0.0, |d| 1.0 - f64::from(d) / m)
    })
}

fn imatch(set: &LabeledSet, extra: usize) -> Res<((f64, f64, f64), usize)> {
    let words = unigram_extractor();
    let stats = DocumentFrequencies::from_documents(&words, set.texts.iter().map(String::as_str));
    let lex = Lexicon::builder().build(&stats)?;
    let m = IMatcher::builder(lex).extra_lexicons(extra).build()?;
    let sigs = m.sign_batch(&set.texts);
    let signed = sigs.iter().filter(|s| s.is_ok()).count();
    let r = score(set, |a, b| match (&sigs[a], &sigs[b]) {
        (Ok(x), Ok(y)) => x.similarity(y).map_or(0.0, |e| e.value()),
        _ => 0.0,
    })?;
    Ok((r, signed))
}

fn main() -> Res<()> {
    let options = labeled::Options::parse()?;
    let t0 = Instant::now();
    let sets = options.sets()?;
    options.print_max_f1_heading("tune_defaults", &sets);
    let header: Vec<String> = sets.iter().map(|s| s.name.clone()).collect();
    let line = |k: usize| vec!["---"; k + 1].join(" | ");
    // A table's title, its header row and the rule under it.
    let table = |title: &str, first: &str| {
        println!("{title}");
        row(first, &header);
        println!("| {} |", line(header.len()));
    };
    // A row's cells: `f` of every labeled set.
    let cells =
        |f: &dyn Fn(&LabeledSet) -> Res<String>| sets.iter().map(f).collect::<Res<Vec<_>>>();

    table(
        "## Exact Jaccard of word k-gram sets (the ceiling of MinHash)\n",
        "k",
    );
    for k in 1..=6 {
        row(&format!("word {k}"), &cells(&|s| exact(s, k).map(cell))?);
    }

    table(
        "\n## MinHash, one-permutation, 128 values (estimated Jaccard)\n",
        "shingles",
    );
    for k in 1..=6 {
        let cells = cells(&|s| minhash(s, WordShingler::new(k)?).map(cell))?;
        row(&format!("word {k}"), &cells);
    }
    for k in [5, 8] {
        let cells = cells(&|s| minhash(s, CharShingler::new(k)?).map(cell))?;
        row(&format!("char {k}"), &cells);
    }

    table(
        "\n## SimHash (score 1 - Hamming/bits)\n",
        "bits, weights, word k",
    );
    for bits in [64, 128, 256] {
        for (w, wn) in [(W::Binary, "binary"), (W::Tf, "tf"), (W::TfIdf, "tf-idf")] {
            for k in 2..=5 {
                let cells = cells(&|s| simhash(s, k, bits, w).map(cell))?;
                row(&format!("{bits}, {wn}, {k}"), &cells);
            }
        }
    }

    table(
        "\n## I-Match (library defaults: lexicon nidf window, K extra lexicons)\n",
        "K",
    );
    for extra in [0, 5] {
        let cells = cells(&|s| {
            imatch(s, extra)
                .map(|(r, signed)| format!("{} [{signed}/{} signed]", cell(r), s.texts.len()))
        })?;
        row(&format!("{extra}"), &cells);
    }
    println!("\n(total {:.1?})", t0.elapsed());
    Ok(())
}

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

use std::collections::HashSet;
use std::error::Error as StdError;
use std::path::PathBuf;
use std::time::Instant;

use near_dup::eval::{
    Labels, SiblingConfig, SynthConfig, distinct_texts, generate_corpus, generate_siblings, max_f1,
};
use near_dup::imatch::{IMatcher, Lexicon, unigram_extractor};
use near_dup::minhash::MinHasher;
use near_dup::shingle::{CharShingler, WordShingler};
use near_dup::simhash::{SimHashSignature, SimHasher, Weighting};
use near_dup::stats::DocumentFrequencies;
use near_dup::{DocSketcher, FeatureExtractor, FeatureSet, Signature};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

type Res<T> = Result<T, Box<dyn StdError>>;

/// A labeled set: documents, truth, and how many leading documents belong to base
/// (not sibling) clusters.
struct LabeledSet {
    name: String,
    texts: Vec<String>,
    labels: Labels,
    /// Documents `0..plain` are the base texts' clusters; the rest are siblings'.
    plain: usize,
    plain_labels: Labels,
    summary: String,
}

/// Reads `{"id", "text"}` JSON lines.
fn read_jsonl(path: &PathBuf) -> Res<Vec<(String, String)>> {
    let data = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let id = v["id"].as_str().unwrap_or_default().to_string();
        let text = v["text"].as_str().unwrap_or_default().to_string();
        out.push((id, text));
    }
    Ok(out)
}

/// Base texts: word count in `words`, distinct, shuffled, no two sharing >= 50% of
/// their word 3-grams; at most `n`.
fn pick_bases(
    docs: &[(String, String)],
    prefix: &str,
    words: (usize, usize),
    n: usize,
    seed: u64,
) -> Res<Vec<String>> {
    let mut seen = HashSet::new();
    let mut pool: Vec<&str> = docs
        .iter()
        .filter(|(id, _)| id.starts_with(prefix))
        .map(|(_, t)| t.as_str())
        .filter(|t| (words.0..=words.1).contains(&t.split_whitespace().count()))
        .filter(|t| seen.insert(*t))
        .collect();
    pool.sort_unstable();
    pool.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    pool.truncate(4 * n);
    // Real texts that are not near-duplicates of each other.
    Ok(distinct_texts(&pool, &WordShingler::new(3)?, 0.5, n)?)
}

fn build_set(name: &str, bases: Vec<String>, seed: u64, variants: usize) -> Res<LabeledSet> {
    let n = bases.len();
    let sib_cfg = SiblingConfig::new(seed ^ 0x5151);
    let siblings = generate_siblings(&bases[..n / 2], &sib_cfg)?;
    let mut kinds = std::collections::BTreeMap::new();
    for s in &siblings {
        *kinds.entry(s.kind.name()).or_insert(0usize) += 1;
    }
    let mut texts = bases;
    texts.extend(siblings.iter().map(|s| s.text.clone()));
    let corpus = generate_corpus(
        &texts,
        &SynthConfig {
            variants_per_base: variants,
            ..SynthConfig::new(seed)
        },
    )?;
    let sources: Vec<usize> = corpus.docs.iter().map(|d| d.source).collect();
    let plain = sources.iter().take_while(|&&s| s < n).count();
    let plain_labels = Labels::new(&sources[..plain]);
    let per = variants + 1;
    let hard = siblings.len() * per * per;
    let words: usize = corpus
        .docs
        .iter()
        .map(|d| d.text.split_whitespace().count())
        .sum();
    let summary = format!(
        "{name}: {n} real bases, {} siblings ({kinds:?}), {} documents (mean {} words), \
         {} true pairs, {hard} base-sibling (hard negative) pairs among {} pairs",
        siblings.len(),
        corpus.len(),
        words / corpus.len().max(1),
        corpus.labels.true_pairs(),
        corpus.len() * (corpus.len() - 1) / 2,
    );
    Ok(LabeledSet {
        name: name.to_string(),
        texts: corpus.docs.into_iter().map(|d| d.text).collect(),
        labels: corpus.labels,
        plain,
        plain_labels,
        summary,
    })
}

/// Max F1 on the whole set and without the sibling clusters.
fn score(set: &LabeledSet, mut f: impl FnMut(usize, usize) -> f64) -> Res<(f64, f64, f64)> {
    let n = set.texts.len();
    let mut pairs = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            let s = f(a, b);
            if s > 0.0 {
                pairs.push(near_dup::ScoredPair::new(a, b, s));
            }
        }
    }
    let all = max_f1(&pairs, &set.labels)?;
    pairs.retain(|p| p.a < set.plain && p.b < set.plain);
    let plain = max_f1(&pairs, &set.plain_labels)?;
    Ok((all.f1, all.threshold, plain.f1))
}

fn cell((f1, t, plain): (f64, f64, f64)) -> String {
    format!("{f1:.3} @{t:.2} ({plain:.3})")
}

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

fn row(label: &str, cells: &[String]) {
    println!("| {label} | {} |", cells.join(" | "));
}

fn main() -> Res<()> {
    let mut bench: Option<PathBuf> = None;
    let (mut n, mut seed, mut variants) = (200usize, 1u64, 4usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--bench" => bench = Some(PathBuf::from(val()?)),
            "--bases" => n = val()?.parse()?,
            "--seed" => seed = val()?.parse()?,
            "--variants" => variants = val()?.parse()?,
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    let t0 = Instant::now();
    let mut sets = Vec::new();
    if let Some(path) = &bench {
        let docs = read_jsonl(path)?;
        let lic = pick_bases(&docs, "lic:", (40, 2500), n, seed)?;
        sets.push(build_set("licenses", lic, seed, variants)?);
        let deb = pick_bases(&docs, "deb:", (40, 2500), n, seed)?;
        sets.push(build_set("descriptions", deb, seed, variants)?);
    }
    let bundled = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/debian-copyright.jsonl");
    let docs = read_jsonl(&bundled)?;
    let cop = pick_bases(&docs, "", (40, 2500), n, seed)?;
    sets.push(build_set("copyright", cop, seed, variants)?);

    println!("# tune_defaults (seed {seed}, {variants} variants per base)\n");
    for s in &sets {
        println!("- {}", s.summary);
    }
    println!(
        "\nCells: Max F1 @ its threshold on the whole set (Max F1 without the sibling \
         clusters).\n"
    );
    let header: Vec<String> = sets.iter().map(|s| s.name.clone()).collect();
    let line = |k: usize| vec!["---"; k + 1].join(" | ");

    println!("## Exact Jaccard of word k-gram sets (the ceiling of MinHash)\n");
    row("k", &header);
    println!("| {} |", line(header.len()));
    for k in 1..=6 {
        let cells = sets
            .iter()
            .map(|s| exact(s, k).map(cell))
            .collect::<Res<Vec<_>>>()?;
        row(&format!("word {k}"), &cells);
    }

    println!("\n## MinHash, one-permutation, 128 values (estimated Jaccard)\n");
    row("shingles", &header);
    println!("| {} |", line(header.len()));
    for k in 1..=6 {
        let cells = sets
            .iter()
            .map(|s| minhash(s, WordShingler::new(k)?).map(cell))
            .collect::<Res<Vec<_>>>()?;
        row(&format!("word {k}"), &cells);
    }
    for k in [5, 8] {
        let cells = sets
            .iter()
            .map(|s| minhash(s, CharShingler::new(k)?).map(cell))
            .collect::<Res<Vec<_>>>()?;
        row(&format!("char {k}"), &cells);
    }

    println!("\n## SimHash (score 1 - Hamming/bits)\n");
    row("bits, weights, word k", &header);
    println!("| {} |", line(header.len()));
    for bits in [64, 128, 256] {
        for (w, wn) in [(W::Binary, "binary"), (W::Tf, "tf"), (W::TfIdf, "tf-idf")] {
            for k in 2..=5 {
                let cells = sets
                    .iter()
                    .map(|s| simhash(s, k, bits, w).map(cell))
                    .collect::<Res<Vec<_>>>()?;
                row(&format!("{bits}, {wn}, {k}"), &cells);
            }
        }
    }

    println!("\n## I-Match (library defaults: lexicon nidf window, K extra lexicons)\n");
    row("K", &header);
    println!("| {} |", line(header.len()));
    for extra in [0, 5] {
        let cells = sets
            .iter()
            .map(|s| {
                imatch(s, extra)
                    .map(|(r, signed)| format!("{} [{signed}/{} signed]", cell(r), s.texts.len()))
            })
            .collect::<Res<Vec<_>>>()?;
        row(&format!("{extra}"), &cells);
    }
    println!("\n(total {:.1?})", t0.elapsed());
    Ok(())
}

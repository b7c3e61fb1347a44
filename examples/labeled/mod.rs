//! Labeled sets generated from real text, with hard negatives, and Max F1 over every
//! pair: shared by the examples that measure defaults (`tune_defaults`,
//! `align_quality`, `durian`). See `tune_defaults.rs` for how a set is built.
// Each example uses a part of this module.
#![allow(dead_code)]

use std::collections::HashSet;
use std::error::Error as StdError;
use std::path::PathBuf;

use near_dup::eval::{
    Labels, SiblingConfig, SynthConfig, distinct_texts, generate_corpus, generate_siblings, max_f1,
};
use near_dup::shingle::WordShingler;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

pub(crate) type Res<T> = Result<T, Box<dyn StdError>>;

/// A labeled set: documents, truth, and how many leading documents belong to base
/// (not sibling) clusters.
pub(crate) struct LabeledSet {
    pub(crate) name: String,
    pub(crate) texts: Vec<String>,
    pub(crate) labels: Labels,
    /// Documents `0..plain` are the base texts' clusters; the rest are siblings'.
    pub(crate) plain: usize,
    pub(crate) plain_labels: Labels,
    pub(crate) summary: String,
}

/// Reads `{"id", "text"}` JSON lines.
pub(crate) fn read_jsonl(path: &PathBuf) -> Res<Vec<(String, String)>> {
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
pub(crate) fn pick_bases(
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

pub(crate) fn build_set(
    name: &str,
    bases: Vec<String>,
    seed: u64,
    variants: usize,
) -> Res<LabeledSet> {
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
pub(crate) fn score(
    set: &LabeledSet,
    mut f: impl FnMut(usize, usize) -> f64,
) -> Res<(f64, f64, f64)> {
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

pub(crate) fn cell((f1, t, plain): (f64, f64, f64)) -> String {
    format!("{f1:.3} @{t:.2} ({plain:.3})")
}

pub(crate) fn row(label: &str, cells: &[String]) {
    println!("| {label} | {} |", cells.join(" | "));
}

/// The three sets of `tune_defaults`: licenses and descriptions from the bench corpus
/// when `bench` names it, and the bundled copyright files.
pub(crate) fn sets(
    bench: Option<&PathBuf>,
    n: usize,
    seed: u64,
    variants: usize,
) -> Res<Vec<LabeledSet>> {
    let mut sets = Vec::new();
    if let Some(path) = bench {
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
    Ok(sets)
}

/// The examples' options: `--bench PATH`, `--bases N` (200), `--seed S` (1),
/// `--variants V` (4).
pub(crate) struct Options {
    pub(crate) bench: Option<PathBuf>,
    pub(crate) bases: usize,
    pub(crate) seed: u64,
    pub(crate) variants: usize,
}

impl Options {
    /// Parses the command line.
    pub(crate) fn parse() -> Res<Self> {
        let mut o = Options {
            bench: None,
            bases: 200,
            seed: 1,
            variants: 4,
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut val = || args.next().ok_or(format!("{a} needs a value"));
            match a.as_str() {
                "--bench" => o.bench = Some(PathBuf::from(val()?)),
                "--bases" => o.bases = val()?.parse()?,
                "--seed" => o.seed = val()?.parse()?,
                "--variants" => o.variants = val()?.parse()?,
                _ => return Err(format!("unknown argument {a}").into()),
            }
        }
        Ok(o)
    }

    /// The labeled sets these options ask for.
    pub(crate) fn sets(&self) -> Res<Vec<LabeledSet>> {
        sets(self.bench.as_ref(), self.bases, self.seed, self.variants)
    }

    /// Prints the heading of `example`'s Max F1 table over `sets`: the example's name
    /// with the seed and the variants, a line per set, and what a cell holds.
    pub(crate) fn print_max_f1_heading(&self, example: &str, sets: &[LabeledSet]) {
        let (seed, variants) = (self.seed, self.variants);
        println!("# {example} (seed {seed}, {variants} variants per base)\n");
        for s in sets {
            println!("- {}", s.summary);
        }
        println!(
            "\nCells: Max F1 @ its threshold on the whole set (Max F1 without the sibling \
             clusters).\n"
        );
    }
}

//! Grouping on real labels (issue 29): cluster F1 (pairwise precision, recall and F1
//! over the groups, against the labels) of each grouping across thresholds 0.70 to
//! 0.95, on the real labeled sets of `data/labeled/` and on a generated set.
//!
//! Groupings: connected components of the verified pairs (single link), center
//! grouping (`GroupMethod::Center`: the document paired with the most others is kept
//! with its partners, then the next among those left), linkage grouping
//! (`GroupMethod::Linkage`: components through pairs of 0.9 or more, average linkage
//! with fraction 1/8 through the weaker ones), DURIAN at its default θ = 1 and at θ = 0.5, both honouring the
//! threshold (a member leaves its group unless verified similar to the kept document
//! at the threshold), and DURIAN at θ = 1 as it was before (its distance alone
//! decides).
//!
//! Candidates: exact word 1-gram Jaccard (the exact join, the issue's setting), and
//! the tool's defaults (MinHash over word 3-grams, verified by exact Jaccard). Each
//! cell is `F1 (below)`: `below` counts the documents dropped for a kept document
//! whose Jaccard to them (the run's features) is under the threshold, which only a
//! grouping that does not honour the threshold can do (components and linkage, which
//! follow chains).
//!
//! ```text
//! cargo run --release --example grouping -- [--bases N] [--seed S] [--variants V] [--bench PATH]
//! ```
//!
//! The options choose the generated set (`tune_defaults`'s sets: bundled copyright
//! files, plus licenses and descriptions of the bench corpus with `--bench`).

mod labeled;

use std::path::PathBuf;

use labeled::Res;
use near_dup::eval::{Labels, cluster_pairwise};
use near_dup::pipeline::{
    Dedup, Document, DurianGrouping, Features, GroupMethod, Linkage, Method, Outcome, Shingles,
};

/// Thresholds measured.
const THRESHOLDS: [f64; 6] = [0.70, 0.75, 0.80, 0.85, 0.90, 0.95];

/// A labeled set: texts and their true clusters.
struct Set {
    name: String,
    texts: Vec<String>,
    labels: Labels,
}

/// Reads a `{"id","text","label"}` JSONL file of `data/labeled/`.
fn real_set(file: &str) -> Res<Set> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/labeled")
        .join(file);
    let data = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut texts = Vec::new();
    let mut labels = Vec::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let text = v["text"].as_str().ok_or("a record without text")?;
        let label = v["label"].as_str().ok_or("a record without label")?;
        texts.push(text.to_string());
        labels.push(label.to_string());
    }
    Ok(Set {
        name: file.trim_end_matches(".jsonl").to_string(),
        texts,
        labels: Labels::new(&labels),
    })
}

/// The groupings compared, with their column names.
fn groupings() -> Vec<(&'static str, GroupMethod)> {
    vec![
        ("components", GroupMethod::Components),
        ("center", GroupMethod::Center),
        ("linkage", GroupMethod::Linkage(Linkage::new())),
        ("durian", GroupMethod::Durian(DurianGrouping::new())),
        (
            "durian θ0.5",
            GroupMethod::Durian(DurianGrouping::new().theta(0.5)),
        ),
        (
            "durian (old)",
            GroupMethod::Durian(DurianGrouping::new().honour_threshold(false)),
        ),
    ]
}

/// The documents dropped for a kept one whose Jaccard to them (over `features`) is
/// below `t`.
fn below(out: &Outcome, sets: &[Vec<u64>], t: f64) -> usize {
    let jaccard = |a: &[u64], b: &[u64]| {
        let (mut i, mut j, mut shared) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        let union = a.len() + b.len() - shared;
        if union == 0 {
            1.0
        } else {
            shared as f64 / union as f64
        }
    };
    out.groups
        .iter()
        .flat_map(|g| {
            g.members
                .iter()
                .filter(move |&&m| m != g.representative)
                .map(move |&m| (m, g.representative))
        })
        .filter(|&(m, r)| jaccard(&sets[m], &sets[r]) < t)
        .count()
}

/// The feature sets of `texts`, sorted and distinct.
fn feature_sets(texts: &[String], features: Features) -> Res<Vec<Vec<u64>>> {
    let extractor = features.extractor()?;
    Ok(texts
        .iter()
        .map(|t| {
            let mut out: Vec<u64> = Vec::new();
            extractor.extract_dyn(t, &mut out);
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect())
}

/// One table: a row per threshold, a column per grouping.
fn table(set: &Set, candidates: &str, base: &Dedup) -> Res<()> {
    let docs: Vec<Document> = set
        .texts
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(i.to_string(), t.as_str()))
        .collect();
    let sets = feature_sets(&set.texts, base.plan()?.features())?;
    let groupings = groupings();
    println!(
        "\n{} ({} documents, {} clusters, {} true pairs), {candidates}:\n",
        set.name,
        set.texts.len(),
        set.labels.num_clusters(),
        set.labels.true_pairs()
    );
    let names: Vec<&str> = groupings.iter().map(|g| g.0).collect();
    println!("| threshold | {} |", names.join(" | "));
    println!("| ---: |{}", " ---: |".repeat(names.len()));
    let mut best = vec![(0.0f64, 0.0f64); groupings.len()];
    for t in THRESHOLDS {
        let mut cells = Vec::new();
        for (i, (_, g)) in groupings.iter().enumerate() {
            let out = base.clone().threshold(t).group(g.clone()).run(&docs)?;
            let groups: Vec<Vec<usize>> = out.groups.iter().map(|g| g.members.clone()).collect();
            let predicted = Labels::from_groups(docs.len(), &groups)?;
            let f1 = cluster_pairwise(&set.labels, &predicted)?.f1();
            if f1 > best[i].0 {
                best[i] = (f1, t);
            }
            cells.push(format!("{f1:.3} ({})", below(&out, &sets, t)));
        }
        println!("| {t:.2} | {} |", cells.join(" | "));
    }
    let best: Vec<String> = best
        .iter()
        .map(|(f1, t)| format!("**{f1:.3}** @{t:.2}"))
        .collect();
    println!("| best | {} |", best.join(" | "));
    Ok(())
}

fn main() -> Res<()> {
    let options = labeled::Options::parse()?;
    let mut sets = vec![
        real_set("debian-descriptions.jsonl")?,
        real_set("dep5-licenses.jsonl")?,
    ];
    for s in options.sets()? {
        sets.push(Set {
            name: format!("generated {}", s.name),
            texts: s.texts,
            labels: s.labels,
        });
    }
    let exact = Dedup::new()
        .method(Method::ExactJaccard)
        .shingles(Shingles::Words(1));
    for set in &sets {
        table(set, "exact word 1-gram Jaccard", &exact)?;
        table(
            set,
            "the defaults (MinHash, word 3-grams, exact Jaccard verified)",
            &Dedup::new(),
        )?;
    }
    Ok(())
}

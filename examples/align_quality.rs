//! Which alignment-based verifier separates near-duplicates from different documents
//! best, and does it beat set Jaccard? Max F1 (every pair of a labeled set scored) of
//! word-set Jaccard, word 3-gram Jaccard (the pipeline's exact verifier), LCS-Dice,
//! LCS containment and combinations of them ([combined] marks `Measure::Combined`).
//!
//! The labeled sets are those of `tune_defaults` (real base texts, hard-negative
//! siblings that differ in one clause, name, number or short paragraph, and the
//! generator's ten edit kinds as positives); see `tune_defaults.rs`.
//!
//! ```text
//! cargo run --release --example align_quality -- [--bench data/corpus.jsonl] [--bases 200] [--seed 1]
//! ```

use std::time::Instant;

use near_dup::FeatureExtractor;
use near_dup::align::{Aligner, TokenOptions};
use near_dup::eval::max_f1;
use near_dup::shingle::WordShingler;

#[path = "labeled/mod.rs"]
mod labeled;

use labeled::{LabeledSet, Res, cell, row};

/// The measures compared, by name, from (LCS-Dice, LCS containment, word-set Jaccard,
/// word 3-gram Jaccard).
/// A measure's name and how it is computed from a pair's base similarities.
type Measure = (&'static str, fn(&Scores) -> f64);

const MEASURES: [Measure; 13] = [
    ("word-set Jaccard", |s| s.jac1),
    ("word 3-gram Jaccard", |s| s.jac3),
    ("LCS-Dice", |s| s.dice),
    ("LCS containment", |s| s.cont),
    ("mean(Dice, word Jaccard)", |s| (s.dice + s.jac1) / 2.0),
    ("0.75 Dice + 0.25 word Jaccard", |s| {
        0.75 * s.dice + 0.25 * s.jac1
    }),
    ("0.25 Dice + 0.75 word Jaccard", |s| {
        0.25 * s.dice + 0.75 * s.jac1
    }),
    ("min(Dice, word Jaccard)", |s| s.dice.min(s.jac1)),
    ("Dice x word Jaccard", |s| s.dice * s.jac1),
    ("mean(Dice, 3-gram Jaccard)", |s| (s.dice + s.jac3) / 2.0),
    ("0.25 Dice + 0.75 3-gram Jaccard", |s| {
        0.25 * s.dice + 0.75 * s.jac3
    }),
    ("mean(Dice, word Jaccard, 3-gram Jaccard)", |s| {
        (s.dice + s.jac1 + s.jac3) / 3.0
    }),
    ("mean(containment, 3-gram Jaccard) [combined]", |s| {
        (s.cont + s.jac3) / 2.0
    }),
];

/// The base similarities of one pair.
#[derive(Clone, Copy)]
struct Scores {
    dice: f64,
    cont: f64,
    jac1: f64,
    jac3: f64,
}

/// Every pair's scores (pairs sharing no word are left out: every measure is 0).
fn all_scores(set: &LabeledSet) -> Res<Vec<(usize, usize, Scores)>> {
    let o = TokenOptions::default();
    let tokens: Vec<Vec<u64>> = set.texts.iter().map(|t| o.hashes(t)).collect();
    let tri = WordShingler::new(3)?;
    let grams: Vec<_> = set.texts.iter().map(|t| tri.feature_set(t)).collect();
    let n = set.texts.len();
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let mut out: Vec<(usize, usize, Scores)> = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|w| {
                let (tokens, grams) = (&tokens, &grams);
                scope.spawn(move || {
                    let mut al = Aligner::new();
                    let mut part = Vec::new();
                    for a in (w..n).step_by(threads) {
                        for b in a + 1..n {
                            let r = al.lcs(&tokens[a], &tokens[b], 0);
                            if r.distinct_common == 0 {
                                continue;
                            }
                            let lcs = r.lcs.unwrap_or(0) as f64;
                            let (la, lb) = (r.len_a as f64, r.len_b as f64);
                            let scores = Scores {
                                dice: 2.0 * lcs / (la + lb),
                                cont: lcs / la.min(lb).max(1.0),
                                jac1: r.word_jaccard(),
                                jac3: near_dup::jaccard(grams[a].as_slice(), grams[b].as_slice()),
                            };
                            part.push((a, b, scores));
                        }
                    }
                    part
                })
            })
            .collect();
        for h in handles {
            out.extend(h.join().unwrap_or_default());
        }
    });
    Ok(out)
}

fn main() -> Res<()> {
    let options = labeled::Options::parse()?;
    let t0 = Instant::now();
    let sets = options.sets()?;
    options.print_max_f1_heading("align_quality", &sets);
    let mut columns = Vec::new();
    for s in &sets {
        let scores = all_scores(s)?;
        let mut col = Vec::new();
        for (_, f) in MEASURES {
            let mut pairs: Vec<near_dup::ScoredPair> = scores
                .iter()
                .map(|&(a, b, ref sc)| near_dup::ScoredPair::new(a, b, f(sc)))
                .filter(|p| p.score > 0.0)
                .collect();
            let all = max_f1(&pairs, &s.labels)?;
            pairs.retain(|p| p.a < s.plain && p.b < s.plain);
            let plain = max_f1(&pairs, &s.plain_labels)?;
            col.push(cell((all.f1, all.threshold, plain.f1)));
        }
        columns.push(col);
    }
    let header: Vec<String> = sets.iter().map(|s| s.name.clone()).collect();
    row("measure", &header);
    println!("| {} |", vec!["---"; header.len() + 1].join(" | "));
    for (i, (name, _)) in MEASURES.iter().enumerate() {
        let cells: Vec<String> = columns.iter().map(|c| c[i].clone()).collect();
        row(name, &cells);
    }
    println!("\n(total {:.1?})", t0.elapsed());
    Ok(())
}

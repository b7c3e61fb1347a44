//! Which verification measure separates near-duplicates from hard negatives best on
//! **real** labeled sets (labels from provenance, `data/labeled/`), and on the
//! generated sets of `align_quality` for comparison (issue 29).
//!
//! Every measure scores the same candidates, made as the issue's measurement made
//! them: every pair whose exact word 1-gram (token set) Jaccard is at least 0.5, no
//! exact-duplicate pass. For each measure it prints Max F1 over the threshold (with
//! precision, recall and the threshold at the max) and a held-out figure: the clusters
//! are split in two halves by a seeded hash, the threshold is chosen on one half's
//! pairs and F1 is measured at it on the other's (both ways, the mean reported).
//! Recall counts every true pair of the set, also those the candidate rule misses.
//!
//! ```text
//! cargo run --release --example real_labels -- [--data data/labeled] [--seed 29]
//!     [--bench data/corpus.jsonl] [--bases 200] [--variants 4] [--no-generated]
//! ```

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use near_dup::ScoredPair;
use near_dup::align::{Aligner, CorpusWeights, Measure, Prepared, TokenOptions, TokenWeights};
use near_dup::eval::{Labels, evaluate_pairs, max_f1};
use near_dup::hash::mix64;

#[path = "labeled/mod.rs"]
mod labeled;

use labeled::Res;

/// The measures compared, in table order: those of the first measurement (issue 29),
/// then those tried for a measure that beats word-set Jaccard on both real sets
/// (docs/decisions.md, "Looking for a measure that beats word-set Jaccard on both real
/// sets"). `df^-a` weighs a token by its document frequency in the set scored to the
/// power `-a`; BM25 idf is `ln(1 + (N - df + 0.5) / (df + 0.5))`.
const MEASURES: [&str; 53] = [
    "word-set Jaccard",
    "word 3-gram Jaccard",
    "align combined: mean(LCS containment, 3-gram Jaccard)",
    "LCS Dice",
    "LCS containment",
    "max(word-set Jaccard, LCS Dice)",
    "LCS Dice, tokens weighted sqrt(df)",
    "LCS Dice, tokens weighted 1/sqrt(df)",
    "max(word-set Jaccard, sqrt(df) LCS Dice)",
    "max(word-set Jaccard, 1/sqrt(df) LCS Dice)",
    "LCS Dice, tokens weighted ln(1 + N/df)",
    "word-set Jaccard, tokens weighted 1/sqrt(df) (no order)",
    "mean(LCS containment, word-set Jaccard)",
    // The search of issue 29 item 2.
    "LCS Dice, tokens weighted df^-0.25",
    "LCS Dice, tokens weighted df^-0.375",
    "LCS Dice, tokens weighted BM25 idf",
    "LCS containment, tokens weighted 1/sqrt(df)",
    "mean(1/sqrt(df) LCS containment, 3-gram Jaccard)",
    "mean(1/sqrt(df) LCS Dice, 3-gram Jaccard)",
    "word-set Jaccard, tokens weighted df^-0.25",
    "word-set Jaccard, tokens weighted df^-0.375",
    "word-set Jaccard, tokens weighted df^-0.75",
    "word-set Jaccard, tokens weighted 1/df",
    "word-set Jaccard, tokens weighted BM25 idf",
    "word-set Jaccard, tokens weighted 1/sqrt(max(df, 4))",
    "mean(word-set Jaccard, 1/sqrt(df) word-set Jaccard)",
    "max(word-set Jaccard, 1/sqrt(df) word-set Jaccard)",
    "mean(3-gram Jaccard, 1/sqrt(df) word-set Jaccard)",
    "3-gram Jaccard, 3-grams weighted 1/sqrt(df)",
    "3-gram Jaccard, 3-grams weighted df^-0.25",
    "mean(3-gram Jaccard, 1/sqrt(df) 3-gram Jaccard)",
    // Numbers (versions, clause numbers) as names: a token with a digit.
    "word-set Jaccard, number tokens weighted 4",
    "word-set Jaccard, number tokens weighted 16",
    "word-set Jaccard x Jaccard of the number tokens",
    "3-gram Jaccard x Jaccard of the number tokens",
    "1/sqrt(df) word-set Jaccard x Jaccard of the number tokens",
    "1/sqrt(df) LCS Dice x Jaccard of the number tokens",
    "LCS Dice, tokens weighted 1/sqrt(df), number tokens x4",
    "word-set Jaccard, tokens weighted 1/sqrt(df), number tokens x4",
    "align combined x Jaccard of the number tokens",
    // Numbers only: tokens of digits alone ("2" of "GPL-2", "12" of "gcc-12", not
    // "libssl3").
    "word-set Jaccard x Jaccard of the digit tokens",
    "1/sqrt(df) LCS Dice x Jaccard of the digit tokens",
    "1/sqrt(df) word-set Jaccard x Jaccard of the digit tokens",
    "1/sqrt(df) LCS Dice x mean(1, Jaccard of the number tokens)",
    "1/sqrt(df) LCS Dice x mean(1, Jaccard of the digit tokens)",
    "LCS Dice, tokens weighted 1/sqrt(df), digit tokens x16 (`align-weighted`)",
    "align combined x Jaccard of the digit tokens",
    // How much the digit tokens' factor matters, and whether df matters with it.
    "LCS Dice, tokens weighted 1/sqrt(df), digit tokens x4",
    "LCS Dice, tokens weighted 1/sqrt(df), digit tokens x8",
    "LCS Dice, tokens weighted 1/sqrt(df), digit tokens x32",
    "LCS Dice, tokens weighted 1/sqrt(df), digit tokens x64",
    "LCS Dice, digit tokens weighted 16, others 1 (no df)",
    "word-set Jaccard, tokens weighted 1/sqrt(df), digit tokens x16 (no order)",
];

/// Weights of a set's tokens (or 3-grams): `df^-a` for `a` = `alpha`.
fn power_weights(documents: &[Vec<u64>], alpha: f64) -> Res<TokenWeights> {
    Ok(TokenWeights::from_document_frequency(
        documents,
        |df, _| (df.max(1) as f64).powf(-alpha),
    )?)
}

/// The total weight of a sequence's tokens.
fn total_weight(tokens: &[u64], w: &TokenWeights) -> f64 {
    tokens.iter().map(|&t| w.weight(t)).sum()
}

/// The Jaccard coefficient of two sorted token sets with each token weighted.
fn weighted_jaccard(a: &[u64], b: &[u64], w: &TokenWeights) -> f64 {
    let (mut i, mut j, mut common, mut union) = (0, 0, 0.0, 0.0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                common += w.weight(x);
                union += w.weight(x);
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                union += w.weight(x);
                i += 1;
            }
            (Some(&x), None) => {
                union += w.weight(x);
                i += 1;
            }
            (_, Some(&y)) => {
                union += w.weight(y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    if union == 0.0 { 1.0 } else { common / union }
}

/// A set to evaluate: texts and their labels.
struct Set {
    name: String,
    texts: Vec<String>,
    labels: Vec<String>,
}

/// Reads `{"id","text","label"}` JSON lines.
fn read_labeled(path: &PathBuf) -> Res<Set> {
    let data = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (mut texts, mut labels) = (Vec::new(), Vec::new());
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let (Some(t), Some(l)) = (v["text"].as_str(), v["label"].as_str()) else {
            return Err(format!("{}: a line without text or label", path.display()).into());
        };
        texts.push(t.to_string());
        labels.push(l.to_string());
    }
    let name = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    Ok(Set {
        name,
        texts,
        labels,
    })
}

/// The distinct tokens of a sequence, sorted.
fn token_set(tokens: &[u64]) -> Vec<u64> {
    let mut s = tokens.to_vec();
    s.sort_unstable();
    s.dedup();
    s
}

/// Candidate pairs, and every measure's score of each: `scores[m][i]` is measure `m`
/// of candidate `i`.
struct Candidates {
    pairs: Vec<(usize, usize)>,
    scores: Vec<Vec<f64>>,
}

/// Every weighting the measures use, built from one set's documents.
struct Weights {
    /// Each document's tokens with a digit (`numbers`) and of digits only (`digits`),
    /// sorted and distinct.
    numbers: Vec<Vec<u64>>,
    digits: Vec<Vec<u64>>,
    sqrt_df: TokenWeights,
    inverse: TokenWeights,
    idf: TokenWeights,
    quarter: TokenWeights,
    three_eighths: TokenWeights,
    three_quarters: TokenWeights,
    one: TokenWeights,
    bm25: TokenWeights,
    floored: TokenWeights,
    grams_inverse: TokenWeights,
    grams_quarter: TokenWeights,
    numbers4: TokenWeights,
    numbers16: TokenWeights,
    inverse_numbers4: TokenWeights,
    inverse_digits16: TokenWeights,
    /// 1/sqrt(df) with digit tokens x4, x8, x32, x64; digit tokens x16 without df.
    digit_factors: Vec<TokenWeights>,
}

impl Weights {
    fn new(texts: &[String], tokens: &[Vec<u64>], grams: &[Vec<u64>]) -> Res<Self> {
        let o = TokenOptions::default();
        let select = |keep: fn(&str) -> bool| -> Vec<Vec<u64>> {
            texts
                .iter()
                .map(|t| {
                    let tk = o.tokens(t);
                    let mut n: Vec<u64> = (0..tk.len())
                        .filter(|&i| keep(&t[tk.span(i)]))
                        .map(|i| tk.hashes()[i])
                        .collect();
                    n.sort_unstable();
                    n.dedup();
                    n
                })
                .collect()
        };
        let numbers = select(|w| w.bytes().any(|c| c.is_ascii_digit()));
        let digits = select(|w| w.bytes().all(|c| c.is_ascii_digit()));
        let numeric: BTreeSet<u64> = numbers.iter().flatten().copied().collect();
        let digit: BTreeSet<u64> = digits.iter().flatten().copied().collect();
        let mut df: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
        for d in tokens {
            for t in token_set(d) {
                *df.entry(t).or_default() += 1;
            }
        }
        let inverse_numbers4 = TokenWeights::new(
            df.iter().map(|(&t, &d)| {
                let k = if numeric.contains(&t) { 4.0 } else { 1.0 };
                (t, k / (d as f64).sqrt())
            }),
            1.0,
        )?;
        let digit_weights = |factor: f64, exponent: f64| {
            TokenWeights::new(
                df.iter().map(|(&t, &d)| {
                    let k = if digit.contains(&t) { factor } else { 1.0 };
                    (t, k * (d as f64).powf(-exponent))
                }),
                1.0,
            )
        };
        // The weights of `--verify align-weighted`, as the library counts them (the
        // same definition as `digit_weights(16.0, 0.5)`).
        let mut counts = CorpusWeights::new();
        for t in texts {
            counts.add_document(&o.tokens(t));
        }
        let inverse_digits16 = counts.weights();
        let digit_factors = vec![
            digit_weights(4.0, 0.5)?,
            digit_weights(8.0, 0.5)?,
            digit_weights(32.0, 0.5)?,
            digit_weights(64.0, 0.5)?,
            digit_weights(16.0, 0.0)?,
        ];
        Ok(Weights {
            digit_factors,
            digits,
            inverse_digits16,
            numbers4: TokenWeights::new(numeric.iter().map(|&t| (t, 4.0)), 1.0)?,
            numbers16: TokenWeights::new(numeric.iter().map(|&t| (t, 16.0)), 1.0)?,
            inverse_numbers4,
            numbers,
            sqrt_df: TokenWeights::sqrt_document_frequency(tokens),
            inverse: TokenWeights::inverse_sqrt_document_frequency(tokens),
            idf: TokenWeights::from_document_frequency(tokens, |df, n| {
                (1.0 + n as f64 / df.max(1) as f64).ln()
            })?,
            quarter: power_weights(tokens, 0.25)?,
            three_eighths: power_weights(tokens, 0.375)?,
            three_quarters: power_weights(tokens, 0.75)?,
            one: power_weights(tokens, 1.0)?,
            bm25: TokenWeights::from_document_frequency(tokens, |df, n| {
                let (df, n) = (df as f64, n as f64);
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })?,
            floored: TokenWeights::from_document_frequency(tokens, |df, _| {
                1.0 / (df.max(4) as f64).sqrt()
            })?,
            grams_inverse: TokenWeights::inverse_sqrt_document_frequency(grams),
            grams_quarter: power_weights(grams, 0.25)?,
        })
    }
}

/// Every measure of `MEASURES` for documents `a` and `b`, in that order.
fn score_pair(
    al: &mut Aligner,
    (a, b): (usize, usize),
    tokens: &[Vec<u64>],
    sets: &[Vec<u64>],
    prepared: &[Prepared],
    w: &Weights,
) -> Result<Vec<f64>, near_dup::Error> {
    let jac = near_dup::jaccard(&sets[a], &sets[b]);
    let (pa, pb) = (&prepared[a], &prepared[b]);
    let mut m = |measure| al.verify_prepared(pa, pb, measure, 0.0);
    let (combined, dice, cont, max) = (
        m(Measure::Combined)?.unwrap_or(0.0),
        m(Measure::Dice)?.unwrap_or(0.0),
        m(Measure::Containment)?.unwrap_or(0.0),
        m(Measure::MaxJaccardDice)?.unwrap_or(0.0),
    );
    let mut wd = |weights: &TokenWeights| -> Result<f64, near_dup::Error> {
        Ok(al
            .weighted_dice(&tokens[a], &tokens[b], weights, 0.0)?
            .unwrap_or(0.0))
    };
    let (sqrt_dice, inv_dice, idf_dice) = (wd(&w.sqrt_df)?, wd(&w.inverse)?, wd(&w.idf)?);
    let (quarter_dice, three_eighths_dice, bm25_dice) =
        (wd(&w.quarter)?, wd(&w.three_eighths)?, wd(&w.bm25)?);
    // The heaviest common subsequence from the Dice: H = D * (W(a) + W(b)) / 2.
    let (wa, wb) = (
        total_weight(&tokens[a], &w.inverse),
        total_weight(&tokens[b], &w.inverse),
    );
    let inv_containment = if wa.min(wb) > 0.0 {
        inv_dice * (wa + wb) / 2.0 / wa.min(wb)
    } else {
        1.0
    };
    let g3 = near_dup::jaccard(pa.shingles(), pb.shingles());
    let wj = |weights: &TokenWeights| weighted_jaccard(&sets[a], &sets[b], weights);
    let inv_jac = wj(&w.inverse);
    let gj = |weights: &TokenWeights| weighted_jaccard(pa.shingles(), pb.shingles(), weights);
    let inv_g3 = gj(&w.grams_inverse);
    let nj = near_dup::jaccard(&w.numbers[a], &w.numbers[b]);
    let inv_numbers4_dice = wd(&w.inverse_numbers4)?;
    let inv_digits16_dice = wd(&w.inverse_digits16)?;
    let factors = w
        .digit_factors
        .iter()
        .map(&mut wd)
        .collect::<Result<Vec<f64>, _>>()?;
    let dj = near_dup::jaccard(&w.digits[a], &w.digits[b]);
    Ok(vec![
        jac,
        g3,
        combined,
        dice,
        cont,
        max,
        sqrt_dice,
        inv_dice,
        jac.max(sqrt_dice),
        jac.max(inv_dice),
        idf_dice,
        inv_jac,
        f64::midpoint(cont, jac),
        quarter_dice,
        three_eighths_dice,
        bm25_dice,
        inv_containment,
        f64::midpoint(inv_containment, g3),
        f64::midpoint(inv_dice, g3),
        wj(&w.quarter),
        wj(&w.three_eighths),
        wj(&w.three_quarters),
        wj(&w.one),
        wj(&w.bm25),
        wj(&w.floored),
        f64::midpoint(jac, inv_jac),
        jac.max(inv_jac),
        f64::midpoint(g3, inv_jac),
        inv_g3,
        gj(&w.grams_quarter),
        f64::midpoint(g3, inv_g3),
        wj(&w.numbers4),
        wj(&w.numbers16),
        jac * nj,
        g3 * nj,
        inv_jac * nj,
        inv_dice * nj,
        inv_numbers4_dice,
        wj(&w.inverse_numbers4),
        combined * nj,
        jac * dj,
        inv_dice * dj,
        inv_jac * dj,
        inv_dice * f64::midpoint(1.0, nj),
        inv_dice * f64::midpoint(1.0, dj),
        inv_digits16_dice,
        combined * dj,
        factors[0],
        factors[1],
        factors[2],
        factors[3],
        factors[4],
        wj(&w.inverse_digits16),
    ])
}

/// The candidates (word-set Jaccard >= 0.5), scored by every measure.
fn score_candidates(texts: &[String]) -> Res<Candidates> {
    let o = TokenOptions::default();
    let tokens: Vec<Vec<u64>> = texts.iter().map(|t| o.hashes(t)).collect();
    let sets: Vec<Vec<u64>> = tokens.iter().map(|t| token_set(t)).collect();
    let prepared: Vec<Prepared> = tokens
        .iter()
        .map(|t| Prepared::from_hashes(t.clone()))
        .collect();
    let grams: Vec<Vec<u64>> = prepared.iter().map(|p| p.shingles().to_vec()).collect();
    let weights = Weights::new(texts, &tokens, &grams)?;
    let n = texts.len();
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let mut found: Vec<(usize, usize, Vec<f64>)> = Vec::new();
    let mut failed: Option<String> = None;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|w| {
                let (tokens, sets, prepared, weights) = (&tokens, &sets, &prepared, &weights);
                scope.spawn(
                    move || -> Result<Vec<(usize, usize, Vec<f64>)>, near_dup::Error> {
                        let mut al = Aligner::new();
                        let mut part = Vec::new();
                        for a in (w..n).step_by(threads) {
                            for b in a + 1..n {
                                let (la, lb) = (sets[a].len(), sets[b].len());
                                // Jaccard <= min/max: skip pairs that cannot reach 0.5.
                                if 2 * la.min(lb) < la.max(lb) {
                                    continue;
                                }
                                if near_dup::jaccard(&sets[a], &sets[b]) < 0.5 {
                                    continue;
                                }
                                let scores =
                                    score_pair(&mut al, (a, b), tokens, sets, prepared, weights)?;
                                part.push((a, b, scores));
                            }
                        }
                        Ok(part)
                    },
                )
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(Ok(part)) => found.extend(part),
                Ok(Err(e)) => failed = Some(e.to_string()),
                Err(_) => failed = Some("a scoring thread panicked".to_string()),
            }
        }
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    found.sort_by_key(|e| (e.0, e.1));
    let pairs = found.iter().map(|e| (e.0, e.1)).collect();
    let scores = (0..MEASURES.len())
        .map(|m| found.iter().map(|e| e.2[m]).collect())
        .collect();
    Ok(Candidates { pairs, scores })
}

/// One measure's figures on a set.
struct Figures {
    f1: f64,
    precision: f64,
    recall: f64,
    threshold: f64,
    /// F1 at the threshold chosen on the other half, one per split (the mean of both
    /// directions).
    held_out: Vec<f64>,
}

/// Seeded splits of the clusters in halves the held-out figure averages over.
const SPLITS: u64 = 10;

/// Max F1 and the held-out F1 of one measure's scores.
fn figures(pairs: &[(usize, usize)], scores: &[f64], labels: &[String], seed: u64) -> Res<Figures> {
    let scored: Vec<ScoredPair> = pairs
        .iter()
        .zip(scores)
        .map(|(&(a, b), &s)| ScoredPair::new(a, b, s))
        .collect();
    let best = max_f1(&scored, &Labels::new(labels))?;
    let mut held_out = Vec::new();
    for split in 0..SPLITS {
        held_out.push(held_out_f1(&scored, labels, seed.wrapping_add(split))?);
    }
    Ok(Figures {
        f1: best.f1,
        precision: best.precision,
        recall: best.recall,
        threshold: best.threshold,
        held_out,
    })
}

/// Clusters in halves by a seeded hash of the label; the threshold is chosen (Max F1)
/// on one half's pairs and F1 measured at it on the other's, both ways; the mean.
fn held_out_f1(scored: &[ScoredPair], labels: &[String], seed: u64) -> Res<f64> {
    let half_of = |l: &str| {
        let h = l
            .bytes()
            .fold(seed, |h, b| mix64(h ^ u64::from(b)).wrapping_add(1));
        mix64(h) & 1
    };
    // A document of the other half gets a label of its own, so it makes no true pair.
    let half = |k: u64| -> (Labels, Vec<ScoredPair>) {
        let masked: Vec<String> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if half_of(l) == k {
                    l.clone()
                } else {
                    format!("\u{0}other {i}")
                }
            })
            .collect();
        let kept = scored
            .iter()
            .filter(|p| half_of(&labels[p.a]) == k && half_of(&labels[p.b]) == k)
            .copied()
            .collect();
        (Labels::new(&masked), kept)
    };
    let mut held_out = 0.0;
    for k in 0..2 {
        let (tl, tp) = half(k);
        let (el, ep) = half(1 - k);
        let chosen = max_f1(&tp, &tl)?.threshold;
        held_out += evaluate_pairs(&ep, &el, chosen)?.f1() / 2.0;
    }
    Ok(held_out)
}

fn report(set: &Set, seed: u64) -> Res<()> {
    let t0 = Instant::now();
    let Candidates { pairs, scores } = score_candidates(&set.texts)?;
    let labels = Labels::new(&set.labels);
    let true_in = pairs
        .iter()
        .filter(|&&(a, b)| set.labels[a] == set.labels[b])
        .count();
    println!(
        "\n## {}\n\n{} documents, {} clusters ({} with 2+), {} true pairs; {} candidates \
         (word-set Jaccard >= 0.5), {} of them true ({:.1?})\n",
        set.name,
        set.texts.len(),
        labels.num_clusters(),
        labels.cluster_sizes().iter().filter(|&&s| s >= 2).count(),
        labels.true_pairs(),
        pairs.len(),
        true_in,
        t0.elapsed()
    );
    println!(
        "| measure | Max F1 | P | R | threshold | vs Jaccard | held-out F1 | held-out vs \
         Jaccard (range over {SPLITS} splits) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let all: Vec<Figures> = scores
        .iter()
        .map(|s| figures(&pairs, s, &set.labels, seed))
        .collect::<Res<_>>()?;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    for (name, f) in MEASURES.iter().zip(&all) {
        let deltas: Vec<f64> = f
            .held_out
            .iter()
            .zip(&all[0].held_out)
            .map(|(x, j)| x - j)
            .collect();
        let (lo, hi) = deltas
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &d| {
                (lo.min(d), hi.max(d))
            });
        println!(
            "| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {:+.3} | {:.3} | {:+.3} ({lo:+.3} to \
             {hi:+.3}) |",
            f.f1,
            f.precision,
            f.recall,
            f.threshold,
            f.f1 - all[0].f1,
            mean(&f.held_out),
            mean(&deltas),
        );
    }
    Ok(())
}

fn main() -> Res<()> {
    let mut data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/labeled");
    let (mut seed, mut bases, mut variants, mut bench, mut generated) =
        (29u64, 200usize, 4usize, None, true);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--data" => data = PathBuf::from(val()?),
            "--seed" => seed = val()?.parse()?,
            "--bases" => bases = val()?.parse()?,
            "--variants" => variants = val()?.parse()?,
            "--bench" => bench = Some(PathBuf::from(val()?)),
            "--no-generated" => generated = false,
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    println!("# real_labels (seed {seed})");
    let files: BTreeSet<PathBuf> = std::fs::read_dir(&data)
        .map_err(|e| format!("{}: {e}", data.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    println!("\n# Real labeled sets ({})", data.display());
    for path in &files {
        report(&read_labeled(path)?, seed)?;
    }
    if generated {
        println!("\n# Generated sets (ndd-eval generators, {bases} bases, {variants} variants)");
        for s in labeled::sets(bench.as_ref(), bases, seed, variants)? {
            println!("\n{}", s.summary);
            let ids = s.labels.cluster_ids();
            let set = Set {
                name: format!("generated {}", s.name),
                labels: ids.iter().map(|c| c.to_string()).collect(),
                texts: s.texts,
            };
            report(&set, seed)?;
        }
    }
    Ok(())
}

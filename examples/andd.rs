//! Learned k-gram weights (ANDD, Hajishirzi, Yih and Kołcz, SIGIR 2010) against
//! unlearned ones on labeled sets generated from real text, with hard negatives
//! (sibling documents that differ in a clause, a name, a number): Max F1 on held-out
//! clusters over random splits (Table 2's comparison) for learned, binary and TF-IDF
//! weights and plain Jaccard, over word unigrams and 3-grams, and the learning curve
//! (Figure 5's shape). Each set is
//! also run with heavy shared boilerplate appended (a legal footer of random length
//! on every document), the domain the paper's news pages stand for.
//!
//! ```text
//! cargo run --release --example andd -- [--bench PATH] [--bases N] [--seed S] [--variants V]
//! ```
//!
//! Without `--bench` it uses the bundled `data/debian-copyright.jsonl`.

mod labeled;

use std::time::Instant;

use labeled::{Options, Res};
use near_dup::learn::{
    CollectionStats, Document, Evaluation, Kgrams, Objective, SplitScores, Trainer,
    evaluate_splits, learning_curve,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A footer of up to 60 words of legal boilerplate, the same words in every
/// document, its length drawn per document.
fn with_boilerplate(texts: &[String], seed: u64) -> Vec<String> {
    let footer: Vec<String> = (0..60)
        .map(|i| {
            ["terms", "privacy", "rights", "reserved", "notice", "policy"][i % 6].to_string()
                + &i.to_string()
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    texts
        .iter()
        .map(|t| {
            let n = rng.random_range(0..=footer.len());
            format!("{t}\n\n{}", footer[..n].join(" "))
        })
        .collect()
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n;
    (m, v.sqrt())
}

fn main() -> Res<()> {
    let o = Options::parse()?;
    let t0 = Instant::now();
    let sets = o.sets()?;
    println!(
        "# andd (seed {}, {} variants per base; Max F1 on held-out clusters, mean ± sd over 5 random halvings)\n",
        o.seed, o.variants
    );
    for s in &sets {
        println!("- {}", s.summary);
    }
    println!();
    println!("| set | k | objective | learned | binary | TF-IDF | Jaccard (k-gram sets) |");
    println!("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
    let mut curves = Vec::new();
    for s in &sets {
        let labels: Vec<usize> = s.labels.cluster_ids().to_vec();
        for (variant, texts) in [
            ("", s.texts.clone()),
            (" + boilerplate", with_boilerplate(&s.texts, o.seed)),
        ] {
            let docs: Vec<Document> = texts.iter().map(|t| Document::new(t.as_str())).collect();
            for k in [1, 3] {
                let stats = CollectionStats::from_documents(
                    Kgrams::new(k)?,
                    texts.iter().map(String::as_str),
                );
                for objective in [Objective::Cosine, Objective::Jaccard] {
                    let settings = Evaluation {
                        splits: 5,
                        instances: 1000,
                        seed: o.seed,
                        trainer: Trainer::new(objective).max_iterations(40)?,
                    };
                    let scores = evaluate_splits(&stats, &docs, &labels, &settings)?;
                    let col = |f: fn(&SplitScores) -> f64| {
                        let (m, sd) = mean_sd(&scores.iter().map(f).collect::<Vec<_>>());
                        format!("{m:.3} ± {sd:.3}")
                    };
                    println!(
                        "| {}{variant} | {k} | {objective} | {} | {} | {} | {} |",
                        s.name,
                        col(|x| x.learned),
                        col(|x| x.binary),
                        col(|x| x.tfidf),
                        col(|x| x.jaccard)
                    );
                    if objective == Objective::Cosine && k == 1 {
                        let one = Evaluation {
                            splits: 3,
                            ..settings
                        };
                        let curve =
                            learning_curve(&stats, &docs, &labels, &one, &[2, 5, 10, 25, 50])?;
                        curves.push((format!("{}{variant}", s.name), curve));
                    }
                }
            }
        }
    }
    // The L2 weight, on the first set (k = 1, cosine).
    if let Some(s) = sets.first() {
        let labels: Vec<usize> = s.labels.cluster_ids().to_vec();
        let docs: Vec<Document> = s.texts.iter().map(|t| Document::new(t.as_str())).collect();
        let stats =
            CollectionStats::from_documents(Kgrams::new(1)?, s.texts.iter().map(String::as_str));
        println!(
            "\n## L2 weight α ({}, k = 1, cosine; Max F1 over 5 splits)\n",
            s.name
        );
        println!("| α | learned |");
        println!("| ---: | ---: |");
        for alpha in [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0] {
            let settings = Evaluation {
                splits: 5,
                instances: 1000,
                seed: o.seed,
                trainer: Trainer::new(Objective::Cosine)
                    .max_iterations(40)?
                    .l2(alpha)?,
            };
            let scores = evaluate_splits(&stats, &docs, &labels, &settings)?;
            let (m, sd) = mean_sd(&scores.iter().map(|x| x.learned).collect::<Vec<_>>());
            println!("| {alpha} | {m:.3} ± {sd:.3} |");
        }
    }
    println!("\n## Learning curve (cosine, k = 1; mean Max F1 over 3 splits: learned / binary)\n");
    println!("| set | 2 | 5 | 10 | 25 | 50 training clusters |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, curve) in curves {
        let cells: Vec<String> = curve
            .iter()
            .map(|(_, l, b)| format!("{l:.3} / {b:.3}"))
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    println!("\n(total {:.1?})", t0.elapsed());
    Ok(())
}

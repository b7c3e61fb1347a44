//! Category classification on variants made by `ndd-eval`'s generator (which labels
//! each variant with its edit) from real base texts: per-category precision and
//! recall, at least 0.9 for every category the generator produces.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::corpus::bundled;

use std::collections::BTreeMap;

use ndd_align::{Aligner, Category, TokenOptions, classify};
use ndd_eval::{EditKind, SynthConfig, generate_variants};

/// The paper category an edit of the generator makes (Yang and Callan 2006,
/// Section 2). `Misspelled` and `AppendedUnrelated` are spam obfuscations of another
/// paper, not categories of this one, and are not generated here.
fn expected(kind: EditKind) -> Category {
    match kind {
        EditKind::Original | EditKind::Exact => Category::Exact,
        EditKind::MinorChange => Category::MinorChange,
        EditKind::BlockAdded => Category::BlockAdded,
        EditKind::BlockDeleted => Category::BlockDeleted,
        EditKind::KeyBlock => Category::KeyBlock,
        EditKind::MinorChangeAndBlockEdit => Category::MinorChangeBlockEdit,
        EditKind::BlockReordering => Category::BlockReordering,
        EditKind::Repeated => Category::Repeated,
        EditKind::Misspelled | EditKind::AppendedUnrelated => unreachable!(),
    }
}

/// Base texts whose blocks are paragraphs of 20 to 199 words: the paper's block edits
/// are "<200 words", so a base whose paragraphs are longer makes block edits the paper
/// would not call block edits.
fn bases() -> Vec<String> {
    let words = |s: &str| s.split_whitespace().count();
    bundled()
        .into_iter()
        .filter(|t| {
            let paras: Vec<&str> = t.split("\n\n").filter(|p| !p.trim().is_empty()).collect();
            paras.len() >= 3 && paras.iter().all(|p| (3..200).contains(&words(p)))
        })
        .take(60)
        .collect()
}

#[test]
fn categories_of_generated_variants_reach_09_precision_and_recall() {
    let bases = bases();
    assert!(bases.len() >= 40, "only {} base texts", bases.len());
    let kinds: Vec<(EditKind, f64)> = EditKind::EDITS
        .iter()
        .filter(|k| !matches!(k, EditKind::Misspelled | EditKind::AppendedUnrelated))
        .map(|&k| (k, 1.0))
        .collect();
    let config = SynthConfig {
        variants_per_base: 16,
        kinds,
        ..SynthConfig::new(2006)
    };
    let docs = generate_variants(&bases, &config).unwrap();
    let o = TokenOptions::default();
    let mut al = Aligner::new();
    // (expected, got) -> count
    let mut confusion: BTreeMap<(Category, Category), usize> = BTreeMap::new();
    for d in &docs {
        let a = o.tokens(&bases[d.source]);
        let b = o.tokens(&d.text);
        let got = classify(&mut al, &a, &b).category;
        *confusion.entry((expected(d.kind), got)).or_default() += 1;
    }
    let mut report = String::new();
    let mut worst = 1.0f64;
    for c in Category::ALL {
        let tp = confusion.get(&(c, c)).copied().unwrap_or(0);
        let truth: usize = confusion
            .iter()
            .filter(|((e, _), _)| *e == c)
            .map(|(_, n)| n)
            .sum();
        let said: usize = confusion
            .iter()
            .filter(|((_, g), _)| *g == c)
            .map(|(_, n)| n)
            .sum();
        if truth == 0 {
            // Not a generated category: its predictions are errors counted in the
            // recall of the categories they were made for.
            report.push_str(&format!(
                "{c:>24}: never generated, predicted {said} times\n"
            ));
            continue;
        }
        let p = tp as f64 / said.max(1) as f64;
        let r = tp as f64 / truth as f64;
        worst = worst.min(p).min(r);
        report.push_str(&format!(
            "{c:>24}: n={truth:4} precision {p:.3} recall {r:.3}\n"
        ));
    }
    for ((e, g), n) in &confusion {
        if e != g {
            report.push_str(&format!("  {e} -> {g}: {n}\n"));
        }
    }
    println!("{report}");
    assert!(worst >= 0.9, "a category below 0.9:\n{report}");
}

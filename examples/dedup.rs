//! The pipeline from a program: read a corpus, deduplicate it, use the outcome.
//! (The `ndd` tool, `cargo run --release -p ndd-cli -- dedup`, is the same pipeline
//! with options, progress bars and output files.)
//!
//! ```text
//! cargo run --release --example dedup                # the bundled corpus
//! cargo run --release --example dedup -- docs/ 0.7   # a folder or JSONL file, a threshold
//! ```

use std::process::ExitCode;

use near_dup::pipeline::corpus::{ReadOptions, read_corpus};
use near_dup::pipeline::{Dedup, Fate};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let input = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/debian-copyright.jsonl").to_owned()
    });
    let threshold = match args.next().map(|t| t.parse::<f64>()) {
        None => near_dup::pipeline::DEFAULT_THRESHOLD,
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            eprintln!("error: the threshold: {e}");
            return ExitCode::FAILURE;
        }
    };
    match run(&input, threshold) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(input: &str, threshold: f64) -> Result<(), near_dup::pipeline::Error> {
    // Bad lines are skipped and listed in `corpus.problems`.
    let corpus = read_corpus(input, &ReadOptions::default())?;
    let docs = &corpus.documents;
    // MinHash + banded LSH, candidates verified by exact Jaccard, exact copies first.
    let out = Dedup::new().threshold(threshold).run(docs)?;
    let (mut exact, mut near) = (0, 0);
    for i in 0..docs.len() {
        match out.fate(i) {
            Fate::ExactCopy => exact += 1,
            Fate::NearDuplicate => near += 1,
            _ => {}
        }
    }
    println!(
        "{} documents: {} kept, {exact} exact copies and {near} near-duplicates dropped",
        docs.len(),
        out.kept().len()
    );
    // The largest group, with the document kept for it.
    if let Some(g) = out.groups.iter().max_by_key(|g| g.members.len()) {
        println!(
            "largest group: {} documents, keep {:?}",
            g.members.len(),
            docs[g.representative].id
        );
        for p in out.pairs.iter().filter(|p| p.a == g.representative).take(5) {
            println!("  {:<40} similarity {:.3}", docs[p.b].id, p.score);
        }
    }
    Ok(())
}

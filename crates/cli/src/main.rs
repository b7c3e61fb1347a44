//! `ndd`: near-duplicate detection of text from the command line.
//!
//! ```text
//! ndd dedup                                   # the bundled corpus of a source checkout
//! ndd dedup --input docs/ --threshold 0.7 --keep-out kept.jsonl --pairs-out pairs.tsv
//! ndd explain --threshold 0.8 --num-perm 128
//! ndd train --input labeled.jsonl --label-field cluster --out weights.ndl
//! ndd query --index corpus.ndd --input queries.jsonl --top-k 10
//! ndd report --input corpus.jsonl --clusters clusters.tsv --pairs pairs.tsv --out report.html
//! ndd dedup --input stream.jsonl --bloom --bloom-out seen.bloom --keep-out new.jsonl
//! ndd lines --input kept.jsonl --min-count 3 --out clean.jsonl --report-out repeats.json
//! ndd substrings --input corpus.jsonl --min-length 100 --out cut.jsonl --ranges-out ranges.jsonl
//! ```
//!
//! A thin program over the `ndd-pipeline` library: this crate parses options, shows
//! progress, writes files and prints summaries; every stage of the work is the
//! library's. See `ndd --help` and `ndd dedup --help`.

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

mod args;
mod bloom;
mod error;
mod explain;
mod explain_out;
mod files;
mod found;
mod groups;
mod input;
mod interrupt;
mod journal;
mod lines;
mod memory;
mod outofcore;
mod output;
mod progress;
mod query;
mod report_out;
mod settings;
mod skipped;
mod stream;
mod substrings;
mod summary;
mod train;

use args::{Cli, Command, DedupArgs};
use error::CliError;

/// Where `ndd dedup` keeps the stages' state: the engines are peers, each with its
/// own file.
enum Engine<'a> {
    /// Every document in memory, one run.
    InMemory,
    /// In memory, checked against (and maybe saved to) an index of earlier batches.
    SavedIndex,
    /// A stream of Bloom filters: flag-only.
    Bloom,
    /// Sorted files in a work folder under a memory budget.
    OutOfCore(&'a std::path::Path),
}

impl<'a> Engine<'a> {
    /// The engine the options ask for.
    fn of(a: &'a DedupArgs) -> Self {
        if a.bloom.bloom || !a.bloom.given().is_empty() {
            Engine::Bloom
        } else if let Some(dir) = &a.scale.work_dir {
            Engine::OutOfCore(dir)
        } else if a.index.index_in.is_some() || a.index.index_out.is_some() {
            Engine::SavedIndex
        } else {
            Engine::InMemory
        }
    }
}

/// Runs `ndd dedup` on the engine its options choose.
fn dedup(a: &DedupArgs) -> Result<(), CliError> {
    match Engine::of(a) {
        Engine::InMemory => memory::run(a),
        Engine::SavedIndex => memory::run_with_index(a),
        Engine::Bloom => bloom::run(a),
        Engine::OutOfCore(work_dir) => outofcore::run(a, work_dir),
    }
}

fn main() -> ExitCode {
    interrupt::install();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Dedup(a) => dedup(a),
        Command::Explain(a) => explain::run(a),
        Command::Train(a) => train::run(a),
        Command::Query(a) => query::run(a),
        Command::Report(a) => report_out::run(a),
        Command::Lines(a) => lines::run(a),
        Command::Substrings(a) => substrings::run(a),
        Command::Completions { shell } => {
            clap_complete::generate(*shell, &mut Cli::command(), "ndd", &mut std::io::stdout());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

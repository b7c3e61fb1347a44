//! `ndd`: near-duplicate detection of text from the command line.
//!
//! ```text
//! ndd dedup                                   # the bundled corpus of a source checkout
//! ndd dedup --input docs/ --threshold 0.7 --keep-out kept.jsonl --pairs-out pairs.tsv
//! ndd explain --threshold 0.8 --num-perm 128
//! ndd train --input labeled.jsonl --label-field cluster --out weights.ndl
//! ndd query --index corpus.ndd --input queries.jsonl --top-k 10
//! ndd dedup --input stream.jsonl --bloom --bloom-out seen.bloom --keep-out new.jsonl
//! ```
//!
//! A thin program over the `ndd-pipeline` library: this crate parses options, shows
//! progress, writes files and prints summaries; every stage of the work is the
//! library's. See `ndd --help` and `ndd dedup --help`.

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

mod args;
mod bloom;
mod dedup;
mod error;
mod explain;
mod explain_out;
mod input;
mod outofcore;
mod output;
mod progress;
mod query;
mod settings;
mod summary;
mod train;
mod write;

use args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Dedup(a) => dedup::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Train(a) => train::run(a),
        Command::Query(a) => query::run(a),
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

//! `-q` / `--quiet` means one thing to every subcommand that has it: no progress bars
//! and no summary, while warnings still reach standard error and the outputs are
//! those of a run without it.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{ndd, text};

const LETTER: &str = "We support the proposed rule on mercury emissions from power plants. \
                      Mercury harms children and pregnant women and the rivers they fish in.";

/// Two copies of a letter, one signed, another text, and a line that is not JSON (a
/// warning for every reader).
fn corpus() -> String {
    let records = [
        ("a", LETTER.to_owned()),
        ("b", format!("{LETTER} Signed, a parent.")),
        ("c", LETTER.to_owned()),
        (
            "d",
            "Something else entirely: the weather report for Tuesday.".to_owned(),
        ),
    ];
    let mut lines: String = records
        .iter()
        .map(|(id, t)| format!("{}\n", serde_json::json!({ "id": id, "text": t })))
        .collect();
    lines.push_str("not json\n");
    lines
}

/// A folder holding the corpus as `in.jsonl`.
fn with_corpus(dir: &Path) {
    fs::write(dir.join("in.jsonl"), corpus()).unwrap();
}

/// The lines of standard error that are warnings.
fn warnings(out: &Output) -> Vec<String> {
    text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .map(str::to_owned)
        .collect()
}

/// What a run printed besides its warnings: its summary, wherever it went (`ndd
/// query` puts it on standard error).
fn summary(out: &Output) -> String {
    let stderr: Vec<String> = text(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with("warning:"))
        .map(str::to_owned)
        .collect();
    text(&out.stdout) + &stderr.join("\n")
}

/// Runs `args` without and with `-q`, each in a fresh folder prepared by `setup`;
/// the run writes the file `out`. Returns the quiet run's warnings.
#[track_caller]
fn loud_and_quiet(setup: impl Fn(&Path), args: &[&str], out: &str) -> Vec<String> {
    let (loud_dir, quiet_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    setup(loud_dir.path());
    setup(quiet_dir.path());
    let loud = ndd(args, loud_dir.path());
    let quiet = ndd(&[args, &["-q"]].concat(), quiet_dir.path());
    for (run, o) in [("", &loud), (" -q", &quiet)] {
        assert!(o.status.success(), "{args:?}{run}: {}", text(&o.stderr));
    }
    assert!(
        !summary(&loud).trim().is_empty(),
        "{args:?} prints a summary without -q"
    );
    assert_eq!(summary(&quiet), "", "{args:?} -q prints no summary");
    assert_eq!(
        warnings(&quiet),
        warnings(&loud),
        "{args:?}: -q keeps the warnings"
    );
    assert_eq!(
        fs::read(quiet_dir.path().join(out)).unwrap(),
        fs::read(loud_dir.path().join(out)).unwrap(),
        "{args:?}: -q writes the same {out}"
    );
    warnings(&quiet)
}

#[test]
fn quiet_silences_the_summary_of_every_dedup_engine_and_keeps_warnings() {
    let dedup = ["dedup", "--input", "in.jsonl", "--threshold", "0.7"];
    for (engine, out) in [
        (&[][..], "pairs.tsv"),
        (&["--work-dir", "work"], "pairs.tsv"),
        (&["--index-out", "ix.ndd"], "pairs.tsv"),
    ] {
        let args = [&dedup[..], engine, &["--pairs-out", out]].concat();
        let warned = loud_and_quiet(with_corpus, &args, out);
        assert!(
            warned.iter().any(|w| w.contains("in.jsonl")),
            "{args:?} -q: {warned:?}"
        );
    }
    let bloom = [&dedup[..], &["--bloom", "--drop-out", "dropped.txt"]].concat();
    assert!(!loud_and_quiet(with_corpus, &bloom, "dropped.txt").is_empty());
}

#[test]
fn quiet_silences_the_summary_of_lines_and_substrings() {
    let lines = [
        "lines",
        "--input",
        "in.jsonl",
        "--min-count",
        "2",
        "--out",
        "out.jsonl",
    ];
    assert!(!loud_and_quiet(with_corpus, &lines, "out.jsonl").is_empty());
    let substrings = [
        "substrings",
        "--input",
        "in.jsonl",
        "--min-length",
        "40",
        "--out",
        "out.jsonl",
    ];
    assert!(!loud_and_quiet(with_corpus, &substrings, "out.jsonl").is_empty());
}

#[test]
fn quiet_silences_the_summary_of_report_train_and_query() {
    // The run whose outputs `report` and `query` read, made quietly in the setup.
    let with_run = |dir: &Path| {
        with_corpus(dir);
        let run = [
            "dedup",
            "-q",
            "--input",
            "in.jsonl",
            "--threshold",
            "0.7",
            "--clusters-out",
            "clusters.tsv",
            "--pairs-out",
            "pairs.tsv",
            "--index-out",
            "ix.ndd",
        ];
        common::ok(&ndd(&run, dir));
    };
    let report = [
        "report",
        "--input",
        "in.jsonl",
        "--clusters",
        "clusters.tsv",
        "--pairs",
        "pairs.tsv",
        "--out",
        "page.html",
    ];
    loud_and_quiet(with_run, &report, "page.html");
    let query = [
        "query", "--index", "ix.ndd", "--input", "in.jsonl", "--top-k", "2", "--out", "r.jsonl",
    ];
    loud_and_quiet(with_run, &query, "r.jsonl");
    let with_labels =
        |dir: &Path| fs::write(dir.join("labeled.jsonl"), crate::train::fixture()).unwrap();
    let train = [
        "train",
        "--input",
        "labeled.jsonl",
        "--label-field",
        "cluster",
    ];
    let train = [&train[..], &["--out", "w.ndl"]].concat();
    assert!(!loud_and_quiet(with_labels, &train, "w.ndl").is_empty());
}

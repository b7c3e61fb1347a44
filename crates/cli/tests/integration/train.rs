//! `ndd train`, run as a user runs it: a labeled JSONL fixture whose clusters share
//! boilerplate of varying length, the model written and loadable, bad input refused.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{fails, ndd, ok, usage_errors};
use serde_json::json;

/// 20 clusters of 3: part of a topic each, words of their own, legal boilerplate of
/// random length at the end; a document without a label; a malformed line.
pub(crate) fn fixture() -> String {
    let mut x: u64 = 5;
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let mut lines = Vec::new();
    for c in 0..20 {
        for v in 0..3 {
            let mut w: Vec<String> = (0..8)
                .filter(|_| next(10) < 6)
                .map(|i| format!("c{c}t{i}"))
                .collect();
            w.extend((0..4).map(|i| format!("c{c}v{v}u{i}")));
            w.extend((0..next(15)).map(|i| format!("legal{i}")));
            lines.push(json!({"id": format!("{c}-{v}"), "text": w.join(" "), "cluster": format!("c{c}"), "subject": format!("topic {c}")}).to_string());
        }
    }
    lines.push(json!({"id": "alone", "text": "no label on this one"}).to_string());
    lines.push("not json".to_owned());
    lines.join("\n") + "\n"
}

/// A folder holding the fixture as `labeled.jsonl`.
fn labeled() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("labeled.jsonl"), fixture()).unwrap();
    dir
}

/// `ndd train` on `labeled.jsonl` in `dir`, the model written to `w.ndl`, with
/// `extra` options.
fn train(dir: &Path, extra: &[&str]) -> Output {
    ndd(
        &[
            &["train", "--input", "labeled.jsonl", "--out", "w.ndl"][..],
            extra,
        ]
        .concat(),
        dir,
    )
}

/// A folder holding the fixture and the model `w.ndl` trained on its labels
/// (`--label-field cluster`) with `extra` options; and what `ndd train` printed.
fn trained(extra: &[&str]) -> (tempfile::TempDir, String) {
    let dir = labeled();
    let args = [&["--label-field", "cluster"][..], extra].concat();
    let out = ok(&train(dir.path(), &args));
    (dir, out)
}

#[test]
fn trains_a_model_that_loads() {
    let (dir, out) = trained(&["--title-field", "subject", "--instances", "2000"]);
    assert!(out.contains("61 read, 60 labeled, 20 clusters"), "{out}");
    let loss = out.lines().find(|l| l.starts_with("loss:")).unwrap();
    let nums: Vec<f64> = loss
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|t| t.parse().ok())
        .collect();
    assert!(nums[1] < nums[0], "{loss}");
    let model =
        ndd_pipeline::learn::WeightModel::from_bytes(&fs::read(dir.path().join("w.ndl")).unwrap())
            .unwrap();
    assert_eq!(model.lambda()[0], 1.0);
    assert_eq!(model.objective(), ndd_pipeline::learn::Objective::Cosine);
}

#[test]
fn bad_training_input_is_refused() {
    let dir = labeled();
    let run = |extra: &[&str]| train(dir.path(), extra);
    fails(
        &run(&["--label-field", "nope"]),
        1,
        "0 documents have a \"nope\" field",
    );
    usage_errors(
        run,
        &[
            (
                &["--label-field", "cluster", "--objective", "euclid"],
                "--objective",
            ),
            (&["--label-field", "cluster", "--k", "0"], "--k"),
            (
                &["--label-field", "cluster", "--instances", "0"],
                "--instances",
            ),
            (&["--label-field", "text"], "must name different fields"),
        ],
    );
    fails(
        &ndd(
            &[
                "train",
                "--input",
                "labeled.jsonl",
                "--label-field",
                "cluster",
                "--out",
                "labeled.jsonl",
            ],
            dir.path(),
        ),
        2,
        "is the input",
    );
    fs::create_dir(dir.path().join("folder")).unwrap();
    fails(
        &ndd(
            &[
                "train",
                "--input",
                "folder",
                "--label-field",
                "cluster",
                "--out",
                "w.ndl",
            ],
            dir.path(),
        ),
        2,
        "reads a JSONL file",
    );
    assert!(!dir.path().join("w.ndl").exists());
}

#[test]
fn dedup_uses_a_trained_model() {
    let (dir, _) = trained(&["--instances", "3000"]);
    let simhash = [
        "dedup",
        "--input",
        "labeled.jsonl",
        "--method",
        "simhash",
        "--bits",
        "256",
        "--max-hamming",
        "60",
    ];
    let learned = ok(&ndd(
        &[&simhash[..], &["--weights", "w.ndl"]].concat(),
        dir.path(),
    ));
    assert!(learned.contains("learned weights"), "{learned}");
    let binary = ok(&ndd(&simhash, dir.path()));
    let pairs = |out: &str| -> usize {
        let line = out.lines().find(|l| l.starts_with("pairs:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    assert!(pairs(&learned) > pairs(&binary), "{learned}\n{binary}");
    // Refused: another method, both weightings, a file that is not a model.
    fails(
        &ndd(
            &[
                "dedup",
                "--input",
                "labeled.jsonl",
                "--method",
                "imatch",
                "--weights",
                "w.ndl",
            ],
            dir.path(),
        ),
        2,
        "--weights belongs to --method minhash or simhash",
    );
    fails(
        &ndd(
            &[
                &simhash[..],
                &["--weights", "w.ndl", "--weighting", "tfidf"],
            ]
            .concat(),
            dir.path(),
        ),
        2,
        "cannot be used with",
    );
    fails(
        &ndd(
            &[&simhash[..], &["--weights", "labeled.jsonl"]].concat(),
            dir.path(),
        ),
        1,
        "corrupt data",
    );
}

/// Pairs of `--pairs-out` whose ids (`cluster-variant`) share a cluster, and the others.
fn right_and_wrong(pairs_tsv: &str) -> (usize, usize) {
    let cluster = |id: &str| id.split('-').next().unwrap().to_owned();
    let mut counts = (0, 0);
    for line in pairs_tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if cluster(f[0]) == cluster(f[1]) {
            counts.0 += 1;
        } else {
            counts.1 += 1;
        }
    }
    counts
}

#[test]
fn minhash_uses_a_model_trained_for_jaccard() {
    let (dir, trained) = trained(&["--objective", "jaccard", "--instances", "3000"]);
    assert!(trained.contains("jaccard"), "{trained}");
    let minhash = [
        "dedup",
        "--input",
        "labeled.jsonl",
        "--num-perm",
        "512",
        "--threshold",
        "0.5",
        "--no-exact-pass",
    ];
    let learned = ok(&ndd(
        &[
            &minhash[..],
            &["--weights", "w.ndl", "--pairs-out", "learned.tsv"],
        ]
        .concat(),
        dir.path(),
    ));
    assert!(learned.contains("ICWS over learned"), "{learned}");
    let binary = ok(&ndd(
        &[&minhash[..], &["--pairs-out", "binary.tsv"]].concat(),
        dir.path(),
    ));
    let read = |name: &str| fs::read_to_string(dir.path().join(name)).unwrap();
    let (learned_right, learned_wrong) = right_and_wrong(&read("learned.tsv"));
    let (binary_right, binary_wrong) = right_and_wrong(&read("binary.tsv"));
    // Measured: learned 12 right, 0 wrong; binary none (the boilerplate keeps set
    // Jaccard of true pairs below 0.5).
    assert!(
        learned_right > binary_right && learned_wrong <= binary_wrong,
        "learned {learned_right} right / {learned_wrong} wrong, binary {binary_right} / {binary_wrong}\n{learned}\n{binary}"
    );
}

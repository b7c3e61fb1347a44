//! The folder form of a saved index through the tool: `--index-out DIR/` and
//! `--index-in DIR --add` give the single file's pairs, and a run killed (SIGKILL) at
//! any moment of an append leaves a folder that loads as before or after the batch.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{fails, ndd, ok};
use ndd_pipeline::DedupIndex;

/// A temporary folder holding the bundled corpus split in two batch files: `a.jsonl`
/// and `b.jsonl`.
fn batches() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let corpus = bundled();
    let lines: Vec<&str> = corpus.lines().collect();
    let half = lines.len() / 2;
    std::fs::write(dir.join("a.jsonl"), lines[..half].join("\n") + "\n").unwrap();
    std::fs::write(dir.join("b.jsonl"), lines[half..].join("\n") + "\n").unwrap();
    tmp
}

/// The bundled corpus, read when the test runs (not compiled in), as the other tests
/// of the bundled corpus do: the package built from its .crate alone has no data/
/// folder.
fn bundled() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    let corpus = std::fs::read_to_string(path).unwrap();
    assert!(corpus.lines().count() > 500);
    corpus
}

/// Indexes the first batch, `a.jsonl` in `d`, into `out` (a file, or a folder when
/// it ends in `/`).
fn index_a(d: &Path, out: &str) {
    ok(&ndd(
        &["dedup", "--input", "a.jsonl", "--index-out", out],
        d,
    ));
}

#[test]
fn batches_through_a_folder_give_the_single_files_pairs_and_index() {
    let tmp = batches();
    let d = tmp.path();
    index_a(d, "ix/");
    index_a(d, "ix.ndd");
    let segment1 = std::fs::read(d.join("ix/segment-00000001.ndds")).unwrap();
    for ix in ["ix", "ix.ndd"] {
        let pairs = format!("{ix}.tsv");
        ok(&ndd(
            &[
                "dedup",
                "--input",
                "b.jsonl",
                "--index-in",
                ix,
                "--add",
                "--pairs-out",
                &pairs,
            ],
            d,
        ));
    }
    assert_eq!(
        std::fs::read(d.join("ix.tsv")).unwrap(),
        std::fs::read(d.join("ix.ndd.tsv")).unwrap()
    );
    assert!(std::fs::read(d.join("ix.tsv")).unwrap().len() > 1000);
    assert_eq!(
        std::fs::read(d.join("ix/segment-00000001.ndds")).unwrap(),
        segment1
    );
    assert_eq!(
        DedupIndex::load(&d.join("ix")).unwrap().to_bytes(),
        DedupIndex::load(&d.join("ix.ndd")).unwrap().to_bytes()
    );
    // Queries read both forms alike.
    std::fs::write(
        d.join("q.jsonl"),
        std::fs::read_to_string(d.join("a.jsonl"))
            .unwrap()
            .lines()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )
    .unwrap();
    for ix in ["ix", "ix.ndd"] {
        let out = format!("{ix}.q");
        ok(&ndd(
            &[
                "query", "--index", ix, "--input", "q.jsonl", "--top-k", "3", "--out", &out,
            ],
            d,
        ));
    }
    assert_eq!(
        std::fs::read(d.join("ix.q")).unwrap(),
        std::fs::read(d.join("ix.ndd.q")).unwrap()
    );
    // A folder is not an output the other options write.
    fails(
        &ndd(&["dedup", "--input", "a.jsonl", "--pairs-out", "ix"], d),
        2,
        "is a folder",
    );
}

/// A fixed sequence of delays in `0..max` (splitmix64).
fn delays(seed: u64, n: usize, max: Duration) -> Vec<Duration> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            max.mul_f64((z >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

#[test]
fn a_run_killed_during_an_append_leaves_the_state_before_or_after() {
    let tmp = batches();
    let d = tmp.path();
    // The reference: before and after the append, and how long an append takes.
    index_a(d, "ref/");
    let before = DedupIndex::load(&d.join("ref")).unwrap().to_bytes();
    let add = [
        "dedup",
        "--input",
        "b.jsonl",
        "--index-in",
        "ix",
        "--add",
        "--quiet",
    ];
    let started = Instant::now();
    let mut args = add;
    args[4] = "ref";
    ok(&ndd(&args, d));
    let took = started.elapsed();
    let after = DedupIndex::load(&d.join("ref")).unwrap().to_bytes();
    assert_ne!(before, after);

    let mut outcomes = Vec::new();
    for (run, delay) in delays(28, 10, took.mul_f64(1.0)).into_iter().enumerate() {
        let ix = d.join("ix");
        let _ = std::fs::remove_dir_all(&ix);
        index_a(d, "ix/");
        let mut child = common::ndd_command(&add, d)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL; it may have finished already
        child.wait().unwrap();
        let now = DedupIndex::load(&ix).unwrap().to_bytes();
        assert!(
            now == before || now == after,
            "run {run}, killed after {delay:?}: neither the state before nor after"
        );
        outcomes.push(if now == before { "before" } else { "after" });
        // A killed run leaves its locks, removed by hand as the error says; the
        // batch added again gives the state after.
        let _ = std::fs::remove_file(d.join(".ix.ndd-lock"));
        let _ = std::fs::remove_file(ix.join("WRITER-LOCK"));
        if now == before {
            ok(&ndd(&add, d));
            assert_eq!(
                DedupIndex::load(&ix).unwrap().to_bytes(),
                after,
                "run {run}"
            );
            let names: Vec<String> = std::fs::read_dir(&ix)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("segment-"))
                .collect();
            assert_eq!(names.len(), 2, "run {run}: {names:?}");
        }
    }
    eprintln!("killed runs left the state: {outcomes:?}");
}

/// Five batches through a folder (read one segment at a time) and through a single
/// file (loaded whole): every batch's kept documents, annotations, clusters and pairs
/// are the same bytes, with `--add` and without it (checked against the folder as it
/// is, nothing saved), and the folder loads as the file's index.
#[test]
fn five_batches_through_a_folder_read_by_segment_give_the_single_files_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let corpus = bundled();
    let lines: Vec<&str> = corpus.lines().collect();
    let n = lines.len();
    for b in 0..6 {
        let part = &lines[b * n / 6..(b + 1) * n / 6];
        std::fs::write(d.join(format!("b{b}.jsonl")), part.join("\n") + "\n").unwrap();
    }
    index_a_batch(d, "b0.jsonl", &["--index-out", "ix/"]);
    index_a_batch(d, "b0.jsonl", &["--index-out", "ix.ndd"]);
    let outputs = ["keep", "annotate", "clusters", "pairs"];
    let mut pairs = 0;
    for b in 1..6 {
        let input = format!("b{b}.jsonl");
        for add in [false, true] {
            for ix in ["ix", "ix.ndd"] {
                let mut args = vec!["--index-in", ix];
                if add {
                    args.push("--add");
                }
                let names: Vec<String> = outputs
                    .iter()
                    .map(|o| format!("{ix}.{b}.{add}.{o}"))
                    .collect();
                for (o, name) in outputs.iter().zip(&names) {
                    args.push(match *o {
                        "keep" => "--keep-out",
                        "annotate" => "--annotate-out",
                        "clusters" => "--clusters-out",
                        _ => "--pairs-out",
                    });
                    args.push(name);
                }
                index_a_batch(d, &input, &args);
            }
            for o in outputs {
                let folder = std::fs::read(d.join(format!("ix.{b}.{add}.{o}"))).unwrap();
                let file = std::fs::read(d.join(format!("ix.ndd.{b}.{add}.{o}"))).unwrap();
                assert_eq!(folder, file, "batch {b}, --add {add}, {o}");
                if o == "pairs" {
                    pairs += folder.iter().filter(|&&c| c == b'\n').count();
                }
            }
        }
    }
    // 5 batches of the bundled corpus find pairs in most of them.
    assert!(pairs > 50, "{pairs}");
    assert_eq!(
        DedupIndex::load(&d.join("ix")).unwrap().to_bytes(),
        DedupIndex::load(&d.join("ix.ndd")).unwrap().to_bytes()
    );
    assert!(d.join("ix/segment-00000006.ndds").exists());
}

/// Runs `ndd dedup --input input` with `args` in `d`.
fn index_a_batch(d: &Path, input: &str, args: &[&str]) {
    let mut all = vec!["dedup", "--input", input];
    all.extend_from_slice(args);
    ok(&ndd(&all, d));
}

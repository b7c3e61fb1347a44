//! `ndd query` run as a user runs it: against an index saved by `ndd dedup
//! --index-out` from part of the bundled Debian corpus, checked against brute force
//! over independently computed signatures and shingle sets; bad input refused.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::{fails, ndd, ok, usage_errors};
use ndd_core::{DocSketcher, FeatureExtractor, Signature};
use ndd_minhash::MinHasher;

/// The bundled corpus of the repository: (id, text, record line).
fn debian() -> Vec<(String, String, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_owned(),
                v["text"].as_str().unwrap().to_owned(),
                l.to_owned(),
            )
        })
        .collect()
}

/// Parsed output: per line the query id and its (neighbour id, score) list.
fn results(s: &str) -> Vec<(String, Vec<(String, f64)>)> {
    s.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let n = v["neighbours"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| {
                    (
                        n["id"].as_str().unwrap().to_owned(),
                        n["score"].as_f64().unwrap(),
                    )
                })
                .collect();
            (v["id"].as_str().unwrap().to_owned(), n)
        })
        .collect()
}

/// Writes the first `n` documents as the indexed corpus and saves their index (no
/// exact pass, so every document is searchable).
fn index(dir: &Path, docs: &[(String, String, String)], n: usize) {
    index_with(dir, docs, n, &[]);
}

/// As [`index`], with more options for `ndd dedup`.
fn index_with(dir: &Path, docs: &[(String, String, String)], n: usize, extra: &[&str]) {
    let lines: Vec<&str> = docs[..n].iter().map(|d| d.2.as_str()).collect();
    fs::write(dir.join("corpus.jsonl"), lines.join("\n") + "\n").unwrap();
    let mut args = vec![
        "dedup",
        "-q",
        "--input",
        "corpus.jsonl",
        "--no-exact-pass",
        "--index-out",
        "corpus.ndd",
    ];
    args.extend_from_slice(extra);
    ok(&ndd(&args, dir));
}

/// `ndd query` of the queries in `input` against `corpus.ndd` in `dir`, with `extra`
/// options.
fn query(dir: &Path, input: &str, extra: &[&str]) -> std::process::Output {
    query_index(dir, "corpus.ndd", input, extra)
}

/// `ndd query` of the queries in `input` against the index `index` in `dir`, with
/// `extra` options.
fn query_index(dir: &Path, index: &str, input: &str, extra: &[&str]) -> std::process::Output {
    ndd(
        &[&["query", "--index", index, "--input", input][..], extra].concat(),
        dir,
    )
}

fn queries(dir: &Path, name: &str, qs: &[(String, String)]) {
    let lines: Vec<String> = qs
        .iter()
        .map(|(id, text)| serde_json::json!({ "id": id, "text": text }).to_string())
        .collect();
    fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
}

#[test]
fn top_k_matches_brute_force_over_the_same_signatures() {
    // An index saved with `--verify method` keeps no shingle sets: scores are the
    // MinHash estimate, each with its standard error.
    top_k_against_brute_force(false);
}

#[test]
fn top_k_of_an_index_with_sets_matches_brute_force_by_exact_jaccard() {
    top_k_against_brute_force(true);
}

fn top_k_against_brute_force(exact: bool) {
    let dir = tempfile::tempdir().unwrap();
    let docs = debian();
    let n = 300;
    if exact {
        index(dir.path(), &docs, n);
    } else {
        index_with(dir.path(), &docs, n, &["--verify", "method"]);
    }
    let qs: Vec<(String, String)> = docs[n..n + 60]
        .iter()
        .map(|d| (d.0.clone(), d.1.clone()))
        .collect();
    queries(dir.path(), "q.jsonl", &qs);
    let k = 5;
    let out = ok(&query(dir.path(), "q.jsonl", &["--top-k", "5"]));
    let res = results(&out);
    assert_eq!(res.len(), qs.len());
    // A standard error beside each estimate, none beside an exact score.
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for n in v["neighbours"].as_array().unwrap() {
            assert_eq!(n.get("std_error").is_some(), !exact, "{n}");
        }
    }
    let extractor = ndd_pipeline::Shingles::Words(3)
        .extractor_with(false)
        .unwrap();
    let sets: Vec<_> = docs[..n]
        .iter()
        .map(|d| extractor.feature_set(&d.1))
        .collect();
    // The oracle: MinHash with the defaults of `ndd dedup` (128 values, seed 0, word
    // 3-grams), every indexed document estimated.
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .seed(0)
        .build_with(
            ndd_pipeline::Shingles::Words(3)
                .extractor_with(false)
                .unwrap(),
        )
        .unwrap();
    let sigs: Vec<_> = docs[..n].iter().map(|d| hasher.sketch(&d.1)).collect();
    let (mut found, mut wanted) = (0, 0);
    for ((qid, text), (id, got)) in qs.iter().zip(&res) {
        assert_eq!(qid, id, "one line per query, in input order");
        assert!(got.len() <= k);
        assert!(got.windows(2).all(|w| w[0].1 >= w[1].1));
        let qs = hasher.sketch(text);
        let qset = extractor.feature_set(text);
        // Exact Jaccard of the shingle sets for an index with sets, the estimate
        // otherwise.
        let mut brute: Vec<(&str, f64)> = docs[..n]
            .iter()
            .zip(&sigs)
            .zip(&sets)
            .map(|((d, s), set)| {
                let score = if exact {
                    ndd_core::jaccard(qset.as_slice(), set.as_slice())
                } else {
                    s.similarity(&qs).unwrap().value()
                };
                (d.0.as_str(), score)
            })
            .collect();
        brute.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (gid, score) in got {
            let b = brute.iter().find(|b| b.0 == gid).unwrap();
            assert!((b.1 - score).abs() < 1e-12, "{gid}: {score} vs {}", b.1);
        }
        let kth = brute[k - 1].1;
        let acceptable: BTreeSet<&str> = brute.iter().filter(|b| b.1 >= kth).map(|b| b.0).collect();
        found += got
            .iter()
            .filter(|g| acceptable.contains(g.0.as_str()))
            .count();
        wanted += k;
    }
    let recall = found as f64 / wanted as f64;
    assert!(recall >= 0.9, "recall {recall}");

    // --out writes the same lines atomically, no temporary file left beside it.
    ok(&query(
        dir.path(),
        "q.jsonl",
        &["--top-k", "5", "--out", "r.jsonl", "-q"],
    ));
    assert_eq!(fs::read_to_string(dir.path().join("r.jsonl")).unwrap(), out);
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("tmp")), "{names:?}");
    // A different forest shape still answers, and an indexed text finds itself first.
    queries(
        dir.path(),
        "self.jsonl",
        &[(docs[7].0.clone(), docs[7].1.clone())],
    );
    let out = ok(&query(
        dir.path(),
        "self.jsonl",
        &[
            "--top-k",
            "1",
            "--trees",
            "16",
            "--depth",
            "8",
            "--candidates-per-result",
            "8",
        ],
    ));
    let res = results(&out);
    assert_eq!(res[0].1[0].1, 1.0);
}

#[test]
fn containment_finds_the_documents_that_contain_each_query() {
    let dir = tempfile::tempdir().unwrap();
    let docs = debian();
    let n = 300;
    index(dir.path(), &docs, n);
    // Queries: the middle half of the words of documents of 200 words or more.
    let mut qs = Vec::new();
    for d in docs[..n].iter().step_by(5) {
        let words: Vec<&str> = d.1.split_whitespace().collect();
        if words.len() >= 200 {
            let q = words[words.len() / 4..3 * words.len() / 4].join(" ");
            qs.push((d.0.clone(), q));
        }
    }
    assert!(qs.len() >= 20);
    queries(dir.path(), "q.jsonl", &qs);
    let extractor = ndd_pipeline::Shingles::Words(3)
        .extractor_with(false)
        .unwrap();
    let set = |t: &str| extractor.feature_set(t);
    let sets: Vec<_> = docs[..n].iter().map(|d| set(&d.1)).collect();
    for weight in ["0.5", "0.9"] {
        let out = ok(&query(
            dir.path(),
            "q.jsonl",
            &["--containment", "0.8", "--fn-weight", weight],
        ));
        let res = results(&out);
        assert_eq!(res.len(), qs.len());
        let (mut own, mut close, mut returned) = (0, 0, 0);
        for ((source, text), (_, got)) in qs.iter().zip(&res) {
            assert!(got.iter().all(|g| (0.8..=1.0).contains(&g.1)));
            assert!(got.windows(2).all(|w| w[0].1 >= w[1].1));
            own += usize::from(got.iter().any(|g| &g.0 == source));
            let q = set(text);
            for (gid, _) in got {
                let i = docs.iter().position(|d| &d.0 == gid).unwrap();
                let c = ndd_core::containment(q.as_slice(), sets[i].as_slice());
                close += usize::from(c >= 0.65);
                returned += 1;
            }
        }
        // The source contains its query; equal weights find most, 0.9 nearly all.
        let own = own as f64 / qs.len() as f64;
        let bound = if weight == "0.5" { 0.85 } else { 0.95 };
        assert!(own >= bound, "fn weight {weight}: source found for {own}");
        // What is returned by the estimate really is mostly contained.
        let precision = close as f64 / returned as f64;
        assert!(
            precision >= 0.9,
            "fn weight {weight}: precision {precision}"
        );
    }
}

#[test]
fn bad_input_and_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let docs = debian();
    index(d, &docs, 40);
    fs::write(
        d.join("q.jsonl"),
        "{\"id\":\"ok\",\"text\":\"some words of a query text here\"}\nnot json\n",
    )
    .unwrap();
    let run = |extra: &[&str]| query(d, "q.jsonl", extra);
    // A bad line is skipped with a warning, or stops the run.
    let out = run(&["--top-k", "2"]);
    assert_eq!(results(&ok(&out)).len(), 1);
    assert!(common::text(&out.stderr).contains("q.jsonl:2"));
    fails(
        &run(&["--top-k", "2", "--on-error", "stop"]),
        1,
        "q.jsonl:2",
    );
    // Usage errors: (options, what the message names).
    let usage: [(&[&str], &str); 12] = [
        (&["--top-k", "0"], "--top-k"),
        (&["--containment", "0"], "(0, 1]"),
        (&["--containment", "1.5"], "(0, 1]"),
        (&["--containment", "nan"], "(0, 1]"),
        (&[], "--top-k"),
        (&["--top-k", "2", "--containment", "0.5"], "cannot be used"),
        (&["--top-k", "2", "--fn-weight", "0.9"], "cannot be used"),
        (&["--containment", "0.5", "--trees", "4"], "cannot be used"),
        (&["--top-k", "2", "--trees", "64", "--depth", "4"], "128"),
        (
            &["--top-k", "2", "--candidates-per-result", "0"],
            "at least 1",
        ),
        (&["--top-k", "2", "--out", "q.jsonl"], "is the input"),
        (&["--top-k", "2", "--out", "corpus.ndd"], "is the index"),
    ];
    usage_errors(run, &usage);
    // Missing, corrupt and truncated indexes.
    let other = |index: &str| query_index(d, index, "q.jsonl", &["--top-k", "1"]);
    fails(&other("missing.ndd"), 1, "missing.ndd");
    fails(&other("q.jsonl"), 1, "q.jsonl");
    let bytes = fs::read(d.join("corpus.ndd")).unwrap();
    fs::write(d.join("cut.ndd"), &bytes[..bytes.len() / 2]).unwrap();
    fails(&other("cut.ndd"), 1, "cut.ndd");
    // An index of the previous byte form answers top-k and refuses containment.
    let v1 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pipeline/tests/data/index-v1.nddx"
    );
    fs::copy(v1, d.join("v1.nddx")).unwrap();
    fs::write(
        d.join("v1q.jsonl"),
        "{\"id\":\"q\",\"text\":\"the committee approved the budget for the new library building on monday after a long debate\"}\n",
    )
    .unwrap();
    let out = ok(&query_index(d, "v1.nddx", "v1q.jsonl", &["--top-k", "1"]));
    assert_eq!(results(&out)[0].1, vec![("a".to_owned(), 1.0)]);
    fails(
        &query_index(d, "v1.nddx", "v1q.jsonl", &["--containment", "0.5"]),
        1,
        "set sizes",
    );
}

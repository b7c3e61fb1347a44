//! The bucket bound (`--max-bucket-scan`) said when it was hit: a warning in the
//! summary and on the `--report-out` page, with the numbers; none when it was not.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::fs;
use std::path::Path;

use crate::common::{ndd, ok};

const DEBIAN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/debian-copyright.jsonl"
);

/// `n` identical lines (ids `0..n`): with no exact pass, the `j`-th meets `j` earlier
/// copies in every band.
fn copies(dir: &Path, n: usize) -> String {
    let text = "dear customer your parcel was delivered to the front door of the house \
                on the main street today and we thank you for choosing our service";
    let s: String = (0..n)
        .map(|i| {
            format!(
                "{}\n",
                serde_json::json!({ "id": i.to_string(), "text": text })
            )
        })
        .collect();
    fs::write(dir.join("copies.jsonl"), s).unwrap();
    "copies.jsonl".to_owned()
}

/// The summary's `warning:` lines.
fn warnings(summary: &str) -> Vec<&str> {
    summary
        .lines()
        .filter_map(|l| l.strip_prefix("warning:"))
        .map(str::trim)
        .collect()
}

/// The summary of `ndd dedup --input INPUT ARGS...` run in `dir` and its one warning
/// line (the test fails on another count).
fn dedup_warning(dir: &Path, input: &str, args: &[&str]) -> (String, String) {
    let mut all = vec!["dedup", "--input", input];
    all.extend_from_slice(args);
    let summary = ok(&ndd(&all, dir));
    let w = warnings(&summary);
    assert_eq!(w.len(), 1, "{summary}");
    let line = w[0].to_owned();
    (summary, line)
}

#[test]
fn a_hot_bucket_is_reported_in_the_summary_and_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 2,000 near-identical lines, the default bound (256): the bound is hit.
    let mut s = String::new();
    for i in 0..2_000 {
        s.push_str(&format!(
            "{{\"id\": \"{i}\", \"text\": \"we urge the agency to adopt the strictest \
             possible limits on mercury emissions from power plants near our homes \
             comment number {i}\"}}\n"
        ));
    }
    fs::write(d.join("near.jsonl"), s).unwrap();
    let (summary, w) = dedup_warning(d, "near.jsonl", &["--report-out", "report.html"]);
    assert!(
        w.contains("documents read only 256 of a bucket's members")
            && w.ends_with("pairs in hot buckets were cut; --max-bucket-scan raises the bound"),
        "{summary}"
    );
    // Some of the 2,000 - 257 documents that have more than 256 before them.
    let cut: u64 = w.split_whitespace().next().unwrap().parse().unwrap();
    assert!(cut > 0 && cut <= 2_000 - 257, "{summary}");
    let html = fs::read_to_string(d.join("report.html")).unwrap();
    assert!(
        html.contains(&format!("{cut} documents read only 256")),
        "no warning on the page"
    );

    // Exact counts: 300 identical lines, no exact pass, bound 100: the copies 101..299
    // are cut, in each of the bands.
    let input = copies(d, 300);
    let (summary, w) = dedup_warning(d, &input, &["--no-exact-pass", "--max-bucket-scan", "100"]);
    assert!(
        w.starts_with("199 documents read only 100 of a bucket's members ("),
        "{summary}"
    );
    // The same out of core, counted in its shuffle.
    let (summary, w) = dedup_warning(
        d,
        &input,
        &[
            "--no-exact-pass",
            "--max-bucket-scan",
            "100",
            "--work-dir",
            "work",
        ],
    );
    assert!(summary.contains("out of core"), "{summary}");
    assert!(
        w.starts_with("199 documents read only 100 of a bucket's members ("),
        "{summary}"
    );
    // A bound above the bucket: nothing cut, no warning.
    let summary = ok(&ndd(
        &[
            "dedup",
            "--input",
            &input,
            "--no-exact-pass",
            "--max-bucket-scan",
            "299",
        ],
        d,
    ));
    assert!(warnings(&summary).is_empty(), "{summary}");
}

#[test]
fn the_bundled_corpus_hits_no_bound() {
    let dir = tempfile::tempdir().unwrap();
    let summary = ok(&ndd(
        &["dedup", "--input", DEBIAN, "--report-out", "report.html"],
        dir.path(),
    ));
    assert!(warnings(&summary).is_empty(), "{summary}");
    let html = fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(!html.contains("of a bucket's members"));
}

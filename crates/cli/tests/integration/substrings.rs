//! `ndd substrings`, run as a user runs it: spans shared verbatim by documents cut
//! from JSONL (plain, gzip, standard input) and folders, every other byte of a record
//! kept; ranges and report written; a memory budget that forces shards gives the same
//! outputs; bad options refused.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;
use std::io::{Read, Write};
use std::path::Path;

use common::{dir_with, fails, json_lines, ndd, ndd_stdin, ok, usage_errors};
use serde_json::{Value, json};

/// The boilerplate the documents share: 61 bytes.
const SHARED: &str = "This text is licensed under the Creative Commons licence 4.0.";

/// Document `i`: a prefix ending in its own digit, the shared text, a suffix starting
/// with its own digit, so the span shared is exactly `SHARED`.
fn parts(i: usize) -> (String, String) {
    (
        format!("Document number {i} says <{i}"),
        format!("{i}> and ends."),
    )
}

/// Three documents with `middle` between their parts (the third with odd spacing
/// and more fields) and one without, as JSONL.
fn corpus_with(middle: &str) -> String {
    let mut lines = Vec::new();
    for i in 0..2 {
        let (p, s) = parts(i);
        lines.push(json!({"id": format!("d{i}"), "text": format!("{p}{middle}{s}")}).to_string());
    }
    let (p, s) = parts(2);
    lines.push(format!(
        "{{\"id\":\"d2\",  \"n\": 1.50, \"text\": {}, \"meta\": {{\"k\": [1, 2]}}}}",
        json!(format!("{p}{middle}{s}"))
    ));
    lines.push(
        json!({"id": "alone", "text": "Nothing of this one is found elsewhere."}).to_string(),
    );
    lines.join("\n") + "\n"
}

/// The input: the documents with `SHARED`.
fn fixture() -> String {
    corpus_with(SHARED)
}

/// The expected `--out` of [`fixture`]: the same lines, each text without `SHARED`.
fn expected_out() -> String {
    corpus_with("")
}

/// The expected `--ranges-out` of [`fixture`].
fn expected_ranges() -> Vec<Value> {
    (0..3)
        .map(|i| {
            let start = parts(i).0.len();
            json!({"id": format!("d{i}"), "ranges": [[start, start + SHARED.len()]]})
        })
        .collect()
}

/// `ndd substrings --input INPUT` in `dir` with `extra` options.
fn substrings(dir: &Path, input: &str, extra: &[&str]) -> std::process::Output {
    ndd(
        &[&["substrings", "--input", input][..], extra].concat(),
        dir,
    )
}

/// `ndd substrings` on `c.jsonl` in `dir`, spans of 40 bytes cut to `cut.jsonl`,
/// ranges to `ranges.jsonl`, with `extra` options.
fn cut(dir: &Path, extra: &[&str]) -> std::process::Output {
    let options = ["--min-length", "40", "--out", "cut.jsonl"];
    let ranges = ["--ranges-out", "ranges.jsonl"];
    substrings(dir, "c.jsonl", &[&options[..], &ranges, extra].concat())
}

/// The records `cut` wrote to `cut.jsonl` and `ranges.jsonl` in `dir` are the
/// expected ones.
#[track_caller]
fn assert_cut_as_expected(dir: &Path) {
    assert_eq!(
        fs::read_to_string(dir.join("cut.jsonl")).unwrap(),
        expected_out()
    );
    assert_eq!(json_lines(&dir.join("ranges.jsonl")), expected_ranges());
}

#[test]
fn cuts_the_shared_span_and_keeps_every_other_byte() {
    let dir = dir_with("c.jsonl", fixture());
    let out = cut(dir.path(), &["--report-out", "report.json"]);
    let summary = ok(&out);
    assert_cut_as_expected(dir.path());
    let report: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["documents"], 4);
    assert_eq!(report["documents_with_spans"], 3);
    assert_eq!(report["spans"], 3);
    assert_eq!(report["bytes_cut"], 3 * SHARED.len());
    assert_eq!(report["most_repeated"][0]["text"], SHARED);
    assert_eq!(report["most_repeated"][0]["count"], 3);
    assert!(
        summary.contains(&format!("cut:         {} bytes", 3 * SHARED.len())),
        "{summary}"
    );
    // Longer than the shared text: nothing is cut, the records come back unchanged.
    let out = substrings(
        dir.path(),
        "c.jsonl",
        &["--min-length", "62", "--out", "same.jsonl"],
    );
    ok(&out);
    assert_eq!(
        fs::read_to_string(dir.path().join("same.jsonl")).unwrap(),
        fixture()
    );
}

#[test]
fn a_budget_that_forces_shards_gives_the_same_outputs() {
    let dir = dir_with("c.jsonl", fixture());
    // 333 bytes in all, the longest document 98: passes of 210 bytes (8 bytes of
    // working memory each) hold two shards of at most 105 bytes: four shards, six
    // passes. The smallest budget for shards of 98 bytes is 2 x 98 x 8 = 1568.
    let out = cut(dir.path(), &["--memory-budget", "1680"]);
    let summary = ok(&out);
    assert!(summary.contains("passes:      6 "), "{summary}");
    assert_cut_as_expected(dir.path());
    let out = substrings(dir.path(), "c.jsonl", &["--memory-budget", "1000"]);
    fails(
        &out,
        2,
        "invalid --memory-budget: must be at least 1568 bytes",
    );
}

#[test]
fn gzip_input_and_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(
        fs::File::create(dir.path().join("c.jsonl.gz")).unwrap(),
        flate2::Compression::default(),
    );
    gz.write_all(fixture().as_bytes()).unwrap();
    gz.finish().unwrap();
    let out = substrings(
        dir.path(),
        "c.jsonl.gz",
        &["--min-length", "40", "--out", "cut.jsonl.gz"],
    );
    ok(&out);
    let mut text = String::new();
    flate2::read::GzDecoder::new(fs::File::open(dir.path().join("cut.jsonl.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, expected_out());
}

#[test]
fn standard_input_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = ndd_stdin(
        &[
            "substrings",
            "--input",
            "-",
            "--min-length",
            "40",
            "--out",
            "-",
        ],
        dir.path(),
        fixture().as_bytes(),
    );
    assert_eq!(ok(&out), expected_out());
    assert!(common::text(&out.stderr).contains("spans:       3 "));
}

#[test]
fn a_folder_of_files() {
    let (dir, folder) = common::dir_with_folder("docs");
    for i in 0..2 {
        let (p, s) = parts(i);
        fs::write(folder.join(format!("{i}.txt")), format!("{p}{SHARED}{s}")).unwrap();
    }
    fs::write(
        folder.join("z.txt"),
        "Nothing of this one is found elsewhere.",
    )
    .unwrap();
    let out = substrings(
        dir.path(),
        "docs",
        &["--min-length", "40", "--out", "cut.jsonl"],
    );
    ok(&out);
    let got = json_lines(&dir.path().join("cut.jsonl"));
    let text_of = |name: &str| {
        got.iter()
            .find(|v| v["id"].as_str().unwrap().ends_with(name))
            .map(|v| v["text"].as_str().unwrap().to_owned())
            .unwrap()
    };
    for i in 0..2 {
        let (p, s) = parts(i);
        assert_eq!(text_of(&format!("{i}.txt")), format!("{p}{s}"));
    }
    assert_eq!(text_of("z.txt"), "Nothing of this one is found elsewhere.");
}

#[test]
fn a_span_starting_inside_a_character_takes_the_whole_character() {
    // 'é' is C3 A9 and 'ĩ' is C4 A9: the bytes shared start at A9, inside both.
    let docs = [format!("aé{SHARED}"), format!("bĩ{SHARED}")];
    let body: String = docs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": i, "text": t}).to_string() + "\n")
        .collect();
    let dir = dir_with("c.jsonl", body);
    let out = cut(dir.path(), &[]);
    ok(&out);
    let texts: Vec<String> = json_lines(&dir.path().join("cut.jsonl"))
        .iter()
        .map(|v| v["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["a", "b"]);
    let end = 3 + SHARED.len();
    assert_eq!(
        json_lines(&dir.path().join("ranges.jsonl")),
        [
            json!({"id": "0", "ranges": [[1, end]]}),
            json!({"id": "1", "ranges": [[1, end]]})
        ]
    );
}

#[test]
fn bad_options_are_usage_errors() {
    let dir = dir_with("c.jsonl", fixture());
    let run = |extra: &[&str]| {
        ndd(
            &[&["substrings", "--input", "c.jsonl"][..], extra].concat(),
            dir.path(),
        )
    };
    usage_errors(
        run,
        &[
            (
                &["--min-length", "0"],
                "invalid --min-length: must be at least 1",
            ),
            (&["--unit", "tokens"], "--unit"),
            (&["--out", "c.jsonl"], "--out c.jsonl: is the input"),
            (
                &["--out", "x.jsonl", "--ranges-out", "x.jsonl"],
                "each output needs its own file",
            ),
        ],
    );
}

/// Without --input, `ndd substrings` reads the bundled corpus as `ndd dedup` does, from
/// the program's location whatever the working directory: the same output as naming it.
#[test]
fn without_input_reads_the_bundled_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let summary = common::same_as_the_bundled_corpus(&["substrings"], dir.path());
    assert!(summary.contains("(the bundled corpus)"), "{summary}");
    assert!(summary.contains("documents:   562 read"), "{summary}");
}

/// `--order-field` does nothing for `ndd substrings`: not in its help, refused when
/// given.
#[test]
fn order_field_is_hidden_and_refused() {
    let dir = dir_with("c.jsonl", fixture());
    common::order_field_refused(
        "substrings",
        &["substrings", "--input", "c.jsonl", "--order-field", "date"],
        "--order-field: ndd substrings does not order documents",
        dir.path(),
    );
}

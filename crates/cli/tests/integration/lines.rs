//! `ndd lines` run as a user runs it: repeated lines cut from JSONL (plain, gzip,
//! standard input) and folder corpora with every other byte of the records kept, the
//! out-of-core count equal to the in-memory one, bad options and input refused.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{fails, ndd, ndd_stdin, ok, usage_errors};

const NAV: &str = "Home | News | Contact";
const COOKIES: &str = "We use cookies. Accept?";

/// A word of letters for `n` (the default normalization reads digits as 0, so
/// numbered words would all be one word).
fn word(mut n: u64) -> String {
    let mut w = String::new();
    loop {
        w.push(char::from(b'a' + u8::try_from(n % 26).unwrap()));
        n /= 26;
        if n == 0 {
            return w;
        }
    }
}

/// `docs` documents: the navigation line, a body of two lines of their own, the
/// cookie notice in every other one; and what each keeps with `--min-count 2`.
fn fixture(docs: u64) -> Vec<(String, String, String)> {
    (0..docs)
        .map(|i| {
            let body = format!("story {} begins\nand {} ends", word(2 * i), word(2 * i + 1));
            let text = if i % 2 == 0 {
                format!("{NAV}\n{body}\n{COOKIES}\n")
            } else {
                format!("  home |  NEWS | contact\r\n{body}\n")
            };
            // Both repeated lines go, line ends and all.
            (format!("d{i}"), text, format!("{body}\n"))
        })
        .collect()
}

/// A JSONL record with fields around the text, spelled as no serializer would
/// (spaces, a number's spelling, a nested object): all of it must survive.
fn record(id: &str, text: &str) -> String {
    format!(
        "{{\"id\" : \"{id}\", \"score\": 1.50, \"text\":{}, \"meta\": {{\"url\": \"https://x/{id}\"}} }}",
        serde_json::to_string(text).unwrap()
    )
}

fn jsonl(docs: &[(String, String, String)]) -> String {
    docs.iter()
        .map(|(id, text, _)| record(id, text) + "\n")
        .collect()
}

/// `ndd lines --input INPUT --min-count 2 --out OUT` and `extra` in `dir`: its
/// summary.
fn min_count_2(dir: &Path, input: &str, out: &str, extra: &[&str]) -> String {
    let mut args = vec!["lines", "--input", input, "--min-count", "2", "--out", out];
    args.extend_from_slice(extra);
    ok(&ndd(&args, dir))
}

#[test]
fn jsonl_records_keep_every_other_byte() {
    let docs = fixture(6);
    let dir = common::dir_with("in.jsonl", jsonl(&docs));
    let run = |input: &str| {
        min_count_2(
            dir.path(),
            input,
            "out.jsonl",
            &["--report-out", "report.json"],
        )
    };
    let summary = run("in.jsonl");
    let expected: String = docs
        .iter()
        .map(|(id, _, kept)| record(id, kept) + "\n")
        .collect();
    assert_eq!(
        fs::read_to_string(dir.path().join("out.jsonl")).unwrap(),
        expected
    );
    // The navigation line, in two spellings, is one unit: 6 occurrences; the cookie
    // notice 3; every other line is a document's own.
    assert!(
        summary.contains("removed:     every occurrence of a line seen 2 times or more"),
        "{summary}"
    );
    assert!(summary.contains("9 lines of 2 distinct units"), "{summary}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["documents"], 6);
    assert_eq!(report["units"], 6 * 3 + 3);
    assert_eq!(report["top"][0]["text"], NAV);
    assert_eq!(report["top"][0]["occurrences"], 6);
    assert_eq!(report["top"][1]["text"], COOKIES);
    assert_eq!(report["top"][1]["documents"], 3);
    let removed: u64 = docs
        .iter()
        .map(|(_, t, k)| (t.len() - k.len()) as u64)
        .sum();
    assert_eq!(report["removed_bytes"], removed);

    // The same file gzip-compressed gives the same records.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(jsonl(&docs).as_bytes()).unwrap();
    fs::write(dir.path().join("in.jsonl.gz"), gz.finish().unwrap()).unwrap();
    run("in.jsonl.gz");
    assert_eq!(
        fs::read_to_string(dir.path().join("out.jsonl")).unwrap(),
        expected
    );
}

#[test]
fn standard_input_to_standard_output() {
    let docs = fixture(4);
    let dir = tempfile::tempdir().unwrap();
    let out = ndd_stdin(
        &["lines", "--input", "-", "--keep-first", "--out", "-"],
        dir.path(),
        jsonl(&docs).as_bytes(),
    );
    let stdout = ok(&out);
    // The first document keeps its navigation line and cookie notice.
    let mut expected = record("d0", &docs[0].1) + "\n";
    for (id, _, kept) in &docs[1..] {
        expected += &(record(id, kept) + "\n");
    }
    assert_eq!(stdout, expected);
    // The summary went to stderr.
    assert!(common::text(&out.stderr).contains("every occurrence of a line after its first"));
}

#[test]
fn folders_and_paragraphs() {
    let (dir, folder) = common::dir_with_folder("docs");
    let footer = "This page is licensed\nunder CC-BY 4.0.";
    for (name, body) in [
        ("a.txt", "First text.\nStill first."),
        ("b.txt", "Second text."),
    ] {
        fs::write(folder.join(name), format!("{body}\n\n{footer}\n")).unwrap();
    }
    let summary = ok(&ndd(
        &[
            "lines",
            "--input",
            "docs",
            "--min-count",
            "2",
            "--unit",
            "paragraph",
            "--out",
            "out.jsonl",
            "--top",
            "1",
        ],
        dir.path(),
    ));
    let lines = common::json_lines(&dir.path().join("out.jsonl"));
    assert_eq!(
        lines[0],
        serde_json::json!({"id": "a.txt", "text": "First text.\nStill first.\n\n"})
    );
    assert_eq!(
        lines[1],
        serde_json::json!({"id": "b.txt", "text": "Second text.\n\n"})
    );
    assert!(
        summary.contains("2 paragraphs of 1 distinct units"),
        "{summary}"
    );
    // The sample is the paragraph as first seen, its line end shown as ⏎.
    assert!(
        summary.contains("  This page is licensed⏎under CC-BY 4.0.\n"),
        "{summary}"
    );
}

#[test]
fn drop_empty_and_min_length() {
    let dir = common::dir_with(
        "in.jsonl",
        [
            record("a", "ok\nShared line here\n"),
            record("b", "Shared line here\nok\n"),
            record("c", "Shared line here\n"),
        ]
        .join("\n"),
    );
    let run = |extra: &[&str]| {
        min_count_2(dir.path(), "in.jsonl", "out.jsonl", extra);
        fs::read_to_string(dir.path().join("out.jsonl")).unwrap()
    };
    // "ok" is repeated too, but shorter than 3 characters: kept. "c" is left out.
    assert_eq!(
        run(&["--min-length", "3", "--drop-empty"]),
        format!("{}\n{}\n", record("a", "ok\n"), record("b", "ok\n"))
    );
    assert_eq!(run(&[]).lines().count(), 3);
}

#[test]
fn out_of_core_equals_in_memory() {
    // 24,000 distinct lines: more than a 1M budget holds in memory (16,384).
    let mut text = String::new();
    for i in 0..400u64 {
        let own: Vec<String> = (0..60)
            .map(|j| format!("{} {}", word(i * 60 + j), word(j)))
            .collect();
        let t = format!("{NAV}\n{}\n{COOKIES}", own.join("\n"));
        text += &record(&format!("d{i}"), &t);
        text.push('\n');
    }
    let dir = common::dir_with("in.jsonl", text);
    let memory = min_count_2(
        dir.path(),
        "in.jsonl",
        "memory.jsonl",
        &["--report-out", "memory.json"],
    );
    assert!(memory.contains("count:       in memory"), "{memory}");
    let outofcore = min_count_2(
        dir.path(),
        "in.jsonl",
        "ooc.jsonl",
        &[
            "--report-out",
            "ooc.json",
            "--work-dir",
            "work",
            "--memory-budget",
            "1M",
        ],
    );
    assert!(
        outofcore.contains("count:       out of core"),
        "{outofcore}"
    );
    let read = |name: &str| fs::read(dir.path().join(name)).unwrap();
    assert_eq!(read("memory.jsonl"), read("ooc.jsonl"));
    assert_eq!(read("memory.json"), read("ooc.json"));
    // 400 documents lose two lines each.
    let report: serde_json::Value = serde_json::from_slice(&read("ooc.json")).unwrap();
    assert_eq!(report["removed_units"], 800);
    assert_eq!(report["distinct"], 24_002);
    // The runs are gone.
    assert_eq!(fs::read_dir(dir.path().join("work")).unwrap().count(), 0);
}

#[test]
fn bad_options_are_usage_errors() {
    let dir = common::dir_with("in.jsonl", jsonl(&fixture(2)));
    fs::create_dir(dir.path().join("folder")).unwrap();
    fs::write(dir.path().join("folder/a.txt"), "x").unwrap();
    let run = |args: &[&str]| ndd(args, dir.path());
    usage_errors(
        run,
        &[
            (
                &["lines", "--input", "in.jsonl", "--min-count", "1"],
                "invalid --min-count",
            ),
            (&["lines", "--input", "in.jsonl"], "--min-count"),
            (
                &[
                    "lines",
                    "--input",
                    "in.jsonl",
                    "--min-count",
                    "2",
                    "--keep-first",
                ],
                "cannot be used with",
            ),
            (
                &[
                    "lines",
                    "--input",
                    "in.jsonl",
                    "--keep-first",
                    "--memory-budget",
                    "1G",
                ],
                "--work-dir",
            ),
            (
                &[
                    "lines",
                    "--input",
                    "in.jsonl",
                    "--keep-first",
                    "--work-dir",
                    "w",
                    "--memory-budget",
                    "10K",
                ],
                "invalid --memory-budget",
            ),
            (
                &[
                    "lines",
                    "--input",
                    "folder",
                    "--keep-first",
                    "--work-dir",
                    "folder/w",
                ],
                "inside the input folder",
            ),
            (
                &[
                    "lines",
                    "--input",
                    "in.jsonl",
                    "--keep-first",
                    "--out",
                    "in.jsonl",
                ],
                "is the input",
            ),
            (
                &[
                    "lines",
                    "--input",
                    "in.jsonl",
                    "--keep-first",
                    "--unit",
                    "word",
                ],
                "--unit",
            ),
        ],
    );
}

#[test]
fn bad_input_fails_with_nothing_written() {
    let dir = common::dir_with("in.jsonl", format!("{}\nnot json\n", record("a", "x\ny")));
    let run = |args: &[&str]| ndd(args, dir.path());
    fails(
        &run(&[
            "lines",
            "--input",
            "missing.jsonl",
            "--keep-first",
            "--out",
            "out.jsonl",
        ]),
        1,
        "missing.jsonl",
    );
    fails(
        &run(&[
            "lines",
            "--input",
            "in.jsonl",
            "--keep-first",
            "--on-error",
            "stop",
            "--out",
            "out.jsonl",
        ]),
        1,
        "in.jsonl:2",
    );
    assert!(!Path::new(&dir.path().join("out.jsonl")).exists());
    // Skipped by default, with a warning; the good record is written.
    let out = run(&[
        "lines",
        "--input",
        "in.jsonl",
        "--keep-first",
        "--out",
        "out.jsonl",
    ]);
    ok(&out);
    assert!(common::text(&out.stderr).contains("in.jsonl:2"));
    assert_eq!(
        fs::read_to_string(dir.path().join("out.jsonl")).unwrap(),
        record("a", "x\ny") + "\n"
    );
}

/// Without --input, `ndd lines` reads the bundled corpus as `ndd dedup` does, from the
/// program's location whatever the working directory: the same output as naming it.
#[test]
fn without_input_reads_the_bundled_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let summary = common::same_as_the_bundled_corpus(&["lines", "--min-count", "3"], dir.path());
    assert!(summary.contains("(the bundled corpus)"), "{summary}");
    assert!(summary.contains("documents:   562 "), "{summary}");
}

/// `--order-field` does nothing for `ndd lines`: not in its help, refused when given.
#[test]
fn order_field_is_hidden_and_refused() {
    let dir = common::dir_with("in.jsonl", jsonl(&fixture(2)));
    common::order_field_refused(
        "lines",
        &[
            "lines",
            "--input",
            "in.jsonl",
            "--keep-first",
            "--order-field",
            "date",
        ],
        "--order-field: ndd lines counts units in input order",
        dir.path(),
    );
}

//! `ndd dedup --group durian`, run as a user runs it: two campaigns of one letter on
//! two dockets (text alone cannot tell them apart), with attributes and timestamps in
//! JSONL fields; the members output; the options refused.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;
use std::path::Path;

use common::{Words, clusters, fails, ndd, ok, usage_errors};
use serde_json::{Value, json};

/// splitmix64 words: `n` of them, from `seed`.
fn words(seed: u64, n: usize) -> Vec<String> {
    Words(seed).words(n, 50_000)
}

/// A letter of 80 words and its sibling (words 10 to 16 changed), 7 exact copies of
/// each on dockets D1 and D2 (the letter's earliest copy is `l-3` by the `t` field),
/// an edited copy of each with a block added, and an unrelated comment.
fn write_fixture(dir: &Path) {
    let letter = words(1, 80);
    let mut sibling = letter.clone();
    sibling.splice(10..17, words(2, 7));
    let block = words(3, 20).join(" ");
    let mut lines = Vec::new();
    for i in 0..7 {
        let t = if i == 3 { 1 } else { 100 + i };
        lines.push(
            json!({"id": format!("l-{i}"), "text": letter.join(" "), "docket": "D1", "t": t}),
        );
    }
    for i in 0..7 {
        lines.push(json!({"id": format!("s-{i}"), "text": sibling.join(" "), "docket": "D2", "t": 200 + i}));
    }
    lines.push(json!({"id": "l-edit", "text": format!("{}\n\n{block}", letter.join(" ")), "docket": "D1", "t": 300}));
    lines.push(json!({"id": "s-edit", "text": format!("{}\n\n{block}", sibling.join(" ")), "docket": "D2", "t": 301}));
    lines.push(json!({"id": "u", "text": words(4, 60).join(" "), "docket": null}));
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(dir.join("in.jsonl"), body).unwrap();
}

/// The run every test starts from: the fixture, candidates down to Jaccard 0.5,
/// timestamps from `t`.
const BASE: [&str; 7] = [
    "dedup",
    "--input",
    "in.jsonl",
    "--threshold",
    "0.5",
    "--timestamp-field",
    "t",
];

#[test]
fn docket_cannot_links_keep_sibling_campaigns_apart() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let base = [&BASE[..], &["-q"]].concat();
    // Connected components: one group of everything but the unrelated comment.
    ok(&ndd(
        &[&base[..], &["--clusters-out", "components.tsv"]].concat(),
        dir.path(),
    ));
    let comp = clusters(&dir.path().join("components.tsv"));
    let labels: std::collections::BTreeSet<&str> = comp
        .iter()
        .filter(|(id, _)| id != "u")
        .map(|(_, c)| c.as_str())
        .collect();
    assert_eq!(labels.len(), 1, "{comp:?}");

    // DURIAN with the docket as a cannot-link: two groups, each of 8, kept as the
    // letter's earliest copy and the sibling's first.
    ok(&ndd(
        &[
            &base[..],
            &[
                "--group",
                "durian",
                "--attribute-fields",
                "docket=cannot",
                "--clusters-out",
                "durian.tsv",
                "--members-out",
                "members.jsonl",
            ],
        ]
        .concat(),
        dir.path(),
    ));
    let dur = clusters(&dir.path().join("durian.tsv"));
    let label = |id: &str| dur.iter().find(|(i, _)| i == id).unwrap().1.clone();
    // Cluster labels are input positions of the kept documents: l-3 is line 4 (3),
    // s-0 is line 8 (7).
    for id in ["l-0", "l-3", "l-6", "l-edit"] {
        assert_eq!(label(id), "3", "{id}: {dur:?}");
    }
    for id in ["s-0", "s-6", "s-edit"] {
        assert_eq!(label(id), "7", "{id}: {dur:?}");
    }
    assert_eq!(label("u"), "16");

    let members = common::json_lines(&dir.path().join("members.jsonl"));
    assert_eq!(members.len(), 16);
    let line = |id: &str| members.iter().find(|m| m["id"] == id).unwrap();
    assert_eq!(line("l-3")["category"], "kept");
    assert_eq!(line("l-3")["reference_copy_of"], 7);
    assert_eq!(line("l-0")["category"], "exact");
    assert_eq!(line("l-edit")["group"], "l-3");
    assert_eq!(line("l-edit")["category"], "block-added");
    assert_eq!(line("l-edit")["unique_text"][0], words(3, 20).join(" "));
    assert_eq!(line("s-edit")["group"], "s-0");
}

#[test]
fn grouping_options_are_checked_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let run = |extra: &[&str]| {
        ndd(
            &[&["dedup", "--input", "in.jsonl"][..], extra].concat(),
            dir.path(),
        )
    };
    let durian = |extra: &'static str, value: &'static str| ["--group", "durian", extra, value];
    usage_errors(
        run,
        &[
            (&["--theta", "0.5"], "--theta belongs to --group durian"),
            (
                &["--attribute-fields", "docket"],
                "--attribute-fields belongs to --group durian",
            ),
            (
                &durian("--attribute-fields", "docket=maybe"),
                "expected cannot, family or both",
            ),
            (
                &durian("--attribute-fields", "text=cannot"),
                "already the id, text or order field",
            ),
            (
                &durian("--attribute-fields", "docket,docket=cannot"),
                "given twice",
            ),
            (&["--group", "durian", "--theta=-1"], "theta"),
            (
                &durian("--index-out", "ix.bin"),
                "--group durian cannot be combined with --index-out",
            ),
            (&["--group", "single-link"], "invalid value"),
        ],
    );
    assert!(!dir.path().join("ix.bin").exists());
}

#[test]
fn an_attribute_of_the_wrong_type_is_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let line = |id: &str, docket: Value| {
        json!({"id": id, "text": "some words here", "docket": docket}).to_string()
    };
    let body = format!(
        "{}\n{}\n",
        line("a", json!("D1")),
        line("b", json!({"x": 1}))
    );
    fs::write(dir.path().join("in.jsonl"), body).unwrap();
    let args = [
        "dedup",
        "--input",
        "in.jsonl",
        "--group",
        "durian",
        "--attribute-fields",
        "docket=both",
    ];
    let out = ndd(&args, dir.path());
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("in.jsonl:2: field \"docket\" (an attribute) is an object"),
        "{stderr}"
    );
    let strict = ndd(&[&args[..], &["--on-error", "stop"]].concat(), dir.path());
    fails(&strict, 1, "(an attribute) is an object");
}

#[test]
fn links_in_asserts_must_and_cannot_links_by_id() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    fs::write(
        dir.path().join("links.tsv"),
        "# reviewed by hand\nmust\tu\tl-0\ncannot\tl-edit\tl-3\r\n\n",
    )
    .unwrap();
    let base = [&BASE[..], &["--group", "durian"]].concat();
    ok(&ndd(
        &[
            &base[..],
            &["--links-in", "links.tsv", "--clusters-out", "c.tsv"],
        ]
        .concat(),
        dir.path(),
    ));
    let c = clusters(&dir.path().join("c.tsv"));
    let label = |id: &str| c.iter().find(|(i, _)| i == id).unwrap().1.clone();
    assert_eq!(label("u"), "3", "{c:?}");
    assert_ne!(label("l-edit"), "3", "{c:?}");

    for (body, message) in [
        ("must\tu\n", "links.tsv:1: expected 3 tab-separated fields"),
        ("# ok\nsame\tu\tl-0\n", "links.tsv:2: unknown link"),
        ("must\tu\tnobody\n", "\"nobody\", which is no document's id"),
    ] {
        fs::write(dir.path().join("links.tsv"), body).unwrap();
        let out = ndd(
            &[&base[..], &["--links-in", "links.tsv"]].concat(),
            dir.path(),
        );
        fails(&out, 1, message);
    }
    fails(
        &ndd(
            &["dedup", "--input", "in.jsonl", "--links-in", "links.tsv"],
            dir.path(),
        ),
        2,
        "--links-in belongs to --group durian",
    );
}

#[test]
fn a_folder_has_no_fields_to_read() {
    let (dir, folder) = common::dir_with_folder("letters");
    let letter = words(5, 60).join(" ");
    for i in 0..7 {
        fs::write(folder.join(format!("copy{i}.txt")), &letter).unwrap();
    }
    fs::write(
        folder.join("edited.txt"),
        format!("{letter}\n\n{}", words(6, 15).join(" ")),
    )
    .unwrap();
    for flag in [
        ["--attribute-fields", "docket=cannot"],
        ["--timestamp-field", "t"],
    ] {
        fails(
            &ndd(
                &[
                    "dedup", "--input", "letters", "--group", "durian", flag[0], flag[1],
                ],
                dir.path(),
            ),
            2,
            "reads JSONL fields; a folder's files have none",
        );
    }
    // Without fields, the folder's copies are a form letter and the edit joins it
    // when the threshold lets it: its word 3-gram Jaccard to the letter is 58/73 =
    // 0.79 (58 shingles of the letter, 73 of the edit, all the letter's shared).
    let members = |threshold: &str| {
        ok(&ndd(
            &[
                "dedup",
                "--input",
                "letters",
                "--group",
                "durian",
                "--threshold",
                threshold,
                "--members-out",
                "m.jsonl",
            ],
            dir.path(),
        ));
        fs::read_to_string(dir.path().join("m.jsonl")).unwrap()
    };
    let at_075 = members("0.75");
    assert_eq!(at_075.lines().count(), 8, "{at_075}");
    assert!(at_075.contains("\"reference_copy_of\":7"), "{at_075}");
    assert!(at_075.contains("\"id\":\"edited.txt\""), "{at_075}");
    // At 0.8 DURIAN would put it with the letter (it contains the letter's
    // paragraph), but it is less similar than the threshold: it is kept.
    let at_080 = members("0.8");
    assert_eq!(at_080.lines().count(), 7, "{at_080}");
    assert!(!at_080.contains("\"id\":\"edited.txt\""), "{at_080}");
}

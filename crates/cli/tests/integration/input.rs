//! Input that says what it did (issue 30, item 3), by running the built binary: gzip
//! files in folders, legacy encodings, `--problems-out` and the summary's counts by
//! reason, and fields that no record has or that are nested.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::common::{dir_with, dir_with_folder, fails, json_lines, ndd, ok, text};

/// A temporary folder holding `c.jsonl`, the `records` one a line.
fn c_jsonl(records: &[&str]) -> tempfile::TempDir {
    dir_with("c.jsonl", records.join("\n") + "\n")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// `(id, text)` of each record of a `--keep-out` file.
fn kept(path: &Path) -> Vec<(String, String)> {
    json_lines(path)
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_owned(),
                v["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn gzip_files_in_a_folder_are_read_as_the_same_files_uncompressed() {
    let (dir, f) = dir_with_folder("f");
    fs::write(f.join("a.txt.gz"), gzip(b"the first letter about cats")).unwrap();
    // A JSONL file in a folder is one document, compressed or not.
    fs::write(
        f.join("b.jsonl.gz"),
        gzip(b"{\"id\": 1, \"text\": \"x\"}\n"),
    )
    .unwrap();
    fs::write(f.join("c.jsonl"), "{\"id\": 2, \"text\": \"y\"}\n").unwrap();
    fs::write(
        f.join("d.html.gz"),
        gzip(b"<p>Hello <script>x()</script>world</p>"),
    )
    .unwrap();
    // Recognized by its magic bytes, not its name.
    fs::write(f.join("e.dat"), gzip(b"no suffix says gzip")).unwrap();
    let out = ndd(
        &["dedup", "--input", "f", "--keep-out", "k.jsonl"],
        dir.path(),
    );
    let summary = ok(&out);
    // JSON Lines files beside other files: one document each, with a warning naming
    // the first (a folder of JSON Lines files only is read as records).
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: f: JSON Lines files beside other files")
            && err.contains("b.jsonl.gz too, not its records"),
        "{err}"
    );
    assert!(summary.contains("documents:   5 read"), "{summary}");
    let docs = kept(&dir.path().join("k.jsonl"));
    let by_id = |id: &str| docs.iter().find(|(i, _)| i == id).unwrap().1.clone();
    assert_eq!(by_id("a.txt.gz"), "the first letter about cats");
    assert_eq!(by_id("b.jsonl.gz"), "{\"id\": 1, \"text\": \"x\"}\n");
    assert_eq!(by_id("c.jsonl"), "{\"id\": 2, \"text\": \"y\"}\n");
    assert_eq!(by_id("d.html.gz").trim(), "Hello world");
    assert_eq!(by_id("e.dat"), "no suffix says gzip");
}

#[test]
fn a_gzip_bomb_in_a_folder_is_refused_by_the_document_bound() {
    let (dir, f) = dir_with_folder("f");
    // 20 MB of one letter compress to about 20 kB: far under the bound as stored.
    let bomb = gzip(&vec![b'a'; 20 << 20]);
    assert!(bomb.len() < 100_000);
    fs::write(f.join("bomb.gz"), &bomb).unwrap();
    fs::write(f.join("fine.txt"), "a small document").unwrap();
    let small = gzip(b"a short text, cut off in the middle of its gzip stream");
    fs::write(f.join("corrupt.gz"), &small[..small.len() - 12]).unwrap();
    let out = ndd(
        &[
            "dedup",
            "--input",
            "f",
            "--max-document-bytes",
            "1000000",
            "--problems-out",
            "p.jsonl",
        ],
        dir.path(),
    );
    let summary = ok(&out);
    assert!(
        summary.contains("2 bad lines or files skipped (1 too_large, 1 unreadable)"),
        "{summary}"
    );
    let problems = json_lines(&dir.path().join("p.jsonl"));
    let kind_of = |name: &str| {
        problems
            .iter()
            .find(|p| p["source"].as_str().unwrap().ends_with(name))
            .map(|p| (p["kind"].as_str().unwrap().to_owned(), p["message"].clone()))
            .unwrap()
    };
    let (kind, message) = kind_of("bomb.gz");
    assert_eq!(kind, "too_large");
    assert!(
        message
            .as_str()
            .unwrap()
            .contains("decompresses to more than"),
        "{message}"
    );
    assert_eq!(kind_of("corrupt.gz").0, "unreadable");
}

/// A Latin-1 file is reported as such by default, with how to read it; decoded when
/// asked, and the summary says so.
#[test]
fn legacy_encodings_are_reported_or_decoded_when_asked() {
    let (dir, f) = dir_with_folder("f");
    fs::write(f.join("latin.txt"), b"caf\xe9 au lait, \x80 5").unwrap();
    fs::write(f.join("utf8.txt"), "déjà vu").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "dedup",
            "--input",
            "f",
            "--keep-out",
            "k.jsonl",
            "--problems-out",
            "p.jsonl",
        ];
        args.extend_from_slice(extra);
        let out = ndd(&args, dir.path());
        (ok(&out), text(&out.stderr))
    };
    let (summary, stderr) = run(&[]);
    assert!(
        summary.contains("1 bad lines or files skipped (1 encoding)"),
        "{summary}"
    );
    assert!(stderr.contains("--encoding auto"), "{stderr}");
    let problems = json_lines(&dir.path().join("p.jsonl"));
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["kind"], "encoding");
    assert!(problems[0]["line"].is_null());
    assert_eq!(kept(&dir.path().join("k.jsonl")).len(), 1);

    let (summary, _) = run(&["--encoding", "auto"]);
    assert!(
        summary.contains("decoded:     1 file or line from windows-1252"),
        "{summary}"
    );
    let docs = kept(&dir.path().join("k.jsonl"));
    assert_eq!(
        docs[0],
        ("latin.txt".to_owned(), "café au lait, € 5".to_owned())
    );
    // Valid UTF-8 stays UTF-8 under auto.
    assert_eq!(docs[1].1, "déjà vu");
    assert!(json_lines(&dir.path().join("p.jsonl")).is_empty());

    // ISO-8859-1 proper: 0x80 is a C1 control, not the euro sign.
    run(&["--encoding", "latin-1"]);
    let docs = kept(&dir.path().join("k.jsonl"));
    assert_eq!(docs[0].1, "café au lait, \u{80} 5");
}

#[test]
fn utf16_files_with_a_byte_order_mark_are_decoded() {
    let (dir, f) = dir_with_folder("f");
    let le: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("Grüße aus Köln".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let be: Vec<u8> = [0xFE, 0xFF]
        .into_iter()
        .chain("naïve café".encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    fs::write(f.join("le.txt"), le).unwrap();
    fs::write(f.join("be.txt"), be).unwrap();
    let out = ndd(
        &["dedup", "--input", "f", "--keep-out", "k.jsonl"],
        dir.path(),
    );
    let summary = ok(&out);
    assert!(
        summary.contains("decoded:     2 files from UTF-16"),
        "{summary}"
    );
    assert_eq!(
        kept(&dir.path().join("k.jsonl")),
        [
            ("be.txt".to_owned(), "naïve café".to_owned()),
            ("le.txt".to_owned(), "Grüße aus Köln".to_owned()),
        ]
    );
}

#[test]
fn a_jsonl_field_no_record_has_is_an_error_and_one_some_lack_a_warning() {
    let dir = c_jsonl(&[
        "{\"id\": \"a\", \"text\": \"one two three four\", \"date\": 2}",
        "{\"id\": \"b\", \"text\": \"five six seven eight\"}",
        "{\"id\": \"c\", \"text\": \"nine ten eleven twelve\"}",
    ]);
    let run = |extra: &[&str]| {
        let mut args = vec!["dedup", "-q", "--input", "c.jsonl"];
        args.extend_from_slice(extra);
        ndd(&args, dir.path())
    };
    // A misspelt id field no longer numbers the documents 1..N.
    fails(
        &run(&["--id-field", "idd"]),
        1,
        "--id-field \"idd\": no record has this field (3 records read)",
    );
    // The order field, under either name, and on the out-of-core engine too.
    for flag in ["--order-field", "--timestamp-field"] {
        fails(
            &run(&[flag, "dat"]),
            1,
            "--order-field \"dat\": no record has",
        );
    }
    let work = dir.path().join("work");
    fails(
        &run(&["--order-field", "dat", "--work-dir", work.to_str().unwrap()]),
        1,
        "--order-field \"dat\": no record has",
    );
    // An attribute field of the constrained grouping, likewise.
    fails(
        &run(&["--group", "durian", "--attribute-fields", "dockt=cannot"]),
        1,
        "--attribute-fields \"dockt\": no record has this field (3 records read)",
    );
    // Some records lack it: a warning with the count.
    let out = run(&["--order-field", "date"]);
    ok(&out);
    assert!(
        text(&out.stderr)
            .contains("warning: 2 of 3 records have no field \"date\" (--order-field)"),
        "{}",
        text(&out.stderr)
    );
    // Without --id-field, a corpus without ids is numbered as before.
    fs::write(
        dir.path().join("noid.jsonl"),
        "{\"text\": \"alpha beta\"}\n{\"text\": \"gamma delta\"}\n",
    )
    .unwrap();
    let out = ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "noid.jsonl",
            "--drop-out",
            "d.tsv",
        ],
        dir.path(),
    );
    ok(&out);
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn nested_fields_are_named_by_json_pointer() {
    let dir = c_jsonl(&[
        "{\"meta\": {\"id\": \"m1\", \"a/b\": 3}, \"body\": {\"text\": \"the same letter about cats\"}}",
        "{\"meta\": {\"id\": \"m2\", \"a/b\": 1}, \"body\": {\"text\": \"the same letter about cats\"}}",
        "{\"meta\": {\"id\": \"m3\", \"a/b\": 2}, \"body\": {\"text\": \"a different note on dogs\"}}",
    ]);
    let out = ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "c.jsonl",
            "--id-field",
            "/meta/id",
            "--text-field",
            "/body/text",
            // `~1` is a `/` in a member's name (RFC 6901).
            "--order-field",
            "/meta/a~1b",
            "--representative",
            "order",
            "--drop-out",
            "d.tsv",
            "--keep-out",
            "k.jsonl",
        ],
        dir.path(),
    );
    ok(&out);
    // The copy with the smallest order key is kept.
    assert_eq!(
        fs::read_to_string(dir.path().join("d.tsv")).unwrap(),
        "m1\n"
    );
    let kept: Vec<String> = json_lines(&dir.path().join("k.jsonl"))
        .iter()
        .map(|v| v["meta"]["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kept, ["m2", "m3"]);
    fails(
        &ndd(
            &[
                "dedup",
                "-q",
                "--input",
                "c.jsonl",
                "--text-field",
                "/body/text",
                "--id-field",
                "/meta/idd",
            ],
            dir.path(),
        ),
        1,
        "--id-field \"/meta/idd\": no record has",
    );
}

/// More bad lines than the warnings show: --problems-out lists every one, with its
/// line and reason, on every engine, and the summary counts them by reason.
#[test]
fn problems_out_lists_every_skipped_line_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for i in 1..=60u64 {
        let (line, kind): (Vec<u8>, Option<&str>) = match i % 4 {
            0 => (b"not json".to_vec(), Some("malformed_json")),
            1 => (b"{\"text\": \"caf\xe9\"}".to_vec(), Some("encoding")),
            2 => (format!("{{\"text\": {i}}}").into_bytes(), Some("schema")),
            _ => (
                format!("{{\"id\": \"d{i}\", \"text\": \"document number {i} of many\"}}")
                    .into_bytes(),
                None,
            ),
        };
        input.extend_from_slice(&line);
        input.push(b'\n');
        if let Some(kind) = kind {
            expected.push((i, kind.to_owned()));
        }
    }
    fs::write(dir.path().join("c.jsonl"), &input).unwrap();
    let work = dir.path().join("work");
    let engines: [&[&str]; 3] = [&[], &["--bloom"], &["--work-dir", work.to_str().unwrap()]];
    for engine in engines {
        let mut args = vec!["dedup", "--input", "c.jsonl", "--problems-out", "p.jsonl"];
        args.extend_from_slice(engine);
        let out = ndd(&args, dir.path());
        let summary = ok(&out);
        assert!(
            summary.contains("15 encoding, 15 malformed_json, 15 schema"),
            "{engine:?}: {summary}"
        );
        assert!(
            text(&out.stderr).contains("25 more lines or files skipped (--problems-out lists"),
            "{}",
            text(&out.stderr)
        );
        let listed: Vec<(u64, String)> = json_lines(&dir.path().join("p.jsonl"))
            .iter()
            .map(|p| {
                assert_eq!(p["source"], "c.jsonl");
                assert!(p["message"].as_str().is_some_and(|m| !m.is_empty()));
                (
                    p["line"].as_u64().unwrap(),
                    p["kind"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(listed, expected, "{engine:?}");
    }
}

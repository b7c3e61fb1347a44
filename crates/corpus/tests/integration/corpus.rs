//! Corpus readers: JSONL (plain, gzip), folders (symlink loops, binary and unreadable
//! files), duplicate ids, the error policy, size bounds and schema messages.

use std::collections::HashSet;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use ndd_corpus::{Document, Error, OrderKey};

use crate::fixtures::temp_file;
use ndd_corpus::{
    ErrorPolicy, FolderReader, HtmlMode, JsonlReader, Problem, ProblemKind, ReadOptions,
    read_corpus,
};

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> PathBuf {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create the fixture folder");
    }
    fs::write(path, bytes).expect("write the fixture");
    path.to_path_buf()
}

fn ids(corpus: &ndd_corpus::Corpus) -> Vec<&str> {
    corpus.documents.iter().map(|d| d.id.as_str()).collect()
}

fn kinds(problems: &[Problem]) -> Vec<ProblemKind> {
    problems.iter().map(|p| p.kind).collect()
}

/// A new temporary folder holding `files` (path, content) and then `links` (target,
/// path of the symbolic link); returns the folder (deleted when dropped) and its path.
#[cfg(unix)]
fn tree(files: &[(&str, &str)], links: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("create a temporary folder");
    let root = dir.path().to_path_buf();
    for (path, content) in files {
        write(&root.join(path), content);
    }
    for (target, link) in links {
        std::os::unix::fs::symlink(target, root.join(link)).expect("create the link");
    }
    (dir, root)
}

/// Runs `f` on another thread and fails (instead of hanging) if it takes too long.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("the reader did not finish in time")
}

// ---------------------------------------------------------------------------------
// JSONL
// ---------------------------------------------------------------------------------

#[test]
fn ids_are_strings_numbers_in_their_spelling_or_the_line_number() {
    let (_dir, path) = temp_file(
        "c.jsonl",
        concat!(
            "{\"id\": \"x\", \"text\": \"a\"}\n",
            "{\"id\": 70, \"text\": \"b\"}\n",
            "{\"id\": 70.0, \"text\": \"c\"}\n",
            "{\"id\": 1e3, \"text\": \"d\"}\n",
            "{\"id\": -12, \"text\": \"e\"}\n",
            "{\"text\": \"f\"}\n",
            "{\"id\": null, \"text\": \"g\"}\n",
            "{\"id\": \"esc\\\"aped\", \"text\": \"h\"}\n",
            "{\"id\": true, \"text\": \"i\"}\n",
            "{\"id\": \"70\", \"text\": \"j\"}\n",
        ),
    );
    let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
    assert_eq!(
        ids(&corpus),
        ["x", "70", "70.0", "1e3", "-12", "6", "7", "esc\"aped"]
    );
    let texts: Vec<_> = corpus.documents.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(texts, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    // A boolean id is a schema error; the string "70" collides with the number 70.
    assert_eq!(
        kinds(&corpus.problems),
        [ProblemKind::Schema, ProblemKind::DuplicateId]
    );
    assert!(
        corpus.problems[0]
            .to_string()
            .ends_with(":9: field \"id\" is a boolean, expected a string or a number"),
        "{}",
        corpus.problems[0]
    );
    assert_eq!(corpus.stats.records, 10);
    assert_eq!(corpus.stats.documents, 8);
    assert_eq!(corpus.stats.rejected, 2);
}

#[test]
fn duplicate_ids_keep_the_first_and_report_the_rest_at_their_line() {
    let (_dir, path) = temp_file(
        "dup.jsonl",
        concat!(
            "{\"id\": \"a\", \"text\": \"first\"}\n",
            "{\"id\": \"b\", \"text\": \"other\"}\n",
            "{\"id\": \"a\", \"text\": \"second\"}\n",
            "{\"id\": \"a\", \"text\": \"third\"}\n",
        ),
    );
    let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
    assert_eq!(ids(&corpus), ["a", "b"]);
    assert_eq!(corpus.documents[0].text, "first");
    let locations: Vec<_> = corpus.problems.iter().map(|p| p.location.clone()).collect();
    let name = path.display();
    assert_eq!(locations, [format!("{name}:3"), format!("{name}:4")]);
    assert!(
        corpus
            .problems
            .iter()
            .all(|p| p.kind == ProblemKind::DuplicateId && p.message.contains("\"a\""))
    );
    // Under Stop, the first duplicate stops the run.
    let stop = ReadOptions::default().with_errors(ErrorPolicy::Stop);
    match read_corpus(&path, &stop) {
        Err(Error::Input { location, .. }) => assert_eq!(location, format!("{name}:3")),
        other => panic!("expected Error::Input, got {other:?}"),
    }
}

#[test]
fn schema_errors_are_named_in_the_users_terms() {
    let opts = ReadOptions::default();
    let lines = [
        // (line, expected message)
        (
            "{\"text\": 12}",
            "field \"text\" is a number, expected a string",
        ),
        (
            "{\"text\": [\"a\"]}",
            "field \"text\" is an array, expected a string",
        ),
        (
            "{\"text\": null}",
            "field \"text\" is null, expected a string",
        ),
        ("{\"id\": 1}", "field \"text\" (the text field) is missing"),
        ("[1, 2]", "the line is an array, expected a JSON object"),
        (
            "\"just text\"",
            "the line is a string, expected a JSON object",
        ),
        (
            "{\"text\": \"a\", \"text\": \"b\"}",
            "field \"text\" appears more than once",
        ),
        (
            "{\"text\": \"  \\t \"}",
            "field \"text\" (the text) is only whitespace",
        ),
        ("{\"text\": \"\"}", "field \"text\" (the text) is empty"),
    ];
    for (line, expected) in lines {
        let mut r = JsonlReader::new(line.as_bytes(), "corpus.jsonl", &opts);
        let p = r.next().unwrap().unwrap_err();
        assert_eq!(
            p.to_string(),
            format!("corpus.jsonl:1: {expected}"),
            "{line}"
        );
    }
    // Malformed JSON: the column and serde_json's reason, without its "at line" suffix.
    let mut r = JsonlReader::new(&b"{\"text\": \"a\",, }"[..], "corpus.jsonl", &opts);
    let p = r.next().unwrap().unwrap_err();
    assert_eq!(p.kind, ProblemKind::MalformedJson);
    assert!(
        p.message.starts_with("malformed JSON at column 14: "),
        "{}",
        p.message
    );
    assert!(!p.message.contains(" at line "), "{}", p.message);
    // Trailing garbage after the object is malformed too.
    let mut r = JsonlReader::new(&b"{\"text\": \"a\"} x"[..], "c", &opts);
    assert_eq!(
        r.next().unwrap().unwrap_err().kind,
        ProblemKind::MalformedJson
    );

    // A configured text field is named as configured, on the right line.
    let body = ReadOptions::default().with_text_field("body");
    let input = "{\"body\": \"ok\"}\n\n{\"text\": \"wrong field\"}\n";
    let items: Vec<_> = JsonlReader::new(input.as_bytes(), "in.jsonl", &body).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(
        items[1].as_ref().unwrap_err().to_string(),
        "in.jsonl:3: field \"body\" (the text field) is missing"
    );
}

#[test]
fn the_exact_message_of_the_issue() {
    let mut input = String::new();
    for i in 1..=6 {
        input.push_str(&format!("{{\"id\": {i}, \"text\": \"doc {i}\"}}\n"));
    }
    input.push_str("{\"id\": 7, \"text\": 7}\n");
    let (_dir, path) = temp_file("corpus.jsonl", &input);
    let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
    assert_eq!(corpus.documents.len(), 6);
    assert_eq!(
        corpus.problems[0].to_string(),
        format!(
            "{}:7: field \"text\" is a number, expected a string",
            path.display()
        )
    );
}

#[test]
fn order_field_numbers_and_strings_other_types_rejected() {
    let opts = ReadOptions::default().with_order_field("t");
    let input = concat!(
        "{\"text\": \"a\", \"t\": 3.5}\n",
        "{\"text\": \"b\", \"t\": \"2006-05-01\"}\n",
        "{\"text\": \"c\"}\n",
        "{\"text\": \"d\", \"t\": null}\n",
        "{\"text\": \"e\", \"t\": true}\n",
        "{\"text\": \"f\", \"t\": {\"y\": 1}}\n",
        "{\"text\": \"g\", \"t\": NaN}\n",
    );
    let items: Vec<_> = JsonlReader::new(input.as_bytes(), "o", &opts).collect();
    let order = |i: usize| items[i].as_ref().unwrap().order.clone();
    assert_eq!(order(0), Some(OrderKey::Number(3.5)));
    assert_eq!(order(1), Some(OrderKey::Text("2006-05-01".into())));
    assert_eq!(order(2), None);
    assert_eq!(order(3), None);
    let err = |i: usize| items[i].as_ref().unwrap_err().to_string();
    assert_eq!(
        err(4),
        "o:5: field \"t\" (the order field) is a boolean, expected a number or a string"
    );
    assert_eq!(
        err(5),
        "o:6: field \"t\" (the order field) is an object, expected a number or a string"
    );
    // JSON has no NaN: the bare word is malformed JSON.
    assert!(
        err(6).starts_with("o:7: malformed JSON at column"),
        "{}",
        err(6)
    );
}

#[test]
fn attribute_fields_strings_numbers_absent_others_rejected() {
    let opts = ReadOptions::default().with_attribute_fields(["docket", "relay"]);
    let input = concat!(
        "{\"text\": \"a\", \"docket\": \"EPA-1\", \"relay\": 7.0}\n",
        "{\"text\": \"b\", \"docket\": null}\n",
        "{\"text\": \"c\", \"relay\": [1]}\n",
        "{\"text\": \"d\", \"docket\": \"x\", \"docket\": \"y\"}\n",
        "{\"text\": \"e\", \"docket\": \"caf\\u00e9\"}\n",
    );
    let items: Vec<_> = JsonlReader::new(input.as_bytes(), "a", &opts).collect();
    let doc = |i: usize| items[i].as_ref().unwrap();
    assert_eq!(doc(0).attribute("docket"), Some("EPA-1"));
    assert_eq!(doc(0).attribute("relay"), Some("7.0"));
    assert!(doc(1).attributes.is_empty());
    assert_eq!(doc(4).attribute("docket"), Some("café"));
    let err = |i: usize| items[i].as_ref().unwrap_err().to_string();
    assert_eq!(
        err(2),
        "a:3: field \"relay\" (an attribute) is an array, expected a string or a number"
    );
    assert_eq!(err(3), "a:4: field \"docket\" appears more than once");
}

#[test]
fn bom_crlf_and_blank_lines_are_accepted() {
    let input = b"\xEF\xBB\xBF{\"id\": \"a\", \"text\": \"one\"}\r\n\r\n   \n{\"id\": \"b\", \"text\": \"two\"}\r\n";
    let mut r = JsonlReader::new(&input[..], "bom.jsonl", &ReadOptions::default());
    let docs: Vec<_> = r.by_ref().map(Result::unwrap).collect();
    assert_eq!(docs.len(), 2);
    assert_eq!((docs[0].id.as_str(), docs[0].text.as_str()), ("a", "one"));
    assert_eq!((docs[1].id.as_str(), docs[1].text.as_str()), ("b", "two"));
    assert_eq!((r.lines(), r.blank_lines()), (4, 2));
    assert_eq!(r.bytes_read(), input.len() as u64);
    // A BOM anywhere but the start is not skipped: it is not JSON.
    let later = b"{\"text\": \"a\"}\n\xEF\xBB\xBF{\"text\": \"b\"}\n";
    let items: Vec<_> = JsonlReader::new(&later[..], "x", &ReadOptions::default()).collect();
    assert_eq!(
        items[1].as_ref().unwrap_err().kind,
        ProblemKind::MalformedJson
    );
}

#[test]
fn invalid_utf8_in_a_line_is_reported_with_its_offset() {
    let input = b"{\"text\": \"ab\xffc\"}\n{\"text\": \"fine\"}\n";
    let items: Vec<_> = JsonlReader::new(&input[..], "u.jsonl", &ReadOptions::default()).collect();
    let p = items[0].as_ref().unwrap_err();
    // Not UTF-8 is an encoding problem (issue 30: counted apart from binary input).
    assert_eq!(p.kind, ProblemKind::Encoding);
    assert_eq!(p.location, "u.jsonl:1");
    assert!(p.message.contains("at byte 12"), "{}", p.message);
    assert_eq!(items[1].as_ref().unwrap().text, "fine");
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).expect("gzip into memory");
    enc.finish().expect("gzip into memory")
}

#[test]
fn gzip_is_detected_by_magic_bytes_whatever_the_name() {
    let plain = "{\"id\": \"a\", \"text\": \"alpha\"}\n{\"id\": \"b\", \"text\": \"beta\"}\n";
    let dir = tempfile::tempdir().unwrap();
    let expected = read_corpus(
        write(&dir.path().join("plain.jsonl"), plain),
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(ids(&expected), ["a", "b"]);
    for name in ["c.jsonl.gz", "no-extension", "c.jsonl"] {
        let path = write(&dir.path().join(name), gzip(plain.as_bytes()));
        let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
        assert_eq!(corpus.documents, expected.documents, "{name}");
        // Progress counts bytes of the compressed file.
        assert_eq!(corpus.stats.bytes_read, fs::metadata(&path).unwrap().len());
    }
    // Concatenated gzip members read as one stream.
    let mut two = gzip(b"{\"id\": \"a\", \"text\": \"alpha\"}\n");
    two.extend(gzip(b"{\"id\": \"b\", \"text\": \"beta\"}\n"));
    let path = write(&dir.path().join("two.gz"), two);
    assert_eq!(
        read_corpus(&path, &ReadOptions::default())
            .unwrap()
            .documents,
        expected.documents
    );
}

#[test]
fn a_truncated_gzip_file_keeps_what_was_read_and_reports_the_rest() {
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!(
            "{{\"id\": {i}, \"text\": \"document number {i} of many\"}}\n"
        ));
    }
    let full = gzip(text.as_bytes());
    let (_dir, path) = temp_file("cut.jsonl.gz", &full[..full.len() / 2]);
    let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
    assert!(!corpus.documents.is_empty() && corpus.documents.len() < 2000);
    let last = corpus.problems.last().unwrap();
    assert_eq!(last.kind, ProblemKind::Unreadable);
    assert!(last.message.starts_with("read error"), "{}", last.message);
}

#[test]
fn every_line_rejected_or_empty_input_is_no_documents() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        &dir.path().join("bad.jsonl"),
        "{\"text\": 1}\nnot json\n{\"text\": \" \"}\n",
    );
    match read_corpus(&bad, &ReadOptions::default()) {
        Err(Error::NoDocuments {
            rejected, first, ..
        }) => {
            assert_eq!(rejected, 3);
            assert!(first.ends_with(":1: field \"text\" is a number, expected a string"));
        }
        other => panic!("expected NoDocuments, got {other:?}"),
    }
    for (name, content) in [("empty.jsonl", ""), ("blank.jsonl", "\n  \n\n")] {
        let path = write(&dir.path().join(name), content);
        match read_corpus(&path, &ReadOptions::default()) {
            Err(Error::NoDocuments { rejected: 0, .. }) => {}
            other => panic!("{name}: expected NoDocuments, got {other:?}"),
        }
    }
    let empty_dir = dir.path().join("empty-folder");
    fs::create_dir(&empty_dir).unwrap();
    assert!(matches!(
        read_corpus(&empty_dir, &ReadOptions::default()),
        Err(Error::NoDocuments { rejected: 0, .. })
    ));
    assert!(matches!(
        read_corpus(dir.path().join("missing.jsonl"), &ReadOptions::default()),
        Err(Error::Io { .. })
    ));
}

#[test]
fn stop_policy_returns_the_first_problem_with_file_and_line() {
    let (_dir, path) = temp_file(
        "s.jsonl",
        "{\"text\": \"ok\"}\n\n{\"txt\": \"typo\"}\n{\"text\": 5}\n",
    );
    let stop = ReadOptions::default().with_errors(ErrorPolicy::Stop);
    match read_corpus(&path, &stop) {
        Err(e @ Error::Input { .. }) => assert_eq!(
            e.to_string(),
            format!(
                "{}:3: field \"text\" (the text field) is missing",
                path.display()
            )
        ),
        other => panic!("expected Error::Input, got {other:?}"),
    }
    // Skip keeps going and collects both.
    let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
    assert_eq!(corpus.problems.len(), 2);
    assert_eq!(corpus.stats.blank_lines, 1);
}

#[test]
fn an_oversize_line_is_skipped_with_bounded_memory() {
    // 256 MiB on one line, then a good line; the limit is 1 KiB. The reader keeps at
    // most the limit of the long line (there is no way to observe the allocation here,
    // but an unbounded reader would buffer the whole 256 MiB and the test would show
    // it in time and memory; the length reported proves the line was read through).
    let long = 256u64 << 20;
    let input = std::io::BufReader::new(
        std::io::repeat(b'a')
            .take(long)
            .chain(&b"\n{\"text\": \"after\"}\n"[..]),
    );
    let opts = ReadOptions::default().with_max_document_bytes(1024);
    let items = within(60, move || {
        JsonlReader::new(input, "big.jsonl", &opts).collect::<Vec<_>>()
    });
    assert_eq!(items.len(), 2);
    let p = items[0].as_ref().unwrap_err();
    assert_eq!(p.kind, ProblemKind::TooLarge);
    assert_eq!(
        p.to_string(),
        format!(
            "big.jsonl:1: line is {long} bytes, more than the limit of 1024 bytes (max_document_bytes)"
        )
    );
    assert_eq!(items[1].as_ref().unwrap().text, "after");
    // At the limit exactly, a line is accepted.
    let line = format!("{{\"text\": \"{}\"}}", "b".repeat(100));
    let opts = ReadOptions::default().with_max_document_bytes(line.len() as u64);
    assert!(
        JsonlReader::new(line.as_bytes(), "x", &opts)
            .next()
            .unwrap()
            .is_ok()
    );
    let opts = opts.with_max_document_bytes(line.len() as u64 - 1);
    assert_eq!(
        JsonlReader::new(line.as_bytes(), "x", &opts)
            .next()
            .unwrap()
            .unwrap_err()
            .kind,
        ProblemKind::TooLarge
    );
}

// ---------------------------------------------------------------------------------
// Folders
// ---------------------------------------------------------------------------------

#[test]
fn folder_ids_are_relative_slash_paths_in_sorted_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("b.txt"), "bee");
    write(&root.join("a/z.txt"), "zed");
    write(&root.join("a/c/d.txt"), "dee");
    write(&root.join("A.txt"), "upper");
    write(&root.join(".hidden.txt"), "hidden");
    write(&root.join(".git/config"), "hidden folder");
    let corpus = read_corpus(root, &ReadOptions::default()).unwrap();
    assert_eq!(ids(&corpus), ["A.txt", "a/c/d.txt", "a/z.txt", "b.txt"]);
    assert!(corpus.problems.is_empty());
    let with_hidden = read_corpus(root, &ReadOptions::default().with_hidden(true)).unwrap();
    assert_eq!(
        ids(&with_hidden),
        [
            ".git/config",
            ".hidden.txt",
            "A.txt",
            "a/c/d.txt",
            "a/z.txt",
            "b.txt"
        ]
    );
    // The same order on a second run.
    assert_eq!(read_corpus(root, &ReadOptions::default()).unwrap(), corpus);
}

#[test]
fn html_modes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("page.HTML"),
        "<p>Hello <a href=x>link</a>world</p>",
    );
    write(
        &root.join("sniffed.txt"),
        "<!DOCTYPE html><p>Sniffed text</p>",
    );
    write(&root.join("plain.txt"), "if a < b and c > d");
    let text = |opts: &ReadOptions, id: &str| {
        let c = read_corpus(root, opts).unwrap();
        c.documents.into_iter().find(|d| d.id == id).unwrap().text
    };
    let auto = ReadOptions::default();
    assert_eq!(text(&auto, "page.HTML").trim(), "Hello world");
    assert_eq!(text(&auto, "sniffed.txt").trim(), "Sniffed text");
    assert_eq!(text(&auto, "plain.txt"), "if a < b and c > d");
    let never = ReadOptions::default().with_html(HtmlMode::Never);
    assert!(text(&never, "page.HTML").contains("<a href=x>"));
    let always = ReadOptions::default().with_html(HtmlMode::Always);
    assert_eq!(text(&always, "page.HTML").trim(), "Hello world");
}

#[test]
fn binary_files_name_the_file_and_byte_offset() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("good.txt"), "some text");
    write(&root.join("nul.bin"), b"hello\0world");
    write(&root.join("latin1.txt"), b"caf\xe9 au lait");
    write(&root.join("bom.txt"), b"\xEF\xBB\xBFwith a bom");
    write(&root.join("empty.txt"), "");
    write(&root.join("markup.html"), "<p> </p><script>only()</script>");
    let corpus = read_corpus(root, &ReadOptions::default()).unwrap();
    assert_eq!(ids(&corpus), ["bom.txt", "good.txt"]);
    assert_eq!(corpus.documents[0].text, "with a bom");
    let by_name = |name: &str| {
        let loc = root.join(name).display().to_string();
        corpus
            .problems
            .iter()
            .find(|p| p.location == loc)
            .unwrap()
            .clone()
    };
    for (name, kind, says) in [
        ("latin1.txt", ProblemKind::Encoding, "byte offset 3"),
        ("nul.bin", ProblemKind::Binary, "NUL byte at byte offset 5"),
    ] {
        let problem = by_name(name);
        assert_eq!(problem.kind, kind, "{name}");
        assert!(
            problem.message.contains(says),
            "{name}: {}",
            problem.message
        );
    }
    assert_eq!(by_name("empty.txt").kind, ProblemKind::Empty);
    assert_eq!(by_name("markup.html").kind, ProblemKind::Empty);
    assert_eq!(corpus.problems.len(), 4);
}

#[test]
fn oversize_files_are_reported_without_reading_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("big.txt"), "x".repeat(5000));
    write(&root.join("small.txt"), "fits");
    let opts = ReadOptions::default().with_max_document_bytes(4096);
    let mut reader = FolderReader::new(root, &opts).unwrap();
    let items: Vec<_> = reader.by_ref().collect();
    assert_eq!(items.len(), 2);
    let p = items[0].as_ref().unwrap_err();
    assert_eq!(p.kind, ProblemKind::TooLarge);
    assert!(
        p.message
            .starts_with("file is 5000 bytes, more than the limit of 4096")
    );
    assert_eq!(items[1].as_ref().unwrap().id, "small.txt");
    assert_eq!(reader.bytes_read(), 4, "the big file was not read");
}

#[cfg(unix)]
#[test]
fn symlink_loops_finish_and_each_file_is_read_once() {
    let (_dir, root) = tree(
        &[
            ("a/x.txt", "file in a"),
            ("b/y.txt", "file in b"),
            ("c/z.txt", "file in c"),
        ],
        &[
            // A folder linking to its parent, and two folders linking to each other.
            ("..", "a/up"),
            (".", "a/self"),
            ("../c", "b/to_c"),
            ("../b", "c/to_b"),
            // A file linked twice.
            ("a/x.txt", "x-link.txt"),
        ],
    );
    let walked = root.clone();
    let corpus = within(60, move || read_corpus(&walked, &ReadOptions::default())).unwrap();
    let mut got = ids(&corpus);
    // Every file read once, under the first path the sorted walk meets it by.
    assert_eq!(got, ["a/x.txt", "b/to_c/z.txt", "b/y.txt"]);
    got.sort_unstable();
    got.dedup();
    assert_eq!(got.len(), 3);
    let texts: Vec<_> = corpus.documents.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(texts, ["file in a", "file in c", "file in b"]);
    // Loops are problems naming the link; nothing else went wrong.
    assert!(!corpus.problems.is_empty());
    assert!(
        corpus
            .problems
            .iter()
            .all(|p| p.kind == ProblemKind::SymlinkLoop && p.message.contains("loop")),
        "{:?}",
        corpus.problems
    );
    let loop_links: Vec<_> = corpus.problems.iter().map(|p| p.location.clone()).collect();
    for link in ["a/up", "a/self", "b/to_c/to_b"] {
        let link = root.join(link).display().to_string();
        assert!(loop_links.contains(&link), "{link} not in {loop_links:?}");
    }
    // c (reached again directly) and x-link.txt were not walked or read again.
    assert!(corpus.stats.revisited >= 2, "{:?}", corpus.stats);
}

#[cfg(unix)]
#[test]
fn unreadable_entries_are_problems_not_hangs() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root) = tree(
        &[("good.txt", "readable")],
        &[("does-not-exist", "dangling")],
    );
    // A socket: opening it as a file would fail (a FIFO would block forever); the
    // reader must not open it at all.
    let _listener = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    let locked = write(&root.join("locked.txt"), "secret");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let root_can_read = fs::File::open(&locked).is_ok();

    let walked = root.clone();
    let corpus = within(60, move || read_corpus(&walked, &ReadOptions::default())).unwrap();
    let problem = |name: &str| {
        let loc = root.join(name).display().to_string();
        corpus.problems.iter().find(|p| p.location == loc).cloned()
    };
    // The dangling link and the socket.
    for (name, says) in [("dangling", "dangling"), ("sock", "not a regular file")] {
        let p = problem(name).unwrap_or_else(|| panic!("{name} not reported"));
        assert_eq!(p.kind, ProblemKind::Unreadable, "{name}");
        assert!(p.message.contains(says), "{name}: {}", p.message);
    }
    if root_can_read {
        println!("running as root: a mode-000 file is still readable; that case is not checked");
        assert!(ids(&corpus).contains(&"locked.txt"));
    } else {
        let locked = problem("locked.txt").expect("locked file reported");
        assert_eq!(locked.kind, ProblemKind::Unreadable);
        assert!(
            locked.message.starts_with("cannot open"),
            "{}",
            locked.message
        );
    }
    assert!(ids(&corpus).contains(&"good.txt"));
    fs::set_permissions(root.join("locked.txt"), fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn a_file_path_is_jsonl_even_if_it_is_plain_text() {
    let (_dir, path) = temp_file("notes.txt", "just some words\n");
    match read_corpus(&path, &ReadOptions::default()) {
        Err(Error::NoDocuments {
            rejected: 1, first, ..
        }) => {
            assert!(first.contains(":1: malformed JSON"), "{first}")
        }
        other => panic!("expected NoDocuments, got {other:?}"),
    }
}

/// What `read_corpus` must give for `path`, computed with the streaming reader and the
/// duplicate-id rule applied in order: the documents, every problem as `(location,
/// message, kind)` (a repeated id at its record), and the blank lines counted.
fn streamed(
    path: &Path,
    options: &ReadOptions,
) -> (Vec<Document>, Vec<(String, String, ProblemKind)>, u64) {
    let mut reader = JsonlReader::open(path, options).expect("open the file");
    let (mut docs, mut problems) = (Vec::new(), Vec::new());
    let mut ids = HashSet::new();
    while let Some(item) = reader.next() {
        match item {
            Ok(d) if !ids.insert(d.id.clone()) => problems.push((
                reader.location(),
                format!(
                    "duplicate id {:?}: an earlier document has it (the first is kept)",
                    d.id
                ),
                ProblemKind::DuplicateId,
            )),
            Ok(d) => docs.push(d),
            Err(p) => problems.push((p.location.clone(), p.message.clone(), p.kind)),
        }
    }
    (docs, problems, reader.blank_lines())
}

/// `read_corpus` gives the documents, problems and locations of the streaming reader
/// with the duplicate-id rule applied in order, over 12,000 lines mixing good records,
/// malformed JSON, schema errors, blank lines, CRLF, a BOM and repeated ids.
#[test]
fn read_corpus_equals_the_streaming_reader_with_the_duplicate_id_rule() {
    use std::fmt::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.jsonl");
    let mut text = String::from("\u{feff}");
    for i in 0..12_000u32 {
        match i % 97 {
            0 => text.push_str("not json at all\n"),
            1 => text.push('\n'),
            2 => text.push_str("{\"id\": 5, \"text\": \"a duplicate id\"}\n"),
            3 => text.push_str("{\"id\": \"x\", \"text\": 3}\n"),
            4 => text.push_str("   \r\n"),
            _ => {
                let _ = writeln!(
                    text,
                    "{{\"id\": \"d{i}\", \"text\": \"document number {i}\"}}\r"
                );
            }
        }
    }
    fs::write(&path, &text).unwrap();
    let options = ReadOptions::default();
    let corpus = read_corpus(&path, &options).unwrap();

    let (docs, problems, blank_lines) = streamed(&path, &options);
    assert!(docs.len() > 11_000 && problems.len() > 300);
    assert_eq!(corpus.documents, docs);
    let locations: Vec<&str> = corpus
        .problems
        .iter()
        .map(|p| p.location.as_str())
        .collect();
    let want: Vec<&str> = problems.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(locations, want);
    assert_eq!(corpus.stats.blank_lines, blank_lines);
}

/// `read_corpus` (which, under `rayon`, reads lines in batches of about 1 MiB and
/// decodes them in parallel) equals the streaming reader with the duplicate-id rule,
/// problem by problem (location, message, kind), over about 9 MB: many batches, lines
/// that span the read buffer, lines over the size limit (short ones and ones longer
/// than the read buffer), escapes, invalid UTF-8, blank lines, CRLF and a BOM; the
/// stop policy fails on the same first problem.
#[test]
fn read_corpus_in_batches_equals_the_streaming_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("batches.jsonl");
    let mut bytes: Vec<u8> = b"\xEF\xBB\xBF".to_vec();
    let mut x = 7u64;
    for i in 0..40_000u32 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = match (x >> 40) % 100 {
            0 => 300_000,   // longer than the read buffer and the limit
            1..=2 => 5_000, // over the limit
            3..=5 => 3_000, // under the limit
            _ => (x >> 20) as usize % 400,
        };
        let body = "w".repeat(len);
        match i % 101 {
            0 => bytes.extend_from_slice(b"{\"text\": \"bad \xff byte\"}\n"),
            1 => bytes.extend_from_slice(b"\n"),
            2 => bytes.extend_from_slice(
                format!("{{\"id\": {}, \"text\": \"dup\"}}\n", i % 7).as_bytes(),
            ),
            3 => bytes.extend_from_slice(b"[1, 2]\r\n"),
            4 => bytes.extend_from_slice(b"  \t \r\n"),
            5 => bytes.extend_from_slice(b"{\"id\": \"e\", \"text\": \"tab\\t\\u00e9\\n\"}\n"),
            _ => bytes.extend_from_slice(
                format!("{{\"id\": \"d{i}\", \"text\": \"{body} {i}\"}}\r\n").as_bytes(),
            ),
        }
    }
    bytes.extend_from_slice(b"{\"id\": \"last\", \"text\": \"no newline at the end\"}");
    fs::write(&path, &bytes).unwrap();
    assert!(bytes.len() > 8_000_000);
    let options = ReadOptions::default().with_max_document_bytes(4_000);
    let corpus = read_corpus(&path, &options).unwrap();

    let (docs, problems, blank_lines) = streamed(&path, &options);
    for kind in [
        ProblemKind::TooLarge,
        ProblemKind::Encoding,
        ProblemKind::DuplicateId,
    ] {
        assert!(
            problems.iter().filter(|p| p.2 == kind).count() > 50,
            "{kind:?}"
        );
    }
    assert_eq!(corpus.documents, docs);
    let got: Vec<_> = corpus
        .problems
        .iter()
        .map(|p| (p.location.clone(), p.message.clone(), p.kind))
        .collect();
    assert_eq!(got, problems);
    assert_eq!(corpus.stats.blank_lines, blank_lines);
    assert_eq!(corpus.stats.bytes_read, bytes.len() as u64);

    match read_corpus(&path, &options.with_errors(ErrorPolicy::Stop)) {
        Err(Error::Input { location, .. }) => assert_eq!(location, problems[0].0),
        other => panic!("expected the first problem, got {other:?}"),
    }
}

/// `Corpus::lines` says where each accepted document's record is: checked against
/// the input split at its newlines, with blank lines, rejected lines, duplicate ids
/// and CRLF in between; the same from a file, from gzip and from a stream.
#[test]
fn lines_point_at_each_documents_record() {
    let input = concat!(
        "{\"id\": \"a\", \"text\": \"alpha\"}\n",
        "\n",
        "not json\n",
        "{\"id\": \"b\", \"text\": \"beta\"}\r\n",
        "{\"id\": \"a\", \"text\": \"a repeated id\"}\n",
        "   \n",
        "{\"id\": \"c\", \"text\": \"gamma\"}",
    );
    // The oracle: the line whose JSON has the document's id and text.
    let split: Vec<&str> = input.split('\n').collect();
    let check = |corpus: &ndd_corpus::Corpus, how: &str| {
        assert_eq!(ids(corpus), ["a", "b", "c"], "{how}");
        assert_eq!(corpus.lines.len(), corpus.documents.len(), "{how}");
        for (doc, &line) in corpus.documents.iter().zip(&corpus.lines) {
            let record: serde_json::Value =
                serde_json::from_str(split[usize::try_from(line).unwrap() - 1].trim_end()).unwrap();
            assert_eq!(record["id"], doc.id.as_str(), "{how}");
            assert_eq!(record["text"], doc.text.as_str(), "{how}");
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let plain = write(&dir.path().join("c.jsonl"), input);
    check(
        &read_corpus(&plain, &ReadOptions::default()).unwrap(),
        "file",
    );
    let gz = write(&dir.path().join("c.jsonl.gz"), gzip(input.as_bytes()));
    check(&read_corpus(&gz, &ReadOptions::default()).unwrap(), "gzip");
    for (how, bytes) in [
        ("stream", input.as_bytes().to_vec()),
        ("gzip stream", gzip(input.as_bytes())),
    ] {
        let reader = JsonlReader::from_read(
            std::io::Cursor::new(bytes),
            "<stdin>",
            &ReadOptions::default(),
        )
        .unwrap();
        let corpus = ndd_corpus::read_jsonl_with_progress(reader, |_| {}).unwrap();
        check(&corpus, how);
        assert!(
            corpus.problems[0].to_string().starts_with("<stdin>:3:"),
            "{how}"
        );
    }
    // A folder has no lines.
    let folder = dir.path().join("folder");
    write(&folder.join("x.txt"), "text");
    assert!(
        read_corpus(&folder, &ReadOptions::default())
            .unwrap()
            .lines
            .is_empty()
    );
}

/// An empty stream is `NoDocuments` named after the stream.
#[test]
fn an_empty_stream_is_no_documents_named_after_it() {
    let reader =
        JsonlReader::from_read(std::io::empty(), "<stdin>", &ReadOptions::default()).unwrap();
    match ndd_corpus::read_jsonl_with_progress(reader, |_| {}) {
        Err(Error::NoDocuments { source_name, .. }) => assert_eq!(source_name, "<stdin>"),
        other => panic!("{other:?}"),
    }
}

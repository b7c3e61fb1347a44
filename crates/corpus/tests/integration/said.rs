//! Input that says what it did (issue 30, item 3): gzip files in folders, encodings,
//! field counts and fields no record has, JSON pointers, problems by kind.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::fs;
use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::fixtures::temp_file;

use ndd_corpus::{
    Accepted, Document, Error, FieldRole, FolderReader, JsonlReader, OrderKey, ProblemKind,
    ReadOptions, TextEncoding, read_corpus,
};

/// The documents' `(id, text)` pairs, each text seen through `text`.
fn ids_and_texts<'a>(
    documents: &'a [Document],
    text: impl Fn(&'a str) -> &'a str,
) -> Vec<(&'a str, &'a str)> {
    documents
        .iter()
        .map(|d| (d.id.as_str(), text(d.text.as_str())))
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

#[test]
fn a_gzip_file_in_a_folder_is_the_file_it_decompresses_to() {
    let dir = tempfile::tempdir().unwrap();
    let plain = "a text about the weather, long enough to shingle";
    fs::write(dir.path().join("a.txt"), plain).unwrap();
    fs::write(dir.path().join("b.txt.gz"), gzip(plain.as_bytes())).unwrap();
    // Two gzip members are one stream, as for a JSONL file.
    let mut two = gzip(b"first half, ");
    two.extend(gzip(b"second half"));
    fs::write(dir.path().join("c"), two).unwrap();
    fs::write(dir.path().join("d.htm.gz"), gzip(b"<b>bold</b> move")).unwrap();
    let corpus = read_corpus(dir.path(), &ReadOptions::default()).unwrap();
    let texts = ids_and_texts(&corpus.documents, str::trim);
    assert_eq!(
        texts,
        [
            ("a.txt", plain),
            ("b.txt.gz", plain),
            ("c", "first half, second half"),
            ("d.htm.gz", "bold move"),
        ]
    );
    // Bytes read are the files' bytes as stored.
    let stored: u64 = ["a.txt", "b.txt.gz", "c", "d.htm.gz"]
        .iter()
        .map(|f| fs::metadata(dir.path().join(f)).unwrap().len())
        .sum();
    assert_eq!(corpus.stats.bytes_read, stored);
}

#[test]
fn a_gzip_bomb_is_refused_once_its_output_passes_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = gzip(&vec![b'x'; 8 << 20]);
    fs::write(dir.path().join("bomb.gz"), &bomb).unwrap();
    fs::write(dir.path().join("ok.txt"), "fine").unwrap();
    // A gzip of NUL bytes is refused by the same bound before it is looked at.
    fs::write(dir.path().join("zeros.gz"), gzip(&vec![0; 8 << 20])).unwrap();
    let options = ReadOptions::default().with_max_document_bytes(64 << 10);
    let mut reader = FolderReader::new(dir.path(), &options).unwrap();
    let bomb_item = reader.next().unwrap().unwrap_err();
    assert_eq!(bomb_item.kind, ProblemKind::TooLarge);
    assert!(
        bomb_item
            .message
            .contains("decompresses to more than the limit of 65536 bytes")
    );
    // Only the compressed bytes needed for the bound were read from disk.
    assert!(reader.bytes_read() <= bomb.len() as u64);
    assert_eq!(reader.next().unwrap().unwrap().text, "fine");
    assert_eq!(
        reader.next().unwrap().unwrap_err().kind,
        ProblemKind::TooLarge
    );
    // Under the bound, the same bomb is read whole.
    let options = ReadOptions::default().with_max_document_bytes(9 << 20);
    let corpus = read_corpus(dir.path(), &options).unwrap();
    assert_eq!(corpus.documents[0].text.len(), 8 << 20);
}

#[test]
fn a_truncated_gzip_file_is_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let whole = gzip(b"some words that will not all arrive");
    fs::write(dir.path().join("cut.gz"), &whole[..whole.len() - 10]).unwrap();
    fs::write(dir.path().join("ok.txt"), "fine").unwrap();
    let corpus = read_corpus(dir.path(), &ReadOptions::default()).unwrap();
    assert_eq!(corpus.problems.len(), 1);
    assert_eq!(corpus.problems[0].kind, ProblemKind::Unreadable);
    assert!(corpus.problems[0].message.starts_with("gzip read error"));
}

#[test]
fn encodings_of_folder_files_are_decoded_only_as_asked_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("cp1252.txt"), b"\x93quoted\x94 \xe9t\xe9").unwrap();
    let utf16: Vec<u8> = [0xFE, 0xFF]
        .into_iter()
        .chain("über".encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    fs::write(dir.path().join("utf16.txt"), utf16).unwrap();
    fs::write(dir.path().join("utf8.txt"), "\u{feff}ß").unwrap();
    // A UTF-16 mark with an odd byte after it is not UTF-16.
    fs::write(dir.path().join("odd.txt"), b"\xff\xfeab\x00").unwrap();

    let strict = read_corpus(dir.path(), &ReadOptions::default()).unwrap();
    let kinds: Vec<(String, ProblemKind)> = strict
        .problems
        .iter()
        .map(|p| (p.location.rsplit('/').next().unwrap().to_owned(), p.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("cp1252.txt".to_owned(), ProblemKind::Encoding),
            ("odd.txt".to_owned(), ProblemKind::Encoding)
        ]
    );
    assert!(strict.problems[1].message.contains("UTF-16LE"));
    assert_eq!(
        (strict.stats.utf16_decoded, strict.stats.legacy_decoded),
        (1, 0)
    );

    let auto = ReadOptions::default().with_encoding(TextEncoding::Auto);
    let corpus = read_corpus(dir.path(), &auto).unwrap();
    let text = |id: &str| {
        corpus
            .documents
            .iter()
            .find(|d| d.id == id)
            .map(|d| d.text.clone())
    };
    assert_eq!(
        text("cp1252.txt").as_deref(),
        Some("\u{201c}quoted\u{201d} été")
    );
    assert_eq!(text("utf16.txt").as_deref(), Some("über"));
    assert_eq!(text("utf8.txt").as_deref(), Some("ß"));
    assert_eq!(
        (corpus.stats.utf16_decoded, corpus.stats.legacy_decoded),
        (1, 1)
    );
}

#[test]
fn jsonl_lines_in_a_legacy_encoding_are_decoded_when_asked() {
    let input = b"{\"text\": \"na\xefve\"}\n{\"text\": \"plain\"}\n";
    let strict: Vec<_> = JsonlReader::new(&input[..], "in", &ReadOptions::default()).collect();
    assert_eq!(strict[0].as_ref().unwrap_err().kind, ProblemKind::Encoding);
    let opts = ReadOptions::default().with_encoding(TextEncoding::Latin1);
    let mut reader = JsonlReader::new(&input[..], "in", &opts);
    let texts: Vec<String> = reader.by_ref().map(|d| d.unwrap().text).collect();
    assert_eq!(texts, ["naïve", "plain"]);
    // Only the line with a byte outside ASCII counts as decoded.
    assert_eq!(reader.legacy_decoded(), 1);
}

/// The same documents and counts whether lines are decoded one by one or in batches
/// (read_corpus under the rayon feature).
#[test]
fn fields_are_counted_and_a_field_no_record_has_is_an_error() {
    let (_dir, path) = temp_file(
        "c.jsonl",
        concat!(
            "{\"id\": \"a\", \"text\": \"one\", \"date\": \"2024-01-02\", \"tag\": \"x\"}\n",
            "{\"id\": null, \"text\": \"two\", \"date\": null}\n",
            "{\"text\": \"three\", \"tag\": \"y\"}\n",
            "{\"id\": \"b\", \"text\": 4}\n",
        ),
    );
    let opts = ReadOptions::default()
        .with_order_field("date")
        .with_attribute_fields(["tag", "nowhere"]);
    let corpus = read_corpus(&path, &opts).unwrap();
    let counts = corpus.fields.clone().unwrap();
    // The rejected record (text 4) is not counted; null counts as absent.
    assert_eq!(
        (
            counts.records,
            counts.id,
            counts.order,
            counts.attributes.clone()
        ),
        (3, 1, 1, vec![2, 0])
    );
    let mut reader = JsonlReader::open(&path, &opts).unwrap();
    reader.by_ref().for_each(drop);
    assert_eq!(reader.fields(), &counts);
    let missing: Vec<(String, FieldRole, u64)> = counts
        .missing(&opts)
        .into_iter()
        .map(|m| (m.field, m.role, m.without))
        .collect();
    assert_eq!(
        missing,
        [
            ("id".to_owned(), FieldRole::Id, 2),
            ("date".to_owned(), FieldRole::Order, 2),
            ("tag".to_owned(), FieldRole::Attribute, 1),
            ("nowhere".to_owned(), FieldRole::Attribute, 3),
        ]
    );
    // Misspelt: the order field, the id field when named.
    for opts in [
        ReadOptions::default().with_order_field("dat"),
        ReadOptions::default().with_id_field("idd"),
    ] {
        match read_corpus(&path, &opts) {
            Err(Error::FieldNotFound { field, records, .. }) => {
                assert!(field == "dat" || field == "idd", "{field}");
                assert_eq!(records, 3);
            }
            other => panic!("{other:?}"),
        }
    }
    // The default id field may be absent everywhere: documents are numbered.
    fs::write(&path, "{\"text\": \"one\"}\n{\"text\": \"two\"}\n").unwrap();
    let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
    assert_eq!(corpus.documents[1].id, "2");
    assert!(
        corpus
            .fields
            .unwrap()
            .missing(&ReadOptions::default())
            .is_empty()
    );
}

#[test]
fn fields_are_named_by_json_pointer() {
    let (_dir, path) = temp_file(
        "c.jsonl",
        concat!(
            "{\"meta\": {\"ids\": [\"first\", 7], \"a/b\": {\"m~n\": 3}}, \"body\": {\"text\": \"alpha\"}}\n",
            "{\"meta\": {\"ids\": [\"second\"]}, \"body\": {\"text\": \"beta\"}}\n",
            "{\"meta\": {\"ids\": []}, \"body\": {\"text\": \"gamma\"}}\n",
            "{\"meta\": 5, \"body\": {\"text\": \"delta\"}}\n",
            "{\"body\": {\"text\": \"x\"}, \"body\": {\"text\": \"y\"}}\n",
            "{\"body\": {\"text\": [1]}}\n",
            "[\"not an object\"]\n",
        ),
    );
    let opts = ReadOptions::default()
        .with_id_field("/meta/ids/0")
        .with_text_field("/body/text")
        .with_order_field("/meta/a~1b/m~0n");
    for corpus in [
        read_corpus(&path, &opts).unwrap(),
        ndd_corpus::read_jsonl_with_progress(
            JsonlReader::new(fs::read(&path).unwrap().as_slice(), "c", &opts),
            |_| {},
        )
        .unwrap(),
    ] {
        let docs = ids_and_texts(&corpus.documents, |t| t);
        // No element 0, or `meta` not an object: numbered by line.
        assert_eq!(
            docs,
            [
                ("first", "alpha"),
                ("second", "beta"),
                ("3", "gamma"),
                ("4", "delta")
            ]
        );
        assert_eq!(corpus.documents[0].order, Some(OrderKey::Number(3.0)));
        let messages: Vec<&str> = corpus.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "field \"/body/text\" appears more than once",
                "field \"/body/text\" is an array, expected a string",
                "the line is an array, expected a JSON object",
            ]
        );
    }
    // An array index with a leading zero is not an index (RFC 6901).
    let leading = ReadOptions::default()
        .with_id_field("/meta/ids/00")
        .with_text_field("/body/text");
    assert!(matches!(
        read_corpus(&path, &leading),
        Err(Error::FieldNotFound { .. })
    ));
}

#[test]
fn accepted_counts_problems_by_kind_and_sinks_every_one() {
    let mut input = String::new();
    for i in 0..250 {
        input.push_str(if i % 2 == 0 {
            "oops\n"
        } else {
            "{\"text\": 1}\n"
        });
    }
    input.push_str("{\"text\": \"kept\"}\n");
    let options = ReadOptions::default();
    let all = Arc::new(Mutex::new(0usize));
    let count = Arc::clone(&all);
    let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in", &options), &options)
        .with_problem_sink(Box::new(move |_| *count.lock().unwrap() += 1));
    assert_eq!(docs.by_ref().count(), 1);
    // The sink saw all 250, though only the first 100 are kept.
    assert_eq!(*all.lock().unwrap(), 250);
    assert_eq!(docs.problems().len(), ndd_corpus::KEPT_PROBLEMS);
    assert_eq!(
        docs.rejected_by_kind(),
        [
            (ProblemKind::MalformedJson, 125),
            (ProblemKind::Schema, 125)
        ]
    );
}

#[test]
fn utf16_json_lines_are_refused_for_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "{\"text\": \"a\"}\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    for (name, bytes) in [("u.jsonl", utf16.clone()), ("u.jsonl.gz", gzip(&utf16))] {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        match read_corpus(&path, &ReadOptions::default()) {
            Err(Error::Io { source, .. }) => {
                assert!(source.to_string().contains("is UTF-16 text"), "{source}");
            }
            other => panic!("{other:?}"),
        }
    }
}

//! Parquet and zstd-compressed JSONL shards written by other implementations (pyarrow,
//! the `zstd` command: scripts/make_shard_fixtures.py), read, written back and read
//! again; damaged files give typed errors or problems, never panics.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::fs;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{Array, RecordBatch};
use ndd_corpus::{
    Error, ParquetCopier, ProblemKind, ReadOptions, RecordFormat, RecordWriter, read_corpus,
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shards")
}

const FOX: &str = "the quick brown fox jumps over the lazy dog near the river bank";

/// The rows as the script wrote them: id, text, lang, score, tags.
type Row = (
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<f64>,
    Option<Vec<&'static str>>,
);

fn script_rows() -> Vec<Row> {
    vec![
        ("p1", FOX, Some("en"), Some(0.5), Some(vec!["a", "b"])),
        (
            "p2",
            "a completely different sentence about parquet files",
            None,
            Some(1.25),
            Some(vec![]),
        ),
        ("p3", FOX, Some("fr"), None, Some(vec!["c"])),
        (
            "p4",
            "yet another text that shares nothing with the others",
            Some("de"),
            Some(3.0),
            None,
        ),
        ("q1", FOX, Some("en"), Some(7.0), Some(vec!["d"])),
        (
            "q2",
            "the last document of the second shard stands alone",
            Some("en"),
            Some(8.5),
            Some(vec![]),
        ),
    ]
}

/// Every row of a Parquet file, read with the parquet crate's own Arrow reader.
fn parquet_rows(path: &Path) -> (Vec<String>, Vec<Row2>) {
    let file = fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let names = batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut rows = Vec::new();
    for b in &batches {
        let s = |c: &str| b.column_by_name(c).unwrap().as_string::<i32>().clone();
        let (id, text, lang) = (s("id"), s("text"), s("lang"));
        let score = b
            .column_by_name("score")
            .unwrap()
            .as_primitive::<Float64Type>();
        let tags = b.column_by_name("tags").unwrap().as_list::<i32>();
        for i in 0..b.num_rows() {
            let opt = |a: &arrow_array::StringArray| (!a.is_null(i)).then(|| a.value(i).to_owned());
            let tag_list = (!tags.is_null(i)).then(|| {
                let v = tags.value(i);
                let v = v.as_string::<i32>();
                (0..v.len())
                    .map(|k| v.value(k).to_owned())
                    .collect::<Vec<_>>()
            });
            let extra = ["ndd_group", "ndd_kept", "ndd_reason"].map(|c| {
                b.column_by_name(c).map(|col| match col.data_type() {
                    arrow_schema::DataType::Boolean => col.as_boolean().value(i).to_string(),
                    _ => col.as_string::<i32>().value(i).to_owned(),
                })
            });
            rows.push(Row2 {
                id: id.value(i).to_owned(),
                text: text.value(i).to_owned(),
                lang: opt(&lang),
                score: (!score.is_null(i)).then(|| score.value(i)),
                tags: tag_list,
                extra,
            });
        }
    }
    (names, rows)
}

#[derive(Debug, PartialEq)]
struct Row2 {
    id: String,
    text: String,
    lang: Option<String>,
    score: Option<f64>,
    tags: Option<Vec<String>>,
    extra: [Option<String>; 3],
}

fn row2(r: &Row, extra: [Option<&str>; 3]) -> Row2 {
    Row2 {
        id: r.0.to_owned(),
        text: r.1.to_owned(),
        lang: r.2.map(str::to_owned),
        score: r.3,
        tags: r
            .4
            .as_ref()
            .map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
        extra: extra.map(|e| e.map(str::to_owned)),
    }
}

/// The corpus of a fixture folder, checked to hold the script's ids and texts.
fn read_as_written(folder: &str) -> ndd_corpus::Corpus {
    read_as_written_at(&fixtures().join(folder))
}

/// The corpus of the folder `path`, checked to hold the script's ids and texts.
fn read_as_written_at(path: &Path) -> ndd_corpus::Corpus {
    let corpus = read_corpus(path, &ReadOptions::default()).unwrap();
    let got: Vec<(&str, &str)> = corpus
        .documents
        .iter()
        .map(|d| (d.id.as_str(), d.text.as_str()))
        .collect();
    let want: Vec<(&str, &str)> = script_rows().iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(got, want);
    corpus
}

#[test]
fn a_folder_of_pyarrow_parquet_shards_reads_as_the_script_wrote_it() {
    let corpus = read_as_written("parquet");
    // Rows within their shard (the first crosses a row group every two rows).
    assert_eq!(corpus.lines, [1, 2, 3, 4, 1, 2]);
    let shards: Vec<(String, RecordFormat, usize)> = corpus
        .shards
        .iter()
        .map(|s| {
            let name = s.path.file_name().unwrap().to_string_lossy().into_owned();
            (name, s.format, s.documents)
        })
        .collect();
    assert_eq!(
        shards,
        [
            ("part-0.parquet".to_owned(), RecordFormat::Parquet, 4),
            ("part-1.parquet".to_owned(), RecordFormat::Parquet, 2),
        ]
    );
}

#[test]
fn a_folder_of_zstd_command_shards_reads_the_same_documents() {
    let corpus = read_as_written("zst");
    assert_eq!(corpus.shards[1].format, RecordFormat::JsonlZstd);
    assert_eq!(corpus.shards[1].documents, 2);
}

#[test]
fn a_single_zstd_file_is_read_whatever_its_name_and_numbered_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-extension");
    let lines = "{\"text\": \"one\"}\n\n{\"text\": \"two\"}\n";
    fs::write(&path, zstd::encode_all(lines.as_bytes(), 1).unwrap()).unwrap();
    let corpus = read_corpus(&path, &ReadOptions::default()).unwrap();
    let ids: Vec<&str> = corpus.documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["1", "3"]);
    assert_eq!(corpus.shards[0].format, RecordFormat::JsonlZstd);
}

#[test]
fn shard_records_without_ids_are_numbered_within_their_shard_and_named_by_it() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("a.jsonl.zst", "alpha"), ("sub/b.jsonl.zst", "beta")] {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let line = format!("{{\"text\": \"{text}\"}}\n");
        fs::write(path, zstd::encode_all(line.as_bytes(), 1).unwrap()).unwrap();
    }
    let corpus = read_corpus(dir.path(), &ReadOptions::default()).unwrap();
    let ids: Vec<&str> = corpus.documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["a.jsonl.zst:1", "sub/b.jsonl.zst:1"]);
}

#[test]
fn a_dictionary_typed_text_column_reads_as_its_strings() {
    let corpus = read_corpus(
        fixtures().join("dictionary.parquet"),
        &ReadOptions::default(),
    )
    .unwrap();
    let texts: Vec<&str> = corpus.documents.iter().map(|d| d.text.as_str()).collect();
    let want: Vec<&str> = script_rows()[..4].iter().map(|r| r.1).collect();
    assert_eq!(texts, want);
}

#[test]
fn a_column_of_the_wrong_type_or_missing_is_a_typed_error_naming_it() {
    match read_corpus(fixtures().join("int_text.parquet"), &ReadOptions::default()) {
        Err(Error::Format { message, .. }) => {
            assert!(message.contains("column \"text\""), "{message}");
            assert!(message.contains("Int64"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let opts = ReadOptions::default().with_text_field("body");
    match read_corpus(fixtures().join("dictionary.parquet"), &opts) {
        Err(Error::Format { message, .. }) => {
            assert!(message.contains("no column \"body\""), "{message}")
        }
        other => panic!("{other:?}"),
    }
    let opts = ReadOptions::default().with_id_field("url");
    assert!(matches!(
        read_corpus(fixtures().join("dictionary.parquet"), &opts),
        Err(Error::FieldNotFound { .. })
    ));
}

/// The Parquet fixture folder read, and a writer of its rows to `name` in `dir`.
fn parquet_writer(dir: &Path, name: &str) -> (ndd_corpus::Corpus, PathBuf, RecordWriter<fs::File>) {
    let corpus = read_corpus(fixtures().join("parquet"), &ReadOptions::default()).unwrap();
    let out = dir.join(name);
    let w = RecordWriter::new(RecordFormat::Parquet, fs::File::create(&out).unwrap()).unwrap();
    (corpus, out, w)
}

#[test]
fn chosen_rows_are_written_back_with_every_column_and_added_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, out, mut w) = parquet_writer(dir.path(), "out.parquet");
    // Documents 0, 2 (the next row group), 3 and 5 (the second shard).
    let place = [(0, 0), (0, 2), (0, 3), (1, 5)];
    for (shard, doc) in place {
        let mut fields = serde_json::Map::new();
        fields.insert("ndd_group".into(), corpus.documents[doc].id.clone().into());
        fields.insert("ndd_kept".into(), (doc != 2).into());
        fields.insert("ndd_reason".into(), "test".into());
        w.copy(&corpus.shards[shard], corpus.lines[doc], &fields)
            .unwrap();
    }
    w.finish().unwrap();
    let (names, rows) = parquet_rows(&out);
    assert_eq!(
        names,
        [
            "id",
            "text",
            "lang",
            "score",
            "tags",
            "ndd_group",
            "ndd_kept",
            "ndd_reason"
        ]
    );
    let s = script_rows();
    let want = vec![
        row2(&s[0], [Some("p1"), Some("true"), Some("test")]),
        row2(&s[2], [Some("p3"), Some("false"), Some("test")]),
        row2(&s[3], [Some("p4"), Some("true"), Some("test")]),
        row2(&s[5], [Some("q2"), Some("true"), Some("test")]),
    ];
    assert_eq!(rows, want);
}

#[test]
fn kept_rows_alone_keep_the_input_schema_and_a_name_taken_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("parquet/part-0.parquet");
    let out = dir.path().join("kept.parquet");
    let mut c = ParquetCopier::new(fs::File::create(&out).unwrap());
    c.copy(&input, 2, &serde_json::Map::new()).unwrap();
    c.copy(&input, 4, &serde_json::Map::new()).unwrap();
    // Rows go forward only.
    assert!(matches!(
        c.copy(&input, 4, &serde_json::Map::new()),
        Err(Error::Format { .. })
    ));
    c.finish().unwrap();
    let (names, rows) = parquet_rows(&out);
    assert_eq!(names, ["id", "text", "lang", "score", "tags"]);
    let s = script_rows();
    assert_eq!(
        rows,
        [
            row2(&s[1], [None, None, None]),
            row2(&s[3], [None, None, None])
        ]
    );

    let mut c = ParquetCopier::new(Vec::new());
    let mut fields = serde_json::Map::new();
    fields.insert("lang".into(), "xx".into());
    match c.copy(&input, 1, &fields) {
        Err(Error::Format { message, .. }) => assert!(message.contains("\"lang\""), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn zstd_records_are_written_back_compressed_with_fields_appended() {
    let corpus = read_corpus(fixtures().join("zst"), &ReadOptions::default()).unwrap();
    let mut w = RecordWriter::new(RecordFormat::JsonlZstd, Vec::new()).unwrap();
    let mut fields = serde_json::Map::new();
    fields.insert("ndd_kept".into(), true.into());
    w.copy(&corpus.shards[0], corpus.lines[1], &fields).unwrap();
    w.copy(&corpus.shards[1], corpus.lines[4], &serde_json::Map::new())
        .unwrap();
    let text = String::from_utf8(zstd::decode_all(&w.finish().unwrap()[..]).unwrap()).unwrap();
    // The script's json.dumps spelling, unchanged, with the field appended.
    let first = r#"{"id": "p2", "text": "a completely different sentence about parquet files", "lang": null, "score": 1.25, "tags": [],"ndd_kept":true}"#;
    let second =
        format!(r#"{{"id": "q1", "text": "{FOX}", "lang": "en", "score": 7.0, "tags": ["d"]}}"#);
    assert_eq!(text, format!("{first}\n{second}\n"));
}

/// Every prefix of a Parquet file and of a zstd file, and the Parquet file with
/// single bytes changed, read without a panic: a typed error or problems.
#[test]
fn damaged_parquet_and_zstd_give_typed_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged");
    let parquet = fs::read(fixtures().join("parquet/part-0.parquet")).unwrap();
    let zst = fs::read(fixtures().join("zst/part-0.jsonl.zst")).unwrap();
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for n in (4..parquet.len()).step_by(7) {
        cases.push(parquet[..n].to_vec());
    }
    for at in (4..parquet.len() - 8).step_by(13) {
        let mut b = parquet.clone();
        b[at] ^= 0x5a;
        cases.push(b);
    }
    for n in 4..zst.len() {
        cases.push(zst[..n].to_vec());
    }
    let mut errors = 0;
    for bytes in cases {
        fs::write(&path, &bytes).unwrap();
        match read_corpus(&path, &ReadOptions::default()) {
            Err(Error::Format { .. } | Error::NoDocuments { .. } | Error::Io { .. }) => errors += 1,
            Err(other) => panic!("{other:?}"),
            Ok(corpus) => {
                for p in &corpus.problems {
                    assert!(
                        matches!(
                            p.kind,
                            ProblemKind::Unreadable
                                | ProblemKind::MalformedJson
                                | ProblemKind::Schema
                                | ProblemKind::Empty
                                | ProblemKind::Encoding
                                | ProblemKind::TooLarge
                        ),
                        "{p}"
                    );
                }
            }
        }
    }
    assert!(errors > 0);
    // A truncated footer is named as such.
    fs::write(&path, &parquet[..parquet.len() - 3]).unwrap();
    match read_corpus(&path, &ReadOptions::default()) {
        Err(Error::Format { message, .. }) => assert!(message.contains("Parquet"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn edited_rows_get_their_text_replaced_and_every_other_column_intact() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, out, mut w) = parquet_writer(dir.path(), "edited.parquet");
    // Every document, across both row groups of the first shard and into the second;
    // the foxes' texts replaced, the others copied as they are by copy_edited too.
    let mut shard = 0;
    for (doc, d) in corpus.documents.iter().enumerate() {
        if doc == corpus.shards[0].documents {
            shard = 1;
        }
        let text = if d.text == FOX {
            format!("edited {}", d.id)
        } else {
            d.text.clone()
        };
        w.copy_edited(&corpus.shards[shard], corpus.lines[doc], "text", &text)
            .unwrap();
    }
    w.finish().unwrap();
    let (names, rows) = parquet_rows(&out);
    assert_eq!(names, ["id", "text", "lang", "score", "tags"]);
    let want: Vec<Row2> = script_rows()
        .iter()
        .map(|r| {
            let mut row = row2(r, [None, None, None]);
            if r.1 == FOX {
                row.text = format!("edited {}", r.0);
            }
            row
        })
        .collect();
    assert_eq!(rows, want);
}

#[test]
fn an_edited_dictionary_text_column_or_a_second_edited_column_is_refused() {
    let input = fixtures().join("dictionary.parquet");
    let mut c = ParquetCopier::new(Vec::new());
    c.copy_edited(&input, 1, "text", "x").unwrap();
    match c.finish() {
        Err(Error::Format { message, .. }) => {
            assert!(message.contains("Dictionary"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let input = fixtures().join("parquet/part-0.parquet");
    let mut c = ParquetCopier::new(Vec::new());
    c.copy_edited(&input, 1, "text", "x").unwrap();
    assert!(matches!(
        c.copy_edited(&input, 2, "lang", "x"),
        Err(Error::Format { .. })
    ));
}

#[test]
fn zstd_records_are_written_back_compressed_with_their_text_replaced() {
    let corpus = read_corpus(fixtures().join("zst"), &ReadOptions::default()).unwrap();
    let mut w = RecordWriter::new(RecordFormat::JsonlZstd, Vec::new()).unwrap();
    w.copy_edited(&corpus.shards[0], corpus.lines[2], "text", "cut")
        .unwrap();
    w.copy_edited(&corpus.shards[1], corpus.lines[5], "text", "")
        .unwrap();
    let text = String::from_utf8(zstd::decode_all(&w.finish().unwrap()[..]).unwrap()).unwrap();
    // The script's json.dumps spelling with the text alone replaced.
    let first = r#"{"id": "p3", "text": "cut", "lang": "fr", "score": null, "tags": ["c"]}"#;
    let second = r#"{"id": "q2", "text": "", "lang": "en", "score": 8.5, "tags": []}"#;
    assert_eq!(text, format!("{first}\n{second}\n"));
}

/// The records of the zstd fixtures as plain JSON Lines, one string per shard.
fn fixture_jsonl() -> [String; 2] {
    ["part-0.jsonl.zst", "part-1.jsonl.zst"].map(|name| {
        let bytes = fs::read(fixtures().join("zst").join(name)).unwrap();
        String::from_utf8(zstd::decode_all(&bytes[..]).unwrap()).unwrap()
    })
}

#[test]
fn a_folder_of_plain_and_gzip_jsonl_files_is_read_as_records() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let [first, second] = fixture_jsonl();
    fs::write(dir.path().join("a.jsonl"), &first).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(second.as_bytes()).unwrap();
    fs::write(dir.path().join("b.ndjson.gz"), gz.finish().unwrap()).unwrap();
    let options = ReadOptions::default();
    assert_eq!(
        RecordFormat::of_folder(dir.path(), &options),
        Some(RecordFormat::Jsonl)
    );
    let corpus = read_as_written_at(dir.path());
    let formats: Vec<_> = corpus
        .shards
        .iter()
        .map(|s| (s.format, s.documents))
        .collect();
    assert_eq!(
        formats,
        [(RecordFormat::Jsonl, 4), (RecordFormat::JsonlGzip, 2)]
    );
    assert_eq!(
        RecordFormat::jsonl_beside_others(dir.path(), &options),
        None
    );

    // A text file beside them: one document per file, as before, and the first
    // JSON Lines file named for the warning.
    fs::write(dir.path().join("c.txt"), "a plain text").unwrap();
    assert_eq!(RecordFormat::of_folder(dir.path(), &options), None);
    assert_eq!(
        RecordFormat::jsonl_beside_others(dir.path(), &options),
        Some(dir.path().join("a.jsonl"))
    );
    assert_eq!(
        read_corpus(dir.path(), &options).unwrap().documents.len(),
        3
    );
}

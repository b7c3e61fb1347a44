//! `ndd dedup` on folders of Parquet and `.jsonl.zst` shards written by other
//! implementations (crates/corpus/tests/fixtures/shards, scripts/make_shard_fixtures.py):
//! the kept rows come back in the input's format, every other column or field intact,
//! in input order.

use std::fs;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::common::{ndd, ok};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/tests/fixtures/shards")
}

/// Every row of a Parquet file as `column=value` strings (arrays and nulls in Arrow's
/// display form), with the column names.
fn rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let file = fs::File::open(path).expect("the output");
    let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("a Parquet footer")
        .build()
        .expect("a reader")
        .collect::<Result<_, _>>()
        .expect("its rows");
    let schema = batches[0].schema();
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let mut out = Vec::new();
    for b in &batches {
        for i in 0..b.num_rows() {
            let row = b
                .columns()
                .iter()
                .zip(&names)
                .map(|(c, n)| {
                    let v = if c.is_null(i) {
                        "null".to_owned()
                    } else if let Some(s) = c.as_string_opt::<i32>() {
                        s.value(i).to_owned()
                    } else if let Some(l) = c.as_list_opt::<i32>() {
                        let v = l.value(i);
                        let s = v.as_string::<i32>();
                        format!("{:?}", (0..s.len()).map(|k| s.value(k)).collect::<Vec<_>>())
                    } else if let Some(f) = c.as_primitive_opt::<arrow_array::types::Float64Type>()
                    {
                        f.value(i).to_string()
                    } else {
                        c.as_boolean().value(i).to_string()
                    };
                    format!("{n}={v}")
                })
                .collect();
            out.push(row);
        }
    }
    (names, out)
}

const FOX: &str = "the quick brown fox jumps over the lazy dog near the river bank";

#[test]
fn a_folder_of_parquet_shards_is_deduplicated_into_parquet_with_every_column() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let input = fixtures().join("parquet");
    let input = input.to_str().expect("a UTF-8 path");
    let out = ndd(
        &[
            "dedup",
            "--input",
            input,
            "--keep-out",
            "kept.parquet",
            "--annotate-out",
            "ann.parquet",
            "--drop-out",
            "dropped.txt",
        ],
        dir.path(),
    );
    ok(&out);
    // p3 and q1 are exact copies of p1 (the script wrote them so).
    let dropped = fs::read_to_string(dir.path().join("dropped.txt")).expect("--drop-out");
    assert_eq!(dropped, "p3\nq1\n");
    let (names, kept) = rows(&dir.path().join("kept.parquet"));
    assert_eq!(names, ["id", "text", "lang", "score", "tags"]);
    let want = [
        format!("id=p1|text={FOX}|lang=en|score=0.5|tags=[\"a\", \"b\"]"),
        "id=p2|text=a completely different sentence about parquet files|lang=null|score=1.25|tags=[]".to_owned(),
        "id=p4|text=yet another text that shares nothing with the others|lang=de|score=3|tags=null".to_owned(),
        "id=q2|text=the last document of the second shard stands alone|lang=en|score=8.5|tags=[]".to_owned(),
    ];
    let got: Vec<String> = kept.iter().map(|r| r.join("|")).collect();
    assert_eq!(got, want);
    let (names, ann) = rows(&dir.path().join("ann.parquet"));
    assert_eq!(&names[5..], ["ndd_group", "ndd_kept", "ndd_reason"]);
    let fates: Vec<String> = ann
        .iter()
        .map(|r| format!("{}|{}", r[0], r[5..].join("|")))
        .collect();
    assert_eq!(
        fates,
        [
            "id=p1|ndd_group=p1|ndd_kept=true|ndd_reason=kept",
            "id=p2|ndd_group=p2|ndd_kept=true|ndd_reason=unique",
            "id=p3|ndd_group=p1|ndd_kept=false|ndd_reason=exact",
            "id=p4|ndd_group=p4|ndd_kept=true|ndd_reason=unique",
            "id=q1|ndd_group=p1|ndd_kept=false|ndd_reason=exact",
            "id=q2|ndd_group=q2|ndd_kept=true|ndd_reason=unique",
        ]
    );
}

#[test]
fn a_folder_of_zstd_shards_is_deduplicated_into_zstd_jsonl_with_records_unchanged() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let input = fixtures().join("zst");
    let input = input.to_str().expect("a UTF-8 path");
    ok(&ndd(
        &["dedup", "--input", input, "--keep-out", "kept.jsonl.zst"],
        dir.path(),
    ));
    let bytes = fs::read(dir.path().join("kept.jsonl.zst")).expect("--keep-out");
    assert_eq!(&bytes[..4], [0x28, 0xb5, 0x2f, 0xfd], "zstd-compressed");
    let text = String::from_utf8(zstd::decode_all(&bytes[..]).expect("zstd")).expect("UTF-8");
    // The records as the script's json.dumps wrote them.
    let want = [
        format!(r#"{{"id": "p1", "text": "{FOX}", "lang": "en", "score": 0.5, "tags": ["a", "b"]}}"#),
        r#"{"id": "p2", "text": "a completely different sentence about parquet files", "lang": null, "score": 1.25, "tags": []}"#.to_owned(),
        r#"{"id": "p4", "text": "yet another text that shares nothing with the others", "lang": "de", "score": 3.0, "tags": null}"#.to_owned(),
        r#"{"id": "q2", "text": "the last document of the second shard stands alone", "lang": "en", "score": 8.5, "tags": []}"#.to_owned(),
    ];
    assert_eq!(text.lines().collect::<Vec<_>>(), want);
}

#[test]
fn the_streaming_engines_refuse_parquet_by_name() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let input = fixtures().join("parquet");
    let out = ndd(
        &[
            "dedup",
            "--input",
            input.to_str().expect("UTF-8"),
            "--bloom",
        ],
        dir.path(),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Parquet input is read by the in-memory"),
        "{err}"
    );
}

/// The records of the zstd fixtures as plain JSON Lines, one string per shard (the
/// Parquet fixtures hold the same rows).
fn fixture_jsonl() -> [String; 2] {
    ["part-0.jsonl.zst", "part-1.jsonl.zst"].map(|name| {
        let bytes = fs::read(fixtures().join("zst").join(name)).expect("a fixture");
        String::from_utf8(zstd::decode_all(&bytes[..]).expect("zstd")).expect("UTF-8")
    })
}

/// `ndd <command> <args> --input <input> --out <out>` in `dir`, checked to succeed.
fn edit(command: &str, args: &[&str], input: &Path, out: &str, dir: &Path) {
    let mut all = vec![
        command,
        "--input",
        input.to_str().expect("UTF-8"),
        "--out",
        out,
    ];
    all.extend(args);
    ok(&ndd(&all, dir));
}

/// The `(id, text)` of each record of JSON Lines text.
fn ids_texts(jsonl: &str) -> Vec<(String, String)> {
    jsonl
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON record");
            (
                v["id"].as_str().expect("an id").to_owned(),
                v["text"].as_str().expect("a text").to_owned(),
            )
        })
        .collect()
}

/// `ndd lines` and `ndd substrings` on the Parquet and the zstd folder write their
/// format back with the text edited as the same run edits the JSON Lines form of the
/// same records, every other column or field intact.
#[test]
fn lines_and_substrings_write_parquet_and_zstd_folders_back_in_their_format() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let jsonl = dir.path().join("all.jsonl");
    fs::write(&jsonl, fixture_jsonl().concat()).expect("the JSON Lines form");
    let runs: [(&str, &[&str]); 2] = [
        ("lines", &["--keep-first"]),
        ("substrings", &["--min-length", "20"]),
    ];
    for (command, args) in runs {
        edit(command, args, &jsonl, "want.jsonl", dir.path());
        let want = fs::read_to_string(dir.path().join("want.jsonl")).expect("--out");
        let edited = ids_texts(&want);
        // The foxes after the first lose their text in both runs (an honest check that
        // something was edited).
        let fox: Vec<&str> = edited
            .iter()
            .filter(|(id, _)| id == "p3" || id == "q1")
            .map(|(_, t)| t.as_str())
            .collect();
        assert!(
            fox.iter().all(|t| !t.contains("quick brown fox")),
            "{command}: {fox:?}"
        );

        // zstd: the records byte for byte as the JSON Lines run writes them.
        edit(
            command,
            args,
            &fixtures().join("zst"),
            "out.jsonl.zst",
            dir.path(),
        );
        let bytes = fs::read(dir.path().join("out.jsonl.zst")).expect("--out");
        assert_eq!(
            &bytes[..4],
            [0x28, 0xb5, 0x2f, 0xfd],
            "{command}: zstd-compressed"
        );
        let got = String::from_utf8(zstd::decode_all(&bytes[..]).expect("zstd")).expect("UTF-8");
        assert_eq!(got, want, "{command}");

        // Parquet: every column of the input, the text column as the JSON Lines run's.
        edit(
            command,
            args,
            &fixtures().join("parquet"),
            "out.parquet",
            dir.path(),
        );
        let (names, rows) = rows(&dir.path().join("out.parquet"));
        assert_eq!(names, ["id", "text", "lang", "score", "tags"], "{command}");
        let (_, input) = rows_of_folder(&fixtures().join("parquet"));
        assert_eq!(rows.len(), input.len(), "{command}");
        for ((row, original), (id, text)) in rows.iter().zip(&input).zip(&edited) {
            assert_eq!(row[0], format!("id={id}"), "{command}");
            assert_eq!(row[1], format!("text={text}"), "{command}");
            assert_eq!(row[2..], original[2..], "{command}: the other columns");
        }
    }
}

/// The rows of every Parquet file of a folder, in name order.
fn rows_of_folder(folder: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut files: Vec<PathBuf> = fs::read_dir(folder)
        .expect("the folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    let mut all = Vec::new();
    let mut names = Vec::new();
    for f in files {
        let (n, r) = rows(&f);
        names = n;
        all.extend(r);
    }
    (names, all)
}

/// A folder of three JSON Lines shards (one gzip, one `.ndjson`) is read as records:
/// `ndd dedup` finds the groups and keeps the records of their concatenation as one
/// file, and writes `--keep-out` as one JSON Lines file.
#[test]
fn a_folder_of_jsonl_shards_dedups_as_their_concatenation() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let [first, second] = fixture_jsonl();
    let (a, b) = first.split_at(first.find('\n').expect("two records") + 1);
    let shards = dir.path().join("shards");
    fs::create_dir(&shards).expect("a folder");
    fs::write(shards.join("part-0.jsonl"), a).expect("a shard");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b.as_bytes()).expect("gzip");
    fs::write(shards.join("part-1.jsonl.gz"), gz.finish().expect("gzip")).expect("a shard");
    fs::write(shards.join("part-2.ndjson"), &second).expect("a shard");
    fs::write(dir.path().join("all.jsonl"), fixture_jsonl().concat()).expect("one file");
    let outputs = |stem: &str| {
        [
            "--keep-out".to_owned(),
            format!("{stem}-kept.jsonl"),
            "--clusters-out".to_owned(),
            format!("{stem}-clusters.tsv"),
            "--drop-out".to_owned(),
            format!("{stem}-dropped.txt"),
        ]
    };
    for (input, stem) in [("shards", "folder"), ("all.jsonl", "file")] {
        let mut args = vec!["dedup".to_owned(), "--input".to_owned(), input.to_owned()];
        args.extend(outputs(stem));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ndd(&args, dir.path());
        ok(&out);
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("warning"),
            "{input}"
        );
    }
    let read = |name: &str| fs::read_to_string(dir.path().join(name)).expect(name);
    assert_eq!(read("folder-dropped.txt"), "p3\nq1\n");
    for what in ["kept.jsonl", "clusters.tsv", "dropped.txt"] {
        assert_eq!(
            read(&format!("folder-{what}")),
            read(&format!("file-{what}")),
            "{what}"
        );
    }
    // The kept records are the input's lines, unchanged.
    let kept = read("folder-kept.jsonl");
    let all = fixture_jsonl().concat();
    assert!(kept.lines().all(|l| all.lines().any(|r| r == l)), "{kept}");
    assert_eq!(kept.lines().count(), 4);
}

/// A folder with JSON Lines files beside other files is one document per file, as
/// before, with a warning naming the first JSON Lines file.
#[test]
fn a_folder_mixing_jsonl_with_other_files_warns_and_reads_one_document_per_file() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mixed = dir.path().join("mixed");
    fs::create_dir(&mixed).expect("a folder");
    let [first, _] = fixture_jsonl();
    fs::write(mixed.join("b.jsonl"), &first).expect("a file");
    fs::write(mixed.join("a.txt"), FOX).expect("a file");
    let out = ndd(
        &["dedup", "--input", "mixed", "--drop-out", "dropped.txt"],
        dir.path(),
    );
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning") && err.contains("b.jsonl"), "{err}");
    // Two documents (the files), not five records: nothing is an exact copy.
    assert_eq!(
        fs::read_to_string(dir.path().join("dropped.txt")).expect("--drop-out"),
        ""
    );
}

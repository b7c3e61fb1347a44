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

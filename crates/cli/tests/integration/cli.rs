//! The `ndd` binary, run as a user runs it: on fixtures whose near-duplicate
//! families are known by construction, on bad input and bad options, with every
//! output, incremental batches, standard input and gzip.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::Path;

use ndd_pipeline::align::quadratic_lcs_len;

use common::{Words, fails, fails_each, ndd, ndd_stdin, ok, text, usage_errors};

/// One fixture document: its id, JSONL record, family and what it is.
struct Doc {
    id: String,
    record: String,
    family: usize,
    kind: &'static str,
}

/// `families` families of documents that are near-duplicates by construction: a base
/// text of 120 random words; an exact copy (upper case and punctuation added, which the
/// exact pass folds away); and an edit with its last word replaced (Jaccard of the word
/// 3-gram sets 116/119 = 0.97). Words come from 100,000, so families share no 3-gram.
/// Every fourth family has one more field and odd spacing in its records, which must
/// come out unchanged.
fn fixture(families: usize, seed: u64, id_prefix: &str) -> Vec<Doc> {
    let mut words = Words(seed);
    let mut docs = Vec::new();
    for f in 0..families {
        let base = words.text(120);
        let mut edit = base.clone();
        if let Some(last) = edit.last_mut() {
            *last = format!("x{}", words.next());
        }
        let copy = format!("{}!", base.join(" ").to_uppercase());
        for (kind, body) in [
            ("base", base.join(" ")),
            ("copy", copy),
            ("edit", edit.join(" ")),
        ] {
            let id = format!("{id_prefix}{f}-{kind}");
            let record = if f % 4 == 3 {
                format!(
                    "{{ \"id\" : {}, \"lang\": \"en\",  \"text\":{} }}",
                    serde_json::to_string(&id).expect("a JSON string"),
                    serde_json::to_string(&body).expect("a JSON string")
                )
            } else {
                serde_json::json!({ "id": id, "text": body }).to_string()
            };
            docs.push(Doc {
                id,
                record,
                family: f,
                kind,
            });
        }
    }
    docs
}

fn jsonl(docs: &[Doc]) -> String {
    docs.iter().map(|d| format!("{}\n", d.record)).collect()
}

/// TSV rows after the header, split into fields.
fn tsv(path: &Path, header: &str) -> Vec<Vec<String>> {
    let body = fs::read_to_string(path).expect("the TSV output");
    let mut lines = body.lines();
    assert_eq!(lines.next(), Some(header), "{}", path.display());
    lines
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// The pairs `ndd dedup --input in.jsonl --verify VERIFY` writes in `dir` (with
/// `extra` options before `--verify`), after checking that its summary names the
/// verifier.
fn verified_pairs(dir: &Path, extra: &[&str], verify: &str) -> Vec<Vec<String>> {
    let out = format!("{verify}.tsv");
    let args = [
        &["dedup", "--input", "in.jsonl"][..],
        extra,
        &["--verify", verify, "--pairs-out", &out],
    ]
    .concat();
    let summary = ok(&ndd(&args, dir));
    assert!(
        summary.contains(&format!("verify:      {verify} (")),
        "{summary}"
    );
    tsv(&dir.join(&out), "id_a\tid_b\tscore")
}

#[test]
fn help_version_and_option_syntax() {
    let dir = tempfile::tempdir().unwrap();
    let v = ok(&ndd(&["--version"], dir.path()));
    assert_eq!(v.trim(), format!("ndd {}", env!("CARGO_PKG_VERSION")));
    let help = ok(&ndd(&["dedup", "--help"], dir.path()));
    for flag in [
        "--input",
        "--method",
        "--threshold",
        "--k",
        "--char-k",
        "--num-perm",
        "--pairs-out",
        "--clusters-out",
        "--keep-out",
        "--annotate-out",
        "--drop-out",
        "--format",
        "--index-out",
        "--index-in",
        "--add",
        "--on-error",
        "--quiet",
        "--text-field",
        "--id-field",
        "--group",
        "--attribute-fields",
        "--members-out",
        "--max-bucket-scan",
    ] {
        assert!(help.contains(flag), "dedup --help lacks {flag}");
    }
    fs::write(dir.path().join("in.jsonl"), jsonl(&fixture(2, 1, "d"))).unwrap();
    // `--opt=value` and `--opt value` are the same.
    let a = ok(&ndd(
        &["dedup", "--input=in.jsonl", "--threshold=0.7"],
        dir.path(),
    ));
    let b = ok(&ndd(
        &["dedup", "--input", "in.jsonl", "--threshold", "0.7"],
        dir.path(),
    ));
    let strip_time = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("time:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip_time(&a), strip_time(&b));
    assert!(a.contains("threshold 0.7"));
    let bash = ok(&ndd(&["completions", "bash"], dir.path()));
    assert!(bash.contains("ndd") && bash.contains("--keep-out"));
    fails(
        &ndd(&["dedup", "--no-such-flag"], dir.path()),
        2,
        "--no-such-flag",
    );
    // --max-bucket-scan: a positive number or none, for minhash only.
    let dedup = |extra: &[&str]| {
        ndd(
            &[&["dedup", "--input", "in.jsonl"][..], extra].concat(),
            dir.path(),
        )
    };
    ok(&dedup(&["-q", "--max-bucket-scan", "none"]));
    ok(&dedup(&["-q", "--max-bucket-scan", "3"]));
    usage_errors(
        dedup,
        &[
            (
                &["--max-bucket-scan", "0"],
                "expected a positive number or `none`",
            ),
            (
                &["--method", "simhash", "--max-bucket-scan", "3"],
                "--max-bucket-scan belongs to --method minhash",
            ),
        ],
    );
}

/// Every output of the contract, checked against the families the fixture was built
/// with: pairs only within families, one group per family, the base kept, the copy
/// dropped as exact, the edit as near; kept records byte-identical to the input's.
#[test]
fn outputs_match_the_families_built_into_the_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let docs = fixture(12, 7, "doc-");
    let input = jsonl(&docs);
    fs::write(dir.path().join("in.jsonl"), &input).unwrap();
    let stdout = ok(&ndd(
        &[
            "dedup",
            "--input",
            "in.jsonl",
            "--pairs-out",
            "pairs.tsv",
            "--clusters-out",
            "clusters.tsv",
            "--keep-out",
            "kept.jsonl",
            "--annotate-out",
            "annotated.jsonl",
            "--drop-out",
            "drop.txt",
        ],
        dir.path(),
    ));
    assert!(
        stdout.contains("dropped:     24 (12 exact copies, 12 near-duplicates)"),
        "{stdout}"
    );
    let by_id: BTreeMap<&str, &Doc> = docs.iter().map(|d| (d.id.as_str(), d)).collect();

    // Pairs: within families only, every family's three documents connected.
    let pairs = tsv(&dir.path().join("pairs.tsv"), "id_a\tid_b\tscore");
    let mut linked: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    for row in &pairs {
        let (a, b) = (by_id[row[0].as_str()], by_id[row[1].as_str()]);
        assert_eq!(a.family, b.family, "{row:?}");
        let score: f64 = row[2].parse().unwrap();
        assert!((0.8..=1.0).contains(&score), "{row:?}");
        linked
            .entry(a.family)
            .or_default()
            .extend([a.id.as_str(), b.id.as_str()]);
    }
    assert_eq!(linked.len(), 12);
    assert!(linked.values().all(|ids| ids.len() == 3));

    // Clusters: every document, labelled with its family's base position.
    let clusters = tsv(&dir.path().join("clusters.tsv"), "id\tcluster");
    assert_eq!(clusters.len(), docs.len());
    for (row, d) in clusters.iter().zip(&docs) {
        assert_eq!(row[0], d.id);
        assert_eq!(row[1], (3 * d.family).to_string());
    }

    // The deduplicated corpus: the base records, byte for byte.
    let kept = fs::read_to_string(dir.path().join("kept.jsonl")).unwrap();
    let expected: String = docs
        .iter()
        .filter(|d| d.kind == "base")
        .map(|d| format!("{}\n", d.record))
        .collect();
    assert_eq!(kept, expected);

    // Drop list: the copies and edits, in input order.
    let drop = fs::read_to_string(dir.path().join("drop.txt")).unwrap();
    let expected: Vec<&str> = docs
        .iter()
        .filter(|d| d.kind != "base")
        .map(|d| d.id.as_str())
        .collect();
    assert_eq!(drop.lines().collect::<Vec<_>>(), expected);

    // Annotated: every record with its group, kept flag and reason.
    let annotated = fs::read_to_string(dir.path().join("annotated.jsonl")).unwrap();
    assert_eq!(annotated.lines().count(), docs.len());
    for (line, d) in annotated.lines().zip(&docs) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let original: serde_json::Value = serde_json::from_str(&d.record).unwrap();
        for (k, val) in original.as_object().unwrap() {
            assert_eq!(&v[k], val, "{k} of {}", d.id);
        }
        let base = format!("doc-{}-base", d.family);
        assert_eq!(v["ndd_group"], base.as_str());
        assert_eq!(v["ndd_kept"], d.kind == "base");
        let reason = match d.kind {
            "base" => "kept",
            "copy" => "exact",
            _ => "near",
        };
        assert_eq!(v["ndd_reason"], reason, "{}", d.id);
        assert!(line.starts_with(d.record.trim_end_matches(['}', ' '])));
    }
}

#[test]
fn jsonl_format_and_tsv_escaping_of_ids() {
    let dir = tempfile::tempdir().unwrap();
    let mut docs = fixture(3, 11, "");
    // Ids with a tab, a newline and a backslash.
    for (d, id) in docs
        .iter_mut()
        .step_by(3)
        .zip(["tab\there", "new\nline", "back\\slash"])
    {
        let v: serde_json::Value = serde_json::from_str(&d.record).unwrap();
        d.record = serde_json::json!({ "id": id, "text": v["text"] }).to_string();
        d.id = id.to_owned();
    }
    fs::write(dir.path().join("in.jsonl"), jsonl(&docs)).unwrap();
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "in.jsonl",
            "--pairs-out",
            "p.tsv",
            "--clusters-out",
            "c.tsv",
        ],
        dir.path(),
    ));
    let clusters = tsv(&dir.path().join("c.tsv"), "id\tcluster");
    assert_eq!(clusters[0][0], "tab\\there");
    assert_eq!(clusters[3][0], "new\\nline");
    assert_eq!(clusters[6][0], "back\\\\slash");
    assert!(clusters.iter().all(|r| r.len() == 2));
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "in.jsonl",
            "--format",
            "jsonl",
            "--pairs-out",
            "p.jsonl",
            "--clusters-out",
            "c.jsonl",
        ],
        dir.path(),
    ));
    let rows = common::json_lines(&dir.path().join("c.jsonl"));
    assert_eq!(rows.len(), docs.len());
    assert_eq!(rows[3]["id"], "new\nline");
    assert_eq!(rows[4]["cluster"], 3);
    let pairs = common::json_lines(&dir.path().join("p.jsonl"));
    // The TSV and JSONL pairs are the same pairs.
    let tsv_pairs = tsv(&dir.path().join("p.tsv"), "id_a\tid_b\tscore");
    assert_eq!(pairs.len(), tsv_pairs.len());
    assert!(pairs.iter().any(|p| p["id_a"] == "tab\there"));
    assert!(pairs.iter().all(|p| p["score"].as_f64().unwrap() >= 0.8));
}

/// Output paths are checked before any work: the input, the same file twice, a
/// folder, a missing folder, a file inside the input folder. Nothing is written and
/// the input is unchanged.
#[test]
fn bad_output_paths_are_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = jsonl(&fixture(2, 3, "d"));
    fs::write(dir.path().join("in.jsonl"), &input).unwrap();
    fs::create_dir(dir.path().join("folder")).unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("folder/a.txt"), "some text here").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["--pairs-out", "in.jsonl"], "is the input"),
        (&["--pairs-out", "./sub/../in.jsonl"], "is the input"),
        (
            &["--pairs-out", "x.tsv", "--clusters-out", "x.tsv"],
            "also given to --pairs-out",
        ),
        (
            &["--keep-out", "k.jsonl", "--drop-out", "./k.jsonl"],
            "also given to --keep-out",
        ),
        (&["--pairs-out", "folder"], "is a folder"),
        (&["--pairs-out", "missing/x.tsv"], "cannot be used"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["dedup", "--input", "in.jsonl"];
        args.extend_from_slice(extra);
        fails(&ndd(&args, dir.path()), 2, message);
    }
    fails(
        &ndd(
            &[
                "dedup",
                "--input",
                "folder",
                "--keep-out",
                "folder/kept.jsonl",
            ],
            dir.path(),
        ),
        2,
        "inside the input folder",
    );
    // A symbolic link to the input is the input.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("in.jsonl"), dir.path().join("link.jsonl"))
            .unwrap();
        fails(
            &ndd(
                &["dedup", "--input", "in.jsonl", "--pairs-out", "link.jsonl"],
                dir.path(),
            ),
            2,
            "is the input",
        );
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("in.jsonl")).unwrap(),
        input
    );
    let left: BTreeSet<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let made: BTreeSet<String> = ["folder", "in.jsonl", "link.jsonl", "sub"]
        .map(String::from)
        .into();
    assert!(left.is_subset(&made), "{left:?}");
    assert_eq!(fs::read_dir(dir.path().join("folder")).unwrap().count(), 1);
}

/// A run that fails while writing leaves no output, keeps an existing file's old
/// contents and leaves no temporary file behind.
#[test]
fn a_failed_run_leaves_no_output_that_looks_complete() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = jsonl(&fixture(2, 5, "d"));
    // A record that already has a field --annotate-out adds: refused while writing.
    input.push_str("{\"id\": \"z\", \"text\": \"other words entirely\", \"ndd_kept\": 1}\n");
    fs::write(dir.path().join("in.jsonl"), &input).unwrap();
    fs::write(dir.path().join("pairs.tsv"), "old contents\n").unwrap();
    fails(
        &ndd(
            &[
                "dedup",
                "--input",
                "in.jsonl",
                "--pairs-out",
                "pairs.tsv",
                "--annotate-out",
                "ann.jsonl",
                "--keep-out",
                "kept.jsonl",
            ],
            dir.path(),
        ),
        1,
        "ndd_kept",
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("pairs.tsv")).unwrap(),
        "old contents\n"
    );
    let mut left: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["in.jsonl", "pairs.tsv"]);
}

#[test]
fn bad_input_exit_codes_and_messages_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = jsonl(&fixture(1, 9, "d"));
    fs::write(dir.path().join("mixed.jsonl"), format!("{good}not json\n")).unwrap();
    fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    fs::write(dir.path().join("bad.jsonl"), "nope\n{\"text\": 3}\n").unwrap();
    // Skip (the default): a warning with file and line, exit 0; no progress bar
    // drawn into a stderr that is not a terminal, even without --quiet.
    let out = ndd(&["dedup", "--input", "mixed.jsonl"], dir.path());
    ok(&out);
    assert!(
        !text(&out.stderr).contains('\x1b'),
        "{:?}",
        text(&out.stderr)
    );
    assert_eq!(
        text(&out.stderr).lines().count(),
        1,
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("mixed.jsonl:4: malformed JSON"),
        "{}",
        text(&out.stderr)
    );
    // Binary garbage is bad input, not a crash.
    fs::write(
        dir.path().join("binary.jsonl"),
        [0xff, 0xfe, 0, 1, 2, b'\n', 0x1f, 0x8b],
    )
    .unwrap();
    // Stop: exit 1 at the first bad line; an input without a usable document: exit 1.
    let dedup = |args: &[&str]| ndd(&[&["dedup", "--input"][..], args].concat(), dir.path());
    fails_each(
        dedup,
        1,
        &[
            (&["mixed.jsonl", "--on-error", "stop"], "mixed.jsonl:4"),
            (&["empty.jsonl"], "no usable document"),
            (&["bad.jsonl"], "bad.jsonl:1"),
            (&["missing.jsonl"], "missing.jsonl"),
            (&["binary.jsonl"], "binary.jsonl"),
        ],
    );
    fails(
        &ndd_stdin(&["dedup", "--input", "-"], dir.path(), b""),
        1,
        "<stdin>",
    );
}

#[test]
fn invalid_options_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.jsonl"), jsonl(&fixture(1, 2, "d"))).unwrap();
    let cases: [(&[&str], &str); 11] = [
        (&["--threshold", "0"], "threshold"),
        (&["--threshold", "1.5"], "threshold"),
        (&["--threshold", "nan"], "threshold"),
        (&["--num-perm", "0"], "invalid --num-perm"),
        (&["--num-perm", "100000000"], "invalid --num-perm"),
        (&["--k", "0"], "must"),
        (&["--k", "18446744073709551615"], "must"),
        (&["--bands", "4"], "--rows"),
        (&["--bits", "128"], "belongs to --method simhash"),
        (&["--k", "3", "--char-k", "4"], "cannot be used with"),
        (&["--method", "simhash", "--index-out", "i"], "minhash"),
    ];
    let dedup = |extra: &[&str]| {
        ndd(
            &[&["dedup", "--input", "in.jsonl"][..], extra].concat(),
            dir.path(),
        )
    };
    usage_errors(dedup, &cases);
    fails(
        &ndd(&["explain", "--threshold", "2"], dir.path()),
        2,
        "threshold",
    );
}

/// Two batches through a saved index give the same pairs and groups as one run over
/// both, at the default settings (verified by exact Jaccard: the index keeps the
/// shingle sets); reading an index without --add leaves it unchanged.
#[test]
fn incremental_batches_equal_one_run_over_both() {
    let dir = tempfile::tempdir().unwrap();
    let docs = fixture(10, 13, "d");
    // Batch two holds late copies of batch one's families, and new families.
    let (first, second) = docs.split_at(16);
    fs::write(dir.path().join("one.jsonl"), jsonl(first)).unwrap();
    fs::write(dir.path().join("two.jsonl"), jsonl(second)).unwrap();
    fs::write(dir.path().join("all.jsonl"), jsonl(&docs)).unwrap();
    let p = dir.path();
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "all.jsonl",
            "--clusters-out",
            "all-c.tsv",
            "--pairs-out",
            "all-p.tsv",
        ],
        p,
    ));
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "one.jsonl",
            "--index-out",
            "index.ndd",
            "--clusters-out",
            "one-c.tsv",
            "--pairs-out",
            "one-p.tsv",
        ],
        p,
    ));
    let saved = fs::read(p.join("index.ndd")).unwrap();
    // The second batch against the index.
    let two_in = |rest: &[&str]| {
        let base = ["dedup", "--input", "two.jsonl", "--index-in", "index.ndd"];
        ndd(&[&base[..], rest].concat(), p)
    };
    // Checking without --add leaves the index as it was.
    let out = ok(&two_in(&[]));
    assert!(
        out.contains("16 documents indexed before this batch"),
        "{out}"
    );
    assert_eq!(fs::read(p.join("index.ndd")).unwrap(), saved);
    ok(&two_in(&[
        "--add",
        "--clusters-out",
        "two-c.tsv",
        "--pairs-out",
        "two-p.tsv",
        "--drop-out",
        "two-drop.txt",
    ]));
    assert_ne!(fs::read(p.join("index.ndd")).unwrap(), saved);
    let rows = |name: &str, header: &str| tsv(&p.join(name), header);
    let mut clusters = rows("one-c.tsv", "id\tcluster");
    clusters.extend(rows("two-c.tsv", "id\tcluster"));
    assert_eq!(clusters, rows("all-c.tsv", "id\tcluster"));
    let mut pairs: BTreeSet<Vec<String>> =
        rows("one-p.tsv", "id_a\tid_b\tscore").into_iter().collect();
    pairs.extend(rows("two-p.tsv", "id_a\tid_b\tscore"));
    assert_eq!(
        pairs,
        rows("all-p.tsv", "id_a\tid_b\tscore").into_iter().collect()
    );
    // The drop list of batch two: its copies and edits (the families' bases of batch
    // one stay kept).
    let expected: Vec<&str> = second
        .iter()
        .filter(|d| d.kind != "base")
        .map(|d| d.id.as_str())
        .collect();
    assert_eq!(
        fs::read_to_string(p.join("two-drop.txt"))
            .unwrap()
            .lines()
            .collect::<Vec<_>>(),
        expected
    );
    // Settings come from the index; a corrupt index is bad input; the index read is
    // no output.
    fs::write(p.join("bad.ndd"), b"NDDX garbage").unwrap();
    let index_in = |rest: &[&str]| {
        let base = ["dedup", "--input", "two.jsonl", "--index-in"];
        ndd(&[&base[..], rest].concat(), p)
    };
    let cases: [(&[&str], i32, &str); 3] = [
        (&["index.ndd", "--k", "5"], 2, "--k"),
        (&["bad.ndd"], 1, "bad.ndd"),
        (&["index.ndd", "--pairs-out", "index.ndd"], 2, "--index-in"),
    ];
    for (rest, code, message) in cases {
        fails(&index_in(rest), code, message);
    }
}

#[test]
fn stdin_gzip_and_folders() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let docs = fixture(4, 17, "d");
    let input = jsonl(&docs);
    fs::write(p.join("in.jsonl"), &input).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(input.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    fs::write(p.join("in.jsonl.gz"), &gz).unwrap();
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "in.jsonl",
            "--keep-out",
            "a.jsonl",
            "--annotate-out",
            "a-ann.jsonl",
        ],
        p,
    ));
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "in.jsonl.gz",
            "--keep-out",
            "b.jsonl",
            "--annotate-out",
            "b-ann.jsonl",
        ],
        p,
    ));
    ok(&ndd_stdin(
        &[
            "dedup",
            "-q",
            "--input",
            "-",
            "--keep-out",
            "c.jsonl",
            "--annotate-out",
            "c-ann.jsonl",
        ],
        p,
        input.as_bytes(),
    ));
    ok(&ndd_stdin(
        &["dedup", "-q", "--input", "-", "--keep-out", "d.jsonl"],
        p,
        &gz,
    ));
    let a = fs::read(p.join("a.jsonl")).unwrap();
    assert_eq!(a.iter().filter(|&&b| b == b'\n').count(), 4);
    for other in ["b.jsonl", "c.jsonl", "d.jsonl"] {
        assert_eq!(fs::read(p.join(other)).unwrap(), a, "{other}");
    }
    for other in ["b-ann.jsonl", "c-ann.jsonl"] {
        assert_eq!(
            fs::read(p.join(other)).unwrap(),
            fs::read(p.join("a-ann.jsonl")).unwrap()
        );
    }
    // A folder: one document per file; kept documents become {"id", "text"} records.
    let folder = p.join("docs");
    fs::create_dir(&folder).unwrap();
    for d in &docs {
        let v: serde_json::Value = serde_json::from_str(&d.record).unwrap();
        fs::write(
            folder.join(format!("{}.txt", d.id)),
            v["text"].as_str().unwrap(),
        )
        .unwrap();
    }
    ok(&ndd(
        &["dedup", "-q", "--input", "docs", "--keep-out", "f.jsonl"],
        p,
    ));
    let kept = common::json_lines(&p.join("f.jsonl"));
    assert_eq!(kept.len(), 4);
    let ids: BTreeSet<&str> = kept.iter().map(|v| v["id"].as_str().unwrap()).collect();
    // Files sort by name: each family's "base" before its "copy" and "edit".
    let expected: BTreeSet<String> = docs
        .iter()
        .filter(|d| d.kind == "base")
        .map(|d| format!("{}.txt", d.id))
        .collect();
    assert_eq!(ids, expected.iter().map(String::as_str).collect());
}

/// Without --input the bundled corpus is found from the program's location, whatever
/// the working directory.
#[test]
fn the_bundled_corpus_runs_without_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&ndd(&["dedup", "--top", "1"], dir.path()));
    assert!(out.contains("(the bundled corpus)"), "{out}");
    assert!(out.contains("documents:   562 read"), "{out}");
}

/// `explain` prints the bands and rows it chose and the S-curve they give; the
/// printed probabilities are recomputed here from the formula 1 - (1 - s^r)^b.
#[test]
fn explain_shows_a_consistent_s_curve() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["explain"][..],
        &["explain", "--threshold", "0.5", "--num-perm", "64"],
        &[
            "explain",
            "--bands",
            "20",
            "--rows",
            "5",
            "--threshold",
            "0.6",
        ],
    ] {
        let out = ok(&ndd(args, dir.path()));
        let line = out.lines().find(|l| l.starts_with("bands:")).unwrap();
        let nums: Vec<f64> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .take(2)
            .map(|s| s.parse().unwrap())
            .collect();
        let (b, r) = (nums[0], nums[1]);
        let mut seen = 0;
        for l in out
            .lines()
            .filter(|l| l.trim_start().starts_with("similarity "))
        {
            let mut parts = l.split_whitespace();
            let s: f64 = parts.nth(1).unwrap().trim_end_matches(':').parse().unwrap();
            let printed: f64 = parts.next().unwrap().trim_end_matches('%').parse().unwrap();
            let p = 1.0 - (1.0 - s.powf(r)).powf(b);
            assert!(
                (printed - 100.0 * p).abs() < 0.001,
                "{l}: expected {}",
                100.0 * p
            );
            seen += 1;
        }
        assert!(seen >= 10, "{out}");
        assert!(out.contains("bytes per document"), "{out}");
    }
    // The default banding keeps 99% at the threshold.
    let out = ok(&ndd(&["explain", "--threshold", "0.7"], dir.path()));
    let recall = out
        .lines()
        .find(|l| l.starts_with("expected recall"))
        .unwrap();
    let pct: f64 = recall
        .split_whitespace()
        .nth(2)
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(pct >= 99.0, "{recall}");
    // With an input: candidates measured on a sample.
    fs::write(dir.path().join("in.jsonl"), jsonl(&fixture(5, 3, "d"))).unwrap();
    let out = ok(&ndd(&["explain", "--input", "in.jsonl"], dir.path()));
    assert!(out.contains("measured on 15 of the 15 documents"), "{out}");
    // Each document has 2 others of its family, all far above 0.8.
    assert!(
        out.contains("pairs estimated at or above 0.8: 2.00 per document"),
        "{out}"
    );
}

#[test]
fn align_verifier_and_explain_out_say_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let docs = fixture(6, 11, "d");
    fs::write(dir.path().join("in.jsonl"), jsonl(&docs)).unwrap();
    ok(&ndd(
        &[
            "dedup",
            "--input",
            "in.jsonl",
            "--verify",
            "align",
            "--pairs-out",
            "pairs.tsv",
            "--explain-out",
            "explain.jsonl",
        ],
        dir.path(),
    ));
    let texts: BTreeMap<&str, String> = docs
        .iter()
        .map(|d| {
            let v: serde_json::Value = serde_json::from_str(&d.record).unwrap();
            (d.id.as_str(), v["text"].as_str().unwrap().to_string())
        })
        .collect();
    // The combined score by its definition: words (the fixture's are ASCII words
    // separated by spaces), LCS containment by the dynamic program (`quadratic_lcs_len`,
    // the reference the bit-parallel LCS is tested against), word 3-gram sets.
    let combined = |a: &str, b: &str| {
        let wa: Vec<String> = a
            .split_whitespace()
            .map(|w| w.trim_end_matches('!').to_lowercase())
            .collect();
        let wb: Vec<String> = b
            .split_whitespace()
            .map(|w| w.trim_end_matches('!').to_lowercase())
            .collect();
        let sa: BTreeSet<&[String]> = wa.windows(3).collect();
        let sb: BTreeSet<&[String]> = wb.windows(3).collect();
        let jac = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
        let lcs = quadratic_lcs_len(&wa, &wb);
        let containment = lcs as f64 / wa.len().min(wb.len()) as f64;
        (containment + jac) / 2.0
    };
    let pairs = tsv(&dir.path().join("pairs.tsv"), "id_a\tid_b\tscore");
    assert_eq!(pairs.len(), 12, "a copy and an edit per family");
    for p in &pairs {
        let want = combined(&texts[p[0].as_str()], &texts[p[1].as_str()]);
        let got: f64 = p[2].parse().unwrap();
        assert!((got - want).abs() < 1e-6, "{p:?}: {got} vs {want}");
    }
    let lines = common::json_lines(&dir.path().join("explain.jsonl"));
    assert_eq!(lines.len(), 12);
    for l in &lines {
        let (a, b) = (l["id_a"].as_str().unwrap(), l["id_b"].as_str().unwrap());
        // The blocks' byte ranges cover each text exactly, in order.
        for (side, id) in [("blocks_a", a), ("blocks_b", b)] {
            let mut at = 0;
            for bl in l[side].as_array().unwrap() {
                assert_eq!(usize::try_from(bl["start"].as_u64().unwrap()).unwrap(), at);
                at = usize::try_from(bl["end"].as_u64().unwrap()).unwrap();
                if let Some(t) = bl["text"].as_str() {
                    assert_eq!(
                        &texts[id][usize::try_from(bl["start"].as_u64().unwrap()).unwrap()..at],
                        t
                    );
                }
            }
            assert_eq!(at, texts[id].len());
        }
        let kinds: BTreeSet<&str> = [a, b].iter().map(|id| by_kind(&docs, id)).collect();
        if kinds.contains("copy") {
            assert_eq!(l["category"], "exact", "{l}");
        } else {
            // The edit replaced the base's last word: one word each side.
            assert_eq!(l["category"], "minor-change", "{l}");
            let last = |id: &str| texts[id].split_whitespace().last().unwrap().to_string();
            assert_eq!(l["unique_a"], serde_json::json!([last(a)]));
            assert_eq!(l["unique_b"], serde_json::json!([last(b)]));
        }
    }
    // --explain-out is an output like the others: it may not overwrite the input.
    fails(
        &ndd(
            &["dedup", "--input", "in.jsonl", "--explain-out", "in.jsonl"],
            dir.path(),
        ),
        2,
        "in.jsonl",
    );
}

/// `--verify` takes every measure of the library by its name: the alignment
/// measures beside the combined one score pairs by their definitions (LCS-Dice
/// `2L / (|a| + |b|)`, LCS containment `L / min(|a|, |b|)`), and the summary names
/// the verifier used.
#[test]
fn every_library_verifier_is_reachable_from_verify() {
    let dir = tempfile::tempdir().unwrap();
    let docs = fixture(4, 17, "d");
    fs::write(dir.path().join("in.jsonl"), jsonl(&docs)).unwrap();
    let words = |id: &str| -> Vec<String> {
        let d = docs.iter().find(|d| d.id == id).unwrap();
        let v: serde_json::Value = serde_json::from_str(&d.record).unwrap();
        v["text"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .map(|w| w.trim_end_matches('!').to_lowercase())
            .collect()
    };
    let lcs = |a: &[String], b: &[String]| {
        let mut dp = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                dp[i + 1][j + 1] = if a[i] == b[j] {
                    dp[i][j] + 1
                } else {
                    dp[i][j + 1].max(dp[i + 1][j])
                };
            }
        }
        dp[a.len()][b.len()] as f64
    };
    for (name, measure) in [
        (
            "align-dice",
            (|l: f64, a: usize, b: usize| 2.0 * l / (a + b) as f64) as fn(f64, usize, usize) -> f64,
        ),
        ("align-containment", |l: f64, a: usize, b: usize| {
            l / a.min(b) as f64
        }),
    ] {
        let pairs = verified_pairs(dir.path(), &[], name);
        assert_eq!(pairs.len(), 8, "{name}: a copy and an edit per family");
        for p in &pairs {
            let (a, b) = (words(&p[0]), words(&p[1]));
            let want = measure(lcs(&a, &b), a.len(), b.len());
            let got: f64 = p[2].parse().unwrap();
            assert!((got - want).abs() < 1e-6, "{name} {p:?}: {got} vs {want}");
        }
    }
}

/// `--verify align-weighted`: LCS Dice over words weighted by `1/sqrt(df)` in the
/// input, numbers 16 times more. A text whose version number changed is dropped at a
/// threshold where a text with a word changed is kept, unlike plain LCS Dice; the
/// scores are the definition computed here over the words of every input document.
#[test]
fn align_weighted_verifier_weighs_numbers_and_rare_words() {
    let dir = tempfile::tempdir().unwrap();
    let mut words = Words(29);
    let mut texts: Vec<(String, String)> = Vec::new();
    for f in 0..3 {
        // Words from 300, so that they repeat across families (df above 1).
        let mut base = words.words(60, 300);
        base.extend(["version".to_string(), "2".to_string()]);
        let mut edit = base.clone();
        edit[0] = format!("x{}", words.next());
        let mut version = base.clone();
        version[61] = "3".to_string();
        for (kind, w) in [("base", base), ("edit", edit), ("version", version)] {
            texts.push((format!("f{f}-{kind}"), w.join(" ")));
        }
    }
    let input: String = texts
        .iter()
        .map(|(id, t)| format!("{}\n", serde_json::json!({ "id": id, "text": t })))
        .collect();
    fs::write(dir.path().join("in.jsonl"), input).unwrap();
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, t) in &texts {
        for w in t.split(' ').collect::<BTreeSet<_>>() {
            *df.entry(w).or_default() += 1;
        }
    }
    let weight = |w: &str| {
        let k = if w.bytes().all(|c| c.is_ascii_digit()) {
            16.0
        } else {
            1.0
        };
        k / (df[w] as f64).sqrt()
    };
    let weighted_dice = |a: &str, b: &str| {
        let text = |id: &str| texts.iter().find(|t| t.0 == id).unwrap().1.clone();
        let (ta, tb) = (text(a), text(b));
        let (wa, wb): (Vec<&str>, Vec<&str>) = (ta.split(' ').collect(), tb.split(' ').collect());
        let mut dp = vec![vec![0.0f64; wb.len() + 1]; wa.len() + 1];
        for i in 0..wa.len() {
            for j in 0..wb.len() {
                let mut best = dp[i][j + 1].max(dp[i + 1][j]);
                if wa[i] == wb[j] {
                    best = best.max(dp[i][j] + weight(wa[i]));
                }
                dp[i + 1][j + 1] = best;
            }
        }
        let total: f64 = wa.iter().chain(&wb).map(|w| weight(w)).sum();
        2.0 * dp[wa.len()][wb.len()] / total
    };
    let run = |verify: &str| verified_pairs(dir.path(), &["--threshold", "0.9"], verify);
    // Plain LCS Dice keeps every pair of a family: one or two words of 62 differ.
    assert_eq!(run("align-dice").len(), 9);
    let pairs = run("align-weighted");
    let kept: BTreeSet<(String, String)> =
        pairs.iter().map(|p| (p[0].clone(), p[1].clone())).collect();
    let want: BTreeSet<(String, String)> = (0..3)
        .map(|f| (format!("f{f}-base"), format!("f{f}-edit")))
        .collect();
    assert_eq!(kept, want);
    for p in &pairs {
        let (got, want): (f64, f64) = (p[2].parse().unwrap(), weighted_dice(&p[0], &p[1]));
        assert!((got - want).abs() < 1e-4, "{p:?}: {got} vs {want}");
    }
    // The version pairs score below the threshold by the same definition.
    for f in 0..3 {
        let v = weighted_dice(&format!("f{f}-base"), &format!("f{f}-version"));
        assert!(v < 0.9, "{v}");
    }
}

fn by_kind<'a>(docs: &'a [Doc], id: &str) -> &'a str {
    docs.iter().find(|d| d.id == id).map_or("", |d| d.kind)
}

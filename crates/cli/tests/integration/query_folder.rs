//! `ndd query --index DIR` reads the folder one segment at a time: its output is the
//! single file's, byte for byte, for top-k and containment searches.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use common::{ndd, ok};

/// The bundled corpus in three batch files (`b0.jsonl` .. `b2.jsonl`) and queries
/// (`q.jsonl`): edited copies of every ninth document and the first halves of every
/// thirteenth.
fn setup() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    let corpus = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = corpus.lines().collect();
    assert!(lines.len() > 500);
    let n = lines.len();
    for (i, batch) in [&lines[..n / 3], &lines[n / 3..n / 2], &lines[n / 2..]]
        .iter()
        .enumerate()
    {
        std::fs::write(dir.join(format!("b{i}.jsonl")), batch.join("\n") + "\n").unwrap();
    }
    let mut queries = String::new();
    for (i, line) in lines.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let words: Vec<&str> = v["text"].as_str().unwrap().split_whitespace().collect();
        let text = if i % 9 == 0 {
            let mut w: Vec<&str> = words.iter().copied().filter(|w| w.len() != 3).collect();
            w.push("extra");
            w.join(" ")
        } else if i % 13 == 0 {
            words[..words.len() / 2].join(" ")
        } else {
            continue;
        };
        queries += &serde_json::json!({ "id": format!("q{i}"), "text": text }).to_string();
        queries.push('\n');
    }
    std::fs::write(dir.join("q.jsonl"), queries).unwrap();
    tmp
}

#[test]
fn a_folder_of_three_segments_answers_as_the_single_file() {
    let tmp = setup();
    let d = tmp.path();
    for ix in ["ix/", "ix.ndd"] {
        ok(&ndd(
            &["dedup", "--input", "b0.jsonl", "--index-out", ix],
            d,
        ));
        for b in ["b1.jsonl", "b2.jsonl"] {
            let ix = ix.trim_end_matches('/');
            ok(&ndd(&["dedup", "--input", b, "--index-in", ix, "--add"], d));
        }
    }
    let segments = std::fs::read_dir(d.join("ix"))
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.file_name().to_string_lossy().starts_with("segment-")
        })
        .count();
    assert_eq!(segments, 3);
    // Each search, and how many queries at least find something (containment 1 finds
    // few here).
    let searches: [(&[&str], usize); 7] = [
        (&["--top-k", "1"], 20),
        (&["--top-k", "5"], 20),
        (
            &[
                "--top-k",
                "10",
                "--candidates-per-result",
                "1",
                "--max-examined",
                "3",
            ],
            20,
        ),
        (&["--top-k", "3", "--trees", "16"], 20),
        (&["--containment", "0.5"], 20),
        (&["--containment", "0.8", "--fn-weight", "0.5"], 20),
        (&["--containment", "1"], 1),
    ];
    for (search, least) in searches {
        let mut outputs = Vec::new();
        for ix in ["ix", "ix.ndd"] {
            let out = format!("{ix}.out");
            let args = [
                &["query", "--index", ix, "--input", "q.jsonl", "--out", &out][..],
                search,
            ]
            .concat();
            ok(&ndd(&args, d));
            outputs.push(std::fs::read(d.join(&out)).unwrap());
        }
        assert_eq!(outputs[0], outputs[1], "{search:?}");
        // Answers with neighbours, not empty lines only.
        let found = String::from_utf8(outputs.pop().unwrap())
            .unwrap()
            .lines()
            .filter(|l| !l.contains("\"neighbours\":[]"))
            .count();
        assert!(found >= least, "{search:?}: {found}");
    }
}

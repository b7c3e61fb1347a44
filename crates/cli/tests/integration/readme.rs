//! The README's quick start and `ndd dedup` find the same pairs on the quick start's
//! example (issue 30): the documents are read from the README itself, and the
//! README's doctest asserts the pairs the library finds, so the two cannot drift apart.

use crate::common::{ndd, ok};

/// The README of the repository (the facade package's, two levels up).
fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    std::fs::read_to_string(path).expect("read README.md")
}

/// The string literals of the `let docs = [...]` of the README's Rust block that
/// contains `marker`.
fn readme_docs(readme: &str, marker: &str) -> Vec<String> {
    let block = readme
        .split("```rust")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or_default())
        .find(|b| b.contains(marker))
        .unwrap_or_else(|| panic!("no README example contains {marker:?}"));
    let list = block
        .split("let docs = [")
        .nth(1)
        .and_then(|rest| rest.split("];").next())
        .expect("a `let docs = [...];` in the example");
    list.lines()
        .filter_map(|l| {
            let l = l.trim().trim_end_matches(',');
            l.strip_prefix('"')?.strip_suffix('"').map(str::to_owned)
        })
        .collect()
}

#[test]
fn the_readme_quick_start_finds_the_pairs_ndd_dedup_finds() {
    let readme = readme();
    let docs = readme_docs(&readme, "LshParams::for_threshold(0.8, 128)");
    assert_eq!(docs.len(), 3);
    // What the README's doctest asserts the library finds (document indexes).
    assert!(readme.contains("assert_eq!(pairs, vec![(0, 1)]);"));

    let dir = tempfile::tempdir().expect("temporary folder");
    let input: String = docs
        .iter()
        .enumerate()
        .map(|(i, text)| serde_json::json!({"id": i.to_string(), "text": text}).to_string() + "\n")
        .collect();
    std::fs::write(dir.path().join("in.jsonl"), input).expect("write input");
    ok(&ndd(
        &[
            "dedup",
            "--input",
            "in.jsonl",
            "--threshold",
            "0.8",
            "--pairs-out",
            "pairs.tsv",
        ],
        dir.path(),
    ));
    let pairs = std::fs::read_to_string(dir.path().join("pairs.tsv")).expect("pairs.tsv");
    let found: Vec<(String, String)> = pairs
        .lines()
        .skip(1) // the header
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_owned(), f[1].to_owned())
        })
        .collect();
    assert_eq!(found, vec![("0".to_owned(), "1".to_owned())], "{pairs}");
}

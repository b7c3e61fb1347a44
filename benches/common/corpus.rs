//! The benchmark corpus, shared by every criterion bench and measuring example of the
//! workspace (included with `#[path = ".../benches/common/corpus.rs"] mod corpus;`).
//!
//! The texts of a JSONL file of `{"text": ...}` objects: the file named by the
//! environment variable `NDD_BENCH_CORPUS` (for example the 66,855-document corpus that
//! `shared/bench/make_corpus.py` builds), else `default_path` (the bundled
//! `data/debian-copyright.jsonl`). Lines that are not such objects are skipped.

/// The corpus texts, in file order. Panics when the file cannot be read: a benchmark
/// without its input has nothing to measure.
pub(crate) fn load(default_path: &str) -> Vec<String> {
    let path = std::env::var("NDD_BENCH_CORPUS").unwrap_or_else(|_| default_path.to_string());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .collect()
}

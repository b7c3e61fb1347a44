//! The benchmark corpus, shared by every criterion bench and measuring example of the
//! workspace (included with `#[path = ".../benches/common/corpus.rs"] mod corpus;`).
//!
//! The texts of a JSONL file of `{"text": ...}` objects: the file named by the
//! environment variable `NDD_BENCH_CORPUS` (for example the 66,855-document corpus that
//! `shared/bench/make_corpus.py` builds), else the bundled `data/debian-copyright.jsonl`
//! of the workspace. Lines that are not such objects are skipped.

/// The bundled corpus: `data/debian-copyright.jsonl` in the nearest ancestor of the
/// including crate's manifest directory that has it (the workspace root, for the root
/// crate and for every member under `crates/`).
fn bundled() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.ancestors()
        .map(|d| d.join("data/debian-copyright.jsonl"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no data/debian-copyright.jsonl above {}", dir.display()))
}

/// The corpus texts, in file order. Panics when the file cannot be read: a benchmark
/// without its input has nothing to measure.
pub(crate) fn load() -> Vec<String> {
    let path = std::env::var("NDD_BENCH_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| bundled());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .collect()
}

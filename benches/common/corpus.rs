//! The benchmark corpus, shared by every criterion bench and measuring example of the
//! workspace (included with `#[path = ".../benches/common/corpus.rs"] mod corpus;`),
//! and the bundled corpus for the integration tests that read it ([`bundled`], through
//! a link `tests/integration/corpus.rs` to this file).
//!
//! The texts of a JSONL file of `{"text": ...}` objects, chosen by the environment
//! variable `NDD_BENCH_CORPUS`:
//!
//! - unset: the bundled `data/debian-copyright.jsonl` of the repository;
//! - `bench` or `bench-large`: `bench/data/corpus.jsonl` (66,855 Debian package
//!   descriptions and license texts) or `bench/data/corpus_large.jsonl` (~100 MB of
//!   long documents) of the repository, which `python3 bench/make_corpus.py` builds
//!   (bench/README.md);
//! - any other value: a path, relative to the current directory or, failing that, to
//!   the repository root (`cargo bench` runs a member's benches in the member's folder,
//!   so `NDD_BENCH_CORPUS=bench/data/corpus.jsonl` works from the root for every crate).
//!
//! Lines that are not such objects are skipped.

use std::path::{Path, PathBuf};

/// The repository root: the nearest ancestor of the including crate's manifest
/// directory that has `data/debian-copyright.jsonl` (the workspace root, for the root
/// crate and for every member under `crates/`).
fn root() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.ancestors()
        .find(|d| d.join("data/debian-copyright.jsonl").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("no data/debian-copyright.jsonl above {}", dir.display()))
}

/// The file `NDD_BENCH_CORPUS` names (see the module documentation).
pub(crate) fn path() -> PathBuf {
    let Some(value) = std::env::var_os("NDD_BENCH_CORPUS") else {
        return root().join("data/debian-copyright.jsonl");
    };
    match value.to_str() {
        Some("bench") => root().join("bench/data/corpus.jsonl"),
        Some("bench-large") => root().join("bench/data/corpus_large.jsonl"),
        _ => {
            let p = PathBuf::from(value);
            if p.is_absolute() || p.exists() {
                p
            } else {
                root().join(p)
            }
        }
    }
}

/// The corpus texts, in file order. Panics when the file cannot be read: a benchmark
/// without its input has nothing to measure.
#[allow(dead_code)] // the tests that include this file read `bundled` only
pub(crate) fn load() -> Vec<String> {
    let path = path();
    if !path.is_file() {
        panic!(
            "benchmark corpus {} not found: build bench/data/corpus.jsonl and \
             corpus_large.jsonl with `python3 bench/make_corpus.py` from the repository \
             root (bench/README.md), or set NDD_BENCH_CORPUS to a JSONL file of \
             {{\"text\": ...}} objects (unset: the bundled data/debian-copyright.jsonl)",
            path.display()
        );
    }
    texts(&path)
}

/// The texts of the bundled `data/debian-copyright.jsonl` (562 Debian copyright files),
/// in file order, whatever `NDD_BENCH_CORPUS` says: what the tests compare against.
/// Panics when the file cannot be read (the tests run from a checkout).
#[allow(dead_code)] // the benchmarks that include this file read `load` only
pub(crate) fn bundled() -> Vec<String> {
    texts(&root().join("data/debian-copyright.jsonl"))
}

/// The `text` members of the JSONL file at `path`, in file order (other lines skipped).
fn texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .collect()
}

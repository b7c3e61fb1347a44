//! The bundled corpus, for the tests and the benchmark of ndd-align.

/// The texts of the bundled corpus (in the repository: `data/debian-copyright.jsonl`).
///
/// # Panics
///
/// When the file cannot be read (the tests and benchmark run from a checkout).
#[allow(clippy::unwrap_used, dead_code)] // test support: fail loudly
pub(crate) fn bundled() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .collect()
}

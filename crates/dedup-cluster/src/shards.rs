//! Stage 1's input: JSONL shards, `{"id": u64, "text": str}` per line.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// The shards named on the command line: files as given, folders as their `*.jsonl`
/// files; sorted and deduplicated, so every process numbers them alike.
pub(crate) fn list(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut shards = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let entries =
                std::fs::read_dir(input).map_err(|e| format!("{}: {e}", input.display()))?;
            for entry in entries {
                let path = entry
                    .map_err(|e| format!("{}: {e}", input.display()))?
                    .path();
                if path.is_file() && path.extension().is_some_and(|x| x == "jsonl") {
                    shards.push(path);
                }
            }
        } else if input.is_file() {
            shards.push(input.clone());
        } else {
            return Err(format!("{}: no such file or folder", input.display()));
        }
    }
    shards.sort();
    shards.dedup();
    Ok(shards)
}

#[derive(serde::Deserialize)]
struct Line {
    id: u64,
    text: String,
}

/// Calls `f(id, text)` for every record of the shard at `path`, in order. Blank lines
/// are skipped; a line longer than `max_line` bytes, or one that is not a JSON object
/// with a u64 `id` and a string `text`, is an error naming `path:line`. Memory: one
/// line, at most `max_line + 1` bytes.
pub(crate) fn read(
    path: &Path,
    max_line: u64,
    mut f: impl FnMut(u64, String) -> Result<(), String>,
) -> Result<(), String> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    let mut line = 0u64;
    loop {
        buf.clear();
        line += 1;
        let got = reader
            .by_ref()
            .take(max_line.saturating_add(1))
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("{}:{line}: {e}", path.display()))?;
        if got == 0 {
            return Ok(());
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        } else if got as u64 > max_line {
            return Err(format!(
                "{}:{line}: line longer than --max-doc-bytes {max_line}",
                path.display()
            ));
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record: Line =
            serde_json::from_slice(&buf).map_err(|e| format!("{}:{line}: {e}", path.display()))?;
        f(record.id, record.text)?;
    }
}

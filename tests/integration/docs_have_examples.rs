//! Every public item of every crate has a rustdoc example: a scan of the sources for
//! `pub` items whose doc comment holds no code block. (`missing_docs` only checks that
//! a doc exists; the examples themselves run as doctests.)

use std::path::{Path, PathBuf};

const ITEM_KINDS: [&str; 9] = [
    "pub fn ",
    "pub const fn ",
    "pub struct ",
    "pub enum ",
    "pub trait ",
    "pub type ",
    "pub const ",
    "pub static ",
    "pub mod ",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `file:line: item` for each public item in `file` without an example.
fn items_without_examples(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("readable source");
    let lines: Vec<&str> = text.lines().collect();
    let mut missing = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        // Unit tests at the end of a file are not public API.
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        let Some(kind) = ITEM_KINDS.iter().find(|k| code.starts_with(**k)) else {
            continue;
        };
        // `pub mod x;` is documented (with examples) inside the module file.
        if *kind == "pub mod " && code.ends_with(';') {
            continue;
        }
        let mut has_example = false;
        for prev in lines[..i].iter().rev() {
            let p = prev.trim_start();
            if p.starts_with("///") {
                has_example |= p.contains("```");
            } else if !(p.starts_with("#[") || p.starts_with("//")) {
                break;
            }
        }
        if !has_example {
            missing.push(format!("{}:{}: {}", file.display(), i + 1, code));
        }
    }
    missing
}

#[test]
fn every_public_item_has_an_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for crate_dir in std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
    {
        rust_files(&crate_dir.path().join("src"), &mut files);
    }
    assert!(files.len() > 20, "found only {} source files", files.len());
    let missing: Vec<String> = files
        .iter()
        .flat_map(|f| items_without_examples(f))
        .collect();
    assert!(
        missing.is_empty(),
        "public items without a rustdoc example:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_detects_a_missing_example() {
    let dir = std::env::temp_dir().join(format!("ndd-doc-scan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sample.rs");
    std::fs::write(
        &file,
        "/// Documented.\n///\n/// ```\n/// assert!(true);\n/// ```\npub fn good() {}\n\
         /// Documented, no example.\n#[must_use]\npub fn bad() -> u8 { 0 }\n",
    )
    .unwrap();
    let missing = items_without_examples(&file);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(missing.len(), 1);
    assert!(missing[0].ends_with("pub fn bad() -> u8 { 0 }"));
}

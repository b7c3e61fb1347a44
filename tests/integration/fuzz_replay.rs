//! Every input kept in `tests/fuzz/<target>/` (the seeds the fuzz targets start from and
//! every crash a fuzzer found, saved there by `scripts/fuzz.sh`) runs through the
//! target's body as an ordinary test: a past crash stays fixed.

use std::path::Path;

use crate::fuzz_bodies;

/// Runs `body` on every file of `tests/fuzz/<target>`, and returns how many there were.
fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable entry").path())
        .collect();
    files.sort();
    for file in &files {
        let bytes = std::fs::read(file).expect("a readable input");
        // A panic names the input that caused it.
        eprintln!("replaying {}", file.display());
        body(&bytes);
    }
    files.len()
}

#[test]
fn text_inputs_replay() {
    assert!(
        replay("text", fuzz_bodies::text) >= 4,
        "the text seeds are missing"
    );
}

#[test]
fn decoder_inputs_replay() {
    assert!(
        replay("decoders", fuzz_bodies::decoders) >= 4,
        "the decoder seeds are missing"
    );
}

//! The text entry points on any bytes: HTML to text, shingles, sketches, the JSONL
//! reader on the bytes and on records built from them, and the whole pipeline. Nothing
//! may panic or hang. The body is shared with `cargo test`'s replay of kept inputs.
#![no_main]

// Each target calls one of the shared bodies.
#[allow(dead_code)]
#[path = "../../tests/integration/fuzz_bodies.rs"]
mod fuzz_bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::text(data));

//! Every decoder of saved bytes (indexes, signatures, lexicons, Bloom filters, the
//! saved dedup index and Bloom stream, learned models, out-of-core record files): a
//! typed error or a value whose bytes load again, never a panic, a hang or an
//! allocation out of proportion to the input. The body is shared with `cargo test`'s
//! replay of kept inputs.
#![no_main]

// Each target calls one of the shared bodies.
#[allow(dead_code)]
#[path = "../../tests/integration/fuzz_bodies.rs"]
mod fuzz_bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::decoders(data));

//! The integration tests of `ndd-minhash`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod bbit;
mod common;
mod compose;
mod minhash;
mod weighted;

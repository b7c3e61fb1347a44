//! The integration tests of `ndd-repeats`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod lines;
mod substrings;

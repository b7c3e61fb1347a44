//! The integration tests of `ndd-core`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod components;
mod golden;
mod measures;
mod stats;
mod traits;

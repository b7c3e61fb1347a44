//! The integration tests of `ndd-eval`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod agreement;
mod bases;
mod category;
mod metrics;
mod siblings;
mod synth;

//! The integration tests of `ndd-ncd`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod corpus;
mod ncd;

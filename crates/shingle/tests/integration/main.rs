//! The integration tests of `ndd-shingle`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod html;
#[cfg(feature = "nfkc")]
mod nfkc;
mod rabin;
mod shingle;
mod spots;

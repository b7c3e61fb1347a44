//! The integration tests of `ndd-index`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod borrow;
mod candidate_index;
mod exact_hamming_bytes;
mod hamming;
mod hamming_model;
mod hostile;
mod inverted;

//! The integration tests of `ndd-lsh`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod common;
mod corpus;

mod bit_sampling;
mod bloom;
mod bucket_scan;
mod ensemble;
mod errors;
mod forest;
mod hostile;
mod index_bytes;
mod model;
mod params;
mod parts;
mod query_index_bytes;
#[cfg(feature = "serde")]
mod serde_query_indexes;
mod statistical;

//! The integration tests of ndd-corpus as one test binary (the crate and its dependencies linked once).

mod corpus;
mod fingerprint;
mod fixtures;
mod said;
#[cfg(feature = "parquet")]
mod shards;

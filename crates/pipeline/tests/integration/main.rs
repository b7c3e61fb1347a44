//! The integration tests of ndd-pipeline as one test binary (the crate and its dependencies linked
//! once); a file that needs a feature is compiled with it.

#[cfg(feature = "minhash")]
mod bloom;
mod center;
mod common;
mod corpus_errors;
mod durian;
mod hot_bucket;
#[cfg(feature = "learn")]
mod learned;
mod linkage;
mod out_of_core;
#[cfg(feature = "minhash")]
mod persist;
#[cfg(feature = "minhash")]
mod query;
mod segmented_query;
#[cfg(all(
    feature = "minhash",
    feature = "simhash",
    feature = "imatch",
    feature = "ncd"
))]
mod stages;

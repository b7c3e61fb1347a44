//! The integration tests of `near-dup`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

// The feature `pipeline` brings `corpus`, `shingle`, `lsh`, `index`, `minhash`,
// `simhash`, `ncd`, `imatch` and `align` with it, and each method feature `shingle`
// (Cargo.toml): a module's `cfg` names only what these do not imply.
#[cfg(feature = "pipeline")]
mod byte_forms;
mod common;
#[cfg(feature = "pipeline")]
mod constructors;
mod corpus;
#[cfg(feature = "pipeline")]
mod defaults;
mod docs_have_examples;
#[cfg(all(feature = "shingle", feature = "eval", feature = "index"))]
mod end_to_end;
#[cfg(all(feature = "imatch", feature = "eval", feature = "index"))]
mod imatch_end_to_end;
#[cfg(all(
    feature = "minhash",
    feature = "lsh",
    feature = "index",
    feature = "imatch"
))]
mod index_bytes;
#[cfg(all(
    feature = "eval",
    feature = "minhash",
    feature = "lsh",
    feature = "index"
))]
mod minhash_lsh;
// The fuzz targets' bodies and the replay of their kept inputs (every feature).
#[cfg(all(feature = "pipeline", feature = "learn", feature = "scale"))]
mod fuzz_bodies;
#[cfg(all(feature = "pipeline", feature = "learn", feature = "scale"))]
mod fuzz_replay;
#[cfg(feature = "pipeline")]
mod pipeline_real;

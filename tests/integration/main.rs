//! The integration tests of `near-dup`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

#[cfg(all(
    feature = "minhash",
    feature = "lsh",
    feature = "imatch",
    feature = "simhash",
    feature = "pipeline"
))]
mod byte_forms;
mod common;
#[cfg(all(
    feature = "lsh",
    feature = "index",
    feature = "simhash",
    feature = "imatch",
    feature = "ncd",
    feature = "align",
    feature = "pipeline"
))]
mod constructors;
#[cfg(all(
    feature = "minhash",
    feature = "lsh",
    feature = "simhash",
    feature = "pipeline"
))]
mod defaults;
mod docs_have_examples;
#[cfg(all(feature = "shingle", feature = "eval", feature = "index"))]
mod end_to_end;
#[cfg(all(
    feature = "imatch",
    feature = "eval",
    feature = "shingle",
    feature = "index"
))]
mod imatch_end_to_end;
#[cfg(all(
    feature = "minhash",
    feature = "lsh",
    feature = "index",
    feature = "imatch"
))]
mod index_bytes;
#[cfg(all(
    feature = "shingle",
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

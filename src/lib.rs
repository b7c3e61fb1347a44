// The README (whose examples run as doctests) uses the default features; without
// them the crate doc is a short pointer, so `cargo test --no-default-features` passes.
#![cfg_attr(
    all(feature = "shingle", feature = "eval", feature = "minhash", feature = "lsh"),
    doc = include_str!("../README.md")
)]
#![cfg_attr(
    not(all(
        feature = "shingle",
        feature = "eval",
        feature = "minhash",
        feature = "lsh"
    )),
    doc = "Near-duplicate detection of text: the facade of the ndd crates. Enable the \
           default features for the full documentation and examples (README.md)."
)]

pub use ndd_core;
pub use ndd_core::*;

/// Text preparation, tokenizers, shingles and spot signatures (the `ndd-shingle` crate).
#[cfg(feature = "shingle")]
pub use ndd_shingle as shingle;

/// Evaluation metrics and the labeled near-duplicate generator (the `ndd-eval` crate).
#[cfg(feature = "eval")]
pub use ndd_eval as eval;

/// MinHash sketches: classic, one-permutation with densification, b-bit, weighted and
/// super-shingles (the `ndd-minhash` crate).
#[cfg(feature = "minhash")]
pub use ndd_minhash as minhash;

/// Banded LSH over MinHash signatures: the index, the S-curve, choosing bands and rows
/// (the `ndd-lsh` crate).
#[cfg(feature = "lsh")]
pub use ndd_lsh as lsh;

/// I-Match signatures: collection-statistics lexicons, the long-document rule,
/// randomized lexicons and the stability analysis (the `ndd-imatch` crate).
#[cfg(feature = "imatch")]
pub use ndd_imatch as imatch;
/// Normalized compression distance, SigNCD on punctuation-spot signatures and its
/// exact pruned all-pairs search (the `ndd-ncd` crate).
#[cfg(feature = "ncd")]
pub use ndd_ncd as ncd;
/// The pipeline from a corpus to deduplicated groups: corpus readers, the exact-duplicate
/// pass, candidate generation per method, verification, grouping and persistence (the
/// `ndd-pipeline` crate).
#[cfg(feature = "pipeline")]
pub use ndd_pipeline as pipeline;
/// SimHash: Charikar random-hyperplane signatures and 64-bit fingerprints (feature `simhash`).
#[cfg(feature = "simhash")]
pub use ndd_simhash as simhash;

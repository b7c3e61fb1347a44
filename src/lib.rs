#![doc = include_str!("../README.md")]

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

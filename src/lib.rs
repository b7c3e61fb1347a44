#![doc = include_str!("../README.md")]

pub use ndd_core;
pub use ndd_core::*;

/// Text preparation, tokenizers, shingles and spot signatures (the `ndd-shingle` crate).
#[cfg(feature = "shingle")]
pub use ndd_shingle as shingle;

/// Evaluation metrics and the labeled near-duplicate generator (the `ndd-eval` crate).
#[cfg(feature = "eval")]
pub use ndd_eval as eval;

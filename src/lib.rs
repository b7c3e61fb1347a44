// The README (whose examples run as doctests) uses the default features; without
// them the crate doc is a short pointer, so `cargo test --no-default-features` passes.
#![cfg_attr(
    all(
        feature = "shingle",
        feature = "eval",
        feature = "minhash",
        feature = "lsh",
        feature = "index"
    ),
    doc = include_str!("../README.md")
)]
#![cfg_attr(
    not(all(
        feature = "shingle",
        feature = "eval",
        feature = "minhash",
        feature = "lsh",
        feature = "index"
    )),
    doc = "Near-duplicate detection of text: the facade of the ndd crates. Enable the \
           default features for the full documentation and examples (README.md)."
)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use ndd_core;
#[doc(inline)]
pub use ndd_core::*;

/// The traits a program needs in scope to call the crates' methods:
/// `use near_dup::prelude::*;` brings them all (traits only, no types, so it clashes
/// with nothing).
///
/// [`TrySketcher`] is left out on purpose: every `Sketcher`
/// is also a `TrySketcher`, and with both in scope `hasher.scheme()` would be
/// ambiguous. Import it where you call `try_sketch_features`.
///
/// # Example
///
/// ```
/// use near_dup::prelude::*;
/// let hasher = near_dup::minhash::MinHasher::new(128)?; // `sketch` comes from DocSketcher
/// let a = hasher.sketch("the quick brown fox jumps over the lazy dog");
/// let b = hasher.sketch("the quick brown fox jumps over the lazy dog");
/// assert_eq!(a.similarity(&b)?.value(), 1.0); // `similarity` from Signature
/// # Ok::<(), near_dup::Error>(())
/// ```
pub mod prelude {
    #[cfg(feature = "rayon")]
    pub use ndd_core::ParDocSketcher;
    pub use ndd_core::codec::{ByteForm, KeyCodec};
    pub use ndd_core::weights::{FeatureExtractorExt, FeatureWeights};
    pub use ndd_core::{
        BitSignature, CandidateIndex, DocSketcher, DynFeatureExtractor, DynTokenizer,
        ExactSignature, FeatureExtractor, FeatureSink, PairSink, Signature, Similarity, Sketcher,
        SlotSignature, Tokenizer,
    };
}

/// Text preparation, tokenizers, shingles and spot signatures (the `ndd-shingle` crate).
#[cfg(feature = "shingle")]
#[doc(inline)]
pub use ndd_shingle as shingle;

/// Evaluation metrics and the labeled near-duplicate generator (the `ndd-eval` crate).
#[cfg(feature = "eval")]
#[doc(inline)]
pub use ndd_eval as eval;

/// MinHash sketches: classic, one-permutation with densification, b-bit, weighted and
/// super-shingles (the `ndd-minhash` crate).
#[cfg(feature = "minhash")]
#[doc(inline)]
pub use ndd_minhash as minhash;

/// Banded LSH over MinHash signatures: the index, the S-curve, choosing bands and rows,
/// LSH Forest, LSH Ensemble, LSHBloom, bit sampling (the `ndd-lsh` crate).
#[cfg(feature = "lsh")]
#[doc(inline)]
pub use ndd_lsh as lsh;

/// Exact search structures: Manku's permuted Hamming tables over 64-bit fingerprints,
/// the exact-signature index (I-Match), the inverted index and the exact Jaccard join
/// (the `ndd-index` crate).
#[cfg(feature = "index")]
#[doc(inline)]
pub use ndd_index as index;

/// Token alignment: the bit-parallel LCS verifier, block reports of what differs and
/// the near-duplicate categories of Yang and Callan (the `ndd-align` crate).
#[cfg(feature = "align")]
#[doc(inline)]
pub use ndd_align as align;
/// DURIAN's grouping: the Dirichlet-smoothed KL-divergence distance, reference
/// copies, constraints and the constrained clustering (the `ndd-cluster` crate).
#[cfg(feature = "cluster")]
#[doc(inline)]
pub use ndd_cluster as cluster;
/// Corpus input: JSONL (plain or gzip, from a file or standard input) and folders of
/// text or HTML files read into documents, rejected records as problems under an error
/// policy, and the fingerprint of an input's files (the `ndd-corpus` crate; the
/// pipeline re-exports it as `near_dup::pipeline::corpus`).
#[cfg(feature = "corpus")]
#[doc(inline)]
pub use ndd_corpus as corpus;
/// I-Match signatures: collection-statistics lexicons, the long-document rule,
/// randomized lexicons and the stability analysis (the `ndd-imatch` crate).
#[cfg(feature = "imatch")]
#[doc(inline)]
pub use ndd_imatch as imatch;
/// ANDD's learned k-gram weights: features, the weight model, training by L-BFGS
/// (the `ndd-learn` crate; not a default feature, it brings the `argmin` optimizer).
#[cfg(feature = "learn")]
#[doc(inline)]
pub use ndd_learn as learn;
/// Normalized compression distance, SigNCD on punctuation-spot signatures and its
/// exact pruned all-pairs search (the `ndd-ncd` crate).
#[cfg(feature = "ncd")]
#[doc(inline)]
pub use ndd_ncd as ncd;
/// The pipeline from a corpus to deduplicated groups: corpus readers, the exact-duplicate
/// pass, candidate generation per method, verification, grouping and persistence (the
/// `ndd-pipeline` crate).
#[cfg(feature = "pipeline")]
#[doc(inline)]
pub use ndd_pipeline as pipeline;
/// Repeated text across a corpus: lines and paragraphs counted by normalized hash and
/// removed, in memory or out of core (the `ndd-repeats` crate).
#[cfg(feature = "repeats")]
#[doc(inline)]
pub use ndd_repeats as repeats;
/// The HTML report of a run: one self-contained page with the summary, plots, the
/// groups and side-by-side diffs of their members (the `ndd-report` crate).
#[cfg(feature = "report")]
#[doc(inline)]
pub use ndd_report as report;
/// Record files for band keys, edges and assignments between the stages of a job
/// beyond one machine's memory or beyond one machine, and external sorting (the
/// `ndd-scale` crate; the format is `docs/formats.md`).
#[cfg(feature = "scale")]
#[doc(inline)]
pub use ndd_scale as scale;
/// SimHash: Charikar random-hyperplane signatures and 64-bit fingerprints (feature `simhash`).
#[cfg(feature = "simhash")]
#[doc(inline)]
pub use ndd_simhash as simhash;

//! Core of the ndd near-duplicate detection crates: the traits every pipeline stage
//! implements, the shared value types, the one error type, stable hashing, and the
//! exact similarity measures that every sketch approximates.
//!
//! # The pipeline
//!
//! ```text
//! text ─► prepare ─► tokens ─► features ─► signature ─► compare
//!                  Tokenizer  FeatureExtractor  Sketcher   Signature::similarity
//!                                  │                         │
//!                             FeatureSink               CandidateIndex ─► pairs ─► UnionFind
//! ```
//!
//! # Structure
//!
//! * Implementer traits with one to four required methods: [`Tokenizer`],
//!   [`FeatureExtractor`] (pushes 64-bit feature hashes into a [`FeatureSink`]),
//!   [`Sketcher`] (features → [`Signature`]), [`CandidateIndex`].
//! * User-level trait [`DocSketcher`]: `sketch(&doc)`, `sketch_into`, `sketch_with`
//!   (caller-owned scratch, allocation-free) and batch forms, all provided.
//! * Object-safe twins for choosing an implementation at run time: [`DynTokenizer`],
//!   [`DynFeatureExtractor`] (`Box<dyn DynFeatureExtractor>` is itself a
//!   [`FeatureExtractor`], so a run-time choice plugs into every generic sketcher).
//! * Fallible twin [`TrySketcher`] (associated `Error`), blanket-implemented for every
//!   [`Sketcher`] with `Error = Infallible`.
//! * One composition of extractor and sketcher, [`Composed`], with the [`Ingest`] hook
//!   for specialized sinks; with the `rayon` feature, `ParDocSketcher` adds
//!   `par_sketch_batch` / `par_sketch_batch_into` to every [`DocSketcher`], and its
//!   fallible twin `ParTryDocSketcher` adds `par_try_sketch_batch` to every `Composed`
//!   of a [`TrySketcher`] (sequentially: [`Composed::try_sketch_batch`]).
//! * Feature weights ([`weights`]): the weight-model contract
//!   [`FeatureWeights`](weights::FeatureWeights) (feature hash and term frequency in,
//!   weight out), TF-IDF ([`TfIdf`](weights::TfIdf)), and the adapter that weights any
//!   extractor's features for any weighted sketcher
//!   ([`weighted_by`](weights::FeatureExtractorExt::weighted_by)).
//! * Exact measures ([`jaccard`], [`containment`], [`cosine`], [`extended_jaccard`],
//!   [`weighted_jaccard`]) as free functions and as [`Similarity`] unit structs.
//! * The one currency between stages: [`ScoredPair`] (two documents and a score,
//!   higher is more similar) pushed into a [`PairSink`].
//! * Exact reference sketch: [`ExactSet`] (its inverted index and the exact all-pairs
//!   join are in the `ndd-index` crate); grouping with [`UnionFind`].
//! * The key bookkeeping of the slot-based indexes ([`KeySlots`]: key to slot, slot to
//!   key, freed slots reused) and their memory estimate ([`mem`]).
//! * Components over sparse `u64` document ids that merge partial results
//!   deterministically ([`DocUnionFind`], representative = smallest id), and the edges a
//!   bucket of candidates emits ([`bucket_edges`]: star by default, or chain), for jobs
//!   split over workers, stages or machines.
//! * Collection statistics ([`stats::DocumentFrequencies`]): document frequencies,
//!   IDF and normalized IDF, for TF-IDF weights and I-Match lexicons.
//! * Stable hashing ([`hash`]): XXH3-64 for tokens, an O(1) rolling k-gram combiner,
//!   pinned by golden vectors.
//!
//! # Example: exact Jaccard of two documents' word bigrams (Gambosi's slides' example)
//!
//! ```
//! use near_dup::{hash::{stable_hash64, KGramRoller}, jaccard, FeatureSet};
//!
//! fn bigrams(doc: &str) -> Result<FeatureSet, near_dup::Error> {
//!     let mut roller = KGramRoller::new(2)?;
//!     Ok(doc
//!         .split_whitespace()
//!         .filter_map(|w| roller.push(stable_hash64(w.to_lowercase().as_bytes(), 0)))
//!         .collect())
//! }
//! let d1 = bigrams("Jack London traveled to Oakland")?;
//! let d2 = bigrams("Jack London traveled to the city of Oakland")?;
//! let d3 = bigrams("Jack traveled from Oakland to London")?;
//! assert_eq!(jaccard(d1.as_slice(), d2.as_slice()), 3.0 / 8.0);
//! assert_eq!(jaccard(d1.as_slice(), d3.as_slice()), 0.0);
//! # Ok::<(), near_dup::Error>(())
//! ```

pub mod bits;
mod cluster;
pub mod codec;
mod components;
pub mod compose;
mod dyn_extract;
mod error;
pub mod estimate;
mod exact;
mod features;
pub mod file;
pub mod hash;
mod key_slots;
pub mod math;
mod measures;
pub mod mem;
mod pair;
mod scheme;
pub mod stats;
mod threshold;
mod traits;
mod try_sketch;
pub mod weights;

pub use cluster::UnionFind;
pub use components::{BucketEdges, DocUnionFind, EdgePolicy, bucket_edges};
pub use compose::{Composed, Ingest};
#[cfg(feature = "rayon")]
pub use compose::{ParDocSketcher, ParTryDocSketcher};
pub use error::{Error, ErrorKind};
pub use estimate::Estimate;
pub use exact::{ExactSet, ExactSetSketcher, ExactSetSketcherBuilder, ExternalFeatures};
pub use features::{FeatureSet, SparseVector, Weighted};
pub use key_slots::KeySlots;
pub use measures::{
    Containment, Cosine, ExtendedJaccard, Jaccard, Similarity, WeightedJaccard, containment,
    containment_at_least, cosine, dot, extended_jaccard, intersection_len, jaccard,
    jaccard_at_least, weighted_jaccard,
};
pub use pair::{FnPairSink, PairCounter, PairSink, ScoredPair};
pub use scheme::{SchemeBuilder, SchemeId};
pub use threshold::Threshold;
pub use traits::{
    BitSignature, CandidateIndex, DocSketcher, DynFeatureExtractor, DynTokenizer, ExactSignature,
    FeatureExtractor, FeatureSink, FnSink, Signature, Sketcher, SlotSignature, Token, Tokenizer,
};
pub use try_sketch::TrySketcher;

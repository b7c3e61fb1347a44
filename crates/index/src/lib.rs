//! Exact search structures for ndd: Manku's permuted Hamming tables, exact-signature
//! buckets, the inverted index of the exact join. The locality-sensitive hashing
//! families (banded LSH, the forest, the ensemble, the Bloom filters, bit sampling)
//! are in `ndd-lsh`.
//!
//! Every structure here answers exactly what it is asked: no candidate is missed and
//! none is there by chance. Each is incremental, checks the [`SchemeId`] of what it
//! is given, implements [`CandidateIndex`], and returns its all-pairs join as
//! [`ScoredPair`]s scored by its own measure.
//!
//! # API themes
//!
//! * **Hamming search over 64-bit fingerprints** ([`HammingIndex`], [`HammingParams`],
//!   [`hamming_pairs`]): every fingerprint within `k` bits of a query, and every such
//!   pair, exactly, with the permuted sorted tables of Manku, Jain and Das Sarma,
//!   "Detecting near-duplicates for web crawling", WWW 2007. Pairs are scored
//!   `1 − h/64` ([`similarity_from_hamming`]).
//! * **Exact-signature buckets** ([`ExactIndex`]): documents by the coordinates of an
//!   [`ExactSignature`] (I-Match and its extended, randomized-lexicon signatures); a
//!   query's candidates agree with it on at least one coordinate; pairs are scored by
//!   the fraction of coordinates shared, and [`groups`](ExactIndex::groups) come
//!   straight from the buckets.
//! * **The inverted index of the exact join** ([`InvertedIndex`],
//!   [`exact_similar_pairs`]): from features to documents over `ndd-core`'s
//!   [`ExactSet`](ndd_core::ExactSet), and every pair of feature sets at or above a
//!   Jaccard threshold by a prefix-filtered all-pairs join; the reference every sketch
//!   is measured against.
//! * **Saving and loading**: [`ExactIndex::to_bytes`] / [`ExactIndex::from_bytes`] and
//!   the same on [`HammingIndex`]: a versioned, checksummed byte form; the tables are
//!   rebuilt on load and the loaded index answers as the saved one.
//!   `Serialize`/`Deserialize` through the same bytes with the `serde` feature.
//!
//! # Example: Hamming search, and the exact Jaccard join
//!
//! ```
//! use near_dup::FeatureSet;
//! use near_dup::index::{HammingIndex, HammingParams, ScoredPair, exact_similar_pairs};
//!
//! // Fingerprints within 3 bits of each other, in 4 blocks (4 tables).
//! let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
//! index.insert("a", 0xF0F0_F0F0_F0F0_F0F0)?;
//! index.insert("b", 0xF0F0_F0F0_F0F0_F0F3)?; // 2 bits from "a"
//! index.insert("c", 0x0F0F_0F0F_0F0F_0F0F)?;
//! assert_eq!(index.query(0xF0F0_F0F0_F0F0_F0F1), vec![("a", 1), ("b", 1)]);
//! assert_eq!(index.all_pairs(), vec![ScoredPair::new("a", "b", 1.0 - 2.0 / 64.0)]);
//!
//! // Every pair of feature sets with Jaccard at least 0.5: {1,2,3} and {2,3,4} share 2 of 4.
//! let sets = [
//!     FeatureSet::from_unsorted(vec![1, 2, 3]),
//!     FeatureSet::from_unsorted(vec![2, 3, 4]),
//!     FeatureSet::from_unsorted(vec![7, 8]),
//! ];
//! assert_eq!(exact_similar_pairs(&sets, 0.5)?, vec![ScoredPair::new(0, 1, 0.5)]);
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! - G. S. Manku, A. Jain and A. Das Sarma, "Detecting near-duplicates for web crawling",
//!   WWW 2007.
//! - A. Chowdhury, O. Frieder, D. Grossman and M. C. McCabe, "Collection statistics for
//!   fast duplicate document detection", ACM TOIS 20(2), 2002.
//! - A. Kołcz and A. Chowdhury, "Lexicon randomization for near-duplicate detection with
//!   I-Match", Journal of Supercomputing 45(3), 2008.

mod exact;
mod hamming;
mod inverted;
mod pairs;
#[cfg(feature = "serde")]
mod serde_impl;

pub use exact::{ExactIndex, MAX_EXACT_COORDINATES};
pub use hamming::{
    HammingIndex, HammingMemory, HammingParams, MAX_HAMMING_TABLES, PlainFingerprint,
    for_each_hamming_pair, hamming_from_similarity, hamming_pairs, hamming_pairs_into,
    similarity_from_hamming,
};
pub use inverted::{
    InvertedIndex, exact_similar_pairs, exact_similar_pairs_capped_into, exact_similar_pairs_into,
};
pub use ndd_core::{self, CandidateIndex, Error, ExactSignature, SchemeId, ScoredPair};

//! Hamming search over 64-bit fingerprints with permuted sorted tables:
//! [`HammingParams`], [`HammingIndex`], and the one-shot [`hamming_pairs`].
//!
//! The method of Gurmeet Singh Manku, Arvind Jain and Anish Das Sarma, "Detecting
//! near-duplicates for web crawling", WWW 2007, section 3 (the "Hamming distance
//! problem"), which Zhang, Yao, Ji and Fang ("Effective and Fast Near
//! Duplicate Detection via Signature-Based Compression Metrics", 2016, sections 5.2
//! and 6) uses as its "Google's simhash" baseline with 64-bit fingerprints.
//!
//! The 64 bits are split into `B` contiguous blocks. Two fingerprints that differ in at
//! most `k` bits disagree in at most `k` blocks, so they agree exactly on at least
//! `B − k` blocks (pigeonhole). For every choice of `B − k` *leading* blocks there is a
//! table holding all fingerprints with their bits permuted so that the leading blocks
//! come first, sorted on those leading bits. A query permutes itself the same way,
//! finds the run of entries with equal leading bits in each table and verifies each by
//! popcount (a bit permutation preserves the Hamming distance). Every answer is found
//! in at least one table, so the search is exact; a pair agreeing on more than `B − k`
//! blocks is reported only from the table of its lowest `B − k` agreeing blocks, so
//! each answer comes once.
//!
//! One job per file: [`params`] (the parameters and their cost model), [`layout`]
//! (the bit permutation of each table, the radix sort on leading bits and the scans
//! of runs), [`join`] (the one-shot all-pairs join of a collection), [`index`] (the
//! dynamic index with its delta) and `bytes` (the index's byte form).

mod bytes;
mod index;
mod join;
mod layout;
mod params;

pub use index::{HammingIndex, HammingMemory, PlainFingerprint};
pub use join::{for_each_hamming_pair, hamming_pairs, hamming_pairs_into};
pub use params::{HammingParams, MAX_HAMMING_TABLES};

/// The most documents an index or a batch holds: ids are `u32`.
const MAX_DOCS: usize = u32::MAX as usize;

/// The score of a pair of 64-bit fingerprints `distance` bits apart: `1 − h/64`, the
/// [`ScoredPair`](ndd_core::ScoredPair) score the Hamming join and index produce
/// (exact in `f64`; distances above 64 give 0).
///
/// # Example
///
/// ```
/// use near_dup::index::similarity_from_hamming;
/// assert_eq!(similarity_from_hamming(0), 1.0);
/// assert_eq!(similarity_from_hamming(16), 0.75);
/// ```
#[must_use]
pub fn similarity_from_hamming(distance: u32) -> f64 {
    1.0 - f64::from(distance.min(64)) / 64.0
}

/// The Hamming distance behind a score of [`similarity_from_hamming`]: `(1 − s)·64`
/// when that is a whole number of bits in `0..=64`, else `None` (a score from another
/// measure, or `NaN`).
///
/// # Example
///
/// ```
/// use near_dup::index::{hamming_from_similarity, similarity_from_hamming};
/// for h in 0..=64 {
///     assert_eq!(hamming_from_similarity(similarity_from_hamming(h)), Some(h));
/// }
/// assert_eq!(hamming_from_similarity(0.3), None);
/// assert_eq!(hamming_from_similarity(f64::NAN), None);
/// ```
#[must_use]
pub fn hamming_from_similarity(score: f64) -> Option<u32> {
    let bits = (1.0 - score) * 64.0;
    if (0.0..=64.0).contains(&bits) && bits.fract() == 0.0 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // whole, in 0..=64
        Some(bits as u32)
    } else {
        None
    }
}

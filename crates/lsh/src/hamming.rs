//! Hamming search over 64-bit fingerprints with permuted sorted tables:
//! [`HammingParams`], [`HammingIndex`], and the one-shot [`hamming_pairs`].
//!
//! The method of Gurmeet Singh Manku, Arvind Jain and Anish Das Sarma, "Detecting
//! near-duplicates for web crawling", WWW 2007, section 3 (the "Hamming distance
//! problem"), which paper 001 of the project (Zhang et al., "Effective and Fast Near
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

pub use index::{HammingIndex, HammingMemory};
pub use join::{for_each_hamming_pair, hamming_pairs};
pub use params::{HammingParams, MAX_HAMMING_TABLES};

/// The most documents an index or a batch holds: ids are `u32`.
const MAX_DOCS: usize = u32::MAX as usize;

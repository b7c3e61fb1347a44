//! Banded locality-sensitive hashing for ndd: an index over MinHash-style slot
//! signatures that finds the pairs likely to be similar without comparing all pairs.
//!
//! A signature of `k` slots is cut into `b` bands of `r` slots; two documents become a
//! candidate pair when they agree on every slot of at least one band. For slots that
//! agree with probability `s` (MinHash: the Jaccard similarity), that happens with
//! probability `1 − (1 − s^r)^b`, an S-curve whose steep part sits near the similarity
//! threshold you pick `b` and `r` for. (Giorgio Gambosi, "Near duplicate detection",
//! slides for the Course of Information Retrieval, University of Rome Tor Vergata,
//! derived from slides by C. Manning and H. Schütze, "Locality-Sensitive Hashing (LSH) for signatures" to "LSH summary".)
//!
//! # API themes
//!
//! * **Parameters** ([`LshParams`]): the S-curve ([`probability`](LshParams::probability)),
//!   false-positive and false-negative areas, and two ways to choose `b × r ≤ k`:
//!   [`for_threshold`](LshParams::for_threshold) /
//!   [`min_candidates_for_recall`](LshParams::min_candidates_for_recall) (the fewest
//!   candidates for a recall at the threshold, 99% by default as in the `ndd` tool;
//!   16 × 6 for 0.8 on 128 slots) and [`optimal`](LshParams::optimal) /
//!   [`for_threshold_balanced`](LshParams::for_threshold_balanced) (weighted areas,
//!   as datasketch's `MinHashLSH` does; 9 × 13 for 0.8 on 128 slots).
//! * **Band keys as plain values**: [`band_key`] and
//!   [`LshParams::band_keys_into`] give the stable 64-bit key of each band (XXH3-64
//!   of the band's little-endian slot bytes, seeded with the band index), for a
//!   distributed job to shuffle on.
//! * **The index** ([`LshIndex`], also an [`ndd_core::CandidateIndex`]): insert,
//!   remove, query, the streaming [`query_then_insert`](LshIndex::query_then_insert),
//!   the all-pairs join from the buckets ([`all_pairs`](LshIndex::all_pairs)), and
//!   verification against stored signatures or the caller's own features. About 200–250
//!   bytes per document for 9 bands ([`memory`](LshIndex::memory) reports it).
//! * **Batch join** ([`candidate_pairs`]): all candidate pairs of a collection by
//!   sorting band keys.
//! * **Plain slot signatures** ([`PlainSlots`]): slot values computed elsewhere.
//! * **Banded Hamming LSH for long bit signatures** ([`BitSampler`], [`SampledBits`]):
//!   bits sampled into bands, indexed by the same [`LshIndex`]; a band agrees with
//!   probability `p^r` for bit agreement `p`.
//!
//! * **Top-k search** ([`LshForest`], [`ForestParams`]): the `k` most similar
//!   documents for a query signature, from prefix trees whose band length adapts to
//!   the query (LSH Forest); incremental; ranked by the MinHash estimate or, with
//!   [`query_verified`](LshForest::query_verified), by a measure of the caller's.
//! * **Containment search** ([`LshEnsemble`], [`EnsembleParams`]): every document
//!   containing at least a fraction `t` of the query set, with documents partitioned
//!   by set size and bands and rows chosen per partition and query (LSH Ensemble);
//!   incremental, verified by the caller's exact containment.
//! * **Flag-only duplicate detection** ([`LshBloom`]): the band keys in one Bloom
//!   filter per band (LSHBloom), about 21 bytes per document for 9 bands at a stated
//!   false-positive rate, instead of about 220 in an [`LshIndex`].
//! * **Saving and loading**: [`LshIndex::to_bytes`] / [`LshIndex::from_bytes`] (and
//!   the same on [`LshForest`], [`LshEnsemble`] and [`LshBloom`]): a versioned,
//!   checksummed byte
//!   form holding the parameters, the scheme, the keys
//!   ([`KeyCodec`](ndd_core::codec::KeyCodec)) and the band keys or kept signatures
//!   ([`ByteForm`](ndd_core::codec::ByteForm)); the tables are rebuilt on load, and
//!   the loaded index answers as the saved one. About 76 bytes per document for 9
//!   bands and `u32` keys. `Serialize`/`Deserialize` through the same bytes with the
//!   `serde` feature.
//!
//! The index consumes signatures through [`SlotSignature`], so any sketch exposing
//! slot values works (`ndd-minhash`'s signatures among them).
//!
//! The exact search structures that are not locality-sensitive hashing (Manku's
//! permuted Hamming tables, the exact-signature index of I-Match, the inverted index
//! of the exact Jaccard join) are in the `ndd-index` crate.
//!
//! # Example: streaming deduplication
//!
//! ```
//! use near_dup::SchemeId;
//! use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
//!
//! let scheme = SchemeId::new("example-minhash").with(128).finish();
//! // Three documents' 128-slot signatures; the third agrees with the first on 120 slots.
//! let first: Vec<u64> = (0..128).collect();
//! let second: Vec<u64> = (1000..1128).collect();
//! let mut third = first.clone();
//! third[..8].fill(u64::MAX);
//!
//! let params = LshParams::for_threshold(0.8, 128)?; // 16 bands × 6 rows
//! let mut index = LshIndex::builder(params).keep_signatures(true).build();
//! let mut candidates = Vec::new();
//! for (id, slots) in [first, second, third].into_iter().enumerate() {
//!     candidates.clear();
//!     index.query_then_insert(id, &PlainSlots::new(scheme, slots)?, &mut candidates)?;
//!     if id == 2 {
//!         assert_eq!(candidates, vec![0]);
//!     }
//! }
//! let verified = index.all_pairs_verified(0.8)?;
//! assert_eq!((verified[0].a, verified[0].b), (0, 2));
//! assert_eq!(verified[0].score, 120.0 / 128.0);
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! - P. Indyk and R. Motwani, "Approximate nearest neighbors: towards removing the curse
//!   of dimensionality", STOC 1998.
//! - J. Leskovec, A. Rajaraman and J. D. Ullman, *Mining of Massive Datasets*, Cambridge
//!   University Press, chapter 3.
//! - M. Bawa, T. Condie and P. Ganesan, "LSH Forest: self-tuning indexes for similarity
//!   search", WWW 2005.
//! - E. Zhu, F. Nargesian, K. Q. Pu and R. J. Miller, "LSH Ensemble: Internet-Scale
//!   Domain Search", PVLDB 9(12), VLDB 2016.
//! - A. Khan, R. Underwood, C. Siebenschuh, Y. Babuji, A. Ajith, K. Hippe, O. Gokdemir,
//!   A. Brace, K. Chard and I. Foster, "LSHBloom: Memory-efficient, Extreme-scale
//!   Document Deduplication", arXiv:2411.04257, 2024.

mod batch;
mod bits;
mod bloom;
mod chains;
mod ensemble;
mod flat;
mod forest;
mod form;
mod index;
mod mem;
mod params;
mod scan_cuts;
#[cfg(feature = "serde")]
mod serde_impl;
mod slots;
mod sorted;
mod table;
mod walk;

pub use batch::{candidate_pairs, candidate_pairs_into};
pub use bits::{BitSampler, SampledBits};
pub use bloom::{LshBloom, MAX_BLOOM_BITS, MAX_BLOOM_HASHES};
pub use ensemble::{EnsembleMemory, EnsembleParams, LshEnsemble};
pub use flat::FlatLshIndex;
pub use forest::{
    DEFAULT_CANDIDATES_PER_RESULT, DEFAULT_MAX_EXAMINED, ForestMemory, ForestParams, ForestProbe,
    LshForest, LshForestBuilder,
};
pub use index::{LshIndex, LshIndexBuilder, MemoryReport, QueryScratch};
pub use ndd_core::{
    self, BitSignature, CandidateIndex, Error, Estimate, ExactSignature, SchemeId, Signature,
    SlotSignature,
};
pub use params::{DEFAULT_MIN_RECALL, LshParams, MAX_BANDED_SLOTS, MAX_SEARCH_SLOTS, band_key};
pub use scan_cuts::ScanCuts;
pub use slots::PlainSlots;
pub use sorted::{BandSorter, SortedBand, SortedBandJoin};

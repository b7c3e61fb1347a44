//! Token alignment for near-duplicate detection: verify candidate pairs by the order
//! of their words, and say what differs.
//!
//! Every sketch of ndd (shingles, MinHash, SimHash, I-Match, SigNCD) forgets where in
//! a document its words are, so none can tell a document with one clause changed
//! from one whose paragraphs were shuffled, nor show a reader what changed. This crate
//! reads the two documents as token sequences (the tokenizer and case folding of the
//! word shingles, each token a 64-bit hash) and:
//!
//! * computes their longest common subsequence (LCS) bit-parallel, stopping early
//!   once a threshold is out of reach ([`Aligner::lcs`], [`Aligner::verify`]);
//! * scores the pair by LCS-Dice, LCS containment, their combination with word
//!   3-gram Jaccard or the maximum of word-set Jaccard and LCS-Dice ([`Measure`]), or by
//!   LCS-Dice over tokens weighted by the corpus's document frequencies (the heaviest
//!   common subsequence, [`Aligner::weighted_dice`], [`TokenWeights`]; the weights
//!   that ranked real labeled pairs best, rare words and numbers heavier, are
//!   [`CorpusWeights`]);
//! * aligns them into matched runs ([`Aligner::align`]) and reports the shared
//!   blocks, the blocks unique to each side with byte offsets, moved blocks and
//!   repetitions ([`BlockReport`]);
//! * classifies the pair into the near-duplicate categories of Yang and Callan
//!   (block added, block deleted, key block, minor change, …) with the text a reader
//!   must look at ([`Category`], [`classify`]), and tests the containment of every
//!   paragraph of one document in another ([`contains_paragraphs`]).
//!
//! # Example
//!
//! ```
//! use near_dup::align::{Aligner, BlockReport, Category, Measure, TokenOptions};
//!
//! let reference = "We support the rule.\n\nMercury harms children.";
//! let copy = "We support the rule.\n\nMercury harms children.\n\nSigned, a parent in Ohio.";
//! let o = TokenOptions::default();
//! let (a, b) = (o.tokens(reference), o.tokens(copy));
//!
//! let mut aligner = Aligner::new();
//! let score = aligner.verify(a.hashes(), b.hashes(), Measure::Combined, 0.5)?;
//! assert!(score.is_some());
//!
//! let report = BlockReport::new(&mut aligner, &a, &b);
//! assert_eq!(report.unique_b_text(), vec!["Signed, a parent in Ohio."]);
//! assert_eq!(report.classify().category, Category::BlockAdded);
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # Cost
//!
//! An LCS costs O(|a|·|b| / 64) word operations (a pair of 1,000-word documents:
//! about 16,000 steps); an alignment replays them keeping every column and walks back
//! in O(|a| + |b|) (Myers' O((|a| + |b|)·D) diff for sides of more than about 11,500
//! tokens, bounded by [`EXACT_ALIGNMENT_BUDGET`]); a block report then sorts the
//! other side's token 4-grams, O(n log n). Sides longer than [`MAX_TOKENS`] are
//! compared on their first `MAX_TOKENS` tokens.
//!
//! # References
//!
//! * H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
//!   clustering", *Proceedings of the 29th Annual International ACM SIGIR Conference
//!   (SIGIR '06)*, 2006, Sections 2 and 4.4.1 (the categories and the key-block
//!   must-link).
//! * L. Allison and T. I. Dix, "A bit-string longest-common-subsequence algorithm",
//!   *Information Processing Letters* 23(5), 1986.
//! * H. Hyyrö, "Bit-parallel LCS-length computation revisited", *Proceedings of the
//!   15th Australasian Workshop on Combinatorial Algorithms (AWOCA)*, 2004.
//! * E. W. Myers, "An O(ND) difference algorithm and its variations",
//!   *Algorithmica* 1, 1986.

mod alignment;
mod blocks;
mod category;
mod grams;
mod lcs;
mod named;
mod similarity;
mod tokens;
mod weighted;

pub use alignment::{Alignment, EXACT_ALIGNMENT_BUDGET, Run};
pub use blocks::{Block, BlockKind, BlockReport, MIN_MOVED_TOKENS};
pub use category::{Category, Classification, ClassifyOptions, classify, contains_paragraphs};
pub use lcs::{Aligner, LcsResult, MAX_TOKENS, quadratic_lcs_len};
pub use ndd_core::Error;
pub use similarity::{Measure, Prepared};
pub use tokens::{TokenOptions, Tokens};
pub use weighted::{CorpusWeights, TokenWeights};

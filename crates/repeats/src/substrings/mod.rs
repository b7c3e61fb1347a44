//! Exact repeated substrings: every span of at least `min_length` bytes that occurs
//! in more than one document of a corpus, as byte ranges per document, to remove or
//! to report.
//!
//! Long verbatim spans shared by otherwise different documents (licence texts,
//! boilerplate paragraphs, quoted passages) are invisible to document-level
//! near-duplicate detection. This module follows the ExactSubstr method of Lee,
//! Ippolito, Nystrom, Zhang, Eck, Callison-Burch and Carlini, "Deduplicating
//! Training Data Makes Language Models Better" (ACL 2022, section 4.1) and its
//! reference implementation (google-research/deduplicate-text-datasets):
//!
//! * a suffix array over the bytes of the corpus ([`suffix_array`], SA-IS, tested
//!   against a naive sort);
//! * the suffixes whose first `min_length` bytes are equal are neighbours in it: a
//!   group of them that lies in two documents or more marks `[p, p + min_length)` of
//!   each member `p` (the reference's `self-similar` then `collect`); a span never
//!   crosses a document boundary (positions whose first bytes run into the next
//!   document are not counted, so no separator is needed);
//! * per document, the marked bytes as merged byte ranges ([`Found`]), which
//!   [`remove_ranges`] removes at character boundaries, and [`most_repeated`]
//!   counts by content for a report.
//!
//! `min_length` is in bytes, as the reference implementation's default: the paper's
//! 50 tokens are 100 bytes there (two bytes per token id); 100 bytes of English text
//! are about 15 to 20 words.
//!
//! Memory: one pass needs [`PASS_BYTES_PER_TEXT_BYTE`] bytes per byte it sorts. With a
//! [`memory_budget`](RepeatedSubstrings::memory_budget) the corpus is cut into
//! shards of at most half a pass and every pair of shards is sorted together
//! ([`Plan`]), so every pair of documents meets once and the answer is the one of a
//! single pass; `k` shards cost `k (k − 1) / 2` passes. (The reference
//! implementation merges per-shard suffix arrays into one on disk instead; the
//! pairwise passes trade that merge for more sorting and need no disk.)
//!
//! # Example
//!
//! ```
//! use near_dup::repeats::substrings::{RepeatedSubstrings, remove_ranges};
//! let docs = [
//!     "Our story. This text is licensed under the Creative Commons licence. Bye.",
//!     "A recipe for bread. This text is licensed under the Creative Commons licence.",
//!     "A short note.",
//! ];
//! let found = RepeatedSubstrings::new(30)?.find(&docs)?;
//! let cleaned: Vec<String> =
//!     docs.iter().zip(found.ranges()).map(|(d, r)| remove_ranges(d, r)).collect();
//! assert_eq!(cleaned, ["Our story Bye.", "A recipe for bread", "A short note."]);
//! # Ok::<(), near_dup::Error>(())
//! ```

mod finder;
mod plan;
mod ranges;
mod sa;

pub use finder::{Found, RepeatedSubstrings, Scope};
pub use plan::{PASS_BYTES_PER_TEXT_BYTE, Plan};
pub use ranges::{RepeatedSpan, char_ranges, merge_ranges, most_repeated, remove_ranges};
pub use sa::{MAX_TEXT_BYTES, suffix_array};

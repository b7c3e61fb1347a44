//! I-Match near-duplicate signatures for ndd: lexicons from collection statistics,
//! SHA-1 signatures of a document's lexicon terms, the long-document rule with a
//! secondary lexicon, randomized lexicons for stability, and the analysis that says
//! how many of them to use.
//!
//! I-Match (A. Chowdhury, O. Frieder, D. Grossman, M. C. McCabe, "Collection
//! statistics for fast duplicate document detection", ACM TOIS 20(2), 2002) maps a
//! document to one hash of the set of its terms that lie in a lexicon of mid-frequency
//! words; documents with equal hashes are near duplicates, found by one hash-table
//! lookup. This crate follows A. Kołcz and A. Chowdhury, "Lexicon randomization for
//! near-duplicate detection with I-Match", Journal of Supercomputing 45(3), 2008
//! (Kołcz and Chowdhury (The Journal of Supercomputing 2008); summarized in H. Hajishirzi, W. Yih, A. Kołcz,
//! "Adaptive near-duplicate detection via similarity learning", SIGIR 2010, §2.2:
//! Hajishirzi, Yih and Kołcz (SIGIR 2010)):
//!
//! * **Lexicons** ([`Lexicon`], §3 and §6.5): from [`DocumentFrequencies`] counted
//!   over a corpus, the primary lexicon `L` = terms with normalized IDF in a window
//!   (`[0.2, 0.8]` for web text, `[0.2, 0.3]` for email), and the secondary lexicon
//!   `B` = rarer terms ranked by increasing IDF. A lexicon built on one collection is
//!   applied to another, so it has a versioned byte form.
//! * **Signatures** ([`IMatcher`], [`IMatchSignature`], §3): SHA-1 of `S = L ∩ U` in a
//!   canonical order; [`Rejection`] (a typed reason) when `|U|`, `|S|` or `|S|/|U|` is
//!   too small, after extending `S` from `B` for long documents (steps 1–5).
//! * **Composition**: [`IMatchSigner`] is the signer without a text front end, a
//!   fallible sketcher ([`TrySketcher`], state [`IMatchState`], error [`Rejection`]);
//!   [`IMatcher`] is it composed with a term extractor (`ndd_core::Composed`), and its
//!   batch and parallel batch (feature `rayon`) are ndd-core's shared code.
//! * **Randomized lexicons** ([`Randomization`], §4 and §6.6): `K` extra lexicons by
//!   bootstrap sampling or by removing a fraction `p`; the signature is the
//!   `(K + 1)`-tuple and two documents match when any coordinate agrees. Seeded and
//!   reproducible.
//! * **Yang and Callan's (SIGIR 2006) variant** ([`TopIdfMatcher`]): the `N` highest-IDF words of each
//!   document, skipping the top few (H. Yang and J. Callan, SIGIR 2006, §6.3).
//! * **Index**: `ndd_index::ExactIndex` maps signature coordinates to documents, for
//!   clustering a collection and for checking new documents against it (§1's spam
//!   filter). [`IMatchSignature`] implements `ndd_core::ExactSignature`, the trait it reads.
//! * **Analysis** ([`analysis`]): equation 1's stability `1 − (1 − pⁿ)^K`, equations 6
//!   and 7 (the number of extra lexicons for perfect recall; Table 4).
//!
//! Document preparation is ndd-shingle's: [`unigram_extractor`] is word unigrams,
//! lower-cased, dropping tokens with more than one digit or fewer than four
//! characters (§6.3, [`TokenFilter::imatch`]); [`IMatcher`] skips documents with fewer
//! than five unique terms.
//!
//! # Example: deduplicate a stream and check a new document
//!
//! ```
//! use near_dup::stats::DocumentFrequencies;
//! use near_dup::imatch::{unigram_extractor, IMatcher, Lexicon};
//! use near_dup::index::ExactIndex;
//!
//! // Statistics and lexicon from a training corpus (here synthetic).
//! let corpus: Vec<String> = (0..300)
//!     .map(|i| format!("report{} market{} growth{} quarter{} with the news", i % 4, i % 6, i % 9, i % 15))
//!     .collect();
//! let stats = DocumentFrequencies::from_documents(&unigram_extractor(), corpus.iter().map(String::as_str));
//! let lexicon = Lexicon::builder().build(&stats)?;
//! let imatch = IMatcher::builder(lexicon).extra_lexicons(2).min_terms(2).build()?;
//!
//! let mut index = ExactIndex::new();
//! let docs = [
//!     "report1 market2 growth3 quarter4 newsletter",
//!     "quarter4 growth3 market2 report1 subscribe", // same lexicon terms, reordered
//!     "report2 market3 growth4 quarter5 newsletter",
//! ];
//! for (id, doc) in docs.iter().enumerate() {
//!     index.insert(id, &imatch.sign(doc)?)?;
//! }
//! assert_eq!(index.groups(), vec![vec![0, 1]]);
//! let incoming = imatch.sign("growth3 report1 quarter4 market2 unsubscribe")?;
//! assert_eq!(index.query(&incoming)?.len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # References
//!
//! - A. Chowdhury, O. Frieder, D. Grossman and M. C. McCabe, "Collection statistics for
//!   fast duplicate document detection", ACM Transactions on Information Systems 20(2),
//!   2002.
//! - A. Kołcz and A. Chowdhury, "Lexicon randomization for near-duplicate detection with
//!   I-Match", The Journal of Supercomputing 45(3), 2008.
//! - H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
//!   clustering", SIGIR 2006.

pub mod analysis;
mod lexicon;
mod randomize;
#[cfg(feature = "serde")]
mod serde_impl;
mod signature;
mod signer;
mod topidf;

pub use lexicon::{
    DEFAULT_SECONDARY_CAP, EMAIL_NIDF_WINDOW, Lexicon, LexiconBuilder, WEB_NIDF_WINDOW,
};
pub use ndd_core::stats::DocumentFrequencies;
pub use ndd_core::{self, Error, Signature, TrySketcher};
pub use ndd_shingle::TokenFilter;
pub use randomize::{MAX_EXTRA_LEXICONS, Randomization};
pub use signature::{Digest, IMatchSignature};
#[allow(deprecated)]
pub use signer::Scratch;
pub use signer::{
    DEFAULT_MIN_COVERAGE, DEFAULT_MIN_TERMS, DEFAULT_MIN_UNIQUE_TERMS, IMatchSigner, IMatchState,
    IMatcher, IMatcherBuilder, LexiconMemory, Rejection,
};
pub use topidf::{TopIdfMatcher, TopIdfMatcherBuilder};

use ndd_shingle::{ShortDocs, WordShingler};

/// The term extractor of Kołcz and Chowdhury (The Journal of Supercomputing 2008, §6.3): word unigrams (ndd-shingle's
/// [`WordTokenizer`](ndd_shingle::WordTokenizer): runs of letters and digits), lower
/// case, without tokens of more than one digit or fewer than four characters
/// ([`TokenFilter::imatch`]). Each term is the XXH3-64 hash of its lower-cased text
/// (ndd-shingle's token hash, seed 0).
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// let words = near_dup::imatch::unigram_extractor();
/// // "The", "of" are too short; "2008a1" has two digits; "Lexicon" = "lexicon".
/// assert_eq!(words.feature_set("The Lexicon of 2008a1 lexicon mp3s").len(), 2);
/// assert_eq!(words.scheme(), near_dup::imatch::unigram_extractor_scheme());
/// ```
#[must_use]
pub fn unigram_extractor() -> WordShingler {
    WordShingler::builder()
        .k(1)
        .filter(TokenFilter::imatch())
        .short_docs(ShortDocs::Skip)
        .build()
        .unwrap_or_else(|_| unreachable!("k = 1 is valid"))
}

/// The [`SchemeId`](ndd_core::SchemeId) of [`unigram_extractor`]'s terms (what a
/// lexicon built from its statistics carries).
///
/// # Example
///
/// ```
/// let lex = near_dup::imatch::Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
/// assert!(near_dup::imatch::IMatcher::builder(lex).build().is_ok());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[must_use]
pub fn unigram_extractor_scheme() -> ndd_core::SchemeId {
    use ndd_core::FeatureExtractor;
    unigram_extractor().scheme()
}

//! Text preparation and feature extraction for ndd: HTML to text, Unicode word
//! tokenizing with byte offsets, case folding and token filters, word and character
//! k-gram shingles hashed in one pass, Rabin fingerprints, and spot signatures.
//!
//! Every extractor implements [`ndd_core::FeatureExtractor`]: it pushes 64-bit
//! feature hashes into a sink as it scans, so sketches consume them without a
//! `Vec` per document.
//!
//! # Example
//!
//! ```
//! use near_dup::{jaccard, FeatureExtractor};
//! use near_dup::shingle::{html::html_to_text, WordShingler};
//!
//! let page = "<p>The quick brown fox <a href='/ad'>buy now</a> jumps over the lazy dog</p>";
//! let text = html_to_text(page);
//! let shingles = WordShingler::new(3)?;
//! let a = shingles.feature_set(&text);
//! let b = shingles.feature_set("the quick brown fox jumps over the lazy dog");
//! assert_eq!(jaccard(a.as_slice(), b.as_slice()), 1.0);
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! - A. Z. Broder, S. C. Glassman, M. S. Manasse and G. Zweig, "Syntactic clustering of
//!   the Web", WWW 1997.
//! - M. Theobald, J. Siddharth and A. Paepcke, "SpotSigs: robust and efficient near
//!   duplicate detection in large web collections", SIGIR 2008.
//! - M. O. Rabin, "Fingerprinting by random polynomials", Technical Report TR-15-81,
//!   Harvard University, 1981.

mod builders;
pub mod html;
pub mod rabin;
mod rabin_shingles;
#[cfg(test)]
mod reference;
mod roller;
mod shingle;
pub mod spots;
mod stopwords;
mod token;
mod xxh3_short;

pub use ndd_core::{self, FeatureExtractor, FeatureSink, Token, Tokenizer};
pub use rabin::RabinFingerprinter;
pub use shingle::{
    CharShingler, DEFAULT_WORD_K, Selection, ShingleHash, ShortDocs, WordShingler,
    WordShinglerBuilder,
};
pub use spots::{
    PunctSpotBuilder, PunctSpotExtractor, PunctSpotVariant, SpotOutcome, SpotSigBuilder,
    SpotSigExtractor,
};
#[cfg(feature = "nfkc")]
pub use token::hash_token_nfkc_form;
pub use token::{TokenFilter, WordTokenizer, fold_case_into, hash_token, is_word_char};

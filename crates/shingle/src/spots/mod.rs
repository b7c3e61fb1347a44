//! Spot signatures: features taken only at "spots" of a document, chosen so that the
//! main content contributes and boilerplate mostly does not.
//!
//! * [`SpotSigExtractor`]: stopword-anchored spot signatures (M. Theobald,
//!   J. Siddharth, A. Paepcke, "SpotSigs: Robust and Efficient Near Duplicate Detection
//!   in Large Web Collections", SIGIR 2008; summarized in H. Hajishirzi, W. Yih,
//!   A. Kołcz, "Adaptive Near-Duplicate Detection via Similarity Learning",
//!   SIGIR 2010, section 2.4). Each spot is a stopword (the antecedent) followed by a
//!   chain of the non-stopwords after it.
//! * [`PunctSpotExtractor`]: punctuation-spot signatures (X. Zhang, Y. Yao, Y. Ji,
//!   B. Fang, "Effective and Fast Near Duplicate Detection via Signature-Based
//!   Compression Metrics", Hindawi research article, 2016, section 4.1
//!   step 2 and section 5.4.1). Each spot is a punctuation mark (by default a comma) and
//!   contributes the words around it; the words, joined, form the signature string that
//!   SigNCD compresses.
//!
//! Both tokenize with [`WordTokenizer`], hash words with [`hash_token`] and combine the
//! word hashes of a spot with the k-gram hash of [`ndd_core::hash`] (order matters:
//! `the:cat` and `cat:the` differ). Both keep a per-document buffer of token hashes and
//! offsets; nothing is allocated per token.
//!
//! # Example
//!
//! ```
//! use near_dup::FeatureExtractor;
//! use near_dup::shingle::spots::{PunctSpotExtractor, SpotSigExtractor};
//!
//! let spots = SpotSigExtractor::new();
//! assert_eq!(spots.spot_strings("The cat sat on the mat"), ["the:cat", "on:mat", "the:mat"]);
//! assert_eq!(spots.features("The cat sat on the mat").len(), 3);
//!
//! let punct = PunctSpotExtractor::new();
//! let (sig, outcome) = punct.signature("Red apples, green pears, ripe plums, and figs.");
//! assert_eq!(sig, "apples pears plums");
//! assert!(!outcome.fallback);
//! ```

use ndd_core::{Error, Tokenizer};

use crate::token::{WordTokenizer, fold_case_into, hash_token};

mod punct;
mod spotsigs;

pub use punct::{PunctSpotBuilder, PunctSpotExtractor, PunctSpotVariant, SpotOutcome};
pub use spotsigs::{SpotSigBuilder, SpotSigExtractor};

/// Upper bound of [`SpotSigBuilder::chain`], [`SpotSigBuilder::distance`] and of each
/// side of [`PunctSpotBuilder::words`].
///
/// # Example
///
/// ```
/// use near_dup::shingle::spots::{MAX_SPOT_WORDS, SpotSigExtractor};
/// assert!(SpotSigExtractor::builder().chain(MAX_SPOT_WORDS).build().is_ok());
/// assert!(SpotSigExtractor::builder().chain(MAX_SPOT_WORDS + 1).build().is_err());
/// ```
pub const MAX_SPOT_WORDS: usize = 16;

/// Format version folded into the schemes of this module.
const FORMAT_VERSION: u64 = 1;

/// A word of the document: its feature hash and byte offsets.
#[derive(Debug, Clone, Copy)]
struct Word {
    hash: u64,
    start: usize,
    end: usize,
}

/// Pushes the case-folded (or original) text of `w` to `out`.
fn push_word(doc: &str, w: &Word, fold_case: bool, out: &mut String) {
    let text = doc.get(w.start..w.end).unwrap_or("");
    if fold_case {
        fold_case_into(text, out);
    } else {
        out.push_str(text);
    }
}

/// Sorted, deduplicated membership hashes (case-folded, seeded) of a word list.
fn word_set<S: AsRef<str>>(words: &[S], seed: u64, name: &'static str) -> Result<Vec<u64>, Error> {
    if words.is_empty() {
        return Err(Error::invalid_parameter(
            name,
            "must contain at least one word",
        ));
    }
    let tokenizer = WordTokenizer::new();
    let mut set = Vec::with_capacity(words.len());
    for w in words {
        let w = w.as_ref();
        let tokens = tokenizer.tokens(w);
        if tokens.len() != 1 || tokens[0].text != w {
            return Err(Error::invalid_parameter(
                name,
                format!("{w:?} is not a single word of `WordTokenizer`, so it can never match"),
            ));
        }
        set.push(hash_token(w, true, seed));
    }
    set.sort_unstable();
    set.dedup();
    Ok(set)
}

//! [`TopIdfMatcher`]: the I-Match variant of H. Yang and J. Callan, "Near-duplicate
//! detection by instance-level constrained clustering", SIGIR 2006, §6.3:
//! the `N` highest-IDF words of a document, skipping the top few.

use std::fmt;

use ndd_core::stats::DocumentFrequencies;
use ndd_core::{Error, FeatureExtractor, SchemeId};
use ndd_shingle::WordShingler;
use sha1::{Digest as _, Sha1};

use crate::signer::DEFAULT_MIN_UNIQUE_TERMS;
use crate::{IMatchSignature, Rejection, unigram_extractor};

/// I-Match by per-document selection instead of a lexicon window (H. Yang and
/// J. Callan, "Near-duplicate detection by instance-level constrained clustering",
/// SIGIR 2006, §6.3): the document's unique terms are ranked by IDF from
/// collection statistics, the `skip` highest are dropped as likely misspellings, and
/// the next `n` form the signature set (defaults `n = 30`, `skip = 5`, as there).
///
/// Terms never seen in the statistics rank highest (IDF of `df = 1`); ties go by
/// term hash, so the choice is a pure function of the statistics. The signature is
/// the same SHA-1 of the chosen term hashes in increasing order as [`IMatcher`]'s, in
/// an [`IMatchSignature`] of one coordinate. Kołcz and Chowdhury (The Journal of Supercomputing 2008, §3) contrasts this "fixed
/// fraction of high-IDF terms per document" family with its window lexicons: it
/// represents long documents but can under-represent short ones. This signer keeps the
/// whole [`DocumentFrequencies`] (16 bytes per term serialized).
///
/// [`IMatcher`]: crate::IMatcher
///
/// # Example
///
/// ```
/// use near_dup::stats::DocumentFrequencies;
/// use near_dup::imatch::{unigram_extractor, TopIdfMatcher};
///
/// let corpus: Vec<String> = (0..50).map(|i| format!("common shared term{i} word{}", i % 5)).collect();
/// let stats = DocumentFrequencies::from_documents(&unigram_extractor(), corpus.iter().map(String::as_str));
/// let top = TopIdfMatcher::builder(stats).top(3).skip(1).build()?;
/// let a = top.sign("common shared word1 word2 word3 zzzunseen")?;
/// let b = top.sign("common shared word1 word2 word3 qqqunseen")?; // the skipped rarest word changed
/// assert_eq!(a, b);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct TopIdfMatcher<E = WordShingler> {
    extractor: E,
    stats: DocumentFrequencies,
    top: usize,
    skip: usize,
    min_unique_terms: usize,
    scheme: SchemeId,
}

impl<E> fmt::Debug for TopIdfMatcher<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TopIdfMatcher")
            .field("scheme", &self.scheme)
            .field("top", &self.top)
            .field("skip", &self.skip)
            .field("min_unique_terms", &self.min_unique_terms)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// Configures a [`TopIdfMatcher`]; made by [`TopIdfMatcher::builder`].
///
/// # Example
///
/// ```
/// use near_dup::stats::DocumentFrequencies;
/// let stats = DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
/// let m = near_dup::imatch::TopIdfMatcher::builder(stats).top(20).skip(0).min_unique_terms(3).build()?;
/// assert_eq!((m.top(), m.skip()), (20, 0));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct TopIdfMatcherBuilder<E = WordShingler> {
    extractor: E,
    stats: DocumentFrequencies,
    top: usize,
    skip: usize,
    min_unique_terms: usize,
}

impl TopIdfMatcher<WordShingler> {
    /// A builder over `stats` with the [`unigram_extractor`], `n = 30`, `skip = 5`, and
    /// at least 5 unique terms per document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::stats::DocumentFrequencies;
    /// let stats = DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// let m = near_dup::imatch::TopIdfMatcher::builder(stats).build()?;
    /// assert_eq!((m.top(), m.skip()), (30, 5));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder(stats: DocumentFrequencies) -> TopIdfMatcherBuilder<WordShingler> {
        TopIdfMatcherBuilder {
            extractor: unigram_extractor(),
            stats,
            top: 30,
            skip: 5,
            min_unique_terms: DEFAULT_MIN_UNIQUE_TERMS,
        }
    }
}

impl<E: FeatureExtractor> TopIdfMatcherBuilder<E> {
    /// The extractor whose terms `stats` counted. Deprecated: the same as finishing
    /// with [`build_with`](Self::build_with)`(extractor)`, the words of every
    /// sketcher's builder.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, FeatureExtractor};
    /// let bigrams = near_dup::shingle::WordShingler::new(2)?;
    /// let stats = DocumentFrequencies::new(bigrams.scheme());
    /// #[allow(deprecated)]
    /// let old = near_dup::imatch::TopIdfMatcher::builder(stats.clone()).extractor(bigrams.clone()).build()?;
    /// let new = near_dup::imatch::TopIdfMatcher::builder(stats).build_with(bigrams)?;
    /// assert_eq!(old.scheme(), new.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "use `build_with(extractor)`")]
    pub fn extractor<E2: FeatureExtractor>(self, extractor: E2) -> TopIdfMatcherBuilder<E2> {
        self.replace_extractor(extractor)
    }

    /// The builder with its extractor replaced, every other setting kept.
    fn replace_extractor<E2: FeatureExtractor>(self, extractor: E2) -> TopIdfMatcherBuilder<E2> {
        TopIdfMatcherBuilder {
            extractor,
            stats: self.stats,
            top: self.top,
            skip: self.skip,
            min_unique_terms: self.min_unique_terms,
        }
    }

    /// `N`, the number of terms hashed (default 30; at least 1).
    ///
    /// # Example
    ///
    /// ```
    /// let stats = near_dup::stats::DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// assert!(near_dup::imatch::TopIdfMatcher::builder(stats).top(0).build().is_err());
    /// ```
    pub fn top(mut self, n: usize) -> Self {
        self.top = n;
        self
    }

    /// How many of the highest-IDF terms to pass over first (default 5).
    ///
    /// # Example
    ///
    /// ```
    /// let stats = near_dup::stats::DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// assert_eq!(near_dup::imatch::TopIdfMatcher::builder(stats).skip(2).build()?.skip(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn skip(mut self, n: usize) -> Self {
        self.skip = n;
        self
    }

    /// Documents with fewer unique terms are rejected (default 5; at least 1). A
    /// document with no term left after skipping is rejected too.
    ///
    /// # Example
    ///
    /// ```
    /// let stats = near_dup::stats::DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// assert!(near_dup::imatch::TopIdfMatcher::builder(stats).min_unique_terms(0).build().is_err());
    /// ```
    pub fn min_unique_terms(mut self, n: usize) -> Self {
        self.min_unique_terms = n;
        self
    }

    /// The signer.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `top` or `min_unique_terms` of 0;
    /// [`Error::Incompatible`] when the statistics counted another extractor's features.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let stats = DocumentFrequencies::new(SchemeId::new("other").finish());
    /// assert!(near_dup::imatch::TopIdfMatcher::builder(stats).build().is_err());
    /// ```
    pub fn build(self) -> Result<TopIdfMatcher<E>, Error> {
        if self.top == 0 {
            return Err(Error::invalid_parameter("top", "must be at least 1"));
        }
        if self.min_unique_terms == 0 {
            return Err(Error::invalid_parameter(
                "min_unique_terms",
                "must be at least 1",
            ));
        }
        Error::check_schemes(self.stats.scheme(), self.extractor.scheme())?;
        let bytes = self.stats.to_bytes();
        let scheme = SchemeId::new("imatch-top-idf")
            .with(1)
            .with_scheme(self.extractor.scheme())
            .with(ndd_core::hash::stable_hash64(&bytes, 0))
            .with(self.top as u64)
            .with(self.skip as u64)
            .with(self.min_unique_terms as u64)
            .finish();
        Ok(TopIdfMatcher {
            extractor: self.extractor,
            stats: self.stats,
            top: self.top,
            skip: self.skip,
            min_unique_terms: self.min_unique_terms,
            scheme,
        })
    }

    /// The signer for text through `extractor`, the extractor whose terms `stats`
    /// counted (without it, [`build`](Self::build) uses the [`unigram_extractor`]).
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); [`Error::Incompatible`] when `extractor`'s scheme
    /// differs from the statistics'.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, FeatureExtractor};
    /// use near_dup::imatch::TopIdfMatcher;
    /// let bigrams = near_dup::shingle::WordShingler::new(2)?;
    /// let stats = DocumentFrequencies::new(bigrams.scheme());
    /// assert!(TopIdfMatcher::builder(stats.clone()).build().is_err()); // unigrams: mismatch
    /// let m = TopIdfMatcher::builder(stats).skip(0).build_with(bigrams)?;
    /// assert!(m.sign("alpha bravo charlie delta echo foxtrot").is_ok()); // 5 bigrams
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_with<E2: FeatureExtractor>(
        self,
        extractor: E2,
    ) -> Result<TopIdfMatcher<E2>, Error> {
        self.replace_extractor(extractor).build()
    }
}

impl<E: FeatureExtractor> TopIdfMatcher<E> {
    /// `N`.
    ///
    /// # Example
    ///
    /// ```
    /// let stats = near_dup::stats::DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// assert_eq!(near_dup::imatch::TopIdfMatcher::builder(stats).top(8).build()?.top(), 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn top(&self) -> usize {
        self.top
    }

    /// The number of highest-IDF terms passed over.
    ///
    /// # Example
    ///
    /// ```
    /// let stats = near_dup::stats::DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// assert_eq!(near_dup::imatch::TopIdfMatcher::builder(stats).build()?.skip(), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn skip(&self) -> usize {
        self.skip
    }

    /// The scheme stamped on the signatures.
    ///
    /// # Example
    ///
    /// ```
    /// let stats = near_dup::stats::DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// let a = near_dup::imatch::TopIdfMatcher::builder(stats.clone()).build()?;
    /// let b = near_dup::imatch::TopIdfMatcher::builder(stats).top(10).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// The one-coordinate signature of `doc`.
    ///
    /// # Errors
    ///
    /// [`Rejection::TooShort`] below the minimum of unique terms;
    /// [`Rejection::TooFewLexiconTerms`] when nothing is left after skipping.
    ///
    /// # Example
    ///
    /// ```
    /// let stats = near_dup::stats::DocumentFrequencies::new(near_dup::imatch::unigram_extractor_scheme());
    /// let m = near_dup::imatch::TopIdfMatcher::builder(stats).build()?;
    /// assert!(m.sign("only four words here").is_err());
    /// assert!(m.sign("alpha bravo charlie delta echo foxtrot").is_ok());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sign(&self, doc: &str) -> Result<IMatchSignature, Rejection> {
        let mut terms = Vec::new();
        self.extractor.extract(doc, &mut terms);
        terms.sort_unstable();
        terms.dedup();
        if terms.len() < self.min_unique_terms {
            return Err(Rejection::TooShort {
                unique_terms: terms.len(),
                min: self.min_unique_terms,
            });
        }
        // Highest IDF first = lowest df first (unseen counts as df 1); ties by term.
        let mut ranked: Vec<(u64, u64)> = terms
            .iter()
            .map(|&t| (self.stats.df(t).max(1), t))
            .collect();
        ranked.sort_unstable();
        let mut chosen: Vec<u64> = ranked
            .iter()
            .skip(self.skip)
            .take(self.top)
            .map(|r| r.1)
            .collect();
        if chosen.is_empty() {
            return Err(Rejection::TooFewLexiconTerms { found: 0, min: 1 });
        }
        chosen.sort_unstable();
        let mut bytes = Vec::with_capacity(chosen.len() * 8);
        for t in chosen {
            bytes.extend_from_slice(&t.to_le_bytes());
        }
        let digest: [u8; 20] = Sha1::digest(&bytes).into();
        Ok(IMatchSignature::from_signer(
            self.scheme,
            vec![Some(digest)],
        ))
    }
}

//! [`IMatcher`]: I-Match signatures with the long-document rule and randomized
//! lexicons, the extractor-free [`IMatchSigner`] it composes with a term extractor
//! (a [`TrySketcher`] with per-document [`IMatchState`]), and [`Rejection`], why a
//! document got no signature.

use std::fmt;

use ahash::AHashMap;
use ndd_core::{Composed, Error, FeatureExtractor, FeatureSink, Ingest, SchemeId, TrySketcher};
use ndd_shingle::WordShingler;
use sha1::{Digest as _, Sha1};

use crate::randomize::{MAX_EXTRA_LEXICONS, membership_masks};
use crate::{Digest, IMatchSignature, Lexicon, Randomization, unigram_extractor};

/// Why a document got no I-Match signature (a documented outcome, not an error).
///
/// # Example
///
/// ```
/// use near_dup::imatch::Rejection;
/// let r = Rejection::TooShort { unique_terms: 3, min: 5 };
/// assert_eq!(r.to_string(), "3 unique terms, fewer than the 5 required");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Rejection {
    /// Fewer unique terms than [`min_unique_terms`](IMatcherBuilder::min_unique_terms)
    /// after preparation (Kołcz and Chowdhury, The Journal of Supercomputing 2008, §6.3: messages with fewer than five unique words
    /// are too short).
    TooShort {
        /// `|U|`, the document's unique terms.
        unique_terms: usize,
        /// The minimum required.
        min: usize,
    },
    /// `|S|` (the terms shared with the lexicon, after any extension from the
    /// secondary lexicon) is below [`min_terms`](IMatcherBuilder::min_terms) (§3, step 3).
    TooFewLexiconTerms {
        /// `|S|`.
        found: usize,
        /// The minimum required.
        min: usize,
    },
    /// `|S| / |U|` stays below [`min_coverage`](IMatcherBuilder::min_coverage) even
    /// after adding every secondary-lexicon term the document has (§3, step 5).
    LowCoverage {
        /// `|S|` after the extension.
        found: usize,
        /// `|U|`.
        unique_terms: usize,
        /// The required `|S| / |U|`.
        min_coverage: f64,
    },
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rejection::TooShort { unique_terms, min } => {
                write!(
                    f,
                    "{unique_terms} unique terms, fewer than the {min} required"
                )
            }
            Rejection::TooFewLexiconTerms { found, min } => {
                write!(f, "{found} lexicon terms, fewer than the {min} required")
            }
            Rejection::LowCoverage {
                found,
                unique_terms,
                min_coverage,
            } => write!(
                f,
                "{found} of {unique_terms} unique terms in the lexicons, below the required \
                 fraction {min_coverage}"
            ),
        }
    }
}

impl std::error::Error for Rejection {}

/// Per-document state of an [`IMatchSigner`] (its [`TrySketcher::State`]): the
/// document's terms as the extractor pushes them, and reusable buffers, so that
/// steady-state signing allocates only the signature. Every signing resets it, whether
/// the document is signed or rejected.
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// use near_dup::imatch::{IMatchState, IMatcher, Lexicon};
/// let words = near_dup::imatch::unigram_extractor();
/// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
/// let m = IMatcher::builder(lex).build()?;
/// let mut state = IMatchState::default();
/// let sigs: Vec<_> = ["alpha bravo charlie delta echo", "echo delta charlie bravo alpha"]
///     .iter()
///     .map(|d| m.sign_with(&mut state, d))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(sigs[0], sigs[1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct IMatchState {
    terms: Vec<u64>,
    hits: Vec<(u64, u32)>,
    extra: Vec<(u32, u64, u32)>,
    set: Vec<u64>,
    bytes: Vec<u8>,
}

impl FeatureSink for IMatchState {
    /// Takes one term of the document (repeats allowed, any order).
    #[inline]
    fn push(&mut self, feature: u64) {
        self.terms.push(feature);
    }
}

/// The former name of [`IMatchState`].
///
/// # Example
///
/// ```
/// # #![allow(deprecated)]
/// let _state: near_dup::imatch::Scratch = near_dup::imatch::IMatchState::default();
/// ```
#[deprecated(since = "0.1.1", note = "renamed to `IMatchState`")]
pub type Scratch = IMatchState;

/// Memory of a signer's lexicon table, from [`IMatcher::memory`].
///
/// # Example
///
/// ```
/// let m = near_dup::imatch::LexiconMemory { terms: 10, bytes: 400 };
/// assert_eq!(m.bytes_per_term(), 40.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LexiconMemory {
    /// Terms in the table: the primary lexicon plus the secondary one.
    pub terms: usize,
    /// Bytes allocated for the table (hash-table buckets × (12-byte entry padded to
    /// 16 + 1 control byte)); the `K` randomized lexicons add nothing: membership in
    /// all `K + 1` lexicons is one 32-bit mask per term.
    pub bytes: usize,
}

impl LexiconMemory {
    /// `bytes / terms` (0 for an empty table).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::imatch::LexiconMemory { terms: 0, bytes: 0 }.bytes_per_term(), 0.0);
    /// ```
    #[must_use]
    pub fn bytes_per_term(&self) -> f64 {
        ndd_core::mem::bytes_per(self.bytes as u64, self.terms as u64)
    }
}

/// Computes extended I-Match signatures (A. Kołcz and A. Chowdhury, "Lexicon
/// randomization for near-duplicate detection with I-Match", Journal of
/// Supercomputing 45(3), 2008; after A. Chowdhury, O. Frieder, D. Grossman,
/// M. C. McCabe, "Collection statistics for fast duplicate document detection", ACM
/// TOIS 20(2), 2002; summarized in H. Hajishirzi, W. Yih, A. Kołcz, "Adaptive
/// near-duplicate detection via similarity learning", SIGIR 2010, §2.2).
///
/// For a document with unique terms `U` (after the §6.3 preparation of the
/// extractor) and each lexicon `L_i` (the primary lexicon, `i = 0`, then `K`
/// randomized copies):
///
/// 1. `|U|` below [`min_unique_terms`](IMatcherBuilder::min_unique_terms) →
///    [`Rejection::TooShort`] (§6.3).
/// 2. `S_i = L_i ∩ U` (§3, steps 2–3).
/// 3. If `|S_i| / |U|` is below [`min_coverage`](IMatcherBuilder::min_coverage), add
///    the fewest top-ranked secondary-lexicon terms of `U` that reach it (§3, step 4;
///    the paper's text says "top-ranking terms (L ∩ U)", which from the surrounding
///    text means the secondary lexicon's terms, `B ∩ U`).
/// 4. Coordinate `i` is rejected when `|S_i| / |U|` still falls short or `|S_i|` is
///    below [`min_terms`](IMatcherBuilder::min_terms) (step 5); otherwise it is
///    SHA-1 of the terms of `S_i` (their 64-bit hashes) in increasing order, each as 8
///    little-endian bytes.
///
/// The document is rejected when coordinate 0 is; since every `L_i ⊆ L`, a rejected
/// primary coordinate implies rejected extra ones. The signature is unchanged by word
/// order, repeats, and edits to terms outside every lexicon that keep the number of
/// unique terms (which the coverage rule counts: with `min_coverage` above 0, a
/// document that grows may need more terms from `B`, or be rejected); any edit inside `L`
/// changes coordinate 0, and coordinate `i` survives it with probability `p` (the
/// fraction of `L` left out of `L_i`), so at least one of `K` survives `n` such edits
/// with probability about `1 − (1 − p^n)^K` ([`crate::analysis::stability`], eq. 1).
///
/// An `IMatcher<E>` is the extractor-free [`IMatchSigner`] composed with the term
/// extractor `E` ([`Composed`]); `sign`, `sign_with`, `sign_batch` and
/// `par_sign_batch` are [`Composed::try_sketch`], [`Composed::try_sketch_with`],
/// [`Composed::try_sketch_batch`] and `ndd_core::ParTryDocSketcher::par_try_sketch_batch`
/// under their I-Match names.
///
/// # Example
///
/// ```
/// use near_dup::{stats::DocumentFrequencies, Signature};
/// use near_dup::imatch::{unigram_extractor, IMatcher, Lexicon, Rejection};
///
/// // Collection statistics from a (tiny, synthetic) training corpus.
/// let corpus: Vec<String> = (0..200)
///     .map(|i| format!("alpha{} bravo{} charlie{} delta{} the and", i % 5, i % 7, i % 11, i % 13))
///     .collect();
/// let stats = DocumentFrequencies::from_documents(&unigram_extractor(), corpus.iter().map(String::as_str));
/// let lexicon = Lexicon::builder().build(&stats)?;
/// let imatch = IMatcher::builder(lexicon).extra_lexicons(3).seed(7).min_terms(2).build()?;
///
/// let a = imatch.sign("alpha1 bravo2 charlie3 delta4 unknownword")?;
/// let b = imatch.sign("delta4 charlie3 bravo2 alpha1 otherunknown")?; // reordered, edited outside L
/// assert_eq!(a, b);
/// assert_eq!(a.coordinates().len(), 4);
/// let c = imatch.sign("alpha1 bravo2 charlie3 delta5 unknownword")?; // edited inside L
/// assert_ne!(a.primary(), c.primary());
/// assert!(a.similarity(&c)?.value() < 1.0);
/// assert!(matches!(imatch.sign("too short"), Err(Rejection::TooShort { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct IMatcher<E = WordShingler>(Composed<E, IMatchSigner>);

impl<E> fmt::Debug for IMatcher<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("IMatcher").field(self.signer()).finish()
    }
}

/// The I-Match signer proper, without a text front end: a document's terms in, an
/// [`IMatchSignature`] or a [`Rejection`] out (the rules are [`IMatcher`]'s). It is a
/// [`TrySketcher`] (`State` = [`IMatchState`], `Error` = [`Rejection`]) and takes its
/// terms through [`Ingest`] from an extractor with the lexicon's scheme, so
/// [`Composed`] pairs it with any such extractor (also one chosen at run time, a
/// `Box<dyn DynFeatureExtractor>`). Build it with [`IMatcherBuilder::build_sketcher`];
/// an [`IMatcher`] holds one ([`IMatcher::signer`]).
///
/// # Example
///
/// ```
/// use near_dup::{Composed, FeatureExtractor};
/// use near_dup::imatch::{IMatcher, Lexicon, Rejection};
/// let words = near_dup::imatch::unigram_extractor();
/// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
/// let signer = IMatcher::builder(lex.clone()).build_sketcher()?;
/// let composed = Composed::new(words, signer)?;
/// let named = IMatcher::builder(lex).build()?;
/// let doc = "echo delta charlie bravo alpha";
/// assert_eq!(composed.try_sketch(doc), named.sign(doc));
/// assert!(matches!(composed.try_sketch("too short"), Err(Rejection::TooShort { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct IMatchSigner {
    /// Term → (mask, rank): the bit mask of the lexicons holding it (bit 0 = `L` or
    /// `B`, bit `i` = extra lexicon `i`), and [`PRIMARY`] for a primary-lexicon term or
    /// its rank in the secondary lexicon `B`.
    table: AHashMap<u64, (u32, u32)>,
    width: usize,
    primary_len: usize,
    secondary_len: usize,
    randomization: Randomization,
    min_unique_terms: usize,
    min_terms: usize,
    min_coverage: f64,
    feature_scheme: SchemeId,
    scheme: SchemeId,
}

impl fmt::Debug for IMatchSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IMatchSigner")
            .field("scheme", &self.scheme)
            .field("extra_lexicons", &(self.width - 1))
            .field("randomization", &self.randomization)
            .field("primary_terms", &self.primary_len)
            .field("secondary_terms", &self.secondary_len)
            .field("min_unique_terms", &self.min_unique_terms)
            .field("min_terms", &self.min_terms)
            .field("min_coverage", &self.min_coverage)
            .finish_non_exhaustive()
    }
}

/// The default [`min_unique_terms`](IMatcherBuilder::min_unique_terms): 5 (Kołcz and Chowdhury, The Journal of Supercomputing 2008, §6.3).
///
/// # Example
///
/// ```
/// use near_dup::imatch::{IMatcher, Lexicon, Rejection, DEFAULT_MIN_UNIQUE_TERMS};
/// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
/// let m = IMatcher::builder(lex).build()?;
/// assert_eq!(m.sign("four words only here"), Err(Rejection::TooShort { unique_terms: 4, min: DEFAULT_MIN_UNIQUE_TERMS }));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_MIN_UNIQUE_TERMS: usize = 5;
/// The default [`min_terms`](IMatcherBuilder::min_terms): 3 (see `docs/decisions.md`).
///
/// # Example
///
/// ```
/// use near_dup::imatch::{IMatcher, Lexicon, Rejection, DEFAULT_MIN_TERMS};
/// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1, 2], vec![])?;
/// let m = IMatcher::builder(lex).min_coverage(0.0).build()?;
/// assert_eq!(m.sign_terms(&[1, 2, 7, 8, 9]), Err(Rejection::TooFewLexiconTerms { found: 2, min: DEFAULT_MIN_TERMS }));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_MIN_TERMS: usize = 3;
/// The default [`min_coverage`](IMatcherBuilder::min_coverage): 0.1 (see
/// `docs/decisions.md`).
///
/// # Example
///
/// ```
/// use near_dup::imatch::{IMatcher, Lexicon, Rejection, DEFAULT_MIN_COVERAGE};
/// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
/// let m = IMatcher::builder(lex).build()?;
/// // 3 lexicon terms among 40 unique terms: 0.075 < 0.1, and no secondary lexicon to add from.
/// let doc: Vec<u64> = (1..=3).chain(100..137).collect();
/// assert!(matches!(m.sign_terms(&doc), Err(Rejection::LowCoverage { found: 3, unique_terms: 40, .. })));
/// assert_eq!(DEFAULT_MIN_COVERAGE, 0.1);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_MIN_COVERAGE: f64 = 0.1;

/// Configures an [`IMatcher`]; made by [`IMatcher::builder`].
///
/// # Example
///
/// ```
/// use near_dup::imatch::{IMatcher, Lexicon, Randomization};
/// let lexicon = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
/// let imatch = IMatcher::builder(lexicon)
///     .extra_lexicons(5)
///     .randomization(Randomization::Remove { fraction: 0.33 })
///     .seed(42)
///     .min_unique_terms(5)
///     .min_terms(3)
///     .min_coverage(0.0)
///     .build()?;
/// assert_eq!(imatch.extra_lexicons(), 5);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct IMatcherBuilder<E = WordShingler> {
    lexicon: Lexicon,
    extractor: E,
    extra: usize,
    randomization: Randomization,
    seed: u64,
    min_unique_terms: usize,
    min_terms: usize,
    min_coverage: f64,
}

impl IMatcher<WordShingler> {
    /// A builder over `lexicon` with the defaults: the [`unigram_extractor`], no extra
    /// lexicons (`K = 0`, classic I-Match), [`Randomization::Bootstrap`], seed 0,
    /// [`DEFAULT_MIN_UNIQUE_TERMS`], [`DEFAULT_MIN_TERMS`], [`DEFAULT_MIN_COVERAGE`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert_eq!(IMatcher::builder(lex).build()?.extra_lexicons(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder(lexicon: Lexicon) -> IMatcherBuilder<WordShingler> {
        IMatcherBuilder {
            lexicon,
            extractor: unigram_extractor(),
            extra: 0,
            randomization: Randomization::Bootstrap,
            seed: 0,
            min_unique_terms: DEFAULT_MIN_UNIQUE_TERMS,
            min_terms: DEFAULT_MIN_TERMS,
            min_coverage: DEFAULT_MIN_COVERAGE,
        }
    }
}

impl<E: FeatureExtractor> IMatcherBuilder<E> {
    /// The feature extractor whose terms the lexicon holds. Deprecated: the same as
    /// finishing with [`build_with`](Self::build_with)`(extractor)`, the words of
    /// every sketcher's builder.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// use near_dup::shingle::WordShingler;
    /// use near_dup::FeatureExtractor;
    /// let bigrams = WordShingler::new(2)?;
    /// let lex = Lexicon::from_terms(bigrams.scheme(), vec![1], vec![])?;
    /// #[allow(deprecated)]
    /// let m = IMatcher::builder(lex).extractor(bigrams).build()?;
    /// assert_eq!(m.extractor().k(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "use `build_with(extractor)`")]
    pub fn extractor<E2: FeatureExtractor>(self, extractor: E2) -> IMatcherBuilder<E2> {
        self.replace_extractor(extractor)
    }

    /// The builder with its extractor replaced, every other setting kept.
    fn replace_extractor<E2: FeatureExtractor>(self, extractor: E2) -> IMatcherBuilder<E2> {
        IMatcherBuilder {
            lexicon: self.lexicon,
            extractor,
            extra: self.extra,
            randomization: self.randomization,
            seed: self.seed,
            min_unique_terms: self.min_unique_terms,
            min_terms: self.min_terms,
            min_coverage: self.min_coverage,
        }
    }

    /// `K`, the number of randomized extra lexicons (default 0; at most
    /// [`MAX_EXTRA_LEXICONS`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).extra_lexicons(31).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn extra_lexicons(mut self, k: usize) -> Self {
        self.extra = k;
        self
    }

    /// How the extra lexicons are drawn (default [`Randomization::Bootstrap`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon, Randomization};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let r = Randomization::Remove { fraction: 2.0 };
    /// assert!(IMatcher::builder(lex).randomization(r).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn randomization(mut self, randomization: Randomization) -> Self {
        self.randomization = randomization;
        self
    }

    /// The seed of the randomized lexicons (default 0): the same seed gives the same
    /// lexicons, hence the same signatures, everywhere.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), (1..100).collect(), vec![])?;
    /// let a = IMatcher::builder(lex.clone()).extra_lexicons(2).seed(1).build()?;
    /// let b = IMatcher::builder(lex).extra_lexicons(2).seed(2).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Documents with fewer unique terms get [`Rejection::TooShort`] (default 5, paper
    /// 003 §6.3; at least 1).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).min_unique_terms(0).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn min_unique_terms(mut self, n: usize) -> Self {
        self.min_unique_terms = n;
        self
    }

    /// The smallest `|S|` that gives a signature (default [`DEFAULT_MIN_TERMS`]; at
    /// least 1).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).min_terms(0).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn min_terms(mut self, n: usize) -> Self {
        self.min_terms = n;
        self
    }

    /// The smallest `|S| / |U|` (the long-document rule of Kołcz and Chowdhury (The Journal of Supercomputing 2008, §3); default
    /// [`DEFAULT_MIN_COVERAGE`]; 0 turns the rule off; must lie in `[0, 1]`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex).min_coverage(f64::NAN).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn min_coverage(mut self, fraction: f64) -> Self {
        self.min_coverage = fraction;
        self
    }

    /// The signer: draws the randomized lexicons and builds the term table.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `K` above 30, an invalid randomization, a
    /// minimum of 0, or a coverage outside `[0, 1]`; [`Error::Incompatible`] when the
    /// extractor's scheme differs from the lexicon's; [`Error::InvalidInput`] for a
    /// secondary lexicon of `2^31` terms or more.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1, 2], vec![3])?;
    /// let m = IMatcher::builder(lex).extra_lexicons(2).build()?;
    /// assert_eq!(m.memory().terms, 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build(self) -> Result<IMatcher<E>, Error> {
        self.validate()?;
        Error::check_schemes(self.lexicon.scheme(), self.extractor.scheme())?;
        let signer = self.signer()?;
        Ok(IMatcher(Composed::new(self.extractor, signer)?))
    }

    /// The signer for text through `extractor`, the feature extractor whose terms the
    /// lexicon holds (without it, [`build`](Self::build) uses the
    /// [`unigram_extractor`]); its scheme must equal the lexicon's.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); [`Error::Incompatible`] when `extractor`'s scheme
    /// differs from the lexicon's.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// use near_dup::shingle::WordShingler;
    /// use near_dup::FeatureExtractor;
    /// let bigrams = WordShingler::new(2)?;
    /// let lex = Lexicon::from_terms(bigrams.scheme(), vec![1], vec![])?;
    /// assert!(IMatcher::builder(lex.clone()).build().is_err()); // unigram extractor: mismatch
    /// let m = IMatcher::builder(lex).build_with(bigrams)?;
    /// assert_eq!(m.extractor().k(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_with<E2: FeatureExtractor>(self, extractor: E2) -> Result<IMatcher<E2>, Error> {
        self.replace_extractor(extractor).build()
    }

    /// The signer without the extractor: an [`IMatchSigner`] for the lexicon's
    /// features, to compose with any extractor of that scheme ([`Composed::new`]) or
    /// to feed terms through its [`IMatchState`]. The builder's extractor is not used;
    /// the signatures are those of [`build`](Self::build)'s signer. Unlike the other
    /// sketchers' `build_sketcher(feature_scheme)`, it takes no scheme: the lexicon's
    /// is the features'.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build), without the extractor check.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Ingest, TrySketcher};
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
    /// let signer = IMatcher::builder(lex.clone()).min_unique_terms(3).build_sketcher()?;
    /// let m = IMatcher::builder(lex).min_unique_terms(3).build()?;
    /// assert_eq!(signer.feature_scheme(), near_dup::imatch::unigram_extractor_scheme());
    /// assert_eq!(signer.try_sketch_features([3, 1, 2]), m.sign_terms(&[1, 2, 3]));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_sketcher(self) -> Result<IMatchSigner, Error> {
        self.validate()?;
        self.signer()
    }

    /// The signer without the extractor. Deprecated: renamed to
    /// [`build_sketcher`](Self::build_sketcher), the word every sketcher's builder
    /// uses.
    ///
    /// # Errors
    ///
    /// As [`build_sketcher`](Self::build_sketcher).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::TrySketcher;
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
    /// #[allow(deprecated)]
    /// let old = IMatcher::builder(lex.clone()).build_signer()?;
    /// assert_eq!(old.scheme(), IMatcher::builder(lex).build_sketcher()?.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "renamed to `build_sketcher`")]
    pub fn build_signer(self) -> Result<IMatchSigner, Error> {
        self.build_sketcher()
    }

    /// The parameter checks shared by [`build`](Self::build) and
    /// [`build_sketcher`](Self::build_sketcher).
    fn validate(&self) -> Result<(), Error> {
        if self.extra > MAX_EXTRA_LEXICONS {
            return Err(Error::invalid_parameter(
                "extra_lexicons",
                format!("at most {MAX_EXTRA_LEXICONS}, got {}", self.extra),
            ));
        }
        self.randomization.validate()?;
        if self.min_unique_terms == 0 {
            return Err(Error::invalid_parameter(
                "min_unique_terms",
                "must be at least 1",
            ));
        }
        if self.min_terms == 0 {
            return Err(Error::invalid_parameter("min_terms", "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&self.min_coverage) {
            return Err(Error::invalid_parameter(
                "min_coverage",
                format!("must lie in [0, 1], got {}", self.min_coverage),
            ));
        }
        Ok(())
    }

    /// Draws the randomized lexicons and builds the term table (parameters already
    /// validated).
    fn signer(&self) -> Result<IMatchSigner, Error> {
        let lex = &self.lexicon;
        if lex.secondary().len() >= 1 << 31 {
            return Err(Error::invalid_input(
                "the secondary lexicon has 2^31 terms or more",
            ));
        }
        // Kołcz and Chowdhury (The Journal of Supercomputing 2008, §4): with a secondary lexicon, the randomization samples both `L`
        // and `B`; `B`'s draws come from a seed of their own, so `L`'s stay those of a
        // signer without `B`.
        let masks = membership_masks(lex.len(), self.extra, self.randomization, self.seed);
        let secondary_masks = membership_masks(
            lex.secondary().len(),
            self.extra,
            self.randomization,
            self.seed ^ SECONDARY_SEED,
        );
        let mut table = AHashMap::with_capacity(lex.len() + lex.secondary().len());
        for (&t, &m) in lex.primary().iter().zip(&masks) {
            table.insert(t, (m, PRIMARY));
        }
        for (rank, (&t, &m)) in lex.secondary().iter().zip(&secondary_masks).enumerate() {
            // Fewer than 2^31 secondary terms (checked above): the rank fits.
            table.insert(t, (m, u32::try_from(rank).unwrap_or(PRIMARY - 1)));
        }
        let (rk, rp) = self.randomization.scheme_code();
        // The lexicon's scheme is the extractor's (checked by `build`; `build_sketcher`
        // has no extractor and takes the lexicon's word for it).
        let scheme = SchemeId::new("imatch")
            .with(1) // signature layout: SHA-1 of sorted LE u64 term hashes
            .with_scheme(lex.scheme())
            .with(lex.fingerprint())
            .with(self.extra as u64)
            .with(if self.extra == 0 { 0 } else { rk })
            .with(if self.extra == 0 { 0 } else { rp })
            .with(if self.extra == 0 { 0 } else { self.seed })
            .with(self.min_unique_terms as u64)
            .with(self.min_terms as u64)
            .with_f64(self.min_coverage)
            .finish();
        Ok(IMatchSigner {
            table,
            width: self.extra + 1,
            primary_len: lex.len(),
            secondary_len: lex.secondary().len(),
            randomization: self.randomization,
            min_unique_terms: self.min_unique_terms,
            min_terms: self.min_terms,
            min_coverage: self.min_coverage,
            feature_scheme: lex.scheme(),
            scheme,
        })
    }
}

/// The rank of a primary-lexicon term in the signer's table.
const PRIMARY: u32 = u32::MAX;

/// Mixed into the seed for the draws of the secondary lexicon's samples.
const SECONDARY_SEED: u64 = 0x5345_434F_4E44_4152; // "SECONDAR"

/// SHA-1 of `terms` (ascending), each as 8 little-endian bytes.
fn digest_of(terms: impl Iterator<Item = u64>, bytes: &mut Vec<u8>) -> Digest {
    bytes.clear();
    for t in terms {
        bytes.extend_from_slice(&t.to_le_bytes());
    }
    Sha1::digest(bytes.as_slice()).into()
}

/// The smallest `k` with `k / n >= fraction` (exact in integers where `fraction·n`
/// rounds up by floating-point error).
fn needed(fraction: f64, n: usize) -> usize {
    if fraction <= 0.0 {
        return 0;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mut k = (fraction * n as f64).ceil() as usize;
    while k > 0 && (k - 1) as f64 / n as f64 >= fraction {
        k -= 1;
    }
    k
}

impl IMatchSigner {
    /// The scheme stamped on every signature: the extractor, the lexicon's
    /// [`fingerprint`](Lexicon::fingerprint), `K`, the randomization and seed, and the
    /// three thresholds.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let m = IMatcher::builder(lex.clone()).build()?;
    /// assert_eq!(IMatcher::builder(lex).build_sketcher()?.scheme(), m.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// `K`, the number of randomized extra lexicons.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert_eq!(IMatcher::builder(lex).extra_lexicons(4).build_sketcher()?.extra_lexicons(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn extra_lexicons(&self) -> usize {
        self.width - 1
    }

    /// Memory of the term table (primary + secondary terms, one entry each, whatever
    /// `K`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), (1..=100).collect(), vec![])?;
    /// assert_eq!(IMatcher::builder(lex).build_sketcher()?.memory().terms, 100);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> LexiconMemory {
        let cap = self.table.capacity();
        let buckets = if cap == 0 {
            0
        } else {
            (cap.saturating_mul(8) / 7).next_power_of_two()
        };
        LexiconMemory {
            terms: self.table.len(),
            bytes: buckets * (size_of::<(u64, (u32, u32))>() + 1),
        }
    }

    /// Signs the terms in `s` into `out`, or rejects them (`out` untouched then).
    /// Leaves the terms sorted and deduplicated; the caller resets.
    fn finish(&self, s: &mut IMatchState, out: &mut IMatchSignature) -> Result<(), Rejection> {
        s.terms.sort_unstable();
        s.terms.dedup();
        let unique = s.terms.len();
        if unique < self.min_unique_terms {
            return Err(Rejection::TooShort {
                unique_terms: unique,
                min: self.min_unique_terms,
            });
        }
        s.hits.clear();
        s.extra.clear();
        for &t in &s.terms {
            if let Some(&(mask, rank)) = self.table.get(&t) {
                if rank == PRIMARY {
                    s.hits.push((t, mask));
                } else {
                    s.extra.push((rank, t, mask));
                }
            }
        }
        let need = needed(self.min_coverage, unique);
        let mut extra_sorted = false;
        // A rejected primary coordinate rejects the document (before `out` is touched).
        let primary = self.coordinate(s, 0, unique, need, &mut extra_sorted)?;
        if out.coords.len() != self.width {
            out.coords = vec![None; self.width].into_boxed_slice();
        }
        out.scheme = self.scheme;
        for (i, c) in out.coords.iter_mut().enumerate() {
            *c = if i == 0 {
                Some(primary)
            } else {
                self.coordinate(s, i, unique, need, &mut extra_sorted).ok()
            };
        }
        Ok(())
    }

    /// Coordinate `i` (lexicon `L_i`) of a document with `unique` terms, whose hits in
    /// the table are in `s.hits` and `s.extra`; `need` terms reach the coverage.
    fn coordinate(
        &self,
        s: &mut IMatchState,
        i: usize,
        unique: usize,
        need: usize,
        extra_sorted: &mut bool,
    ) -> Result<Digest, Rejection> {
        let bit = 1u32 << i;
        let found = s.hits.iter().filter(|h| h.1 & bit != 0).count();
        if found >= need {
            return if found < self.min_terms {
                Err(Rejection::TooFewLexiconTerms {
                    found,
                    min: self.min_terms,
                })
            } else {
                Ok(digest_of(
                    s.hits.iter().filter(|h| h.1 & bit != 0).map(|h| h.0),
                    &mut s.bytes,
                ))
            };
        }
        // The top-ranked terms of this coordinate's sample of `B`.
        let available = s.extra.iter().filter(|e| e.2 & bit != 0).count();
        let take = (need - found).min(available);
        if found + take < need {
            Err(Rejection::LowCoverage {
                found: found + take,
                unique_terms: unique,
                min_coverage: self.min_coverage,
            })
        } else if found + take < self.min_terms {
            Err(Rejection::TooFewLexiconTerms {
                found: found + take,
                min: self.min_terms,
            })
        } else {
            if !*extra_sorted {
                s.extra.sort_unstable();
                *extra_sorted = true;
            }
            s.set.clear();
            s.set
                .extend(s.hits.iter().filter(|h| h.1 & bit != 0).map(|h| h.0));
            s.set.extend(
                s.extra
                    .iter()
                    .filter(|e| e.2 & bit != 0)
                    .take(take)
                    .map(|e| e.1),
            );
            s.set.sort_unstable();
            Ok(digest_of(s.set.iter().copied(), &mut s.bytes))
        }
    }
}

/// The I-Match rules as a fallible sketcher: the document's terms are pushed into an
/// [`IMatchState`]; [`try_finish_into`](TrySketcher::try_finish_into) signs them or
/// gives the [`Rejection`], and resets the state either way.
impl TrySketcher for IMatchSigner {
    type Signature = IMatchSignature;
    type State = IMatchState;
    type Error = Rejection;

    #[inline]
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    #[inline]
    fn new_state(&self) -> IMatchState {
        IMatchState::default()
    }

    /// A signature of `K + 1` absent coordinates under this signer's scheme.
    fn new_signature(&self) -> IMatchSignature {
        IMatchSignature::from_signer(self.scheme, vec![None; self.width])
    }

    /// # Errors
    ///
    /// [`Rejection::TooShort`], [`Rejection::TooFewLexiconTerms`] or
    /// [`Rejection::LowCoverage`] when the primary coordinate is rejected (the rules
    /// on [`IMatcher`]); `out` is unchanged then.
    fn try_finish_into(
        &self,
        state: &mut IMatchState,
        out: &mut IMatchSignature,
    ) -> Result<(), Rejection> {
        let result = self.finish(state, out);
        state.terms.clear();
        state.hits.clear();
        state.extra.clear();
        result
    }
}

/// Terms come from an extractor whose scheme is the lexicon's.
impl Ingest<IMatchState> for IMatchSigner {
    #[inline]
    fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }
}

impl<E> IMatcher<E> {
    /// The scheme stamped on every signature: the extractor, the lexicon's
    /// [`fingerprint`](Lexicon::fingerprint), `K`, the randomization and seed, and the
    /// three thresholds.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let a = IMatcher::builder(lex.clone()).build()?;
    /// let b = IMatcher::builder(lex).min_terms(4).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        self.signer().scheme
    }

    /// `K`, the number of randomized extra lexicons.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// assert_eq!(IMatcher::builder(lex).extra_lexicons(4).build()?.extra_lexicons(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn extra_lexicons(&self) -> usize {
        self.signer().extra_lexicons()
    }

    /// The extractor that turns text into terms.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// assert_eq!(m.extractor().scheme(), near_dup::imatch::unigram_extractor_scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn extractor(&self) -> &E {
        self.0.extractor()
    }

    /// The signer without the extractor.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let m = IMatcher::builder(lex).extra_lexicons(2).build()?;
    /// assert_eq!(m.signer().extra_lexicons(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn signer(&self) -> &IMatchSigner {
        self.0.sketcher()
    }

    /// The extractor and the signer as one [`Composed`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// assert_eq!(m.as_composed().try_sketch("short"), m.sign("short"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn as_composed(&self) -> &Composed<E, IMatchSigner> {
        &self.0
    }

    /// Memory of the term table (primary + secondary terms, one entry each, whatever
    /// `K`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), (1..=1000).collect(), vec![])?;
    /// let m = IMatcher::builder(lex).extra_lexicons(10).build()?.memory();
    /// assert_eq!(m.terms, 1000);
    /// assert!(m.bytes_per_term() >= 17.0 && m.bytes_per_term() <= 40.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> LexiconMemory {
        self.signer().memory()
    }

    /// The signature of a document given as its terms (feature hashes of this
    /// signer's extractor, in any order, repeats allowed).
    ///
    /// # Errors
    ///
    /// As [`sign`](Self::sign).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1, 2, 3], vec![])?;
    /// let m = IMatcher::builder(lex).min_unique_terms(3).build()?;
    /// assert_eq!(m.sign_terms(&[3, 2, 1, 1])?, m.sign_terms(&[1, 2, 3])?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sign_terms(&self, terms: &[u64]) -> Result<IMatchSignature, Rejection> {
        self.signer().try_sketch_features(terms.iter().copied())
    }
}

impl<E: FeatureExtractor> IMatcher<E> {
    /// The extended signature of `doc`, or why there is none
    /// ([`Composed::try_sketch`]).
    ///
    /// # Errors
    ///
    /// A [`Rejection`] (a documented outcome for short or poorly covered documents,
    /// not a failure).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon, Rejection};
    /// use near_dup::FeatureExtractor;
    /// let words = near_dup::imatch::unigram_extractor();
    /// let terms = words.features("lexicon terms matter here always");
    /// let lex = Lexicon::from_terms(words.scheme(), terms, vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// assert!(m.sign("Always matter here, lexicon terms!").is_ok());
    /// assert!(matches!(m.sign(""), Err(Rejection::TooShort { unique_terms: 0, min: 5 })));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sign(&self, doc: &str) -> Result<IMatchSignature, Rejection> {
        self.0.try_sketch(doc)
    }

    /// [`sign`](Self::sign) with a caller-owned state ([`Composed::try_sketch_with`]
    /// into a new signature); the state is reset whether `doc` is signed or rejected.
    ///
    /// # Errors
    ///
    /// As [`sign`](Self::sign).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatchState, IMatcher, Lexicon};
    /// use near_dup::FeatureExtractor;
    /// let words = near_dup::imatch::unigram_extractor();
    /// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// let mut state = IMatchState::default();
    /// let a = m.sign_with(&mut state, "alpha bravo charlie delta echo")?;
    /// assert!(m.sign_with(&mut state, "too short").is_err());
    /// let b = m.sign_with(&mut state, "echo delta charlie bravo alpha alpha")?;
    /// assert_eq!(a, b);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sign_with(
        &self,
        state: &mut IMatchState,
        doc: &str,
    ) -> Result<IMatchSignature, Rejection> {
        let mut out = self.signer().new_signature();
        self.0.try_sketch_with(state, doc, &mut out)?;
        Ok(out)
    }

    /// The signatures of many documents, one state reused
    /// ([`Composed::try_sketch_batch`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// use near_dup::FeatureExtractor;
    /// let words = near_dup::imatch::unigram_extractor();
    /// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
    /// let m = IMatcher::builder(lex).build()?;
    /// let out = m.sign_batch(&["alpha bravo charlie delta echo", "nope"]);
    /// assert!(out[0].is_ok() && out[1].is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sign_batch<D: AsRef<str>>(&self, docs: &[D]) -> Vec<Result<IMatchSignature, Rejection>> {
        self.0.try_sketch_batch(docs)
    }
}

#[cfg(feature = "rayon")]
impl<E: FeatureExtractor + Sync> IMatcher<E> {
    /// The signatures of many documents, signed in parallel on rayon's pool
    /// (`ndd_core::ParTryDocSketcher::par_try_sketch_batch`: one [`IMatchState`] per
    /// worker task, reused across its documents). Same results, in the same order, as
    /// [`sign_batch`](Self::sign_batch).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::{IMatcher, Lexicon};
    /// use near_dup::FeatureExtractor;
    /// let words = near_dup::imatch::unigram_extractor();
    /// let lex = Lexicon::from_terms(words.scheme(), words.features("alpha bravo charlie delta echo"), vec![])?;
    /// let m = IMatcher::builder(lex).extra_lexicons(2).build()?;
    /// let docs = ["alpha bravo charlie delta echo", "echo delta charlie bravo alpha", "nope"];
    /// assert_eq!(m.par_sign_batch(&docs), m.sign_batch(&docs));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn par_sign_batch<D: AsRef<str> + Sync>(
        &self,
        docs: &[D],
    ) -> Vec<Result<IMatchSignature, Rejection>> {
        use ndd_core::ParTryDocSketcher as _;
        self.0.par_try_sketch_batch(docs)
    }
}

/// Forwarded to its [`IMatchSigner`]: an `IMatcher` is a fallible sketcher of terms
/// too (push its extractor's terms into the state).
impl<E> TrySketcher for IMatcher<E> {
    type Signature = IMatchSignature;
    type State = IMatchState;
    type Error = Rejection;

    #[inline]
    fn scheme(&self) -> SchemeId {
        self.signer().scheme
    }
    #[inline]
    fn new_state(&self) -> IMatchState {
        self.signer().new_state()
    }
    #[inline]
    fn new_signature(&self) -> IMatchSignature {
        self.signer().new_signature()
    }
    /// # Errors
    ///
    /// As [`IMatchSigner`]'s.
    #[inline]
    fn try_finish_into(
        &self,
        state: &mut IMatchState,
        out: &mut IMatchSignature,
    ) -> Result<(), Rejection> {
        self.signer().try_finish_into(state, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needed_is_the_exact_ceiling() {
        assert_eq!(needed(0.1, 30), 3); // 0.1·30 = 3.0000000000000004 in f64
        assert_eq!(needed(0.2, 10), 2);
        assert_eq!(needed(0.25, 10), 3);
        assert_eq!(needed(0.0, 10), 0);
        assert_eq!(needed(1.0, 7), 7);
        for n in 1..200usize {
            for k in 0..=n {
                let f = k as f64 / n as f64;
                assert_eq!(needed(f, n), k, "{k}/{n}");
            }
        }
    }
}

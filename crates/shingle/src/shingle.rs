//! Word and character k-gram shingles, hashed in one pass.

use ndd_core::hash::{KGRAM_BASE, KGramRoller, mix64};
use ndd_core::{
    Error, FeatureExtractor, FeatureSink, SchemeBuilder, SchemeId, SparseVector, Weighted,
};

use crate::builders::default_from_builder;
use crate::roller::{Roll, SmallRoller};
use crate::token::{TokenFilter, WordScanner, ascii_lowercase_word, hash_token, hash_token_nfkc};
use crate::xxh3_short::ShortXxh3;

/// Which shingles of a document are kept as features.
///
/// # Example
///
/// ```
/// use near_dup::shingle::{Selection, WordShingler};
/// let doc = "one two three four five six seven eight nine ten eleven twelve";
/// let all = WordShingler::builder().k(3).build()?.features(doc).len();
/// let every5 = WordShingler::builder().k(3).selection(Selection::EveryNth(5)).build()?;
/// assert_eq!(all, 10);
/// assert_eq!(every5.features(doc).len(), 2); // shingles 0 and 5
/// # use near_dup::FeatureExtractor;
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selection {
    /// Every shingle ("full fingerprinting").
    #[default]
    All,
    /// Broder's sampling: keep shingles whose hash is `0 mod m` (A. Z. Broder,
    /// S. C. Glassman, M. S. Manasse, G. Zweig, "Syntactic clustering of the Web",
    /// WWW 1997). Content-defined, so an edit only changes the sample near it; keeps
    /// about `1/m` of the shingles.
    ModM(u64),
    /// Every `s`-th overlapping shingle by position (0, s, 2s, …): the DSC variant of
    /// Yang and Callan's comparison (H. Yang, J. Callan, "Near-Duplicate Detection by
    /// Instance-level Constrained Clustering", SIGIR 2006, section 6.3, with `s = 5`).
    /// Position-based, so an insertion shifts every later sample.
    EveryNth(u64),
}

impl Selection {
    fn validate(self) -> Result<Self, Error> {
        match self {
            Selection::ModM(0) => Err(Error::invalid_parameter(
                "selection",
                "mod-m sampling needs m >= 1",
            )),
            Selection::EveryNth(0) => Err(Error::invalid_parameter(
                "selection",
                "every-nth sampling needs s >= 1",
            )),
            s => Ok(s),
        }
    }

    fn scheme_code(self) -> (u64, u64) {
        match self {
            Selection::All => (0, 0),
            Selection::ModM(m) => (1, m),
            Selection::EveryNth(s) => (2, s),
        }
    }
}

/// What a document with fewer than `k` tokens (or characters) produces.
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// use near_dup::shingle::{ShortDocs, WordShingler};
/// let whole = WordShingler::builder().k(5).build()?;
/// let skip = WordShingler::builder().k(5).short_docs(ShortDocs::Skip).build()?;
/// assert_eq!(whole.features("just three words").len(), 1);
/// assert_eq!(skip.features("just three words").len(), 0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShortDocs {
    /// One shingle made of all its tokens (the hash of the partial window), so short
    /// documents still compare: two identical three-word titles have Jaccard 1. The
    /// default, as in datasketch, gaoya and rensa's usual 5-gram setups.
    #[default]
    WholeDocument,
    /// No shingle: exactly `max(0, n − k + 1)` shingles for `n` tokens.
    Skip,
}

/// How a word k-gram is turned into a 64-bit feature.
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// use near_dup::shingle::{ShingleHash, WordShingler};
/// let rabin = WordShingler::builder().k(2).hash(ShingleHash::Rabin).build()?;
/// let fp = near_dup::shingle::rabin::RabinFingerprinter::default();
/// assert_eq!(rabin.features("Jack London"), vec![fp.fingerprint(b"jack london")]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShingleHash {
    /// The rolling combination of token hashes ([`ndd_core::hash`]): O(1) per
    /// position. The default, and the fastest.
    #[default]
    Rolling,
    /// The 64-bit Rabin fingerprint of the k-gram's text (case-folded tokens joined by
    /// single spaces), Broder's original shingle (Hajishirzi, Yih and Kołcz (SIGIR 2010, section 2.1) and Gambosi's slides).
    /// O(k) per position; use it to match fingerprints computed by other Rabin-based
    /// tools.
    Rabin,
}

/// Words per shingle when none is given: 3, the `ndd` tool's default and the one
/// every convenience constructor uses (`WordShingler::default()`,
/// `MinHasher::new`, `SimHasher::new`, the pipeline's `Shingles::default()`). On
/// labeled sets generated from three real sources, with hard negatives, word 3-grams
/// beat 5-grams for MinHash and SimHash in every cell (`docs/decisions.md`,
/// "Defaults measured on generated labeled sets").
///
/// # Example
///
/// ```
/// use near_dup::shingle::{DEFAULT_WORD_K, WordShingler};
/// assert_eq!(DEFAULT_WORD_K, 3);
/// assert_eq!(WordShingler::default(), WordShingler::new(3)?);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_WORD_K: usize = 3;

/// Word k-gram shingles: the document as the set (or multiset) of its hashed
/// sequences of `k` consecutive words (A. Z. Broder, "On the resemblance and
/// containment of documents", 1997; Gambosi's near-duplicate detection slides (after Manning and Schütze): "a shingle is just a word k-gram").
///
/// Tokens come from [`WordTokenizer`](crate::WordTokenizer), optionally filtered by a [`TokenFilter`],
/// case-folded (on by default) and hashed with [`hash_token`]; the
/// window of `k` token hashes is combined in O(1) per position. Nothing is allocated
/// per token or per shingle.
///
/// Defaults: `k = 3` ([`DEFAULT_WORD_K`]), seed 0, case folding on, every shingle kept, short documents
/// give one shingle.
///
/// # Example
///
/// ```
/// use near_dup::{jaccard, FeatureExtractor};
/// use near_dup::shingle::WordShingler;
/// let bigrams = WordShingler::new(2)?;
/// let d1 = bigrams.feature_set("Jack London traveled to Oakland");
/// let d2 = bigrams.feature_set("Jack London traveled to the city of Oakland");
/// assert_eq!(jaccard(d1.as_slice(), d2.as_slice()), 3.0 / 8.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordShingler {
    /// The parameters it was built from, checked.
    settings: WordShinglerBuilder,
    scheme: SchemeId,
}

default_from_builder!(WordShingler, WordShinglerBuilder);

impl WordShingler {
    /// Word `k`-grams with the other parameters at their defaults.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `k` is 0 or above
    /// [`MAX_KGRAM_LEN`](ndd_core::hash::MAX_KGRAM_LEN) (1,024).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::shingle::WordShingler::new(0).is_err());
    /// assert_eq!(near_dup::shingle::WordShingler::new(3)?.k(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(k: usize) -> Result<Self, Error> {
        Self::builder().k(k).build()
    }

    /// A builder with the defaults.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::{TokenFilter, WordShingler};
    /// let s = WordShingler::builder().k(3).seed(7).fold_case(false).filter(TokenFilter::imatch()).build()?;
    /// assert_eq!((s.k(), s.seed()), (3, 7));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder() -> WordShinglerBuilder {
        WordShinglerBuilder::default()
    }

    /// The number of words per shingle.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::WordShingler::default().k(), 3);
    /// ```
    #[must_use]
    pub fn k(&self) -> usize {
        self.settings.k
    }

    /// The seed of the token hash.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::WordShingler::default().seed(), 0);
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.settings.seed
    }

    /// The shingles of `doc` as a multiset: distinct hashes with their counts, sorted by
    /// hash, as a term-frequency [`SparseVector`].
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::WordShingler::new(1)?;
    /// let tf = s.counts("to be or not to be");
    /// assert_eq!(tf.len(), 4);
    /// assert_eq!(tf.entries().iter().map(|w| w.weight).sum::<f64>(), 6.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn counts(&self, doc: &str) -> SparseVector {
        counts_of(self, doc)
    }

    #[inline]
    fn for_each_shingle<F: FnMut(u64)>(&self, doc: &str, mut emit: F) {
        match self.settings.hash {
            ShingleHash::Rolling => {
                let small = self.settings.k <= SmallRoller::MAX_K;
                if small
                    && self.settings.selection == Selection::All
                    && self.settings.filter.is_none()
                {
                    // The default configuration, with nothing to test per token.
                    self.rolling_shingles::<_, _, false>(
                        doc,
                        SmallRoller::new(self.settings.k),
                        &mut emit,
                    );
                } else if small {
                    let mut select = selector(self.settings.selection, &mut emit);
                    self.rolling_shingles::<_, _, true>(
                        doc,
                        SmallRoller::new(self.settings.k),
                        &mut select,
                    );
                } else if let Ok(roller) = KGramRoller::new(self.settings.k) {
                    let mut select = selector(self.settings.selection, &mut emit);
                    self.rolling_shingles::<_, _, true>(doc, roller, &mut select);
                }
            }
            ShingleHash::Rabin => {
                let mut select = selector(self.settings.selection, &mut emit);
                crate::rabin_shingles::for_each_rabin_shingle(self, doc, &mut select);
            }
        }
    }

    /// The rolling k-gram hashes of the token hashes `hash_token(token, fold_case,
    /// seed)`, with the token filter applied when `FILTER`. Short ASCII tokens are
    /// hashed straight from the scanner's registers by [`ShortXxh3`] (the same XXH3
    /// value); the others go through [`hash_token`].
    #[inline(always)]
    fn rolling_shingles<R: Roll, F: FnMut(u64), const FILTER: bool>(
        &self,
        doc: &str,
        mut roller: R,
        emit: &mut F,
    ) {
        let filter = self.settings.filter;
        let (fold, nfkc, seed) = (
            self.settings.fold_case,
            self.settings.nfkc,
            self.settings.seed,
        );
        let short = ShortXxh3::new(seed);
        let mut scanner = WordScanner::new(doc);
        while let Some(t) = scanner.next_token() {
            if FILTER && !filter.is_none() && !filter.keeps(&doc[t.start..t.end]) {
                continue;
            }
            let h = if t.short_ascii {
                let len = t.end - t.start;
                if fold {
                    short.hash(ascii_lowercase_word(t.lo), ascii_lowercase_word(t.hi), len)
                } else {
                    short.hash(t.lo, t.hi, len)
                }
            } else if nfkc {
                hash_token_nfkc(&doc[t.start..t.end], fold, true, seed)
            } else {
                hash_token(&doc[t.start..t.end], fold, seed)
            };
            if let Some(g) = roller.push(h) {
                emit(g);
            }
        }
        if self.settings.short_docs == ShortDocs::WholeDocument {
            if let Some(g) = roller.partial() {
                emit(g);
            }
        }
    }

    pub(crate) fn rabin_params(&self) -> (usize, bool, bool, TokenFilter, bool) {
        (
            self.settings.k,
            self.settings.fold_case,
            self.settings.nfkc,
            self.settings.filter,
            self.settings.short_docs == ShortDocs::WholeDocument,
        )
    }
}

/// Applies a [`Selection`] to a stream of shingles (numbered from 0) before `emit`.
#[inline(always)]
fn selector<F: FnMut(u64)>(selection: Selection, emit: &mut F) -> impl FnMut(u64) + '_ {
    let mut position = 0u64;
    move |g: u64| {
        let keep = match selection {
            Selection::All => true,
            Selection::ModM(m) => g % m == 0,
            Selection::EveryNth(s) => position % s == 0,
        };
        position += 1;
        if keep {
            emit(g);
        }
    }
}

fn counts_of<E: FeatureExtractor>(e: &E, doc: &str) -> SparseVector {
    // Each occurrence weighs 1; `from_unsorted` sorts once and sums repeats.
    let mut occurrences: Vec<Weighted> = Vec::new();
    e.extract(doc, &mut occurrences);
    SparseVector::from_unsorted(occurrences)
}

impl FeatureExtractor for WordShingler {
    #[inline]
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        self.for_each_shingle(doc, |g| sink.push(g));
    }

    fn scheme(&self) -> SchemeId {
        self.scheme
    }
}

/// Builds a [`WordShingler`]; every setter consumes and returns the builder.
///
/// # Example
///
/// ```
/// let s = near_dup::shingle::WordShinglerBuilder::default().k(4).build()?;
/// assert_eq!(s.k(), 4);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct WordShinglerBuilder {
    k: usize,
    seed: u64,
    fold_case: bool,
    nfkc: bool,
    filter: TokenFilter,
    selection: Selection,
    short_docs: ShortDocs,
    hash: ShingleHash,
}

impl Default for WordShinglerBuilder {
    fn default() -> Self {
        WordShinglerBuilder {
            k: DEFAULT_WORD_K,
            seed: 0,
            fold_case: true,
            nfkc: false,
            filter: TokenFilter::none(),
            selection: Selection::All,
            short_docs: ShortDocs::WholeDocument,
            hash: ShingleHash::Rolling,
        }
    }
}

impl WordShinglerBuilder {
    /// Words per shingle (default [`DEFAULT_WORD_K`] = 3). Larger `k` makes shingles
    /// rarer and more specific: an edit changes up to `k` shingles, and unrelated
    /// documents share fewer of them. 3 measured best for near-duplicate detection
    /// of web text (`docs/decisions.md`); 5 is Broder's choice for English prose.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::shingle::WordShingler::builder().k(0).build().is_err());
    /// ```
    pub fn k(mut self, k: usize) -> Self {
        self.k = k;
        self
    }

    /// Seed of the token hash (default 0). Different seeds give unrelated feature
    /// values; signatures built with different seeds do not compare.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let a = near_dup::shingle::WordShingler::builder().seed(1).build()?;
    /// let b = near_dup::shingle::WordShingler::builder().seed(2).build()?;
    /// assert_ne!(a.features("x"), b.features("x"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Whether tokens are lowercased before hashing (default true).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let s = near_dup::shingle::WordShingler::builder().k(1).fold_case(false).build()?;
    /// assert_ne!(s.features("Word"), s.features("word"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn fold_case(mut self, fold: bool) -> Self {
        self.fold_case = fold;
        self
    }

    /// Normalizes each token to Unicode NFKC before case folding and hashing (default
    /// off). Compatibility forms then agree with their plain forms: full-width
    /// `ＡＢＣ` with `ABC`, the ligature `ﬁ` with `fi`, `²` with `2`, so copies that
    /// differ only in such forms stay near-duplicates.
    ///
    /// Tokens are found in the original text (offsets stay valid) and normalized one
    /// by one: a compatibility character that the tokenizer splits on still splits
    /// (superscript `²` is a symbol to it, so `x²` is the token `x`, not `x2`), and one
    /// that normalizes to punctuation or a space stays inside its token. A token already in NFKC (every ASCII token) is hashed
    /// as without the option, without allocating. Turning it on changes the
    /// extractor's [`SchemeId`], so signatures built with and without it refuse to
    /// compare; with it off, values are exactly those of earlier versions.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let plain = near_dup::shingle::WordShingler::builder().k(1).build()?;
    /// let nfkc = near_dup::shingle::WordShingler::builder().k(1).nfkc(true).build()?;
    /// assert_ne!(plain.features("ＡＢＣ ﬁle"), plain.features("ABC file"));
    /// assert_eq!(nfkc.features("ＡＢＣ ﬁle"), nfkc.features("ABC file"));
    /// assert_ne!(plain.scheme(), nfkc.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[cfg(feature = "nfkc")]
    pub fn nfkc(mut self, nfkc: bool) -> Self {
        self.nfkc = nfkc;
        self
    }

    /// Which tokens take part (default: all).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let s = near_dup::shingle::WordShingler::builder().k(1)
    ///     .filter(near_dup::shingle::TokenFilter::imatch()).build()?;
    /// assert_eq!(s.features("the lexicon of 2004 words").len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn filter(mut self, filter: TokenFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Which shingles are kept (default: all).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::WordShingler::builder().selection(near_dup::shingle::Selection::ModM(0)).build();
    /// assert!(s.is_err());
    /// ```
    pub fn selection(mut self, selection: Selection) -> Self {
        self.selection = selection;
        self
    }

    /// What documents shorter than `k` words produce (default: one shingle).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let s = near_dup::shingle::WordShingler::builder().short_docs(near_dup::shingle::ShortDocs::Skip).build()?;
    /// assert!(s.features("too short").is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn short_docs(mut self, policy: ShortDocs) -> Self {
        self.short_docs = policy;
        self
    }

    /// How k-grams are hashed (default: rolling token-hash combination).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::WordShingler::builder().hash(near_dup::shingle::ShingleHash::Rabin).build()?;
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn hash(mut self, hash: ShingleHash) -> Self {
        self.hash = hash;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `k` is 0 or above
    /// [`MAX_KGRAM_LEN`](ndd_core::hash::MAX_KGRAM_LEN) (1,024), or a selection
    /// parameter is 0.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::shingle::WordShingler::builder().k(5).build().is_ok());
    /// ```
    pub fn build(self) -> Result<WordShingler, Error> {
        ndd_core::hash::check_kgram_len(self.k)?;
        let (sel_kind, sel_arg) = self.selection.validate()?.scheme_code();
        let scheme = SchemeId::new("word-shingles")
            .with(1) // tokenizer and token-hash version
            .with(self.k as u64)
            .with(self.seed)
            .with(u64::from(self.fold_case))
            .with(self.filter.min_chars as u64)
            .with(self.filter.max_digits.map_or(u64::MAX, |d| d as u64))
            .with(sel_kind)
            .with(sel_arg)
            .with(u64::from(self.short_docs == ShortDocs::WholeDocument))
            .with(u64::from(self.hash == ShingleHash::Rabin));
        // Appended only when on, so every scheme without NFKC is unchanged.
        let scheme = if self.nfkc {
            scheme.with(NFKC_SCHEME_TAG)
        } else {
            scheme
        }
        .finish();
        Ok(WordShingler {
            settings: self,
            scheme,
        })
    }
}

/// Appended to a shingler's scheme when NFKC is on ("NFKC" in ASCII).
const NFKC_SCHEME_TAG: u64 = 0x4E46_4B43;

/// Character k-gram shingles: the path for text without spaces between words
/// (Chinese, Japanese, Thai) and for noisy text where words are unreliable.
///
/// The text is read as Unicode scalar values; with `fold_case` (default on) letters
/// are lowercased, and with `collapse_whitespace` (default on) every run of
/// whitespace counts as one space, so re-wrapped text keeps its shingles. Each
/// character's hash is `fmix64(code_point + seed·φ)` (φ = `0x9E37_79B9_7F4A_7C15`),
/// combined over the window by the rolling k-gram hash of [`ndd_core::hash`].
///
/// # Example
///
/// ```
/// use near_dup::{jaccard, FeatureExtractor};
/// use near_dup::shingle::CharShingler;
/// let s = CharShingler::new(2)?;
/// let a = s.feature_set("近似重复检测");
/// let b = s.feature_set("近似重复的检测");
/// // 5 and 6 bigrams; 4 shared (近似 似重 重复 检测), 7 distinct in all.
/// assert_eq!(jaccard(a.as_slice(), b.as_slice()), 4.0 / 7.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharShingler {
    k: usize,
    seed: u64,
    fold_case: bool,
    nfkc: bool,
    collapse_whitespace: bool,
    short_docs: ShortDocs,
    scheme: SchemeId,
}

impl CharShingler {
    /// Character `k`-grams with defaults (seed 0, case folding and whitespace
    /// collapsing on, short documents give one shingle).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `k` is 0 or above
    /// [`MAX_KGRAM_LEN`](ndd_core::hash::MAX_KGRAM_LEN) (1,024).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// assert_eq!(near_dup::shingle::CharShingler::new(3)?.features("abcd").len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(k: usize) -> Result<Self, Error> {
        Self::with_options(k, 0, true, true, ShortDocs::WholeDocument)
    }

    /// Character `k`-grams with every option explicit.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `k` is 0 or above
    /// [`MAX_KGRAM_LEN`](ndd_core::hash::MAX_KGRAM_LEN) (1,024).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// use near_dup::shingle::{CharShingler, ShortDocs};
    /// let s = CharShingler::with_options(4, 0, false, false, ShortDocs::Skip)?;
    /// assert!(s.features("abc").is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn with_options(
        k: usize,
        seed: u64,
        fold_case: bool,
        collapse_whitespace: bool,
        short_docs: ShortDocs,
    ) -> Result<Self, Error> {
        ndd_core::hash::check_kgram_len(k)?;
        let scheme =
            Self::scheme_builder(k, seed, fold_case, collapse_whitespace, short_docs).finish();
        Ok(CharShingler {
            k,
            seed,
            fold_case,
            nfkc: false,
            collapse_whitespace,
            short_docs,
            scheme,
        })
    }

    /// The same shingler with Unicode NFKC normalization of the text on or off
    /// (default off): full-width `ＡＢＣ` then reads as `ABC`, the ligature `ﬁ` as
    /// `fi`. A text already in NFKC (by the quick check of UAX #15) is read as it is,
    /// without allocating; otherwise its characters are normalized as a stream. Turning
    /// it on changes the [`SchemeId`]; with it off, values and scheme are exactly those
    /// of earlier versions.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let plain = near_dup::shingle::CharShingler::new(2)?;
    /// let nfkc = plain.clone().with_nfkc(true);
    /// assert_eq!(nfkc.features("ＡＢＣ"), nfkc.features("abc"));
    /// assert_ne!(plain.features("ＡＢＣ"), plain.features("abc"));
    /// assert_ne!(plain.scheme(), nfkc.scheme());
    /// assert_eq!(nfkc.with_nfkc(false), plain);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[cfg(feature = "nfkc")]
    #[must_use]
    pub fn with_nfkc(self, nfkc: bool) -> Self {
        let base = Self::with_options(
            self.k,
            self.seed,
            self.fold_case,
            self.collapse_whitespace,
            self.short_docs,
        );
        // `k` was validated when `self` was built, so `base` is `Ok`.
        let Ok(mut out) = base else { return self };
        if nfkc {
            out.nfkc = true;
            out.scheme = Self::scheme_builder(
                self.k,
                self.seed,
                self.fold_case,
                self.collapse_whitespace,
                self.short_docs,
            )
            .with(NFKC_SCHEME_TAG)
            .finish();
        }
        out
    }

    /// The number of characters per shingle.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::CharShingler::new(4)?.k(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn k(&self) -> usize {
        self.k
    }

    /// The shingles of `doc` with their counts; see [`WordShingler::counts`].
    ///
    /// # Example
    ///
    /// ```
    /// let tf = near_dup::shingle::CharShingler::new(1)?.counts("aab");
    /// assert_eq!(tf.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn counts(&self, doc: &str) -> SparseVector {
        counts_of(self, doc)
    }

    /// The scheme of the options, NFKC aside.
    fn scheme_builder(
        k: usize,
        seed: u64,
        fold_case: bool,
        collapse_whitespace: bool,
        short_docs: ShortDocs,
    ) -> SchemeBuilder {
        SchemeId::new("char-shingles")
            .with(1)
            .with(k as u64)
            .with(seed)
            .with(u64::from(fold_case))
            .with(u64::from(collapse_whitespace))
            .with(u64::from(short_docs == ShortDocs::WholeDocument))
    }

    /// Pushes the shingles of the characters `chars` to `sink`.
    fn extract_chars<S: FeatureSink + ?Sized>(
        &self,
        chars: impl Iterator<Item = char>,
        sink: &mut S,
    ) {
        let Ok(mut roller) = KGramRoller::new(self.k) else {
            return;
        };
        let mut in_space = false;
        let mut push_char = |c: char, roller: &mut KGramRoller| {
            if let Some(g) = roller.push(self.char_hash(c)) {
                sink.push(g);
            }
        };
        for c in chars {
            if self.collapse_whitespace && c.is_whitespace() {
                in_space = true;
                continue;
            }
            if in_space {
                in_space = false;
                // A run of whitespace between characters counts as one space;
                // leading and trailing whitespace counts for nothing.
                if roller.filled() > 0 {
                    push_char(' ', &mut roller);
                }
            }
            if self.fold_case && !c.is_lowercase() && c.is_alphabetic() {
                for lc in c.to_lowercase() {
                    push_char(lc, &mut roller);
                }
            } else {
                push_char(c, &mut roller);
            }
        }
        if self.short_docs == ShortDocs::WholeDocument {
            if let Some(g) = roller.partial() {
                sink.push(g);
            }
        }
    }

    #[inline]
    fn char_hash(&self, c: char) -> u64 {
        mix64(u64::from(c as u32).wrapping_add(self.seed.wrapping_mul(KGRAM_BASE)))
    }
}

impl FeatureExtractor for CharShingler {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        #[cfg(feature = "nfkc")]
        if self.nfkc && !crate::token::is_nfkc(doc) {
            use unicode_normalization::UnicodeNormalization;
            return self.extract_chars(doc.nfkc(), sink);
        }
        self.extract_chars(doc.chars(), sink);
    }

    fn scheme(&self) -> SchemeId {
        self.scheme
    }
}

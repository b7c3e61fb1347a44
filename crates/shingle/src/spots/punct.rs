//! Punctuation-spot signatures (the SigNCD paper): [`PunctSpotExtractor`], its builder,
//! [`PunctSpotVariant`] and [`SpotOutcome`].

use ndd_core::hash::kgram_hash_iter;
use ndd_core::{Error, FeatureExtractor, FeatureSink, SchemeId, Tokenizer};

use super::{FORMAT_VERSION, MAX_SPOT_WORDS, Word, push_word};
use crate::builders::default_from_builder;
use crate::token::{WordTokenizer, hash_token};

/// Which words around each spot punctuation mark a [`PunctSpotExtractor`] takes (X.
/// Zhang, Y. Yao, Y. Ji, B. Fang, "Effective and Fast Near Duplicate Detection via
/// Signature-Based Compression Metrics", Hindawi research article, 2016,
/// section 5.4.1, where Sig-1L scored best and is the default).
///
/// # Example
///
/// ```
/// use near_dup::shingle::spots::PunctSpotVariant;
/// assert_eq!(PunctSpotVariant::default(), PunctSpotVariant::Sig1L);
/// assert_eq!(PunctSpotVariant::Sig4.words_before(), 2);
/// assert_eq!(PunctSpotVariant::Sig4.words_after(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PunctSpotVariant {
    /// One word before each mark (the default).
    #[default]
    Sig1L,
    /// One word after each mark.
    Sig1R,
    /// One word before and one after.
    Sig2,
    /// Two words before and two after.
    Sig4,
    /// Three words before and three after.
    Sig6,
}

impl PunctSpotVariant {
    /// Words taken before each mark.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::PunctSpotVariant::Sig1R.words_before(), 0);
    /// ```
    #[must_use]
    pub const fn words_before(self) -> usize {
        match self {
            PunctSpotVariant::Sig1L | PunctSpotVariant::Sig2 => 1,
            PunctSpotVariant::Sig1R => 0,
            PunctSpotVariant::Sig4 => 2,
            PunctSpotVariant::Sig6 => 3,
        }
    }

    /// Words taken after each mark.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::PunctSpotVariant::Sig6.words_after(), 3);
    /// ```
    #[must_use]
    pub const fn words_after(self) -> usize {
        match self {
            PunctSpotVariant::Sig1R | PunctSpotVariant::Sig2 => 1,
            PunctSpotVariant::Sig1L => 0,
            PunctSpotVariant::Sig4 => 2,
            PunctSpotVariant::Sig6 => 3,
        }
    }
}

/// What [`PunctSpotExtractor::signature_into`] did with a document.
///
/// # Example
///
/// ```
/// let p = near_dup::shingle::spots::PunctSpotExtractor::new();
/// let (_, outcome) = p.signature("one, two");
/// assert_eq!(outcome.spots, 1);
/// assert!(outcome.fallback); // fewer than 3 commas
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpotOutcome {
    /// How many spot punctuation marks the document has.
    pub spots: usize,
    /// Whether `spots` was below the threshold, so the full text was used instead.
    pub fallback: bool,
}

/// Punctuation-spot signatures, the signature extraction of SigNCD (X. Zhang, Y. Yao,
/// Y. Ji, B. Fang, "Effective and Fast Near Duplicate Detection via Signature-Based
/// Compression Metrics", Hindawi research article, 2016, section 4.1 step 2
/// and section 5.4.1).
///
/// Punctuation is frequent, spread evenly through running text, and nearly
/// language-independent, so the words around it sample the main content. Precisely:
///
/// * **Words** are the [`WordTokenizer`] tokens of the document.
/// * **Spots** are the occurrences of the spot characters (default: `,` only; any set
///   of non-word characters, e.g. the Chinese comma `，`), found by scanning the
///   original text.
/// * For a spot occupying bytes `p..q`, the **words before** are the last
///   `words_before` words ending at or before `p`, and the **words after** are the
///   first `words_after` words starting at or after `q` — the nearest words, crossing
///   other punctuation and neighbouring spots (so a word between two close commas can
///   serve both), fewer at the edges of the document.
/// * The spot's **group** is its words before then its words after, in document order.
///
/// Two outputs:
///
/// * The **signature string** ([`signature_into`](Self::signature_into)): the words of
///   every group, spot by spot, joined by single spaces (case-folded when `fold_case`
///   is on, the default). This is what SigNCD compresses.
/// * **Features** ([`FeatureExtractor`]): one per spot with a non-empty group, the
///   k-gram hash ([`ndd_core::hash`]) of `[h(before…), h(mark), h(after…)]` where `h`
///   is [`hash_token`]`(·, fold_case, seed)` and `mark` is the spot character (so
///   Sig-2's `a, b` differs from `a. b` when both marks are spots).
///
/// **Fallback.** When a document has fewer than `min_spots` spots (default 3, the
/// paper's setting), the paper uses the full document instead. Here the signature
/// string is then the document's words joined by single spaces (the same
/// normalization as signature words, without punctuation), and the features are the
/// hashes of the single words, one per word, `h(word)`; [`SpotOutcome::fallback`]
/// reports it.
///
/// **The paper's example.** For "Given a set of documents, there are four steps to
/// conduct near-duplicate detection for web documents, preprocessing, signature
/// extraction, compression, and comparison, which are described in detail as
/// follows." the paper prints the comma Sig-1L signature "documents preprocessing
/// extraction comparison". The sentence has six commas, and the word before each is
/// `documents`, `documents`, `preprocessing`, `extraction`, `compression`,
/// `comparison`, which is what this implementation gives. The paper's string is a
/// subsequence of it, with the repeated `documents` and with `compression` left out;
/// no rule stated in the paper removes them (deduplicating would still keep
/// `compression`), so we take the printed example to be abbreviated and follow the
/// stated rule.
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// use near_dup::shingle::spots::{PunctSpotExtractor, PunctSpotVariant};
/// let doc = "Alice, Bob, Carol and Dave, who met in Paris, London, and Rome.";
/// let sig1l = PunctSpotExtractor::new();
/// assert_eq!(sig1l.signature(doc).0, "alice bob dave paris london");
/// let sig2 = PunctSpotExtractor::builder().variant(PunctSpotVariant::Sig2).build()?;
/// assert_eq!(sig2.signature(doc).0, "alice bob bob carol dave who paris london london and");
/// assert_eq!(sig2.features(doc).len(), 5);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PunctSpotExtractor {
    /// The parameters it was built from, checked, the punctuation sorted and
    /// deduplicated.
    settings: PunctSpotBuilder,
    scheme: SchemeId,
}

default_from_builder!(PunctSpotExtractor, PunctSpotBuilder);

impl PunctSpotExtractor {
    /// The extractor with the defaults: Sig-1L, comma spots, fallback below 3 spots,
    /// case folding on, seed 0.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::shingle::spots::PunctSpotExtractor::new();
    /// assert_eq!((p.words_before(), p.words_after(), p.min_spots()), (1, 0, 3));
    /// assert_eq!(p.punctuation(), &[',']);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder with the defaults.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::{PunctSpotExtractor, PunctSpotVariant};
    /// let p = PunctSpotExtractor::builder().variant(PunctSpotVariant::Sig6).build()?;
    /// assert_eq!((p.words_before(), p.words_after()), (3, 3));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder() -> PunctSpotBuilder {
        PunctSpotBuilder::default()
    }

    /// Words taken before each spot.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::PunctSpotExtractor::new().words_before(), 1);
    /// ```
    #[must_use]
    pub fn words_before(&self) -> usize {
        self.settings.before
    }

    /// Words taken after each spot.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::PunctSpotExtractor::new().words_after(), 0);
    /// ```
    #[must_use]
    pub fn words_after(&self) -> usize {
        self.settings.after
    }

    /// The spot characters, sorted.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::shingle::spots::PunctSpotExtractor::builder().punctuation([';', ',']).build()?;
    /// assert_eq!(p.punctuation(), &[',', ';']);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn punctuation(&self) -> &[char] {
        &self.settings.punctuation
    }

    /// Documents with fewer spots fall back to their full text.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::PunctSpotExtractor::new().min_spots(), 3);
    /// ```
    #[must_use]
    pub fn min_spots(&self) -> usize {
        self.settings.min_spots
    }

    /// The number of spot characters in `doc`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::PunctSpotExtractor::new().spots_count("a, b,, c."), 3);
    /// ```
    #[must_use]
    pub fn spots_count(&self, doc: &str) -> usize {
        doc.chars().filter(|c| self.is_spot(*c)).count()
    }

    /// Clears `out` and writes the signature string of `doc` to it (see the
    /// [type docs](Self)): the words around the spots, or, with fewer than
    /// [`min_spots`](Self::min_spots) spots, all the words of the document; joined by
    /// single spaces. Reuse `out` across documents to avoid reallocating.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::shingle::spots::PunctSpotExtractor::new();
    /// let mut sig = String::new();
    /// let outcome = p.signature_into("Oh, well, fine, OK.", &mut sig);
    /// assert_eq!((sig.as_str(), outcome.spots, outcome.fallback), ("oh well fine", 3, false));
    /// let outcome = p.signature_into("Oh, well.", &mut sig);
    /// assert_eq!((sig.as_str(), outcome.fallback), ("oh well", true));
    /// ```
    pub fn signature_into(&self, doc: &str, out: &mut String) -> SpotOutcome {
        out.clear();
        self.for_each_group(doc, |words, _| {
            for w in words {
                if !out.is_empty() {
                    out.push(' ');
                }
                push_word(doc, w, self.settings.fold_case, out);
            }
        })
    }

    /// The signature string of `doc` and what happened (allocates; see
    /// [`signature_into`](Self::signature_into)).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::shingle::spots::PunctSpotExtractor::new();
    /// let (sig, outcome) = p.signature("x, y, z, w");
    /// assert_eq!(sig, "x y z");
    /// assert!(!outcome.fallback);
    /// ```
    #[must_use]
    pub fn signature(&self, doc: &str) -> (String, SpotOutcome) {
        let mut out = String::new();
        let outcome = self.signature_into(doc, &mut out);
        (out, outcome)
    }

    /// One string per feature, in feature order: each spot's group of words joined by
    /// spaces, or each word on fallback (for debugging and tests; allocates). Joined by
    /// spaces they give the signature string.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::{PunctSpotExtractor, PunctSpotVariant};
    /// let p = PunctSpotExtractor::builder().variant(PunctSpotVariant::Sig2).build()?;
    /// assert_eq!(p.spot_strings("a b, c d, e f, g"), ["b c", "d e", "f g"]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn spot_strings(&self, doc: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_group(doc, |words, _| {
            let mut s = String::new();
            for w in words {
                if !s.is_empty() {
                    s.push(' ');
                }
                push_word(doc, w, self.settings.fold_case, &mut s);
            }
            out.push(s);
        });
        out
    }

    #[inline]
    fn is_spot(&self, c: char) -> bool {
        self.settings.punctuation.contains(&c)
    }

    /// Calls `f(words, feature)` for every non-empty group in document order (or every
    /// word on fallback).
    fn for_each_group<F: FnMut(&[Word], u64)>(&self, doc: &str, mut f: F) -> SpotOutcome {
        let spots = self.spots_count(doc);
        let fallback = spots < self.settings.min_spots;
        // Per-document buffer of the words.
        let mut words: Vec<Word> = Vec::new();
        WordTokenizer::new().for_each_token(doc, |t| {
            words.push(Word {
                hash: hash_token(t.text, self.settings.fold_case, self.settings.seed),
                start: t.start,
                end: t.end,
            });
        });
        if fallback {
            for w in words.chunks(1) {
                f(w, w.first().map_or(0, |w| w.hash));
            }
            return SpotOutcome { spots, fallback };
        }
        let n = words.len();
        // `i`: words ending at or before the spot; `j`: first word starting after it.
        let (mut i, mut j) = (0, 0);
        for (p, c) in doc.char_indices() {
            if !self.is_spot(c) {
                continue;
            }
            let q = p + c.len_utf8();
            while i < n && words[i].end <= p {
                i += 1;
            }
            while j < n && words[j].start < q {
                j += 1;
            }
            let lo = i.saturating_sub(self.settings.before);
            let hi = n.min(j + self.settings.after);
            let (before, after) = (&words[lo..i], &words[j..hi]);
            if before.is_empty() && after.is_empty() {
                continue;
            }
            let mut buf = [0u8; 4];
            let mark = hash_token(c.encode_utf8(&mut buf), false, self.settings.seed);
            let feature = kgram_hash_iter(
                before
                    .iter()
                    .map(|w| w.hash)
                    .chain(std::iter::once(mark))
                    .chain(after.iter().map(|w| w.hash)),
            );
            if i == j {
                // The usual case: the words before and after are contiguous.
                f(&words[lo..hi], feature);
            } else {
                // Unreachable with validated (non-word) spot characters; kept total.
                f(before, feature);
                f(after, feature);
            }
        }
        SpotOutcome { spots, fallback }
    }
}

impl FeatureExtractor for PunctSpotExtractor {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        self.for_each_group(doc, |_, g| sink.push(g));
    }

    fn scheme(&self) -> SchemeId {
        self.scheme
    }
}

/// Builds a [`PunctSpotExtractor`]; every setter consumes and returns the builder.
///
/// # Example
///
/// ```
/// use near_dup::shingle::spots::PunctSpotBuilder;
/// let p = PunctSpotBuilder::default().words(2, 1).min_spots(0).build()?;
/// assert_eq!(p.signature("a b c, d e").0, "b c d");
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct PunctSpotBuilder {
    before: usize,
    after: usize,
    punctuation: Vec<char>,
    min_spots: usize,
    fold_case: bool,
    seed: u64,
}

impl Default for PunctSpotBuilder {
    fn default() -> Self {
        PunctSpotBuilder {
            before: 1,
            after: 0,
            punctuation: vec![','],
            min_spots: 3,
            fold_case: true,
            seed: 0,
        }
    }
}

impl PunctSpotBuilder {
    /// The words taken around each spot, as one of the paper's variants (default
    /// Sig-1L).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::{PunctSpotExtractor, PunctSpotVariant};
    /// let p = PunctSpotExtractor::builder().variant(PunctSpotVariant::Sig1R).build()?;
    /// assert_eq!(p.signature("a, b, c, d").0, "b c d");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn variant(mut self, variant: PunctSpotVariant) -> Self {
        self.before = variant.words_before();
        self.after = variant.words_after();
        self
    }

    /// Any number of words before and after each spot (each at most
    /// [`MAX_SPOT_WORDS`], not both zero).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::PunctSpotExtractor;
    /// assert!(PunctSpotExtractor::builder().words(0, 0).build().is_err());
    /// let p = PunctSpotExtractor::builder().words(0, 2).build()?;
    /// assert_eq!(p.signature("a, b c, d e, f").0, "b c d e f");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn words(mut self, before: usize, after: usize) -> Self {
        self.before = before;
        self.after = after;
        self
    }

    /// The spot characters (default: the comma only; the paper found commas best, and
    /// commas plus full stops second). Each must separate words for
    /// [`WordTokenizer`] (punctuation, symbols, whitespace), so it never falls inside a
    /// word.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::PunctSpotExtractor;
    /// let p = PunctSpotExtractor::builder().punctuation([',', '，']).build()?;
    /// assert_eq!(p.spots_count("甲，乙，丙, 丁"), 3);
    /// assert!(PunctSpotExtractor::builder().punctuation(['x']).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn punctuation<I: IntoIterator<Item = char>>(mut self, chars: I) -> Self {
        self.punctuation = chars.into_iter().collect();
        self
    }

    /// Documents with fewer spots fall back to their full text (default 3, the paper's
    /// setting; 0 never falls back).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::shingle::spots::PunctSpotExtractor::builder().min_spots(0).build()?;
    /// assert_eq!(p.signature("one two, three").0, "two");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn min_spots(mut self, min: usize) -> Self {
        self.min_spots = min;
        self
    }

    /// Whether words are lowercased, in the signature string and before hashing
    /// (default true).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::shingle::spots::PunctSpotExtractor::builder().fold_case(false).build()?;
    /// assert_eq!(p.signature("A, B, C, D").0, "A B C");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn fold_case(mut self, fold: bool) -> Self {
        self.fold_case = fold;
        self
    }

    /// Seed of the word hash (default 0).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let a = near_dup::shingle::spots::PunctSpotExtractor::builder().seed(1).build()?;
    /// assert_ne!(a.features("a, b, c"), near_dup::shingle::spots::PunctSpotExtractor::new().features("a, b, c"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when both word counts are zero or one exceeds
    /// [`MAX_SPOT_WORDS`], or the punctuation set is empty or contains a word
    /// character.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::PunctSpotExtractor;
    /// assert!(PunctSpotExtractor::builder().punctuation([]).build().is_err());
    /// assert!(PunctSpotExtractor::builder().words(17, 0).build().is_err());
    /// assert!(PunctSpotExtractor::builder().build().is_ok());
    /// ```
    pub fn build(self) -> Result<PunctSpotExtractor, Error> {
        if self.before == 0 && self.after == 0 {
            return Err(Error::invalid_parameter(
                "words",
                "take at least one word before or after each spot",
            ));
        }
        if self.before > MAX_SPOT_WORDS || self.after > MAX_SPOT_WORDS {
            return Err(Error::invalid_parameter(
                "words",
                format!("at most {MAX_SPOT_WORDS} words on each side"),
            ));
        }
        let mut punctuation = self.punctuation;
        punctuation.sort_unstable();
        punctuation.dedup();
        if punctuation.is_empty() {
            return Err(Error::invalid_parameter(
                "punctuation",
                "must contain at least one character",
            ));
        }
        let tokenizer = WordTokenizer::new();
        let mut buf = [0u8; 4];
        for &c in &punctuation {
            if !tokenizer.tokens(c.encode_utf8(&mut buf)).is_empty() {
                return Err(Error::invalid_parameter(
                    "punctuation",
                    format!("{c:?} is a word character, not a separator"),
                ));
            }
        }
        let mut scheme = SchemeId::new("punctuation-spots")
            .with(FORMAT_VERSION)
            .with(self.before as u64)
            .with(self.after as u64)
            .with(self.min_spots as u64)
            .with(u64::from(self.fold_case))
            .with(self.seed)
            .with(punctuation.len() as u64);
        for &c in &punctuation {
            scheme = scheme.with(u64::from(c));
        }
        Ok(PunctSpotExtractor {
            settings: PunctSpotBuilder {
                punctuation,
                ..self
            },
            scheme: scheme.finish(),
        })
    }
}

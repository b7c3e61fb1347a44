//! Stopword-anchored spot signatures (SpotSigs): [`SpotSigExtractor`] and its builder.

use ndd_core::hash::kgram_hash_iter;
use ndd_core::{Error, FeatureExtractor, FeatureSink, SchemeId, Tokenizer};

use super::{FORMAT_VERSION, MAX_SPOT_WORDS, Word, push_word, word_set};
use crate::builders::default_from_builder;
use crate::token::{WordTokenizer, hash_token};

/// Stopword-anchored spot signatures (SpotSigs: M. Theobald, J. Siddharth, A. Paepcke,
/// "SpotSigs: Robust and Efficient Near Duplicate Detection in Large Web Collections",
/// SIGIR 2008; see also H. Hajishirzi, W. Yih, A. Kołcz, "Adaptive Near-Duplicate
/// Detection via Similarity Learning", SIGIR 2010, section 2.4).
///
/// Stopwords seldom occur in navigation bars, link lists and ads, so anchoring
/// features at stopwords keeps mostly the main text. Precisely, with chain length `c`
/// and spot distance `d`:
///
/// * the document is split into words by [`WordTokenizer`];
/// * every word in the **antecedent** set (default: the stopword set) starts a spot;
/// * the spot's chain is the `d`-th, `2d`-th, …, `c·d`-th **non-stopword** after the
///   antecedent (stopwords are skipped, not counted);
/// * the spot signature is `antecedent:w1:…:wc`, and its feature is the k-gram hash
///   ([`ndd_core::hash::kgram_hash`]) of the word hashes `[h(antecedent), h(w1), …,
///   h(wc)]` with `h` = [`hash_token`]`(word, fold_case, seed)`;
/// * a spot whose chain runs past the end of the document is dropped.
///
/// Features are pushed in the order of their antecedents; repeats are kept (SpotSigs
/// compares multisets). Stopwords and antecedents are always matched
/// case-insensitively (full Unicode lowercasing), whatever `fold_case` says; matching
/// is by the 64-bit seeded hash of the folded word, so a false match needs a hash
/// collision.
///
/// Defaults follow setting 1 of Table 1 of X. Zhang, Y. Yao, Y. Ji, B. Fang, "Effective
/// and Fast Near Duplicate Detection via Signature-Based Compression Metrics",
/// Hindawi research article, 2016 (the best of the seven SpotSigs settings
/// reported there): `d = 1`, chain 1, `min_spotsigs = 4`; plus the built-in English
/// stopword list ([`SpotSigExtractor::default_stopwords`]), case folding on, seed 0.
///
/// The collection-level filters of SpotSigs are not applied here. `min_spotsigs` (drop
/// documents with fewer spots) is exposed as [`is_too_short`](Self::is_too_short) so the
/// caller decides; `min_idf`/`max_idf` (drop spot signatures that are too rare or too
/// frequent in the collection) need collection statistics, which the `ndd-imatch` crate
/// builds.
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// use near_dup::shingle::spots::SpotSigExtractor;
/// let doc = "It is the best of times and the worst of times";
/// let s = SpotSigExtractor::builder().chain(2).build()?;
/// // Antecedents: it is the of and the of; chains skip stopwords.
/// assert_eq!(s.spot_strings(doc), ["it:best:times", "is:best:times", "the:best:times",
///                                  "of:times:worst", "and:worst:times", "the:worst:times"]);
/// assert_eq!(s.features(doc).len(), 6);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotSigExtractor {
    chain: usize,
    distance: usize,
    fold_case: bool,
    seed: u64,
    min_spotsigs: usize,
    stopwords: Vec<u64>,
    /// `None`: the antecedents are the stopwords.
    antecedents: Option<Vec<u64>>,
    scheme: SchemeId,
}

default_from_builder!(SpotSigExtractor, SpotSigBuilder);

impl SpotSigExtractor {
    /// The extractor with the default parameters (`d = 1`, chain 1, built-in stopwords,
    /// case folding on, seed 0, `min_spotsigs = 4`).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::spots::SpotSigExtractor::new();
    /// assert_eq!((s.chain(), s.distance(), s.min_spotsigs()), (1, 1, 4));
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
    /// let s = near_dup::shingle::spots::SpotSigExtractor::builder().distance(2).chain(2).build()?;
    /// assert_eq!((s.chain(), s.distance()), (2, 2));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder() -> SpotSigBuilder {
        SpotSigBuilder::default()
    }

    /// The built-in English stopword list (50 lowercase function words: articles,
    /// copulas, auxiliaries, `said`, demonstratives, pronouns, prepositions,
    /// conjunctions, negation), the default stopwords and antecedents:
    ///
    /// a an the is are was were be been being has have had can could will would
    /// should said there this that these those it its he she they we his her their
    /// which who of to for on in at by with from and or but as not no
    ///
    /// # Example
    ///
    /// ```
    /// let words = near_dup::shingle::spots::SpotSigExtractor::default_stopwords();
    /// assert!(words.contains(&"the") && words.contains(&"said"));
    /// assert!(!words.contains(&"cat"));
    /// assert_eq!(words.len(), 50);
    /// ```
    #[must_use]
    pub fn default_stopwords() -> &'static [&'static str] {
        crate::stopwords::ENGLISH
    }

    /// The chain length `c`: non-stopwords per spot signature.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::SpotSigExtractor::new().chain(), 1);
    /// ```
    #[must_use]
    pub fn chain(&self) -> usize {
        self.chain
    }

    /// The spot distance `d`: the chain takes every `d`-th non-stopword.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::SpotSigExtractor::new().distance(), 1);
    /// ```
    #[must_use]
    pub fn distance(&self) -> usize {
        self.distance
    }

    /// The seed of the word hash.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::SpotSigExtractor::new().seed(), 0);
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The `min_spotsigs` threshold used by [`is_too_short`](Self::is_too_short).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::shingle::spots::SpotSigExtractor::new().min_spotsigs(), 4);
    /// ```
    #[must_use]
    pub fn min_spotsigs(&self) -> usize {
        self.min_spotsigs
    }

    /// The number of spot signatures of `doc` (the number of features
    /// [`extract`](FeatureExtractor::extract) pushes), repeats included.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::spots::SpotSigExtractor::new();
    /// assert_eq!(s.spots_count("the cat and the dog"), 3);
    /// assert_eq!(s.spots_count("cat dog the"), 0); // "the" has no chain
    /// ```
    #[must_use]
    pub fn spots_count(&self, doc: &str) -> usize {
        let mut n = 0;
        self.for_each_spot(doc, |_, _, _| n += 1);
        n
    }

    /// Whether `doc` has fewer than [`min_spotsigs`](Self::min_spotsigs) spot signatures:
    /// SpotSigs skips such documents, since a handful of spots says little about
    /// similarity. Extraction itself never skips; the caller decides.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::spots::SpotSigExtractor::new();
    /// assert!(s.is_too_short("the cat and the dog")); // 3 spots < 4
    /// assert!(!s.is_too_short("the cat and the dog of the house"));
    /// ```
    #[must_use]
    pub fn is_too_short(&self, doc: &str) -> bool {
        self.spots_count(doc) < self.min_spotsigs
    }

    /// The spot signatures of `doc` as readable strings, `antecedent:w1:…:wc`, in the
    /// order their features are pushed; words are case-folded when `fold_case` is on
    /// (for debugging and tests; allocates).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::spots::SpotSigExtractor::new();
    /// assert_eq!(s.spot_strings("The Cat is here"), ["the:cat", "is:here"]);
    /// ```
    #[must_use]
    pub fn spot_strings(&self, doc: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_spot(doc, |ante, chain, _| {
            let mut s = String::new();
            push_word(doc, ante, self.fold_case, &mut s);
            for w in chain.iter() {
                s.push(':');
                push_word(doc, w, self.fold_case, &mut s);
            }
            out.push(s);
        });
        out
    }

    /// Calls `f(antecedent, chain, feature)` for every complete spot, in antecedent
    /// order.
    fn for_each_spot<F: FnMut(&Word, ChainWords<'_>, u64)>(&self, doc: &str, mut f: F) {
        // Per-document buffers: the non-stopwords, and each antecedent with the number
        // of non-stopwords before it.
        let mut nonstop: Vec<Word> = Vec::new();
        let mut antes: Vec<(Word, usize)> = Vec::new();
        WordTokenizer::new().for_each_token(doc, |t| {
            let folded = hash_token(t.text, true, self.seed);
            let hash = if self.fold_case {
                folded
            } else {
                hash_token(t.text, false, self.seed)
            };
            let word = Word {
                hash,
                start: t.start,
                end: t.end,
            };
            let is_stop = self.stopwords.binary_search(&folded).is_ok();
            let is_ante = match &self.antecedents {
                None => is_stop,
                Some(set) => set.binary_search(&folded).is_ok(),
            };
            if !is_stop {
                nonstop.push(word);
            }
            if is_ante {
                antes.push((word, nonstop.len()));
            }
        });
        let span = self.chain * self.distance; // both <= MAX_SPOT_WORDS
        for (ante, before) in &antes {
            // `before` is non-decreasing, so once a chain runs past the end all later
            // ones do too.
            let Some(window) = nonstop.get(*before..before.saturating_add(span)) else {
                break;
            };
            let chain = ChainWords {
                window,
                distance: self.distance,
            };
            let feature =
                kgram_hash_iter(std::iter::once(ante.hash).chain(chain.iter().map(|w| w.hash)));
            f(ante, chain, feature);
        }
    }
}

/// The chain words of one spot: every `distance`-th word of `window`.
#[derive(Debug, Clone, Copy)]
struct ChainWords<'a> {
    window: &'a [Word],
    distance: usize,
}

impl<'a> ChainWords<'a> {
    fn iter(self) -> impl Iterator<Item = &'a Word> {
        self.window
            .iter()
            .skip(self.distance - 1)
            .step_by(self.distance)
    }
}

impl FeatureExtractor for SpotSigExtractor {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        self.for_each_spot(doc, |_, _, g| sink.push(g));
    }

    fn scheme(&self) -> SchemeId {
        self.scheme
    }
}

/// Builds a [`SpotSigExtractor`]; every setter consumes and returns the builder.
///
/// # Example
///
/// ```
/// use near_dup::shingle::spots::SpotSigBuilder;
/// let s = SpotSigBuilder::default().chain(3).min_spotsigs(20).build()?;
/// assert_eq!((s.chain(), s.min_spotsigs()), (3, 20));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct SpotSigBuilder {
    chain: usize,
    distance: usize,
    fold_case: bool,
    seed: u64,
    min_spotsigs: usize,
    stopwords: Option<Vec<String>>,
    antecedents: Option<Vec<String>>,
}

impl Default for SpotSigBuilder {
    fn default() -> Self {
        SpotSigBuilder {
            chain: 1,
            distance: 1,
            fold_case: true,
            seed: 0,
            min_spotsigs: 4,
            stopwords: None,
            antecedents: None,
        }
    }
}

impl SpotSigBuilder {
    /// Chain length `c`, non-stopwords per spot (default 1; `1..=`[`MAX_SPOT_WORDS`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::SpotSigExtractor;
    /// assert!(SpotSigExtractor::builder().chain(0).build().is_err());
    /// let s = SpotSigExtractor::builder().chain(2).build()?;
    /// assert_eq!(s.spot_strings("the big cat"), ["the:big:cat"]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn chain(mut self, chain: usize) -> Self {
        self.chain = chain;
        self
    }

    /// Spot distance `d`: the chain takes the `d`-th, `2d`-th, … non-stopword after
    /// the antecedent (default 1; `1..=`[`MAX_SPOT_WORDS`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::SpotSigExtractor;
    /// assert!(SpotSigExtractor::builder().distance(0).build().is_err());
    /// let s = SpotSigExtractor::builder().distance(2).build()?;
    /// assert_eq!(s.spot_strings("the big cat"), ["the:cat"]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn distance(mut self, distance: usize) -> Self {
        self.distance = distance;
        self
    }

    /// Whether words are lowercased before hashing (default true). Stopword matching is
    /// case-insensitive either way.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let s = near_dup::shingle::spots::SpotSigExtractor::builder().fold_case(false).build()?;
    /// assert_eq!(s.spot_strings("The Cat"), ["The:Cat"]);
    /// assert_ne!(s.features("The Cat"), s.features("the cat"));
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
    /// let a = near_dup::shingle::spots::SpotSigExtractor::builder().seed(1).build()?;
    /// let b = near_dup::shingle::spots::SpotSigExtractor::builder().seed(2).build()?;
    /// assert_ne!(a.features("the cat"), b.features("the cat"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The threshold of [`SpotSigExtractor::is_too_short`] (default 4, SpotSigs'
    /// `min_spotsigs`). Does not change extraction.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::shingle::spots::SpotSigExtractor::builder().min_spotsigs(1).build()?;
    /// assert!(!s.is_too_short("the cat"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn min_spotsigs(mut self, min: usize) -> Self {
        self.min_spotsigs = min;
        self
    }

    /// The stopwords: skipped in chains, and also the antecedents unless
    /// [`antecedents`](Self::antecedents) is set (default:
    /// [`SpotSigExtractor::default_stopwords`]). Each must be a single
    /// [`WordTokenizer`] word; matched case-insensitively.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::SpotSigExtractor;
    /// let s = SpotSigExtractor::builder().stopwords(["le", "la", "et"]).build()?;
    /// assert_eq!(s.spot_strings("Le chat et la souris"), ["le:chat", "et:souris", "la:souris"]);
    /// assert!(SpotSigExtractor::builder().stopwords(["don't"]).build().is_err());
    /// assert!(SpotSigExtractor::builder().stopwords(Vec::<String>::new()).build().is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn stopwords<I, S>(mut self, words: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.stopwords = Some(words.into_iter().map(|w| w.as_ref().to_owned()).collect());
        self
    }

    /// A separate antecedent set (default: the stopwords). SpotSigs' own example uses a
    /// few articles and copulas as antecedents while skipping all stopwords in chains.
    /// An antecedent that is not a stopword also counts as a chain word of earlier
    /// antecedents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::SpotSigExtractor;
    /// let s = SpotSigExtractor::builder().antecedents(["a", "the"]).build()?;
    /// // "of" is a stopword (skipped) but not an antecedent.
    /// assert_eq!(s.spot_strings("the top of a hill"), ["the:top", "a:hill"]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn antecedents<I, S>(mut self, words: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.antecedents = Some(words.into_iter().map(|w| w.as_ref().to_owned()).collect());
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `chain` or `distance` is outside
    /// `1..=`[`MAX_SPOT_WORDS`], or a stopword or antecedent list is empty or holds
    /// something that is not a single word.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::spots::SpotSigExtractor;
    /// assert!(SpotSigExtractor::builder().chain(17).build().is_err());
    /// assert!(SpotSigExtractor::builder().antecedents(["two words"]).build().is_err());
    /// assert!(SpotSigExtractor::builder().build().is_ok());
    /// ```
    pub fn build(self) -> Result<SpotSigExtractor, Error> {
        let range = format!("must lie in 1..={MAX_SPOT_WORDS}");
        if !(1..=MAX_SPOT_WORDS).contains(&self.chain) {
            return Err(Error::invalid_parameter("chain", range));
        }
        if !(1..=MAX_SPOT_WORDS).contains(&self.distance) {
            return Err(Error::invalid_parameter("distance", range));
        }
        let stopwords = match &self.stopwords {
            None => word_set(crate::stopwords::ENGLISH, self.seed, "stopwords")?,
            Some(words) => word_set(words, self.seed, "stopwords")?,
        };
        let antecedents = match &self.antecedents {
            None => None,
            Some(words) => Some(word_set(words, self.seed, "antecedents")?),
        };
        let mut scheme = SchemeId::new("spot-signatures")
            .with(FORMAT_VERSION)
            .with(self.chain as u64)
            .with(self.distance as u64)
            .with(u64::from(self.fold_case))
            .with(self.seed)
            .with(stopwords.len() as u64);
        for &h in &stopwords {
            scheme = scheme.with(h);
        }
        match &antecedents {
            None => scheme = scheme.with(0),
            Some(set) => {
                scheme = scheme.with(1).with(set.len() as u64);
                for &h in set {
                    scheme = scheme.with(h);
                }
            }
        }
        Ok(SpotSigExtractor {
            chain: self.chain,
            distance: self.distance,
            fold_case: self.fold_case,
            seed: self.seed,
            min_spotsigs: self.min_spotsigs,
            stopwords,
            antecedents,
            scheme: scheme.finish(),
        })
    }
}

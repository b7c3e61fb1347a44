//! Feature weights: how much each feature of a document counts in its signature
//! (Hajishirzi, Yih and Kołcz, SIGIR 2010, Table 2 compares binary, TF-IDF and learned weights).

use std::fmt;
use std::sync::Arc;

use ndd_core::stats::DocumentFrequencies;
use ndd_core::{Error, SchemeId};

/// Moved to [`ndd_core::weights`], where every weighted sketcher shares them;
/// re-exported here so the old paths keep working.
pub use ndd_core::weights::{FeatureWeights, FnWeights, TfIdf};

/// How a [`SimHasher`](crate::SimHasher) weighs the features it extracts.
///
/// The signature approximates the angle between the documents' weighted feature
/// vectors; the weighting decides what those vectors are. Hajishirzi, Yih and Kołcz (SIGIR 2010) (Hajishirzi, Yih
/// and Kołcz, SIGIR 2010, Table 2) measures, for cosine on news articles, Max F1 0.861
/// (binary unigrams), 0.884 (TF-IDF) and 0.956 (learned weights): better weights matter
/// more than the choice of measure.
///
/// Explicitly weighted features ([`SimHasher::sketch_weighted`](crate::SimHasher::sketch_weighted),
/// [`FeatureSink::push_weighted`](ndd_core::FeatureSink::push_weighted)) bypass the
/// weighting: their weight is used as given.
///
/// # Example
///
/// ```
/// use near_dup::simhash::{SimHasher, Weighting};
/// let h = SimHasher::builder().weighting(Weighting::Binary).build()?;
/// assert!(matches!(h.weighting(), Weighting::Binary));
/// assert!(matches!(Weighting::default(), Weighting::Binary));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Weighting {
    /// Weight 1 for each distinct feature of the document, however often it occurs:
    /// the document as a set, as MinHash sees it (the vectors of Charikar's baseline in
    /// Hajishirzi, Yih and Kołcz (SIGIR 2010, §2.3), "each unique term"). Costs a per-document set of the features
    /// seen (about 1.3× the sketching time of term frequency). The default, as in
    /// the `ndd` tool.
    #[default]
    Binary,
    /// Weight = the number of occurrences in the document (Manku et al.'s weighted
    /// features, with the frequency as weight; the default in 0.1.0). Each
    /// occurrence is added as it streams by, with no per-document set; for long
    /// shingles, which rarely repeat within a document, nearly the same vectors as
    /// [`Binary`](Self::Binary), while repeated boilerplate dominates the vector.
    TermFrequency,
    /// Weight = term frequency × `idf(f) = ln(N / df(f))` from collection statistics
    /// ([`Weighting::tf_idf`]); features never seen in the collection get the idf of
    /// the rarest (`df` taken as 1).
    TfIdf(Arc<TfIdf>),
    /// Weight = `w(f, 1)` from user weights, once per distinct feature
    /// ([`Weighting::custom`]): the streaming path does not count repeats, so the
    /// model sees term frequency 1. For a model that uses the term frequency, give
    /// the hasher an extractor weighted by it instead
    /// ([`weighted_by`](ndd_core::weights::FeatureExtractorExt::weighted_by)): its
    /// pushes carry the model's weights of the counted features.
    Custom(Arc<dyn FeatureWeights>),
}

impl fmt::Debug for Weighting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Weighting::Binary => f.write_str("Binary"),
            Weighting::TermFrequency => f.write_str("TermFrequency"),
            Weighting::TfIdf(t) => f.debug_tuple("TfIdf").field(t).finish(),
            Weighting::Custom(w) => f.debug_tuple("Custom").field(&w.scheme()).finish(),
        }
    }
}

impl Weighting {
    /// TF-IDF weights from document frequencies counted over a collection (build them
    /// with [`DocumentFrequencies::from_documents`] using the hasher's extractor, or
    /// load them with [`DocumentFrequencies::from_bytes`]).
    ///
    /// The statistics must count the same features the hasher extracts: building a
    /// hasher checks that their schemes agree. Statistics of fewer than two documents
    /// give every feature an idf of 0, hence all-zero signatures: count a collection.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::stats::DocumentFrequencies;
    /// use near_dup::shingle::WordShingler;
    /// use near_dup::simhash::{SimHasher, Weighting};
    ///
    /// let words = WordShingler::new(1)?;
    /// let corpus = ["the cat sat", "the dog ran", "the cat ran"];
    /// let stats = DocumentFrequencies::from_documents(&words, corpus);
    /// let h = SimHasher::builder().weighting(Weighting::tf_idf(stats)).build_with(words)?;
    /// assert_eq!(h.bits(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn tf_idf(stats: DocumentFrequencies) -> Self {
        Weighting::TfIdf(Arc::new(TfIdf::new(stats)))
    }

    /// User weights, one per distinct feature of a document, called with term
    /// frequency 1 (see [`Weighting::Custom`]).
    ///
    /// A weight that is NaN or infinite is not used: the feature contributes nothing,
    /// and [`SimHasher::try_finish_into`](crate::SimHasher::try_finish_into) reports
    /// it as [`Error::InvalidInput`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::simhash::{FnWeights, SimHasher, Weighting};
    /// let h = SimHasher::builder()
    ///     .weighting(Weighting::custom(FnWeights::new("all-ones", |_f: u64| 1.0)))
    ///     .build_for_features(near_dup::SchemeId::new("ids").finish())?;
    /// let binary = SimHasher::builder()
    ///     .weighting(Weighting::Binary)
    ///     .build_for_features(near_dup::SchemeId::new("ids").finish())?;
    /// // Weight 1 per distinct feature is the binary vector: same bits.
    /// let (a, b) = (h.sketch_features([1, 2, 2, 3]), binary.sketch_features([1, 2, 3]));
    /// assert_eq!(a.words(), b.words());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn custom<W: FeatureWeights + 'static>(weights: W) -> Self {
        Weighting::Custom(Arc::new(weights))
    }

    /// The scheme folded into signatures.
    pub(crate) fn scheme(&self) -> SchemeId {
        match self {
            Weighting::Binary => SchemeId::new("simhash-binary").finish(),
            Weighting::TermFrequency => SchemeId::new("simhash-tf").finish(),
            Weighting::TfIdf(t) => SchemeId::new("simhash-tfidf")
                .with(t.fingerprint())
                .finish(),
            Weighting::Custom(w) => SchemeId::new("simhash-custom")
                .with_scheme(w.scheme())
                .finish(),
        }
    }

    /// Whether repeats of a feature in a document count once.
    pub(crate) fn distinct(&self) -> bool {
        matches!(self, Weighting::Binary | Weighting::Custom(_))
    }
}

/// Checks that TF-IDF statistics count the features of `feature_scheme`.
pub(crate) fn check_stats(weighting: &Weighting, feature_scheme: SchemeId) -> Result<(), Error> {
    if let Weighting::TfIdf(t) = weighting {
        Error::check_schemes(t.stats().scheme(), feature_scheme)?;
    }
    Ok(())
}

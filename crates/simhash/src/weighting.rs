//! Feature weights: how much each feature of a document counts in its signature
//! (paper 000 Table 2 compares binary, TF-IDF and learned weights).

use std::fmt;
use std::sync::Arc;

use ndd_core::stats::DocumentFrequencies;
use ndd_core::{Error, SchemeId, hash::stable_hash64};

use ndd_core::math::stable_ln;

/// A weight for each feature hash: the learned weights of a model, a lexicon's
/// scores, or any function of the feature (plug it in with [`Weighting::custom`]).
///
/// `weight` is called once per distinct feature of a document. Weights may be negative
/// or zero (zero drops the feature); non-finite weights are not used (see
/// [`Weighting::custom`]).
///
/// # Example
///
/// ```
/// use ndd_core::SchemeId;
/// use ndd_simhash::FeatureWeights;
/// /// Halves the weight of features with an even hash.
/// struct Parity;
/// impl FeatureWeights for Parity {
///     fn weight(&self, feature: u64) -> f64 { if feature % 2 == 0 { 0.5 } else { 1.0 } }
///     fn scheme(&self) -> SchemeId { SchemeId::new("parity-weights").finish() }
/// }
/// assert_eq!(Parity.weight(4), 0.5);
/// ```
pub trait FeatureWeights: Send + Sync {
    /// The weight of `feature` in a document.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_simhash::{FeatureWeights, FnWeights};
    /// assert_eq!(FnWeights::new("half", |_f: u64| 0.5).weight(3), 0.5);
    /// ```
    fn weight(&self, feature: u64) -> f64;

    /// A fingerprint of these weights, folded into the scheme of every signature built
    /// with them (signatures under different weights refuse to compare).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_simhash::{FeatureWeights, FnWeights};
    /// let a = FnWeights::new("model-v1", |_f: u64| 1.0);
    /// let b = FnWeights::new("model-v2", |_f: u64| 1.0);
    /// assert_ne!(a.scheme(), b.scheme());
    /// ```
    fn scheme(&self) -> SchemeId;
}

/// [`FeatureWeights`] from a closure and a name that identifies it.
///
/// The name (and an optional version) is all the signature scheme knows about the
/// closure: give different closures different names.
///
/// # Example
///
/// ```
/// use ndd_simhash::{FeatureWeights, FnWeights};
/// let w = FnWeights::new("triple", |_f: u64| 3.0);
/// assert_eq!(w.weight(17), 3.0);
/// assert_ne!(w.scheme(), FnWeights::new("double", |_f: u64| 2.0).scheme());
/// ```
pub struct FnWeights<F> {
    scheme: SchemeId,
    f: F,
}

impl<F> fmt::Debug for FnWeights<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnWeights")
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

impl<F: Fn(u64) -> f64 + Send + Sync> FnWeights<F> {
    /// Weights `f`, identified by `name`.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_simhash::{FeatureWeights, FnWeights};
    /// assert_eq!(FnWeights::new("id-mod-3", |f: u64| (f % 3) as f64).weight(5), 2.0);
    /// ```
    pub fn new(name: &str, f: F) -> Self {
        FnWeights {
            scheme: SchemeId::new("simhash-fn-weights").with_str(name).finish(),
            f,
        }
    }
}

impl<F: Fn(u64) -> f64 + Send + Sync> FeatureWeights for FnWeights<F> {
    #[inline]
    fn weight(&self, feature: u64) -> f64 {
        (self.f)(feature)
    }
    fn scheme(&self) -> SchemeId {
        self.scheme
    }
}

/// How a [`SimHasher`](crate::SimHasher) weighs the features it extracts.
///
/// The signature approximates the angle between the documents' weighted feature
/// vectors; the weighting decides what those vectors are. Paper 000 (Hajishirzi, Yih
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
/// use ndd_simhash::{SimHasher, Weighting};
/// let h = SimHasher::builder().weighting(Weighting::Binary).build()?;
/// assert!(matches!(h.weighting(), Weighting::Binary));
/// assert!(matches!(Weighting::default(), Weighting::TermFrequency));
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Weighting {
    /// Weight 1 for each distinct feature of the document, however often it occurs:
    /// the document as a set, as MinHash sees it (the vectors of Charikar's baseline in
    /// paper 000 §2.3, "each unique term"). Costs a per-document set of the features
    /// seen (about 1.3× the sketching time of term frequency).
    Binary,
    /// Weight = the number of occurrences in the document (Manku et al.'s weighted
    /// features, with the frequency as weight). The default: each occurrence is added
    /// as it streams by, with no per-document set; for word 5-grams, which rarely
    /// repeat within a document, nearly the same vectors as [`Binary`](Self::Binary).
    #[default]
    TermFrequency,
    /// Weight = term frequency × `idf(f) = ln(N / df(f))` from collection statistics
    /// ([`Weighting::tf_idf`]); features never seen in the collection get the idf of
    /// the rarest (`df` taken as 1).
    TfIdf(Arc<TfIdf>),
    /// Weight = `w(f)` from user weights, once per distinct feature
    /// ([`Weighting::custom`]).
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
    /// use ndd_core::stats::DocumentFrequencies;
    /// use ndd_shingle::WordShingler;
    /// use ndd_simhash::{SimHasher, Weighting};
    ///
    /// let words = WordShingler::new(1)?;
    /// let corpus = ["the cat sat", "the dog ran", "the cat ran"];
    /// let stats = DocumentFrequencies::from_documents(&words, corpus);
    /// let h = SimHasher::builder().weighting(Weighting::tf_idf(stats)).build_with(words)?;
    /// assert_eq!(h.bits(), 64);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn tf_idf(stats: DocumentFrequencies) -> Self {
        Weighting::TfIdf(Arc::new(TfIdf::new(stats)))
    }

    /// User weights, one per distinct feature of a document.
    ///
    /// A weight that is NaN or infinite is not used: the feature contributes nothing,
    /// and [`SimHasher::try_finish_into`](crate::SimHasher::try_finish_into) reports
    /// it as [`Error::InvalidInput`].
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::Sketcher;
    /// use ndd_simhash::{FnWeights, SimHasher, Weighting};
    /// let h = SimHasher::builder()
    ///     .weighting(Weighting::custom(FnWeights::new("all-ones", |_f: u64| 1.0)))
    ///     .build_for_features(ndd_core::SchemeId::new("ids").finish())?;
    /// let binary = SimHasher::builder()
    ///     .weighting(Weighting::Binary)
    ///     .build_for_features(ndd_core::SchemeId::new("ids").finish())?;
    /// // Weight 1 per distinct feature is the binary vector: same bits.
    /// let (a, b) = (h.sketch_features([1, 2, 2, 3]), binary.sketch_features([1, 2, 3]));
    /// assert_eq!(a.words(), b.words());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn custom<W: FeatureWeights + 'static>(weights: W) -> Self {
        Weighting::Custom(Arc::new(weights))
    }

    /// The scheme folded into signatures.
    pub(crate) fn scheme(&self) -> SchemeId {
        match self {
            Weighting::Binary => SchemeId::new("simhash-binary").finish(),
            Weighting::TermFrequency => SchemeId::new("simhash-tf").finish(),
            Weighting::TfIdf(t) => SchemeId::new("simhash-tfidf").with(t.fingerprint).finish(),
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

/// Document-frequency statistics prepared for TF-IDF weighting: the statistics, a
/// fingerprint of their contents (so signatures under different statistics refuse to
/// compare), and a table of `idf` by `df`.
///
/// `idf(f) = ln(N / max(df(f), 1))` as [`DocumentFrequencies::idf`] defines it, with the
/// logarithm computed bit-identically on every platform (the library `ln` may differ in
/// its last bit between platforms, and these weights decide signature bits).
///
/// # Example
///
/// ```
/// use ndd_core::{stats::DocumentFrequencies, SchemeId};
/// use ndd_simhash::TfIdf;
/// let mut stats = DocumentFrequencies::new(SchemeId::new("w").finish());
/// stats.add_document(&[1, 2]);
/// stats.add_document(&[1]);
/// let t = TfIdf::new(stats);
/// assert_eq!(t.idf(1), 0.0);
/// assert!((t.idf(2) - 2f64.ln()).abs() < 1e-15);
/// ```
pub struct TfIdf {
    stats: DocumentFrequencies,
    fingerprint: u64,
    /// `idf` for `df` in `0..table.len()` (entry 0 is that of `df = 1`).
    table: Vec<f64>,
    /// The features with `df ≥ 2` in an open-addressing table (key 0 = empty slot):
    /// every other feature, seen once or never, has the idf of `df = 1`. Most features
    /// of a large collection occur in one document, so this table is a fraction of the
    /// statistics' size and the per-feature lookup mostly stays in cache.
    keys: Vec<u64>,
    dfs: Vec<u64>,
    shift: u32,
    /// `df` of the feature hash 0, if at least 2.
    zero_df: u64,
}

impl fmt::Debug for TfIdf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TfIdf")
            .field("stats", &self.stats)
            .field("fingerprint", &format_args!("{:016x}", self.fingerprint))
            .finish()
    }
}

/// Precomputed `idf` values for `df` below this.
const IDF_TABLE: u64 = 4096;

impl TfIdf {
    /// Prepares `stats` (fingerprints its contents: O(n log n) once).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::{stats::DocumentFrequencies, SchemeId};
    /// let t = ndd_simhash::TfIdf::new(DocumentFrequencies::new(SchemeId::new("w").finish()));
    /// assert_eq!(t.idf(5), 0.0); // no documents counted
    /// ```
    #[must_use]
    pub fn new(stats: DocumentFrequencies) -> Self {
        let fingerprint = stable_hash64(&stats.to_bytes(), 0);
        let n = stats.num_docs();
        let table = (0..IDF_TABLE.min(n.saturating_add(1)))
            .map(|df| idf_of(n, df))
            .collect();
        let common = stats.iter().filter(|&(_, df)| df >= 2).count();
        let size = (2 * common).next_power_of_two().max(16);
        let shift = 64 - size.trailing_zeros();
        let (mut keys, mut dfs) = (vec![0u64; size], vec![0u64; size]);
        let mut zero_df = 0;
        for (f, df) in stats.iter().filter(|&(_, df)| df >= 2) {
            if f == 0 {
                zero_df = df;
                continue;
            }
            let mut i = slot(f, shift);
            while keys[i] != 0 {
                i = (i + 1) & (size - 1);
            }
            keys[i] = f;
            dfs[i] = df;
        }
        TfIdf {
            stats,
            fingerprint,
            table,
            keys,
            dfs,
            shift,
            zero_df,
        }
    }

    /// `df(feature)` if at least 2, else 1.
    #[inline]
    fn df_at_least_1(&self, feature: u64) -> u64 {
        if feature == 0 {
            return self.zero_df.max(1);
        }
        let mask = self.keys.len() - 1;
        let mut i = slot(feature, self.shift);
        loop {
            match self.keys.get(i) {
                Some(&k) if k == feature => return self.dfs.get(i).copied().unwrap_or(1),
                Some(&0) | None => return 1,
                Some(_) => i = (i + 1) & mask,
            }
        }
    }

    /// The statistics.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::{stats::DocumentFrequencies, SchemeId};
    /// let t = ndd_simhash::TfIdf::new(DocumentFrequencies::new(SchemeId::new("w").finish()));
    /// assert_eq!(t.stats().num_docs(), 0);
    /// ```
    #[must_use]
    pub fn stats(&self) -> &DocumentFrequencies {
        &self.stats
    }

    /// `ln(N / max(df, 1))` for `feature` (0 when no document was counted).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::{stats::DocumentFrequencies, SchemeId};
    /// let mut s = DocumentFrequencies::new(SchemeId::new("w").finish());
    /// for _ in 0..4 { s.add_document(&[7]); }
    /// s.add_document(&[8]);
    /// let t = ndd_simhash::TfIdf::new(s);
    /// assert!((t.idf(7) - (5.0f64 / 4.0).ln()).abs() < 1e-15);
    /// assert!((t.idf(999) - 5.0f64.ln()).abs() < 1e-15); // unseen: as rare as the rarest
    /// ```
    #[inline]
    #[must_use]
    pub fn idf(&self, feature: u64) -> f64 {
        let df = self.df_at_least_1(feature);
        match usize::try_from(df).ok().and_then(|i| self.table.get(i)) {
            Some(&v) => v,
            None => idf_of(self.stats.num_docs(), df),
        }
    }
}

/// Fibonacci hashing into a table of `2^(64 − shift)` slots.
#[inline(always)]
fn slot(f: u64, shift: u32) -> usize {
    // The shift leaves at most log2(table size) bits: below the table size.
    #[allow(clippy::cast_possible_truncation)]
    let i = (f.wrapping_mul(crate::values::GAMMA) >> shift) as usize;
    i
}

fn idf_of(n: u64, df: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    stable_ln(n as f64 / df.max(1) as f64)
}

/// Checks that TF-IDF statistics count the features of `feature_scheme`.
pub(crate) fn check_stats(weighting: &Weighting, feature_scheme: SchemeId) -> Result<(), Error> {
    if let Weighting::TfIdf(t) = weighting {
        Error::check_schemes(t.stats.scheme(), feature_scheme)?;
    }
    Ok(())
}

//! Collection statistics: how many documents contain each feature.
//!
//! [`DocumentFrequencies`] is counted by streaming over a corpus once and answers the
//! document frequency `df(f)`, the inverse document frequency `idf(f) = ln(N / df(f))`
//! and its normalized form `nidf(f) = idf(f) / ln(N)` in `[0, 1]`. Logarithms are
//! [`stable_ln`], so a lexicon cut from these values at a window
//! edge is the same on every platform. It is what TF-IDF
//! weighting (SimHash, weighted MinHash) and I-Match lexicons (an `nidf` window, paper
//! 003 §6.5) are built from. Statistics built on one collection are meant to be applied
//! to another, so they serialize to the versioned byte form of [`crate::codec`] and
//! remember the [`SchemeId`] of the features they counted.

use ahash::AHashMap;

use crate::codec::{ByteReader, ByteWriter};
use crate::math::stable_ln;
use crate::{Error, FeatureExtractor, FeatureSet, SchemeId};

const MAGIC: [u8; 4] = *b"NDF1";
const VERSION: u16 = 1;

/// The most documents [`DocumentFrequencies`] counts: 2^53, where every count is
/// still exact as an `f64` (IDF is computed in floating point). Loading a larger `N`
/// is an error, and so is a merge past it; a collection near it is far beyond any
/// real one (saved statistics claiming N near 2^64 made `merge` overflow).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::stats::MAX_COUNTED_DOCS, 1 << 53);
/// ```
pub const MAX_COUNTED_DOCS: u64 = 1 << 53;
/// Document frequencies of features over a collection: `N` documents, and for each
/// feature the number of documents that contain it at least once.
///
/// Features are the `u64` hashes a [`FeatureExtractor`] produces (word unigrams for
/// I-Match, k-gram shingles for TF-IDF sketches); the statistics carry the extractor's
/// [`SchemeId`], so applying them to features of another kind is an error where it can
/// be checked ([`merge`](Self::merge)) and a visible value ([`scheme`](Self::scheme))
/// elsewhere.
///
/// # Example
///
/// ```
/// use near_dup::stats::DocumentFrequencies;
/// use near_dup::SchemeId;
///
/// let scheme = SchemeId::new("demo-words").finish();
/// let mut stats = DocumentFrequencies::new(scheme);
/// stats.add_document(&[1, 2, 2, 3]); // a feature counts once per document
/// stats.add_document(&[2, 3]);
/// stats.add_document(&[3]);
/// stats.add_document(&[4]);
/// assert_eq!(stats.num_docs(), 4);
/// assert_eq!(stats.df(2), 2);
/// assert!((stats.idf(2) - (4.0f64 / 2.0).ln()).abs() < 1e-15);
/// assert_eq!(stats.nidf(1), 1.0); // in one document of four: the rarest possible
/// assert!((stats.nidf(3) - (4.0f64 / 3.0).ln() / 4.0f64.ln()).abs() < 1e-15);
/// ```
#[derive(Clone)]
pub struct DocumentFrequencies {
    scheme: SchemeId,
    num_docs: u64,
    df: AHashMap<u64, u64>,
    scratch: Vec<u64>,
}

impl std::fmt::Debug for DocumentFrequencies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocumentFrequencies")
            .field("scheme", &self.scheme)
            .field("num_docs", &self.num_docs)
            .field("features", &self.df.len())
            .finish()
    }
}

impl PartialEq for DocumentFrequencies {
    fn eq(&self, other: &Self) -> bool {
        self.scheme == other.scheme && self.num_docs == other.num_docs && self.df == other.df
    }
}

impl DocumentFrequencies {
    /// Empty statistics for features of `scheme` (the extractor's
    /// [`FeatureExtractor::scheme`]).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// assert_eq!((s.num_docs(), s.len()), (0, 0));
    /// ```
    #[must_use]
    pub fn new(scheme: SchemeId) -> Self {
        DocumentFrequencies {
            scheme,
            num_docs: 0,
            df: AHashMap::new(),
            scratch: Vec::new(),
        }
    }

    /// Counts every document of `docs` with `extractor`'s features.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::stats::DocumentFrequencies;
    /// use near_dup::{FeatureExtractor, FeatureSink, SchemeId};
    ///
    /// /// Each byte of the text is a feature.
    /// struct Bytes;
    /// impl FeatureExtractor for Bytes {
    ///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
    ///         doc.bytes().for_each(|b| sink.push(u64::from(b)));
    ///     }
    ///     fn scheme(&self) -> SchemeId { SchemeId::new("bytes").finish() }
    /// }
    /// let stats = DocumentFrequencies::from_documents(&Bytes, ["abc", "abd", "x"]);
    /// assert_eq!(stats.num_docs(), 3);
    /// assert_eq!(stats.df(u64::from(b'a')), 2);
    /// assert_eq!(stats.scheme(), Bytes.scheme());
    /// ```
    pub fn from_documents<'a, E, I>(extractor: &E, docs: I) -> Self
    where
        E: FeatureExtractor + ?Sized,
        I: IntoIterator<Item = &'a str>,
    {
        let mut stats = DocumentFrequencies::new(extractor.scheme());
        let mut features = Vec::new();
        for doc in docs {
            features.clear();
            extractor.extract(doc, &mut features);
            stats.add_document(&features);
        }
        stats
    }

    /// Counts one document given its features, in any order and with repeats (each
    /// distinct feature counts once). An empty document still counts towards `N`.
    /// Counts stop at [`MAX_COUNTED_DOCS`].
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// s.add_document(&[7, 7, 7]);
    /// s.add_document(&[]);
    /// assert_eq!((s.num_docs(), s.df(7)), (2, 1));
    /// ```
    pub fn add_document(&mut self, features: &[u64]) {
        self.scratch.clear();
        self.scratch.extend_from_slice(features);
        self.scratch.sort_unstable();
        self.scratch.dedup();
        // Counts stop at MAX_COUNTED_DOCS (N ≤ 2^53 < u64::MAX, df ≤ N), so the
        // statistics always save and load.
        self.num_docs = (self.num_docs + 1).min(MAX_COUNTED_DOCS);
        let cap = self.num_docs;
        for &f in &self.scratch {
            let n = self.df.entry(f).or_insert(0);
            *n = (*n + 1).min(cap);
        }
    }

    /// Counts one document given as a set of distinct features.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, FeatureSet, SchemeId};
    /// let mut s = DocumentFrequencies::new(SchemeId::new("w").finish());
    /// s.add_set(&FeatureSet::from_unsorted(vec![3, 1, 3]));
    /// assert_eq!((s.df(1), s.df(3), s.df(2)), (1, 1, 0));
    /// ```
    pub fn add_set(&mut self, set: &FeatureSet) {
        self.num_docs = (self.num_docs + 1).min(MAX_COUNTED_DOCS);
        let cap = self.num_docs;
        for &f in set.as_slice() {
            let n = self.df.entry(f).or_insert(0);
            *n = (*n + 1).min(cap);
        }
    }

    /// Adds the counts of `other` (statistics of another part of the same collection,
    /// counted in parallel or on another machine).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the two count features of different schemes;
    /// [`Error::InvalidInput`] when the merged collection would count more than
    /// [`MAX_COUNTED_DOCS`] documents (`self` is unchanged then).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let scheme = SchemeId::new("w").finish();
    /// let (mut a, mut b) = (DocumentFrequencies::new(scheme), DocumentFrequencies::new(scheme));
    /// a.add_document(&[1, 2]);
    /// b.add_document(&[2]);
    /// a.merge(&b)?;
    /// assert_eq!((a.num_docs(), a.df(2)), (2, 2));
    /// let other = DocumentFrequencies::new(SchemeId::new("chars").finish());
    /// assert!(a.merge(&other).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn merge(&mut self, other: &DocumentFrequencies) -> Result<(), Error> {
        Error::check_schemes(self.scheme, other.scheme)?;
        let total = self
            .num_docs
            .checked_add(other.num_docs)
            .filter(|&n| n <= MAX_COUNTED_DOCS)
            .ok_or_else(|| {
                Error::invalid_input(format!(
                    "{} + {} documents is more than the {MAX_COUNTED_DOCS} counted",
                    self.num_docs, other.num_docs
                ))
            })?;
        self.num_docs = total;
        // Each df is at most its part's N, so the sums stay at most `total`.
        for (&f, &n) in &other.df {
            let d = self.df.entry(f).or_insert(0);
            *d = d.saturating_add(n);
        }
        Ok(())
    }

    /// The scheme of the features counted.
    ///
    /// # Example
    ///
    /// ```
    /// let id = near_dup::SchemeId::new("w").finish();
    /// assert_eq!(near_dup::stats::DocumentFrequencies::new(id).scheme(), id);
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// The number of documents counted, `N`.
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// s.add_document(&[1]);
    /// assert_eq!(s.num_docs(), 1);
    /// ```
    #[must_use]
    pub fn num_docs(&self) -> u64 {
        self.num_docs
    }

    /// The number of distinct features seen.
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// s.add_document(&[1, 2, 1]);
    /// assert_eq!(s.len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.df.len()
    }

    /// Whether no feature has been seen.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// assert!(s.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.df.is_empty()
    }

    /// The number of documents that contain `feature` (0 for a feature never seen).
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// s.add_document(&[5]);
    /// assert_eq!((s.df(5), s.df(6)), (1, 0));
    /// ```
    #[must_use]
    pub fn df(&self, feature: u64) -> u64 {
        self.df.get(&feature).copied().unwrap_or(0)
    }

    /// The inverse document frequency `ln(N / df)` (by
    /// [`stable_ln`]), with `df` taken as 1 for a feature
    /// never seen (an unseen feature is as rare as the rarest seen one). 0 when no
    /// document was counted.
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// for doc in [&[1u64, 2][..], &[1], &[1], &[1]] {
    ///     s.add_document(doc);
    /// }
    /// assert_eq!(s.idf(1), 0.0); // in every document: carries no information
    /// assert!((s.idf(2) - 4.0f64.ln()).abs() < 1e-15);
    /// assert_eq!(s.idf(99), s.idf(2)); // unseen: as rare as the rarest
    /// ```
    #[must_use]
    pub fn idf(&self, feature: u64) -> f64 {
        if self.num_docs == 0 {
            return 0.0;
        }
        let df = self.df(feature).max(1);
        stable_ln(self.num_docs as f64 / df as f64)
    }

    /// The normalized inverse document frequency `idf / ln(N)`, in `[0, 1]`: 0 for a
    /// feature in every document, 1 for one in a single document (or never seen). This
    /// is the scale of I-Match's lexicon windows (Kołcz and Chowdhury, The Journal of Supercomputing 2008, §6.5: `[0.2, 0.8]` for web
    /// text). 0 when fewer than two documents were counted (nothing can be told apart).
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// for i in 0..100u64 {
    ///     s.add_document(&[0, 1 + i % 10]); // 0 everywhere, 1..=10 in a tenth each
    /// }
    /// assert_eq!(s.nidf(0), 0.0);
    /// assert!((s.nidf(1) - 0.5).abs() < 1e-12); // ln(10) / ln(100)
    /// assert_eq!(s.nidf(12345), 1.0);
    /// ```
    #[must_use]
    pub fn nidf(&self, feature: u64) -> f64 {
        if self.num_docs < 2 {
            return 0.0;
        }
        self.idf(feature) / stable_ln(self.num_docs as f64)
    }

    /// Every `(feature, df)` counted, in no particular order.
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::stats::DocumentFrequencies::new(near_dup::SchemeId::new("w").finish());
    /// s.add_document(&[2, 1]);
    /// s.add_document(&[2]);
    /// let mut all: Vec<(u64, u64)> = s.iter().collect();
    /// all.sort();
    /// assert_eq!(all, vec![(1, 1), (2, 2)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.df.iter().map(|(&f, &n)| (f, n))
    }

    /// The versioned byte form (see [`crate::codec`]): the scheme, `N`, and the
    /// `(feature, df)` pairs sorted by feature, so equal statistics give equal bytes.
    /// 16 bytes per feature plus a fixed 46.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let mut s = DocumentFrequencies::new(SchemeId::new("w").finish());
    /// s.add_document(&[1, 2]);
    /// let bytes = s.to_bytes();
    /// assert_eq!(bytes.len(), 46 + 2 * 16);
    /// assert_eq!(DocumentFrequencies::from_bytes(&bytes)?, s);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut entries: Vec<(u64, u64)> = self.iter().collect();
        entries.sort_unstable();
        let (features, counts): (Vec<u64>, Vec<u64>) = entries.into_iter().unzip();
        let mut w = ByteWriter::new(MAGIC, VERSION);
        w.u64(self.scheme.as_u64());
        w.u64(self.num_docs);
        w.u64_slice(&features);
        w.u64_slice(&counts);
        w.finish()
    }

    /// Reads statistics written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, and for
    /// contents no counting could produce (unsorted or repeated features, a `df` of 0
    /// or above `N`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let mut bytes = DocumentFrequencies::new(SchemeId::new("w").finish()).to_bytes();
    /// bytes[7] ^= 0x10;
    /// assert!(DocumentFrequencies::from_bytes(&bytes).is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let scheme = SchemeId::from_u64(r.u64()?);
        let num_docs = r.u64()?;
        if num_docs > MAX_COUNTED_DOCS {
            return Err(Error::corrupt_data(format!(
                "N = {num_docs} documents, more than the {MAX_COUNTED_DOCS} counted"
            )));
        }
        let features = r.u64_vec()?;
        let counts = r.u64_vec()?;
        r.finish()?;
        if features.len() != counts.len() {
            return Err(Error::corrupt_data(
                "feature and count lists differ in length",
            ));
        }
        if features.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::corrupt_data("features are not strictly increasing"));
        }
        if counts.iter().any(|&n| n == 0 || n > num_docs) {
            return Err(Error::corrupt_data("a document frequency is 0 or above N"));
        }
        let mut df = AHashMap::with_capacity(features.len());
        df.extend(features.into_iter().zip(counts));
        Ok(DocumentFrequencies {
            scheme,
            num_docs,
            df,
            scratch: Vec::new(),
        })
    }
}

impl crate::codec::ByteForm for DocumentFrequencies {
    fn to_bytes(&self) -> Vec<u8> {
        DocumentFrequencies::to_bytes(self)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        DocumentFrequencies::from_bytes(bytes)
    }
}

//! Feature weights: how much each feature of a document counts in a weighted sketch
//! (Hajishirzi, Yih and Kołcz, SIGIR 2010, Table 2 compares binary, TF-IDF and learned weights).
//!
//! * [`FeatureWeights`] — the weight-model contract: a weight from the feature hash
//!   and its count in the document. TF-IDF ([`TfIdf`]), closures ([`FnWeights`]) and
//!   learned models implement it.
//! * [`WeightedExtractor`] — any [`FeatureExtractor`] plus any weight model is again a
//!   [`FeatureExtractor`], one that pushes each distinct feature once through
//!   [`FeatureSink::push_weighted`]. Every weighted sketcher (SimHash, ICWS and
//!   bucketized MinHash) takes weights this one way; build it with
//!   [`FeatureExtractorExt::weighted_by`].

use std::fmt;

use crate::math::stable_ln;
use crate::stats::DocumentFrequencies;
use crate::{FeatureExtractor, FeatureSink, SchemeId, hash::stable_hash64};

/// The golden ratio in 64 bits (Fibonacci hashing).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// A weight model: the weight of a feature in a document, from the feature hash and
/// its term frequency (the number of times the extractor produced it in that
/// document).
///
/// This is the contract every source of weights implements: TF-IDF ([`TfIdf`]: `tf ×
/// idf(f)`), closures ([`FnWeights`]), a lexicon's scores, and learned models such as
/// ANDD's linear model over per-k-gram features (Hajishirzi, Yih and Kołcz, SIGIR 2010, §3), which may use the term
/// frequency as one of its inputs. Sketchers receive the result through
/// [`WeightedExtractor`], once per distinct feature.
///
/// Weights may be negative or zero (zero drops the feature from every weighted
/// sketch); a NaN or infinite weight is passed on as it is, and each sketcher documents
/// what it does with one (SimHash skips it and reports it through its checked,
/// fallible path; ICWS skips it).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::weights::FeatureWeights;
/// /// Halves the weight of features with an even hash; counts repeats.
/// struct Parity;
/// impl FeatureWeights for Parity {
///     fn weight(&self, feature: u64, tf: u32) -> f64 {
///         f64::from(tf) * if feature % 2 == 0 { 0.5 } else { 1.0 }
///     }
///     fn scheme(&self) -> SchemeId { SchemeId::new("parity-weights").finish() }
/// }
/// assert_eq!(Parity.weight(4, 3), 1.5);
/// ```
pub trait FeatureWeights: Send + Sync {
    /// The weight of `feature`, which occurs `tf ≥ 1` times in the document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::weights::{FeatureWeights, FnWeights};
    /// assert_eq!(FnWeights::new("half", |_f: u64| 0.5).weight(3, 1), 0.5);
    /// ```
    fn weight(&self, feature: u64, tf: u32) -> f64;

    /// A fingerprint of these weights, folded into the scheme of every signature built
    /// with them (signatures under different weights refuse to compare).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::weights::{FeatureWeights, FnWeights};
    /// let a = FnWeights::new("model-v1", |_f: u64| 1.0);
    /// let b = FnWeights::new("model-v2", |_f: u64| 1.0);
    /// assert_ne!(a.scheme(), b.scheme());
    /// ```
    fn scheme(&self) -> SchemeId;
}

/// Forwards [`FeatureWeights`] through pointer types to the weights they point at.
macro_rules! forward_weights {
    ($($pointer:ty),+) => {$(
        impl<W: FeatureWeights + ?Sized> FeatureWeights for $pointer {
            #[inline]
            fn weight(&self, feature: u64, tf: u32) -> f64 {
                (**self).weight(feature, tf)
            }
            #[inline]
            fn scheme(&self) -> SchemeId {
                (**self).scheme()
            }
        }
    )+};
}

forward_weights!(&W, Box<W>, std::sync::Arc<W>);

/// [`FeatureWeights`] from a closure of the feature hash (the term frequency is not
/// used: each distinct feature weighs `f(feature)`) and a name that identifies it.
///
/// The name is all the signature scheme knows about the closure: give different
/// closures different names. For a weight that depends on the term frequency,
/// implement [`FeatureWeights`] directly.
///
/// # Example
///
/// ```
/// use near_dup::weights::{FeatureWeights, FnWeights};
/// let w = FnWeights::new("triple", |_f: u64| 3.0);
/// assert_eq!(w.weight(17, 5), 3.0);
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
    /// use near_dup::weights::{FeatureWeights, FnWeights};
    /// assert_eq!(FnWeights::new("id-mod-3", |f: u64| (f % 3) as f64).weight(5, 1), 2.0);
    /// ```
    pub fn new(name: &str, f: F) -> Self {
        FnWeights {
            // The tag predates the move from ndd-simhash; kept so schemes (and the
            // signatures that carry them) do not change.
            scheme: SchemeId::new("simhash-fn-weights").with_str(name).finish(),
            f,
        }
    }
}

impl<F: Fn(u64) -> f64 + Send + Sync> FeatureWeights for FnWeights<F> {
    #[inline]
    fn weight(&self, feature: u64, _tf: u32) -> f64 {
        (self.f)(feature)
    }
    fn scheme(&self) -> SchemeId {
        self.scheme
    }
}

/// A [`FeatureExtractor`] whose features carry weights from a [`FeatureWeights`]
/// model: each distinct feature of a document is pushed once, with
/// [`FeatureSink::push_weighted`]`(f, weights.weight(f, tf))`, in increasing order of
/// the feature hash (so sums over the features do not depend on document order).
///
/// Build it with [`FeatureExtractorExt::weighted_by`]. Its scheme folds in the
/// extractor's and the model's, so signatures of differently weighted features refuse
/// to compare. Cost: the document's features are collected, sorted and counted, one
/// buffer allocated per document (the per-token path stays the extractor's own).
///
/// # Example
///
/// ```
/// use near_dup::weights::{FeatureExtractorExt, FeatureWeights};
/// use near_dup::{FeatureExtractor, FeatureSink, SchemeId, Weighted};
/// struct Bytes;
/// impl FeatureExtractor for Bytes {
///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
///         doc.bytes().for_each(|b| sink.push(u64::from(b)));
///     }
///     fn scheme(&self) -> SchemeId { SchemeId::new("bytes").finish() }
/// }
/// /// Term frequency squared.
/// struct TfSquared;
/// impl FeatureWeights for TfSquared {
///     fn weight(&self, _f: u64, tf: u32) -> f64 { f64::from(tf * tf) }
///     fn scheme(&self) -> SchemeId { SchemeId::new("tf2").finish() }
/// }
/// let weighted = Bytes.weighted_by(TfSquared);
/// let mut out: Vec<Weighted> = Vec::new();
/// weighted.extract("abca", &mut out);
/// let pairs: Vec<(u64, f64)> = out.iter().map(|w| (w.feature, w.weight)).collect();
/// assert_eq!(pairs, [(97, 4.0), (98, 1.0), (99, 1.0)]);
/// assert_ne!(weighted.scheme(), Bytes.scheme());
/// ```
#[derive(Debug, Clone)]
pub struct WeightedExtractor<E, W> {
    extractor: E,
    weights: W,
}

impl<E, W> WeightedExtractor<E, W> {
    /// `extractor`'s features weighted by `weights` (the same as
    /// [`FeatureExtractorExt::weighted_by`]).
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{FeatureExtractor as _Fe, FeatureSink as _Fs, SchemeId as _Sid};
    /// # struct Bytes;
    /// # impl _Fe for Bytes {
    /// #     fn extract<S: _Fs + ?Sized>(&self, doc: &str, sink: &mut S) {
    /// #         doc.bytes().for_each(|b| sink.push(u64::from(b)));
    /// #     }
    /// #     fn scheme(&self) -> _Sid { _Sid::new("bytes").finish() }
    /// # }
    /// use near_dup::weights::{FnWeights, WeightedExtractor};
    /// use near_dup::weights::FeatureWeights;
    /// let w = WeightedExtractor::new(Bytes, FnWeights::new("one", |_f: u64| 1.0));
    /// assert_eq!(w.weights().weight(9, 2), 1.0);
    /// ```
    pub fn new(extractor: E, weights: W) -> Self {
        WeightedExtractor { extractor, weights }
    }

    /// The unweighted extractor.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{FeatureExtractor as _Fe, FeatureSink as _Fs, SchemeId as _Sid};
    /// # struct Bytes;
    /// # impl _Fe for Bytes {
    /// #     fn extract<S: _Fs + ?Sized>(&self, doc: &str, sink: &mut S) {
    /// #         doc.bytes().for_each(|b| sink.push(u64::from(b)));
    /// #     }
    /// #     fn scheme(&self) -> _Sid { _Sid::new("bytes").finish() }
    /// # }
    /// use near_dup::weights::{FeatureExtractorExt, FnWeights};
    /// use near_dup::{FeatureExtractor};
    /// let w = Bytes.weighted_by(FnWeights::new("one", |_f: u64| 1.0));
    /// assert_eq!(w.extractor().scheme(), Bytes.scheme());
    /// ```
    pub fn extractor(&self) -> &E {
        &self.extractor
    }

    /// The weight model.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{FeatureExtractor as _Fe, FeatureSink as _Fs, SchemeId as _Sid};
    /// # struct Bytes;
    /// # impl _Fe for Bytes {
    /// #     fn extract<S: _Fs + ?Sized>(&self, doc: &str, sink: &mut S) {
    /// #         doc.bytes().for_each(|b| sink.push(u64::from(b)));
    /// #     }
    /// #     fn scheme(&self) -> _Sid { _Sid::new("bytes").finish() }
    /// # }
    /// use near_dup::weights::{FeatureExtractorExt, FeatureWeights, FnWeights};
    /// let w = Bytes.weighted_by(FnWeights::new("two", |_f: u64| 2.0));
    /// assert_eq!(w.weights().weight(1, 1), 2.0);
    /// ```
    pub fn weights(&self) -> &W {
        &self.weights
    }
}

impl<E: FeatureExtractor, W: FeatureWeights> FeatureExtractor for WeightedExtractor<E, W> {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        let mut features = self.extractor.features(doc);
        features.sort_unstable();
        let mut rest = features.as_slice();
        while let Some(&f) = rest.first() {
            let run = rest.iter().take_while(|&&g| g == f).count();
            let tf = u32::try_from(run).unwrap_or(u32::MAX);
            sink.push_weighted(f, self.weights.weight(f, tf));
            rest = rest.get(run..).unwrap_or_default();
        }
    }

    fn scheme(&self) -> SchemeId {
        SchemeId::new("weighted-features")
            .with_scheme(self.extractor.scheme())
            .with_scheme(self.weights.scheme())
            .finish()
    }
}

/// Combinators on every [`FeatureExtractor`] (blanket-implemented; call them, there is
/// nothing to implement).
///
/// # Example
///
/// ```
/// # use near_dup::{FeatureExtractor as _Fe, FeatureSink as _Fs, SchemeId as _Sid};
/// # struct Bytes;
/// # impl _Fe for Bytes {
/// #     fn extract<S: _Fs + ?Sized>(&self, doc: &str, sink: &mut S) {
/// #         doc.bytes().for_each(|b| sink.push(u64::from(b)));
/// #     }
/// #     fn scheme(&self) -> _Sid { _Sid::new("bytes").finish() }
/// # }
/// use near_dup::weights::{FeatureExtractorExt, FnWeights};
/// use near_dup::{FeatureExtractor};
/// let w = Bytes.weighted_by(FnWeights::new("one", |_f: u64| 1.0));
/// assert_ne!(w.scheme(), Bytes.scheme());
/// ```
pub trait FeatureExtractorExt: FeatureExtractor {
    /// This extractor's features weighted by `weights`: a [`WeightedExtractor`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::stats::DocumentFrequencies;
    /// use near_dup::weights::{FeatureExtractorExt, TfIdf};
    /// use near_dup::{FeatureExtractor, FeatureSink, SchemeId, Weighted};
    /// struct Words;
    /// impl FeatureExtractor for Words {
    ///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
    ///         doc.split(' ').for_each(|w| sink.push(near_dup::hash::stable_hash64(w.as_bytes(), 0)));
    ///     }
    ///     fn scheme(&self) -> SchemeId { SchemeId::new("words").finish() }
    /// }
    /// let stats = DocumentFrequencies::from_documents(&Words, ["a b", "a c"]);
    /// let tfidf = Words.weighted_by(TfIdf::new(stats));
    /// let mut out: Vec<Weighted> = Vec::new();
    /// tfidf.extract("a a b", &mut out);
    /// // "a" is in every document (idf 0); "b" in one of two (idf ln 2).
    /// let w: Vec<f64> = out.iter().map(|w| w.weight).collect();
    /// assert!(w.contains(&0.0) && w.iter().any(|&x| (x - 2f64.ln()).abs() < 1e-15));
    /// ```
    fn weighted_by<W: FeatureWeights>(self, weights: W) -> WeightedExtractor<Self, W>
    where
        Self: Sized,
    {
        WeightedExtractor::new(self, weights)
    }
}

impl<E: FeatureExtractor + ?Sized> FeatureExtractorExt for E {}

/// Document-frequency statistics prepared for TF-IDF weighting (a [`FeatureWeights`]
/// model: `weight(f, tf) = tf · idf(f)`): the statistics, a
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
/// use near_dup::{stats::DocumentFrequencies, SchemeId};
/// use near_dup::weights::TfIdf;
/// let mut stats = DocumentFrequencies::new(SchemeId::new("w").finish());
/// stats.add_document(&[1, 2]);
/// stats.add_document(&[1]);
/// let t = TfIdf::new(stats);
/// assert_eq!(t.idf(1), 0.0);
/// assert!((t.idf(2) - 2f64.ln()).abs() < 1e-15);
/// ```
#[derive(Clone)]
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
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let t = near_dup::weights::TfIdf::new(DocumentFrequencies::new(SchemeId::new("w").finish()));
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

    /// A fingerprint of the statistics' contents (their byte form hashed), folded
    /// into the scheme of signatures weighted by them.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, weights::TfIdf, SchemeId};
    /// let mut s = DocumentFrequencies::new(SchemeId::new("w").finish());
    /// let empty = TfIdf::new(s.clone()).fingerprint();
    /// s.add_document(&[1]);
    /// assert_ne!(TfIdf::new(s).fingerprint(), empty);
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The statistics.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let t = near_dup::weights::TfIdf::new(DocumentFrequencies::new(SchemeId::new("w").finish()));
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
    /// use near_dup::{stats::DocumentFrequencies, SchemeId};
    /// let mut s = DocumentFrequencies::new(SchemeId::new("w").finish());
    /// for _ in 0..4 { s.add_document(&[7]); }
    /// s.add_document(&[8]);
    /// let t = near_dup::weights::TfIdf::new(s);
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
    let i = (f.wrapping_mul(GAMMA) >> shift) as usize;
    i
}

fn idf_of(n: u64, df: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    stable_ln(n as f64 / df.max(1) as f64)
}

impl FeatureWeights for TfIdf {
    /// `tf · idf(f)`.
    #[inline]
    fn weight(&self, feature: u64, tf: u32) -> f64 {
        f64::from(tf) * self.idf(feature)
    }

    fn scheme(&self) -> SchemeId {
        SchemeId::new("tf-idf").with(self.fingerprint).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Weighted;

    /// Features given as space-separated decimal numbers.
    struct Numbers;
    impl FeatureExtractor for Numbers {
        fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
            doc.split_whitespace()
                .filter_map(|w| w.parse().ok())
                .for_each(|f| sink.push(f));
        }
        fn scheme(&self) -> SchemeId {
            SchemeId::new("numbers").finish()
        }
    }

    #[test]
    fn weighted_extractor_counts_terms_like_a_map() {
        struct TfTimesFeature;
        impl FeatureWeights for TfTimesFeature {
            fn weight(&self, f: u64, tf: u32) -> f64 {
                f64::from(tf) * f as f64
            }
            fn scheme(&self) -> SchemeId {
                SchemeId::new("t").finish()
            }
        }
        let doc = "5 3 5 0 9 3 5 18446744073709551615";
        // Oracle: a BTreeMap of counts.
        let mut counts = std::collections::BTreeMap::<u64, u32>::new();
        for f in Numbers.features(doc) {
            *counts.entry(f).or_default() += 1;
        }
        let expected: Vec<Weighted> = counts
            .iter()
            .map(|(&f, &tf)| Weighted {
                feature: f,
                weight: f64::from(tf) * f as f64,
            })
            .collect();
        let mut got: Vec<Weighted> = Vec::new();
        Numbers.weighted_by(TfTimesFeature).extract(doc, &mut got);
        assert_eq!(got, expected);
        let mut none: Vec<Weighted> = Vec::new();
        Numbers.weighted_by(TfTimesFeature).extract("", &mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn tf_idf_weight_is_tf_times_the_stats_idf() {
        let mut stats = DocumentFrequencies::new(Numbers.scheme());
        stats.add_document(&[1, 2]);
        stats.add_document(&[1, 3]);
        stats.add_document(&[1, 2, 0]);
        let t = TfIdf::new(stats.clone());
        for f in [0u64, 1, 2, 3, 4] {
            for tf in [1u32, 2, 7] {
                let expected = f64::from(tf) * stats.idf(f);
                assert!((t.weight(f, tf) - expected).abs() < 1e-12, "f={f} tf={tf}");
            }
        }
    }
}

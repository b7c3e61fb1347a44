//! [`ExactSet`]: the exact "signature" (the feature set itself), and its sketcher.

use crate::{
    DocSketcher, Error, Estimate, FeatureExtractor, FeatureSet, SchemeId, Signature, Sketcher,
};

/// The feature set of a document, stamped with the scheme of its features: the
/// uncompressed representation whose similarity is the exact Jaccard coefficient.
///
/// It is the reference every sketch is compared with, and the right choice for small
/// collections where storing every shingle is affordable.
///
/// # Example
///
/// ```
/// use near_dup::{ExactSetSketcher, SchemeId, Signature, Sketcher};
/// let sk = ExactSetSketcher::new(SchemeId::new("ids").finish());
/// let a = sk.sketch_features([1, 2, 3, 4]);
/// let b = sk.sketch_features([1, 2, 3, 5, 6, 7, 8]);
/// assert_eq!(a.similarity(&b)?.value(), 3.0 / 8.0);
/// assert_eq!(a.similarity(&b)?.std_error(), 0.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExactSet {
    scheme: SchemeId,
    set: FeatureSet,
}

impl ExactSet {
    /// Wraps a feature set with the scheme of the extractor that produced it.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSet, FeatureSet, SchemeId};
    /// let s = ExactSet::new(SchemeId::new("f").finish(), FeatureSet::from_unsorted(vec![2, 1]));
    /// assert_eq!(s.set().as_slice(), &[1, 2]);
    /// ```
    #[must_use]
    pub fn new(scheme: SchemeId, set: FeatureSet) -> Self {
        ExactSet { scheme, set }
    }

    /// The features.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSetSketcher, SchemeId, Sketcher};
    /// let s = ExactSetSketcher::new(SchemeId::new("f").finish()).sketch_features([5, 5]);
    /// assert_eq!(s.set().len(), 1);
    /// ```
    #[must_use]
    pub fn set(&self) -> &FeatureSet {
        &self.set
    }

    /// Containment of this document's features in `other`'s (`|A ∩ B| / |A|`).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSetSketcher, SchemeId, Sketcher};
    /// let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
    /// let part = sk.sketch_features([1, 2]);
    /// let whole = sk.sketch_features([1, 2, 3, 4]);
    /// assert_eq!(part.containment_in(&whole)?, 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn containment_in(&self, other: &ExactSet) -> Result<f64, Error> {
        self.check_compatible(other)?;
        Ok(crate::containment(
            self.set.as_slice(),
            other.set.as_slice(),
        ))
    }
}

impl Signature for ExactSet {
    #[inline]
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        self.check_compatible(other)?;
        Ok(Estimate::exact(crate::jaccard(
            self.set.as_slice(),
            other.set.as_slice(),
        )))
    }
}

/// The extractor placeholder of an [`ExactSetSketcher`] fed with pre-extracted
/// features only.
///
/// # Example
///
/// ```
/// use near_dup::{ExactSetSketcher, SchemeId};
/// let _sk: ExactSetSketcher = ExactSetSketcher::new(SchemeId::new("external").finish());
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct ExternalFeatures;

/// Builds [`ExactSet`]s: collects a document's features and sorts them into a set.
///
/// `ExactSetSketcher::new(scheme)` takes pre-extracted features (stamped with the
/// scheme you name for them); `ExactSetSketcher::builder().build_with(e)` also
/// sketches text through `e` ([`DocSketcher`]), in the words of every configurable
/// sketcher (`MinHasher::builder().build_with(e)`; `docs/decisions.md`, "One
/// constructor vocabulary").
///
/// # Example
///
/// ```
/// use near_dup::{ExactSetSketcher, SchemeId, Sketcher};
/// let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
/// assert_eq!(sk.sketch_features([3, 1, 3]).set().as_slice(), &[1, 3]);
/// ```
#[derive(Debug, Clone)]
pub struct ExactSetSketcher<E = ExternalFeatures> {
    extractor: E,
    feature_scheme: SchemeId,
    scheme: SchemeId,
}

impl ExactSetSketcher<ExternalFeatures> {
    /// A sketcher for features produced elsewhere, identified by `feature_scheme`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSetSketcher, SchemeId, Sketcher};
    /// let a = ExactSetSketcher::new(SchemeId::new("f").finish());
    /// let b = ExactSetSketcher::new(SchemeId::new("g").finish());
    /// assert_ne!(a.scheme(), b.scheme());
    /// ```
    #[must_use]
    pub fn new(feature_scheme: SchemeId) -> Self {
        ExactSetSketcher {
            extractor: ExternalFeatures,
            feature_scheme,
            scheme: scheme_for(feature_scheme),
        }
    }
}

impl<E: FeatureExtractor> ExactSetSketcher<E> {
    /// A sketcher that extracts features from text with `extractor`. Deprecated:
    /// the same as [`ExactSetSketcher::builder`]`().build_with(extractor)`, the words
    /// of every sketcher's builder.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{DocSketcher, ExactSetSketcher, FeatureExtractor, FeatureSink, SchemeId};
    /// struct Len;
    /// impl FeatureExtractor for Len {
    ///     fn extract<S: FeatureSink + ?Sized>(&self, d: &str, s: &mut S) { s.push(d.len() as u64) }
    ///     fn scheme(&self) -> SchemeId { SchemeId::new("len").finish() }
    /// }
    /// #[allow(deprecated)]
    /// let sk = ExactSetSketcher::with_extractor(Len);
    /// assert_eq!(sk.sketch("abc").set().as_slice(), &[3]);
    /// ```
    #[must_use]
    #[deprecated(note = "use `ExactSetSketcher::builder().build_with(extractor)`")]
    pub fn with_extractor(extractor: E) -> Self {
        ExactSetSketcher::builder().build_with(extractor)
    }
}

/// Configures an [`ExactSetSketcher`]; start with [`ExactSetSketcher::builder`]. An
/// exact set has no parameters: the builder only chooses the features, by the
/// terminal calls every sketcher builder has (`build_with` for text through an
/// extractor, `build_for_features` for features extracted elsewhere).
///
/// # Example
///
/// ```
/// use near_dup::{DocSketcher, ExactSetSketcher};
/// use near_dup::shingle::WordShingler;
/// let sk = ExactSetSketcher::builder().build_with(WordShingler::new(2)?);
/// assert_eq!(sk.sketch("a b c").set().len(), 2);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
#[must_use]
pub struct ExactSetSketcherBuilder;

impl ExactSetSketcher {
    /// Starts a configuration.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSetSketcher, SchemeId, Sketcher};
    /// let scheme = SchemeId::new("f").finish();
    /// let sk = ExactSetSketcher::builder().build_for_features(scheme);
    /// assert_eq!(sk.scheme(), ExactSetSketcher::new(scheme).scheme());
    /// ```
    pub fn builder() -> ExactSetSketcherBuilder {
        ExactSetSketcherBuilder
    }
}

impl ExactSetSketcherBuilder {
    /// A sketcher for features produced elsewhere, identified by `feature_scheme`
    /// (as [`ExactSetSketcher::new`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSetSketcher, SchemeId, Sketcher};
    /// let sk = ExactSetSketcher::builder().build_for_features(SchemeId::new("f").finish());
    /// assert_eq!(sk.sketch_features([2, 2, 1]).set().as_slice(), &[1, 2]);
    /// ```
    #[must_use]
    pub fn build_for_features(self, feature_scheme: SchemeId) -> ExactSetSketcher {
        ExactSetSketcher::new(feature_scheme)
    }

    /// A sketcher that extracts features from text with `extractor`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{DocSketcher, ExactSetSketcher, FeatureExtractor, FeatureSink, SchemeId};
    /// struct Len;
    /// impl FeatureExtractor for Len {
    ///     fn extract<S: FeatureSink + ?Sized>(&self, d: &str, s: &mut S) { s.push(d.len() as u64) }
    ///     fn scheme(&self) -> SchemeId { SchemeId::new("len").finish() }
    /// }
    /// let sk = ExactSetSketcher::builder().build_with(Len);
    /// assert_eq!(sk.sketch("abc").set().as_slice(), &[3]);
    /// ```
    #[must_use]
    pub fn build_with<E: FeatureExtractor>(self, extractor: E) -> ExactSetSketcher<E> {
        let feature_scheme = extractor.scheme();
        ExactSetSketcher {
            extractor,
            feature_scheme,
            scheme: scheme_for(feature_scheme),
        }
    }
}

fn scheme_for(feature_scheme: SchemeId) -> SchemeId {
    SchemeId::new("exact-set")
        .with(1)
        .with_scheme(feature_scheme)
        .finish()
}

impl<E> ExactSetSketcher<E> {
    /// The extractor.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ExactSetSketcher, SchemeId};
    /// let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
    /// let _ = sk.extractor();
    /// ```
    #[must_use]
    pub fn extractor(&self) -> &E {
        &self.extractor
    }
}

impl<E> Sketcher for ExactSetSketcher<E> {
    type Signature = ExactSet;
    type State = Vec<u64>;

    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    fn new_state(&self) -> Vec<u64> {
        Vec::new()
    }

    fn new_signature(&self) -> ExactSet {
        ExactSet::new(self.scheme, FeatureSet::default())
    }

    fn finish_into(&self, state: &mut Vec<u64>, out: &mut ExactSet) {
        out.scheme = self.scheme;
        out.set.assign_from(state);
        state.clear();
    }
}

impl<E: FeatureExtractor> DocSketcher for ExactSetSketcher<E> {
    #[inline]
    fn extract_into(&self, doc: &str, state: &mut Vec<u64>) {
        self.extractor.extract(doc, state);
    }
}

impl<E> crate::Ingest<Vec<u64>> for ExactSetSketcher<E> {
    #[inline]
    fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }
}

//! One composition of a [`FeatureExtractor`] and a sketcher: [`Composed`] is the
//! [`DocSketcher`] of any extractor with any sketcher, and [`Ingest`] is the hook
//! through which a sketcher takes a document's features (where MinHash keeps its
//! fixed-size one-permutation fast path). With the `rayon` feature,
//! [`ParDocSketcher`] adds the parallel batch methods to every [`DocSketcher`], and
//! [`ParTryDocSketcher`] its fallible twin to every [`Composed`] of a [`TrySketcher`].

use crate::{DocSketcher, Error, FeatureExtractor, FeatureSink, SchemeId, Sketcher, TrySketcher};

/// How a sketcher takes in the features of one document from an extractor, into its
/// per-document state `St`; and which features it was configured for.
///
/// The default [`ingest`](Self::ingest) lets the extractor push into the state. A
/// sketcher overrides it to hand the extractor a faster, specialized sink for the
/// length of the document (MinHash does, for `k` = 64 and 128); the values must be
/// those of pushing into the state.
///
/// # Example
///
/// ```
/// use near_dup::{Composed, DocSketcher, ExactSetSketcher, FeatureExtractor, FeatureSink, Ingest, SchemeId};
/// struct Bytes;
/// impl FeatureExtractor for Bytes {
///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
///         doc.bytes().for_each(|b| sink.push(u64::from(b)));
///     }
///     fn scheme(&self) -> SchemeId { SchemeId::new("bytes").finish() }
/// }
/// let sketcher = ExactSetSketcher::new(Bytes.scheme());
/// assert_eq!(sketcher.feature_scheme(), Bytes.scheme());
/// let c = Composed::new(Bytes, sketcher)?;
/// assert_eq!(c.sketch("abca").set().len(), 3);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub trait Ingest<St: FeatureSink + ?Sized> {
    /// The scheme of the features this sketcher was configured for (folded into its
    /// signatures' scheme); [`Composed::new`] checks the extractor against it.
    fn feature_scheme(&self) -> SchemeId;

    /// Pushes the features of `doc`, as `extractor` produces them, into `state`.
    #[inline]
    fn ingest<E: FeatureExtractor + ?Sized>(&self, extractor: &E, doc: &str, state: &mut St) {
        extractor.extract(doc, state);
    }
}

impl<St: FeatureSink + ?Sized, S: Ingest<St> + ?Sized> Ingest<St> for &S {
    #[inline]
    fn feature_scheme(&self) -> SchemeId {
        (**self).feature_scheme()
    }
    #[inline]
    fn ingest<E: FeatureExtractor + ?Sized>(&self, extractor: &E, doc: &str, state: &mut St) {
        (**self).ingest(extractor, doc, state);
    }
}

/// An extractor and a sketcher composed: text in, signature out.
///
/// A [`Sketcher`] (forwarded to the sketcher) and a [`DocSketcher`] whose features come
/// from the extractor through the sketcher's [`Ingest`] hook; a fallible sketcher
/// ([`TrySketcher`]) gets [`try_sketch`](Self::try_sketch) and
/// [`try_sketch_with`](Self::try_sketch_with). `MinHasher<E>` and `SimHasher<E>` are
/// named configurations of this type; any extractor (also one chosen at run time, a
/// `Box<dyn DynFeatureExtractor>`) composes with any sketcher built for its features.
///
/// # Example
///
/// ```
/// use near_dup::{Composed, DocSketcher, ExactSetSketcher, FeatureExtractor, FeatureSink, SchemeId, Signature};
/// struct Words;
/// impl FeatureExtractor for Words {
///     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
///         doc.split_whitespace().for_each(|w| sink.push(near_dup::hash::stable_hash64(w.as_bytes(), 0)));
///     }
///     fn scheme(&self) -> SchemeId { SchemeId::new("words").finish() }
/// }
/// let c = Composed::new(Words, ExactSetSketcher::new(Words.scheme()))?;
/// let (a, b) = (c.sketch("the cat sat"), c.sketch("the cat sat down"));
/// assert_eq!(a.similarity(&b)?.value(), 0.75);
/// // A sketcher configured for other features is refused.
/// assert!(Composed::new(Words, ExactSetSketcher::new(SchemeId::new("chars").finish())).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Composed<E, S> {
    extractor: E,
    sketcher: S,
}

impl<E: FeatureExtractor, S> Composed<E, S> {
    /// Composes `extractor` with `sketcher`, which must have been configured for the
    /// extractor's features.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when `extractor.scheme()` differs from the sketcher's
    /// [`feature_scheme`](Ingest::feature_scheme) (its signatures would claim features
    /// they were not built from).
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
    /// use near_dup::{Composed, ExactSetSketcher, FeatureExtractor};
    /// let c = Composed::new(Bytes, ExactSetSketcher::new(Bytes.scheme()))?;
    /// assert_eq!(c.extractor().scheme(), Bytes.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new<St>(extractor: E, sketcher: S) -> Result<Self, Error>
    where
        St: FeatureSink + ?Sized,
        S: Ingest<St>,
    {
        Error::check_schemes(extractor.scheme(), sketcher.feature_scheme())?;
        Ok(Composed {
            extractor,
            sketcher,
        })
    }
}

impl<S> Composed<crate::ExternalFeatures, S> {
    /// `sketcher` fed with features extracted elsewhere (pushed into its state, or
    /// through [`Sketcher::sketch_features`]): no extractor, hence no
    /// [`DocSketcher`], and nothing to check.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Composed, ExactSetSketcher, SchemeId, Sketcher};
    /// let c = Composed::external(ExactSetSketcher::new(SchemeId::new("ids").finish()));
    /// assert_eq!(c.sketch_features([2, 1]).set().as_slice(), &[1, 2]);
    /// ```
    pub fn external(sketcher: S) -> Self {
        Composed {
            extractor: crate::ExternalFeatures,
            sketcher,
        }
    }
}

impl<E, S> Composed<E, S> {
    /// The feature extractor.
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
    /// use near_dup::{Composed, ExactSetSketcher, FeatureExtractor};
    /// let c = Composed::new(Bytes, ExactSetSketcher::new(Bytes.scheme()))?;
    /// assert_eq!(c.extractor().scheme(), Bytes.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn extractor(&self) -> &E {
        &self.extractor
    }

    /// The sketcher.
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
    /// use near_dup::{Composed, ExactSetSketcher, FeatureExtractor, Sketcher};
    /// let s = ExactSetSketcher::new(Bytes.scheme());
    /// let c = Composed::new(Bytes, s.clone())?;
    /// assert_eq!(Sketcher::scheme(c.sketcher()), Sketcher::scheme(&s));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn sketcher(&self) -> &S {
        &self.sketcher
    }

    /// The extractor and the sketcher, taken apart.
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
    /// use near_dup::{Composed, ExactSetSketcher, FeatureExtractor};
    /// let c = Composed::new(Bytes, ExactSetSketcher::new(Bytes.scheme()))?;
    /// let (e, _s) = c.into_parts();
    /// assert_eq!(e.scheme(), Bytes.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn into_parts(self) -> (E, S) {
        (self.extractor, self.sketcher)
    }
}

impl<E, S: Sketcher> Sketcher for Composed<E, S> {
    type Signature = S::Signature;
    type State = S::State;
    #[inline]
    fn scheme(&self) -> SchemeId {
        self.sketcher.scheme()
    }
    #[inline]
    fn new_state(&self) -> Self::State {
        self.sketcher.new_state()
    }
    #[inline]
    fn new_signature(&self) -> Self::Signature {
        self.sketcher.new_signature()
    }
    #[inline]
    fn finish_into(&self, state: &mut Self::State, out: &mut Self::Signature) {
        self.sketcher.finish_into(state, out);
    }
}

impl<E: FeatureExtractor, S: Sketcher + Ingest<<S as Sketcher>::State>> DocSketcher
    for Composed<E, S>
{
    #[inline]
    fn extract_into(&self, doc: &str, state: &mut Self::State) {
        self.sketcher.ingest(&self.extractor, doc, state);
    }
}

impl<E: FeatureExtractor, S: TrySketcher> Composed<E, S> {
    /// The signature of `doc` from a fallible sketcher, or its refusal (allocates a
    /// state and a signature). For an infallible sketcher this is
    /// [`DocSketcher::sketch`] with error [`Infallible`](std::convert::Infallible).
    ///
    /// # Errors
    ///
    /// The sketcher's [`TrySketcher::Error`].
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
    /// use near_dup::{Composed, DocSketcher, ExactSetSketcher, FeatureExtractor};
    /// let c = Composed::new(Bytes, ExactSetSketcher::new(Bytes.scheme()))?;
    /// let Ok(sig) = c.try_sketch("abc");
    /// assert_eq!(sig, c.sketch("cab"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn try_sketch(&self, doc: &str) -> Result<S::Signature, S::Error>
    where
        S: Ingest<<S as TrySketcher>::State>,
    {
        let mut state = self.sketcher.new_state();
        let mut out = self.sketcher.new_signature();
        self.try_sketch_with(&mut state, doc, &mut out)?;
        Ok(out)
    }

    /// Writes the signature of `doc` into `out` using the caller's `state`, or refuses
    /// the document (`state` is reset either way; `out` is written only on success).
    ///
    /// # Errors
    ///
    /// The sketcher's [`TrySketcher::Error`].
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
    /// use near_dup::{Composed, ExactSetSketcher, FeatureExtractor, TrySketcher};
    /// let c = Composed::new(Bytes, ExactSetSketcher::new(Bytes.scheme()))?;
    /// let mut state = TrySketcher::new_state(c.sketcher());
    /// let mut out = TrySketcher::new_signature(c.sketcher());
    /// let Ok(()) = c.try_sketch_with(&mut state, "", &mut out);
    /// assert!(out.set().is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn try_sketch_with(
        &self,
        state: &mut <S as TrySketcher>::State,
        doc: &str,
        out: &mut <S as TrySketcher>::Signature,
    ) -> Result<(), S::Error>
    where
        S: Ingest<<S as TrySketcher>::State>,
    {
        self.sketcher.ingest(&self.extractor, doc, state);
        self.sketcher.try_finish_into(state, out)
    }

    /// The signatures of `docs` from a fallible sketcher, each one or its refusal, in
    /// order (one state reused across the documents; a refusal does not stop the
    /// batch).
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
    /// use near_dup::{Composed, ExactSetSketcher, FeatureExtractor};
    /// let c = Composed::new(Bytes, ExactSetSketcher::new(Bytes.scheme()))?;
    /// let docs = ["abc", "", "ab"];
    /// let sigs = c.try_sketch_batch(&docs);
    /// assert_eq!(sigs.len(), 3);
    /// assert_eq!(sigs[2], c.try_sketch("ab"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn try_sketch_batch<D: AsRef<str>>(
        &self,
        docs: &[D],
    ) -> Vec<Result<<S as TrySketcher>::Signature, S::Error>>
    where
        S: Ingest<<S as TrySketcher>::State>,
    {
        let mut state = self.sketcher.new_state();
        docs.iter()
            .map(|d| {
                let mut out = self.sketcher.new_signature();
                self.try_sketch_with(&mut state, d.as_ref(), &mut out)
                    .map(|()| out)
            })
            .collect()
    }
}

/// Documents per rayon task at most. Rayon's adaptive splitting stops splitting a
/// range that no other thread stole, so a long range of large documents (a corpus
/// whose long texts sit together) would run on one thread while the others idle;
/// capping the length keeps ranges small enough to be stolen (a state per task is
/// cheap at this size).
#[cfg(feature = "rayon")]
const PAR_MAX_DOCS: usize = 256;

/// Parallel batch sketching on rayon's pool for every [`DocSketcher`] that can be
/// shared between threads (blanket-implemented; call it, there is nothing to
/// implement). One state per worker task, reused across its documents, never one per
/// document; the values are those of [`DocSketcher::sketch_batch`].
///
/// Feature `rayon`.
///
/// # Example
///
/// ```
/// use near_dup::{DocSketcher, ExactSetSketcher, ParDocSketcher, SchemeId};
/// # use near_dup::{FeatureExtractor, FeatureSink};
/// # struct Bytes;
/// # impl FeatureExtractor for Bytes {
/// #     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
/// #         doc.bytes().for_each(|b| sink.push(u64::from(b)));
/// #     }
/// #     fn scheme(&self) -> SchemeId { SchemeId::new("bytes").finish() }
/// # }
/// let c = ExactSetSketcher::builder().build_with(Bytes);
/// let docs = ["abc", "abd", "xyz"];
/// assert_eq!(c.par_sketch_batch(&docs), c.sketch_batch(&docs));
/// ```
#[cfg(feature = "rayon")]
pub trait ParDocSketcher: DocSketcher + Sync {
    /// The signatures of `docs`, sketched in parallel.
    ///
    /// # Example
    ///
    /// See the [trait docs](ParDocSketcher).
    fn par_sketch_batch<D: AsRef<str> + Sync>(&self, docs: &[D]) -> Vec<Self::Signature>
    where
        Self::State: Send,
        Self::Signature: Send,
    {
        use rayon::prelude::*;
        docs.par_iter()
            .with_max_len(PAR_MAX_DOCS)
            .map_init(
                || self.new_state(),
                |state, d| {
                    let mut out = self.new_signature();
                    self.sketch_with(state, d.as_ref(), &mut out);
                    out
                },
            )
            .collect()
    }

    /// Writes the signatures of `docs` into `out` in parallel, reusing `out`'s
    /// buffers: no allocation per document once `out` holds signatures of this
    /// sketcher.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when `out.len() != docs.len()`; nothing is written.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{DocSketcher, ExactSetSketcher, ParDocSketcher, SchemeId, Sketcher};
    /// # use near_dup::{FeatureExtractor, FeatureSink};
    /// # struct Bytes;
    /// # impl FeatureExtractor for Bytes {
    /// #     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
    /// #         doc.bytes().for_each(|b| sink.push(u64::from(b)));
    /// #     }
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("bytes").finish() }
    /// # }
    /// let c = ExactSetSketcher::builder().build_with(Bytes);
    /// let docs = ["abc", "abd"];
    /// let mut out = vec![c.new_signature(); 2];
    /// c.par_sketch_batch_into(&docs, &mut out)?;
    /// assert_eq!(out, c.sketch_batch(&docs));
    /// assert!(c.par_sketch_batch_into(&docs, &mut out[..1]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn par_sketch_batch_into<D: AsRef<str> + Sync>(
        &self,
        docs: &[D],
        out: &mut [Self::Signature],
    ) -> Result<(), Error>
    where
        Self::State: Send,
        Self::Signature: Send,
    {
        use rayon::prelude::*;
        Error::check_lengths(docs.len(), out.len())?;
        docs.par_iter()
            .zip(out.par_iter_mut())
            .with_max_len(PAR_MAX_DOCS)
            .for_each_init(
                || self.new_state(),
                |state, (d, o)| self.sketch_with(state, d.as_ref(), o),
            );
        Ok(())
    }
}

#[cfg(feature = "rayon")]
impl<T: DocSketcher + Sync + ?Sized> ParDocSketcher for T {}

#[cfg(feature = "rayon")]
mod sealed {
    /// Keeps [`ParTryDocSketcher`](super::ParTryDocSketcher) implemented by ndd-core only.
    ///
    /// # Example
    ///
    /// ```compile_fail
    /// // Outside ndd-core the trait cannot be implemented.
    /// struct Mine;
    /// impl near_dup::ParTryDocSketcher for Mine {
    ///     type Signature = ();
    ///     type Error = ();
    ///     fn par_try_sketch_batch<D: AsRef<str> + Sync>(&self, _: &[D]) -> Vec<Result<(), ()>> {
    ///         Vec::new()
    ///     }
    /// }
    /// ```
    pub trait Sealed {}
    impl<E, S> Sealed for super::Composed<E, S> {}
}

/// Parallel batch sketching with a fallible sketcher ([`TrySketcher`]): the twin of
/// [`ParDocSketcher`] for sketchers that may refuse a document (I-Match's rejections,
/// bucketized MinHash's expansion cap, SimHash's `Checked`). Implemented for every
/// [`Composed`] extractor and fallible sketcher that can be shared between threads;
/// sealed (call it, there is nothing to implement). One state per worker task, reused
/// across its documents (a refused document resets it, as
/// [`try_finish_into`](TrySketcher::try_finish_into) promises); the results are those
/// of [`Composed::try_sketch_batch`], in order.
///
/// Feature `rayon`.
///
/// # Example
///
/// ```
/// use near_dup::{Composed, ExactSetSketcher, ParTryDocSketcher, SchemeId};
/// # use near_dup::{FeatureExtractor, FeatureSink};
/// # struct Bytes;
/// # impl FeatureExtractor for Bytes {
/// #     fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
/// #         doc.bytes().for_each(|b| sink.push(u64::from(b)));
/// #     }
/// #     fn scheme(&self) -> SchemeId { SchemeId::new("bytes").finish() }
/// # }
/// let c = Composed::new(Bytes, ExactSetSketcher::new(Bytes.scheme()))?;
/// let docs = ["abc", "abd", "xyz"];
/// assert_eq!(c.par_try_sketch_batch(&docs), c.try_sketch_batch(&docs));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[cfg(feature = "rayon")]
pub trait ParTryDocSketcher: sealed::Sealed + Sync {
    /// The signature type produced.
    type Signature;
    /// Why a document is refused.
    type Error;

    /// The signature of each of `docs` or its refusal, sketched in parallel, in the
    /// order of `docs`.
    ///
    /// # Example
    ///
    /// See the [trait docs](ParTryDocSketcher).
    fn par_try_sketch_batch<D: AsRef<str> + Sync>(
        &self,
        docs: &[D],
    ) -> Vec<Result<Self::Signature, Self::Error>>;
}

#[cfg(feature = "rayon")]
impl<E, S> ParTryDocSketcher for Composed<E, S>
where
    E: FeatureExtractor + Sync,
    S: TrySketcher + Ingest<<S as TrySketcher>::State> + Sync,
    <S as TrySketcher>::State: Send,
    <S as TrySketcher>::Signature: Send,
    S::Error: Send,
{
    type Signature = <S as TrySketcher>::Signature;
    type Error = S::Error;

    fn par_try_sketch_batch<D: AsRef<str> + Sync>(
        &self,
        docs: &[D],
    ) -> Vec<Result<Self::Signature, Self::Error>> {
        use rayon::prelude::*;
        docs.par_iter()
            .with_max_len(PAR_MAX_DOCS)
            .map_init(
                || self.sketcher.new_state(),
                |state, d| {
                    let mut out = self.sketcher.new_signature();
                    self.try_sketch_with(state, d.as_ref(), &mut out)
                        .map(|()| out)
                },
            )
            .collect()
    }
}

#[cfg(all(test, feature = "rayon"))]
mod tests {
    use super::*;
    use crate::{ExactSet, ExactSetSketcher};

    /// Whitespace-separated words, hashed.
    struct Words;
    impl FeatureExtractor for Words {
        fn extract<T: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut T) {
            for w in doc.split_whitespace() {
                sink.push(crate::hash::stable_hash64(w.as_bytes(), 0));
            }
        }
        fn scheme(&self) -> SchemeId {
            SchemeId::new("test-words").finish()
        }
    }

    /// Refuses documents with fewer than `min` distinct features; otherwise the exact set.
    struct AtLeast {
        min: usize,
        inner: ExactSetSketcher,
    }
    impl TrySketcher for AtLeast {
        type Signature = ExactSet;
        type State = Vec<u64>;
        type Error = usize;
        fn scheme(&self) -> SchemeId {
            Sketcher::scheme(&self.inner)
        }
        fn new_state(&self) -> Vec<u64> {
            Vec::new()
        }
        fn new_signature(&self) -> ExactSet {
            Sketcher::new_signature(&self.inner)
        }
        fn try_finish_into(&self, state: &mut Vec<u64>, out: &mut ExactSet) -> Result<(), usize> {
            state.sort_unstable();
            state.dedup();
            let n = state.len();
            let result = if n < self.min {
                Err(n)
            } else {
                *out = self.inner.sketch_features(state.iter().copied());
                Ok(())
            };
            state.clear();
            result
        }
    }
    impl Ingest<Vec<u64>> for AtLeast {
        fn feature_scheme(&self) -> SchemeId {
            Words.scheme()
        }
    }

    #[test]
    fn par_try_sketch_batch_equals_the_sequential_loop() {
        let c = Composed::new(
            Words,
            AtLeast {
                min: 3,
                inner: ExactSetSketcher::new(Words.scheme()),
            },
        )
        .unwrap();
        // 2,000 documents (several rayon tasks of at most 256), every fifth refused.
        let docs: Vec<String> = (0..2000u32)
            .map(|i| {
                let n = if i % 5 == 0 { 2 } else { 3 + i % 7 };
                (0..n)
                    .map(|j| format!("w{}", (i * 31 + j) % 97))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let par = c.par_try_sketch_batch(&docs);
        // The oracle: one fresh state per document, no batching.
        let seq: Vec<_> = docs.iter().map(|d| c.try_sketch(d)).collect();
        assert_eq!(par, seq);
        assert_eq!(par, c.try_sketch_batch(&docs));
        assert_eq!(par.iter().filter(|r| r.is_err()).count(), 400);
        // Each accepted signature is the exact set of the document's words.
        for (d, r) in docs.iter().zip(&par) {
            if let Ok(sig) = r {
                assert_eq!(sig.set(), &Words.feature_set(d));
            }
        }
    }
}

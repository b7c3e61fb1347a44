//! [`BucketizedMinHasher`]: weighted MinHash by bucketization of the weights into a
//! set, then ordinary MinHash (Hajishirzi, Yih and Kołcz, SIGIR 2010, §3.2).

use ndd_core::hash::mix64;
use ndd_core::{
    Error, ExternalFeatures, FeatureSink, Ingest, SchemeId, Sketcher, SparseVector, TrySketcher,
    Weighted,
};

use crate::hasher::{MinHashScheme, MinHashState, MinHasher};
use crate::signature::MinHashSignature;
use crate::weighted::{GOLDEN, check_entries, default_feature_scheme};

/// Version of the value-defining expansion of [`BucketizedMinHasher`]; folded into the
/// scheme of its expanded features.
const BUCKET_VERSION: u64 = 1;
/// Default cap on the number of sub-features one document may expand into.
const DEFAULT_MAX_EXPANSION: u64 = 1 << 26;
/// Default weight multiplier of the builder: weights to the nearest 0.01.
const DEFAULT_SCALE: f64 = 100.0;

/// Weighted MinHash by bucketization: each weight is multiplied by a large integer
/// `scale` and rounded to an integer `n_f`; feature `f` becomes the `n_f` distinct
/// sub-features `(f, 1), …, (f, n_f)` and an ordinary [`MinHasher`] sketches that set.
///
/// This is the route of Hajishirzi, Yih and Kołcz, *Adaptive near-duplicate detection
/// via similarity learning*, SIGIR 2010, §3.2, after Gionis, Indyk and
/// Motwani, *Similarity search in high dimensions via hashing*, VLDB 1999: "the weight
/// of each k-gram in the vector is multiplied by a big integer and then the number is
/// bucketed and mapped to a bit-string" — the sub-features are the positions of the
/// one-bits of a unary code. The Jaccard coefficient of the expanded sets is
/// `Σ min(n_a, n_b) / Σ max(n_a, n_b)` over the rounded integers, which is the
/// weighted Jaccard coefficient up to rounding (each weight is off by at most
/// `0.5 / scale`; [`quantize`](Self::quantize) shows the integers).
///
/// Cost grows with the scale: a document expands into `Σ_f round(scale · w_f)`
/// sub-features, each hashed once (one-permutation hashing, the default) or `k` times
/// ([`MinHashScheme::Classic`], the linear family `(a·x + b) mod p` of Hajishirzi, Yih and Kołcz (SIGIR 2010)
/// §3.2). A finer scale means less rounding error (each weight is off by up to
/// `0.5 / scale`, and weights below `0.5 / scale` vanish) and proportionally more work:
/// measured on 1000 features with weights in `0.1..5`, 0.1 ms at scale 10, 1 ms at
/// 100, 10 ms at 1000 (`k = 128`). A document whose expansion would exceed
/// [`max_expansion`](Self::max_expansion) sub-features (default 2^26) is refused
/// instead of taking unbounded time. That is why [`IcwsMinHasher`](crate::IcwsMinHasher) is recommended:
/// `O(n·k)` whatever the weights, no rounding. Bucketization remains useful to
/// reproduce Hajishirzi, Yih and Kołcz (SIGIR 2010) and for coarse weights (small integers such as term counts,
/// which scale 1 represents exactly).
///
/// # Example
///
/// ```
/// use near_dup::{weighted_jaccard, Signature, SparseVector, Weighted};
/// use near_dup::minhash::BucketizedMinHasher;
///
/// let a = SparseVector::from_unsorted(vec![Weighted::new(1, 0.3)?, Weighted::new(2, 0.7)?]);
/// let b = SparseVector::from_unsorted(vec![Weighted::new(1, 0.3)?, Weighted::new(2, 0.35)?]);
/// let hasher = BucketizedMinHasher::new(256, 7, 100.0)?; // 0.3 → 30 sub-features
/// let est = hasher.sketch_weighted(&a)?.similarity(&hasher.sketch_weighted(&b)?)?;
/// let exact = weighted_jaccard(&a, &b); // 0.65 / 1.0
/// assert!((est.value() - exact).abs() < 0.15);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BucketizedMinHasher {
    scale: f64,
    max_expansion: u64,
    k: usize,
    seed: u64,
    which: MinHashScheme,
    feature_scheme: SchemeId,
    sub_key: u64,
    inner: MinHasher<ExternalFeatures>,
}

/// Configures a [`BucketizedMinHasher`]; start with [`BucketizedMinHasher::builder`]
/// (or `BucketizedMinHasherBuilder::default()`).
///
/// Defaults: 128 slots, seed 0, scale 100 (each weight rounded to the nearest 0.01;
/// weights below 0.005 vanish), one-permutation hashing, the features named
/// `external-weighted-features`, at most 2^26 sub-features per document.
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::minhash::{BucketizedMinHasher, MinHashScheme};
/// let h = BucketizedMinHasher::builder()
///     .num_hashes(64)
///     .seed(7)
///     .scale(10.0)
///     .minhash_scheme(MinHashScheme::Classic)
///     .feature_scheme(SchemeId::new("tf").finish())
///     .max_expansion(1 << 20)
///     .build()?;
/// assert_eq!((h.num_hashes(), h.seed(), h.scale()), (64, 7, 10.0));
/// assert_eq!(h.minhash_scheme(), MinHashScheme::Classic);
/// // `new` is the shortcut for the first three.
/// let short = BucketizedMinHasher::new(64, 7, 10.0)?;
/// assert_eq!(short.minhash_scheme(), MinHashScheme::OnePermutation);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BucketizedMinHasherBuilder {
    k: usize,
    seed: u64,
    scale: f64,
    which: MinHashScheme,
    feature_scheme: SchemeId,
    max_expansion: u64,
}

impl Default for BucketizedMinHasherBuilder {
    fn default() -> Self {
        BucketizedMinHasherBuilder {
            k: 128,
            seed: 0,
            scale: DEFAULT_SCALE,
            which: MinHashScheme::OnePermutation,
            feature_scheme: default_feature_scheme(),
            max_expansion: DEFAULT_MAX_EXPANSION,
        }
    }
}

impl BucketizedMinHasherBuilder {
    /// The number of slots `k` (default 128).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::BucketizedMinHasher::builder().num_hashes(32).build()?;
    /// assert_eq!(h.num_hashes(), 32);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_hashes(mut self, k: usize) -> Self {
        self.k = k;
        self
    }

    /// The seed (default 0).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::BucketizedMinHasher::builder().seed(3).build()?;
    /// assert_eq!(h.seed(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The weight multiplier (default 100): weight `w` becomes `round(scale · w)`
    /// sub-features. Finer means less rounding and proportionally more work.
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::BucketizedMinHasher::builder().scale(1.0).build()?;
    /// assert_eq!(h.scale(), 1.0); // exact for integer weights such as term counts
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// How the expanded set is sketched (default [`MinHashScheme::OnePermutation`];
    /// [`MinHashScheme::Classic`] reproduces Hajishirzi, Yih and Kołcz (SIGIR 2010) exactly, at `k` times the
    /// cost).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{BucketizedMinHasher, MinHashScheme};
    /// let h = BucketizedMinHasher::builder().minhash_scheme(MinHashScheme::Classic).build()?;
    /// assert_eq!(h.minhash_scheme(), MinHashScheme::Classic);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn minhash_scheme(mut self, scheme: MinHashScheme) -> Self {
        self.which = scheme;
        self
    }

    /// Names the scheme of the (unexpanded) features, folded into the signatures'
    /// scheme (for example the extractor's
    /// [`scheme`](ndd_core::FeatureExtractor::scheme)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let tf = SchemeId::new("tf").finish();
    /// let h = near_dup::minhash::BucketizedMinHasher::builder().feature_scheme(tf).build()?;
    /// assert_eq!(h.feature_scheme(), tf);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(mut self, feature_scheme: SchemeId) -> Self {
        self.feature_scheme = feature_scheme;
        self
    }

    /// The largest number of sub-features one document may expand into (default
    /// 2^26); larger documents are refused with [`Error::InvalidInput`]. Does not
    /// change signature values.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// let h = near_dup::minhash::BucketizedMinHasher::builder().max_expansion(1000).build()?;
    /// let big = SparseVector::from_unsorted(vec![Weighted::new(1, 20.0)?]); // 2000 sub-features
    /// assert!(h.sketch_weighted(&big).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_expansion(mut self, max_expansion: u64) -> Self {
        self.max_expansion = max_expansion;
        self
    }

    /// The configured hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `scale` is not a finite positive number,
    /// `max_expansion` is 0, or `num_hashes` is 0 or above [`MAX_NUM_HASHES`](crate::MAX_NUM_HASHES).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::BucketizedMinHasher;
    /// assert!(BucketizedMinHasher::builder().scale(0.0).build().is_err());
    /// assert!(BucketizedMinHasher::builder().scale(f64::NAN).build().is_err());
    /// assert!(BucketizedMinHasher::builder().max_expansion(0).build().is_err());
    /// assert!(BucketizedMinHasher::builder().num_hashes(0).build().is_err());
    /// ```
    pub fn build(self) -> Result<BucketizedMinHasher, Error> {
        let BucketizedMinHasherBuilder {
            k,
            seed,
            scale,
            which,
            feature_scheme,
            max_expansion,
        } = self;
        if !scale.is_finite() || scale <= 0.0 {
            return Err(Error::invalid_parameter(
                "scale",
                format!("must be a finite positive number, got {scale}"),
            ));
        }
        if max_expansion == 0 {
            return Err(Error::invalid_parameter(
                "max_expansion",
                "must be at least 1",
            ));
        }
        Ok(BucketizedMinHasher {
            scale,
            max_expansion,
            k,
            seed,
            which,
            feature_scheme,
            sub_key: mix64(seed ^ 0x6275_636B_6574_2D6B), // "bucket-k"
            inner: BucketizedMinHasher::build_inner(k, seed, which, scale, feature_scheme)?,
        })
    }
}

impl BucketizedMinHasher {
    /// A hasher with `k` slots and seed `seed` (one-permutation hashing) over weights
    /// multiplied by `scale`: the shortcut for
    /// `builder().num_hashes(k).seed(seed).scale(scale).build()`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `k` is 0 or above [`MAX_NUM_HASHES`](crate::MAX_NUM_HASHES), or `scale` is not a
    /// finite positive number.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::BucketizedMinHasher;
    /// assert_eq!(BucketizedMinHasher::new(64, 0, 100.0)?.scale(), 100.0);
    /// assert!(BucketizedMinHasher::new(64, 0, 0.0).is_err());
    /// assert!(BucketizedMinHasher::new(64, 0, f64::INFINITY).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(k: usize, seed: u64, scale: f64) -> Result<Self, Error> {
        Self::builder()
            .num_hashes(k)
            .seed(seed)
            .scale(scale)
            .build()
    }

    /// Starts a configuration of all six settings (defaults in
    /// [`BucketizedMinHasherBuilder`]).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::BucketizedMinHasher::builder().build()?;
    /// assert_eq!((h.num_hashes(), h.scale(), h.max_expansion()), (128, 100.0, 1 << 26));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn builder() -> BucketizedMinHasherBuilder {
        BucketizedMinHasherBuilder::default()
    }

    fn build_inner(
        k: usize,
        seed: u64,
        which: MinHashScheme,
        scale: f64,
        feature_scheme: SchemeId,
    ) -> Result<MinHasher<ExternalFeatures>, Error> {
        let expanded = SchemeId::new("bucketized-weights")
            .with(BUCKET_VERSION)
            .with_f64(scale)
            .with_scheme(feature_scheme)
            .finish();
        MinHasher::builder()
            .num_hashes(k)
            .seed(seed)
            .scheme(which)
            .build_for_features(expanded)
    }

    /// Sketches the expanded set with `scheme` instead of one-permutation hashing
    /// ([`MinHashScheme::Classic`] reproduces Hajishirzi, Yih and Kołcz (SIGIR 2010) exactly, at `k` times the cost).
    /// Deprecated: set it on the builder
    /// ([`BucketizedMinHasherBuilder::minhash_scheme`]), which cannot fail.
    ///
    /// # Errors
    ///
    /// None in practice (the parameters were validated when building); the
    /// inner [`MinHasher`] is rebuilt and its errors are passed on.
    ///
    /// # Example
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use near_dup::minhash::{BucketizedMinHasher, MinHashScheme};
    /// let h = BucketizedMinHasher::new(64, 0, 10.0)?.with_minhash_scheme(MinHashScheme::Classic)?;
    /// assert_eq!(h.minhash().minhash_scheme(), MinHashScheme::Classic);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "use the builder's `minhash_scheme`")]
    pub fn with_minhash_scheme(mut self, scheme: MinHashScheme) -> Result<Self, Error> {
        self.inner = Self::build_inner(self.k, self.seed, scheme, self.scale, self.feature_scheme)?;
        self.which = scheme;
        Ok(self)
    }

    /// Names the scheme of the (unexpanded) features; folded into the signatures'
    /// scheme. Deprecated: set it on the builder
    /// ([`BucketizedMinHasherBuilder::feature_scheme`]), which cannot fail.
    ///
    /// # Errors
    ///
    /// As [`with_minhash_scheme`](Self::with_minhash_scheme).
    ///
    /// # Example
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use near_dup::{SchemeId, Sketcher};
    /// use near_dup::minhash::BucketizedMinHasher;
    /// let a = BucketizedMinHasher::new(64, 0, 10.0)?;
    /// let b = BucketizedMinHasher::new(64, 0, 10.0)?.with_feature_scheme(SchemeId::new("tf").finish())?;
    /// assert_ne!(a.minhash().scheme(), b.minhash().scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "use the builder's `feature_scheme`")]
    pub fn with_feature_scheme(mut self, feature_scheme: SchemeId) -> Result<Self, Error> {
        self.inner = Self::build_inner(self.k, self.seed, self.which, self.scale, feature_scheme)?;
        self.feature_scheme = feature_scheme;
        Ok(self)
    }

    /// Sets the largest number of sub-features one document may expand into (default
    /// 2^26); larger documents are refused with [`Error::InvalidInput`]. Does not change
    /// signature values. Deprecated: set it on the builder
    /// ([`BucketizedMinHasherBuilder::max_expansion`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `max_expansion` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use near_dup::{SparseVector, Weighted};
    /// use near_dup::minhash::BucketizedMinHasher;
    /// let h = BucketizedMinHasher::new(64, 0, 100.0)?.with_max_expansion(1000)?;
    /// let big = SparseVector::from_unsorted(vec![Weighted::new(1, 20.0)?]); // 2000 sub-features
    /// assert!(h.sketch_weighted(&big).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "use the builder's `max_expansion`")]
    pub fn with_max_expansion(mut self, max_expansion: u64) -> Result<Self, Error> {
        if max_expansion == 0 {
            return Err(Error::invalid_parameter(
                "max_expansion",
                "must be at least 1",
            ));
        }
        self.max_expansion = max_expansion;
        Ok(self)
    }

    /// The weight multiplier.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::BucketizedMinHasher::new(8, 0, 50.0)?.scale(), 50.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The cap on sub-features per document.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::BucketizedMinHasher::new(8, 0, 50.0)?.max_expansion(), 1 << 26);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_expansion(&self) -> u64 {
        self.max_expansion
    }

    /// The number of slots `k`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::BucketizedMinHasher::new(8, 0, 50.0)?.num_hashes(), 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_hashes(&self) -> usize {
        self.k
    }

    /// The seed.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::BucketizedMinHasher::new(8, 9, 50.0)?.seed(), 9);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How the expanded set is sketched.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{BucketizedMinHasher, MinHashScheme};
    /// let h = BucketizedMinHasher::new(8, 0, 50.0)?;
    /// assert_eq!(h.minhash_scheme(), MinHashScheme::OnePermutation);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn minhash_scheme(&self) -> MinHashScheme {
        self.which
    }

    /// The scheme of the (unexpanded) features this hasher consumes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = SchemeId::new("tf").finish();
    /// let h = near_dup::minhash::BucketizedMinHasher::builder().feature_scheme(s).build()?;
    /// assert_eq!(h.feature_scheme(), s);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }

    /// The set MinHash hasher that sketches the expanded sub-features (its scheme is
    /// the signatures' scheme).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Signature, Sketcher, SparseVector, Weighted};
    /// let h = near_dup::minhash::BucketizedMinHasher::new(8, 0, 50.0)?;
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?]);
    /// assert_eq!(h.sketch_weighted(&v)?.scheme(), h.minhash().scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn minhash(&self) -> &MinHasher<ExternalFeatures> {
        &self.inner
    }

    /// The rounded integer weights `n_f = round(scale · w_f)` (as `f64`, exact),
    /// dropping features that round to 0: the vector whose
    /// [`weighted_jaccard`](ndd_core::weighted_jaccard) the signatures estimate
    /// without bias. Negative weights count as zero.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a weight is not finite or the total exceeds
    /// [`max_expansion`](Self::max_expansion).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// let h = near_dup::minhash::BucketizedMinHasher::new(8, 0, 10.0)?;
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 0.26)?, Weighted::new(2, 0.04)?]);
    /// let q = h.quantize(&v)?;
    /// assert_eq!(q.entries(), &[Weighted::new(1, 3.0)?]); // 2.6 → 3, 0.4 → 0 (dropped)
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn quantize(&self, v: &SparseVector) -> Result<SparseVector, Error> {
        let mut out = Vec::with_capacity(v.len());
        let mut total = 0u64;
        for w in v.entries() {
            let n = self.count(w, &mut total)?;
            if n > 0 {
                out.push(Weighted {
                    feature: w.feature,
                    weight: n as f64,
                });
            }
        }
        Ok(SparseVector::from_unsorted(out))
    }

    /// `round(scale · w)` for one entry, added to `total`, checked against the cap.
    fn count(&self, w: &Weighted, total: &mut u64) -> Result<u64, Error> {
        if !w.weight.is_finite() {
            return Err(Error::invalid_input(format!(
                "weight of feature {:#x} is {}",
                w.feature, w.weight
            )));
        }
        if w.weight <= 0.0 {
            return Ok(0);
        }
        let x = (w.weight * self.scale).round();
        let room = self.max_expansion - *total;
        // `x` is finite or +inf here (a positive finite weight times a positive finite
        // scale) and is compared with the room left before the conversion.
        if x > room as f64 {
            return Err(Error::invalid_input(format!(
                "the weights expand into more than {} sub-features (scale {}); \
                 lower the scale, raise max_expansion, or use IcwsMinHasher",
                self.max_expansion, self.scale
            )));
        }
        let n = float_to_count(x).min(room);
        *total += n;
        Ok(n)
    }

    /// The signature of `v`. Negative weights count as zero.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a weight is not finite (possible only for a
    /// [`Weighted`] written field by field) or the expansion exceeds
    /// [`max_expansion`](Self::max_expansion).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Signature, SparseVector, Weighted};
    /// let h = near_dup::minhash::BucketizedMinHasher::new(64, 0, 100.0)?;
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(3, 0.25)?]);
    /// let sig = h.sketch_weighted(&v)?;
    /// assert_eq!(sig.similarity(&h.sketch_weighted(&v)?)?.value(), 1.0);
    /// assert!(h.sketch_weighted(&SparseVector::default())?.is_empty_document());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_weighted(&self, v: &SparseVector) -> Result<MinHashSignature, Error> {
        let mut out = Sketcher::new_signature(&self.inner);
        self.sketch_weighted_into(v, &mut out)?;
        Ok(out)
    }

    /// Writes the signature of `v` into `out` (allocates one MinHash state; see
    /// [`sketch_weighted_with`](Self::sketch_weighted_with) to reuse one).
    ///
    /// # Errors
    ///
    /// As [`sketch_weighted`](Self::sketch_weighted); `out` is unchanged on error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// let h = near_dup::minhash::BucketizedMinHasher::new(16, 0, 10.0)?;
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?]);
    /// let mut out = h.sketch_weighted(&SparseVector::default())?;
    /// h.sketch_weighted_into(&v, &mut out)?;
    /// assert_eq!(out, h.sketch_weighted(&v)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_weighted_into(
        &self,
        v: &SparseVector,
        out: &mut MinHashSignature,
    ) -> Result<(), Error> {
        let mut state = Sketcher::new_state(&self.inner);
        self.sketch_weighted_with(&mut state, v, out)
    }

    /// Writes the signature of `v` into `out` using the caller's state (from
    /// `self.minhash().new_state()`): nothing is allocated.
    ///
    /// # Errors
    ///
    /// As [`sketch_weighted`](Self::sketch_weighted); the weights are checked before
    /// anything is pushed, so on error `state` and `out` are unchanged.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Sketcher, SparseVector, Weighted};
    /// let h = near_dup::minhash::BucketizedMinHasher::new(16, 0, 10.0)?;
    /// let mut state = h.minhash().new_state();
    /// let mut out = h.minhash().new_signature();
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 0.5)?]);
    /// h.sketch_weighted_with(&mut state, &v, &mut out)?;
    /// assert_eq!(out, h.sketch_weighted(&v)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_weighted_with(
        &self,
        state: &mut MinHashState,
        v: &SparseVector,
        out: &mut MinHashSignature,
    ) -> Result<(), Error> {
        self.expand_into(state, v.entries(), out)
    }

    /// Expands `entries` (distinct features) into `state` and finishes into `out`.
    fn expand_into(
        &self,
        state: &mut MinHashState,
        entries: &[Weighted],
        out: &mut MinHashSignature,
    ) -> Result<(), Error> {
        // First pass: validate and bound the total before doing any work.
        let mut total = 0u64;
        for w in entries {
            self.count(w, &mut total)?;
        }
        let mut total = 0u64;
        for w in entries {
            let n = self.count(w, &mut total)?;
            let base = mix64(w.feature ^ self.sub_key);
            for j in 1..=n {
                state.push(mix64(base.wrapping_add(j.wrapping_mul(GOLDEN))));
            }
        }
        self.inner.finish_into(state, out);
        Ok(())
    }

    /// The signature of weighted features given in any order; repeated features are
    /// summed.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] for a negative, NaN or infinite weight, or an expansion
    /// above [`max_expansion`](Self::max_expansion).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Weighted;
    /// let h = near_dup::minhash::BucketizedMinHasher::new(32, 0, 10.0)?;
    /// let a = h.sketch_entries(&[Weighted::new(1, 0.5)?, Weighted::new(1, 0.5)?])?;
    /// assert_eq!(a, h.sketch_entries(&[Weighted::new(1, 1.0)?])?);
    /// assert!(h.sketch_entries(&[Weighted::new(1, -0.5)?]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_entries(&self, entries: &[Weighted]) -> Result<MinHashSignature, Error> {
        check_entries(entries)?;
        self.sketch_weighted(&SparseVector::from_unsorted(entries.to_vec()))
    }
}

/// The per-document accumulator of a [`BucketizedMinHasher`] used as a
/// [`TrySketcher`]: the pushed weighted features (summed per feature when the document
/// is finished) and the inner MinHash state, both reused across documents.
///
/// [`FeatureSink::push`] adds weight 1 (a multiset of shingles becomes its
/// term-frequency vector); [`FeatureSink::push_weighted`] adds its weight, kept even
/// when it is not finite so that [`TrySketcher::try_finish_into`] refuses the document.
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSink, SparseVector, TrySketcher, Weighted};
/// use near_dup::minhash::BucketizedMinHasher;
/// let h = BucketizedMinHasher::new(32, 0, 10.0)?;
/// let mut state = h.new_state();
/// let mut sig = h.new_signature();
/// state.push(7);
/// state.push_weighted(8, 0.5);
/// state.push(7);
/// h.try_finish_into(&mut state, &mut sig)?;
/// let tf = SparseVector::from_unsorted(vec![Weighted::new(7, 2.0)?, Weighted::new(8, 0.5)?]);
/// assert_eq!(sig, h.sketch_weighted(&tf)?);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BucketizedState {
    entries: Vec<Weighted>,
    minhash: MinHashState,
}

impl FeatureSink for BucketizedState {
    #[inline]
    fn push(&mut self, feature: u64) {
        self.push_weighted(feature, 1.0);
    }

    #[inline]
    fn push_weighted(&mut self, feature: u64, weight: f64) {
        self.entries.push(Weighted { feature, weight });
    }
}

/// Fallible: a document may be refused. `try_finish_into` sums the pushed weights per
/// feature (in feature order, so push order does not matter), then sketches them as
/// [`sketch_weighted`](BucketizedMinHasher::sketch_weighted) does.
///
/// # Errors
///
/// [`Error::InvalidInput`] when a pushed weight is NaN or infinite, or the expansion
/// exceeds [`max_expansion`](BucketizedMinHasher::max_expansion). The state is reset
/// either way; `out` is written only on success.
impl TrySketcher for BucketizedMinHasher {
    type Signature = MinHashSignature;
    type State = BucketizedState;
    type Error = Error;

    fn scheme(&self) -> SchemeId {
        Sketcher::scheme(&self.inner)
    }

    fn new_state(&self) -> BucketizedState {
        BucketizedState {
            entries: Vec::new(),
            minhash: Sketcher::new_state(&self.inner),
        }
    }

    fn new_signature(&self) -> MinHashSignature {
        Sketcher::new_signature(&self.inner)
    }

    fn try_finish_into(
        &self,
        state: &mut BucketizedState,
        out: &mut MinHashSignature,
    ) -> Result<(), Error> {
        let entries = &mut state.entries;
        entries.sort_unstable_by(|a, b| {
            a.feature
                .cmp(&b.feature)
                .then(a.weight.total_cmp(&b.weight))
        });
        entries.dedup_by(|later, kept| {
            if later.feature == kept.feature {
                // NaN and infinities survive the sum (and are refused below).
                kept.weight += later.weight;
                true
            } else {
                false
            }
        });
        let result = self.expand_into(&mut state.minhash, entries, out);
        entries.clear();
        result
    }
}

impl Ingest<BucketizedState> for BucketizedMinHasher {
    #[inline]
    fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }
}

/// Converts a rounded, non-negative count already checked to be at most a `u64` cap.
#[allow(clippy::cast_possible_truncation)] // the caller bounds `x` by a u64 first
fn float_to_count(x: f64) -> u64 {
    x as u64
}

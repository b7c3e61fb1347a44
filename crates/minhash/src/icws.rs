//! [`IcwsMinHasher`]: weighted MinHash by Improved Consistent Weighted Sampling (Ioffe,
//! ICDM 2010), the recommended route for real-valued weights.

use std::sync::Arc;

use ndd_core::hash::mix64;
use ndd_core::math::stable_ln;
use ndd_core::{Error, FeatureSink, Ingest, SchemeId, Sketcher, SparseVector, Weighted};

use crate::signature::{EMPTY, MinHashSignature};
use crate::weighted::{GOLDEN, MAX_K, check_entries, default_feature_scheme};

/// Version of the value-defining algorithm of [`IcwsMinHasher`]; folded into its scheme.
const ICWS_VERSION: u64 = 2;

/// A uniform draw in the open interval `(0, 1)` from 52 bits of `x`:
/// `(⌊x / 2^12⌋ + ½) · 2^-52`, so the smallest value is `2^-53` and the largest
/// `1 − 2^-53` (both exactly representable: neither end is ever reached).
#[inline(always)]
fn open_unit(x: u64) -> f64 {
    const SCALE: f64 = 1.0 / (1u64 << 52) as f64;
    ((x >> 12) as f64 + 0.5) * SCALE
}

/// `ln w` of a positive finite weight with [`stable_ln`] (pure `+ − × ÷`, the same bits
/// on every platform). `stable_ln` is defined on normal numbers only, so a subnormal
/// weight is first multiplied by `2^64` (exact: the product is normal and keeps every
/// bit) and `64 · ln 2` is subtracted from its logarithm.
#[inline]
fn ln_weight(w: f64) -> f64 {
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    if w < f64::MIN_POSITIVE {
        stable_ln(w * TWO_POW_64) - 64.0 * std::f64::consts::LN_2
    } else {
        stable_ln(w)
    }
}

/// Improved Consistent Weighted Sampling (ICWS): weighted MinHash for sparse vectors
/// with non-negative real weights.
///
/// Slot `i` of the signature of a vector `S` is a *consistent weighted sample*
/// `(f*, t*)` drawn as in Ioffe, *Improved Consistent Sampling, Weighted Minhash and
/// L1 Sketching*, IEEE ICDM 2010, pp. 246–255: for every feature `f` with weight
/// `S_f > 0`, with `r, c ~ Gamma(2, 1)` and `β ~ Uniform(0, 1)` drawn from
/// `(seed, i, f)` only,
///
/// ```text
/// t = ⌊ln S_f / r + β⌋,   y = exp(r (t − β)),   a = c / (y · exp(r)),
/// ```
///
/// and `(f*, t*)` is the `(f, t)` of the smallest `a`. The slot stores a 64-bit hash
/// of `(f*, t*)`. Ioffe's theorem: two vectors draw the same sample with probability
/// exactly their weighted Jaccard coefficient `Σ min(a_f, b_f) / Σ max(a_f, b_f)`, so
/// the agreement rate of `k` independent slots is an unbiased estimate with standard
/// error `sqrt(J(1 − J)/k)`, exactly as for set MinHash (the integer `t*` makes the
/// sample consistent: it does not change when a weight changes a little, unless the
/// change crosses one of the sample's random thresholds).
///
/// Randomness: `Gamma(2, 1) = −ln(u₁·u₂)` with `u₁, u₂` uniform in the open interval
/// `(0, 1)`; the five uniforms `u₁ … u₅` of a (slot, feature) pair are successive
/// outputs of a SplitMix64 sequence ([`mix64`] of a counter) started at a hash of the
/// seed, the slot and the feature. Nothing depends on the other features of the
/// document, which is what makes the scheme consistent across documents.
///
/// Stable across runs and platforms: a slot's value depends only on the seed, `k`,
/// the features and their weights, through 64-bit integer hashing and IEEE-754
/// `+ − × ÷` and `floor` (no `f64::ln`/`exp` of the platform's math library: every
/// value-defining logarithm is [`ndd_core::math::stable_ln`]; a subnormal weight is
/// scaled by `2^64` first, exactly, and `64 · ln 2` subtracted). The quantity
/// minimized is `ln a`, computed as `ln c − r · ((t − β) + 1)`; the smallest `ln a`
/// wins, the first feature in increasing feature order on a tie. The exact derivation
/// of keys, uniforms and slot values is in `docs/decisions.md` ("Weighted MinHash
/// values"), and `tests/minhash_spec.py`, an independent Python implementation of it,
/// provides the golden vectors that `tests/integration/weighted.rs` pins.
///
/// Cost: `O(n · k)` for `n` non-zero weights, whatever their magnitudes. The
/// paper's loop takes three logarithms per (feature, slot); a lower bound on `a`
/// (see the source) skips the logarithms for pairs that cannot beat the slot's current
/// minimum, which is most of them, without changing any value. Measured (criterion,
/// `weighted-minhash` in `benches/minhash.rs`; `docs/performance.md`): 1.3× (term
/// counts) to 1.9× (TF-IDF weights) the paper's unpruned loop, about 40 ns per
/// (feature, slot) on the slow host of 2026-11-23, so ~0.3 ms for a 54-feature vector
/// at `k = 128`.
/// Prefer it over [`BucketizedMinHasher`](crate::BucketizedMinHasher) for real-valued weights (TF-IDF): it
/// estimates the real-valued coefficient itself rather than one of rounded weights,
/// and its cost does not grow with the precision asked for. For small integer
/// weights (term counts), bucketization at scale 1 estimates the same coefficient
/// exactly and is two orders of magnitude faster.
///
/// Weights: zero weights are skipped (a zero weight and an absent feature are the
/// same thing, as in [`ndd_core::weighted_jaccard`]); an all-zero or empty vector gives
/// the empty-document signature (every slot [`EMPTY`]), which estimates 1 against
/// another empty one and 0 against anything else. [`sketch_entries`] refuses negative
/// and non-finite weights; [`sketch_weighted`] treats negative weights as zero, as
/// [`ndd_core::weighted_jaccard`] does.
///
/// Also a [`Sketcher`]: pushed features are summed per feature (a multiset of
/// shingles becomes its term-frequency vector; [`FeatureSink::push`] counts 1,
/// [`FeatureSink::push_weighted`] adds its weight).
///
/// [`sketch_entries`]: Self::sketch_entries
/// [`sketch_weighted`]: Self::sketch_weighted
///
/// # Example
///
/// ```
/// use near_dup::{weighted_jaccard, Signature, SparseVector, Weighted};
/// use near_dup::minhash::IcwsMinHasher;
///
/// let a = SparseVector::from_unsorted(vec![
///     Weighted::new(1, 3.0)?, Weighted::new(2, 1.0)?, Weighted::new(3, 0.5)?,
/// ]);
/// let b = SparseVector::from_unsorted(vec![
///     Weighted::new(1, 2.0)?, Weighted::new(2, 1.0)?, Weighted::new(4, 0.5)?,
/// ]);
/// let exact = weighted_jaccard(&a, &b); // (2 + 1) / (3 + 1 + 0.5 + 0.5) = 0.6
///
/// let hasher = IcwsMinHasher::new(512, 42)?;
/// let est = hasher.sketch_weighted(&a).similarity(&hasher.sketch_weighted(&b))?;
/// assert!((est.value() - exact).abs() < 5.0 * est.std_error().max(0.02));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct IcwsMinHasher {
    k: usize,
    seed: u64,
    feature_scheme: SchemeId,
    scheme: SchemeId,
    slot_keys: Arc<[u64]>,
    feature_key: u64,
    value_key: u64,
}

/// Configures an [`IcwsMinHasher`]; start with [`IcwsMinHasher::builder`] (or
/// `IcwsMinHasherBuilder::default()`).
///
/// Defaults: 128 slots, seed 0, the features named `external-weighted-features`.
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::minhash::IcwsMinHasher;
/// let tfidf = SchemeId::new("tfidf").finish();
/// let h = IcwsMinHasher::builder().num_hashes(256).seed(7).feature_scheme(tfidf).build()?;
/// assert_eq!((h.num_hashes(), h.seed(), h.feature_scheme()), (256, 7, tfidf));
/// // `new` and `with_feature_scheme` are the shortcuts.
/// let short = IcwsMinHasher::new(256, 7)?.with_feature_scheme(tfidf);
/// assert_eq!(near_dup::Sketcher::scheme(&short), near_dup::Sketcher::scheme(&h));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct IcwsMinHasherBuilder {
    k: usize,
    seed: u64,
    feature_scheme: SchemeId,
}

impl Default for IcwsMinHasherBuilder {
    fn default() -> Self {
        IcwsMinHasherBuilder {
            k: 128,
            seed: 0,
            feature_scheme: default_feature_scheme(),
        }
    }
}

impl IcwsMinHasherBuilder {
    /// The number of slots `k` (default 128).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::IcwsMinHasher::builder().num_hashes(64).build()?;
    /// assert_eq!(h.num_hashes(), 64);
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
    /// let h = near_dup::minhash::IcwsMinHasher::builder().seed(9).build()?;
    /// assert_eq!(h.seed(), 9);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Names the scheme of the features being sketched (for example the extractor's
    /// [`scheme`](ndd_core::FeatureExtractor::scheme)); it is folded into the
    /// signatures' scheme so that vectors over different features never compare.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let tf = SchemeId::new("tf").finish();
    /// let h = near_dup::minhash::IcwsMinHasher::builder().feature_scheme(tf).build()?;
    /// assert_eq!(h.feature_scheme(), tf);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(mut self, feature_scheme: SchemeId) -> Self {
        self.feature_scheme = feature_scheme;
        self
    }

    /// The configured hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `num_hashes` is 0 or above [`MAX_NUM_HASHES`](crate::MAX_NUM_HASHES).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::minhash::IcwsMinHasher::builder().num_hashes(0).build().is_err());
    /// ```
    pub fn build(self) -> Result<IcwsMinHasher, Error> {
        let IcwsMinHasherBuilder {
            k,
            seed,
            feature_scheme,
        } = self;
        if k == 0 || k > MAX_K {
            return Err(Error::invalid_parameter(
                "num_hashes",
                format!("must be in 1..={MAX_K}, got {k}"),
            ));
        }
        let base = mix64(seed ^ 0x6963_7773_2D6B_6579); // "icws-key"
        let slot_keys = (1..=k as u64)
            .map(|i| mix64(base.wrapping_add(i.wrapping_mul(GOLDEN))))
            .collect();
        Ok(IcwsMinHasher {
            k,
            seed,
            feature_scheme,
            scheme: IcwsMinHasher::scheme_for(k, seed, feature_scheme),
            slot_keys,
            feature_key: mix64(seed ^ 0x6963_7773_2D66_6561), // "icws-fea"
            value_key: mix64(seed ^ 0x6963_7773_2D76_616C),   // "icws-val"
        })
    }
}

impl IcwsMinHasher {
    /// A hasher with `k` slots drawn from `seed`, for features of an unnamed scheme
    /// (name it with [`with_feature_scheme`](Self::with_feature_scheme)): the shortcut
    /// for `builder().num_hashes(k).seed(seed).build()`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `k` is 0 or above [`MAX_NUM_HASHES`](crate::MAX_NUM_HASHES).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::IcwsMinHasher;
    /// assert_eq!(IcwsMinHasher::new(128, 7)?.num_hashes(), 128);
    /// assert!(IcwsMinHasher::new(0, 7).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(k: usize, seed: u64) -> Result<Self, Error> {
        Self::builder().num_hashes(k).seed(seed).build()
    }

    /// Starts a configuration (defaults in [`IcwsMinHasherBuilder`]).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::IcwsMinHasher::builder().build()?;
    /// assert_eq!((h.num_hashes(), h.seed()), (128, 0));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn builder() -> IcwsMinHasherBuilder {
        IcwsMinHasherBuilder::default()
    }

    fn scheme_for(k: usize, seed: u64, feature_scheme: SchemeId) -> SchemeId {
        SchemeId::new("minhash-icws")
            .with(ICWS_VERSION)
            .with(k as u64)
            .with(seed)
            .with_scheme(feature_scheme)
            .finish()
    }

    /// Names the scheme of the features being sketched (for example the extractor's
    /// [`scheme`](ndd_core::FeatureExtractor::scheme)); it is folded into the
    /// signatures' scheme so that vectors over different features never compare.
    /// The shortcut for [`IcwsMinHasherBuilder::feature_scheme`] on a built hasher.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Sketcher};
    /// use near_dup::minhash::IcwsMinHasher;
    /// let plain = IcwsMinHasher::new(64, 1)?;
    /// let tfidf = IcwsMinHasher::new(64, 1)?.with_feature_scheme(SchemeId::new("tfidf").finish());
    /// assert_ne!(plain.scheme(), tfidf.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn with_feature_scheme(mut self, feature_scheme: SchemeId) -> Self {
        self.feature_scheme = feature_scheme;
        self.scheme = Self::scheme_for(self.k, self.seed, feature_scheme);
        self
    }

    /// The number of slots `k`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::IcwsMinHasher::new(32, 0)?.num_hashes(), 32);
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
    /// assert_eq!(near_dup::minhash::IcwsMinHasher::new(32, 9)?.seed(), 9);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The scheme of the features this hasher consumes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = SchemeId::new("tf").finish();
    /// let h = near_dup::minhash::IcwsMinHasher::new(8, 0)?.with_feature_scheme(s);
    /// assert_eq!(h.feature_scheme(), s);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }

    /// The signature of `v`. Negative weights count as zero (as in
    /// [`ndd_core::weighted_jaccard`]); non-finite weights, which only a
    /// [`Weighted`] written field by field can hold, are skipped.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Signature, SparseVector, Weighted};
    /// let h = near_dup::minhash::IcwsMinHasher::new(64, 0)?;
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(10, 2.5)?, Weighted::new(11, 0.5)?]);
    /// let sig = h.sketch_weighted(&v);
    /// assert_eq!(sig.num_values(), 64);
    /// assert_eq!(sig.similarity(&h.sketch_weighted(&v))?.value(), 1.0);
    /// assert!(h.sketch_weighted(&SparseVector::default()).is_empty_document());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn sketch_weighted(&self, v: &SparseVector) -> MinHashSignature {
        let mut out = self.new_signature();
        self.sketch_weighted_into(v, &mut out);
        out
    }

    /// Writes the signature of `v` into `out` (reusing its storage; allocates an
    /// `O(k)` scratch buffer — the [`Sketcher`] state API allocates nothing in steady
    /// state). Weights are treated as by [`sketch_weighted`](Self::sketch_weighted).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// let h = near_dup::minhash::IcwsMinHasher::new(16, 0)?;
    /// let mut out = h.sketch_weighted(&SparseVector::default());
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?]);
    /// h.sketch_weighted_into(&v, &mut out);
    /// assert_eq!(out, h.sketch_weighted(&v));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_weighted_into(&self, v: &SparseVector, out: &mut MinHashSignature) {
        let mut best = Vec::with_capacity(self.k);
        self.sketch_core(
            v.entries().iter().map(|w| (w.feature, w.weight)),
            &mut best,
            out,
        );
    }

    /// The signature of weighted features given in any order; repeated features are
    /// summed (as [`SparseVector::from_unsorted`] does).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the first entry whose weight is negative, NaN or
    /// infinite. Zero weights are accepted and skipped.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Weighted;
    /// let h = near_dup::minhash::IcwsMinHasher::new(32, 0)?;
    /// let sig = h.sketch_entries(&[Weighted::new(5, 1.0)?, Weighted::new(9, 0.0)?])?;
    /// assert_eq!(sig, h.sketch_entries(&[Weighted::new(5, 1.0)?])?);
    /// assert!(h.sketch_entries(&[Weighted::new(5, -1.0)?]).is_err());
    /// assert!(h.sketch_entries(&[Weighted { feature: 5, weight: f64::NAN }]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_entries(&self, entries: &[Weighted]) -> Result<MinHashSignature, Error> {
        check_entries(entries)?;
        Ok(self.sketch_weighted(&SparseVector::from_unsorted(entries.to_vec())))
    }

    /// The ICWS loop: slot minima of `ln a` over the non-zero entries.
    ///
    /// Most (feature, slot) pairs cannot beat the slot's current minimum, and a cheap
    /// lower bound proves it without a logarithm: since `t − β ≤ ln S / r`,
    /// `a = c·exp(−r (t − β + 1)) ≥ c·e^(−r) / S = c·u₁u₂ / S`, and
    /// `c = −ln(u₃u₄) ≥ y + y²/2 + y³/3` with `y = 1 − u₃u₄`. A pair is skipped when a
    /// bound reaches the minimum times `1 + 1e-9`; the margin dwarfs the rounding
    /// error of the full computation, so skipping never changes a slot (a unit test
    /// checks the result against the unpruned loop). The error budget, in the log
    /// domain: each `stable_ln` is within a few ulps, `t − β ≤ ln S / r` holds up to
    /// one rounding of `ln S / r + β`, and the few products and the `exp` behind
    /// `Best::lin` (the platform's, used for this bound only) add relative errors of
    /// order `ε`; all told under `20 ε (|ln S| + r + |ln c|)`, that is
    /// `20 · 2.2e-16 · (745 + 74 + 37) < 4e-12` (finite weights have `|ln S| < 745`,
    /// `r ≤ 106 ln 2 < 74`, and `c ≥ 2^-53` so `|ln c| < 37`), some 250 times below
    /// `ln(1 + 1e-9)`.
    fn sketch_core<I: Iterator<Item = (u64, f64)>>(
        &self,
        entries: I,
        best: &mut Vec<Best>,
        out: &mut MinHashSignature,
    ) {
        const MARGIN: f64 = 1.0 + 1e-9;
        out.set_scheme(self.scheme);
        let values = out.values_mut();
        values.clear();
        values.resize(self.k, EMPTY);
        best.clear();
        best.resize(self.k, Best::NONE);
        for (feature, weight) in entries {
            if !weight.is_finite() || weight <= 0.0 {
                continue;
            }
            let ln_s = ln_weight(weight);
            let fh = mix64(feature ^ self.feature_key);
            for ((&key, b), v) in self
                .slot_keys
                .iter()
                .zip(best.iter_mut())
                .zip(values.iter_mut())
            {
                let x = mix64(fh ^ key);
                let u = |j: u64| open_unit(mix64(x.wrapping_add(j.wrapping_mul(GOLDEN))));
                // r = −ln(u₁u₂) and c = −ln(u₃u₄) ~ Gamma(2, 1); β = u₅ ~ U(0, 1).
                let p12 = u(1) * u(2);
                let q = u(3) * u(4);
                // `bound` is ≥ 0 or +∞ (no minimum yet, or exp(min) out of range).
                let bound = b.lin * weight * MARGIN;
                let y = 1.0 - q;
                if y * (1.0 + y * (0.5 + y * (1.0 / 3.0))) * p12 >= bound {
                    continue;
                }
                let c = -stable_ln(q);
                if c * p12 >= bound {
                    continue;
                }
                let r = -stable_ln(p12);
                let beta = u(5);
                let t = (ln_s / r + beta).floor();
                // ln a = ln c − ln y − r = ln c − r (t − β + 1).
                let ln_a = stable_ln(c) - r * (t - beta + 1.0);
                if ln_a < b.ln {
                    *b = Best::new(ln_a);
                    *v = self.slot_value(feature, t);
                }
            }
        }
    }

    /// The stored value of the sample `(f*, t*)`: a hash of both, never [`EMPTY`].
    #[inline]
    fn slot_value(&self, feature: u64, t: f64) -> u64 {
        // `t` is an integer-valued float; `+ 0.0` turns −0 into +0 so that one
        // integer has one bit pattern.
        let t_bits = (t + 0.0).to_bits();
        let v =
            mix64(mix64(feature ^ self.value_key).wrapping_add(mix64(t_bits).wrapping_mul(GOLDEN)));
        if v == EMPTY { EMPTY - 1 } else { v }
    }
}

/// The per-document accumulator of an [`IcwsMinHasher`] used as a [`Sketcher`]: the
/// pushed weighted features and an `O(k)` scratch buffer, both reused across
/// documents.
///
/// Pushes of the same feature are summed at [`Sketcher::finish_into`];
/// [`FeatureSink::push`] adds weight 1. A non-finite weight given to
/// [`FeatureSink::push_weighted`] is ignored (the sink cannot report an error; use
/// [`IcwsMinHasher::sketch_entries`] to have it refused), and features whose summed
/// weight is not positive are skipped.
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSink, Sketcher, SparseVector, Weighted};
/// use near_dup::minhash::IcwsMinHasher;
/// let h = IcwsMinHasher::new(32, 0)?;
/// let mut state = h.new_state();
/// let mut sig = h.new_signature();
/// state.push(7);
/// state.push(7);
/// state.push_weighted(8, 0.5);
/// h.finish_into(&mut state, &mut sig);
/// let tf = SparseVector::from_unsorted(vec![Weighted::new(7, 2.0)?, Weighted::new(8, 0.5)?]);
/// assert_eq!(sig, h.sketch_weighted(&tf));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct IcwsState {
    entries: Vec<Weighted>,
    best: Vec<Best>,
}

impl Ingest<IcwsState> for IcwsMinHasher {
    #[inline]
    fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }
}

/// A slot's running minimum: `ln a` and, for the pruning bound, `exp(ln a)` — or +∞
/// when that is not a positive finite number (no minimum yet, underflow, overflow),
/// which disables pruning for the slot instead of pruning wrongly.
#[derive(Debug, Clone, Copy)]
struct Best {
    ln: f64,
    lin: f64,
}

impl Best {
    const NONE: Best = Best {
        ln: f64::INFINITY,
        lin: f64::INFINITY,
    };

    #[inline]
    fn new(ln: f64) -> Self {
        let lin = ln.exp();
        Best {
            ln,
            lin: if lin > 0.0 && lin.is_finite() {
                lin
            } else {
                f64::INFINITY
            },
        }
    }
}

impl FeatureSink for IcwsState {
    #[inline]
    fn push(&mut self, feature: u64) {
        self.push_weighted(feature, 1.0);
    }

    #[inline]
    fn push_weighted(&mut self, feature: u64, weight: f64) {
        if weight.is_finite() {
            self.entries.push(Weighted { feature, weight });
        }
    }
}

impl Sketcher for IcwsMinHasher {
    type Signature = MinHashSignature;
    type State = IcwsState;

    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    fn new_state(&self) -> IcwsState {
        IcwsState {
            entries: Vec::new(),
            best: Vec::with_capacity(self.k),
        }
    }

    fn new_signature(&self) -> MinHashSignature {
        MinHashSignature::empty(self.scheme, self.k)
    }

    fn finish_into(&self, state: &mut IcwsState, out: &mut MinHashSignature) {
        let entries = &mut state.entries;
        // Sort by feature, then weight, so that the sums do not depend on push order.
        entries.sort_unstable_by(|a, b| {
            a.feature
                .cmp(&b.feature)
                .then(a.weight.total_cmp(&b.weight))
        });
        entries.dedup_by(|later, kept| {
            if later.feature == kept.feature {
                kept.weight = (kept.weight + later.weight).clamp(-f64::MAX, f64::MAX);
                true
            } else {
                false
            }
        });
        self.sketch_core(
            entries.iter().map(|w| (w.feature, w.weight)),
            &mut state.best,
            out,
        );
        entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loop as the paper states it, without pruning, with the value-defining
    /// arithmetic of the documentation: `ln a = ln c − r (t − β + 1)` (the logarithm of
    /// the paper's `a = c / (y · e^r)`, `y = e^(r (t − β))`), every logarithm by
    /// `stable_ln`.
    fn reference(h: &IcwsMinHasher, v: &[(u64, f64)]) -> Vec<u64> {
        let mut best = vec![f64::INFINITY; h.k];
        let mut values = vec![EMPTY; h.k];
        for &(feature, weight) in v {
            let ln_s = ln_weight(weight);
            let fh = mix64(feature ^ h.feature_key);
            for (i, &key) in h.slot_keys.iter().enumerate() {
                let x = mix64(fh ^ key);
                let u = |j: u64| open_unit(mix64(x.wrapping_add(j.wrapping_mul(GOLDEN))));
                let r = -stable_ln(u(1) * u(2));
                let c = -stable_ln(u(3) * u(4));
                let beta = u(5);
                let t = (ln_s / r + beta).floor();
                let ln_a = stable_ln(c) - r * (t - beta + 1.0);
                if ln_a < best[i] {
                    best[i] = ln_a;
                    values[i] = h.slot_value(feature, t);
                }
            }
        }
        values
    }

    #[test]
    fn ln_weight_covers_subnormal_weights() {
        // Normal weights: stable_ln itself.
        for w in [f64::MIN_POSITIVE, 1e-300, 0.5, 1.0, 3.0, 1e300, f64::MAX] {
            assert_eq!(ln_weight(w).to_bits(), stable_ln(w).to_bits(), "{w}");
        }
        // Subnormal weights: finite, within a few ulps of ln, increasing.
        let mut last = f64::NEG_INFINITY;
        for w in [5e-324, 1e-323, 3e-320, 1e-310, 2.2e-308] {
            let (a, b) = (ln_weight(w), w.ln());
            assert!(
                a.is_finite() && (a - b).abs() <= 8.0 * f64::EPSILON * b.abs(),
                "{w}"
            );
            assert!(a > last, "{w}");
            last = a;
        }
        // 2^-1074 is exactly 2^-1010 / 2^64.
        assert_eq!(
            ln_weight(5e-324),
            stable_ln(f64::from_bits(13u64 << 52)) - 64.0 * std::f64::consts::LN_2
        );
    }

    #[test]
    fn pruning_never_changes_a_slot() {
        let h = IcwsMinHasher::new(64, 17).unwrap();
        let mut state = 0x1234_5678u64;
        let mut next = move || {
            state = state.wrapping_add(GOLDEN);
            mix64(state)
        };
        for doc in 0..300 {
            let n = 1 + (next() % 400) as usize;
            // Up to e^±744: extreme weights, subnormal ones included.
            let spread = [1.0, 10.0, 700.0, 744.0][doc % 4];
            let v: Vec<(u64, f64)> = (0..n)
                .map(|_| {
                    let z = open_unit(next()) * 2.0 - 1.0;
                    (next(), (z * spread).exp())
                })
                .filter(|&(_, w)| w > 0.0 && w.is_finite())
                .collect();
            let entries: Vec<Weighted> = v
                .iter()
                .map(|&(feature, weight)| Weighted { feature, weight })
                .collect();
            let sorted = SparseVector::from_unsorted(entries);
            let pairs: Vec<(u64, f64)> = sorted
                .entries()
                .iter()
                .map(|w| (w.feature, w.weight))
                .collect();
            assert_eq!(
                h.sketch_weighted(&sorted).values(),
                reference(&h, &pairs).as_slice(),
                "document {doc}"
            );
        }
    }
}

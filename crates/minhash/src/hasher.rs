//! [`MinHasher`]: classic k-hash MinHash and one-permutation hashing with optimal
//! densification, behind one configured sketcher.

use std::sync::Arc;

use ndd_core::hash::mix64;
use ndd_core::{
    Composed, DocSketcher, Error, ExternalFeatures, FeatureExtractor, FeatureSink, Ingest,
    SchemeId, Sketcher,
};
use ndd_shingle::WordShingler;

use crate::densify::{Densifier, FixedOphSink, bin_of, occupancy_word, oph_key};
use crate::family::{HashFamily, UniversalHashes};
use crate::signature::{EMPTY, MinHashSignature};

/// The most hash values per signature any MinHasher accepts (`num_hashes`, `k`):
/// 65,536, a 512 KiB signature per document.
///
/// Cost at the limit, measured on two cores (docs/decisions.md, "Bounded work"):
/// one-permutation hashing sketches a five-word document in 3.5 ms (densification
/// costs O(k log k) whatever the document: 15 ms at 2^18, 1.8 s at 2^24, which the
/// limit rules out); the classic scheme and ICWS cost O(features × k). Real use stays
/// far below: 128 to 1,024 values give standard errors of 0.035 to 0.012.
///
/// # Example
///
/// ```
/// use near_dup::minhash::{MinHasher, MAX_NUM_HASHES};
/// assert!(MinHasher::new(MAX_NUM_HASHES).is_ok());
/// assert!(MinHasher::new(MAX_NUM_HASHES + 1).is_err());
/// ```
pub const MAX_NUM_HASHES: usize = 1 << 16;

/// Version of the value-defining algorithms of this module; folded into every scheme,
/// so that signatures from a release that changed values refuse to compare.
const ALGORITHM_VERSION: u64 = 1;

/// How a [`MinHasher`] turns features into `k` slot values.
///
/// Both schemes produce a [`MinHashSignature`] whose matching fraction estimates the
/// Jaccard coefficient without bias, with variance close to `J(1 − J)/k`
/// (`docs/decisions.md` records the measurements behind the default).
///
/// # Example
///
/// ```
/// use near_dup::minhash::{MinHasher, MinHashScheme};
/// let classic = MinHasher::builder().scheme(MinHashScheme::Classic).num_hashes(64).build()?;
/// assert_eq!(classic.minhash_scheme(), MinHashScheme::Classic);
/// assert_eq!(MinHasher::new(64)?.minhash_scheme(), MinHashScheme::OnePermutation);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MinHashScheme {
    /// One-permutation hashing with optimal densification (Shrivastava, *Optimal
    /// densification for fast and accurate minwise hashing*, ICML 2017, Algorithm 2):
    /// each feature is hashed once, the hash picks one of `k` bins and the bin keeps
    /// its minimum; every empty bin then copies the value of the first non-empty bin
    /// on its own pseudo-random probe sequence (the same sequence for every document,
    /// which keeps the scheme consistent). `O(n + k)` per document. The default: as
    /// accurate as classic (tested) and about `k` times less hashing.
    #[default]
    OnePermutation,
    /// `k` independent hash functions from the linear family
    /// `h_i(x) = (a_i·x + b_i) mod (2^61 − 1)` (Hajishirzi, Yih and Kołcz, SIGIR 2010, §3.2), slot `i` the minimum
    /// of `h_i` over the features (Broder's scheme as in Gambosi's near-duplicate detection slides (after Manning and Schütze)). `O(n·k)` per
    /// document; the papers' reference scheme.
    Classic,
}

#[derive(Debug, Clone)]
enum Kind {
    Oph(Arc<Densifier>),
    Classic(UniversalHashes),
    Custom(Arc<dyn HashFamily>),
}

/// The per-document accumulator of a [`MinHasher`]: running minima, updated as
/// features are pushed (no feature buffer). Reuse one per thread.
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSink, Sketcher};
/// let h = near_dup::minhash::MinHasher::new(64)?;
/// let mut state = h.new_state();
/// let mut sig = h.new_signature();
/// for f in [1u64, 2, 3] { state.push(f); }
/// h.finish_into(&mut state, &mut sig);
/// assert_eq!(sig, h.sketch_features([3, 2, 1, 1]));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MinHashState {
    mins: Vec<u64>,
    /// One-permutation hashing: bit `i` set when bin `i` is non-empty (computed when
    /// the document is finished).
    occupied: Vec<u64>,
    /// One-permutation hashing with `k` = 64 or 128: byte `i` is 1 when a feature fell
    /// into bin `i` (empty for other sizes).
    seen: Vec<u8>,
    kind: StateKind,
}

#[derive(Debug, Clone)]
enum StateKind {
    Oph { key: u64 },
    Classic(UniversalHashes),
    Custom(Arc<dyn HashFamily>),
}

impl MinHashState {
    fn reset(&mut self) {
        self.mins.fill(EMPTY);
        self.occupied.fill(0);
        self.seen.fill(0);
    }

    #[inline(never)]
    fn push_k_hashes(&mut self, feature: u64) {
        match &self.kind {
            StateKind::Classic(f) => f.update_mins(feature, &mut self.mins),
            StateKind::Custom(f) => f.update_mins(feature, &mut self.mins),
            StateKind::Oph { .. } => {}
        }
    }
}

impl FeatureSink for MinHashState {
    #[inline(always)]
    fn push(&mut self, feature: u64) {
        if let StateKind::Oph { key } = self.kind {
            let h = mix64(feature ^ key);
            let bin = bin_of(h, self.mins.len() as u64);
            if let Some(m) = self.mins.get_mut(bin) {
                *m = (*m).min(h);
            }
            if let Some(b) = self.seen.get_mut(bin) {
                *b = 1;
            }
        } else {
            self.push_k_hashes(feature);
        }
    }
}

/// Sketches documents into [`MinHashSignature`]s.
///
/// Configure once (validated), then sketch any number of documents from any number of
/// threads: `sketch(&doc)` on text through the configured feature extractor (word
/// 3-gram shingles by default, as in the `ndd` tool), `sketch_features` on feature hashes you extracted
/// yourself, `sketch_with` / `sketch_batch_into` to reuse buffers, and
/// `par_sketch_batch` with the `rayon` feature.
///
/// Parameters, in the user's terms:
/// * `num_hashes` (`k`, default 128): the number of slots. The estimate's standard
///   error is `sqrt(J(1 − J)/k)`: ±0.035 at `J = 0.8` for 128, half that for 512;
///   memory is `8k` bytes per signature.
/// * `seed` (default 0): signatures compare only with signatures of the same seed;
///   change it to draw independent hash functions.
/// * `scheme`: [`MinHashScheme::OnePermutation`] (default, fast) or
///   [`MinHashScheme::Classic`] (the papers' `k` hash functions).
///
/// Signatures are stable: a pure function of the features, the parameters and the
/// crate's major version, on every platform.
///
/// # Example: the quick start
///
/// ```
/// use near_dup::{DocSketcher, Signature};
/// use near_dup::minhash::MinHasher;
///
/// let hasher = MinHasher::new(128)?;
/// let doc = "Minwise hashing estimates the Jaccard similarity of two shingle sets.";
/// let sig = hasher.sketch(doc);
/// assert_eq!(sig.similarity(&hasher.sketch(doc))?.value(), 1.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MinHasher<E = WordShingler>(Composed<E, MinHashSketcher>);

/// The MinHash sketcher proper, without a text front end: features in, a
/// [`MinHashSignature`] out. A [`MinHasher`] is this sketcher composed with a feature
/// extractor ([`Composed`]); compose it yourself with any extractor built for the
/// features it was configured for (also one chosen at run time, a
/// `Box<dyn DynFeatureExtractor>`). Build it with
/// [`MinHasherBuilder::build_sketcher`].
///
/// Its [`Ingest`] hook keeps the fixed-size one-permutation fast path: for `k` = 64
/// and 128 the extractor pushes into a sink that holds the bins as an array.
///
/// # Example
///
/// ```
/// use near_dup::{Composed, DocSketcher, FeatureExtractor};
/// use near_dup::minhash::MinHasher;
/// use near_dup::shingle::CharShingler;
/// let chars = CharShingler::new(4)?;
/// let sketcher = MinHasher::builder().num_hashes(64).build_sketcher(chars.scheme())?;
/// let composed = Composed::new(chars.clone(), sketcher)?;
/// let named = MinHasher::builder().num_hashes(64).build_with(chars)?;
/// assert_eq!(composed.sketch("abcdefgh"), named.sketch("abcdefgh"));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MinHashSketcher {
    k: usize,
    seed: u64,
    which: MinHashScheme,
    kind: Kind,
    feature_scheme: SchemeId,
    scheme: SchemeId,
}

/// Configures a [`MinHasher`]; start with [`MinHasher::builder`].
///
/// # Example
///
/// ```
/// use near_dup::minhash::{MinHasher, MinHashScheme};
/// use near_dup::shingle::WordShingler;
/// let h = MinHasher::builder()
///     .num_hashes(256)
///     .seed(7)
///     .scheme(MinHashScheme::OnePermutation)
///     .build_with(WordShingler::new(3)?)?;
/// assert_eq!(h.num_hashes(), 256);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MinHasherBuilder {
    k: usize,
    seed: u64,
    which: MinHashScheme,
    family: Option<Arc<dyn HashFamily>>,
}

impl Default for MinHasherBuilder {
    fn default() -> Self {
        MinHasherBuilder {
            k: 128,
            seed: 0,
            which: MinHashScheme::OnePermutation,
            family: None,
        }
    }
}

impl MinHasherBuilder {
    /// The number of slots `k` (default 128).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::MinHasher::builder().num_hashes(64).build()?;
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
    /// use near_dup::Sketcher;
    /// let a = near_dup::minhash::MinHasher::builder().seed(1).build()?;
    /// let b = near_dup::minhash::MinHasher::builder().seed(2).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The sketching scheme (default [`MinHashScheme::OnePermutation`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{MinHasher, MinHashScheme};
    /// let h = MinHasher::builder().scheme(MinHashScheme::Classic).build()?;
    /// assert_eq!(h.minhash_scheme(), MinHashScheme::Classic);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(mut self, scheme: MinHashScheme) -> Self {
        self.which = scheme;
        self
    }

    /// Classic MinHash with your own hash functions (`k` becomes `family.len()`; the
    /// seed is not used).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{FnFamily, MinHasher};
    /// let family = FnFamily::new("identity", vec![Box::new(|x| x)])?;
    /// let h = MinHasher::builder().hash_family(family).build()?;
    /// assert_eq!(h.sketch_features([9, 4, 6]).values(), &[4]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn hash_family<F: HashFamily + 'static>(mut self, family: F) -> Self {
        self.k = family.len();
        self.which = MinHashScheme::Classic;
        self.family = Some(Arc::new(family));
        self
    }

    /// A hasher for text through word 3-gram shingles ([`WordShingler::default`],
    /// `k` = [`DEFAULT_WORD_K`](ndd_shingle::DEFAULT_WORD_K), the `ndd` tool's
    /// shingles). For other shingles use [`build_with`](Self::build_with), e.g.
    /// `build_with(WordShingler::new(5)?)` for the word 5-grams it gave in 0.1.0.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `num_hashes` is 0 or above [`MAX_NUM_HASHES`].
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::minhash::MinHasher::builder().num_hashes(0).build().is_err());
    /// ```
    pub fn build(self) -> Result<MinHasher<WordShingler>, Error> {
        self.build_with(WordShingler::default())
    }

    /// A hasher for text through `extractor`.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::DocSketcher;
    /// use near_dup::shingle::CharShingler;
    /// let h = near_dup::minhash::MinHasher::builder().build_with(CharShingler::new(4)?)?;
    /// assert!(!h.sketch("abcdef").is_empty_document());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_with<E: FeatureExtractor>(self, extractor: E) -> Result<MinHasher<E>, Error> {
        let sketcher = self.build_sketcher(extractor.scheme())?;
        Ok(MinHasher(Composed::new(extractor, sketcher)?))
    }

    /// A hasher for feature hashes you extract yourself, identified by
    /// `feature_scheme` (use [`Sketcher::sketch_features`] or push into a state).
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Sketcher};
    /// let h = near_dup::minhash::MinHasher::builder()
    ///     .build_for_features(SchemeId::new("my-token-ids").finish())?;
    /// assert_eq!(h.sketch_features([1, 2, 3]).num_values(), 128);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_for_features(
        self,
        feature_scheme: SchemeId,
    ) -> Result<MinHasher<ExternalFeatures>, Error> {
        Ok(MinHasher(Composed::external(
            self.build_sketcher(feature_scheme)?,
        )))
    }

    /// The sketcher alone, for features of `feature_scheme`: compose it with an
    /// extractor ([`Composed::new`]) or push features into its state.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Sketcher};
    /// let s = near_dup::minhash::MinHasher::builder()
    ///     .num_hashes(32)
    ///     .build_sketcher(SchemeId::new("ids").finish())?;
    /// assert_eq!(s.sketch_features([1, 2]).num_values(), 32);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_sketcher(self, feature_scheme: SchemeId) -> Result<MinHashSketcher, Error> {
        if self.k == 0 || self.k > MAX_NUM_HASHES {
            return Err(Error::invalid_parameter(
                "num_hashes",
                format!("must be in 1..={MAX_NUM_HASHES}, got {}", self.k),
            ));
        }
        let (kind, algo) = match (self.family, self.which) {
            (Some(f), _) => {
                let s = f.scheme();
                (
                    Kind::Custom(f),
                    SchemeId::new("minhash-custom").with_scheme(s),
                )
            }
            (None, MinHashScheme::Classic) => (
                Kind::Classic(UniversalHashes::new(self.k, self.seed)?),
                SchemeId::new("minhash-classic"),
            ),
            (None, MinHashScheme::OnePermutation) => (
                Kind::Oph(Arc::new(Densifier::new(self.k, self.seed))),
                SchemeId::new("minhash-oph"),
            ),
        };
        let scheme = algo
            .with(ALGORITHM_VERSION)
            .with(self.k as u64)
            .with(self.seed)
            .with_scheme(feature_scheme)
            .finish();
        Ok(MinHashSketcher {
            k: self.k,
            seed: self.seed,
            which: self.which,
            kind,
            feature_scheme,
            scheme,
        })
    }
}

impl MinHasher<WordShingler> {
    /// A text hasher with `num_hashes` slots: word 3-gram shingles (case-folded,
    /// Unicode words), one-permutation hashing, seed 0 — the features and scheme the
    /// `ndd` tool sketches with by default, so its signatures compare with the tool's.
    /// In 0.1.0 this was word 5-grams; `MinHasher::builder().num_hashes(n)
    /// .build_with(WordShingler::new(5)?)` gives those signatures.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `num_hashes` is 0 or above [`MAX_NUM_HASHES`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::DocSketcher;
    /// let h = near_dup::minhash::MinHasher::new(128)?;
    /// assert_eq!(h.sketch("hello world").num_values(), 128);
    /// assert!(near_dup::minhash::MinHasher::new(0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(num_hashes: usize) -> Result<Self, Error> {
        MinHasher::builder().num_hashes(num_hashes).build()
    }

    /// Starts a configuration (defaults: 128 slots, seed 0, one-permutation hashing).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::MinHasher::builder().build()?;
    /// assert_eq!(h.num_hashes(), 128);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn builder() -> MinHasherBuilder {
        MinHasherBuilder::default()
    }
}

impl MinHashSketcher {
    /// The number of slots `k`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = near_dup::minhash::MinHasher::builder().num_hashes(16).build_sketcher(SchemeId::new("x").finish())?;
    /// assert_eq!(s.num_hashes(), 16);
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
    /// use near_dup::SchemeId;
    /// let s = near_dup::minhash::MinHasher::builder().seed(5).build_sketcher(SchemeId::new("x").finish())?;
    /// assert_eq!(s.seed(), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The sketching scheme.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::minhash::{MinHasher, MinHashScheme};
    /// let s = MinHasher::builder().build_sketcher(SchemeId::new("x").finish())?;
    /// assert_eq!(s.minhash_scheme(), MinHashScheme::OnePermutation);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn minhash_scheme(&self) -> MinHashScheme {
        self.which
    }
}

impl<E> MinHasher<E> {
    /// The sketcher without the extractor.
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::minhash::MinHasher::new(64)?;
    /// assert_eq!(h.sketcher().num_hashes(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn sketcher(&self) -> &MinHashSketcher {
        self.0.sketcher()
    }

    /// The extractor and the sketcher as one [`Composed`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::minhash::MinHasher::new(64)?;
    /// assert_eq!(h.as_composed().scheme(), h.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn as_composed(&self) -> &Composed<E, MinHashSketcher> {
        &self.0
    }

    /// The number of slots `k`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::MinHasher::new(200)?.num_hashes(), 200);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_hashes(&self) -> usize {
        self.sketcher().k
    }

    /// The seed.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::MinHasher::builder().seed(3).build()?.seed(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.sketcher().seed
    }

    /// The sketching scheme.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{MinHasher, MinHashScheme};
    /// assert_eq!(MinHasher::new(8)?.minhash_scheme(), MinHashScheme::OnePermutation);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn minhash_scheme(&self) -> MinHashScheme {
        self.sketcher().which
    }

    /// The feature extractor.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::MinHasher::new(8)?.extractor().k(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn extractor(&self) -> &E {
        self.0.extractor()
    }

    /// The scheme of the features this hasher consumes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureExtractor;
    /// let h = near_dup::minhash::MinHasher::new(8)?;
    /// assert_eq!(h.feature_scheme(), h.extractor().scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(&self) -> SchemeId {
        self.sketcher().feature_scheme
    }
}

impl<E> Sketcher for MinHasher<E> {
    type Signature = MinHashSignature;
    type State = MinHashState;

    #[inline]
    fn scheme(&self) -> SchemeId {
        self.0.scheme()
    }
    #[inline]
    fn new_state(&self) -> MinHashState {
        self.0.new_state()
    }
    #[inline]
    fn new_signature(&self) -> MinHashSignature {
        self.0.new_signature()
    }
    #[inline]
    fn finish_into(&self, state: &mut MinHashState, out: &mut MinHashSignature) {
        self.0.finish_into(state, out);
    }
}

impl<E: FeatureExtractor> DocSketcher for MinHasher<E> {
    #[inline]
    fn extract_into(&self, doc: &str, state: &mut MinHashState) {
        self.0.extract_into(doc, state);
    }
}

impl Sketcher for MinHashSketcher {
    type Signature = MinHashSignature;
    type State = MinHashState;

    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    fn new_state(&self) -> MinHashState {
        let kind = match &self.kind {
            Kind::Oph(d) => StateKind::Oph { key: oph_key(d) },
            Kind::Classic(f) => StateKind::Classic(f.clone()),
            Kind::Custom(f) => StateKind::Custom(Arc::clone(f)),
        };
        let oph = matches!(kind, StateKind::Oph { .. });
        let words = if oph { self.k.div_ceil(64) } else { 0 };
        MinHashState {
            mins: vec![EMPTY; self.k],
            occupied: vec![0; words],
            // Flags only for the sizes whose densification reads them.
            seen: vec![
                0;
                if oph && (self.k == 64 || self.k == 128) {
                    self.k
                } else {
                    0
                }
            ],
            kind,
        }
    }

    fn new_signature(&self) -> MinHashSignature {
        MinHashSignature::empty(self.scheme, self.k)
    }

    fn finish_into(&self, state: &mut MinHashState, out: &mut MinHashSignature) {
        out.set_scheme(self.scheme);
        let values = out.values_mut();
        values.resize(self.k, EMPTY);
        match &self.kind {
            Kind::Oph(d) if state.mins.len() == self.k => {
                // The state's bins become the signature; the signature's old buffer
                // becomes the state's (reset below): no copy.
                std::mem::swap(values, &mut state.mins);
                let seen = &state.seen[..];
                if let (Ok(bins), Ok(seen)) = (
                    <&mut [u64; 128]>::try_from(&mut values[..]),
                    <&[u8; 128]>::try_from(seen),
                ) {
                    d.finish_fixed::<128, 2>(bins, seen);
                } else if let (Ok(bins), Ok(seen)) = (
                    <&mut [u64; 64]>::try_from(&mut values[..]),
                    <&[u8; 64]>::try_from(seen),
                ) {
                    d.finish_fixed::<64, 1>(bins, seen);
                } else {
                    // Occupancy from the bins, not tracked per push: a read-modify-write
                    // of one of k/64 words per feature is a store-forwarding chain that
                    // cost ~15% on long documents.
                    for (w, chunk) in state.occupied.iter_mut().zip(values.chunks(64)) {
                        *w = occupancy_word(chunk);
                    }
                    let full: usize = state.occupied.iter().map(|w| w.count_ones() as usize).sum();
                    if full != 0 && full != self.k {
                        d.densify(values, &state.occupied);
                    }
                }
            }
            _ => {
                let n = values.len().min(state.mins.len());
                values[..n].copy_from_slice(&state.mins[..n]);
            }
        }
        state.reset();
    }
}

impl Ingest<MinHashState> for MinHashSketcher {
    #[inline]
    fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }

    /// One-permutation hashing with `k` = 64 or 128: the extractor pushes into a sink
    /// that holds the bins as a fixed-size array and the key in a register (same
    /// values as pushing into the state, tested).
    #[inline]
    fn ingest<E: FeatureExtractor + ?Sized>(
        &self,
        extractor: &E,
        doc: &str,
        state: &mut MinHashState,
    ) {
        if let StateKind::Oph { key } = state.kind {
            let (mins, seen) = (state.mins.as_mut_slice(), state.seen.as_mut_slice());
            if let (Ok(bins), Ok(seen)) = (
                <&mut [u64; 128]>::try_from(&mut *mins),
                <&mut [u8; 128]>::try_from(&mut *seen),
            ) {
                return extractor.extract(doc, &mut FixedOphSink { bins, seen, key });
            }
            if let (Ok(bins), Ok(seen)) = (
                <&mut [u64; 64]>::try_from(mins),
                <&mut [u8; 64]>::try_from(seen),
            ) {
                return extractor.extract(doc, &mut FixedOphSink { bins, seen, key });
            }
        }
        extractor.extract(doc, state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndd_core::SchemeId;

    /// The inverse of `mix64` (xor-shifts by 33 are involutions; the multipliers are odd).
    fn unmix64(mut x: u64) -> u64 {
        fn inverse(c: u64) -> u64 {
            let mut inv = c;
            for _ in 0..6 {
                inv = inv.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(inv)));
            }
            inv
        }
        x ^= x >> 33;
        x = x.wrapping_mul(inverse(0xc4ce_b9fe_1a85_ec53));
        x ^= x >> 33;
        x = x.wrapping_mul(inverse(0xff51_afd7_ed55_8ccd));
        x ^= x >> 33;
        x
    }

    /// One-permutation hashing through the general path: bins, occupancy from the
    /// values, then `Densifier::densify` (the code the golden vectors pin for other k).
    fn reference(d: &Densifier, features: &[u64]) -> Vec<u64> {
        let key = oph_key(d);
        let mut bins = vec![EMPTY; d.k];
        for &f in features {
            let h = mix64(f ^ key);
            let b = bin_of(h, d.k as u64);
            bins[b] = bins[b].min(h);
        }
        let mut occupied = vec![0u64; d.k.div_ceil(64)];
        for (w, chunk) in occupied.iter_mut().zip(bins.chunks(64)) {
            *w = occupancy_word(chunk);
        }
        let full: u32 = occupied.iter().map(|w| w.count_ones()).sum();
        if full != 0 && full as usize != d.k {
            d.densify(&mut bins, &occupied);
        }
        bins
    }

    fn hasher(k: usize, seed: u64) -> MinHasher<ExternalFeatures> {
        MinHasher::builder()
            .num_hashes(k)
            .seed(seed)
            .build_for_features(SchemeId::new("test").finish())
            .unwrap()
    }

    #[test]
    fn fixed_sizes_match_the_general_densification() {
        let mut x = 7u64;
        for k in [64, 128] {
            for seed in 0..4 {
                let h = hasher(k, seed);
                let Kind::Oph(d) = &h.sketcher().kind else {
                    panic!("one-permutation hashing expected")
                };
                assert_eq!(d.order.len() % 4, 0);
                for n in [
                    0, 1, 2, 3, 5, 8, 13, 21, 34, 44, 55, 89, 144, 233, 600, 3000,
                ] {
                    for _ in 0..8 {
                        let features: Vec<u64> = (0..n)
                            .map(|_| {
                                x = mix64(x.wrapping_add(0x9e37_79b9_7f4a_7c15));
                                x
                            })
                            .collect();
                        let sig = h.sketch_features(features.iter().copied());
                        assert_eq!(sig.values(), &reference(d, &features)[..], "k={k} n={n}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_feature_hashing_to_u64_max_leaves_the_last_bin_empty() {
        for k in [64, 128] {
            let h = hasher(k, 3);
            let Kind::Oph(d) = &h.sketcher().kind else {
                panic!("one-permutation hashing expected")
            };
            let key = oph_key(d);
            let special = unmix64(u64::MAX) ^ key;
            assert_eq!(mix64(special ^ key), u64::MAX);
            for others in [vec![], vec![1u64], vec![1, 2, 3, 4, 5, 6, 7, 8]] {
                let mut features = others.clone();
                features.push(special);
                let sig = h.sketch_features(features.iter().copied());
                assert_eq!(sig.values(), &reference(d, &features)[..]);
                // The last bin holds no value of its own: it was densified (or the
                // whole signature is empty).
                assert_eq!(sig, h.sketch_features(others.iter().copied()));
            }
        }
    }

    #[test]
    fn text_through_the_fixed_sink_matches_pushed_features() {
        let doc = "one two three four five six seven eight nine ten eleven twelve \
                   thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty";
        for k in [32, 64, 128, 256] {
            let h = MinHasher::new(k).unwrap();
            let features = h.extractor().features(doc);
            let via_features = MinHasher::builder()
                .num_hashes(k)
                .build_for_features(h.feature_scheme())
                .unwrap()
                .sketch_features(features.iter().copied());
            assert_eq!(h.sketch(doc).values(), via_features.values(), "k={k}");
        }
    }
}

//! [`SimHasher`]: random-hyperplane signatures of any length over weighted features.

use std::sync::Arc;

use ndd_core::hash::mix64;
use ndd_core::{
    Composed, DocSketcher, Error, ExternalFeatures, FeatureExtractor, FeatureSink, Ingest,
    SchemeId, Sketcher, TrySketcher, Weighted,
};
use ndd_shingle::WordShingler;

use crate::signature::{MAX_BITS, SimHashSignature, tail_mask};
use crate::values::{gaussian_key, gaussian_value, sign_block, sign_key};
use crate::weighting::{FeatureWeights, TfIdf, Weighting, check_stats};

/// Version of the value-defining algorithms of this crate; folded into every scheme,
/// so that signatures from a release that changed values refuse to compare.
const ALGORITHM_VERSION: u64 = 1;

/// The per-feature random values `r_f[i]` whose weighted sum decides bit `i`.
///
/// Both derive from the feature hash and the seed only (specified in the crate docs'
/// "Value specification"), so signatures are stable across runs and platforms.
///
/// # Example
///
/// ```
/// use near_dup::simhash::{Projection, SimHasher};
/// let g = SimHasher::builder().projection(Projection::Gaussian).bits(384).build()?;
/// assert_eq!(g.projection(), Projection::Gaussian);
/// assert_eq!(SimHasher::new(64)?.projection(), Projection::Sign);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Projection {
    /// `±1` values taken from the bits of a 64-bit hash of the feature (one hash per 64
    /// bits of signature): the cheap variant of web-scale fingerprints (Manku, Jain and
    /// Das Sarma, *Detecting near-duplicates for web crawling*, WWW 2007, §2; Henzinger's
    /// implementation in Hajishirzi, Yih and Kołcz (SIGIR 2010, §2.3) draws from `[−1, 1]`). With binary or
    /// term-frequency weights the sums are integers, counted in bit-sliced counters.
    /// The one-bit collision probability approaches `1 − θ/π` as the number of features
    /// grows (the sum of many `±1` terms is close to Gaussian): for two sets of 401
    /// features the exact binomial rate is within 0.0006 of it (and tested). The
    /// default.
    #[default]
    Sign,
    /// Standard normal values, one per feature and bit, as in Charikar's random
    /// hyperplanes (*Similarity estimation techniques from rounding algorithms*, STOC
    /// 2002; Hajishirzi, Yih and Kołcz (SIGIR 2010, §3.2), "each k-gram … associated with m different random numbers
    /// drawn from the Gaussian distribution"): the collision probability is exactly
    /// `1 − θ/π` for any vectors. 20–40× the time per feature of [`Sign`](Self::Sign)
    /// (a normal quantile per bit).
    Gaussian,
}

impl Projection {
    fn code(self) -> u64 {
        match self {
            Projection::Sign => 1,
            Projection::Gaussian => 2,
        }
    }
}

/// How features are weighted inside a state.
#[derive(Clone)]
enum StateWeights {
    /// Weight 1 per feature (binary, term frequency).
    Unit,
    Idf(Arc<TfIdf>),
    Custom(Arc<dyn FeatureWeights>),
}

impl std::fmt::Debug for StateWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StateWeights::Unit => "Unit",
            StateWeights::Idf(_) => "Idf",
            StateWeights::Custom(_) => "Custom",
        })
    }
}

/// Open-addressing set of the feature hashes of the current document (for the
/// weightings that count each distinct feature once). The table grows within one
/// document and is cleared, and its used size reset, by the next.
///
/// Documents given as text are sized before their first feature ([`expect`]) from the
/// distinct features per byte of text of the documents before them, so that a long
/// document after short ones does not grow its table step by step (each step rehashes
/// every feature, in a table that no longer fits the L1 cache).
///
/// [`expect`]: SeenSet::expect
#[derive(Debug, Clone)]
struct SeenSet {
    table: Vec<u64>,
    /// Slots in use for this document (a power of two, the table has at least as
    /// many once something was inserted); slots past it are all 0.
    size: usize,
    len: usize,
    has_zero: bool,
    scratch: Vec<u64>,
    /// Bytes of text and distinct features of the documents sized by `expect` so far.
    text_bytes: u64,
    text_features: u64,
    /// Bytes of text of the current document, when `expect` sized it (else 0).
    doc_bytes: usize,
}

const SEEN_INITIAL: usize = 256;

impl SeenSet {
    fn new() -> Self {
        SeenSet {
            table: Vec::new(),
            size: SEEN_INITIAL,
            len: 0,
            has_zero: false,
            scratch: Vec::new(),
            text_bytes: 0,
            text_features: 0,
            doc_bytes: 0,
        }
    }

    /// Sizes the empty set for a document of `bytes` bytes of text: load at most 1/4
    /// at the distinct features per byte of the documents sized before (the rule of
    /// [`reset`](Self::reset)). The first document, and a set that already holds
    /// features, keep their size.
    fn expect(&mut self, bytes: usize) {
        if self.len != 0 || self.has_zero {
            return;
        }
        self.doc_bytes = bytes;
        if self.text_bytes == 0 {
            return;
        }
        // At most two features per byte: a bound on the table a guess can allocate.
        let features = (u128::from(self.text_features) * bytes as u128
            / u128::from(self.text_bytes))
        .min(2 * bytes as u128 + 16);
        let features = usize::try_from(features).unwrap_or(usize::MAX / 8);
        self.size = (4 * features).next_power_of_two().max(SEEN_INITIAL);
    }

    /// Fibonacci hashing: the top `log2(size)` bits of `f·γ`. One multiply, so the
    /// table load does not wait for a full mix of the feature; robust to structured
    /// feature ids (consecutive integers spread out).
    #[inline(always)]
    fn slot(f: u64, size: usize) -> usize {
        let shift = 64 - size.trailing_zeros();
        // `size` is a power of two of at least 256: the result is below `size`.
        #[allow(clippy::cast_possible_truncation)]
        let i = (f.wrapping_mul(crate::values::GAMMA) >> shift) as usize;
        i
    }

    /// Inserts `s` (a feature hash); whether it was new.
    #[inline(always)]
    fn insert(&mut self, s: u64) -> bool {
        if s == 0 {
            return !std::mem::replace(&mut self.has_zero, true);
        }
        if self.table.len() < self.size {
            self.table.resize(self.size, 0);
        }
        let mask = self.size - 1;
        let mut i = Self::slot(s, self.size);
        loop {
            let t = self.table[i];
            if t == 0 {
                break;
            }
            if t == s {
                return false;
            }
            i = (i + 1) & mask;
        }
        self.table[i] = s;
        self.len += 1;
        if 2 * self.len > self.size {
            self.grow();
        }
        true
    }

    #[cold]
    fn grow(&mut self) {
        let old = self.size;
        self.scratch.clear();
        self.scratch
            .extend(self.table[..old].iter().copied().filter(|&t| t != 0));
        self.table[..old].fill(0);
        self.size = old * 2;
        if self.table.len() < self.size {
            self.table.resize(self.size, 0);
        }
        let mask = self.size - 1;
        for &s in &self.scratch {
            let mut i = Self::slot(s, self.size);
            while self.table[i] != 0 {
                i = (i + 1) & mask;
            }
            self.table[i] = s;
        }
    }

    /// Clears the set. The next document starts at the size this one needed (load at
    /// most 1/4), so documents of similar length do not grow the table again, and a
    /// long document does not make every later one clear a large table.
    fn reset(&mut self) {
        if self.doc_bytes != 0 {
            self.text_bytes += self.doc_bytes as u64;
            self.text_features += self.len as u64 + u64::from(self.has_zero);
            self.doc_bytes = 0;
        }
        let used = self.size.min(self.table.len());
        self.table[..used].fill(0);
        self.size = (4 * self.len)
            .next_power_of_two()
            .clamp(SEEN_INITIAL, used.max(SEEN_INITIAL));
        self.len = 0;
        self.has_zero = false;
    }
}

/// Byte lanes: bit `t` of a block is counted in byte `t / 8` of lane `t % 8`.
const LANE_ONES: u64 = 0x0101_0101_0101_0101;
/// Features buffered before they are counted; below 256, so that a byte lane cannot
/// overflow within a batch.
const BATCH: usize = 128;

/// The per-document accumulator of a [`SimHasher`]: the running sums `Σ w_f·r_f[i]`
/// (integer counters for `±1` values with unit weights, `f64` otherwise), updated as
/// features are pushed (no feature buffer). Reuse one per thread.
///
/// Pushing with [`FeatureSink::push`] weighs the feature by the hasher's
/// [`Weighting`]; [`FeatureSink::push_weighted`] uses the weight given. A non-finite
/// weight is skipped (the feature contributes nothing) and remembered for
/// [`SimHasher::try_finish_into`].
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSink, Sketcher};
/// let h = near_dup::simhash::SimHasher::new(64)?;
/// let mut state = h.new_state();
/// let mut sig = h.new_signature();
/// for f in [1u64, 2, 3] { state.push(f); }
/// h.finish_into(&mut state, &mut sig);
/// assert_eq!(sig, h.sketch_features([3, 2, 1])); // a sum: order does not matter
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SimHashState {
    projection: Projection,
    bits: usize,
    key: u64,
    distinct: bool,
    weights: StateWeights,
    seen: SeenSet,
    /// `±1` values with unit weights: features are buffered and counted a batch at a
    /// time (the hashing of a batch pipelines, and the byte-lane counters stay in
    /// registers).
    batched: bool,
    /// TF-IDF: features are buffered so that the `idf` lookups of a batch (cache
    /// misses in a large table) overlap.
    idf_batched: bool,
    buf: Vec<u64>,
    /// Number of unit contributions and, per bit, how many had value `+1`.
    n: u64,
    counts: Vec<u64>,
    /// `f64` sums: `Σ w` over `+1` values per bit (sign), or `Σ w·r` (Gaussian).
    sums: Vec<f64>,
    /// `Σ w` of the weighted sign contributions.
    total: f64,
    float_used: bool,
    invalid: u64,
    first_invalid: Option<(u64, f64)>,
    /// The scheme of the sketcher that made this state: a state is scratch space for
    /// one configuration (its length, seed, projection and weights).
    owner: SchemeId,
}

impl SimHashState {
    /// Whether a weighted sum overflowed (weights near `f64::MAX`): the signs of
    /// infinite or NaN sums mean nothing.
    fn overflowed(&self) -> bool {
        self.float_used && (!self.total.is_finite() || self.sums.iter().any(|v| !v.is_finite()))
    }

    /// Adds the buffered features with their `idf` weights, in push order: all lookups
    /// first, so that their cache misses overlap.
    #[inline(never)]
    fn idf_batch(&mut self) {
        let mut ws = [0.0f64; BATCH];
        if let StateWeights::Idf(t) = &self.weights {
            for (w, &f) in ws.iter_mut().zip(&self.buf) {
                *w = t.idf(f);
            }
        }
        let batch = std::mem::take(&mut self.buf);
        for (&f, &w) in batch.iter().zip(&ws) {
            let s = mix64(f ^ self.key);
            self.add_weighted(s, w);
        }
        self.buf = batch;
        self.buf.clear();
    }

    /// Counts the buffered features (`±1` values, unit weights): for each 64-bit
    /// block, byte-lane counters in registers over the batch, then added to `counts`.
    #[inline(never)]
    fn count_batch(&mut self) {
        let mut ss = [0u64; BATCH];
        let mut n = 0;
        for &f in &self.buf {
            if self.distinct && !self.seen.insert(f) {
                continue;
            }
            if let Some(slot) = ss.get_mut(n) {
                *slot = mix64(f ^ self.key);
                n += 1;
            }
        }
        self.buf.clear();
        let ss = &ss[..n];
        for (j, counts) in (0u64..).zip(self.counts.chunks_exact_mut(64)) {
            let mut lanes = [0u64; 8];
            for &s in ss {
                let b = sign_block(s, j);
                for (k, l) in lanes.iter_mut().enumerate() {
                    *l += (b >> k) & LANE_ONES;
                }
            }
            for (k, l) in lanes.iter().enumerate() {
                for byte in 0..8 {
                    counts[8 * byte + k] += (l >> (8 * byte)) & 0xFF;
                }
            }
        }
        self.n += n as u64;
    }

    /// Adds `w·r_f` for a finite `w`.
    #[inline]
    fn add_weighted(&mut self, s: u64, w: f64) {
        if w == 0.0 {
            return;
        }
        match self.projection {
            Projection::Sign => {
                self.float_used = true;
                self.total += w;
                let wb = w.to_bits();
                for (j, chunk) in (0u64..).zip(self.sums.chunks_mut(64)) {
                    let b = sign_block(s, j);
                    for (t, p) in chunk.iter_mut().enumerate() {
                        // `w` where the value is +1, +0.0 where it is −1.
                        let mask = 0u64.wrapping_sub((b >> t) & 1);
                        *p += f64::from_bits(wb & mask);
                    }
                }
            }
            Projection::Gaussian => self.add_gaussian(s, w),
        }
    }

    #[inline]
    fn add_gaussian(&mut self, s: u64, w: f64) {
        self.float_used = true;
        for (i, p) in (0u64..).zip(self.sums.iter_mut().take(self.bits)) {
            *p += w * gaussian_value(s, i);
        }
    }

    #[inline]
    fn add_checked(&mut self, feature: u64, s: u64, w: f64) {
        if w.is_finite() {
            self.add_weighted(s, w);
        } else {
            self.invalid += 1;
            self.first_invalid.get_or_insert((feature, w));
        }
    }

    /// Writes the bits into `words` (zeroed, `⌈bits/64⌉` long) and resets.
    fn finish(&mut self, words: &mut [u64]) {
        if !self.buf.is_empty() {
            if self.idf_batched {
                self.idf_batch();
            } else {
                self.count_batch();
            }
        }
        let n = self.n;
        if self.float_used {
            for (i, (c, p)) in self.counts.iter().zip(&self.sums).enumerate() {
                if i >= self.bits {
                    break;
                }
                // Exact: counts stay far below 2^53.
                let int_part = 2.0 * *c as f64 - n as f64;
                let float_part = match self.projection {
                    Projection::Sign => 2.0 * p - self.total,
                    Projection::Gaussian => *p,
                };
                if int_part + float_part > 0.0 {
                    if let Some(w) = words.get_mut(i / 64) {
                        *w |= 1 << (i % 64);
                    }
                }
            }
        } else {
            // Integer sums only: a branch-free pass the compiler vectorizes.
            for (w, chunk) in words.iter_mut().zip(self.counts.chunks_exact(64)) {
                *w = chunk
                    .iter()
                    .enumerate()
                    .fold(0u64, |acc, (t, &c)| acc | (u64::from(2 * c > n) << t));
            }
        }
        if let Some(last) = words.last_mut() {
            *last &= tail_mask(self.bits);
        }
        self.reset();
    }

    fn reset(&mut self) {
        if self.distinct {
            self.seen.reset();
        }
        self.buf.clear();
        self.n = 0;
        self.counts.fill(0);
        if self.float_used {
            self.sums.fill(0.0);
        }
        self.total = 0.0;
        self.float_used = false;
        self.invalid = 0;
        self.first_invalid = None;
    }
}

impl FeatureSink for SimHashState {
    #[inline(always)]
    fn push(&mut self, feature: u64) {
        if self.batched {
            self.buf.push(feature);
            if self.buf.len() >= BATCH {
                self.count_batch();
            }
            return;
        }
        if self.idf_batched {
            self.buf.push(feature);
            if self.buf.len() >= BATCH {
                self.idf_batch();
            }
            return;
        }
        if self.distinct && !self.seen.insert(feature) {
            return;
        }
        let s = mix64(feature ^ self.key);
        match &self.weights {
            StateWeights::Unit => self.add_gaussian(s, 1.0),
            StateWeights::Idf(t) => {
                let w = t.idf(feature);
                self.add_weighted(s, w);
            }
            StateWeights::Custom(c) => {
                let w = c.weight(feature, 1);
                self.add_checked(feature, s, w);
            }
        }
    }

    /// Adds `weight · r_f` (the hasher's weighting is not applied; repeats add up).
    #[inline]
    fn push_weighted(&mut self, feature: u64, weight: f64) {
        let s = mix64(feature ^ self.key);
        self.add_checked(feature, s, weight);
    }
}

/// Sketches documents into [`SimHashSignature`]s: Charikar's random-hyperplane
/// signatures of any length.
///
/// Each feature `f` of a document, with weight `w_f`, contributes `w_f·r_f[i]` to the
/// sum of bit `i`, where `r_f[i]` is a random value derived from `f` and the seed
/// ([`Projection`]); bit `i` is 1 when the sum is positive (Manku et al. §2; a sum of
/// exactly 0, as for every bit of an empty document, gives 0). For two documents at
/// angle `θ` a bit differs with probability `θ/π`.
///
/// Configure once (validated), then sketch any number of documents from any number of
/// threads: `sketch(&doc)` on text through the configured feature extractor (word
/// 3-gram shingles by default, the features [`MinHasher`] and the `ndd` tool see), `sketch_features` on
/// feature hashes you extracted yourself, [`sketch_weighted`](Self::sketch_weighted)
/// on a weighted vector, `sketch_with` / `sketch_batch_into` to reuse buffers, and
/// `par_sketch_batch` with the `rayon` feature.
///
/// Parameters, in the user's terms:
/// * `bits` (`m`, default 64): the signature length. The estimate `1 − h/m` has
///   standard error `sqrt(p(1 − p)/m)`: ±0.045 at `p = 0.85` for 64 bits, ±0.018 for
///   384. Hajishirzi, Yih and Kołcz (SIGIR 2010) (Figure 1) finds near-duplicate detection accuracy rising quickly
///   with `m` and indistinguishable from the exact cosine from 512 bits on; 64-bit
///   fingerprints are what the Hamming-table search of Manku et al. indexes.
/// * `seed` (default 0): signatures compare only with signatures of the same seed.
/// * `projection`: [`Projection::Sign`] (default, fast) or [`Projection::Gaussian`].
/// * `weighting`: [`Weighting::Binary`] (default, as in the `ndd` tool), term
///   frequency, TF-IDF, or your own.
///
/// [`MinHasher`]: https://docs.rs/ndd-minhash
///
/// # Example: the quick start
///
/// ```
/// use near_dup::{DocSketcher, Signature};
/// use near_dup::simhash::SimHasher;
///
/// let hasher = SimHasher::new(64)?;
/// let doc = "Random hyperplanes estimate the angle between two feature vectors.";
/// let sig = hasher.sketch(doc);
/// assert_eq!(sig.similarity(&hasher.sketch(doc))?.value(), 1.0);
/// let fingerprint: u64 = sig.as_u64().expect("64 bits");
/// # let _ = fingerprint;
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SimHasher<E = WordShingler>(Composed<E, SimHashSketcher>);

/// The SimHash sketcher proper, without a text front end: features in, a
/// [`SimHashSignature`] out. A [`SimHasher`] is this sketcher composed with a feature
/// extractor ([`Composed`]); compose it yourself with any extractor built for the
/// features it was configured for (also one chosen at run time, a
/// `Box<dyn DynFeatureExtractor>`). Build it with
/// [`SimHasherBuilder::build_sketcher`].
///
/// It holds the signature length, the seed, the [`Projection`] and the
/// [`Weighting`]; the weighting is applied inside its state ([`SimHashState`]) as
/// features stream in, so the extractor pushes into the state directly (the default
/// [`Ingest`] hook), monomorphized and without allocation per feature.
///
/// # Example
///
/// ```
/// use near_dup::{Composed, DocSketcher, FeatureExtractor};
/// use near_dup::shingle::CharShingler;
/// use near_dup::simhash::SimHasher;
/// let chars = CharShingler::new(4)?;
/// let sketcher = SimHasher::builder().bits(128).build_sketcher(chars.scheme())?;
/// let composed = Composed::new(chars.clone(), sketcher)?;
/// let named = SimHasher::builder().bits(128).build_with(chars)?;
/// assert_eq!(composed.sketch("abcdefgh"), named.sketch("abcdefgh"));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SimHashSketcher {
    bits: usize,
    seed: u64,
    projection: Projection,
    weighting: Weighting,
    feature_scheme: SchemeId,
    scheme: SchemeId,
}

/// Configures a [`SimHasher`]; start with [`SimHasher::builder`].
///
/// # Example
///
/// ```
/// use near_dup::shingle::WordShingler;
/// use near_dup::simhash::{Projection, SimHasher, Weighting};
/// let h = SimHasher::builder()
///     .bits(384)
///     .seed(7)
///     .projection(Projection::Gaussian)
///     .weighting(Weighting::TermFrequency)
///     .build_with(WordShingler::new(1)?)?;
/// assert_eq!((h.bits(), h.seed()), (384, 7));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SimHasherBuilder {
    bits: usize,
    seed: u64,
    projection: Projection,
    weighting: Weighting,
}

impl Default for SimHasherBuilder {
    fn default() -> Self {
        SimHasherBuilder {
            bits: 64,
            seed: 0,
            projection: Projection::Sign,
            weighting: Weighting::Binary,
        }
    }
}

impl SimHasherBuilder {
    /// The signature length `m` in bits (default 64; any length in `1..=2^20`).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::simhash::SimHasher::builder().bits(1024).build()?.bits(), 1024);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bits(mut self, bits: usize) -> Self {
        self.bits = bits;
        self
    }

    /// The seed (default 0).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let a = near_dup::simhash::SimHasher::builder().seed(1).build()?;
    /// let b = near_dup::simhash::SimHasher::builder().seed(2).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The random values (default [`Projection::Sign`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::simhash::{Projection, SimHasher};
    /// let h = SimHasher::builder().projection(Projection::Gaussian).build()?;
    /// assert_eq!(h.projection(), Projection::Gaussian);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn projection(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }

    /// The feature weighting (default [`Weighting::Binary`]).
    /// `weighting(Weighting::TermFrequency)` gives the term-frequency weights that
    /// were the default in 0.1.0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::simhash::{SimHasher, Weighting};
    /// let h = SimHasher::builder().weighting(Weighting::Binary).build()?;
    /// assert!(matches!(h.weighting(), Weighting::Binary));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn weighting(mut self, weighting: Weighting) -> Self {
        self.weighting = weighting;
        self
    }

    /// A hasher for text through word 3-gram shingles ([`WordShingler::default`],
    /// `k` = [`DEFAULT_WORD_K`](ndd_shingle::DEFAULT_WORD_K): the default of
    /// `MinHasher` and of the `ndd` tool too). For other shingles use
    /// [`build_with`](Self::build_with), e.g. `build_with(WordShingler::new(5)?)`
    /// for the word 5-grams it gave in 0.1.0.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `bits` is 0 or above 2^20;
    /// [`Error::Incompatible`] when TF-IDF statistics count other features than the
    /// extractor's.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::simhash::SimHasher::builder().bits(0).build().is_err());
    /// ```
    pub fn build(self) -> Result<SimHasher<WordShingler>, Error> {
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
    /// let h = near_dup::simhash::SimHasher::builder().build_with(CharShingler::new(4)?)?;
    /// assert_eq!(h.sketch("abcdef").bits(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_with<E: FeatureExtractor>(self, extractor: E) -> Result<SimHasher<E>, Error> {
        let sketcher = self.build_sketcher(extractor.scheme())?;
        Ok(SimHasher(Composed::new(extractor, sketcher)?))
    }

    /// A hasher for feature hashes you extract yourself, identified by
    /// `feature_scheme` (use [`Sketcher::sketch_features`],
    /// [`SimHasher::sketch_weighted`] or push into a state).
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Sketcher};
    /// let h = near_dup::simhash::SimHasher::builder()
    ///     .bits(128)
    ///     .build_for_features(SchemeId::new("my-token-ids").finish())?;
    /// assert_eq!(h.sketch_features([1, 2, 3]).bits(), 128);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_for_features(
        self,
        feature_scheme: SchemeId,
    ) -> Result<SimHasher<ExternalFeatures>, Error> {
        Ok(SimHasher(Composed::external(
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
    /// let s = near_dup::simhash::SimHasher::builder()
    ///     .bits(32)
    ///     .build_sketcher(SchemeId::new("ids").finish())?;
    /// assert_eq!(s.sketch_features([1, 2]).bits(), 32);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build_sketcher(self, feature_scheme: SchemeId) -> Result<SimHashSketcher, Error> {
        if self.bits == 0 || self.bits > MAX_BITS {
            return Err(Error::invalid_parameter(
                "bits",
                format!("must be in 1..={MAX_BITS}, got {}", self.bits),
            ));
        }
        check_stats(&self.weighting, feature_scheme)?;
        let scheme = SchemeId::new("simhash")
            .with(ALGORITHM_VERSION)
            .with(self.bits as u64)
            .with(self.seed)
            .with(self.projection.code())
            .with_scheme(self.weighting.scheme())
            .with_scheme(feature_scheme)
            .finish();
        Ok(SimHashSketcher {
            bits: self.bits,
            seed: self.seed,
            projection: self.projection,
            weighting: self.weighting,
            feature_scheme,
            scheme,
        })
    }
}

impl SimHasher<WordShingler> {
    /// A text hasher with `bits`-bit signatures: word 3-gram shingles (case-folded,
    /// Unicode words), `±1` values, binary weights (each distinct shingle counts
    /// once), seed 0 — the features and weights of the `ndd` tool's `--method
    /// simhash`, so its signatures compare with the tool's. In 0.1.0 this was word
    /// 5-grams with term-frequency weights: `SimHasher::builder().bits(m)
    /// .weighting(Weighting::TermFrequency).build_with(WordShingler::new(5)?)` gives
    /// those signatures.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `bits` is 0 or above 2^20.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::DocSketcher;
    /// let h = near_dup::simhash::SimHasher::new(64)?;
    /// assert_eq!(h.sketch("hello world").bits(), 64);
    /// assert!(near_dup::simhash::SimHasher::new(0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(bits: usize) -> Result<Self, Error> {
        SimHasher::builder().bits(bits).build()
    }

    /// Starts a configuration (defaults: 64 bits, seed 0, `±1` values, binary
    /// weights, word 3-grams).
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::simhash::SimHasher::builder().build()?;
    /// assert_eq!(h.bits(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn builder() -> SimHasherBuilder {
        SimHasherBuilder::default()
    }
}

impl<E> SimHasher<E> {
    /// The sketcher without the extractor.
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::simhash::SimHasher::new(128)?;
    /// assert_eq!(h.sketcher().bits(), 128);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn sketcher(&self) -> &SimHashSketcher {
        self.0.sketcher()
    }

    /// The extractor and the sketcher as one [`Composed`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::simhash::SimHasher::new(64)?;
    /// assert_eq!(h.as_composed().scheme(), h.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn as_composed(&self) -> &Composed<E, SimHashSketcher> {
        &self.0
    }

    /// The signature length `m`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::simhash::SimHasher::new(384)?.bits(), 384);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bits(&self) -> usize {
        self.sketcher().bits
    }

    /// The seed.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::simhash::SimHasher::builder().seed(3).build()?.seed(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.sketcher().seed
    }

    /// The random values.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::simhash::{Projection, SimHasher};
    /// assert_eq!(SimHasher::new(64)?.projection(), Projection::Sign);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn projection(&self) -> Projection {
        self.sketcher().projection
    }

    /// The feature weighting.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::simhash::{SimHasher, Weighting};
    /// assert!(matches!(SimHasher::new(64)?.weighting(), Weighting::Binary));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn weighting(&self) -> &Weighting {
        &self.sketcher().weighting
    }

    /// The feature extractor.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::simhash::SimHasher::new(64)?.extractor().k(), 3);
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
    /// let h = near_dup::simhash::SimHasher::new(64)?;
    /// assert_eq!(h.feature_scheme(), h.extractor().scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(&self) -> SchemeId {
        self.sketcher().feature_scheme
    }

    /// The signature of a weighted feature vector given as `(feature, weight)` pairs
    /// (repeated features add up; the hasher's [`Weighting`] is not applied). This is
    /// where real-valued vectors enter: learned weights, TF-IDF computed elsewhere.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the index of the first weight that is NaN or
    /// infinite.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Sketcher, Weighted};
    /// use near_dup::simhash::SimHasher;
    /// let h = SimHasher::builder().bits(128).build_for_features(SchemeId::new("terms").finish())?;
    /// let w = |feature, weight| Weighted { feature, weight };
    /// let v = [w(1, 2.5), w(2, 0.5)];
    /// let doubled = [w(1, 5.0), w(2, 1.0)];
    /// // Scaling a vector does not change its direction, nor its signature.
    /// assert_eq!(h.sketch_weighted(&v)?, h.sketch_weighted(&doubled)?);
    /// assert!(h.sketch_weighted(&[w(3, f64::NAN)]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_weighted(&self, features: &[Weighted]) -> Result<SimHashSignature, Error> {
        self.sketcher().sketch_weighted(features)
    }

    /// Like [`Sketcher::finish_into`], but fails when a non-finite weight was pushed
    /// or returned by [`Weighting::custom`] weights (which `finish_into` skips). The
    /// state is reset either way; `out` is written only on success.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the first offending feature and weight, and the
    /// number of them.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{FeatureSink, Sketcher};
    /// let h = near_dup::simhash::SimHasher::new(64)?;
    /// let mut state = h.new_state();
    /// let mut out = h.new_signature();
    /// state.push_weighted(7, f64::INFINITY);
    /// assert!(h.try_finish_into(&mut state, &mut out).is_err());
    /// state.push_weighted(7, 1.0);
    /// h.try_finish_into(&mut state, &mut out)?;
    /// assert_eq!(out, h.sketch_features([7]));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn try_finish_into(
        &self,
        state: &mut SimHashState,
        out: &mut SimHashSignature,
    ) -> Result<(), Error> {
        self.sketcher().try_finish_into(state, out)
    }

    /// This hasher in its checked mode: a [`TrySketcher`] that refuses a document
    /// with a non-finite weight (which [`Sketcher::finish_into`] skips), for code
    /// generic over fallible sketchers.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{FeatureSink, TrySketcher};
    /// let h = near_dup::simhash::SimHasher::new(64)?;
    /// let checked = h.checked();
    /// let mut state = checked.new_state();
    /// let mut out = checked.new_signature();
    /// state.push_weighted(7, f64::NAN);
    /// assert!(checked.try_finish_into(&mut state, &mut out).is_err());
    /// assert!(checked.try_sketch_features([1, 2]).is_ok());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn checked(&self) -> Checked<'_, E> {
        Checked(self)
    }
}

/// A [`SimHasher`] in its checked mode ([`SimHasher::checked`]): the
/// [`TrySketcher`] whose [`try_finish_into`](TrySketcher::try_finish_into) fails on a
/// non-finite weight instead of skipping it.
///
/// # Example
///
/// ```
/// use near_dup::TrySketcher;
/// let h = near_dup::simhash::SimHasher::new(64)?;
/// assert_eq!(h.checked().try_sketch_features([3])?, near_dup::Sketcher::sketch_features(&h, [3]));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Checked<'a, E>(&'a SimHasher<E>);

/// # Errors
///
/// [`Error::InvalidInput`] naming the first feature with a non-finite weight (pushed,
/// or returned by [`Weighting::custom`] weights) and how many there were. The state is
/// reset either way; `out` is written only on success.
impl<E> TrySketcher for Checked<'_, E> {
    type Signature = SimHashSignature;
    type State = SimHashState;
    type Error = Error;

    fn scheme(&self) -> SchemeId {
        self.0.sketcher().scheme
    }

    fn new_state(&self) -> SimHashState {
        Sketcher::new_state(self.0.sketcher())
    }

    fn new_signature(&self) -> SimHashSignature {
        Sketcher::new_signature(self.0.sketcher())
    }

    fn try_finish_into(
        &self,
        state: &mut SimHashState,
        out: &mut SimHashSignature,
    ) -> Result<(), Error> {
        self.0.sketcher().try_finish_into(state, out)
    }
}

impl SimHashSketcher {
    /// The signature length `m`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = near_dup::simhash::SimHasher::builder().bits(96).build_sketcher(SchemeId::new("x").finish())?;
    /// assert_eq!(s.bits(), 96);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// The seed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = near_dup::simhash::SimHasher::builder().seed(5).build_sketcher(SchemeId::new("x").finish())?;
    /// assert_eq!(s.seed(), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The random values.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::simhash::{Projection, SimHasher};
    /// let s = SimHasher::builder().build_sketcher(SchemeId::new("x").finish())?;
    /// assert_eq!(s.projection(), Projection::Sign);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn projection(&self) -> Projection {
        self.projection
    }

    /// The feature weighting.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::simhash::{SimHasher, Weighting};
    /// let s = SimHasher::builder()
    ///     .weighting(Weighting::Binary)
    ///     .build_sketcher(SchemeId::new("x").finish())?;
    /// assert!(matches!(s.weighting(), Weighting::Binary));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn weighting(&self) -> &Weighting {
        &self.weighting
    }

    /// The scheme of the features this sketcher was configured for.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let ids = SchemeId::new("ids").finish();
    /// let s = near_dup::simhash::SimHasher::builder().build_sketcher(ids)?;
    /// assert_eq!(s.feature_scheme(), ids);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }

    /// The signature of a weighted feature vector; see
    /// [`SimHasher::sketch_weighted`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the index of the first weight that is NaN or
    /// infinite.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Weighted};
    /// let s = near_dup::simhash::SimHasher::builder().build_sketcher(SchemeId::new("terms").finish())?;
    /// let sig = s.sketch_weighted(&[Weighted { feature: 1, weight: 2.0 }])?;
    /// assert_eq!(sig.bits(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sketch_weighted(&self, features: &[Weighted]) -> Result<SimHashSignature, Error> {
        if let Some(i) = features.iter().position(|w| !w.weight.is_finite()) {
            return Err(Error::invalid_input(format!(
                "weight {} of feature {i} is not finite",
                features[i].weight
            )));
        }
        let mut state = Sketcher::new_state(self);
        for w in features {
            state.push_weighted(w.feature, w.weight);
        }
        let mut out = Sketcher::new_signature(self);
        self.try_finish_into(&mut state, &mut out)?;
        Ok(out)
    }

    /// Like [`Sketcher::finish_into`], but fails when a non-finite weight was pushed
    /// or returned by [`Weighting::custom`] weights; see
    /// [`SimHasher::try_finish_into`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the first offending feature and weight, and the
    /// number of them.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{FeatureSink, SchemeId, Sketcher};
    /// let s = near_dup::simhash::SimHasher::builder().build_sketcher(SchemeId::new("ids").finish())?;
    /// let mut state = s.new_state();
    /// let mut out = s.new_signature();
    /// state.push_weighted(7, f64::NAN);
    /// assert!(s.try_finish_into(&mut state, &mut out).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn try_finish_into(
        &self,
        state: &mut SimHashState,
        out: &mut SimHashSignature,
    ) -> Result<(), Error> {
        if state.owner != self.scheme {
            let other = state.owner;
            *state = Sketcher::new_state(self);
            return Err(Error::Incompatible {
                left: self.scheme,
                right: other,
            });
        }
        if state.overflowed() {
            state.reset();
            return Err(Error::invalid_input(
                "the weighted sums overflowed (weights near f64::MAX): scale the weights down",
            ));
        }
        if let Some((feature, w)) = state.first_invalid {
            let n = state.invalid;
            state.reset();
            return Err(Error::invalid_input(format!(
                "feature {feature:#018x} has non-finite weight {w} ({n} non-finite weights in the document)"
            )));
        }
        self.finish_into(state, out);
        Ok(())
    }
}

impl Sketcher for SimHashSketcher {
    type Signature = SimHashSignature;
    type State = SimHashState;

    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    fn new_state(&self) -> SimHashState {
        let words = self.bits.div_ceil(64);
        let batched = self.projection == Projection::Sign
            && matches!(self.weighting, Weighting::Binary | Weighting::TermFrequency);
        let weights = match &self.weighting {
            Weighting::Binary | Weighting::TermFrequency => StateWeights::Unit,
            Weighting::TfIdf(t) => StateWeights::Idf(Arc::clone(t)),
            Weighting::Custom(c) => StateWeights::Custom(Arc::clone(c)),
        };
        let key = match self.projection {
            Projection::Sign => sign_key(self.seed),
            Projection::Gaussian => gaussian_key(self.seed),
        };
        SimHashState {
            projection: self.projection,
            bits: self.bits,
            key,
            distinct: self.weighting.distinct(),
            weights,
            seen: SeenSet::new(),
            batched,
            idf_batched: matches!(self.weighting, Weighting::TfIdf(_)),
            buf: Vec::with_capacity(BATCH),
            n: 0,
            counts: vec![0; words * 64],
            sums: vec![0.0; words * 64],
            total: 0.0,
            float_used: false,
            invalid: 0,
            first_invalid: None,
            owner: self.scheme,
        }
    }

    fn new_signature(&self) -> SimHashSignature {
        SimHashSignature::zeroed(self.scheme, self.bits)
    }

    fn finish_into(&self, state: &mut SimHashState, out: &mut SimHashSignature) {
        if state.owner != self.scheme {
            // A state made by another configuration: its counts are not this
            // sketcher's. Give the empty document's signature and a state of ours
            // (`try_finish_into` reports this as an error instead).
            *state = Sketcher::new_state(self);
        }
        let words = out.reset(self.scheme, self.bits);
        state.finish(words);
    }
}

/// The extractor pushes into the state, which applies the weighting as features
/// stream in (the default hook).
impl Ingest<SimHashState> for SimHashSketcher {
    #[inline]
    fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }
}

impl<E> Sketcher for SimHasher<E> {
    type Signature = SimHashSignature;
    type State = SimHashState;

    #[inline]
    fn scheme(&self) -> SchemeId {
        Sketcher::scheme(&self.0)
    }
    #[inline]
    fn new_state(&self) -> SimHashState {
        Sketcher::new_state(&self.0)
    }
    #[inline]
    fn new_signature(&self) -> SimHashSignature {
        Sketcher::new_signature(&self.0)
    }
    #[inline]
    fn finish_into(&self, state: &mut SimHashState, out: &mut SimHashSignature) {
        Sketcher::finish_into(&self.0, state, out);
    }
}

impl<E: FeatureExtractor> DocSketcher for SimHasher<E> {
    #[inline]
    fn extract_into(&self, doc: &str, state: &mut SimHashState) {
        if state.owner != self.0.sketcher().scheme {
            // A state made by another configuration (`sketch_with` given another
            // hasher's state): start from one of ours, so the signature is right.
            *state = Sketcher::new_state(self);
        }
        if state.distinct {
            state.seen.expect(doc.len());
        }
        self.0.extract_into(doc, state);
    }
}

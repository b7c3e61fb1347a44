//! [`MinHasher`]: classic k-hash MinHash and one-permutation hashing with optimal
//! densification, behind one configured sketcher.

use std::sync::Arc;

use ndd_core::hash::mix64;
use ndd_core::{
    DocSketcher, Error, ExternalFeatures, FeatureExtractor, FeatureSink, SchemeId, Sketcher,
};
use ndd_shingle::WordShingler;

use crate::family::{HashFamily, UniversalHashes};
use crate::signature::{EMPTY, MinHashSignature};

/// Version of the value-defining algorithms of this module; folded into every scheme,
/// so that signatures from a release that changed values refuse to compare.
const ALGORITHM_VERSION: u64 = 1;

/// Shifts of the densification rounds precomputed per hasher (later rounds, rarely
/// reached, are computed on demand).
const PRECOMPUTED_ROUNDS: usize = 64;

/// How a [`MinHasher`] turns features into `k` slot values.
///
/// Both schemes produce a [`MinHashSignature`] whose matching fraction estimates the
/// Jaccard coefficient without bias, with variance close to `J(1 − J)/k`
/// (`docs/decisions.md` records the measurements behind the default).
///
/// # Example
///
/// ```
/// use ndd_minhash::{MinHasher, MinHashScheme};
/// let classic = MinHasher::builder().scheme(MinHashScheme::Classic).num_hashes(64).build()?;
/// assert_eq!(classic.minhash_scheme(), MinHashScheme::Classic);
/// assert_eq!(MinHasher::new(64)?.minhash_scheme(), MinHashScheme::OnePermutation);
/// # Ok::<(), ndd_core::Error>(())
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
    /// `h_i(x) = (a_i·x + b_i) mod (2^61 − 1)` (paper 000 §3.2), slot `i` the minimum
    /// of `h_i` over the features (Broder's scheme as in paper 002). `O(n·k)` per
    /// document; the papers' reference scheme.
    Classic,
}

#[derive(Debug, Clone)]
enum Kind {
    Oph(Arc<Densifier>),
    Classic(UniversalHashes),
    Custom(Arc<dyn HashFamily>),
}

/// The document-independent probe sequences of optimal densification.
///
/// Shrivastava's Algorithm 2 fills empty bin `i` from bin `h_t(i)` for the first
/// attempt `t = 0, 1, …` that lands on a non-empty bin, each `h_t` drawn independently
/// from a universal family. We draw `h_t` from the shift family
/// `h_t(i) = (i + m_t) mod k`, `m_t` uniform in `[0, k)`: universal (two distinct bins
/// never collide under one `h_t`), each bin's probe sequence uniform and independent of
/// the data, and one attempt tests every empty bin at once with a rotation of the
/// occupancy bitmap — a few word operations per attempt instead of a probe per bin.
#[derive(Debug)]
struct Densifier {
    k: usize,
    key: u64,
    shifts: Vec<usize>,
    /// For the fixed sizes (`k` = 64 or 128): the distinct non-zero shifts in the order
    /// of their first attempt `t < 64k`, padded with zeros to a multiple of four. An
    /// attempt whose shift already occurred fills nothing new (its bins were tested
    /// with the same shift before) and shift 0 never fills an empty bin, so these
    /// attempts alone give the same result.
    order: Vec<u8>,
}

#[inline(always)]
fn bin_of(h: u64, k: u64) -> usize {
    // Multiply-high maps a uniform 64-bit value to [0, k) without a division; the
    // result is below k, itself a usize, so the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation)]
    let bin = ((u128::from(h) * u128::from(k)) >> 64) as usize;
    bin
}

/// Bits `[off, off + 64)` of a bitmap (zeros past its end).
#[inline(always)]
fn window(bits: &[u64], off: usize) -> u64 {
    let (q, r) = (off / 64, off % 64);
    let lo = bits.get(q).copied().unwrap_or(0) >> r;
    let hi = if r == 0 {
        0
    } else {
        bits.get(q + 1).copied().unwrap_or(0) << (64 - r)
    };
    lo | hi
}

impl Densifier {
    fn new(k: usize, seed: u64) -> Self {
        let key = mix64(seed ^ 0x6465_6E73_6966_7921); // "densify!"
        let mut d = Densifier {
            k,
            key,
            shifts: Vec::new(),
            order: Vec::new(),
        };
        d.shifts = (0..PRECOMPUTED_ROUNDS as u64).map(|t| d.shift(t)).collect();
        if k == 64 || k == 128 {
            let mut seen = vec![false; k];
            seen[0] = true;
            for t in 0..64 * k as u64 {
                let m = d.shift(t);
                if !seen[m] {
                    seen[m] = true;
                    // m < k <= 128.
                    d.order.extend(u8::try_from(m));
                    if d.order.len() == k - 1 {
                        break;
                    }
                }
            }
            // Padding to whole groups of four attempts: shift 0 fills nothing.
            while d.order.len() % 4 != 0 {
                d.order.push(0);
            }
        }
        d
    }

    /// `m_t`, the shift of attempt `t`.
    #[inline]
    fn shift(&self, t: u64) -> usize {
        bin_of(mix64(self.key ^ t), self.k as u64)
    }

    /// Fills, in place, each empty bin `i` of `bins` with the value of bin
    /// `(i + m_t) mod k` for the first attempt `t` where that bin is non-empty.
    /// `occupied` has bit `i` set when bin `i` is non-empty; at least one is.
    /// Non-empty bins are only read, so filling in place reads original values.
    fn densify(&self, bins: &mut [u64], occupied: &[u64]) {
        match occupied.len() {
            1 => self.densify_words::<1>(bins, occupied),
            2 => self.densify_words::<2>(bins, occupied),
            3 | 4 => self.densify_words::<4>(bins, occupied),
            _ => self.densify_words::<0>(bins, occupied),
        }
    }

    /// `W` 64-bit words hold the occupancy (`k <= 64·W`), in fixed-size arrays the
    /// compiler unrolls; `W = 0` is the general case, on the heap.
    #[inline(always)]
    fn densify_words<const W: usize>(&self, bins: &mut [u64], occupied: &[u64]) {
        let k = self.k;
        let words = k.div_ceil(64);
        // The occupancy ring, twice in a row, so that a rotation is a window read.
        let mut ring_fixed = [[0u64; 2]; W];
        let mut ring_heap = Vec::new();
        let ring: &mut [u64] = if W == 0 {
            ring_heap.resize(2 * words + 2, 0);
            &mut ring_heap
        } else {
            ring_fixed.as_flattened_mut()
        };
        let ring_len = ring.len();
        for (w, &bits) in occupied.iter().enumerate() {
            for base in [w * 64, k + w * 64] {
                let (q, r) = (base / 64, base % 64);
                if let Some(x) = ring.get_mut(q) {
                    *x |= bits << r;
                }
                if r != 0 && q + 1 < ring_len {
                    ring[q + 1] |= bits >> (64 - r);
                }
            }
        }
        let mut unresolved_fixed = [0u64; W];
        let mut unresolved_heap = Vec::new();
        let unresolved: &mut [u64] = if W == 0 {
            unresolved_heap.resize(words, 0);
            &mut unresolved_heap
        } else {
            &mut unresolved_fixed
        };
        let mut remaining = 0usize;
        for (w, (u, &bits)) in unresolved.iter_mut().zip(occupied).enumerate() {
            let valid = if (w + 1) * 64 <= k {
                u64::MAX
            } else {
                (1u64 << (k % 64)) - 1
            };
            *u = !bits & valid;
            remaining += u.count_ones() as usize;
        }
        let limit = 64 * k as u64;
        let mut t = 0u64;
        // Whole-bitmap attempts while many bins are unresolved; the last one or two
        // follow their own sequence bin by bin (same result, fewer instructions).
        while remaining > 2 && t < limit {
            let m = self.shift_at(t);
            t += 1;
            for (w, u) in unresolved.iter_mut().enumerate() {
                let mut hit = *u & window(ring, w * 64 + m);
                *u &= !hit;
                remaining -= hit.count_ones() as usize;
                while hit != 0 {
                    let i = w * 64 + hit.trailing_zeros() as usize;
                    hit &= hit - 1;
                    let src = if i + m >= k { i + m - k } else { i + m };
                    if let Some(&v) = bins.get(src) {
                        bins[i] = v;
                    }
                }
            }
        }
        for (w, &u) in unresolved.iter().enumerate() {
            let mut u = u;
            while u != 0 {
                let i = w * 64 + u.trailing_zeros() as usize;
                u &= u - 1;
                let src = (t..limit)
                    .map(|t| {
                        let m = self.shift_at(t);
                        if i + m >= k { i + m - k } else { i + m }
                    })
                    .find(|&j| bit_is_set(occupied, j))
                    // Not reached in practice (probability < (1 − 1/k)^(64k) ≈ e^-64);
                    // bounds the loop: the next non-empty bin to the right.
                    .or_else(|| {
                        (1..k)
                            .map(|d| (i + d) % k)
                            .find(|&j| bit_is_set(occupied, j))
                    });
                if let Some(src) = src {
                    bins[i] = bins[src];
                }
            }
        }
    }

    #[inline(always)]
    fn shift_at(&self, t: u64) -> usize {
        match usize::try_from(t).ok().and_then(|i| self.shifts.get(i)) {
            Some(&m) => m,
            None => self.shift(t),
        }
    }
}

/// Bit `i` set when bin `i` of a block of at most 64 bins is non-empty.
#[inline(always)]
fn occupancy_word(bins: &[u64]) -> u64 {
    bins.iter().take(64).rev().fold(0u64, |acc, &v| {
        acc.wrapping_add(acc) | u64::from(v != EMPTY)
    })
}

/// Bits `[r, r + 64)` of the 128-bit value `hi:lo` (`r` taken mod 64): a funnel shift.
#[inline(always)]
fn funnel(lo: u64, hi: u64, r: usize) -> u64 {
    // Only the low 64 bits of the shifted value are kept.
    #[allow(clippy::cast_possible_truncation)]
    let w = (((u128::from(hi) << 64) | u128::from(lo)) >> (r & 63)) as u64;
    w
}

/// Bit `j` of the result is the lowest bit of byte `j` of `bytes` (each byte 0 or 1).
#[inline(always)]
fn byte_flags_to_bits(bytes: u64) -> u64 {
    // Byte j times 2^(7·(7 − j) + 7) lands on bit 56 + j; no two partial products share
    // a bit, so nothing carries.
    bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

impl Densifier {
    /// Densification for `k = K = 64·W` (64 or 128), in place: the same values as
    /// [`Densifier::densify`] (tested against it), with fewer instructions and fewer
    /// data-dependent branches. Occupancy comes from the per-bin flags the sink set
    /// (`seen`, eight bins per multiplication) instead of a compare per bin; the
    /// attempts run over the distinct shifts only, each a funnel shift of the
    /// occupancy and two mask operations per word; the bins are filled once per group
    /// of four attempts rather than once per attempt.
    #[inline(always)]
    fn finish_fixed<const K: usize, const W: usize>(&self, bins: &mut [u64; K], seen: &[u8; K]) {
        debug_assert!(K == 64 * W && W <= 2);
        let mut occ = [0u64; W];
        for (o, block) in occ.iter_mut().zip(seen.chunks_exact(64)) {
            for (g, bytes) in block.chunks_exact(8).enumerate() {
                let mut b = [0u8; 8];
                b.copy_from_slice(bytes);
                *o |= byte_flags_to_bits(u64::from_le_bytes(b)) << (8 * g);
            }
        }
        // Bin K − 1 from its value: the one feature hash equal to u64::MAX lands there
        // and leaves the bin empty (EMPTY). In the other bins a flag means a value.
        occ[W - 1] = (occ[W - 1] & !(1 << 63)) | (u64::from(bins[K - 1] != EMPTY) << 63);
        let full: u32 = occ.iter().map(|w| w.count_ones()).sum();
        if full == 0 || full as usize == K {
            return;
        }
        // The occupancy twice in a row (and one more word), so a rotation is a window.
        let mut ring = [0u64; 8];
        for (j, r) in ring.iter_mut().enumerate().take(2 * W + 1) {
            *r = occ[j % W];
        }
        let mut todo = [0u64; W];
        for (t, o) in todo.iter_mut().zip(&occ) {
            *t = !o;
        }
        // Attempts in groups of four: the hits of each attempt (bins still empty whose
        // shifted bin is occupied) as masks, then one loop over the group's hits per
        // word, the attempt of each bin read from two bit planes. A loop per attempt
        // would end at a data-dependent count, a mispredicted branch each time.
        for group in self.order.chunks_exact(4) {
            let mut left = 0u64;
            for w in 0..W {
                let mut hits = [0u64; 4];
                let mut t = todo[w];
                for (h, &s) in hits.iter_mut().zip(group) {
                    let q = usize::from(s) >> 6;
                    let win = funnel(ring[(q + w) % 8], ring[(q + w + 1) % 8], usize::from(s));
                    *h = t & win;
                    t ^= *h;
                }
                todo[w] = t;
                left |= t;
                let (plane1, plane2) = (hits[1] | hits[3], hits[2] | hits[3]);
                let mut offset = [0usize; 4];
                for (o, &s) in offset.iter_mut().zip(group) {
                    *o = 64 * w + usize::from(s);
                }
                let mut u = hits[0] | hits[1] | hits[2] | hits[3];
                while u != 0 {
                    let i = u.trailing_zeros();
                    u &= u - 1;
                    // The attempt that hit bin i (the masks are disjoint) from two bit
                    // planes, as a table index: selects here become branches.
                    let a = ((plane1 >> i) & 1) | (((plane2 >> i) & 1) << 1);
                    // `a` < 4; the cast cannot truncate.
                    #[allow(clippy::cast_possible_truncation)]
                    let off = offset[a as usize % 4];
                    let i = i as usize;
                    bins[(64 * w + i) % K] = bins[(i + off) % K];
                }
            }
            if left == 0 {
                break;
            }
        }
        // Bins no shift within 64k attempts reaches (not met in practice): the next
        // non-empty bin to the right, as in `densify`.
        for (w, &u) in todo.iter().enumerate() {
            let mut u = u;
            while u != 0 {
                let i = 64 * w + u.trailing_zeros() as usize;
                u &= u - 1;
                if let Some(src) = (1..K).map(|d| (i + d) % K).find(|&j| bit_is_set(&occ, j)) {
                    bins[i % K] = bins[src];
                }
            }
        }
    }
}

/// The feature sink of one-permutation hashing for `k = K`: the bins borrowed as an
/// array and the key in a register for the whole document (the extractor's loop
/// inlines `push`).
struct FixedOphSink<'a, const K: usize> {
    bins: &'a mut [u64; K],
    seen: &'a mut [u8; K],
    key: u64,
}

impl<const K: usize> FeatureSink for FixedOphSink<'_, K> {
    #[inline(always)]
    fn push(&mut self, feature: u64) {
        let h = mix64(feature ^ self.key);
        let bin = bin_of(h, K as u64) % K;
        let m = &mut self.bins[bin];
        *m = (*m).min(h);
        // A store without a read: no dependency from one feature to the next.
        self.seen[bin] = 1;
    }
}

#[inline(always)]
fn bit_is_set(bits: &[u64], i: usize) -> bool {
    bits.get(i >> 6).is_some_and(|w| (w >> (i & 63)) & 1 != 0)
}

/// The per-document accumulator of a [`MinHasher`]: running minima, updated as
/// features are pushed (no feature buffer). Reuse one per thread.
///
/// # Example
///
/// ```
/// use ndd_core::{FeatureSink, Sketcher};
/// let h = ndd_minhash::MinHasher::new(64)?;
/// let mut state = h.new_state();
/// let mut sig = h.new_signature();
/// for f in [1u64, 2, 3] { state.push(f); }
/// h.finish_into(&mut state, &mut sig);
/// assert_eq!(sig, h.sketch_features([3, 2, 1, 1]));
/// # Ok::<(), ndd_core::Error>(())
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
/// 5-gram shingles by default), `sketch_features` on feature hashes you extracted
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
/// use ndd_core::{DocSketcher, Signature};
/// use ndd_minhash::MinHasher;
///
/// let hasher = MinHasher::new(128)?;
/// let doc = "Minwise hashing estimates the Jaccard similarity of two shingle sets.";
/// let sig = hasher.sketch(doc);
/// assert_eq!(sig.similarity(&hasher.sketch(doc))?.value(), 1.0);
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MinHasher<E = WordShingler> {
    k: usize,
    seed: u64,
    which: MinHashScheme,
    kind: Kind,
    extractor: E,
    feature_scheme: SchemeId,
    scheme: SchemeId,
}

/// Configures a [`MinHasher`]; start with [`MinHasher::builder`].
///
/// # Example
///
/// ```
/// use ndd_minhash::{MinHasher, MinHashScheme};
/// use ndd_shingle::WordShingler;
/// let h = MinHasher::builder()
///     .num_hashes(256)
///     .seed(7)
///     .scheme(MinHashScheme::OnePermutation)
///     .build_with(WordShingler::new(3)?)?;
/// assert_eq!(h.num_hashes(), 256);
/// # Ok::<(), ndd_core::Error>(())
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
    /// let h = ndd_minhash::MinHasher::builder().num_hashes(64).build()?;
    /// assert_eq!(h.num_hashes(), 64);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// use ndd_core::Sketcher;
    /// let a = ndd_minhash::MinHasher::builder().seed(1).build()?;
    /// let b = ndd_minhash::MinHasher::builder().seed(2).build()?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), ndd_core::Error>(())
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
    /// use ndd_minhash::{MinHasher, MinHashScheme};
    /// let h = MinHasher::builder().scheme(MinHashScheme::Classic).build()?;
    /// assert_eq!(h.minhash_scheme(), MinHashScheme::Classic);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// use ndd_core::Sketcher;
    /// use ndd_minhash::{FnFamily, MinHasher};
    /// let family = FnFamily::new("identity", vec![Box::new(|x| x)])?;
    /// let h = MinHasher::builder().hash_family(family).build()?;
    /// assert_eq!(h.sketch_features([9, 4, 6]).values(), &[4]);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn hash_family<F: HashFamily + 'static>(mut self, family: F) -> Self {
        self.k = family.len();
        self.which = MinHashScheme::Classic;
        self.family = Some(Arc::new(family));
        self
    }

    /// A hasher for text through word 5-gram shingles ([`WordShingler::new`]`(5)`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `num_hashes` is 0 or above 2^24.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(ndd_minhash::MinHasher::builder().num_hashes(0).build().is_err());
    /// ```
    pub fn build(self) -> Result<MinHasher<WordShingler>, Error> {
        let shingler = WordShingler::new(5)?;
        self.build_with(shingler)
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
    /// use ndd_core::DocSketcher;
    /// use ndd_shingle::CharShingler;
    /// let h = ndd_minhash::MinHasher::builder().build_with(CharShingler::new(4)?)?;
    /// assert!(!h.sketch("abcdef").is_empty_document());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn build_with<E: FeatureExtractor>(self, extractor: E) -> Result<MinHasher<E>, Error> {
        let fs = extractor.scheme();
        self.finish(extractor, fs)
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
    /// use ndd_core::{SchemeId, Sketcher};
    /// let h = ndd_minhash::MinHasher::builder()
    ///     .build_for_features(SchemeId::new("my-token-ids").finish())?;
    /// assert_eq!(h.sketch_features([1, 2, 3]).num_values(), 128);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn build_for_features(
        self,
        feature_scheme: SchemeId,
    ) -> Result<MinHasher<ExternalFeatures>, Error> {
        self.finish(ExternalFeatures, feature_scheme)
    }

    fn finish<E>(self, extractor: E, feature_scheme: SchemeId) -> Result<MinHasher<E>, Error> {
        const MAX_K: usize = 1 << 24;
        if self.k == 0 || self.k > MAX_K {
            return Err(Error::invalid_parameter(
                "num_hashes",
                format!("must be in 1..={MAX_K}, got {}", self.k),
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
        Ok(MinHasher {
            k: self.k,
            seed: self.seed,
            which: self.which,
            kind,
            extractor,
            feature_scheme,
            scheme,
        })
    }
}

impl MinHasher<WordShingler> {
    /// A text hasher with `num_hashes` slots: word 5-gram shingles (case-folded,
    /// Unicode words), one-permutation hashing, seed 0.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `num_hashes` is 0 or above 2^24.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::DocSketcher;
    /// let h = ndd_minhash::MinHasher::new(128)?;
    /// assert_eq!(h.sketch("hello world").num_values(), 128);
    /// assert!(ndd_minhash::MinHasher::new(0).is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn new(num_hashes: usize) -> Result<Self, Error> {
        MinHasher::builder().num_hashes(num_hashes).build()
    }

    /// Starts a configuration (defaults: 128 slots, seed 0, one-permutation hashing).
    ///
    /// # Example
    ///
    /// ```
    /// let h = ndd_minhash::MinHasher::builder().build()?;
    /// assert_eq!(h.num_hashes(), 128);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn builder() -> MinHasherBuilder {
        MinHasherBuilder::default()
    }
}

impl<E> MinHasher<E> {
    /// The number of slots `k`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_minhash::MinHasher::new(200)?.num_hashes(), 200);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_minhash::MinHasher::builder().seed(3).build()?.seed(), 3);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// use ndd_minhash::{MinHasher, MinHashScheme};
    /// assert_eq!(MinHasher::new(8)?.minhash_scheme(), MinHashScheme::OnePermutation);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn minhash_scheme(&self) -> MinHashScheme {
        self.which
    }

    /// The feature extractor.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_minhash::MinHasher::new(8)?.extractor().k(), 5);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn extractor(&self) -> &E {
        &self.extractor
    }

    /// The scheme of the features this hasher consumes.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::FeatureExtractor;
    /// let h = ndd_minhash::MinHasher::new(8)?;
    /// assert_eq!(h.feature_scheme(), h.extractor().scheme());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn feature_scheme(&self) -> SchemeId {
        self.feature_scheme
    }
}

impl<E> Sketcher for MinHasher<E> {
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

/// The per-feature key of one-permutation hashing, derived from the seed.
fn oph_key(d: &Densifier) -> u64 {
    // Independent of the densification key: a different constant through mix64.
    mix64(d.key ^ 0x6F70_6862_696E_7321) // "ophbins!"
}

impl<E: FeatureExtractor> DocSketcher for MinHasher<E> {
    #[inline]
    fn extract_into(&self, doc: &str, state: &mut MinHashState) {
        if let StateKind::Oph { key } = state.kind {
            let (mins, seen) = (state.mins.as_mut_slice(), state.seen.as_mut_slice());
            if let (Ok(bins), Ok(seen)) = (
                <&mut [u64; 128]>::try_from(&mut *mins),
                <&mut [u8; 128]>::try_from(&mut *seen),
            ) {
                return self
                    .extractor
                    .extract(doc, &mut FixedOphSink { bins, seen, key });
            }
            if let (Ok(bins), Ok(seen)) = (
                <&mut [u64; 64]>::try_from(mins),
                <&mut [u8; 64]>::try_from(seen),
            ) {
                return self
                    .extractor
                    .extract(doc, &mut FixedOphSink { bins, seen, key });
            }
        }
        self.extractor.extract(doc, state);
    }
}

/// Documents per rayon task at most. Rayon's adaptive splitting stops splitting a
/// range that no other thread stole, so a long range of large documents (a corpus
/// whose long texts sit together) would run on one thread while the others idle;
/// capping the length keeps ranges small enough to be stolen (a state per task is
/// cheap at this size).
#[cfg(feature = "rayon")]
const PAR_MAX_DOCS: usize = 256;

#[cfg(feature = "rayon")]
impl<E: FeatureExtractor + Sync> MinHasher<E> {
    /// The signatures of `docs`, sketched in parallel on rayon's pool (one state per
    /// worker thread, reused across its documents). Same values as
    /// [`DocSketcher::sketch_batch`].
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::DocSketcher;
    /// let h = ndd_minhash::MinHasher::new(64)?;
    /// let docs = ["one two three four five six", "seven eight nine ten eleven"];
    /// assert_eq!(h.par_sketch_batch(&docs), h.sketch_batch(&docs));
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn par_sketch_batch<D: AsRef<str> + Sync>(&self, docs: &[D]) -> Vec<MinHashSignature> {
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

    /// Writes the signatures of `docs` into `out` in parallel, reusing `out`'s buffers:
    /// no allocation per document once `out` holds signatures of this hasher.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when `out.len() != docs.len()`; nothing is written.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::{DocSketcher, Sketcher};
    /// let h = ndd_minhash::MinHasher::new(64)?;
    /// let docs = ["one two three four five six", "seven eight nine ten eleven"];
    /// let mut out = vec![h.new_signature(); docs.len()];
    /// h.par_sketch_batch_into(&docs, &mut out)?;
    /// assert_eq!(out, h.sketch_batch(&docs));
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn par_sketch_batch_into<D: AsRef<str> + Sync>(
        &self,
        docs: &[D],
        out: &mut [MinHashSignature],
    ) -> Result<(), Error> {
        use rayon::prelude::*;
        if docs.len() != out.len() {
            return Err(Error::LengthMismatch {
                expected: docs.len(),
                actual: out.len(),
            });
        }
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
                let Kind::Oph(d) = &h.kind else {
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
            let Kind::Oph(d) = &h.kind else {
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

//! Stable hashing: the specified 64-bit hash for tokens and the rolling k-gram combiner.
//!
//! Everything here is a pure function of its input bytes and seed, identical on every
//! platform, process and run, and pinned by golden vectors (`tests/integration/golden.rs`). That is
//! what makes signatures comparable across machines and storable. (`ahash` is used
//! elsewhere only for in-memory maps, never for anything that leaves the process.)
//!
//! # The specification
//!
//! * **Token hash**: `h(t) = XXH3_64(utf8_bytes(t), seed)`, the 64-bit XXH3 of Yann
//!   Collet's xxHash specification (xxHash v0.8), computed by [`stable_hash64`] or,
//!   incrementally over pieces of the same byte string, by [`StableHasher`]. The golden
//!   vectors for it come from the reference C implementation.
//! * **k-gram hash**: for tokens with hashes `t_0 … t_{k-1}`,
//!   `g = fmix64(Σ_j t_j · B^(k-1-j) mod 2^64)` with `B = 0x9E37_79B9_7F4A_7C15`
//!   (odd, so multiplication by it is invertible mod 2^64) and `fmix64` the
//!   MurmurHash3 finalizer ([`mix64`]). The polynomial form is what lets
//!   [`KGramRoller`] move the window one token in O(1), Rabin–Karp style; the finalizer
//!   spreads the polynomial's weak low bits over the whole word. Order matters:
//!   `"a b"` and `"b a"` hash differently.

use xxhash_rust::xxh3;

/// The base of the k-gram polynomial (see the [module docs](self)).
///
/// # Example
///
/// ```
/// use near_dup::hash::{kgram_hash, mix64, KGRAM_BASE};
/// // A 2-gram of token hashes 3 and 5 is fmix64(3·B + 5).
/// assert_eq!(kgram_hash(&[3, 5]), mix64(3u64.wrapping_mul(KGRAM_BASE).wrapping_add(5)));
/// ```
pub const KGRAM_BASE: u64 = 0x9E37_79B9_7F4A_7C15;

/// XXH3-64 of `bytes` with `seed`: the specified token hash.
///
/// # Example
///
/// ```
/// use near_dup::hash::stable_hash64;
/// // Value from the xxHash reference implementation: XXH3_64bits("") with seed 0.
/// assert_eq!(stable_hash64(b"", 0), 0x2D06_8005_38D3_94C2);
/// assert_ne!(stable_hash64(b"jack", 0), stable_hash64(b"jack", 1));
/// ```
#[inline]
#[must_use]
pub fn stable_hash64(bytes: &[u8], seed: u64) -> u64 {
    xxh3::xxh3_64_with_seed(bytes, seed)
}

/// XXH3-64 of the little-endian bytes of `values` with `seed`: the specified hash of a
/// group of slot values (LSH band keys, super-shingles), so that a distributed job can
/// recompute it from the plain values.
///
/// Equal to `stable_hash64` of the concatenated 8-byte little-endian encodings;
/// allocation-free.
///
/// # Example
///
/// ```
/// use near_dup::hash::{hash_u64s, stable_hash64};
/// let bytes: Vec<u8> = [1u64, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
/// assert_eq!(hash_u64s(&[1, 2, 3], 7), stable_hash64(&bytes, 7));
/// ```
#[must_use]
#[inline]
pub fn hash_u64s(values: &[u64], seed: u64) -> u64 {
    // 17 to 128 bytes, an LSH band's usual size: straight from the words.
    xxh3_words_17to128(values, seed).unwrap_or_else(|| hash_u64s_buffered(values, seed))
}

/// [`hash_u64s`] of at most `N / 8` values through an `N`-byte stack buffer.
#[inline(always)]
fn hash_u64s_in<const N: usize>(values: &[u64], seed: u64) -> u64 {
    let mut buf = [0u8; N];
    for (chunk, v) in buf.chunks_exact_mut(8).zip(values) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    stable_hash64(&buf[..values.len() * 8], seed)
}

/// Bytes 0–127 of XXH3's default secret (`kSecret`, xxHash v0.8) as little-endian
/// words: all that inputs of 17 to 128 bytes read.
const SECRET_WORDS: [u64; 16] = [
    0xbe4b_a423_396c_feb8,
    0x1cad_21f7_2c81_017c,
    0xdb97_9083_e96d_d4de,
    0x1f67_b3b7_a4a4_4072,
    0x78e5_c0cc_4ee6_79cb,
    0x2172_ffcc_7dd0_5a82,
    0x8e24_43f7_7446_08b8,
    0x4c26_3a81_e690_35e0,
    0xcb00_c391_bb52_283c,
    0xa32e_531b_8b65_d088,
    0x4ef9_0da2_9748_6471,
    0xd8ac_dea9_46ef_1938,
    0x3f34_9ce3_3f76_faa8,
    0x1d4f_0bc7_c7bb_dcf9,
    0x3159_b4cd_4be0_518a,
    0x6473_78d9_c97e_9fc8,
];

/// XXH3-64 of the little-endian bytes of 3 to 16 `values` (17 to 128 bytes) with
/// `seed`, read from the words themselves: the specification's `XXH3_len_17to128_64b`
/// with the default secret, one copy per count so that its rounds unroll. Every
/// 16-byte piece it reads starts at a multiple of 8, so each is two whole values; no
/// buffer is filled.
#[inline]
fn xxh3_words_17to128(values: &[u64], seed: u64) -> Option<u64> {
    macro_rules! by_count {
        ($($n:literal)*) => {
            match values.len() {
                $($n => <&[u64; $n]>::try_from(values).ok().map(|v| xxh3_words::<$n>(v, seed)),)*
                _ => None,
            }
        };
    }
    by_count!(3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// [`xxh3_words_17to128`] of exactly `N` values (`3 ≤ N ≤ 16`).
#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // the two halves of a 128-bit product
fn xxh3_words<const N: usize>(values: &[u64; N], seed: u64) -> u64 {
    const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
    const PRIME_MX1: u64 = 0x1656_6791_9E37_79F9;
    let mix16 = |lo: u64, hi: u64, at: usize| {
        let p = u128::from(lo ^ SECRET_WORDS[at].wrapping_add(seed))
            * u128::from(hi ^ SECRET_WORDS[at + 1].wrapping_sub(seed));
        (p as u64) ^ ((p >> 64) as u64)
    };
    let mut acc = (8 * N as u64).wrapping_mul(PRIME64_1);
    // Round k reads bytes 16k.. with secret bytes 32k.. and the 16 bytes that end
    // 16k before the end with secret bytes 32k + 16..; over 32, 64 and 96 bytes one
    // more round each.
    let rounds = 1 + usize::from(N > 4) + usize::from(N > 8) + usize::from(N > 12);
    for k in 0..rounds {
        acc = acc
            .wrapping_add(mix16(values[2 * k], values[2 * k + 1], 4 * k))
            .wrapping_add(mix16(
                values[N - 2 * k - 2],
                values[N - 2 * k - 1],
                4 * k + 2,
            ));
    }
    acc ^= acc >> 37;
    acc = acc.wrapping_mul(PRIME_MX1);
    acc ^ (acc >> 32)
}

/// [`hash_u64s`] of fewer than 3 or more than 16 values: through a stack buffer, or
/// streamed past 32 values.
#[inline(never)]
fn hash_u64s_buffered(values: &[u64], seed: u64) -> u64 {
    // A buffer fitted to the common sizes: clearing a larger one cost as much as the
    // hash of 48 bytes.
    if values.len() <= 8 {
        hash_u64s_in::<64>(values, seed)
    } else if values.len() <= 32 {
        hash_u64s_in::<256>(values, seed)
    } else {
        let mut h = StableHasher::new(seed);
        for v in values {
            h.update(&v.to_le_bytes());
        }
        h.finish()
    }
}

/// Incremental form of [`stable_hash64`]: feeding the pieces of a byte string gives the
/// same value as hashing the whole string at once.
///
/// Used where the bytes to hash are produced on the fly (case-folded tokens) and may
/// not fit a stack buffer. Allocation-free after construction.
///
/// # Example
///
/// ```
/// use near_dup::hash::{stable_hash64, StableHasher};
/// let mut h = StableHasher::new(42);
/// h.update(b"near-");
/// h.update(b"duplicate");
/// assert_eq!(h.finish(), stable_hash64(b"near-duplicate", 42));
/// ```
#[derive(Clone)]
pub struct StableHasher {
    inner: xxh3::Xxh3,
}

impl std::fmt::Debug for StableHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StableHasher").finish_non_exhaustive()
    }
}

impl StableHasher {
    /// A hasher for the given seed.
    ///
    /// # Example
    ///
    /// ```
    /// let h = near_dup::hash::StableHasher::new(0);
    /// assert_eq!(h.finish(), near_dup::hash::stable_hash64(b"", 0));
    /// ```
    #[must_use]
    pub fn new(seed: u64) -> Self {
        StableHasher {
            inner: xxh3::Xxh3::with_seed(seed),
        }
    }

    /// Appends bytes.
    ///
    /// # Example
    ///
    /// ```
    /// let mut h = near_dup::hash::StableHasher::new(0);
    /// h.update(b"abc");
    /// assert_eq!(h.finish(), near_dup::hash::stable_hash64(b"abc", 0));
    /// ```
    #[inline]
    pub fn update(&mut self, bytes: &[u8]) {
        self.inner.update(bytes);
    }

    /// The hash of everything appended so far (the hasher may keep being fed).
    ///
    /// # Example
    ///
    /// ```
    /// let mut h = near_dup::hash::StableHasher::new(0);
    /// h.update(b"a");
    /// let first = h.finish();
    /// h.update(b"b");
    /// assert_ne!(first, h.finish());
    /// ```
    #[inline]
    #[must_use]
    pub fn finish(&self) -> u64 {
        self.inner.digest()
    }

    /// Forgets all input, keeping the seed.
    ///
    /// # Example
    ///
    /// ```
    /// let mut h = near_dup::hash::StableHasher::new(9);
    /// h.update(b"xyz");
    /// h.reset();
    /// assert_eq!(h.finish(), near_dup::hash::stable_hash64(b"", 9));
    /// ```
    #[inline]
    pub fn reset(&mut self) {
        self.inner.reset();
    }
}

/// The MurmurHash3 64-bit finalizer (`fmix64`): a bijection on `u64` whose output bits
/// each depend on every input bit.
///
/// # Example
///
/// ```
/// use near_dup::hash::mix64;
/// assert_eq!(mix64(0), 0); // fmix64 fixes zero
/// assert_ne!(mix64(1), mix64(2));
/// ```
#[inline]
#[must_use]
pub const fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x
}

/// The k-gram hash of a window of token hashes, computed directly from the definition
/// (Horner's rule over the whole window). [`KGramRoller`] gives the same values in O(1)
/// per position; this function is its specification and test oracle.
///
/// # Example
///
/// ```
/// use near_dup::hash::{kgram_hash, mix64, KGRAM_BASE};
/// let (a, b) = (11u64, 22u64);
/// assert_eq!(kgram_hash(&[a, b]), mix64(a.wrapping_mul(KGRAM_BASE).wrapping_add(b)));
/// assert_ne!(kgram_hash(&[a, b]), kgram_hash(&[b, a]));
/// ```
#[must_use]
pub fn kgram_hash(token_hashes: &[u64]) -> u64 {
    kgram_hash_iter(token_hashes.iter().copied())
}

/// [`kgram_hash`] of token hashes given by an iterator, for windows that are not a
/// contiguous slice (strided SpotSigs chains, words around a punctuation spot).
///
/// # Example
///
/// ```
/// use near_dup::hash::{kgram_hash, kgram_hash_iter};
/// let words = [10u64, 20, 30, 40];
/// // Every second word, as a spot-distance-2 chain takes them.
/// assert_eq!(kgram_hash_iter(words.iter().copied().step_by(2)), kgram_hash(&[10, 30]));
/// ```
#[must_use]
pub fn kgram_hash_iter<I: IntoIterator<Item = u64>>(token_hashes: I) -> u64 {
    let acc = token_hashes
        .into_iter()
        .fold(0u64, |acc, t| acc.wrapping_mul(KGRAM_BASE).wrapping_add(t));
    mix64(acc)
}

/// The longest k-gram (window of tokens or characters) the rolling hash and the
/// shinglers built on it accept: 1,024.
///
/// Why: a shingler allocates a window of `k` hashes per document (8 KiB at the
/// limit) and a k-gram longer than a few dozen words never repeats between documents
/// that are not copies; without a limit, `k = 2^30` allocated 8 GiB per document.
///
/// # Example
///
/// ```
/// use near_dup::hash::{KGramRoller, MAX_KGRAM_LEN};
/// assert!(KGramRoller::new(MAX_KGRAM_LEN).is_ok());
/// assert!(KGramRoller::new(MAX_KGRAM_LEN + 1).is_err());
/// assert!(KGramRoller::new(usize::MAX).is_err());
/// ```
pub const MAX_KGRAM_LEN: usize = 1024;

/// `Ok` when `k` is a k-gram length in `1..=`[`MAX_KGRAM_LEN`].
///
/// # Errors
///
/// [`crate::Error::InvalidParameter`] naming `k` otherwise.
///
/// # Example
///
/// ```
/// assert!(near_dup::hash::check_kgram_len(3).is_ok());
/// assert!(near_dup::hash::check_kgram_len(0).is_err());
/// ```
pub fn check_kgram_len(k: usize) -> Result<(), crate::Error> {
    if k == 0 || k > MAX_KGRAM_LEN {
        return Err(crate::Error::invalid_parameter(
            "k",
            format!("must lie in 1..={MAX_KGRAM_LEN}, got {k}"),
        ));
    }
    Ok(())
}

/// Combines a stream of token hashes into k-gram hashes, one per position, in O(1) per
/// token (Rabin–Karp rolling over the polynomial of the [module docs](self)).
///
/// Allocates its ring of `k` hashes once; [`reset`](Self::reset) reuses it for the next
/// document.
///
/// # Example
///
/// ```
/// use near_dup::hash::{kgram_hash, KGramRoller};
/// let tokens = [1u64, 2, 3, 4];
/// let mut roller = KGramRoller::new(2)?;
/// let grams: Vec<u64> = tokens.iter().filter_map(|&t| roller.push(t)).collect();
/// assert_eq!(grams, vec![kgram_hash(&[1, 2]), kgram_hash(&[2, 3]), kgram_hash(&[3, 4])]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct KGramRoller {
    ring: Box<[u64]>,
    pos: usize,
    filled: usize,
    acc: u64,
    /// `B^(k-1) mod 2^64`, the weight of the token leaving the window.
    out_weight: u64,
}

impl KGramRoller {
    /// A roller for windows of `k` tokens.
    ///
    /// # Errors
    ///
    /// [`crate::Error::InvalidParameter`] when `k == 0` or `k >` [`MAX_KGRAM_LEN`].
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::hash::KGramRoller::new(0).is_err());
    /// assert_eq!(near_dup::hash::KGramRoller::new(5)?.k(), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(k: usize) -> Result<Self, crate::Error> {
        check_kgram_len(k)?;
        // B^(k-1) by squaring; k - 1 < 2^10 fits in u32.
        let exp = u32::try_from(k - 1).unwrap_or(u32::MAX);
        let out_weight = KGRAM_BASE.wrapping_pow(exp);
        Ok(KGramRoller {
            ring: vec![0; k].into_boxed_slice(),
            pos: 0,
            filled: 0,
            acc: 0,
            out_weight,
        })
    }

    /// The window length.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::hash::KGramRoller::new(3)?.k(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn k(&self) -> usize {
        self.ring.len()
    }

    /// Adds the next token hash; returns the hash of the window ending at it once `k`
    /// tokens have been seen.
    ///
    /// # Example
    ///
    /// ```
    /// let mut r = near_dup::hash::KGramRoller::new(2)?;
    /// assert_eq!(r.push(7), None);
    /// assert_eq!(r.push(8), Some(near_dup::hash::kgram_hash(&[7, 8])));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    pub fn push(&mut self, token_hash: u64) -> Option<u64> {
        let k = self.ring.len();
        if self.filled == k {
            self.acc = self
                .acc
                .wrapping_sub(self.ring[self.pos].wrapping_mul(self.out_weight));
        } else {
            self.filled += 1;
        }
        self.acc = self.acc.wrapping_mul(KGRAM_BASE).wrapping_add(token_hash);
        self.ring[self.pos] = token_hash;
        self.pos += 1;
        if self.pos == k {
            self.pos = 0;
        }
        (self.filled == k).then(|| mix64(self.acc))
    }

    /// How many tokens are in the current window (at most `k`).
    ///
    /// # Example
    ///
    /// ```
    /// let mut r = near_dup::hash::KGramRoller::new(3)?;
    /// r.push(1);
    /// assert_eq!(r.filled(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn filled(&self) -> usize {
        self.filled
    }

    /// The hash of the partial window when fewer than `k` tokens were pushed (the
    /// whole-document shingle of a short document), else `None`. Equals
    /// [`kgram_hash`] of the tokens pushed so far.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::hash::{kgram_hash, KGramRoller};
    /// let mut r = KGramRoller::new(5)?;
    /// r.push(1);
    /// r.push(2);
    /// assert_eq!(r.partial(), Some(kgram_hash(&[1, 2])));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn partial(&self) -> Option<u64> {
        (self.filled > 0 && self.filled < self.ring.len()).then(|| mix64(self.acc))
    }

    /// Empties the window for the next document.
    ///
    /// # Example
    ///
    /// ```
    /// let mut r = near_dup::hash::KGramRoller::new(2)?;
    /// r.push(1);
    /// r.reset();
    /// assert_eq!(r.filled(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    pub fn reset(&mut self) {
        self.pos = 0;
        self.filled = 0;
        self.acc = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_u64s_is_the_hash_of_the_le_bytes_at_every_length() {
        // Around each buffer size (8 and 32 values) and past them (the streamed path).
        for n in 0..=40u64 {
            let values: Vec<u64> = (0..n)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (u64::MAX - i))
                .collect();
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            for seed in [0, 7, u64::MAX] {
                assert_eq!(
                    hash_u64s(&values, seed),
                    xxh3::xxh3_64_with_seed(&bytes, seed),
                    "{n} values, seed {seed}"
                );
            }
        }
    }

    proptest::proptest! {
        /// The words' path (3 to 16 values) and the buffered ones against the library's
        /// XXH3 of the bytes, for any values and seed.
        #[test]
        fn hash_u64s_of_any_values_is_the_hash_of_their_bytes(
            values in proptest::collection::vec(proptest::num::u64::ANY, 0..=20),
            seed in proptest::num::u64::ANY,
        ) {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            proptest::prop_assert_eq!(
                hash_u64s(&values, seed),
                xxh3::xxh3_64_with_seed(&bytes, seed)
            );
        }
    }
}

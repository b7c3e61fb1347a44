//! [`BBitSignature`]: b-bit minwise hashing, the lowest `b` bits of every MinHash slot
//! packed into machine words, with the corrected resemblance estimator.

use ndd_core::bits::low_mask;
use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{Error, Estimate, SchemeId, Signature};

use crate::signature::MinHashSignature;

const MAGIC: [u8; 4] = *b"MHB1";
const VERSION: u16 = 1;
/// Version of the packing; folded into the scheme of every b-bit signature.
const BBIT_VERSION: u64 = 1;
/// The widest field: a whole 64-bit slot.
const MAX_BITS: u32 = 64;

/// `Ok` when `bits` is a field width `1..=64`: the one check of every b-bit
/// constructor.
pub(crate) fn check_bits(bits: u32) -> Result<(), Error> {
    if (1..=MAX_BITS).contains(&bits) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            "bits",
            format!("must be in 1..={MAX_BITS}, got {bits}"),
        ))
    }
}

/// The words holding `k` fields of `bits` bits, or an error when that overflows.
pub(crate) fn packed_words(k: usize, bits: u32) -> Result<usize, Error> {
    words_for(k, bits).ok_or_else(|| Error::invalid_parameter("bits", "k · bits overflows"))
}

/// The number of words holding `k` fields of `bits` bits, if it fits in `usize`.
pub(crate) fn words_for(k: usize, bits: u32) -> Option<usize> {
    let total = k.checked_mul(usize::try_from(bits).ok()?)?;
    Some(total.div_ceil(64))
}

/// Field `i` of a packed stream: bits `[i·b, i·b + b)`, least significant first.
/// `words` must hold at least that many bits.
#[inline]
fn field_at(words: &[u64], i: usize, bits: u32) -> u64 {
    let b = bits as usize;
    let bit = i * b;
    let (w, off) = (bit / 64, bit % 64);
    let lo = words.get(w).map_or(0, |&x| x >> off);
    let v = if off + b > 64 {
        lo | words.get(w + 1).map_or(0, |&x| x << (64 - off))
    } else {
        lo
    };
    v & low_mask(bits)
}

/// Packs the lowest `bits` bits of each of `values` into the zeroed `words`, field `i`
/// at bits `[i·b, i·b + b)` (fields beyond `words` are dropped).
pub(crate) fn pack_into(values: &[u64], bits: u32, words: &mut [u64]) {
    match bits {
        // Fields never straddle words: one word per 64 / b values, with the width a
        // constant (as `equal_fields` reads them).
        1 => return pack_pow2::<1>(values, words),
        2 => return pack_pow2::<2>(values, words),
        4 => return pack_pow2::<4>(values, words),
        8 => return pack_pow2::<8>(values, words),
        16 => return pack_pow2::<16>(values, words),
        32 => return pack_pow2::<32>(values, words),
        64 => return pack_pow2::<64>(values, words),
        _ => {}
    }
    let mask = low_mask(bits);
    let b = bits as usize;
    for (i, &v) in values.iter().enumerate() {
        let bit = i * b;
        let (w, off) = (bit / 64, bit % 64);
        let v = v & mask;
        if let Some(x) = words.get_mut(w) {
            *x |= v << off;
        }
        if off + b > 64 {
            if let Some(x) = words.get_mut(w + 1) {
                *x |= v >> (64 - off);
            }
        }
    }
}

/// [`pack_into`] for a width `B` that divides 64: each word is its `64 / B` values
/// shifted together, the first lowest (`wrapping_shl` only ever shifts 0 by 64, for
/// 64-bit fields). Whole words take a fixed number of values, which the compiler
/// unrolls; a last, partial word takes the rest.
#[inline]
fn pack_pow2<const B: u32>(values: &[u64], words: &mut [u64]) {
    let mask = low_mask(B);
    let word = |chunk: &[u64]| {
        chunk
            .iter()
            .rev()
            .fold(0u64, |acc, &v| acc.wrapping_shl(B) | (v & mask))
    };
    let per = (64 / B) as usize;
    let whole = values.chunks_exact(per);
    let rest = whole.remainder();
    for (w, chunk) in words.iter_mut().zip(whole) {
        *w = word(chunk);
    }
    if let (false, Some(w)) = (rest.is_empty(), words.get_mut(values.len() / per)) {
        *w = word(rest);
    }
}

/// The number of non-zero `B`-bit fields of `x ^ y` over all words (`B` a power of
/// two, so fields never straddle words): OR-fold every field onto its lowest bit, keep
/// those bits, count them.
#[inline]
fn nonzero_fields_pow2<const B: u32>(a: &[u64], b: &[u64]) -> u64 {
    let low: u64 = if B >= 64 { 1 } else { u64::MAX / low_mask(B) };
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let mut z = x ^ y;
            let mut s = 1;
            while s < B {
                z |= z >> s;
                s <<= 1;
            }
            u64::from((z & low).count_ones())
        })
        .sum()
}

/// The number of equal fields among the first `k` of two packed streams with the same
/// layout and zero padding.
pub(crate) fn equal_fields(a: &[u64], b: &[u64], k: usize, bits: u32) -> usize {
    let nonzero = match bits {
        1 => nonzero_fields_pow2::<1>(a, b),
        2 => nonzero_fields_pow2::<2>(a, b),
        4 => nonzero_fields_pow2::<4>(a, b),
        8 => nonzero_fields_pow2::<8>(a, b),
        16 => nonzero_fields_pow2::<16>(a, b),
        32 => nonzero_fields_pow2::<32>(a, b),
        64 => nonzero_fields_pow2::<64>(a, b),
        _ => {
            return (0..k)
                .filter(|&i| field_at(a, i, bits) == field_at(b, i, bits))
                .count();
        }
    };
    // Padding bits are zero in both streams, so only real fields can differ.
    k.saturating_sub(usize::try_from(nonzero).unwrap_or(usize::MAX))
}

/// `A_{j,b} = r (1 − r)^(2^b − 1) / (1 − (1 − r)^(2^b))` of Theorem 1, computed with
/// `ln_1p`/`exp_m1` so that tiny `r` (a large universe) does not cancel to 0/0.
fn a_coefficient(r: f64, bits: u32) -> f64 {
    let m = 2f64.powi(i32::try_from(bits).unwrap_or(64));
    let l = (-r).ln_1p(); // ln(1 − r); −∞ when r = 1
    let num = r * ((m - 1.0) * l).exp();
    let den = -(m * l).exp_m1();
    num / den
}

impl MinHashSignature {
    /// The number of slots whose lowest `bits` bits agree: what a
    /// [`BBitSlots`](crate::BBitSlots) of `bits`-bit fields counts for the two
    /// signatures ([`BBitSlots::matches`](crate::BBitSlots::matches)), computed from the
    /// full values. Never below [`matches`](Self::matches): equal slots have equal fields.
    /// An engine that keeps full signatures filters candidates by it exactly as one that
    /// keeps only the fields.
    ///
    /// # Errors
    ///
    /// As [`matches`](Self::matches); [`Error::InvalidParameter`] when `bits` is not in
    /// `1..=64`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{BBitSlots, MinHasher};
    /// let h = MinHasher::new(128)?;
    /// let (a, b) = (h.sketch_features(0..1000), h.sketch_features(300..1300));
    /// let mut fields = BBitSlots::new(8, 128)?;
    /// fields.push(&a)?;
    /// fields.push(&b)?;
    /// assert_eq!(a.field_matches(&b, 8)?, fields.matches(0, 1));
    /// assert!(a.field_matches(&b, 8)? >= a.matches(&b)?);
    /// assert_eq!(a.field_matches(&b, 64)?, a.matches(&b)?);
    /// assert!(a.field_matches(&b, 0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn field_matches(&self, other: &Self, bits: u32) -> Result<usize, Error> {
        check_bits(bits)?;
        self.check_compatible(other)?;
        Error::check_lengths(self.values().len(), other.values().len())?;
        let mask = low_mask(bits);
        Ok(self
            .values()
            .iter()
            .zip(other.values())
            .filter(|(x, y)| (*x ^ *y) & mask == 0)
            .count())
    }
}

/// A b-bit MinHash signature: the lowest `b` bits of each of the `k` slots of a
/// [`MinHashSignature`], packed back to back into 64-bit words (`k·b` bits, no
/// per-slot padding; only the last word is padded with zeros).
///
/// From Li and König, *b-Bit Minwise Hashing*, Proceedings of the 19th International
/// World Wide Web Conference (WWW 2010). Two slots that hold the same
/// minimum agree in their low bits; two that differ still agree with probability
/// about `2^-b`. Theorem 1 of the paper gives the probability `P_b` that the `b`-bit
/// fields agree, for sets of sizes `f1`, `f2` in a universe of size `D`
/// (`r_j = f_j / D`):
///
/// ```text
/// P_b = C1,b + (1 − C2,b) R
/// C1,b = A1,b · r2/(r1 + r2) + A2,b · r1/(r1 + r2)
/// C2,b = A1,b · r1/(r1 + r2) + A2,b · r2/(r1 + r2)
/// A_j,b = r_j (1 − r_j)^(2^b − 1) / (1 − (1 − r_j)^(2^b))
/// ```
///
/// so `R̂_b = (P̂_b − C1,b) / (1 − C2,b)`, with `P̂_b` the fraction of equal fields, is
/// an unbiased estimate of the resemblance (Jaccard coefficient) `R`, with variance
/// `P_b (1 − P_b) / (k (1 − C2,b)²)`.
///
/// * [`similarity`](Signature::similarity) uses the sparse limit `r1, r2 → 0`, where
///   `C1,b = C2,b = 2^-b`. That is the right limit for ndd's MinHash, whose slot
///   values are hashes spread over `2^64` (or `2^61 − 1`) values: the low bits of a
///   minimum are uniform whatever the sizes of the sets (the statistical tests check
///   bias and variance for `b` = 1, 2, 4 and 8).
/// * [`similarity_with_sizes`](Self::similarity_with_sizes) takes `f1`, `f2` and `D`
///   for minima drawn from permutations of a small universe, where the low bits of a
///   minimum are not uniform.
///
/// The estimate is clamped to `[0, 1]`: when fewer fields agree than chance predicts,
/// `R̂_b` is negative and reported as 0 (and, with sizes, an estimate above 1 is
/// reported as 1). The standard error is that of the unclamped estimator,
/// `sqrt(P̂_b (1 − P̂_b) / k) / (1 − C2,b)`. The price of `b` bits is variance: for
/// the same variance as 64-bit MinHash, `b = 1` needs 3× the slots at `R = 0.5` and
/// 2.25× at `R = 0.8`, at `1/64` of the storage per slot — the paper's "at least a
/// factor of 21.3" in storage for resemblances of 0.5 and above.
///
/// The empty document (every slot [`EMPTY`](crate::EMPTY)) is flagged: two empty
/// documents estimate exactly 1, an empty and a non-empty one exactly 0, as for
/// [`MinHashSignature`].
///
/// # Example
///
/// ```
/// use near_dup::{Signature, Sketcher};
/// use near_dup::minhash::{BBitSignature, MinHasher};
///
/// let h = MinHasher::new(1024)?;
/// let a = h.sketch_features(0..1000);
/// let b = h.sketch_features(200..1200); // J = 800 / 1200 = 0.667
/// let (a1, b1) = (BBitSignature::from_minhash(&a, 1)?, BBitSignature::from_minhash(&b, 1)?);
/// assert_eq!(a1.storage_bytes(), 1024 / 8); // 1 bit per slot
/// let est = a1.similarity(&b1)?;
/// assert!((est.value() - 2.0 / 3.0).abs() < 4.0 * est.std_error());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BBitSignature {
    minhash_scheme: SchemeId,
    scheme: SchemeId,
    bits: u32,
    k: usize,
    empty: bool,
    words: Vec<u64>,
}

impl BBitSignature {
    fn scheme_for(minhash_scheme: SchemeId, bits: u32) -> SchemeId {
        SchemeId::new("minhash-bbit")
            .with(BBIT_VERSION)
            .with(u64::from(bits))
            .with_scheme(minhash_scheme)
            .finish()
    }

    /// Keeps the lowest `bits` bits of every slot of `sig`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `bits` is not in `1..=64`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::minhash::{BBitSignature, MinHashSignature};
    /// let sig = MinHashSignature::from_values(SchemeId::new("demo").finish(), vec![0b101, 0b110, 0b011])?;
    /// let two = BBitSignature::from_minhash(&sig, 2)?;
    /// assert_eq!(two.words(), &[0b11_10_01]); // fields 01, 10, 11, first in the low bits
    /// assert_eq!(two.field(2), Some(0b11));
    /// assert!(BBitSignature::from_minhash(&sig, 0).is_err());
    /// assert!(BBitSignature::from_minhash(&sig, 65).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_minhash(sig: &MinHashSignature, bits: u32) -> Result<Self, Error> {
        check_bits(bits)?;
        let values = sig.values();
        let k = values.len();
        let n_words = packed_words(k, bits)?;
        let mut words = vec![0u64; n_words];
        pack_into(values, bits, &mut words);
        let minhash_scheme = sig.scheme();
        Ok(BBitSignature {
            minhash_scheme,
            scheme: Self::scheme_for(minhash_scheme, bits),
            bits,
            k,
            empty: sig.is_empty_document(),
            words,
        })
    }

    /// The number of bits `b` kept per slot.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(64)?.sketch_features([1, 2]);
    /// assert_eq!(near_dup::minhash::BBitSignature::from_minhash(&sig, 4)?.bits_per_slot(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bits_per_slot(&self) -> u32 {
        self.bits
    }

    /// The number of bits `b` kept per slot: the old name of
    /// [`bits_per_slot`](Self::bits_per_slot) (in SimHash, `bits()` is a signature's
    /// total length).
    ///
    /// # Example
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(64)?.sketch_features([1, 2]);
    /// let b = near_dup::minhash::BBitSignature::from_minhash(&sig, 4)?;
    /// assert_eq!(b.bits(), b.bits_per_slot());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "renamed to `bits_per_slot`")]
    #[must_use]
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of slots `k`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(100)?.sketch_features([1, 2]);
    /// assert_eq!(near_dup::minhash::BBitSignature::from_minhash(&sig, 3)?.num_values(), 100);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_values(&self) -> usize {
        self.k
    }

    /// The packed fields: field `i` is bits `[i·b, i·b + b)` of the stream, bit `j` of
    /// the stream being bit `j mod 64` of word `j / 64`; unused bits of the last word
    /// are 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(100)?.sketch_features([1, 2]);
    /// let packed = near_dup::minhash::BBitSignature::from_minhash(&sig, 3)?;
    /// assert_eq!(packed.words().len(), 5); // 300 bits
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The `b`-bit field of slot `i` (the slot's value modulo `2^b`), or `None` when
    /// `i ≥ k`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(16)?.sketch_features([1, 2, 3]);
    /// let packed = near_dup::minhash::BBitSignature::from_minhash(&sig, 5)?;
    /// assert_eq!(packed.field(7), Some(sig.values()[7] & 0b11111));
    /// assert_eq!(packed.field(16), None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn field(&self, i: usize) -> Option<u64> {
        (i < self.k).then(|| field_at(&self.words, i, self.bits))
    }

    /// The scheme of the MinHash signature the fields came from.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{Signature, Sketcher};
    /// let sig = near_dup::minhash::MinHasher::new(16)?.sketch_features([1]);
    /// let packed = near_dup::minhash::BBitSignature::from_minhash(&sig, 1)?;
    /// assert_eq!(packed.minhash_scheme(), sig.scheme());
    /// assert_ne!(packed.scheme(), sig.scheme()); // b is folded in
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn minhash_scheme(&self) -> SchemeId {
        self.minhash_scheme
    }

    /// Whether this is the signature of a document without features.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::minhash::MinHasher::new(16)?;
    /// let empty = near_dup::minhash::BBitSignature::from_minhash(&h.sketch_features([]), 2)?;
    /// assert!(empty.is_empty_document());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty_document(&self) -> bool {
        self.empty
    }

    /// The bytes of the packed fields, `8 · ⌈k·b / 64⌉` (the byte form adds a 43-byte
    /// header and checksum).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(256)?.sketch_features([1]);
    /// assert_eq!(sig.values().len() * 8, 2048);
    /// assert_eq!(near_dup::minhash::BBitSignature::from_minhash(&sig, 2)?.memory_bytes(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The old name of [`memory_bytes`](Self::memory_bytes) (the workspace's one name
    /// for a memory report, as on `ndd_index::ExactIndex` and `ndd_imatch::Lexicon`).
    ///
    /// # Example
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(256)?.sketch_features([1]);
    /// let b = near_dup::minhash::BBitSignature::from_minhash(&sig, 2)?;
    /// assert_eq!(b.storage_bytes(), b.memory_bytes());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[deprecated(since = "0.1.1", note = "renamed to `memory_bytes`")]
    #[must_use]
    pub fn storage_bytes(&self) -> usize {
        self.memory_bytes()
    }

    /// The number of slots whose `b`-bit fields agree, counted on the XOR of the packed
    /// words with bit tricks when `b` is a power of two (one pass over `⌈k·b/64⌉`
    /// words), field by field otherwise.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ (another `b`, or MinHash
    /// signatures of different parameters); [`Error::LengthMismatch`] when `k` differs.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::BBitSignature;
    /// let h = near_dup::minhash::MinHasher::new(64)?;
    /// let a = BBitSignature::from_minhash(&h.sketch_features(0..50), 2)?;
    /// assert_eq!(a.matches(&a)?, 64);
    /// let b4 = BBitSignature::from_minhash(&h.sketch_features(0..50), 4)?;
    /// assert!(a.matches(&b4).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn matches(&self, other: &Self) -> Result<usize, Error> {
        self.check_compatible(other)?;
        if self.bits != other.bits {
            return Err(Error::Incompatible {
                left: self.scheme,
                right: other.scheme,
            });
        }
        if self.k != other.k || self.words.len() != other.words.len() {
            return Err(Error::LengthMismatch {
                expected: self.k,
                actual: other.k,
            });
        }
        Ok(equal_fields(&self.words, &other.words, self.k, self.bits))
    }

    /// The constants `(C1,b, C2,b)` of Li and König's Theorem 1 for sets of sizes `f1`
    /// and `f2` in a universe of `universe` elements.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `bits` is not in `1..=64`, `universe` is 0, or
    /// `f1` or `f2` is 0 or larger than `universe`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::BBitSignature;
    /// // b = 1, f1 = f2 = f: A = (1 − r) / (2 − r).
    /// let (c1, c2) = BBitSignature::correction_constants(1, 500, 500, 1000)?;
    /// assert!((c1 - 0.5 / 1.5).abs() < 1e-12 && (c2 - c1).abs() < 1e-12);
    /// // A huge universe: the sparse limit 2^-b.
    /// let (c1, _) = BBitSignature::correction_constants(4, 10, 20, u64::MAX)?;
    /// assert!((c1 - 1.0 / 16.0).abs() < 1e-12);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn correction_constants(
        bits: u32,
        f1: u64,
        f2: u64,
        universe: u64,
    ) -> Result<(f64, f64), Error> {
        check_bits(bits)?;
        check_sizes(f1, f2, universe)?;
        if f1 == 0 || f2 == 0 {
            return Err(Error::invalid_parameter(
                "f1, f2",
                "set sizes must be at least 1 (a non-empty document has a feature)",
            ));
        }
        let d = universe as f64;
        let (r1, r2) = (f1 as f64 / d, f2 as f64 / d);
        let (a1, a2) = (a_coefficient(r1, bits), a_coefficient(r2, bits));
        let s = r1 + r2;
        Ok(((a1 * r2 + a2 * r1) / s, (a1 * r1 + a2 * r2) / s))
    }

    /// The resemblance estimate `R̂_b = (P̂_b − C1,b) / (1 − C2,b)` with Theorem 1's
    /// constants for this document's `f1` features, `other`'s `f2` features and a
    /// universe of `universe` possible features (for minima of permutations of
    /// `0..universe`); clamped to `[0, 1]`, with standard error
    /// `sqrt(P̂_b (1 − P̂_b) / k) / (1 − C2,b)`.
    ///
    /// # Errors
    ///
    /// As [`matches`](Self::matches); [`Error::InvalidParameter`] when `universe` is 0,
    /// a size exceeds `universe`, or a non-empty document is given size 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Signature};
    /// use near_dup::minhash::{BBitSignature, MinHashSignature};
    /// let s = SchemeId::new("perm-minima").finish();
    /// let a = BBitSignature::from_minhash(&MinHashSignature::from_values(s, vec![3, 8, 1, 5])?, 1)?;
    /// let b = BBitSignature::from_minhash(&MinHashSignature::from_values(s, vec![3, 2, 7, 6])?, 1)?;
    /// // Low bits agree in slots 0, 1 and 2: P̂ = 3/4.
    /// assert_eq!(a.similarity(&b)?.value(), 0.5); // sparse limit: (3/4 − 1/2) / (1 − 1/2)
    /// // Minima of permutations of 0..16 for sets of 6 and 10 elements: Theorem 1.
    /// let (c1, c2) = BBitSignature::correction_constants(1, 6, 10, 16)?;
    /// let sized = a.similarity_with_sizes(&b, 6, 10, 16)?;
    /// assert!((sized.value() - (0.75 - c1) / (1.0 - c2)).abs() < 1e-12);
    /// assert!(a.similarity_with_sizes(&b, 20, 10, 16).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn similarity_with_sizes(
        &self,
        other: &Self,
        f1: u64,
        f2: u64,
        universe: u64,
    ) -> Result<Estimate, Error> {
        let m = self.matches(other)?;
        check_sizes(f1, f2, universe)?;
        if let Some(e) = self.empty_estimate(other) {
            return Ok(e);
        }
        let (c1, c2) = Self::correction_constants(self.bits, f1, f2, universe)?;
        Ok(corrected_estimate(m, self.k, c1, c2))
    }

    fn empty_estimate(&self, other: &Self) -> Option<Estimate> {
        match (self.empty, other.empty) {
            (true, true) => Some(Estimate::exact(1.0)),
            (true, false) | (false, true) => Some(Estimate::exact(0.0)),
            (false, false) => None,
        }
    }

    /// The versioned byte form: magic `MHB1`, version, the MinHash scheme, `b`, `k`,
    /// the empty flag, the words, checksum (see [`ndd_core::codec`]);
    /// `8·⌈k·b/64⌉ + 43` bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::BBitSignature;
    /// let sig = near_dup::minhash::MinHasher::new(128)?.sketch_features([1, 2, 3]);
    /// let packed = BBitSignature::from_minhash(&sig, 2)?;
    /// let bytes = packed.to_bytes();
    /// assert_eq!(bytes.len(), 32 + 43);
    /// assert_eq!(BBitSignature::from_bytes(&bytes)?, packed);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(MAGIC, VERSION);
        w.u64(self.minhash_scheme.as_u64());
        w.u32(self.bits);
        w.u64(self.k as u64);
        w.u8(u8::from(self.empty));
        w.u64_slice(&self.words);
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, and for
    /// inconsistent contents (a `b` outside `1..=64`, `k = 0`, a word count that does
    /// not match `k·b`, non-zero padding, an empty flag on non-empty fields).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::BBitSignature;
    /// assert!(BBitSignature::from_bytes(b"MHB1 and then garbage").is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let minhash_scheme = SchemeId::from_u64(r.u64()?);
        let bits = r.u32()?;
        let k = r.u64()?;
        let empty = r.u8()?;
        let words = r.u64_vec()?;
        r.finish()?;
        if !(1..=MAX_BITS).contains(&bits) {
            return Err(Error::corrupt_data(format!("b-bit field width {bits}")));
        }
        let k = usize::try_from(k)
            .ok()
            .filter(|&k| k > 0)
            .ok_or_else(|| Error::corrupt_data(format!("b-bit signature with {k} slots")))?;
        if words_for(k, bits) != Some(words.len()) {
            return Err(Error::corrupt_data(format!(
                "{} words cannot hold {k} fields of {bits} bits",
                words.len()
            )));
        }
        let used = (k * bits as usize) % 64;
        if used != 0 && words.last().is_some_and(|&w| w >> used != 0) {
            return Err(Error::corrupt_data("non-zero padding bits"));
        }
        let empty = match empty {
            0 => false,
            1 => true,
            other => return Err(Error::corrupt_data(format!("empty flag {other}"))),
        };
        let mask = low_mask(bits);
        if empty && (0..k).any(|i| field_at(&words, i, bits) != mask) {
            return Err(Error::corrupt_data(
                "an empty document's fields are all ones (the low bits of EMPTY)",
            ));
        }
        Ok(BBitSignature {
            minhash_scheme,
            scheme: Self::scheme_for(minhash_scheme, bits),
            bits,
            k,
            empty,
            words,
        })
    }
}

/// `universe ≥ 1` and both sizes at most `universe`.
fn check_sizes(f1: u64, f2: u64, universe: u64) -> Result<(), Error> {
    if universe == 0 {
        return Err(Error::invalid_parameter("universe", "must be at least 1"));
    }
    if f1 > universe || f2 > universe {
        return Err(Error::invalid_parameter(
            "f1, f2",
            format!("set sizes {f1} and {f2} must not exceed the universe size {universe}"),
        ));
    }
    Ok(())
}

/// `(P̂ − C1) / (1 − C2)` clamped to `[0, 1]`, with the unclamped estimator's standard
/// error.
fn corrected_estimate(matches: usize, k: usize, c1: f64, c2: f64) -> Estimate {
    let kf = k as f64;
    let p = matches as f64 / kf;
    let denom = 1.0 - c2; // ≥ 1 − 2^-b ≥ 1/2
    let value = ((p - c1) / denom).clamp(0.0, 1.0);
    let se = (p * (1.0 - p) / kf).sqrt() / denom;
    Estimate::new(value, se).unwrap_or(Estimate::exact(value))
}

impl Signature for BBitSignature {
    #[inline]
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// The sparse-limit estimate `R̂_b = (P̂_b − 2^-b) / (1 − 2^-b)`, clamped to
    /// `[0, 1]`, with standard error `sqrt(P̂_b (1 − P̂_b) / k) / (1 − 2^-b)`.
    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        let m = self.matches(other)?;
        if let Some(e) = self.empty_estimate(other) {
            return Ok(e);
        }
        let c = 2f64.powi(-i32::try_from(self.bits).unwrap_or(64));
        Ok(corrected_estimate(m, self.k, c, c))
    }
}

impl ndd_core::codec::ByteForm for BBitSignature {
    fn to_bytes(&self) -> Vec<u8> {
        BBitSignature::to_bytes(self)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        BBitSignature::from_bytes(bytes)
    }
}

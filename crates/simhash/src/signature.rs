//! [`SimHashSignature`]: `m` packed bits, the Hamming distance and the two estimates.

use std::fmt;

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{BitSignature, Error, Estimate, SchemeId, Signature};

const MAGIC: [u8; 4] = *b"SHS1";
const VERSION: u16 = 1;

/// The largest number of bits a signature may have (2^20).
///
/// # Example
///
/// ```
/// assert!(near_dup::simhash::SimHasher::new(near_dup::simhash::MAX_BITS + 1).is_err());
/// ```
pub const MAX_BITS: usize = 1 << 20;

/// A SimHash signature: `m` bits, packed little-endian into `⌈m/64⌉` words (bit `i` is
/// bit `i % 64` of word `i / 64`; bits past `m` are 0). A 64-bit fingerprint is one
/// `u64` ([`as_u64`](Self::as_u64)).
///
/// For two documents whose weighted feature vectors are at angle `θ`, each bit differs
/// with probability `θ/π` (Charikar, *Similarity estimation techniques from rounding
/// algorithms*, STOC 2002; Hajishirzi, Yih and Kołcz (SIGIR 2010, §3.2)), independently across bits for Gaussian
/// values. So the Hamming distance `h` gives:
///
/// * [`similarity`](Signature::similarity): `1 − h/m`, an unbiased estimate of
///   `1 − θ/π`, with standard error `sqrt(p(1 − p)/m)` (Hajishirzi, Yih and Kołcz, SIGIR 2010, §3.2: "the number of
///   identical bits … divided by m");
/// * [`cosine_estimate`](Self::cosine_estimate): `cos(π·h/m)`, the cosine of the
///   vectors.
///
/// `Debug` prints the scheme, `m` and the bits in hexadecimal (long signatures
/// abbreviated).
///
/// # Example
///
/// ```
/// use near_dup::{DocSketcher, Signature};
/// use near_dup::simhash::SimHasher;
///
/// let h = SimHasher::new(64)?;
/// let a = h.sketch("the quick brown fox jumps over the lazy dog near the river bank today");
/// let b = h.sketch("the quick brown fox jumps over the lazy dog near the river bank today!");
/// assert_eq!(a.hamming_distance(&b)?, 0); // same words, same features
/// assert_eq!(a.similarity(&b)?.value(), 1.0);
/// let fp: u64 = a.as_u64().expect("a 64-bit signature");
/// assert_eq!(fp, a.words()[0]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SimHashSignature {
    scheme: SchemeId,
    bits: usize,
    words: Vec<u64>,
}

impl fmt::Debug for SimHashSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SimHashSignature({:?}, {} bits, ",
            self.scheme, self.bits
        )?;
        let shown = self.words.len().min(4);
        for (i, w) in self.words[..shown].iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{w:016x}")?;
        }
        if self.words.len() > shown {
            write!(f, " … ({} more words)", self.words.len() - shown)?;
        }
        f.write_str(")")
    }
}

impl SimHashSignature {
    /// Wraps bits computed elsewhere (read from a column store, or a fingerprint from
    /// another system), stamped with `scheme`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `bits` is 0 or above [`MAX_BITS`], when `words`
    /// does not have `⌈bits/64⌉` entries, or when bits past `bits` are set.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::simhash::SimHashSignature;
    /// let s = SchemeId::new("my-fingerprints").finish();
    /// let a = SimHashSignature::from_words(s, 64, vec![0b1011])?;
    /// let b = SimHashSignature::from_words(s, 64, vec![0b0001])?;
    /// assert_eq!(a.hamming_distance(&b)?, 2);
    /// assert!(SimHashSignature::from_words(s, 4, vec![0x10]).is_err()); // bit 4 of 4 bits
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_words(scheme: SchemeId, bits: usize, words: Vec<u64>) -> Result<Self, Error> {
        if bits == 0 || bits > MAX_BITS {
            return Err(Error::invalid_parameter(
                "bits",
                format!("must be in 1..={MAX_BITS}, got {bits}"),
            ));
        }
        if words.len() != bits.div_ceil(64) {
            return Err(Error::invalid_parameter(
                "words",
                format!(
                    "{bits} bits take {} words, got {}",
                    bits.div_ceil(64),
                    words.len()
                ),
            ));
        }
        if words.last().is_some_and(|&w| w & !tail_mask(bits) != 0) {
            return Err(Error::invalid_parameter(
                "words",
                format!("bits past bit {bits} are set"),
            ));
        }
        Ok(SimHashSignature {
            scheme,
            bits,
            words,
        })
    }

    /// A 64-bit fingerprint as a signature of `scheme` (the inverse of
    /// [`as_u64`](Self::as_u64)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let s = near_dup::simhash::SimHashSignature::from_u64(SchemeId::new("fp").finish(), 0xABCD);
    /// assert_eq!(s.as_u64(), Some(0xABCD));
    /// ```
    #[must_use]
    pub fn from_u64(scheme: SchemeId, fingerprint: u64) -> Self {
        SimHashSignature {
            scheme,
            bits: 64,
            words: vec![fingerprint],
        }
    }

    pub(crate) fn zeroed(scheme: SchemeId, bits: usize) -> Self {
        SimHashSignature {
            scheme,
            bits,
            words: vec![0; bits.div_ceil(64)],
        }
    }

    pub(crate) fn reset(&mut self, scheme: SchemeId, bits: usize) -> &mut [u64] {
        self.scheme = scheme;
        self.bits = bits;
        self.words.clear();
        self.words.resize(bits.div_ceil(64), 0);
        &mut self.words
    }

    /// The fingerprint as one `u64` when the signature has at most 64 bits (Manku et
    /// al.'s 64-bit fingerprints), `None` for longer signatures.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::simhash::SimHasher::new(64)?;
    /// assert!(h.sketch_features([1, 2, 3]).as_u64().is_some());
    /// assert!(near_dup::simhash::SimHasher::new(128)?.sketch_features([1]).as_u64().is_none());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        match self.words.as_slice() {
            [w] => Some(*w),
            _ => None,
        }
    }

    /// The packed bits (the same as [`BitSignature::words`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::simhash::SimHasher::new(384)?;
    /// assert_eq!(h.sketch_features([1, 2, 3]).words().len(), 6);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The number of bits `m`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// assert_eq!(near_dup::simhash::SimHasher::new(100)?.sketch_features([1]).bits(), 100);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Bit `i` (false past the end).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::simhash::SimHashSignature::from_u64(near_dup::SchemeId::new("f").finish(), 0b10);
    /// assert!(s.bit(1) && !s.bit(0) && !s.bit(1000));
    /// ```
    #[must_use]
    pub fn bit(&self, i: usize) -> bool {
        i < self.bits
            && self
                .words
                .get(i / 64)
                .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    /// The number of bits in which the two signatures differ (hardware popcount of
    /// the XOR, word by word).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ (another length, seed, value
    /// kind, weighting or feature extraction); [`Error::LengthMismatch`] when bits
    /// were wrapped with different lengths under one scheme.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::simhash::SimHasher::new(64)?;
    /// let a = h.sketch_features(0..100);
    /// let b = h.sketch_features(0..101);
    /// assert_eq!(a.hamming_distance(&a)?, 0);
    /// assert!(a.hamming_distance(&b)? < 16);
    /// let other = near_dup::simhash::SimHasher::builder().seed(1).build()?;
    /// assert!(a.hamming_distance(&other.sketch_features(0..100)).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn hamming_distance(&self, other: &Self) -> Result<u32, Error> {
        self.check_compatible(other)?;
        if self.bits != other.bits || self.words.len() != other.words.len() {
            return Err(Error::LengthMismatch {
                expected: self.bits,
                actual: other.bits,
            });
        }
        Ok(self
            .words
            .iter()
            .zip(&other.words)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum())
    }

    /// The cosine of the two documents' weighted feature vectors, estimated as
    /// `cos(π·h/m)` (Charikar 2002: a bit differs with probability `θ/π`). The standard
    /// error is the delta-method `π·|sin(π·h/m)|·sqrt(q(1 − q)/m)` with `q = h/m`. The
    /// value lies in `[−1, 1]`.
    ///
    /// # Errors
    ///
    /// As [`hamming_distance`](Self::hamming_distance).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::simhash::SimHashSignature;
    /// let s = SchemeId::new("demo").finish();
    /// let a = SimHashSignature::from_u64(s, 0);
    /// let b = SimHashSignature::from_u64(s, u64::MAX >> 32); // 32 of 64 bits differ
    /// let c = a.cosine_estimate(&b)?;
    /// assert!(c.value().abs() < 1e-12); // θ = π/2: orthogonal
    /// assert_eq!(a.cosine_estimate(&a)?.value(), 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn cosine_estimate(&self, other: &Self) -> Result<Estimate, Error> {
        let h = self.hamming_distance(other)?;
        let m = self.bits as f64;
        let q = f64::from(h) / m;
        let theta = std::f64::consts::PI * q;
        let se = std::f64::consts::PI * theta.sin().abs() * (q * (1.0 - q) / m).sqrt();
        let value = theta.cos();
        Ok(Estimate::new(value, se).unwrap_or(Estimate::exact(value)))
    }

    /// The versioned byte form: magic, version, scheme, `m`, the words, checksum (see
    /// [`ndd_core::codec`]); `8·⌈m/64⌉ + 38` bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::simhash::{SimHasher, SimHashSignature};
    /// let sig = SimHasher::new(384)?.sketch_features([1, 2, 3]);
    /// let bytes = sig.to_bytes();
    /// assert_eq!(bytes.len(), 8 * 6 + 38);
    /// assert_eq!(SimHashSignature::from_bytes(&bytes)?, sig);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(MAGIC, VERSION);
        w.u64(self.scheme.as_u64());
        w.u64(self.bits as u64);
        w.u64_slice(&self.words);
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, and for
    /// contents no sketching produces (a length of 0 or above [`MAX_BITS`], a word count
    /// that does not match it, bits set past the end).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::simhash::SimHashSignature;
    /// assert!(SimHashSignature::from_bytes(b"not a signature").is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let scheme = SchemeId::from_u64(r.u64()?);
        let bits = usize::try_from(r.u64()?).unwrap_or(usize::MAX);
        let words = r.u64_vec()?;
        r.finish()?;
        SimHashSignature::from_words(scheme, bits, words)
            .map_err(|e| Error::corrupt_data(format!("SimHash signature: {e}")))
    }
}

/// The valid bits of the last word of an `m`-bit signature.
#[inline]
pub(crate) fn tail_mask(bits: usize) -> u64 {
    match bits % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

impl Signature for SimHashSignature {
    #[inline]
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// `1 − h/m` with standard error `sqrt(p(1 − p)/m)`.
    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        let h = self.hamming_distance(other)?;
        let m = self.bits as f64;
        let p = 1.0 - f64::from(h) / m;
        let se = (p * (1.0 - p) / m).sqrt();
        Ok(Estimate::new(p, se).unwrap_or(Estimate::exact(p)))
    }
}

impl BitSignature for SimHashSignature {
    #[inline]
    fn words(&self) -> &[u64] {
        &self.words
    }

    #[inline]
    fn num_bits(&self) -> usize {
        self.bits
    }
}

impl ndd_core::codec::ByteForm for SimHashSignature {
    fn to_bytes(&self) -> Vec<u8> {
        SimHashSignature::to_bytes(self)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        SimHashSignature::from_bytes(bytes)
    }
}

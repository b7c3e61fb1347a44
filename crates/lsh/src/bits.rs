//! Banded Hamming LSH for long bit signatures (SimHash of 128 … 4096 bits): sample
//! bits into bands and index them with the same banding machinery as MinHash.
//!
//! Bit sampling is the locality-sensitive family for the Hamming distance of Piotr
//! Indyk and Rajeev Motwani, "Approximate nearest neighbors: towards removing the curse
//! of dimensionality", STOC 1998: a sampled bit position agrees between two `m`-bit
//! signatures with probability `p = 1 − h/m` for Hamming distance `h`. For SimHash
//! (Charikar's random hyperplanes, in H. Hajishirzi, W. Yih and A.
//! Kołcz, "Adaptive Near-Duplicate Detection via Similarity Learning", SIGIR 2010,
//! section 3.2) `p` estimates `1 − θ/π` for the angle `θ` between the feature vectors.
//!
//! A [`BitSampler`] draws `b × r` positions from a seed (uniformly, independently, with
//! replacement), and turns a signature into a [`SampledBits`]: a [`SlotSignature`]
//! whose slots are the sampled bits, band after band. [`LshIndex`](crate::LshIndex),
//! [`candidate_pairs`](crate::candidate_pairs) and [`LshParams::band_keys_into`]
//! then work unchanged: a band agrees with probability exactly `p^r` (the positions are
//! independent), and a pair is a candidate with probability `1 − (1 − p^r)^b`, the
//! S-curve of [`LshParams::probability`] evaluated at `p`.

use std::fmt;

use ndd_core::codec::ByteForm;
use ndd_core::hash::mix64;
use ndd_core::{BitSignature, Error, Estimate, SchemeId, Signature, SlotSignature};

use crate::LshParams;
use crate::slots::{read_values, value_signature_impls, write_values};

/// The largest signature length a [`BitSampler`] accepts (`2^32` bits).
const MAX_BITS: usize = 1 << 32;

/// Draws `b × r` bit positions of an `m`-bit signature from a seed and samples
/// signatures into [`SampledBits`] for banded LSH.
///
/// Position `i` is `⌊mix64(seed ⊕ mix64(i + 1)) · m / 2^64⌋` (the `fmix64` finalizer of
/// [`ndd_core::hash::mix64`]): a pure function of the seed, stable on every platform and
/// run, and, as `i` varies, independent and uniform up to the quality of the mixer.
/// Positions may repeat (sampling with replacement), which is what makes a band's
/// agreement probability exactly `p^r`.
///
/// Choosing `b` and `r`: for a bit-agreement threshold `s` (a Hamming threshold `h`
/// gives `s = 1 − h/m`), [`LshParams::for_threshold`]`(s, budget)` picks the
/// S-curve, where `budget` bounds `b × r` (the slots per document; it may exceed
/// `m`).
///
/// # Example
///
/// ```
/// use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
/// use near_dup::lsh::{BitSampler, LshIndex, LshParams};
///
/// /// A 256-bit signature (stand-in for an `ndd-simhash` signature).
/// #[derive(Clone, Debug)]
/// struct Bits([u64; 4]);
/// impl Signature for Bits {
///     fn scheme(&self) -> SchemeId { SchemeId::new("demo-256").finish() }
///     fn similarity(&self, o: &Self) -> Result<Estimate, Error> {
///         let h: u32 = self.0.iter().zip(&o.0).map(|(a, b)| (a ^ b).count_ones()).sum();
///         Ok(Estimate::exact(1.0 - f64::from(h) / 256.0))
///     }
/// }
/// impl BitSignature for Bits {
///     fn words(&self) -> &[u64] { &self.0 }
///     fn num_bits(&self) -> usize { 256 }
/// }
///
/// let sampler = BitSampler::new(LshParams::new(16, 12)?, 256, 42)?;
/// let a = Bits([1, 2, 3, 4]);
/// let near = Bits([1, 2, 3, 5]); // 1 bit apart
/// let far = Bits([!1, !2, !3, !4]);
/// let mut index = LshIndex::new(sampler.params());
/// index.insert("a", &sampler.sample(&a)?)?;
/// index.insert("far", &sampler.sample(&far)?)?;
/// assert_eq!(index.query(&sampler.sample(&near)?)?, vec!["a"]);
/// // Candidate probability for 1 differing bit of 256:
/// assert!(sampler.probability(255.0 / 256.0) > 0.999);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct BitSampler {
    params: LshParams,
    num_bits: usize,
    seed: u64,
    positions: Box<[u32]>,
}

impl fmt::Debug for BitSampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BitSampler")
            .field("params", &self.params)
            .field("num_bits", &self.num_bits)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// Position `i` of `num_bits` under `seed`.
#[allow(clippy::cast_possible_truncation)] // < num_bits ≤ 2^32
fn position(seed: u64, i: u64, num_bits: usize) -> u32 {
    let h = mix64(seed ^ mix64(i.wrapping_add(1)));
    ((u128::from(h) * num_bits as u128) >> 64) as u32
}

impl BitSampler {
    /// A sampler of `params.bands() × params.rows()` positions of `num_bits`-bit
    /// signatures, drawn from `seed`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `num_bits` is 0 or above `2^32`, or when
    /// `bands × rows` exceeds `2^28` positions.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let s = BitSampler::new(LshParams::new(20, 10)?, 384, 7)?;
    /// assert_eq!(s.positions().len(), 200);
    /// assert!(s.positions().iter().all(|&p| p < 384));
    /// assert!(BitSampler::new(LshParams::new(2, 2)?, 0, 7).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(params: LshParams, num_bits: usize, seed: u64) -> Result<Self, Error> {
        if num_bits == 0 || num_bits > MAX_BITS {
            return Err(Error::invalid_parameter(
                "num_bits",
                format!("must lie in [1, 2^32], got {num_bits}"),
            ));
        }
        let n = params.slots_used();
        if n > 1 << 28 {
            return Err(Error::invalid_parameter(
                "bands × rows",
                format!("{n} sampled bits exceed the limit of 2^28"),
            ));
        }
        let positions = (0..n as u64).map(|i| position(seed, i, num_bits)).collect();
        Ok(BitSampler {
            params,
            num_bits,
            seed,
            positions,
        })
    }

    /// The banding parameters (use them for the [`LshIndex`](crate::LshIndex)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let p = LshParams::new(8, 16)?;
    /// assert_eq!(BitSampler::new(p, 64, 0)?.params(), p);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// The signature length `m` this sampler reads.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// assert_eq!(BitSampler::new(LshParams::new(8, 16)?, 4096, 0)?.num_bits(), 4096);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_bits(&self) -> usize {
        self.num_bits
    }

    /// The seed the positions derive from.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// assert_eq!(BitSampler::new(LshParams::new(8, 16)?, 128, 99)?.seed(), 99);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The sampled bit positions, band after band (`b × r` of them).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let a = BitSampler::new(LshParams::new(2, 3)?, 128, 1)?;
    /// let b = BitSampler::new(LshParams::new(2, 3)?, 128, 1)?;
    /// assert_eq!(a.positions(), b.positions()); // a pure function of the seed
    /// assert_eq!(a.positions().len(), 6);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn positions(&self) -> &[u32] {
        &self.positions
    }

    /// The probability `p^r` that one band of two signatures agrees when each sampled
    /// bit agrees with probability `p` (`p = 1 − h/m` for Hamming distance `h`).
    /// `p` outside `[0, 1]` is clamped into it.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let s = BitSampler::new(LshParams::new(4, 10)?, 256, 0)?;
    /// assert!((s.band_probability(0.9) - 0.9f64.powi(10)).abs() < 1e-15);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn band_probability(&self, p: f64) -> f64 {
        let r = i32::try_from(self.params.rows()).unwrap_or(i32::MAX);
        p.clamp(0.0, 1.0).powi(r)
    }

    /// The probability `1 − (1 − p^r)^b` that two signatures whose bits agree with
    /// probability `p` become candidates: [`LshParams::probability`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let s = BitSampler::new(LshParams::new(20, 10)?, 384, 0)?;
    /// assert!(s.probability(0.95) > 0.99);
    /// assert!(s.probability(0.6) < 0.15);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn probability(&self, p: f64) -> f64 {
        self.params.probability(p)
    }

    /// The scheme of the [`SampledBits`] made from signatures of `source` scheme: the
    /// source scheme, `m`, `b`, `r` and the seed.
    fn sampled_scheme(&self, source: SchemeId) -> SchemeId {
        SchemeId::new("ndd-lsh-bit-sample")
            .with_scheme(source)
            .with(self.num_bits as u64)
            .with(self.params.bands() as u64)
            .with(self.params.rows() as u64)
            .with(self.seed)
            .finish()
    }

    fn check<S: BitSignature>(&self, signature: &S) -> Result<(), Error> {
        Error::check_lengths(self.num_bits, signature.num_bits())?;
        let words = self.num_bits.div_ceil(64);
        if signature.words().len() < words {
            return Err(Error::invalid_input(format!(
                "a {}-bit signature needs {words} words, got {}",
                self.num_bits,
                signature.words().len()
            )));
        }
        Ok(())
    }

    /// Writes the sampled bits of `signature` into `out` (reusing its buffer).
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when the signature does not have `num_bits` bits;
    /// [`Error::InvalidInput`] when it has fewer words than its bits need. `out` is
    /// unchanged on error.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct F(u64);
    /// # impl Signature for F {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("f").finish() }
    /// #     fn similarity(&self, _: &Self) -> Result<Estimate, Error> { Ok(Estimate::exact(1.0)) }
    /// # }
    /// # impl BitSignature for F {
    /// #     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
    /// #     fn num_bits(&self) -> usize { 64 }
    /// # }
    /// use near_dup::SlotSignature;
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let s = BitSampler::new(LshParams::new(3, 5)?, 64, 0)?;
    /// let mut out = s.sample(&F(0))?;
    /// s.sample_into(&F(u64::MAX), &mut out)?;
    /// assert!(out.slots().iter().all(|&b| b == 1));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sample_into<S: BitSignature>(
        &self,
        signature: &S,
        out: &mut SampledBits,
    ) -> Result<(), Error> {
        self.check(signature)?;
        let words = signature.words();
        out.scheme = self.sampled_scheme(signature.scheme());
        out.bits.clear();
        out.bits.extend(
            self.positions
                .iter()
                .map(|&p| (words[p as usize / 64] >> (p % 64)) & 1),
        );
        Ok(())
    }

    /// The sampled bits of `signature` (allocates; see
    /// [`sample_into`](Self::sample_into)).
    ///
    /// # Errors
    ///
    /// As [`sample_into`](Self::sample_into).
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct F(u64);
    /// # impl Signature for F {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("f").finish() }
    /// #     fn similarity(&self, _: &Self) -> Result<Estimate, Error> { Ok(Estimate::exact(1.0)) }
    /// # }
    /// # impl BitSignature for F {
    /// #     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
    /// #     fn num_bits(&self) -> usize { 64 }
    /// # }
    /// use near_dup::SlotSignature;
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let s = BitSampler::new(LshParams::new(3, 5)?, 64, 0)?;
    /// let bits = s.sample(&F(0b1010))?;
    /// assert_eq!(bits.slots().len(), 15);
    /// for (&p, &b) in s.positions().iter().zip(bits.slots()) {
    ///     assert_eq!(b, (0b1010u64 >> p) & 1);
    /// }
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sample<S: BitSignature>(&self, signature: &S) -> Result<SampledBits, Error> {
        let mut out = SampledBits {
            scheme: SchemeId::from_u64(0),
            bits: Vec::with_capacity(self.positions.len()),
        };
        self.sample_into(signature, &mut out)?;
        Ok(out)
    }

    /// Appends the `b` band keys of `signature`'s sampled bits to `out`: the plain,
    /// stable values a distributed job shuffles on (as
    /// [`LshParams::band_keys_into`] on the sampled bits).
    ///
    /// # Errors
    ///
    /// As [`sample_into`](Self::sample_into); nothing is appended.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct F(u64);
    /// # impl Signature for F {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("f").finish() }
    /// #     fn similarity(&self, _: &Self) -> Result<Estimate, Error> { Ok(Estimate::exact(1.0)) }
    /// # }
    /// # impl BitSignature for F {
    /// #     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
    /// #     fn num_bits(&self) -> usize { 64 }
    /// # }
    /// use near_dup::SlotSignature;
    /// use near_dup::lsh::{BitSampler, LshParams};
    /// let s = BitSampler::new(LshParams::new(4, 8)?, 64, 3)?;
    /// let mut keys = Vec::new();
    /// s.band_keys_into(&F(12345), &mut keys)?;
    /// assert_eq!(keys, s.params().band_keys(s.sample(&F(12345))?.slots())?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn band_keys_into<S: BitSignature>(
        &self,
        signature: &S,
        out: &mut Vec<u64>,
    ) -> Result<(), Error> {
        let bits = self.sample(signature)?;
        self.params.band_keys_into(&bits.bits, out)
    }
}

/// The sampled bits of a long signature (one slot per sampled bit, value 0 or 1, band
/// after band), made by [`BitSampler::sample`]: a [`SlotSignature`] for the banded
/// [`LshIndex`](crate::LshIndex). Its scheme folds in the source signature's scheme
/// and the sampler's parameters and seed, so samples of different samplers are never
/// compared.
///
/// [`similarity`](Signature::similarity) is the fraction `p̂` of agreeing sampled bits,
/// an unbiased estimate of the signatures' bit agreement `1 − h/m` (positions are
/// drawn with replacement), with standard error `√(p̂(1−p̂)/n)` for `n = b × r`.
///
/// # Example
///
/// ```
/// # use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
/// # #[derive(Clone, Debug)]
/// # struct F(u64);
/// # impl Signature for F {
/// #     fn scheme(&self) -> SchemeId { SchemeId::new("f").finish() }
/// #     fn similarity(&self, _: &Self) -> Result<Estimate, Error> { Ok(Estimate::exact(1.0)) }
/// # }
/// # impl BitSignature for F {
/// #     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
/// #     fn num_bits(&self) -> usize { 64 }
/// # }
/// use near_dup::lsh::{BitSampler, LshParams};
/// let s = BitSampler::new(LshParams::new(8, 8)?, 64, 0)?;
/// let a = s.sample(&F(0))?;
/// assert_eq!(a.similarity(&s.sample(&F(0))?)?.value(), 1.0);
/// assert_eq!(a.similarity(&s.sample(&F(u64::MAX))?)?.value(), 0.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SampledBits {
    scheme: SchemeId,
    bits: Vec<u64>,
}

const SAMPLED_MAGIC: [u8; 4] = *b"SBIT";
const SAMPLED_VERSION: u16 = 1;

impl SampledBits {
    /// The versioned byte form (see [`ndd_core::codec`]): magic, version, scheme, the
    /// sampled bits (one `u64` each, as [`slots`](SlotSignature::slots) shows them),
    /// checksum; `8n + 30` bytes for `n` sampled bits.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::{BitSignature, Error, Estimate, SchemeId, Signature};
    /// # #[derive(Clone, Debug)]
    /// # struct F(u64);
    /// # impl Signature for F {
    /// #     fn scheme(&self) -> SchemeId { SchemeId::new("f").finish() }
    /// #     fn similarity(&self, _: &Self) -> Result<Estimate, Error> { Ok(Estimate::exact(1.0)) }
    /// # }
    /// # impl BitSignature for F {
    /// #     fn words(&self) -> &[u64] { std::slice::from_ref(&self.0) }
    /// #     fn num_bits(&self) -> usize { 64 }
    /// # }
    /// use near_dup::lsh::{BitSampler, LshParams, SampledBits};
    /// let s = BitSampler::new(LshParams::new(2, 4)?, 64, 0)?;
    /// let bits = s.sample(&F(0xDEAD_BEEF))?;
    /// let bytes = bits.to_bytes();
    /// assert_eq!(bytes.len(), 8 * 8 + 30);
    /// assert_eq!(SampledBits::from_bytes(&bytes)?, bits);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        write_values(SAMPLED_MAGIC, SAMPLED_VERSION, self.scheme, &self.bits)
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, or a value other
    /// than 0 or 1 where a bit belongs.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::lsh::SampledBits::from_bytes(b"not bits").is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (scheme, bits) = read_values(bytes, SAMPLED_MAGIC, SAMPLED_VERSION)?;
        if bits.iter().any(|&b| b > 1) {
            return Err(Error::corrupt_data("a sampled bit is neither 0 nor 1"));
        }
        Ok(SampledBits { scheme, bits })
    }
}

impl fmt::Debug for SampledBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SampledBits")
            .field("scheme", &self.scheme)
            .field("len", &self.bits.len())
            .finish_non_exhaustive()
    }
}

value_signature_impls!(
    SampledBits,
    bits,
    "The fraction of agreeing sampled bits, with standard error `√(p(1−p)/n)`."
);

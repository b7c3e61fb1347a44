//! [`LshBloom`]: flag-only near-duplicate detection with one Bloom filter per band
//! (LSHBloom), its false-positive rates and its byte form.

use std::fmt;

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{Error, SchemeId, SlotSignature};

use crate::LshParams;
use crate::form::Form;

const MAGIC: [u8; 4] = *b"LSHB";
const VERSION: u16 = 1;
/// Flag bit: the filter has a scheme (fixed by its first insert).
const HAS_SCHEME: u8 = 1;
/// Query band keys up to this many bands live on the stack.
const STACK_BANDS: usize = 64;

/// The most bits an [`LshBloom`] allocates over all its bands: 2³⁷ bits (16 GiB),
/// which bounds what [`LshBloom::new`] may be asked for: about 800 million documents
/// over 9 bands at a per-band rate of 10⁻⁴ (shard beyond that).
///
/// # Example
///
/// ```
/// use near_dup::lsh::{LshBloom, LshParams, MAX_BLOOM_BITS};
/// assert!(MAX_BLOOM_BITS >= 1 << 30);
/// assert!(LshBloom::new(LshParams::new(9, 13)?, 1 << 40, 1e-6).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const MAX_BLOOM_BITS: u64 = 1 << 37;

/// The most hash positions per key (bit probes per band per document):
/// [`LshBloom::new`] never chooses more, whatever the rate asked for.
///
/// # Example
///
/// ```
/// use near_dup::lsh::{LshBloom, LshParams, MAX_BLOOM_HASHES};
/// let f = LshBloom::new(LshParams::new(2, 4)?, 100, 1e-30)?;
/// assert_eq!(f.hashes(), MAX_BLOOM_HASHES);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const MAX_BLOOM_HASHES: u32 = 32;

/// Flag-only near-duplicate detection: the band keys of a banded LSH index
/// ([`LshParams`], [`band_key`](crate::band_key)), each band's keys in a Bloom filter
/// of its own instead of a bucket table. A document is *flagged* when, in some band,
/// its key is (probably) already in that band's filter: exactly the documents an
/// [`LshIndex`](crate::LshIndex) would give at least one candidate, plus false
/// positives at a stated rate, and never a false negative. What it does not tell:
/// which documents matched. It cannot remove a document (a Bloom filter forgets
/// nothing).
///
/// # False-positive rate and memory
///
/// Each band's filter has `m` bits and `h` probe positions per key. After `n` inserted
/// documents a key that was never inserted finds all its `h` bits set with
/// probability about
///
/// ```text
/// p_band(n) = (1 − e^(−h·n/m))^h
/// ```
///
/// (Bloom 1970; with `h` positions from one 64-bit key by double hashing, Kirsch and
/// Mitzenmacher 2006). [`new`](Self::new) sizes each filter for a `capacity` and a
/// per-band rate `p`: `m = ⌈−capacity · ln p / (ln 2)²⌉`, `h = round((m / capacity) ·
/// ln 2)` (at least 1, at most [`MAX_BLOOM_HASHES`]). A document with no true match
/// in any band is flagged with probability
///
/// ```text
/// P(n) = 1 − (1 − p_band(n))^b  ≤  b · p_band(n)
/// ```
///
/// ([`band_false_positive_rate`](Self::band_false_positive_rate),
/// [`false_positive_rate`](Self::false_positive_rate); both grow past the stated rate
/// once more than `capacity` documents are inserted.) Memory is `b · m / 8` bytes,
/// about `b · 1.44 · log₂(1/p) / 8` bytes per document of capacity: 21 bytes for 9
/// bands at `p = 10⁻⁴` (overall about `9 · 10⁻⁴`), against about 220 bytes per
/// document for the same bands in an [`LshIndex`](crate::LshIndex)
/// ([`bytes_per_document`](Self::bytes_per_document)).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
/// let s = SchemeId::new("demo").finish();
/// let mut seen = LshBloom::new(LshParams::new(2, 2)?, 1000, 1e-4)?;
/// let a = PlainSlots::new(s, vec![1, 2, 3, 4])?;
/// let near = PlainSlots::new(s, vec![1, 2, 7, 8])?; // shares band 0 with a
/// let other = PlainSlots::new(s, vec![5, 6, 7, 9])?;
/// assert!(!seen.check_then_insert(&a)?);
/// assert!(seen.check_then_insert(&near)?);
/// assert!(!seen.contains(&other)?);
/// assert!(seen.false_positive_rate() < 1e-6);
/// # Ok::<(), near_dup::Error>(())
/// ```
///
/// # References
///
/// - A. Khan, R. Underwood, C. Siebenschuh, Y. Babuji, A. Ajith, K. Hippe,
///   O. Gokdemir, A. Brace, K. Chard and I. Foster, "LSHBloom: Memory-efficient,
///   Extreme-scale Document Deduplication", arXiv:2411.04257, 2024 (section 3: one
///   Bloom filter per band replaces the band's hash table).
/// - B. H. Bloom, "Space/time trade-offs in hash coding with allowable errors",
///   Communications of the ACM 13(7), 1970.
/// - A. Kirsch and M. Mitzenmacher, "Less hashing, same performance: building a better
///   Bloom filter", ESA 2006 (positions `g_i = h₁ + i·h₂`).
#[derive(Clone, PartialEq, Eq)]
pub struct LshBloom {
    params: LshParams,
    scheme: Option<SchemeId>,
    /// Bits per band's filter.
    bits: u64,
    hashes: u32,
    capacity: u64,
    inserted: u64,
    /// `words` 64-bit words per band, band after band.
    words: usize,
    filter: Vec<u64>,
}

impl fmt::Debug for LshBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshBloom")
            .field("params", &self.params)
            .field("scheme", &self.scheme)
            .field("bits_per_band", &self.bits)
            .field("hashes", &self.hashes)
            .field("capacity", &self.capacity)
            .field("inserted", &self.inserted)
            .finish_non_exhaustive()
    }
}

/// The `h` bit positions of a band key in a filter of `bits` bits: double hashing
/// `g_i = k + i·(rotl(k, 32) | 1)` over the band key's own 64 bits (XXH3 output, so
/// uniform), each reduced to `[0, bits)` by a multiply-high.
#[inline]
fn positions(key: u64, hashes: u32, bits: u64) -> impl Iterator<Item = u64> {
    let step = key.rotate_left(32) | 1;
    (0..u64::from(hashes)).map(move |i| {
        let g = key.wrapping_add(i.wrapping_mul(step));
        // < bits, so it fits a u64.
        ((u128::from(g) * u128::from(bits)) >> 64) as u64
    })
}

const FORM: Form = Form("LSH Bloom filter");

fn corrupt(what: impl fmt::Display) -> Error {
    FORM.corrupt(what)
}

impl LshBloom {
    /// Filters for `params.bands()` bands, each sized for `capacity` documents at a
    /// false-positive rate `band_rate` per band (see the type's docs for `m` and
    /// `h`).
    ///
    /// Cost: `b · m / 8` bytes, allocated and zeroed here; each insert or check sets
    /// or reads `b · h` bits.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `capacity` is 0, `band_rate` is not strictly
    /// between 0 and 1, or the filters would need more than [`MAX_BLOOM_BITS`] bits
    /// in all (or cannot be allocated).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::new(LshParams::new(9, 13)?, 1_000_000, 1e-4)?;
    /// assert_eq!(f.hashes(), 13);
    /// assert!((f.bytes_per_document() - 21.6).abs() < 0.1);
    /// assert!(LshBloom::new(LshParams::new(9, 13)?, 0, 1e-4).is_err());
    /// assert!(LshBloom::new(LshParams::new(9, 13)?, 10, 1.0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(params: LshParams, capacity: usize, band_rate: f64) -> Result<Self, Error> {
        if capacity == 0 {
            return Err(Error::invalid_parameter("capacity", "must be at least 1"));
        }
        if !(band_rate > 0.0 && band_rate < 1.0) {
            return Err(Error::invalid_parameter(
                "band_rate",
                format!("must lie strictly between 0 and 1, got {band_rate}"),
            ));
        }
        let ln2 = std::f64::consts::LN_2;
        let n = capacity as f64;
        let m = (-n * band_rate.ln() / (ln2 * ln2)).ceil().max(64.0);
        let total = m * params.bands() as f64;
        if total > MAX_BLOOM_BITS as f64 {
            return Err(Error::invalid_parameter(
                "capacity",
                format!(
                    "{capacity} documents at rate {band_rate} over {} bands need {total:.3e} \
                     bits, above {MAX_BLOOM_BITS}",
                    params.bands()
                ),
            ));
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // ≤ 2^37
        let bits = m as u64;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped
        let hashes = ((m / n) * ln2)
            .round()
            .clamp(1.0, f64::from(MAX_BLOOM_HASHES)) as u32;
        Self::with_shape(params, bits, hashes, capacity as u64)
    }

    /// Filters sized for an overall rate: the per-band rate `p = 1 − (1 −
    /// overall_rate)^(1/b)` that makes `P(capacity) = overall_rate`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), for `overall_rate` in place of `band_rate`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::with_overall_rate(LshParams::new(9, 13)?, 10_000, 1e-3)?;
    /// assert!((f.design_false_positive_rate() - 1e-3).abs() < 2e-4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn with_overall_rate(
        params: LshParams,
        capacity: usize,
        overall_rate: f64,
    ) -> Result<Self, Error> {
        if !(overall_rate > 0.0 && overall_rate < 1.0) {
            return Err(Error::invalid_parameter(
                "overall_rate",
                format!("must lie strictly between 0 and 1, got {overall_rate}"),
            ));
        }
        let band = -((-overall_rate).ln_1p() / params.bands() as f64).exp_m1();
        Self::new(params, capacity, band.max(f64::MIN_POSITIVE))
    }

    /// Allocates the zeroed filters of this shape (`bits` already bounded).
    fn with_shape(params: LshParams, bits: u64, hashes: u32, capacity: u64) -> Result<Self, Error> {
        let words = usize::try_from(bits.div_ceil(64))
            .map_err(|_| Error::invalid_parameter("capacity", "filters too large"))?;
        let total = words
            .checked_mul(params.bands())
            .ok_or_else(|| Error::invalid_parameter("capacity", "filters too large"))?;
        let mut filter = Vec::new();
        filter.try_reserve_exact(total).map_err(|_| {
            Error::invalid_parameter("capacity", format!("cannot allocate {total} words"))
        })?;
        filter.resize(total, 0);
        Ok(LshBloom {
            params,
            scheme: None,
            bits,
            hashes,
            capacity,
            inserted: 0,
            words,
            filter,
        })
    }

    /// The banding parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::new(LshParams::new(9, 13)?, 100, 0.01)?;
    /// assert_eq!(f.params(), LshParams::new(9, 13)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// The scheme fixed by the first insert (`None` before it).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
    /// let mut f = LshBloom::new(LshParams::new(1, 1)?, 10, 0.01)?;
    /// assert_eq!(f.scheme(), None);
    /// let s = SchemeId::new("d").finish();
    /// f.insert(&PlainSlots::new(s, vec![1])?)?;
    /// assert_eq!(f.scheme(), Some(s));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> Option<SchemeId> {
        self.scheme
    }

    /// Bits per band's filter (`m`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::new(LshParams::new(2, 2)?, 1000, 0.01)?;
    /// assert_eq!(f.bits_per_band(), 9586); // ⌈1000 · ln 100 / ln² 2⌉
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bits_per_band(&self) -> u64 {
        self.bits
    }

    /// Probe positions per key (`h`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// assert_eq!(LshBloom::new(LshParams::new(2, 2)?, 1000, 0.01)?.hashes(), 7);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// The number of documents the filters were sized for.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// assert_eq!(LshBloom::new(LshParams::new(2, 2)?, 1000, 0.01)?.capacity(), 1000);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The number of documents inserted (each insert counts, repeats included).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
    /// let mut f = LshBloom::new(LshParams::new(1, 1)?, 10, 0.01)?;
    /// f.insert(&PlainSlots::new(SchemeId::new("d").finish(), vec![1])?)?;
    /// assert_eq!(f.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> u64 {
        self.inserted
    }

    /// Whether nothing was inserted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// assert!(LshBloom::new(LshParams::new(1, 1)?, 10, 0.01)?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inserted == 0
    }

    /// `p_band(n) = (1 − e^(−h·n/m))^h` for the `n` documents inserted so far: the
    /// probability that one band's key that was never inserted is reported present.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::new(LshParams::new(9, 13)?, 1000, 0.01)?;
    /// assert_eq!(f.band_false_positive_rate(), 0.0); // empty
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn band_false_positive_rate(&self) -> f64 {
        self.band_rate_at(self.inserted)
    }

    fn band_rate_at(&self, n: u64) -> f64 {
        let h = f64::from(self.hashes);
        (-(-h * n as f64 / self.bits as f64).exp_m1()).powf(h)
    }

    /// `P(n) = 1 − (1 − p_band(n))^b`: the probability that a document with no true
    /// match in any band is flagged, after the `n` documents inserted so far.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
    /// let mut f = LshBloom::new(LshParams::new(4, 1)?, 100, 0.01)?;
    /// let s = SchemeId::new("d").finish();
    /// for i in 0..100u64 {
    ///     f.insert(&PlainSlots::new(s, vec![i, i + 1000, i + 2000, i + 3000])?)?;
    /// }
    /// let p = f.band_false_positive_rate();
    /// assert!((f.false_positive_rate() - (1.0 - (1.0 - p).powi(4))).abs() < 1e-12);
    /// assert!(f.false_positive_rate() <= 4.0 * 0.0101);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn false_positive_rate(&self) -> f64 {
        self.overall_rate(self.band_false_positive_rate())
    }

    fn overall_rate(&self, band: f64) -> f64 {
        -(self.params.bands() as f64 * (-band).ln_1p()).exp_m1()
    }

    /// `P(capacity)`: the overall rate the filters were sized for.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::new(LshParams::new(1, 1)?, 1000, 0.01)?;
    /// assert!((f.design_false_positive_rate() - 0.01).abs() < 0.001);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn design_false_positive_rate(&self) -> f64 {
        self.overall_rate(self.band_rate_at(self.capacity))
    }

    /// The filters' heap bytes: `b · ⌈m/64⌉ · 8`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::new(LshParams::new(2, 2)?, 1000, 0.01)?;
    /// assert_eq!(f.memory_bytes(), 2 * 150 * 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.filter.len() * 8
    }

    /// [`memory_bytes`](Self::memory_bytes) per document of
    /// [`capacity`](Self::capacity).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let f = LshBloom::new(LshParams::new(9, 13)?, 100_000, 1e-4)?;
    /// assert!(f.bytes_per_document() < 22.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bytes_per_document(&self) -> f64 {
        self.memory_bytes() as f64 / self.capacity as f64
    }

    fn check_signature<S: SlotSignature>(&self, signature: &S) -> Result<(), Error> {
        if let Some(scheme) = self.scheme {
            Error::check_schemes(scheme, signature.scheme())?;
        }
        self.params.check_signature_len(signature.slots().len())
    }

    /// Calls `f` with the band keys of checked slots (on the stack for up to 64 bands).
    fn with_keys<T>(&self, slots: &[u64], f: impl FnOnce(&[u64]) -> T) -> T {
        let b = self.params.bands();
        if b <= STACK_BANDS {
            let mut buf = [0u64; STACK_BANDS];
            self.params.write_band_keys(slots, &mut buf[..b]);
            f(&buf[..b])
        } else {
            let mut buf = vec![0u64; b];
            self.params.write_band_keys(slots, &mut buf);
            f(&buf)
        }
    }

    fn band_contains(&self, band: usize, key: u64) -> bool {
        let words = &self.filter[band * self.words..(band + 1) * self.words];
        positions(key, self.hashes, self.bits).all(|p| {
            #[allow(clippy::cast_possible_truncation)] // p < bits ≤ 64 · words
            let w = (p / 64) as usize;
            words[w] >> (p % 64) & 1 == 1
        })
    }

    fn band_insert(&mut self, band: usize, key: u64) {
        let (hashes, bits) = (self.hashes, self.bits);
        let words = &mut self.filter[band * self.words..(band + 1) * self.words];
        for p in positions(key, hashes, bits) {
            #[allow(clippy::cast_possible_truncation)] // p < bits ≤ 64 · words
            let w = (p / 64) as usize;
            words[w] |= 1 << (p % 64);
        }
    }

    /// Whether the document is flagged: some band's key is (probably) in that band's
    /// filter. Never false for a document that shares a band with an inserted one.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] for a signature of another scheme than the inserted
    /// ones; [`Error::InvalidParameter`] for one shorter than `bands × rows` slots.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshBloom::new(LshParams::new(2, 1)?, 100, 1e-6)?;
    /// f.insert(&PlainSlots::new(s, vec![1, 2])?)?;
    /// assert!(f.contains(&PlainSlots::new(s, vec![9, 2])?)?);
    /// assert!(!f.contains(&PlainSlots::new(s, vec![9, 9])?)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn contains<S: SlotSignature>(&self, signature: &S) -> Result<bool, Error> {
        self.check_signature(signature)?;
        Ok(self.with_keys(signature.slots(), |keys| {
            keys.iter()
                .enumerate()
                .any(|(i, &k)| self.band_contains(i, k))
        }))
    }

    /// Adds a document's band keys to the filters.
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains); the first insert fixes the scheme. Nothing
    /// changes on error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshBloom::new(LshParams::new(1, 2)?, 100, 1e-6)?;
    /// f.insert(&PlainSlots::new(s, vec![1, 2])?)?;
    /// assert!(f.contains(&PlainSlots::new(s, vec![1, 2])?)?);
    /// assert!(f.insert(&PlainSlots::new(s, vec![1])?).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn insert<S: SlotSignature>(&mut self, signature: &S) -> Result<(), Error> {
        self.check_then_insert(signature).map(|_| ())
    }

    /// The streaming deduplication step: whether the document is flagged
    /// ([`contains`](Self::contains)), then inserts it, reading each band's bits once.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshBloom::new(LshParams::new(2, 2)?, 100, 1e-6)?;
    /// let stream = [vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![1, 2, 0, 0]];
    /// let mut flagged = Vec::new();
    /// for (i, slots) in stream.into_iter().enumerate() {
    ///     if f.check_then_insert(&PlainSlots::new(s, slots)?)? {
    ///         flagged.push(i);
    ///     }
    /// }
    /// assert_eq!(flagged, vec![2]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn check_then_insert<S: SlotSignature>(&mut self, signature: &S) -> Result<bool, Error> {
        self.check_signature(signature)?;
        let b = self.params.bands();
        let mut buf = [0u64; STACK_BANDS];
        let mut heap = Vec::new();
        let keys: &mut [u64] = if b <= STACK_BANDS {
            &mut buf[..b]
        } else {
            heap.resize(b, 0);
            &mut heap
        };
        self.params.write_band_keys(signature.slots(), keys);
        let mut flagged = false;
        for (i, &k) in keys.iter().enumerate() {
            flagged = flagged || self.band_contains(i, k);
            self.band_insert(i, k);
        }
        self.inserted = self.inserted.saturating_add(1);
        self.scheme = Some(signature.scheme());
        Ok(flagged)
    }

    /// The versioned byte form (magic `LSHB`, version, body, XXH3 checksum; see
    /// [`ndd_core::codec`]): bands, rows, bits per band, probes, capacity, the count
    /// inserted, the scheme, and the filters' words. `79 + 8 · b · ⌈m/64⌉` bytes:
    /// the filters' memory plus a fixed header.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshBloom, LshParams, PlainSlots};
    /// let mut f = LshBloom::new(LshParams::new(2, 2)?, 1000, 0.01)?;
    /// f.insert(&PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2, 3, 4])?)?;
    /// let bytes = f.to_bytes();
    /// assert_eq!(bytes.len(), 4 + 2 + 8 * 7 + 1 + 8 + f.memory_bytes() + 8);
    /// assert_eq!(LshBloom::from_bytes(&bytes)?, f);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::with_capacity(MAGIC, VERSION, self.memory_bytes() + 96);
        w.u64(self.params.bands() as u64);
        w.u64(self.params.rows() as u64);
        w.u64(self.bits);
        w.u64(u64::from(self.hashes));
        w.u64(self.capacity);
        w.u64(self.inserted);
        w.u8(if self.scheme.is_some() { HAS_SCHEME } else { 0 });
        w.u64(self.scheme.map_or(0, SchemeId::as_u64));
        w.u64_slice(&self.filter);
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for bytes that are truncated, altered (checksum), of
    /// another kind or a newer version, or inconsistent: invalid bands or rows, 0 bits
    /// or more than [`MAX_BLOOM_BITS`] in all, probes outside `1..=`[`MAX_BLOOM_HASHES`],
    /// capacity 0, unknown flags, documents without a scheme, a word count that does
    /// not match the shape (checked against the bytes that remain before allocating),
    /// bits set beyond a filter's end, trailing bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ErrorKind;
    /// use near_dup::lsh::{LshBloom, LshParams};
    /// let bytes = LshBloom::new(LshParams::new(2, 2)?, 100, 0.01)?.to_bytes();
    /// let err = LshBloom::from_bytes(&bytes[..bytes.len() - 3]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::CorruptData);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let bands = usize::try_from(r.u64()?).map_err(|_| corrupt("bands"))?;
        let rows = usize::try_from(r.u64()?).map_err(|_| corrupt("rows"))?;
        let params = LshParams::new(bands, rows).map_err(corrupt)?;
        let bits = r.u64()?;
        if bits == 0 || bits.saturating_mul(bands as u64) > MAX_BLOOM_BITS {
            return Err(corrupt(format_args!(
                "{bits} bits per band over {bands} bands"
            )));
        }
        let hashes = u32::try_from(r.u64()?)
            .ok()
            .filter(|h| (1..=MAX_BLOOM_HASHES).contains(h))
            .ok_or_else(|| corrupt("probe count"))?;
        let capacity = r.u64()?;
        if capacity == 0 {
            return Err(corrupt("capacity 0"));
        }
        let inserted = r.u64()?;
        let (_, scheme) = FORM.flags_and_scheme(&mut r, HAS_SCHEME, HAS_SCHEME)?;
        if inserted > 0 && scheme.is_none() {
            return Err(corrupt("documents but no scheme"));
        }
        // `u64_vec` checks its length against the bytes that remain before allocating.
        let filter = r.u64_vec()?;
        r.finish()?;
        let words = usize::try_from(bits.div_ceil(64)).map_err(|_| corrupt("bits"))?;
        if Some(filter.len()) != words.checked_mul(bands) {
            return Err(corrupt(format_args!(
                "{} words for {bands} filters of {bits} bits",
                filter.len()
            )));
        }
        let tail = bits % 64;
        if tail != 0 {
            let mask = !0u64 << tail;
            if filter.chunks_exact(words).any(|f| f[words - 1] & mask != 0) {
                return Err(corrupt("bits set beyond a filter's end"));
            }
        }
        Ok(LshBloom {
            params,
            scheme,
            bits,
            hashes,
            capacity,
            inserted,
            words,
            filter,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_stay_in_range() {
        for bits in [1u64, 63, 64, 65, 9586, 1 << 36] {
            for key in [0u64, 1, u64::MAX, 0x9E37_79B9_7F4A_7C15] {
                assert!(positions(key, 32, bits).all(|p| p < bits));
            }
        }
    }
}

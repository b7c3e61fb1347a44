//! [`BBitSlots`]: the b-bit fields of many MinHash signatures in one flat array, for
//! a candidate filter that compares documents by number.

use ndd_core::{Error, SchemeId, Signature};

use crate::bbit::{check_bits, equal_fields, pack_into, packed_words};
use crate::signature::MinHashSignature;

/// The lowest `b` bits of every slot of many [`MinHashSignature`]s (Li and König,
/// *b-Bit Minwise Hashing*, WWW 2010), packed back to back: `⌈k·b/64⌉` words per
/// document in one `Vec<u64>`, documents numbered in the order they were pushed, no
/// allocation or header per document (8-bit fields of 128 slots: 128 bytes, against
/// 1,024 for the full signature).
///
/// [`raw_similarity`](Self::raw_similarity) is the fraction of equal fields,
/// uncorrected. Two slots holding the same minimum have equal fields, so it is never
/// below the fraction of equal slots of the full signatures (the MinHash estimate):
/// truncation only adds agreements, by `(1 − J)/2^b` on average. That makes it a safe
/// filter in front of an exact measure (a pair the full estimate passes, the fields
/// pass too; what they pass beyond it the exact measure decides). As an estimate of
/// its own use [`BBitSignature`](crate::BBitSignature)'s corrected one.
///
/// # Example
///
/// ```
/// use near_dup::Sketcher;
/// use near_dup::minhash::{BBitSlots, MinHasher};
/// let h = MinHasher::new(128)?;
/// let (a, b) = (h.sketch_features(0..1000), h.sketch_features(100..1100));
/// let mut store = BBitSlots::new(8, 128)?;
/// assert_eq!(store.push(&a)?, 0);
/// assert_eq!(store.push(&b)?, 1);
/// assert_eq!(store.memory_bytes(), 2 * 128);
/// let full = a.matches(&b)?;
/// assert!(store.matches(0, 1) >= full); // truncation only adds agreements
/// assert_eq!(store.raw_similarity(0, 0), 1.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BBitSlots {
    bits: u32,
    k: usize,
    /// Words per document.
    stride: usize,
    scheme: Option<SchemeId>,
    words: Vec<u64>,
}

impl BBitSlots {
    /// An empty store of `bits`-bit fields of `k`-slot signatures.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `bits` is not in `1..=64`, `k` is 0, or `k · bits`
    /// overflows.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::BBitSlots;
    /// assert!(BBitSlots::new(8, 128).is_ok());
    /// assert!(BBitSlots::new(0, 128).is_err());
    /// assert!(BBitSlots::new(8, 0).is_err());
    /// ```
    pub fn new(bits: u32, k: usize) -> Result<Self, Error> {
        check_bits(bits)?;
        if k == 0 {
            return Err(Error::invalid_parameter("k", "must be at least 1"));
        }
        let stride = packed_words(k, bits)?;
        Ok(BBitSlots {
            bits,
            k,
            stride,
            scheme: None,
            words: Vec::new(),
        })
    }

    /// Makes room for `documents` more documents (a hint: a reservation that fails is
    /// dropped and the store grows on demand).
    ///
    /// # Example
    ///
    /// ```
    /// let mut store = near_dup::minhash::BBitSlots::new(8, 128)?;
    /// store.reserve(1000);
    /// assert!(store.memory_bytes() >= 128 * 1000);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn reserve(&mut self, documents: usize) {
        if let Some(n) = documents.checked_mul(self.stride) {
            let _ = self.words.try_reserve_exact(n);
        }
    }

    /// Appends the fields of `sig`; returns its document number (0 for the first).
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when `sig` does not have `k` slots;
    /// [`Error::Incompatible`] when its scheme differs from the first pushed one's.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{BBitSlots, MinHasher};
    /// let mut store = BBitSlots::new(4, 16)?;
    /// assert_eq!(store.push(&MinHasher::new(16)?.sketch_features([1, 2]))?, 0);
    /// assert!(store.push(&MinHasher::new(32)?.sketch_features([1, 2])).is_err());
    /// assert!(store.push(&MinHasher::builder().num_hashes(16).seed(9).build()?.sketch_features([1])).is_err());
    /// assert_eq!(store.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn push(&mut self, sig: &MinHashSignature) -> Result<usize, Error> {
        let values = sig.values();
        Error::check_lengths(self.k, values.len())?;
        if let Some(scheme) = self.scheme {
            Error::check_schemes(scheme, sig.scheme())?;
        }
        self.scheme = Some(sig.scheme());
        let doc = self.len();
        let start = self.words.len();
        self.words.resize(start + self.stride, 0);
        pack_into(values, self.bits, &mut self.words[start..]);
        Ok(doc)
    }

    /// The number of documents stored.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::BBitSlots::new(8, 64)?.len(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.words.len() / self.stride
    }

    /// Whether no document is stored.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::minhash::BBitSlots::new(8, 64)?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The packed fields of document `doc` (empty when `doc` is not stored), laid out
    /// as [`BBitSignature::words`](crate::BBitSignature::words).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{BBitSignature, BBitSlots, MinHasher};
    /// let sig = MinHasher::new(100)?.sketch_features([1, 2, 3]);
    /// let mut store = BBitSlots::new(3, 100)?;
    /// store.push(&sig)?;
    /// assert_eq!(store.fields(0), BBitSignature::from_minhash(&sig, 3)?.words());
    /// assert!(store.fields(1).is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fields(&self, doc: usize) -> &[u64] {
        let start = doc.saturating_mul(self.stride);
        self.words
            .get(start..start.saturating_add(self.stride))
            .unwrap_or(&[])
    }

    /// The number of slots whose fields agree in documents `a` and `b` (0 when either
    /// is not stored).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{BBitSlots, MinHasher};
    /// let h = MinHasher::new(64)?;
    /// let mut store = BBitSlots::new(16, 64)?;
    /// store.push(&h.sketch_features(0..100))?;
    /// store.push(&h.sketch_features(0..100))?;
    /// assert_eq!(store.matches(0, 1), 64);
    /// assert_eq!(store.matches(0, 2), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn matches(&self, a: usize, b: usize) -> usize {
        let (x, y) = (self.fields(a), self.fields(b));
        if x.is_empty() || y.is_empty() {
            return 0;
        }
        equal_fields(x, y, self.k, self.bits)
    }

    /// `matches(a, b) / k`: the fraction of equal fields, never below the fraction of
    /// equal slots of the two full signatures (see the type's documentation).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{BBitSlots, MinHasher};
    /// let h = MinHasher::new(128)?;
    /// let (a, b) = (h.sketch_features(0..500), h.sketch_features(250..750));
    /// let mut store = BBitSlots::new(8, 128)?;
    /// store.push(&a)?;
    /// store.push(&b)?;
    /// assert!(store.raw_similarity(0, 1) >= a.matches(&b)? as f64 / 128.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn raw_similarity(&self, a: usize, b: usize) -> f64 {
        self.matches(a, b) as f64 / self.k as f64
    }

    /// The bits kept per slot.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::BBitSlots::new(8, 64)?.bits_per_slot(), 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bits_per_slot(&self) -> u32 {
        self.bits
    }

    /// Bytes allocated for the fields (capacity, so growth slack shows).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let mut store = near_dup::minhash::BBitSlots::new(16, 128)?;
    /// store.reserve(10);
    /// assert_eq!(store.memory_bytes(), 10 * 256);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// Bytes per document of the fields: `8 · ⌈k·b/64⌉`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::minhash::BBitSlots::new(8, 128)?.bytes_per_document(), 128);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bytes_per_document(&self) -> usize {
        self.stride * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MinHasher;
    use ndd_core::Sketcher;

    /// `n` signatures of `k` values of the features `i·step .. i·step + len`: pairs of
    /// every overlap.
    fn overlapping(k: usize, n: u64, step: u64, len: u64) -> Result<Vec<MinHashSignature>, Error> {
        let h = MinHasher::new(k)?;
        Ok((0..n)
            .map(|i| h.sketch_features(i * step..i * step + len))
            .collect())
    }

    /// The `bits`-bit fields of `sigs`, in order.
    fn store_of(sigs: &[MinHashSignature], bits: u32, k: usize) -> Result<BBitSlots, Error> {
        let mut store = BBitSlots::new(bits, k)?;
        for s in sigs {
            store.push(s)?;
        }
        Ok(store)
    }

    /// `MinHashSignature::field_matches` counts what the store counts, at every width,
    /// and both equal the definition: slots whose values agree modulo `2^bits`.
    #[test]
    fn field_matches_count_what_the_store_counts() -> Result<(), Error> {
        let sigs = overlapping(40, 12, 30, 300)?;
        for bits in 1..=64u32 {
            let store = store_of(&sigs, bits, 40)?;
            let modulus = 1u128 << bits;
            for i in 0..sigs.len() {
                for j in 0..=i {
                    let (a, b) = (sigs[i].values(), sigs[j].values());
                    let definition = a
                        .iter()
                        .zip(b)
                        .filter(|(x, y)| u128::from(**x) % modulus == u128::from(**y) % modulus)
                        .count();
                    assert_eq!(
                        sigs[i].field_matches(&sigs[j], bits)?,
                        definition,
                        "{bits} {i} {j}"
                    );
                    assert_eq!(store.matches(i, j), definition, "{bits} {i} {j}");
                }
            }
        }
        assert!(sigs[0].field_matches(&sigs[1], 65).is_err());
        assert!(
            sigs[0]
                .field_matches(&MinHasher::new(41)?.sketch_features([1]), 8)
                .is_err()
        );
        Ok(())
    }

    /// Truncation never loses an agreement: over pairs of every overlap, the b-bit
    /// count is at least the full count, for every width.
    #[test]
    fn fields_agree_at_least_where_slots_agree() -> Result<(), Error> {
        let sigs = overlapping(128, 20, 25, 400)?;
        for bits in [1, 2, 3, 8, 16, 32, 64] {
            let store = store_of(&sigs, bits, 128)?;
            for i in 0..sigs.len() {
                for j in 0..i {
                    let full = sigs[i].matches(&sigs[j])?;
                    assert!(store.matches(i, j) >= full, "bits {bits}, pair {i} {j}");
                    if bits == 64 {
                        assert_eq!(store.matches(i, j), full);
                    }
                }
            }
        }
        Ok(())
    }

    /// The store's fields are those of `BBitSignature`, so its count equals that type's.
    #[test]
    fn matches_equal_bbit_signature_matches() -> Result<(), Error> {
        let h = MinHasher::new(100)?;
        let (a, b) = (h.sketch_features(0..300), h.sketch_features(150..450));
        for bits in [1, 5, 8, 16] {
            let mut store = BBitSlots::new(bits, 100)?;
            store.push(&a)?;
            store.push(&b)?;
            let (pa, pb) = (
                crate::BBitSignature::from_minhash(&a, bits)?,
                crate::BBitSignature::from_minhash(&b, bits)?,
            );
            assert_eq!(store.matches(0, 1), pa.matches(&pb)?);
        }
        // Every field holds its slot's low bits, whatever the width.
        for bits in [1, 2, 3, 4, 8, 16, 32, 63, 64] {
            let packed = crate::BBitSignature::from_minhash(&a, bits)?;
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            for (i, v) in a.values().iter().enumerate() {
                assert_eq!(packed.field(i), Some(v & mask), "bits {bits}, slot {i}");
            }
        }
        Ok(())
    }

    /// 8-bit fields of unrelated documents agree about 1/256 of the time beyond the
    /// slots that agree: the filter's inflation is small.
    #[test]
    fn eight_bit_inflation_is_about_one_in_256() -> Result<(), Error> {
        let h = MinHasher::new(128)?;
        let mut store = BBitSlots::new(8, 128)?;
        let n = 200usize;
        for i in 0..n as u64 {
            store.push(&h.sketch_features(i * 10_000..i * 10_000 + 300))?;
        }
        let (mut agree, mut pairs) = (0usize, 0usize);
        for i in 0..n {
            for j in 0..i {
                agree += store.matches(i, j);
                pairs += 1;
            }
        }
        let rate = agree as f64 / (pairs * 128) as f64;
        assert!((rate - 1.0 / 256.0).abs() < 0.001, "rate {rate}");
        Ok(())
    }
}

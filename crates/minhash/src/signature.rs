//! [`MinHashSignature`]: k slot values and the Jaccard estimator of Gambosi's near-duplicate detection slides (after Manning and Schütze).

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{Error, Estimate, SchemeId, Signature, SlotSignature};

/// The value of a slot that saw no feature (the signature of an empty document has
/// every slot at `EMPTY`).
///
/// # Example
///
/// ```
/// use near_dup::DocSketcher;
/// let sig = near_dup::minhash::MinHasher::new(8)?.sketch("");
/// assert!(sig.values().iter().all(|&v| v == near_dup::minhash::EMPTY));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const EMPTY: u64 = u64::MAX;

const MAGIC: [u8; 4] = *b"MHS1";
const VERSION: u16 = 1;

/// A MinHash signature: `k` slot values, each the minimum of one hash function over
/// the document's features (or, for one-permutation hashing, of one bin).
///
/// Two signatures of the same scheme agree in slot `i` with probability equal to the
/// Jaccard coefficient `J = |A ∩ B| / |A ∪ B|` of the documents' feature sets, so the
/// fraction of agreeing slots `p̂ = r / k` is an unbiased estimate of `J` with standard
/// error `sqrt(p̂(1 − p̂) / k)` (Gambosi, *Near duplicate detection*, course slides,
/// Gambosi's near-duplicate detection slides (after Manning and Schütze), "Detecting near-duplicates from sketches"). More slots buy a smaller
/// error: at `J = 0.8`, `k = 128` gives ±0.035, `k = 512` gives ±0.018.
///
/// The empty document's signature has every slot at [`EMPTY`]: two empty documents
/// estimate 1 (as the exact Jaccard of two empty sets does in [`ndd_core::jaccard`]),
/// an empty and a non-empty document estimate 0.
///
/// # Example
///
/// ```
/// use near_dup::minhash::MinHasher;
/// use near_dup::{DocSketcher, Signature};
///
/// let hasher = MinHasher::new(128)?; // word 3-gram shingles, one-permutation hashing
/// let a = hasher.sketch("the quick brown fox jumps over the lazy dog near the river bank");
/// let b = hasher.sketch("the quick brown fox jumps over the lazy dog near the river bend");
/// let est = a.similarity(&b)?;
/// let (lo, hi) = est.interval(0.95)?;
/// assert!(lo <= est.value() && est.value() <= hi);
/// assert!(est.value() > 0.5); // 10 of 12 distinct 3-grams shared (J = 0.83)
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MinHashSignature {
    scheme: SchemeId,
    values: Vec<u64>,
}

impl MinHashSignature {
    /// Wraps slot values computed elsewhere (for example read from a column store),
    /// stamped with the scheme that produced them.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, Signature};
    /// use near_dup::minhash::MinHashSignature;
    /// let s = SchemeId::new("my-minhash").finish();
    /// let a = MinHashSignature::from_values(s, vec![1, 2, 3, 4])?;
    /// let b = MinHashSignature::from_values(s, vec![1, 2, 9, 9])?;
    /// assert_eq!(a.similarity(&b)?.value(), 0.5);
    /// assert!(MinHashSignature::from_values(s, vec![]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `values` is empty.
    pub fn from_values(scheme: SchemeId, values: Vec<u64>) -> Result<Self, Error> {
        if values.is_empty() {
            return Err(Error::invalid_parameter(
                "values",
                "a signature has at least one slot",
            ));
        }
        Ok(MinHashSignature { scheme, values })
    }

    pub(crate) fn empty(scheme: SchemeId, k: usize) -> Self {
        MinHashSignature {
            scheme,
            values: vec![EMPTY; k],
        }
    }

    pub(crate) fn values_mut(&mut self) -> &mut Vec<u64> {
        &mut self.values
    }

    pub(crate) fn set_scheme(&mut self, scheme: SchemeId) {
        self.scheme = scheme;
    }

    /// The slot values.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::minhash::MinHasher::new(64)?;
    /// assert_eq!(h.sketch_features([1, 2, 3]).values().len(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The number of slots `k`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::minhash::MinHasher::new(32)?;
    /// assert_eq!(h.sketch_features([7]).num_values(), 32);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_values(&self) -> usize {
        self.values.len()
    }

    /// Whether this is the signature of a document without features.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{DocSketcher, Sketcher};
    /// let h = near_dup::minhash::MinHasher::new(16)?;
    /// assert!(h.sketch("").is_empty_document());
    /// assert!(!h.sketch_features([1]).is_empty_document());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty_document(&self) -> bool {
        self.values.iter().all(|&v| v == EMPTY)
    }

    /// The number of slots in which the two signatures agree (`r` in Gambosi's near-duplicate detection slides (after Manning and Schütze)).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ (another `k`, seed, scheme or
    /// feature extraction); [`Error::LengthMismatch`] when values were wrapped with
    /// different lengths under one scheme.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let h = near_dup::minhash::MinHasher::new(64)?;
    /// let a = h.sketch_features(0..100);
    /// assert_eq!(a.matches(&a)?, 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn matches(&self, other: &Self) -> Result<usize, Error> {
        self.check_compatible(other)?;
        Error::check_lengths(self.values.len(), other.values.len())?;
        Ok(equal_slots(&self.values, &other.values))
    }

    /// The versioned byte form: magic, version, scheme, `k`, the values, checksum
    /// (see [`ndd_core::codec`]); `8k + 30` bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{MinHasher, MinHashSignature};
    /// let sig = MinHasher::new(128)?.sketch_features([1, 2, 3]);
    /// let bytes = sig.to_bytes();
    /// assert_eq!(bytes.len(), 8 * 128 + 30);
    /// assert_eq!(MinHashSignature::from_bytes(&bytes)?, sig);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(MAGIC, VERSION);
        w.u64(self.scheme.as_u64());
        w.u64_slice(&self.values);
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::MinHashSignature;
    /// assert!(MinHashSignature::from_bytes(b"not a signature").is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let scheme = SchemeId::from_u64(r.u64()?);
        let values = r.u64_vec()?;
        r.finish()?;
        if values.is_empty() {
            return Err(Error::corrupt_data(
                "a MinHash signature has at least one slot",
            ));
        }
        Ok(MinHashSignature { scheme, values })
    }
}

/// The estimate `r / k` with standard error `sqrt(p̂(1 − p̂) / k)` (Gambosi's near-duplicate detection slides, after Manning and Schütze).
pub(crate) fn estimate_from_matches(matches: usize, k: usize) -> Estimate {
    let kf = k as f64;
    let p = matches as f64 / kf;
    let se = (p * (1.0 - p) / kf).sqrt();
    // `p` is in [0, 1] and `se` finite, so `Estimate::new` cannot fail.
    Estimate::new(p, se).unwrap_or(Estimate::exact(p))
}

impl Signature for MinHashSignature {
    #[inline]
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// The Jaccard estimate `r / k` with its standard error.
    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        let r = self.matches(other)?;
        Ok(estimate_from_matches(r, self.values.len()))
    }
}

impl SlotSignature for MinHashSignature {
    #[inline]
    fn slots(&self) -> &[u64] {
        &self.values
    }
}

impl ndd_core::codec::ByteForm for MinHashSignature {
    fn to_bytes(&self) -> Vec<u8> {
        MinHashSignature::to_bytes(self)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        MinHashSignature::from_bytes(bytes)
    }
}

/// The number of positions at which `a` and `b` hold the same value (over the shorter).
pub(crate) fn equal_slots(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

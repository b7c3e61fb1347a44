//! [`Fingerprinter64`]: SimHash as 64-bit `u64` fingerprints, with no `Option` to
//! unwrap.

use ndd_core::{DocSketcher, Error, FeatureExtractor};
use ndd_shingle::WordShingler;

use crate::SimHasher;

/// A [`SimHasher`] of exactly 64 bits whose fingerprints are plain `u64` values:
/// Manku, Jain and Das Sarma's 64-bit fingerprints ("Detecting near-duplicates for
/// web crawling", WWW 2007), ready for
/// [`HammingIndex`](https://docs.rs/ndd-index/latest/ndd_index/struct.HammingIndex.html) and
/// `(a ^ b).count_ones()`. The 64 bits are checked once, when it is made, so
/// [`fingerprint`](Self::fingerprint) cannot fail.
///
/// # Example
///
/// ```
/// use near_dup::simhash::Fingerprinter64;
/// let f = Fingerprinter64::new()?;
/// let a: u64 = f.fingerprint("the quick brown fox jumps over the lazy dog today");
/// let b: u64 = f.fingerprint("the quick brown fox jumps over the lazy dog today!");
/// assert_eq!((a ^ b).count_ones(), 0); // the same shingles after case and punctuation folding
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Fingerprinter64<E = WordShingler>(SimHasher<E>);

impl Fingerprinter64<WordShingler> {
    /// 64-bit SimHash over word 3-grams with the other settings at their defaults
    /// (as [`SimHasher::new(64)`](SimHasher::new)).
    ///
    /// # Errors
    ///
    /// None in practice (the defaults are valid); the `Result` is that of
    /// [`SimHasher::new`].
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::simhash::Fingerprinter64::new()?.hasher().bits(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new() -> Result<Self, Error> {
        Self::from_hasher(SimHasher::new(64)?)
    }
}

impl<E> Fingerprinter64<E> {
    /// The fingerprinter of a configured 64-bit `hasher` (any weighting, projection,
    /// seed and extractor).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `hasher` does not make 64-bit signatures.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::simhash::{Fingerprinter64, SimHasher};
    /// let h = SimHasher::builder().bits(64).seed(7).build()?;
    /// assert!(Fingerprinter64::from_hasher(h).is_ok());
    /// assert!(Fingerprinter64::from_hasher(SimHasher::new(128)?).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_hasher(hasher: SimHasher<E>) -> Result<Self, Error> {
        if hasher.bits() != 64 {
            return Err(Error::invalid_parameter(
                "bits",
                format!(
                    "a 64-bit fingerprint needs a 64-bit SimHasher, got {}",
                    hasher.bits()
                ),
            ));
        }
        Ok(Fingerprinter64(hasher))
    }

    /// The underlying hasher (its scheme, weighting and seed).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::simhash::Fingerprinter64::new()?.hasher().seed(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn hasher(&self) -> &SimHasher<E> {
        &self.0
    }
}

impl<E: FeatureExtractor> Fingerprinter64<E> {
    /// The 64-bit fingerprint of `doc`: the same bits as
    /// [`SimHashSignature::as_u64`](crate::SimHashSignature::as_u64) of the hasher's
    /// signature.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::DocSketcher;
    /// let f = near_dup::simhash::Fingerprinter64::new()?;
    /// let doc = "a short note on the new parking rules downtown";
    /// assert_eq!(Some(f.fingerprint(doc)), f.hasher().sketch(doc).as_u64());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fingerprint(&self, doc: &str) -> u64 {
        // 64 bits were checked when `self` was made: exactly one word.
        self.0.sketch(doc).words().first().copied().unwrap_or(0)
    }

    /// The fingerprints of `docs`, in order.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::simhash::Fingerprinter64::new()?;
    /// let fps = f.fingerprints(&["one two three four five", "one two three four five"]);
    /// assert_eq!(fps[0], fps[1]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fingerprints<D: AsRef<str>>(&self, docs: &[D]) -> Vec<u64> {
        docs.iter().map(|d| self.fingerprint(d.as_ref())).collect()
    }
}

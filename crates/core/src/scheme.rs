//! [`SchemeId`]: the fingerprint of everything that determines a signature's values.

use std::fmt;

use crate::hash::{mix64, stable_hash64};

/// A 64-bit fingerprint of an algorithm and all its parameters (sizes, seed, feature
/// extraction, format version).
///
/// Two signatures are comparable exactly when their `SchemeId`s are equal; comparing
/// others is an [`Error::Incompatible`](crate::Error::Incompatible), never a silent wrong
/// number. Built with [`SchemeId::new`] from an algorithm tag, then one
/// [`with`](SchemeBuilder::with) per parameter, in a fixed order. The value is stable:
/// it uses the specified hash of [`crate::hash`].
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// let words5 = SchemeId::new("word-shingles").with(5).finish();
/// let words3 = SchemeId::new("word-shingles").with(3).finish();
/// assert_ne!(words5, words3);
/// // A sketch over those features folds the feature scheme into its own.
/// let minhash = SchemeId::new("minhash").with(128).with(42).with_scheme(words5).finish();
/// assert_ne!(minhash, SchemeId::new("minhash").with(128).with(42).with_scheme(words3).finish());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SchemeId(u64);

impl SchemeId {
    /// Starts a scheme fingerprint for the algorithm named `tag`.
    ///
    /// # Example
    ///
    /// ```
    /// let id = near_dup::SchemeId::new("exact-set").finish();
    /// assert_eq!(id, near_dup::SchemeId::new("exact-set").finish());
    /// ```
    #[allow(clippy::new_ret_no_self)] // `new` starts the builder: SchemeId::new("x").with(1).finish()
    pub fn new(tag: &str) -> SchemeBuilder {
        SchemeBuilder {
            acc: stable_hash64(tag.as_bytes(), 0x6E64_645F_7363_6865),
        }
    }

    /// The fingerprint as a plain integer (for storage and shuffles).
    ///
    /// # Example
    ///
    /// ```
    /// let id = near_dup::SchemeId::new("x").finish();
    /// assert_eq!(near_dup::SchemeId::from_u64(id.as_u64()), id);
    /// ```
    #[must_use]
    pub const fn as_u64(self) -> u64 {
        self.0
    }

    /// Rebuilds a `SchemeId` from [`as_u64`](Self::as_u64) (when deserializing).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::SchemeId::from_u64(5).as_u64(), 5);
    /// ```
    #[must_use]
    pub const fn from_u64(value: u64) -> Self {
        SchemeId(value)
    }
}

impl fmt::Debug for SchemeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SchemeId({:016x})", self.0)
    }
}

impl fmt::Display for SchemeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Accumulates parameters into a [`SchemeId`]; made by [`SchemeId::new`].
///
/// # Example
///
/// ```
/// let id = near_dup::SchemeId::new("simhash").with(64).with_f64(0.5).finish();
/// assert_ne!(id, near_dup::SchemeId::new("simhash").with(64).with_f64(0.25).finish());
/// ```
#[derive(Debug, Clone, Copy)]
#[must_use]
pub struct SchemeBuilder {
    acc: u64,
}

impl SchemeBuilder {
    /// Folds in an integer parameter.
    ///
    /// # Example
    ///
    /// ```
    /// let a = near_dup::SchemeId::new("t").with(1).with(2).finish();
    /// let b = near_dup::SchemeId::new("t").with(2).with(1).finish();
    /// assert_ne!(a, b); // order matters
    /// ```
    pub fn with(self, value: u64) -> Self {
        SchemeBuilder {
            acc: mix64(self.acc.rotate_left(23) ^ mix64(value.wrapping_add(0x9E37_79B9_7F4A_7C15))),
        }
    }

    /// Folds in a real parameter by its bit pattern.
    ///
    /// # Example
    ///
    /// ```
    /// let a = near_dup::SchemeId::new("t").with_f64(0.2).finish();
    /// assert_eq!(a, near_dup::SchemeId::new("t").with_f64(0.2).finish());
    /// ```
    pub fn with_f64(self, value: f64) -> Self {
        self.with(value.to_bits())
    }

    /// Folds in a string parameter (a stopword list name, a compressor name).
    ///
    /// # Example
    ///
    /// ```
    /// let a = near_dup::SchemeId::new("t").with_str("snappy").finish();
    /// assert_ne!(a, near_dup::SchemeId::new("t").with_str("lz4").finish());
    /// ```
    pub fn with_str(self, value: &str) -> Self {
        self.with(stable_hash64(value.as_bytes(), 0))
    }

    /// Folds in another scheme (the feature extractor under a sketch).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// let f = SchemeId::new("features").finish();
    /// assert_ne!(SchemeId::new("s").with_scheme(f).finish(), SchemeId::new("s").finish());
    /// ```
    pub fn with_scheme(self, scheme: SchemeId) -> Self {
        self.with(scheme.0)
    }

    /// The finished fingerprint.
    ///
    /// # Example
    ///
    /// ```
    /// let id: near_dup::SchemeId = near_dup::SchemeId::new("t").finish();
    /// println!("{id}");
    /// ```
    #[must_use]
    pub fn finish(self) -> SchemeId {
        SchemeId(self.acc)
    }
}

//! Super-shingles: a MinHash signature's `k` values grouped into `m'` disjoint groups,
//! each group fingerprinted (Hajishirzi, Yih and Kołcz, SIGIR 2010, §2.1), and the "1-Shingles" rule.

use ndd_core::hash::hash_u64s;
use ndd_core::{Error, SchemeId, Signature};

use crate::MinHashSignature;
use crate::signature::equal_slots;

/// The super-shingles of one document: `m'` fingerprints, fingerprint `j` hashing the
/// `j`-th group of `k / m'` consecutive MinHash values with its own hash function
/// (XXH3-64 of the values' little-endian bytes, seeded with `j`; see
/// [`ndd_core::hash::hash_u64s`]).
///
/// From Hajishirzi, Yih and Kołcz, *Adaptive near-duplicate detection via similarity
/// learning*, SIGIR 2010, §2.1: "each m-dimensional vector can be further
/// mapped to a smaller set of super shingles by first separating the elements into m'
/// disjoint subsets of equal size and then fingerprinting each subset". Two documents
/// with Jaccard `J` share super-shingle `j` with probability `J^(k/m')`; the
/// "1-Shingles" rule ([`shares_any`](Self::shares_any)) declares near-duplicates when at
/// least one is shared, probability `1 − (1 − J^(k/m'))^m'` — a band of LSH, stored
/// compactly (Hajishirzi, Yih and Kołcz's (SIGIR 2010) experiments: 84 values into 6 super-shingles, 48 bytes).
///
/// # Example
///
/// ```
/// use near_dup::DocSketcher;
/// use near_dup::minhash::{MinHasher, SuperShingles};
///
/// let h = MinHasher::new(84)?;
/// let a = h.sketch("the same text twice is its own near-duplicate, whatever the length");
/// let b = h.sketch("the same text twice is its own near-duplicate, whatever the length");
/// let c = h.sketch("an unrelated sentence about something else entirely, with other words");
/// let (sa, sb, sc) = (SuperShingles::new(&a, 6)?, SuperShingles::new(&b, 6)?, SuperShingles::new(&c, 6)?);
/// assert_eq!(sa.values().len(), 6);
/// assert!(sa.shares_any(&sb)?);
/// assert!(!sa.shares_any(&sc)?);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SuperShingles {
    scheme: SchemeId,
    rows: usize,
    values: Vec<u64>,
}

impl SuperShingles {
    /// Groups `signature`'s `k` values into `groups` super-shingles of `k / groups`
    /// values each.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `groups` is 0 or does not divide `k`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{MinHasher, SuperShingles};
    /// let sig = MinHasher::new(84)?.sketch_features(0..50);
    /// assert!(SuperShingles::new(&sig, 5).is_err()); // 84 is not a multiple of 5
    /// assert_eq!(SuperShingles::new(&sig, 7)?.rows_per_group(), 12);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(signature: &MinHashSignature, groups: usize) -> Result<Self, Error> {
        let k = signature.num_values();
        if groups == 0 || k % groups != 0 {
            return Err(Error::invalid_parameter(
                "groups",
                format!("must divide the signature length {k} into equal groups, got {groups}"),
            ));
        }
        let rows = k / groups;
        let values = signature
            .values()
            .chunks_exact(rows)
            .enumerate()
            .map(|(j, group)| hash_u64s(group, j as u64))
            .collect();
        let scheme = SchemeId::new("super-shingles")
            .with(groups as u64)
            .with_scheme(signature.scheme())
            .finish();
        Ok(SuperShingles {
            scheme,
            rows,
            values,
        })
    }

    /// The super-shingle fingerprints, in group order.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(8)?.sketch_features([1, 2]);
    /// assert_eq!(near_dup::minhash::SuperShingles::new(&sig, 2)?.values().len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The number of MinHash values per super-shingle (`k / m'`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(12)?.sketch_features([1]);
    /// assert_eq!(near_dup::minhash::SuperShingles::new(&sig, 3)?.rows_per_group(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn rows_per_group(&self) -> usize {
        self.rows
    }

    /// The scheme: the MinHash scheme plus the number of groups.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// let sig = near_dup::minhash::MinHasher::new(12)?.sketch_features([1]);
    /// let a = near_dup::minhash::SuperShingles::new(&sig, 3)?;
    /// let b = near_dup::minhash::SuperShingles::new(&sig, 4)?;
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// The number of groups whose super-shingles are equal.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the two were built with different MinHash schemes
    /// or group counts.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{MinHasher, SuperShingles};
    /// let sig = MinHasher::new(12)?.sketch_features([1, 2, 3]);
    /// let s = SuperShingles::new(&sig, 3)?;
    /// assert_eq!(s.common(&s)?, 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn common(&self, other: &Self) -> Result<usize, Error> {
        Error::check_schemes(self.scheme, other.scheme)?;
        Ok(equal_slots(&self.values, &other.values))
    }

    /// The "1-Shingles" rule of Hajishirzi, Yih and Kołcz (SIGIR 2010, §4): near-duplicates when at least one
    /// super-shingle is shared.
    ///
    /// # Errors
    ///
    /// As [`common`](Self::common).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Sketcher;
    /// use near_dup::minhash::{MinHasher, SuperShingles};
    /// let h = MinHasher::new(12)?;
    /// let a = SuperShingles::new(&h.sketch_features(0..40), 3)?;
    /// let b = SuperShingles::new(&h.sketch_features(1000..1040), 3)?;
    /// assert!(!a.shares_any(&b)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn shares_any(&self, other: &Self) -> Result<bool, Error> {
        Ok(self.common(other)? > 0)
    }

    /// The probability that two documents of Jaccard `j` share at least one of `groups`
    /// super-shingles of `rows` values each: `1 − (1 − j^rows)^groups`.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::minhash::SuperShingles::match_probability(0.9, 14, 6);
    /// assert!((p - (1.0 - (1.0 - 0.9f64.powi(14)).powi(6))).abs() < 1e-12);
    /// ```
    #[must_use]
    pub fn match_probability(j: f64, rows: usize, groups: usize) -> f64 {
        let rows = i32::try_from(rows).unwrap_or(i32::MAX);
        let groups = i32::try_from(groups).unwrap_or(i32::MAX);
        1.0 - (1.0 - j.clamp(0.0, 1.0).powi(rows)).powi(groups)
    }
}

//! Feature value types: sets of feature hashes and sparse weighted vectors.

use crate::Error;

/// A feature with a real weight: one coordinate of a sparse document vector
/// (TF, TF-IDF or a learned weight of a k-gram, Hajishirzi, Yih and Kołcz (SIGIR 2010, section 3.1)).
///
/// # Example
///
/// ```
/// use near_dup::Weighted;
/// let w = Weighted::new(0xfeed, 2.5)?;
/// assert_eq!((w.feature, w.weight), (0xfeed, 2.5));
/// assert!(Weighted::new(1, f64::NAN).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weighted {
    /// The feature hash.
    pub feature: u64,
    /// Its weight (finite).
    pub weight: f64,
}

impl Weighted {
    /// A weighted feature.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `weight` is NaN or infinite.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::Weighted::new(7, f64::INFINITY).is_err());
    /// assert!(near_dup::Weighted::new(7, -1.0).is_ok()); // negative is allowed for cosine
    /// ```
    pub fn new(feature: u64, weight: f64) -> Result<Self, Error> {
        if !weight.is_finite() {
            return Err(Error::invalid_input(format!(
                "weight of feature {feature:#x} is {weight}"
            )));
        }
        Ok(Weighted { feature, weight })
    }
}

/// A sorted, duplicate-free set of 64-bit feature hashes: the exact representation
/// of a document as a set of shingles ("represent each document as a set
/// of shingles").
///
/// Exact measures ([`crate::jaccard`], [`crate::containment`]) run as a merge of two
/// sorted slices, with no hashing in the loop.
///
/// # Example
///
/// ```
/// use near_dup::FeatureSet;
/// let set = FeatureSet::from_unsorted(vec![5, 1, 5, 3]);
/// assert_eq!(set.as_slice(), &[1, 3, 5]);
/// assert!(set.contains(3));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FeatureSet {
    items: Vec<u64>,
}

impl FeatureSet {
    /// Sorts and deduplicates `features` (reusing the vector's storage).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::FeatureSet::from_unsorted(vec![2, 2, 1]);
    /// assert_eq!(s.len(), 2);
    /// ```
    #[must_use]
    pub fn from_unsorted(mut features: Vec<u64>) -> Self {
        Self::sort_and_dedup(&mut features);
        FeatureSet { items: features }
    }

    /// Sorts and deduplicates `features` in place: the items of
    /// [`from_unsorted`](Self::from_unsorted)'s set, left in the caller's vector (a
    /// scratch buffer whose set is copied elsewhere or only counted).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureSet;
    /// let mut scratch = vec![5, 1, 5, 3];
    /// FeatureSet::sort_and_dedup(&mut scratch);
    /// assert_eq!(scratch, [1, 3, 5]);
    /// assert_eq!(FeatureSet::from_unsorted(vec![5, 1, 5, 3]).as_slice(), &scratch[..]);
    /// ```
    pub fn sort_and_dedup(features: &mut Vec<u64>) {
        features.sort_unstable();
        features.dedup();
    }

    /// Wraps a vector that is already sorted and duplicate-free.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the first position that is not strictly
    /// increasing.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::FeatureSet::from_sorted(vec![1, 2, 9]).is_ok());
    /// assert!(near_dup::FeatureSet::from_sorted(vec![1, 1]).is_err());
    /// ```
    pub fn from_sorted(features: Vec<u64>) -> Result<Self, Error> {
        if let Some(i) = features.windows(2).position(|w| w[0] >= w[1]) {
            return Err(Error::invalid_input(format!(
                "features are not strictly increasing at index {}",
                i + 1
            )));
        }
        Ok(FeatureSet { items: features })
    }

    /// Replaces the contents with `features`, sorted and deduplicated, reusing this
    /// set's allocation.
    ///
    /// # Example
    ///
    /// ```
    /// let mut s = near_dup::FeatureSet::default();
    /// s.assign_from(&[3, 1, 3]);
    /// assert_eq!(s.as_slice(), &[1, 3]);
    /// ```
    pub fn assign_from(&mut self, features: &[u64]) {
        self.items.clear();
        self.items.extend_from_slice(features);
        self.items.sort_unstable();
        self.items.dedup();
    }

    /// The features in increasing order.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::FeatureSet::from_unsorted(vec![9, 4]).as_slice(), &[4, 9]);
    /// ```
    #[must_use]
    pub fn as_slice(&self) -> &[u64] {
        &self.items
    }

    /// The number of distinct features.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::FeatureSet::from_unsorted(vec![1, 1, 2]).len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the set has no features (an empty or too-short document).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::FeatureSet::default().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `feature` is in the set (binary search).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::FeatureSet::from_unsorted(vec![10, 20]);
    /// assert!(s.contains(20) && !s.contains(15));
    /// ```
    #[must_use]
    pub fn contains(&self, feature: u64) -> bool {
        self.items.binary_search(&feature).is_ok()
    }

    /// The underlying sorted vector.
    ///
    /// # Example
    ///
    /// ```
    /// let v: Vec<u64> = near_dup::FeatureSet::from_unsorted(vec![2, 1]).into_vec();
    /// assert_eq!(v, vec![1, 2]);
    /// ```
    #[must_use]
    pub fn into_vec(self) -> Vec<u64> {
        self.items
    }
}

impl FromIterator<u64> for FeatureSet {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        FeatureSet::from_unsorted(iter.into_iter().collect())
    }
}

/// A sparse real vector: features sorted by hash, each once, with finite weights
/// (Hajishirzi, Yih and Kołcz's (SIGIR 2010) real-valued k-gram vector; term-frequency vectors from multiset
/// shingling).
///
/// # Example
///
/// ```
/// use near_dup::{SparseVector, Weighted};
/// // Duplicate features are summed: a multiset of shingles becomes a TF vector.
/// let v = SparseVector::from_unsorted(vec![
///     Weighted::new(7, 1.0)?, Weighted::new(3, 2.0)?, Weighted::new(7, 1.0)?,
/// ]);
/// assert_eq!(v.entries(), &[Weighted::new(3, 2.0)?, Weighted::new(7, 2.0)?]);
/// assert_eq!(v.norm(), (4.0f64 + 4.0).sqrt());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseVector {
    entries: Vec<Weighted>,
}

impl SparseVector {
    /// Sorts by feature and sums the weights of repeated features. Since each
    /// [`Weighted`] is finite by construction, only a sum that overflows to infinity
    /// can break finiteness; such a sum saturates at `f64::MAX`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 0.5)?; 4]);
    /// assert_eq!(v.entries(), &[Weighted::new(1, 2.0)?]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn from_unsorted(mut entries: Vec<Weighted>) -> Self {
        entries.sort_unstable_by_key(|w| w.feature);
        let mut out: Vec<Weighted> = Vec::with_capacity(entries.len());
        for w in entries {
            match out.last_mut() {
                Some(last) if last.feature == w.feature => {
                    last.weight = (last.weight + w.weight).clamp(-f64::MAX, f64::MAX);
                }
                _ => out.push(w),
            }
        }
        SparseVector { entries: out }
    }

    /// A binary vector (weight 1 for every feature of a set).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{FeatureSet, SparseVector};
    /// let v = SparseVector::binary(&FeatureSet::from_unsorted(vec![4, 2]));
    /// assert_eq!(v.len(), 2);
    /// assert_eq!(v.entries()[0].weight, 1.0);
    /// ```
    #[must_use]
    pub fn binary(set: &FeatureSet) -> Self {
        SparseVector {
            entries: set
                .as_slice()
                .iter()
                .map(|&feature| Weighted {
                    feature,
                    weight: 1.0,
                })
                .collect(),
        }
    }

    /// The entries in increasing feature order.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::SparseVector::default().entries().is_empty());
    /// ```
    #[must_use]
    pub fn entries(&self) -> &[Weighted] {
        &self.entries
    }

    /// The number of non-zero coordinates stored.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::SparseVector::default().len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the vector has no entries.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::SparseVector::default().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The Euclidean norm `‖v‖`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 3.0)?, Weighted::new(2, 4.0)?]);
    /// assert_eq!(v.norm(), 5.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn norm(&self) -> f64 {
        self.norm_squared().sqrt()
    }

    /// The squared Euclidean norm `‖v‖² = v · v`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// let v = SparseVector::from_unsorted(vec![Weighted::new(1, 3.0)?, Weighted::new(2, 4.0)?]);
    /// assert_eq!(v.norm_squared(), 25.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn norm_squared(&self) -> f64 {
        self.entries.iter().map(|w| w.weight * w.weight).sum()
    }
}

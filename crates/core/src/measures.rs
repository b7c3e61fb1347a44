//! Exact similarity measures: the definitions every sketch estimates, and the oracles
//! they are tested against.
//!
//! Set measures take sorted, duplicate-free slices (a [`FeatureSet`]'s
//! [`as_slice`](FeatureSet::as_slice)) and run as one merge, with no hashing in the loop.
//! Vector measures take [`SparseVector`]s, which are sorted by construction.
//!
//! **Empty inputs.** Two empty inputs are identical and have similarity 1 (so that
//! `sim(x, x) = 1` for every `x`); an empty input against a non-empty one has
//! similarity 0. Containment of the empty set in anything is 1 (vacuously contained).
//! Vectors whose norm is zero count as empty.

use crate::{FeatureSet, SparseVector};

/// A similarity measure between two items of type `T`, with values in `[0, 1]` for
/// the measures of this crate (cosine of vectors with negative weights lies in
/// `[-1, 1]`).
///
/// Implemented by the unit structs [`Jaccard`], [`Containment`], [`Cosine`],
/// [`ExtendedJaccard`] and [`WeightedJaccard`], so code can be generic over the
/// measure (evaluation, verification of candidates).
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSet, Jaccard, Similarity};
/// fn score<M: Similarity<FeatureSet>>(m: &M, a: &FeatureSet, b: &FeatureSet) -> f64 {
///     m.similarity(a, b)
/// }
/// let a = FeatureSet::from_unsorted(vec![1, 2, 3]);
/// let b = FeatureSet::from_unsorted(vec![2, 3, 4]);
/// assert_eq!(score(&Jaccard, &a, &b), 0.5);
/// ```
pub trait Similarity<T: ?Sized> {
    /// The similarity of `a` and `b`.
    fn similarity(&self, a: &T, b: &T) -> f64;
}

impl<T: ?Sized, M: Similarity<T> + ?Sized> Similarity<T> for &M {
    #[inline]
    fn similarity(&self, a: &T, b: &T) -> f64 {
        (**self).similarity(a, b)
    }
}

/// Implements [`Similarity`] over `$input` for the measure `$measure` as `$body` of
/// the two inputs `$a` and `$b`.
macro_rules! similarity_by {
    ($measure:ty, $input:ty, |$a:ident, $b:ident| $body:expr) => {
        impl Similarity<$input> for $measure {
            #[inline]
            fn similarity(&self, $a: &$input, $b: &$input) -> f64 {
                $body
            }
        }
    };
}

/// `|A ∩ B|` of two sorted, duplicate-free slices, by merging.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::intersection_len(&[1, 3, 5, 7], &[3, 4, 5]), 2);
/// ```
#[must_use]
pub fn intersection_len(a: &[u64], b: &[u64]) -> usize {
    debug_assert!(a.windows(2).all(|w| w[0] < w[1]), "left set not sorted");
    debug_assert!(b.windows(2).all(|w| w[0] < w[1]), "right set not sorted");
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    n
}

/// The Jaccard coefficient `|A ∩ B| / |A ∪ B|` of two sorted, duplicate-free slices.
///
/// Gambosi's slides' worked example: on word bigrams, "Jack London traveled to Oakland" and
/// "Jack London traveled to the city of Oakland" share 3 of 8 distinct bigrams.
///
/// # Example
///
/// ```
/// // Bigrams as small integers: 1 "jack london", 2 "london traveled", 3 "traveled to",
/// // 4 "to oakland", 5 "to the", 6 "the city", 7 "city of", 8 "of oakland".
/// assert_eq!(near_dup::jaccard(&[1, 2, 3, 4], &[1, 2, 3, 5, 6, 7, 8]), 3.0 / 8.0);
/// assert_eq!(near_dup::jaccard(&[], &[]), 1.0);
/// ```
#[must_use]
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = intersection_len(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Containment of `a` in `b`: `|A ∩ B| / |A|` (Broder's resemblance's asymmetric
/// sibling: how much of `a` appears in `b`). 1 when `a` is empty.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::containment(&[1, 2], &[1, 2, 3, 4]), 1.0);
/// assert_eq!(near_dup::containment(&[1, 2, 3, 4], &[1, 2]), 0.5);
/// ```
#[must_use]
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() {
        return 1.0;
    }
    intersection_len(a, b) as f64 / a.len() as f64
}

/// The dot product of two sparse vectors (merge over sorted features).
///
/// # Example
///
/// ```
/// use near_dup::{dot, SparseVector, Weighted};
/// let a = SparseVector::from_unsorted(vec![Weighted::new(1, 2.0)?, Weighted::new(2, 1.0)?]);
/// let b = SparseVector::from_unsorted(vec![Weighted::new(1, 3.0)?, Weighted::new(3, 5.0)?]);
/// assert_eq!(dot(&a, &b), 6.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[must_use]
pub fn dot(a: &SparseVector, b: &SparseVector) -> f64 {
    let (a, b) = (a.entries(), b.entries());
    let (mut i, mut j, mut s) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].feature, b[j].feature);
        if x == y {
            s += a[i].weight * b[j].weight;
        }
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    s
}

/// Cosine similarity `v_p · v_q / (‖v_p‖ ‖v_q‖)` (Hajishirzi, Yih and Kołcz (SIGIR 2010), equation 2).
///
/// # Example
///
/// ```
/// use near_dup::{cosine, SparseVector, Weighted};
/// let a = SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?, Weighted::new(2, 1.0)?]);
/// let b = SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?]);
/// assert!((cosine(&a, &b) - 1.0 / 2f64.sqrt()).abs() < 1e-12);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[must_use]
pub fn cosine(a: &SparseVector, b: &SparseVector) -> f64 {
    let (na, nb) = (a.norm(), b.norm());
    match (na == 0.0, nb == 0.0) {
        (true, true) => 1.0,
        (true, false) | (false, true) => 0.0,
        (false, false) => (dot(a, b) / (na * nb)).clamp(-1.0, 1.0),
    }
}

/// Extended Jaccard `v_p · v_q / (‖v_p‖² + ‖v_q‖² − v_p · v_q)` (Hajishirzi, Yih and Kołcz (SIGIR 2010),
/// equation 3; Tanimoto's coefficient). Equals [`jaccard`] on binary vectors.
///
/// # Example
///
/// ```
/// use near_dup::{extended_jaccard, FeatureSet, SparseVector};
/// let a = SparseVector::binary(&FeatureSet::from_unsorted(vec![1, 2, 3]));
/// let b = SparseVector::binary(&FeatureSet::from_unsorted(vec![2, 3, 4]));
/// assert_eq!(extended_jaccard(&a, &b), 0.5);
/// ```
#[must_use]
pub fn extended_jaccard(a: &SparseVector, b: &SparseVector) -> f64 {
    let d = dot(a, b);
    let (na, nb) = (a.norm_squared(), b.norm_squared());
    let denom = na + nb - d;
    if na == 0.0 && nb == 0.0 {
        1.0
    } else if denom <= 0.0 {
        // Only reachable through rounding when a == b.
        1.0
    } else {
        d / denom
    }
}

/// Weighted (generalized) Jaccard `Σ min(a_i, b_i) / Σ max(a_i, b_i)`, what weighted
/// MinHash estimates. Negative weights count as 0.
///
/// # Example
///
/// ```
/// use near_dup::{weighted_jaccard, SparseVector, Weighted};
/// let a = SparseVector::from_unsorted(vec![Weighted::new(1, 2.0)?, Weighted::new(2, 1.0)?]);
/// let b = SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?, Weighted::new(3, 1.0)?]);
/// // min: 1 + 0 + 0 = 1; max: 2 + 1 + 1 = 4
/// assert_eq!(weighted_jaccard(&a, &b), 0.25);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[must_use]
pub fn weighted_jaccard(a: &SparseVector, b: &SparseVector) -> f64 {
    let (a, b) = (a.entries(), b.entries());
    let (mut i, mut j) = (0, 0);
    let (mut num, mut den) = (0.0f64, 0.0f64);
    while i < a.len() || j < b.len() {
        let x = a.get(i).map_or(u64::MAX, |w| w.feature);
        let y = b.get(j).map_or(u64::MAX, |w| w.feature);
        let wa = if x <= y && i < a.len() {
            a[i].weight.max(0.0)
        } else {
            0.0
        };
        let wb = if y <= x && j < b.len() {
            b[j].weight.max(0.0)
        } else {
            0.0
        };
        num += wa.min(wb);
        den += wa.max(wb);
        if x <= y && i < a.len() {
            i += 1;
        }
        if y <= x && j < b.len() {
            j += 1;
        }
    }
    if den == 0.0 { 1.0 } else { num / den }
}

/// The Jaccard coefficient as a [`Similarity`] over [`FeatureSet`]s; see [`jaccard`].
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSet, Jaccard, Similarity};
/// let a = FeatureSet::from_unsorted(vec![1, 2]);
/// assert_eq!(Jaccard.similarity(&a, &a), 1.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Jaccard;

similarity_by!(Jaccard, FeatureSet, |a, b| jaccard(
    a.as_slice(),
    b.as_slice()
));
similarity_by!(Jaccard, [u64], |a, b| jaccard(a, b));

/// Containment of the first set in the second as a [`Similarity`]; see
/// [`containment`]. Not symmetric.
///
/// # Example
///
/// ```
/// use near_dup::{Containment, FeatureSet, Similarity};
/// let small = FeatureSet::from_unsorted(vec![1]);
/// let big = FeatureSet::from_unsorted(vec![1, 2]);
/// assert_eq!(Containment.similarity(&small, &big), 1.0);
/// assert_eq!(Containment.similarity(&big, &small), 0.5);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Containment;

similarity_by!(Containment, FeatureSet, |a, b| containment(
    a.as_slice(),
    b.as_slice()
));

/// Cosine similarity as a [`Similarity`] over [`SparseVector`]s; see [`cosine`].
///
/// # Example
///
/// ```
/// use near_dup::{Cosine, FeatureSet, Similarity, SparseVector};
/// let v = SparseVector::binary(&FeatureSet::from_unsorted(vec![1, 2]));
/// assert!((Cosine.similarity(&v, &v) - 1.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cosine;

similarity_by!(Cosine, SparseVector, |a, b| cosine(a, b));

/// Extended Jaccard as a [`Similarity`] over [`SparseVector`]s; see
/// [`extended_jaccard`].
///
/// # Example
///
/// ```
/// use near_dup::{ExtendedJaccard, SparseVector, Similarity};
/// let empty = SparseVector::default();
/// assert_eq!(ExtendedJaccard.similarity(&empty, &empty), 1.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtendedJaccard;

similarity_by!(ExtendedJaccard, SparseVector, |a, b| extended_jaccard(a, b));

/// Weighted Jaccard as a [`Similarity`] over [`SparseVector`]s; see
/// [`weighted_jaccard`].
///
/// # Example
///
/// ```
/// use near_dup::{SparseVector, Similarity, Weighted, WeightedJaccard};
/// let a = SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?]);
/// let b = SparseVector::from_unsorted(vec![Weighted::new(1, 4.0)?]);
/// assert_eq!(WeightedJaccard.similarity(&a, &b), 0.25);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WeightedJaccard;

similarity_by!(WeightedJaccard, SparseVector, |a, b| weighted_jaccard(a, b));

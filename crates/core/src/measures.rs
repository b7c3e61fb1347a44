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
    // `common_unless_below` checks that both sets are sorted (debug builds).
    common_unless_below(a, b, 0).unwrap_or(0)
}

/// Block steps between two checks of [`common_unless_below`]'s bound.
const ROUND: usize = 16;

/// `|A ∩ B|` of two sorted, duplicate-free slices, or `None` as soon as it cannot
/// reach `need`.
///
/// The merge compares two values of each side with two of the other per step (four
/// comparisons the processor runs side by side) and moves past the pair whose last
/// value is smaller (both when equal), so it waits for one load every two values
/// where a one-element merge waits after every value. A value is compared only with
/// the other side's pair near it and each common value is counted once: at every
/// step no value before `a[i]` equals one from `b[j]` on that is not counted yet, and
/// the other way round, so what is left to count lies in `a[i..]` and `b[j..]` and is
/// at most the shorter of the two, the bound checked every [`ROUND`] steps.
#[inline]
fn common_unless_below(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    debug_assert!(a.windows(2).all(|w| w[0] < w[1]), "left set not sorted");
    debug_assert!(b.windows(2).all(|w| w[0] < w[1]), "right set not sorted");
    let (mut i, mut j, mut n) = (0, 0, 0);
    loop {
        let rest = (a.len() - i).min(b.len() - j);
        if n + rest < need {
            return None;
        }
        // Each step moves a side by at most 2, so `steps` steps stay in bounds.
        let steps = (rest / 2).min(ROUND);
        if steps == 0 {
            break;
        }
        for _ in 0..steps {
            let (x0, x1, y0, y1) = (a[i], a[i + 1], b[j], b[j + 1]);
            n += usize::from(x0 == y0)
                + usize::from(x0 == y1)
                + usize::from(x1 == y0)
                + usize::from(x1 == y1);
            i += 2 * usize::from(x1 <= y1);
            j += 2 * usize::from(y1 <= x1);
        }
    }
    // At most one value left on a side: the one-element merge.
    let (a, b) = (&a[i..], &b[j..]);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    (n >= need).then_some(n)
}

/// The least `k` in `0..=most` with `score(k) >= t`, for a `score` that does not
/// decrease as `k` grows, searched from `guess` (near it, the walk takes a step or
/// two); `None` when there is none (a NaN `t` included). Both scores it serves are at
/// most 1, so a `t` above 1 is answered at once.
fn least_reaching(most: usize, t: f64, guess: f64, score: impl Fn(usize) -> f64) -> Option<usize> {
    if t.is_nan() || t > 1.0 {
        return None;
    }
    // A guess outside 0..=most (or NaN) is clamped; the walks below are exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mut k = (guess.max(0.0) as usize).min(most + 1);
    while k > 0 && score(k - 1) >= t {
        k -= 1;
    }
    while k <= most && score(k) < t {
        k += 1;
    }
    (k <= most).then_some(k)
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
    jaccard_of(inter, a.len() + b.len())
}

/// Jaccard from the size of the intersection and the sum of the two sizes (not both
/// zero): the one expression [`jaccard`] and [`jaccard_at_least`] round alike.
#[inline]
fn jaccard_of(inter: usize, sizes: usize) -> f64 {
    inter as f64 / (sizes - inter) as f64
}

/// [`jaccard`] of two sorted, duplicate-free slices when it is at least `t` (the same
/// value, bit for bit), `None` when it is below: what a verifier with a threshold
/// asks. It stops as soon as `t` is out of reach: at once when the smaller set is
/// too small against the larger (Jaccard is at most `min/max`), otherwise as soon as
/// the common values found plus the values left cannot reach the least intersection
/// whose Jaccard reaches `t`.
///
/// # Example
///
/// ```
/// use near_dup::{jaccard, jaccard_at_least};
/// let (a, b) = ([1u64, 2, 3, 4], [1u64, 2, 3, 5]);
/// assert_eq!(jaccard_at_least(&a, &b, 0.6), Some(jaccard(&a, &b))); // 3/5
/// assert_eq!(jaccard_at_least(&a, &b, 0.61), None);
/// assert_eq!(jaccard_at_least(&[], &[], 1.0), Some(1.0));
/// ```
#[must_use]
pub fn jaccard_at_least(a: &[u64], b: &[u64], t: f64) -> Option<f64> {
    let sizes = a.len() + b.len();
    if sizes == 0 {
        return (1.0 >= t).then_some(1.0);
    }
    // The score of an intersection of k values grows with k (a larger numerator over
    // a smaller denominator, each rounded the same way), so the least k that reaches t
    // is a bound on the intersection that loses no pair jaccard() would keep.
    let most = a.len().min(b.len());
    // k / (sizes - k) >= t where k >= t·sizes / (1 + t).
    let guess = t * sizes as f64 / (1.0 + t);
    let need = least_reaching(most, t, guess, |k| jaccard_of(k, sizes))?;
    let inter = common_unless_below(a, b, need)?;
    let j = jaccard_of(inter, sizes);
    (j >= t).then_some(j)
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

/// [`containment`] of `a` in `b` when it is at least `t` (the same value, bit for
/// bit), `None` when it is below, stopping as soon as `t` is out of reach (as
/// [`jaccard_at_least`] does).
///
/// # Example
///
/// ```
/// use near_dup::containment_at_least;
/// assert_eq!(containment_at_least(&[1, 2, 3], &[1, 2, 4], 0.5), Some(2.0 / 3.0));
/// assert_eq!(containment_at_least(&[1, 2, 3], &[1, 2, 4], 0.7), None);
/// assert_eq!(containment_at_least(&[], &[1], 1.0), Some(1.0));
/// ```
#[must_use]
pub fn containment_at_least(a: &[u64], b: &[u64], t: f64) -> Option<f64> {
    if a.is_empty() {
        return (1.0 >= t).then_some(1.0);
    }
    let size = a.len() as f64;
    let need = least_reaching(a.len().min(b.len()), t, t * size, |k| k as f64 / size)?;
    let c = common_unless_below(a, b, need)? as f64 / size;
    (c >= t).then_some(c)
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

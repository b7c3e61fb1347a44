//! Hash families for classic MinHash: the linear family `h(x) = (a·x + b) mod p` of
//! the papers, and user-supplied functions.

use std::fmt;
use std::sync::Arc;

use ndd_core::hash::mix64;
use ndd_core::{Error, SchemeId};

/// The Mersenne prime `2^61 − 1`, the modulus of [`UniversalHashes`].
///
/// # Example
///
/// ```
/// use near_dup::minhash::{HashFamily, UniversalHashes, MERSENNE_61};
/// let f = UniversalHashes::new(8, 1)?;
/// assert!((0..8).all(|i| f.hash(i, u64::MAX) < MERSENNE_61));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const MERSENNE_61: u64 = (1 << 61) - 1;

/// `k` hash functions for classic MinHash: slot `i` of a signature is
/// `min over features x of hash(i, x)`.
///
/// Implement it to plug your own functions (for example to reproduce a textbook
/// example); [`UniversalHashes`] is the built-in family.
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::minhash::HashFamily;
/// #[derive(Debug)]
/// struct Shifts;
/// impl HashFamily for Shifts {
///     fn len(&self) -> usize { 2 }
///     fn hash(&self, i: usize, x: u64) -> u64 { x.rotate_left(i as u32 * 7) }
///     fn scheme(&self) -> SchemeId { SchemeId::new("shifts").finish() }
/// }
/// assert_eq!(Shifts.hash(0, 5), 5);
/// ```
pub trait HashFamily: fmt::Debug + Send + Sync {
    /// The number of functions `k` (at least 1).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{HashFamily, UniversalHashes};
    /// assert_eq!(UniversalHashes::new(16, 0)?.len(), 16);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn len(&self) -> usize;

    /// Function `i` (`0 ≤ i < len()`) applied to feature `x`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{FnFamily, HashFamily};
    /// let f = FnFamily::new("mod5", vec![Box::new(|x| x % 5)])?;
    /// assert_eq!(f.hash(0, 7), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn hash(&self, i: usize, x: u64) -> u64;

    /// Identifies the family and its parameters; signatures of different families
    /// refuse to compare.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{HashFamily, UniversalHashes};
    /// assert_ne!(UniversalHashes::new(4, 1)?.scheme(), UniversalHashes::new(4, 2)?.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn scheme(&self) -> SchemeId;

    /// Whether the family has no functions (never true for a usable family).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{HashFamily, UniversalHashes};
    /// assert!(!UniversalHashes::new(1, 0)?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Folds feature `x` into running minima `mins` (`mins.len() == len()`).
    /// Override for a faster loop; the default calls [`hash`](Self::hash) `k` times.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::minhash::{FnFamily, HashFamily};
    /// let f = FnFamily::new("two", vec![Box::new(|x| x), Box::new(|x| 10 - x)])?;
    /// let mut mins = [u64::MAX; 2];
    /// for x in [3, 7] {
    ///     f.update_mins(x, &mut mins);
    /// }
    /// assert_eq!(mins, [3, 3]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    fn update_mins(&self, x: u64, mins: &mut [u64]) {
        for (i, m) in mins.iter_mut().enumerate() {
            let h = self.hash(i, x);
            if h < *m {
                *m = h;
            }
        }
    }
}

/// `k` functions `h_i(x) = (a_i·x + b_i) mod p` with `p = 2^61 − 1`, the linear
/// family of Hajishirzi, Yih and Kołcz, *Adaptive near-duplicate detection via
/// similarity learning*, SIGIR 2010, §3.2, applied to the 64-bit feature
/// reduced mod `p`.
///
/// The coefficients are a stable function of the seed: `a_i ∈ [1, p)`, `b_i ∈ [0, p)`
/// drawn from a SplitMix64-style sequence of [`mix64`]. Values lie in `[0, p)`.
///
/// # Example
///
/// ```
/// use near_dup::minhash::{HashFamily, UniversalHashes, MERSENNE_61};
/// let f = UniversalHashes::new(4, 42)?;
/// assert_eq!(f.len(), 4);
/// assert!(f.hash(3, 123_456) < MERSENNE_61);
/// let (a, b) = f.coefficients(0);
/// let x = 123_456u64;
/// assert_eq!(f.hash(0, x), ((a as u128 * x as u128 + b as u128) % MERSENNE_61 as u128) as u64);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct UniversalHashes {
    seed: u64,
    ab: Arc<[(u64, u64)]>,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl UniversalHashes {
    /// `k` functions drawn from `seed`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `k == 0` or `k` is above
    /// [`MAX_NUM_HASHES`](crate::MAX_NUM_HASHES) (16 bytes per function).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::minhash::UniversalHashes::new(0, 1).is_err());
    /// assert!(near_dup::minhash::UniversalHashes::new(usize::MAX, 1).is_err());
    /// ```
    pub fn new(k: usize, seed: u64) -> Result<Self, Error> {
        if k == 0 || k > crate::MAX_NUM_HASHES {
            return Err(Error::invalid_parameter(
                "num_hashes",
                format!("must be in 1..={}, got {k}", crate::MAX_NUM_HASHES),
            ));
        }
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(GOLDEN);
            mix64(state)
        };
        let ab = (0..k)
            .map(|_| {
                let a = next() % (MERSENNE_61 - 1) + 1;
                let b = next() % MERSENNE_61;
                (a, b)
            })
            .collect();
        Ok(UniversalHashes { seed, ab })
    }

    /// The coefficients `(a_i, b_i)` of function `i`.
    ///
    /// # Panics
    ///
    /// When `i >= len()`.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::minhash::UniversalHashes::new(2, 7)?;
    /// assert!(f.coefficients(1).0 >= 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn coefficients(&self, i: usize) -> (u64, u64) {
        self.ab[i]
    }
}

/// `x mod (2^61 − 1)` for any 64-bit `x`.
#[inline(always)]
pub(crate) fn reduce61(x: u64) -> u64 {
    let r = (x & MERSENNE_61) + (x >> 61);
    if r >= MERSENNE_61 { r - MERSENNE_61 } else { r }
}

/// `(a·x + b) mod (2^61 − 1)` for `a, x, b < 2^61 − 1`.
#[inline(always)]
pub(crate) fn affine61(a: u64, x: u64, b: u64) -> u64 {
    let prod = u128::from(a) * u128::from(x);
    // prod < 2^122: fold the high part onto the low 61 bits. Both casts keep what
    // they mean to: the low 64 bits (masked to 61), and prod >> 61 < 2^61.
    #[allow(clippy::cast_possible_truncation)]
    let lo = (prod as u64) & MERSENNE_61;
    #[allow(clippy::cast_possible_truncation)]
    let hi = (prod >> 61) as u64;
    let s = reduce61(lo + hi) + b;
    if s >= MERSENNE_61 { s - MERSENNE_61 } else { s }
}

impl HashFamily for UniversalHashes {
    fn len(&self) -> usize {
        self.ab.len()
    }

    #[inline]
    fn hash(&self, i: usize, x: u64) -> u64 {
        let (a, b) = self.ab[i];
        affine61(a, reduce61(x), b)
    }

    fn scheme(&self) -> SchemeId {
        SchemeId::new("universal-61")
            .with(self.ab.len() as u64)
            .with(self.seed)
            .finish()
    }

    #[inline]
    fn update_mins(&self, x: u64, mins: &mut [u64]) {
        let x = reduce61(x);
        for (m, &(a, b)) in mins.iter_mut().zip(self.ab.iter()) {
            let h = affine61(a, x, b);
            *m = (*m).min(h);
        }
    }
}

type BoxedFn = Box<dyn Fn(u64) -> u64 + Send + Sync>;

/// User-supplied hash functions, one closure per slot, named by a tag that goes into
/// the signatures' scheme.
///
/// # Example: Gambosi's slides' `h1(x) = x mod 5`, `h2(x) = (2x + 1) mod 5`
///
/// ```
/// use near_dup::minhash::{FnFamily, HashFamily};
/// let f = FnFamily::new("slides-mod5", vec![
///     Box::new(|x| x % 5),
///     Box::new(|x| (2 * x + 1) % 5),
/// ])?;
/// assert_eq!(f.hash(1, 2), 0);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub struct FnFamily {
    tag: String,
    fns: Vec<BoxedFn>,
}

impl FnFamily {
    /// Wraps `fns` under the name `tag`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `fns` is empty.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::minhash::FnFamily::new("none", vec![]).is_err());
    /// ```
    pub fn new(tag: &str, fns: Vec<BoxedFn>) -> Result<Self, Error> {
        if fns.is_empty() {
            return Err(Error::invalid_parameter(
                "fns",
                "at least one hash function",
            ));
        }
        Ok(FnFamily {
            tag: tag.to_owned(),
            fns,
        })
    }
}

impl fmt::Debug for FnFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnFamily")
            .field("tag", &self.tag)
            .field("len", &self.fns.len())
            .finish()
    }
}

impl HashFamily for FnFamily {
    fn len(&self) -> usize {
        self.fns.len()
    }

    fn hash(&self, i: usize, x: u64) -> u64 {
        (self.fns[i])(x)
    }

    fn scheme(&self) -> SchemeId {
        SchemeId::new("fn-family")
            .with_str(&self.tag)
            .with(self.fns.len() as u64)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine61_matches_u128_arithmetic() {
        let f = UniversalHashes::new(64, 9).unwrap();
        let mut x = 1u64;
        for _ in 0..10_000 {
            x = mix64(x.wrapping_add(GOLDEN));
            for i in 0..64 {
                let (a, b) = f.coefficients(i);
                let want = (u128::from(a) * u128::from(x % MERSENNE_61) + u128::from(b))
                    % u128::from(MERSENNE_61);
                assert_eq!(u128::from(f.hash(i, x)), want);
            }
        }
        for x in [
            0,
            1,
            MERSENNE_61 - 1,
            MERSENNE_61,
            MERSENNE_61 + 1,
            u64::MAX,
        ] {
            assert_eq!(reduce61(x), x % MERSENNE_61);
        }
    }
}

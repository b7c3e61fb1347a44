//! [`Threshold`]: a similarity threshold checked once, where it enters.

use crate::Error;

/// A similarity threshold `T` in `(0, 1]`: a pair counts when its score reaches it.
///
/// Checked once, by [`new`](Self::new), where a caller's number enters the library;
/// stages and engines that take a `Threshold` do not check it again. `1` asks for
/// identical feature sets; `0` and anything outside `(0, 1]` (NaN included) are
/// refused, since every pair reaches a threshold of 0.
///
/// # Example
///
/// ```
/// use near_dup::Threshold;
/// let t = Threshold::new(0.8)?;
/// assert_eq!(t.get(), 0.8);
/// assert!(Threshold::new(0.0).is_err());
/// assert!(Threshold::new(1.5).is_err());
/// assert!(Threshold::new(f64::NAN).is_err());
/// assert_eq!(Threshold::new(1.0)?.get(), 1.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Threshold(f64);

impl Threshold {
    /// The highest threshold that banded LSH parameters are tuned for: at `T = 1`
    /// (identical sets) the S-curve's optimum degenerates, so the bands are chosen as
    /// for 0.99 and the exact check decides the rest.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::Threshold::MAX_BANDED, 0.99);
    /// ```
    pub const MAX_BANDED: f64 = 0.99;

    /// `t` as a threshold.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`](crate::ErrorKind::InvalidParameter) naming
    /// `threshold` when `t` is not in `(0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::Threshold::new(-0.2).unwrap_err();
    /// assert!(e.to_string().contains("threshold"));
    /// ```
    pub fn new(t: f64) -> Result<Self, Error> {
        if t > 0.0 && t <= 1.0 {
            Ok(Threshold(t))
        } else {
            Err(Error::invalid_parameter(
                "threshold",
                format!("must lie in (0, 1], got {t}"),
            ))
        }
    }

    /// The value, in `(0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::Threshold::new(0.5)?.get(), 0.5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn get(self) -> f64 {
        self.0
    }

    /// The threshold banded LSH parameters are chosen for: the value, at most
    /// [`MAX_BANDED`](Self::MAX_BANDED).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::Threshold;
    /// assert_eq!(Threshold::new(1.0)?.banded(), 0.99);
    /// assert_eq!(Threshold::new(0.8)?.banded(), 0.8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn banded(self) -> f64 {
        self.0.min(Self::MAX_BANDED)
    }
}

impl Default for Threshold {
    /// 0.8, the pipeline's default.
    fn default() -> Self {
        Threshold(0.8)
    }
}

impl std::fmt::Display for Threshold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl TryFrom<f64> for Threshold {
    type Error = Error;

    /// As [`Threshold::new`].
    fn try_from(t: f64) -> Result<Self, Error> {
        Threshold::new(t)
    }
}

impl From<Threshold> for f64 {
    fn from(t: Threshold) -> f64 {
        t.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_exactly_the_half_open_unit_interval() {
        for ok in [f64::MIN_POSITIVE, 1e-9, 0.5, 0.99, 1.0] {
            assert_eq!(Threshold::new(ok).map(Threshold::get).ok(), Some(ok));
        }
        for bad in [
            0.0,
            -0.0,
            -1.0,
            1.0 + f64::EPSILON,
            2.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert!(Threshold::new(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn display_and_conversions_keep_the_value() {
        let t = Threshold::try_from(0.75).unwrap();
        assert_eq!(t.to_string(), "0.75");
        assert_eq!(f64::from(t), 0.75);
        assert_eq!(Threshold::default().get(), 0.8);
    }
}

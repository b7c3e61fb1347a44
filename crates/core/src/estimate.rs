//! [`Estimate`]: a similarity estimate with its standard error.

use crate::Error;
use crate::math::normal_quantile;

/// A point estimate with its standard error, as returned by every signature
/// comparison.
///
/// Sketches estimate a similarity from a sample (for MinHash, the fraction of `k`
/// slots that agree), so the number comes with its uncertainty: `std_error` is the
/// standard deviation of the estimator (for MinHash `sqrt(J(1-J)/k)`, Gambosi,
/// *Near duplicate detection*, course slides). Exact measures return
/// [`Estimate::exact`], whose standard error is 0.
///
/// # Example
///
/// ```
/// use near_dup::Estimate;
/// let e = Estimate::new(0.75, 0.04)?;
/// let (lo, hi) = e.interval(0.95)?;
/// assert!((lo - (0.75 - 1.959964 * 0.04)).abs() < 1e-5);
/// assert!(hi <= 1.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    value: f64,
    std_error: f64,
}

impl Estimate {
    /// An estimate with the given standard error.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `value` is not finite or `std_error` is negative or
    /// not finite.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::Estimate::new(0.5, -1.0).is_err());
    /// assert_eq!(near_dup::Estimate::new(0.5, 0.1)?.value(), 0.5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(value: f64, std_error: f64) -> Result<Self, Error> {
        if !value.is_finite() || !std_error.is_finite() || std_error < 0.0 {
            return Err(Error::invalid_input(format!(
                "estimate {value} with standard error {std_error}"
            )));
        }
        Ok(Estimate { value, std_error })
    }

    /// An exact value (standard error 0).
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::Estimate::exact(0.375);
    /// assert_eq!(e.std_error(), 0.0);
    /// assert_eq!(e.interval(0.99)?, (0.375, 0.375));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub const fn exact(value: f64) -> Self {
        Estimate {
            value,
            std_error: 0.0,
        }
    }

    /// The point estimate.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::Estimate::exact(0.9).value(), 0.9);
    /// ```
    #[must_use]
    pub const fn value(&self) -> f64 {
        self.value
    }

    /// The standard error of the estimate.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::Estimate::new(0.9, 0.02)?.std_error(), 0.02);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub const fn std_error(&self) -> f64 {
        self.std_error
    }

    /// The two-sided normal-approximation confidence interval at `confidence`
    /// (for example 0.95), clamped to `[0, 1]` since similarities live there.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `confidence` is not strictly between 0 and 1.
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::Estimate::new(0.5, 0.1)?;
    /// let (lo, hi) = e.interval(0.6827)?; // about one standard error
    /// assert!((lo - 0.4).abs() < 1e-3 && (hi - 0.6).abs() < 1e-3);
    /// assert!(e.interval(1.0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn interval(&self, confidence: f64) -> Result<(f64, f64), Error> {
        let z = z_for_confidence(confidence)?;
        let half = z * self.std_error;
        Ok((
            (self.value - half).clamp(0.0, 1.0),
            (self.value + half).clamp(0.0, 1.0),
        ))
    }
}

/// The standard normal quantile `z` with `P(|Z| ≤ z) = confidence`.
///
/// Uses [`normal_quantile`] (Acklam's rational approximation of the inverse normal
/// CDF, relative error below 1.2e-9), enough for confidence intervals.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `confidence` is not strictly between 0 and 1.
///
/// # Example
///
/// ```
/// let z = near_dup::estimate::z_for_confidence(0.95)?;
/// assert!((z - 1.959963984540054).abs() < 1e-8);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn z_for_confidence(confidence: f64) -> Result<f64, Error> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(Error::invalid_parameter(
            "confidence",
            format!("must lie strictly between 0 and 1, got {confidence}"),
        ));
    }
    Ok(normal_quantile(0.5 + confidence / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_tables() {
        // Standard normal table values.
        for (conf, z) in [
            (0.90, 1.644_853_626_951_472_2),
            (0.95, 1.959_963_984_540_054),
            (0.99, 2.575_829_303_548_900_4),
            (0.999, 3.290_526_731_491_926),
            (0.5, 0.674_489_750_196_081_7),
        ] {
            let got = z_for_confidence(conf).unwrap();
            assert!((got - z).abs() < 1e-8, "{conf}: {got} vs {z}");
        }
    }

    #[test]
    fn bad_confidence_is_an_error() {
        for c in [0.0, 1.0, -0.5, 2.0, f64::NAN] {
            assert!(z_for_confidence(c).is_err());
        }
        assert!(Estimate::new(f64::NAN, 0.0).is_err());
        assert!(Estimate::new(0.5, f64::INFINITY).is_err());
    }
}

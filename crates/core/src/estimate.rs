//! [`Estimate`]: a similarity estimate with its standard error.

use crate::Error;

/// A point estimate with its standard error, as returned by every signature
/// comparison.
///
/// Sketches estimate a similarity from a sample (for MinHash, the fraction of `k`
/// slots that agree), so the number comes with its uncertainty: `std_error` is the
/// standard deviation of the estimator (for MinHash `sqrt(J(1-J)/k)`, Gambosi,
/// *Near duplicate detection*, course slides, paper 002). Exact measures return
/// [`Estimate::exact`], whose standard error is 0.
///
/// # Example
///
/// ```
/// use ndd_core::Estimate;
/// let e = Estimate::new(0.75, 0.04)?;
/// let (lo, hi) = e.interval(0.95)?;
/// assert!((lo - (0.75 - 1.959964 * 0.04)).abs() < 1e-5);
/// assert!(hi <= 1.0);
/// # Ok::<(), ndd_core::Error>(())
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
    /// assert!(ndd_core::Estimate::new(0.5, -1.0).is_err());
    /// assert_eq!(ndd_core::Estimate::new(0.5, 0.1)?.value(), 0.5);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// let e = ndd_core::Estimate::exact(0.375);
    /// assert_eq!(e.std_error(), 0.0);
    /// assert_eq!(e.interval(0.99)?, (0.375, 0.375));
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_core::Estimate::exact(0.9).value(), 0.9);
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
    /// assert_eq!(ndd_core::Estimate::new(0.9, 0.02)?.std_error(), 0.02);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// let e = ndd_core::Estimate::new(0.5, 0.1)?;
    /// let (lo, hi) = e.interval(0.6827)?; // about one standard error
    /// assert!((lo - 0.4).abs() < 1e-3 && (hi - 0.6).abs() < 1e-3);
    /// assert!(e.interval(1.0).is_err());
    /// # Ok::<(), ndd_core::Error>(())
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
/// Uses Acklam's rational approximation of the inverse normal CDF (relative error
/// below 1.2e-9), enough for confidence intervals.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `confidence` is not strictly between 0 and 1.
///
/// # Example
///
/// ```
/// let z = ndd_core::estimate::z_for_confidence(0.95)?;
/// assert!((z - 1.959963984540054).abs() < 1e-8);
/// # Ok::<(), ndd_core::Error>(())
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

/// Inverse of the standard normal CDF for `p` in (0, 1) (Acklam's algorithm).
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const P_LOW: f64 = 0.02425;
    if p < P_LOW {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -normal_quantile(1.0 - p)
    }
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

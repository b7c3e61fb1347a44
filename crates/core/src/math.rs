//! Floating-point functions whose results are bit-identical on every platform, for
//! values that are persisted or compared across machines.
//!
//! The platform's `f64::ln` (its libm) is not correctly rounded and may differ in the
//! last bit between platforms; `+ − × ÷` and `sqrt` are correctly rounded by IEEE 754
//! and Rust never fuses `a·b + c` on its own. The functions here use only those, in a
//! fixed order, so they agree on every target with IEEE binary64 arithmetic (all
//! targets with SSE2 or better; not the x87-only `i586` targets).

/// The standard normal quantile `Φ⁻¹(p)` for `p` in `(0, 1)`: Peter Acklam's rational
/// approximation (relative error below 1.15e-9), with [`stable_ln`] in the tails; NaN
/// for `p` outside `(0, 1)`.
///
/// Bit-identical on every platform with IEEE binary64 arithmetic (see the
/// [module docs](self)), so value-defining code (Gaussian SimHash projections) can use
/// it; confidence intervals ([`crate::estimate::z_for_confidence`]) use it too.
///
/// # Example
///
/// ```
/// use near_dup::math::normal_quantile;
/// assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-8);
/// assert_eq!(normal_quantile(0.5), 0.0);
/// assert_eq!(normal_quantile(0.1), -normal_quantile(0.9));
/// assert!(normal_quantile(1.0).is_nan());
/// ```
#[must_use]
pub fn normal_quantile(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
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
    let tail = |p: f64| {
        let q = (-2.0 * stable_ln(p)).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < P_LOW {
        tail(p)
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        // 1 − p is exact for p ≥ 1/2 (Sterbenz), so the tails are mirror images.
        -tail(1.0 - p)
    }
}

/// The natural logarithm of a positive, normal, finite `x`, computed with `+ − × ÷`
/// only: `x = m·2^e` with `m` in `[√½, √2)`, `ln m = 2·atanh(s)` with
/// `s = (m − 1)/(m + 1)`, `|s| ≤ 0.1716`, summed to `s^23` (truncation below 1e-18),
/// and `ln x = e·ln 2 + ln m`. Accurate to a few ulps; bit-identical everywhere.
/// NaN for zero, negative, subnormal, infinite or NaN input.
///
/// # Example
///
/// ```
/// use near_dup::math::stable_ln;
/// assert_eq!(stable_ln(1.0), 0.0);
/// assert!((stable_ln(10.0) - 10f64.ln()).abs() < 1e-14);
/// assert!(stable_ln(0.0).is_nan() && stable_ln(-1.0).is_nan());
/// ```
#[must_use]
pub fn stable_ln(x: f64) -> f64 {
    if !(x.is_normal() && x > 0.0) {
        return f64::NAN;
    }
    const LN2: f64 = std::f64::consts::LN_2;
    const SQRT2: f64 = std::f64::consts::SQRT_2;
    let bits = x.to_bits();
    let exp_bits = (bits >> 52) & 0x7FF;
    // Callers pass normal numbers in (0, 1] or above; the biased exponent fits i64.
    let mut e = exp_bits as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000F_FFFF_FFFF_FFFF) | (1023u64 << 52));
    if m > SQRT2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    // 1 + s²/3 + s⁴/5 + … + s²²/23, by Horner's rule from the highest term.
    let mut acc = 1.0 / 23.0;
    for k in (1..=10).rev() {
        acc = acc * s2 + 1.0 / f64::from(2 * k + 1);
    }
    let ln_m = 2.0 * s * (acc * s2 + 1.0);
    e as f64 * LN2 + ln_m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_ln_matches_std_ln() {
        for &x in &[
            1e-300, 2.2e-16, 1e-9, 0.001, 0.02425, 0.3, 0.5, 0.72, 0.9999, 1.0, 1.5, 2.0, 10.0,
            66855.0, 1e12,
        ] {
            let (a, b) = (stable_ln(x), x.ln());
            assert!(
                (a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1e-300) + 1e-300,
                "{x}: {a} vs {b}"
            );
        }
        assert_eq!(stable_ln(1.0), 0.0);
    }

    #[test]
    fn quantiles_match_tables() {
        // Φ⁻¹ at standard table points.
        for (p, z) in [
            (0.5, 0.0),
            (0.975, 1.959_963_984_540_054),
            (0.025, -1.959_963_984_540_054),
            (0.999, 3.090_232_306_167_813),
            (0.001, -3.090_232_306_167_813),
            (0.841_344_746_068_542_9, 1.0),
        ] {
            assert!((normal_quantile(p) - z).abs() < 1e-8, "{p}");
        }
        // The extreme uniforms stay finite.
        let lo = 0.5 / 4_503_599_627_370_496.0;
        assert!(normal_quantile(lo).is_finite() && normal_quantile(1.0 - lo).is_finite());
        assert_eq!(normal_quantile(lo), -normal_quantile(1.0 - lo));
    }

    #[test]
    fn outside_the_domain_is_nan() {
        for x in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-310] {
            assert!(stable_ln(x).is_nan(), "{x}");
        }
        for p in [0.0, 1.0, -0.1, 1.5, f64::NAN] {
            assert!(normal_quantile(p).is_nan(), "{p}");
        }
    }
}

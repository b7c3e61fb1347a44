//! The per-feature random values `r_f[i]` of a signature, derived from the feature hash
//! and the seed only (the value-defining specification; `tests/simhash_spec.py`
//! re-implements it independently and produces the golden vectors).
//!
//! Notation: `fmix64` is [`mix64`] (MurmurHash3's finalizer), `γ = 0x9E37_79B9_7F4A_7C15`,
//! arithmetic on `u64` wraps.
//!
//! * **Sign values** ([`Projection::Sign`](crate::Projection::Sign)): `s = fmix64(f ⊕ K)`
//!   with `K = fmix64(seed ⊕ "simhash!")`; the 64-bit block `j` of values is the word
//!   `b_0 = s`, `b_j = fmix64(s + j·γ)` for `j ≥ 1`, and `r_f[64j + t] = +1` when bit `t`
//!   of `b_j` is set, `−1` otherwise.
//! * **Gaussian values** ([`Projection::Gaussian`](crate::Projection::Gaussian)):
//!   `s = fmix64(f ⊕ K_g)` with `K_g = fmix64(seed ⊕ "gaussian")`; for bit `i`,
//!   `x = fmix64(s + (i + 1)·γ)`, `U = ((x >> 12) + 0.5) · 2^-52` (in `(0, 1)`, never 0
//!   or 1) and `r_f[i] = Φ⁻¹(U)`, the standard normal quantile by Acklam's rational
//!   approximation (relative error below 1.15e-9), with the logarithm its tails need
//!   computed from the exponent bits and a fixed series
//!   ([`ndd_core::math::normal_quantile`], [`ndd_core::math::stable_ln`]).
//!
//! Platform stability: every `f64` value is produced by `+ − × ÷` and `sqrt`, which
//! IEEE 754 requires to be correctly rounded, evaluated in a fixed order (Rust never
//! contracts `a·b + c` into a fused multiply-add on its own). The library logarithm
//! (`f64::ln`, the platform's libm) is not correctly rounded and may differ in the last
//! bit between platforms, so it is not used: [`ndd_core::math::stable_ln`] computes the
//! logarithm from the exponent bits and a fixed polynomial. The values are therefore bit-identical on every
//! target with IEEE binary64 arithmetic (every target Rust supports with SSE2 or better;
//! not the x87-only `i586` targets).

use ndd_core::hash::mix64;
use ndd_core::math::normal_quantile;

/// The golden-ratio increment of the counter-mode streams.
pub(crate) const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// `K`, the key of the sign values.
pub(crate) fn sign_key(seed: u64) -> u64 {
    mix64(seed ^ 0x7369_6D68_6173_6821) // "simhash!"
}

/// `K_g`, the key of the Gaussian values.
pub(crate) fn gaussian_key(seed: u64) -> u64 {
    mix64(seed ^ 0x6761_7573_7369_616E) // "gaussian"
}

/// The 64 sign values of block `j` as a word, from `s = fmix64(f ⊕ K)`.
#[inline(always)]
pub(crate) fn sign_block(s: u64, j: u64) -> u64 {
    if j == 0 {
        s
    } else {
        mix64(s.wrapping_add(j.wrapping_mul(GAMMA)))
    }
}

/// The Gaussian value of bit `i`, from `s = fmix64(f ⊕ K_g)`.
#[inline]
pub(crate) fn gaussian_value(s: u64, i: u64) -> f64 {
    let x = mix64(s.wrapping_add(i.wrapping_add(1).wrapping_mul(GAMMA)));
    // 52 bits plus one half: exactly representable, strictly inside (0, 1).
    let u = ((x >> 12) as f64 + 0.5) * (1.0 / 4_503_599_627_370_496.0); // 2^-52
    normal_quantile(u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_values_have_mean_0_and_variance_1() {
        let n = 200_000u64;
        let (mut sum, mut sq) = (0.0, 0.0);
        for i in 0..n {
            let z = gaussian_value(mix64(i ^ 12345), i % 7);
            sum += z;
            sq += z * z;
        }
        let mean = sum / n as f64;
        let var = sq / n as f64 - mean * mean;
        // Standard errors: 1/sqrt(n) = 0.0022 for the mean, sqrt(2/n) = 0.0032 for the
        // variance; bounds at 5 standard errors.
        assert!(mean.abs() < 5.0 * 0.0023, "mean {mean}");
        assert!((var - 1.0).abs() < 5.0 * 0.0032, "variance {var}");
    }
}

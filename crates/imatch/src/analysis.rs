//! How stable extended I-Match signatures are, and how many randomized lexicons perfect
//! recall takes: equations 1, 6 and 7 of A. Kołcz and A. Chowdhury, "Lexicon
//! randomization for near-duplicate detection with I-Match", Journal of Supercomputing
//! 45(3), 2008, §4 and §7.4, with its Table 4.
//!
//! A randomized lexicon keeps its signature under `n` edits of lexicon terms exactly
//! when it left out all `n` edited terms. Equation 1 writes that as `pⁿ` for a
//! fraction `p` left out; equation 6 as `C(L − n, M)/C(L, M)`, which is the same event
//! when `M` counts the terms the lexicon **keeps**. The paper's Table 4 takes
//! `M = 0.33·L`, that is lexicons keeping a third of `L` (leaving out two thirds),
//! while its text describes bagging as keeping about two thirds: the two readings
//! differ, and [`expected_extra_lexicons`] reproduces the table as printed. For this
//! crate's [`Randomization::Bootstrap`](crate::Randomization::Bootstrap) (a lexicon
//! keeps ~63% of `L`) pass `m ≈ 0.63·l`.
//!
//! # Example: choosing `K`
//!
//! ```
//! use near_dup::imatch::analysis::{expected_extra_lexicons, stability};
//! // Bagged lexicons leave out about a third of the terms (p ≈ 0.33 of equation 1).
//! // One edit inside the lexicon: K = 5 extra lexicons keep a match 86% of the time.
//! assert!((stability(0.33, 1, 5)? - 0.8650).abs() < 1e-4);
//! // Two edits: lexicons keeping two thirds need 9.2 draws on average for one that
//! // left out both edited terms...
//! assert!((expected_extra_lexicons(10_000, 6_700, 2)? - 9.1846).abs() < 1e-4);
//! // ...Table 4's 2.23 is for lexicons keeping a third (M = 0.33·L as printed).
//! assert!((expected_extra_lexicons(10_000, 3_300, 2)? - 2.2278).abs() < 1e-4);
//! # Ok::<(), near_dup::Error>(())
//! ```

use ndd_core::Error;

/// Equation 1: the probability that at least one of `k` randomized lexicons, each
/// leaving out a fraction `p` of the primary lexicon, keeps its signature after `n`
/// edits to lexicon terms, `1 − (1 − pⁿ)^K` (the `pⁿ` assumes `n` is small next to the
/// number of terms left out).
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `p` is not in `[0, 1]`.
///
/// # Example
///
/// ```
/// use near_dup::imatch::analysis::stability;
/// assert_eq!(stability(0.5, 1, 1)?, 0.5);
/// assert_eq!(stability(0.5, 1, 2)?, 0.75);
/// assert_eq!(stability(0.3, 2, 0)?, 0.0); // no extra lexicon: every edit breaks the match
/// assert!(stability(1.5, 1, 1).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn stability(p: f64, n: u32, k: u32) -> Result<f64, Error> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::invalid_parameter(
            "p",
            format!("a fraction in [0, 1], got {p}"),
        ));
    }
    let pn = p.powf(f64::from(n));
    Ok(1.0 - (1.0 - pn).powf(f64::from(k)))
}

/// Equation 6, exactly: the probability `q` that a randomized lexicon keeping `m` of
/// the `l` primary terms (drawn uniformly) holds none of the `n` perturbed terms, so
/// that its signature survives the edits: `C(l − n, m) / C(l, m) =
/// ∏_{i<n} (l − m − i) / (l − i)`; 0 when `n > l − m`. (See the [module docs](self)
/// for how this reads against Table 4.)
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `m > l` or `n > l`.
///
/// # Example
///
/// ```
/// use near_dup::imatch::analysis::survival_probability;
/// assert_eq!(survival_probability(10, 5, 1)?, 0.5);
/// assert_eq!(survival_probability(10, 5, 2)?, (5.0 / 10.0) * (4.0 / 9.0));
/// assert_eq!(survival_probability(10, 5, 6)?, 0.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn survival_probability(l: u64, m: u64, n: u64) -> Result<f64, Error> {
    if m > l {
        return Err(Error::invalid_parameter(
            "m",
            format!("a lexicon of {l} terms cannot keep {m}"),
        ));
    }
    if n > l {
        return Err(Error::invalid_parameter(
            "n",
            format!("cannot perturb {n} terms of a lexicon of {l}"),
        ));
    }
    let kept = l - m;
    if n > kept {
        return Ok(0.0);
    }
    if n <= EXACT_PRODUCT_TERMS {
        let mut q = 1.0f64;
        for i in 0..n {
            q *= (kept - i) as f64 / (l - i) as f64;
        }
        return Ok(q);
    }
    // q = C(l − n, m) / C(l, m) = Γ(l−n+1) Γ(l−m+1) / (Γ(l−n−m+1) Γ(l+1))
    //   = exp(D(l−n−m+1, m) − D(l−m+1, m)), D(x, d) = ln Γ(x + d) − ln Γ(x):
    // constant time whatever `n` (the product took 2.4 s at n = 2^30).
    let m = m as f64;
    let ln_q = ln_gamma_ratio((kept - n + 1) as f64, m) - ln_gamma_ratio((kept + 1) as f64, m);
    Ok(ln_q.exp())
}

/// Up to this many factors [`survival_probability`] multiplies them out; above, it
/// uses the closed form through [`ln_gamma_ratio`] (relative error below 1e-9, tested
/// against the product).
const EXACT_PRODUCT_TERMS: u64 = 1024;

/// `ln Γ(x + d) − ln Γ(x)` for `x ≥ 1`, `d ≥ 0`, computed as a difference (Stirling's
/// series of both terms, subtracted term by term, with `ln_1p` for the leading one), so
/// that it keeps its precision when `x` is huge and `d` small.
fn ln_gamma_ratio(x: f64, d: f64) -> f64 {
    if d == 0.0 {
        return 0.0;
    }
    // Shift x up to 10, where the series is accurate: ln Γ(y) = ln Γ(y + 1) − ln y, so
    // D(x, d) = D(x + 1, d) + ln x − ln(x + d).
    let mut x = x;
    let mut acc = 0.0;
    while x < 10.0 {
        acc += x.ln() - (x + d).ln();
        x += 1.0;
    }
    let y = x + d;
    // (y − ½) ln y − (x − ½) ln x − d = (x − ½) ln(1 + d/x) + d ln y − d.
    let lead = (x - 0.5) * (d / x).ln_1p() + d * y.ln() - d;
    let series = |z: f64| {
        let z2 = z * z;
        1.0 / (12.0 * z) - 1.0 / (360.0 * z * z2) + 1.0 / (1260.0 * z * z2 * z2)
            - 1.0 / (1680.0 * z * z2 * z2 * z2)
    };
    acc + lead + series(y) - series(x)
}

/// Equation 6's approximation `(1 − m/l)ⁿ`, for a fraction `p = m/l` kept.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `p` is not in `[0, 1]`.
///
/// # Example
///
/// ```
/// use near_dup::imatch::analysis::survival_probability_approx;
/// assert_eq!(survival_probability_approx(0.5, 3)?, 0.125);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn survival_probability_approx(p: f64, n: u32) -> Result<f64, Error> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::invalid_parameter(
            "p",
            format!("a fraction in [0, 1], got {p}"),
        ));
    }
    Ok((1.0 - p).powf(f64::from(n)))
}

/// Equation 7: the probability that the first randomized lexicon whose signature
/// survives is the `k`-th drawn, `(1 − q)^(k−1)·q` (geometric; `k >= 1`).
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `q` is not in `[0, 1]` or `k` is 0.
///
/// # Example
///
/// ```
/// use near_dup::imatch::analysis::first_success_probability;
/// assert_eq!(first_success_probability(0.5, 1)?, 0.5);
/// assert_eq!(first_success_probability(0.5, 3)?, 0.125);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn first_success_probability(q: f64, k: u32) -> Result<f64, Error> {
    if !(0.0..=1.0).contains(&q) {
        return Err(Error::invalid_parameter(
            "q",
            format!("a probability in [0, 1], got {q}"),
        ));
    }
    if k == 0 {
        return Err(Error::invalid_parameter("k", "trials are counted from 1"));
    }
    Ok((1.0 - q).powf(f64::from(k - 1)) * q)
}

/// The expected number of randomized lexicons drawn until one keeps the signature
/// under `n` perturbed lexicon terms, `1/q` with `q` from [`survival_probability`]
/// (the mean of equation 7), for lexicons keeping `m` of `l` terms; Kołcz and Chowdhury (The Journal of Supercomputing 2008, Table 4)
/// is `m = 0.33·l` (see the [module docs](self)). Infinite when `q = 0` (more terms
/// perturbed than a lexicon leaves out).
///
/// # Errors
///
/// As [`survival_probability`].
///
/// # Example
///
/// ```
/// use near_dup::imatch::analysis::expected_extra_lexicons;
/// // Table 4, L = 1000 (M = 330): n = 5 needs 7.44 lexicons on average.
/// assert_eq!(format!("{:.2}", expected_extra_lexicons(1000, 330, 5)?), "7.44");
/// assert!(expected_extra_lexicons(10, 5, 6)?.is_infinite());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn expected_extra_lexicons(l: u64, m: u64, n: u64) -> Result<f64, Error> {
    let q = survival_probability(l, m, n)?;
    Ok(if q == 0.0 { f64::INFINITY } else { 1.0 / q })
}

//! Randomized copies of a lexicon (Kołcz and Chowdhury, The Journal of Supercomputing 2008, §4 and §6.6), drawn reproducibly.

use ndd_core::Error;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// The most extra lexicons a signer supports (`K`): membership of a term in the
/// `K + 1` lexicons is one `u32` bit mask.
///
/// # Example
///
/// ```
/// use near_dup::imatch::{IMatcher, Lexicon, MAX_EXTRA_LEXICONS};
/// let lex = Lexicon::from_terms(near_dup::imatch::unigram_extractor_scheme(), vec![1], vec![])?;
/// assert!(IMatcher::builder(lex.clone()).extra_lexicons(MAX_EXTRA_LEXICONS).build().is_ok());
/// assert!(IMatcher::builder(lex).extra_lexicons(MAX_EXTRA_LEXICONS + 1).build().is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const MAX_EXTRA_LEXICONS: usize = 30;

/// How the `K` extra lexicons are drawn from the primary lexicon `L` (A. Kołcz and
/// A. Chowdhury, "Lexicon randomization for near-duplicate detection with I-Match",
/// Journal of Supercomputing 45(3), 2008, §4 and §6.6).
///
/// Each extra lexicon is a proper subset of `L`; each is drawn independently from a
/// ChaCha8 stream (seed = the signer's seed, stream = the lexicon's index), with
/// integers drawn by Lemire's multiply-and-reject method from raw 64-bit outputs, so a
/// given seed gives the same lexicons on every platform and `rand` version.
///
/// # Example
///
/// ```
/// use near_dup::imatch::Randomization;
/// assert_eq!(Randomization::default(), Randomization::Bootstrap);
/// assert!(Randomization::Remove { fraction: 0.33 }.validate().is_ok());
/// assert!(Randomization::Remove { fraction: 1.5 }.validate().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Randomization {
    /// Bootstrap sampling with each term kept at most once (§6.6, the paper's
    /// experiments): `|L|` draws with replacement, the distinct terms drawn form the
    /// lexicon. A term survives with probability `1 − (1 − 1/|L|)^|L| ≈ 1 − 1/e ≈ 0.632`
    /// (the paper says "approximately 67%"; Table 4 assumes a third removed, `M = 0.33·L`).
    #[default]
    Bootstrap,
    /// Remove exactly `round(fraction·|L|)` terms chosen uniformly at random (§4; the
    /// `p` of equation 1 and `M = p·L` of equation 6). `fraction` must lie in `(0, 1)`.
    Remove {
        /// The fraction `p` of the lexicon's terms left out of each copy (of `L`, and of
        /// `B` when there is one). A fraction below `1 / (2·|L|)` rounds to no term removed.
        fraction: f64,
    },
}

impl Randomization {
    /// Checks the parameters.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when a [`Remove`](Self::Remove) fraction is not in
    /// `(0, 1)`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::Randomization;
    /// assert!(Randomization::Remove { fraction: 0.0 }.validate().is_err());
    /// assert!(Randomization::Bootstrap.validate().is_ok());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        match *self {
            Randomization::Bootstrap => Ok(()),
            Randomization::Remove { fraction } if fraction > 0.0 && fraction < 1.0 => Ok(()),
            Randomization::Remove { fraction } => Err(Error::invalid_parameter(
                "fraction",
                format!("the fraction of terms removed must lie in (0, 1), got {fraction}"),
            )),
        }
    }

    /// The expected fraction of the primary lexicon's terms left out of each copy:
    /// `fraction` for [`Remove`](Self::Remove), `(1 − 1/L)^L` for
    /// [`Bootstrap`](Self::Bootstrap) on a lexicon of `L` terms (→ `1/e ≈ 0.368`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::imatch::Randomization;
    /// assert_eq!(Randomization::Remove { fraction: 0.3 }.expected_removed(1000), 0.3);
    /// let p = Randomization::Bootstrap.expected_removed(1_000_000);
    /// assert!((p - (-1.0f64).exp()).abs() < 1e-6);
    /// ```
    #[must_use]
    pub fn expected_removed(&self, lexicon_len: usize) -> f64 {
        match *self {
            Randomization::Remove { fraction } => fraction,
            Randomization::Bootstrap if lexicon_len == 0 => 0.0,
            Randomization::Bootstrap => {
                let l = lexicon_len as f64;
                (l * (-1.0 / l).ln_1p()).exp()
            }
        }
    }

    pub(crate) fn scheme_code(&self) -> (u64, u64) {
        match *self {
            Randomization::Bootstrap => (1, 0),
            Randomization::Remove { fraction } => (2, fraction.to_bits()),
        }
    }
}

/// A uniform integer in `0..n` (`n > 0`) from raw 64-bit outputs (Lemire's method).
fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        #[allow(clippy::cast_possible_truncation)] // the low and high halves, on purpose
        let (lo, hi) = (m as u64, (m >> 64) as u64);
        if lo >= threshold {
            return hi;
        }
    }
}

/// Membership masks, aligned with `primary`: bit 0 set for every term (the primary
/// lexicon), bit `i` (1..=k) when the term is in extra lexicon `i`.
pub(crate) fn membership_masks(
    primary_len: usize,
    k: usize,
    method: Randomization,
    seed: u64,
) -> Vec<u32> {
    let mut masks = vec![1u32; primary_len];
    if primary_len == 0 {
        return masks;
    }
    let n = primary_len as u64;
    let mut picked = vec![false; primary_len];
    let mut order: Vec<u32> = Vec::new();
    for i in 1..=k {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(i as u64);
        let bit = 1u32 << i;
        match method {
            Randomization::Bootstrap => {
                picked.fill(false);
                for _ in 0..primary_len {
                    // `below(n) < n = primary_len`, so the index fits.
                    picked[usize::try_from(below(&mut rng, n)).unwrap_or(0)] = true;
                }
                for (m, &p) in masks.iter_mut().zip(&picked) {
                    if p {
                        *m |= bit;
                    }
                }
            }
            Randomization::Remove { fraction } => {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let removed = ((fraction * primary_len as f64).round() as usize).min(primary_len);
                order.clear();
                order.extend((0..primary_len).map(|j| u32::try_from(j).unwrap_or(u32::MAX)));
                for j in 0..removed {
                    let r =
                        j + usize::try_from(below(&mut rng, (primary_len - j) as u64)).unwrap_or(0);
                    order.swap(j, r);
                }
                for m in masks.iter_mut() {
                    *m |= bit;
                }
                for &j in &order[..removed] {
                    masks[j as usize] &= !bit;
                }
            }
        }
    }
    masks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_takes_out_exactly_round_p_l_terms() {
        let masks = membership_masks(1000, 5, Randomization::Remove { fraction: 0.33 }, 9);
        for i in 1..=5 {
            let kept = masks.iter().filter(|&&m| m & (1 << i) != 0).count();
            assert_eq!(kept, 670, "lexicon {i}");
        }
        assert!(masks.iter().all(|&m| m & 1 == 1));
        // Different lexicons differ.
        let a: Vec<bool> = masks.iter().map(|&m| m & 2 != 0).collect();
        let b: Vec<bool> = masks.iter().map(|&m| m & 4 != 0).collect();
        assert_ne!(a, b);
    }

    #[test]
    fn bootstrap_keeps_about_one_minus_one_over_e() {
        // Over 20 lexicons of 5000 terms: mean kept fraction 1 − (1 − 1/L)^L; per
        // lexicon the count of kept terms has variance below L·q(1−q) (negatively
        // correlated occupancies), so 20 lexicons pin the mean within ±4σ ≈ 0.01.
        let l = 5000;
        let k = 20;
        let masks = membership_masks(l, k, Randomization::Bootstrap, 3);
        let kept: usize = (1..=k)
            .map(|i| masks.iter().filter(|&&m| m & (1 << i) != 0).count())
            .sum();
        let mean = kept as f64 / (k * l) as f64;
        let expect = 1.0 - Randomization::Bootstrap.expected_removed(l);
        let sigma = (expect * (1.0 - expect) / (k * l) as f64).sqrt();
        assert!((mean - expect).abs() < 4.0 * sigma, "{mean} vs {expect}");
    }

    #[test]
    fn lemire_below_is_uniform_enough_and_in_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            let x = below(&mut rng, 7);
            counts[usize::try_from(x).unwrap()] += 1;
        }
        // Each count ~ Binomial(70000, 1/7): mean 10000, sd ≈ 92.6.
        assert!(
            counts.iter().all(|&c| c.abs_diff(10_000) < 4 * 93),
            "{counts:?}"
        );
    }
}

//! Paper 003 (Kołcz and Chowdhury, J. Supercomputing 2008) Table 4: the expected
//! number of auxiliary lexicons for perfect recall, `1/q` with `q` from equation 6,
//! for `M = 0.33·L`, reproduced to the printed precision.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_imatch::analysis::{
    expected_extra_lexicons, first_success_probability, stability, survival_probability,
    survival_probability_approx,
};

/// Table 4 as printed (rows L = 1000, 10,000, 100,000; columns n = 2, 5, 10, 20, 50).
const TABLE_4: [(u64, [f64; 5]); 3] = [
    (1_000, [2.23, 7.44, 56.10, 3_309.92, 932_403_182.29]),
    (10_000, [2.23, 7.41, 54.98, 3_037.91, 527_924_300.92]),
    (100_000, [2.23, 7.41, 54.87, 3_012.39, 499_897_879.50]),
];
const N: [u64; 5] = [2, 5, 10, 20, 50];

#[test]
fn reproduces_table_4_to_the_printed_precision() {
    for (l, row) in TABLE_4 {
        let m = l * 33 / 100;
        for (&n, &printed) in N.iter().zip(&row) {
            let e = expected_extra_lexicons(l, m, n).unwrap();
            // Within one unit of the last printed digit.
            assert!(
                (e - printed).abs() < 0.01,
                "L = {l}, n = {n}: {e} vs {printed}"
            );
            // Exactly the printed figure once rounded to three decimals and then to two:
            // 13 of the 15 cells are also the plain two-decimal rounding; two are not
            // (L = 10,000, n = 50: 527,924,300.9147; L = 100,000, n = 20: 3,012.3847),
            // which the table's double rounding explains.
            let twice = format!("{:.2}", (e * 1000.0).round() / 1000.0);
            assert_eq!(twice, format!("{printed:.2}"), "L = {l}, n = {n}: {e}");
        }
    }
}

#[test]
fn expected_lexicons_are_the_mean_of_equation_7() {
    // Σ k·P(K = k) over the geometric distribution of equation 7 equals 1/q.
    let q = survival_probability(1_000, 330, 5).unwrap();
    let mean: f64 = (1..5_000u32)
        .map(|k| f64::from(k) * first_success_probability(q, k).unwrap())
        .sum();
    assert!((mean - 1.0 / q).abs() < 1e-9, "{mean} vs {}", 1.0 / q);
    // Equation 6's approximation approaches the exact value as L grows.
    let approx = survival_probability_approx(0.33, 5).unwrap();
    let exact = survival_probability(1_000_000, 330_000, 5).unwrap();
    assert!((approx - exact).abs() < 1e-5);
}

#[test]
fn equation_1_limits() {
    assert_eq!(stability(0.3, 1, 0).unwrap(), 0.0);
    assert_eq!(stability(1.0, 3, 2).unwrap(), 1.0);
    assert_eq!(stability(0.0, 1, 10).unwrap(), 0.0);
    // More lexicons never hurt; more edits never help.
    let mut last = 0.0;
    for k in 0..20 {
        let s = stability(0.33, 2, k).unwrap();
        assert!(s >= last);
        last = s;
        assert!(stability(0.33, 3, k).unwrap() <= s);
    }
    assert!(stability(f64::NAN, 1, 1).is_err());
}

/// `survival_probability` above its exact-product range equals the product computed
/// factor by factor (the definition), within 1e-9 relative; and takes constant time
/// for any `n` (it looped over `n`: 2.4 s at 2^30), shown by values no loop reaches.
#[test]
fn survival_probability_matches_the_product_and_is_constant_time() {
    use ndd_imatch::analysis::survival_probability;
    let product = |l: u64, m: u64, n: u64| {
        let mut q = 1.0f64;
        for i in 0..n {
            q *= (l - m - i) as f64 / (l - i) as f64;
        }
        q
    };
    for &(l, m, n) in &[
        (5000u64, 1u64, 1025u64),
        (100_000, 3, 5000),
        (2_000_000, 10, 40_000),
        (1_000_000, 1000, 2000),
        (50_000, 40, 1500),
        (1 << 20, 1, (1 << 20) - 1),
    ] {
        let got = survival_probability(l, m, n).unwrap();
        let want = product(l, m, n);
        let rel = if want == 0.0 {
            got
        } else {
            (got - want).abs() / want
        };
        assert!(rel < 1e-9, "l={l} m={m} n={n}: {got} vs {want}");
    }
    // Constant time, shown without a clock: keeping all but one term (m = 1), the
    // product telescopes to (l − n) / l, so these values are known; a loop over the
    // factors would not finish for them (2^30 took 2.4 s, u64::MAX / 2 is 2^33 times
    // as many), so the test ends only if the closed form answers.
    let l = u64::MAX;
    for n in [1u64 << 30, 1 << 40, 1 << 62, u64::MAX / 2] {
        let q = survival_probability(l, 1, n).unwrap();
        let want = (l - n) as f64 / l as f64;
        assert!((q - want).abs() <= 1e-9 * want, "n={n}: {q} vs {want}");
    }
    assert_eq!(
        survival_probability(u64::MAX, u64::MAX / 2, u64::MAX / 2).unwrap(),
        0.0
    );
}

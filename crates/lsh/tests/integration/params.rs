#![allow(clippy::unwrap_used)]
//! The S-curve against paper 002's numbers, parameter choice against brute force, and
//! the band-key golden vectors.
//!
//! Paper 002: Giorgio Gambosi, "Near duplicate detection", slides for the Course of
//! Information Retrieval, University of Rome Tor Vergata (derived from slides by
//! C. Manning and H. Schütze).

use ndd_core::ErrorKind;
use ndd_lsh::{DEFAULT_MIN_RECALL, LshParams, MAX_SEARCH_SLOTS, band_key};

/// Rounds to `decimals` decimal places, as a printed table does.
fn rounded(x: f64, decimals: i32) -> f64 {
    let m = 10f64.powi(decimals);
    (x * m).round() / m
}

#[test]
fn paper_002_table_b20_r5() {
    // "Example: b = 20, r = 5", reproduced to the printed precision.
    let p = LshParams::new(20, 5).unwrap();
    let table = [
        (0.2, 0.006, 3),
        (0.3, 0.047, 3),
        (0.4, 0.186, 3),
        (0.5, 0.47, 2),
        (0.6, 0.802, 3),
        (0.7, 0.975, 3),
        (0.8, 0.9996, 4),
    ];
    for (s, printed, decimals) in table {
        let got = p.probability(s);
        assert_eq!(rounded(got, decimals), printed, "s = {s}: {got}");
    }
}

#[test]
fn paper_002_false_negative_and_positive_slides() {
    // "False negatives": a 0.8-similar pair agrees on one band with (0.8)^5 = 0.328 ...
    let band = 0.8f64.powi(5);
    assert_eq!(rounded(band, 3), 0.328);
    // ... and misses all 20 bands with (1 − 0.328)^20 ≃ 0.00035. The slide rounds the
    // band probability first; with it unrounded the miss rate is 0.000356.
    assert_eq!(rounded((1.0 - 0.328f64).powi(20), 5), 0.00035);
    let p = LshParams::new(20, 5).unwrap();
    let miss = 1.0 - p.probability(0.8);
    assert!((miss - 0.00035).abs() < 1e-5, "{miss}");
    // "False positives": a 0.3-similar pair agrees on one band with (0.3)^5 = 0.00243
    // and collides somewhere with 1 − (1 − 0.00243)^20 ≃ 0.0474 (the slide truncates
    // 0.04749).
    assert_eq!(rounded(0.3f64.powi(5), 5), 0.00243);
    let fp = p.probability(0.3);
    assert!((fp - 0.0474).abs() < 1e-4, "{fp}");
    assert!((fp - 0.047_494).abs() < 1e-6, "{fp}");
}

#[test]
fn probability_edges() {
    let p = LshParams::new(9, 13).unwrap();
    assert_eq!(p.probability(0.0), 0.0);
    assert_eq!(p.probability(1.0), 1.0);
    assert_eq!(p.probability(-1.0), 0.0);
    assert_eq!(p.probability(2.0), 1.0);
    assert!(p.probability(f64::NAN).is_nan());
    assert!(p.false_positive_area(f64::NAN).is_nan());
    assert!(p.false_negative_area(f64::NAN).is_nan());
    // Tiny probabilities keep their relative precision: b·s^r for small s.
    let tiny = p.probability(0.01);
    assert!((tiny / (9.0 * 0.01f64.powi(13)) - 1.0).abs() < 1e-12);
    // The estimate of the steepest point.
    assert!((p.threshold_estimate() - (1.0f64 / 9.0).powf(1.0 / 13.0)).abs() < 1e-15);
}

/// Independent integration: composite Simpson on a fine uniform grid of the textbook
/// formula `1 − (1 − s^r)^b`.
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let n = 4_000;
    let h = (b - a) / f64::from(n);
    let mut sum = f(a) + f(b);
    for i in 1..n {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * f(a + f64::from(i) * h);
    }
    sum * h / 3.0
}

fn curve(b: usize, r: usize) -> impl Fn(f64) -> f64 {
    let (b, r) = (i32::try_from(b).unwrap(), i32::try_from(r).unwrap());
    move |s: f64| 1.0 - (1.0 - s.powi(r)).powi(b)
}

#[test]
fn areas_match_independent_integration() {
    for (b, r) in [
        (1, 1),
        (20, 5),
        (9, 13),
        (16, 8),
        (50, 2),
        (2, 40),
        (128, 1),
    ] {
        let p = LshParams::new(b, r).unwrap();
        for t in [0.1, 0.5, 0.8, 0.95] {
            let fp = simpson(curve(b, r), 0.0, t);
            let f = curve(b, r);
            let fn_ = simpson(|s| 1.0 - f(s), t, 1.0);
            assert!(
                (p.false_positive_area(t) - fp).abs() < 1e-6,
                "{b}x{r} t={t}"
            );
            assert!(
                (p.false_negative_area(t) - fn_).abs() < 1e-6,
                "{b}x{r} t={t}"
            );
        }
        // FP + FN areas partition [0, 1] around t: ∫₀¹ P = FP(t) + (1 − t) − FN(t).
        let total = p.false_positive_area(1.0);
        for t in [0.3, 0.7] {
            let lhs = p.false_positive_area(t) + (1.0 - t) - p.false_negative_area(t);
            assert!((lhs - total).abs() < 1e-9);
        }
    }
}

/// Brute-force weighted optimum, with the Simpson areas and the same tie rule
/// (`b` ascending, then `r`, first strict minimum).
fn brute_optimal(t: f64, k: usize, wfp: f64, wfn: f64) -> (usize, usize, f64) {
    let mut best = (0, 0, f64::INFINITY);
    for b in 1..=k {
        for r in 1..=k / b {
            let f = curve(b, r);
            let cost = wfp * simpson(&f, 0.0, t) + wfn * simpson(|s| 1.0 - f(s), t, 1.0);
            if cost < best.2 {
                best = (b, r, cost);
            }
        }
    }
    best
}

#[test]
fn optimal_matches_brute_force_and_datasketch() {
    // datasketch's MinHashLSH(threshold=0.8, num_perm=128) picks 9 bands × 13 rows.
    let (b, r, _) = brute_optimal(0.8, 128, 0.5, 0.5);
    assert_eq!((b, r), (9, 13));
    let p = LshParams::for_threshold_balanced(0.8, 128).unwrap();
    assert_eq!((p.bands(), p.rows()), (9, 13));
    assert_eq!(p, LshParams::optimal(0.8, 128, 0.5, 0.5).unwrap());

    for (t, k, wfp, wfn) in [
        (0.5, 64, 0.5, 0.5),
        (0.9, 64, 0.5, 0.5),
        (0.8, 128, 0.2, 0.8),
        (0.7, 100, 1.0, 3.0),
        (0.3, 32, 0.9, 0.1),
    ] {
        let (b, r, cost) = brute_optimal(t, k, wfp, wfn);
        let p = LshParams::optimal(t, k, wfp, wfn).unwrap();
        let got = wfp * p.false_positive_area(t) + wfn * p.false_negative_area(t);
        // Same choice, or (on a near tie) one whose cost is equal within the
        // brute force's integration error.
        assert!(
            (p.bands(), p.rows()) == (b, r) || (got - cost).abs() < 1e-7,
            "t={t} k={k}: {p:?} vs {b}x{r}"
        );
    }
}

#[test]
fn optimal_weights_move_the_curve() {
    let balanced = LshParams::optimal(0.8, 128, 0.5, 0.5).unwrap();
    let recall = LshParams::optimal(0.8, 128, 0.05, 0.95).unwrap();
    let precision = LshParams::optimal(0.8, 128, 0.95, 0.05).unwrap();
    assert!(recall.probability(0.8) > balanced.probability(0.8));
    assert!(precision.false_positive_area(0.8) < balanced.false_positive_area(0.8));
    // Only false negatives count: one-row bands, as many as fit.
    let only_fn = LshParams::optimal(0.8, 128, 0.0, 1.0).unwrap();
    assert_eq!((only_fn.bands(), only_fn.rows()), (128, 1));
}

#[test]
fn min_candidates_for_recall_is_feasible_and_minimal() {
    for (t, k, recall) in [
        (0.8, 128, 0.99),
        (0.8, 128, 0.9),
        (0.5, 64, 0.95),
        (0.9, 32, 0.5),
    ] {
        let p = LshParams::min_candidates_for_recall(t, k, recall).unwrap();
        assert!(p.slots_used() <= k);
        assert!(p.probability(t) >= recall);
        let fp = p.false_positive_area(t);
        // Brute force: no feasible shape has a smaller false-positive area.
        for b in 1..=k {
            for r in 1..=k / b {
                let q = LshParams::new(b, r).unwrap();
                let p_t = curve(b, r)(t);
                if p_t >= recall + 1e-12 {
                    let f = curve(b, r);
                    let q_fp = simpson(f, 0.0, t);
                    assert!(
                        q_fp >= fp - 1e-7,
                        "t={t} k={k}: {q:?} has area {q_fp} < {fp} of {p:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn for_threshold_is_the_recall_banding() {
    // for_threshold is the tool's default banding: 99% recall at T, fewest
    // candidates. The shapes come from an independent brute force in Python
    // (midpoint-rule areas over every b × r ≤ 128).
    for (t, shape) in [(0.5, (35, 3)), (0.8, (16, 6)), (0.9, (11, 10))] {
        let p = LshParams::for_threshold(t, 128).unwrap();
        assert_eq!(
            p,
            LshParams::min_candidates_for_recall(t, 128, DEFAULT_MIN_RECALL).unwrap()
        );
        assert_eq!((p.bands(), p.rows()), shape, "T = {t}");
        assert!(p.probability(t) >= 0.99);
        // More candidates than the balanced choice, never fewer pairs at T.
        let balanced = LshParams::for_threshold_balanced(t, 128).unwrap();
        assert!(p.probability(t) > balanced.probability(t));
    }
}

#[test]
fn parameter_errors() {
    let kind = |r: Result<LshParams, ndd_core::Error>| r.unwrap_err().kind();
    assert_eq!(kind(LshParams::new(0, 5)), ErrorKind::InvalidParameter);
    assert_eq!(kind(LshParams::new(5, 0)), ErrorKind::InvalidParameter);
    assert_eq!(
        kind(LshParams::new(usize::MAX, 2)),
        ErrorKind::InvalidParameter
    );
    for t in [0.0, 1.0, f64::NAN, -0.5, 1.5, f64::INFINITY] {
        assert_eq!(
            kind(LshParams::for_threshold(t, 128)),
            ErrorKind::InvalidParameter
        );
        assert_eq!(
            kind(LshParams::for_threshold_balanced(t, 128)),
            ErrorKind::InvalidParameter
        );
        assert_eq!(
            kind(LshParams::optimal(t, 128, 0.5, 0.5)),
            ErrorKind::InvalidParameter
        );
        assert_eq!(
            kind(LshParams::min_candidates_for_recall(t, 128, 0.9)),
            ErrorKind::InvalidParameter
        );
    }
    for k in [0, MAX_SEARCH_SLOTS + 1] {
        assert_eq!(
            kind(LshParams::for_threshold(0.8, k)),
            ErrorKind::InvalidParameter
        );
        assert_eq!(
            kind(LshParams::for_threshold_balanced(0.8, k)),
            ErrorKind::InvalidParameter
        );
        assert_eq!(
            kind(LshParams::min_candidates_for_recall(0.8, k, 0.9)),
            ErrorKind::InvalidParameter
        );
    }
    for (wfp, wfn) in [
        (0.0, 0.0),
        (-0.1, 0.5),
        (0.5, -1.0),
        (f64::NAN, 0.5),
        (0.5, f64::INFINITY),
    ] {
        assert_eq!(
            kind(LshParams::optimal(0.8, 128, wfp, wfn)),
            ErrorKind::InvalidParameter
        );
    }
    for recall in [0.0, -0.1, 1.01, f64::NAN] {
        assert_eq!(
            kind(LshParams::min_candidates_for_recall(0.8, 128, recall)),
            ErrorKind::InvalidParameter
        );
    }
    // Infeasible: a single slot reaches recall 0.5 at 0.4 at best.
    assert_eq!(
        kind(LshParams::min_candidates_for_recall(0.4, 1, 0.5)),
        ErrorKind::InvalidParameter
    );
    // Recall 1 is accepted when a shape reaches it within f64 rounding.
    let p = LshParams::min_candidates_for_recall(0.8, 128, 1.0).unwrap();
    assert_eq!(p.probability(0.8), 1.0);
    // Slot count 1: only 1 × 1.
    assert_eq!(
        LshParams::for_threshold_balanced(0.5, 1).unwrap(),
        LshParams::new(1, 1).unwrap()
    );
    // ... whose probability at 0.5 is 0.5: no 99% recall.
    assert_eq!(
        kind(LshParams::for_threshold(0.5, 1)),
        ErrorKind::InvalidParameter
    );
}

#[test]
fn band_keys_golden_vectors() {
    // Produced by python-xxhash 3.x (the reference C xxHash), with:
    //   python3 -c "import xxhash, struct
    //   bk = lambda i, s: xxhash.xxh3_64_intdigest(b''.join(struct.pack('<Q', v) for v in s), seed=i)
    //   print(hex(bk(0, [1, 2, 3])))"  # and so on for each case below
    assert_eq!(band_key(0, &[1, 2, 3]), 0x7c68_b490_6e7e_a780);
    assert_eq!(band_key(1, &[4, 5, 6]), 0x8a7e_a1d6_fbae_d2f0);
    assert_eq!(band_key(0, &[]), 0x2d06_8005_38d3_94c2);
    assert_eq!(band_key(0, &[0]), 0xc77b_3abb_6f87_acd9);
    assert_eq!(band_key(7, &[0]), 0x473e_2c8c_d5d4_6be9);
    assert_eq!(
        band_key(3, &[u64::MAX, 0x0123_4567_89ab_cdef]),
        0xe40b_42cd_b74e_a06b
    );
    // Bands longer than the 32-slot stack buffer (streamed):
    // sl = [(i * 0x9E3779B97F4A7C15) % 2**64 for i in range(80)]; bk(0, sl[:40]), bk(1, sl[40:])
    let sl: Vec<u64> = (0..80u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    assert_eq!(band_key(0, &sl[..40]), 0x8e1b_f560_71a3_e76b);
    assert_eq!(band_key(1, &sl[40..]), 0x3897_d343_26a1_3541);
    let p = LshParams::new(2, 40).unwrap();
    assert_eq!(
        p.band_keys(&sl).unwrap(),
        vec![0x8e1b_f560_71a3_e76b, 0x3897_d343_26a1_3541]
    );
    // A 128-slot signature under the (0.8, 128) parameters, 9 × 13:
    // s2 = [(i * 0x9E3779B97F4A7C15 + 12345) % 2**64 for i in range(128)]
    // [bk(i, s2[i*13:(i+1)*13]) for i in range(9)]
    let s2: Vec<u64> = (0..128u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(12345))
        .collect();
    let p = LshParams::new(9, 13).unwrap();
    assert_eq!(
        p.band_keys(&s2).unwrap(),
        vec![
            0x02a3_3790_f474_0f90,
            0xba10_7a7a_a0ad_6e53,
            0xd78b_b89e_0154_0e8d,
            0x62b5_e447_d213_862f,
            0x6bf6_3a0e_18ad_d474,
            0x7957_4995_6123_f57a,
            0xac2f_715b_18c9_d8a0,
            0xe4fb_3334_8adf_f10d,
            0x7cc8_4cde_e4d8_1eba,
        ]
    );
}

#[test]
fn band_keys_errors_and_append() {
    let p = LshParams::new(9, 13).unwrap();
    let mut out = vec![42];
    let err = p.band_keys_into(&[0; 116], &mut out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidParameter);
    assert_eq!(out, vec![42]);
    p.band_keys_into(&[0; 117], &mut out).unwrap();
    p.band_keys_into(&[0; 128], &mut out).unwrap();
    assert_eq!(out.len(), 1 + 9 + 9);
    assert_eq!(out[1..10], out[10..19]);
    // Equal slot values in different bands give different keys.
    assert_ne!(out[1], out[2]);
}

/// `LshParams` and `ForestParams` check their shape in one place; each error names the
/// parameter at fault and keeps its message (the `ndd` tool maps the names to flags).
#[test]
fn banded_shape_errors_name_the_parameter_at_fault() {
    use ndd_core::SchemeId;
    use ndd_lsh::{ForestParams, LshForest, LshIndex, PlainSlots};
    let message = |e: ndd_core::Error| e.to_string();
    assert_eq!(
        message(LshParams::new(0, 5).unwrap_err()),
        "invalid parameter `bands`: must be at least 1"
    );
    assert_eq!(
        message(ForestParams::new(4, 0).unwrap_err()),
        "invalid parameter `depth`: must be at least 1"
    );
    assert_eq!(
        message(LshParams::new(1 << 16, 2).unwrap_err()),
        "invalid parameter `bands`: bands × rows = 65536 × 2 is above 65536, the most \
         signature values an index bands"
    );
    assert_eq!(
        message(ForestParams::new(3, 1 << 15).unwrap_err()),
        "invalid parameter `trees`: trees × depth = 3 × 32768 is above 65536"
    );
    let short = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2, 3]).unwrap();
    let mut index: LshIndex<u8, PlainSlots> = LshIndex::new(LshParams::new(2, 2).unwrap());
    assert_eq!(
        message(index.insert(1, &short).unwrap_err()),
        "invalid parameter `bands × rows`: 2 × 2 = 4 exceeds the signature's 3 slots"
    );
    let mut forest: LshForest<u8> = LshForest::new(ForestParams::new(2, 2).unwrap());
    assert_eq!(
        message(forest.insert(1, &short).unwrap_err()),
        "invalid parameter `trees × depth`: 2 × 2 = 4 exceeds the signature's 3 slots"
    );
}

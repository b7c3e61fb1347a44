//! Rabin fingerprints against an independent bit-by-bit reference, the algebraic
//! properties they must satisfy, golden vectors, and a proof that the default
//! polynomial is irreducible.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ErrorKind;
use ndd_shingle::rabin::{DEFAULT_POLYNOMIAL, RabinFingerprinter, RabinWindow, is_irreducible};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------
// Independent reference: polynomial long division over GF(2), one bit at a time.
// ---------------------------------------------------------------------------------

/// `A(x) · x^64 mod P` where `A` is the bytes' bits, MSB first, first bit highest, and
/// `P = x^64 + poly`. Shifts the message bits (then 64 zero bits) into a 65-bit
/// register and subtracts `P` whenever the x^64 coefficient is set.
fn slow_fingerprint(poly: u64, bytes: &[u8]) -> u64 {
    let p_full: u128 = (1u128 << 64) | u128::from(poly);
    let mut r: u128 = 0;
    let bits = bytes
        .iter()
        .flat_map(|&b| (0..8).rev().map(move |k| (b >> k) & 1))
        .chain(std::iter::repeat_n(0u8, 64));
    for bit in bits {
        r = (r << 1) | u128::from(bit);
        if r >> 64 & 1 == 1 {
            r ^= p_full;
        }
    }
    assert!(r < 1u128 << 64);
    u64::try_from(r).expect("remainder has degree < 64")
}

/// Carry-less product of two polynomials of degree < 64.
fn clmul(a: u64, b: u64) -> u128 {
    let mut acc = 0u128;
    for i in 0..64 {
        if b >> i & 1 == 1 {
            acc ^= u128::from(a) << i;
        }
    }
    acc
}

/// `v mod (x^64 + poly)` for any `v` held in a u128.
fn reduce(mut v: u128, poly: u64) -> u64 {
    let p_full: u128 = (1u128 << 64) | u128::from(poly);
    for i in (64..128).rev() {
        if v >> i & 1 == 1 {
            v ^= p_full << (i - 64);
        }
    }
    u64::try_from(v).expect("reduced below x^64")
}

fn mulmod(a: u64, b: u64, poly: u64) -> u64 {
    reduce(clmul(a, b), poly)
}

/// Polynomial gcd over GF(2) (u128 operands).
fn poly_gcd(mut a: u128, mut b: u128) -> u128 {
    fn deg(v: u128) -> u32 {
        127 - v.leading_zeros()
    }
    while b != 0 {
        while a != 0 && deg(a) >= deg(b) {
            a ^= b << (deg(a) - deg(b));
        }
        std::mem::swap(&mut a, &mut b);
    }
    a
}

/// Rabin's irreducibility test for degree n = 64 = 2^6: P is irreducible iff
/// x^(2^64) ≡ x (mod P) and gcd(x^(2^32) − x mod P, P) = 1 (2 is the only prime
/// dividing 64).
fn rabin_irreducible(poly: u64) -> bool {
    let x = 2u64;
    let mut r = x;
    let mut r32 = 0;
    for i in 1..=64 {
        r = mulmod(r, r, poly); // r = x^(2^i) mod P
        if i == 32 {
            r32 = r;
        }
    }
    let p_full = (1u128 << 64) | u128::from(poly);
    r == x && poly_gcd(p_full, u128::from(r32 ^ x)) == 1
}

// ---------------------------------------------------------------------------------
// Irreducibility.
// ---------------------------------------------------------------------------------

#[test]
fn default_polynomial_is_irreducible_by_rabins_test() {
    // x^64 + x^4 + x^3 + x + 1.
    assert_eq!(DEFAULT_POLYNOMIAL, 0x1B);
    assert!(rabin_irreducible(DEFAULT_POLYNOMIAL));
    assert!(is_irreducible(DEFAULT_POLYNOMIAL));
    // The two conditions, spelled out: x^(2^64) = x, and x^(2^32) != x (so the gcd
    // is not P itself) with the gcd equal to 1.
    let mut r = 2u64;
    for _ in 0..32 {
        r = mulmod(r, r, DEFAULT_POLYNOMIAL);
    }
    assert_ne!(r, 2);
    let p_full = (1u128 << 64) | 0x1B;
    assert_eq!(poly_gcd(p_full, u128::from(r ^ 2)), 1);
    for _ in 0..32 {
        r = mulmod(r, r, DEFAULT_POLYNOMIAL);
    }
    assert_eq!(r, 2);
}

#[test]
fn known_reducible_polynomials_are_rejected() {
    // Even constant term: divisible by x.
    for poly in [0u64, 0x1A, 0x2, u64::MAX - 1] {
        assert!(!is_irreducible(poly), "{poly:#x}");
        assert!(!rabin_irreducible(poly), "{poly:#x}");
    }
    // x^64 + 1 = (x + 1)^64.
    assert!(!is_irreducible(1));
    // x^64 + x + 1 and the 65-term all-ones polynomial: agree with the reference.
    assert_eq!(is_irreducible(0x3), rabin_irreducible(0x3));
    assert_eq!(is_irreducible(u64::MAX), rabin_irreducible(u64::MAX));
    // Even number of terms: P(1) = 0, so x + 1 divides P.
    assert!(!is_irreducible(0x7)); // x^64 + x^2 + x + 1
}

#[test]
fn other_known_irreducible_polynomials_are_accepted() {
    // Every odd polynomial x^64 + p(x) with p < 4000: the library's verdict matches the
    // reference implementation, and `new` follows it.
    let mut found = 0;
    for poly in (1u64..4000).step_by(2) {
        let lib = is_irreducible(poly);
        assert_eq!(lib, rabin_irreducible(poly), "{poly:#x}");
        if lib {
            found += 1;
            assert!(RabinFingerprinter::new(poly).is_ok());
        } else {
            let err = RabinFingerprinter::new(poly).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidParameter);
        }
    }
    // About 1 in 64 polynomials of degree 64 is irreducible (1 in 32 of odd ones).
    assert!((20..=120).contains(&found), "found {found}");
}

#[test]
fn new_rejects_reducible_with_invalid_parameter() {
    let err = RabinFingerprinter::new(0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidParameter);
    assert!(err.to_string().contains("poly"), "{err}");
    assert_eq!(
        RabinFingerprinter::new(DEFAULT_POLYNOMIAL).unwrap(),
        RabinFingerprinter::default()
    );
    assert_eq!(RabinFingerprinter::shared(), &RabinFingerprinter::default());
}

// ---------------------------------------------------------------------------------
// Golden vectors (computed by `slow_fingerprint` and by an independent Python
// long division, then pinned).
// ---------------------------------------------------------------------------------

const GOLDEN: &[(&[u8], u64)] = &[
    (b"", 0x0),
    (b"\x01", 0x1b),
    (b"a", GOLDEN_A),
    (b"abc", GOLDEN_ABC),
    (b"jack london", GOLDEN_JACK),
    (b"The quick brown fox jumps over the lazy dog", GOLDEN_FOX),
    (
        "na\u{ef}ve caf\u{e9} \u{65e5}\u{672c}".as_bytes(),
        GOLDEN_UTF8,
    ),
];
const GOLDEN_A: u64 = 0x0000_0000_0000_05bb;
const GOLDEN_ABC: u64 = 0x0000_0000_05be_938d;
const GOLDEN_JACK: u64 = 0x5665_113c_56f3_e37a;
const GOLDEN_FOX: u64 = 0xcec1_a8ab_6fff_9d90;
const GOLDEN_UTF8: u64 = 0x993b_efa1_b748_0e9a;

#[test]
fn golden_vectors() {
    let fp = RabinFingerprinter::default();
    for &(input, expected) in GOLDEN {
        let reference = slow_fingerprint(DEFAULT_POLYNOMIAL, input);
        assert_eq!(reference, expected, "reference for {input:?}");
        assert_eq!(fp.fingerprint(input), expected, "table for {input:?}");
    }
}

#[test]
fn small_cases_by_hand() {
    let fp = RabinFingerprinter::default();
    // Byte 0x80 is x^7; x^7 · x^64 = x^71 = x^7 · (x^4 + x^3 + x + 1) = x^11+x^10+x^8+x^7.
    assert_eq!(fp.fingerprint(&[0x80]), 0b1101_1000_0000);
    // Bytes [1, 0] is x^8; x^72 = x^8 · 0x1B.
    assert_eq!(fp.fingerprint(&[1, 0]), 0x1B00);
    // 8 bytes [1, 0, ..., 0] is x^56; x^120 = x^56 · (x^4 + x^3 + x + 1) mod P.
    let mut eight = [0u8; 8];
    eight[0] = 1;
    assert_eq!(fp.fingerprint(&eight), mulmod(1 << 56, 0x1B, 0x1B));
    // Leading zero bytes are invisible; trailing ones are not.
    assert_eq!(fp.fingerprint(b"\0\0\0x"), fp.fingerprint(b"x"));
    assert_ne!(fp.fingerprint(b"x\0"), fp.fingerprint(b"x"));
}

// ---------------------------------------------------------------------------------
// Rolling window.
// ---------------------------------------------------------------------------------

#[test]
fn window_rejects_zero_width() {
    let fp = RabinFingerprinter::default();
    let err = RabinWindow::new(&fp, 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidParameter);
}

#[test]
fn huge_window_width_does_not_allocate_up_front() {
    let fp = RabinFingerprinter::default();
    let mut w = RabinWindow::new(&fp, usize::MAX).unwrap();
    for &b in b"hello" {
        assert_eq!(w.push(b), None);
    }
    assert_eq!(w.fingerprint(), None);
}

#[test]
fn window_reset_and_reuse() {
    let fp = RabinFingerprinter::default();
    let mut w = RabinWindow::new(&fp, 3).unwrap();
    let first: Vec<u64> = b"abcdefg".iter().filter_map(|&b| w.push(b)).collect();
    w.reset();
    let second: Vec<u64> = b"abcdefg".iter().filter_map(|&b| w.push(b)).collect();
    assert_eq!(first, second);
    assert_eq!(first.len(), 5);
}

fn check_window(poly: u64, width: usize, data: &[u8]) {
    let fp = RabinFingerprinter::new(poly).expect("irreducible polynomial");
    let mut w = RabinWindow::new(&fp, width).expect("width >= 1");
    for (i, &b) in data.iter().enumerate() {
        let got = w.push(b);
        if i + 1 < width {
            assert_eq!(got, None);
        } else {
            let window = &data[i + 1 - width..=i];
            assert_eq!(got, Some(fp.fingerprint(window)), "width {width} at {i}");
            assert_eq!(got, Some(slow_fingerprint(poly, window)));
        }
    }
}

#[test]
fn window_of_width_one_and_wider_than_eight() {
    let data: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
    for width in [1, 2, 7, 8, 9, 16, 64, 100, 511, 512] {
        check_window(DEFAULT_POLYNOMIAL, width, &data);
    }
}

// ---------------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------------

/// Odd polynomials below 4000 that the reference accepts, to run properties over
/// several moduli.
fn some_irreducible_polys() -> Vec<u64> {
    (1u64..4000)
        .step_by(2)
        .filter(|&p| rabin_irreducible(p))
        .take(5)
        .chain([DEFAULT_POLYNOMIAL])
        .collect()
}

proptest! {
    #[test]
    fn table_equals_bit_by_bit_reference(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        let fp = RabinFingerprinter::default();
        prop_assert_eq!(fp.fingerprint(&data), slow_fingerprint(DEFAULT_POLYNOMIAL, &data));
    }

    #[test]
    fn table_equals_reference_for_other_polynomials(
        idx in 0usize..6,
        data in proptest::collection::vec(any::<u8>(), 0..100),
    ) {
        let polys = some_irreducible_polys();
        let poly = polys[idx % polys.len()];
        let fp = RabinFingerprinter::new(poly).unwrap();
        prop_assert_eq!(fp.polynomial(), poly);
        prop_assert_eq!(fp.fingerprint(&data), slow_fingerprint(poly, &data));
    }

    #[test]
    fn incremental_over_pieces_equals_one_shot(
        pieces in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..20), 0..10),
    ) {
        let fp = RabinFingerprinter::default();
        let whole: Vec<u8> = pieces.concat();
        let mut h = 0;
        for p in &pieces {
            h = fp.extend(h, p);
        }
        prop_assert_eq!(h, fp.fingerprint(&whole));
        // Byte at a time as well.
        let by_byte = whole.iter().fold(0, |h, &b| fp.extend_byte(h, b));
        prop_assert_eq!(by_byte, fp.fingerprint(&whole));
        // And by combining independently computed fingerprints.
        let mut c = 0;
        for p in &pieces {
            c = fp.concat(c, fp.fingerprint(p), p.len());
        }
        prop_assert_eq!(c, fp.fingerprint(&whole));
    }

    #[test]
    fn tokens_joined_by_spaces(words in proptest::collection::vec("[a-z\u{e0}-\u{ff}]{1,8}", 1..8)) {
        let fp = RabinFingerprinter::default();
        let joined = words.join(" ");
        let mut h = 0;
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                h = fp.extend_byte(h, b' ');
            }
            h = fp.extend(h, w.as_bytes());
        }
        prop_assert_eq!(h, fp.fingerprint(joined.as_bytes()));
    }

    #[test]
    fn rolling_window_equals_one_shot(
        width in 1usize..40,
        data in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let fp = RabinFingerprinter::default();
        let mut w = RabinWindow::new(&fp, width).unwrap();
        let mut rolled = Vec::new();
        w.push_all(&data, |h| rolled.push(h));
        let expected: Vec<u64> = data.windows(width).map(|win| fp.fingerprint(win)).collect();
        prop_assert_eq!(rolled, expected);
    }

    #[test]
    fn rolling_window_other_polynomial(
        idx in 0usize..6,
        width in 1usize..20,
        data in proptest::collection::vec(any::<u8>(), 0..100),
    ) {
        let polys = some_irreducible_polys();
        check_window(polys[idx % polys.len()], width, &data);
    }

    #[test]
    fn linearity_over_xor(pairs in proptest::collection::vec(any::<(u8, u8)>(), 0..200)) {
        let fp = RabinFingerprinter::default();
        let a: Vec<u8> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<u8> = pairs.iter().map(|p| p.1).collect();
        let x: Vec<u8> = pairs.iter().map(|p| p.0 ^ p.1).collect();
        prop_assert_eq!(fp.fingerprint(&x), fp.fingerprint(&a) ^ fp.fingerprint(&b));
    }

    #[test]
    fn products_of_two_degree_32_polynomials_are_reducible(a in any::<u32>(), b in any::<u32>()) {
        // (x^32 + a)(x^32 + b) = x^64 + (a + b) x^32 + ab: degree 64, reducible.
        let prod = clmul(u64::from(a) | 1 << 32, u64::from(b) | 1 << 32);
        prop_assert_eq!(prod >> 64, 1);
        let low = u64::try_from(prod & u128::from(u64::MAX)).unwrap();
        prop_assert!(!is_irreducible(low));
        prop_assert!(RabinFingerprinter::new(low).is_err());
    }

    #[test]
    fn library_irreducibility_agrees_with_reference(poly in any::<u64>()) {
        prop_assert_eq!(is_irreducible(poly), rabin_irreducible(poly));
    }
}

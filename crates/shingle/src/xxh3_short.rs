//! XXH3-64 of 1 to 16 bytes held in two registers: the token hash of
//! [`stable_hash64`](ndd_core::hash::stable_hash64) for short ASCII tokens, computed
//! from the scanner's registers without storing the token to memory, and with one
//! well-predicted branch on its length instead of three.
//!
//! This is the short-input part of the xxHash v0.8 XXH3-64 specification
//! (`XXH3_len_1to3_64b`, `XXH3_len_4to8_64b`, `XXH3_len_9to16_64b` with the default
//! secret), so it returns exactly `stable_hash64(bytes, seed)`; the tests check that
//! against the library for every length and random bytes and seeds.

/// The first 56 bytes of XXH3's default secret (`kSecret`), the only ones inputs of
/// at most 16 bytes read.
const SECRET: [u8; 56] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e,
];

const fn secret64(at: usize) -> u64 {
    let mut v = 0u64;
    let mut j = 8;
    while j > 0 {
        j -= 1;
        v = (v << 8) | SECRET[at + j] as u64;
    }
    v
}

const fn secret32(at: usize) -> u64 {
    secret64(at) & 0xffff_ffff
}

const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME_MX1: u64 = 0x1656_6791_9E37_79F9;
const PRIME_MX2: u64 = 0x9FB2_1C65_1E98_DF25;

/// The XXH3-64 short-input hash for one seed, with the seed folded into the secret
/// words once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShortXxh3 {
    flip_1to3: u64,
    flip_4to8: u64,
    flip_9to16_lo: u64,
    flip_9to16_hi: u64,
}

impl ShortXxh3 {
    #[allow(clippy::cast_possible_truncation)] // the low 32 bits of the seed, as specified
    pub(crate) const fn new(seed: u64) -> Self {
        let seed_4to8 = seed ^ (((seed as u32).swap_bytes() as u64) << 32);
        ShortXxh3 {
            flip_1to3: (secret32(0) ^ secret32(4)).wrapping_add(seed),
            flip_4to8: (secret64(8) ^ secret64(16)).wrapping_sub(seed_4to8),
            flip_9to16_lo: (secret64(24) ^ secret64(32)).wrapping_add(seed),
            flip_9to16_hi: (secret64(40) ^ secret64(48)).wrapping_sub(seed),
        }
    }

    /// `XXH3_64(bytes, seed)` of the `len` bytes (`1..=16`) stored little-endian in
    /// `lo` (bytes 0–7) and `hi` (bytes 8–15). Bytes at positions `len` and later are
    /// ignored, whatever they hold.
    ///
    /// Word lengths are unpredictable, so the two most common classes (1–3 and 4–8
    /// bytes) are both computed and one selected without a branch; only 9–16 bytes
    /// branch off.
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)] // `len <= 16`; the low 64 bits on purpose
    pub(crate) fn hash(&self, lo: u64, hi: u64, len: usize) -> u64 {
        debug_assert!((1..=16).contains(&len));
        let n = len as u32;
        let len64 = len as u64;

        if len > 8 {
            // 9..=16 bytes: the first and the last eight bytes.
            let both = (u128::from(hi) << 64) | u128::from(lo);
            let last8 = (both >> (8 * (n - 8))) as u64;
            let input_lo = lo ^ self.flip_9to16_lo;
            let input_hi = last8 ^ self.flip_9to16_hi;
            let acc = len64
                .wrapping_add(input_lo.swap_bytes())
                .wrapping_add(input_hi)
                .wrapping_add(mul128_fold64(input_lo, input_hi));
            return xxh3_avalanche(acc);
        }

        // 1..=3 bytes: first, middle and last byte with the length.
        let c1 = lo & 0xff;
        let c2 = (lo >> (8 * (n >> 1))) & 0xff;
        let c3 = (lo >> (8 * (n - 1))) & 0xff;
        let combo = (c1 << 16) | (c2 << 24) | c3 | (len64 << 8);
        let h_1to3 = xxh64_avalanche(combo ^ self.flip_1to3);

        // 4..=8 bytes: the first and the last four bytes (garbage, and unused, for
        // fewer than four bytes).
        let first4 = lo & 0xffff_ffff;
        let last4 = (lo >> (8 * (n.wrapping_sub(4) & 7))) & 0xffff_ffff;
        let keyed = last4.wrapping_add(first4 << 32) ^ self.flip_4to8;
        let h_4to8 = strong_avalanche(keyed, len64);

        // Branch-free selection (an all-ones or all-zeros mask).
        let short = u64::from(len < 4).wrapping_neg();
        (h_1to3 & short) | (h_4to8 & !short)
    }
}

#[inline(always)]
const fn xxh64_avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(PRIME64_2);
    h ^= h >> 29;
    h = h.wrapping_mul(PRIME64_3);
    h ^ (h >> 32)
}

#[inline(always)]
const fn xxh3_avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(PRIME_MX1);
    h ^ (h >> 32)
}

#[inline(always)]
const fn strong_avalanche(mut h: u64, len: u64) -> u64 {
    h ^= h.rotate_left(49) ^ h.rotate_left(24);
    h = h.wrapping_mul(PRIME_MX2);
    h ^= (h >> 35).wrapping_add(len);
    h = h.wrapping_mul(PRIME_MX2);
    h ^ (h >> 28)
}

#[inline(always)]
#[allow(clippy::cast_possible_truncation)] // the two halves of the product, on purpose
const fn mul128_fold64(a: u64, b: u64) -> u64 {
    let p = (a as u128).wrapping_mul(b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::ShortXxh3;
    use ndd_core::hash::stable_hash64;
    use proptest::prelude::*;

    fn split(bytes: &[u8; 16]) -> (u64, u64) {
        let (lo, hi) = bytes.split_at(8);
        let word = |s: &[u8]| s.iter().rev().fold(0u64, |v, &b| (v << 8) | u64::from(b));
        (word(lo), word(hi))
    }

    #[test]
    fn every_length_matches_xxh3_on_fixed_inputs() {
        let bytes = *b"abcdefghijklmnop";
        for seed in [0, 1, 42, u64::MAX, 0x0123_4567_89ab_cdef] {
            let short = ShortXxh3::new(seed);
            for len in 1..=16 {
                let mut padded = bytes;
                // Garbage after the input must not matter.
                for b in &mut padded[len..] {
                    *b = 0xff;
                }
                let (lo, hi) = split(&padded);
                assert_eq!(
                    short.hash(lo, hi, len),
                    stable_hash64(&bytes[..len], seed),
                    "len {len} seed {seed}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn matches_xxh3_for_any_bytes(bytes in any::<[u8; 16]>(), len in 1usize..=16, seed in any::<u64>()) {
            let (lo, hi) = split(&bytes);
            prop_assert_eq!(ShortXxh3::new(seed).hash(lo, hi, len), stable_hash64(&bytes[..len], seed));
        }
    }
}

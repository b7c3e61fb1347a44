//! Bit masks shared by the fingerprint and b-bit code of several crates.

/// The mask of the lowest `bits` bits of a `u64`: 0 for 0 bits, every bit for 64 or
/// more (where `(1 << bits) − 1` would overflow).
///
/// # Example
///
/// ```
/// use near_dup::bits::low_mask;
/// assert_eq!(low_mask(0), 0);
/// assert_eq!(low_mask(8), 0xFF);
/// assert_eq!(low_mask(64), u64::MAX);
/// assert_eq!(low_mask(70), u64::MAX);
/// ```
#[inline]
#[must_use]
pub fn low_mask(bits: u32) -> u64 {
    u64::MAX
        .checked_shr(64u32.saturating_sub(bits))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::low_mask;

    /// Every width against the definition: the bits below `bits` set, the others clear.
    #[test]
    fn every_width_sets_exactly_the_low_bits() {
        for bits in 0..=70u32 {
            let m = low_mask(bits);
            for b in 0..64u32 {
                assert_eq!(m >> b & 1 == 1, b < bits, "width {bits}, bit {b}");
            }
        }
    }
}

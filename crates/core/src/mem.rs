//! Memory estimates for the memory reports of the indexes: a hash map's allocation
//! from its capacity.

/// The bytes a hash map (`hashbrown`, behind `ahash`'s and std's maps) allocates for
/// `capacity` entries of `entry` bytes: a power-of-two number of buckets, at least 8/7
/// of the capacity, each holding an entry and a control byte.
///
/// # Example
///
/// ```
/// use near_dup::mem::map_bytes;
/// assert_eq!(map_bytes(0, 12), 0);
/// // 7 entries need 8 buckets, 8 entries 16 (at least 8/7 of the capacity).
/// assert_eq!(map_bytes(7, 12), 8 * 13);
/// assert_eq!(map_bytes(8, 12), 16 * 13);
/// ```
#[must_use]
pub fn map_bytes(capacity: usize, entry: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    (capacity.saturating_mul(8) / 7).next_power_of_two() * (entry + 1)
}

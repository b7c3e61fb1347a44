//! Memory estimates for the memory reports of the indexes: a hash map's allocation
//! from its capacity, and bytes per item.

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

/// `bytes` per item, as the memory reports give it (bytes per document, per term):
/// `bytes / items`, and 0 when there is no item.
///
/// # Example
///
/// ```
/// use near_dup::mem::bytes_per;
/// assert_eq!(bytes_per(400, 10), 40.0);
/// assert_eq!(bytes_per(0, 0), 0.0);
/// ```
#[must_use]
pub fn bytes_per(bytes: u64, items: u64) -> f64 {
    if items == 0 {
        0.0
    } else {
        bytes as f64 / items as f64
    }
}

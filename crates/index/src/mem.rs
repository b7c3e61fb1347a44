//! The memory estimate of the memory reports' key maps and tables: a hash map's
//! allocation from its capacity.

/// The bytes a hash map (`hashbrown`, behind `ahash`'s and std's maps) allocates for
/// `capacity` entries of `entry` bytes: a power-of-two number of buckets, at least 8/7
/// of the capacity, each holding an entry and a control byte.
pub(crate) fn map_bytes(capacity: usize, entry: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    (capacity.saturating_mul(8) / 7).next_power_of_two() * (entry + 1)
}

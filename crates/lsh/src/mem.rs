//! The memory estimates of the memory reports: a hash map's allocation from its
//! capacity, and bytes per document.

/// The bytes a hash map (`hashbrown`, behind `ahash`'s and std's maps) allocates for
/// `capacity` entries of `entry` bytes: a power-of-two number of buckets, at least 8/7
/// of the capacity, each holding an entry and a control byte.
pub(crate) fn map_bytes(capacity: usize, entry: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    (capacity.saturating_mul(8) / 7).next_power_of_two() * (entry + 1)
}

/// `bytes` divided by `documents` (0 for no document).
pub(crate) fn per_document(bytes: usize, documents: usize) -> f64 {
    if documents == 0 {
        return 0.0;
    }
    bytes as f64 / documents as f64
}

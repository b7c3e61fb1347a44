//! The one-shot all-pairs Hamming join of a collection, without an index:
//! [`for_each_hamming_pair`] and [`hamming_pairs`].

use ndd_core::Error;

use super::HammingParams;
use super::MAX_DOCS;
use super::layout::{SortScratch, layouts, radix_sort_top, scan_groups};

/// Calls `f(i, j, distance)` once for every pair of positions `i < j` of
/// `fingerprints` within `params.max_distance()` bits, in no particular order.
///
/// One table at a time: permute, radix-sort on the leading bits, compare within runs
/// of equal leading bits. Time `O(tables × (n × passes + pairs within runs))`, memory
/// 24 bytes per fingerprint (one table and its sort buffer). See [`hamming_pairs`].
///
/// # Errors
///
/// [`Error::InvalidInput`] when there are `2^32 − 1` fingerprints or more.
///
/// # Example
///
/// ```
/// use ndd_lsh::{for_each_hamming_pair, HammingParams};
/// let fps = [0u64, 0b111, 1 << 63, 0b1111];
/// let mut pairs = Vec::new();
/// for_each_hamming_pair(&fps, HammingParams::new(3, 4)?, |i, j, d| pairs.push((i, j, d)))?;
/// pairs.sort();
/// assert_eq!(pairs, vec![(0, 1, 3), (0, 2, 1), (1, 3, 1)]); // (0, 3) differ in 4 bits
/// # Ok::<(), ndd_core::Error>(())
/// ```
pub fn for_each_hamming_pair<F: FnMut(usize, usize, u32)>(
    fingerprints: &[u64],
    params: HammingParams,
    mut f: F,
) -> Result<(), Error> {
    if fingerprints.len() >= MAX_DOCS {
        return Err(Error::invalid_input(format!(
            "at most {} fingerprints per batch",
            MAX_DOCS - 1
        )));
    }
    let k = params.max_distance();
    let mut keys = Vec::with_capacity(fingerprints.len());
    let mut ids = Vec::with_capacity(fingerprints.len());
    let mut scratch = SortScratch::default();
    for layout in layouts(params) {
        keys.clear();
        ids.clear();
        keys.extend(fingerprints.iter().map(|&x| layout.permute(x)));
        #[allow(clippy::cast_possible_truncation)] // < MAX_DOCS, checked above
        ids.extend((0..fingerprints.len()).map(|i| i as u32));
        radix_sort_top(&mut keys, &mut ids, layout.lead_bits, &mut scratch);
        scan_groups(&layout, &keys, &ids, k, &mut |a, b, d| {
            let (a, b) = (a as usize, b as usize);
            f(a.min(b), a.max(b), d);
        });
    }
    Ok(())
}

/// Every pair `(i, j, distance)` with `i < j` positions of `fingerprints` that differ
/// in at most `params.max_distance()` bits, each pair once, sorted: the all-pairs
/// Hamming join of a collection without an index (see [`for_each_hamming_pair`]).
///
/// # Errors
///
/// As [`for_each_hamming_pair`].
///
/// # Example
///
/// ```
/// use ndd_lsh::{hamming_pairs, HammingParams};
/// let fps = [0xFFFF_0000_0000_0000u64, 0xFFFF_0000_0000_0007, 0x0123_4567_89AB_CDEF];
/// let pairs = hamming_pairs(&fps, HammingParams::for_collection(3, fps.len())?)?;
/// assert_eq!(pairs, vec![(0, 1, 3)]);
/// # Ok::<(), ndd_core::Error>(())
/// ```
pub fn hamming_pairs(
    fingerprints: &[u64],
    params: HammingParams,
) -> Result<Vec<(usize, usize, u32)>, Error> {
    let mut out = Vec::new();
    for_each_hamming_pair(fingerprints, params, |i, j, d| out.push((i, j, d)))?;
    out.sort_unstable();
    Ok(out)
}

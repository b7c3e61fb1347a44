//! The one-shot all-pairs Hamming join of a collection, without an index:
//! [`for_each_hamming_pair`] and [`hamming_pairs`].

use ndd_core::{Error, PairSink, ScoredPair};

use super::HammingParams;
use super::layout::{Layout, SortScratch, layouts, radix_sort_top, scan_groups};
use super::{MAX_DOCS, similarity_from_hamming};

/// The buffers of one table of the join: permuted keys, ids, the sort's scratch.
#[derive(Default)]
struct TableBuffers {
    keys: Vec<u64>,
    ids: Vec<u32>,
    scratch: SortScratch,
}

/// Refuses batches whose positions do not fit the `u32` ids.
fn check_len(fingerprints: &[u64]) -> Result<(), Error> {
    if fingerprints.len() >= MAX_DOCS {
        return Err(Error::invalid_input(format!(
            "at most {} fingerprints per batch",
            MAX_DOCS - 1
        )));
    }
    Ok(())
}

/// One table of the join: permute, radix-sort on the leading bits, compare within
/// runs of equal leading bits; `f(i, j, distance)` for the pairs this table is
/// canonical for, `i < j`. `fingerprints` holds fewer than [`MAX_DOCS`].
fn join_table(
    fingerprints: &[u64],
    layout: &Layout,
    k: u32,
    buf: &mut TableBuffers,
    f: &mut impl FnMut(usize, usize, u32),
) {
    let TableBuffers { keys, ids, scratch } = buf;
    keys.clear();
    ids.clear();
    keys.extend(fingerprints.iter().map(|&x| layout.permute(x)));
    #[allow(clippy::cast_possible_truncation)] // < MAX_DOCS, checked by the callers
    ids.extend((0..fingerprints.len()).map(|i| i as u32));
    radix_sort_top(keys, ids, layout.lead_bits, scratch);
    scan_groups(layout, keys, ids, k, &mut |a, b, d| {
        let (a, b) = (a as usize, b as usize);
        f(a.min(b), a.max(b), d);
    });
}

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
/// use near_dup::index::{for_each_hamming_pair, HammingParams};
/// let fps = [0u64, 0b111, 1 << 63, 0b1111];
/// let mut pairs = Vec::new();
/// for_each_hamming_pair(&fps, HammingParams::new(3, 4)?, |i, j, d| pairs.push((i, j, d)))?;
/// pairs.sort();
/// assert_eq!(pairs, vec![(0, 1, 3), (0, 2, 1), (1, 3, 1)]); // (0, 3) differ in 4 bits
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn for_each_hamming_pair<F: FnMut(usize, usize, u32)>(
    fingerprints: &[u64],
    params: HammingParams,
    mut f: F,
) -> Result<(), Error> {
    check_len(fingerprints)?;
    let mut buf = TableBuffers::default();
    for layout in layouts(params) {
        join_table(
            fingerprints,
            &layout,
            params.max_distance(),
            &mut buf,
            &mut f,
        );
    }
    Ok(())
}

/// Every pair of positions `i < j` of `fingerprints` that differ in at most
/// `params.max_distance()` bits, each once, as [`ScoredPair`]s `(i, j, 1 − h/64)`
/// sorted by `(i, j)`: the all-pairs Hamming join of a collection without an index
/// (see [`for_each_hamming_pair`], which hands over the distance `h` itself, and
/// [`hamming_from_similarity`](crate::hamming_from_similarity)).
///
/// With the `rayon` feature the tables are joined in parallel on rayon's pool and the
/// pairs sorted in parallel (each pair comes from one table, so no two share `(i, j)`
/// and the unstable sort has one order: the same output).
///
/// # Errors
///
/// As [`for_each_hamming_pair`].
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::index::{hamming_from_similarity, hamming_pairs, HammingParams};
/// let fps = [0xFFFF_0000_0000_0000u64, 0xFFFF_0000_0000_0007, 0x0123_4567_89AB_CDEF];
/// let pairs = hamming_pairs(&fps, HammingParams::for_collection(3, fps.len())?)?;
/// assert_eq!(pairs, vec![ScoredPair::new(0, 1, 1.0 - 3.0 / 64.0)]);
/// assert_eq!(hamming_from_similarity(pairs[0].score), Some(3));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn hamming_pairs(
    fingerprints: &[u64],
    params: HammingParams,
) -> Result<Vec<ScoredPair>, Error> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        check_len(fingerprints)?;
        let k = params.max_distance();
        let tables: Vec<Vec<ScoredPair>> = layouts(params)
            .par_iter()
            .map_init(TableBuffers::default, |buf, layout| {
                let mut out = Vec::new();
                join_table(fingerprints, layout, k, buf, &mut |i, j, d| {
                    out.push(ScoredPair::new(i, j, similarity_from_hamming(d)));
                });
                out
            })
            .collect();
        let mut out = tables.concat();
        // Each pair is canonical for one table: the keys are distinct.
        crate::pairs::sort_pairs(&mut out);
        Ok(out)
    }
    #[cfg(not(feature = "rayon"))]
    crate::pairs::sorted_pairs(|out| hamming_pairs_into(fingerprints, params, out))
}

/// Pushes every pair of positions `i < j` of `fingerprints` within
/// `params.max_distance()` bits into `sink` once, scored `1 − h/64`, in no
/// particular order: the streaming form of [`hamming_pairs`].
///
/// # Errors
///
/// As [`for_each_hamming_pair`]; nothing is pushed on error.
///
/// # Example
///
/// ```
/// use near_dup::PairCounter;
/// use near_dup::index::{hamming_pairs_into, HammingParams};
/// let mut count = PairCounter::default();
/// hamming_pairs_into(&[0u64, 1, 3, !0], HammingParams::new(1, 2)?, &mut count)?;
/// assert_eq!(count.count, 2); // 0–1 and 1–2
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn hamming_pairs_into<P: PairSink + ?Sized>(
    fingerprints: &[u64],
    params: HammingParams,
    sink: &mut P,
) -> Result<(), Error> {
    for_each_hamming_pair(fingerprints, params, |i, j, d| {
        sink.push_pair(ScoredPair::new(i, j, similarity_from_hamming(d)));
    })
}

//! [`HammingParams`]: the largest distance searched, the block count, and the cost
//! model that chooses the block count for a collection size.

use ndd_core::Error;

/// The most tables [`HammingParams`] accepts (`C(blocks, max_distance)`); each table
/// costs 12–16 bytes per fingerprint.
///
/// # Example
///
/// ```
/// use near_dup::index::{HammingParams, MAX_HAMMING_TABLES};
/// // C(16, 8) = 12,870 tables: refused.
/// assert!(12_870 > MAX_HAMMING_TABLES);
/// assert!(HammingParams::new(8, 16).is_err());
/// ```
pub const MAX_HAMMING_TABLES: usize = 1024;

/// The cost of probing one table, in units of one candidate verification (a cache
/// miss or two into the directory and the sorted keys, against a sequential XOR and
/// popcount): the weight [`HammingParams::for_collection`] gives the table count.
const PROBE_COST: f64 = 16.0;

/// Parameters of a Hamming search: the largest distance `k` searched and the number of
/// blocks `B` the 64 bits are split into (`B > k`), which fixes the tables: one per
/// choice of `B − k` leading blocks, `C(B, k)` in all.
///
/// Blocks are contiguous bit ranges, block 0 holding the lowest bits; when 64 is not a
/// multiple of `B` the first `64 mod B` blocks are one bit longer.
///
/// # The trade-off
///
/// More blocks mean more tables but more leading bits per table. A table whose
/// leading blocks span `p` bits returns about `N / 2^p` random fingerprints per probe
/// (each to be rejected by a popcount), and costs 12 bytes per fingerprint (the
/// permuted 64-bit fingerprint and a `u32` id) plus up to 4 for its prefix directory.
/// For `k = 3`:
///
/// | blocks | tables | leading bits | bytes / fingerprint | random candidates per query, N = 10⁶ | N = 10⁹ |
/// | ---: | ---: | ---: | ---: | ---: | ---: |
/// | 4 | 4 | 16 | 48–64 | 61 | 61,000 |
/// | 5 | 10 | 25–26 | 120–160 | 0.2 | 209 |
/// | 6 | 20 | 31–32 | 240–320 | 0.005 | 5 |
/// | 8 | 56 | 40 | 672–896 | 0.00005 | 0.05 |
///
/// [`for_collection`](Self::for_collection) picks the block count minimizing
/// `tables × 16 + expected random candidates` per query (a probe counted as 16
/// verifications): for `k = 3`, 4 blocks up to about 1.6 million fingerprints, 5 up to
/// about 800 million, 6 up to about 60 billion (Manku et al. use 20 tables, i.e. 6
/// blocks, for 8 billion). For the all-pairs join the same choice is close to the
/// best: each table then costs a radix sort of `N` entries plus the comparisons inside
/// runs of equal leading bits, about `N²/2^(p+1)`.
/// [`new`](Self::new) overrides it.
///
/// # Example
///
/// ```
/// use near_dup::index::HammingParams;
/// let p = HammingParams::for_collection(3, 1_000_000)?;
/// assert_eq!((p.max_distance(), p.blocks(), p.tables()), (3, 4, 4));
/// assert_eq!(p.leading_bits(), 16);
/// let big = HammingParams::new(3, 6)?; // 20 tables of 31–32 leading bits
/// assert_eq!(big.tables(), 20);
/// assert!(big.expected_candidates(1_000_000) < 0.01);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HammingParams {
    max_distance: u32,
    blocks: u32,
}

/// `C(n, k)`, saturating at `u64::MAX`.
pub(super) fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        // Exact: r · (n − i) is a product of i + 1 consecutive integers over i!.
        r = r * u128::from(n - i) / u128::from(i + 1);
    }
    u64::try_from(r).unwrap_or(u64::MAX)
}

/// `(start, len)` of block `j` of `blocks`.
pub(super) fn block_range(blocks: u32, j: u32) -> (u32, u32) {
    let base = 64 / blocks;
    let extra = 64 % blocks;
    let len = base + u32::from(j < extra);
    (j * base + j.min(extra), len)
}

impl HammingParams {
    /// Search distances up to `max_distance` bits with the 64 bits split into `blocks`
    /// blocks (`C(blocks, max_distance)` tables).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `blocks` is 0 (no table) or above 64, when
    /// `max_distance ≥ blocks` (the block layout cannot guarantee an exactly matching
    /// block), or when the layout needs more than [`MAX_HAMMING_TABLES`] tables.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::HammingParams;
    /// let p = HammingParams::new(3, 5)?;
    /// assert_eq!(p.tables(), 10);
    /// assert!(HammingParams::new(3, 3).is_err()); // k too large for 3 blocks
    /// assert!(HammingParams::new(0, 0).is_err()); // zero blocks, zero tables
    /// assert!(HammingParams::new(1, 65).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(max_distance: u32, blocks: u32) -> Result<Self, Error> {
        if blocks == 0 {
            return Err(Error::invalid_parameter(
                "blocks",
                "must be at least 1 (zero blocks give zero tables)",
            ));
        }
        if blocks > 64 {
            return Err(Error::invalid_parameter(
                "blocks",
                format!("a 64-bit fingerprint has at most 64 blocks, got {blocks}"),
            ));
        }
        if max_distance >= blocks {
            return Err(Error::invalid_parameter(
                "max_distance",
                format!(
                    "{max_distance} differing bits can touch all {blocks} blocks: blocks must exceed max_distance"
                ),
            ));
        }
        let tables = binomial(blocks, max_distance);
        if tables > MAX_HAMMING_TABLES as u64 {
            return Err(Error::invalid_parameter(
                "blocks",
                format!(
                    "C({blocks}, {max_distance}) = {tables} tables exceeds the limit of {MAX_HAMMING_TABLES}"
                ),
            ));
        }
        Ok(HammingParams {
            max_distance,
            blocks,
        })
    }

    /// The block count for searching `max_distance` bits among about `expected_len`
    /// fingerprints: the `blocks` minimizing `16 × tables + expected_candidates`
    /// (see the trade-off table on [`HammingParams`]), fewest blocks on ties.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `max_distance ≥ 64`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::HammingParams;
    /// assert_eq!(HammingParams::for_collection(3, 1_000_000)?.blocks(), 4);
    /// assert_eq!(HammingParams::for_collection(3, 100_000_000)?.blocks(), 5);
    /// assert_eq!(HammingParams::for_collection(0, 10)?.tables(), 1);
    /// assert!(HammingParams::for_collection(64, 10).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn for_collection(max_distance: u32, expected_len: usize) -> Result<Self, Error> {
        if max_distance >= 64 {
            return Err(Error::invalid_parameter(
                "max_distance",
                format!("must be below 64, got {max_distance}"),
            ));
        }
        let mut best: Option<(f64, HammingParams)> = None;
        for blocks in max_distance + 1..=64 {
            let Ok(p) = HammingParams::new(max_distance, blocks) else {
                break; // the table count only grows with more blocks
            };
            let cost = p.tables() as f64 * PROBE_COST + p.expected_candidates(expected_len);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, p));
            }
        }
        best.map(|(_, p)| p).ok_or_else(|| {
            Error::invalid_parameter("max_distance", "no block layout within the table limit")
        })
    }

    /// The largest Hamming distance searched, `k`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::index::HammingParams::new(3, 4)?.max_distance(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub const fn max_distance(&self) -> u32 {
        self.max_distance
    }

    /// The number of blocks `B`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::index::HammingParams::new(3, 4)?.blocks(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub const fn blocks(&self) -> u32 {
        self.blocks
    }

    /// The number of tables, `C(B, k)`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::index::HammingParams::new(3, 6)?.tables(), 20);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    #[allow(clippy::cast_possible_truncation)] // ≤ MAX_HAMMING_TABLES, checked in `new`
    pub fn tables(&self) -> usize {
        binomial(self.blocks, self.max_distance) as usize
    }

    /// The fewest leading bits any table matches exactly (the `B − k` shortest blocks).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::HammingParams;
    /// assert_eq!(HammingParams::new(3, 4)?.leading_bits(), 16);
    /// assert_eq!(HammingParams::new(3, 5)?.leading_bits(), 25); // blocks 13,13,13,13,12
    /// assert_eq!(HammingParams::new(0, 1)?.leading_bits(), 64);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn leading_bits(&self) -> u32 {
        // The shortest blocks are the last ones.
        (self.max_distance..self.blocks)
            .map(|j| block_range(self.blocks, j).1)
            .sum()
    }

    /// Bytes per fingerprint of the tables, without directories: `12 × tables` (a
    /// permuted `u64` and a `u32` id per table). Each table's prefix directory adds at
    /// most 4 more (it has at most one entry per fingerprint).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::index::HammingParams::new(3, 4)?.table_bytes_per_fingerprint(), 48);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn table_bytes_per_fingerprint(&self) -> usize {
        12 * self.tables()
    }
}

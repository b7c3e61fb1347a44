//! Hamming search over 64-bit fingerprints with permuted sorted tables:
//! [`HammingParams`], [`HammingIndex`], and the one-shot [`hamming_pairs`].
//!
//! The method of Gurmeet Singh Manku, Arvind Jain and Anish Das Sarma, "Detecting
//! near-duplicates for web crawling", WWW 2007, section 3 (the "Hamming distance
//! problem"), which paper 001 of the project (Zhang et al., "Effective and Fast Near
//! Duplicate Detection via Signature-Based Compression Metrics", 2016, sections 5.2
//! and 6) uses as its "Google's simhash" baseline with 64-bit fingerprints.
//!
//! The 64 bits are split into `B` contiguous blocks. Two fingerprints that differ in at
//! most `k` bits disagree in at most `k` blocks, so they agree exactly on at least
//! `B − k` blocks (pigeonhole). For every choice of `B − k` *leading* blocks there is a
//! table holding all fingerprints with their bits permuted so that the leading blocks
//! come first, sorted on those leading bits. A query permutes itself the same way,
//! finds the run of entries with equal leading bits in each table and verifies each by
//! popcount (a bit permutation preserves the Hamming distance). Every answer is found
//! in at least one table, so the search is exact; a pair agreeing on more than `B − k`
//! blocks is reported only from the table of its lowest `B − k` agreeing blocks, so
//! each answer comes once.

use std::fmt;
use std::hash::Hash;

use ahash::AHashMap;
use ndd_core::Error;

/// The most tables [`HammingParams`] accepts (`C(blocks, max_distance)`); each table
/// costs 12–16 bytes per fingerprint.
///
/// # Example
///
/// ```
/// use ndd_lsh::{HammingParams, MAX_HAMMING_TABLES};
/// // C(16, 8) = 12,870 tables: refused.
/// assert!(12_870 > MAX_HAMMING_TABLES);
/// assert!(HammingParams::new(8, 16).is_err());
/// ```
pub const MAX_HAMMING_TABLES: usize = 1024;

/// The cost of probing one table, in units of one candidate verification (a cache
/// miss or two into the directory and the sorted keys, against a sequential XOR and
/// popcount): the weight [`HammingParams::for_collection`] gives the table count.
const PROBE_COST: f64 = 16.0;
/// Directory of a table: at most `2^24` prefix entries (64 MiB).
const MAX_DIR_BITS: u32 = 24;
/// Widest radix-sort digit (a 2^11-entry histogram stays in L1).
const RADIX_BITS: u32 = 11;
/// The most documents an index or a batch holds: ids are `u32`.
const MAX_DOCS: usize = u32::MAX as usize;

mod bytes;

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
/// use ndd_lsh::HammingParams;
/// let p = HammingParams::for_collection(3, 1_000_000)?;
/// assert_eq!((p.max_distance(), p.blocks(), p.tables()), (3, 4, 4));
/// assert_eq!(p.leading_bits(), 16);
/// let big = HammingParams::new(3, 6)?; // 20 tables of 31–32 leading bits
/// assert_eq!(big.tables(), 20);
/// assert!(big.expected_candidates(1_000_000) < 0.01);
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HammingParams {
    max_distance: u32,
    blocks: u32,
}

/// `C(n, k)`, saturating at `u64::MAX`.
fn binomial(n: u32, k: u32) -> u64 {
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
fn block_range(blocks: u32, j: u32) -> (u32, u32) {
    let base = 64 / blocks;
    let extra = 64 % blocks;
    let len = base + u32::from(j < extra);
    (j * base + j.min(extra), len)
}

#[inline]
fn low_mask(len: u32) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
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
    /// use ndd_lsh::HammingParams;
    /// let p = HammingParams::new(3, 5)?;
    /// assert_eq!(p.tables(), 10);
    /// assert!(HammingParams::new(3, 3).is_err()); // k too large for 3 blocks
    /// assert!(HammingParams::new(0, 0).is_err()); // zero blocks, zero tables
    /// assert!(HammingParams::new(1, 65).is_err());
    /// # Ok::<(), ndd_core::Error>(())
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
    /// use ndd_lsh::HammingParams;
    /// assert_eq!(HammingParams::for_collection(3, 1_000_000)?.blocks(), 4);
    /// assert_eq!(HammingParams::for_collection(3, 100_000_000)?.blocks(), 5);
    /// assert_eq!(HammingParams::for_collection(0, 10)?.tables(), 1);
    /// assert!(HammingParams::for_collection(64, 10).is_err());
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_lsh::HammingParams::new(3, 4)?.max_distance(), 3);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_lsh::HammingParams::new(3, 4)?.blocks(), 4);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_lsh::HammingParams::new(3, 6)?.tables(), 20);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// use ndd_lsh::HammingParams;
    /// assert_eq!(HammingParams::new(3, 4)?.leading_bits(), 16);
    /// assert_eq!(HammingParams::new(3, 5)?.leading_bits(), 25); // blocks 13,13,13,13,12
    /// assert_eq!(HammingParams::new(0, 1)?.leading_bits(), 64);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn leading_bits(&self) -> u32 {
        // The shortest blocks are the last ones.
        (self.max_distance..self.blocks)
            .map(|j| block_range(self.blocks, j).1)
            .sum()
    }

    /// The expected number of entries a query inspects among `n` uniformly random
    /// fingerprints, summed over the tables: `Σ n / 2^p` over the tables' leading bit
    /// counts `p`. Near-duplicates add to it; the directory lets a table skip the rest.
    ///
    /// # Example
    ///
    /// ```
    /// let p = ndd_lsh::HammingParams::new(3, 4)?; // 4 tables of 16 leading bits
    /// assert!((p.expected_candidates(1 << 20) - 64.0).abs() < 1e-9);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn expected_candidates(&self, n: usize) -> f64 {
        layouts(*self)
            .iter()
            .map(|l| n as f64 * (-f64::from(l.lead_bits)).exp2())
            .sum()
    }

    /// Bytes per fingerprint of the tables, without directories: `12 × tables` (a
    /// permuted `u64` and a `u32` id per table). Each table's prefix directory adds at
    /// most 4 more (it has at most one entry per fingerprint).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_lsh::HammingParams::new(3, 4)?.table_bytes_per_fingerprint(), 48);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn table_bytes_per_fingerprint(&self) -> usize {
        12 * self.tables()
    }
}

/// One table's bit permutation and the checks derived from it.
#[derive(Clone, Debug)]
struct Layout {
    /// `(start, len)` of the blocks in permuted order, most significant first: the
    /// leading blocks, then the others.
    order: Vec<(u32, u32)>,
    /// Bits covered by the leading blocks (the top bits after permuting).
    lead_bits: u32,
    /// The leading bits, in the permuted layout.
    lead_mask: u64,
    /// The permuted masks of the non-leading blocks below the last leading block: the
    /// table is the canonical one for a pair iff the leading blocks agree and each of
    /// these disagrees.
    gaps: Vec<u64>,
}

impl Layout {
    #[inline]
    fn permute(&self, x: u64) -> u64 {
        let mut out = 0u64;
        for &(start, len) in &self.order {
            out = out.checked_shl(len).unwrap_or(0) | ((x >> start) & low_mask(len));
        }
        out
    }

    /// The value sorted and grouped on: the leading bits.
    #[inline]
    fn group(&self, permuted: u64) -> u64 {
        permuted >> (64 - self.lead_bits)
    }

    /// Whether this table is where the pair with (permuted) XOR `diff` is reported:
    /// its leading blocks are the lowest `B − k` blocks on which the pair agrees.
    #[inline]
    fn canonical(&self, diff: u64) -> bool {
        diff & self.lead_mask == 0 && self.gaps.iter().all(|&g| diff & g != 0)
    }
}

/// The tables' layouts: every `(B − k)`-subset of blocks as leading blocks, in
/// lexicographic order.
fn layouts(p: HammingParams) -> Vec<Layout> {
    let b = p.blocks;
    let lead = b - p.max_distance;
    let mut out = Vec::with_capacity(p.tables());
    let mut chosen: Vec<u32> = (0..lead).collect();
    loop {
        let mut order: Vec<(u32, u32)> = chosen.iter().map(|&j| block_range(b, j)).collect();
        order.extend(
            (0..b)
                .filter(|j| !chosen.contains(j))
                .map(|j| block_range(b, j)),
        );
        let lead_bits: u32 = order[..lead as usize].iter().map(|r| r.1).sum();
        let mut layout = Layout {
            order,
            lead_bits,
            lead_mask: u64::MAX << (64 - lead_bits),
            gaps: Vec::new(),
        };
        let last = chosen[chosen.len() - 1];
        layout.gaps = (0..last)
            .filter(|j| !chosen.contains(j))
            .map(|j| {
                let (start, len) = block_range(b, j);
                layout.permute(low_mask(len) << start)
            })
            .collect();
        out.push(layout);
        // Next combination.
        let mut i = chosen.len();
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            let limit = b as usize - (chosen.len() - i);
            if (chosen[i] as usize) < limit {
                chosen[i] += 1;
                for m in i + 1..chosen.len() {
                    chosen[m] = chosen[m - 1] + 1;
                }
                break;
            }
        }
    }
}

/// Reusable buffers of [`radix_sort_top`].
#[derive(Default)]
struct SortScratch {
    keys: Vec<u64>,
    ids: Vec<u32>,
    counts: Vec<usize>,
}

/// Sorts `keys` (and `ids` along) on their top `bits` bits, stably, by LSD radix sort
/// with digits of at most 11 bits: one read pass builds every digit's histogram, then
/// one scatter pass per digit (a digit all keys share is skipped).
#[allow(clippy::cast_possible_truncation)] // digits are masked to ≤ 11 bits
fn radix_sort_top(keys: &mut Vec<u64>, ids: &mut Vec<u32>, bits: u32, scratch: &mut SortScratch) {
    let n = keys.len();
    if n < 2 {
        return;
    }
    let shift0 = 64 - bits;
    if n < 512 {
        let mut v: Vec<(u64, u32)> = keys.iter().copied().zip(ids.iter().copied()).collect();
        v.sort_by_key(|e| e.0 >> shift0);
        for (i, (k, id)) in v.into_iter().enumerate() {
            keys[i] = k;
            ids[i] = id;
        }
        return;
    }
    let passes = bits.div_ceil(RADIX_BITS) as usize;
    let digit = bits.div_ceil(passes as u32);
    let radix = 1usize << digit;
    let mask = low_mask(digit);
    // Pass i covers bits shift0 + i·digit .. (the last may be narrower: its mask
    // reads zeros above bit 63 because the shift leaves none).
    let shift = |i: usize| shift0 + i as u32 * digit;
    let counts = &mut scratch.counts;
    counts.clear();
    counts.resize(passes * radix, 0);
    for &k in keys.iter() {
        for i in 0..passes {
            counts[i * radix + ((k >> shift(i)) & mask) as usize] += 1;
        }
    }
    scratch.keys.resize(n, 0);
    scratch.ids.resize(n, 0);
    for i in 0..passes {
        let c = &mut counts[i * radix..(i + 1) * radix];
        if c.contains(&n) {
            continue;
        }
        let mut sum = 0;
        for x in c.iter_mut() {
            let here = *x;
            *x = sum;
            sum += here;
        }
        let sh = shift(i);
        let (tk, ti) = (&mut scratch.keys, &mut scratch.ids);
        for (&k, &id) in keys.iter().zip(ids.iter()) {
            let d = ((k >> sh) & mask) as usize;
            let at = c[d];
            c[d] = at + 1;
            tk[at] = k;
            ti[at] = id;
        }
        std::mem::swap(keys, &mut scratch.keys);
        std::mem::swap(ids, &mut scratch.ids);
    }
}

/// Whether `diff` has at most `K` set bits: clears the lowest set bit `K` times
/// (two cheap operations each, cheaper than a popcount without the POPCNT
/// instruction, which the default x86-64 target lacks).
#[inline(always)]
fn at_most<const K: u32>(mut diff: u64) -> bool {
    for _ in 0..K {
        diff &= diff.wrapping_sub(1);
    }
    diff == 0
}

/// Calls `f(id_a, id_b, distance)` for every pair within `k` bits of a table sorted on
/// `layout`'s leading bits, for which this table is canonical.
fn scan_groups(
    layout: &Layout,
    keys: &[u64],
    ids: &[u32],
    k: u32,
    f: &mut impl FnMut(u32, u32, u32),
) {
    match k {
        0 => scan_groups_with(layout, keys, ids, at_most::<0>, f),
        1 => scan_groups_with(layout, keys, ids, at_most::<1>, f),
        2 => scan_groups_with(layout, keys, ids, at_most::<2>, f),
        3 => scan_groups_with(layout, keys, ids, at_most::<3>, f),
        4 => scan_groups_with(layout, keys, ids, at_most::<4>, f),
        5 => scan_groups_with(layout, keys, ids, at_most::<5>, f),
        _ => scan_groups_with(layout, keys, ids, |d: u64| d.count_ones() <= k, f),
    }
}

#[inline(always)]
fn scan_groups_with(
    layout: &Layout,
    keys: &[u64],
    ids: &[u32],
    within: impl Fn(u64) -> bool,
    f: &mut impl FnMut(u32, u32, u32),
) {
    let n = keys.len();
    let mut s = 0;
    while s < n {
        let g = layout.group(keys[s]);
        let mut e = s + 1;
        while e < n && layout.group(keys[e]) == g {
            e += 1;
        }
        if e - s > 1 {
            let group = &keys[s..e];
            for (i, &x) in group.iter().enumerate() {
                for (j, &y) in group[i + 1..].iter().enumerate() {
                    let diff = x ^ y;
                    if within(diff) && layout.canonical(diff) {
                        f(ids[s + i], ids[s + i + 1 + j], diff.count_ones());
                    }
                }
            }
        }
        s = e;
    }
}

/// Calls `f(id, distance)` for the delta entries within reach of `q`: a branch-free
/// test over chunks of 16 (which the compiler vectorizes), then the rare hits.
#[inline(always)]
fn scan_delta(
    fps: &[u64],
    ids: &[u32],
    q: u64,
    within: impl Fn(u64) -> bool,
    f: &mut impl FnMut(u32, u32),
) {
    const CHUNK: usize = 16;
    for (c, chunk) in fps.chunks(CHUNK).enumerate() {
        let hit = chunk.iter().fold(false, |acc, &x| acc | within(x ^ q));
        if hit {
            for (i, &x) in chunk.iter().enumerate() {
                if within(x ^ q) {
                    f(ids[c * CHUNK + i], (x ^ q).count_ones());
                }
            }
        }
    }
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

/// One permuted table: the permuted fingerprints sorted on the leading bits, their ids,
/// and a directory from the top `dir_bits` bits to the start of their run.
#[derive(Clone, Default)]
struct Table {
    keys: Vec<u64>,
    ids: Vec<u32>,
    /// `dir[p]..dir[p + 1]`: the entries whose top `dir_bits` bits are `p`.
    dir: Vec<u32>,
    dir_bits: u32,
}

impl Table {
    /// The entries sharing the top `dir_bits` bits of `permuted`.
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // a prefix of ≤ 24 bits
    fn range(&self, permuted: u64) -> (usize, usize) {
        if self.dir_bits == 0 {
            return (0, self.keys.len());
        }
        let p = (permuted >> (64 - self.dir_bits)) as usize;
        (self.dir[p] as usize, self.dir[p + 1] as usize)
    }

    #[allow(clippy::cast_possible_truncation)] // prefixes ≤ 24 bits; positions < MAX_DOCS
    fn rebuild_dir(&mut self, lead_bits: u32) {
        let n = self.keys.len();
        self.dir.clear();
        let d = if n < 2 {
            0
        } else {
            (usize::BITS - 1 - n.leading_zeros())
                .min(lead_bits)
                .min(MAX_DIR_BITS)
        };
        self.dir_bits = d;
        if d == 0 {
            self.dir.shrink_to_fit();
            return;
        }
        let size = 1usize << d;
        self.dir.reserve_exact(size + 1);
        let mut pos = 0usize;
        for p in 0..size {
            self.dir.push(pos as u32);
            while pos < n && (self.keys[pos] >> (64 - d)) as usize == p {
                pos += 1;
            }
        }
        self.dir.push(n as u32);
    }

    fn bytes(&self) -> usize {
        self.keys.capacity() * 8 + self.ids.capacity() * 4 + self.dir.capacity() * 4
    }
}

/// Memory used by a [`HammingIndex`], in bytes (allocated capacity), from
/// [`HammingIndex::memory`].
///
/// # Example
///
/// ```
/// use ndd_lsh::{HammingIndex, HammingParams};
/// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
/// index.extend((0..1000u64).map(|i| (i, i.wrapping_mul(0x9E37_79B9_7F4A_7C15))))?;
/// let m = index.memory();
/// assert_eq!(m.documents, 1000);
/// assert!(m.tables >= 1000 * 48);
/// // 4 tables × 12 bytes, their directories, the fingerprints (8 bytes), the delta buffer.
/// assert!(m.bytes_per_document() <= 80.0);
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct HammingMemory {
    /// Documents indexed.
    pub documents: usize,
    /// The sorted tables: 12 bytes per entry per table, plus their prefix directories.
    pub tables: usize,
    /// The unsorted delta of recent inserts (12 bytes per entry) and the fingerprint
    /// of every document slot (8 bytes).
    pub delta_and_fingerprints: usize,
    /// Key bookkeeping: the key → slot map (estimated from its capacity), the slot →
    /// key array and the free-slot lists. Heap memory owned by the keys is not counted.
    pub key_map: usize,
}

impl HammingMemory {
    /// `tables + delta_and_fingerprints`: the index structure proper.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_lsh::HammingMemory::default().index_bytes(), 0);
    /// ```
    #[must_use]
    pub fn index_bytes(&self) -> usize {
        self.tables + self.delta_and_fingerprints
    }

    /// [`index_bytes`](Self::index_bytes) + `key_map`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_lsh::HammingMemory::default().total_bytes(), 0);
    /// ```
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        self.index_bytes() + self.key_map
    }

    /// [`index_bytes`](Self::index_bytes) per document (0 when empty).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_lsh::HammingMemory::default().bytes_per_document(), 0.0);
    /// ```
    #[must_use]
    pub fn bytes_per_document(&self) -> f64 {
        if self.documents == 0 {
            0.0
        } else {
            self.index_bytes() as f64 / self.documents as f64
        }
    }
}

/// An index of 64-bit fingerprints (SimHash) that finds every stored fingerprint within
/// `k` bits of a query, and every such pair, exactly: Manku et al.'s permuted sorted
/// tables (see [`HammingParams`] for the tables and their cost). Generic over the
/// user's document key `K`.
///
/// # Build and incremental updates
///
/// The tables are sorted arrays, so the index is built in bulk and updated through a
/// small unsorted *delta*: [`insert`](Self::insert) appends to the delta, which every
/// query scans (`O(delta)`); when the delta outgrows its limit (by default
/// `max(256, 4·√N)` entries: 4,000 at a million) it is sorted and merged into every
/// table, `O(tables × N)` sequential copying, so an insert costs `O(tables × √N / 4)`
/// amortized. Measured at a million fingerprints with 4 tables (`docs/performance.md`,
/// a loaded 2-vCPU machine): a merge about 0.12 s, so about 23 µs per insert; a full
/// delta adds about 8 µs to an 8 µs query. Set the limit with
/// [`with_delta_limit`](Self::with_delta_limit) to move cost between the two.
/// [`extend`](Self::extend) inserts a batch and merges once, radix-sorting everything
/// when the batch is large: that is the bulk build. [`remove`](Self::remove) drops a
/// delta entry at once and marks a table entry dead (queries skip it); dead entries are
/// purged, and their slots reused, at the next merge. [`compact`](Self::compact)
/// merges on demand, e.g. before a burst of queries.
///
/// # Example
///
/// ```
/// use ndd_lsh::{HammingIndex, HammingParams};
/// let mut index = HammingIndex::new(HammingParams::for_collection(3, 1000)?);
/// index.insert("a", 0x0F0F_0F0F_0F0F_0F0F)?;
/// index.insert("b", 0x0F0F_0F0F_0F0F_0F0E)?; // 1 bit from "a"
/// index.insert("c", 0xF0F0_F0F0_F0F0_F0F0)?;
/// assert_eq!(index.query(0x0F0F_0F0F_0F0F_0F0F), vec![("a", 0), ("b", 1)]);
/// assert_eq!(index.all_pairs(), vec![("a", "b", 1)]);
/// assert!(index.remove(&"b"));
/// assert!(index.all_pairs().is_empty());
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Clone)]
pub struct HammingIndex<K> {
    params: HammingParams,
    layouts: Vec<Layout>,
    tables: Vec<Table>,
    delta_fps: Vec<u64>,
    delta_ids: Vec<u32>,
    /// The fingerprint of each document slot.
    fps: Vec<u64>,
    slot_keys: Vec<Option<K>>,
    by_key: AHashMap<K, u32>,
    /// Slots free for reuse.
    free: Vec<u32>,
    /// Dead slots still referenced by the tables (freed at the next merge).
    retired: Vec<u32>,
    delta_limit: Option<usize>,
}

impl<K> fmt::Debug for HammingIndex<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HammingIndex")
            .field("params", &self.params)
            .field("documents", &self.by_key.len())
            .field("delta", &self.delta_fps.len())
            .field("retired", &self.retired.len())
            .finish_non_exhaustive()
    }
}

impl<K: Clone + Eq + Hash> HammingIndex<K> {
    /// An empty index.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let index: HammingIndex<u32> = HammingIndex::new(HammingParams::new(3, 4)?);
    /// assert!(index.is_empty());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn new(params: HammingParams) -> Self {
        let layouts = layouts(params);
        let tables = vec![Table::default(); layouts.len()];
        HammingIndex {
            params,
            layouts,
            tables,
            delta_fps: Vec::new(),
            delta_ids: Vec::new(),
            fps: Vec::new(),
            slot_keys: Vec::new(),
            by_key: AHashMap::new(),
            free: Vec::new(),
            retired: Vec::new(),
            delta_limit: None,
        }
    }

    /// Builds an index from `(key, fingerprint)` pairs in one bulk sort (see
    /// [`extend`](Self::extend)).
    ///
    /// # Errors
    ///
    /// As [`extend`](Self::extend).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let fps = [0u64, 1, 3, u64::MAX];
    /// let index = HammingIndex::from_fingerprints(
    ///     HammingParams::new(2, 3)?,
    ///     fps.iter().copied().enumerate(),
    /// )?;
    /// assert_eq!(index.len(), 4);
    /// assert_eq!(index.all_pairs().len(), 3);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn from_fingerprints<I: IntoIterator<Item = (K, u64)>>(
        params: HammingParams,
        items: I,
    ) -> Result<Self, Error> {
        let mut index = Self::new(params);
        index.extend(items)?;
        Ok(index)
    }

    /// Sets the delta size that triggers a merge into the tables (`None`: the default
    /// `max(256, 4·√N)`). A larger delta makes inserts cheaper and queries dearer.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?).with_delta_limit(Some(2));
    /// for i in 0..10u64 {
    ///     index.insert(i, i << 40)?;
    /// }
    /// assert!(index.delta_len() <= 2);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn with_delta_limit(mut self, limit: Option<usize>) -> Self {
        self.delta_limit = limit;
        self
    }

    /// The parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let p = HammingParams::new(2, 4)?;
    /// assert_eq!(HammingIndex::<u8>::new(p).params(), p);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> HammingParams {
        self.params
    }

    /// The number of documents indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert('x', 1)?;
    /// index.insert('x', 2)?; // replaces
    /// assert_eq!(index.len(), 1);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether the index holds no document.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// assert!(HammingIndex::<u8>::new(HammingParams::new(3, 4)?).is_empty());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Whether a document with this key is indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(7u32, 42)?;
    /// assert!(index.contains_key(&7));
    /// assert!(!index.contains_key(&8));
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn contains_key(&self, key: &K) -> bool {
        self.by_key.contains_key(key)
    }

    /// The fingerprint stored for a key.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert("a", 42)?;
    /// assert_eq!(index.fingerprint(&"a"), Some(42));
    /// assert_eq!(index.fingerprint(&"b"), None);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn fingerprint(&self, key: &K) -> Option<u64> {
        self.by_key.get(key).map(|&s| self.fps[s as usize])
    }

    /// The number of inserts not yet merged into the tables.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u8, 5)?;
    /// assert_eq!(index.delta_len(), 1);
    /// index.compact();
    /// assert_eq!(index.delta_len(), 0);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn delta_len(&self) -> usize {
        self.delta_fps.len()
    }

    #[allow(clippy::cast_possible_truncation)] // 4·√N is far below usize::MAX
    fn limit(&self) -> usize {
        self.delta_limit.unwrap_or_else(|| {
            let main = self.tables.first().map_or(0, |t| t.keys.len());
            ((4.0 * (main as f64).sqrt()) as usize).max(256)
        })
    }

    /// Adds a document without merging; re-inserting a key replaces its entry.
    fn insert_delta(&mut self, key: K, fingerprint: u64) -> Result<(), Error> {
        if self.free.is_empty() && self.fps.len() >= MAX_DOCS - 1 && !self.by_key.contains_key(&key)
        {
            return Err(Error::invalid_input(format!(
                "a Hamming index holds at most {} documents",
                MAX_DOCS - 1
            )));
        }
        self.remove_no_merge(&key);
        let slot = if let Some(s) = self.free.pop() {
            self.fps[s as usize] = fingerprint;
            self.slot_keys[s as usize] = Some(key.clone());
            s
        } else {
            #[allow(clippy::cast_possible_truncation)] // < MAX_DOCS, checked above
            let s = self.fps.len() as u32;
            self.fps.push(fingerprint);
            self.slot_keys.push(Some(key.clone()));
            s
        };
        self.by_key.insert(key, slot);
        self.delta_fps.push(fingerprint);
        self.delta_ids.push(slot);
        Ok(())
    }

    fn merge_if_due(&mut self) {
        if self.delta_fps.len() + self.retired.len() > self.limit() {
            self.compact();
        }
    }

    /// Adds a document; re-inserting a key replaces its previous fingerprint. Merges
    /// the delta into the tables when it is due (see the type's docs).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the index already holds `2^32 − 2` documents; the
    /// index is unchanged.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u32, 0b1011)?;
    /// assert_eq!(index.query(0b0011), vec![(1, 1)]);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn insert(&mut self, key: K, fingerprint: u64) -> Result<(), Error> {
        self.insert_delta(key, fingerprint)?;
        self.merge_if_due();
        Ok(())
    }

    /// Adds many documents and merges once: the bulk build. When the batch is at least
    /// an eighth of the index, every table is rebuilt by one radix sort; otherwise the
    /// sorted batch is merged in.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the index would exceed `2^32 − 2` documents; the
    /// documents before that point are inserted.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("x", 0u64), ("y", 0b101), ("z", !0)])?;
    /// assert_eq!(index.delta_len(), 0);
    /// assert_eq!(index.all_pairs(), vec![("x", "y", 2)]);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn extend<I: IntoIterator<Item = (K, u64)>>(&mut self, items: I) -> Result<(), Error> {
        let items = items.into_iter();
        let hint = items.size_hint().0.min(MAX_DOCS);
        self.by_key.reserve(hint);
        self.fps.reserve(hint);
        self.slot_keys.reserve(hint);
        self.delta_fps.reserve(hint);
        self.delta_ids.reserve(hint);
        let mut result = Ok(());
        for (key, fp) in items {
            if let Err(e) = self.insert_delta(key, fp) {
                result = Err(e);
                break;
            }
        }
        self.compact();
        result
    }

    fn remove_no_merge(&mut self, key: &K) -> bool {
        let Some(slot) = self.by_key.remove(key) else {
            return false;
        };
        self.slot_keys[slot as usize] = None;
        if let Some(pos) = self.delta_ids.iter().rposition(|&s| s == slot) {
            self.delta_ids.swap_remove(pos);
            self.delta_fps.swap_remove(pos);
            self.free.push(slot);
        } else {
            self.retired.push(slot);
        }
        true
    }

    /// Removes a document; returns whether it was present.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("a", 1u64), ("b", 1)])?;
    /// assert!(index.remove(&"a"));
    /// assert!(!index.remove(&"a"));
    /// assert_eq!(index.query(1), vec![("b", 0)]);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn remove(&mut self, key: &K) -> bool {
        let removed = self.remove_no_merge(key);
        if removed {
            self.merge_if_due();
        }
        removed
    }

    /// Merges the delta into the tables and purges removed entries (a no-op when there
    /// is nothing to do). `O(tables × N)`; a full radix sort when the delta is at
    /// least an eighth of the tables.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u8, 7)?;
    /// index.compact();
    /// assert_eq!((index.delta_len(), index.query(7).len()), (0, 1));
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn compact(&mut self) {
        if self.delta_fps.is_empty() && self.retired.is_empty() {
            return;
        }
        // Dead entries are the retired slots: a bitset of them (N/8 bytes, cache
        // resident) replaces a random load per entry; none to test when none retired.
        let any_dead = !self.retired.is_empty();
        let mut dead = vec![
            0u64;
            if any_dead {
                self.fps.len().div_ceil(64)
            } else {
                0
            }
        ];
        for &r in &self.retired {
            dead[r as usize / 64] |= 1 << (r % 64);
        }
        let live = |id: u32| !any_dead || dead[id as usize / 64] & (1 << (id % 64)) == 0;
        let mut scratch = SortScratch::default();
        for (layout, table) in self.layouts.iter().zip(self.tables.iter_mut()) {
            let main = table.keys.len();
            let delta = self.delta_fps.len();
            let mut keys = Vec::with_capacity(main + delta);
            let mut ids = Vec::with_capacity(main + delta);
            if delta * 8 >= main {
                for (&k, &id) in table.keys.iter().zip(&table.ids) {
                    if live(id) {
                        keys.push(k);
                        ids.push(id);
                    }
                }
                keys.extend(self.delta_fps.iter().map(|&x| layout.permute(x)));
                ids.extend_from_slice(&self.delta_ids);
                radix_sort_top(&mut keys, &mut ids, layout.lead_bits, &mut scratch);
            } else {
                let mut d: Vec<(u64, u32)> = self
                    .delta_fps
                    .iter()
                    .zip(&self.delta_ids)
                    .map(|(&x, &id)| (layout.permute(x), id))
                    .collect();
                d.sort_by_key(|e| layout.group(e.0));
                let mut di = d.into_iter().peekable();
                for (&k, &id) in table.keys.iter().zip(&table.ids) {
                    let g = layout.group(k);
                    while let Some(&(dk, did)) = di.peek() {
                        if layout.group(dk) < g {
                            keys.push(dk);
                            ids.push(did);
                            di.next();
                        } else {
                            break;
                        }
                    }
                    if live(id) {
                        keys.push(k);
                        ids.push(id);
                    }
                }
                for (dk, did) in di {
                    keys.push(dk);
                    ids.push(did);
                }
            }
            table.keys = keys;
            table.ids = ids;
            table.rebuild_dir(layout.lead_bits);
        }
        self.delta_fps.clear();
        self.delta_ids.clear();
        // A bulk build leaves a delta as large as the index: give it back.
        let limit = self.limit();
        self.delta_fps.shrink_to(limit);
        self.delta_ids.shrink_to(limit);
        self.free.append(&mut self.retired);
    }

    /// Calls `f(slot, distance)` for every live document within `k` bits of `q`.
    #[inline]
    fn for_each_match(&self, q: u64, mut f: impl FnMut(u32, u32)) {
        let k = self.params.max_distance;
        for (layout, table) in self.layouts.iter().zip(&self.tables) {
            let pq = layout.permute(q);
            let (lo, hi) = table.range(pq);
            for (&key, &id) in table.keys[lo..hi].iter().zip(&table.ids[lo..hi]) {
                let diff = key ^ pq;
                let d = diff.count_ones();
                if d <= k && layout.canonical(diff) && self.slot_keys[id as usize].is_some() {
                    f(id, d);
                }
            }
        }
        match k {
            0 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<0>, &mut f),
            1 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<1>, &mut f),
            2 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<2>, &mut f),
            3 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<3>, &mut f),
            4 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<4>, &mut f),
            _ => scan_delta(
                &self.delta_fps,
                &self.delta_ids,
                q,
                |d: u64| d.count_ones() <= k,
                &mut f,
            ),
        }
    }

    /// Appends `(key, distance)` for every indexed document whose fingerprint differs
    /// from `fingerprint` in at most `k` bits, each once, in no particular order. An
    /// indexed document finds itself at distance 0. Allocation-free.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(2, 4)?);
    /// index.extend([(1u32, 0u64), (2, 0b11), (3, 0b111)])?;
    /// let mut out = Vec::new();
    /// index.query_into(0, &mut out);
    /// out.sort();
    /// assert_eq!(out, vec![(1, 0), (2, 2)]);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn query_into(&self, fingerprint: u64, out: &mut Vec<(K, u32)>) {
        self.for_each_match(fingerprint, |slot, d| {
            if let Some(k) = &self.slot_keys[slot as usize] {
                out.push((k.clone(), d));
            }
        });
    }

    /// The documents within `k` bits of `fingerprint`, as `(key, distance)` sorted by
    /// distance (allocates; see [`query_into`](Self::query_into)).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("far", 0b1110u64), ("near", 0b1)])?;
    /// assert_eq!(index.query(0), vec![("near", 1), ("far", 3)]);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn query(&self, fingerprint: u64) -> Vec<(K, u32)> {
        let mut out = Vec::new();
        self.query_into(fingerprint, &mut out);
        out.sort_by_key(|e| e.1);
        out
    }

    /// Calls `f(a, b, distance)` once for every pair of indexed documents within `k`
    /// bits, in no particular order (within a pair, either key may come first).
    ///
    /// Pairs among merged documents come from runs of equal leading bits in the sorted
    /// tables (no probe per document); each delta entry is probed against the tables
    /// and compared with the rest of the delta. Call [`compact`](Self::compact) first
    /// when the delta is large.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(1, 2)?);
    /// index.extend([(1u8, 0u64), (2, 1)])?;
    /// index.insert(3, 3)?; // still in the delta
    /// let mut pairs = Vec::new();
    /// index.for_each_pair(|a, b, d| pairs.push(((*a).min(*b), (*a).max(*b), d)));
    /// pairs.sort();
    /// assert_eq!(pairs, vec![(1, 2, 1), (2, 3, 1)]);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn for_each_pair<F: FnMut(&K, &K, u32)>(&self, mut f: F) {
        let k = self.params.max_distance;
        let key = |id: u32| self.slot_keys[id as usize].as_ref();
        for (layout, table) in self.layouts.iter().zip(&self.tables) {
            scan_groups(layout, &table.keys, &table.ids, k, &mut |a, b, d| {
                if let (Some(ka), Some(kb)) = (key(a), key(b)) {
                    f(ka, kb, d);
                }
            });
        }
        let (dfps, dids) = (&self.delta_fps, &self.delta_ids);
        for (i, (&x, &xid)) in dfps.iter().zip(dids).enumerate() {
            let Some(kx) = key(xid) else { continue };
            for (layout, table) in self.layouts.iter().zip(&self.tables) {
                let px = layout.permute(x);
                let (lo, hi) = table.range(px);
                for (&y, &yid) in table.keys[lo..hi].iter().zip(&table.ids[lo..hi]) {
                    let diff = y ^ px;
                    let d = diff.count_ones();
                    if d <= k && layout.canonical(diff) {
                        if let Some(ky) = key(yid) {
                            f(ky, kx, d);
                        }
                    }
                }
            }
            for (&y, &yid) in dfps[i + 1..].iter().zip(&dids[i + 1..]) {
                let d = (x ^ y).count_ones();
                if d <= k {
                    if let Some(ky) = key(yid) {
                        f(kx, ky, d);
                    }
                }
            }
        }
    }

    /// Every pair of indexed documents within `k` bits once, as `(a, b, distance)`
    /// (see [`for_each_pair`](Self::for_each_pair)), sorted by distance.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("a", 0u64), ("b", 0b1), ("c", 1 << 40)])?;
    /// let mut pairs = index.all_pairs();
    /// assert_eq!(pairs.len(), 3);
    /// assert_eq!(pairs[0].2, 1);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn all_pairs(&self) -> Vec<(K, K, u32)> {
        let mut out = Vec::new();
        self.for_each_pair(|a, b, d| out.push((a.clone(), b.clone(), d)));
        out.sort_by_key(|e| e.2);
        out
    }

    /// Bytes used, by part (see [`HammingMemory`]).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_lsh::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u64, 99)?;
    /// let m = index.memory();
    /// assert_eq!(m.documents, 1);
    /// assert_eq!(m.total_bytes(), m.index_bytes() + m.key_map);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> HammingMemory {
        use std::mem::size_of;
        let map_cap = self.by_key.capacity();
        let map_buckets = if map_cap == 0 {
            0
        } else {
            (map_cap.saturating_mul(8) / 7).next_power_of_two()
        };
        HammingMemory {
            documents: self.len(),
            tables: self.tables.iter().map(Table::bytes).sum(),
            delta_and_fingerprints: self.delta_fps.capacity() * 8
                + self.delta_ids.capacity() * 4
                + self.fps.capacity() * 8,
            key_map: map_buckets * (size_of::<(K, u32)>() + 1)
                + self.slot_keys.capacity() * size_of::<Option<K>>()
                + (self.free.capacity() + self.retired.capacity()) * 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_cover_every_leading_subset_once() {
        for (k, b) in [(0, 1), (1, 2), (3, 4), (3, 6), (4, 7), (2, 40), (1, 64)] {
            let p = HammingParams::new(k, b).unwrap();
            let ls = layouts(p);
            assert_eq!(ls.len(), p.tables());
            for l in &ls {
                // A permutation: popcount preserved, bijective on single bits.
                let mut seen = 0u64;
                for bit in 0..64 {
                    let y = l.permute(1u64 << bit);
                    assert_eq!(y.count_ones(), 1);
                    seen |= y;
                }
                assert_eq!(seen, u64::MAX);
            }
        }
    }

    #[test]
    fn radix_sort_orders_on_the_top_bits() {
        let mut x = 0x1234_5678u64;
        let mut keys: Vec<u64> = (0..5000)
            .map(|_| {
                x = ndd_core::hash::mix64(x.wrapping_add(1));
                x
            })
            .collect();
        let mut ids: Vec<u32> = (0..5000).collect();
        let orig = keys.clone();
        let mut scratch = SortScratch::default();
        for bits in [1, 7, 16, 25, 33, 64] {
            radix_sort_top(&mut keys, &mut ids, bits, &mut scratch);
            let sh = 64 - bits;
            assert!(keys.windows(2).all(|w| w[0] >> sh <= w[1] >> sh));
            for (k, id) in keys.iter().zip(&ids) {
                assert_eq!(orig[*id as usize], *k);
            }
        }
    }
}

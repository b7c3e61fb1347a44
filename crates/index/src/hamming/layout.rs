//! The permuted layout of one table ([`Layout`]: which blocks lead, the permutation,
//! the canonical-table check), the radix sort on leading bits, and the scans of runs
//! of equal leading bits and of the unsorted delta.

use ndd_core::bits::low_mask;

use super::params::{HammingParams, block_range};

/// Widest radix-sort digit (a 2^11-entry histogram stays in L1).
const RADIX_BITS: u32 = 11;

/// One table's bit permutation and the checks derived from it.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    /// `(start, len)` of the blocks in permuted order, most significant first: the
    /// leading blocks, then the others.
    pub(super) order: Vec<(u32, u32)>,
    /// Bits covered by the leading blocks (the top bits after permuting).
    pub(super) lead_bits: u32,
    /// The leading bits, in the permuted layout.
    pub(super) lead_mask: u64,
    /// The permuted masks of the non-leading blocks below the last leading block: the
    /// table is the canonical one for a pair iff the leading blocks agree and each of
    /// these disagrees.
    pub(super) gaps: Vec<u64>,
}

impl Layout {
    #[inline]
    pub(super) fn permute(&self, x: u64) -> u64 {
        let mut out = 0u64;
        for &(start, len) in &self.order {
            out = out.checked_shl(len).unwrap_or(0) | ((x >> start) & low_mask(len));
        }
        out
    }

    /// The value sorted and grouped on: the leading bits.
    #[inline]
    pub(super) fn group(&self, permuted: u64) -> u64 {
        permuted >> (64 - self.lead_bits)
    }

    /// Whether this table is where the pair with (permuted) XOR `diff` is reported:
    /// its leading blocks are the lowest `B − k` blocks on which the pair agrees.
    #[inline]
    pub(super) fn canonical(&self, diff: u64) -> bool {
        diff & self.lead_mask == 0 && self.gaps.iter().all(|&g| diff & g != 0)
    }
}

impl HammingParams {
    /// The expected number of entries a query inspects among `n` uniformly random
    /// fingerprints, summed over the tables: `Σ n / 2^p` over the tables' leading bit
    /// counts `p`. Near-duplicates add to it; the directory lets a table skip the rest.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::index::HammingParams::new(3, 4)?; // 4 tables of 16 leading bits
    /// assert!((p.expected_candidates(1 << 20) - 64.0).abs() < 1e-9);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn expected_candidates(&self, n: usize) -> f64 {
        layouts(*self)
            .iter()
            .map(|l| n as f64 * (-f64::from(l.lead_bits)).exp2())
            .sum()
    }
}

/// The tables' layouts: every `(B − k)`-subset of blocks as leading blocks, in
/// lexicographic order.
pub(super) fn layouts(p: HammingParams) -> Vec<Layout> {
    let b = p.blocks();
    let lead = b - p.max_distance();
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
pub(super) struct SortScratch {
    keys: Vec<u64>,
    ids: Vec<u32>,
    counts: Vec<usize>,
}

/// Sorts `keys` (and `ids` along) on their top `bits` bits, stably, by LSD radix sort
/// with digits of at most 11 bits: one read pass builds every digit's histogram, then
/// one scatter pass per digit (a digit all keys share is skipped).
#[allow(clippy::cast_possible_truncation)] // digits are masked to ≤ 11 bits
pub(super) fn radix_sort_top(
    keys: &mut Vec<u64>,
    ids: &mut Vec<u32>,
    bits: u32,
    scratch: &mut SortScratch,
) {
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
pub(super) fn at_most<const K: u32>(mut diff: u64) -> bool {
    for _ in 0..K {
        diff &= diff.wrapping_sub(1);
    }
    diff == 0
}

/// Calls `f(id_a, id_b, distance)` for every pair within `k` bits of a table sorted on
/// `layout`'s leading bits, for which this table is canonical.
pub(super) fn scan_groups(
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
pub(super) fn scan_delta(
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

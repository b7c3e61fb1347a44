//! Optimal densification of one-permutation hashing (Shrivastava, ICML 2017,
//! Algorithm 2): the document-independent probe sequences that fill empty bins, the
//! general densification, and the fixed-size (`k` = 64, 128) fast path with its sink.

use ndd_core::FeatureSink;
use ndd_core::hash::mix64;

use crate::signature::EMPTY;

/// Shifts of the densification rounds precomputed per hasher (later rounds, rarely
/// reached, are computed on demand).
const PRECOMPUTED_ROUNDS: usize = 64;

/// The document-independent probe sequences of optimal densification.
///
/// Shrivastava's Algorithm 2 fills empty bin `i` from bin `h_t(i)` for the first
/// attempt `t = 0, 1, …` that lands on a non-empty bin, each `h_t` drawn independently
/// from a universal family. We draw `h_t` from the shift family
/// `h_t(i) = (i + m_t) mod k`, `m_t` uniform in `[0, k)`: universal (two distinct bins
/// never collide under one `h_t`), each bin's probe sequence uniform and independent of
/// the data, and one attempt tests every empty bin at once with a rotation of the
/// occupancy bitmap — a few word operations per attempt instead of a probe per bin.
#[derive(Debug)]
pub(crate) struct Densifier {
    pub(crate) k: usize,
    pub(crate) key: u64,
    shifts: Vec<usize>,
    /// For the fixed sizes (`k` = 64 or 128): the distinct non-zero shifts in the order
    /// of their first attempt `t < 64k`, padded with zeros to a multiple of four. An
    /// attempt whose shift already occurred fills nothing new (its bins were tested
    /// with the same shift before) and shift 0 never fills an empty bin, so these
    /// attempts alone give the same result.
    pub(crate) order: Vec<u8>,
}

#[inline(always)]
pub(crate) fn bin_of(h: u64, k: u64) -> usize {
    // Multiply-high maps a uniform 64-bit value to [0, k) without a division; the
    // result is below k, itself a usize, so the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation)]
    let bin = ((u128::from(h) * u128::from(k)) >> 64) as usize;
    bin
}

/// Bits `[off, off + 64)` of a bitmap (zeros past its end).
#[inline(always)]
fn window(bits: &[u64], off: usize) -> u64 {
    let (q, r) = (off / 64, off % 64);
    let lo = bits.get(q).copied().unwrap_or(0) >> r;
    let hi = if r == 0 {
        0
    } else {
        bits.get(q + 1).copied().unwrap_or(0) << (64 - r)
    };
    lo | hi
}

impl Densifier {
    pub(crate) fn new(k: usize, seed: u64) -> Self {
        let key = mix64(seed ^ 0x6465_6E73_6966_7921); // "densify!"
        let mut d = Densifier {
            k,
            key,
            shifts: Vec::new(),
            order: Vec::new(),
        };
        d.shifts = (0..PRECOMPUTED_ROUNDS as u64).map(|t| d.shift(t)).collect();
        if k == 64 || k == 128 {
            let mut seen = vec![false; k];
            seen[0] = true;
            for t in 0..64 * k as u64 {
                let m = d.shift(t);
                if !seen[m] {
                    seen[m] = true;
                    // m < k <= 128.
                    d.order.extend(u8::try_from(m));
                    if d.order.len() == k - 1 {
                        break;
                    }
                }
            }
            // Padding to whole groups of four attempts: shift 0 fills nothing.
            while d.order.len() % 4 != 0 {
                d.order.push(0);
            }
        }
        d
    }

    /// `m_t`, the shift of attempt `t`.
    #[inline]
    fn shift(&self, t: u64) -> usize {
        bin_of(mix64(self.key ^ t), self.k as u64)
    }

    /// Fills, in place, each empty bin `i` of `bins` with the value of bin
    /// `(i + m_t) mod k` for the first attempt `t` where that bin is non-empty.
    /// `occupied` has bit `i` set when bin `i` is non-empty; at least one is.
    /// Non-empty bins are only read, so filling in place reads original values.
    pub(crate) fn densify(&self, bins: &mut [u64], occupied: &[u64]) {
        match occupied.len() {
            1 => self.densify_words::<1>(bins, occupied),
            2 => self.densify_words::<2>(bins, occupied),
            3 | 4 => self.densify_words::<4>(bins, occupied),
            _ => self.densify_words::<0>(bins, occupied),
        }
    }

    /// `W` 64-bit words hold the occupancy (`k <= 64·W`), in fixed-size arrays the
    /// compiler unrolls; `W = 0` is the general case, on the heap.
    #[inline(always)]
    fn densify_words<const W: usize>(&self, bins: &mut [u64], occupied: &[u64]) {
        let k = self.k;
        let words = k.div_ceil(64);
        // The occupancy ring, twice in a row, so that a rotation is a window read.
        let mut ring_fixed = [[0u64; 2]; W];
        let mut ring_heap = Vec::new();
        let ring: &mut [u64] = if W == 0 {
            ring_heap.resize(2 * words + 2, 0);
            &mut ring_heap
        } else {
            ring_fixed.as_flattened_mut()
        };
        let ring_len = ring.len();
        for (w, &bits) in occupied.iter().enumerate() {
            for base in [w * 64, k + w * 64] {
                let (q, r) = (base / 64, base % 64);
                if let Some(x) = ring.get_mut(q) {
                    *x |= bits << r;
                }
                if r != 0 && q + 1 < ring_len {
                    ring[q + 1] |= bits >> (64 - r);
                }
            }
        }
        let mut unresolved_fixed = [0u64; W];
        let mut unresolved_heap = Vec::new();
        let unresolved: &mut [u64] = if W == 0 {
            unresolved_heap.resize(words, 0);
            &mut unresolved_heap
        } else {
            &mut unresolved_fixed
        };
        let mut remaining = 0usize;
        for (w, (u, &bits)) in unresolved.iter_mut().zip(occupied).enumerate() {
            let valid = if (w + 1) * 64 <= k {
                u64::MAX
            } else {
                (1u64 << (k % 64)) - 1
            };
            *u = !bits & valid;
            remaining += u.count_ones() as usize;
        }
        let limit = 64 * k as u64;
        let mut t = 0u64;
        // A sparse document (fewer non-empty bins than bitmap words): each attempt
        // walks the non-empty bins `j` and fills `j − m_t` if it is still empty, O(f)
        // per attempt instead of O(k/64). About (k/f)·ln k attempts fill every bin, so
        // densification costs O(k log k) whatever the document; a whole-bitmap attempt
        // per round would cost O(k² log k / f): 50 s for five words at k = 2^18.
        let filled = k - remaining;
        if filled < words {
            // The non-empty bins, from the bitmap's set bits (fewer than `words`).
            let mut sources = Vec::with_capacity(filled);
            for (w, &word) in occupied.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    sources.push(w * 64 + bits.trailing_zeros() as usize);
                    bits &= bits - 1;
                }
            }
            while remaining > 2 && t < limit {
                let m = self.shift_at(t);
                t += 1;
                for &j in &sources {
                    // (i + m) mod k == j for the bin i this attempt fills from j.
                    let i = if j >= m { j - m } else { j + k - m };
                    if let Some(u) = unresolved.get_mut(i / 64) {
                        let bit = 1u64 << (i % 64);
                        if *u & bit != 0 {
                            *u &= !bit;
                            remaining -= 1;
                            if let Some(&v) = bins.get(j) {
                                bins[i] = v;
                            }
                        }
                    }
                }
            }
        }
        // Whole-bitmap attempts while many bins are unresolved; the last one or two
        // follow their own sequence bin by bin (same result, fewer instructions).
        while remaining > 2 && t < limit {
            let m = self.shift_at(t);
            t += 1;
            for (w, u) in unresolved.iter_mut().enumerate() {
                let mut hit = *u & window(ring, w * 64 + m);
                *u &= !hit;
                remaining -= hit.count_ones() as usize;
                while hit != 0 {
                    let i = w * 64 + hit.trailing_zeros() as usize;
                    hit &= hit - 1;
                    let src = if i + m >= k { i + m - k } else { i + m };
                    if let Some(&v) = bins.get(src) {
                        bins[i] = v;
                    }
                }
            }
        }
        for (w, &u) in unresolved.iter().enumerate() {
            let mut u = u;
            while u != 0 {
                let i = w * 64 + u.trailing_zeros() as usize;
                u &= u - 1;
                let src = (t..limit)
                    .map(|t| {
                        let m = self.shift_at(t);
                        if i + m >= k { i + m - k } else { i + m }
                    })
                    .find(|&j| bit_is_set(occupied, j))
                    // Not reached in practice (probability < (1 − 1/k)^(64k) ≈ e^-64);
                    // bounds the loop: the next non-empty bin to the right.
                    .or_else(|| next_occupied(occupied, i, k));
                if let Some(src) = src {
                    bins[i] = bins[src];
                }
            }
        }
    }

    #[inline(always)]
    fn shift_at(&self, t: u64) -> usize {
        match usize::try_from(t).ok().and_then(|i| self.shifts.get(i)) {
            Some(&m) => m,
            None => self.shift(t),
        }
    }
}

/// Bit `i` set when bin `i` of a block of at most 64 bins is non-empty.
#[inline(always)]
pub(crate) fn occupancy_word(bins: &[u64]) -> u64 {
    bins.iter().take(64).rev().fold(0u64, |acc, &v| {
        acc.wrapping_add(acc) | u64::from(v != EMPTY)
    })
}

/// Bits `[r, r + 64)` of the 128-bit value `hi:lo` (`r` taken mod 64): a funnel shift.
#[inline(always)]
fn funnel(lo: u64, hi: u64, r: usize) -> u64 {
    // Only the low 64 bits of the shifted value are kept.
    #[allow(clippy::cast_possible_truncation)]
    let w = (((u128::from(hi) << 64) | u128::from(lo)) >> (r & 63)) as u64;
    w
}

/// Bit `j` of the result is the lowest bit of byte `j` of `bytes` (each byte 0 or 1).
#[inline(always)]
fn byte_flags_to_bits(bytes: u64) -> u64 {
    // Byte j times 2^(7·(7 − j) + 7) lands on bit 56 + j; no two partial products share
    // a bit, so nothing carries.
    bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

impl Densifier {
    /// Densification for `k = K = 64·W` (64 or 128), in place: the same values as
    /// [`Densifier::densify`] (tested against it), with fewer instructions and fewer
    /// data-dependent branches. Occupancy comes from the per-bin flags the sink set
    /// (`seen`, eight bins per multiplication) instead of a compare per bin; the
    /// attempts run over the distinct shifts only, each a funnel shift of the
    /// occupancy and two mask operations per word; the bins are filled once per group
    /// of four attempts rather than once per attempt.
    #[inline(always)]
    pub(crate) fn finish_fixed<const K: usize, const W: usize>(
        &self,
        bins: &mut [u64; K],
        seen: &[u8; K],
    ) {
        debug_assert!(K == 64 * W && W <= 2);
        let mut occ = [0u64; W];
        for (o, block) in occ.iter_mut().zip(seen.chunks_exact(64)) {
            for (g, bytes) in block.chunks_exact(8).enumerate() {
                let mut b = [0u8; 8];
                b.copy_from_slice(bytes);
                *o |= byte_flags_to_bits(u64::from_le_bytes(b)) << (8 * g);
            }
        }
        // Bin K − 1 from its value: the one feature hash equal to u64::MAX lands there
        // and leaves the bin empty (EMPTY). In the other bins a flag means a value.
        occ[W - 1] = (occ[W - 1] & !(1 << 63)) | (u64::from(bins[K - 1] != EMPTY) << 63);
        let full: u32 = occ.iter().map(|w| w.count_ones()).sum();
        if full == 0 || full as usize == K {
            return;
        }
        // The occupancy twice in a row (and one more word), so a rotation is a window.
        let mut ring = [0u64; 8];
        for (j, r) in ring.iter_mut().enumerate().take(2 * W + 1) {
            *r = occ[j % W];
        }
        let mut todo = [0u64; W];
        for (t, o) in todo.iter_mut().zip(&occ) {
            *t = !o;
        }
        // Attempts in groups of four: the hits of each attempt (bins still empty whose
        // shifted bin is occupied) as masks, then one loop over the group's hits per
        // word, the attempt of each bin read from two bit planes. A loop per attempt
        // would end at a data-dependent count, a mispredicted branch each time.
        for group in self.order.chunks_exact(4) {
            let mut left = 0u64;
            for w in 0..W {
                let mut hits = [0u64; 4];
                let mut t = todo[w];
                for (h, &s) in hits.iter_mut().zip(group) {
                    let q = usize::from(s) >> 6;
                    let win = funnel(ring[(q + w) % 8], ring[(q + w + 1) % 8], usize::from(s));
                    *h = t & win;
                    t ^= *h;
                }
                todo[w] = t;
                left |= t;
                let (plane1, plane2) = (hits[1] | hits[3], hits[2] | hits[3]);
                let mut offset = [0usize; 4];
                for (o, &s) in offset.iter_mut().zip(group) {
                    *o = 64 * w + usize::from(s);
                }
                let mut u = hits[0] | hits[1] | hits[2] | hits[3];
                while u != 0 {
                    let i = u.trailing_zeros();
                    u &= u - 1;
                    // The attempt that hit bin i (the masks are disjoint) from two bit
                    // planes, as a table index: selects here become branches.
                    let a = ((plane1 >> i) & 1) | (((plane2 >> i) & 1) << 1);
                    // `a` < 4; the cast cannot truncate.
                    #[allow(clippy::cast_possible_truncation)]
                    let off = offset[a as usize % 4];
                    let i = i as usize;
                    bins[(64 * w + i) % K] = bins[(i + off) % K];
                }
            }
            if left == 0 {
                break;
            }
        }
        // Bins no shift within 64k attempts reaches (not met in practice): the next
        // non-empty bin to the right, as in `densify`.
        for (w, &u) in todo.iter().enumerate() {
            let mut u = u;
            while u != 0 {
                let i = 64 * w + u.trailing_zeros() as usize;
                u &= u - 1;
                if let Some(src) = (1..K).map(|d| (i + d) % K).find(|&j| bit_is_set(&occ, j)) {
                    bins[i % K] = bins[src];
                }
            }
        }
    }
}

/// The feature sink of one-permutation hashing for `k = K`: the bins borrowed as an
/// array and the key in a register for the whole document (the extractor's loop
/// inlines `push`).
pub(crate) struct FixedOphSink<'a, const K: usize> {
    pub(crate) bins: &'a mut [u64; K],
    pub(crate) seen: &'a mut [u8; K],
    pub(crate) key: u64,
}

impl<const K: usize> FeatureSink for FixedOphSink<'_, K> {
    #[inline(always)]
    fn push(&mut self, feature: u64) {
        let h = mix64(feature ^ self.key);
        let bin = bin_of(h, K as u64) % K;
        let m = &mut self.bins[bin];
        *m = (*m).min(h);
        // A store without a read: no dependency from one feature to the next.
        self.seen[bin] = 1;
    }
}

#[inline(always)]
pub(crate) fn bit_is_set(bits: &[u64], i: usize) -> bool {
    bits.get(i >> 6).is_some_and(|w| (w >> (i & 63)) & 1 != 0)
}

/// The first set bit after `i` in `occupied`, cyclically over `k` bins: the fallback
/// source of an empty bin when its probe sequence finds none.
fn next_occupied(occupied: &[u64], i: usize, k: usize) -> Option<usize> {
    (1..k)
        .map(|d| (i + d) % k)
        .find(|&j| bit_is_set(occupied, j))
}

/// The per-feature key of one-permutation hashing, derived from the seed.
pub(crate) fn oph_key(d: &Densifier) -> u64 {
    // Independent of the densification key: a different constant through mix64.
    mix64(d.key ^ 0x6F70_6862_696E_7321) // "ophbins!"
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Algorithm 2 the slow way: each empty bin follows its own probe sequence.
    fn reference(d: &Densifier, bins: &[u64], occupied: &[u64]) -> Vec<u64> {
        let k = d.k;
        let mut out = bins.to_vec();
        for (i, slot) in out.iter_mut().enumerate() {
            if bit_is_set(occupied, i) {
                continue;
            }
            let src = (0..64 * k as u64)
                .map(|t| (i + d.shift(t)) % k)
                .find(|&j| bit_is_set(occupied, j))
                .or_else(|| next_occupied(occupied, i, k));
            if let Some(j) = src {
                *slot = bins[j];
            }
        }
        out
    }

    /// The sparse, whole-bitmap and per-bin paths together equal the definition, for
    /// every density from one non-empty bin to almost full, at sizes around the word
    /// boundaries and the switch between the paths.
    #[test]
    fn densification_equals_the_definition_at_every_density() {
        let mut rng = ChaCha8Rng::seed_from_u64(19);
        for k in [1, 2, 3, 63, 65, 100, 200, 500, 1000, 4097] {
            for filled in [
                1,
                2,
                3,
                5,
                k / 100,
                k / 64,
                k / 64 + 1,
                k / 10,
                k / 2,
                k - 1,
            ] {
                let filled = filled.clamp(1, k);
                let d = Densifier::new(k, rng.random());
                let mut bins = vec![EMPTY; k];
                let mut occupied = vec![0u64; k.div_ceil(64)];
                let mut placed = 0;
                while placed < filled {
                    let j = rng.random_range(0..k);
                    if !bit_is_set(&occupied, j) {
                        occupied[j / 64] |= 1 << (j % 64);
                        bins[j] = rng.random::<u64>() >> 1;
                        placed += 1;
                    }
                }
                let expected = reference(&d, &bins, &occupied);
                d.densify(&mut bins, &occupied);
                assert_eq!(bins, expected, "k = {k}, filled = {filled}");
            }
        }
    }
}

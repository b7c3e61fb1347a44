//! The longest common subsequence of two token sequences, bit-parallel, with an
//! early exit once a required length can no longer be reached.

use std::collections::HashMap;

use ndd_core::hash::KGramRoller;

/// The tokens of one side beyond which a pair is compared on its first
/// `MAX_TOKENS` tokens only: 2^20 (about a million words, a 6 MB text). The LCS of two
/// such sides costs at most 2^40 / 64 = 1.7·10^10 word operations.
///
/// # Example
///
/// ```
/// use ndd_align::{Aligner, MAX_TOKENS};
/// let long = vec![1u64; MAX_TOKENS + 10];
/// let r = Aligner::new().lcs(&long, &[1, 1, 1], 0);
/// assert_eq!((r.len_a, r.lcs), (MAX_TOKENS, Some(3)));
/// ```
pub const MAX_TOKENS: usize = 1 << 20;

/// What one LCS computation found: its length (or that it is below what was asked)
/// and the set statistics read off on the way.
///
/// # Example
///
/// ```
/// use ndd_align::{Aligner, TokenOptions};
/// let o = TokenOptions::default();
/// let (a, b) = (o.hashes("a b c d"), o.hashes("a x c d d"));
/// let r = Aligner::new().lcs(&a, &b, 0);
/// assert_eq!(r.lcs, Some(3));
/// assert_eq!((r.len_a, r.len_b), (4, 5));
/// assert_eq!(r.word_jaccard(), 3.0 / 5.0); // {a,c,d} of {a,b,c,d,x}
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LcsResult {
    /// The LCS length, or `None` when it is below the required length (the
    /// computation may have stopped early).
    pub lcs: Option<usize>,
    /// Tokens of the first sequence that were compared (at most [`MAX_TOKENS`]).
    pub len_a: usize,
    /// Tokens of the second sequence that were compared.
    pub len_b: usize,
    /// Distinct tokens of the first sequence.
    pub distinct_a: usize,
    /// Distinct tokens of the second sequence.
    pub distinct_b: usize,
    /// Distinct tokens in both.
    pub distinct_common: usize,
    /// Distinct word 3-grams of the first sequence (the shingles of a
    /// `WordShingler::new(3)`: a sequence of one or two tokens is one shingle).
    pub shingles_a: usize,
    /// Distinct word 3-grams of the second sequence.
    pub shingles_b: usize,
    /// Distinct word 3-grams in both.
    pub shingles_common: usize,
    /// Whether the bit-parallel pass stopped before the end because the required
    /// length could no longer be reached.
    pub stopped_early: bool,
}

impl LcsResult {
    /// The Jaccard coefficient of the two word 3-gram sets (the pipeline's exact
    /// verifier on its default shingles): 1 for two empty sequences.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_align::{Aligner, TokenOptions};
    /// let o = TokenOptions::default();
    /// let r = Aligner::new().lcs(&o.hashes("a b c d"), &o.hashes("a b c e"), 0);
    /// assert_eq!(r.shingle_jaccard(), 1.0 / 3.0); // {abc} of {abc, bcd, bce}
    /// ```
    #[must_use]
    pub fn shingle_jaccard(&self) -> f64 {
        let union = self.shingles_a + self.shingles_b - self.shingles_common;
        if union == 0 {
            1.0
        } else {
            self.shingles_common as f64 / union as f64
        }
    }

    /// The Jaccard coefficient of the two token sets: 1 for two empty sequences.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_align::{Aligner, TokenOptions};
    /// let o = TokenOptions::default();
    /// assert_eq!(Aligner::new().lcs(&o.hashes(""), &o.hashes(""), 0).word_jaccard(), 1.0);
    /// ```
    #[must_use]
    pub fn word_jaccard(&self) -> f64 {
        let union = self.distinct_a + self.distinct_b - self.distinct_common;
        if union == 0 {
            1.0
        } else {
            self.distinct_common as f64 / union as f64
        }
    }
}

/// A per-token entry of the symbol table: its bit row (or `NO_ROW`) and counts.
#[derive(Debug, Clone, Copy)]
struct Entry {
    row: u32,
    count_a: u32,
    count_b: u32,
}

const NO_ROW: u32 = u32::MAX;

/// Computes longest common subsequences of token sequences, reusing its buffers
/// from pair to pair (one per thread).
///
/// The algorithm is the bit-parallel LCS of Allison and Dix (1986) in the form of
/// Crochemore et al. (2001) as Hyyrö (2004) presents it: the shorter sequence is a bit
/// vector, the longer is read one token at a time, and each step costs
/// ⌈shorter / 64⌉ word operations, so a pair costs O(|a|·|b| / 64) and memory
/// O(distinct common tokens · |shorter| / 64) words. Tokens of the longer side that
/// the shorter lacks cost one hash lookup.
///
/// With a required length (from a threshold), the pass stops as soon as the LCS so
/// far plus the matchable tokens still to read falls below it, and no bit is set up
/// when the multiset bound Σ min(count in a, count in b) is already below it, so a
/// candidate that fails costs little. The stopping never changes the answer to "is
/// the LCS at least this long".
///
/// # Example
///
/// ```
/// use ndd_align::{Aligner, TokenOptions};
/// let o = TokenOptions::default();
/// let a = o.hashes("the quick brown fox jumps over the lazy dog");
/// let b = o.hashes("the quick red fox jumped over the lazy dog");
/// let mut aligner = Aligner::new();
/// assert_eq!(aligner.lcs_len(&a, &b), 7);
/// assert_eq!(aligner.lcs(&a, &b, 8).lcs, None); // fewer than 8: stops early
/// ```
///
/// # References
///
/// * L. Allison and T. I. Dix, "A bit-string longest-common-subsequence algorithm",
///   *Information Processing Letters* 23(5), 1986.
/// * H. Hyyrö, "Bit-parallel LCS-length computation revisited", *Proceedings of the
///   15th Australasian Workshop on Combinatorial Algorithms (AWOCA)*, 2004.
#[derive(Debug, Clone, Default)]
pub struct Aligner {
    table: HashMap<u64, Entry, ahash::RandomState>,
    rows: Vec<u64>,
    v: Vec<u64>,
    /// The row of each token of the longer side (`NO_ROW` when it cannot match).
    b_rows: Vec<u32>,
    /// The word 3-gram sets of the two sides, sorted.
    grams_a: Vec<u64>,
    grams_b: Vec<u64>,
}

impl Aligner {
    /// An aligner with empty buffers.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_align::Aligner::new().lcs_len(&[1, 2, 3], &[2, 3, 4]), 2);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The LCS length of `a` and `b` (each cut to its first [`MAX_TOKENS`] tokens).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_align::Aligner::new().lcs_len(&[1, 2, 3, 4], &[1, 3, 4, 2]), 3);
    /// ```
    pub fn lcs_len(&mut self, a: &[u64], b: &[u64]) -> usize {
        self.lcs(a, b, 0).lcs.unwrap_or(0)
    }

    /// The LCS of `a` and `b` if it is at least `min_len` tokens long, with the token
    /// set statistics; each side is cut to its first [`MAX_TOKENS`] tokens.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_align::Aligner;
    /// let mut al = Aligner::new();
    /// assert_eq!(al.lcs(&[1, 2, 3], &[1, 2, 3], 3).lcs, Some(3));
    /// let r = al.lcs(&[1, 2, 3], &[3, 2, 1], 2);
    /// assert_eq!(r.lcs, None);
    /// assert_eq!(r.word_jaccard(), 1.0);
    /// ```
    pub fn lcs(&mut self, a: &[u64], b: &[u64], min_len: usize) -> LcsResult {
        self.lcs_with(a, b, |_| Some(min_len))
    }

    /// [`lcs`](Self::lcs) with the required length chosen from the set statistics
    /// (`None`: nothing can pass, do not run the pass).
    pub(crate) fn lcs_with(
        &mut self,
        a: &[u64],
        b: &[u64],
        required: impl FnOnce(&LcsResult) -> Option<usize>,
    ) -> LcsResult {
        let a = &a[..a.len().min(MAX_TOKENS)];
        let b = &b[..b.len().min(MAX_TOKENS)];
        let (len_a, len_b) = (a.len(), b.len());
        // The shorter side is the bit vector.
        let (short, long, swapped) = if a.len() <= b.len() {
            (a, b, false)
        } else {
            (b, a, true)
        };
        self.table.clear();
        for &t in short {
            self.table
                .entry(t)
                .or_insert(Entry {
                    row: NO_ROW,
                    count_a: 0,
                    count_b: 0,
                })
                .count_a += 1;
        }
        let distinct_short = self.table.len();
        let mut distinct_long = 0;
        for &t in long {
            let e = self.table.entry(t).or_insert(Entry {
                row: NO_ROW,
                count_a: 0,
                count_b: 0,
            });
            if e.count_b == 0 {
                distinct_long += 1;
            }
            e.count_b += 1;
        }
        let mut common = 0usize;
        let mut multiset_bound = 0usize;
        for e in self.table.values_mut() {
            if e.count_a > 0 && e.count_b > 0 {
                e.row = u32::try_from(common).unwrap_or(NO_ROW);
                common += 1;
                multiset_bound += e.count_a.min(e.count_b) as usize;
            }
        }
        let (distinct_a, distinct_b) = if swapped {
            (distinct_long, distinct_short)
        } else {
            (distinct_short, distinct_long)
        };
        shingles_into(a, &mut self.grams_a);
        shingles_into(b, &mut self.grams_b);
        let mut result = LcsResult {
            lcs: None,
            len_a,
            len_b,
            distinct_a,
            distinct_b,
            distinct_common: common,
            shingles_a: self.grams_a.len(),
            shingles_b: self.grams_b.len(),
            shingles_common: sorted_common(&self.grams_a, &self.grams_b),
            stopped_early: false,
        };
        let Some(min_len) = required(&result) else {
            return result;
        };
        if multiset_bound < min_len {
            return result;
        }
        if common == 0 {
            result.lcs = Some(0).filter(|&l| l >= min_len);
            return result;
        }
        let words = short.len().div_ceil(64);
        self.rows.clear();
        self.rows.resize(common * words, 0);
        for (i, t) in short.iter().enumerate() {
            let row = self.table[t].row;
            if row != NO_ROW {
                self.rows[row as usize * words + i / 64] |= 1 << (i % 64);
            }
        }
        self.b_rows.clear();
        self.b_rows.extend(
            long.iter()
                .map(|t| self.table.get(t).map_or(NO_ROW, |e| e.row)),
        );
        // Matchable tokens of the long side, counted down as they are read.
        let mut matchable = self.b_rows.iter().filter(|&&r| r != NO_ROW).count();
        self.v.clear();
        self.v.resize(words, u64::MAX);
        let n = short.len();
        let mut since_check = 0u32;
        for &r in &self.b_rows {
            if r == NO_ROW {
                continue;
            }
            matchable -= 1;
            let row = &self.rows[r as usize * words..(r as usize + 1) * words];
            let mut carry = false;
            for (v, &m) in self.v.iter_mut().zip(row) {
                let x = *v;
                let u = x & m;
                let (s1, c1) = x.overflowing_add(u);
                let (s2, c2) = s1.overflowing_add(u64::from(carry));
                carry = c1 || c2;
                *v = s2 | (x & !m);
            }
            since_check += 1;
            if min_len > 0 && since_check >= 32 {
                since_check = 0;
                if zeros(&self.v, n) + matchable < min_len {
                    result.stopped_early = true;
                    return result;
                }
            }
        }
        let lcs = zeros(&self.v, n);
        result.lcs = (lcs >= min_len).then_some(lcs);
        result
    }
}

/// The distinct word 3-gram hashes of a token sequence, sorted: the values of
/// `ndd_shingle::WordShingler::new(3)` (a shorter sequence is one shingle of all its
/// tokens; an empty one has none).
fn shingles_into(tokens: &[u64], out: &mut Vec<u64>) {
    out.clear();
    let Ok(mut roller) = KGramRoller::new(3) else {
        return;
    };
    out.extend(tokens.iter().filter_map(|&t| roller.push(t)));
    if out.is_empty() {
        out.extend(roller.partial());
    }
    out.sort_unstable();
    out.dedup();
}

/// How many values two sorted, distinct lists share.
fn sorted_common(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The zero bits among the first `n` bits of `v`: the LCS length so far.
fn zeros(v: &[u64], n: usize) -> usize {
    let full = n / 64;
    let mut z: usize = v[..full].iter().map(|w| w.count_zeros() as usize).sum();
    let rest = n % 64;
    if rest > 0 {
        let mask = (1u64 << rest) - 1;
        z += (!v[full] & mask).count_ones() as usize;
    }
    z
}

/// The LCS length by the textbook dynamic program: O(|a|·|b|) time, O(|b|) memory.
/// Slow; it is the reference the bit-parallel [`Aligner`] is tested and benchmarked
/// against.
///
/// # Example
///
/// ```
/// use ndd_align::{quadratic_lcs_len, Aligner};
/// let (a, b) = ([5, 1, 2, 5, 3], [1, 5, 2, 3, 5]);
/// assert_eq!(quadratic_lcs_len(&a, &b), 3);
/// assert_eq!(Aligner::new().lcs_len(&a, &b), 3);
/// ```
#[must_use]
pub fn quadratic_lcs_len<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                cur[j].max(prev[j + 1])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

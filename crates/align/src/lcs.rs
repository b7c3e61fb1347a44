//! The longest common subsequence of two token sequences, bit-parallel, with an
//! early exit once a required length can no longer be reached.

use std::ops::Range;

use ndd_core::hash::KGramRoller;

/// The tokens of one side beyond which a pair is compared on its first
/// `MAX_TOKENS` tokens only: 2^20 (about a million words, a 6 MB text). The LCS of two
/// such sides costs at most 2^40 / 64 = 1.7·10^10 word operations.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, MAX_TOKENS};
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
/// use near_dup::align::{Aligner, TokenOptions};
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
    /// use near_dup::align::{Aligner, TokenOptions};
    /// let o = TokenOptions::default();
    /// let r = Aligner::new().lcs(&o.hashes("a b c d"), &o.hashes("a b c e"), 0);
    /// assert_eq!(r.shingle_jaccard(), 1.0 / 3.0); // {abc} of {abc, bcd, bce}
    /// ```
    #[must_use]
    pub fn shingle_jaccard(&self) -> f64 {
        jaccard_of_counts(self.shingles_a, self.shingles_b, self.shingles_common)
    }

    /// The Jaccard coefficient of the two token sets: 1 for two empty sequences.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, TokenOptions};
    /// let o = TokenOptions::default();
    /// assert_eq!(Aligner::new().lcs(&o.hashes(""), &o.hashes(""), 0).word_jaccard(), 1.0);
    /// ```
    #[must_use]
    pub fn word_jaccard(&self) -> f64 {
        jaccard_of_counts(self.distinct_a, self.distinct_b, self.distinct_common)
    }
}

/// Jaccard of two sets from their sizes and their intersection's (1 for two empty
/// sets, as `ndd_core::jaccard`).
fn jaccard_of_counts(a: usize, b: usize, common: usize) -> f64 {
    let union = a + b - common;
    if union == 0 {
        1.0
    } else {
        common as f64 / union as f64
    }
}

/// A token of the long side that the short side lacks.
const NO_ROW: u32 = u32::MAX;

/// Computes longest common subsequences of token sequences, reusing its buffers
/// from pair to pair (one per thread).
///
/// The algorithm is the bit-parallel LCS of Allison and Dix (1986) in the form of
/// Crochemore et al. (2001) as Hyyrö (2004) presents it: the shorter sequence is a bit
/// vector, the longer is read one token at a time, and each step costs
/// ⌈shorter / 64⌉ word operations, so a pair costs O(|a|·|b| / 64) and memory
/// O(distinct common tokens · |shorter| / 64) words. The tokens both sides have are
/// found by merging the two sides' tokens sorted by hash (O(n log n), or O(n) for
/// [`Prepared`](crate::Prepared) documents, which keep them sorted); tokens of the
/// longer side that the shorter lacks are skipped.
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
/// use near_dup::align::{Aligner, TokenOptions};
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
    /// Per token both sides have: its entries in the short and the long side's
    /// sorted lists.
    shared: Vec<(Range<usize>, Range<usize>)>,
    rows: Vec<u64>,
    v: Vec<u64>,
    /// The row of each token of the longer side (`NO_ROW` when it cannot match).
    b_rows: Vec<u32>,
    /// The word 3-gram sets of the two sides, sorted.
    pub(crate) grams_a: Vec<u64>,
    pub(crate) grams_b: Vec<u64>,
    /// Each side's (token, position), sorted.
    pub(crate) pos_a: Vec<(u64, u32)>,
    pub(crate) pos_b: Vec<(u64, u32)>,
}

impl Aligner {
    /// An aligner with empty buffers.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::Aligner::new().lcs_len(&[1, 2, 3], &[2, 3, 4]), 2);
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
    /// assert_eq!(near_dup::align::Aligner::new().lcs_len(&[1, 2, 3, 4], &[1, 3, 4, 2]), 3);
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
    /// use near_dup::align::Aligner;
    /// let mut al = Aligner::new();
    /// assert_eq!(al.lcs(&[1, 2, 3], &[1, 2, 3], 3).lcs, Some(3));
    /// let r = al.lcs(&[1, 2, 3], &[3, 2, 1], 2);
    /// assert_eq!(r.lcs, None);
    /// assert_eq!(r.word_jaccard(), 1.0);
    /// ```
    pub fn lcs(&mut self, a: &[u64], b: &[u64], min_len: usize) -> LcsResult {
        let a = &a[..a.len().min(MAX_TOKENS)];
        let b = &b[..b.len().min(MAX_TOKENS)];
        shingles_into(a, &mut self.grams_a);
        shingles_into(b, &mut self.grams_b);
        let mut r = self.core_of_tokens(a, b, min_len);
        r.shingles_a = self.grams_a.len();
        r.shingles_b = self.grams_b.len();
        r.shingles_common = ndd_core::intersection_len(&self.grams_a, &self.grams_b);
        r
    }

    /// [`core`](Self::core) on token lists (already cut to [`MAX_TOKENS`]), sorted
    /// into the aligner's buffers.
    pub(crate) fn core_of_tokens(&mut self, a: &[u64], b: &[u64], min_len: usize) -> LcsResult {
        let (mut pa, mut pb) = (
            std::mem::take(&mut self.pos_a),
            std::mem::take(&mut self.pos_b),
        );
        sorted_positions(a, &mut pa);
        sorted_positions(b, &mut pb);
        let r = self.core(&pa, &pb, min_len);
        (self.pos_a, self.pos_b) = (pa, pb);
        r
    }

    /// The bit-parallel pass and the word-set statistics, from each side's tokens as
    /// (hash, position) sorted by hash (sides already cut to [`MAX_TOKENS`]); the
    /// shingle fields are left 0.
    pub(crate) fn core(&mut self, a: &[(u64, u32)], b: &[(u64, u32)], min_len: usize) -> LcsResult {
        let (len_a, len_b) = (a.len(), b.len());
        // The shorter side is the bit vector.
        let (short, long) = if len_a <= len_b { (a, b) } else { (b, a) };
        // One merge of the two sorted lists: distinct tokens of each side, the tokens
        // both have (each gets a row) and the multiset bound Σ min(count, count).
        let (mut distinct_short, mut distinct_long, mut common, mut multiset_bound) = (0, 0, 0, 0);
        self.shared.clear();
        let (mut i, mut j) = (0, 0);
        while i < short.len() || j < long.len() {
            let hs = short.get(i).map(|e| e.0);
            let hl = long.get(j).map(|e| e.0);
            let h = match (hs, hl) {
                (Some(x), Some(y)) => x.min(y),
                (Some(x), None) => x,
                (None, Some(y)) => y,
                (None, None) => break,
            };
            let si = i;
            while i < short.len() && short[i].0 == h {
                i += 1;
            }
            let sj = j;
            while j < long.len() && long[j].0 == h {
                j += 1;
            }
            distinct_short += usize::from(i > si);
            distinct_long += usize::from(j > sj);
            if i > si && j > sj {
                common += 1;
                multiset_bound += (i - si).min(j - sj);
                self.shared.push((si..i, sj..j));
            }
        }
        let (distinct_a, distinct_b) = if len_a <= len_b {
            (distinct_short, distinct_long)
        } else {
            (distinct_long, distinct_short)
        };
        let mut result = LcsResult {
            lcs: None,
            len_a,
            len_b,
            distinct_a,
            distinct_b,
            distinct_common: common,
            shingles_a: 0,
            shingles_b: 0,
            shingles_common: 0,
            stopped_early: false,
        };
        if multiset_bound < min_len {
            return result;
        }
        if common == 0 {
            result.lcs = Some(0).filter(|&l| l >= min_len);
            return result;
        }
        let n = short.len();
        let words = n.div_ceil(64);
        self.rows.clear();
        self.rows.resize(common * words, 0);
        self.b_rows.clear();
        self.b_rows.resize(long.len(), NO_ROW);
        for (row, (rs, rl)) in self.shared.iter().enumerate() {
            for &(_, p) in &short[rs.clone()] {
                let p = p as usize;
                self.rows[row * words + p / 64] |= 1 << (p % 64);
            }
            // `common` rows fit in u32: a side has at most MAX_TOKENS tokens.
            let row = u32::try_from(row).unwrap_or(NO_ROW);
            for &(_, p) in &long[rl.clone()] {
                self.b_rows[p as usize] = row;
            }
        }
        // Matchable tokens of the long side, counted down as they are read.
        let matchable: usize = self.shared.iter().map(|(_, rl)| rl.len()).sum();
        self.v.clear();
        self.v.resize(words, u64::MAX);
        // One or two words (sides of up to 128 tokens, most documents) run in
        // registers: u128 addition carries between the two words by itself.
        let stopped = match words {
            1 => self.rows_in_register::<u64>(n, matchable, min_len),
            2 => self.rows_in_register::<u128>(n, matchable, min_len),
            _ => self.rows_in_words(n, matchable, min_len),
        };
        if stopped {
            result.stopped_early = true;
            return result;
        }
        let lcs = zeros(&self.v, n);
        result.lcs = (lcs >= min_len).then_some(lcs);
        result
    }

    /// The bit-parallel steps over `self.b_rows` with the bit vector in one register
    /// of type `W` (`n <= W::BITS`); leaves it in `self.v`. `true` when it stopped
    /// because `min_len` was out of reach.
    fn rows_in_register<W: BitWord>(
        &mut self,
        n: usize,
        mut matchable: usize,
        min_len: usize,
    ) -> bool {
        let words = W::WORDS;
        let mut v = W::ONES;
        let mut since_check = 0u32;
        for &r in &self.b_rows {
            if r == NO_ROW {
                continue;
            }
            matchable -= 1;
            let m = W::load(&self.rows[r as usize * words..(r as usize + 1) * words]);
            v = v.wrapping_add(v & m) | (v & !m);
            since_check += 1;
            if min_len > 0 && since_check >= 32 {
                since_check = 0;
                if v.zeros_below(n) + matchable < min_len {
                    return true;
                }
            }
        }
        v.store(&mut self.v);
        false
    }

    /// The bit vector after each token of the long side (`words` words per column,
    /// column `j` after token `j`), replaying the rows the last full pass of
    /// [`core`](Self::core) set up.
    pub(crate) fn replay_columns(&mut self, words: usize) -> Vec<u64> {
        let mut columns = Vec::with_capacity(self.b_rows.len() * words);
        let mut v = vec![u64::MAX; words];
        for &r in &self.b_rows {
            if r != NO_ROW {
                step_words(
                    &mut v,
                    &self.rows[r as usize * words..(r as usize + 1) * words],
                );
            }
            columns.extend_from_slice(&v);
        }
        columns
    }

    /// The bit-parallel steps over `self.b_rows` on the multi-word vector `self.v`.
    fn rows_in_words(&mut self, n: usize, mut matchable: usize, min_len: usize) -> bool {
        let words = self.v.len();
        let mut since_check = 0u32;
        for &r in &self.b_rows {
            if r == NO_ROW {
                continue;
            }
            matchable -= 1;
            step_words(
                &mut self.v,
                &self.rows[r as usize * words..(r as usize + 1) * words],
            );
            since_check += 1;
            if min_len > 0 && since_check >= 32 {
                since_check = 0;
                if zeros(&self.v, n) + matchable < min_len {
                    return true;
                }
            }
        }
        false
    }
}

/// One bit-parallel step on a multi-word vector: `V' = (V + (V & M)) | (V & !M)`,
/// the addition carrying from word to word (least significant word first).
#[inline]
fn step_words(v: &mut [u64], row: &[u64]) {
    let mut carry = false;
    for (x, &m) in v.iter_mut().zip(row) {
        let old = *x;
        let (s1, c1) = old.overflowing_add(old & m);
        let (s2, c2) = s1.overflowing_add(u64::from(carry));
        carry = c1 || c2;
        *x = s2 | (old & !m);
    }
}

/// A bit vector that fits in one register: `u64` (one word) or `u128` (two).
trait BitWord:
    Copy
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// Words of 64 bits it holds.
    const WORDS: usize;
    /// All bits set.
    const ONES: Self;
    /// From `WORDS` words, least significant first.
    fn load(words: &[u64]) -> Self;
    /// Into the first `WORDS` words of `out`.
    fn store(self, out: &mut [u64]);
    fn wrapping_add(self, other: Self) -> Self;
    /// The zero bits among the low `n` bits.
    fn zeros_below(self, n: usize) -> usize;
}

impl BitWord for u64 {
    const WORDS: usize = 1;
    const ONES: Self = u64::MAX;
    fn load(words: &[u64]) -> Self {
        words[0]
    }
    fn store(self, out: &mut [u64]) {
        out[0] = self;
    }
    fn wrapping_add(self, other: Self) -> Self {
        u64::wrapping_add(self, other)
    }
    fn zeros_below(self, n: usize) -> usize {
        let mask = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        (!self & mask).count_ones() as usize
    }
}

impl BitWord for u128 {
    const WORDS: usize = 2;
    const ONES: Self = u128::MAX;
    fn load(words: &[u64]) -> Self {
        u128::from(words[0]) | (u128::from(words[1]) << 64)
    }
    fn store(self, out: &mut [u64]) {
        // Truncation intended: the low and the high 64 bits.
        #[allow(clippy::cast_possible_truncation)]
        {
            out[0] = self as u64;
            out[1] = (self >> 64) as u64;
        }
    }
    fn wrapping_add(self, other: Self) -> Self {
        u128::wrapping_add(self, other)
    }
    fn zeros_below(self, n: usize) -> usize {
        let mask = if n >= 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        (!self & mask).count_ones() as usize
    }
}

/// `(token, position)` for every token, sorted (by token, then position).
pub(crate) fn sorted_positions(tokens: &[u64], out: &mut Vec<(u64, u32)>) {
    out.clear();
    // Positions fit in u32: sides are cut to MAX_TOKENS.
    out.extend(
        tokens
            .iter()
            .enumerate()
            .map(|(p, &t)| (t, u32::try_from(p).unwrap_or(u32::MAX))),
    );
    out.sort_unstable();
}

/// The distinct word 3-gram hashes of a token sequence, sorted: the values of
/// `ndd_shingle::WordShingler::new(3)` (a shorter sequence is one shingle of all its
/// tokens; an empty one has none).
pub(crate) fn shingles_into(tokens: &[u64], out: &mut Vec<u64>) {
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
/// use near_dup::align::{quadratic_lcs_len, Aligner};
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

//! The alignment of two token sequences as matched runs.

use std::convert::Infallible;

use similar::algorithms::{DiffHook, myers};

use crate::{Aligner, LcsResult, MAX_TOKENS};

/// For sides too long for the bit-vector traceback (about 11,500 tokens each), the
/// largest `(|a| + |b|) · D` (D = |a| + |b| − 2·LCS, the edit distance) for which
/// the alignment is the exact shortest edit script of Myers (1986): 2^28 steps, about
/// a quarter of a second. Beyond it the bounded search of `similar`'s Myers runs
/// instead and the runs may cover fewer tokens than the LCS ([`Alignment::is_exact`]).
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, EXACT_ALIGNMENT_BUDGET};
/// // 20,000 tokens against the same reversed: too long for the traceback, and an
/// // edit distance of 39,998 puts Myers' exact search over the budget.
/// let a: Vec<u64> = (0..20_000).collect();
/// let b: Vec<u64> = (0..20_000).rev().collect();
/// assert!(40_000u64 * 39_998 > EXACT_ALIGNMENT_BUDGET);
/// let al = Aligner::new().align(&a, &b);
/// assert!(!al.is_exact() && al.matched() <= 1);
/// ```
pub const EXACT_ALIGNMENT_BUDGET: u64 = 1 << 28;

/// The most 64-bit words of bit-vector columns a traceback keeps (16 MiB): above it
/// (sides of about 11,500 tokens each and more) the alignment comes from Myers'
/// diff instead.
const TRACEBACK_WORDS: usize = 1 << 21;

/// A run of tokens that are the same on both sides: `a[a..a + len] == b[b..b + len]`.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, Run};
/// let al = Aligner::new().align(&[1, 2, 3, 9], &[0, 1, 2, 3]);
/// assert_eq!(al.runs(), &[Run { a: 0, b: 1, len: 3 }]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Run {
    /// Index of the run's first token in the first sequence.
    pub a: usize,
    /// Index of the run's first token in the second sequence.
    pub b: usize,
    /// Number of tokens.
    pub len: usize,
}

/// Two token sequences aligned: the matched runs, in order on both sides.
///
/// When [`is_exact`](Self::is_exact), the runs cover exactly LCS tokens (a longest
/// common subsequence); otherwise the alignment came from the bounded search and
/// covers at most that many.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, TokenOptions};
/// let o = TokenOptions::default();
/// let (a, b) = (o.hashes("one two three four"), o.hashes("one two 3 four five"));
/// let al = Aligner::new().align(&a, &b);
/// assert_eq!(al.matched(), 3);
/// assert!(al.is_exact());
/// assert_eq!(al.runs().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Alignment {
    runs: Vec<Run>,
    len_a: usize,
    len_b: usize,
    exact: bool,
}

impl Alignment {
    /// The matched runs, ordered by position (increasing on both sides).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::align::Aligner::new().align(&[1], &[2]).runs().is_empty());
    /// ```
    #[must_use]
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Tokens matched: the LCS length when the alignment is exact.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::Aligner::new().align(&[1, 2, 1], &[1, 1]).matched(), 2);
    /// ```
    #[must_use]
    pub fn matched(&self) -> usize {
        self.runs.iter().map(|r| r.len).sum()
    }

    /// Tokens of the first sequence that were aligned (at most [`MAX_TOKENS`]).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::Aligner::new().align(&[1, 2], &[]).len_a(), 2);
    /// ```
    #[must_use]
    pub fn len_a(&self) -> usize {
        self.len_a
    }

    /// Tokens of the second sequence that were aligned.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::Aligner::new().align(&[1, 2], &[]).len_b(), 0);
    /// ```
    #[must_use]
    pub fn len_b(&self) -> usize {
        self.len_b
    }

    /// Whether the runs are a longest common subsequence (the exact search ran).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::align::Aligner::new().align(&[1, 2], &[2, 1]).is_exact());
    /// ```
    #[must_use]
    pub fn is_exact(&self) -> bool {
        self.exact
    }
}

/// Appends a matched token pair to runs built back to front (positions decrease).
fn push_back_match(runs: &mut Vec<Run>, a: usize, b: usize) {
    if let Some(last) = runs.last_mut()
        && last.a == a + 1
        && last.b == b + 1
    {
        last.a = a;
        last.b = b;
        last.len += 1;
        return;
    }
    runs.push(Run { a, b, len: 1 });
}

/// Collects the equal runs of a diff, merging touching ones.
struct Collect(Vec<Run>);

impl DiffHook for Collect {
    type Error = Infallible;

    fn equal(&mut self, old_index: usize, new_index: usize, len: usize) -> Result<(), Infallible> {
        if len == 0 {
            return Ok(());
        }
        if let Some(last) = self.0.last_mut()
            && last.a + last.len == old_index
            && last.b + last.len == new_index
        {
            last.len += len;
            return Ok(());
        }
        self.0.push(Run {
            a: old_index,
            b: new_index,
            len,
        });
        Ok(())
    }
}

impl Aligner {
    /// Aligns `a` and `b` (each cut to its first [`MAX_TOKENS`] tokens).
    ///
    /// Cost: the LCS pass (O(|a|·|b|/64)) twice, the second keeping the bit vector
    /// after every token of the longer side, then a walk back in O(|a| + |b|): an
    /// exact longest common subsequence (Hyyrö 2004). When those vectors would take
    /// more than 16 MiB (sides of about 11,500 tokens each), Myers' diff runs instead
    /// in O((|a| + |b|)·D) for an edit distance D, cheap for near-duplicates; when
    /// that product exceeds [`EXACT_ALIGNMENT_BUDGET`], the bounded heuristic search
    /// of the `similar` crate.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, Run};
    /// let al = Aligner::new().align(&[1, 2, 3, 4, 5], &[1, 2, 9, 4, 5]);
    /// assert_eq!(al.runs(), &[Run { a: 0, b: 0, len: 2 }, Run { a: 3, b: 3, len: 2 }]);
    /// ```
    ///
    /// # References
    ///
    /// E. W. Myers, "An O(ND) difference algorithm and its variations",
    /// *Algorithmica* 1, 1986.
    pub fn align(&mut self, a: &[u64], b: &[u64]) -> Alignment {
        self.align_with_stats(a, b).0
    }

    /// A longest common subsequence of `a` and `b` as runs, from the bit vectors of
    /// the LCS pass that just ran on them (`lcs` long); `None` when the columns would
    /// exceed [`TRACEBACK_WORDS`].
    ///
    /// Bit `i` of the vector after `j` tokens of the longer side is 1 exactly when
    /// `L[i + 1][j] == L[i][j]` (the DP value does not grow with short-side token `i`).
    /// Walking back from `(n, m)`: equal tokens match (a diagonal step is always
    /// optimal for them), else the short side steps back when that bit is 1, the long
    /// side otherwise.
    fn traceback(&mut self, a: &[u64], b: &[u64], lcs: usize) -> Option<Vec<Run>> {
        let swapped = a.len() > b.len();
        let (short, long) = if swapped { (b, a) } else { (a, b) };
        let (n, m) = (short.len(), long.len());
        let mut runs = Vec::new();
        if lcs == 0 {
            return Some(runs);
        }
        let words = n.div_ceil(64);
        if m.checked_mul(words)? > TRACEBACK_WORDS {
            return None;
        }
        let columns = self.replay_columns(words);
        let (mut i, mut j) = (n, m);
        while i > 0 && j > 0 {
            if short[i - 1] == long[j - 1] {
                let (pa, pb) = if swapped {
                    (j - 1, i - 1)
                } else {
                    (i - 1, j - 1)
                };
                push_back_match(&mut runs, pa, pb);
                i -= 1;
                j -= 1;
            } else if columns[(j - 1) * words + (i - 1) / 64] >> ((i - 1) % 64) & 1 == 1 {
                i -= 1;
            } else {
                j -= 1;
            }
        }
        runs.reverse();
        Some(runs)
    }

    /// [`align`](Self::align) and the LCS statistics it computed on the way (without
    /// the word 3-gram counts, which are left 0).
    pub(crate) fn align_with_stats(&mut self, a: &[u64], b: &[u64]) -> (Alignment, LcsResult) {
        let a = &a[..a.len().min(MAX_TOKENS)];
        let b = &b[..b.len().min(MAX_TOKENS)];
        // The LCS pass (the word 3-gram statistics are not needed here: left 0).
        let stats = self.core_of_tokens(a, b, 0);
        let lcs = stats.lcs.unwrap_or(0);
        // The LCS pass left its rows set up: replayed with every column kept, it
        // gives a longest common subsequence by walking back (Hyyrö 2004), when the
        // columns fit the budget.
        if let Some(runs) = self.traceback(a, b, lcs) {
            let alignment = Alignment {
                runs,
                len_a: a.len(),
                len_b: b.len(),
                exact: true,
            };
            return (alignment, stats);
        }
        let d = (a.len() + b.len() - 2 * lcs) as u64;
        let exact = (a.len() + b.len()) as u64 * d <= EXACT_ALIGNMENT_BUDGET;
        let mut hook = Collect(Vec::new());
        let done = if exact {
            myers::diff_deadline_raw(&mut hook, a, 0..a.len(), b, 0..b.len(), None)
        } else {
            myers::diff(&mut hook, a, 0..a.len(), b, 0..b.len())
        };
        let Ok(()) = done;
        let alignment = Alignment {
            runs: hook.0,
            len_a: a.len(),
            len_b: b.len(),
            exact,
        };
        (alignment, stats)
    }
}

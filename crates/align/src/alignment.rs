//! The alignment of two token sequences as matched runs.

use std::convert::Infallible;

use similar::algorithms::{DiffHook, myers};

use crate::{Aligner, LcsResult, MAX_TOKENS};

/// The largest `(|a| + |b|) · D` (D = |a| + |b| − 2·LCS, the edit distance) for which
/// the alignment is the exact shortest edit script of Myers (1986): 2^28 steps, about
/// a quarter of a second. Beyond it the bounded search of `similar`'s Myers runs
/// instead and the runs may cover fewer tokens than the LCS ([`Alignment::is_exact`]).
///
/// # Example
///
/// ```
/// use ndd_align::{Aligner, EXACT_ALIGNMENT_BUDGET};
/// // Two unrelated 20,000-token sides: (40,000)·40,000 steps is over the budget.
/// let a: Vec<u64> = (0..20_000).collect();
/// let b: Vec<u64> = (20_000..40_000).collect();
/// assert!(40_000u64 * 40_000 > EXACT_ALIGNMENT_BUDGET);
/// assert!(!Aligner::new().align(&a, &b).is_exact());
/// ```
pub const EXACT_ALIGNMENT_BUDGET: u64 = 1 << 28;

/// A run of tokens that are the same on both sides: `a[a..a + len] == b[b..b + len]`.
///
/// # Example
///
/// ```
/// use ndd_align::{Aligner, Run};
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
/// use ndd_align::{Aligner, TokenOptions};
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
    /// assert!(ndd_align::Aligner::new().align(&[1], &[2]).runs().is_empty());
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
    /// assert_eq!(ndd_align::Aligner::new().align(&[1, 2, 1], &[1, 1]).matched(), 2);
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
    /// assert_eq!(ndd_align::Aligner::new().align(&[1, 2], &[]).len_a(), 2);
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
    /// assert_eq!(ndd_align::Aligner::new().align(&[1, 2], &[]).len_b(), 0);
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
    /// assert!(ndd_align::Aligner::new().align(&[1, 2], &[2, 1]).is_exact());
    /// ```
    #[must_use]
    pub fn is_exact(&self) -> bool {
        self.exact
    }
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
    /// Cost: the LCS pass (O(|a|·|b|/64)), then Myers' diff in O((|a| + |b|)·D) for an
    /// edit distance D, which is cheap for near-duplicates; when that product
    /// exceeds [`EXACT_ALIGNMENT_BUDGET`], the bounded heuristic search of the
    /// `similar` crate runs instead.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_align::{Aligner, Run};
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

    /// [`align`](Self::align) and the LCS statistics it computed on the way.
    pub(crate) fn align_with_stats(&mut self, a: &[u64], b: &[u64]) -> (Alignment, LcsResult) {
        let a = &a[..a.len().min(MAX_TOKENS)];
        let b = &b[..b.len().min(MAX_TOKENS)];
        let stats = self.lcs(a, b, 0);
        let lcs = stats.lcs.unwrap_or(0);
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

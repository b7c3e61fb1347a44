//! How a corpus is cut into shards so that each suffix array fits a memory budget, and
//! which passes over pairs of shards find every repeat.

use std::ops::Range;

use ndd_core::Error;

use super::sa::MAX_TEXT_BYTES;

/// The working memory of one pass, in bytes per byte of the text it sorts, at most:
/// the pass's copy of the text (1), its suffix array (4), the suffix array
/// construction's type bits and bucket table (at most 2.2, for the reduced string of
/// the first recursion) and the marks of the repeated positions (1/8), rounded up.
/// The documents the caller holds are not counted.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::{Plan, PASS_BYTES_PER_TEXT_BYTE};
/// // A budget of two passes' worth of 1,000 bytes of text sorts them in one pass.
/// let plan = Plan::new(&[400, 600], Some(2 * 1_000 * PASS_BYTES_PER_TEXT_BYTE))?;
/// assert_eq!(plan.passes().len(), 1);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const PASS_BYTES_PER_TEXT_BYTE: usize = 8;

/// The shards of a corpus (consecutive documents) and the passes over them.
///
/// One shard when the whole corpus fits one pass; otherwise shards of at most half a
/// pass each and one pass for every pair of shards, so that every pair of documents
/// meets in some pass. With `k` shards that is `k (k − 1) / 2` passes of at most a
/// full pass each: about `(k − 1)` times the corpus is sorted in all, the price of a
/// bounded memory.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::{Plan, PASS_BYTES_PER_TEXT_BYTE};
/// // 4 documents of 100 bytes; a budget for passes of 200 bytes: shards of 100.
/// let plan = Plan::new(&[100, 100, 100, 100], Some(200 * PASS_BYTES_PER_TEXT_BYTE))?;
/// assert_eq!(plan.shards().len(), 4);
/// assert_eq!(plan.passes().len(), 6);
/// // No budget: one shard, one pass.
/// assert_eq!(Plan::new(&[100, 100, 100, 100], None)?.passes(), [(0, 0)]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    shards: Vec<Range<usize>>,
    largest_pass: usize,
}

impl Plan {
    /// The plan for documents of `doc_lens` bytes under `memory_budget` bytes of
    /// working memory ([`PASS_BYTES_PER_TEXT_BYTE`] per byte of a pass; `None`: one
    /// pass, or the fewest that keep each pass within [`MAX_TEXT_BYTES`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] (`memory_budget`) when a document and another as
    /// long do not fit one pass, with the smallest budget that would do;
    /// [`Error::InvalidInput`] without a budget when a document is longer than half of
    /// [`MAX_TEXT_BYTES`] and the corpus needs more than one pass.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::Plan;
    /// let err = Plan::new(&[10, 1000, 10], Some(4000)).unwrap_err();
    /// assert!(err.to_string().contains("at least 16000"), "{err}");
    /// ```
    pub fn new(doc_lens: &[usize], memory_budget: Option<usize>) -> Result<Self, Error> {
        let cap = memory_budget.map_or(MAX_TEXT_BYTES, |b| {
            (b / PASS_BYTES_PER_TEXT_BYTE).min(MAX_TEXT_BYTES)
        });
        let total: usize = doc_lens.iter().sum();
        if total <= cap {
            return Ok(Plan {
                shards: std::iter::once(0..doc_lens.len()).collect(),
                largest_pass: total,
            });
        }
        let half = cap / 2;
        if let Some(&longest) = doc_lens.iter().max().filter(|&&l| l > half) {
            return Err(match memory_budget {
                Some(_) => Error::invalid_parameter(
                    "memory_budget",
                    format!(
                        "must be at least {} bytes: the corpus needs more than one pass, and \
                         a pass holds two shards, each as long as the longest document ({} \
                         bytes), at {PASS_BYTES_PER_TEXT_BYTE} bytes per byte",
                        2 * longest * PASS_BYTES_PER_TEXT_BYTE,
                        longest
                    ),
                ),
                None => Error::InvalidInput {
                    reason: format!(
                        "a document of {longest} bytes: documents of more than {half} bytes \
                         are not sorted in a corpus that needs several passes"
                    ),
                },
            });
        }
        let mut shards = Vec::new();
        let mut start = 0;
        let mut bytes = 0;
        for (i, &len) in doc_lens.iter().enumerate() {
            if bytes + len > half {
                shards.push(start..i);
                start = i;
                bytes = 0;
            }
            bytes += len;
        }
        shards.push(start..doc_lens.len());
        let size = |r: &Range<usize>| doc_lens[r.clone()].iter().sum::<usize>();
        let mut sizes: Vec<usize> = shards.iter().map(size).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        Ok(Plan {
            shards,
            largest_pass: sizes.iter().take(2).sum(),
        })
    }

    /// The shards: ranges of document indexes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::Plan;
    /// let plan = Plan::new(&[60, 60, 60, 60, 60], Some(8 * 250))?;
    /// assert_eq!(plan.shards(), [0..2, 2..4, 4..5]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn shards(&self) -> &[Range<usize>] {
        &self.shards
    }

    /// The passes, as pairs of shard indexes: `(0, 0)` alone for one shard, every
    /// `(i, j)` with `i < j` otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::Plan;
    /// let plan = Plan::new(&[60, 60, 60], Some(8 * 120))?;
    /// assert_eq!(plan.passes(), [(0, 1), (0, 2), (1, 2)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn passes(&self) -> Vec<(usize, usize)> {
        let k = self.shards.len();
        if k == 1 {
            return vec![(0, 0)];
        }
        (0..k)
            .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
            .collect()
    }

    /// The working memory of the largest pass, in bytes, at most
    /// ([`PASS_BYTES_PER_TEXT_BYTE`] per byte of its text).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::Plan;
    /// assert_eq!(Plan::new(&[60, 40], None)?.peak_bytes(), 800);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn peak_bytes(&self) -> usize {
        self.largest_pass * PASS_BYTES_PER_TEXT_BYTE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pass_fits_the_budget_and_every_pair_of_documents_meets() {
        let lens: Vec<usize> = (0..40).map(|i| 10 + (i * 37) % 50).collect();
        for budget in [8 * 120, 8 * 200, 8 * 555, 8 * 4000] {
            let plan = Plan::new(&lens, Some(budget)).unwrap();
            assert!(plan.peak_bytes() <= budget, "{budget}");
            let shard_of = |d: usize| plan.shards().iter().position(|s| s.contains(&d)).unwrap();
            let passes = plan.passes();
            for a in 0..lens.len() {
                for b in 0..lens.len() {
                    let (sa, sb) = (shard_of(a).min(shard_of(b)), shard_of(a).max(shard_of(b)));
                    assert!(
                        passes
                            .iter()
                            .any(|&(i, j)| (i == sa || j == sa) && (i == sb || j == sb)),
                        "{a} {b} {budget}"
                    );
                }
            }
        }
    }

    #[test]
    fn empty_corpus_and_zero_budget() {
        assert_eq!(Plan::new(&[], Some(0)).unwrap().passes(), [(0, 0)]);
        assert!(Plan::new(&[1], Some(0)).is_err());
    }
}

//! The search: for each pass of the [`Plan`], the suffix array of its documents,
//! the groups of suffixes that share their first `min_length` bytes, and the byte
//! ranges those groups cover.

use std::ops::Range;

use ndd_core::Error;

use super::plan::Plan;
use super::ranges::merge_ranges;
use super::sa::suffix_array;

/// Which repeats count.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::{RepeatedSubstrings, Scope};
/// // A sentence said twice in one document, and nowhere else.
/// let docs = ["Buy now and save big. Buy now and save big.", "Something else."];
/// let across = RepeatedSubstrings::new(15)?.find(&docs)?;
/// assert!(across.ranges()[0].is_empty());
/// let anywhere = RepeatedSubstrings::new(15)?.scope(Scope::Anywhere).find(&docs)?;
/// assert!(!anywhere.ranges()[0].is_empty());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// A span counts when it occurs in at least two different documents (the
    /// default): text shared by otherwise different documents.
    #[default]
    AcrossDocuments,
    /// A span counts when it occurs at least twice anywhere, also twice in one
    /// document (the reference implementation's `self-similar`).
    Anywhere,
}

/// Finds the exact repeated substrings of a corpus: every span of at least
/// `min_length` bytes that occurs more than once (in two documents, by default), as
/// byte ranges per document. Lee et al.'s ExactSubstr (see the [module
/// documentation](super)).
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::RepeatedSubstrings;
/// let docs = [
///     "Intro one. Subscribe to our newsletter for more! End one.",
///     "Other start. Subscribe to our newsletter for more! Other end.",
///     "Nothing shared here at all, only its own words.",
/// ];
/// let found = RepeatedSubstrings::new(20)?.find(&docs)?;
/// // The shared sentence, with the ". " before it and the space after it, which
/// // both documents also share.
/// assert_eq!(&docs[0][found.ranges()[0][0].clone()], ". Subscribe to our newsletter for more! ");
/// assert_eq!(found.ranges()[1].len(), 1);
/// assert!(found.ranges()[2].is_empty());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatedSubstrings {
    min_length: usize,
    scope: Scope,
    memory_budget: Option<usize>,
}

impl RepeatedSubstrings {
    /// Spans of at least `min_length` bytes (Lee et al. use 50 tokens, about 100
    /// bytes of English), across documents, in one pass.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] (`min_length`) when `min_length` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// assert!(RepeatedSubstrings::new(100).is_ok());
    /// assert!(RepeatedSubstrings::new(0).is_err());
    /// ```
    pub fn new(min_length: usize) -> Result<Self, Error> {
        if min_length == 0 {
            return Err(Error::invalid_parameter("min_length", "must be at least 1"));
        }
        Ok(RepeatedSubstrings {
            min_length,
            scope: Scope::AcrossDocuments,
            memory_budget: None,
        })
    }

    /// Which repeats count: across documents (the default) or anywhere.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::{RepeatedSubstrings, Scope};
    /// let docs = ["abcdef-abcdef", "xyz"];
    /// let across = RepeatedSubstrings::new(6)?.find(&docs)?;
    /// assert!(across.ranges()[0].is_empty());
    /// let anywhere = RepeatedSubstrings::new(6)?.scope(Scope::Anywhere).find(&docs)?;
    /// assert_eq!(anywhere.ranges()[0], [0..6, 7..13]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// Bounds the working memory to `bytes` by sorting the corpus in shards and
    /// passes over pairs of them ([`Plan`]); the answer is the same as in one pass.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// let docs = ["one shared phrase here", "two", "a shared phrase there", "four"];
    /// let one_pass = RepeatedSubstrings::new(10)?.find(&docs)?;
    /// let sharded = RepeatedSubstrings::new(10)?.memory_budget(8 * 44).find(&docs)?;
    /// assert!(sharded.passes() > 1);
    /// assert_eq!(sharded.ranges(), one_pass.ranges());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory_budget(mut self, bytes: usize) -> Self {
        self.memory_budget = Some(bytes);
        self
    }

    /// The plan for documents of `doc_lens` bytes under this memory budget.
    ///
    /// # Errors
    ///
    /// As [`Plan::new`]: the budget is too small for the longest document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// let finder = RepeatedSubstrings::new(100)?.memory_budget(1 << 20);
    /// // Passes of 131,072 bytes: shards of at most 65,536, six documents each.
    /// assert_eq!(finder.plan(&[10_000; 100])?.shards().len(), 17);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn plan(&self, doc_lens: &[usize]) -> Result<Plan, Error> {
        Plan::new(doc_lens, self.memory_budget)
    }

    /// The repeated spans of `docs`.
    ///
    /// # Errors
    ///
    /// As [`plan`](Self::plan).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// let found = RepeatedSubstrings::new(4)?.find(&[&b"xxabcdyy"[..], b"abcd"])?;
    /// assert_eq!(found.ranges(), [vec![2..6], vec![0..4]]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn find<D: AsRef<[u8]>>(&self, docs: &[D]) -> Result<Found, Error> {
        self.find_with_progress(docs, |_, _| {})
    }

    /// [`find`](Self::find), calling `progress(passes done, passes)` after each pass.
    ///
    /// # Errors
    ///
    /// As [`plan`](Self::plan).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// let mut seen = Vec::new();
    /// let docs = ["aaaa", "bbbb", "cccc"];
    /// RepeatedSubstrings::new(2)?
    ///     .memory_budget(8 * 8)
    ///     .find_with_progress(&docs, |done, all| seen.push((done, all)))?;
    /// assert_eq!(seen, [(1, 3), (2, 3), (3, 3)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn find_with_progress<D: AsRef<[u8]>>(
        &self,
        docs: &[D],
        mut progress: impl FnMut(usize, usize),
    ) -> Result<Found, Error> {
        let lens: Vec<usize> = docs.iter().map(|d| d.as_ref().len()).collect();
        let plan = self.plan(&lens)?;
        let passes = plan.passes();
        let mut ranges: Vec<Vec<Range<usize>>> = vec![Vec::new(); docs.len()];
        for (done, &(i, j)) in passes.iter().enumerate() {
            let shards = plan.shards();
            let members: Vec<usize> = if i == j {
                shards[i].clone().collect()
            } else {
                shards[i].clone().chain(shards[j].clone()).collect()
            };
            self.pass(docs, &members, &mut ranges)?;
            progress(done + 1, passes.len());
        }
        Ok(Found {
            ranges,
            passes: passes.len(),
            peak_bytes: plan.peak_bytes(),
        })
    }

    /// One pass over the documents `members`, its ranges merged into `ranges`.
    fn pass<D: AsRef<[u8]>>(
        &self,
        docs: &[D],
        members: &[usize],
        ranges: &mut [Vec<Range<usize>>],
    ) -> Result<(), Error> {
        let total = members.iter().map(|&d| docs[d].as_ref().len()).sum();
        let mut text = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(members.len() + 1);
        for &d in members {
            starts.push(text.len());
            text.extend_from_slice(docs[d].as_ref());
        }
        starts.push(text.len());
        let sa = suffix_array(&text)?;
        let marks = self.mark(&text, &starts, &sa);
        drop(sa);
        let l = self.min_length;
        for (k, &d) in members.iter().enumerate() {
            let (start, end) = (starts[k], starts[k + 1]);
            let mut found: Vec<Range<usize>> = Vec::new();
            for p in start..end {
                if marks[p / 64] >> (p % 64) & 1 == 1 {
                    let r = p - start..p - start + l;
                    match found.last_mut() {
                        Some(last) if r.start <= last.end => last.end = r.end,
                        _ => found.push(r),
                    }
                }
            }
            if !found.is_empty() {
                let doc = &mut ranges[d];
                if doc.is_empty() {
                    *doc = found;
                } else {
                    doc.extend(found);
                    *doc = merge_ranges(std::mem::take(doc));
                }
            }
        }
        Ok(())
    }

    /// One bit per position of `text`: whether the `min_length` bytes from it lie in
    /// one document and occur again (in another document, or anywhere). The suffixes
    /// sharing their first `min_length` bytes are neighbours in `sa`; a suffix whose
    /// first bytes run past its document's end sits among them (the text has no
    /// separators) but is not counted, so no span crosses a document boundary.
    fn mark(&self, text: &[u8], starts: &[usize], sa: &[u32]) -> Vec<u64> {
        let l = self.min_length;
        let n = text.len();
        let mut marks = vec![0u64; n.div_ceil(64)];
        let window = |p: u32| text.get(p as usize..p as usize + l);
        let doc_of = |p: usize| starts.partition_point(|&s| s <= p) - 1;
        let mut group: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < n {
            let Some(w) = window(sa[i]) else {
                i += 1;
                continue;
            };
            let mut j = i + 1;
            while j < n && window(sa[j]) == Some(w) {
                j += 1;
            }
            if j - i >= 2 {
                group.clear();
                for &p in &sa[i..j] {
                    let p = p as usize;
                    let d = doc_of(p);
                    if p + l <= starts[d + 1] {
                        group.push((p, d));
                    }
                }
                let repeated = match self.scope {
                    Scope::AcrossDocuments => group.iter().any(|&(_, d)| d != group[0].1),
                    Scope::Anywhere => group.len() >= 2,
                };
                if repeated {
                    for &(p, _) in &group {
                        marks[p / 64] |= 1 << (p % 64);
                    }
                }
            }
            i = j;
        }
        marks
    }
}

/// What [`RepeatedSubstrings::find`] found: per document, the byte ranges covered
/// by repeated spans, merged (sorted, disjoint, not touching).
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::RepeatedSubstrings;
/// let found = RepeatedSubstrings::new(3)?.find(&["abc-xyz", "xyz abc", "q"])?;
/// assert_eq!(found.ranges(), [vec![0..3, 4..7], vec![0..3, 4..7], vec![]]);
/// assert_eq!((found.spans(), found.covered_bytes()), (4, 12));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    ranges: Vec<Vec<Range<usize>>>,
    passes: usize,
    peak_bytes: usize,
}

impl Found {
    /// The ranges of each document, in the order of the documents given.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// let found = RepeatedSubstrings::new(2)?.find(&["ab", "ab"])?;
    /// assert_eq!(found.ranges()[1], [0..2]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn ranges(&self) -> &[Vec<Range<usize>>] {
        &self.ranges
    }

    /// The ranges, owned.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// let ranges = RepeatedSubstrings::new(2)?.find(&["ab", "cd"])?.into_ranges();
    /// assert_eq!(ranges, [vec![], vec![]]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn into_ranges(self) -> Vec<Vec<Range<usize>>> {
        self.ranges
    }

    /// How many ranges there are, over all documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// assert_eq!(RepeatedSubstrings::new(2)?.find(&["ab", "ab", "ab"])?.spans(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn spans(&self) -> usize {
        self.ranges.iter().map(Vec::len).sum()
    }

    /// How many bytes the ranges cover, over all documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// assert_eq!(RepeatedSubstrings::new(2)?.find(&["abx", "yab"])?.covered_bytes(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn covered_bytes(&self) -> usize {
        self.ranges.iter().flatten().map(|r| r.end - r.start).sum()
    }

    /// How many passes the search made (one without a memory budget).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::RepeatedSubstrings;
    /// assert_eq!(RepeatedSubstrings::new(2)?.find(&["ab", "ab"])?.passes(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn passes(&self) -> usize {
        self.passes
    }

    /// The working memory of the largest pass, at most, in bytes
    /// ([`Plan::peak_bytes`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::repeats::substrings::{RepeatedSubstrings, PASS_BYTES_PER_TEXT_BYTE};
    /// let found = RepeatedSubstrings::new(2)?.find(&["ab", "ab"])?;
    /// assert_eq!(found.peak_bytes(), 4 * PASS_BYTES_PER_TEXT_BYTE);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn peak_bytes(&self) -> usize {
        self.peak_bytes
    }
}

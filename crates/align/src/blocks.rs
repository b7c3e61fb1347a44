//! What two documents share and what differs: blocks with byte offsets.

use std::ops::Range;

use crate::grams::GramIndex;
use crate::{Aligner, Alignment, Tokens};

/// The shortest run of tokens reported as moved or repeated text (shorter common
/// runs are too likely to be chance: "of the", "and the").
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, BlockKind, BlockReport, TokenOptions, MIN_MOVED_TOKENS};
/// assert_eq!(MIN_MOVED_TOKENS, 4);
/// let o = TokenOptions::default();
/// // "one two three four" moves to the end: four tokens, found as moved text.
/// let (a, b) = (o.tokens("one two three four a b c d e f"), o.tokens("a b c d e f one two three four"));
/// let r = BlockReport::new(&mut Aligner::new(), &a, &b);
/// assert!(r.b_blocks().iter().any(|bl| bl.kind == BlockKind::Moved));
/// ```
pub const MIN_MOVED_TOKENS: usize = 4;

/// Positions kept per k-gram when looking for moved text: a k-gram that occurs more
/// often than this (boilerplate) is looked up at its first positions only, which
/// keeps the search linear.
const MAX_POSITIONS: usize = 8;

/// What a block of one document is relative to the other.
///
/// # Example
///
/// ```
/// use near_dup::align::BlockKind;
/// assert_eq!(BlockKind::Moved.name(), "moved");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// In both documents, at the matching place (part of the alignment).
    Shared,
    /// Only in this document: text a reader must look at.
    Unique,
    /// Also in the other document but at another position (a paragraph moved).
    Moved,
    /// A second copy of text the alignment already matched (the document repeats
    /// itself, or repeats the other one).
    Repeated,
}

impl BlockKind {
    /// `shared`, `unique`, `moved` or `repeated`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::BlockKind::Unique.name(), "unique");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Shared => "shared",
            BlockKind::Unique => "unique",
            BlockKind::Moved => "moved",
            BlockKind::Repeated => "repeated",
        }
    }
}

/// A block of one document: a run of its tokens and the bytes that hold them.
///
/// The blocks of a side partition its text: each starts at its first token (the
/// first block at byte 0) and runs to where the next block starts (the last to the
/// end), so concatenating their bytes gives the text back exactly.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, BlockKind, BlockReport, TokenOptions};
/// let o = TokenOptions::default();
/// let (a, b) = (o.tokens("one two three"), o.tokens("one two four"));
/// let r = BlockReport::new(&mut Aligner::new(), &a, &b);
/// let first = &r.a_blocks()[0];
/// assert_eq!((first.kind, first.tokens.clone(), first.bytes.clone()), (BlockKind::Shared, 0..2, 0..8));
/// assert_eq!(first.other, Some(0..2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Block {
    /// What the block is.
    pub kind: BlockKind,
    /// Its tokens (indices into the side's token sequence).
    pub tokens: Range<usize>,
    /// Its bytes in the side's text.
    pub bytes: Range<usize>,
    /// For shared, moved and repeated blocks, the matching tokens of the other side.
    pub other: Option<Range<usize>>,
}

/// The block report of a pair: how each document splits into text shared with the
/// other (in place, moved or repeated) and text of its own, with byte offsets.
///
/// Built from an [`Alignment`]: aligned runs are [`Shared`](BlockKind::Shared); the
/// gaps between them are searched for runs of at least [`MIN_MOVED_TOKENS`] tokens
/// that occur in the other document, through a sorted table of its token 4-grams
/// (O(n log n)): found in the other side's gaps they are [`Moved`](BlockKind::Moved), found in
/// its aligned text they are [`Repeated`](BlockKind::Repeated); what is left is
/// [`Unique`](BlockKind::Unique). Cost after the alignment: O((|a| + |b|) log) at most.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, BlockKind, BlockReport, TokenOptions};
/// let o = TokenOptions::default();
/// let a = o.tokens("Alpha beta gamma delta.\n\nOne two three four five.");
/// let b = o.tokens("One two three four five.\n\nAlpha beta gamma delta epsilon.");
/// let r = BlockReport::new(&mut Aligner::new(), &a, &b);
/// let kinds: Vec<BlockKind> = r.b_blocks().iter().map(|b| b.kind).collect();
/// assert_eq!(kinds, [BlockKind::Shared, BlockKind::Moved, BlockKind::Unique]);
/// assert_eq!(r.unique_b_text(), vec!["epsilon."]);
/// let rebuilt: String = r.b_blocks().iter().map(|b| r.b_text(b)).collect();
/// assert_eq!(rebuilt, b.text());
/// ```
#[derive(Debug, Clone)]
pub struct BlockReport<'t> {
    a: Tokens<'t>,
    b: Tokens<'t>,
    a_blocks: Vec<Block>,
    b_blocks: Vec<Block>,
    alignment: Alignment,
    word_jaccard: f64,
}

impl<'t> BlockReport<'t> {
    /// Aligns `a` and `b` with `aligner` and reports their blocks.
    ///
    /// Both must be tokenized with the same [`TokenOptions`](crate::TokenOptions);
    /// sides longer than [`MAX_TOKENS`](crate::MAX_TOKENS) are reported on their first
    /// `MAX_TOKENS` tokens, the rest forming one last unique block.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens(""), o.tokens("new text"));
    /// let r = BlockReport::new(&mut Aligner::new(), &a, &b);
    /// assert!(r.a_blocks().is_empty());
    /// assert_eq!(r.unique_b_text(), vec!["new text"]);
    /// ```
    pub fn new(aligner: &mut Aligner, a: &Tokens<'t>, b: &Tokens<'t>) -> Self {
        let (alignment, stats) = aligner.align_with_stats(a.hashes(), b.hashes());
        let mut a_marks = vec![Mark::Unique; a.len()];
        let mut b_marks = vec![Mark::Unique; b.len()];
        for r in alignment.runs() {
            for i in 0..r.len {
                a_marks[r.a + i] = Mark::Shared(r.b + i);
                b_marks[r.b + i] = Mark::Shared(r.a + i);
            }
        }
        let a_found = find_copies(a.hashes(), &a_marks, b.hashes(), &b_marks);
        let b_found = find_copies(b.hashes(), &b_marks, a.hashes(), &a_marks);
        apply(&mut a_marks, a_found);
        apply(&mut b_marks, b_found);
        BlockReport {
            a: a.clone(),
            b: b.clone(),
            a_blocks: blocks_of(a, &a_marks),
            b_blocks: blocks_of(b, &b_marks),
            word_jaccard: stats.word_jaccard(),
            alignment,
        }
    }

    /// The blocks of the first document, in order; their bytes partition its text.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("x y"), o.tokens("x y"));
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &a, &b).a_blocks().len(), 1);
    /// ```
    #[must_use]
    pub fn a_blocks(&self) -> &[Block] {
        &self.a_blocks
    }

    /// The blocks of the second document, in order; their bytes partition its text.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("x y"), o.tokens("x z"));
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &a, &b).b_blocks().len(), 2);
    /// ```
    #[must_use]
    pub fn b_blocks(&self) -> &[Block] {
        &self.b_blocks
    }

    /// The text of a block of the first document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("keep, drop"), o.tokens("keep"));
    /// let r = BlockReport::new(&mut Aligner::new(), &a, &b);
    /// assert_eq!(r.a_text(&r.a_blocks()[1]), "drop");
    /// ```
    #[must_use]
    pub fn a_text(&self, block: &Block) -> &'t str {
        self.a.text().get(block.bytes.clone()).unwrap_or("")
    }

    /// The text of a block of the second document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("keep"), o.tokens("keep, add"));
    /// let r = BlockReport::new(&mut Aligner::new(), &a, &b);
    /// assert_eq!(r.b_text(&r.b_blocks()[0]), "keep, ");
    /// ```
    #[must_use]
    pub fn b_text(&self, block: &Block) -> &'t str {
        self.b.text().get(block.bytes.clone()).unwrap_or("")
    }

    /// The unique text of the first document (paper's "unique text"): what a reader
    /// comparing the two must look at on that side.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("we ask you to stop"), o.tokens("we ask you"));
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &a, &b).unique_a_text(), vec!["to stop"]);
    /// ```
    #[must_use]
    pub fn unique_a_text(&self) -> Vec<&'t str> {
        unique_texts(&self.a_blocks, |b| self.a_text(b))
    }

    /// The unique text of the second document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("we ask you"), o.tokens("we ask you to stop"));
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &a, &b).unique_b_text(), vec!["to stop"]);
    /// ```
    #[must_use]
    pub fn unique_b_text(&self) -> Vec<&'t str> {
        unique_texts(&self.b_blocks, |b| self.b_text(b))
    }

    /// The alignment the report was built from.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("a b c"), o.tokens("a c"));
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &a, &b).alignment().matched(), 2);
    /// ```
    #[must_use]
    pub fn alignment(&self) -> &Alignment {
        &self.alignment
    }

    /// Tokens of the first document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &o.tokens("a b"), &o.tokens("")).len_a(), 2);
    /// ```
    #[must_use]
    pub fn len_a(&self) -> usize {
        self.a.len()
    }

    /// Tokens of the second document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &o.tokens("a b"), &o.tokens("")).len_b(), 0);
    /// ```
    #[must_use]
    pub fn len_b(&self) -> usize {
        self.b.len()
    }

    /// The Jaccard coefficient of the two word sets.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, TokenOptions};
    /// let o = TokenOptions::default();
    /// let r = BlockReport::new(&mut Aligner::new(), &o.tokens("a b"), &o.tokens("b c"));
    /// assert_eq!(r.word_jaccard(), 1.0 / 3.0);
    /// ```
    #[must_use]
    pub fn word_jaccard(&self) -> f64 {
        self.word_jaccard
    }

    /// The first document's tokens.
    pub(crate) fn a_tokens(&self) -> &Tokens<'t> {
        &self.a
    }

    /// The second document's tokens.
    pub(crate) fn b_tokens(&self) -> &Tokens<'t> {
        &self.b
    }
}

/// What a token is while the report is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Shared(usize),
    Unique,
    Moved(usize),
    Repeated(usize),
}

/// A run of `len` tokens at `at` of this side found again at `other` of the other
/// side, in its aligned text (`repeat`) or in its gaps.
struct Copy {
    at: usize,
    other: usize,
    len: usize,
    repeat: bool,
}

/// Runs of at least [`MIN_MOVED_TOKENS`] unique tokens of `this` that occur in `that`.
fn find_copies(this: &[u64], this_marks: &[Mark], that: &[u64], that_marks: &[Mark]) -> Vec<Copy> {
    let k = MIN_MOVED_TOKENS;
    // The runs of unique tokens long enough to hold a copy.
    let mut runs = Vec::new();
    let mut i = 0;
    while i < this.len() {
        if this_marks[i] != Mark::Unique {
            i += 1;
            continue;
        }
        let end = (i..this.len())
            .find(|&j| this_marks[j] != Mark::Unique)
            .unwrap_or(this.len());
        if end - i >= k {
            runs.push(i..end);
        }
        i = end;
    }
    let mut found = Vec::new();
    if runs.is_empty() || that.len() < k {
        return found;
    }
    let grams = GramIndex::new(that, k);
    for run in runs {
        let mut j = run.start;
        while j + k <= run.end {
            let best = grams
                .starts(&this[j..j + k], MAX_POSITIONS)
                .map(|p| {
                    let len = (0..)
                        .take_while(|&t| {
                            j + t < run.end && p + t < that.len() && this[j + t] == that[p + t]
                        })
                        .count();
                    (len, p)
                })
                .max_by_key(|&(len, p)| (len, std::cmp::Reverse(p)));
            match best {
                Some((len, p)) if len >= k => {
                    found.push(Copy {
                        at: j,
                        other: p,
                        len,
                        repeat: false,
                    });
                    j += len;
                }
                _ => j += 1,
            }
        }
    }
    // Split each copy where the other side changes between aligned and gap text.
    let mut out = Vec::with_capacity(found.len());
    for c in found {
        let mut s = 0;
        while s < c.len {
            let repeat = matches!(that_marks[c.other + s], Mark::Shared(_));
            let e = (s..c.len)
                .find(|&t| matches!(that_marks[c.other + t], Mark::Shared(_)) != repeat)
                .unwrap_or(c.len);
            out.push(Copy {
                at: c.at + s,
                other: c.other + s,
                len: e - s,
                repeat,
            });
            s = e;
        }
    }
    out
}

fn apply(marks: &mut [Mark], found: Vec<Copy>) {
    for c in found {
        for t in 0..c.len {
            marks[c.at + t] = if c.repeat {
                Mark::Repeated(c.other + t)
            } else {
                Mark::Moved(c.other + t)
            };
        }
    }
}

/// Groups marked tokens into blocks with byte ranges that partition the text.
fn blocks_of(tokens: &Tokens<'_>, marks: &[Mark]) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for (i, &m) in marks.iter().enumerate() {
        let (kind, other) = match m {
            Mark::Shared(o) => (BlockKind::Shared, Some(o)),
            Mark::Unique => (BlockKind::Unique, None),
            Mark::Moved(o) => (BlockKind::Moved, Some(o)),
            Mark::Repeated(o) => (BlockKind::Repeated, Some(o)),
        };
        if let Some(last) = blocks.last_mut()
            && last.kind == kind
            && match (&last.other, other) {
                (Some(r), Some(o)) => r.end == o,
                (None, None) => true,
                _ => false,
            }
        {
            last.tokens.end = i + 1;
            if let Some(r) = last.other.as_mut() {
                r.end += 1;
            }
            continue;
        }
        blocks.push(Block {
            kind,
            tokens: i..i + 1,
            bytes: 0..0,
            other: other.map(|o| o..o + 1),
        });
    }
    let text_len = tokens.text().len();
    let n = blocks.len();
    for k in 0..n {
        let start = if k == 0 {
            0
        } else {
            tokens.start_of(blocks[k].tokens.start)
        };
        let end = if k + 1 == n {
            text_len
        } else {
            tokens.start_of(blocks[k + 1].tokens.start)
        };
        blocks[k].bytes = start..end;
    }
    if blocks.is_empty() && text_len > 0 {
        // Text without a token (punctuation, spaces): one unique block.
        blocks.push(Block {
            kind: BlockKind::Unique,
            tokens: 0..0,
            bytes: 0..text_len,
            other: None,
        });
    }
    blocks
}

/// The texts (through `text`) of the unique blocks among `blocks`, in order.
fn unique_texts<'t>(blocks: &[Block], text: impl Fn(&Block) -> &'t str) -> Vec<&'t str> {
    blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Unique)
        .map(text)
        .collect()
}

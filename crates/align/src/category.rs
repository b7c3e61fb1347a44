//! The near-duplicate categories of Yang and Callan (SIGIR 2006, Section 2), read
//! off a block report, and the containment of paragraphs (Section 4.4.1).

use std::ops::Range;

use ndd_core::Error;

use crate::grams::GramIndex;
use crate::named::by_name;
use crate::{Aligner, BlockKind, BlockReport, Tokens};

/// How a candidate document was made from a reference document, in the categories of
/// Yang and Callan (SIGIR 2006, Section 2).
///
/// # Example
///
/// ```
/// use near_dup::align::Category;
/// assert_eq!(Category::MinorChangeBlockEdit.name(), "minor-change-block-edit");
/// assert!(Category::KeyBlock.is_near_duplicate());
/// assert!(!Category::Different.is_near_duplicate());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// The same tokens in the same order ("100% word overlap").
    Exact,
    /// A few words altered: in every paragraph fewer than 15 words or 5% of its
    /// words changed.
    MinorChange,
    /// One or more blocks (each under 200 words) added to the reference.
    BlockAdded,
    /// One or more blocks (each under 200 words) removed from the reference.
    BlockDeleted,
    /// A minor change together with blocks added or removed.
    MinorChangeBlockEdit,
    /// The same blocks in another order.
    BlockReordering,
    /// The whole of one document repeated several times in the other.
    Repeated,
    /// Contains at least one whole paragraph of the reference, with larger edits
    /// around it.
    KeyBlock,
    /// More than 80% word overlap (word-set Jaccard) not explained by the categories
    /// above.
    BagOfWords,
    /// None of the above: not a near-duplicate by these definitions.
    Different,
}

impl Category {
    /// Every category.
    ///
    /// # Example
    ///
    /// ```
    /// for c in near_dup::align::Category::ALL {
    ///     assert_eq!(c.name().parse::<near_dup::align::Category>()?, c);
    /// }
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub const ALL: [Category; 10] = [
        Category::Exact,
        Category::MinorChange,
        Category::BlockAdded,
        Category::BlockDeleted,
        Category::MinorChangeBlockEdit,
        Category::BlockReordering,
        Category::Repeated,
        Category::KeyBlock,
        Category::BagOfWords,
        Category::Different,
    ];

    /// The kebab-case name.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::Category::BagOfWords.name(), "bag-of-words");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Category::Exact => "exact",
            Category::MinorChange => "minor-change",
            Category::BlockAdded => "block-added",
            Category::BlockDeleted => "block-deleted",
            Category::MinorChangeBlockEdit => "minor-change-block-edit",
            Category::BlockReordering => "block-reordering",
            Category::Repeated => "repeated",
            Category::KeyBlock => "key-block",
            Category::BagOfWords => "bag-of-words",
            Category::Different => "different",
        }
    }

    /// Whether the category is one of the near-duplicate categories (all but
    /// [`Different`](Category::Different)).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::align::Category::Exact.is_near_duplicate());
    /// ```
    #[must_use]
    pub fn is_near_duplicate(self) -> bool {
        self != Category::Different
    }
}

by_name!(Category, |s| Error::invalid_input(format!(
    "unknown category {s:?}"
)));

/// The thresholds of the categories; the defaults are those of Yang and Callan
/// (SIGIR 2006, Section 2).
///
/// # Example
///
/// ```
/// use near_dup::align::ClassifyOptions;
/// let o = ClassifyOptions::default();
/// assert_eq!((o.minor_max_words, o.minor_max_fraction, o.block_max_words), (15, 0.05, 200));
/// assert_eq!(o.bag_of_words, 0.8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassifyOptions {
    /// A paragraph with fewer changed words than this (or than
    /// [`minor_max_fraction`](Self::minor_max_fraction) of its words) has a minor
    /// change. Default 15.
    pub minor_max_words: usize,
    /// See [`minor_max_words`](Self::minor_max_words). Default 0.05.
    pub minor_max_fraction: f64,
    /// A block added or removed has fewer words than this. Default 200.
    pub block_max_words: usize,
    /// A one-sided edit of at least this many words is a block edit rather than a
    /// minor change (a changed word replaces a word; an added or removed block has no
    /// counterpart). Default 3.
    pub block_min_words: usize,
    /// Word-set Jaccard above which a pair is bag-of-words similar. Default 0.8.
    pub bag_of_words: f64,
}

impl Default for ClassifyOptions {
    fn default() -> Self {
        ClassifyOptions {
            minor_max_words: 15,
            minor_max_fraction: 0.05,
            block_max_words: 200,
            block_min_words: 3,
            bag_of_words: 0.8,
        }
    }
}

/// A pair's category and the edit counts behind it.
///
/// # Example
///
/// ```
/// use near_dup::align::{classify, Aligner, Category, TokenOptions};
/// let o = TokenOptions::default();
/// let (a, b) = (o.tokens("We urge you to act now on mercury."), o.tokens("We urge you to act today on mercury."));
/// let c = classify(&mut Aligner::new(), &a, &b);
/// assert_eq!(c.category, Category::MinorChange);
/// assert_eq!(c.minor_words, 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Classification {
    /// The category.
    pub category: Category,
    /// Words changed by minor edits (the larger side of each small edit).
    pub minor_words: usize,
    /// Words in blocks of the candidate that the reference lacks.
    pub added_words: usize,
    /// Words in blocks of the reference that the candidate lacks.
    pub deleted_words: usize,
    /// Words of either side found at another position of the other.
    pub moved_words: usize,
    /// Words of either side that repeat text already aligned.
    pub repeated_words: usize,
}

/// Classifies `candidate` against `reference`: aligns them, builds the
/// [`BlockReport`] and reads the category off it with the paper's thresholds.
///
/// # Example
///
/// ```
/// use near_dup::align::{classify, Aligner, Category, TokenOptions};
/// let o = TokenOptions::default();
/// let r = o.tokens("Protect the wetlands.");
/// let c = o.tokens("Protect the wetlands.\n\nProtect the wetlands.\n\nProtect the wetlands.");
/// assert_eq!(classify(&mut Aligner::new(), &r, &c).category, Category::Repeated);
/// ```
pub fn classify(
    aligner: &mut Aligner,
    reference: &Tokens<'_>,
    candidate: &Tokens<'_>,
) -> Classification {
    BlockReport::new(aligner, reference, candidate).classify()
}

/// Whether `container` contains every paragraph of `contained`, each as a contiguous
/// run of its tokens, in any order: the key-block must-link of Yang and Callan (SIGIR
/// 2006, Section 4.4.1, "complete containment of the reference copy").
///
/// Paragraphs are separated by blank lines; a text of one paragraph is taken sentence
/// by sentence. A text without tokens is contained in anything.
///
/// Cost: O(n log n) to index the n tokens of the container by their first k tokens (k
/// up to 4), then each paragraph is checked at no more than 64 positions where its
/// first 4-gram occurs, so a container that repeats
/// one 4-gram thousands of times costs little (a paragraph found only past the 64th
/// such place is then reported missing).
///
/// # Example
///
/// ```
/// use near_dup::align::{contains_paragraphs, TokenOptions};
/// let o = TokenOptions::default();
/// let letter = o.tokens("Stop the mine.\n\nSave the river.");
/// let comment = o.tokens("I am a fisher.\n\nSave the river.\n\nStop the mine.\n\nThanks.");
/// assert!(contains_paragraphs(&comment, &letter));
/// assert!(!contains_paragraphs(&letter, &comment));
/// ```
pub fn contains_paragraphs(container: &Tokens<'_>, contained: &Tokens<'_>) -> bool {
    let mut finder = Finder::new(container.hashes());
    paragraphs(contained)
        .into_iter()
        .all(|p| finder.contains(&contained.hashes()[p]))
}

/// Finds runs of tokens in a sequence through indexes of its k-grams (k = 1 to 4,
/// built when first needed), checking at most [`MAX_CHECKS`] positions per run.
struct Finder<'s> {
    seq: &'s [u64],
    indexes: [Option<GramIndex>; 4],
}

/// Positions of one k-gram checked when looking for a run: a run is searched in
/// O(MAX_CHECKS · its length) at most, so a hostile text of one repeated word
/// costs little (and may then be reported as not found).
const MAX_CHECKS: usize = 64;

impl<'s> Finder<'s> {
    fn new(seq: &'s [u64]) -> Self {
        Finder {
            seq,
            indexes: [None, None, None, None],
        }
    }

    /// Whether `run` occurs in the sequence as a contiguous run.
    fn contains(&mut self, run: &[u64]) -> bool {
        if run.is_empty() {
            return true;
        }
        let k = run.len().min(4);
        let seq = self.seq;
        let index = self.indexes[k - 1].get_or_insert_with(|| GramIndex::new(seq, k));
        index
            .starts(run, MAX_CHECKS)
            .any(|p| seq.get(p..p + run.len()) == Some(run))
    }
}

/// The token ranges of the paragraphs of a text (blank-line separated), or of its
/// sentences when it has one paragraph.
fn paragraphs(tokens: &Tokens<'_>) -> Vec<Range<usize>> {
    let split = |is_break: &dyn Fn(&str) -> bool| {
        let mut out = Vec::new();
        let mut start = 0;
        for i in 1..tokens.len() {
            if is_break(tokens.gap_before(i)) {
                out.push(start..i);
                start = i;
            }
        }
        if start < tokens.len() {
            out.push(start..tokens.len());
        }
        out
    };
    let paras = split(&|gap: &str| {
        // A blank line: two line breaks with only whitespace between them.
        let mut lines = gap.split('\n');
        lines.next(); // before the first line break
        let mut inner: Option<&str> = None;
        for line in lines {
            if inner.is_some_and(|l| l.trim().is_empty()) {
                return true;
            }
            inner = Some(line);
        }
        false
    });
    if paras.len() >= 2 {
        return paras;
    }
    split(&|gap: &str| {
        let t = gap.trim_end();
        t.len() < gap.len() && t.ends_with(['.', '!', '?'])
    })
}

/// The word (whitespace-separated unit) of each token: `user@example.org` is one
/// word of three tokens. The paper's thresholds count words.
fn words_of(tokens: &Tokens<'_>) -> Vec<usize> {
    let mut word = 0;
    (0..tokens.len())
        .map(|i| {
            if i > 0 && tokens.gap_before(i).chars().any(char::is_whitespace) {
                word += 1;
            }
            word
        })
        .collect()
}

/// Aligned runs shorter than this between two edits are taken as part of one edit.
const MERGE_RUN: usize = 3;

/// Per-token kinds of one side.
fn kinds(blocks: &[crate::Block], len: usize) -> Vec<BlockKind> {
    let mut out = vec![BlockKind::Unique; len];
    for b in blocks {
        for t in b.tokens.clone() {
            out[t] = b.kind;
        }
    }
    out
}

impl BlockReport<'_> {
    /// The category of the second document relative to the first (the reference),
    /// with the default thresholds.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, Category, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("Keep the park open.\n\nIt is our park."), o.tokens("Keep the park open."));
    /// assert_eq!(BlockReport::new(&mut Aligner::new(), &a, &b).classify().category, Category::BlockDeleted);
    /// ```
    #[must_use]
    pub fn classify(&self) -> Classification {
        self.classify_with(&ClassifyOptions::default())
    }

    /// [`classify`](Self::classify) with other thresholds.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, BlockReport, Category, ClassifyOptions, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (o.tokens("a b c d e f g h"), o.tokens("a b c d e f g h i j k"));
    /// let r = BlockReport::new(&mut Aligner::new(), &a, &b);
    /// assert_eq!(r.classify().category, Category::BlockAdded);
    /// let strict = ClassifyOptions { block_max_words: 3, ..ClassifyOptions::default() };
    /// assert_ne!(r.classify_with(&strict).category, Category::BlockAdded);
    /// ```
    #[must_use]
    pub fn classify_with(&self, o: &ClassifyOptions) -> Classification {
        let (la, lb) = (self.len_a(), self.len_b());
        let ka = kinds(self.a_blocks(), la);
        let kb = kinds(self.b_blocks(), lb);
        let count = |k: &[BlockKind], kind: BlockKind| k.iter().filter(|&&x| x == kind).count();
        let (ua, ub) = (count(&ka, BlockKind::Unique), count(&kb, BlockKind::Unique));
        let (ma, mb) = (count(&ka, BlockKind::Moved), count(&kb, BlockKind::Moved));
        let moved = ma + mb;
        let (ra, rb) = (
            count(&ka, BlockKind::Repeated),
            count(&kb, BlockKind::Repeated),
        );
        let mut c = Classification {
            category: Category::Different,
            minor_words: 0,
            added_words: 0,
            deleted_words: 0,
            moved_words: moved,
            repeated_words: ra + rb,
        };
        let matched = self.alignment().matched();
        if la == lb && matched == la && self.alignment().is_exact() {
            c.category = Category::Exact;
            return c;
        }
        // Tokens of noise tolerated beside a repetition or a reordering: the minor
        // fraction of the side's length (a fraction outside [0, 1] is clamped; NaN is 0).
        let fraction = if o.minor_max_fraction >= 0.0 {
            o.minor_max_fraction.min(1.0)
        } else {
            0.0
        };
        // In [0, len] by the clamp above, so the cast cannot truncate.
        #[allow(clippy::cast_possible_truncation)]
        let slack = |len: usize| (len as f64 * fraction).floor() as usize;
        let (a_tokens, b_tokens) = (self.a_tokens(), self.b_tokens());
        if is_repetition(a_tokens.hashes(), b_tokens.hashes())
            || is_repetition(b_tokens.hashes(), a_tokens.hashes())
        {
            c.category = Category::Repeated;
            return c;
        }
        // One side is the other repeated: the extra text is copies of aligned text.
        // (at least twice as long: two copies or more).
        if (rb > 0 && lb >= 2 * la && ub + mb <= slack(lb) && ua <= slack(la))
            || (ra > 0 && la >= 2 * lb && ua + ma <= slack(la) && ub <= slack(lb))
        {
            c.category = Category::Repeated;
            return c;
        }
        if moved > 0 && ua + ub <= slack(la.max(lb)).max(1)
            || same_multiset(a_tokens.hashes(), &ka, b_tokens.hashes(), &kb)
        {
            c.category = Category::BlockReordering;
            return c;
        }
        // The edits between aligned runs, unique tokens only.
        let a_paras = paragraphs(a_tokens);
        let mut minor_per_para = vec![0usize; a_paras.len().max(1)];
        // Paragraphs are consecutive and in order: a binary search finds a token's.
        let para_of = |t: usize| {
            a_paras
                .partition_point(|p| p.end <= t)
                .min(a_paras.len().saturating_sub(1))
        };
        let (mut added, mut deleted) = (Vec::new(), Vec::new());
        // Each gap between aligned runs, with the gaps around an aligned run shorter
        // than `MERGE_RUN` tokens merged (a common word matched by chance inside a
        // replaced passage): its unique tokens on each side. The part both sides
        // have (min) is words changed; the excess of one side, from
        // `block_min_words` on, is a block added or deleted, below it a minor change.
        let mut gap = (0usize, 0usize, 0usize); // (unique in a, unique in b, where in a)
        let mut prev = (0usize, 0usize);
        let mut close = |g: (usize, usize, usize)| {
            let (ga, gb, at) = g;
            let (small, big) = (ga.min(gb), ga.max(gb));
            if big == 0 {
                return;
            }
            let para = para_of(at.min(la.saturating_sub(1)));
            minor_per_para[para] += small;
            let excess = big - small;
            if excess >= o.block_min_words {
                if ga > gb {
                    deleted.push(excess);
                } else {
                    added.push(excess);
                }
            } else {
                minor_per_para[para] += excess;
            }
        };
        let (wa, wb) = (words_of(a_tokens), words_of(b_tokens));
        let unique_words = |kinds: &[BlockKind], words: &[usize], range: Range<usize>| {
            let mut last = usize::MAX;
            let mut n = 0;
            for t in range {
                // Repeated text in a gap is still text added or removed here.
                if matches!(kinds[t], BlockKind::Unique | BlockKind::Repeated) && words[t] != last {
                    n += 1;
                    last = words[t];
                }
            }
            n
        };
        let runs = self.alignment().runs();
        for (k, r) in runs.iter().enumerate() {
            gap.0 += unique_words(&ka, &wa, prev.0..r.a);
            gap.1 += unique_words(&kb, &wb, prev.1..r.b);
            prev = (r.a + r.len, r.b + r.len);
            let inner = k + 1 < runs.len() && k > 0;
            if !(inner && r.len < MERGE_RUN) {
                close(gap);
                gap = (0, 0, prev.0);
            }
        }
        gap.0 += unique_words(&ka, &wa, prev.0..la);
        gap.1 += unique_words(&kb, &wb, prev.1..lb);
        close(gap);
        c.minor_words = minor_per_para.iter().sum();
        c.added_words = added.iter().sum();
        c.deleted_words = deleted.iter().sum();
        let minor_ok = minor_per_para
            .iter()
            .zip(a_paras.iter().map(|p| p.len()).chain(std::iter::repeat(la)))
            .all(|(&changed, len)| {
                (changed as f64) < (o.minor_max_words as f64).max(o.minor_max_fraction * len as f64)
            });
        let blocks_ok = added.iter().chain(&deleted).all(|&w| w < o.block_max_words);
        let minor = c.minor_words > 0;
        c.category = match (added.is_empty(), deleted.is_empty()) {
            (true, true) if minor && minor_ok => Category::MinorChange,
            (false, true) | (true, false) if blocks_ok && minor_ok => {
                if minor {
                    Category::MinorChangeBlockEdit
                } else if added.is_empty() {
                    Category::BlockDeleted
                } else {
                    Category::BlockAdded
                }
            }
            _ if self.has_whole_paragraph() => Category::KeyBlock,
            _ if self.word_jaccard() > o.bag_of_words => Category::BagOfWords,
            _ => Category::Different,
        };
        c
    }

    /// Whether one side contains a whole paragraph (of at least 3 tokens) of the
    /// other.
    fn has_whole_paragraph(&self) -> bool {
        let (a, b) = (self.a_tokens(), self.b_tokens());
        let whole = |from: &Tokens<'_>, into: &Tokens<'_>| {
            let mut finder = Finder::new(into.hashes());
            paragraphs(from)
                .into_iter()
                .any(|p| p.len() >= 3 && finder.contains(&from.hashes()[p]))
        };
        whole(a, b) || whole(b, a)
    }
}

/// Whether `long` is `short` written two or more times.
fn is_repetition(short: &[u64], long: &[u64]) -> bool {
    !short.is_empty()
        && long.len() >= 2 * short.len()
        && long.len() % short.len() == 0
        && long.chunks(short.len()).all(|c| c == short)
}

/// Whether the two sides have the same tokens with the same counts.
/// The aligned tokens are the same on both sides, so only the others (`kinds` not
/// shared) are sorted and compared: few for a near-duplicate.
fn same_multiset(a: &[u64], ka: &[BlockKind], b: &[u64], kb: &[BlockKind]) -> bool {
    if a.len() != b.len() || a.is_empty() {
        return false;
    }
    let rest = |t: &[u64], k: &[BlockKind]| {
        let mut v: Vec<u64> = t
            .iter()
            .zip(k)
            .filter(|&(_, &k)| k != BlockKind::Shared)
            .map(|(&h, _)| h)
            .collect();
        v.sort_unstable();
        v
    };
    rest(a, ka) == rest(b, kb)
}

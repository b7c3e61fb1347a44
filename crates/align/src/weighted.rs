//! LCS Dice over weighted tokens: the heaviest common subsequence, with weights the
//! caller derives from the corpus (document frequencies).

use ndd_core::Error;
use ndd_core::stats::DocumentFrequencies;

use crate::lcs::sorted_positions;
use crate::{Aligner, Tokens};

/// Weights are kept as integer multiples of `2^-16`, so that sums and comparisons are
/// exact and the early exit never changes an answer.
const UNITS_PER_WEIGHT: f64 = 65_536.0;

/// Per-token weights for [`Aligner::weighted_dice`]: a table from token hash (the
/// values of [`TokenOptions::hashes`](crate::TokenOptions::hashes)) to a weight, and a
/// weight for tokens the table lacks.
///
/// Weights are numbers in `(0, MAX_WEIGHT]`, stored rounded to the nearest multiple of
/// `2^-16` (at least `2^-16`), so every sum of weights is exact. Memory: 16 bytes per
/// token in the table.
///
/// [`CorpusWeights`] builds the weights that scored best on both real labeled sets,
/// `1/sqrt(df)` for a token in `df` documents of the corpus and 16 times that for a
/// number; [`inverse_sqrt_document_frequency`](Self::inverse_sqrt_document_frequency)
/// gives `1/sqrt(df)` alone (best on one set, a loss on the other);
/// [`sqrt_document_frequency`](Self::sqrt_document_frequency) the opposite, `sqrt(df)`,
/// which scored worst (docs/decisions.md, "Verification measures on real labels" and
/// "A measure that beats word-set Jaccard on both real sets").
///
/// # Example
///
/// ```
/// use near_dup::align::TokenWeights;
/// let w = TokenWeights::new([(7, 2.0), (9, 0.5)], 1.0)?;
/// assert_eq!((w.weight(7), w.weight(9), w.weight(123)), (2.0, 0.5, 1.0));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenWeights {
    /// (token, weight in units of 2^-16), sorted by token, tokens distinct.
    table: Vec<(u64, u64)>,
    /// The weight of a token the table lacks, in units.
    default: u64,
}

impl Default for TokenWeights {
    /// Every token weighs 1 (weighted LCS Dice is then LCS Dice).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::TokenWeights::default().weight(42), 1.0);
    /// ```
    fn default() -> Self {
        TokenWeights {
            table: Vec::new(),
            // 1.0 in units of 2^-16.
            default: 65_536,
        }
    }
}

impl TokenWeights {
    /// The largest weight a token may have: `2^24`. With at most
    /// [`MAX_TOKENS`](crate::MAX_TOKENS) tokens a side, every sum fits in 64 bits.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenWeights;
    /// assert!(TokenWeights::new([], TokenWeights::MAX_WEIGHT).is_ok());
    /// assert!(TokenWeights::new([], 2.0 * TokenWeights::MAX_WEIGHT).is_err());
    /// ```
    pub const MAX_WEIGHT: f64 = 16_777_216.0;

    /// Weights from `(token, weight)` pairs (a token given twice keeps its last
    /// weight) and the weight of every other token.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a weight that is not a number in
    /// `(0, MAX_WEIGHT]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenWeights;
    /// let w = TokenWeights::new([(1, 3.0), (1, 4.0)], 1.0)?;
    /// assert_eq!(w.weight(1), 4.0);
    /// assert!(TokenWeights::new([(1, f64::NAN)], 1.0).is_err());
    /// assert!(TokenWeights::new([], 0.0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(weights: impl IntoIterator<Item = (u64, f64)>, default: f64) -> Result<Self, Error> {
        let mut table = Vec::new();
        for (token, w) in weights {
            table.push((token, units(w)?));
        }
        Ok(TokenWeights {
            table: last_of_each(table),
            default: units(default)?,
        })
    }

    /// Weights from document frequencies: every token of `documents` (each a token
    /// sequence) weighs `weight(df, documents)`, where `df` is the number of documents
    /// it occurs in; a token of none weighs `weight(1, documents)` (as rare as a token
    /// can be in that corpus).
    ///
    /// Costs O(T log T) for T tokens in all, memory O(distinct tokens).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `weight` gives a value that is not a number in
    /// `(0, MAX_WEIGHT]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenWeights;
    /// let docs: [&[u64]; 3] = [&[1, 2, 2], &[1, 3], &[1]];
    /// // Inverse document frequency, log(1 + N / df).
    /// let w = TokenWeights::from_document_frequency(docs, |df, n| (1.0 + n as f64 / df as f64).ln())?;
    /// assert!((w.weight(1) - 2f64.ln()).abs() < 1e-4); // in all 3 (rounded to 2^-16)
    /// assert!(w.weight(2) > w.weight(1));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_document_frequency<D: AsRef<[u64]>>(
        documents: impl IntoIterator<Item = D>,
        weight: impl Fn(usize, usize) -> f64,
    ) -> Result<Self, Error> {
        let mut seen: Vec<u64> = Vec::new();
        let mut doc = Vec::new();
        let mut n = 0usize;
        for d in documents {
            n += 1;
            doc.clear();
            doc.extend_from_slice(d.as_ref());
            doc.sort_unstable();
            doc.dedup();
            seen.extend_from_slice(&doc);
        }
        seen.sort_unstable();
        let mut table = Vec::new();
        let mut i = 0;
        while i < seen.len() {
            let mut j = i;
            while j < seen.len() && seen[j] == seen[i] {
                j += 1;
            }
            table.push((seen[i], units(weight(j - i, n))?));
            i = j;
        }
        Ok(TokenWeights {
            table,
            default: units(weight(1, n))?,
        })
    }

    /// Weights from document frequencies counted already: every token `stats` counted
    /// weighs `weight(df, N)`, where `df` is the number of documents it occurs in and
    /// `N` is [`num_docs`](DocumentFrequencies::num_docs); a token it did not count
    /// weighs `weight(1, N)` (as rare as a token can be in that corpus).
    ///
    /// What a pipeline uses to weigh a corpus's tokens without holding them: count
    /// each document's [`TokenOptions::hashes`](crate::TokenOptions::hashes) with
    /// [`DocumentFrequencies::add_document`] as it is read, then build the weights once.
    /// Costs O(D log D) for D distinct tokens; memory 16 bytes per distinct token.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `weight` gives a value that is not a number in
    /// `(0, MAX_WEIGHT]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenWeights;
    /// use near_dup::stats::DocumentFrequencies;
    /// let mut df = DocumentFrequencies::new(near_dup::SchemeId::new("tokens").finish());
    /// for doc in [&[1u64, 2, 2][..], &[1, 3], &[1]] {
    ///     df.add_document(doc);
    /// }
    /// let w = TokenWeights::from_frequencies(&df, |df, _| 1.0 / df as f64)?;
    /// assert_eq!((w.weight(2), w.weight(4)), (1.0, 1.0)); // in one document, in none
    /// assert!((w.weight(1) - 1.0 / 3.0).abs() < 1e-4); // in all 3 (rounded to 2^-16)
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_frequencies(
        stats: &DocumentFrequencies,
        weight: impl Fn(u64, u64) -> f64,
    ) -> Result<Self, Error> {
        let n = stats.num_docs();
        let mut table = stats
            .iter()
            .map(|(token, df)| Ok((token, units(weight(df, n))?)))
            .collect::<Result<Vec<(u64, u64)>, Error>>()?;
        // The statistics hold each token once.
        table.sort_unstable_by_key(|e| e.0);
        Ok(TokenWeights {
            table,
            default: units(weight(1, n))?,
        })
    }

    /// `sqrt(df)`: every token weighs the square root of the number of `documents` it
    /// occurs in (a token of none weighs 1). Words most documents share weigh more, a
    /// name or number unique to a document weighs least. On the real labeled sets LCS
    /// Dice over these weights scored far below plain word-set Jaccard (0.517 against
    /// 0.666 Max F1 on the Debian descriptions); prefer
    /// [`inverse_sqrt_document_frequency`](Self::inverse_sqrt_document_frequency).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenWeights;
    /// let docs: [&[u64]; 4] = [&[1, 2], &[1], &[1], &[1]];
    /// let w = TokenWeights::sqrt_document_frequency(docs);
    /// assert_eq!((w.weight(1), w.weight(2), w.weight(3)), (2.0, 1.0, 1.0));
    /// ```
    #[must_use]
    pub fn sqrt_document_frequency<D: AsRef<[u64]>>(
        documents: impl IntoIterator<Item = D>,
    ) -> Self {
        // sqrt(df) is in [1, 2^32) for any count of documents a usize can hold, and
        // clamped to MAX_WEIGHT; so no weight is refused.
        Self::from_document_frequency(documents, |df, _| {
            (df.max(1) as f64).sqrt().min(Self::MAX_WEIGHT)
        })
        .unwrap_or_default()
    }

    /// `1/sqrt(df)`: every token weighs one over the square root of the number of
    /// `documents` it occurs in (a token of none weighs 1). A name or number unique to
    /// a document weighs most, words most documents share weigh least, like an
    /// inverse document frequency. Of the weightings measured, LCS Dice over these
    /// weights scored best on the real labeled Debian descriptions (docs/decisions.md,
    /// "Verification measures on real labels").
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::TokenWeights;
    /// let docs: [&[u64]; 4] = [&[1, 2], &[1], &[1], &[1]];
    /// let w = TokenWeights::inverse_sqrt_document_frequency(docs);
    /// assert_eq!((w.weight(1), w.weight(2), w.weight(3)), (0.5, 1.0, 1.0));
    /// ```
    #[must_use]
    pub fn inverse_sqrt_document_frequency<D: AsRef<[u64]>>(
        documents: impl IntoIterator<Item = D>,
    ) -> Self {
        // 1/sqrt(df) is in (2^-32, 1] for any count of documents a usize can hold; a
        // weight below 2^-16 is kept as 2^-16, so no weight is refused.
        Self::from_document_frequency(documents, |df, _| 1.0 / (df.max(1) as f64).sqrt())
            .unwrap_or_default()
    }

    /// The weight of `token`, as stored (rounded to a multiple of `2^-16`).
    ///
    /// # Example
    ///
    /// ```
    /// let w = near_dup::align::TokenWeights::new([(5, 0.1)], 1.0)?;
    /// assert_eq!(w.weight(5), (0.1f64 * 65536.0).round() / 65536.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn weight(&self, token: u64) -> f64 {
        self.units_of(token) as f64 / UNITS_PER_WEIGHT
    }

    /// Tokens with a weight of their own (not the default).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::TokenWeights::new([(1, 2.0)], 1.0)?.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether no token has a weight of its own.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::align::TokenWeights::default().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    fn units_of(&self, token: u64) -> u64 {
        self.table
            .binary_search_by_key(&token, |e| e.0)
            .map_or(self.default, |i| self.table[i].1)
    }
}

/// Counts a corpus for the recommended weights of [`Aligner::weighted_dice`]: the
/// document frequency of every token, and which tokens are numbers.
///
/// [`weights`](Self::weights) then gives every token `1/sqrt(df)`, times
/// [`DIGIT_FACTOR`](Self::DIGIT_FACTOR) (16) for a token of ASCII digits alone (the
/// `2` of `GPL-2`, the `12` of `gcc-12`, not `libssl3`), where `df` is the number of
/// documents counted that contain it. Rare words (names) count more than common ones,
/// and numbers (versions, clause numbers) more than words: on the real labeled sets
/// LCS Dice over these weights beat word-set Jaccard by +0.042 Max F1 on Debian package
/// descriptions and +0.038 on DEP-5 license paragraphs, where `1/sqrt(df)` alone gained
/// +0.059 and lost 0.019 (docs/decisions.md, "A measure that beats word-set Jaccard on
/// both real sets").
///
/// Cost: one pass over each document's tokens; memory about 16 bytes per distinct
/// token counted (the counts) plus 8 per distinct number, and 16 per distinct token in
/// the weights built from them.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, CorpusWeights, TokenOptions};
/// let o = TokenOptions::default();
/// let texts = [
///     "the GNU General Public License version 2 or any later version",
///     "the GNU General Public License version 2 or any later version, see the file",
///     "the GNU General Public License version 3 or any later version",
/// ];
/// let mut counts = CorpusWeights::new();
/// for t in texts {
///     counts.add_document(&o.tokens(t));
/// }
/// let w = counts.weights();
/// let docs: Vec<Vec<u64>> = texts.iter().map(|t| o.hashes(t)).collect();
/// let mut al = Aligner::new();
/// let same = al.weighted_dice(&docs[0], &docs[1], &w, 0.0)?.unwrap_or(0.0);
/// let other_version = al.weighted_dice(&docs[0], &docs[2], &w, 0.0)?.unwrap_or(0.0);
/// assert!(same > other_version); // unweighted, the version 3 text is the closer one
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CorpusWeights {
    df: DocumentFrequencies,
    /// Tokens of ASCII digits alone: sorted and distinct up to `distinct`, the rest
    /// as found (sorted again when it doubles, so the cost stays linear).
    digits: Vec<u64>,
    distinct: usize,
}

impl Default for CorpusWeights {
    fn default() -> Self {
        Self::new()
    }
}

impl CorpusWeights {
    /// How much more a token of digits alone weighs than a word of the same document
    /// frequency: 16. Factors from 8 to 32 beat word-set Jaccard by 0.02 Max F1 or more
    /// on both real labeled sets; 16 is the middle of that range.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::CorpusWeights::DIGIT_FACTOR, 16.0);
    /// ```
    pub const DIGIT_FACTOR: f64 = 16.0;

    /// Nothing counted yet.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::CorpusWeights::new().frequencies().num_docs(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        CorpusWeights {
            df: DocumentFrequencies::new(
                ndd_core::SchemeId::new("ndd-align/corpus-weights/tokens").finish(),
            ),
            digits: Vec::new(),
            distinct: 0,
        }
    }

    /// Counts one document, given as its tokens
    /// ([`TokenOptions::tokens`](crate::TokenOptions::tokens); each distinct token
    /// counts once).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{CorpusWeights, TokenOptions};
    /// let mut c = CorpusWeights::new();
    /// c.add_document(&TokenOptions::default().tokens("GPL 2 or GPL 3"));
    /// assert_eq!((c.frequencies().num_docs(), c.frequencies().len()), (1, 4));
    /// ```
    pub fn add_document(&mut self, tokens: &Tokens<'_>) {
        self.df.add_document(tokens.hashes());
        for (i, &h) in tokens.hashes().iter().enumerate() {
            if is_number(tokens, i) {
                self.digits.push(h);
            }
        }
        if self.digits.len() > 2 * self.distinct.max(512) {
            self.digits.sort_unstable();
            self.digits.dedup();
            self.distinct = self.digits.len();
        }
    }

    /// The document frequencies counted so far: how many documents
    /// ([`num_docs`](DocumentFrequencies::num_docs)) and distinct tokens
    /// ([`len`](DocumentFrequencies::len)), each token's `df`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{CorpusWeights, TokenOptions};
    /// let o = TokenOptions::default();
    /// let mut c = CorpusWeights::new();
    /// c.add_document(&o.tokens("a b a"));
    /// c.add_document(&o.tokens("a"));
    /// let f = c.frequencies();
    /// assert_eq!((f.num_docs(), f.len(), f.df(o.hashes("a")[0])), (2, 2, 2));
    /// ```
    #[must_use]
    pub fn frequencies(&self) -> &DocumentFrequencies {
        &self.df
    }

    /// The weights: `1/sqrt(df)`, times [`DIGIT_FACTOR`](Self::DIGIT_FACTOR) for a
    /// token of digits alone; a token not counted weighs 1 (a word in one document).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{CorpusWeights, TokenOptions};
    /// let o = TokenOptions::default();
    /// let mut c = CorpusWeights::new();
    /// for t in ["gcc 12", "gcc 13", "gcc 12 docs", "gcc"] {
    ///     c.add_document(&o.tokens(t));
    /// }
    /// let w = c.weights();
    /// let h = |t: &str| o.hashes(t)[0];
    /// assert_eq!(w.weight(h("gcc")), 0.5); // in 4 documents
    /// assert_eq!(w.weight(h("13")), 16.0); // a number in 1
    /// assert!((w.weight(h("12")) - 16.0 / 2f64.sqrt()).abs() < 1e-4); // a number in 2
    /// assert_eq!(w.weight(h("docs")), 1.0);
    /// assert_eq!(w.weight(h("unseen")), 1.0);
    /// ```
    #[must_use]
    pub fn weights(&self) -> TokenWeights {
        let mut digits = self.digits.clone();
        digits.sort_unstable();
        digits.dedup();
        Self::weights_from_counts(
            self.df
                .iter()
                .map(|(t, df)| (t, df, digits.binary_search(&t).is_ok())),
        )
    }

    /// Each distinct token of one document, sorted, with whether it is a number (ASCII
    /// digits alone, at one of its places in the document at least): what
    /// [`add_document`](Self::add_document) counts of the document, for a counter that
    /// keeps its counts elsewhere (the out-of-core pipeline sorts them into a file).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{CorpusWeights, TokenOptions};
    /// let o = TokenOptions::default();
    /// let tokens = CorpusWeights::document_tokens(&o.tokens("gcc 12 and gcc 12"));
    /// assert_eq!(tokens.len(), 3); // gcc, 12, and
    /// let number = |t: &str| tokens.iter().find(|e| e.0 == o.hashes(t)[0]).map(|e| e.1);
    /// assert_eq!((number("12"), number("gcc")), (Some(true), Some(false)));
    /// ```
    #[must_use]
    pub fn document_tokens(tokens: &Tokens<'_>) -> Vec<(u64, bool)> {
        let mut out: Vec<(u64, bool)> = tokens
            .hashes()
            .iter()
            .enumerate()
            .map(|(i, &h)| (h, is_number(tokens, i)))
            .collect();
        // A token is a number when one of its places is: `true` sorts last.
        out.sort_unstable();
        let mut kept: Vec<(u64, bool)> = Vec::with_capacity(out.len());
        for e in out {
            match kept.last_mut() {
                Some(last) if last.0 == e.0 => last.1 |= e.1,
                _ => kept.push(e),
            }
        }
        kept
    }

    /// The weights of [`weights`](Self::weights) from counts made elsewhere: for each
    /// distinct token `(token, df, number)`, its document frequency and whether it is
    /// a number in some document ([`document_tokens`](Self::document_tokens) of every
    /// document, summed). Given the counts of every token
    /// [`add_document`](Self::add_document) saw, the same weights; given those of a
    /// few tokens, the same weights for those tokens. A token given twice keeps its
    /// last count.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{CorpusWeights, TokenOptions};
    /// let o = TokenOptions::default();
    /// let mut c = CorpusWeights::new();
    /// for t in ["gcc 12", "gcc 13", "gcc 12 docs", "gcc"] {
    ///     c.add_document(&o.tokens(t));
    /// }
    /// let h = |t: &str| o.hashes(t)[0];
    /// let w = CorpusWeights::weights_from_counts([(h("gcc"), 4, false), (h("12"), 2, true)]);
    /// assert_eq!(w.weight(h("gcc")), c.weights().weight(h("gcc")));
    /// assert_eq!(w.weight(h("12")), c.weights().weight(h("12")));
    /// assert_eq!(w.len(), 2);
    /// ```
    #[must_use]
    pub fn weights_from_counts(counts: impl IntoIterator<Item = (u64, u64, bool)>) -> TokenWeights {
        let factor = |number: bool| if number { Self::DIGIT_FACTOR } else { 1.0 };
        let table: Vec<(u64, u64)> = counts
            .into_iter()
            // 16/sqrt(df) is in (2^-28, 16] for df <= 2^53 and at least one unit after
            // rounding: no weight is refused.
            .map(|(t, df, number)| (t, units_clamped(factor(number) / (df.max(1) as f64).sqrt())))
            .collect();
        TokenWeights {
            table: last_of_each(table),
            default: units_clamped(1.0),
        }
    }
}

/// `table` sorted by token (stably), keeping the last entry of a token given twice.
fn last_of_each(mut table: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    table.sort_by_key(|e| e.0);
    let mut kept: Vec<(u64, u64)> = Vec::with_capacity(table.len());
    for e in table {
        match kept.last_mut() {
            Some(last) if last.0 == e.0 => *last = e,
            _ => kept.push(e),
        }
    }
    kept
}

/// Whether token `i` of `tokens` is a number: ASCII digits alone (the `2` of `GPL-2`,
/// not `libssl3`).
fn is_number(tokens: &Tokens<'_>, i: usize) -> bool {
    tokens.text()[tokens.span(i)]
        .bytes()
        .all(|c| c.is_ascii_digit())
}

/// A weight in `(0, MAX_WEIGHT]` known to be a number, in units of 2^-16 (at least one
/// unit).
fn units_clamped(w: f64) -> u64 {
    units(w.clamp(f64::MIN_POSITIVE, TokenWeights::MAX_WEIGHT)).unwrap_or(1)
}

/// A weight in units of 2^-16 (at least one unit).
fn units(w: f64) -> Result<u64, Error> {
    if !(w > 0.0 && w <= TokenWeights::MAX_WEIGHT) {
        return Err(Error::invalid_parameter(
            "weight",
            format!("must be a number in (0, 2^24], got {w}"),
        ));
    }
    // In [0, 2^40]: no truncation.
    #[allow(clippy::cast_possible_truncation)]
    let u = (w * UNITS_PER_WEIGHT).round() as u64;
    Ok(u.max(1))
}

impl Aligner {
    /// Weighted LCS Dice of `a` and `b` if it reaches `threshold`, else `None`.
    ///
    /// With `w(t)` the weight of token `t` in `weights`, the **heaviest common
    /// subsequence** `H` is the largest total weight of a sequence of tokens found in
    /// order in both sides, and the measure is `2·H / (W(a) + W(b))`, where `W(x)` is
    /// the total weight of the tokens of `x` (1 for two empty sides, 0 for an empty and
    /// a non-empty one). With every weight 1 it is [`Measure::Dice`](crate::Measure::Dice).
    /// Each side is cut to its first [`MAX_TOKENS`](crate::MAX_TOKENS) tokens.
    ///
    /// The answer is exactly that of the full computation: weights are integers in
    /// units of `2^-16`, the needed `H` is found by binary search on the formula, and
    /// the work stops only when an upper bound of `H` falls below it: first the
    /// weighted multiset bound `Σ_t w(t)·min(count in a, count in b)`, then, after each
    /// token `i` of the longer side, `H(a[..=i], b) + Σ_{k>i} w(a_k)` over the tokens
    /// still to read that the other side has.
    ///
    /// Cost: a dynamic program over the tokens both sides have, O(n'·m') time and
    /// O(m') memory for n' and m' such tokens (no bit-parallel form: weights make the
    /// steps additive), plus O((n + m) log(n + m)) to sort and weigh the tokens. Use it
    /// on candidate pairs of ordinary documents, not on megabyte sides.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a threshold that is not a number in `[0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, TokenOptions, TokenWeights};
    /// let o = TokenOptions::default();
    /// let docs: Vec<Vec<u64>> = ["the libfoo shared library", "the libfoo headers", "the libbar shared library"]
    ///     .iter()
    ///     .map(|t| o.hashes(t))
    ///     .collect();
    /// let w = TokenWeights::sqrt_document_frequency(&docs);
    /// let mut al = Aligner::new();
    /// // "the", "shared", "library" in two or three documents outweigh the names.
    /// let s = al.weighted_dice(&docs[0], &docs[2], &w, 0.0)?.unwrap_or(0.0);
    /// assert!(s > 0.75);
    /// assert_eq!(al.weighted_dice(&docs[0], &docs[2], &w, 0.99)?, None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn weighted_dice(
        &mut self,
        a: &[u64],
        b: &[u64],
        weights: &TokenWeights,
        threshold: f64,
    ) -> Result<Option<f64>, Error> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid_parameter(
                "threshold",
                format!("must be in [0, 1], got {threshold}"),
            ));
        }
        let a = &a[..a.len().min(crate::MAX_TOKENS)];
        let b = &b[..b.len().min(crate::MAX_TOKENS)];
        let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        let total: u64 = a.iter().chain(b).map(|&t| weights.units_of(t)).sum();
        let value = |h: u64| {
            if total == 0 {
                1.0
            } else {
                (2 * h) as f64 / total as f64
            }
        };
        if short.is_empty() {
            let s = if long.is_empty() { 1.0 } else { 0.0 };
            return Ok(Some(s).filter(|&s| s >= threshold));
        }
        // Which tokens both sides have, and the weighted multiset bound.
        let (mut pl, mut ps) = (
            std::mem::take(&mut self.pos_a),
            std::mem::take(&mut self.pos_b),
        );
        sorted_positions(long, &mut pl);
        sorted_positions(short, &mut ps);
        let mut in_both_long = vec![false; long.len()];
        let mut in_both_short = vec![false; short.len()];
        let mut multiset_bound = 0u64;
        let (mut i, mut j) = (0, 0);
        while i < pl.len() && j < ps.len() {
            let (x, y) = (pl[i].0, ps[j].0);
            if x < y {
                i += 1;
            } else if y < x {
                j += 1;
            } else {
                let (si, sj) = (i, j);
                while i < pl.len() && pl[i].0 == x {
                    in_both_long[pl[i].1 as usize] = true;
                    i += 1;
                }
                while j < ps.len() && ps[j].0 == x {
                    in_both_short[ps[j].1 as usize] = true;
                    j += 1;
                }
                multiset_bound += weights.units_of(x) * (i - si).min(j - sj) as u64;
            }
        }
        (self.pos_a, self.pos_b) = (pl, ps);
        // The least H that reaches the threshold (binary search on the formula).
        let most = multiset_bound;
        if value(most) < threshold {
            return Ok(None);
        }
        let (mut lo, mut hi) = (0u64, most);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if value(mid) >= threshold {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let need = lo;
        // The tokens in both documents, with their weights in units.
        let in_both = |tokens: &[u64], marks: &[bool]| -> Vec<(u64, u64)> {
            tokens
                .iter()
                .zip(marks)
                .filter(|e| *e.1)
                .map(|(&t, _)| (t, weights.units_of(t)))
                .collect()
        };
        let short = in_both(short, &in_both_short);
        let long = in_both(long, &in_both_long);
        let mut rest: u64 = long.iter().map(|e| e.1).sum();
        let mut prev = vec![0u64; short.len() + 1];
        let mut cur = vec![0u64; short.len() + 1];
        for &(x, wx) in &long {
            rest -= wx;
            for (k, &(y, _)) in short.iter().enumerate() {
                let skip = cur[k].max(prev[k + 1]);
                cur[k + 1] = if x == y { skip.max(prev[k] + wx) } else { skip };
            }
            std::mem::swap(&mut prev, &mut cur);
            if prev[short.len()] + rest < need {
                return Ok(None);
            }
        }
        let h = prev[short.len()];
        Ok(Some(value(h)).filter(|&s| h >= need && s >= threshold))
    }
}

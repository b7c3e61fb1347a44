//! Similarities read off the LCS, and verification of a pair at a threshold.

use ndd_core::Error;

use crate::lcs::{shingles_into, sorted_positions};
use crate::named::by_name;
use crate::{Aligner, LcsResult, TokenOptions};

/// A similarity of two token sequences computed from their longest common
/// subsequence `L` (and, for [`Combined`](Measure::Combined), their word 3-gram sets).
///
/// For sequences `a` and `b`:
/// * [`Dice`](Measure::Dice): `2L / (|a| + |b|)`, 1 for two identical sequences,
///   lower for every token added, removed, changed or moved; symmetric.
/// * [`Containment`](Measure::Containment): `L / min(|a|, |b|)`, 1 when the shorter
///   is a subsequence of the longer (a form letter inside a longer comment).
/// * [`MaxJaccardDice`](Measure::MaxJaccardDice): `max(J, 2L / (|a| + |b|))` where
///   `J` is the Jaccard coefficient of the two sets of distinct tokens; symmetric.
/// * [`Combined`](Measure::Combined) (recommended): the mean of LCS containment and
///   the Jaccard coefficient of the two word 3-gram sets (the pipeline's exact
///   verifier). On labeled sets generated from three real sources with hard
///   negatives (siblings that differ in one clause, name, number or short
///   paragraph), it beat 3-gram Jaccard alone in all nine cells (3 sources × 3
///   seeds, +0.003 to +0.015 Max F1) and word-set Jaccard by 0.013 to 0.039; LCS-Dice
///   and containment alone score below 3-gram Jaccard in every cell
///   (docs/decisions.md, "The alignment verifier"). On real labeled sets (labels from
///   provenance: Debian package descriptions by source package, license paragraphs
///   by license name) it is level with word-set Jaccard (+0.008 and +0.011 Max F1 on
///   the same candidates), the best of these measures there by too little to claim
///   a better ranking (docs/decisions.md, "Verification measures on real labels").
///
/// For LCS Dice over tokens weighted by the corpus's document frequencies, see
/// [`Aligner::weighted_dice`].
///
/// Two empty sequences score 1 under every measure; an empty and a non-empty one 0.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, Measure, TokenOptions};
/// let o = TokenOptions::default();
/// let (a, b) = (o.hashes("a b c d"), o.hashes("a b c d e f"));
/// let r = Aligner::new().lcs(&a, &b, 0);
/// assert_eq!(Measure::Dice.score(&r), 0.8);
/// assert_eq!(Measure::Containment.score(&r), 1.0);
/// assert_eq!(Measure::Combined.score(&r), (1.0 + 2.0 / 4.0) / 2.0); // 3-grams: abc, bcd of 4
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Measure {
    /// `2·LCS / (|a| + |b|)`.
    Dice,
    /// `LCS / min(|a|, |b|)`.
    Containment,
    /// `(LCS containment + word 3-gram Jaccard) / 2`.
    #[default]
    Combined,
    /// `max(word-set Jaccard, LCS Dice)`: the Jaccard coefficient of the two sets of
    /// distinct tokens, or LCS Dice when that is higher.
    MaxJaccardDice,
}

impl Measure {
    /// Every measure.
    ///
    /// # Example
    ///
    /// ```
    /// for m in near_dup::align::Measure::ALL {
    ///     assert_eq!(m.name().parse::<near_dup::align::Measure>()?, m);
    /// }
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub const ALL: [Measure; 4] = [
        Measure::Dice,
        Measure::Containment,
        Measure::Combined,
        Measure::MaxJaccardDice,
    ];

    /// `dice`, `containment`, `combined` or `max-jaccard-dice`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::Measure::Dice.name(), "dice");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Measure::Dice => "dice",
            Measure::Containment => "containment",
            Measure::Combined => "combined",
            Measure::MaxJaccardDice => "max-jaccard-dice",
        }
    }

    /// The set statistic the measure reads besides the LCS: the word 3-gram Jaccard
    /// for [`Combined`](Measure::Combined), the word-set Jaccard for
    /// [`MaxJaccardDice`](Measure::MaxJaccardDice), none (0) for the others.
    fn set_part(self, r: &LcsResult) -> f64 {
        match self {
            Measure::Combined => r.shingle_jaccard(),
            Measure::MaxJaccardDice => r.word_jaccard(),
            Measure::Dice | Measure::Containment => 0.0,
        }
    }

    /// The measure of sides of `n` and `m` tokens with an LCS of `lcs` and the set
    /// statistic `set_part` (word 3-gram Jaccard for the combined measure, word-set
    /// Jaccard for the maximum).
    fn value(self, n: usize, m: usize, lcs: usize, set_part: f64) -> f64 {
        let dice = if n + m == 0 {
            1.0
        } else {
            2.0 * lcs as f64 / (n + m) as f64
        };
        let containment = if n.min(m) == 0 {
            if n == m { 1.0 } else { 0.0 }
        } else {
            lcs as f64 / n.min(m) as f64
        };
        match self {
            Measure::Dice => dice,
            Measure::Containment => containment,
            Measure::Combined => (containment + set_part) / 2.0,
            Measure::MaxJaccardDice => set_part.max(dice),
        }
    }

    /// The measure of a computed LCS; 0 when its length is unknown (below what was
    /// asked).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, Measure};
    /// let r = Aligner::new().lcs(&[1, 2], &[2, 1], 0);
    /// assert_eq!(Measure::Dice.score(&r), 0.5);
    /// ```
    #[must_use]
    pub fn score(self, r: &LcsResult) -> f64 {
        r.lcs
            .map_or(0.0, |l| self.value(r.len_a, r.len_b, l, self.set_part(r)))
    }

    /// The shortest LCS with which sides of `n` and `m` tokens (and that set
    /// statistic) reach `threshold`; `None` when even a full match does not.
    fn min_lcs(self, n: usize, m: usize, set_part: f64, threshold: f64) -> Option<usize> {
        let most = n.min(m);
        if self.value(n, m, most, set_part) < threshold {
            return None;
        }
        // The measures grow with the LCS: binary search on the exact float formula,
        // so that the early exit decides exactly as the full computation would.
        let (mut lo, mut hi) = (0usize, most);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.value(n, m, mid, set_part) >= threshold {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }
}

by_name!(Measure, |s| Error::invalid_parameter(
    "measure",
    format!("must be dice, containment, combined or max-jaccard-dice, got {s:?}"),
));

/// A document ready for verification: its tokens (cut to
/// [`MAX_TOKENS`](crate::MAX_TOKENS)) sorted with their positions, and its sorted word
/// 3-gram set, computed once and reused for every pair the document is in: a pair of
/// prepared documents needs no hashing or sorting, only merges and the bit-parallel
/// pass.
///
/// Memory: about 20 bytes per token.
///
/// # Example
///
/// ```
/// use near_dup::align::{Aligner, Measure, Prepared, TokenOptions};
/// let o = TokenOptions::default();
/// let docs: Vec<Prepared> = ["a b c d e", "a b c d f", "e d c b a"]
///     .iter()
///     .map(|t| Prepared::new(&o, t))
///     .collect();
/// let mut al = Aligner::new();
/// // Containment 4/5 and 3-grams 2 of 4 shared: (0.8 + 0.5) / 2.
/// assert_eq!(al.verify_prepared(&docs[0], &docs[1], Measure::Combined, 0.6)?, Some(0.65));
/// assert_eq!(al.verify_prepared(&docs[0], &docs[2], Measure::Combined, 0.6)?, None);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prepared {
    /// (token, position), sorted.
    positions: Vec<(u64, u32)>,
    shingles: Vec<u64>,
}

impl Prepared {
    /// Tokenizes `text` with `options` and prepares it.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Prepared, TokenOptions};
    /// let p = Prepared::new(&TokenOptions::default(), "one two three four");
    /// assert_eq!((p.len(), p.shingles().len()), (4, 2));
    /// ```
    #[must_use]
    pub fn new(options: &TokenOptions, text: &str) -> Self {
        Self::from_hashes(options.hashes(text))
    }

    /// Prepares token hashes made elsewhere (with [`TokenOptions::hashes`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::Prepared;
    /// assert_eq!(Prepared::from_hashes(vec![1, 2]).shingles().len(), 1); // one short shingle
    /// ```
    #[must_use]
    pub fn from_hashes(mut tokens: Vec<u64>) -> Self {
        tokens.truncate(crate::MAX_TOKENS);
        let mut shingles = Vec::new();
        shingles_into(&tokens, &mut shingles);
        let mut positions = Vec::new();
        sorted_positions(&tokens, &mut positions);
        Prepared {
            positions,
            shingles,
        }
    }

    /// The number of tokens.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::align::Prepared::from_hashes(vec![5, 5, 6]).len(), 3);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the document has no token.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::align::Prepared::default().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The distinct word 3-gram hashes, sorted (the values of
    /// `WordShingler::new(3)`).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::align::Prepared::from_hashes(vec![1, 2, 3, 1, 2, 3]);
    /// assert_eq!(p.shingles().len(), 3); // 123, 231, 312
    /// ```
    #[must_use]
    pub fn shingles(&self) -> &[u64] {
        &self.shingles
    }
}

impl Aligner {
    /// The similarity of `a` and `b` under `measure` if it reaches `threshold`, else
    /// `None`; the LCS pass stops as soon as the threshold is out of reach.
    ///
    /// The answer is exactly that of computing the full LCS and comparing
    /// `measure.score(..) >= threshold`. To verify many pairs among the same
    /// documents, [`Prepared`] documents and
    /// [`verify_prepared`](Self::verify_prepared) do the per-document work once.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a threshold that is not a number in `[0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, Measure, TokenOptions};
    /// let o = TokenOptions::default();
    /// let a = o.hashes("I support the proposed rule on mercury emissions");
    /// let b = o.hashes("I strongly support the proposed rule on mercury emissions");
    /// let c = o.hashes("emissions mercury on rule proposed the support I");
    /// let mut al = Aligner::new();
    /// // Containment 8/8, word 3-grams 5 of 8 shared: (1 + 0.625) / 2.
    /// assert_eq!(al.verify(&a, &b, Measure::Combined, 0.8)?, Some(0.8125));
    /// assert!(al.verify(&a, &c, Measure::Combined, 0.8)?.is_none()); // same words, reversed
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn verify(
        &mut self,
        a: &[u64],
        b: &[u64],
        measure: Measure,
        threshold: f64,
    ) -> Result<Option<f64>, Error> {
        let a = &a[..a.len().min(crate::MAX_TOKENS)];
        let b = &b[..b.len().min(crate::MAX_TOKENS)];
        // Shingles first: under the combined measure they may rule the pair out
        // before the tokens are sorted.
        let (mut ga, mut gb) = (
            std::mem::take(&mut self.grams_a),
            std::mem::take(&mut self.grams_b),
        );
        let (mut pa, mut pb) = (
            std::mem::take(&mut self.pos_a),
            std::mem::take(&mut self.pos_b),
        );
        // Only the combined measure reads the 3-gram sets.
        ga.clear();
        gb.clear();
        if measure == Measure::Combined {
            shingles_into(a, &mut ga);
            shingles_into(b, &mut gb);
        }
        // The maximum reads the token sets, from the sorted tokens.
        let sorted_first = measure == Measure::MaxJaccardDice;
        if sorted_first {
            sorted_positions(a, &mut pa);
            sorted_positions(b, &mut pb);
        }
        let bound = needed_lcs(
            measure,
            (a.len(), b.len()),
            (&ga, &gb),
            || distinct_jaccard(&pa, &pb),
            threshold,
        );
        let result = bound.map(|bound| {
            let (need, set_part) = bound?;
            if !sorted_first {
                sorted_positions(a, &mut pa);
                sorted_positions(b, &mut pb);
            }
            let r = self.core(&pa, &pb, need);
            passing(measure, &r, set_part, threshold)
        });
        (self.grams_a, self.grams_b) = (ga, gb);
        (self.pos_a, self.pos_b) = (pa, pb);
        result
    }

    /// [`verify`](Self::verify) for prepared documents: no tokenizing or shingling per
    /// pair, and a pair whose 3-gram sets already rule it out under
    /// [`Measure::Combined`] costs one merge of the two sets.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a threshold that is not a number in `[0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::align::{Aligner, Measure, Prepared, TokenOptions};
    /// let o = TokenOptions::default();
    /// let (a, b) = (Prepared::new(&o, "x y z"), Prepared::new(&o, "x y z"));
    /// assert_eq!(Aligner::new().verify_prepared(&a, &b, Measure::Dice, 1.0)?, Some(1.0));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn verify_prepared(
        &mut self,
        a: &Prepared,
        b: &Prepared,
        measure: Measure,
        threshold: f64,
    ) -> Result<Option<f64>, Error> {
        let bound = needed_lcs(
            measure,
            (a.len(), b.len()),
            (&a.shingles, &b.shingles),
            || distinct_jaccard(&a.positions, &b.positions),
            threshold,
        );
        let Some((need, set_part)) = bound? else {
            return Ok(None);
        };
        let r = self.core(&a.positions, &b.positions, need);
        Ok(passing(measure, &r, set_part, threshold))
    }
}

/// The shortest LCS with which sides of `n` and `m` tokens reach `threshold` under
/// `measure`, with the set statistic the measure reads (the Jaccard of the two 3-gram
/// sets `shingles`, or the token-set Jaccard `word_jaccard` computes); `Ok(None)` when
/// no LCS can.
fn needed_lcs(
    measure: Measure,
    (n, m): (usize, usize),
    (a_shingles, b_shingles): (&[u64], &[u64]),
    word_jaccard: impl FnOnce() -> f64,
    threshold: f64,
) -> Result<Option<(usize, f64)>, Error> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(Error::invalid_parameter(
            "threshold",
            format!("must be in [0, 1], got {threshold}"),
        ));
    }
    let set_part = match measure {
        Measure::Combined => ndd_core::jaccard(a_shingles, b_shingles),
        Measure::MaxJaccardDice => word_jaccard(),
        Measure::Dice | Measure::Containment => 0.0,
    };
    Ok(measure
        .min_lcs(n, m, set_part, threshold)
        .map(|need| (need, set_part)))
}

/// The Jaccard coefficient of the distinct tokens of two sides given as (token,
/// position) sorted by token (1 for two empty sides), as
/// [`LcsResult::word_jaccard`] gives it.
fn distinct_jaccard(a: &[(u64, u32)], b: &[(u64, u32)]) -> f64 {
    let (mut i, mut j) = (0, 0);
    let (mut da, mut db, mut common) = (0usize, 0usize, 0usize);
    while i < a.len() || j < b.len() {
        let h = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => break,
        };
        let (si, sj) = (i, j);
        while i < a.len() && a[i].0 == h {
            i += 1;
        }
        while j < b.len() && b[j].0 == h {
            j += 1;
        }
        da += usize::from(i > si);
        db += usize::from(j > sj);
        common += usize::from(i > si && j > sj);
    }
    let union = da + db - common;
    if union == 0 {
        1.0
    } else {
        common as f64 / union as f64
    }
}

/// The score of a finished pass if it reaches `threshold`.
fn passing(measure: Measure, r: &LcsResult, set_part: f64, threshold: f64) -> Option<f64> {
    r.lcs
        .map(|l| measure.value(r.len_a, r.len_b, l, set_part))
        .filter(|&s| s >= threshold)
}

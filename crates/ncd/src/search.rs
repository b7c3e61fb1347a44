//! All pairs with NCD ≤ τ in a [`Corpus`], pruned by the two policies of X. Zhang,
//! Y. Yao, Y. Ji, B. Fang, "Effective and Fast Near Duplicate Detection via
//! Signature-Based Compression Metrics", Hindawi research article, 2016, section 4.
//!
//! * **P1** (Lemma 3, section 4.2.1): for `C(x) ≤ C(y)`, `NCD(x, y) ≥ 1 − C(x)/C(y)`.
//!   Items are sorted by `C`; item `i` is compared only with the later items of its
//!   *matching partition*, up to the first one with `C > C(i)/(1 − τ)` (section 4.3).
//! * **P2** (Lemma 5, section 4.2.2): `NCD(x, y) ≥ |NCD(x, z) − NCD(y, z)|` by the
//!   triangle inequality, so a pair is skipped when some pivot `z` gives a difference
//!   above τ. Under the two conditions of section 4.3: the pivot precedes both items
//!   in the sorted order, and both lie in the pivot's matching partition (so its
//!   distances to them were computed anyway). Pivots here are
//!   [`pivots`](SearchBuilder::pivots) items evenly spaced in the sorted order; their
//!   rows are computed first, in full.
//! * **Checked** ([`SearchBuilder::checked`]): Algorithm 1's `checked` set. An item
//!   already matched to an earlier one is neither compared again nor used as a row.
//!   Faster on collections with large groups, but it **misses pairs** (two members of
//!   a group matched by a third are never compared), so connected components may also
//!   split. Off by default; sequential (its result depends on the order of rows).
//!
//! # Exactness
//!
//! The search computes every pair in one orientation (the item with the lower index
//! first in the concatenation) with monotonicity enforced
//! ([`crate::monotone_ncd_from_lengths`]), exactly as [`Corpus::distance`] does, so
//! its distances are those of the brute force over the same corpus.
//!
//! * Items with identical byte strings share their compressions
//!   ([`SearchBuilder::share_identical`], on by default): a pair's distance is a
//!   function of its two byte strings in concatenation order, so a row takes the
//!   distance of an earlier pair of the same strings instead of compressing again.
//! * P1 is exact: a pruned pair has `C(x) < (1 − τ)·C(y)`, and the enforced
//!   `C(xy) ≥ C(y)` gives NCD ≥ `1 − C(x)/C(y)` > τ. (With plain equation 2 it would
//!   not be: real compressors sometimes give `C(xy) < C(y)`, and on the bundled corpus
//!   P1 then misses pairs that brute force finds; see `docs/decisions.md`.)
//! * P2 needs the triangle inequality, which NCD satisfies only for an ideal (normal)
//!   compressor (Lemma 2). Real compressors violate it by small amounts, so P2 prunes
//!   only when the difference exceeds `τ + slack`
//!   ([`p2_slack`](SearchBuilder::p2_slack), default [`DEFAULT_P2_SLACK`]); a
//!   violation larger than the slack can drop a pair. `docs/performance.md` has the
//!   measured violation rate and size on real text; the tests check P1+P2 against
//!   brute force at τ = 0.1 … 0.9 on two fixtures.
//!
//! # Example
//!
//! ```
//! use near_dup::ncd::{Pruning, SearchConfig, SigNcd};
//! let docs = [
//!     "Copyright 2001, Alice, Bob, and Carol. All rights reserved, worldwide, forever.",
//!     "Copyright 2002, Alice, Bob, and Carol. All rights reserved, worldwide, forever.",
//!     "Lorem ipsum, dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.",
//! ];
//! let corpus = SigNcd::new().corpus(&docs)?;
//! let out = SearchConfig::builder(0.5).pruning(Pruning::P1).build()?.search(&corpus)?;
//! assert_eq!(out.pairs.len(), 1);
//! assert_eq!((out.pairs[0].a, out.pairs[0].b), (0, 1));
//! assert_eq!(out.report.total_pairs, 3);
//! # Ok::<(), near_dup::Error>(())
//! ```

use std::collections::HashMap;

use ndd_core::{Error, ScoredPair};

use crate::compress::Compressor;
use crate::ncd::{Corpus, Ncd};

/// Default slack of P2: prune only when `|NCD(x, z) − NCD(y, z)| > τ + 0.25`. The
/// largest triangle-inequality violation measured on 400 signatures of the bundled
/// corpus was 0.21 with Snappy and 0.11 with LZ4 (`examples/metric.rs`).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::ncd::SearchConfig::new(0.5)?.p2_slack(), near_dup::ncd::DEFAULT_P2_SLACK);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_P2_SLACK: f64 = 0.25;

/// Default number of P2 pivots.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::ncd::SearchConfig::new(0.5)?.pivots(), near_dup::ncd::DEFAULT_PIVOTS);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_PIVOTS: usize = 16;

/// Which pruning policies the search applies.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::ncd::Pruning::default(), near_dup::ncd::Pruning::P1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Pruning {
    /// Every pair (the brute-force oracle: "SigNCD w/o" in the paper).
    None,
    /// The size lower bound (Lemma 3), the paper's recommended setting.
    #[default]
    P1,
    /// P1 and the triangle inequality through pivots (Lemma 5).
    P1P2,
}

/// What the search did with the `n(n−1)/2` pairs: `compared + pruned_p1 + pruned_p2
/// + skipped_checked + capped == total_pairs`.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{SearchConfig, SigNcd};
/// let corpus = SigNcd::new().corpus(&["a, b, c, d", "a, b, c, e", "x"])?;
/// let r = SearchConfig::new(0.5)?.search(&corpus)?.report;
/// assert_eq!(r.compared + r.pruned_p1 + r.pruned_p2 + r.skipped_checked + r.capped, r.total_pairs);
/// assert!(r.pruned_fraction() >= 0.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// Items searched.
    pub items: usize,
    /// `n(n−1)/2`.
    pub total_pairs: u64,
    /// Pairs whose NCD was computed: one compression each, except the
    /// [`reused`](Self::reused) ones.
    pub compared: u64,
    /// Of [`compared`](Self::compared), pairs whose NCD was taken from an earlier pair
    /// with the same two byte strings in the same order (items with identical
    /// signatures, see [`SearchBuilder::share_identical`]): no compression. The
    /// compressions made are `compared − reused`.
    pub reused: u64,
    /// Pairs skipped by P1 (outside the matching partition).
    pub pruned_p1: u64,
    /// Pairs skipped by P2 (a pivot proved NCD > τ).
    pub pruned_p2: u64,
    /// Pairs skipped in checked mode (an item was already matched).
    pub skipped_checked: u64,
    /// Pairs not compared because their row had found
    /// [`max_partners`](SearchBuilder::max_partners) pairs already.
    pub capped: u64,
    /// Pivot rows used by P2.
    pub pivots: usize,
}

impl SearchReport {
    /// The fraction of all pairs not compared.
    ///
    /// # Example
    ///
    /// ```
    /// let r = near_dup::ncd::SearchReport { total_pairs: 10, compared: 4, pruned_p1: 6, ..Default::default() };
    /// assert_eq!(r.pruned_fraction(), 0.6);
    /// ```
    #[must_use]
    pub fn pruned_fraction(&self) -> f64 {
        if self.total_pairs == 0 {
            return 0.0;
        }
        1.0 - self.compared as f64 / self.total_pairs as f64
    }

    fn add(&mut self, o: &SearchReport) {
        self.compared += o.compared;
        self.reused += o.reused;
        self.pruned_p1 += o.pruned_p1;
        self.pruned_p2 += o.pruned_p2;
        self.skipped_checked += o.skipped_checked;
        self.capped += o.capped;
    }
}

/// The result of a search: the pairs as [`ScoredPair`]s (items `a < b`, score
/// `1 − NCD`, so higher is more similar and `NCD = 1 − score`), sorted by `(a, b)`,
/// and the report.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{SearchConfig, SigNcd};
/// let doc = "Permission is hereby granted, free of charge, to any person obtaining a copy \
///            of this software, to deal in the Software without restriction, including \
///            without limitation the rights to use, copy, modify, merge, publish.";
/// let corpus = SigNcd::new().corpus(&[doc; 3])?;
/// let out = SearchConfig::new(0.5)?.search(&corpus)?;
/// assert_eq!(out.pairs.len(), 3);
/// assert_eq!(out.report.compared, 3);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SearchOutput {
    /// Pairs with NCD ≤ τ, scored `1 − NCD`, sorted by `(a, b)`.
    pub pairs: Vec<ScoredPair>,
    /// Counts of compared and pruned pairs.
    pub report: SearchReport,
}

/// A validated search configuration. Build with [`SearchConfig::builder`].
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Pruning, SearchConfig};
/// let s = SearchConfig::builder(0.7).pruning(Pruning::P1P2).pivots(8).build()?;
/// assert_eq!((s.threshold(), s.pruning(), s.pivots()), (0.7, Pruning::P1P2, 8));
/// assert!(SearchConfig::new(1.5).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    threshold: f64,
    pruning: Pruning,
    pivots: usize,
    p2_slack: f64,
    checked: bool,
    parallel: bool,
    share_identical: bool,
    max_partners: Option<usize>,
}

impl SearchConfig {
    /// The exact search with P1 at `threshold` τ (sequential).
    ///
    /// # Errors
    ///
    /// As [`SearchBuilder::build`].
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SearchConfig::new(0.3)?;
    /// assert!(!s.is_checked());
    /// assert!(near_dup::ncd::SearchConfig::new(f64::NAN).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(threshold: f64) -> Result<Self, Error> {
        Self::builder(threshold).build()
    }

    /// A builder at `threshold` τ with the defaults (P1, exact, sequential).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::ncd::SearchConfig::builder(0.2).parallel(true).build()?;
    /// assert!(s.is_parallel());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder(threshold: f64) -> SearchBuilder {
        SearchBuilder {
            config: SearchConfig {
                threshold,
                pruning: Pruning::P1,
                pivots: DEFAULT_PIVOTS,
                p2_slack: DEFAULT_P2_SLACK,
                checked: false,
                parallel: false,
                share_identical: true,
                max_partners: None,
            },
        }
    }

    /// τ: pairs with NCD ≤ τ are reported.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SearchConfig::new(0.4)?.threshold(), 0.4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The pruning policies.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SearchConfig::new(0.4)?.pruning(), near_dup::ncd::Pruning::P1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn pruning(&self) -> Pruning {
        self.pruning
    }

    /// The number of P2 pivots.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SearchConfig::builder(0.4).pivots(4).build()?.pivots(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn pivots(&self) -> usize {
        self.pivots
    }

    /// The P2 slack for triangle-inequality violations.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SearchConfig::builder(0.4).p2_slack(0.0).build()?.p2_slack(), 0.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn p2_slack(&self) -> f64 {
        self.p2_slack
    }

    /// The most pairs one row reports (see [`SearchBuilder::max_partners`]; `None`:
    /// all).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::SearchConfig::new(0.4)?.max_partners(), None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_partners(&self) -> Option<usize> {
        self.max_partners
    }

    /// Whether Algorithm 1's inexact `checked` shortcut is on.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::ncd::SearchConfig::builder(0.4).checked(true).build()?.is_checked());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_checked(&self) -> bool {
        self.checked
    }

    /// Whether rows run on all cores (needs the `rayon` feature; without it the
    /// search is sequential).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!near_dup::ncd::SearchConfig::new(0.4)?.is_parallel());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_parallel(&self) -> bool {
        self.parallel
    }

    /// Whether pairs of items with identical byte strings share one compression
    /// (see [`SearchBuilder::share_identical`]).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::ncd::SearchConfig::new(0.4)?.shares_identical());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn shares_identical(&self) -> bool {
        self.share_identical
    }

    /// Finds all pairs of `corpus` with NCD ≤ τ (see the [module docs](self)).
    ///
    /// # Errors
    ///
    /// As [`Compressor::compressed_len`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Pruning, SearchConfig, SigNcd};
    /// let docs = ["red, green, blue, yellow", "red, green, blue, yellow!", "one two three"];
    /// let corpus = SigNcd::new().corpus(&docs)?;
    /// let brute = SearchConfig::builder(0.6).pruning(Pruning::None).build()?.search(&corpus)?;
    /// let p1 = SearchConfig::new(0.6)?.search(&corpus)?;
    /// assert_eq!(brute.pairs, p1.pairs);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn search(&self, corpus: &Corpus) -> Result<SearchOutput, Error> {
        self.search_with_progress(corpus, &|_| {})
    }

    /// [`search`](Self::search), calling `progress(rows)` as rows of the search are
    /// done: one row per document, `corpus.len()` in all (from several threads at
    /// once in a parallel search). For a progress bar over a long search; the result
    /// is the same.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search).
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use near_dup::ncd::{SearchConfig, SigNcd};
    /// let docs = ["red, green, blue, yellow", "red, green, blue, yellow!", "one, two"];
    /// let corpus = SigNcd::new().corpus(&docs)?;
    /// let rows = AtomicU64::new(0);
    /// let out = SearchConfig::new(0.6)?.search_with_progress(&corpus, &|r| {
    ///     rows.fetch_add(r, Ordering::Relaxed);
    /// })?;
    /// assert_eq!(rows.into_inner(), 3);
    /// assert_eq!(out.pairs, SearchConfig::new(0.6)?.search(&corpus)?.pairs);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn search_with_progress(
        &self,
        corpus: &Corpus,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<SearchOutput, Error> {
        let plan = Plan::new(self, corpus);
        let mut out = if self.checked {
            plan.run_checked(progress)?
        } else {
            plan.run_exact(progress)?
        };
        out.report.items = corpus.len();
        out.report.total_pairs = pairs_of(corpus.len());
        out.pairs.sort_unstable_by_key(|p| (p.a, p.b));
        Ok(out)
    }
}

/// Builds a [`SearchConfig`].
///
/// # Example
///
/// ```
/// let b = near_dup::ncd::SearchBuilder::new(0.5);
/// assert_eq!(b.build()?.threshold(), 0.5);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct SearchBuilder {
    config: SearchConfig,
}

impl SearchBuilder {
    /// Same as [`SearchConfig::builder`].
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::ncd::SearchBuilder::new(-0.1).build().is_err());
    /// ```
    pub fn new(threshold: f64) -> Self {
        SearchConfig::builder(threshold)
    }

    /// The pruning policies (default [`Pruning::P1`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Pruning, SearchConfig};
    /// assert_eq!(SearchConfig::builder(0.5).pruning(Pruning::None).build()?.pruning(), Pruning::None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn pruning(mut self, pruning: Pruning) -> Self {
        self.config.pruning = pruning;
        self
    }

    /// The number of P2 pivots, evenly spaced in the order by `C` (default
    /// [`DEFAULT_PIVOTS`]; at least 1).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::ncd::SearchConfig::builder(0.5).pivots(0).build().is_err());
    /// ```
    pub fn pivots(mut self, pivots: usize) -> Self {
        self.config.pivots = pivots;
        self
    }

    /// P2 prunes only when a pivot shows `|NCD(x, z) − NCD(y, z)| > τ + slack`
    /// (default [`DEFAULT_P2_SLACK`]; 0 is Lemma 5 as stated, exact only for a metric).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::ncd::SearchConfig::builder(0.5).p2_slack(-1.0).build().is_err());
    /// ```
    pub fn p2_slack(mut self, slack: f64) -> Self {
        self.config.p2_slack = slack;
        self
    }

    /// Algorithm 1's `checked` shortcut: faster, **may miss pairs** (see the
    /// [module docs](self)). Works with [`Pruning::None`] or [`Pruning::P1`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Pruning, SearchConfig};
    /// assert!(SearchConfig::builder(0.5).checked(true).pruning(Pruning::P1P2).build().is_err());
    /// ```
    pub fn checked(mut self, checked: bool) -> Self {
        self.config.checked = checked;
        self
    }

    /// At most `partners` pairs per row (`None`, the default: every pair): a row
    /// (one item against the later items of its matching partition, nearest in
    /// compressed size first) stops once it has found that many pairs within τ. The
    /// bound of a hot cluster: `n` mutually similar items make `n(n − 1)/2` pairs and
    /// as many compressions unbounded (2·10⁸ for 20,000 near-identical lines);
    /// capped, at most `n · partners` pairs, and a row of near-duplicates stops early.
    /// Each item still pairs with up to `partners` of its nearest similar items, so a
    /// cluster of mutual near-duplicates stays connected and only some of its pairs go
    /// unreported; a row with fewer pairs than the cap is as without it. `Some(0)` is
    /// refused by [`build`](Self::build).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{SearchConfig, SigNcd};
    /// // Five copies of one notice: 10 pairs, or one per row (4) when capped at 1.
    /// let notice = "Copyright 2001, Alice, Bob, and Carol. All rights reserved, worldwide, forever.";
    /// let corpus = SigNcd::new().corpus(&[notice; 5])?;
    /// let all = SearchConfig::new(0.6)?.search(&corpus)?;
    /// let capped = SearchConfig::builder(0.6).max_partners(Some(1)).build()?.search(&corpus)?;
    /// assert_eq!((all.pairs.len(), capped.pairs.len()), (10, 4));
    /// assert_eq!(capped.report.capped, 6);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn max_partners(mut self, partners: Option<usize>) -> Self {
        self.config.max_partners = partners;
        self
    }

    /// Run rows on all cores (feature `rayon`; ignored without it). The result is the
    /// same as sequential.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::ncd::SearchConfig::builder(0.5).parallel(true).build()?.is_parallel());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.config.parallel = parallel;
        self
    }

    /// Compress each pair of distinct byte strings once (default `true`). The distance
    /// of a pair depends only on the two items' bytes in concatenation order, so when
    /// several items have identical signatures (copies of one document, or documents
    /// whose punctuation spots agree) their rows share their compressions: each row is
    /// still visited pair by pair in the same order, with the same pruning and cap,
    /// and a pair whose two byte strings (in order) were already compressed for this
    /// row's signature takes that distance ([`SearchReport::reused`]). The result is
    /// the same either way; `false` compresses every compared pair (the previous
    /// behaviour, kept as the benchmarks' baseline). Not used by the
    /// [`checked`](Self::checked) shortcut.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Pruning, SearchConfig, SigNcd};
    /// let n = "Copyright 2001, Alice, Bob, and Carol. All rights reserved, worldwide, forever.";
    /// let o = "Lorem ipsum, dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.";
    /// let corpus = SigNcd::new().corpus(&[n, o, n, o])?;
    /// let all = SearchConfig::builder(0.6).pruning(Pruning::None);
    /// let shared = all.clone().build()?.search(&corpus)?;
    /// let each = all.share_identical(false).build()?.search(&corpus)?;
    /// assert_eq!(shared.pairs, each.pairs);
    /// assert_eq!((each.report.compared, each.report.reused), (6, 0));
    /// // Six pairs, four distinct concatenations: n·o (three times), n·n, o·n, o·o.
    /// assert_eq!((shared.report.compared, shared.report.reused), (6, 2));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn share_identical(mut self, share: bool) -> Self {
        self.config.share_identical = share;
        self
    }

    /// Validates the configuration.
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::InvalidParameter`] when τ is not in `[0, 1]`, the slack
    /// is negative or not finite, there are no pivots, `max_partners` is `Some(0)`,
    /// or checked mode is combined with P2.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::SearchConfig;
    /// assert!(SearchConfig::builder(0.0).build().is_ok());
    /// assert!(SearchConfig::builder(1.0).build().is_ok());
    /// assert!(SearchConfig::builder(1.01).build().is_err());
    /// ```
    pub fn build(self) -> Result<SearchConfig, Error> {
        let c = self.config;
        if !(0.0..=1.0).contains(&c.threshold) {
            return Err(Error::invalid_parameter(
                "threshold",
                format!("must lie in [0, 1], got {}", c.threshold),
            ));
        }
        if !(c.p2_slack.is_finite() && c.p2_slack >= 0.0) {
            return Err(Error::invalid_parameter(
                "p2_slack",
                format!("must be finite and >= 0, got {}", c.p2_slack),
            ));
        }
        if c.pivots == 0 {
            return Err(Error::invalid_parameter("pivots", "must be at least 1"));
        }
        if c.max_partners == Some(0) {
            return Err(Error::invalid_parameter(
                "max_partners",
                "must be at least 1 (or none)",
            ));
        }
        if c.checked && c.pruning == Pruning::P1P2 {
            return Err(Error::invalid_parameter(
                "checked",
                "the checked shortcut works with Pruning::None or Pruning::P1",
            ));
        }
        Ok(c)
    }
}

/// Lemma 3's bound for `C(x) <= C(y)`, computed as `(C(y) − C(x)) / C(y)`: the exact
/// floating-point expression of [`crate::monotone_ncd_from_lengths`] with `C(xy)`
/// at its floor `C(y)`, so a distance can never round below its own bound. (Testing
/// `(1 − τ)·C(y) > C(x)` instead would prune a pair at exactly NCD = τ: `1 − 0.7` is
/// `0.30000000000000004`.)
fn lower_bound(cx: usize, cy: usize) -> f64 {
    if cy == 0 {
        return 0.0;
    }
    (cy as f64 - cx as f64) / cy as f64
}

/// Item → the first item with the same bytes, and whether any other item has them.
fn twins(corpus: &Corpus) -> (Vec<usize>, Vec<bool>) {
    let n = corpus.len();
    let mut first: HashMap<&[u8], usize> = HashMap::with_capacity(n);
    let twin: Vec<usize> = (0..n)
        .map(|i| *first.entry(corpus.get(i)).or_insert(i))
        .collect();
    let mut shared = vec![false; n];
    for (i, &t) in twin.iter().enumerate() {
        if t != i {
            shared[i] = true;
            shared[t] = true;
        }
    }
    (twin, shared)
}

fn pairs_of(n: usize) -> u64 {
    let n = n as u64;
    n * n.saturating_sub(1) / 2
}

/// A pivot's full row: distances from the pivot (rank `rank`) to ranks
/// `rank + 1 .. end`.
#[derive(Debug)]
struct PivotRow {
    rank: usize,
    end: usize,
    dist: Vec<f64>,
}

impl PivotRow {
    #[inline]
    fn get(&self, j: usize) -> f64 {
        self.dist[j - self.rank - 1]
    }
}

/// The sorted order, the matching partitions and the pivots.
struct Plan<'a> {
    config: &'a SearchConfig,
    corpus: &'a Corpus,
    /// Rank → item, by `(C, item)`.
    order: Vec<usize>,
    /// Rank → first rank outside the matching partition.
    end: Vec<usize>,
    /// Whether a rank is a pivot (P1P2 only).
    is_pivot: Vec<bool>,
    /// Item → the first item with the same bytes (itself when none is earlier).
    twin: Vec<usize>,
    /// Item → whether another item has the same bytes.
    shared: Vec<bool>,
}

/// Distances already computed for one signature's rows: the other item's
/// [`Plan::twin`] and whether the row's item comes first in the concatenation. These
/// two name the concatenated byte strings, so the distance is that of any pair with
/// the same key.
type Memo = HashMap<(usize, bool), f64>;

type RowResult = Result<(Vec<ScoredPair>, SearchReport), Error>;

impl<'a> Plan<'a> {
    fn new(config: &'a SearchConfig, corpus: &'a Corpus) -> Self {
        let n = corpus.len();
        let lens = corpus.compressed_lens();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&i| (lens[i], i));
        let sorted: Vec<usize> = order.iter().map(|&i| lens[i]).collect();
        let tau = config.threshold;
        let end = (0..n)
            .map(|r| {
                if config.pruning == Pruning::None {
                    return n;
                }
                // P1: the first later item whose lower bound 1 − C(x)/C(y) exceeds τ.
                // The bound is non-decreasing in C(y), so a binary search.
                let cx = sorted[r];
                r + 1 + sorted[r + 1..].partition_point(|&cy| lower_bound(cx, cy) <= tau)
            })
            .collect();
        let mut is_pivot = vec![false; n];
        if config.pruning == Pruning::P1P2 && n > 0 {
            let step = n.div_ceil(config.pivots).max(1);
            for r in (0..n).step_by(step) {
                is_pivot[r] = true;
            }
        }
        let (twin, shared) = if config.share_identical && !config.checked {
            twins(corpus)
        } else {
            ((0..n).collect(), vec![false; n])
        };
        Plan {
            config,
            corpus,
            order,
            end,
            is_pivot,
            twin,
            shared,
        }
    }

    /// The non-pivot rows grouped by signature ([`twin`](Self::twin) of their item),
    /// each group in rank order, the groups by their first rank: a group's rows share
    /// one [`Memo`].
    fn units(&self, rows: &[usize]) -> Vec<Vec<usize>> {
        let mut units: Vec<Vec<usize>> = Vec::new();
        let mut unit_of: HashMap<usize, usize> = HashMap::new();
        for &r in rows {
            let item = self.order[r];
            if !self.shared[item] {
                units.push(vec![r]);
                continue;
            }
            let next = units.len();
            let u = *unit_of.entry(self.twin[item]).or_insert(next);
            if u == next {
                units.push(Vec::new());
            }
            units[u].push(r);
        }
        units
    }

    /// The rows of one unit, in rank order, with one memo.
    fn unit_rows<C: Compressor>(
        &self,
        ncd: &mut Ncd<C>,
        unit: &[usize],
        pivots: &[&PivotRow],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<(Vec<ScoredPair>, SearchReport)>, Error> {
        let mut memo = Memo::new();
        let share_row = unit.len() > 1;
        unit.iter()
            .map(|&r| {
                let row = self.row_with(ncd, r, pivots, &mut memo, share_row);
                progress(1);
                row
            })
            .collect()
    }

    /// The distance between ranks `r` and `j` through the unit's memo: looked up, or
    /// computed and remembered when another pair may have the same key (the row's unit
    /// has several rows, or `j`'s item has a twin). The flag says it was looked up.
    #[inline]
    fn shared_distance<C: Compressor>(
        &self,
        ncd: &mut Ncd<C>,
        r: usize,
        j: usize,
        memo: &mut Memo,
        share_row: bool,
    ) -> Result<(f64, bool), Error> {
        let (x, y) = (self.order[r], self.order[j]);
        if !(share_row || self.shared[y]) {
            return Ok((self.distance(ncd, r, j)?, false));
        }
        let key = (self.twin[y], x < y);
        if let Some(&d) = memo.get(&key) {
            return Ok((d, true));
        }
        let d = self.distance(ncd, r, j)?;
        memo.insert(key, d);
        Ok((d, false))
    }

    fn n(&self) -> usize {
        self.order.len()
    }

    /// The distance between ranks `r` and `j` (lower item index first).
    #[inline]
    fn distance<C: Compressor>(&self, ncd: &mut Ncd<C>, r: usize, j: usize) -> Result<f64, Error> {
        self.corpus
            .distance_using(ncd, self.order[r], self.order[j])
    }

    /// The pair of ranks `r` and `j` in the one currency: score `1 − NCD`.
    fn pair(&self, r: usize, j: usize, distance: f64) -> ScoredPair {
        let (x, y) = (self.order[r], self.order[j]);
        ScoredPair::new(x.min(y), x.max(y), 1.0 - distance)
    }

    /// A pivot row: every pair of its partition, distances kept.
    fn pivot_row<C: Compressor>(
        &self,
        ncd: &mut Ncd<C>,
        k: usize,
    ) -> Result<(PivotRow, Vec<ScoredPair>, SearchReport), Error> {
        let end = self.end[k];
        let mut dist = Vec::with_capacity(end - k - 1);
        let mut pairs = Vec::new();
        let cap = self.config.max_partners.unwrap_or(usize::MAX);
        for j in k + 1..end {
            let d = self.distance(ncd, k, j)?;
            // A pivot's row is computed whole (P2 needs its distances); its pairs are
            // capped as every row's.
            if d <= self.config.threshold && pairs.len() < cap {
                pairs.push(self.pair(k, j, d));
            }
            dist.push(d);
        }
        let report = SearchReport {
            compared: (end - k - 1) as u64,
            pruned_p1: (self.n() - end) as u64,
            ..SearchReport::default()
        };
        Ok((PivotRow { rank: k, end, dist }, pairs, report))
    }

    fn run_exact(&self, progress: &(dyn Fn(u64) + Sync)) -> Result<SearchOutput, Error> {
        let n = self.n();
        let pivot_ranks: Vec<usize> = (0..n).filter(|&r| self.is_pivot[r]).collect();
        let rows: Vec<usize> = (0..n).filter(|&r| !self.is_pivot[r]).collect();
        let mut out = SearchOutput::default();
        let (pivot_rows, row_results) = self.run_rows(&pivot_ranks, &rows, progress)?;
        let mut pivots = Vec::with_capacity(pivot_rows.len());
        for (p, pairs, report) in pivot_rows {
            out.pairs.extend(pairs);
            out.report.add(&report);
            pivots.push(p);
        }
        out.report.pivots = pivots.len();
        for (pairs, report) in row_results {
            out.pairs.extend(pairs);
            out.report.add(&report);
        }
        Ok(out)
    }

    #[allow(clippy::type_complexity)]
    fn run_rows(
        &self,
        pivot_ranks: &[usize],
        rows: &[usize],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<
        (
            Vec<(PivotRow, Vec<ScoredPair>, SearchReport)>,
            Vec<(Vec<ScoredPair>, SearchReport)>,
        ),
        Error,
    > {
        #[cfg(feature = "rayon")]
        if self.config.parallel {
            use rayon::prelude::*;
            let pivot_rows = pivot_ranks
                .par_iter()
                .with_max_len(1)
                .map_init(
                    || Ncd::new(self.corpus.new_compressor()),
                    |ncd, &k| {
                        let row = self.pivot_row(ncd, k);
                        progress(1);
                        row
                    },
                )
                .collect::<Result<Vec<_>, Error>>()?;
            let pivots: Vec<&PivotRow> = pivot_rows.iter().map(|(p, _, _)| p).collect();
            let results = self
                .units(rows)
                .par_iter()
                .with_max_len(16)
                .map_init(
                    || Ncd::new(self.corpus.new_compressor()),
                    |ncd, unit| self.unit_rows(ncd, unit, &pivots, progress),
                )
                .collect::<Result<Vec<_>, Error>>()?;
            return Ok((pivot_rows, results.into_iter().flatten().collect()));
        }
        let mut ncd = Ncd::new(self.corpus.new_compressor());
        let pivot_rows = pivot_ranks
            .iter()
            .map(|&k| {
                let row = self.pivot_row(&mut ncd, k);
                progress(1);
                row
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let pivots: Vec<&PivotRow> = pivot_rows.iter().map(|(p, _, _)| p).collect();
        let results = self
            .units(rows)
            .iter()
            .map(|unit| self.unit_rows(&mut ncd, unit, &pivots, progress))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok((pivot_rows, results.into_iter().flatten().collect()))
    }

    /// An ordinary row: P1's partition, P2 through the pivot rows (sorted by rank),
    /// distances through the unit's memo.
    fn row_with<C: Compressor>(
        &self,
        ncd: &mut Ncd<C>,
        r: usize,
        pivots: &[&PivotRow],
        memo: &mut Memo,
        share_row: bool,
    ) -> RowResult {
        let end = self.end[r];
        let mut report = SearchReport {
            pruned_p1: (self.n() - end) as u64,
            ..SearchReport::default()
        };
        let active: Vec<(&PivotRow, f64)> = pivots
            .iter()
            .take_while(|p| p.rank < r)
            .filter(|p| p.end > r)
            .map(|p| (*p, p.get(r)))
            .collect();
        let bound = self.config.threshold + self.config.p2_slack;
        let cap = self.config.max_partners.unwrap_or(usize::MAX);
        let mut pairs = Vec::new();
        for j in r + 1..end {
            if pairs.len() >= cap {
                // The rest of the row is neither compared nor pruned: it is cut.
                report.capped += (end - j) as u64;
                break;
            }
            if active
                .iter()
                .any(|(p, dr)| j < p.end && (dr - p.get(j)).abs() > bound)
            {
                report.pruned_p2 += 1;
                continue;
            }
            let (d, reused) = self.shared_distance(ncd, r, j, memo, share_row)?;
            report.compared += 1;
            report.reused += u64::from(reused);
            if d <= self.config.threshold {
                pairs.push(self.pair(r, j, d));
            }
        }
        Ok((pairs, report))
    }

    /// Algorithm 1 with its `checked` set, sequential in rank order.
    fn run_checked(&self, progress: &(dyn Fn(u64) + Sync)) -> Result<SearchOutput, Error> {
        let n = self.n();
        let mut ncd = Ncd::new(self.corpus.new_compressor());
        let mut checked = vec![false; n];
        let cap = self.config.max_partners.unwrap_or(usize::MAX);
        let mut out = SearchOutput::default();
        for r in 0..n {
            progress(1);
            let end = self.end[r];
            out.report.pruned_p1 += (n - end) as u64;
            if checked[r] {
                out.report.skipped_checked += (end - r - 1) as u64;
                continue;
            }
            let mut partners = 0usize;
            #[allow(clippy::needless_range_loop)] // `checked[j]` is written in the loop
            for j in r + 1..end {
                if partners >= cap {
                    out.report.capped += (end - j) as u64;
                    break;
                }
                if checked[j] {
                    out.report.skipped_checked += 1;
                    continue;
                }
                let d = self.distance(&mut ncd, r, j)?;
                out.report.compared += 1;
                if d <= self.config.threshold {
                    out.pairs.push(self.pair(r, j, d));
                    checked[j] = true;
                    partners += 1;
                }
            }
        }
        Ok(out)
    }
}

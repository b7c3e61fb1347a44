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
//! use ndd_ncd::{Pruning, SearchConfig, SigNcd};
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
//! # Ok::<(), ndd_core::Error>(())
//! ```

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
/// assert_eq!(ndd_ncd::SearchConfig::new(0.5)?.p2_slack(), ndd_ncd::DEFAULT_P2_SLACK);
/// # Ok::<(), ndd_core::Error>(())
/// ```
pub const DEFAULT_P2_SLACK: f64 = 0.25;

/// Default number of P2 pivots.
///
/// # Example
///
/// ```
/// assert_eq!(ndd_ncd::SearchConfig::new(0.5)?.pivots(), ndd_ncd::DEFAULT_PIVOTS);
/// # Ok::<(), ndd_core::Error>(())
/// ```
pub const DEFAULT_PIVOTS: usize = 16;

/// Which pruning policies the search applies.
///
/// # Example
///
/// ```
/// assert_eq!(ndd_ncd::Pruning::default(), ndd_ncd::Pruning::P1);
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
/// + skipped_checked == total_pairs`.
///
/// # Example
///
/// ```
/// use ndd_ncd::{SearchConfig, SigNcd};
/// let corpus = SigNcd::new().corpus(&["a, b, c, d", "a, b, c, e", "x"])?;
/// let r = SearchConfig::new(0.5)?.search(&corpus)?.report;
/// assert_eq!(r.compared + r.pruned_p1 + r.pruned_p2 + r.skipped_checked, r.total_pairs);
/// assert!(r.pruned_fraction() >= 0.0);
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// Items searched.
    pub items: usize,
    /// `n(n−1)/2`.
    pub total_pairs: u64,
    /// Pairs whose NCD was computed (one compression each).
    pub compared: u64,
    /// Pairs skipped by P1 (outside the matching partition).
    pub pruned_p1: u64,
    /// Pairs skipped by P2 (a pivot proved NCD > τ).
    pub pruned_p2: u64,
    /// Pairs skipped in checked mode (an item was already matched).
    pub skipped_checked: u64,
    /// Pivot rows used by P2.
    pub pivots: usize,
}

impl SearchReport {
    /// The fraction of all pairs not compared.
    ///
    /// # Example
    ///
    /// ```
    /// let r = ndd_ncd::SearchReport { total_pairs: 10, compared: 4, pruned_p1: 6, ..Default::default() };
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
        self.pruned_p1 += o.pruned_p1;
        self.pruned_p2 += o.pruned_p2;
        self.skipped_checked += o.skipped_checked;
    }
}

/// The result of a search: the pairs as [`ScoredPair`]s (items `a < b`, score
/// `1 − NCD`, so higher is more similar and `NCD = 1 − score`), sorted by `(a, b)`,
/// and the report.
///
/// # Example
///
/// ```
/// use ndd_ncd::{SearchConfig, SigNcd};
/// let doc = "Permission is hereby granted, free of charge, to any person obtaining a copy \
///            of this software, to deal in the Software without restriction, including \
///            without limitation the rights to use, copy, modify, merge, publish.";
/// let corpus = SigNcd::new().corpus(&[doc; 3])?;
/// let out = SearchConfig::new(0.5)?.search(&corpus)?;
/// assert_eq!(out.pairs.len(), 3);
/// assert_eq!(out.report.compared, 3);
/// # Ok::<(), ndd_core::Error>(())
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
/// use ndd_ncd::{Pruning, SearchConfig};
/// let s = SearchConfig::builder(0.7).pruning(Pruning::P1P2).pivots(8).build()?;
/// assert_eq!((s.threshold(), s.pruning(), s.pivots()), (0.7, Pruning::P1P2, 8));
/// assert!(SearchConfig::new(1.5).is_err());
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    threshold: f64,
    pruning: Pruning,
    pivots: usize,
    p2_slack: f64,
    checked: bool,
    parallel: bool,
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
    /// let s = ndd_ncd::SearchConfig::new(0.3)?;
    /// assert!(!s.is_checked());
    /// assert!(ndd_ncd::SearchConfig::new(f64::NAN).is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn new(threshold: f64) -> Result<Self, Error> {
        Self::builder(threshold).build()
    }

    /// A builder at `threshold` τ with the defaults (P1, exact, sequential).
    ///
    /// # Example
    ///
    /// ```
    /// let s = ndd_ncd::SearchConfig::builder(0.2).parallel(true).build()?;
    /// assert!(s.is_parallel());
    /// # Ok::<(), ndd_core::Error>(())
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
            },
        }
    }

    /// τ: pairs with NCD ≤ τ are reported.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_ncd::SearchConfig::new(0.4)?.threshold(), 0.4);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_ncd::SearchConfig::new(0.4)?.pruning(), ndd_ncd::Pruning::P1);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_ncd::SearchConfig::builder(0.4).pivots(4).build()?.pivots(), 4);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_ncd::SearchConfig::builder(0.4).p2_slack(0.0).build()?.p2_slack(), 0.0);
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn p2_slack(&self) -> f64 {
        self.p2_slack
    }

    /// Whether Algorithm 1's inexact `checked` shortcut is on.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(ndd_ncd::SearchConfig::builder(0.4).checked(true).build()?.is_checked());
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert!(!ndd_ncd::SearchConfig::new(0.4)?.is_parallel());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn is_parallel(&self) -> bool {
        self.parallel
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
    /// use ndd_ncd::{Pruning, SearchConfig, SigNcd};
    /// let docs = ["red, green, blue, yellow", "red, green, blue, yellow!", "one two three"];
    /// let corpus = SigNcd::new().corpus(&docs)?;
    /// let brute = SearchConfig::builder(0.6).pruning(Pruning::None).build()?.search(&corpus)?;
    /// let p1 = SearchConfig::new(0.6)?.search(&corpus)?;
    /// assert_eq!(brute.pairs, p1.pairs);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// use ndd_ncd::{SearchConfig, SigNcd};
    /// let docs = ["red, green, blue, yellow", "red, green, blue, yellow!", "one, two"];
    /// let corpus = SigNcd::new().corpus(&docs)?;
    /// let rows = AtomicU64::new(0);
    /// let out = SearchConfig::new(0.6)?.search_with_progress(&corpus, &|r| {
    ///     rows.fetch_add(r, Ordering::Relaxed);
    /// })?;
    /// assert_eq!(rows.into_inner(), 3);
    /// assert_eq!(out.pairs, SearchConfig::new(0.6)?.search(&corpus)?.pairs);
    /// # Ok::<(), ndd_core::Error>(())
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
/// let b = ndd_ncd::SearchBuilder::new(0.5);
/// assert_eq!(b.build()?.threshold(), 0.5);
/// # Ok::<(), ndd_core::Error>(())
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
    /// assert!(ndd_ncd::SearchBuilder::new(-0.1).build().is_err());
    /// ```
    pub fn new(threshold: f64) -> Self {
        SearchConfig::builder(threshold)
    }

    /// The pruning policies (default [`Pruning::P1`]).
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_ncd::{Pruning, SearchConfig};
    /// assert_eq!(SearchConfig::builder(0.5).pruning(Pruning::None).build()?.pruning(), Pruning::None);
    /// # Ok::<(), ndd_core::Error>(())
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
    /// assert!(ndd_ncd::SearchConfig::builder(0.5).pivots(0).build().is_err());
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
    /// assert!(ndd_ncd::SearchConfig::builder(0.5).p2_slack(-1.0).build().is_err());
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
    /// use ndd_ncd::{Pruning, SearchConfig};
    /// assert!(SearchConfig::builder(0.5).checked(true).pruning(Pruning::P1P2).build().is_err());
    /// ```
    pub fn checked(mut self, checked: bool) -> Self {
        self.config.checked = checked;
        self
    }

    /// Run rows on all cores (feature `rayon`; ignored without it). The result is the
    /// same as sequential.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(ndd_ncd::SearchConfig::builder(0.5).parallel(true).build()?.is_parallel());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.config.parallel = parallel;
        self
    }

    /// Validates the configuration.
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::InvalidParameter`] when τ is not in `[0, 1]`, the slack
    /// is negative or not finite, there are no pivots, or checked mode is combined
    /// with P2.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_ncd::SearchConfig;
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
}

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
        Plan {
            config,
            corpus,
            order,
            end,
            is_pivot,
        }
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
        for j in k + 1..end {
            let d = self.distance(ncd, k, j)?;
            if d <= self.config.threshold {
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
            let results = rows
                .par_iter()
                .with_max_len(16)
                .map_init(
                    || Ncd::new(self.corpus.new_compressor()),
                    |ncd, &r| {
                        let row = self.row_with(ncd, r, &pivots);
                        progress(1);
                        row
                    },
                )
                .collect::<Result<Vec<_>, Error>>()?;
            return Ok((pivot_rows, results));
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
        let results = rows
            .iter()
            .map(|&r| {
                let row = self.row_with(&mut ncd, r, &pivots);
                progress(1);
                row
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok((pivot_rows, results))
    }

    /// An ordinary row: P1's partition, P2 through the pivot rows (sorted by rank).
    fn row_with<C: Compressor>(
        &self,
        ncd: &mut Ncd<C>,
        r: usize,
        pivots: &[&PivotRow],
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
        let mut pairs = Vec::new();
        for j in r + 1..end {
            if active
                .iter()
                .any(|(p, dr)| j < p.end && (dr - p.get(j)).abs() > bound)
            {
                report.pruned_p2 += 1;
                continue;
            }
            let d = self.distance(ncd, r, j)?;
            report.compared += 1;
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
        let mut out = SearchOutput::default();
        for r in 0..n {
            progress(1);
            let end = self.end[r];
            out.report.pruned_p1 += (n - end) as u64;
            if checked[r] {
                out.report.skipped_checked += (end - r - 1) as u64;
                continue;
            }
            #[allow(clippy::needless_range_loop)] // `checked[j]` is written in the loop
            for j in r + 1..end {
                if checked[j] {
                    out.report.skipped_checked += 1;
                    continue;
                }
                let d = self.distance(&mut ncd, r, j)?;
                out.report.compared += 1;
                if d <= self.config.threshold {
                    out.pairs.push(self.pair(r, j, d));
                    checked[j] = true;
                }
            }
        }
        Ok(out)
    }
}

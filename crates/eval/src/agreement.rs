//! Comparing two clusterings of the same documents pair by pair: pairwise F1 of a
//! predicted clustering and Gwet's AC1 inter-coder agreement.

use std::collections::HashMap;

use ndd_core::Error;

use crate::labels::pairs_of;
use crate::{Confusion, Labels};

/// How two clusterings `x` and `y` of the same `n` documents agree on each of the
/// `m = C(n, 2)` unordered document pairs, in the notation of Yang and Callan,
/// *Near-Duplicate Detection by Instance-level Constrained Clustering*, SIGIR 2006,
/// Section 5.2:
///
/// * `a`: pairs in the same group in both `x` and `y`;
/// * `b`: pairs in the same group in `x` but different groups in `y`;
/// * `c`: pairs in different groups in `x` but the same group in `y`;
/// * `d`: pairs in different groups in both.
///
/// Computed by [`pair_agreement`] from the contingency table of the two labelings in
/// O(n) expected time: `a = Σ C(n_ij, 2)` over cells, `a + b = Σ C(row_i, 2)`,
/// `a + c = Σ C(col_j, 2)` and `d = m − a − b − c`.
///
/// # Example
///
/// ```
/// use near_dup::eval::{pair_agreement, Labels};
/// let x = Labels::new(&[0, 0, 0, 1, 1, 2]);
/// let y = Labels::new(&[0, 0, 1, 1, 1, 2]);
/// let agr = pair_agreement(&x, &y)?;
/// assert_eq!((agr.a, agr.b, agr.c, agr.d), (2, 2, 2, 9));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct PairAgreement {
    /// Pairs grouped together by both clusterings.
    pub a: u64,
    /// Pairs grouped together by `x` only.
    pub b: u64,
    /// Pairs grouped together by `y` only.
    pub c: u64,
    /// Pairs kept apart by both clusterings.
    pub d: u64,
}

impl PairAgreement {
    /// Total number of pairs, `m = a + b + c + d`.
    ///
    /// # Example
    ///
    /// ```
    /// let agr = near_dup::eval::PairAgreement { a: 1, b: 2, c: 3, d: 4 };
    /// assert_eq!(agr.total(), 10);
    /// ```
    #[must_use]
    pub fn total(&self) -> u64 {
        self.a + self.b + self.c + self.d
    }

    /// Observed agreement `p(A) = (a + d) / m`, or `None` when there are no pairs.
    ///
    /// # Example
    ///
    /// ```
    /// let agr = near_dup::eval::PairAgreement { a: 1, b: 2, c: 3, d: 4 };
    /// assert_eq!(agr.observed_agreement(), Some(0.5));
    /// ```
    #[must_use]
    pub fn observed_agreement(&self) -> Option<f64> {
        let m = self.total();
        (m > 0).then(|| (self.a + self.d) as f64 / m as f64)
    }

    /// Chance agreement of AC1, equation 11 of Yang and Callan (SIGIR 2006):
    /// `p(E) = 2P(1 − P)` with `P = ((a + b) + (a + c)) / 2m`, the average fraction of
    /// pairs the two clusterings put together. `None` when there are no pairs.
    ///
    /// # Example
    ///
    /// ```
    /// // P = (3 + 4) / 20 = 0.35, p(E) = 2 · 0.35 · 0.65 = 0.455.
    /// let agr = near_dup::eval::PairAgreement { a: 1, b: 2, c: 3, d: 4 };
    /// assert!((agr.chance_agreement().unwrap_or(0.0) - 0.455).abs() < 1e-12);
    /// ```
    #[must_use]
    pub fn chance_agreement(&self) -> Option<f64> {
        let m = self.total();
        (m > 0).then(|| {
            let p = ((self.a + self.b) + (self.a + self.c)) as f64 / (2 * m) as f64;
            2.0 * p * (1.0 - p)
        })
    }

    /// Gwet's AC1 agreement, equation 10 of Yang and Callan (SIGIR 2006):
    /// `AC1 = (p(A) − p(E)) / (1 − p(E))`. It is `1` for identical clusterings and near
    /// `0` for agreement no better than chance; unlike Cohen's kappa it stays
    /// meaningful when almost all pairs are "different groups" in both clusterings.
    /// `None` when there are no pairs (fewer than two documents). Since
    /// `p(E) <= 1/2`, the denominator is never zero.
    ///
    /// # Example
    ///
    /// ```
    /// // p(A) = 11/15, P = 8/30, p(E) = 88/225: AC1 = 77/137.
    /// let agr = near_dup::eval::PairAgreement { a: 2, b: 2, c: 2, d: 9 };
    /// assert!((agr.ac1().unwrap_or(0.0) - 77.0 / 137.0).abs() < 1e-12);
    /// ```
    #[must_use]
    pub fn ac1(&self) -> Option<f64> {
        let pa = self.observed_agreement()?;
        let pe = self.chance_agreement()?;
        Some((pa - pe) / (1.0 - pe))
    }

    /// Pairwise precision/recall counts when `x` is the truth and `y` the prediction:
    /// `tp = a`, `fn = b`, `fp = c`.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::eval::PairAgreement { a: 2, b: 2, c: 1, d: 9 }.confusion();
    /// assert_eq!((c.true_positives, c.false_positives, c.false_negatives), (2, 1, 2));
    /// ```
    #[must_use]
    pub fn confusion(&self) -> Confusion {
        Confusion {
            true_positives: self.a,
            false_positives: self.c,
            false_negatives: self.b,
        }
    }
}

/// Counts how two clusterings of the same documents agree on every document pair (see
/// [`PairAgreement`]), in O(n) expected time via their contingency table.
///
/// # Errors
///
/// [`Error::LengthMismatch`] when `x` and `y` label different numbers of documents
/// (`expected` is `x.len()`).
///
/// # Example
///
/// ```
/// use near_dup::eval::{pair_agreement, Labels};
/// let x = Labels::new(&[1, 1, 2]);
/// let agr = pair_agreement(&x, &x)?;
/// assert_eq!((agr.a, agr.b, agr.c, agr.d), (1, 0, 0, 2));
/// assert!(pair_agreement(&x, &Labels::new(&[1, 1])).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn pair_agreement(x: &Labels, y: &Labels) -> Result<PairAgreement, Error> {
    let cells = contingency(x, y)?;
    let a: u64 = cells.values().map(|&k| pairs_of(k)).sum();
    let same_x = x.true_pairs();
    let same_y = y.true_pairs();
    let m = x.total_pairs();
    let b = same_x - a;
    let c = same_y - a;
    let d = m - a - b - c;
    Ok(PairAgreement { a, b, c, d })
}

/// Pairwise precision, recall and F1 of a predicted clustering against the true one:
/// a pair is a true positive when both clusterings put its two documents together.
/// O(n) expected time (contingency table, no pair enumeration).
///
/// # Errors
///
/// [`Error::LengthMismatch`] when `truth` and `predicted` label different numbers of
/// documents (`expected` is `truth.len()`).
///
/// # Example
///
/// ```
/// use near_dup::eval::{cluster_pairwise, Labels};
/// let truth = Labels::new(&[0, 0, 0, 1, 1, 2]);
/// let predicted = Labels::new(&[0, 0, 1, 1, 1, 2]);
/// let c = cluster_pairwise(&truth, &predicted)?;
/// // Predicted pairs 01, 23, 24, 34; true pairs 01, 02, 12, 34.
/// assert_eq!((c.true_positives, c.false_positives, c.false_negatives), (2, 2, 2));
/// assert_eq!(c.f1(), 0.5);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn cluster_pairwise(truth: &Labels, predicted: &Labels) -> Result<Confusion, Error> {
    Ok(pair_agreement(truth, predicted)?.confusion())
}

/// Gwet's AC1 agreement of two clusterings over all document pairs (the "micro
/// averaged AC1" of Yang and Callan, SIGIR 2006, Section 5.2 equations 10 and 11, and
/// Table 1). See [`PairAgreement::ac1`].
///
/// # Errors
///
/// * [`Error::LengthMismatch`] when `x` and `y` label different numbers of documents.
/// * [`Error::InvalidInput`] when there are fewer than two documents (no pairs to
///   agree on).
///
/// # Example
///
/// ```
/// use near_dup::eval::{ac1, Labels};
/// let x = Labels::new(&[0, 0, 0, 1, 1, 2]);
/// let y = Labels::new(&[0, 0, 1, 1, 1, 2]);
/// assert!((ac1(&x, &y)? - 77.0 / 137.0).abs() < 1e-12);
/// assert_eq!(ac1(&x, &x)?, 1.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn ac1(x: &Labels, y: &Labels) -> Result<f64, Error> {
    pair_agreement(x, y)?
        .ac1()
        .ok_or_else(|| Error::invalid_input("AC1 needs at least two documents"))
}

/// The contingency table of two labelings: documents per (group of `x`, group of `y`).
fn contingency(x: &Labels, y: &Labels) -> Result<HashMap<(usize, usize), u64>, Error> {
    Error::check_lengths(x.len(), y.len())?;
    let mut cells: HashMap<(usize, usize), u64> = HashMap::with_capacity(x.len());
    for (&i, &j) in x.cluster_ids().iter().zip(y.cluster_ids()) {
        *cells.entry((i, j)).or_insert(0) += 1;
    }
    Ok(cells)
}

/// The agreement of `x` and `y` on the pairs that involve each group of `x`: for group
/// `g`, the pairs with both documents in `g` and the pairs with one document in `g` and
/// one outside (`x` keeps those apart). Indexed by `x`'s cluster ids
/// ([`Labels::cluster_ids`]).
///
/// Computed from the contingency table in O(n) expected time: with `n_gj` documents of
/// `g` in `y`'s group `j` (of size `col_j`), `a = Σ C(n_gj, 2)`, `b = C(|g|, 2) − a`,
/// `c = Σ n_gj·(col_j − n_gj)`, `d = |g|·(n − |g|) − c`.
///
/// # Errors
///
/// [`Error::LengthMismatch`] when the two labelings have different lengths.
///
/// # Example
///
/// ```
/// use near_dup::eval::{group_agreements, Labels};
/// let x = Labels::new(&[0, 0, 1]);
/// let y = Labels::new(&[0, 1, 1]);
/// let g = group_agreements(&x, &y)?;
/// // Group {0, 1}: pair (0,1) split by y (b); pairs (0,2) apart in both (d), (1,2) joined by y (c).
/// assert_eq!((g[0].a, g[0].b, g[0].c, g[0].d), (0, 1, 1, 1));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn group_agreements(x: &Labels, y: &Labels) -> Result<Vec<PairAgreement>, Error> {
    let cells = contingency(x, y)?;
    let n = x.len() as u64;
    let mut out = vec![PairAgreement::default(); x.num_clusters()];
    for (&(g, j), &k) in &cells {
        let col = y.cluster_sizes()[j] as u64;
        out[g].a += pairs_of(k);
        out[g].c += k * (col - k);
    }
    for (g, agr) in out.iter_mut().enumerate() {
        let size = x.cluster_sizes()[g] as u64;
        agr.b = pairs_of(size) - agr.a;
        agr.d = size * (n - size) - agr.c;
    }
    Ok(out)
}

/// Macro-averaged AC1: the mean over the groups of `x` of the AC1 of `x` and `y` on the
/// pairs that involve each group ([`group_agreements`]), so that every group counts
/// once whatever its size; [`ac1`] over all pairs is the micro average, which the
/// largest groups dominate.
///
/// Yang and Callan (SIGIR 2006, Table 1) report both without saying how the macro
/// average is taken; this is the choice made here: `x` is the reference (the human
/// coder, the truth), its singletons count as groups, and a group's pairs include those
/// that link it to the rest of the collection, where `y` may wrongly join it to
/// another group. Not symmetric in `x` and `y`.
///
/// # Errors
///
/// [`Error::LengthMismatch`] for labelings of different lengths;
/// [`Error::InvalidInput`] for fewer than two documents (no pair).
///
/// # Example
///
/// ```
/// use near_dup::eval::{ac1, macro_ac1, Labels};
/// // One large campaign the system gets right, two small groups it merges.
/// let truth: Vec<usize> = (0..40).map(|i| if i < 30 { 0 } else { 1 + (i % 2) }).collect();
/// let system: Vec<usize> = (0..40).map(|i| if i < 30 { 0 } else { 1 }).collect();
/// let (x, y) = (Labels::new(&truth), Labels::new(&system));
/// assert!(macro_ac1(&x, &y)? < ac1(&x, &y)?); // the big group dominates the micro average
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn macro_ac1(x: &Labels, y: &Labels) -> Result<f64, Error> {
    let per_group: Vec<f64> = group_agreements(x, y)?
        .iter()
        .filter_map(PairAgreement::ac1)
        .collect();
    if per_group.is_empty() {
        return Err(Error::invalid_input("AC1 needs at least two documents"));
    }
    Ok(per_group.iter().sum::<f64>() / per_group.len() as f64)
}

//! Linkage grouping ([`GroupMethod::Linkage`](crate::GroupMethod::Linkage)): single
//! link above a chaining floor, average linkage below it.

use std::collections::HashMap;

use ndd_core::{Error, ScoredPair, UnionFind};

/// The chaining floor of [`Linkage::new`]: chains are followed through pairs at least
/// this similar (0.9).
///
/// Chosen on the real labeled sets of `data/labeled/` (`docs/decisions.md`, "Linkage
/// grouping").
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::DEFAULT_CHAIN_FLOOR, 0.9);
/// ```
pub const DEFAULT_CHAIN_FLOOR: f64 = 0.9;

/// The link fraction of [`Linkage::new`]: two groups joined by weaker pairs merge when
/// those pairs cover at least this fraction (1/8) of all the pairs between them.
///
/// Chosen on the real labeled sets of `data/labeled/` (`docs/decisions.md`, "Linkage
/// grouping").
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::DEFAULT_LINK_FRACTION, 0.125);
/// ```
pub const DEFAULT_LINK_FRACTION: f64 = 0.125;

/// Settings of linkage grouping ([`GroupMethod::Linkage`](crate::GroupMethod::Linkage),
/// `ndd dedup --group linkage`): single link above a chaining floor, average linkage
/// below it.
///
/// The rule, over the verified pairs (all at or above the run's threshold `t`):
///
/// 1. **Cores**: connected components of the pairs scoring at least the chaining floor
///    `c`. Chains are followed only through pairs this similar.
/// 2. **Linkage**: the weaker pairs (in `[t, c)`), strongest first (ties by the
///    documents' input positions), each join the two groups of their documents when
///    the pairs between the two groups number at least a fraction `f` of all their
///    cross pairs (`|A| × |B|`): the average-linkage criterion of Hartigan's
///    *Clustering Algorithms* (Wiley, 1975) with a pair graph in place of distances.
///    A weak chain between two groups that share few pairs is not followed.
///
/// At `t ≥ c` every pair is a core pair and the groups are connected components
/// exactly ([`GroupMethod::Components`](crate::GroupMethod::Components)); below `c` only
/// weak chains are broken. As with components, a member may be less similar than the
/// threshold to the document kept for its group (it is joined to it through pairs at
/// the threshold or above); [`GroupMethod::Center`](crate::GroupMethod::Center) is the
/// grouping for which that never happens.
///
/// Exact copies (in the pipeline) count as documents paired with everything their
/// first copy is paired with, and move as one.
///
/// The defaults (`c` = 0.9, `f` = 1/8) were chosen on the real labeled sets of
/// `data/labeled/`: with exact word 1-gram candidates linkage grouping beats
/// connected components' best cluster F1 on both sets and is never below them at a
/// threshold from 0.70 to 0.95; with MinHash candidates over word 3-grams it is
/// 0.002 below on the Debian descriptions at 0.70 (`docs/decisions.md`, "Linkage
/// grouping", has the tables), so it is not the default.
///
/// Cost: O(p log p) for `p` pairs (sorting them, and each group's list of neighbours
/// merged into the larger one); memory O(n + p).
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::pipeline::{Document, Grouping, Linkage, Representative};
/// let docs: Vec<Document> = (0..6).map(|i| Document::new(i.to_string(), "t")).collect();
/// // Two strong triangles, {0, 1, 2} and {3, 4, 5}, joined by one weak pair 2-3.
/// let mut pairs = vec![ScoredPair::new(2, 3, 0.8)];
/// for (a, b) in [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)] {
///     pairs.push(ScoredPair::new(a, b, 0.95));
/// }
/// // Components follow the weak chain; linkage does not: 1 of the 9 pairs between the
/// // triangles is verified, under the fraction 1/8.
/// assert_eq!(Grouping::default().run(&docs, &pairs)?.len(), 1);
/// let groups = Grouping::linkage(Representative::FirstSeen, Linkage::new()).run(&docs, &pairs)?;
/// assert_eq!(groups.len(), 2);
/// assert_eq!(groups[1].members, vec![3, 4, 5]);
/// // A floor at or below every score is connected components.
/// let low = Linkage::new().chain_floor(0.8);
/// assert_eq!(Grouping::linkage(Representative::FirstSeen, low).run(&docs, &pairs)?.len(), 1);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linkage {
    chain_floor: f64,
    fraction: f64,
}

impl Default for Linkage {
    fn default() -> Self {
        Linkage {
            chain_floor: DEFAULT_CHAIN_FLOOR,
            fraction: DEFAULT_LINK_FRACTION,
        }
    }
}

impl Linkage {
    /// The defaults: chaining floor [`DEFAULT_CHAIN_FLOOR`], link fraction
    /// [`DEFAULT_LINK_FRACTION`].
    ///
    /// # Example
    ///
    /// ```
    /// let l = near_dup::pipeline::Linkage::new();
    /// assert_eq!((l.chain_floor_value(), l.fraction_value()), (0.9, 0.125));
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The chaining floor `c`: chains are followed through pairs scoring at least `c`
    /// (in `(0, 1]`, checked when the pipeline runs). At a threshold at or above it,
    /// linkage grouping is connected components.
    ///
    /// # Example
    ///
    /// ```
    /// let l = near_dup::pipeline::Linkage::new().chain_floor(0.95);
    /// assert_eq!(l.chain_floor_value(), 0.95);
    /// ```
    #[must_use]
    pub fn chain_floor(mut self, c: f64) -> Self {
        self.chain_floor = c;
        self
    }

    /// The link fraction `f`: two groups joined by pairs below the floor merge when
    /// those pairs are at least `f` of their cross pairs (in `(0, 1]`, checked when the
    /// pipeline runs). Smaller merges more (towards connected components); 1 merges
    /// only groups paired member by member.
    ///
    /// # Example
    ///
    /// ```
    /// let l = near_dup::pipeline::Linkage::new().fraction(0.5);
    /// assert_eq!(l.fraction_value(), 0.5);
    /// ```
    #[must_use]
    pub fn fraction(mut self, f: f64) -> Self {
        self.fraction = f;
        self
    }

    /// The chaining floor `c`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Linkage::new().chain_floor_value(), 0.9);
    /// ```
    #[must_use]
    pub fn chain_floor_value(&self) -> f64 {
        self.chain_floor
    }

    /// The link fraction `f`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Linkage::new().fraction_value(), 0.125);
    /// ```
    #[must_use]
    pub fn fraction_value(&self) -> f64 {
        self.fraction
    }

    /// `Ok` when the floor and the fraction are in `(0, 1]`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming the value out of range.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::Linkage;
    /// assert!(Linkage::new().validate().is_ok());
    /// assert!(Linkage::new().chain_floor(1.5).validate().is_err());
    /// assert!(Linkage::new().fraction(0.0).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        for (name, v) in [
            ("chain_floor", self.chain_floor),
            ("link_fraction", self.fraction),
        ] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(Error::invalid_parameter(
                    name,
                    format!("must be in (0, 1], got {v}"),
                ));
            }
        }
        Ok(())
    }

    /// The groups of `n` documents under this rule, as disjoint sets: `first[d]` is
    /// the first exact copy of document `d` (`d` itself when it has none), and a set
    /// of copies is paired with what its first copy is paired with.
    pub(crate) fn link(
        &self,
        n: usize,
        pairs: &[ScoredPair],
        first: &[usize],
    ) -> Result<UnionFind, Error> {
        self.validate()?;
        // Each set of copies weighs its number of documents.
        let mut weight = vec![0u64; n];
        for &c in first {
            weight[c] += 1;
        }
        // The pairs between sets of copies, each once at its highest score.
        let mut edges: Vec<(usize, usize, f64)> = pairs
            .iter()
            .map(|p| {
                let (x, y) = (first[p.a], first[p.b]);
                (x.min(y), x.max(y), p.score)
            })
            .filter(|e| e.0 != e.1)
            .collect();
        edges.sort_unstable_by(|l, r| (l.0, l.1).cmp(&(r.0, r.1)).then(r.2.total_cmp(&l.2)));
        edges.dedup_by_key(|e| (e.0, e.1));
        // 1. Cores: components over the pairs at the floor or above.
        let mut uf = UnionFind::try_new(n)?;
        for (d, &c) in first.iter().enumerate() {
            uf.union(d, c);
        }
        let (strong, mut weak): (Vec<_>, Vec<_>) =
            edges.into_iter().partition(|e| e.2 >= self.chain_floor);
        for &(x, y, _) in &strong {
            uf.union(x, y);
        }
        // 2. Each core's size, and its weighted pair counts to the other cores; a
        // group is named by a handle (its neighbours' key), the larger list of
        // neighbours keeping its handle when two groups merge.
        let mut handle = vec![usize::MAX; n];
        let mut size: Vec<u64> = Vec::new();
        let mut neighbours: Vec<HashMap<usize, u64>> = Vec::new();
        for (d, &c) in first.iter().enumerate() {
            if c != d {
                continue;
            }
            let r = uf.find(d);
            if handle[r] == usize::MAX {
                handle[r] = size.len();
                size.push(0);
                neighbours.push(HashMap::new());
            }
            size[handle[r]] += weight[d];
        }
        weak.retain(|&(x, y, _)| uf.find(x) != uf.find(y));
        for &(x, y, _) in &weak {
            let (hx, hy) = (handle[uf.find(x)], handle[uf.find(y)]);
            let w = weight[x] * weight[y];
            *neighbours[hx].entry(hy).or_insert(0) += w;
            *neighbours[hy].entry(hx).or_insert(0) += w;
        }
        // 3. The weak pairs, strongest first, merge groups they link well enough.
        weak.sort_unstable_by(|l, r| r.2.total_cmp(&l.2).then((l.0, l.1).cmp(&(r.0, r.1))));
        for &(x, y, _) in &weak {
            let (rx, ry) = (uf.find(x), uf.find(y));
            if rx == ry {
                continue;
            }
            let (hx, hy) = (handle[rx], handle[ry]);
            let shared = neighbours[hx].get(&hy).copied().unwrap_or(0);
            if (shared as f64) < self.fraction * size[hx] as f64 * size[hy] as f64 {
                continue;
            }
            let (keep, gone) = if neighbours[hx].len() >= neighbours[hy].len() {
                (hx, hy)
            } else {
                (hy, hx)
            };
            let moved = std::mem::take(&mut neighbours[gone]);
            neighbours[keep].remove(&gone);
            for (h, count) in moved {
                if h == keep {
                    continue;
                }
                *neighbours[keep].entry(h).or_insert(0) += count;
                let theirs = &mut neighbours[h];
                theirs.remove(&gone);
                *theirs.entry(keep).or_insert(0) += count;
            }
            size[keep] += size[gone];
            uf.union(rx, ry);
            let r = uf.find(rx);
            handle[r] = keep;
        }
        Ok(uf)
    }
}

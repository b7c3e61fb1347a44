//! The candidate graph the clustering walks: each document's candidates, from the
//! pairs an index proposed.

use ndd_core::{Error, ScoredPair};

/// Each document's candidates (the documents an index paired it with), as sorted
/// lists without repeats: the "candidate set `S_i`" of Yang and Callan (SIGIR 2006,
/// Figure 3), taken from the pipeline's candidate pairs instead of all pairs.
///
/// Memory: O(n + pairs) (two `u32`-sized entries per pair, stored as `usize`).
///
/// # Example
///
/// ```
/// use near_dup::cluster::Neighbours;
/// use near_dup::ScoredPair;
/// let pairs = [ScoredPair::new(0, 2, 0.9), ScoredPair::new(2, 1, 0.8), ScoredPair::new(0, 2, 0.9)];
/// let nb = Neighbours::from_pairs(3, pairs)?;
/// assert_eq!(nb.of(2), &[0, 1]);
/// assert_eq!(nb.of(0), &[2]);
/// assert_eq!(nb.num_edges(), 2);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbours {
    start: Vec<usize>,
    list: Vec<usize>,
}

impl Neighbours {
    /// The candidate graph of `n` documents from `pairs` (in either order, repeats
    /// and a document paired with itself ignored; scores are not used).
    ///
    /// Cost: O(n + p log p) for p pairs.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a pair names a document not below `n`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::Neighbours;
    /// use near_dup::ScoredPair;
    /// assert!(Neighbours::from_pairs(2, [ScoredPair::new(0, 5, 1.0)]).is_err());
    /// assert_eq!(Neighbours::from_pairs(2, [ScoredPair::new(1, 1, 1.0)])?.num_edges(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_pairs(
        n: usize,
        pairs: impl IntoIterator<Item = ScoredPair>,
    ) -> Result<Self, Error> {
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for p in pairs {
            if p.a >= n || p.b >= n {
                return Err(Error::invalid_input(format!(
                    "candidate pair ({}, {}) names a document outside 0..{n}",
                    p.a, p.b
                )));
            }
            if p.a != p.b {
                edges.push((p.a, p.b));
                edges.push((p.b, p.a));
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let mut start = vec![0usize; n + 1];
        for &(a, _) in &edges {
            start[a + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        Ok(Neighbours {
            start,
            list: edges.into_iter().map(|(_, b)| b).collect(),
        })
    }

    /// How many documents the graph is over.
    ///
    /// # Example
    ///
    /// ```
    /// let nb = near_dup::cluster::Neighbours::from_pairs(4, [])?;
    /// assert_eq!(nb.len(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// Whether the graph is over no documents.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::cluster::Neighbours::from_pairs(0, [])?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Document `d`'s candidates, in increasing order (empty when `d` is out of range).
    ///
    /// # Example
    ///
    /// ```
    /// let nb = near_dup::cluster::Neighbours::from_pairs(2, [(0, 1, 0.5).into()])?;
    /// assert_eq!(nb.of(1), &[0]);
    /// assert!(nb.of(7).is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn of(&self, d: usize) -> &[usize] {
        match (self.start.get(d), self.start.get(d + 1)) {
            (Some(&s), Some(&e)) => &self.list[s..e],
            _ => &[],
        }
    }

    /// How many distinct pairs the graph holds.
    ///
    /// # Example
    ///
    /// ```
    /// let nb = near_dup::cluster::Neighbours::from_pairs(3, [(0, 1, 0.5).into(), (1, 2, 0.5).into()])?;
    /// assert_eq!(nb.num_edges(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_edges(&self) -> usize {
        self.list.len() / 2
    }
}

//! [`Labels`]: the ground-truth (or predicted) grouping of documents into clusters.

use std::collections::HashMap;
use std::hash::Hash;

use ndd_core::Error;

/// Number of unordered pairs among `k` items: `k·(k−1)/2`.
pub(crate) fn pairs_of(k: u64) -> u64 {
    if k < 2 { 0 } else { k * (k - 1) / 2 }
}

/// A clustering of documents `0..n`: one cluster label per document.
///
/// Documents that share a label are near-duplicates of each other (they form one
/// cluster); a document whose label no other document has is a singleton. Labels of any
/// hashable type are mapped to dense cluster ids `0..num_clusters()` in order of first
/// appearance, so `["b", "a", "b"]` and `[7, 3, 7]` give the same `Labels`.
///
/// # Example
///
/// ```
/// use near_dup::eval::Labels;
/// // Six documents in clusters {0,1,2}, {3,4}, {5}.
/// let labels = Labels::new(&[10, 10, 10, 4, 4, 99]);
/// assert_eq!(labels.len(), 6);
/// assert_eq!(labels.num_clusters(), 3);
/// assert_eq!(labels.cluster_sizes(), &[3, 2, 1]);
/// assert_eq!(labels.true_pairs(), 3 + 1); // C(3,2) + C(2,2)
/// assert_eq!(labels.same_cluster(0, 2), Some(true));
/// assert_eq!(labels.same_cluster(2, 3), Some(false));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    ids: Vec<usize>,
    sizes: Vec<usize>,
}

impl Labels {
    /// Builds labels from one cluster label per document (document `i` has label
    /// `labels[i]`). Runs in O(n) expected time.
    ///
    /// # Example
    ///
    /// ```
    /// let labels = near_dup::eval::Labels::new(&["form-a", "form-b", "form-a"]);
    /// assert_eq!(labels.cluster_ids(), &[0, 1, 0]);
    /// ```
    #[must_use]
    pub fn new<L: Eq + Hash>(labels: &[L]) -> Self {
        let mut map: HashMap<&L, usize> = HashMap::with_capacity(labels.len());
        let mut ids = Vec::with_capacity(labels.len());
        let mut sizes: Vec<usize> = Vec::new();
        for label in labels {
            let next = sizes.len();
            let id = *map.entry(label).or_insert(next);
            if id == sizes.len() {
                sizes.push(0);
            }
            sizes[id] += 1;
            ids.push(id);
        }
        Labels { ids, sizes }
    }

    /// Builds labels for documents `0..n` from explicit groups (for example the output
    /// of [`ndd_core::UnionFind::groups`] or of a clustering algorithm). Every group is
    /// one cluster; documents that appear in no group become singletons.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a group names a document `>= n`, a document
    /// appears in more than one group (or twice in one group), or `n` labels (8 bytes
    /// each) do not fit in memory.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::eval::Labels;
    /// let labels = Labels::from_groups(5, &[vec![0, 3], vec![1, 4]])?;
    /// assert_eq!(labels.num_clusters(), 3); // {0,3}, {1,4}, {2}
    /// assert_eq!(labels.same_cluster(0, 3), Some(true));
    /// assert!(Labels::from_groups(2, &[vec![0, 2]]).is_err());
    /// assert!(Labels::from_groups(usize::MAX, &[]).is_err()); // aborted before
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_groups(n: usize, groups: &[Vec<usize>]) -> Result<Self, Error> {
        const UNSET: usize = usize::MAX;
        let mut raw = Vec::new();
        raw.try_reserve_exact(n)
            .map_err(|_| Error::invalid_input(format!("{n} labels do not fit in memory")))?;
        raw.resize(n, UNSET);
        for (g, group) in groups.iter().enumerate() {
            for &doc in group {
                let Some(slot) = raw.get_mut(doc) else {
                    return Err(Error::invalid_input(format!(
                        "group {g} names document {doc}, but there are only {n} documents"
                    )));
                };
                if *slot != UNSET {
                    return Err(Error::invalid_input(format!(
                        "document {doc} appears in more than one group (or twice in group {g})"
                    )));
                }
                *slot = g;
            }
        }
        // Singletons get labels after all group indices.
        let mut next = groups.len();
        for slot in &mut raw {
            if *slot == UNSET {
                *slot = next;
                next += 1;
            }
        }
        Ok(Labels::new(&raw))
    }

    /// Number of documents.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::eval::Labels::new(&[1, 2, 1]).len(), 3);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are no documents.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::eval::Labels::new::<u64>(&[]).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Number of clusters, singletons included.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::eval::Labels::new(&[5, 5, 6]).num_clusters(), 2);
    /// ```
    #[must_use]
    pub fn num_clusters(&self) -> usize {
        self.sizes.len()
    }

    /// The dense cluster id (`0..num_clusters()`) of every document, in document order.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::eval::Labels::new(&[9, 4, 9]).cluster_ids(), &[0, 1, 0]);
    /// ```
    #[must_use]
    pub fn cluster_ids(&self) -> &[usize] {
        &self.ids
    }

    /// The size of every cluster, indexed by dense cluster id.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::eval::Labels::new(&[9, 4, 9]).cluster_sizes(), &[2, 1]);
    /// ```
    #[must_use]
    pub fn cluster_sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The dense cluster id of document `doc`, or `None` when `doc >= len()`.
    ///
    /// # Example
    ///
    /// ```
    /// let labels = near_dup::eval::Labels::new(&[9, 4, 9]);
    /// assert_eq!(labels.cluster_of(2), Some(0));
    /// assert_eq!(labels.cluster_of(3), None);
    /// ```
    #[must_use]
    pub fn cluster_of(&self, doc: usize) -> Option<usize> {
        self.ids.get(doc).copied()
    }

    /// Whether documents `a` and `b` are in the same cluster (`Some(true)` for `a == b`),
    /// or `None` when either is out of range.
    ///
    /// # Example
    ///
    /// ```
    /// let labels = near_dup::eval::Labels::new(&[9, 4, 9]);
    /// assert_eq!(labels.same_cluster(0, 2), Some(true));
    /// assert_eq!(labels.same_cluster(0, 1), Some(false));
    /// assert_eq!(labels.same_cluster(0, 7), None);
    /// ```
    #[must_use]
    pub fn same_cluster(&self, a: usize, b: usize) -> Option<bool> {
        Some(self.cluster_of(a)? == self.cluster_of(b)?)
    }

    /// Number of unordered document pairs that share a cluster (the "true pairs" a
    /// pairwise detector should find): `Σ C(size, 2)` over clusters, computed in
    /// O(clusters).
    ///
    /// # Example
    ///
    /// ```
    /// // Clusters of sizes 3, 2, 1: 3 + 1 + 0 pairs.
    /// assert_eq!(near_dup::eval::Labels::new(&[0, 0, 0, 1, 1, 2]).true_pairs(), 4);
    /// ```
    #[must_use]
    pub fn true_pairs(&self) -> u64 {
        self.sizes.iter().map(|&s| pairs_of(s as u64)).sum()
    }

    /// Number of unordered pairs of distinct documents: `C(len(), 2)`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::eval::Labels::new(&[0, 0, 1, 2]).total_pairs(), 6);
    /// ```
    #[must_use]
    pub fn total_pairs(&self) -> u64 {
        pairs_of(self.ids.len() as u64)
    }
}

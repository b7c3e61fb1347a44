//! [`UnionFind`]: turning similar pairs into groups (connected components).

/// Disjoint sets over `0..n` with path compression and union by size: near-constant
/// time per operation. Pairs of near-duplicates go in; groups (the transitive closure)
/// come out.
///
/// # Example
///
/// ```
/// use near_dup::UnionFind;
/// let mut uf = UnionFind::new(5);
/// uf.union(0, 1);
/// uf.union(3, 1);
/// assert!(uf.same(0, 3));
/// assert_eq!(uf.groups(), vec![vec![0, 1, 3], vec![2], vec![4]]);
/// ```
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    /// `n` singleton sets: 16 bytes per element.
    ///
    /// # Panics
    ///
    /// When the memory for `n` elements cannot be reserved, as `Vec::with_capacity`
    /// does; use [`try_new`](Self::try_new) when `n` comes from outside.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::UnionFind::new(3).groups().len(), 3);
    /// ```
    #[must_use]
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    /// `n` singleton sets, or an error when their memory (16 bytes per element)
    /// cannot be reserved: for an `n` read from untrusted input.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `n` elements do not
    /// fit in memory (`usize::MAX` used to abort the process).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::UnionFind::try_new(3)?.len(), 3);
    /// assert!(near_dup::UnionFind::try_new(usize::MAX).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn try_new(n: usize) -> Result<Self, crate::Error> {
        let too_big = |_| {
            crate::Error::invalid_input(format!("{n} union-find elements do not fit in memory"))
        };
        let mut parent = Vec::new();
        parent.try_reserve_exact(n).map_err(too_big)?;
        let mut size = Vec::new();
        size.try_reserve_exact(n).map_err(too_big)?;
        parent.extend(0..n);
        size.resize(n, 1);
        Ok(UnionFind { parent, size })
    }

    /// The number of elements.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::UnionFind::new(4).len(), 4);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether there are no elements.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::UnionFind::new(0).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The representative of `x`'s set. Elements outside `0..len()` are their own
    /// representative.
    ///
    /// # Example
    ///
    /// ```
    /// let mut uf = near_dup::UnionFind::new(2);
    /// uf.union(0, 1);
    /// assert_eq!(uf.find(0), uf.find(1));
    /// ```
    pub fn find(&mut self, x: usize) -> usize {
        if x >= self.parent.len() {
            return x;
        }
        find_root(&mut self.parent, x)
    }

    /// Merges the sets of `a` and `b`; returns whether they were apart. Elements
    /// outside `0..len()` are ignored (returns `false`).
    ///
    /// # Example
    ///
    /// ```
    /// let mut uf = near_dup::UnionFind::new(2);
    /// assert!(uf.union(0, 1));
    /// assert!(!uf.union(1, 0));
    /// assert!(!uf.union(0, 99));
    /// ```
    pub fn union(&mut self, a: usize, b: usize) -> bool {
        if a >= self.len() || b >= self.len() {
            return false;
        }
        union_roots(&mut self.parent, &mut self.size, a, b).is_some()
    }

    /// Whether `a` and `b` are in the same set.
    ///
    /// # Example
    ///
    /// ```
    /// let mut uf = near_dup::UnionFind::new(3);
    /// uf.union(0, 2);
    /// assert!(uf.same(2, 0) && !uf.same(0, 1));
    /// ```
    pub fn same(&mut self, a: usize, b: usize) -> bool {
        self.find(a) == self.find(b)
    }

    /// A cluster label per element: the smallest element of its set.
    ///
    /// # Example
    ///
    /// ```
    /// let mut uf = near_dup::UnionFind::new(4);
    /// uf.union(3, 1);
    /// assert_eq!(uf.labels(), vec![0, 1, 2, 1]);
    /// ```
    pub fn labels(&mut self) -> Vec<usize> {
        let n = self.len();
        let mut smallest = vec![usize::MAX; n];
        for x in 0..n {
            let r = self.find(x);
            smallest[r] = smallest[r].min(x);
        }
        (0..n).map(|x| smallest[self.find(x)]).collect()
    }

    /// The sets, each sorted, ordered by their smallest element.
    ///
    /// # Example
    ///
    /// ```
    /// let mut uf = near_dup::UnionFind::new(3);
    /// uf.union(2, 0);
    /// assert_eq!(uf.groups(), vec![vec![0, 2], vec![1]]);
    /// ```
    pub fn groups(&mut self) -> Vec<Vec<usize>> {
        let labels = self.labels();
        let mut index = vec![usize::MAX; labels.len()];
        let mut out: Vec<Vec<usize>> = Vec::new();
        for (x, &l) in labels.iter().enumerate() {
            if index[l] == usize::MAX {
                index[l] = out.len();
                out.push(Vec::new());
            }
            out[index[l]].push(x);
        }
        out
    }
}

/// The root of `x` in the forest `parent` (a root is its own parent), compressing the
/// path from `x` to it; `x` must be below `parent.len()`.
pub(crate) fn find_root(parent: &mut [usize], x: usize) -> usize {
    let mut root = x;
    while parent[root] != root {
        root = parent[root];
    }
    let mut cur = x;
    while parent[cur] != root {
        let next = parent[cur];
        parent[cur] = root;
        cur = next;
    }
    root
}

/// Joins the trees of `a` and `b` in the forest `parent` (union by `size`, the size of
/// each root's tree); returns `(kept, absorbed)`, the root that stays and the one now
/// under it, or `None` when they were already one tree. Both must be below
/// `parent.len()`.
pub(crate) fn union_roots(
    parent: &mut [usize],
    size: &mut [usize],
    a: usize,
    b: usize,
) -> Option<(usize, usize)> {
    let (mut ra, mut rb) = (find_root(parent, a), find_root(parent, b));
    if ra == rb {
        return None;
    }
    if size[ra] < size[rb] {
        std::mem::swap(&mut ra, &mut rb);
    }
    parent[rb] = ra;
    size[ra] += size[rb];
    Some((ra, rb))
}

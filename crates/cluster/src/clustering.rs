//! DURIAN's clustering (Yang and Callan 2006, Section 4.4.5 and Figure 3): reference
//! copies first, then every other document, as seeds; each seed's candidates join the
//! nearest cluster under a distance threshold, with must-links honoured, cannot-links
//! never violated and family-links lowering the distance.

use ndd_core::Error;

use crate::{Closure, Link, Neighbours};

/// DURIAN's family-link adjustment α = 0.05: a family-linked pair's distance is
/// lowered by this much (Yang and Callan 2006, Figure 3).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::cluster::DEFAULT_ALPHA, 0.05);
/// ```
pub const DEFAULT_ALPHA: f64 = 0.05;

/// The default distance threshold θ for [`KlDivergence`](crate::KlDivergence)
/// distances with μ = 1: 1.0. The paper does not give its value; this one is
/// measured on generated form-letter collections (`docs/decisions.md`).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::cluster::DEFAULT_THETA, 1.0);
/// ```
pub const DEFAULT_THETA: f64 = 1.0;

/// Settings of [`cluster`]: the threshold θ and the family adjustment α.
///
/// # Example
///
/// ```
/// use near_dup::cluster::ClusterOptions;
/// let o = ClusterOptions::new(0.8)?.alpha(0.1)?;
/// assert_eq!((o.theta(), o.family_alpha()), (0.8, 0.1));
/// assert!(ClusterOptions::new(f64::NAN).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusterOptions {
    theta: f64,
    alpha: f64,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            theta: DEFAULT_THETA,
            alpha: DEFAULT_ALPHA,
        }
    }
}

impl ClusterOptions {
    /// Threshold `theta`: a candidate joins a cluster only when its distance to the
    /// seed (less α when family-linked) is below it. Larger values make larger
    /// clusters; 0 joins nothing (every document alone unless must-linked).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `theta` is NaN or negative.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::cluster::ClusterOptions::new(-1.0).is_err());
    /// assert!(near_dup::cluster::ClusterOptions::new(f64::INFINITY).is_ok());
    /// ```
    pub fn new(theta: f64) -> Result<Self, Error> {
        if theta.is_nan() || theta < 0.0 {
            return Err(Error::invalid_parameter(
                "theta",
                format!("must be 0 or more, got {theta}"),
            ));
        }
        Ok(ClusterOptions {
            theta,
            alpha: DEFAULT_ALPHA,
        })
    }

    /// Sets the family adjustment α (default [`DEFAULT_ALPHA`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] unless `alpha` is finite and 0 or more.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::cluster::ClusterOptions::default().alpha(f64::INFINITY).is_err());
    /// ```
    pub fn alpha(mut self, alpha: f64) -> Result<Self, Error> {
        if !(alpha.is_finite() && alpha >= 0.0) {
            return Err(Error::invalid_parameter(
                "alpha",
                format!("must be finite and 0 or more, got {alpha}"),
            ));
        }
        self.alpha = alpha;
        Ok(self)
    }

    /// The threshold θ.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::ClusterOptions::default().theta(), near_dup::cluster::DEFAULT_THETA);
    /// ```
    #[must_use]
    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// The family adjustment α.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::ClusterOptions::default().family_alpha(), 0.05);
    /// ```
    #[must_use]
    pub fn family_alpha(&self) -> f64 {
        self.alpha
    }
}

/// Groups of documents, each with its centroid (the seed that started it): every
/// document is in exactly one. Made by [`cluster`].
///
/// # Example
///
/// ```
/// use near_dup::cluster::{cluster, ClusterOptions, Closure, Neighbours};
/// let nb = Neighbours::from_pairs(3, [(0, 1, 1.0).into()])?;
/// let c = cluster(&[], &nb, &Closure::none(3), &ClusterOptions::default(), |_, _| 0.0)?;
/// assert_eq!(c.groups(), vec![vec![0, 1], vec![2]]);
/// assert_eq!(c.centroid(c.cluster_of(1)), 0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clustering {
    assignment: Vec<usize>,
    centroids: Vec<usize>,
}

impl Clustering {
    /// The cluster of document `d`.
    ///
    /// # Panics
    ///
    /// When `d` is not below the number of documents clustered.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{cluster, ClusterOptions, Closure, Neighbours};
    /// let nb = Neighbours::from_pairs(2, [])?;
    /// let c = cluster(&[], &nb, &Closure::none(2), &ClusterOptions::default(), |_, _| 0.0)?;
    /// assert_ne!(c.cluster_of(0), c.cluster_of(1));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn cluster_of(&self, d: usize) -> usize {
        self.assignment[d]
    }

    /// Each document's cluster, by document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{cluster, ClusterOptions, Closure, Neighbours};
    /// let nb = Neighbours::from_pairs(2, [])?;
    /// let c = cluster(&[], &nb, &Closure::none(2), &ClusterOptions::default(), |_, _| 0.0)?;
    /// assert_eq!(c.assignments(), &[0, 1]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn assignments(&self) -> &[usize] {
        &self.assignment
    }

    /// The centroid (seed document) of cluster `k`.
    ///
    /// # Panics
    ///
    /// When `k` is not below [`num_clusters`](Self::num_clusters).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{cluster, ClusterOptions, Closure, Neighbours};
    /// let nb = Neighbours::from_pairs(2, [(0, 1, 1.0).into()])?;
    /// let c = cluster(&[1], &nb, &Closure::none(2), &ClusterOptions::default(), |_, _| 0.0)?;
    /// assert_eq!(c.centroid(0), 1); // the reference copy seeded first
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn centroid(&self, k: usize) -> usize {
        self.centroids[k]
    }

    /// How many clusters there are (singletons included).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{cluster, ClusterOptions, Closure, Neighbours};
    /// let nb = Neighbours::from_pairs(3, [])?;
    /// let c = cluster(&[], &nb, &Closure::none(3), &ClusterOptions::default(), |_, _| 0.0)?;
    /// assert_eq!(c.num_clusters(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_clusters(&self) -> usize {
        self.centroids.len()
    }

    /// The clusters' members, each in increasing order, clusters in the order they
    /// were made (seeded clusters first, then singletons by document).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{cluster, ClusterOptions, Closure, Neighbours};
    /// let nb = Neighbours::from_pairs(3, [(2, 1, 1.0).into()])?;
    /// let c = cluster(&[2], &nb, &Closure::none(3), &ClusterOptions::default(), |_, _| 0.0)?;
    /// assert_eq!(c.groups(), vec![vec![1, 2], vec![0]]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn groups(&self) -> Vec<Vec<usize>> {
        let mut groups = vec![Vec::new(); self.centroids.len()];
        for (d, &k) in self.assignment.iter().enumerate() {
            groups[k].push(d);
        }
        groups
    }
}

const NONE: usize = usize::MAX;

/// The clustering of Yang and Callan (SIGIR 2006, Figure 3).
///
/// Seeds are taken in order: the `references` (reference copies, see
/// [`reference_copies`](crate::reference_copies)) first, then every other document by
/// index. A seed `d` that another cluster already holds is skipped. For each
/// candidate `s` of `d` (its [`Neighbours`], in increasing order) not yet in a
/// cluster:
///
/// * must-linked documents move together: a seed's must class starts its cluster, and
///   a candidate joins with its whole must class (steps a and c), so must-links are
///   always honoured;
/// * distances are `distance(s, d)`, lowered by α when the pair is family-linked
///   (step b); a `NaN` distance counts as infinite;
/// * when the distance to the seed is below θ (step d), `s` joins the nearest of the
///   seed's cluster and the clusters its other candidates are in, by distance to
///   each cluster's centroid (ties go to the seed, then to the earlier cluster),
///   skipping every cluster holding a document cannot-linked to a document of `s`'s
///   must class, so a cannot-link is never violated. The paper compares with every
///   centroid; the clusters of `s`'s candidates are those an index can reach.
///
/// Documents no seed took end as singleton clusters. With [`Closure::none`] this is
/// the paper's unsupervised baseline. The output depends only on the inputs: no
/// hashing order, no threads.
///
/// Cost: each candidate `s` still unplaced when a seed reaches it costs one
/// distance to the seed and, when that is below θ, O(deg(s)) lookups and one
/// distance per distinct cluster among its candidates, plus a check per must class
/// cannot-linked to its own; in all at most O(Σ_s deg(s)²) distances for candidate
/// degrees deg (a document is placed the first time it is close enough to a seed,
/// so far fewer in practice). Memory: O(n) beside the inputs.
///
/// # Errors
///
/// [`Error::LengthMismatch`] when `neighbours` and `constraints` are over different
/// numbers of documents; [`Error::InvalidInput`] when a reference is out of range.
///
/// # Example
///
/// Three copies of a form letter, one with a block added, and an unrelated comment;
/// the copy with the block is must-linked (it contains the letter's paragraphs).
///
/// ```
/// use near_dup::cluster::{cluster, Background, ClusterOptions, Constraints, KlDivergence, Link, Neighbours};
/// use near_dup::shingle::WordShingler;
/// let texts = [
///     "we urge the agency to protect the river from mercury",
///     "we urge the agency to protect the river from mercury",
///     "my family fishes here every summer and the fish are sick. we urge the agency to protect the river from mercury",
///     "the proposed fuel economy standard is too weak",
/// ];
/// let words = WordShingler::new(1)?;
/// let counts: Vec<_> = texts.iter().map(|t| words.counts(t)).collect();
/// let background = Background::from_documents(&counts);
/// let kl = KlDivergence::new(&background, 1.0)?;
/// // Candidates as an index would propose them.
/// let nb = Neighbours::from_pairs(4, [(0, 1, 1.0).into(), (0, 2, 0.5).into(), (2, 3, 0.1).into()])?;
/// let mut constraints = Constraints::new(4);
/// constraints.add(Link::Must, 0, 2)?;
/// let closed = constraints.close()?;
/// let c = cluster(&[0], &nb, &closed, &ClusterOptions::default(), |a, b| kl.distance(&counts[a], &counts[b]))?;
/// assert_eq!(c.groups(), vec![vec![0, 1, 2], vec![3]]);
/// # Ok::<(), near_dup::Error>(())
/// ```
///
/// # References
///
/// * H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
///   clustering", *SIGIR 2006*, Sections 4.4.5 and Figure 3.
pub fn cluster<D: FnMut(usize, usize) -> f64>(
    references: &[usize],
    neighbours: &Neighbours,
    constraints: &Closure,
    options: &ClusterOptions,
    mut distance: D,
) -> Result<Clustering, Error> {
    let n = neighbours.len();
    Error::check_lengths(n, constraints.num_documents())?;
    if let Some(&r) = references.iter().find(|&&r| r >= n) {
        return Err(Error::invalid_input(format!(
            "reference copy {r} is outside 0..{n}"
        )));
    }
    let mut state = State {
        constraints,
        cluster_of_class: vec![NONE; constraints.num_classes()],
        centroids: Vec::new(),
        visited: Vec::new(),
    };
    let mut seeded = vec![false; n];
    let (theta, alpha) = (options.theta, options.alpha);
    let mut adjusted = |a: usize, b: usize| {
        let d = distance(a, b);
        let d = if d.is_nan() { f64::INFINITY } else { d };
        if constraints.link(a, b) == Some(Link::Family) {
            d - alpha
        } else {
            d
        }
    };
    for seed in references.iter().copied().chain(0..n) {
        if std::mem::replace(&mut seeded[seed], true) {
            continue;
        }
        let own = state.cluster_of(seed);
        if own != NONE && state.centroids[own] != seed {
            continue;
        }
        if own == NONE && constraints.members(constraints.class_of(seed)).len() > 1 {
            state.start(seed);
        }
        for &s in neighbours.of(seed) {
            if state.cluster_of(s) != NONE {
                continue;
            }
            let own = state.cluster_of(seed);
            let own_blocked = if own == NONE {
                constraints.link(s, seed) == Some(Link::Cannot)
            } else {
                state.blocked(s, own)
            };
            if own_blocked {
                continue;
            }
            let to_seed = adjusted(s, seed);
            if to_seed >= theta {
                continue;
            }
            let mut best = (to_seed, own);
            for &c in neighbours.of(s) {
                let k = state.cluster_of(c);
                // Each cluster once per candidate: `visited[k]` holds the last
                // candidate that looked at cluster k.
                if k == NONE || k == own || state.visited[k] == s || state.blocked(s, k) {
                    continue;
                }
                state.visited[k] = s;
                let dk = adjusted(s, state.centroids[k]);
                if dk < best.0 || (dk == best.0 && best.1 != own && k < best.1) {
                    best = (dk, k);
                }
            }
            let k = if best.1 == NONE {
                state.start(seed)
            } else {
                best.1
            };
            state.place(s, k);
        }
    }
    for d in 0..n {
        if state.cluster_of(d) == NONE {
            state.start(d);
        }
    }
    let assignment = (0..n).map(|d| state.cluster_of(d)).collect();
    Ok(Clustering {
        assignment,
        centroids: state.centroids,
    })
}

/// The clusters being built, by must class.
struct State<'c> {
    constraints: &'c Closure,
    cluster_of_class: Vec<usize>,
    centroids: Vec<usize>,
    /// Per cluster, the last candidate that compared itself with it.
    visited: Vec<usize>,
}

impl State<'_> {
    fn cluster_of(&self, d: usize) -> usize {
        self.cluster_of_class[self.constraints.class_of(d)]
    }

    /// Starts a cluster with `seed`'s must class; returns its id.
    fn start(&mut self, seed: usize) -> usize {
        let k = self.centroids.len();
        self.centroids.push(seed);
        self.visited.push(NONE);
        self.cluster_of_class[self.constraints.class_of(seed)] = k;
        k
    }

    /// Puts `d`'s must class in cluster `k`.
    fn place(&mut self, d: usize, k: usize) {
        self.cluster_of_class[self.constraints.class_of(d)] = k;
    }

    /// Whether cluster `k` holds a document cannot-linked to `d`'s must class.
    fn blocked(&self, d: usize, k: usize) -> bool {
        self.constraints
            .cannot_classes(self.constraints.class_of(d))
            .iter()
            .any(|&c| self.cluster_of_class[c] == k)
    }
}

//! The grouping stage by DURIAN's constrained clustering (Yang and Callan, SIGIR 2006):
//! reference copies from the exact pass, constraints from document attributes and the
//! must-link test, clusters over the candidate graph by Dirichlet-smoothed KL
//! divergence.

use ndd_align::TokenOptions;
use ndd_cluster::{
    Background, ClusterOptions, Conflicts, Constraints, DEFAULT_ALPHA, DEFAULT_MIN_COPIES,
    DEFAULT_MU, DEFAULT_MUST_OVERLAP, DEFAULT_THETA, KlDivergence, Link, Neighbours, cluster,
    is_must_link, reference_copies,
};
use ndd_core::{ScoredPair, SparseVector};
use ndd_shingle::WordShingler;

use crate::{Document, Error, Group, Representative};

/// Settings of the constrained grouping ([`GroupMethod::Durian`](crate::GroupMethod::Durian)): the clustering's
/// threshold and family adjustment, the reference copies' `m`, and which document
/// attributes make constraints.
///
/// Constraints are drawn where Figure 3 of the paper consults them: must-links (the
/// candidate contains every paragraph of the reference copy, or shares more than
/// [`must_overlap`](Self::must_overlap) of its words) and family-links (same value of a
/// [`family_if_same`](Self::family_if_same) attribute) between each reference copy
/// and its candidates; cannot-links (both documents have a value of a
/// [`cannot_if_different`](Self::cannot_if_different) attribute and the values
/// differ) between every candidate pair. Exact copies are must-linked first; a
/// must-link that would join two cannot-linked documents is dropped
/// ([`Conflicts::DropMust`] by default). `docs/decisions.md` has the measurements
/// behind each default.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Document, DurianGrouping, GroupMethod};
/// let letter = "We urge the agency to adopt the strictest mercury standard. Our children deserve clean air and clean water.";
/// let sibling = "We urge the agency to adopt the strictest fuel economy standard. Our children deserve clean air and clean water.";
/// let mut docs: Vec<Document> = (0..6)
///     .map(|i| Document::new(format!("epa-{i}"), letter).with_attribute("docket", "EPA-0056"))
///     .collect();
/// docs.extend((0..6).map(|i| Document::new(format!("dot-{i}"), sibling).with_attribute("docket", "DOT-16128")));
/// let durian = DurianGrouping::new().cannot_if_different("docket");
/// let out = Dedup::new().threshold(0.5).group(GroupMethod::Durian(durian)).run(&docs)?;
/// // Two campaigns, each kept as its reference copy with its number of copies.
/// assert_eq!(out.groups.len(), 2);
/// assert_eq!((out.groups[0].representative, out.groups[0].copies), (0, Some(6)));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
///
/// # References
///
/// * H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
///   clustering", *SIGIR 2006*, Sections 4.2–4.4 and Figure 3.
#[derive(Debug, Clone, PartialEq)]
pub struct DurianGrouping {
    theta: f64,
    alpha: f64,
    mu: f64,
    min_copies: usize,
    must_overlap: f64,
    cannot: Vec<String>,
    family: Vec<String>,
    asserted: Vec<(Link, String, String)>,
    conflicts: Conflicts,
    honour_threshold: bool,
}

impl Default for DurianGrouping {
    fn default() -> Self {
        DurianGrouping {
            theta: DEFAULT_THETA,
            alpha: DEFAULT_ALPHA,
            mu: DEFAULT_MU,
            min_copies: DEFAULT_MIN_COPIES,
            must_overlap: DEFAULT_MUST_OVERLAP,
            cannot: Vec::new(),
            family: Vec::new(),
            asserted: Vec::new(),
            conflicts: Conflicts::DropMust,
            honour_threshold: true,
        }
    }
}

impl DurianGrouping {
    /// The defaults: θ = 1, α = 0.05, μ = 1, `m` = 5, must overlap 0.95, no attribute
    /// rules, conflicting must-links dropped, the threshold honoured.
    ///
    /// # Example
    ///
    /// ```
    /// let g = near_dup::pipeline::DurianGrouping::new();
    /// assert_eq!((g.theta_value(), g.min_copies_value()), (1.0, 5));
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The clustering's threshold θ on the KL-divergence distance: a candidate joins a
    /// seed's cluster when its distance (less α when family-linked) is below θ. Larger
    /// values make larger groups; checked (0 or more, not NaN) when the pipeline runs.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::DurianGrouping::new().theta(0.75).theta_value(), 0.75);
    /// ```
    #[must_use]
    pub fn theta(mut self, theta: f64) -> Self {
        self.theta = theta;
        self
    }

    /// The family adjustment α (0.05): how much a family-link lowers a distance.
    ///
    /// # Example
    ///
    /// ```
    /// let g = near_dup::pipeline::DurianGrouping::new().family_alpha(0.1);
    /// assert_eq!(g, near_dup::pipeline::DurianGrouping::new().family_alpha(0.1));
    /// ```
    #[must_use]
    pub fn family_alpha(mut self, alpha: f64) -> Self {
        self.alpha = alpha;
        self
    }

    /// The Dirichlet prior μ of the distance (1).
    ///
    /// # Example
    ///
    /// ```
    /// let g = near_dup::pipeline::DurianGrouping::new().mu(2.0);
    /// assert_ne!(g, near_dup::pipeline::DurianGrouping::new());
    /// ```
    #[must_use]
    pub fn mu(mut self, mu: f64) -> Self {
        self.mu = mu;
        self
    }

    /// `m` (5): a group of more than `m` exact copies is a form letter, and its
    /// earliest document (by [`Document::order`], then input order) its reference
    /// copy.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::DurianGrouping::new().min_copies(2).min_copies_value(), 2);
    /// ```
    #[must_use]
    pub fn min_copies(mut self, m: usize) -> Self {
        self.min_copies = m;
        self
    }

    /// The word overlap (word-set Jaccard) above which a candidate is must-linked to a
    /// reference copy (0.95, the paper's minor change).
    ///
    /// # Example
    ///
    /// ```
    /// let g = near_dup::pipeline::DurianGrouping::new().must_overlap(0.9);
    /// assert_ne!(g, near_dup::pipeline::DurianGrouping::new());
    /// ```
    #[must_use]
    pub fn must_overlap(mut self, overlap: f64) -> Self {
        self.must_overlap = overlap;
        self
    }

    /// Cannot-links candidate pairs whose values of attribute `name` differ (a docket
    /// identifier).
    ///
    /// # Example
    ///
    /// ```
    /// let g = near_dup::pipeline::DurianGrouping::new().cannot_if_different("docket");
    /// assert_eq!(g.cannot_attributes(), ["docket"]);
    /// ```
    #[must_use]
    pub fn cannot_if_different(mut self, name: impl Into<String>) -> Self {
        self.cannot.push(name.into());
        self
    }

    /// Family-links a reference copy and its candidates when they have the same value
    /// of attribute `name` (a relay, a footer).
    ///
    /// # Example
    ///
    /// ```
    /// let g = near_dup::pipeline::DurianGrouping::new().family_if_same("relay");
    /// assert_eq!(g.family_attributes(), ["relay"]);
    /// ```
    #[must_use]
    pub fn family_if_same(mut self, name: impl Into<String>) -> Self {
        self.family.push(name.into());
        self
    }

    /// Asserts `link` between the documents with ids `a` and `b` (a reviewer's
    /// judgement, a known campaign). Asserted must-links are trusted after exact
    /// copies and before the must-link test; a run fails with
    /// [`Error::Core`] (invalid input) when an id names no document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::Link;
    /// use near_dup::pipeline::{Dedup, Document, DurianGrouping, GroupMethod};
    /// let docs = [Document::new("a", "one two three four five six"), Document::new("b", "seven eight nine ten")];
    /// let durian = DurianGrouping::new().assert_link(Link::Must, "a", "b");
    /// let out = Dedup::new().group(GroupMethod::Durian(durian)).run(&docs)?;
    /// assert_eq!(out.groups[0].members, vec![0, 1]);
    /// let unknown = DurianGrouping::new().assert_link(Link::Must, "a", "zzz");
    /// assert!(Dedup::new().group(GroupMethod::Durian(unknown)).run(&docs).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn assert_link(mut self, link: Link, a: impl Into<String>, b: impl Into<String>) -> Self {
        self.asserted.push((link, a.into(), b.into()));
        self
    }

    /// The links asserted by id, in order.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::DurianGrouping::new().asserted_links().is_empty());
    /// ```
    #[must_use]
    pub fn asserted_links(&self) -> &[(Link, String, String)] {
        &self.asserted
    }

    /// What to do when a must-link and a cannot-link contradict ([`Conflicts::DropMust`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::Conflicts;
    /// let g = near_dup::pipeline::DurianGrouping::new().conflicts(Conflicts::DropCannot);
    /// assert_ne!(g, near_dup::pipeline::DurianGrouping::new());
    /// ```
    #[must_use]
    pub fn conflicts(mut self, policy: Conflicts) -> Self {
        self.conflicts = policy;
        self
    }

    /// Whether a member is dropped only for a kept document it is similar to at the
    /// run's threshold (on by default).
    ///
    /// DURIAN's clustering places a document by its KL-divergence distance to a
    /// seed or to a neighbouring cluster's centroid, over every candidate pair, so a
    /// cluster can hold documents the run's measure finds less similar to the kept
    /// one than the threshold (on real man pages at threshold 0.8, dropped members
    /// had Jaccard 0.41 to 0.71 against the kept document: issue 29). On, a member
    /// stays in its group only when it is an exact copy of the kept document or a
    /// verified pair joins the two with a score at the threshold or above; the others
    /// leave the group and are kept. Documents must-linked by the user
    /// ([`assert_link`](Self::assert_link) with [`Link::Must`]) stay together
    /// whatever their similarity: the user asked for it. Off, DURIAN's distance alone
    /// decides (the paper's algorithm as it stands): ask for it knowingly, since
    /// documents are then dropped below the threshold.
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::Arc;
    /// use near_dup::pipeline::{Dedup, DurianGrouping, GroupMethod, Verifier};
    /// let texts = [
    ///     "the board approved the budget for the new city library on monday evening after a long debate",
    ///     "the board approved the budget for the new city library on monday evening after a long debate.",
    /// ];
    /// // The run's measure (a user's) scores the pair 0.5, below the threshold 0.8.
    /// let half = Verifier::Custom(Arc::new(|_: &str, _: &str| 0.5));
    /// let durian = |honour| {
    ///     let g = DurianGrouping::new().honour_threshold(honour);
    ///     let run = Dedup::new().exact_pass(false).verifier(half.clone());
    ///     run.group(GroupMethod::Durian(g)).run_texts(&texts)
    /// };
    /// assert!(durian(true)?.groups.is_empty());
    /// assert_eq!(durian(false)?.groups[0].members, vec![0, 1]);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn honour_threshold(mut self, on: bool) -> Self {
        self.honour_threshold = on;
        self
    }

    /// Whether the threshold is honoured ([`honour_threshold`](Self::honour_threshold)).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::DurianGrouping::new().honours_threshold());
    /// ```
    #[must_use]
    pub fn honours_threshold(&self) -> bool {
        self.honour_threshold
    }

    /// θ.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::DurianGrouping::new().theta_value(), near_dup::cluster::DEFAULT_THETA);
    /// ```
    #[must_use]
    pub fn theta_value(&self) -> f64 {
        self.theta
    }

    /// `m`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::DurianGrouping::new().min_copies_value(), 5);
    /// ```
    #[must_use]
    pub fn min_copies_value(&self) -> usize {
        self.min_copies
    }

    /// The attributes that make cannot-links.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::DurianGrouping::new().cannot_attributes().is_empty());
    /// ```
    #[must_use]
    pub fn cannot_attributes(&self) -> &[String] {
        &self.cannot
    }

    /// The attributes that make family-links.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::DurianGrouping::new().family_attributes().is_empty());
    /// ```
    #[must_use]
    pub fn family_attributes(&self) -> &[String] {
        &self.family
    }

    /// Checks the numbers (θ, α, μ, the overlap).
    pub(crate) fn validate(&self) -> Result<(), Error> {
        ClusterOptions::new(self.theta)?.alpha(self.alpha)?;
        KlDivergence::new(&Background::new(), self.mu)?;
        if !(0.0..=1.0).contains(&self.must_overlap) {
            return Err(Error::Core(ndd_core::Error::invalid_parameter(
                "must_overlap",
                format!("must be in [0, 1], got {}", self.must_overlap),
            )));
        }
        Ok(())
    }

    /// The groups of `docs`, from `candidates` (document indices, every candidate the
    /// index proposed) and the exact-copy groups (`exact`, first copy first); with
    /// [`honour_threshold`](Self::honour_threshold), a member stays only when
    /// `verified` (document indices, among first copies, scored by the run's
    /// measure) pairs it with the kept document at `threshold` or above.
    pub(crate) fn run(
        &self,
        docs: &[Document],
        candidates: &[ScoredPair],
        exact: &[Vec<usize>],
        representative: &Representative,
        verified: &[ScoredPair],
        threshold: f64,
    ) -> Result<Vec<Group>, Error> {
        self.validate()?;
        let n = docs.len();
        // Word counts once per distinct text; the background counts every copy.
        let mut first = (0..n).collect::<Vec<usize>>();
        for g in exact {
            for &m in &g[1..] {
                first[m] = g[0];
            }
        }
        let words = WordShingler::new(1)?;
        let counts: Vec<Option<SparseVector>> = (0..n)
            .map(|d| (first[d] == d).then(|| words.counts(&docs[d].text)))
            .collect();
        let count_of = |d: usize| counts[first[d]].as_ref();
        let mut background = Background::new();
        for d in 0..n {
            if let Some(c) = count_of(d) {
                background.add(c);
            }
        }
        let kl = KlDivergence::new(&background, self.mu)?;
        let found = reference_copies(exact, self.min_copies, |d| (docs[d].order.clone(), d));
        let refs: Vec<usize> = found.iter().map(|r| r.document).collect();
        let copies_of: std::collections::HashMap<usize, usize> =
            found.iter().map(|r| (r.document, r.copies)).collect();
        // Candidates were found for the first copy of each exact group; a reference
        // copy stands in for its group instead (it seeds with them).
        let mut stand_in: Vec<usize> = (0..n).collect();
        for &r in &refs {
            stand_in[first[r]] = r;
        }
        let nb = Neighbours::from_pairs(
            n,
            candidates
                .iter()
                .map(|p| ScoredPair::new(stand_in[p.a], stand_in[p.b], p.score)),
        )?;

        let mut constraints = Constraints::new(n);
        // Exact copies and the must-links a user asserts: kept together whatever the
        // threshold (the user asked for it).
        let mut user_must = ndd_core::UnionFind::new(n);
        for g in exact {
            for &m in &g[1..] {
                user_must.union(g[0], m);
            }
        }
        for g in exact {
            constraints.must_group(g)?;
        }
        if !self.asserted.is_empty() {
            let index: std::collections::HashMap<&str, usize> = docs
                .iter()
                .enumerate()
                .map(|(i, d)| (d.id.as_str(), i))
                .collect();
            let find = |id: &str| {
                index.get(id).copied().ok_or_else(|| {
                    Error::Core(ndd_core::Error::invalid_input(format!(
                        "an asserted link names {id:?}, which is no document's id"
                    )))
                })
            };
            for (link, a, b) in &self.asserted {
                let (a, b) = (find(a)?, find(b)?);
                if a != b {
                    constraints.add(*link, a, b)?;
                    if *link == Link::Must {
                        user_must.union(a, b);
                    }
                }
            }
        }
        let ref_pairs: Vec<(usize, usize)> = refs
            .iter()
            .flat_map(|&r| nb.of(r).iter().map(move |&s| (r, s)))
            .collect();
        let tokens = TokenOptions::default();
        let mut ref_tokens = std::collections::HashMap::new();
        constraints.add_where(Link::Must, ref_pairs.iter().copied(), |r, s| {
            let reference = ref_tokens
                .entry(r)
                .or_insert_with(|| tokens.tokens(&docs[r].text));
            is_must_link(reference, &tokens.tokens(&docs[s].text), self.must_overlap)
        })?;
        let values =
            |name: &str| -> Vec<Option<&str>> { docs.iter().map(|d| d.attribute(name)).collect() };
        let all_pairs = (0..n).flat_map(|a| {
            nb.of(a)
                .iter()
                .filter(move |&&b| a < b)
                .map(move |&b| (a, b))
        });
        for name in &self.cannot {
            constraints.cannot_if_different(all_pairs.clone(), &values(name))?;
        }
        for name in &self.family {
            constraints.family_if_same(ref_pairs.iter().copied(), &values(name))?;
        }
        let (closure, _) = constraints.close_with(self.conflicts)?;
        let options = ClusterOptions::new(self.theta)?.alpha(self.alpha)?;
        let clustering = cluster(&refs, &nb, &closure, &options, |a, b| {
            match (count_of(a), count_of(b)) {
                (Some(x), Some(y)) => kl.distance(x, y),
                _ => f64::INFINITY,
            }
        })?;
        // The verified pairs at the threshold, between first copies.
        let similar: std::collections::HashSet<(usize, usize)> = if self.honour_threshold {
            verified
                .iter()
                .filter(|p| p.score >= threshold)
                .map(|p| {
                    let (a, b) = (first[p.a], first[p.b]);
                    (a.min(b), a.max(b))
                })
                .collect()
        } else {
            std::collections::HashSet::new()
        };
        let together = user_must.labels();
        let near = |m: usize, kept: usize| {
            let (a, b) = (first[m], first[kept]);
            !self.honour_threshold
                || together[m] == together[kept]
                || similar.contains(&(a.min(b), a.max(b)))
        };
        let mut groups = Vec::new();
        for (k, members) in clustering.groups().into_iter().enumerate() {
            if members.len() < 2 {
                continue;
            }
            let centroid = clustering.centroid(k);
            let (kept, copies) = match copies_of.get(&centroid) {
                Some(&copies) => (centroid, Some(copies)),
                None => (representative.pick(&members, docs)?, None),
            };
            // Members below the threshold to the kept document leave (and are kept).
            let members: Vec<usize> = members.into_iter().filter(|&m| near(m, kept)).collect();
            if members.len() < 2 {
                continue;
            }
            groups.push(Group {
                representative: kept,
                members,
                copies,
            });
        }
        groups.sort_by_key(|g| g.members[0]);
        Ok(groups)
    }
}

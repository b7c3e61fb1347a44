//! Instance-level constraints between documents and their transitive closure (Yang and
//! Callan 2006, Section 4.4).

use std::collections::HashSet;

use ndd_core::{Error, UnionFind};

/// A constraint between two documents (Yang and Callan 2006, Sections 4.4.1–4.4.3),
/// strongest first: the order is the precedence when two apply to the same pair.
///
/// # Example
///
/// ```
/// use near_dup::cluster::Link;
/// assert!(Link::Must < Link::Cannot && Link::Cannot < Link::Family);
/// assert_eq!("cannot".parse::<Link>()?, Link::Cannot);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Link {
    /// The two documents must be in the same group (one contains the other's
    /// paragraphs, or they share more than 95% of their words; or the user says so).
    Must,
    /// The two documents must be in different groups (for example they cite different
    /// docket identifiers).
    Cannot,
    /// The two documents are likely in the same group (same relay, same footer,
    /// similar size): their distance is lowered by the clustering's `alpha`.
    Family,
}

impl Link {
    /// `must`, `cannot` or `family`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::Link::Family.name(), "family");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Link::Must => "must",
            Link::Cannot => "cannot",
            Link::Family => "family",
        }
    }
}

impl std::fmt::Display for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Link {
    type Err = Error;

    /// Parses [`Link::name`], ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [Link::Must, Link::Cannot, Link::Family]
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                Error::invalid_input(format!("unknown link `{s}` (must, cannot, family)"))
            })
    }
}

/// A link between two documents as given to [`Constraints::add`]: `(link, a, b)`.
///
/// # Example
///
/// ```
/// use near_dup::cluster::{Constraints, Link, LinkPair};
/// let mut c = Constraints::new(2);
/// c.add(Link::Cannot, 0, 1)?;
/// let given: &[LinkPair] = c.links();
/// assert_eq!(given, &[(Link::Cannot, 0, 1)]);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub type LinkPair = (Link, usize, usize);

/// The most closed cannot-link pairs (between must-linked classes) a closure may hold:
/// 2^22, about 128 MiB. A closure that would need more is refused
/// ([`Constraints::close`]).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::cluster::MAX_CLOSED_CANNOT, 4_194_304);
/// ```
pub const MAX_CLOSED_CANNOT: usize = 1 << 22;

/// Constraints given between documents `0..n`: the pairs a user or a rule asserts,
/// before the closure.
///
/// # Example
///
/// ```
/// use near_dup::cluster::{Constraints, Link};
/// // a ←must→ b, a ←cannot→ c: b cannot be with c either.
/// let mut c = Constraints::new(3);
/// c.add(Link::Must, 0, 1)?;
/// c.add(Link::Cannot, 0, 2)?;
/// let closed = c.close()?;
/// assert_eq!(closed.link(1, 2), Some(Link::Cannot));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Constraints {
    n: usize,
    links: Vec<LinkPair>,
}

impl Constraints {
    /// No constraints between `n` documents.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::cluster::Constraints::new(10).is_empty());
    /// ```
    #[must_use]
    pub fn new(n: usize) -> Self {
        Constraints {
            n,
            links: Vec::new(),
        }
    }

    /// How many documents the constraints are between.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::Constraints::new(10).num_documents(), 10);
    /// ```
    #[must_use]
    pub fn num_documents(&self) -> usize {
        self.n
    }

    /// How many links were added (repeats included).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Family, 0, 2)?;
    /// assert_eq!(c.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether no link was added.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::cluster::Constraints::new(3).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The links added, in order, as `(link, a, b)`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Must, 2, 1)?;
    /// assert_eq!(c.links(), &[(Link::Must, 2, 1)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn links(&self) -> &[LinkPair] {
        &self.links
    }

    /// Asserts `link` between documents `a` and `b` (symmetric).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `a` or `b` is not below
    /// [`num_documents`](Self::num_documents), or `a == b`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// assert!(c.add(Link::Must, 0, 3).is_err());
    /// assert!(c.add(Link::Cannot, 1, 1).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn add(&mut self, link: Link, a: usize, b: usize) -> Result<&mut Self, Error> {
        self.check(link, a, b)?;
        self.links.push((link, a, b));
        Ok(self)
    }

    /// The error [`add`](Self::add) gives for a pair, if any.
    pub(crate) fn check(&self, link: Link, a: usize, b: usize) -> Result<(), Error> {
        if a >= self.n || b >= self.n {
            return Err(Error::invalid_input(format!(
                "{link}-link ({a}, {b}) names a document outside 0..{}",
                self.n
            )));
        }
        if a == b {
            return Err(Error::invalid_input(format!(
                "{link}-link ({a}, {b}) links a document to itself"
            )));
        }
        Ok(())
    }

    /// Must-links every document of `group` to its first (for example a group of exact
    /// copies from the exact-duplicate pass). A group of fewer than two documents adds
    /// nothing.
    ///
    /// # Errors
    ///
    /// As [`add`](Self::add), for a document out of range or repeated.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(4);
    /// c.must_group(&[3, 0, 2])?;
    /// assert_eq!(c.close()?.link(0, 2), Some(Link::Must));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn must_group(&mut self, group: &[usize]) -> Result<&mut Self, Error> {
        if let Some((&first, rest)) = group.split_first() {
            for &d in rest {
                self.add(Link::Must, first, d)?;
            }
        }
        Ok(self)
    }

    /// The transitive closure of Section 4.4.4, with a stated precedence.
    ///
    /// The paper's rules, for any documents `a`, `b`, `c`:
    ///
    /// 1. `a =m b, b =m c ⇒ a =m c`;
    /// 2. `a =c b, b =m c ⇒ a =c c`;
    /// 3. `a =f b, b =m c ⇒ a =f c`;
    /// 4. `a =f b, b =c c ⇒ a =c c` (a family-link meeting a cannot-link);
    /// 5. `a =f b, b =f c ⇒ a =f c`.
    ///
    /// Applied literally together they contradict themselves on consistent input
    /// (`a =m b`, `b =f c`, `c =c a` gives `b =c a` by rule 4 beside `a =m b`), so the
    /// closure follows the paper's remark that "once a cannot-link is assigned, some
    /// previous family-links are removed and changed to cannot-link since cannot-link
    /// is a stronger condition", with must stronger still:
    ///
    /// * must-links close first (rule 1: classes of must-linked documents);
    /// * a given cannot-link inside a must class is a conflict (an error);
    /// * then, in rounds, until no cannot-link is added: family-links close over
    ///   must-links and family-links (rules 3 and 5) starting from the given
    ///   family-links that are not cannot-linked at the start of the round; then
    ///   cannot-links close over must-links (rule 2) and over the family-links of the
    ///   round that are not cannot-linked at its start (rule 4), never between two
    ///   must-linked documents (one round turns out to suffice);
    /// * a pair's link is the strongest that holds: [`Link::Must`], then
    ///   [`Link::Cannot`], then [`Link::Family`].
    ///
    /// Cost: O(l + n) for l links between n documents, plus O(p·s) for p closed
    /// cannot-linked pairs of must classes and family groups of at most s classes.
    /// Memory: O(n + l + p).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a cannot-link joins two must-linked documents (the
    /// message names them), or when the closure would hold more than
    /// [`MAX_CLOSED_CANNOT`] cannot-linked pairs of must classes.
    ///
    /// # Example
    ///
    /// The shape of Figure 2 of the paper: letters `a` and `b` with two copies each,
    /// one copy family-linked to its letter (a shared relay), a cannot-link between
    /// the two letters and a must-link from each letter to its other copy.
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let (a, a1, a2, b, b1, b2) = (0, 1, 2, 3, 4, 5);
    /// let mut c = Constraints::new(6);
    /// c.add(Link::Family, a, a2)?.add(Link::Family, b, b2)?;
    /// c.add(Link::Cannot, a, b)?.add(Link::Must, a, a1)?.add(Link::Must, b, b1)?;
    /// let closed = c.close()?;
    /// assert_eq!(closed.link(a1, b1), Some(Link::Cannot)); // rule 2, twice
    /// assert_eq!(closed.link(a2, b1), Some(Link::Cannot)); // rule 4, then rule 2
    /// assert_eq!(closed.link(a2, b2), Some(Link::Cannot)); // rule 4, from both sides
    /// assert_eq!(closed.link(a1, a2), Some(Link::Family)); // rule 3
    /// assert_eq!(closed.link(b, b1), Some(Link::Must));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    ///
    /// As the rules say, a family group (documents joined by family-links) that holds
    /// a cannot-link inside it ends with every pair of its documents cannot-linked, so
    /// family-links across different letters (a relay two campaigns share) undo each
    /// other; family-links from an attribute that a cannot-link also reads (the same
    /// docket, against different dockets) never cross a cannot-link.
    pub fn close(&self) -> Result<Closure, Error> {
        Ok(self.close_with(Conflicts::Refuse)?.0)
    }

    /// [`close`](Self::close), resolving a given cannot-link between two documents
    /// that the must-links put in one class by `policy`, and returning the links it
    /// dropped (in the order given).
    ///
    /// * [`Conflicts::Refuse`]: an error, as [`close`](Self::close).
    /// * [`Conflicts::DropCannot`]: must is stronger; the cannot-link is dropped (an
    ///   exact copy of a form letter that cites the wrong docket stays with it).
    /// * [`Conflicts::DropMust`]: must-links are taken in the order given, and one that
    ///   would join two classes with a given cannot-link between them is dropped (the
    ///   same letter sent on two dockets stays two campaigns).
    ///
    /// Cost: as [`close`](Self::close), plus O(l log l) for [`Conflicts::DropMust`].
    ///
    /// # Errors
    ///
    /// As [`close`](Self::close) (the conflict error only with
    /// [`Conflicts::Refuse`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Conflicts, Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Must, 0, 1)?.add(Link::Must, 1, 2)?.add(Link::Cannot, 2, 0)?;
    /// assert!(c.close().is_err());
    /// let (closed, dropped) = c.close_with(Conflicts::DropCannot)?;
    /// assert_eq!(dropped, vec![(Link::Cannot, 2, 0)]);
    /// assert_eq!(closed.link(0, 2), Some(Link::Must));
    /// let (closed, dropped) = c.close_with(Conflicts::DropMust)?;
    /// assert_eq!(dropped, vec![(Link::Must, 1, 2)]);
    /// assert_eq!(closed.link(0, 2), Some(Link::Cannot));
    /// assert_eq!(closed.link(1, 2), Some(Link::Cannot)); // rule 2
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn close_with(&self, policy: Conflicts) -> Result<(Closure, Vec<LinkPair>), Error> {
        let n = self.n;
        let mut dropped = Vec::new();
        let mut uf = UnionFind::try_new(n)?;
        if policy == Conflicts::DropMust {
            // Each class's given cannot-link partners (documents), merged small into
            // large as classes join.
            let mut partners: Vec<Vec<usize>> = vec![Vec::new(); n];
            for &(link, a, b) in &self.links {
                if link == Link::Cannot {
                    partners[a].push(b);
                    partners[b].push(a);
                }
            }
            for &(link, a, b) in &self.links {
                if link != Link::Must {
                    continue;
                }
                let (ra, rb) = (uf.find(a), uf.find(b));
                if ra == rb {
                    continue;
                }
                let (small, other) = if partners[ra].len() <= partners[rb].len() {
                    (ra, rb)
                } else {
                    (rb, ra)
                };
                let list = std::mem::take(&mut partners[small]);
                if list.iter().any(|&p| uf.find(p) == other) {
                    partners[small] = list;
                    dropped.push((link, a, b));
                    continue;
                }
                uf.union(a, b);
                let root = uf.find(a);
                let mut merged = std::mem::take(&mut partners[other]);
                merged.extend(list);
                partners[root] = merged;
            }
        } else {
            for &(link, a, b) in &self.links {
                if link == Link::Must {
                    uf.union(a, b);
                }
            }
        }
        // Dense class ids in the order of each class's first document.
        let roots: Vec<usize> = (0..n).map(|d| uf.find(d)).collect();
        let mut class_of_root = vec![usize::MAX; n];
        let mut class = vec![0usize; n];
        let mut members: Vec<Vec<usize>> = Vec::new();
        for d in 0..n {
            let r = roots[d];
            if class_of_root[r] == usize::MAX {
                class_of_root[r] = members.len();
                members.push(Vec::new());
            }
            class[d] = class_of_root[r];
            members[class[d]].push(d);
        }
        let classes = members.len();

        let mut cannot: HashSet<(usize, usize), ahash::RandomState> = HashSet::default();
        let mut family_edges: Vec<(usize, usize)> = Vec::new();
        for &(link, a, b) in &self.links {
            let (x, y) = (class[a], class[b]);
            match link {
                Link::Must => {}
                Link::Cannot if x == y => {
                    if policy == Conflicts::Refuse {
                        return Err(Error::invalid_input(format!(
                            "documents {a} and {b} are cannot-linked but must-linked through their must-links"
                        )));
                    }
                    dropped.push((link, a, b));
                }
                Link::Cannot => {
                    cannot.insert(ordered(x, y));
                }
                Link::Family if x != y => family_edges.push(ordered(x, y)),
                Link::Family => {}
            }
        }
        family_edges.sort_unstable();
        family_edges.dedup();

        // Family groups: classes joined by the given family-links that are not
        // cannot-linked (rules 3 and 5).
        let given = cannot.clone();
        let mut groups = UnionFind::try_new(classes)?;
        for &(x, y) in &family_edges {
            if !given.contains(&(x, y)) {
                groups.union(x, y);
            }
        }
        let group = groups.labels();
        let mut group_members: Vec<Vec<usize>> = vec![Vec::new(); classes];
        for (x, &g) in group.iter().enumerate() {
            group_members[g].push(x);
        }
        // Rule 4 to a fixpoint: x =f y (same group), y =c z ⇒ x =c z. Rule 2 holds
        // by working on classes. (Skipping the x whose link to y is itself a
        // cannot-link, as the rule's family premise asks, changes nothing: such an x
        // gets the same links through the rest of the group.)
        //
        // One round is the whole closure: a family-link that rule 4 turns into a
        // cannot-link joins two classes of one group, and a cannot-link inside a group
        // spreads to every pair of the group, so the groups of a next round (without
        // that link) would add nothing. The brute-force test runs the rounds.
        let mut work: Vec<(usize, usize)> = given.iter().copied().collect();
        work.sort_unstable();
        while let Some((y, z)) = work.pop() {
            for (from, to) in [(y, z), (z, y)] {
                for &x in &group_members[group[from]] {
                    if x == from || x == to {
                        continue;
                    }
                    if cannot.insert(ordered(x, to)) {
                        if cannot.len() > MAX_CLOSED_CANNOT {
                            return Err(Error::invalid_input(format!(
                                "the constraints' closure holds more than {MAX_CLOSED_CANNOT} cannot-linked pairs"
                            )));
                        }
                        work.push(ordered(x, to));
                    }
                }
            }
        }
        let mut cannot_of: Vec<Vec<usize>> = vec![Vec::new(); classes];
        for &(x, y) in &cannot {
            cannot_of[x].push(y);
            cannot_of[y].push(x);
        }
        for v in &mut cannot_of {
            v.sort_unstable();
        }
        let closure = Closure {
            class,
            members,
            cannot_of,
            family: group,
        };
        Ok((closure, dropped))
    }
}

/// What [`Constraints::close_with`] does with a given cannot-link between two
/// documents the must-links join.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::cluster::Conflicts::default(), near_dup::cluster::Conflicts::Refuse);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Conflicts {
    /// Return an error naming the two documents.
    #[default]
    Refuse,
    /// Drop the cannot-link (must is the stronger condition).
    DropCannot,
    /// Drop the must-link that would join the two (taken in the order given).
    DropMust,
}

fn ordered(x: usize, y: usize) -> (usize, usize) {
    if x <= y { (x, y) } else { (y, x) }
}

/// Closed constraints: must classes, the cannot-links between them and the family
/// groups, answering [`link`](Self::link) for any pair in O(log d), d the cannot-links
/// of a class. Made by [`Constraints::close`], or [`Closure::none`] for none at all.
///
/// # Example
///
/// ```
/// use near_dup::cluster::{Closure, Constraints, Link};
/// let mut c = Constraints::new(4);
/// c.add(Link::Family, 0, 1)?.add(Link::Family, 1, 2)?;
/// let closed = c.close()?;
/// assert_eq!(closed.link(0, 2), Some(Link::Family)); // rule 5
/// assert_eq!(closed.link(0, 3), None);
/// assert_eq!(Closure::none(4).link(0, 1), None);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Closure {
    class: Vec<usize>,
    members: Vec<Vec<usize>>,
    /// Each class's cannot-linked classes, sorted (both directions of each pair).
    cannot_of: Vec<Vec<usize>>,
    family: Vec<usize>,
}

impl Closure {
    /// No constraints between `n` documents (the unsupervised baseline).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::Closure::none(2).num_classes(), 2);
    /// ```
    #[must_use]
    pub fn none(n: usize) -> Self {
        Closure {
            class: (0..n).collect(),
            members: (0..n).map(|d| vec![d]).collect(),
            cannot_of: vec![Vec::new(); n],
            family: (0..n).collect(),
        }
    }

    /// How many documents the closure is over.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::Closure::none(5).num_documents(), 5);
    /// ```
    #[must_use]
    pub fn num_documents(&self) -> usize {
        self.class.len()
    }

    /// The strongest link between `a` and `b` after the closure, `None` when none
    /// holds, when `a == b`, or when either is out of range.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Must, 0, 1)?.add(Link::Must, 1, 2)?;
    /// assert_eq!(c.close()?.link(0, 2), Some(Link::Must)); // rule 1
    /// assert_eq!(c.close()?.link(0, 9), None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn link(&self, a: usize, b: usize) -> Option<Link> {
        if a == b || a >= self.class.len() || b >= self.class.len() {
            return None;
        }
        let (x, y) = (self.class[a], self.class[b]);
        if x == y {
            Some(Link::Must)
        } else if self.cannot_of[x].binary_search(&y).is_ok() {
            Some(Link::Cannot)
        } else if self.family[x] == self.family[y] {
            Some(Link::Family)
        } else {
            None
        }
    }

    /// How many must classes there are (documents joined by must-links count once).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Must, 0, 2)?;
    /// assert_eq!(c.close()?.num_classes(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_classes(&self) -> usize {
        self.members.len()
    }

    /// The must class of document `d` (dense, numbered by each class's first
    /// document). Out of range panics.
    ///
    /// # Panics
    ///
    /// When `d` is not below [`num_documents`](Self::num_documents).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Must, 0, 2)?;
    /// let closed = c.close()?;
    /// assert_eq!(closed.class_of(2), closed.class_of(0));
    /// assert_eq!(closed.class_of(1), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn class_of(&self, d: usize) -> usize {
        self.class[d]
    }

    /// The documents of must class `class`, in increasing order.
    ///
    /// # Panics
    ///
    /// When `class` is not below [`num_classes`](Self::num_classes).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Must, 2, 0)?;
    /// assert_eq!(c.close()?.members(0), &[0, 2]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn members(&self, class: usize) -> &[usize] {
        &self.members[class]
    }

    /// The must classes cannot-linked to class `class`, in increasing order.
    ///
    /// # Panics
    ///
    /// When `class` is not below [`num_classes`](Self::num_classes).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(3);
    /// c.add(Link::Cannot, 0, 2)?;
    /// let closed = c.close()?;
    /// assert_eq!(closed.cannot_classes(closed.class_of(0)), &[closed.class_of(2)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn cannot_classes(&self, class: usize) -> &[usize] {
        &self.cannot_of[class]
    }

    /// How many pairs of must classes are cannot-linked after the closure.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let mut c = Constraints::new(4);
    /// c.add(Link::Must, 0, 1)?.add(Link::Cannot, 1, 2)?;
    /// assert_eq!(c.close()?.num_cannot_pairs(), 1); // {0, 1} against {2}
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_cannot_pairs(&self) -> usize {
        self.cannot_of.iter().map(Vec::len).sum::<usize>() / 2
    }
}

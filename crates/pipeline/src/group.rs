//! Stage 4: pairs to groups (connected components, center or linkage grouping), each
//! with a representative.

use std::sync::Arc;

use ndd_core::{Error, ScoredPair, UnionFind};

use crate::Document;
use crate::linkage::Linkage;

/// A user's choice of representative: given a group's members (in input order),
/// the position of the one to keep.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Document, RepresentativeFn};
/// let last: RepresentativeFn = std::sync::Arc::new(|group: &[&Document]| group.len() - 1);
/// assert_eq!(last(&[&Document::new("a", ""), &Document::new("b", "")]), 1);
/// ```
pub type RepresentativeFn = Arc<dyn Fn(&[&Document]) -> usize + Send + Sync>;

/// Which document of a group is kept (the others are dropped as its near-duplicates).
///
/// Every policy breaks ties by input order, so the choice is deterministic whatever
/// the thread count.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Representative;
/// assert_eq!(Representative::default(), Representative::FirstSeen);
/// assert_eq!("longest".parse::<Representative>()?, Representative::Longest);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, Default)]
pub enum Representative {
    /// The member that came first in the input (the default: the earliest copy in
    /// a chronological corpus).
    #[default]
    FirstSeen,
    /// The member with the smallest id (byte-wise string order).
    SmallestId,
    /// The member with the longest text (the most complete copy).
    Longest,
    /// The member with the smallest [`OrderKey`](crate::OrderKey) (a timestamp field:
    /// the earliest copy, the reference copy of Yang and Callan (SIGIR 2006)); members without one come
    /// after those with one.
    Order,
    /// A user function.
    Custom(RepresentativeFn),
}

impl PartialEq for Representative {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Representative::Custom(a), Representative::Custom(b)) => Arc::ptr_eq(a, b),
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}

impl std::fmt::Debug for Representative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Representative {
    /// `first`, `smallest-id`, `longest`, `order` or `custom`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Representative::Order.name(), "order");
    /// ```
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Representative::FirstSeen => "first",
            Representative::SmallestId => "smallest-id",
            Representative::Longest => "longest",
            Representative::Order => "order",
            Representative::Custom(_) => "custom",
        }
    }

    /// How a built-in policy ranks documents `a` and `b` (`Less`: `a` is preferred),
    /// ties broken by input order; `None` for [`Custom`](Representative::Custom),
    /// which chooses within a group and ranks nothing.
    fn rank(&self, a: usize, b: usize, docs: &[Document]) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering;
        let by = match self {
            Representative::FirstSeen => Ordering::Equal,
            Representative::SmallestId => docs[a].id.cmp(&docs[b].id),
            Representative::Longest => docs[b].text.len().cmp(&docs[a].text.len()),
            Representative::Order => match (&docs[a].order, &docs[b].order) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            Representative::Custom(_) => return None,
        };
        Some(by.then(a.cmp(&b)))
    }

    /// The representative of `members` (document indices in increasing order).
    pub(crate) fn pick(&self, members: &[usize], docs: &[Document]) -> Result<usize, Error> {
        let first = members[0];
        Ok(match self {
            Representative::FirstSeen
            | Representative::SmallestId
            | Representative::Longest
            | Representative::Order => *members
                .iter()
                .min_by(|&&a, &&b| self.rank(a, b, docs).unwrap_or(std::cmp::Ordering::Equal))
                .unwrap_or(&first),
            Representative::Custom(f) => {
                let view: Vec<&Document> = members.iter().map(|&i| &docs[i]).collect();
                let pos = f(&view);
                *members.get(pos).ok_or_else(|| {
                    Error::invalid_input(format!(
                        "the representative function returned position {pos} for a group of {}",
                        members.len()
                    ))
                })?
            }
        })
    }
}

impl std::str::FromStr for Representative {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "first" | "first-seen" => Ok(Representative::FirstSeen),
            "smallest-id" => Ok(Representative::SmallestId),
            "longest" => Ok(Representative::Longest),
            "order" => Ok(Representative::Order),
            other => Err(Error::invalid_parameter(
                "representative",
                format!("must be first, smallest-id, longest or order, got {other:?}"),
            )),
        }
    }
}

/// A group of near-duplicates: two or more documents connected by pairs (or placed
/// together by [`GroupMethod::Durian`]).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Dedup;
/// let out = Dedup::new().run_texts(&["x y z w", "q", "X y z w"])?;
/// let g = &out.groups[0];
/// assert_eq!((g.representative, g.members.clone()), (0, vec![0, 2]));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The document kept (an index into the input).
    pub representative: usize,
    /// Every member, the representative included, in increasing order.
    pub members: Vec<usize>,
    /// When the representative is a form letter's reference copy
    /// ([`GroupMethod::Durian`]): how many exact copies of it the corpus holds, itself
    /// included. `None` otherwise.
    pub copies: Option<usize>,
}

/// How verified pairs become groups.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{DurianGrouping, GroupMethod, Linkage};
/// assert_eq!(GroupMethod::default(), GroupMethod::Components);
/// assert_eq!("durian".parse::<GroupMethod>()?, GroupMethod::Durian(DurianGrouping::new()));
/// assert_eq!("center".parse::<GroupMethod>()?, GroupMethod::Center);
/// assert_eq!("linkage".parse::<GroupMethod>()?, GroupMethod::Linkage(Linkage::new()));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub enum GroupMethod {
    /// Connected components of the verified pairs ([`Grouping`]): single link, a
    /// chain of pairs makes one group. Cost near-linear in documents and pairs.
    #[default]
    Components,
    /// DURIAN's constrained clustering over every candidate pair ([`DurianGrouping`](crate::DurianGrouping)):
    /// reference copies seed first, a document joins the nearest seed under a
    /// KL-divergence threshold, constraints from attributes are honoured; no chains.
    /// The verified pairs are still reported; a member whose verified similarity to
    /// the kept document does not reach the threshold leaves its group
    /// ([`DurianGrouping::honour_threshold`](crate::DurianGrouping::honour_threshold)).
    Durian(crate::DurianGrouping),
    /// Center grouping of the verified pairs ([`Grouping::center`]): the document
    /// paired with the most others is kept, and its partners are grouped with it;
    /// then the next, among documents not yet placed. Never chains: every member is
    /// paired with (verified similar to) the document kept for its group. Cost
    /// near-linear in documents and pairs.
    Center,
    /// Linkage grouping of the verified pairs ([`Linkage`], [`Grouping::linkage`]):
    /// connected components of the pairs at least as similar as a chaining floor
    /// (0.9), then average linkage over the weaker pairs (two groups merge when their
    /// verified pairs are at least 1/8 of their cross pairs). Equal to components at
    /// thresholds at or above the floor; below it, weak chains are broken. Cost
    /// O(pairs log pairs).
    Linkage(Linkage),
}

impl GroupMethod {
    /// `components`, `durian`, `center` or `linkage`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::GroupMethod::Components.name(), "components");
    /// assert_eq!(near_dup::pipeline::GroupMethod::Center.name(), "center");
    /// ```
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            GroupMethod::Components => "components",
            GroupMethod::Durian(_) => "durian",
            GroupMethod::Center => "center",
            GroupMethod::Linkage(_) => "linkage",
        }
    }
}

impl std::str::FromStr for GroupMethod {
    type Err = Error;

    /// `components`, `center`, `durian` with [`DurianGrouping`](crate::DurianGrouping)'s
    /// defaults, or `linkage` with [`Linkage`]'s defaults.
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "components" => Ok(GroupMethod::Components),
            "durian" => Ok(GroupMethod::Durian(crate::DurianGrouping::new())),
            "center" => Ok(GroupMethod::Center),
            "linkage" => Ok(GroupMethod::Linkage(Linkage::new())),
            other => Err(Error::invalid_parameter(
                "group",
                format!("must be components, center, linkage or durian, got {other:?}"),
            )),
        }
    }
}

/// Turns pairs into groups: connected components of the pair graph (single link:
/// documents connected through a chain of pairs share a group), each with a
/// representative chosen by a [`Representative`] policy.
///
/// When to use it: after verification, when "near-duplicate of a near-duplicate"
/// should count as one family. Cost: near-linear in documents plus pairs.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// use near_dup::pipeline::{Document, Grouping, Representative};
/// let docs: Vec<Document> = ["short", "the longest text", "mid text", "alone"]
///     .iter().enumerate().map(|(i, t)| Document::new(i.to_string(), *t)).collect();
/// let pairs = [ScoredPair::new(0, 1, 0.9), ScoredPair::new(1, 2, 0.85)];
/// let groups = Grouping::new(Representative::Longest).run(&docs, &pairs)?;
/// assert_eq!(groups.len(), 1);
/// assert_eq!(groups[0].members, vec![0, 1, 2]);
/// assert_eq!(groups[0].representative, 1);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Grouping {
    representative: Representative,
    rule: Rule,
}

/// Which rule a [`Grouping`] follows.
#[derive(Debug, Clone, Copy, Default)]
enum Rule {
    /// Connected components.
    #[default]
    Components,
    /// Center grouping.
    Center,
    /// Linkage grouping.
    Linkage(Linkage),
}

impl Grouping {
    /// Grouping with a representative policy.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Grouping, Representative};
    /// let g = Grouping::new(Representative::SmallestId);
    /// assert!(g.run(&[], &[])?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new(representative: Representative) -> Self {
        Grouping {
            representative,
            rule: Rule::Components,
        }
    }

    /// Center grouping instead of connected components ([`GroupMethod::Center`]): a
    /// grouping that never chains.
    ///
    /// The rule: documents are taken by how many documents they are paired with, most
    /// first, ties in the order the `representative` policy ranks them (input order
    /// for [`FirstSeen`](Representative::FirstSeen); the smallest id, the longest text
    /// or the earliest [`OrderKey`](crate::OrderKey) first, then input order). A
    /// document paired with one or more earlier *centers* joins the group of the
    /// earliest of them; otherwise it is a center itself. The center is the document
    /// kept, so every member is paired with the document kept for its group: with
    /// verified pairs, no document is dropped for a kept one it is less similar to
    /// than the threshold. A document paired only with members of other groups stays
    /// alone (kept), however long the chain. Exact copies (in the pipeline) move as
    /// one, the policy's choice among them kept.
    ///
    /// It is the leader clustering of Hartigan (*Clustering Algorithms*, Wiley, 1975)
    /// taken in the order of star clustering's greedy cover (Aslam,
    /// Pelekhov and Rus, "The star clustering algorithm for static and dynamic
    /// information organization", *Journal of Graph Algorithms and Applications*
    /// 8(1), 2004: centers by degree). Taken in the policy's order alone,
    /// without the degree, it measured lower cluster F1 at most thresholds on real
    /// labels: `docs/decisions.md` ("Grouping on real labels") has both against
    /// components and DURIAN.
    ///
    /// Cost: O((n + pairs) log(n + pairs)) to sort the documents and pairs; memory
    /// O(n + pairs).
    ///
    /// A [`Custom`](Representative::Custom) policy ranks no documents: running with
    /// it is an error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::pipeline::{Document, Grouping, Representative};
    /// let docs: Vec<Document> = (0..5).map(|i| Document::new(i.to_string(), "t")).collect();
    /// // A chain 0-1-2-3-4: components make one group, center grouping never chains.
    /// let chain: Vec<ScoredPair> = (0..4).map(|i| ScoredPair::new(i, i + 1, 0.9)).collect();
    /// assert_eq!(Grouping::default().run(&docs, &chain)?[0].members, vec![0, 1, 2, 3, 4]);
    /// let groups = Grouping::center(Representative::FirstSeen).run(&docs, &chain)?;
    /// // 1, 2 and 3 have two partners each; 1 comes first and takes 0 and 2, then 3 takes 4.
    /// assert_eq!(groups.len(), 2);
    /// assert_eq!((groups[0].representative, groups[0].members.clone()), (1, vec![0, 1, 2]));
    /// assert_eq!((groups[1].representative, groups[1].members.clone()), (3, vec![3, 4]));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn center(representative: Representative) -> Self {
        Grouping {
            representative,
            rule: Rule::Center,
        }
    }

    /// Linkage grouping instead of connected components ([`GroupMethod::Linkage`]):
    /// single link through the pairs at or above `linkage`'s chaining floor, average
    /// linkage through the weaker ones ([`Linkage`] has the rule). Each group keeps the
    /// member the `representative` policy chooses.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::pipeline::{Document, Grouping, Linkage, Representative};
    /// let docs: Vec<Document> = (0..4).map(|i| Document::new(i.to_string(), "t")).collect();
    /// // A chain 0-1-2-3 of pairs under the floor 0.9, walked in input order: 0-1 join;
    /// // {0, 1} and 2 share 1 of 2 pairs, under the fraction 0.6; 2-3 join.
    /// let chain: Vec<ScoredPair> = (0..3).map(|i| ScoredPair::new(i, i + 1, 0.8)).collect();
    /// let g = Grouping::linkage(Representative::FirstSeen, Linkage::new().fraction(0.6));
    /// let groups = g.run(&docs, &chain)?;
    /// assert_eq!(groups.len(), 2);
    /// assert_eq!((groups[0].members.clone(), groups[1].members.clone()), (vec![0, 1], vec![2, 3]));
    /// // With the default fraction 1/8, the chain is one group.
    /// let g = Grouping::linkage(Representative::FirstSeen, Linkage::new());
    /// assert_eq!(g.run(&docs, &chain)?[0].members, vec![0, 1, 2, 3]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn linkage(representative: Representative, linkage: Linkage) -> Self {
        Grouping {
            representative,
            rule: Rule::Linkage(linkage),
        }
    }

    /// The groups of two or more documents, ordered by their smallest member.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a pair names a document outside `docs`, or a
    /// custom representative function returns a position outside its group;
    /// [`Error::InvalidParameter`] for [`center`](Self::center) grouping with a
    /// custom representative function, or [`linkage`](Self::linkage) grouping with a
    /// chaining floor or link fraction outside `(0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// use near_dup::pipeline::{Document, Grouping};
    /// let docs: Vec<Document> = (0..4).map(|i| Document::new(i.to_string(), "t")).collect();
    /// let groups = Grouping::default().run(&docs, &[ScoredPair::new(3, 1, 0.9)])?;
    /// assert_eq!(groups[0].members, vec![1, 3]);
    /// assert!(Grouping::default().run(&docs, &[ScoredPair::new(0, 4, 0.9)]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn run(&self, docs: &[Document], pairs: &[ScoredPair]) -> Result<Vec<Group>, Error> {
        check_pairs(docs.len(), pairs)?;
        match self.rule {
            Rule::Components => components_of(docs.len(), pairs, |members| {
                self.representative.pick(members, docs)
            }),
            Rule::Center | Rule::Linkage(_) => {
                let first: Vec<usize> = (0..docs.len()).collect();
                self.run_with_copies(docs, pairs, &first)
            }
        }
    }

    /// As [`run`](Self::run), for pairs found among first copies: `first[d]` is the
    /// first exact copy of document `d` (`d` itself when it has none), and a copy is
    /// as similar to every document as its first copy is. Components read the
    /// copies' pairs to their first copy; center and linkage grouping place each set
    /// of exact copies as one, so that a copy follows its first copy into a group.
    pub(crate) fn run_with_copies(
        &self,
        docs: &[Document],
        pairs: &[ScoredPair],
        first: &[usize],
    ) -> Result<Vec<Group>, Error> {
        check_pairs(docs.len(), pairs)?;
        match self.rule {
            Rule::Components => self.run(docs, pairs),
            Rule::Center => center_groups(docs, pairs, first, &self.representative),
            Rule::Linkage(linkage) => {
                let mut uf = linkage.link(docs.len(), pairs, first)?;
                groups_of(&mut uf, |members| self.representative.pick(members, docs))
            }
        }
    }
}

/// `Ok` when every pair names documents below `n`.
fn check_pairs(n: usize, pairs: &[ScoredPair]) -> Result<(), Error> {
    match pairs.iter().find(|p| p.a >= n || p.b >= n) {
        Some(p) => Err(Error::invalid_input(format!(
            "pair ({}, {}) names a document outside the {n} given",
            p.a, p.b
        ))),
        None => Ok(()),
    }
}

/// Center grouping ([`Grouping::center`]) of `docs` by `pairs` (in range), with the
/// exact copies of `first` placed as one: a set of copies is paired with what its
/// first copy is paired with, ranks as its best-ranked member under `policy`, and that
/// member is kept when the set is a center.
fn center_groups(
    docs: &[Document],
    pairs: &[ScoredPair],
    first: &[usize],
    policy: &Representative,
) -> Result<Vec<Group>, Error> {
    use std::cmp::Ordering;
    let n = docs.len();
    if matches!(policy, Representative::Custom(_)) {
        return Err(Error::invalid_parameter(
            "representative",
            "center grouping ranks documents by first, smallest-id, longest or order; \
             a custom function chooses within a group and ranks none",
        ));
    }
    let rank = |a: usize, b: usize| policy.rank(a, b, docs).unwrap_or(Ordering::Equal);
    // Each set of copies by its first copy; `head[c]` its best-ranked member.
    let mut head: Vec<usize> = (0..n).collect();
    for (d, &c) in first.iter().enumerate() {
        if rank(d, head[c]) == Ordering::Less {
            head[c] = d;
        }
    }
    // The pairs between sets of copies, as adjacency lists (CSR); duplicates of a
    // pair count once.
    let mut edges: Vec<(usize, usize)> = pairs
        .iter()
        .map(|p| (first[p.a], first[p.b]))
        .filter(|(x, y)| x != y)
        .flat_map(|(x, y)| [(x, y), (y, x)])
        .collect();
    edges.sort_unstable();
    edges.dedup();
    let mut start = vec![0usize; n + 1];
    for &(x, _) in &edges {
        start[x + 1] += 1;
    }
    let mut total = 0;
    for s in &mut start {
        total += *s;
        *s = total;
    }
    let partners = |c: usize| edges[start[c]..start[c + 1]].iter().map(|e| e.1);
    let degree = |c: usize| start[c + 1] - start[c];
    // Most partners first, ties by the policy.
    let mut order: Vec<usize> = (0..n).filter(|&d| first[d] == d).collect();
    order.sort_by(|&x, &y| degree(y).cmp(&degree(x)).then(rank(head[x], head[y])));
    let mut position = vec![usize::MAX; n];
    for (i, &c) in order.iter().enumerate() {
        position[c] = i;
    }
    // Each set joins the earliest center it is paired with, else is a center.
    let mut center_of = vec![usize::MAX; n];
    for &c in &order {
        let earliest = partners(c)
            .filter(|&e| position[e] < position[c] && center_of[e] == e)
            .min_by_key(|&e| position[e]);
        center_of[c] = earliest.unwrap_or(c);
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (d, &c) in first.iter().enumerate() {
        members[center_of[c]].push(d);
    }
    let mut groups: Vec<Group> = members
        .into_iter()
        .enumerate()
        .filter(|(_, m)| m.len() > 1)
        .map(|(center, members)| Group {
            representative: head[center],
            members,
            copies: None,
        })
        .collect();
    groups.sort_by_key(|g| g.members[0]);
    Ok(groups)
}

/// The groups of more than one member of `uf`, each kept as `pick` chooses: the
/// grouping stage of every engine (in memory over one run's documents, a saved index
/// over every document it has seen).
pub(crate) fn groups_of(
    uf: &mut UnionFind,
    pick: impl FnMut(&[usize]) -> Result<usize, Error>,
) -> Result<Vec<Group>, Error> {
    // `UnionFind::groups` less its singletons, without a vector for each of them:
    // the same groups in the same order (by smallest member, members ascending).
    let labels = uf.labels();
    let mut size = vec![0usize; labels.len()];
    for &l in &labels {
        size[l] += 1;
    }
    let groups = gather(labels.iter().copied().enumerate(), &size);
    with_representatives(groups, pick)
}

/// The connected components of `pairs` (in range, checked by the caller) among `n`
/// documents with two or more members, each with the representative `pick` chooses:
/// [`groups_of`] over the union of the pairs, reading only the documents the pairs
/// name.
///
/// A document in no pair is alone, so only the named ones are found and counted, in
/// increasing order (the same groups, ordered by their smallest member, members
/// ascending). [`groups_of`] labels every document with two finds each: on the bench
/// corpus (66,852 documents, 46,390 pairs) a third of the stage's 13 million
/// instructions, serial work at the end of a run (issue 31).
fn components_of(
    n: usize,
    pairs: &[ScoredPair],
    pick: impl FnMut(&[usize]) -> Result<usize, Error>,
) -> Result<Vec<Group>, Error> {
    let mut uf = UnionFind::new(n);
    let mut named = vec![false; n];
    for p in pairs {
        uf.union(p.a, p.b);
        named[p.a] = true;
        named[p.b] = true;
    }
    // Each named document with its root, and how many named documents share it:
    // every member of a group of two or more is named by one of its pairs.
    let rooted: Vec<(usize, usize)> = (0..n)
        .filter(|&x| named[x])
        .map(|x| (x, uf.find(x)))
        .collect();
    let mut size = vec![0usize; n];
    for &(_, r) in &rooted {
        size[r] += 1;
    }
    with_representatives(gather(rooted.into_iter(), &size), pick)
}

/// The groups of `(member, key)` (members ascending) whose key counts two or more in
/// `size`, ordered by their smallest member.
fn gather(members: impl Iterator<Item = (usize, usize)>, size: &[usize]) -> Vec<Vec<usize>> {
    let mut slot = vec![usize::MAX; size.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (x, l) in members {
        if size[l] < 2 {
            continue;
        }
        if slot[l] == usize::MAX {
            slot[l] = groups.len();
            groups.push(Vec::with_capacity(size[l]));
        }
        groups[slot[l]].push(x);
    }
    groups
}

/// Each group of `groups` with the representative `pick` chooses.
fn with_representatives(
    groups: Vec<Vec<usize>>,
    mut pick: impl FnMut(&[usize]) -> Result<usize, Error>,
) -> Result<Vec<Group>, Error> {
    groups
        .into_iter()
        .map(|members| {
            let representative = pick(&members)?;
            Ok(Group {
                representative,
                members,
                copies: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded stream of numbers below the `n` given at each call (a linear
    /// congruential generator's high bits).
    fn below(seed: u64) -> impl FnMut(usize) -> usize {
        let mut state = seed;
        move |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 33).unwrap_or(0) % n
        }
    }

    /// `components_of` (the named documents only) gives `groups_of`'s groups and
    /// representatives over the union of the same pairs, self-pairs and repeated
    /// pairs included.
    #[test]
    fn components_of_is_groups_of_the_pairs() {
        let mut next = below(0x2545_F491_4F6C_DD1D);
        for (n, count) in [(1, 0), (1, 1), (2, 1), (60, 15), (600, 250), (3_000, 2_900)] {
            let pairs: Vec<ScoredPair> = (0..count)
                .map(|k| {
                    let a = next(n);
                    // Every fifth pair a self-pair, which groups nothing.
                    let b = if k % 5 == 0 { a } else { next(n) };
                    ScoredPair::new(a, b, 0.9)
                })
                .collect();
            let mut uf = UnionFind::new(n);
            for p in &pairs {
                uf.union(p.a, p.b);
            }
            let last = |members: &[usize]| Ok(members[members.len() - 1]);
            let want = groups_of(&mut uf, last).unwrap_or_default();
            let got = components_of(n, &pairs, last).unwrap_or_default();
            assert_eq!(got, want, "n = {n}");
            assert!(n < 600 || want.len() > 10, "n = {n}: {} groups", want.len());
        }
    }

    /// `groups_of` keeps exactly `UnionFind::groups`' sets of two or more, in its
    /// order, on random forests (many singletons, chains, one large set).
    #[test]
    fn groups_of_is_union_find_groups_without_singletons() {
        let mut next = below(0x9E37_79B9_7F4A_7C15);
        for (n, unions) in [(1, 0), (2, 1), (50, 10), (500, 200), (2_000, 1_900)] {
            let mut uf = UnionFind::new(n);
            for _ in 0..unions {
                let (a, b) = (next(n), next(n));
                uf.union(a, b);
            }
            let expected: Vec<Vec<usize>> =
                uf.groups().into_iter().filter(|g| g.len() > 1).collect();
            let got =
                groups_of(&mut uf, |members| Ok(members[members.len() - 1])).unwrap_or_default();
            let members: Vec<Vec<usize>> = got.iter().map(|g| g.members.clone()).collect();
            assert_eq!(members, expected, "n = {n}");
            for g in &got {
                assert_eq!(Some(&g.representative), g.members.last());
            }
        }
    }
}

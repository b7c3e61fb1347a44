//! Stage 4: pairs to groups (connected components), each with a representative.

use std::sync::Arc;

use ndd_core::{Error, ScoredPair, UnionFind};

use crate::Document;

/// A user's choice of representative: given a group's members (in input order),
/// the position of the one to keep.
///
/// # Example
///
/// ```
/// use ndd_pipeline::{Document, RepresentativeFn};
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
/// use ndd_pipeline::Representative;
/// assert_eq!(Representative::default(), Representative::FirstSeen);
/// assert_eq!("longest".parse::<Representative>()?, Representative::Longest);
/// # Ok::<(), ndd_core::Error>(())
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
    /// assert_eq!(ndd_pipeline::Representative::Order.name(), "order");
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

    /// The representative of `members` (document indices in increasing order).
    pub(crate) fn pick(&self, members: &[usize], docs: &[Document]) -> Result<usize, Error> {
        let first = members[0];
        Ok(match self {
            Representative::FirstSeen => first,
            Representative::SmallestId => *members
                .iter()
                .min_by(|&&a, &&b| docs[a].id.cmp(&docs[b].id).then(a.cmp(&b)))
                .unwrap_or(&first),
            Representative::Longest => *members
                .iter()
                .min_by(|&&a, &&b| docs[b].text.len().cmp(&docs[a].text.len()).then(a.cmp(&b)))
                .unwrap_or(&first),
            Representative::Order => *members
                .iter()
                .min_by(|&&a, &&b| {
                    match (&docs[a].order, &docs[b].order) {
                        (Some(x), Some(y)) => x.cmp(y),
                        (Some(_), None) => std::cmp::Ordering::Less,
                        (None, Some(_)) => std::cmp::Ordering::Greater,
                        (None, None) => std::cmp::Ordering::Equal,
                    }
                    .then(a.cmp(&b))
                })
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
/// use ndd_pipeline::Dedup;
/// let out = Dedup::new().run_texts(&["x y z w", "q", "X y z w"])?;
/// let g = &out.groups[0];
/// assert_eq!((g.representative, g.members.clone()), (0, vec![0, 2]));
/// # Ok::<(), ndd_pipeline::Error>(())
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
/// use ndd_pipeline::{DurianGrouping, GroupMethod};
/// assert_eq!(GroupMethod::default(), GroupMethod::Components);
/// assert_eq!("durian".parse::<GroupMethod>()?, GroupMethod::Durian(DurianGrouping::new()));
/// # Ok::<(), ndd_pipeline::Error>(())
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
    /// The verified pairs are still reported, but do not decide the groups.
    Durian(crate::DurianGrouping),
}

impl GroupMethod {
    /// `components` or `durian`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ndd_pipeline::GroupMethod::Components.name(), "components");
    /// ```
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            GroupMethod::Components => "components",
            GroupMethod::Durian(_) => "durian",
        }
    }
}

impl std::str::FromStr for GroupMethod {
    type Err = Error;

    /// `components`, or `durian` with [`DurianGrouping`](crate::DurianGrouping)'s defaults.
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "components" => Ok(GroupMethod::Components),
            "durian" => Ok(GroupMethod::Durian(crate::DurianGrouping::new())),
            other => Err(Error::invalid_parameter(
                "group",
                format!("must be components or durian, got {other:?}"),
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
/// use ndd_core::ScoredPair;
/// use ndd_pipeline::{Document, Grouping, Representative};
/// let docs: Vec<Document> = ["short", "the longest text", "mid text", "alone"]
///     .iter().enumerate().map(|(i, t)| Document::new(i.to_string(), *t)).collect();
/// let pairs = [ScoredPair::new(0, 1, 0.9), ScoredPair::new(1, 2, 0.85)];
/// let groups = Grouping::new(Representative::Longest).run(&docs, &pairs)?;
/// assert_eq!(groups.len(), 1);
/// assert_eq!(groups[0].members, vec![0, 1, 2]);
/// assert_eq!(groups[0].representative, 1);
/// # Ok::<(), ndd_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Grouping {
    representative: Representative,
}

impl Grouping {
    /// Grouping with a representative policy.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_pipeline::{Grouping, Representative};
    /// let g = Grouping::new(Representative::SmallestId);
    /// assert!(g.run(&[], &[])?.is_empty());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    #[must_use]
    pub fn new(representative: Representative) -> Self {
        Grouping { representative }
    }

    /// The groups of two or more documents, ordered by their smallest member.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when a pair names a document outside `docs`, or a
    /// custom representative function returns a position outside its group.
    ///
    /// # Example
    ///
    /// ```
    /// use ndd_core::ScoredPair;
    /// use ndd_pipeline::{Document, Grouping};
    /// let docs: Vec<Document> = (0..4).map(|i| Document::new(i.to_string(), "t")).collect();
    /// let groups = Grouping::default().run(&docs, &[ScoredPair::new(3, 1, 0.9)])?;
    /// assert_eq!(groups[0].members, vec![1, 3]);
    /// assert!(Grouping::default().run(&docs, &[ScoredPair::new(0, 4, 0.9)]).is_err());
    /// # Ok::<(), ndd_core::Error>(())
    /// ```
    pub fn run(&self, docs: &[Document], pairs: &[ScoredPair]) -> Result<Vec<Group>, Error> {
        let mut uf = UnionFind::new(docs.len());
        for p in pairs {
            if p.a >= docs.len() || p.b >= docs.len() {
                return Err(Error::invalid_input(format!(
                    "pair ({}, {}) names a document outside the {} given",
                    p.a,
                    p.b,
                    docs.len()
                )));
            }
            uf.union(p.a, p.b);
        }
        groups_of(&mut uf, |members| self.representative.pick(members, docs))
    }
}

/// The groups of more than one member of `uf`, each kept as `pick` chooses: the
/// grouping stage of every engine (in memory over one run's documents, a saved index
/// over every document it has seen).
pub(crate) fn groups_of(
    uf: &mut UnionFind,
    mut pick: impl FnMut(&[usize]) -> Result<usize, Error>,
) -> Result<Vec<Group>, Error> {
    uf.groups()
        .into_iter()
        .filter(|g| g.len() > 1)
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

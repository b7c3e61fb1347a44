//! Where constraints come from (Yang and Callan 2006, Sections 4.4.1–4.4.3): the
//! must-link test of a document against a reference copy, and links from document
//! attributes or a user's rule over candidate pairs.

use ndd_align::{Tokens, contains_paragraphs};
use ndd_core::Error;

use crate::{Constraints, Link};

/// DURIAN's minor-change must-link: more than 95% word overlap (Section 4.4.1).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::cluster::DEFAULT_MUST_OVERLAP, 0.95);
/// ```
pub const DEFAULT_MUST_OVERLAP: f64 = 0.95;

/// Whether `candidate` must be with `reference` by Section 4.4.1's conditions: it
/// contains every paragraph of the reference ("complete containment of the reference
/// copy", the key block; [`contains_paragraphs`]), or the two share more than
/// `overlap` of their words (word-set Jaccard; [`DEFAULT_MUST_OVERLAP`] for the
/// paper's minor change).
///
/// Cost: O((n + m) log(n + m)) for token counts n and m.
///
/// # Example
///
/// ```
/// use near_dup::align::TokenOptions;
/// use near_dup::cluster::{is_must_link, DEFAULT_MUST_OVERLAP};
/// let o = TokenOptions::default();
/// let letter = o.tokens("Protect the river.\n\nStop the mine.");
/// let comment = o.tokens("I fish there.\n\nProtect the river.\n\nStop the mine.");
/// assert!(is_must_link(&letter, &comment, DEFAULT_MUST_OVERLAP));
/// assert!(!is_must_link(&letter, &o.tokens("Protect the river."), DEFAULT_MUST_OVERLAP));
/// ```
#[must_use]
pub fn is_must_link(reference: &Tokens<'_>, candidate: &Tokens<'_>, overlap: f64) -> bool {
    if reference.hashes().is_empty() {
        return false;
    }
    if contains_paragraphs(candidate, reference) {
        return true;
    }
    let set = |t: &Tokens<'_>| {
        let mut v = t.hashes().to_vec();
        v.sort_unstable();
        v.dedup();
        v
    };
    ndd_core::jaccard(&set(reference), &set(candidate)) > overlap
}

impl Constraints {
    /// Adds `link` between each of `pairs` for which `rule` holds (a user's rule over
    /// candidate pairs: "same relay", "sizes within 10%"); returns how many were
    /// added. Rules are applied to the pairs given, not to all pairs, so the cost is
    /// one call per pair.
    ///
    /// # Errors
    ///
    /// As [`Constraints::add`], for a pair out of range; pairs of a document with
    /// itself are skipped.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let size = [100, 104, 300];
    /// let mut c = Constraints::new(3);
    /// let similar = |a: usize, b: usize| size[a].max(size[b]) * 10 <= size[a].min(size[b]) * 11;
    /// assert_eq!(c.add_where(Link::Family, [(0, 1), (1, 2)], similar)?, 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn add_where(
        &mut self,
        link: Link,
        pairs: impl IntoIterator<Item = (usize, usize)>,
        mut rule: impl FnMut(usize, usize) -> bool,
    ) -> Result<usize, Error> {
        let mut added = 0;
        for (a, b) in pairs {
            if a == b {
                continue;
            }
            self.check(link, a, b)?;
            if rule(a, b) {
                self.add(link, a, b)?;
                added += 1;
            }
        }
        Ok(added)
    }

    /// Cannot-links each of `pairs` whose documents both have a value of an attribute
    /// and the values differ (Section 4.4.2: different docket identifiers); returns
    /// how many were added. `values[d]` is document `d`'s value, `None` when it has
    /// none.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when `values` is not one per document; as
    /// [`Constraints::add`] for a pair out of range.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let docket = [Some("EPA-1"), Some("DOT-7"), None];
    /// let mut c = Constraints::new(3);
    /// assert_eq!(c.cannot_if_different([(0, 1), (0, 2)], &docket)?, 1);
    /// assert_eq!(c.links(), &[(Link::Cannot, 0, 1)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn cannot_if_different<V: PartialEq>(
        &mut self,
        pairs: impl IntoIterator<Item = (usize, usize)>,
        values: &[Option<V>],
    ) -> Result<usize, Error> {
        self.attribute_rule(Link::Cannot, pairs, values, |x, y| x != y)
    }

    /// Family-links each of `pairs` whose documents have the same value of an
    /// attribute (Section 4.4.3: same relay, same footer, same docket); returns how
    /// many were added. Documents without a value are not linked.
    ///
    /// # Errors
    ///
    /// As [`cannot_if_different`](Self::cannot_if_different).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Constraints, Link};
    /// let relay = [Some("moveon"), Some("moveon"), None];
    /// let mut c = Constraints::new(3);
    /// assert_eq!(c.family_if_same([(0, 1), (1, 2)], &relay)?, 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn family_if_same<V: PartialEq>(
        &mut self,
        pairs: impl IntoIterator<Item = (usize, usize)>,
        values: &[Option<V>],
    ) -> Result<usize, Error> {
        self.attribute_rule(Link::Family, pairs, values, |x, y| x == y)
    }

    fn attribute_rule<V>(
        &mut self,
        link: Link,
        pairs: impl IntoIterator<Item = (usize, usize)>,
        values: &[Option<V>],
        holds: impl Fn(&V, &V) -> bool,
    ) -> Result<usize, Error> {
        Error::check_lengths(self.num_documents(), values.len())?;
        self.add_where(link, pairs, |a, b| match (&values[a], &values[b]) {
            (Some(x), Some(y)) => holds(x, y),
            _ => false,
        })
    }
}

//! What an in-memory run (with or without a saved index) found, over the whole
//! collection: the facts `--explain-out`, `--members-out` and the summary's largest
//! groups are drawn from.

use ndd_pipeline::{Document, Group, Outcome};

/// What a run found, over the whole collection when a saved index took part.
pub(crate) struct Found<'a> {
    /// The documents of this batch.
    pub(crate) docs: &'a [Document],
    /// The position of this batch's first document in the collection (0 without an
    /// index read).
    pub(crate) base: usize,
    /// Every document's id, the indexed ones first.
    pub(crate) ids: Vec<&'a str>,
    /// Pairs, groups and the report, over collection positions.
    pub(crate) outcome: Outcome,
}

impl Found<'_> {
    /// The position in the collection of the document kept for `g`'s group.
    pub(crate) fn label(&self, g: usize) -> usize {
        self.outcome
            .group_of(g)
            .map_or(g, |group| group.representative)
    }

    /// The text of the document at collection position `pos`, `None` for a document
    /// of a saved index (its text is not kept).
    pub(crate) fn text(&self, pos: usize) -> Option<&str> {
        pos.checked_sub(self.base)
            .and_then(|i| self.docs.get(i))
            .map(|d| d.text.as_str())
    }

    /// The largest groups with a document of this batch, at most `top`, the largest
    /// first (ties: the group whose first member came first).
    pub(crate) fn largest_groups(&self, top: usize) -> Vec<&Group> {
        // Each group with its position, the last tie-break of the stable sort this
        // was: the `top` first are chosen, then sorted, not all the groups.
        let mut groups: Vec<(usize, &Group)> = self
            .outcome
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.members.last().is_some_and(|&m| m >= self.base))
            .collect();
        let order = |(i, a): &(usize, &Group), (j, b): &(usize, &Group)| {
            b.members
                .len()
                .cmp(&a.members.len())
                .then(a.members[0].cmp(&b.members[0]))
                .then(i.cmp(j))
        };
        if top < groups.len() {
            groups.select_nth_unstable_by(top, order);
            groups.truncate(top);
        }
        groups.sort_unstable_by(order);
        groups.into_iter().map(|(_, g)| g).collect()
    }
}

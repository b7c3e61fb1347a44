//! [`BucketWalk`]: the walk along one band's bucket chain that every banded index's
//! query shares (newest member first, at most a bound read, each candidate once).

use ahash::AHashSet;

use crate::ScanCuts;
use crate::table::NIL;

/// A walk along one band's bucket chain, shared by the queries: newest member first,
/// at most `limit` members read.
pub(crate) struct BucketWalk<'a> {
    pub(crate) keys: &'a [u64],
    pub(crate) next: &'a [u32],
    pub(crate) bands: usize,
    pub(crate) limit: usize,
}

impl BucketWalk<'_> {
    /// Calls `report` with each member of band `i`'s bucket starting at `head` that is
    /// met for the first time in this query: with `seen` (a bounded walk), the members
    /// not in it; otherwise those sharing no earlier band with the query's keys
    /// `earlier` (an unbounded walk reported them in their first shared band).
    /// Returns the members read and whether the bound cut the walk: members were left
    /// unread.
    #[inline]
    pub(crate) fn run(
        &self,
        head: u32,
        i: usize,
        earlier: &[u64],
        mut seen: Option<&mut AHashSet<u32>>,
        mut report: impl FnMut(u32),
    ) -> (usize, bool) {
        let (mut d, mut read) = (head, 0);
        while d != NIL && read < self.limit {
            let db = d as usize * self.bands;
            let first_time = match seen.as_deref_mut() {
                None => !shares_earlier_band(&self.keys[db..db + i], earlier),
                Some(set) => set.insert(d),
            };
            if first_time {
                report(d);
            }
            d = self.next[db + i];
            read += 1;
        }
        // The members before the query, as far as the walk knows them: those it read,
        // and one more when it stopped before the bucket's end.
        (
            read,
            ScanCuts::cuts(read + usize::from(d != NIL), self.limit),
        )
    }
}

/// Whether a document with band keys `a` (bands `0..i`) already matched a query or
/// document with keys `b` in an earlier band: then the pair was reported there.
#[inline]
pub(crate) fn shares_earlier_band(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).any(|(x, y)| x == y)
}

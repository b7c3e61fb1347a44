//! [`ExactIndex`]: documents by exact signature coordinates (I-Match and its
//! extended, randomized-lexicon signatures), over `ndd-core`'s [`ExactSignature`].
//!
//! An I-Match signature (A. Chowdhury, O. Frieder, D. Grossman, M. C. McCabe,
//! "Collection statistics for fast duplicate document detection", ACM TOIS 20(2), 2002)
//! is one hash per document; two documents are near duplicates when their hashes are
//! equal. The extended signature of A. Kołcz and A. Chowdhury, "Lexicon randomization
//! for near-duplicate detection with I-Match", Journal of Supercomputing 45(3), 2008,
//! §4 is a `(K + 1)`-tuple of such hashes, and two
//! documents match when they agree on at least one coordinate. This index answers that
//! with one hash-table lookup per coordinate, for clustering a collection and for
//! checking a new document against it (the spam-filtering use of Kołcz and Chowdhury (The Journal of Supercomputing 2008, §1)).

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;

use ahash::AHashMap;
use ndd_core::{
    CandidateIndex, Error, ExactSignature, KeySlots, PairSink, SchemeId, ScoredPair, UnionFind,
};

const NIL: u32 = u32::MAX;

mod bytes;

/// The most coordinates an [`ExactIndex`] accepts per signature: 1,024.
///
/// Each coordinate costs the index a hash table, about 64 bytes even when empty, so a
/// limit bounds what a signature (or saved bytes, at one byte per absent coordinate)
/// can make it allocate: 64 KiB at the limit, where 8 million coordinates for one
/// document once took 800 MiB from 8 MiB of input. Exact signatures have few
/// coordinates: I-Match has one plus one per extra lexicon (at most 30).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::index::{ExactIndex, MAX_EXACT_COORDINATES};
/// use near_dup::lsh::PlainSlots;
/// let s = SchemeId::new("wide").finish();
/// let mut index = ExactIndex::new();
/// let too_wide = PlainSlots::new(s, vec![0; MAX_EXACT_COORDINATES + 1])?;
/// assert!(index.insert(1u32, &too_wide).is_err());
/// assert!(index.is_empty() && index.scheme().is_none());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const MAX_EXACT_COORDINATES: usize = 1024;

/// An index from exact signature coordinates to documents, generic over the user's
/// document key `K`: a query's candidates are the documents that agree with it on at
/// least one coordinate, each reported once.
///
/// The first insert fixes the index's [`SchemeId`] and number of coordinates;
/// signatures of another scheme are refused. Per coordinate a hash table maps a value
/// to the newest document holding it, whose per-coordinate link leads to the next
/// older one, so a bucket of any size costs one table entry; the all-pairs join and
/// [`groups`](Self::groups) come straight from the buckets. Groups are found without
/// listing pairs (a bucket of `n` identical documents is `n − 1` unions, not
/// `n(n − 1)/2` pairs).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::index::ExactIndex;
/// use near_dup::lsh::PlainSlots;
/// let s = SchemeId::new("demo").finish();
/// let sig = |v: &[u64]| PlainSlots::new(s, v.to_vec());
/// let mut index = ExactIndex::new();
/// index.insert("a", &sig(&[1, 2])?)?;
/// index.insert("b", &sig(&[9, 2])?)?; // agrees with "a" on coordinate 1
/// index.insert("c", &sig(&[9, 7])?)?; // agrees with "b" on coordinate 0
/// assert_eq!(index.query(&sig(&[1, 5])?)?, vec!["a"]);
/// let mut pairs: Vec<_> = index.all_pairs().into_iter().map(|p| (p.a, p.b, p.score)).collect();
/// pairs.sort_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)));
/// assert_eq!(pairs, vec![("a", "b", 0.5), ("b", "c", 0.5)]); // one coordinate of two shared
/// assert_eq!(index.groups(), vec![vec!["a", "b", "c"]]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone)]
pub struct ExactIndex<K, S: ExactSignature> {
    scheme: Option<SchemeId>,
    width: usize,
    tables: Vec<AHashMap<S::Coordinate, u32>>,
    /// `next[slot·width + i]`: the next older document with the same coordinate `i`.
    next: Vec<u32>,
    /// `prev[slot·width + i]`: the next newer one (`NIL` for the table's head), so that
    /// a removal costs O(1) per coordinate whatever the bucket's size (walking a chain
    /// took 81 s to remove 100,000 identical documents).
    prev: Vec<u32>,
    /// `coords[slot·width + i]`: coordinate `i` of the document in `slot`.
    coords: Vec<Option<S::Coordinate>>,
    keys: KeySlots<K>,
}

impl<K, S: ExactSignature> fmt::Debug for ExactIndex<K, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExactIndex")
            .field("scheme", &self.scheme)
            .field("coordinates", &self.width)
            .field("documents", &self.keys.len())
            .finish()
    }
}

impl<K: Clone + Eq + Hash, S: ExactSignature> Default for ExactIndex<K, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Clone + Eq + Hash, S: ExactSignature> ExactIndex<K, S> {
    /// The empty index.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let index: ExactIndex<u32, PlainSlots> = ExactIndex::new();
    /// assert!(index.is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        ExactIndex {
            scheme: None,
            width: 0,
            tables: Vec::new(),
            next: Vec::new(),
            prev: Vec::new(),
            coords: Vec::new(),
            keys: KeySlots::new(),
        }
    }

    /// Whether a document with this key is indexed; the key can be given in any form
    /// it borrows as (`&str` for `String` keys).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = PlainSlots::new(SchemeId::new("x").finish(), vec![1])?;
    /// let mut index = ExactIndex::new();
    /// index.insert(String::from("doc-1"), &s)?;
    /// assert!(index.contains_key("doc-1") && !index.contains_key("doc-2"));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.keys.slot(key).is_some()
    }

    /// The number of documents indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let mut index = ExactIndex::new();
    /// index.insert(1u8, &PlainSlots::new(near_dup::SchemeId::new("d").finish(), vec![3])?)?;
    /// assert_eq!(index.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no document is indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// assert!(ExactIndex::<u8, PlainSlots>::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The scheme fixed by the first insert (`None` before it).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("d").finish();
    /// let mut index = ExactIndex::new();
    /// assert_eq!(index.scheme(), None);
    /// index.insert(1u8, &PlainSlots::new(s, vec![3])?)?;
    /// assert_eq!(index.scheme(), Some(s));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> Option<SchemeId> {
        self.scheme
    }

    /// The number of coordinates per signature (0 before the first insert).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let mut index = ExactIndex::new();
    /// index.insert(1u8, &PlainSlots::new(near_dup::SchemeId::new("d").finish(), vec![3, 4])?)?;
    /// assert_eq!(index.num_coordinates(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn num_coordinates(&self) -> usize {
        self.width
    }

    /// Checks `signature` against the index's scheme and width (fixing them on the
    /// first insert when `fix` is set).
    fn check(&mut self, signature: &S, fix: bool) -> Result<(), Error> {
        match self.scheme {
            Some(s) => Error::check_schemes(s, signature.scheme())?,
            None if fix => {
                let w = signature.num_coordinates();
                if w > MAX_EXACT_COORDINATES {
                    return Err(Error::invalid_input(format!(
                        "a signature of {w} coordinates; an exact index takes at most \
                         {MAX_EXACT_COORDINATES}"
                    )));
                }
                self.scheme = Some(signature.scheme());
                self.width = signature.num_coordinates();
                self.tables = (0..self.width).map(|_| AHashMap::new()).collect();
                return Ok(());
            }
            None => return Ok(()),
        }
        Error::check_lengths(self.width, signature.num_coordinates())?;
        Ok(())
    }

    fn check_query(&self, signature: &S) -> Result<(), Error> {
        if let Some(s) = self.scheme {
            Error::check_schemes(s, signature.scheme())?;
            Error::check_lengths(self.width, signature.num_coordinates())?;
        }
        Ok(())
    }

    /// Adds a document; re-inserting a key replaces its previous entry. A signature
    /// whose coordinates are all absent is stored but matches nothing.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the signature's scheme differs from the index's;
    /// [`Error::LengthMismatch`] when its number of coordinates does; [`Error::InvalidInput`]
    /// when the index already holds `u32::MAX − 1` documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let mut index = ExactIndex::new();
    /// index.insert("a", &PlainSlots::new(SchemeId::new("x").finish(), vec![1])?)?;
    /// let other = PlainSlots::new(SchemeId::new("y").finish(), vec![1])?;
    /// assert!(index.insert("b", &other).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn insert(&mut self, key: K, signature: &S) -> Result<(), Error> {
        self.check(signature, true)?;
        self.remove(&key);
        self.insert_coordinates(key, |i| signature.coordinate(i).cloned())
    }

    /// Adds a document (absent, and checked to fit) from its coordinates.
    fn insert_coordinates(
        &mut self,
        key: K,
        mut coordinate: impl FnMut(usize) -> Option<S::Coordinate>,
    ) -> Result<(), Error> {
        let w = self.width;
        if !self.keys.has_room(&key, NIL as usize) {
            return Err(Error::invalid_input(
                "the index is full (2^32 − 1 documents)",
            ));
        }
        let (slot, new) = self.keys.insert(key);
        if new {
            self.next.resize(self.next.len() + w, NIL);
            self.prev.resize(self.prev.len() + w, NIL);
            self.coords.resize(self.coords.len() + w, None);
        }
        let base = slot as usize * w;
        for i in 0..w {
            let c = coordinate(i);
            self.next[base + i] = NIL;
            self.prev[base + i] = NIL;
            if let Some(c) = &c {
                if let Some(head) = self.tables[i].get_mut(c) {
                    self.next[base + i] = *head;
                    self.prev[*head as usize * w + i] = slot;
                    *head = slot;
                } else {
                    self.tables[i].insert(c.clone(), slot);
                }
            }
            self.coords[base + i] = c;
        }
        Ok(())
    }

    /// Removes a document; returns whether it was present.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = PlainSlots::new(SchemeId::new("x").finish(), vec![1])?;
    /// let mut index = ExactIndex::new();
    /// index.insert(1u8, &s)?;
    /// index.insert(2u8, &s)?;
    /// assert!(index.remove(&1));
    /// assert!(!index.remove(&1));
    /// assert_eq!(index.query(&s)?, vec![2]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn remove<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let Some(slot) = self.keys.remove(key) else {
            return false;
        };
        let w = self.width;
        let base = slot as usize * w;
        for i in 0..w {
            let Some(c) = self.coords[base + i].take() else {
                continue;
            };
            let after = self.next[base + i];
            let before = self.prev[base + i];
            if after != NIL {
                self.prev[after as usize * w + i] = before;
            }
            if before != NIL {
                self.next[before as usize * w + i] = after;
            } else if after == NIL {
                self.tables[i].remove(&c);
            } else if let Some(head) = self.tables[i].get_mut(&c) {
                *head = after;
            }
            self.prev[base + i] = NIL;
            self.next[base + i] = NIL;
        }
        true
    }

    /// Whether the document in `slot` agrees with `coordinate_of(j)` on some
    /// coordinate before `i` (then it was reported there).
    fn shares_earlier<'a>(
        &'a self,
        slot: u32,
        i: usize,
        mut coordinate_of: impl FnMut(usize) -> Option<&'a S::Coordinate>,
    ) -> bool {
        let base = slot as usize * self.width;
        (0..i).any(|j| match (&self.coords[base + j], coordinate_of(j)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        })
    }

    fn for_each_match_slot(&self, signature: &S, mut f: impl FnMut(u32)) {
        for i in 0..self.width {
            let Some(c) = signature.coordinate(i) else {
                continue;
            };
            let Some(&head) = self.tables[i].get(c) else {
                continue;
            };
            let mut d = head;
            while d != NIL {
                if !self.shares_earlier(d, i, |j| signature.coordinate(j)) {
                    f(d);
                }
                d = self.next[d as usize * self.width + i];
            }
        }
    }

    /// Appends the keys of the documents that agree with `signature` on at least one
    /// coordinate to `out`, each once (newest first within a coordinate).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] or [`Error::LengthMismatch`] when `signature` does not
    /// fit the index (an empty index accepts any signature and finds nothing).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("x").finish();
    /// let mut index = ExactIndex::new();
    /// index.insert(1u8, &PlainSlots::new(s, vec![1, 2])?)?;
    /// let mut out = Vec::new();
    /// index.query_into(&PlainSlots::new(s, vec![1, 2])?, &mut out)?;
    /// assert_eq!(out, vec![1]); // agrees on both coordinates, reported once
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_into(&self, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        self.check_query(signature)?;
        self.for_each_match_slot(signature, |d| {
            if let Some(k) = self.keys.key(d) {
                out.push(k.clone());
            }
        });
        Ok(())
    }

    /// The documents that agree with `signature` on at least one coordinate
    /// (allocates; see [`query_into`](Self::query_into)).
    ///
    /// # Errors
    ///
    /// As [`query_into`](Self::query_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("x").finish();
    /// let mut index = ExactIndex::new();
    /// index.insert("spam-1", &PlainSlots::new(s, vec![10, 11, 12])?)?;
    /// // A new message whose first two coordinates changed still matches on the third.
    /// assert_eq!(index.query(&PlainSlots::new(s, vec![20, 21, 12])?)?, vec!["spam-1"]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query(&self, signature: &S) -> Result<Vec<K>, Error> {
        let mut out = Vec::new();
        self.query_into(signature, &mut out)?;
        Ok(out)
    }

    /// Appends the documents matching `signature` to `out`, then inserts it under
    /// `key`: one pass for streaming deduplication (each document meets only the ones
    /// before it). A `key` already indexed has its previous entry removed first, so it
    /// is never its own match.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert); on error nothing is appended or inserted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("x").finish();
    /// let mut index = ExactIndex::new();
    /// let mut seen = Vec::new();
    /// for (k, v) in [(0u32, 5u64), (1, 6), (2, 5)] {
    ///     seen.clear();
    ///     index.query_then_insert(k, &PlainSlots::new(s, vec![v])?, &mut seen)?;
    /// }
    /// assert_eq!(seen, vec![0]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_then_insert(
        &mut self,
        key: K,
        signature: &S,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        self.check(signature, true)?;
        self.remove(&key);
        self.query_into(signature, out)?;
        self.insert(key, signature)
    }

    /// Calls `f(a, b)` once for every pair of indexed documents that agree on at least
    /// one coordinate, `a` inserted before `b`, straight from the buckets.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("x").finish();
    /// let mut index = ExactIndex::new();
    /// for (k, v) in [(1u8, [1, 2]), (2, [1, 2]), (3, [0, 2])] {
    ///     index.insert(k, &PlainSlots::new(s, v.to_vec())?)?;
    /// }
    /// let mut pairs = Vec::new();
    /// index.for_each_candidate_pair(|a, b| pairs.push((*a, *b)));
    /// pairs.sort();
    /// assert_eq!(pairs, vec![(1, 2), (1, 3), (2, 3)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn for_each_candidate_pair<F: FnMut(&K, &K)>(&self, mut f: F) {
        self.for_each_slot_pair(|x, y| {
            if let (Some(a), Some(b)) = (self.keys.key(x), self.keys.key(y)) {
                f(a, b);
            }
        });
    }

    /// Calls `f(x, y)` on the slots of every matching pair once, `x` inserted first.
    fn for_each_slot_pair(&self, mut f: impl FnMut(u32, u32)) {
        let w = self.width;
        let mut chain = Vec::new();
        for (i, table) in self.tables.iter().enumerate() {
            for &head in table.values() {
                if self.next[head as usize * w + i] == NIL {
                    continue;
                }
                chain.clear();
                let mut d = head;
                while d != NIL {
                    chain.push(d);
                    d = self.next[d as usize * w + i];
                }
                chain.reverse(); // oldest first
                for (n, &x) in chain.iter().enumerate() {
                    let xb = x as usize * w;
                    for &y in &chain[n + 1..] {
                        if !self.shares_earlier(y, i, |j| self.coords[xb + j].as_ref()) {
                            f(x, y);
                        }
                    }
                }
            }
        }
    }

    /// The fraction of the `num_coordinates` coordinates on which the documents in
    /// two slots hold equal values.
    fn shared_fraction(&self, x: u32, y: u32) -> f64 {
        let w = self.width;
        let (xb, yb) = (x as usize * w, y as usize * w);
        let shared = (0..w)
            .filter(|&j| matches!((&self.coords[xb + j], &self.coords[yb + j]), (Some(a), Some(b)) if a == b))
            .count();
        shared as f64 / w.max(1) as f64
    }

    /// Pushes every pair of indexed documents that agree on at least one coordinate
    /// into `sink` once, as `(earlier, later)` keys scored by the fraction of
    /// coordinates they share (what `IMatchSignature::similarity` reports), straight
    /// from the buckets.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, ScoredPair};
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("x").finish();
    /// let mut index = ExactIndex::new();
    /// for (k, v) in [(1u8, [1, 2, 3, 4]), (2, [1, 2, 0, 4]), (3, [7, 7, 7, 7])] {
    ///     index.insert(k, &PlainSlots::new(s, v.to_vec())?)?;
    /// }
    /// let mut pairs: Vec<ScoredPair<u8>> = Vec::new();
    /// index.all_pairs_into(&mut pairs);
    /// assert_eq!(pairs, vec![ScoredPair::new(1, 2, 0.75)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn all_pairs_into<P: PairSink<K> + ?Sized>(&self, sink: &mut P) {
        self.for_each_slot_pair(|x, y| {
            if let (Some(a), Some(b)) = (self.keys.key(x), self.keys.key(y)) {
                sink.push_pair(ScoredPair::new(
                    a.clone(),
                    b.clone(),
                    self.shared_fraction(x, y),
                ));
            }
        });
    }

    /// Every matching pair once, as `(earlier, later)` keys (see
    /// [`for_each_candidate_pair`](Self::for_each_candidate_pair)) scored by the
    /// fraction of coordinates they share, as [`all_pairs_into`](Self::all_pairs_into)
    /// pushes them. The same type as the other indexes' `all_pairs`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, ScoredPair};
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("x").finish();
    /// let mut index = ExactIndex::new();
    /// index.insert("a", &PlainSlots::new(s, vec![1])?)?;
    /// index.insert("b", &PlainSlots::new(s, vec![1])?)?;
    /// index.insert("c", &PlainSlots::new(s, vec![2])?)?;
    /// assert_eq!(index.all_pairs(), vec![ScoredPair::new("a", "b", 1.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn all_pairs(&self) -> Vec<ScoredPair<K>> {
        let mut out = Vec::new();
        self.all_pairs_into(&mut out);
        out
    }

    /// The groups of documents connected by shared coordinates (transitively: `a`
    /// and `c` are grouped when each shares a coordinate with `b`), each with at
    /// least two documents. Members are listed by internal slot and groups by their
    /// first member's slot: insertion order when nothing was removed (removal frees
    /// slots for reuse). Linear in the number of documents and coordinates.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("x").finish();
    /// let mut index = ExactIndex::new();
    /// for (k, v) in [("a", [1, 1]), ("b", [2, 2]), ("c", [1, 3]), ("d", [4, 2]), ("e", [5, 5])] {
    ///     index.insert(k, &PlainSlots::new(s, v.to_vec())?)?;
    /// }
    /// assert_eq!(index.groups(), vec![vec!["a", "c"], vec!["b", "d"]]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn groups(&self) -> Vec<Vec<K>> {
        let w = self.width;
        let mut uf = UnionFind::new(self.keys.slot_count());
        for (i, table) in self.tables.iter().enumerate() {
            for &head in table.values() {
                let mut d = self.next[head as usize * w + i];
                while d != NIL {
                    uf.union(head as usize, d as usize);
                    d = self.next[d as usize * w + i];
                }
            }
        }
        let slot_keys = self.keys.by_slot();
        let mut groups: Vec<Vec<usize>> = uf
            .groups()
            .into_iter()
            .filter(|g| g.iter().filter(|&&s| slot_keys[s].is_some()).count() > 1)
            .collect();
        for g in &mut groups {
            g.retain(|&s| slot_keys[s].is_some());
        }
        groups
            .into_iter()
            .map(|g| g.into_iter().filter_map(|s| slot_keys[s].clone()).collect())
            .collect()
    }

    /// Approximate heap bytes used: the coordinate tables (estimated from their
    /// capacity), the per-document coordinates and links, and the key bookkeeping.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let mut index = ExactIndex::new();
    /// index.insert(1u64, &PlainSlots::new(SchemeId::new("x").finish(), vec![1, 2, 3])?)?;
    /// assert!(index.memory_bytes() >= 3 * (8 + 4));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        use ndd_core::mem::map_bytes;
        use std::mem::size_of;
        let tables: usize = self
            .tables
            .iter()
            .map(|t| map_bytes(t.capacity(), size_of::<(S::Coordinate, u32)>()))
            .sum();
        tables
            + (self.next.capacity() + self.prev.capacity()) * size_of::<u32>()
            + self.coords.capacity() * size_of::<Option<S::Coordinate>>()
            + self.keys.memory_bytes()
    }
}

impl<K: Clone + Eq + Hash, S: ExactSignature> CandidateIndex for ExactIndex<K, S> {
    type Key = K;
    type Signature = S;

    fn insert(&mut self, key: K, signature: &S) -> Result<(), Error> {
        ExactIndex::insert(self, key, signature)
    }

    fn remove(&mut self, key: &K) -> bool {
        ExactIndex::remove(self, key)
    }

    fn query_into(&self, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        ExactIndex::query_into(self, signature, out)
    }

    fn len(&self) -> usize {
        ExactIndex::len(self)
    }

    fn query_then_insert(&mut self, key: K, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        ExactIndex::query_then_insert(self, key, signature, out)
    }

    /// Scored by the fraction of coordinates shared ([`ExactIndex::all_pairs_into`]).
    fn all_pairs_into(&self, sink: &mut dyn PairSink<K>) {
        ExactIndex::all_pairs_into(self, sink);
    }
}

#[cfg(test)]
mod tests {
    use ndd_lsh::PlainSlots;

    use super::*;

    fn sig(v: &[u64]) -> PlainSlots {
        PlainSlots::new(SchemeId::new("t").finish(), v.to_vec()).unwrap()
    }

    /// The definition, the slow way: pairs agreeing on some coordinate.
    fn brute_pairs(docs: &[(u32, Vec<u64>)]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (n, (a, va)) in docs.iter().enumerate() {
            for (b, vb) in &docs[n + 1..] {
                if va.iter().zip(vb).any(|(x, y)| x == y) {
                    out.push((*a.min(b), *a.max(b)));
                }
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn pairs_queries_and_groups_match_brute_force_under_churn() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut index: ExactIndex<u32, PlainSlots> = ExactIndex::new();
        let mut live: Vec<(u32, Vec<u64>)> = Vec::new();
        for step in 0..3000u32 {
            if rng.random_bool(0.25) && !live.is_empty() {
                let at = rng.random_range(0..live.len());
                let (k, _) = live.swap_remove(at);
                assert!(index.remove(&k));
            } else {
                let v: Vec<u64> = (0..3).map(|_| rng.random_range(0..40u64)).collect();
                index.insert(step, &sig(&v)).unwrap();
                live.push((step, v));
            }
        }
        let mut got: Vec<(u32, u32)> = index
            .all_pairs()
            .into_iter()
            .map(|p| (p.a.min(p.b), p.a.max(p.b)))
            .collect();
        got.sort_unstable();
        assert_eq!(got, brute_pairs(&live));
        for (k, v) in live.iter().take(50) {
            let mut q = index.query(&sig(v)).unwrap();
            q.sort_unstable();
            let mut want: Vec<u32> = live
                .iter()
                .filter(|(_, w)| w.iter().zip(v).any(|(x, y)| x == y))
                .map(|(j, _)| *j)
                .collect();
            want.sort_unstable();
            assert_eq!(q, want, "query for {k}");
        }
        // Groups: connected components of the brute-force pairs.
        let pos: AHashMap<u32, usize> =
            live.iter().enumerate().map(|(i, (k, _))| (*k, i)).collect();
        let mut uf = UnionFind::new(live.len());
        for (a, b) in brute_pairs(&live) {
            uf.union(pos[&a], pos[&b]);
        }
        let mut want: Vec<Vec<u32>> = uf
            .groups()
            .into_iter()
            .filter(|g| g.len() > 1)
            .map(|g| {
                let mut g: Vec<u32> = g.into_iter().map(|i| live[i].0).collect();
                g.sort_unstable();
                g
            })
            .collect();
        want.sort();
        let mut got: Vec<Vec<u32>> = index
            .groups()
            .into_iter()
            .map(|mut g| {
                g.sort_unstable();
                g
            })
            .collect();
        got.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn mismatched_width_and_reinsert() {
        let mut index: ExactIndex<u8, PlainSlots> = ExactIndex::new();
        index.insert(1, &sig(&[1, 2])).unwrap();
        assert!(index.insert(2, &sig(&[1])).is_err());
        assert!(index.query(&sig(&[1, 2, 3])).is_err());
        index.insert(1, &sig(&[5, 6])).unwrap(); // replaces
        assert_eq!(index.len(), 1);
        assert!(index.query(&sig(&[1, 2])).unwrap().is_empty());
        assert_eq!(index.query(&sig(&[5, 0])).unwrap(), vec![1]);
    }
}

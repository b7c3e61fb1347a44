//! [`HammingIndex`]: the dynamic index (sorted permuted tables plus an unsorted
//! delta), and its [`HammingMemory`] report.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;

use ndd_core::{
    BitSignature, CandidateIndex, Error, Estimate, KeySlots, PairSink, SchemeId, ScoredPair,
    Signature,
};

use super::layout::{
    Layout, SortScratch, at_most, layouts, radix_sort_top, scan_delta, scan_groups,
};
use super::{HammingParams, MAX_DOCS, similarity_from_hamming};

/// Directory of a table: at most `2^24` prefix entries (64 MiB).
const MAX_DIR_BITS: u32 = 24;

/// One permuted table: the permuted fingerprints sorted on the leading bits, their ids,
/// and a directory from the top `dir_bits` bits to the start of their run.
#[derive(Clone, Default)]
struct Table {
    keys: Vec<u64>,
    ids: Vec<u32>,
    /// `dir[p]..dir[p + 1]`: the entries whose top `dir_bits` bits are `p`.
    dir: Vec<u32>,
    dir_bits: u32,
}

impl Table {
    /// The entries sharing the top `dir_bits` bits of `permuted`.
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // a prefix of ≤ 24 bits
    fn range(&self, permuted: u64) -> (usize, usize) {
        if self.dir_bits == 0 {
            return (0, self.keys.len());
        }
        let p = (permuted >> (64 - self.dir_bits)) as usize;
        (self.dir[p] as usize, self.dir[p + 1] as usize)
    }

    #[allow(clippy::cast_possible_truncation)] // prefixes ≤ 24 bits; positions < MAX_DOCS
    fn rebuild_dir(&mut self, lead_bits: u32) {
        let n = self.keys.len();
        self.dir.clear();
        let d = if n < 2 {
            0
        } else {
            (usize::BITS - 1 - n.leading_zeros())
                .min(lead_bits)
                .min(MAX_DIR_BITS)
        };
        self.dir_bits = d;
        if d == 0 {
            self.dir.shrink_to_fit();
            return;
        }
        let size = 1usize << d;
        self.dir.reserve_exact(size + 1);
        let mut pos = 0usize;
        for p in 0..size {
            self.dir.push(pos as u32);
            while pos < n && (self.keys[pos] >> (64 - d)) as usize == p {
                pos += 1;
            }
        }
        self.dir.push(n as u32);
    }

    fn bytes(&self) -> usize {
        self.keys.capacity() * 8 + self.ids.capacity() * 4 + self.dir.capacity() * 4
    }
}

/// Memory used by a [`HammingIndex`], in bytes (allocated capacity), from
/// [`HammingIndex::memory`].
///
/// # Example
///
/// ```
/// use near_dup::index::{HammingIndex, HammingParams};
/// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
/// index.extend((0..1000u64).map(|i| (i, i.wrapping_mul(0x9E37_79B9_7F4A_7C15))))?;
/// let m = index.memory();
/// assert_eq!(m.documents, 1000);
/// assert!(m.tables >= 1000 * 48);
/// // 4 tables × 12 bytes, their directories, the fingerprints (8 bytes), the delta buffer.
/// assert!(m.bytes_per_document() <= 80.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct HammingMemory {
    /// Documents indexed.
    pub documents: usize,
    /// The sorted tables: 12 bytes per entry per table, plus their prefix directories.
    pub tables: usize,
    /// The unsorted delta of recent inserts (12 bytes per entry) and the fingerprint
    /// of every document slot (8 bytes).
    pub delta_and_fingerprints: usize,
    /// Key bookkeeping: the key → slot map (estimated from its capacity), the slot →
    /// key array and the free-slot lists. Heap memory owned by the keys is not counted.
    pub key_map: usize,
}

impl HammingMemory {
    /// `tables + delta_and_fingerprints`: the index structure proper.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::index::HammingMemory::default().index_bytes(), 0);
    /// ```
    #[must_use]
    pub fn index_bytes(&self) -> usize {
        self.tables + self.delta_and_fingerprints
    }

    /// [`index_bytes`](Self::index_bytes) + `key_map`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::index::HammingMemory::default().total_bytes(), 0);
    /// ```
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        self.index_bytes() + self.key_map
    }

    /// [`index_bytes`](Self::index_bytes) per document (0 when empty).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::index::HammingMemory::default().bytes_per_document(), 0.0);
    /// ```
    #[must_use]
    pub fn bytes_per_document(&self) -> f64 {
        ndd_core::mem::bytes_per(self.index_bytes() as u64, self.documents as u64)
    }
}

/// A 64-bit fingerprint with the scheme it was built with: the default signature
/// type of a [`HammingIndex`] used through [`CandidateIndex`] (any [`BitSignature`] of
/// 64 bits works, `ndd-simhash`'s 64-bit `SimHashSignature` among them).
///
/// Its similarity is `1 − h/64` for the Hamming distance `h`
/// ([`similarity_from_hamming`]).
///
/// # Example
///
/// ```
/// use near_dup::{BitSignature, SchemeId, Signature};
/// use near_dup::index::PlainFingerprint;
/// let s = SchemeId::new("simhash-64").finish();
/// let (a, b) = (PlainFingerprint::new(s, 0b1011), PlainFingerprint::new(s, 0b0011));
/// assert_eq!((a.bits(), a.num_bits(), a.words()), (0b1011, 64, &[0b1011u64][..]));
/// assert_eq!(a.similarity(&b)?.value(), 1.0 - 1.0 / 64.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlainFingerprint {
    scheme: SchemeId,
    bits: u64,
}

impl PlainFingerprint {
    /// A fingerprint of scheme `scheme`.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::index::PlainFingerprint::new(near_dup::SchemeId::new("d").finish(), 7);
    /// assert_eq!(f.bits(), 7);
    /// ```
    #[must_use]
    pub const fn new(scheme: SchemeId, bits: u64) -> Self {
        PlainFingerprint { scheme, bits }
    }

    /// The 64 bits.
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::index::PlainFingerprint::new(near_dup::SchemeId::new("d").finish(), 1 << 63);
    /// assert_eq!(f.bits(), 1 << 63);
    /// ```
    #[must_use]
    pub const fn bits(&self) -> u64 {
        self.bits
    }
}

impl Signature for PlainFingerprint {
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        self.check_compatible(other)?;
        Ok(Estimate::exact(similarity_from_hamming(
            (self.bits ^ other.bits).count_ones(),
        )))
    }
}

impl BitSignature for PlainFingerprint {
    fn words(&self) -> &[u64] {
        std::slice::from_ref(&self.bits)
    }

    fn num_bits(&self) -> usize {
        64
    }
}

/// An index of 64-bit fingerprints (SimHash) that finds every stored fingerprint within
/// `k` bits of a query, and every such pair, exactly: Manku et al.'s permuted sorted
/// tables (see [`HammingParams`] for the tables and their cost). Generic over the
/// user's document key `K`.
///
/// # Two doors: bare `u64`s or signatures with a scheme
///
/// The inherent methods ([`insert`](Self::insert), [`query`](Self::query), …) take bare
/// `u64` fingerprints: the fast path, with no scheme check (the caller vouches that
/// all fingerprints come from one sketcher). Through [`CandidateIndex`] the index takes
/// signatures of type `S` (default [`PlainFingerprint`]; any [`BitSignature`] with
/// `num_bits() == 64`): the first signature inserted fixes the index's
/// [`scheme`](Self::scheme), and a signature of another scheme is refused with
/// [`Error::Incompatible`], as every index does. Use
/// [`for_signatures`](Self::for_signatures) to choose another `S`.
///
/// # Build and incremental updates
///
/// The tables are sorted arrays, so the index is built in bulk and updated through a
/// small unsorted *delta*: [`insert`](Self::insert) appends to the delta, which every
/// query scans (`O(delta)`); when the delta outgrows its limit (by default
/// `max(256, 4·√N)` entries: 4,000 at a million) it is sorted and merged into every
/// table, `O(tables × N)` sequential copying, so an insert costs `O(tables × √N / 4)`
/// amortized. Measured at a million fingerprints with 4 tables (`docs/performance.md`,
/// a loaded 2-vCPU machine): a merge about 0.12 s, so about 23 µs per insert; a full
/// delta adds about 8 µs to an 8 µs query. Set the limit with
/// [`with_delta_limit`](Self::with_delta_limit) to move cost between the two.
/// [`extend`](Self::extend) inserts a batch and merges once, radix-sorting everything
/// when the batch is large: that is the bulk build. [`remove`](Self::remove) drops a
/// delta entry at once and marks a table entry dead (queries skip it); dead entries are
/// purged, and their slots reused, at the next merge. [`compact`](Self::compact)
/// merges on demand, e.g. before a burst of queries.
///
/// # Example
///
/// ```
/// use near_dup::index::{HammingIndex, HammingParams};
/// let mut index = HammingIndex::new(HammingParams::for_collection(3, 1000)?);
/// index.insert("a", 0x0F0F_0F0F_0F0F_0F0F)?;
/// index.insert("b", 0x0F0F_0F0F_0F0F_0F0E)?; // 1 bit from "a"
/// index.insert("c", 0xF0F0_F0F0_F0F0_F0F0)?;
/// assert_eq!(index.query(0x0F0F_0F0F_0F0F_0F0F), vec![("a", 0), ("b", 1)]);
/// let pairs = index.all_pairs(); // scored 1 − h/64
/// assert_eq!(pairs, vec![near_dup::ScoredPair::new("a", "b", 1.0 - 1.0 / 64.0)]);
/// assert!(index.remove(&"b"));
/// assert!(index.all_pairs().is_empty());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub struct HammingIndex<K, S = PlainFingerprint> {
    pub(super) params: HammingParams,
    /// The scheme fixed by the first signature inserted through [`CandidateIndex`].
    pub(super) scheme: Option<SchemeId>,
    layouts: Vec<Layout>,
    tables: Vec<Table>,
    pub(super) delta_fps: Vec<u64>,
    pub(super) delta_ids: Vec<u32>,
    /// The fingerprint of each document slot.
    pub(super) fps: Vec<u64>,
    /// The keys, by slot and slot by key; slots free for reuse.
    pub(super) keys: KeySlots<K>,
    /// Dead slots still referenced by the tables (freed at the next merge).
    retired: Vec<u32>,
    pub(super) delta_limit: Option<usize>,
    _signature: PhantomData<fn() -> S>,
}

impl<K: Clone, S> Clone for HammingIndex<K, S> {
    fn clone(&self) -> Self {
        HammingIndex {
            params: self.params,
            scheme: self.scheme,
            layouts: self.layouts.clone(),
            tables: self.tables.clone(),
            delta_fps: self.delta_fps.clone(),
            delta_ids: self.delta_ids.clone(),
            fps: self.fps.clone(),
            keys: self.keys.clone(),
            retired: self.retired.clone(),
            delta_limit: self.delta_limit,
            _signature: PhantomData,
        }
    }
}

impl<K, S> fmt::Debug for HammingIndex<K, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HammingIndex")
            .field("params", &self.params)
            .field("scheme", &self.scheme)
            .field("documents", &self.keys.len())
            .field("delta", &self.delta_fps.len())
            .field("retired", &self.retired.len())
            .finish_non_exhaustive()
    }
}

impl<K: Clone + Eq + Hash> HammingIndex<K> {
    /// An empty index (through [`CandidateIndex`] it takes [`PlainFingerprint`]s; see
    /// [`for_signatures`](Self::for_signatures) for another signature type).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let index: HammingIndex<u32> = HammingIndex::new(HammingParams::new(3, 4)?);
    /// assert!(index.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new(params: HammingParams) -> Self {
        Self::for_signatures(params)
    }

    /// Builds an index from `(key, fingerprint)` pairs in one bulk sort (see
    /// [`extend`](Self::extend)).
    ///
    /// # Errors
    ///
    /// As [`extend`](Self::extend).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let fps = [0u64, 1, 3, u64::MAX];
    /// let index = HammingIndex::from_fingerprints(
    ///     HammingParams::new(2, 3)?,
    ///     fps.iter().copied().enumerate(),
    /// )?;
    /// assert_eq!(index.len(), 4);
    /// assert_eq!(index.all_pairs().len(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_fingerprints<I: IntoIterator<Item = (K, u64)>>(
        params: HammingParams,
        items: I,
    ) -> Result<Self, Error> {
        let mut index = Self::new(params);
        index.extend(items)?;
        Ok(index)
    }
}

/// The smallest delta limit in effect (see [`HammingIndex::with_delta_limit`]).
const MIN_DELTA_LIMIT: usize = 64;

impl<K: Clone + Eq + Hash, S> HammingIndex<K, S> {
    /// An empty index whose [`CandidateIndex`] signature type is `S` (a
    /// [`BitSignature`] of 64 bits).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams, PlainFingerprint};
    /// let index = HammingIndex::<u32, PlainFingerprint>::for_signatures(HammingParams::new(3, 4)?);
    /// assert!(index.is_empty() && index.scheme().is_none());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn for_signatures(params: HammingParams) -> Self {
        let layouts = layouts(params);
        let tables = vec![Table::default(); layouts.len()];
        HammingIndex {
            params,
            scheme: None,
            layouts,
            tables,
            delta_fps: Vec::new(),
            delta_ids: Vec::new(),
            fps: Vec::new(),
            keys: KeySlots::new(),
            retired: Vec::new(),
            delta_limit: None,
            _signature: PhantomData,
        }
    }

    /// The scheme fixed by the first signature inserted through [`CandidateIndex`]
    /// (`None` before it, and for an index fed only bare `u64`s).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{CandidateIndex, SchemeId};
    /// use near_dup::index::{HammingIndex, HammingParams, PlainFingerprint};
    /// let s = SchemeId::new("simhash-64").finish();
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// assert_eq!(index.scheme(), None);
    /// CandidateIndex::insert(&mut index, 1u32, &PlainFingerprint::new(s, 5))?;
    /// assert_eq!(index.scheme(), Some(s));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> Option<SchemeId> {
        self.scheme
    }

    /// Sets the delta size that triggers a merge into the tables (`None`: the default
    /// `max(256, 4·√N)`). A larger delta makes inserts cheaper and queries dearer: a
    /// merge rewrites the tables, so an insert costs `O(N / limit)` amortized. Limits
    /// below `max(64, √N)` count as that, so that an insert costs at most `O(√N)`
    /// amortized whatever is asked (a limit of 0 read from saved bytes made every
    /// insert rewrite the tables).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?).with_delta_limit(Some(100));
    /// for i in 0..1000u64 {
    ///     index.insert(i, i << 40)?;
    /// }
    /// assert!(index.delta_len() <= 100);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn with_delta_limit(mut self, limit: Option<usize>) -> Self {
        self.delta_limit = limit;
        self
    }

    /// The parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let p = HammingParams::new(2, 4)?;
    /// assert_eq!(HammingIndex::<u8>::new(p).params(), p);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> HammingParams {
        self.params
    }

    /// The number of documents indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert('x', 1)?;
    /// index.insert('x', 2)?; // replaces
    /// assert_eq!(index.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the index holds no document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// assert!(HammingIndex::<u8>::new(HammingParams::new(3, 4)?).is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether a document with this key is indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(7u32, 42)?;
    /// assert!(index.contains_key(&7));
    /// assert!(!index.contains_key(&8));
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

    /// The fingerprint stored for a key.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert("a", 42)?;
    /// assert_eq!(index.fingerprint(&"a"), Some(42));
    /// assert_eq!(index.fingerprint(&"b"), None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fingerprint<Q>(&self, key: &Q) -> Option<u64>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.keys.slot(key).map(|s| self.fps[s as usize])
    }

    /// The number of inserts not yet merged into the tables.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u8, 5)?;
    /// assert_eq!(index.delta_len(), 1);
    /// index.compact();
    /// assert_eq!(index.delta_len(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn delta_len(&self) -> usize {
        self.delta_fps.len()
    }

    #[allow(clippy::cast_possible_truncation)] // 4·√N is far below usize::MAX
    fn limit(&self) -> usize {
        let main = self.tables.first().map_or(0, |t| t.keys.len());
        let root = (main as f64).sqrt() as usize;
        self.delta_limit
            .unwrap_or_else(|| (4 * root).max(256))
            .max(root.max(MIN_DELTA_LIMIT))
    }

    /// Adds a document without merging; re-inserting a key replaces its entry.
    pub(super) fn insert_delta(&mut self, key: K, fingerprint: u64) -> Result<(), Error> {
        if !self.keys.has_room(&key, MAX_DOCS - 1) {
            return Err(Error::invalid_input(format!(
                "a Hamming index holds at most {} documents",
                MAX_DOCS - 1
            )));
        }
        self.remove_no_merge(&key);
        let (slot, new) = self.keys.insert(key);
        if new {
            self.fps.push(fingerprint);
        } else {
            self.fps[slot as usize] = fingerprint;
        }
        self.delta_fps.push(fingerprint);
        self.delta_ids.push(slot);
        Ok(())
    }

    fn merge_if_due(&mut self) {
        if self.delta_fps.len() + self.retired.len() > self.limit() {
            self.compact();
        }
    }

    /// Adds a document; re-inserting a key replaces its previous fingerprint. Merges
    /// the delta into the tables when it is due (see the type's docs).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the index already holds `2^32 − 2` documents; the
    /// index is unchanged.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u32, 0b1011)?;
    /// assert_eq!(index.query(0b0011), vec![(1, 1)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn insert(&mut self, key: K, fingerprint: u64) -> Result<(), Error> {
        self.insert_delta(key, fingerprint)?;
        self.merge_if_due();
        Ok(())
    }

    /// Adds many documents and merges once: the bulk build. When the batch is at least
    /// an eighth of the index, every table is rebuilt by one radix sort; otherwise the
    /// sorted batch is merged in.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the index would exceed `2^32 − 2` documents; the
    /// documents before that point are inserted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("x", 0u64), ("y", 0b101), ("z", !0)])?;
    /// assert_eq!(index.delta_len(), 0);
    /// assert_eq!(index.all_pairs(), vec![near_dup::ScoredPair::new("x", "y", 1.0 - 2.0 / 64.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn extend<I: IntoIterator<Item = (K, u64)>>(&mut self, items: I) -> Result<(), Error> {
        let items = items.into_iter();
        let hint = items.size_hint().0.min(MAX_DOCS);
        self.keys.reserve(hint);
        self.fps.reserve(hint);
        self.delta_fps.reserve(hint);
        self.delta_ids.reserve(hint);
        let mut result = Ok(());
        for (key, fp) in items {
            if let Err(e) = self.insert_delta(key, fp) {
                result = Err(e);
                break;
            }
        }
        self.compact();
        result
    }

    fn remove_no_merge<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let Some(slot) = self.keys.remove_keep_slot(key) else {
            return false;
        };
        if let Some(pos) = self.delta_ids.iter().rposition(|&s| s == slot) {
            self.delta_ids.swap_remove(pos);
            self.delta_fps.swap_remove(pos);
            self.keys.release(slot);
        } else {
            self.retired.push(slot);
        }
        true
    }

    /// Removes a document; returns whether it was present.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("a", 1u64), ("b", 1)])?;
    /// assert!(index.remove(&"a"));
    /// assert!(!index.remove(&"a"));
    /// assert_eq!(index.query(1), vec![("b", 0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn remove<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let removed = self.remove_no_merge(key);
        if removed {
            self.merge_if_due();
        }
        removed
    }

    /// Merges the delta into the tables and purges removed entries (a no-op when there
    /// is nothing to do). `O(tables × N)`; a full radix sort when the delta is at
    /// least an eighth of the tables.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u8, 7)?;
    /// index.compact();
    /// assert_eq!((index.delta_len(), index.query(7).len()), (0, 1));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn compact(&mut self) {
        if self.delta_fps.is_empty() && self.retired.is_empty() {
            return;
        }
        // Dead entries are the retired slots: a bitset of them (N/8 bytes, cache
        // resident) replaces a random load per entry; none to test when none retired.
        let any_dead = !self.retired.is_empty();
        let mut dead = vec![
            0u64;
            if any_dead {
                self.fps.len().div_ceil(64)
            } else {
                0
            }
        ];
        for &r in &self.retired {
            dead[r as usize / 64] |= 1 << (r % 64);
        }
        let live = |id: u32| !any_dead || dead[id as usize / 64] & (1 << (id % 64)) == 0;
        let mut scratch = SortScratch::default();
        for (layout, table) in self.layouts.iter().zip(self.tables.iter_mut()) {
            let main = table.keys.len();
            let delta = self.delta_fps.len();
            let mut keys = Vec::with_capacity(main + delta);
            let mut ids = Vec::with_capacity(main + delta);
            if delta * 8 >= main {
                for (&k, &id) in table.keys.iter().zip(&table.ids) {
                    if live(id) {
                        keys.push(k);
                        ids.push(id);
                    }
                }
                keys.extend(self.delta_fps.iter().map(|&x| layout.permute(x)));
                ids.extend_from_slice(&self.delta_ids);
                radix_sort_top(&mut keys, &mut ids, layout.lead_bits, &mut scratch);
            } else {
                let mut d: Vec<(u64, u32)> = self
                    .delta_fps
                    .iter()
                    .zip(&self.delta_ids)
                    .map(|(&x, &id)| (layout.permute(x), id))
                    .collect();
                d.sort_by_key(|e| layout.group(e.0));
                let mut di = d.into_iter().peekable();
                for (&k, &id) in table.keys.iter().zip(&table.ids) {
                    let g = layout.group(k);
                    while let Some(&(dk, did)) = di.peek() {
                        if layout.group(dk) < g {
                            keys.push(dk);
                            ids.push(did);
                            di.next();
                        } else {
                            break;
                        }
                    }
                    if live(id) {
                        keys.push(k);
                        ids.push(id);
                    }
                }
                for (dk, did) in di {
                    keys.push(dk);
                    ids.push(did);
                }
            }
            table.keys = keys;
            table.ids = ids;
            table.rebuild_dir(layout.lead_bits);
        }
        self.delta_fps.clear();
        self.delta_ids.clear();
        // A bulk build leaves a delta as large as the index: give it back.
        let limit = self.limit();
        self.delta_fps.shrink_to(limit);
        self.delta_ids.shrink_to(limit);
        self.keys.release_all(&mut self.retired);
    }

    /// Calls `f(slot, distance)` for every live document within `k` bits of `q`.
    #[inline]
    fn for_each_match(&self, q: u64, mut f: impl FnMut(u32, u32)) {
        let k = self.params.max_distance();
        self.for_each_table_match(q, &mut f);
        match k {
            0 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<0>, &mut f),
            1 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<1>, &mut f),
            2 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<2>, &mut f),
            3 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<3>, &mut f),
            4 => scan_delta(&self.delta_fps, &self.delta_ids, q, at_most::<4>, &mut f),
            _ => scan_delta(
                &self.delta_fps,
                &self.delta_ids,
                q,
                |d: u64| d.count_ones() <= k,
                &mut f,
            ),
        }
    }

    /// Calls `f(slot, distance)` for every live merged document (in the tables, not
    /// the delta) within `k` bits of `q`.
    #[inline]
    fn for_each_table_match(&self, q: u64, mut f: impl FnMut(u32, u32)) {
        let k = self.params.max_distance();
        for (layout, table) in self.layouts.iter().zip(&self.tables) {
            let pq = layout.permute(q);
            let (lo, hi) = table.range(pq);
            for (&key, &id) in table.keys[lo..hi].iter().zip(&table.ids[lo..hi]) {
                let diff = key ^ pq;
                let d = diff.count_ones();
                if d <= k && layout.canonical(diff) && self.keys.key(id).is_some() {
                    f(id, d);
                }
            }
        }
    }

    /// Appends `(key, distance)` for every indexed document whose fingerprint differs
    /// from `fingerprint` in at most `k` bits, each once, in no particular order. An
    /// indexed document finds itself at distance 0. Allocation-free.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(2, 4)?);
    /// index.extend([(1u32, 0u64), (2, 0b11), (3, 0b111)])?;
    /// let mut out = Vec::new();
    /// index.query_into(0, &mut out);
    /// out.sort();
    /// assert_eq!(out, vec![(1, 0), (2, 2)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_into(&self, fingerprint: u64, out: &mut Vec<(K, u32)>) {
        self.for_each_match(fingerprint, |slot, d| {
            if let Some(k) = self.keys.key(slot) {
                out.push((k.clone(), d));
            }
        });
    }

    /// The documents within `k` bits of `fingerprint`, as `(key, distance)` sorted by
    /// distance (allocates; see [`query_into`](Self::query_into)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("far", 0b1110u64), ("near", 0b1)])?;
    /// assert_eq!(index.query(0), vec![("near", 1), ("far", 3)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn query(&self, fingerprint: u64) -> Vec<(K, u32)> {
        let mut out = Vec::new();
        self.query_into(fingerprint, &mut out);
        out.sort_by_key(|e| e.1);
        out
    }

    /// Calls `f(a, b, distance)` once for every pair of indexed documents within `k`
    /// bits, in no particular order (within a pair, either key may come first).
    ///
    /// Pairs among merged documents come from runs of equal leading bits in the sorted
    /// tables (no probe per document); each delta entry is probed against the tables
    /// and compared with the rest of the delta. Call [`compact`](Self::compact) first
    /// when the delta is large.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(1, 2)?);
    /// index.extend([(1u8, 0u64), (2, 1)])?;
    /// index.insert(3, 3)?; // still in the delta
    /// let mut pairs = Vec::new();
    /// index.for_each_pair(|a, b, d| pairs.push(((*a).min(*b), (*a).max(*b), d)));
    /// pairs.sort();
    /// assert_eq!(pairs, vec![(1, 2, 1), (2, 3, 1)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn for_each_pair<F: FnMut(&K, &K, u32)>(&self, mut f: F) {
        let k = self.params.max_distance();
        let key = |id: u32| self.keys.key(id);
        for (layout, table) in self.layouts.iter().zip(&self.tables) {
            scan_groups(layout, &table.keys, &table.ids, k, &mut |a, b, d| {
                if let (Some(ka), Some(kb)) = (key(a), key(b)) {
                    f(ka, kb, d);
                }
            });
        }
        let (dfps, dids) = (&self.delta_fps, &self.delta_ids);
        for (i, (&x, &xid)) in dfps.iter().zip(dids).enumerate() {
            let Some(kx) = key(xid) else { continue };
            self.for_each_table_match(x, |yid, d| {
                if let Some(ky) = key(yid) {
                    f(ky, kx, d);
                }
            });
            for (&y, &yid) in dfps[i + 1..].iter().zip(&dids[i + 1..]) {
                let d = (x ^ y).count_ones();
                if d <= k {
                    if let Some(ky) = key(yid) {
                        f(kx, ky, d);
                    }
                }
            }
        }
    }

    /// Every pair of indexed documents within `k` bits once, as [`ScoredPair`]s scored
    /// `1 − h/64` (see [`all_pairs_into`](Self::all_pairs_into)), most similar (fewest
    /// differing bits) first; [`hamming_from_similarity`](crate::hamming_from_similarity)
    /// gives the distance back.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{hamming_from_similarity, HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.extend([("a", 0u64), ("b", 0b1), ("c", 1 << 40)])?;
    /// let pairs = index.all_pairs();
    /// assert_eq!(pairs.len(), 3);
    /// assert_eq!(pairs[0].score, 1.0 - 1.0 / 64.0);
    /// assert_eq!(hamming_from_similarity(pairs[0].score), Some(1));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn all_pairs(&self) -> Vec<ScoredPair<K>> {
        let mut out = Vec::new();
        self.all_pairs_into(&mut out);
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        out
    }

    /// Pushes every pair of indexed documents within `k` bits into `sink` once, scored
    /// `1 − h/64` for their Hamming distance `h`, in no particular order (see
    /// [`for_each_pair`](Self::for_each_pair), which hands over the distance itself).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::PairCounter;
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(1, 2)?);
    /// index.extend([(1u8, 0u64), (2, 1), (3, 3)])?;
    /// let mut count = PairCounter::default();
    /// index.all_pairs_into(&mut count);
    /// assert_eq!(count.count, 2); // 1–2 and 2–3
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn all_pairs_into<P: PairSink<K> + ?Sized>(&self, sink: &mut P) {
        self.for_each_pair(|a, b, d| {
            sink.push_pair(ScoredPair::new(
                a.clone(),
                b.clone(),
                similarity_from_hamming(d),
            ));
        });
    }

    /// Bytes used, by part (see [`HammingMemory`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(3, 4)?);
    /// index.insert(1u64, 99)?;
    /// let m = index.memory();
    /// assert_eq!(m.documents, 1);
    /// assert_eq!(m.total_bytes(), m.index_bytes() + m.key_map);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> HammingMemory {
        HammingMemory {
            documents: self.len(),
            tables: self.tables.iter().map(Table::bytes).sum(),
            delta_and_fingerprints: self.delta_fps.capacity() * 8
                + self.delta_ids.capacity() * 4
                + self.fps.capacity() * 8,
            key_map: self.keys.memory_bytes() + self.retired.capacity() * 4,
        }
    }
}

impl<K: Clone + Eq + Hash, S: BitSignature> HammingIndex<K, S> {
    /// The signature's 64 bits, after checking its scheme against the index's and its
    /// length; with `fix`, the first signature fixes the scheme.
    fn check_signature(&mut self, signature: &S, fix: bool) -> Result<u64, Error> {
        let bits = self.signature_bits(signature)?;
        if fix && self.scheme.is_none() {
            self.scheme = Some(signature.scheme());
        }
        Ok(bits)
    }

    fn signature_bits(&self, signature: &S) -> Result<u64, Error> {
        if let Some(scheme) = self.scheme {
            Error::check_schemes(scheme, signature.scheme())?;
        }
        match (signature.num_bits(), signature.words()) {
            (64, [bits]) => Ok(*bits),
            (n, _) => Err(Error::LengthMismatch {
                expected: 64,
                actual: n,
            }),
        }
    }
}

/// Through this trait the index takes signatures with a scheme (see the type's docs);
/// `query_into` returns keys only, the distance dropped.
impl<K: Clone + Eq + Hash, S: BitSignature> CandidateIndex for HammingIndex<K, S> {
    type Key = K;
    type Signature = S;

    /// # Errors
    ///
    /// [`Error::Incompatible`] when the signature's scheme differs from the index's;
    /// [`Error::LengthMismatch`] when it does not have 64 bits; as
    /// [`HammingIndex::insert`] otherwise.
    fn insert(&mut self, key: K, signature: &S) -> Result<(), Error> {
        let bits = self.signature_bits(signature)?;
        HammingIndex::insert(self, key, bits)?;
        self.check_signature(signature, true).map(|_| ())
    }

    fn remove(&mut self, key: &K) -> bool {
        HammingIndex::remove(self, key)
    }

    fn query_into(&self, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        let bits = self.signature_bits(signature)?;
        self.for_each_match(bits, |slot, _| {
            if let Some(k) = self.keys.key(slot) {
                out.push(k.clone());
            }
        });
        Ok(())
    }

    fn len(&self) -> usize {
        HammingIndex::len(self)
    }

    fn query_then_insert(&mut self, key: K, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        let bits = self.signature_bits(signature)?;
        let start = out.len();
        self.remove_no_merge(&key);
        CandidateIndex::query_into(self, signature, out)?;
        if let Err(e) = HammingIndex::insert(self, key, bits) {
            out.truncate(start);
            return Err(e);
        }
        self.check_signature(signature, true).map(|_| ())
    }

    /// Scored `1 − h/64` ([`HammingIndex::all_pairs_into`]).
    fn all_pairs_into(&self, sink: &mut dyn PairSink<K>) {
        HammingIndex::all_pairs_into(self, sink);
    }
}

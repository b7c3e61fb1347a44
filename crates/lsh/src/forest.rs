//! [`LshForest`]: top-k similarity search over slot signatures (prefix trees that
//! adapt the band length to the query), incremental; its [`ForestParams`].

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::Hash;

use ahash::AHashSet;
use ndd_core::{Error, Estimate, KeySlots, SchemeId, SlotSignature};

use crate::params::{check_shape, check_slots_read};
use crate::table::MAX_DOCS;

mod bytes;
mod probe;

pub use probe::ForestProbe;

/// Inserts kept aside (scanned by every query) before they are merged into the sorted
/// trees: at least this many, or `√n` for `n` indexed documents.
const MIN_PENDING: usize = 64;

/// The shape of an [`LshForest`]: `trees` prefix trees, each over `depth` consecutive
/// slots of the signature (tree `t` reads slots `t·depth .. (t+1)·depth`).
///
/// Two documents whose slots agree with probability `s` (MinHash: the Jaccard
/// similarity) share a prefix of length `d` in one tree with probability `s^d`, and in
/// at least one tree with probability `1 − (1 − s^d)^trees`
/// ([`probability`](Self::probability)): a banded index of `trees` bands whose rows
/// per band the query chooses, from `depth` (few, close candidates) down to 1 (many,
/// loose ones). More trees raise recall at every depth and cost memory and query
/// time in proportion; a greater depth lets a query in a dense region stop on fewer,
/// closer candidates.
///
/// Cost per document: `8 · trees · depth` bytes of slot values plus 12 bytes per
/// tree; per query: one binary search per tree (`log₂ n` comparisons of up to
/// `depth` values) plus the candidates examined.
///
/// # Example
///
/// ```
/// use near_dup::lsh::ForestParams;
/// let p = ForestParams::for_slots(128)?; // datasketch's MinHashLSHForest default
/// assert_eq!((p.trees(), p.depth()), (8, 16));
/// // A pair at Jaccard 0.5 shares a 4-slot prefix in some tree with probability 0.40.
/// assert!((p.probability(0.5, 4) - 0.4033).abs() < 1e-4);
/// assert!(ForestParams::new(0, 4).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ForestParams {
    trees: usize,
    depth: usize,
}

impl ForestParams {
    /// `trees` trees of `depth` slots each.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when either is 0 or `trees × depth` is above
    /// [`MAX_BANDED_SLOTS`](crate::MAX_BANDED_SLOTS).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::ForestParams::new(16, 8)?;
    /// assert_eq!(p.slots_used(), 128);
    /// assert!(near_dup::lsh::ForestParams::new(4, 0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(trees: usize, depth: usize) -> Result<Self, Error> {
        check_shape(("trees", trees), ("depth", depth), "")?;
        Ok(ForestParams { trees, depth })
    }

    /// The default shape for signatures of `num_slots` slots: 8 trees of
    /// `num_slots / 8` slots (datasketch's `MinHashLSHForest(num_perm, l=8)`), or one
    /// tree per slot for fewer than 8 slots. On the bundled Debian corpus, 8 trees of 16
    /// with the default 4 candidates per result found 92% of the exact top 10 after
    /// re-ranking by exact Jaccard, and 97% of what a brute-force ranking by the
    /// MinHash estimate finds (`docs/decisions.md`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `num_slots` is 0 or above
    /// [`MAX_BANDED_SLOTS`](crate::MAX_BANDED_SLOTS).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::ForestParams;
    /// assert_eq!(ForestParams::for_slots(256)?, ForestParams::new(8, 32)?);
    /// assert_eq!(ForestParams::for_slots(4)?, ForestParams::new(4, 1)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn for_slots(num_slots: usize) -> Result<Self, Error> {
        if num_slots == 0 {
            return Err(Error::invalid_parameter("num_slots", "must be at least 1"));
        }
        let trees = num_slots.min(8);
        Self::new(trees, num_slots / trees)
    }

    /// The number of trees `l`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::ForestParams::new(8, 16)?.trees(), 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub const fn trees(&self) -> usize {
        self.trees
    }

    /// The slots per tree: the longest prefix a query matches on.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::ForestParams::new(8, 16)?.depth(), 16);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub const fn depth(&self) -> usize {
        self.depth
    }

    /// `trees × depth`: the leading slots of a signature the forest stores and reads.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::ForestParams::new(8, 16)?.slots_used(), 128);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub const fn slots_used(&self) -> usize {
        self.trees * self.depth
    }

    /// `1 − (1 − s^d)^trees`: the probability that a document whose slots agree with
    /// the query's with probability `s` shares a prefix of length `d` with it in at
    /// least one tree (`d` is clamped into `1..=depth`, `s` into `[0, 1]`).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::lsh::ForestParams::new(1, 8)?;
    /// assert!((p.probability(0.5, 3) - 0.125).abs() < 1e-12);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn probability(&self, s: f64, d: usize) -> f64 {
        let d = i32::try_from(d.clamp(1, self.depth)).unwrap_or(i32::MAX);
        let s = s.clamp(0.0, 1.0);
        -(self.trees as f64 * (-s.powi(d)).ln_1p()).exp_m1()
    }

    fn check_signature_len(&self, len: usize) -> Result<(), Error> {
        check_slots_read("trees × depth", self.trees, self.depth, len)
    }
}

/// Top-k similarity search: the LSH Forest of Bawa, Condie and Ganesan over slot
/// signatures (MinHash), generic over the user's document key `K`, incremental
/// (insert and remove at any time, between queries).
///
/// Each document's first `trees × depth` slot values are kept and sorted, per tree,
/// lexicographically over that tree's `depth` slots: a prefix tree laid out as a
/// sorted array. A query finds its place in each tree by binary search and widens its
/// match from the full depth towards shorter prefixes until it has gathered enough
/// candidates; the candidates are then ranked by the agreement of their stored slots
/// with the query's (the MinHash estimate), or by a measure of the caller's
/// ([`query_verified`](Self::query_verified)).
///
/// # What a query examines, exactly
///
/// Let `E_t(d)` be the indexed documents whose tree-`t` prefix of length `d` equals
/// the query's. The candidates are `⋃_t E_t(d)` for the largest `d` at which that
/// union holds at least the requested number of candidates (or `d = 1`), with one
/// bound on the work: a depth whose `Σ_t |E_t(d)|` exceeds
/// [`max_examined`](LshForestBuilder::max_examined) is not taken (the query keeps the
/// deeper, smaller set), and at the full depth each tree contributes at most that
/// many documents, the oldest first. These sets depend on the indexed documents only,
/// not on the order of inserts, removals and queries: an index built incrementally,
/// with queries between batches, answers exactly as one built at once, and a removed
/// document leaves no trace. Ties in rank go to the earlier-inserted document.
///
/// # Layout, cost and incrementality
///
/// Per tree, a sorted array of document slots with each one's first value in the tree
/// (12 bytes per entry); per document, its
/// `trees × depth` slot values (8 bytes each) and an insertion number. New documents
/// wait in a small unsorted list (scanned by each query) until it holds `max(64,
/// √n)` of them, then are merged into every tree at once (`O(trees · n)`), so an
/// insert costs `O(trees · √n)` amortized. Removal takes a document out of each tree
/// by binary search and a shift of the array behind it (`4 · n` bytes per tree at
/// most). [`memory`](Self::memory) reports the bytes: about 1,180 per document for 8
/// trees of 16 slots and `usize` keys (measured on 66,855 documents).
///
/// [`to_bytes`](Self::to_bytes) / [`from_bytes`](Self::from_bytes) save and load the
/// forest (versioned, checksummed; the trees are re-sorted on load).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
/// let s = SchemeId::new("demo").finish();
/// let sig = |v: &[u64]| PlainSlots::new(s, v.to_vec());
///
/// let mut forest = LshForest::new(ForestParams::new(2, 4)?);
/// forest.insert("a", &sig(&[1, 2, 3, 4, 5, 6, 7, 8])?)?;
/// forest.insert("b", &sig(&[1, 2, 3, 9, 5, 6, 7, 9])?)?; // 6 of 8 slots agree with "a"
/// forest.insert("c", &sig(&[9, 9, 9, 9, 9, 9, 9, 9])?)?;
/// let top = forest.query(&sig(&[1, 2, 3, 4, 5, 6, 7, 8])?, 2)?;
/// assert_eq!(top[0].0, "a");
/// assert_eq!((top[1].0, top[1].1.value()), ("b", 0.75));
/// assert!(forest.remove(&"a"));
/// assert_eq!(forest.query(&sig(&[1, 2, 3, 4, 5, 6, 7, 8])?, 1)?[0].0, "b");
/// # Ok::<(), near_dup::Error>(())
/// ```
///
/// # References
///
/// - M. Bawa, T. Condie and P. Ganesan, "LSH Forest: self-tuning indexes for
///   similarity search", WWW 2005 (section 3: the prefix trees and the
///   synchronous descent over all trees; here the trees are sorted arrays, as in
///   datasketch's `MinHashLSHForest`).
#[derive(Clone)]
pub struct LshForest<K> {
    params: ForestParams,
    scheme: Option<SchemeId>,
    /// `rows[slot·L .. (slot+1)·L]`: the document's first `L = trees × depth` slots.
    rows: Vec<u64>,
    /// Insertion number per slot (the order of ties and of `to_bytes`).
    seq: Vec<u64>,
    keys: KeySlots<K>,
    /// Per tree, the merged documents sorted by (tree slots, insertion number).
    trees: Vec<Tree>,
    /// Documents inserted since the last merge, oldest first.
    pending: Vec<u32>,
    next_seq: u64,
    oversample: usize,
    max_examined: usize,
}

/// Configures an [`LshForest`]: how many candidates a query gathers per result, the
/// bound on the work of one query, and how many documents to make room for. Made by
/// [`LshForest::builder`].
///
/// # Example
///
/// ```
/// use near_dup::lsh::{ForestParams, LshForest};
/// let forest: LshForest<u32> = LshForest::builder(ForestParams::for_slots(128)?)
///     .candidates_per_result(4)
///     .max_examined(5_000)
///     .capacity(1_000)
///     .build();
/// assert_eq!(forest.candidates_per_result(), 4);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct LshForestBuilder<K> {
    params: ForestParams,
    oversample: usize,
    max_examined: usize,
    capacity: usize,
    _key: std::marker::PhantomData<fn() -> K>,
}

/// The default of [`LshForestBuilder::candidates_per_result`]: a query for the top
/// `k` gathers at least `4k` candidates before ranking them (measured on the bundled
/// Debian corpus with 8 trees of 16: recall at 10 of the exact top 10, re-ranked by
/// exact Jaccard, rose from 0.82 with `k` candidates to 0.92 with `4k` and 0.95 with
/// `16k`; `docs/decisions.md`).
///
/// # Example
///
/// ```
/// use near_dup::lsh::{DEFAULT_CANDIDATES_PER_RESULT, ForestParams, LshForest};
/// let f: LshForest<u8> = LshForest::new(ForestParams::new(2, 2)?);
/// assert_eq!(f.candidates_per_result(), DEFAULT_CANDIDATES_PER_RESULT);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_CANDIDATES_PER_RESULT: usize = 4;

/// The default of [`LshForestBuilder::max_examined`]: a query examines at most about
/// 10,000 documents per depth (a few milliseconds), however many share a prefix.
///
/// # Example
///
/// ```
/// use near_dup::lsh::{DEFAULT_MAX_EXAMINED, ForestParams, LshForest};
/// let f: LshForest<u8> = LshForest::new(ForestParams::new(2, 2)?);
/// assert_eq!(f.max_examined(), DEFAULT_MAX_EXAMINED);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const DEFAULT_MAX_EXAMINED: usize = 10_000;

impl<K: Clone + Eq + Hash> LshForestBuilder<K> {
    /// A query for the top `k` gathers at least `factor · k` candidates (when the
    /// forest has them within the work bound) before ranking: the recall/speed knob.
    /// 1 is datasketch's behaviour; 0 is taken as 1. Default
    /// [`DEFAULT_CANDIDATES_PER_RESULT`]. Cost: ranking is linear in the candidates.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<u8> = LshForest::builder(ForestParams::new(2, 2)?).candidates_per_result(0).build();
    /// assert_eq!(f.candidates_per_result(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn candidates_per_result(mut self, factor: usize) -> Self {
        self.oversample = factor.max(1);
        self
    }

    /// Bounds a query's work: a shorter prefix is not taken when the trees hold more
    /// than `documents` matches for it in total, and at the full depth each tree
    /// contributes at most `documents` (the oldest). 0 is taken as 1. Default
    /// [`DEFAULT_MAX_EXAMINED`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<u8> = LshForest::builder(ForestParams::new(2, 2)?).max_examined(100).build();
    /// assert_eq!(f.max_examined(), 100);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn max_examined(mut self, documents: usize) -> Self {
        self.max_examined = documents.max(1);
        self
    }

    /// Makes room for `documents` documents up front (a hint; a failed reservation is
    /// dropped).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<u8> = LshForest::builder(ForestParams::new(2, 2)?).capacity(100).build();
    /// assert!(f.memory().slot_values >= 100 * 4 * 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn capacity(mut self, documents: usize) -> Self {
        self.capacity = documents.min(MAX_DOCS);
        self
    }

    /// The empty forest.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<String> = LshForest::builder(ForestParams::new(2, 2)?).build();
    /// assert!(f.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn build(self) -> LshForest<K> {
        let n = self.capacity;
        let l = self.params.slots_used();
        let mut f = LshForest {
            params: self.params,
            scheme: None,
            rows: Vec::new(),
            seq: Vec::new(),
            keys: KeySlots::new(),
            trees: vec![Tree::default(); self.params.trees()],
            pending: Vec::new(),
            next_seq: 0,
            oversample: self.oversample,
            max_examined: self.max_examined,
        };
        if n > 0 {
            if let Some(nl) = n.checked_mul(l) {
                let _ = f.rows.try_reserve_exact(nl);
            }
            let _ = f.seq.try_reserve_exact(n);
            f.keys.try_reserve(n);
            for t in &mut f.trees {
                let _ = t.heads.try_reserve_exact(n);
                let _ = t.slots.try_reserve_exact(n);
            }
        }
        f
    }
}

/// Memory used by an [`LshForest`], in bytes, from [`LshForest::memory`] (allocated
/// capacity, so growth slack shows).
///
/// # Example
///
/// ```
/// let m = near_dup::lsh::ForestMemory::default();
/// assert_eq!(m.total_bytes(), 0);
/// assert_eq!(m.bytes_per_document(), 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ForestMemory {
    /// Documents indexed.
    pub documents: usize,
    /// The stored slot values: 8 bytes per slot used per document.
    pub slot_values: usize,
    /// The sorted trees and the pending list: 12 bytes per document per tree (its
    /// slot and its first value in the tree).
    pub trees: usize,
    /// Insertion numbers (8 bytes per document), the key map and the slot → key
    /// array, as [`MemoryReport::key_map`](crate::MemoryReport::key_map) counts them.
    pub key_map: usize,
}

impl ForestMemory {
    /// Everything.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::ForestMemory::default().total_bytes(), 0);
    /// ```
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        self.slot_values + self.trees + self.key_map
    }

    /// [`total_bytes`](Self::total_bytes) per document (0 when empty).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::ForestMemory::default().bytes_per_document(), 0.0);
    /// ```
    #[must_use]
    pub fn bytes_per_document(&self) -> f64 {
        crate::mem::per_document(self.total_bytes(), self.documents)
    }
}

impl<K> fmt::Debug for LshForest<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshForest")
            .field("params", &self.params)
            .field("scheme", &self.scheme)
            .field("documents", &self.keys.len())
            .finish_non_exhaustive()
    }
}

/// One tree's sorted array: the documents' slots and, beside them, each one's first
/// value in the tree, so that binary searches and prefix scans decide most comparisons
/// without reading the document's stored slots (a cache miss each).
#[derive(Clone, Default)]
struct Tree {
    heads: Vec<u64>,
    slots: Vec<u32>,
}

impl Tree {
    fn len(&self) -> usize {
        self.slots.len()
    }
}

/// A query's place in one tree: the sorted range `[lo, hi)` matched so far and the
/// common prefix lengths of the entries just outside it.
struct Cursor {
    lo: usize,
    hi: usize,
}

impl<K: Clone + Eq + Hash> LshForest<K> {
    /// An empty forest with default settings.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<u64> = LshForest::new(ForestParams::for_slots(128)?);
    /// assert_eq!(f.params().trees(), 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new(params: ForestParams) -> Self {
        Self::builder(params).build()
    }

    /// A builder for a forest of this shape.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<u64> = LshForest::builder(ForestParams::new(4, 4)?).max_examined(50).build();
    /// assert_eq!(f.max_examined(), 50);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder(params: ForestParams) -> LshForestBuilder<K> {
        LshForestBuilder {
            params,
            oversample: DEFAULT_CANDIDATES_PER_RESULT,
            max_examined: DEFAULT_MAX_EXAMINED,
            capacity: 0,
            _key: std::marker::PhantomData,
        }
    }

    /// The shape.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<u8> = LshForest::new(ForestParams::new(3, 5)?);
    /// assert_eq!(f.params(), ForestParams::new(3, 5)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> ForestParams {
        self.params
    }

    /// The scheme fixed by the first insert (`None` before it).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("demo").finish();
    /// let mut f = LshForest::new(ForestParams::new(1, 2)?);
    /// assert_eq!(f.scheme(), None);
    /// f.insert(1u8, &PlainSlots::new(s, vec![1, 2])?)?;
    /// assert_eq!(f.scheme(), Some(s));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> Option<SchemeId> {
        self.scheme
    }

    /// See [`LshForestBuilder::candidates_per_result`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let mut f: LshForest<u8> = LshForest::new(ForestParams::new(2, 2)?);
    /// f.set_candidates_per_result(8);
    /// assert_eq!(f.candidates_per_result(), 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn candidates_per_result(&self) -> usize {
        self.oversample
    }

    /// Changes [`candidates_per_result`](LshForestBuilder::candidates_per_result) (a
    /// setting of the process, not saved by [`to_bytes`](Self::to_bytes)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let mut f: LshForest<u8> = LshForest::new(ForestParams::new(2, 2)?);
    /// f.set_candidates_per_result(2);
    /// assert_eq!(f.candidates_per_result(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn set_candidates_per_result(&mut self, factor: usize) {
        self.oversample = factor.max(1);
    }

    /// See [`LshForestBuilder::max_examined`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let f: LshForest<u8> = LshForest::new(ForestParams::new(2, 2)?);
    /// assert_eq!(f.max_examined(), 10_000);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_examined(&self) -> usize {
        self.max_examined
    }

    /// Changes [`max_examined`](LshForestBuilder::max_examined) (not saved).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// let mut f: LshForest<u8> = LshForest::new(ForestParams::new(2, 2)?);
    /// f.set_max_examined(10);
    /// assert_eq!(f.max_examined(), 10);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn set_max_examined(&mut self, documents: usize) {
        self.max_examined = documents.max(1);
    }

    /// The number of documents indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let mut f = LshForest::new(ForestParams::new(1, 1)?);
    /// f.insert("x", &PlainSlots::new(SchemeId::new("d").finish(), vec![1])?)?;
    /// assert_eq!(f.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the forest holds no document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// assert!(LshForest::<u8>::new(ForestParams::new(1, 1)?).is_empty());
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
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let mut f = LshForest::new(ForestParams::new(1, 1)?);
    /// f.insert(7u32, &PlainSlots::new(SchemeId::new("d").finish(), vec![1])?)?;
    /// assert!(f.contains_key(&7));
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

    fn check_signature<S: SlotSignature>(&self, signature: &S) -> Result<(), Error> {
        if let Some(scheme) = self.scheme {
            Error::check_schemes(scheme, signature.scheme())?;
        }
        self.params.check_signature_len(signature.slots().len())
    }

    #[inline]
    fn row(&self, slot: u32) -> &[u64] {
        let l = self.params.slots_used();
        &self.rows[slot as usize * l..(slot as usize + 1) * l]
    }

    /// Tree `t`'s slots of the document in `slot`.
    #[inline]
    fn tree_key(&self, slot: u32, t: usize) -> &[u64] {
        let m = self.params.depth();
        &self.row(slot)[t * m..(t + 1) * m]
    }

    /// The order of a tree's sorted array: its slots, then the insertion number.
    #[inline]
    fn cmp_in_tree(&self, a: u32, b: u32, t: usize) -> Ordering {
        self.tree_key(a, t)
            .cmp(self.tree_key(b, t))
            .then(self.seq[a as usize].cmp(&self.seq[b as usize]))
    }

    /// The order of entry `i` of `tree` against the document in `slot`, deciding by
    /// the stored first value when it differs.
    #[inline]
    fn cmp_entry(&self, tree: &Tree, i: usize, slot: u32, t: usize) -> Ordering {
        tree.heads[i]
            .cmp(&self.tree_key(slot, t)[0])
            .then_with(|| self.cmp_in_tree(tree.slots[i], slot, t))
    }

    /// Adds a document; re-inserting a key replaces its previous entry (which then
    /// counts as the newest).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the signature's scheme differs from the forest's
    /// (fixed by the first insert); [`Error::InvalidParameter`] when it has fewer than
    /// `trees × depth` slots; [`Error::InvalidInput`] when the forest already holds
    /// 3·2³⁰ documents. The forest is unchanged on error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let mut f = LshForest::new(ForestParams::new(2, 2)?);
    /// let s = SchemeId::new("d").finish();
    /// f.insert(1u32, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// assert!(f.insert(2, &PlainSlots::new(s, vec![1, 2, 3])?).is_err()); // too short
    /// assert!(f.insert(3, &PlainSlots::new(SchemeId::new("other").finish(), vec![1, 2, 3, 4])?).is_err());
    /// assert_eq!(f.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn insert<S: SlotSignature>(&mut self, key: K, signature: &S) -> Result<(), Error> {
        self.check_signature(signature)?;
        if !self.keys.has_room(&key, MAX_DOCS) {
            return Err(Error::invalid_input(format!(
                "an LSH forest holds at most {MAX_DOCS} documents"
            )));
        }
        self.remove(&key);
        let l = self.params.slots_used();
        let slot = self.alloc_slot(key);
        let base = slot as usize * l;
        self.rows[base..base + l].copy_from_slice(&signature.slots()[..l]);
        self.seq[slot as usize] = self.next_seq;
        self.next_seq += 1;
        self.scheme = Some(signature.scheme());
        self.pending.push(slot);
        if self.pending.len() >= pending_limit(self.keys.len()) {
            self.merge_pending();
        }
        Ok(())
    }

    /// A free document slot for `key`, which is not indexed (the caller has checked
    /// the document limit).
    fn alloc_slot(&mut self, key: K) -> u32 {
        let (slot, new) = self.keys.insert(key);
        if new {
            let l = self.params.slots_used();
            self.rows.resize(self.rows.len() + l, 0);
            self.seq.push(0);
        }
        slot
    }

    /// Merges the pending documents into every tree.
    fn merge_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        let mut trees = std::mem::take(&mut self.trees);
        for (t, tree) in trees.iter_mut().enumerate() {
            pending.sort_unstable_by(|&a, &b| self.cmp_in_tree(a, b, t));
            let old = std::mem::take(tree);
            let n = old.len() + pending.len();
            let mut merged = Tree {
                heads: Vec::with_capacity(n),
                slots: Vec::with_capacity(n),
            };
            // Each pending document's place by binary search (the sorted run is long,
            // the pending list short), then whole runs copied: p·log n comparisons
            // instead of n + p.
            let mut from = 0;
            for &d in &pending {
                let at = from
                    + lower_bound(old.len() - from, |i| {
                        self.cmp_entry(&old, from + i, d, t) == Ordering::Less
                    });
                merged.heads.extend_from_slice(&old.heads[from..at]);
                merged.slots.extend_from_slice(&old.slots[from..at]);
                merged.heads.push(self.tree_key(d, t)[0]);
                merged.slots.push(d);
                from = at;
            }
            merged.heads.extend_from_slice(&old.heads[from..]);
            merged.slots.extend_from_slice(&old.slots[from..]);
            *tree = merged;
        }
        self.trees = trees;
        pending.clear();
        self.pending = pending;
    }

    /// Removes a document; returns whether it was present.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let mut f = LshForest::new(ForestParams::new(1, 2)?);
    /// f.insert("a", &s)?;
    /// f.insert("b", &s)?;
    /// assert!(f.remove(&"a"));
    /// assert!(!f.remove(&"a"));
    /// assert_eq!(f.query(&s, 5)?.len(), 1);
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
        if let Some(p) = self.pending.iter().position(|&d| d == slot) {
            self.pending.remove(p);
        } else {
            let mut trees = std::mem::take(&mut self.trees);
            for (t, tree) in trees.iter_mut().enumerate() {
                let p = lower_bound(tree.len(), |i| {
                    self.cmp_entry(tree, i, slot, t) == Ordering::Less
                });
                if p < tree.len() && tree.slots[p] == slot {
                    tree.heads.remove(p);
                    tree.slots.remove(p);
                } else {
                    debug_assert!(false, "indexed document missing from tree {t}");
                }
            }
            self.trees = trees;
        }
        true
    }

    /// Walks the forest for the query `q` (its first `L` slots) gathering at least
    /// `want` candidates for `k` results, each scored by `score(slot)` as it is met,
    /// no shallower than depth `floor`: the forest's one search, whose
    /// [`ForestProbe::top`] is a query's answer.
    fn walk(
        &self,
        q: &[u64],
        (k, want, floor): (usize, usize, usize),
        mut score: impl FnMut(u32) -> f64,
    ) -> ForestProbe<K> {
        let m = self.params.depth();
        let trees = self.params.trees();
        let cap = self.max_examined;
        let mut probe = ForestProbe::new(k, want, cap, trees, m);
        if want == 0 {
            return probe;
        }
        let lcp = |slot: u32, t: usize| -> usize {
            common_prefix(self.tree_key(slot, t), &q[t * m..(t + 1) * m])
        };
        // The common prefix length of entry `i` of tree `t`: 0 from the stored first
        // value alone when it differs.
        let entry_lcp = |tree: &Tree, i: usize, t: usize| -> usize {
            if tree.heads[i] == q[t * m] {
                lcp(tree.slots[i], t)
            } else {
                0
            }
        };
        // Each tree's place: the first entry not below the query.
        let mut cursors: Vec<Cursor> = (0..trees)
            .map(|t| {
                let qt = &q[t * m..(t + 1) * m];
                let tree = &self.trees[t];
                let pos = lower_bound(tree.len(), |i| match tree.heads[i].cmp(&qt[0]) {
                    Ordering::Less => true,
                    Ordering::Greater => false,
                    Ordering::Equal => self.tree_key(tree.slots[i], t) < qt,
                });
                Cursor { lo: pos, hi: pos }
            })
            .collect();
        // Pending documents' common prefix lengths, per tree.
        let pending_lcp: Vec<usize> = (0..trees)
            .flat_map(|t| self.pending.iter().map(move |&d| (d, t)))
            .map(|(d, t)| lcp(d, t))
            .collect();
        let np = self.pending.len();

        let mut seen = AHashSet::<u32>::default();
        let mut add = |probe: &mut ForestProbe<K>, slot: u32, depth: usize| {
            if seen.insert(slot) {
                if let Some(key) = self.keys.key(slot) {
                    probe.push(self.seq[slot as usize], depth, key.clone(), score(slot));
                }
            }
        };
        // Depth m: the equal entries, oldest first (merged before pending), at most
        // `cap` per tree.
        let mut truncated = false;
        for (t, c) in cursors.iter_mut().enumerate() {
            let tree = &self.trees[t];
            let mut taken = 0;
            let mut over = false;
            while c.hi < tree.len() && entry_lcp(tree, c.hi, t) >= m {
                if taken == cap {
                    over = true;
                    break;
                }
                let s = tree.slots[c.hi];
                probe.push_full(t, Some(self.seq[s as usize]));
                add(&mut probe, s, m);
                c.hi += 1;
                taken += 1;
            }
            for (p, &s) in self.pending.iter().enumerate() {
                if over || pending_lcp[t * np + p] < m {
                    continue;
                }
                if taken == cap {
                    over = true;
                    break;
                }
                probe.push_full(t, Some(self.seq[s as usize]));
                add(&mut probe, s, m);
                taken += 1;
            }
            if over {
                probe.push_full(t, None);
                truncated = true;
            }
        }
        if truncated {
            return probe;
        }
        let mut d = m;
        while d > floor.max(1) && probe.len() < want {
            d -= 1;
            // The work of depth d first: a depth over the bound is not taken.
            let mut work = 0usize;
            for (t, c) in cursors.iter_mut().enumerate() {
                let tree = &self.trees[t];
                while c.hi < tree.len() && entry_lcp(tree, c.hi, t) >= d {
                    c.hi += 1;
                }
                while c.lo > 0 && entry_lcp(tree, c.lo - 1, t) >= d {
                    c.lo -= 1;
                }
                work += c.hi - c.lo;
                work += pending_lcp[t * np..(t + 1) * np]
                    .iter()
                    .filter(|&&x| x >= d)
                    .count();
                if work > cap {
                    break;
                }
            }
            probe.push_work(work);
            if work > cap {
                // Keep the deeper depth's set.
                break;
            }
            for (t, c) in cursors.iter().enumerate() {
                for &s in &self.trees[t].slots[c.lo..c.hi] {
                    add(&mut probe, s, d);
                }
                for (p, &s) in self.pending.iter().enumerate() {
                    if pending_lcp[t * np + p] >= d {
                        add(&mut probe, s, d);
                    }
                }
            }
        }
        probe
    }

    /// What this forest holds for a top-`k` query by the MinHash estimate over the
    /// stored `trees × depth` slots (see [`ForestProbe`]): [`query`](Self::query) is
    /// its [`top`](ForestProbe::top); the probes of forests over consecutive parts of a
    /// collection, merged, answer as one forest over the whole.
    ///
    /// # Errors
    ///
    /// As [`candidates_into`](Self::candidates_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshForest::new(ForestParams::new(2, 2)?);
    /// f.insert(1u32, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// let q = PlainSlots::new(s, vec![1, 2, 3, 9])?;
    /// assert_eq!(f.probe(&q, 1)?.top(), vec![(1, 0.75)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn probe<S: SlotSignature>(
        &self,
        signature: &S,
        k: usize,
    ) -> Result<ForestProbe<K>, Error> {
        self.probe_with(signature, k, 1, None::<fn(&K) -> f64>)
    }

    /// [`probe`](Self::probe) with each candidate scored by `score(key)`, a measure of
    /// the caller's ([`query_verified`](Self::query_verified) is its
    /// [`top`](ForestProbe::top)).
    ///
    /// # Errors
    ///
    /// As [`candidates_into`](Self::candidates_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshForest::new(ForestParams::new(1, 1)?);
    /// f.insert("a", &PlainSlots::new(s, vec![0])?)?;
    /// let probe = f.probe_verified(&PlainSlots::new(s, vec![0])?, 1, |k| k.len() as f64)?;
    /// assert_eq!(probe.top(), vec![("a", 1.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn probe_verified<S: SlotSignature, F: FnMut(&K) -> f64>(
        &self,
        signature: &S,
        k: usize,
        score: F,
    ) -> Result<ForestProbe<K>, Error> {
        self.probe_with(signature, k, 1, Some(score))
    }

    /// [`probe`](Self::probe) (`score` `None`: by the MinHash estimate) or
    /// [`probe_verified`](Self::probe_verified) of this forest, holding documents
    /// inserted after those of the forests `older` merges, for [`ForestProbe::merge`]
    /// into it: the same `k` as `older`'s, and no walk below the depth `older` already
    /// shows the whole search stops at (fewer candidates examined and scored; the merged
    /// answer is the same).
    ///
    /// # Errors
    ///
    /// As [`candidates_into`](Self::candidates_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let (mut old, mut new) = (LshForest::new(ForestParams::new(1, 3)?), LshForest::new(ForestParams::new(1, 3)?));
    /// old.insert(0, &PlainSlots::new(s, vec![1, 2, 3])?)?;
    /// new.insert(1, &PlainSlots::new(s, vec![1, 2, 9])?)?;
    /// let q = PlainSlots::new(s, vec![1, 2, 3])?;
    /// let mut probe = old.probe(&q, 1)?;
    /// let next = new.probe_after(&q, &probe, None::<fn(&u32) -> f64>)?;
    /// probe.merge(next)?;
    /// assert_eq!(probe.top(), vec![(0, 1.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn probe_after<S: SlotSignature, F: FnMut(&K) -> f64>(
        &self,
        signature: &S,
        older: &ForestProbe<K>,
        score: Option<F>,
    ) -> Result<ForestProbe<K>, Error> {
        self.probe_with(signature, older.k(), older.floor(), score)
    }

    /// The probe for the top `k` walking no shallower than depth `floor`: each
    /// candidate scored by `score(key)` when given, else by the MinHash estimate
    /// ([`agreement`](Self::agreement)).
    fn probe_with<S: SlotSignature, F: FnMut(&K) -> f64>(
        &self,
        signature: &S,
        k: usize,
        floor: usize,
        score: Option<F>,
    ) -> Result<ForestProbe<K>, Error> {
        let q = self.checked_slots(signature)?;
        let shape = (k, k.saturating_mul(self.oversample), floor);
        Ok(match score {
            Some(mut score) => {
                self.walk(q, shape, |s| self.keys.key(s).map_or(f64::NAN, &mut score))
            }
            None => self.walk(q, shape, |s| self.agreement(s, q)),
        })
    }

    /// The query's first `trees × depth` slots, after the checks of a query.
    fn checked_slots<'s, S: SlotSignature>(&self, signature: &'s S) -> Result<&'s [u64], Error> {
        self.check_signature(signature)?;
        Ok(&signature.slots()[..self.params.slots_used()])
    }

    /// The fraction of the stored slots equal to the query's: the MinHash estimate
    /// over `trees × depth` slots.
    fn agreement(&self, slot: u32, q: &[u64]) -> f64 {
        let row = self.row(slot);
        let agree = row.iter().zip(q).filter(|(a, b)| a == b).count() as f64;
        agree / row.len() as f64
    }

    /// Appends to `out` the keys of the candidates a query gathers (see the type's
    /// docs: at least `min_candidates` when the forest holds them within the work
    /// bound), oldest first, unranked.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] for a signature of another scheme;
    /// [`Error::InvalidParameter`] for one shorter than `trees × depth` slots.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshForest::new(ForestParams::new(1, 3)?);
    /// f.insert('a', &PlainSlots::new(s, vec![1, 2, 3])?)?;
    /// f.insert('b', &PlainSlots::new(s, vec![1, 2, 9])?)?;
    /// f.insert('c', &PlainSlots::new(s, vec![1, 8, 9])?)?;
    /// let q = PlainSlots::new(s, vec![1, 2, 3])?;
    /// let mut out = Vec::new();
    /// f.candidates_into(&q, 2, &mut out)?; // depth 2 holds a and b
    /// assert_eq!(out, vec!['a', 'b']);
    /// out.clear();
    /// f.candidates_into(&q, 3, &mut out)?; // depth 1 holds all three
    /// assert_eq!(out, vec!['a', 'b', 'c']);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn candidates_into<S: SlotSignature>(
        &self,
        signature: &S,
        min_candidates: usize,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        let q = self.checked_slots(signature)?;
        out.extend(self.walk(q, (0, min_candidates, 1), |_| 0.0).candidates());
        Ok(())
    }

    /// The `k` most similar indexed documents by the MinHash estimate over the stored
    /// `trees × depth` slots, most similar first (ties: earlier inserted first), from
    /// the at least `k ·` [`candidates_per_result`](Self::candidates_per_result)
    /// candidates the query gathers. Fewer than `k` when the forest holds fewer (or the
    /// work bound stops the descent).
    ///
    /// # Errors
    ///
    /// As [`candidates_into`](Self::candidates_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshForest::new(ForestParams::new(2, 2)?);
    /// f.insert(1u32, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// f.insert(2u32, &PlainSlots::new(s, vec![1, 2, 3, 9])?)?;
    /// let top = f.query(&PlainSlots::new(s, vec![1, 2, 3, 4])?, 1)?;
    /// assert_eq!((top[0].0, top[0].1.value()), (1, 1.0));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query<S: SlotSignature>(
        &self,
        signature: &S,
        k: usize,
    ) -> Result<Vec<(K, Estimate)>, Error> {
        let l = self.params.slots_used() as f64;
        Ok(self
            .probe(signature, k)?
            .top()
            .into_iter()
            .map(|(key, p)| {
                // Its binomial standard error.
                let e = Estimate::new(p, (p * (1.0 - p) / l).sqrt());
                (key, e.unwrap_or(Estimate::exact(p)))
            })
            .collect())
    }

    /// The top `k` by a measure of the caller's: every candidate the query gathers
    /// (as for [`query`](Self::query)) is scored by `score(key)` (say, the exact
    /// Jaccard similarity of the shingle sets the caller keeps by key), and the `k`
    /// highest scores are returned, highest first (ties: earlier inserted first). A
    /// NaN score drops the candidate.
    ///
    /// # Errors
    ///
    /// As [`candidates_into`](Self::candidates_into).
    ///
    /// # Example
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use near_dup::{jaccard, SchemeId};
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let sets = HashMap::from([("a", vec![1u64, 2, 3, 4]), ("b", vec![1, 2, 3, 5])]);
    /// let mut f = LshForest::new(ForestParams::new(1, 1)?);
    /// f.insert("a", &PlainSlots::new(s, vec![0])?)?;
    /// f.insert("b", &PlainSlots::new(s, vec![0])?)?;
    /// let query = vec![1u64, 2, 3, 5];
    /// let top = f.query_verified(&PlainSlots::new(s, vec![0])?, 1, |k| jaccard(&sets[k], &query))?;
    /// assert_eq!(top, vec![("b", 1.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_verified<S: SlotSignature, F: FnMut(&K) -> f64>(
        &self,
        signature: &S,
        k: usize,
        score: F,
    ) -> Result<Vec<(K, f64)>, Error> {
        Ok(self.probe_verified(signature, k, score)?.top())
    }

    /// Bytes used, by part (see [`ForestMemory`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let mut f = LshForest::new(ForestParams::new(2, 2)?);
    /// f.insert(1u64, &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2, 3, 4])?)?;
    /// let m = f.memory();
    /// assert_eq!(m.documents, 1);
    /// assert!(m.slot_values >= 4 * 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> ForestMemory {
        use std::mem::size_of;
        ForestMemory {
            documents: self.len(),
            slot_values: self.rows.capacity() * size_of::<u64>(),
            trees: self
                .trees
                .iter()
                .map(|t| {
                    t.heads.capacity() * size_of::<u64>() + t.slots.capacity() * size_of::<u32>()
                })
                .sum::<usize>()
                + self.pending.capacity() * size_of::<u32>(),
            key_map: self.keys.memory_bytes() + self.seq.capacity() * size_of::<u64>(),
        }
    }
}

/// The first index in `0..len` where `below` is false (`below` true on a prefix).
fn lower_bound(len: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// How many documents wait unsorted before a merge, for `n` indexed.
fn pending_limit(n: usize) -> usize {
    n.isqrt().max(MIN_PENDING)
}

/// The length of the common prefix of two equally long slices.
#[inline]
fn common_prefix(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

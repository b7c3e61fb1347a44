//! [`LshIndex`]: the banded LSH index (insert, remove, query, streaming
//! query-then-insert, all-pairs join, verification) and its [`MemoryReport`].

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;

use ndd_core::{
    CandidateIndex, Error, Estimate, KeySlots, PairSink, SchemeId, ScoredPair, SlotSignature,
};

use crate::chains::{BandChains, reserve_by_half};
use crate::table::{MAX_DOCS, NIL, Probe};
use crate::walk::shares_earlier_band;
use crate::{LshParams, ScanCuts};

mod bytes;

/// Query band keys up to this many bands live on the stack.
const STACK_BANDS: usize = 64;

/// A banded LSH index over slot signatures (MinHash and its variants), generic over
/// the user's document key `K`.
///
/// Each document is cut into `b` bands of `r` slots ([`LshParams`]); a query's
/// candidates are the documents that agree with it on every slot of at least one band
/// (equal 64-bit [`band_key`](crate::band_key)s). Candidates are reported once each,
/// however many bands they share. The first insert fixes the index's
/// [`SchemeId`]: signatures of another scheme are refused.
///
/// # Layout and memory
///
/// Documents get dense `u32` slots (freed slots are reused). Per document the index
/// stores its `b` band keys (8 bytes each) and one `u32` chain link per band; per
/// band an open-addressing table (linear probing, load at most 3/4, grown by 1.5×)
/// maps a key to the newest document of its bucket, whose link leads to the next
/// older one. A table entry is 8 bytes: the head's slot and 32 bits of the key, so
/// probing touches the stored keys only to confirm a match; a query's table loads
/// for all bands are issued before any is used, so their cache misses overlap.
///
/// With all band keys distinct that is `12·b` bytes of per-document arrays plus
/// `8·b / load` bytes of tables per document (documents in a shared bucket cost no
/// table entry). For the 9 × 13 bands of a 0.8 threshold on 128 slots: 204 bytes per
/// document with a [preset capacity](LshIndexBuilder::capacity), 222–244 bytes
/// measured when grown on demand (tables and per-document arrays grow by 1.5×, so
/// up to a third of an array can be slack). [`memory`](Self::memory) reports the
/// allocated figures, with the user's keys and the stored signatures (if
/// [kept](LshIndexBuilder::keep_signatures)) apart.
///
/// Removal unlinks the document from each band's chain, walking from the newest
/// document of the bucket (so it costs the length of the chain ahead of it), and
/// deletes emptied buckets by backward shifting.
///
/// [`to_bytes`](Self::to_bytes) / [`from_bytes`](Self::from_bytes) save and load the
/// index (keys and band keys, or kept signatures; the tables are rebuilt on load) for
/// key types with a [`KeyCodec`](ndd_core::codec::KeyCodec) and signature types with
/// a [`ByteForm`](ndd_core::codec::ByteForm); with the `serde` feature the index is
/// `Serialize`/`Deserialize` through those bytes.
///
/// (Banding: Giorgio Gambosi, "Near duplicate detection", slides for the Course of
/// Information Retrieval, University of Rome Tor Vergata, derived from slides by
/// C. Manning and H. Schütze.)
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
/// let scheme = SchemeId::new("demo").finish();
/// let sig = |v: &[u64]| PlainSlots::new(scheme, v.to_vec());
///
/// let mut index = LshIndex::new(LshParams::new(2, 2)?);
/// index.insert("a", &sig(&[1, 2, 3, 4])?)?;
/// index.insert("b", &sig(&[1, 2, 9, 9])?)?; // shares band 0 with "a"
/// index.insert("c", &sig(&[5, 6, 7, 8])?)?;
/// assert_eq!(index.query(&sig(&[1, 2, 3, 4])?)?.len(), 2);
/// let pairs = index.all_pairs(); // unscored candidates
/// assert_eq!(pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(), vec![("a", "b")]);
/// assert!(!pairs[0].is_scored());
/// assert!(index.remove(&"b"));
/// assert!(index.all_pairs().is_empty());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone)]
pub struct LshIndex<K, S> {
    params: LshParams,
    scheme: Option<SchemeId>,
    /// Tables, band keys (`slot·b + i`: band `i`'s key of the document in `slot`),
    /// forward chain links, the bucket-scan bound and the cuts of
    /// [`query_then_insert`](Self::query_then_insert).
    chains: BandChains,
    /// `prev[slot·b + i]`: the next newer document in the same band-`i` bucket (`NIL`
    /// for the bucket's head), so that removing a document from a bucket of any size
    /// costs O(1) per band (walking a chain of 50,000 identical documents per removal
    /// took 29 s for all of them).
    prev: Vec<u32>,
    signatures: Option<Vec<Option<S>>>,
    keys: KeySlots<K>,
}

/// Memory a bounded query of an [`LshIndex`] reuses from one call to the next
/// ([`LshIndex::query_within_using`]): the set of documents it has reported, so that a
/// document sharing several bands is reported once. Holds no results between calls
/// (each query clears it first); its memory grows to the most candidates one query
/// reported and stays, and clearing it costs a pass over that memory.
///
/// # Example
///
/// ```
/// let scratch = near_dup::lsh::QueryScratch::new();
/// assert_eq!(scratch.capacity(), 0); // nothing allocated until a query reports
/// ```
#[derive(Debug, Clone, Default)]
pub struct QueryScratch {
    seen: ahash::AHashSet<u32>,
}

impl QueryScratch {
    /// An empty scratch (no memory until a query uses it).
    ///
    /// # Example
    ///
    /// ```
    /// let _scratch = near_dup::lsh::QueryScratch::new();
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The documents the scratch holds room for without growing.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots, QueryScratch};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// for i in 0..5 {
    ///     index.insert(i, &s)?;
    /// }
    /// let mut scratch = QueryScratch::new();
    /// let (mut budget, mut cut, mut found) = (vec![4], vec![false], Vec::new());
    /// index.query_within_using(&s, &mut budget, &mut cut, &mut scratch, &mut found)?;
    /// assert!(scratch.capacity() >= 4); // kept for the next query
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.seen.capacity()
    }
}

/// Configures an [`LshIndex`]: whether to keep signatures for verification, and how
/// many documents to make room for. Made by [`LshIndex::builder`].
///
/// # Example
///
/// ```
/// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
/// let index: LshIndex<u64, PlainSlots> = LshIndex::builder(LshParams::new(9, 13)?)
///     .keep_signatures(true)
///     .capacity(10_000)
///     .build();
/// assert!(index.keeps_signatures());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[must_use]
pub struct LshIndexBuilder<K, S> {
    params: LshParams,
    keep_signatures: bool,
    capacity: usize,
    bucket_scan: usize,
    _types: PhantomData<fn() -> (K, S)>,
}

impl<K, S> fmt::Debug for LshIndexBuilder<K, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshIndexBuilder")
            .field("params", &self.params)
            .field("keep_signatures", &self.keep_signatures)
            .field("capacity", &self.capacity)
            .field("bucket_scan", &self.bucket_scan)
            .finish()
    }
}

impl<K, S> Clone for LshIndexBuilder<K, S> {
    fn clone(&self) -> Self {
        LshIndexBuilder {
            params: self.params,
            keep_signatures: self.keep_signatures,
            capacity: self.capacity,
            bucket_scan: self.bucket_scan,
            _types: PhantomData,
        }
    }
}

impl<K: Clone + Eq + Hash, S: SlotSignature> LshIndexBuilder<K, S> {
    /// Keep a clone of every inserted signature, for
    /// [`query_verified`](LshIndex::query_verified) and
    /// [`all_pairs_verified`](LshIndex::all_pairs_verified) (default: `false`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u32, PlainSlots> =
    ///     LshIndex::builder(LshParams::new(4, 4)?).keep_signatures(true).build();
    /// assert!(index.keeps_signatures());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn keep_signatures(mut self, keep: bool) -> Self {
        self.keep_signatures = keep;
        self
    }

    /// Make room for `documents` documents up front (a hint: tables and arrays are
    /// sized for it, so an index of known size never regrows and carries no growth
    /// slack; a reservation that fails is dropped and the index grows on demand). At
    /// most 2^26 band slots (documents × bands: 4,194,304 documents at 16 bands) are
    /// set up front, whatever the hint; past them the index grows on demand.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u32, PlainSlots> =
    ///     LshIndex::builder(LshParams::new(9, 13)?).capacity(1000).build();
    /// assert!(index.memory().band_tables >= 9 * 1000 * 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn capacity(mut self, documents: usize) -> Self {
        self.capacity = documents.min(MAX_DOCS);
        self
    }

    /// Bounds the work of a query in a hot bucket: a query reads at most `members`
    /// documents of each band's bucket, the most recently inserted first (default:
    /// all). See [`LshIndex::set_max_bucket_scan`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u32, PlainSlots> =
    ///     LshIndex::builder(LshParams::new(4, 4)?).max_bucket_scan(Some(100)).build();
    /// assert_eq!(index.max_bucket_scan(), Some(100));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn max_bucket_scan(mut self, members: Option<usize>) -> Self {
        self.bucket_scan = members.unwrap_or(usize::MAX);
        self
    }

    /// The empty index.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<String, PlainSlots> = LshIndex::builder(LshParams::new(2, 8)?).build();
    /// assert!(index.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn build(self) -> LshIndex<K, S> {
        // The hint as the chains take it: at most 2^26 band slots up front.
        let n = crate::chains::preset_documents(self.params.bands(), self.capacity);
        let mut index = LshIndex {
            params: self.params,
            scheme: None,
            chains: BandChains::with_capacity(self.params.bands(), n, self.bucket_scan),
            prev: Vec::new(),
            signatures: self.keep_signatures.then(Vec::new),
            keys: KeySlots::new().grow_by_half(),
        };
        if n > 0 {
            index.keys.try_reserve(n);
            if let Some(sigs) = &mut index.signatures {
                let _ = sigs.try_reserve_exact(n);
            }
        }
        index
    }
}

/// Memory used by an [`LshIndex`], in bytes, from [`LshIndex::memory`].
///
/// Allocated capacity is counted (not just the used part), so growth slack shows.
/// [`index_bytes`](Self::index_bytes) is the banding structure proper: band tables,
/// chain links and stored band keys. The user's keys and the stored signatures are
/// reported apart because their size is the user's choice.
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
/// let scheme = SchemeId::new("demo").finish();
/// let mut index = LshIndex::builder(LshParams::new(9, 13)?).capacity(100).build();
/// for i in 0..100u64 {
///     index.insert(i, &PlainSlots::new(scheme, (0..128).map(|j| i * 1000 + j).collect::<Vec<_>>())?)?;
/// }
/// let m = index.memory();
/// assert_eq!(m.documents, 100);
/// assert_eq!(m.band_keys, 100 * 9 * 8);
/// assert!(m.bytes_per_document() <= 256.0);
/// assert_eq!(m.signatures, 0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct MemoryReport {
    /// Documents indexed.
    pub documents: usize,
    /// The `b` bucket tables: 8 bytes per table slot.
    pub band_tables: usize,
    /// Chain links: 4 bytes per document slot per band.
    pub chains: usize,
    /// Stored band keys: 8 bytes per document slot per band.
    pub band_keys: usize,
    /// Key bookkeeping: the key → slot hash map (estimated from its capacity as
    /// buckets × (`size_of::<(K, u32)>()` + 1 control byte)), the slot → key array
    /// (`size_of::<Option<K>>()` per slot) and the free-slot list. Heap memory owned by
    /// the keys themselves (a `String`'s text) is not visible and not counted.
    pub key_map: usize,
    /// Stored signatures: `size_of::<Option<S>>()` per slot plus 8 bytes per slot
    /// value of each stored signature (its slot payload; other heap memory a
    /// signature type may own is not visible). 0 when signatures are not kept.
    pub signatures: usize,
}

impl MemoryReport {
    /// `band_tables + chains + band_keys`: the banding structure proper.
    ///
    /// # Example
    ///
    /// ```
    /// let m = near_dup::lsh::MemoryReport::default();
    /// assert_eq!(m.index_bytes(), 0);
    /// ```
    #[must_use]
    pub fn index_bytes(&self) -> usize {
        self.band_tables + self.chains + self.band_keys
    }

    /// Everything: [`index_bytes`](Self::index_bytes) + `key_map` + `signatures`.
    ///
    /// # Example
    ///
    /// ```
    /// let m = near_dup::lsh::MemoryReport::default();
    /// assert_eq!(m.total_bytes(), 0);
    /// ```
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        self.index_bytes() + self.key_map + self.signatures
    }

    /// [`index_bytes`](Self::index_bytes) per indexed document (0 when empty).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::MemoryReport::default().bytes_per_document(), 0.0);
    /// ```
    #[must_use]
    pub fn bytes_per_document(&self) -> f64 {
        crate::mem::per_document(self.index_bytes(), self.documents)
    }
}

impl<K, S> fmt::Debug for LshIndex<K, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshIndex")
            .field("params", &self.params)
            .field("scheme", &self.scheme)
            .field("documents", &self.keys.len())
            .field("keeps_signatures", &self.signatures.is_some())
            .finish_non_exhaustive()
    }
}

fn check_verify_threshold(t: f64) -> Result<(), Error> {
    if t > 0.0 && t <= 1.0 {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            "threshold",
            format!("must lie in (0, 1], got {t}"),
        ))
    }
}

impl<K: Clone + Eq + Hash, S: SlotSignature> LshIndex<K, S> {
    /// An empty index with these parameters, not keeping signatures.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u64, PlainSlots> = LshIndex::new(LshParams::for_threshold(0.8, 128)?);
    /// assert_eq!(index.params().bands(), 16);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new(params: LshParams) -> Self {
        Self::builder(params).build()
    }

    /// A builder for an index with these parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u64, PlainSlots> =
    ///     LshIndex::builder(LshParams::new(20, 5)?).keep_signatures(true).build();
    /// assert!(index.keeps_signatures());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn builder(params: LshParams) -> LshIndexBuilder<K, S> {
        LshIndexBuilder {
            params,
            keep_signatures: false,
            capacity: 0,
            bucket_scan: usize::MAX,
            _types: PhantomData,
        }
    }

    /// The banding parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u8, PlainSlots> = LshIndex::new(LshParams::new(3, 4)?);
    /// assert_eq!(index.params(), LshParams::new(3, 4)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// The scheme fixed by the first insert (`None` before it).
    ///
    /// **Rebuilding the sketcher of a saved index.** The byte form keeps this scheme
    /// id (a fingerprint of the sketcher's parameters: kind, number of values, seed,
    /// shingles), the bands and rows, and the band keys or signatures, but not the
    /// parameters themselves. Keep them beside the index (or use
    /// `ndd_pipeline::DedupIndex`, which saves them with its index), rebuild the
    /// sketcher from them after loading, and compare its
    /// [`scheme`](ndd_core::Sketcher::scheme) with this one before querying: a
    /// sketcher built with other parameters has another scheme, and
    /// [`query`](Self::query) and [`insert`](Self::insert) refuse its signatures
    /// ([`Error::Incompatible`]) rather than answer wrongly.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let scheme = SchemeId::new("demo").finish();
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// assert_eq!(index.scheme(), None);
    /// index.insert(1u8, &PlainSlots::new(scheme, vec![1, 2])?)?;
    /// assert_eq!(index.scheme(), Some(scheme));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> Option<SchemeId> {
        self.scheme
    }

    /// Whether inserted signatures are kept for verification.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u8, PlainSlots> = LshIndex::new(LshParams::new(1, 2)?);
    /// assert!(!index.keeps_signatures());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn keeps_signatures(&self) -> bool {
        self.signatures.is_some()
    }

    /// Bounds the work of a query (and of [`query_then_insert`](Self::query_then_insert))
    /// in a hot bucket: at most `members` documents of each band's bucket are read, the
    /// most recently inserted first; `None` reads them all (the default).
    ///
    /// Without a bound, a bucket of `m` near-identical documents makes `m(m−1)/2`
    /// candidate pairs when they stream in (20,000 lines that differ by a number: 2·10^8
    /// pairs). With a bound `c`, each document's candidates from one band are at most
    /// `c`, so a stream of `n` documents over `b` bands makes at most `n·b·c` pairs,
    /// and each new document still meets the `c` newest members of its bucket, which
    /// keeps a bucket of mutual near-duplicates connected. What is lost: pairs with
    /// older members of buckets larger than `c` (a group's pairs, not its members, when
    /// its documents are near-duplicates of each other). `Some(0)` reads no member:
    /// every query finds nothing. Not saved by [`to_bytes`](Self::to_bytes): a setting
    /// of the process, not of the index.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// index.set_max_bucket_scan(Some(2));
    /// let mut found = Vec::new();
    /// for i in 0..5 {
    ///     found.clear();
    ///     index.query_then_insert(i, &s, &mut found)?;
    /// }
    /// assert_eq!(found, vec![3, 2]); // the two newest of the four before it
    /// assert_eq!(index.query(&s)?.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn set_max_bucket_scan(&mut self, members: Option<usize>) {
        self.chains.set_max_bucket_scan(members);
    }

    /// The bound of [`set_max_bucket_scan`](Self::set_max_bucket_scan) (`None`: none).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u8, PlainSlots> = LshIndex::new(LshParams::new(2, 2)?);
    /// assert_eq!(index.max_bucket_scan(), None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_bucket_scan(&self) -> Option<usize> {
        self.chains.max_bucket_scan()
    }

    /// How often the bound of [`set_max_bucket_scan`](Self::set_max_bucket_scan) cut
    /// a bucket read of [`query_then_insert`](Self::query_then_insert) since this
    /// index was made or loaded (see [`ScanCuts`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u8, PlainSlots> = LshIndex::new(LshParams::new(2, 2)?);
    /// assert!(!index.scan_cuts().any());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scan_cuts(&self) -> ScanCuts {
        self.chains.scan_cuts()
    }

    /// The number of documents indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let mut index = LshIndex::new(LshParams::new(1, 1)?);
    /// index.insert("x", &PlainSlots::new(SchemeId::new("d").finish(), vec![1])?)?;
    /// index.insert("x", &PlainSlots::new(SchemeId::new("d").finish(), vec![2])?)?; // replaces
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
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let index: LshIndex<u8, PlainSlots> = LshIndex::new(LshParams::new(1, 1)?);
    /// assert!(index.is_empty());
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
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let mut index = LshIndex::new(LshParams::new(1, 1)?);
    /// index.insert(7u32, &PlainSlots::new(SchemeId::new("d").finish(), vec![1])?)?;
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

    /// The stored band keys of a document (`b` values, as
    /// [`LshParams::band_keys_into`] computes them), or `None` when absent.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let p = LshParams::new(2, 3)?;
    /// let mut index = LshIndex::new(p);
    /// index.insert('a', &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2, 3, 4, 5, 6])?)?;
    /// assert_eq!(index.band_keys_of(&'a'), Some(&p.band_keys(&[1, 2, 3, 4, 5, 6])?[..]));
    /// assert_eq!(index.band_keys_of(&'b'), None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn band_keys_of<Q>(&self, key: &Q) -> Option<&[u64]>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.keys.slot(key)? as usize;
        let b = self.params.bands();
        Some(&self.chains.band_keys[slot * b..(slot + 1) * b])
    }

    /// The stored signature of a document (`None` when absent or when signatures are
    /// not kept).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, SlotSignature};
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let mut index = LshIndex::builder(LshParams::new(1, 2)?).keep_signatures(true).build();
    /// index.insert(1u8, &PlainSlots::new(SchemeId::new("d").finish(), vec![4, 5])?)?;
    /// assert_eq!(index.signature(&1).map(|s| s.slots()), Some(&[4u64, 5][..]));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn signature<Q>(&self, key: &Q) -> Option<&S>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.keys.slot(key)? as usize;
        self.signatures.as_ref()?.get(slot)?.as_ref()
    }

    /// Every indexed document's key and kept signature, in no particular order
    /// (nothing when signatures are not [kept](LshIndexBuilder::keep_signatures)):
    /// what a top-k ([`LshForest`](crate::LshForest)) or containment
    /// ([`LshEnsemble`](crate::LshEnsemble)) index over the same documents is built
    /// from, for example from a saved index that kept its signatures.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::builder(LshParams::new(1, 2)?).keep_signatures(true).build();
    /// index.insert(1u32, &PlainSlots::new(s, vec![4, 5])?)?;
    /// index.insert(2u32, &PlainSlots::new(s, vec![4, 6])?)?;
    /// let mut forest = LshForest::new(ForestParams::new(1, 2)?);
    /// for (key, sig) in index.signatures_iter() {
    ///     forest.insert(*key, sig)?;
    /// }
    /// assert_eq!(forest.query(&PlainSlots::new(s, vec![4, 6])?, 1)?[0].0, 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn signatures_iter(&self) -> impl Iterator<Item = (&K, &S)> + '_ {
        let sigs = self.signatures.as_deref().unwrap_or(&[]);
        self.keys
            .by_slot()
            .iter()
            .zip(sigs)
            .filter_map(|(k, s)| Some((k.as_ref()?, s.as_ref()?)))
    }

    /// Checks a signature against the index's scheme and the band layout.
    fn check_signature(&self, signature: &S) -> Result<(), Error> {
        if let Some(scheme) = self.scheme {
            Error::check_schemes(scheme, signature.scheme())?;
        }
        self.params.check_signature_len(signature.slots().len())
    }

    /// Adds a document; re-inserting a key replaces its previous entry.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the signature's scheme differs from the index's
    /// (fixed by the first insert); [`Error::InvalidParameter`] when the signature has
    /// fewer than `bands × rows` slots; [`Error::InvalidInput`] when the index already
    /// holds 3·2³⁰ documents. The index is unchanged on error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let mut index = LshIndex::new(LshParams::new(2, 2)?);
    /// let s = SchemeId::new("d").finish();
    /// index.insert(1u32, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// assert!(index.insert(2, &PlainSlots::new(s, vec![1, 2, 3])?).is_err()); // too short
    /// let other = SchemeId::new("other").finish();
    /// assert!(index.insert(3, &PlainSlots::new(other, vec![1, 2, 3, 4])?).is_err());
    /// assert_eq!(index.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn insert(&mut self, key: K, signature: &S) -> Result<(), Error> {
        self.insert_impl::<false>(key, signature, &mut Vec::new())
    }

    /// The streaming deduplication step: appends to `out` the keys of the documents
    /// already indexed that are candidates for `signature` (each once), then inserts
    /// it under `key`, probing each band's table once for both.
    ///
    /// If `key` is already indexed, its previous entry is removed first (so it is not
    /// its own candidate).
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert); nothing is appended and the index is unchanged on
    /// error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let stream = [vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![1, 2, 0, 0]];
    /// let mut index = LshIndex::new(LshParams::new(2, 2)?);
    /// let mut found = Vec::new();
    /// let mut duplicates = Vec::new();
    /// for (i, slots) in stream.into_iter().enumerate() {
    ///     found.clear();
    ///     index.query_then_insert(i, &PlainSlots::new(s, slots)?, &mut found)?;
    ///     if !found.is_empty() {
    ///         duplicates.push((i, found.clone()));
    ///     }
    /// }
    /// assert_eq!(duplicates, vec![(2, vec![0])]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_then_insert(
        &mut self,
        key: K,
        signature: &S,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        self.insert_impl::<true>(key, signature, out)
    }

    fn insert_impl<const QUERY: bool>(
        &mut self,
        key: K,
        signature: &S,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        self.check_signature(signature)?;
        if !self.keys.has_room(&key, MAX_DOCS) {
            return Err(Error::invalid_input(format!(
                "an LSH index holds at most {MAX_DOCS} documents"
            )));
        }
        self.remove(&key);
        let slot = self.alloc_slot(key);
        self.params
            .write_band_keys(signature.slots(), self.chains.keys_mut(slot));
        self.link_slot::<QUERY>(slot, out);

        if let Some(sigs) = &mut self.signatures {
            sigs[slot as usize] = Some(signature.clone());
        }
        self.scheme = Some(signature.scheme());
        Ok(())
    }

    /// Links the document in `slot`, whose band keys are stored, into every band's
    /// bucket as its newest member; with `QUERY`, first appends the keys of the
    /// documents already there (each once) to `out`.
    #[inline]
    fn link_slot<const QUERY: bool>(&mut self, slot: u32, out: &mut Vec<K>) {
        let b = self.params.bands();
        let base = slot as usize * b;
        let (keys, prev) = (&self.keys, &mut self.prev);
        let on_member = |d| {
            if let Some(k) = keys.key(d) {
                out.push(k.clone());
            }
        };
        self.chains.link::<QUERY>(slot, on_member, |i, head| {
            prev[base + i] = NIL;
            if head != NIL {
                prev[head as usize * b + i] = slot;
            }
        });
    }

    /// A free document slot for `key`, which is not indexed (the caller has checked
    /// the document limit).
    fn alloc_slot(&mut self, key: K) -> u32 {
        let (slot, new) = self.keys.insert(key);
        if new {
            let b = self.params.bands();
            self.chains.push();
            reserve_by_half(&mut self.prev, b);
            self.prev.resize(self.prev.len() + b, NIL);
            if let Some(sigs) = &mut self.signatures {
                reserve_by_half(sigs, 1);
                sigs.push(None);
            }
        }
        slot
    }

    /// Removes a document; returns whether it was present.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// index.insert("a", &s)?;
    /// index.insert("b", &s)?;
    /// assert!(index.remove(&"a"));
    /// assert!(!index.remove(&"a"));
    /// assert_eq!(index.query(&s)?, vec!["b"]);
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
        let b = self.params.bands();
        let base = slot as usize * b;
        let chains = &mut self.chains;
        for (i, table) in chains.tables.iter_mut().enumerate() {
            let after = chains.next[base + i];
            let before = self.prev[base + i];
            if after != NIL {
                self.prev[after as usize * b + i] = before;
            }
            if before != NIL {
                // Inside the chain: unlink it, the table is untouched.
                chains.next[before as usize * b + i] = after;
                continue;
            }
            // The bucket's head: the table entry moves to the next older document.
            let keys = &chains.band_keys;
            let key_i = keys[base + i];
            let Probe::Found(pos, head) = table.probe(key_i, |h| keys[h as usize * b + i] == key_i)
            else {
                debug_assert!(false, "indexed document missing from band {i}");
                continue;
            };
            debug_assert_eq!(head, slot, "a chain's head has no newer document");
            if after == NIL {
                table.delete(pos);
            } else {
                table.set_head(pos, after);
            }
        }
        if let Some(sigs) = &mut self.signatures {
            sigs[slot as usize] = None;
        }
        true
    }

    /// Calls `f` on the slot of every candidate for the band keys `qkeys` in the first
    /// `limit` bands, once each.
    #[inline]
    fn for_each_candidate_slot(&self, qkeys: &[u64], limit: usize, f: impl FnMut(u32)) {
        self.chains
            .for_each_candidate(&qkeys[..limit.min(qkeys.len())], None, f);
    }

    /// Validates `signature` and calls `f` with its band keys (on the stack for up to
    /// 64 bands).
    fn with_query_keys<T>(&self, signature: &S, f: impl FnOnce(&[u64]) -> T) -> Result<T, Error> {
        self.check_signature(signature)?;
        let b = self.params.bands();
        if b <= STACK_BANDS {
            let mut buf = [0u64; STACK_BANDS];
            self.params
                .write_band_keys(signature.slots(), &mut buf[..b]);
            Ok(f(&buf[..b]))
        } else {
            let mut buf = vec![0u64; b];
            self.params.write_band_keys(signature.slots(), &mut buf);
            Ok(f(&buf))
        }
    }

    /// Appends the keys of the candidates for `signature` to `out`, each once, in no
    /// particular order. An indexed document is its own candidate.
    ///
    /// Allocation-free for up to 64 bands (beyond that, one buffer of `b` keys per
    /// call).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the signature's scheme differs from the index's;
    /// [`Error::InvalidParameter`] when it has fewer than `bands × rows` slots.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::new(LshParams::new(2, 2)?);
    /// index.insert(1u32, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// index.insert(2u32, &PlainSlots::new(s, vec![0, 0, 3, 4])?)?;
    /// let mut out = Vec::new();
    /// index.query_into(&PlainSlots::new(s, vec![1, 2, 3, 4])?, &mut out)?;
    /// out.sort();
    /// assert_eq!(out, vec![1, 2]); // 1 shares both bands, reported once
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_into(&self, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        self.with_query_keys(signature, |qkeys| {
            self.for_each_candidate_slot(qkeys, usize::MAX, |d| {
                if let Some(k) = self.keys.key(d) {
                    out.push(k.clone());
                }
            });
        })
    }

    /// [`query_into`](Self::query_into) with a budget per band: at most `budget[i]`
    /// members of band `i`'s bucket are read, newest first, and each budget is
    /// lowered by the members read; `cut[i]` is set when band `i`'s bucket had members
    /// left unread. Each candidate is appended once. The index's own bound
    /// ([`set_max_bucket_scan`](Self::set_max_bucket_scan)) is not applied: the
    /// budgets are the bound.
    ///
    /// What it is for: querying a collection split into several indexes as if it were
    /// one, newest part first. A document inserted into one index by
    /// [`query_then_insert`](Self::query_then_insert) under the bound `c` meets the
    /// `c` newest members of each bucket; starting every budget at `c` and querying
    /// the parts from the newest to the oldest with the same budgets meets the same
    /// members, and a band is cut in one of them exactly when it is cut in the whole.
    ///
    /// # Errors
    ///
    /// As [`query_into`](Self::query_into); [`Error::InvalidParameter`] when `budget`
    /// or `cut` do not have one entry per band.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let (mut older, mut newer) = (LshIndex::new(LshParams::new(1, 2)?), LshIndex::new(LshParams::new(1, 2)?));
    /// for i in 0..3 {
    ///     older.insert(i, &s)?;
    /// }
    /// newer.insert(3, &s)?;
    /// // Three members in all, newest first: 3 from `newer`, then 2 from `older`.
    /// let (mut budget, mut cut, mut found) = (vec![2], vec![false], Vec::new());
    /// newer.query_within(&s, &mut budget, &mut cut, &mut found)?;
    /// older.query_within(&s, &mut budget, &mut cut, &mut found)?;
    /// assert_eq!(found, vec![3, 2]);
    /// assert_eq!((budget, cut), (vec![0], vec![true])); // documents 1 and 0 unread
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_within(
        &self,
        signature: &S,
        budget: &mut [usize],
        cut: &mut [bool],
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        self.query_within_using(signature, budget, cut, &mut QueryScratch::new(), out)
    }

    /// [`query_within`](Self::query_within) with the caller's [`QueryScratch`]: the
    /// same candidates, budgets and cut flags, and no allocation once the scratch has
    /// grown to the most candidates one query reports (`query_within` makes a set of
    /// them for every call). For a caller that queries many documents, one scratch for
    /// all of them (one per thread).
    ///
    /// # Errors
    ///
    /// As [`query_within`](Self::query_within).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots, QueryScratch};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// for i in 0..3 {
    ///     index.insert(i, &s)?;
    /// }
    /// let mut scratch = QueryScratch::new();
    /// let (mut budget, mut cut, mut found) = (vec![2], vec![false], Vec::new());
    /// index.query_within_using(&s, &mut budget, &mut cut, &mut scratch, &mut found)?;
    /// assert_eq!((found, cut), (vec![2, 1], vec![true])); // the two newest; 0 unread
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_within_using(
        &self,
        signature: &S,
        budget: &mut [usize],
        cut: &mut [bool],
        scratch: &mut QueryScratch,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        let b = self.params.bands();
        if budget.len() != b || cut.len() != b {
            return Err(Error::invalid_parameter(
                "budget",
                format!("one budget and one cut flag per band ({b})"),
            ));
        }
        self.with_query_keys(signature, |qkeys| {
            self.chains.for_each_candidate_using(
                qkeys,
                Some((budget, cut)),
                &mut scratch.seen,
                |d| {
                    if let Some(k) = self.keys.key(d) {
                        out.push(k.clone());
                    }
                },
            );
        })
    }

    /// [`query_into`](Self::query_into) over the first `bands` bands only (the
    /// `_query_b` of datasketch's ensemble): documents agreeing with the query on
    /// every slot of one of those bands.
    pub(crate) fn query_bands_into(
        &self,
        signature: &S,
        bands: usize,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        self.with_query_keys(signature, |qkeys| {
            self.for_each_candidate_slot(qkeys, bands, |d| {
                if let Some(k) = self.keys.key(d) {
                    out.push(k.clone());
                }
            });
        })
    }

    /// The candidates for `signature` (allocates; see [`query_into`](Self::query_into)).
    ///
    /// # Errors
    ///
    /// As [`query_into`](Self::query_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// index.insert("x", &PlainSlots::new(s, vec![1, 2])?)?;
    /// assert_eq!(index.query(&PlainSlots::new(s, vec![1, 2])?)?, vec!["x"]);
    /// assert!(index.query(&PlainSlots::new(s, vec![1, 3])?)?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query(&self, signature: &S) -> Result<Vec<K>, Error> {
        let mut out = Vec::new();
        self.query_into(signature, &mut out)?;
        Ok(out)
    }

    fn stored_signatures(&self) -> Result<&[Option<S>], Error> {
        self.signatures.as_deref().ok_or_else(|| {
            Error::invalid_parameter(
                "keep_signatures",
                "verification needs an index built with keep_signatures(true)",
            )
        })
    }

    /// The candidates for `signature` whose estimated similarity
    /// ([`Signature::similarity`](ndd_core::Signature::similarity) against the stored signature) is at least
    /// `threshold`, with the estimate, most similar first.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `threshold` is not in `(0, 1]` or the index does
    /// not [keep signatures](LshIndexBuilder::keep_signatures); otherwise as
    /// [`query_into`](Self::query_into), or any error of `similarity`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::builder(LshParams::new(2, 2)?).keep_signatures(true).build();
    /// index.insert("near", &PlainSlots::new(s, vec![1, 2, 3, 9])?)?;
    /// index.insert("far", &PlainSlots::new(s, vec![1, 2, 7, 8])?)?;
    /// let hits = index.query_verified(&PlainSlots::new(s, vec![1, 2, 3, 4])?, 0.7)?;
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!((hits[0].0, hits[0].1.value()), ("near", 0.75));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_verified(
        &self,
        signature: &S,
        threshold: f64,
    ) -> Result<Vec<(K, Estimate)>, Error> {
        check_verify_threshold(threshold)?;
        let sigs = self.stored_signatures()?;
        let mut slots = Vec::new();
        self.with_query_keys(signature, |qkeys| {
            self.for_each_candidate_slot(qkeys, usize::MAX, |d| slots.push(d));
        })?;
        let mut out = Vec::new();
        for d in slots {
            if let (Some(k), Some(Some(stored))) = (self.keys.key(d), sigs.get(d as usize)) {
                let e = signature.similarity(stored)?;
                if e.value() >= threshold {
                    out.push((k.clone(), e));
                }
            }
        }
        out.sort_by(|a, b| b.1.value().total_cmp(&a.1.value()));
        Ok(out)
    }

    /// Calls `f(x, y)` on the slots of every candidate pair once (the earlier-inserted
    /// document first).
    fn for_each_slot_pair(&self, mut f: impl FnMut(u32, u32)) {
        let b = self.params.bands();
        let (keys, next) = (&self.chains.band_keys, &self.chains.next);
        let mut chain = Vec::new();
        let mut heads = Vec::new();
        for (i, table) in self.chains.tables.iter().enumerate() {
            // Buckets in the order of their head slot, not of the table's layout
            // (which depends on its random seed): the same pairs in the same order on
            // every run.
            heads.clear();
            heads.extend(table.heads().filter(|&h| next[h as usize * b + i] != NIL));
            heads.sort_unstable();
            for &head in &heads {
                let second = next[head as usize * b + i];
                if second == NIL {
                    continue;
                }
                chain.clear();
                let mut d = head;
                while d != NIL {
                    chain.push(d);
                    d = next[d as usize * b + i];
                }
                chain.reverse(); // oldest first
                for (n, &x) in chain.iter().enumerate() {
                    let xb = x as usize * b;
                    for &y in &chain[n + 1..] {
                        let yb = y as usize * b;
                        if !shares_earlier_band(&keys[xb..xb + i], &keys[yb..yb + i]) {
                            f(x, y);
                        }
                    }
                }
            }
        }
    }

    /// Calls `f(a, b)` on every candidate pair of indexed documents once, straight
    /// from the buckets (no loop over all pairs of documents): `a` was inserted before
    /// `b`. Pairs come band by band, in no particular order otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::new(LshParams::new(2, 1)?);
    /// for (k, v) in [(1u32, [5, 6]), (2, [5, 6]), (3, [0, 6])] {
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

    /// Pushes every candidate pair once into `sink`, unscored
    /// ([`ScoredPair::candidate`]: the bands only propose; verify with the signatures
    /// or [`all_pairs_verified_into`](Self::all_pairs_verified_into)), as
    /// `(earlier, later)` keys (see
    /// [`for_each_candidate_pair`](Self::for_each_candidate_pair)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, ScoredPair};
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// index.insert("a", &PlainSlots::new(s, vec![1, 2])?)?;
    /// index.insert("b", &PlainSlots::new(s, vec![1, 2])?)?;
    /// let mut pairs: Vec<ScoredPair<&str>> = Vec::new();
    /// index.all_pairs_into(&mut pairs);
    /// assert_eq!((pairs[0].a, pairs[0].b, pairs[0].is_scored()), ("a", "b", false));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn all_pairs_into<P: PairSink<K> + ?Sized>(&self, sink: &mut P) {
        self.for_each_candidate_pair(|a, b| {
            sink.push_pair(ScoredPair::candidate(a.clone(), b.clone()));
        });
    }

    /// Every candidate pair once, as `(earlier, later)` keys (see
    /// [`for_each_candidate_pair`](Self::for_each_candidate_pair)), unscored
    /// ([`ScoredPair::UNSCORED`], `NaN`): a shared band proposes a pair, it does not
    /// measure it. [`all_pairs_verified`](Self::all_pairs_verified) scores them by the
    /// stored signatures' estimate. The same type as the other indexes' `all_pairs`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::new(LshParams::new(1, 2)?);
    /// index.insert("a", &PlainSlots::new(s, vec![1, 2])?)?;
    /// index.insert("b", &PlainSlots::new(s, vec![1, 2])?)?;
    /// index.insert("c", &PlainSlots::new(s, vec![1, 3])?)?;
    /// let pairs = index.all_pairs();
    /// assert_eq!((pairs.len(), pairs[0].a, pairs[0].b), (1, "a", "b"));
    /// assert!(!pairs[0].is_scored());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn all_pairs(&self) -> Vec<ScoredPair<K>> {
        self.all_pairs_filtered(|_, _| true)
    }

    /// The candidate pairs for which `keep(a, b)` is true: the hook for exact
    /// verification against features the caller keeps (say, shingle sets by key).
    /// Unscored, as [`all_pairs`](Self::all_pairs).
    ///
    /// # Example
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use near_dup::{jaccard, SchemeId};
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let features: HashMap<&str, Vec<u64>> =
    ///     HashMap::from([("a", vec![1, 2, 3, 4]), ("b", vec![1, 2, 3, 5]), ("c", vec![1, 9])]);
    /// let mut index = LshIndex::new(LshParams::new(1, 1)?);
    /// for key in ["a", "b", "c"] {
    ///     // A stand-in signature: every document gets the same slot, so all pairs are candidates.
    ///     index.insert(key, &PlainSlots::new(s, vec![0])?)?;
    /// }
    /// let pairs = index.all_pairs_filtered(|a, b| jaccard(&features[a], &features[b]) >= 0.5);
    /// let mut keys: Vec<_> = pairs.iter().map(|p| (p.a, p.b)).collect();
    /// keys.sort();
    /// assert_eq!(keys, vec![("a", "b")]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn all_pairs_filtered<F: FnMut(&K, &K) -> bool>(&self, mut keep: F) -> Vec<ScoredPair<K>> {
        let mut out = Vec::new();
        self.for_each_candidate_pair(|a, b| {
            if keep(a, b) {
                out.push(ScoredPair::candidate(a.clone(), b.clone()));
            }
        });
        out
    }

    /// The candidate pairs whose estimated similarity (the stored signatures'
    /// [`Signature::similarity`](ndd_core::Signature::similarity)) is at least
    /// `threshold`, as [`ScoredPair`]s `(earlier, later, estimate)`, most similar first
    /// (collects [`all_pairs_verified_into`](Self::all_pairs_verified_into) and sorts).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `threshold` is not in `(0, 1]` or the index does
    /// not [keep signatures](LshIndexBuilder::keep_signatures); any error of
    /// `similarity`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::builder(LshParams::new(2, 2)?).keep_signatures(true).build();
    /// index.insert(1u8, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// index.insert(2u8, &PlainSlots::new(s, vec![1, 2, 3, 5])?)?;
    /// index.insert(3u8, &PlainSlots::new(s, vec![1, 2, 6, 7])?)?;
    /// let pairs = index.all_pairs_verified(0.7)?;
    /// assert_eq!(pairs, vec![near_dup::ScoredPair::new(1, 2, 0.75)]);
    /// assert!(LshIndex::<u8, PlainSlots>::new(LshParams::new(1, 1)?).all_pairs_verified(0.5).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn all_pairs_verified(&self, threshold: f64) -> Result<Vec<ScoredPair<K>>, Error> {
        let mut out = Vec::new();
        self.all_pairs_verified_into(threshold, &mut out)?;
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(out)
    }

    /// Pushes every candidate pair whose estimated similarity is at least `threshold`
    /// into `sink`, as [`ScoredPair`]s `(earlier, later, estimate)`, in no particular
    /// order: the streaming form of [`all_pairs_verified`](Self::all_pairs_verified)
    /// (one chain buffer allocated per call; nothing per pair but the sink's own work).
    ///
    /// # Errors
    ///
    /// As [`all_pairs_verified`](Self::all_pairs_verified); the parameter errors come
    /// before any pair is pushed, and on an error of `similarity` the walk stops (the
    /// pairs pushed until then stay in the sink).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{PairCounter, SchemeId};
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::builder(LshParams::new(2, 2)?).keep_signatures(true).build();
    /// for (k, v) in [(1u8, [1, 2, 3, 4]), (2, [1, 2, 3, 5]), (3, [1, 2, 6, 7])] {
    ///     index.insert(k, &PlainSlots::new(s, v.to_vec())?)?;
    /// }
    /// let mut count = PairCounter::default();
    /// index.all_pairs_verified_into(0.5, &mut count)?; // 1–2 at 0.75, 1–3 and 2–3 at 0.5
    /// assert_eq!(count.count, 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn all_pairs_verified_into<P: PairSink<K> + ?Sized>(
        &self,
        threshold: f64,
        sink: &mut P,
    ) -> Result<(), Error> {
        check_verify_threshold(threshold)?;
        let sigs = self.stored_signatures()?;
        let mut failure = None;
        self.for_each_slot_pair(|x, y| {
            if failure.is_some() {
                return;
            }
            let (x, y) = (x as usize, y as usize);
            if let (Some(a), Some(b), Some(Some(sa)), Some(Some(sb))) = (
                &self.keys.by_slot()[x],
                &self.keys.by_slot()[y],
                sigs.get(x),
                sigs.get(y),
            ) {
                match sa.similarity(sb) {
                    Ok(e) if e.value() >= threshold => {
                        sink.push_pair(ScoredPair::new(a.clone(), b.clone(), e.value()));
                    }
                    Ok(_) => {}
                    Err(e) => failure = Some(e),
                }
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Bytes used, by part (see [`MemoryReport`] for what is counted and how).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = LshIndex::builder(LshParams::new(2, 2)?).keep_signatures(true).build();
    /// index.insert(1u64, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// let m = index.memory();
    /// assert_eq!(m.documents, 1);
    /// assert!(m.signatures >= 4 * 8);
    /// assert_eq!(m.total_bytes(), m.index_bytes() + m.key_map + m.signatures);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> MemoryReport {
        use std::mem::{size_of, size_of_val};
        let key_map = self.keys.memory_bytes();
        let signatures = self.signatures.as_ref().map_or(0, |sigs| {
            sigs.capacity() * size_of::<Option<S>>()
                + sigs
                    .iter()
                    .flatten()
                    .map(|s| size_of_val(s.slots()))
                    .sum::<usize>()
        });
        MemoryReport {
            key_map,
            signatures,
            ..self
                .chains
                .memory(self.len(), self.prev.capacity() * size_of::<u32>())
        }
    }
}

impl<K: Clone + Eq + Hash, S: SlotSignature> CandidateIndex for LshIndex<K, S> {
    type Key = K;
    type Signature = S;

    fn insert(&mut self, key: K, signature: &S) -> Result<(), Error> {
        LshIndex::insert(self, key, signature)
    }

    fn remove(&mut self, key: &K) -> bool {
        LshIndex::remove(self, key)
    }

    fn query_into(&self, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        LshIndex::query_into(self, signature, out)
    }

    fn len(&self) -> usize {
        LshIndex::len(self)
    }

    fn query_then_insert(&mut self, key: K, signature: &S, out: &mut Vec<K>) -> Result<(), Error> {
        LshIndex::query_then_insert(self, key, signature, out)
    }

    /// Unscored candidates ([`LshIndex::all_pairs_into`]).
    fn all_pairs_into(&self, sink: &mut dyn PairSink<K>) {
        LshIndex::all_pairs_into(self, sink);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlainSlots;

    /// One scratch reused over many bounded queries of two parts gives what a fresh
    /// set per call gives: the same candidates in the same order, budgets and cuts.
    #[test]
    fn query_within_using_one_scratch_equals_query_within() {
        let s = SchemeId::new("t").finish();
        let p = LshParams::new(3, 1).unwrap();
        // Documents share bands in overlapping groups, so candidates repeat across bands
        // and buckets hold more members than the budgets.
        let sig = |i: u64| PlainSlots::new(s, vec![i % 5, i % 7, i % 3]).unwrap();
        let (mut older, mut newer) = (LshIndex::new(p), LshIndex::new(p));
        for i in 0..60u64 {
            let part = if i < 40 { &mut older } else { &mut newer };
            part.insert(i, &sig(i)).unwrap();
        }
        let mut scratch = QueryScratch::new();
        for q in 0..70u64 {
            let query = sig(q);
            let bound = usize::try_from(q % 6).unwrap();
            let (mut budget, mut cut, mut found) = (vec![bound; 3], vec![false; 3], Vec::new());
            let (mut budget2, mut cut2, mut found2) = (budget.clone(), cut.clone(), Vec::new());
            for part in [&newer, &older] {
                part.query_within(&query, &mut budget, &mut cut, &mut found)
                    .unwrap();
                part.query_within_using(&query, &mut budget2, &mut cut2, &mut scratch, &mut found2)
                    .unwrap();
            }
            assert_eq!(
                (&found2, &budget2, &cut2),
                (&found, &budget, &cut),
                "query {q}"
            );
            // Each document once per part; the bound cut something for the small budgets.
            let mut unique = found.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), found.len());
            if bound < 2 {
                assert!(cut.iter().any(|&c| c), "query {q}");
            }
        }
        assert!(scratch.capacity() > 0);
    }

    #[test]
    fn tables_grow_and_shrink_consistently() {
        let s = SchemeId::new("t").finish();
        let p = LshParams::new(3, 1).unwrap();
        let mut index: LshIndex<u32, PlainSlots> = LshIndex::new(p);
        for i in 0..5000u32 {
            let v = u64::from(i);
            index
                .insert(i, &PlainSlots::new(s, vec![v, v / 2, v % 7]).unwrap())
                .unwrap();
        }
        assert_eq!(index.chains.tables[0].len(), 5000);
        assert_eq!(index.chains.tables[1].len(), 2500);
        assert_eq!(index.chains.tables[2].len(), 7);
        for i in (0..5000u32).step_by(2) {
            assert!(index.remove(&i));
        }
        assert_eq!(index.chains.tables[0].len(), 2500);
        assert_eq!(index.chains.tables[1].len(), 2500);
        assert_eq!(index.chains.tables[2].len(), 7);
        for i in (1..5000u32).step_by(2) {
            let v = u64::from(i);
            let mut got = index
                .query(&PlainSlots::new(s, vec![v, u64::MAX, u64::MAX]).unwrap())
                .unwrap();
            got.sort_unstable();
            assert_eq!(got, vec![i]);
        }
    }
}

//! [`LshEnsemble`]: containment search (every indexed set containing a given
//! fraction of the query set), partitioned by set size, incremental; its
//! [`EnsembleParams`].

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;
use std::hash::Hash;

use ahash::AHashMap;
use ndd_core::{Error, SchemeId, SlotSignature};

use crate::table::MAX_DOCS;
use crate::{LshIndex, LshParams, PlainSlots};

mod bytes;
mod params;

pub use params::EnsembleParams;
use params::{RATIO_MAX, RATIO_MIN};

/// One size class: a banded index per distinct `r` of the table, and the multiset of
/// its members' sizes (for the largest).
#[derive(Clone)]
struct SizeClass<K> {
    /// Parallel to `LshEnsemble::rows`: the index of `⌊num_slots / r⌋` bands of `r` rows.
    indexes: Vec<LshIndex<K, PlainSlots>>,
    sizes: BTreeMap<u64, usize>,
}

#[derive(Clone)]
struct Doc {
    size: u64,
    class: u32,
    seq: u64,
    slots: PlainSlots,
}

/// Containment search: the LSH Ensemble of Zhu, Nargesian, Pu and Miller over slot
/// signatures (MinHash), generic over the user's document key `K`, incremental.
///
/// Given a query set `Q` of size `q` (its signature and `q`), it answers the indexed
/// sets `X` with `|Q ∩ X| / q ≥ t` (containment of the query in `X`: "which indexed
/// documents include most of this text"), approximately
/// ([`query`](Self::query)), or exactly after verification by a measure of the
/// caller's ([`query_verified`](Self::query_verified)).
///
/// # Partitions, and how they stay balanced as the collection grows
///
/// Documents are partitioned by set size into geometric classes: sizes `[2^c,
/// 2^(c+1))`, or with two classes per doubling (the default) `[2^(c/2),
/// 2^((c+1)/2))`. Within a class every member is treated as large as the class's
/// largest member `u` (containment `t` of the query in a set of size `x ≤ u` implies a
/// Jaccard similarity of at least `t / (u/q + 1 − t)`), and the bands and rows are
/// chosen per class and query size ([`EnsembleParams`]). The paper's optimal
/// partitioning (equi-depth for power-law sizes) needs the whole collection and
/// moves boundaries as it grows; fixed geometric boundaries need nothing: a new
/// document joins its class, no class is ever re-split or rebuilt, and the spread
/// `u / x` inside a class, which is what turns into false positives, stays below 2
/// (or √2) however many documents arrive and however the sizes are distributed.
/// What is given up: classes are not equally full (empty classes cost nothing; a
/// query visits only the occupied ones whose largest set can contain `t · q`
/// elements).
///
/// # Layout and cost
///
/// Per occupied class, one [`LshIndex`] per distinct band length `r` of the
/// parameter table (`⌊num_slots / r⌋` bands each, the same layout as datasketch's
/// ensemble, which keeps one `MinHashLSH` per `r`); per document its size and its
/// first `num_slots` slot values (kept for [`to_bytes`](Self::to_bytes)).
/// [`memory`](Self::memory) reports the bytes; about 6 KB per document for 128 slots
/// and `max_rows = 8` when the table uses every `r` (most of it band tables). A query
/// costs, per occupied class that can hold a result, `b ≤ num_slots / r` bucket
/// probes plus the candidates; an insert or removal costs `Σ_r num_slots / r` bucket
/// updates.
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
/// let s = SchemeId::new("demo").finish();
/// // Signatures of 16 slots: a long document agrees with a short one it contains on
/// // the slots where the short one's minimum is also the long one's.
/// let short: Vec<u64> = (0..16).collect();
/// let mut long = short.clone();
/// long[8..].fill(99); // agrees on 8 of 16 slots
/// let other: Vec<u64> = (100..116).collect();
///
/// let mut ensemble = LshEnsemble::new(EnsembleParams::new(0.8, 16)?);
/// ensemble.insert("long", &PlainSlots::new(s, long)?, 20)?;
/// ensemble.insert("other", &PlainSlots::new(s, other)?, 10)?;
/// let found = ensemble.query(&PlainSlots::new(s, short)?, 10)?;
/// assert_eq!(found, vec!["long"]);
/// # Ok::<(), near_dup::Error>(())
/// ```
///
/// # References
///
/// - E. Zhu, F. Nargesian, K. Q. Pu and R. J. Miller, "LSH Ensemble: Internet-Scale
///   Domain Search", PVLDB 9(12), VLDB 2016 (sections 4–5: containment through
///   Jaccard with a partition's upper size bound, partitioning by set size, the
///   per-partition parameter choice).
#[derive(Clone)]
pub struct LshEnsemble<K> {
    params: EnsembleParams,
    /// The choice at ratio `2^j`, `j = RATIO_MIN ..= RATIO_MAX`.
    table: Vec<LshParams>,
    /// The distinct `r` of the table, ascending.
    rows: Vec<usize>,
    scheme: Option<SchemeId>,
    classes: BTreeMap<u32, SizeClass<K>>,
    docs: AHashMap<K, Doc>,
    next_seq: u64,
    /// Per size class, the largest set imposed by [`bound_classes_by`](Self::bound_classes_by).
    imposed: BTreeMap<u32, u64>,
}

impl<K> fmt::Debug for LshEnsemble<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshEnsemble")
            .field("params", &self.params)
            .field("scheme", &self.scheme)
            .field("documents", &self.docs.len())
            .field("classes", &self.classes.len())
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

/// Memory used by an [`LshEnsemble`], in bytes, from [`LshEnsemble::memory`].
///
/// # Example
///
/// ```
/// let m = near_dup::lsh::EnsembleMemory::default();
/// assert_eq!(m.total_bytes(), 0);
/// assert_eq!(m.bytes_per_document(), 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct EnsembleMemory {
    /// Documents indexed.
    pub documents: usize,
    /// The banded indexes of all classes ([`MemoryReport::total_bytes`](crate::MemoryReport::total_bytes)).
    pub indexes: usize,
    /// The documents' sizes, slot values and keys (estimated from the map's capacity).
    pub documents_bytes: usize,
}

impl EnsembleMemory {
    /// Everything.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::EnsembleMemory::default().total_bytes(), 0);
    /// ```
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        self.indexes + self.documents_bytes
    }

    /// [`total_bytes`](Self::total_bytes) per document (0 when empty).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::EnsembleMemory::default().bytes_per_document(), 0.0);
    /// ```
    #[must_use]
    pub fn bytes_per_document(&self) -> f64 {
        crate::mem::per_document(self.total_bytes(), self.documents)
    }
}

/// The size class of a set of `size ≥ 1` elements, by exact integer arithmetic.
fn class_of(size: u64, per_doubling: u8) -> u32 {
    let e = 63 - size.leading_zeros();
    if per_doubling == 1 {
        e
    } else {
        // The upper half of [2^e, 2^(e+1)) starts at 2^e·√2: size² ≥ 2^(2e+1).
        let upper = u128::from(size) * u128::from(size) >= 1u128 << (2 * e + 1);
        2 * e + u32::from(upper)
    }
}

impl<K: Clone + Eq + Hash> LshEnsemble<K> {
    /// An empty ensemble; tabulates the bands and rows per size ratio (see
    /// [`EnsembleParams`] for the cost).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble};
    /// let e: LshEnsemble<u32> = LshEnsemble::new(EnsembleParams::new(0.8, 128)?);
    /// assert!(e.is_empty());
    /// assert!(e.rows_used().iter().all(|&r| (1..=8).contains(&r)));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new(params: EnsembleParams) -> Self {
        let table = params.table();
        let mut rows: Vec<usize> = table.iter().map(LshParams::rows).collect();
        rows.sort_unstable();
        rows.dedup();
        LshEnsemble {
            params,
            table,
            rows,
            scheme: None,
            classes: BTreeMap::new(),
            docs: AHashMap::new(),
            next_seq: 0,
            imposed: BTreeMap::new(),
        }
    }

    /// The parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble};
    /// let p = EnsembleParams::new(0.5, 64)?;
    /// assert_eq!(LshEnsemble::<u8>::new(p).params(), p);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> EnsembleParams {
        self.params
    }

    /// The distinct band lengths of the parameter table, ascending: one banded index
    /// per value in each occupied class.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble};
    /// let e = LshEnsemble::<u8>::new(EnsembleParams::new(0.9, 128)?.with_max_rows(2)?);
    /// assert!(e.rows_used().iter().all(|&r| r <= 2));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn rows_used(&self) -> &[usize] {
        &self.rows
    }

    /// The bands and rows a query of `query_size` uses in a class whose largest set
    /// has `largest` elements (the table entry at the ratio rounded up to a power of
    /// 2), or `None` when no set of that class can contain `threshold · query_size`
    /// elements (the class is skipped).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble};
    /// let e = LshEnsemble::<u8>::new(EnsembleParams::new(0.8, 128)?);
    /// assert_eq!(e.bands_rows(100, 70), None); // 70 < 0.8 · 100
    /// let near = e.bands_rows(100, 100).unwrap();
    /// let far = e.bands_rows(100, 6_400).unwrap();
    /// assert!(near.rows() > far.rows());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn bands_rows(&self, query_size: u64, largest: u64) -> Option<LshParams> {
        if query_size == 0 || (largest as f64) < self.params.threshold() * query_size as f64 {
            return None;
        }
        let (q, u) = (u128::from(query_size), u128::from(largest));
        let j = (RATIO_MIN..=RATIO_MAX)
            .find(|&j| if j >= 0 { q << j >= u } else { q >= u << -j })
            .unwrap_or(RATIO_MAX);
        usize::try_from(j - RATIO_MIN)
            .ok()
            .and_then(|i| self.table.get(i).copied())
    }

    /// The scheme fixed by the first insert (`None` before it).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 4)?);
    /// e.insert(1u8, &PlainSlots::new(s, vec![1, 2, 3, 4])?, 10)?;
    /// assert_eq!(e.scheme(), Some(s));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> Option<SchemeId> {
        self.scheme
    }

    /// The number of documents indexed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 2)?);
    /// e.insert("a", &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?, 3)?;
    /// assert_eq!(e.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether the ensemble holds no document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble};
    /// assert!(LshEnsemble::<u8>::new(EnsembleParams::new(0.5, 2)?).is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The number of size classes (partitions): those occupied, and those
    /// [`bound_classes_by`](Self::bound_classes_by) imposed (the whole collection's,
    /// for an ensemble over a part of it).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 2)?);
    /// e.insert(1u8, &PlainSlots::new(s, vec![1, 2])?, 10)?;
    /// e.insert(2u8, &PlainSlots::new(s, vec![1, 2])?, 11)?; // same class as 10
    /// e.insert(3u8, &PlainSlots::new(s, vec![1, 2])?, 1000)?;
    /// assert_eq!(e.partitions(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn partitions(&self) -> usize {
        let imposed_only = self
            .imposed
            .keys()
            .filter(|c| !self.classes.contains_key(c));
        self.classes.len() + imposed_only.count()
    }

    /// The set size a document was inserted with.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 2)?);
    /// e.insert("a", &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?, 42)?;
    /// assert_eq!(e.size_of(&"a"), Some(42));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn size_of<Q>(&self, key: &Q) -> Option<u64>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.docs.get(key).map(|d| d.size)
    }

    fn check_signature<S: SlotSignature>(&self, signature: &S) -> Result<(), Error> {
        if let Some(scheme) = self.scheme {
            Error::check_schemes(scheme, signature.scheme())?;
        }
        let (need, have) = (self.params.num_slots(), signature.slots().len());
        if have < need {
            return Err(Error::invalid_parameter(
                "num_slots",
                format!("the ensemble reads {need} slots, the signature has {have}"),
            ));
        }
        Ok(())
    }

    /// Adds a document: its signature and the size of its set (the number of distinct
    /// features the signature was computed from, e.g. `FeatureSet::len`). Re-inserting
    /// a key replaces its entry.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] for a signature of another scheme than the ensemble's
    /// (fixed by the first insert); [`Error::InvalidParameter`] for one shorter than
    /// `num_slots`; [`Error::InvalidInput`] for size 0 or when the ensemble already
    /// holds 3·2³⁰ documents. The ensemble is unchanged on error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 2)?);
    /// e.insert(1u8, &PlainSlots::new(s, vec![1, 2])?, 5)?;
    /// assert!(e.insert(2u8, &PlainSlots::new(s, vec![1, 2])?, 0).is_err());
    /// assert!(e.insert(3u8, &PlainSlots::new(s, vec![1])?, 5).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn insert<S: SlotSignature>(
        &mut self,
        key: K,
        signature: &S,
        size: u64,
    ) -> Result<(), Error> {
        self.check_signature(signature)?;
        if size == 0 {
            return Err(Error::invalid_input(
                "an empty set has no containment; insert sets of at least one element",
            ));
        }
        if self.docs.len() >= MAX_DOCS && !self.docs.contains_key(&key) {
            return Err(Error::invalid_input(format!(
                "an LSH ensemble holds at most {MAX_DOCS} documents"
            )));
        }
        let slots = PlainSlots::new(
            signature.scheme(),
            signature.slots()[..self.params.num_slots()].to_vec(),
        )?;
        self.remove(&key);
        let class = class_of(size, self.params.classes_per_doubling());
        let k = self.params.num_slots();
        let rows = &self.rows;
        let entry = self.classes.entry(class).or_insert_with(|| SizeClass {
            indexes: rows
                .iter()
                .map(|&r| LshIndex::new(LshParams::from_valid(k / r, r)))
                .collect(),
            sizes: BTreeMap::new(),
        });
        for index in &mut entry.indexes {
            index.insert(key.clone(), &slots)?;
        }
        *entry.sizes.entry(size).or_insert(0) += 1;
        self.docs.insert(
            key,
            Doc {
                size,
                class,
                seq: self.next_seq,
                slots,
            },
        );
        self.next_seq += 1;
        self.scheme = Some(signature.scheme());
        Ok(())
    }

    /// Removes a document; returns whether it was present. An emptied class is freed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 2)?);
    /// e.insert("a", &s, 4)?;
    /// assert!(e.remove(&"a"));
    /// assert!(!e.remove(&"a"));
    /// assert_eq!(e.partitions(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn remove<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let Some(doc) = self.docs.remove(key) else {
            return false;
        };
        if let Some(class) = self.classes.get_mut(&doc.class) {
            for index in &mut class.indexes {
                index.remove(key);
            }
            if let Some(c) = class.sizes.get_mut(&doc.size) {
                *c -= 1;
                if *c == 0 {
                    class.sizes.remove(&doc.size);
                }
            }
            if class.sizes.is_empty() {
                self.classes.remove(&doc.class);
            }
        }
        true
    }

    /// Treats each size class as holding a set as large as the largest of `sizes` that
    /// falls in it (when its own members are smaller): the bands a query uses in a
    /// class are then those an ensemble over all of `sizes` would use. For an ensemble
    /// over one part of a collection (a segment of a saved index, read one at a time):
    /// given the set sizes of the whole collection, the parts' candidates together are
    /// exactly the whole ensemble's. Cost: one pass over `sizes`, one map entry per
    /// size class met. A setting of the process, not saved by
    /// [`to_bytes`](Self::to_bytes); calling it again adds to the bounds.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let short: Vec<u64> = (0..16).collect();
    /// let mut long = short.clone();
    /// long[8..].fill(99); // agrees with `short` on 8 of 16 slots
    /// let q = PlainSlots::new(s, short)?;
    /// // The whole collection: sets of 20 and 22 elements (one size class).
    /// let mut whole = LshEnsemble::new(EnsembleParams::new(0.8, 16)?);
    /// whole.insert("long", &PlainSlots::new(s, long.clone())?, 20)?;
    /// whole.insert("big", &PlainSlots::new(s, (100..116).collect::<Vec<u64>>())?, 22)?;
    /// // A part holding "long" only, bounded by the whole collection's sizes.
    /// let mut part = LshEnsemble::new(EnsembleParams::new(0.8, 16)?);
    /// part.insert("long", &PlainSlots::new(s, long)?, 20)?;
    /// part.bound_classes_by([20, 22]);
    /// assert_eq!(part.partitions(), 1);
    /// assert_eq!(part.query(&q, 10)?, whole.query(&q, 10)?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn bound_classes_by<I: IntoIterator<Item = u64>>(&mut self, sizes: I) {
        let per_doubling = self.params.classes_per_doubling();
        for size in sizes {
            if size == 0 {
                continue;
            }
            let largest = self
                .imposed
                .entry(class_of(size, per_doubling))
                .or_insert(0);
            *largest = (*largest).max(size);
        }
    }

    /// Appends to `out` the candidates whose containment of the query (a set of
    /// `size` elements with this signature) may reach the threshold: class by class
    /// (smallest sets first), the documents sharing a band with the query among the
    /// class's chosen bands ([`bands_rows`](Self::bands_rows)); each once.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert) for the signature; [`Error::InvalidParameter`] for
    /// size 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.9, 4)?);
    /// e.insert("copy", &PlainSlots::new(s, vec![1, 2, 3, 4])?, 50)?;
    /// let mut out = Vec::new();
    /// e.query_into(&PlainSlots::new(s, vec![1, 2, 3, 4])?, 50, &mut out)?;
    /// assert_eq!(out, vec!["copy"]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_into<S: SlotSignature>(
        &self,
        signature: &S,
        size: u64,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        self.check_signature(signature)?;
        if size == 0 {
            return Err(Error::invalid_parameter(
                "size",
                "a query set needs at least one element",
            ));
        }
        let q = PlainSlots::new(
            signature.scheme(),
            signature.slots()[..self.params.num_slots()].to_vec(),
        )?;
        for (c, class) in &self.classes {
            let Some(own) = class.sizes.keys().next_back().copied() else {
                continue;
            };
            let largest = self.imposed.get(c).map_or(own, |&u| u.max(own));
            let Some(lp) = self.bands_rows(size, largest) else {
                continue;
            };
            if let Ok(i) = self.rows.binary_search(&lp.rows()) {
                class.indexes[i].query_bands_into(&q, lp.bands(), out)?;
            }
        }
        Ok(())
    }

    /// The candidates (allocates; see [`query_into`](Self::query_into)).
    ///
    /// # Errors
    ///
    /// As [`query_into`](Self::query_into).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.9, 4)?);
    /// e.insert(7u32, &PlainSlots::new(s, vec![1, 2, 3, 4])?, 50)?;
    /// assert_eq!(e.query(&PlainSlots::new(s, vec![1, 2, 3, 4])?, 50)?, vec![7]);
    /// assert!(e.query(&PlainSlots::new(s, vec![1, 2, 3, 4])?, 0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query<S: SlotSignature>(&self, signature: &S, size: u64) -> Result<Vec<K>, Error> {
        let mut out = Vec::new();
        self.query_into(signature, size, &mut out)?;
        Ok(out)
    }

    /// The candidates whose containment of the query, measured by
    /// `containment(key)` (say, the exact `|Q ∩ X| / |Q|` of the feature sets the
    /// caller keeps), reaches the threshold, with that value, highest first (ties in
    /// candidate order). The LSH step may miss results (see the recall measured in
    /// `docs/decisions.md`); what it returns is exact.
    ///
    /// # Errors
    ///
    /// As [`query_into`](Self::query_into).
    ///
    /// # Example
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use near_dup::{containment, SchemeId};
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let sets = HashMap::from([("big", vec![1u64, 2, 3, 4, 5, 6]), ("small", vec![1, 9])]);
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 1)?);
    /// // Stand-in signatures that collide, so both are candidates.
    /// e.insert("big", &PlainSlots::new(s, vec![0])?, 6)?;
    /// e.insert("small", &PlainSlots::new(s, vec![0])?, 2)?;
    /// let q = vec![1u64, 2, 3];
    /// let hits = e.query_verified(&PlainSlots::new(s, vec![0])?, 3, |k| containment(&q, &sets[k]))?;
    /// assert_eq!(hits, vec![("big", 1.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_verified<S: SlotSignature, F: FnMut(&K) -> f64>(
        &self,
        signature: &S,
        size: u64,
        mut containment: F,
    ) -> Result<Vec<(K, f64)>, Error> {
        let t = self.params.threshold();
        let mut out: Vec<(K, f64)> = self
            .query(signature, size)?
            .into_iter()
            .map(|k| {
                let c = containment(&k);
                (k, c)
            })
            .filter(|(_, c)| *c >= t)
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(out)
    }

    /// Bytes used, by part (see [`EnsembleMemory`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.5, 4)?);
    /// e.insert(1u64, &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2, 3, 4])?, 9)?;
    /// let m = e.memory();
    /// assert_eq!(m.documents, 1);
    /// assert!(m.documents_bytes >= 4 * 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> EnsembleMemory {
        use std::mem::size_of;
        let indexes = self
            .classes
            .values()
            .flat_map(|c| c.indexes.iter())
            .map(|i| i.memory().total_bytes())
            .sum();
        EnsembleMemory {
            documents: self.len(),
            indexes,
            documents_bytes: crate::mem::map_bytes(self.docs.capacity(), size_of::<(K, Doc)>())
                + self.docs.len() * self.params.num_slots() * size_of::<u64>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_are_geometric() {
        assert_eq!(class_of(1, 1), 0);
        assert_eq!(class_of(7, 1), 2);
        assert_eq!(class_of(8, 1), 3);
        // Two per doubling: [8, 11.31) and [11.31, 16).
        assert_eq!(class_of(8, 2), 6);
        assert_eq!(class_of(11, 2), 6);
        assert_eq!(class_of(12, 2), 7);
        assert_eq!(class_of(15, 2), 7);
        assert_eq!(class_of(16, 2), 8);
        assert_eq!(class_of(u64::MAX, 2), 127);
    }
}

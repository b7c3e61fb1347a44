//! [`FlatLshIndex`]: the banded LSH index of a stream whose documents are numbered in
//! arrival order and never removed, without key map or back links.

use ndd_core::{Error, SchemeId, SlotSignature};

use crate::chains::BandChains;
use crate::table::MAX_DOCS;
use crate::{LshParams, MemoryReport, ScanCuts};

/// A banded LSH index for streamed deduplication: documents are numbered 0, 1, 2, …
/// in the order they are inserted, never removed, and each is queried against the
/// earlier ones as it is inserted ([`query_then_insert`](Self::query_then_insert)).
///
/// Its candidates are those of [`LshIndex::query_then_insert`](crate::LshIndex::query_then_insert)
/// over the same stream with keys 0, 1, 2, … (the same 64-bit band keys, bucket
/// tables, chain walks and [bucket-scan bound](Self::set_max_bucket_scan)); what it
/// leaves out is what such a stream never uses: the key → slot map and the slot → key
/// array (the number is the slot), the backward chain links that make removal O(1),
/// kept signatures and the byte form. Per document and band: its 8-byte band key, a
/// 4-byte chain link and its share of the band's table (8 bytes per entry at a load of
/// at most 3/4): `22.7·b` bytes with a [preset capacity](Self::with_capacity), 363 for
/// the 16 bands of a 0.8 threshold on 128 slots (an [`LshIndex`](crate::LshIndex)
/// holds 27 per band and the key map besides).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{FlatLshIndex, LshParams, PlainSlots};
/// let s = SchemeId::new("d").finish();
/// let mut index = FlatLshIndex::new(LshParams::new(2, 2)?);
/// let mut found = Vec::new();
/// assert_eq!(index.query_then_insert(&PlainSlots::new(s, vec![1, 2, 3, 4])?, &mut found)?, 0);
/// assert_eq!(index.query_then_insert(&PlainSlots::new(s, vec![5, 6, 7, 8])?, &mut found)?, 1);
/// assert!(found.is_empty());
/// assert_eq!(index.query_then_insert(&PlainSlots::new(s, vec![1, 2, 7, 8])?, &mut found)?, 2);
/// found.sort();
/// assert_eq!(found, vec![0, 1]); // band 0 with document 0, band 1 with document 1
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone)]
pub struct FlatLshIndex {
    params: LshParams,
    scheme: Option<SchemeId>,
    /// Tables, band keys and chain links; a document's number is its position.
    chains: BandChains,
}

impl std::fmt::Debug for FlatLshIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatLshIndex")
            .field("params", &self.params)
            .field("scheme", &self.scheme)
            .field("documents", &self.len())
            .finish_non_exhaustive()
    }
}

impl FlatLshIndex {
    /// An empty index with these parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{FlatLshIndex, LshParams};
    /// assert!(FlatLshIndex::new(LshParams::new(16, 6)?).is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new(params: LshParams) -> Self {
        Self::with_capacity(params, 0)
    }

    /// An empty index with room for `documents` documents (a hint: an index of known
    /// size never regrows and carries no growth slack; a reservation that fails is
    /// dropped and the index grows on demand). At most 2^26 band slots (documents ×
    /// bands: 4,194,304 documents at 16 bands) are set up front, whatever the hint.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{FlatLshIndex, LshParams};
    /// let index = FlatLshIndex::with_capacity(LshParams::new(16, 6)?, 1000);
    /// assert!(index.memory().index_bytes() >= 16 * 1000 * (8 + 4 + 8));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn with_capacity(params: LshParams, documents: usize) -> Self {
        let n = documents.min(MAX_DOCS);
        FlatLshIndex {
            params,
            scheme: None,
            chains: BandChains::with_capacity(params.bands(), n, usize::MAX),
        }
    }

    /// The banding parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{FlatLshIndex, LshParams};
    /// let p = LshParams::new(3, 4)?;
    /// assert_eq!(FlatLshIndex::new(p).params(), p);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// Bounds the work of a query in a hot bucket, as
    /// [`LshIndex::set_max_bucket_scan`](crate::LshIndex::set_max_bucket_scan): at most
    /// `members` documents of each band's bucket are read, the newest first; `None`
    /// reads them all (the default).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{FlatLshIndex, LshParams, PlainSlots};
    /// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?;
    /// let mut index = FlatLshIndex::new(LshParams::new(1, 2)?);
    /// index.set_max_bucket_scan(Some(2));
    /// let mut found = Vec::new();
    /// for _ in 0..5 {
    ///     found.clear();
    ///     index.query_then_insert(&s, &mut found)?;
    /// }
    /// assert_eq!(found, vec![3, 2]); // the two newest of the four before it
    /// assert_eq!(index.max_bucket_scan(), Some(2));
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
    /// use near_dup::lsh::{FlatLshIndex, LshParams};
    /// assert_eq!(FlatLshIndex::new(LshParams::new(2, 2)?).max_bucket_scan(), None);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_bucket_scan(&self) -> Option<usize> {
        self.chains.max_bucket_scan()
    }

    /// The bucket reads the bound cut since the index was made (see [`ScanCuts`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{FlatLshIndex, LshParams};
    /// assert!(!FlatLshIndex::new(LshParams::new(2, 2)?).scan_cuts().any());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scan_cuts(&self) -> ScanCuts {
        self.chains.scan_cuts()
    }

    /// The number of documents inserted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{FlatLshIndex, LshParams, PlainSlots};
    /// let mut index = FlatLshIndex::new(LshParams::new(1, 1)?);
    /// index.query_then_insert(&PlainSlots::new(SchemeId::new("d").finish(), vec![1])?, &mut Vec::new())?;
    /// assert_eq!(index.len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.chains.next.len() / self.params.bands()
    }

    /// Whether no document was inserted.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{FlatLshIndex, LshParams};
    /// assert!(FlatLshIndex::new(LshParams::new(1, 1)?).is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.chains.next.is_empty()
    }

    /// Memory allocated (capacity, so growth slack shows): band tables, chain links and
    /// band keys; no key map and no signatures.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{FlatLshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut index = FlatLshIndex::with_capacity(LshParams::new(16, 6)?, 100);
    /// for i in 0..100u64 {
    ///     let sig = PlainSlots::new(s, (0..128).map(|j| i * 1000 + j).collect::<Vec<_>>())?;
    ///     index.query_then_insert(&sig, &mut Vec::new())?;
    /// }
    /// let m = index.memory();
    /// assert_eq!((m.documents, m.band_keys, m.chains), (100, 100 * 16 * 8, 100 * 16 * 4));
    /// assert!(m.bytes_per_document() < 16.0 * 23.0);
    /// assert_eq!(m.key_map + m.signatures, 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> MemoryReport {
        self.chains.memory(self.len(), 0)
    }

    /// The streaming deduplication step: appends to `out` the numbers of the earlier
    /// documents that share a band with `signature` (each once, in no particular
    /// order), then inserts it; returns its number.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the signature's scheme differs from the first
    /// inserted one's; [`Error::InvalidParameter`] when it has fewer than `bands × rows`
    /// slots; [`Error::InvalidInput`] when the index already holds 3·2³⁰ documents.
    /// Nothing is appended and the index is unchanged on error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{FlatLshIndex, LshParams, PlainSlots};
    /// let mut index = FlatLshIndex::new(LshParams::new(2, 2)?);
    /// let s = SchemeId::new("d").finish();
    /// assert!(index.query_then_insert(&PlainSlots::new(s, vec![1, 2, 3])?, &mut Vec::new()).is_err());
    /// assert!(index.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_then_insert<S: SlotSignature>(
        &mut self,
        signature: &S,
        out: &mut Vec<u32>,
    ) -> Result<u32, Error> {
        if let Some(scheme) = self.scheme {
            Error::check_schemes(scheme, signature.scheme())?;
        }
        self.params.check_signature_len(signature.slots().len())?;
        let doc = self.len();
        let number = u32::try_from(doc)
            .ok()
            .filter(|_| doc < MAX_DOCS)
            .ok_or_else(|| {
                Error::invalid_input(format!("an LSH index holds at most {MAX_DOCS} documents"))
            })?;
        self.scheme = Some(signature.scheme());
        self.chains.push();
        self.params
            .write_band_keys(signature.slots(), self.chains.keys_mut(number));
        self.chains.link::<true>(number, |d| out.push(d), |_, _| {});
        Ok(number)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{LshIndex, PlainSlots};

    /// Pseudo-random signatures with planted near-duplicates: slot values drawn from a
    /// small alphabet so that bands collide often, with some documents copies of earlier
    /// ones with a few slots changed.
    fn stream(n: usize, slots: usize) -> Vec<PlainSlots> {
        stream_over(n, slots, 4)
    }

    /// [`stream`] over an alphabet of `alphabet` slot values (fewer: hotter buckets).
    pub(crate) fn stream_over(n: usize, slots: usize, alphabet: u64) -> Vec<PlainSlots> {
        let scheme = SchemeId::new("flat-test").finish();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut docs: Vec<Vec<u64>> = Vec::new();
        for d in 0..n {
            let v = if d > 0 && next() % 3 == 0 {
                let mut v = docs[usize::try_from(next() % d as u64).expect("below d")].clone();
                for _ in 0..(next() % 6) {
                    let s = usize::try_from(next() % slots as u64).expect("below slots");
                    v[s] = next() % alphabet;
                }
                v
            } else {
                (0..slots).map(|_| next() % alphabet).collect()
            };
            docs.push(v);
        }
        docs.into_iter()
            .map(|v| PlainSlots::new(scheme, v).expect("non-empty"))
            .collect()
    }

    /// The flat index proposes exactly the candidates of `LshIndex` over the same
    /// stream, with and without a bucket-scan bound, and counts the same cuts.
    #[test]
    fn same_candidates_as_lsh_index() -> Result<(), Error> {
        let docs = stream(400, 12);
        for bound in [None, Some(1), Some(3), Some(50)] {
            let params = LshParams::new(4, 3)?;
            let mut flat =
                FlatLshIndex::with_capacity(params, if bound.is_some() { 0 } else { 400 });
            flat.set_max_bucket_scan(bound);
            let mut lsh: LshIndex<u32, PlainSlots> =
                LshIndex::builder(params).max_bucket_scan(bound).build();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut total = 0;
            for (i, d) in (0u32..).zip(&docs) {
                a.clear();
                b.clear();
                assert_eq!(flat.query_then_insert(d, &mut a)?, i);
                lsh.query_then_insert(i, d, &mut b)?;
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "document {i}, bound {bound:?}");
                total += a.len();
            }
            assert!(total > 400, "the stream collides: {total} candidates");
            assert_eq!(flat.scan_cuts(), lsh.scan_cuts());
            if bound == Some(1) {
                assert!(flat.scan_cuts().any());
            }
        }
        Ok(())
    }

    /// Another scheme is refused and changes nothing.
    #[test]
    fn refuses_another_scheme() -> Result<(), Error> {
        let mut flat = FlatLshIndex::new(LshParams::new(1, 2)?);
        let a = PlainSlots::new(SchemeId::new("a").finish(), vec![1, 2])?;
        let b = PlainSlots::new(SchemeId::new("b").finish(), vec![1, 2])?;
        flat.query_then_insert(&a, &mut Vec::new())?;
        let mut out = Vec::new();
        assert!(flat.query_then_insert(&b, &mut out).is_err());
        assert!(out.is_empty());
        assert_eq!(flat.len(), 1);
        Ok(())
    }
}

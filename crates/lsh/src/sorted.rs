//! [`SortedBandJoin`]: the candidates of a banded LSH stream found by sorting each
//! band's keys once, instead of probing a hash table and walking bucket chains per
//! document.

use ndd_core::Error;

use crate::table::MAX_DOCS;
use crate::{LshParams, MemoryReport, ScanCuts};

/// "Alone in its bucket": the position of a document no other document shares the
/// band's key with.
const ALONE: u32 = u32::MAX;

/// One band of a [`SortedBandJoin`]: the band's buckets of two or more documents,
/// found by sorting the band's `(key, document)` pairs.
///
/// Per document a 4-byte position (most documents are alone in their bucket: the
/// position says so), and per document that shares its bucket 8 bytes more (its number
/// and where its bucket starts). Made by [`sort`](Self::sort) or a [`BandSorter`], one
/// band at a time, so that a caller may sort the bands in parallel and hand them to
/// [`SortedBandJoin::from_bands`].
///
/// # Example
///
/// ```
/// use near_dup::lsh::SortedBand;
/// // One band's keys of four documents: 0, 1 and 3 share a bucket.
/// let band = SortedBand::sort(&[7, 7, 5, 7])?;
/// assert_eq!((band.documents(), band.shared()), (4, 3));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SortedBand {
    /// `pos[doc]`: where `doc` is in `members`, or [`ALONE`].
    pos: Vec<u32>,
    /// The documents of the buckets of two or more, bucket by bucket, each bucket's in
    /// ascending order (its oldest first).
    members: Vec<u32>,
    /// `starts[p]`: the position in `members` of the first (oldest) member of
    /// `members[p]`'s bucket.
    starts: Vec<u32>,
}

impl SortedBand {
    /// The band whose key of document `d` is `column[d]`, sorted into buckets (with a
    /// new [`BandSorter`]; one kept from band to band spares its scratch memory).
    ///
    /// # Errors
    ///
    /// As [`BandSorter::sort`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::SortedBand;
    /// assert_eq!(SortedBand::sort(&[4, 4, 5])?.shared(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sort(column: &[u64]) -> Result<SortedBand, Error> {
        BandSorter::new().sort(column)
    }

    /// The number of documents of the band.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::SortedBand::sort(&[4, 4, 5])?.documents(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn documents(&self) -> usize {
        self.pos.len()
    }

    /// The number of documents that share their bucket with another.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::lsh::SortedBand::sort(&[4, 4, 5])?.shared(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn shared(&self) -> usize {
        self.members.len()
    }

    /// Bytes allocated (capacity).
    fn bytes(&self) -> usize {
        (self.pos.capacity() + self.members.capacity() + self.starts.capacity()) * size_of::<u32>()
    }

    /// The members of `doc`'s bucket before it that a read bounded by `scan` reads
    /// (the newest `scan`), oldest first.
    #[inline]
    fn before(&self, doc: usize, scan: usize) -> &[u32] {
        match self.pos.get(doc) {
            Some(&p) if p != ALONE => {
                let p = p as usize;
                let start = self.starts[p] as usize;
                let read = ScanCuts::read_range(p - start, scan);
                &self.members[start + read.start..p]
            }
            _ => &[],
        }
    }
}

/// Sorts bands into [`SortedBand`]s, keeping its scratch memory (16 bytes per document,
/// freed when it is dropped) from one band to the next.
///
/// A band's keys are parted by their high bits (band keys are hashes) into at most
/// 4,096 parts of about 16 keys or more: counted, the `(key, document)` pairs scattered
/// into their parts, and each part sorted. The counts (16 KiB) and the parts' write
/// heads stay in cache at any size of band; each part, while it is sorted, stays in
/// cache up to about 2²⁴ documents (4,096 parts of 4,096 keys, 64 KiB each), and grows
/// with the band beyond (the parts stop at 4,096).
///
/// # Example
///
/// ```
/// use near_dup::lsh::BandSorter;
/// let mut sorter = BandSorter::new();
/// let bands = [sorter.sort(&[1, 2, 1])?, sorter.sort(&[3, 3, 3])?];
/// assert_eq!((bands[0].shared(), bands[1].shared()), (2, 3));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct BandSorter {
    entries: Vec<(u64, u32)>,
    offsets: Vec<u32>,
}

impl BandSorter {
    /// A sorter with no scratch memory yet.
    ///
    /// # Example
    ///
    /// ```
    /// let mut sorter = near_dup::lsh::BandSorter::new();
    /// assert_eq!(sorter.sort(&[])?.documents(), 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The band whose key of document `d` is `column[d]`, sorted into buckets.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the column is of more than 3·2³⁰ documents.
    ///
    /// # Example
    ///
    /// ```
    /// let mut sorter = near_dup::lsh::BandSorter::new();
    /// let band = sorter.sort(&[9, 8, 9, 8, 7])?;
    /// assert_eq!((band.documents(), band.shared()), (5, 4));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn sort(&mut self, column: &[u64]) -> Result<SortedBand, Error> {
        let n = column.len();
        if n > MAX_DOCS {
            return Err(Error::invalid_input(format!(
                "a sorted band join holds at most {MAX_DOCS} documents"
            )));
        }
        let bits = partition_bits(n);
        // Below 2¹²: the conversion never fails.
        let part = |key: u64| usize::try_from(key >> (64 - bits)).unwrap_or(0);
        // `offsets[p + 1]`: the keys of part `p`; then where part `p` starts; then,
        // after the scatter, where it ends (a u32: `n` ≤ MAX_DOCS < 2³²).
        let offsets = &mut self.offsets;
        offsets.clear();
        offsets.resize((1 << bits) + 1, 0);
        for &key in column {
            offsets[part(key) + 1] += 1;
        }
        for p in 1..offsets.len() {
            offsets[p] += offsets[p - 1];
        }
        let entries = &mut self.entries;
        entries.clear();
        entries.resize(n, (0, 0));
        // Documents are below n ≤ MAX_DOCS < u32::MAX (checked above).
        for (doc, &key) in (0u32..).zip(column) {
            let at = &mut offsets[part(key)];
            entries[*at as usize] = (key, doc);
            *at += 1;
        }
        let mut out = SortedBand {
            pos: vec![ALONE; n],
            members: Vec::new(),
            starts: Vec::new(),
        };
        let mut lo = 0;
        for &end in &offsets[..1 << bits] {
            let hi = end as usize;
            if hi - lo > 1 {
                let part = &mut entries[lo..hi];
                part.sort_unstable();
                // Equal keys are now side by side, their documents ascending.
                for bucket in part.chunk_by(|a, b| a.0 == b.0) {
                    if bucket.len() < 2 {
                        continue;
                    }
                    let start = u32::try_from(out.members.len()).unwrap_or(ALONE);
                    for &(_, doc) in bucket {
                        out.pos[doc as usize] = u32::try_from(out.members.len()).unwrap_or(ALONE);
                        out.members.push(doc);
                        out.starts.push(start);
                    }
                }
            }
            lo = hi;
        }
        out.members.shrink_to_fit();
        out.starts.shrink_to_fit();
        Ok(out)
    }
}

/// The high bits [`BandSorter::sort`] parts `n` keys by: parts of about 16 keys, at
/// most 2¹² of them.
fn partition_bits(n: usize) -> u32 {
    (usize::BITS - (n / 16).leading_zeros()).clamp(1, 12)
}

/// The candidates of a stream of documents numbered 0, 1, 2, … (each queried against
/// the earlier ones, as [`FlatLshIndex::query_then_insert`](crate::FlatLshIndex::query_then_insert)
/// queries), found all at once from the whole stream's band keys: each band's keys are
/// sorted into buckets ([`SortedBand`]), and a document's candidates are the members
/// of its buckets before it (at most the [bucket-scan bound](Self::max_bucket_scan)
/// newest of each). The same candidates and the same [`ScanCuts`] as the flat index
/// over the same stream, without its hash tables: a document's query reads one
/// position per band and, when it shares a bucket, the members before it side by side.
///
/// Every document's query is independent (`&self`), so the queries may run in
/// parallel. Memory: 4 bytes per document and band, and 8 more per document and band
/// that shares its bucket ([`memory`](Self::memory)); the band keys it is built from
/// (8 bytes per document and band) are the caller's.
///
/// # Example
///
/// ```
/// use near_dup::lsh::{LshParams, SortedBandJoin};
/// let p = LshParams::new(2, 2)?;
/// let mut keys = Vec::new();
/// for slots in [[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 7, 8]] {
///     p.band_keys_into(&slots, &mut keys)?;
/// }
/// let join = SortedBandJoin::build(p, &keys, None)?;
/// let mut found = Vec::new();
/// join.candidates_into(2, &mut found);
/// assert_eq!(found, vec![0, 1]); // band 0 with document 0, band 1 with document 1
/// join.candidates_into(1, &mut found);
/// assert!(found.is_empty()); // document 0 shares no band with it
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SortedBandJoin {
    params: LshParams,
    documents: usize,
    /// Most members before a document read per band, newest first (`usize::MAX`: all).
    bucket_scan: usize,
    bands: Vec<SortedBand>,
    cuts: ScanCuts,
}

impl SortedBandJoin {
    /// The most documents a join holds (3·2³⁰): [`BandSorter::sort`] refuses a longer
    /// band, so a caller may refuse a longer stream before computing its band keys.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::SortedBandJoin;
    /// assert_eq!(SortedBandJoin::MAX_DOCUMENTS, 3 << 30);
    /// ```
    pub const MAX_DOCUMENTS: usize = MAX_DOCS;

    /// The join of the band keys `keys` (`params.bands()` per document, document by
    /// document, as [`LshParams::band_keys_into`] appends them), each band sorted in
    /// turn; `max_bucket_scan` bounds each document's read of each bucket as
    /// [`FlatLshIndex::set_max_bucket_scan`](crate::FlatLshIndex::set_max_bucket_scan)
    /// does (`None`: no bound).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `keys` are not whole documents; as
    /// [`BandSorter::sort`] otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// let p = LshParams::new(1, 2)?;
    /// let keys = vec![p.band_keys(&[1, 2])?[0]; 5]; // five documents, one bucket
    /// let join = SortedBandJoin::build(p, &keys, Some(2))?;
    /// let mut found = Vec::new();
    /// join.candidates_into(4, &mut found);
    /// assert_eq!(found, vec![2, 3]); // the two newest of the four before it
    /// assert_eq!((join.scan_cuts().reads, join.scan_cuts().documents), (2, 2));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build(
        params: LshParams,
        keys: &[u64],
        max_bucket_scan: Option<usize>,
    ) -> Result<SortedBandJoin, Error> {
        let b = params.bands();
        if keys.len() % b != 0 {
            return Err(Error::invalid_parameter(
                "keys",
                format!(
                    "{} band keys are not whole documents of {b} bands",
                    keys.len()
                ),
            ));
        }
        let mut sorter = BandSorter::new();
        let mut column = Vec::with_capacity(keys.len() / b);
        let mut bands = Vec::with_capacity(b);
        for band in 0..b {
            column.clear();
            column.extend(keys.iter().skip(band).step_by(b));
            bands.push(sorter.sort(&column)?);
        }
        Self::from_bands(params, bands, max_bucket_scan)
    }

    /// The join of bands sorted by the caller (at position `i` band `i`'s
    /// [`SortedBand`], from the keys of the same documents), e.g. on several threads;
    /// otherwise as [`build`](Self::build).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when there are not `params.bands()` bands or they
    /// are of different numbers of documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBand, SortedBandJoin};
    /// let p = LshParams::new(2, 1)?;
    /// // Band 0's keys of documents 0 and 1, then band 1's.
    /// let bands = vec![SortedBand::sort(&[1, 1])?, SortedBand::sort(&[2, 3])?];
    /// let join = SortedBandJoin::from_bands(p, bands, None)?;
    /// assert_eq!(join.len(), 2);
    /// assert!(SortedBandJoin::from_bands(p, Vec::new(), None).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bands(
        params: LshParams,
        bands: Vec<SortedBand>,
        max_bucket_scan: Option<usize>,
    ) -> Result<SortedBandJoin, Error> {
        let documents = bands.first().map_or(0, SortedBand::documents);
        if bands.len() != params.bands() || bands.iter().any(|b| b.documents() != documents) {
            return Err(Error::invalid_parameter(
                "bands",
                format!(
                    "{} sorted bands for {} bands: one per band, all of the same documents",
                    bands.len(),
                    params.bands()
                ),
            ));
        }
        let bucket_scan = max_bucket_scan.unwrap_or(usize::MAX);
        // The cut reads, counted as the flat index's walks count them: one per
        // document and band whose bucket held more members before it than the bound.
        // A document's first cut read counts it (a bit per document: the documents
        // with a cut read are counted without a list of them).
        let mut cuts = ScanCuts::default();
        let mut cut_bits = vec![0u64; documents.div_ceil(64)];
        for band in &bands {
            for (p, (&doc, &start)) in band.members.iter().zip(&band.starts).enumerate() {
                if ScanCuts::cuts(p - start as usize, bucket_scan) {
                    cuts.reads += 1;
                    let (word, bit) = (doc as usize / 64, 1u64 << (doc % 64));
                    if cut_bits[word] & bit == 0 {
                        cut_bits[word] |= bit;
                        cuts.documents += 1;
                    }
                }
            }
        }
        Ok(SortedBandJoin {
            params,
            documents,
            bucket_scan,
            bands,
            cuts,
        })
    }

    /// Sets `out` to the earlier documents (numbers below `doc`) that share a band with
    /// document `doc`, ascending, each once: at most the bound's newest members before
    /// it of each of its buckets. Empty for a number past the last document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// let p = LshParams::new(2, 1)?;
    /// let join = SortedBandJoin::build(p, &[1, 2, 1, 2, 1, 3], None)?;
    /// let mut found = vec![99];
    /// join.candidates_into(2, &mut found);
    /// assert_eq!(found, vec![0, 1]); // document 0 shares both bands with 1, once
    /// join.candidates_into(0, &mut found);
    /// assert!(found.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn candidates_into(&self, doc: usize, out: &mut Vec<u32>) {
        out.clear();
        let mut sources = 0;
        // A near-copy meets the same members in many bands: a band whose members are
        // the last added band's adds nothing.
        let mut last: &[u32] = &[];
        for band in &self.bands {
            let before = band.before(doc, self.bucket_scan);
            if !before.is_empty() && before != last {
                sources += 1;
                out.extend_from_slice(before);
                last = before;
            }
        }
        // One bucket's members are ascending and distinct already.
        if sources > 1 {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// The banding parameters.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// let p = LshParams::new(2, 2)?;
    /// assert_eq!(SortedBandJoin::build(p, &[], None)?.params(), p);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// The bucket-scan bound (`None`: none).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// let join = SortedBandJoin::build(LshParams::new(1, 1)?, &[1, 1], Some(3))?;
    /// assert_eq!(join.max_bucket_scan(), Some(3));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn max_bucket_scan(&self) -> Option<usize> {
        (self.bucket_scan != usize::MAX).then_some(self.bucket_scan)
    }

    /// The bucket reads the bound cut over all the documents' queries (see
    /// [`ScanCuts`]): the same as a [`FlatLshIndex`](crate::FlatLshIndex) counts over
    /// the same stream.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// let join = SortedBandJoin::build(LshParams::new(1, 1)?, &[1, 1, 1], Some(1))?;
    /// assert_eq!((join.scan_cuts().reads, join.scan_cuts().documents), (1, 1));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scan_cuts(&self) -> ScanCuts {
        self.cuts
    }

    /// The number of documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// assert_eq!(SortedBandJoin::build(LshParams::new(2, 1)?, &[1, 2, 3, 4], None)?.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.documents
    }

    /// Whether the join has no document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// assert!(SortedBandJoin::build(LshParams::new(2, 1)?, &[], None)?.is_empty());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.documents == 0
    }

    /// Memory allocated (capacity): the positions and shared members, reported as
    /// `chains`; no band tables, no band keys (they are the caller's, and not needed
    /// once the join is built), no key map and no signatures.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{LshParams, SortedBandJoin};
    /// let join = SortedBandJoin::build(LshParams::new(2, 1)?, &[1, 2, 1, 3, 4, 5], None)?;
    /// let m = join.memory();
    /// assert_eq!(m.documents, 3);
    /// // A position per document and band, 8 bytes per shared member (0 and 1, band 0).
    /// assert_eq!(m.chains, 3 * 2 * 4 + 2 * 8);
    /// assert_eq!(m.band_tables + m.band_keys + m.key_map + m.signatures, 0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn memory(&self) -> MemoryReport {
        MemoryReport {
            documents: self.documents,
            band_tables: 0,
            chains: self.bands.iter().map(SortedBand::bytes).sum(),
            band_keys: 0,
            key_map: 0,
            signatures: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FlatLshIndex;
    use crate::flat::tests::stream_over;
    use ndd_core::SlotSignature;

    /// The sorted join proposes for every document exactly the candidates the flat
    /// index's `query_then_insert` proposes over the same stream, and counts the same
    /// cuts, with and without a bucket-scan bound; and both agree with brute force
    /// where no bound cuts, and with a bounded brute force (each band's newest `scan`
    /// earlier documents sharing the key) under every bound.
    #[test]
    fn same_candidates_and_cuts_as_the_flat_index() -> Result<(), Error> {
        for (n, alphabet) in [(600, 4), (3000, 3), (1, 4), (0, 4)] {
            let docs = stream_over(n, 12, alphabet);
            let params = LshParams::new(4, 3)?;
            let mut keys = Vec::new();
            for d in &docs {
                params.band_keys_into(d.slots(), &mut keys)?;
            }
            for bound in [None, Some(1), Some(3), Some(50)] {
                let join = SortedBandJoin::build(params, &keys, bound)?;
                assert_eq!(join.len(), n);
                let mut flat = FlatLshIndex::with_capacity(params, n);
                flat.set_max_bucket_scan(bound);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let mut total = 0;
                let mut oracle_cuts = ScanCuts::default();
                for (i, d) in docs.iter().enumerate() {
                    b.clear();
                    flat.query_then_insert(d, &mut b)?;
                    b.sort_unstable();
                    join.candidates_into(i, &mut a);
                    assert_eq!(a, b, "document {i} of {n}, bound {bound:?}");
                    total += a.len();
                    if bound.is_none() {
                        // Brute force: every earlier document sharing a band key.
                        let mine = &keys[i * 4..i * 4 + 4];
                        let all: Vec<u32> = (0..i)
                            .filter(|&j| {
                                keys[j * 4..j * 4 + 4].iter().zip(mine).any(|(x, y)| x == y)
                            })
                            .map(|j| u32::try_from(j).expect("small"))
                            .collect();
                        assert_eq!(a, all, "document {i} of {n}");
                    }
                    // Bounded brute force: for each band, the last `scan` earlier
                    // documents sharing its key; a read is cut when there were more.
                    let scan = bound.unwrap_or(usize::MAX);
                    let mut oracle: Vec<u32> = Vec::new();
                    let mut cut = false;
                    for band in 0..4 {
                        let sharing: Vec<u32> = (0..i)
                            .filter(|&j| keys[j * 4 + band] == keys[i * 4 + band])
                            .map(|j| u32::try_from(j).expect("small"))
                            .collect();
                        if sharing.len() > scan {
                            oracle_cuts.reads += 1;
                            cut = true;
                        }
                        oracle.extend(sharing.iter().rev().take(scan));
                    }
                    oracle.sort_unstable();
                    oracle.dedup();
                    assert_eq!(a, oracle, "document {i} of {n}, bound {bound:?}");
                    oracle_cuts.documents += u64::from(cut);
                }
                assert_eq!(join.scan_cuts(), oracle_cuts, "{n}, bound {bound:?}");
                assert_eq!(join.scan_cuts(), flat.scan_cuts(), "{n}, bound {bound:?}");
                if n > 1 {
                    assert!(total > n, "the stream collides: {total} candidates");
                }
                if n > 1 && bound == Some(1) {
                    assert!(join.scan_cuts().any());
                }
            }
        }
        Ok(())
    }

    /// A join of bands sorted one by one finds each document's candidates and counts
    /// the bound's cuts; bands of another count or of other documents are refused.
    #[test]
    fn from_bands_checks_its_bands() -> Result<(), Error> {
        let p = LshParams::new(2, 1)?;
        // Documents 0 and 1 share both bands' keys (1 and 2), document 2 only band
        // 1's (2): band 0's keys are [1, 1, 3], band 1's [2, 2, 2].
        // One sorter for both bands: its scratch memory carries nothing over.
        let mut sorter = BandSorter::new();
        let bands = vec![sorter.sort(&[1, 1, 3])?, sorter.sort(&[2, 2, 2])?];
        let joined = SortedBandJoin::from_bands(p, bands.clone(), None)?;
        let mut found = Vec::new();
        for (doc, expected) in [(0, vec![]), (1, vec![0u32]), (2, vec![0, 1])] {
            joined.candidates_into(doc, &mut found);
            assert_eq!(found, expected, "document {doc}");
        }
        assert!(!joined.scan_cuts().any());
        // Bound 1: document 2 reads only the newest (1) of band 1's two before it,
        // one cut read; document 1's reads (one member before it) are whole.
        let bounded = SortedBandJoin::from_bands(p, bands, Some(1))?;
        for (doc, expected) in [(0, vec![]), (1, vec![0u32]), (2, vec![1])] {
            bounded.candidates_into(doc, &mut found);
            assert_eq!(found, expected, "document {doc}, bound 1");
        }
        let cuts = bounded.scan_cuts();
        assert_eq!((cuts.reads, cuts.documents), (1, 1));
        let short = vec![SortedBand::sort(&[1, 1, 3])?, SortedBand::sort(&[2, 2])?];
        assert!(SortedBandJoin::from_bands(p, short, None).is_err());
        Ok(())
    }

    /// Keys that share their high bits land in one part and are still told apart.
    #[test]
    fn keys_with_the_same_high_bits_are_told_apart() -> Result<(), Error> {
        let keys: Vec<u64> = (0..64u64).map(|i| (1 << 40) + (i % 5)).collect();
        let band = SortedBand::sort(&keys)?;
        assert_eq!(band.shared(), 64);
        // And keys that differ only in their high bits are parted apart.
        let band = SortedBand::sort(&[1 << 63, 1, 1 << 63, 1 << 62])?;
        assert_eq!(band.shared(), 2);
        let join = SortedBandJoin::build(LshParams::new(1, 1)?, &keys, None)?;
        let mut found = Vec::new();
        join.candidates_into(12, &mut found);
        assert_eq!(found, vec![2, 7]);
        Ok(())
    }
}

//! [`BandChains`]: the band tables and bucket chains that [`FlatLshIndex`] is and
//! [`LshIndex`] is built on (one linking and one query walk for both).
//!
//! [`FlatLshIndex`]: crate::FlatLshIndex
//! [`LshIndex`]: crate::LshIndex

use ahash::AHashSet;

use crate::MemoryReport;
use crate::ScanCuts;
use crate::table::{BandTable, NIL, Probe, Start};
use crate::walk::BucketWalk;

/// Bands whose table loads are issued together before probing.
const PREFETCH_BANDS: usize = 16;

/// The most band slots (documents × bands) a capacity hint sets up front: 2^26, at 16
/// bands 4,194,304 documents, about 1.3 GiB (the tables' 716 MiB written, the keys' and
/// links' 768 MiB reserved). A larger hint (`usize::MAX` included) is cut to it and the
/// index grows on demand past it, 1.5× at a time, so that a hint cannot ask for more
/// memory than the documents it brings.
pub(crate) const MAX_PRESET_SLOTS: usize = 1 << 26;

/// The documents a hint of `documents` sets up front at `bands` bands: the hint, at
/// most [`MAX_PRESET_SLOTS`] band slots.
pub(crate) fn preset_documents(bands: usize, documents: usize) -> usize {
    preset_within(bands, documents, MAX_PRESET_SLOTS)
}

/// [`preset_documents`] under a bound of `max_slots` band slots.
fn preset_within(bands: usize, documents: usize, max_slots: usize) -> usize {
    documents.min(max_slots / bands.max(1))
}

/// The banding structure over dense document numbers: per band a table from band key
/// to the newest document of its bucket, per document and band its key and a link to
/// the next older member, and the bucket-scan bound with the cuts it made.
///
/// Documents are numbered by their position in the arrays (`doc·b + i` is band `i` of
/// document `doc`); who owns a number (an arrival order, a key map with reused slots)
/// and backward links are the wrapper's business.
#[derive(Clone)]
pub(crate) struct BandChains {
    bands: usize,
    pub(crate) tables: Vec<BandTable>,
    /// `band_keys[doc·b + i]`: band `i`'s key of document `doc`.
    pub(crate) band_keys: Vec<u64>,
    /// `next[doc·b + i]`: the next older document in the same band-`i` bucket.
    pub(crate) next: Vec<u32>,
    /// Most members of one bucket a query reads, newest first (`usize::MAX`: all).
    bucket_scan: usize,
    /// The bucket reads of querying links that the bound cut.
    cuts: ScanCuts,
    /// The members a bounded link reported so far, cleared per link (scratch, kept to
    /// spare an allocation per document).
    seen: AHashSet<u32>,
}

impl BandChains {
    /// Empty chains of `bands` bands with room for `documents` documents (a hint, cut
    /// to [`MAX_PRESET_SLOTS`] band slots by [`preset_documents`]; a reservation that
    /// fails is dropped).
    pub(crate) fn with_capacity(bands: usize, documents: usize, bucket_scan: usize) -> Self {
        Self::with_capacity_within(bands, documents, bucket_scan, MAX_PRESET_SLOTS)
    }

    /// [`with_capacity`](Self::with_capacity) under a bound of `max_slots` band slots.
    fn with_capacity_within(
        bands: usize,
        documents: usize,
        bucket_scan: usize,
        max_slots: usize,
    ) -> Self {
        let documents = preset_within(bands, documents, max_slots);
        let mut chains = BandChains {
            bands,
            tables: (0..bands)
                .map(|_| BandTable::with_capacity(documents))
                .collect(),
            band_keys: Vec::new(),
            next: Vec::new(),
            bucket_scan,
            cuts: ScanCuts::default(),
            seen: AHashSet::default(),
        };
        if documents > 0 {
            if let Some(nb) = documents.checked_mul(bands) {
                let _ = chains.band_keys.try_reserve_exact(nb);
                let _ = chains.next.try_reserve_exact(nb);
            }
        }
        chains
    }

    /// Sets the bucket-scan bound (`None`: none).
    pub(crate) fn set_max_bucket_scan(&mut self, members: Option<usize>) {
        self.bucket_scan = members.unwrap_or(usize::MAX);
    }

    /// The bucket-scan bound (`None`: none).
    pub(crate) fn max_bucket_scan(&self) -> Option<usize> {
        (self.bucket_scan != usize::MAX).then_some(self.bucket_scan)
    }

    /// The bucket reads the bound cut so far.
    pub(crate) fn scan_cuts(&self) -> ScanCuts {
        self.cuts
    }

    /// Appends a document number's band keys (zero) and links (`NIL`), growing the
    /// arrays by at least half; returns the new number's offset `doc·b`.
    pub(crate) fn push(&mut self) -> usize {
        let (b, base) = (self.bands, self.band_keys.len());
        reserve_by_half(&mut self.band_keys, b);
        reserve_by_half(&mut self.next, b);
        self.band_keys.resize(base + b, 0);
        self.next.resize(base + b, NIL);
        base
    }

    /// The band keys of document `doc`, to be written before [`link`](Self::link).
    pub(crate) fn keys_mut(&mut self, doc: u32) -> &mut [u64] {
        let base = doc as usize * self.bands;
        &mut self.band_keys[base..base + self.bands]
    }

    /// Memory of the structure, for `documents` documents, with `back_links` more
    /// bytes of chain links (an [`LshIndex`](crate::LshIndex)'s backward links); no
    /// key map and no signatures.
    pub(crate) fn memory(&self, documents: usize, back_links: usize) -> MemoryReport {
        MemoryReport {
            documents,
            band_tables: self.tables.iter().map(BandTable::bytes).sum(),
            chains: self.next.capacity() * size_of::<u32>() + back_links,
            band_keys: self.band_keys.capacity() * size_of::<u64>(),
            key_map: 0,
            signatures: 0,
        }
    }

    /// Links document `doc` (its band keys stored) into every band's bucket as the
    /// newest member and calls `on_head(i, old)` with each band's former head (`NIL`
    /// for a new bucket); with `QUERY`, first calls `on_member` with each member
    /// already there (each once, at most the bound per band, cuts counted).
    #[inline]
    pub(crate) fn link<const QUERY: bool>(
        &mut self,
        doc: u32,
        mut on_member: impl FnMut(u32),
        mut on_head: impl FnMut(usize, u32),
    ) {
        let b = self.bands;
        let base = doc as usize * b;
        // With a bounded scan an older member may be skipped in the first band the
        // two share and met in a later one, so "reported in an earlier shared band"
        // no longer holds: remember what was reported instead.
        let bounded = QUERY && self.bucket_scan != usize::MAX;
        if bounded && !self.seen.is_empty() {
            self.seen.clear();
        }
        let mut seen = bounded.then_some(&mut self.seen);
        self.tables.iter_mut().for_each(BandTable::reserve_one);
        let mut cut_reads = 0u64;
        let mut starts = [Start::default(); PREFETCH_BANDS];
        for first in (0..b).step_by(PREFETCH_BANDS) {
            let last = (first + PREFETCH_BANDS).min(b);
            // Issue the table loads of a group of bands before probing any of them.
            for i in first..last {
                starts[i - first] = self.tables[i].start(self.band_keys[base + i]);
            }
            for i in first..last {
                let table = &mut self.tables[i];
                let keys = &self.band_keys;
                let key_i = keys[base + i];
                let probe =
                    table.probe_from(starts[i - first], |h| keys[h as usize * b + i] == key_i);
                match probe {
                    Probe::Found(pos, head) => {
                        if QUERY {
                            let walk = BucketWalk {
                                keys,
                                next: &self.next,
                                bands: b,
                                limit: self.bucket_scan,
                            };
                            let earlier = &keys[base..base + i];
                            let (_, cut) =
                                walk.run(head, i, earlier, seen.as_deref_mut(), &mut on_member);
                            cut_reads += u64::from(cut);
                        }
                        self.next[base + i] = head;
                        on_head(i, head);
                        table.set_head(pos, doc);
                    }
                    Probe::Vacant(pos) => {
                        self.next[base + i] = NIL;
                        on_head(i, NIL);
                        table.occupy(pos, starts[i - first], doc);
                    }
                }
            }
        }
        if cut_reads > 0 {
            self.cuts.reads += cut_reads;
            self.cuts.documents += 1;
        }
    }

    /// Calls `f` on the members of the buckets of the band keys `qkeys` (the first
    /// `qkeys.len()` bands), once each, newest first. Without `within`, at most the
    /// bound per band is read (no cuts counted). With `within = (budget, cut)`, at most
    /// `budget[i]` members of band `i`'s bucket are read instead: each budget is lowered
    /// by the members read and `cut[i]` set when members were left unread.
    #[inline]
    pub(crate) fn for_each_candidate(
        &self,
        qkeys: &[u64],
        within: Option<(&mut [usize], &mut [bool])>,
        f: impl FnMut(u32),
    ) {
        // Allocates only when a bounded walk reports a candidate.
        self.for_each_candidate_using(qkeys, within, &mut AHashSet::default(), f);
    }

    /// [`for_each_candidate`](Self::for_each_candidate) with the caller's set of
    /// reported documents (cleared first; its memory kept for the next query).
    pub(crate) fn for_each_candidate_using(
        &self,
        qkeys: &[u64],
        mut within: Option<(&mut [usize], &mut [bool])>,
        seen: &mut AHashSet<u32>,
        mut f: impl FnMut(u32),
    ) {
        let b = self.bands;
        let used = qkeys.len().min(b);
        // As in `link`: a bounded walk dedups by what it reported.
        let bounded = within.is_some() || self.bucket_scan != usize::MAX;
        seen.clear();
        let mut seen = bounded.then_some(seen);
        let keys = &self.band_keys;
        let mut starts = [Start::default(); PREFETCH_BANDS];
        for first in (0..used).step_by(PREFETCH_BANDS) {
            let last = (first + PREFETCH_BANDS).min(used);
            for i in first..last {
                starts[i - first] = self.tables[i].start(qkeys[i]);
            }
            for i in first..last {
                let key_i = qkeys[i];
                let probe = self.tables[i]
                    .probe_from(starts[i - first], |h| keys[h as usize * b + i] == key_i);
                if let Probe::Found(_, head) = probe {
                    let walk = BucketWalk {
                        keys,
                        next: &self.next,
                        bands: b,
                        limit: within.as_ref().map_or(self.bucket_scan, |w| w.0[i]),
                    };
                    let (read, left) = walk.run(head, i, &qkeys[..i], seen.as_deref_mut(), &mut f);
                    if let Some((budget, cut)) = within.as_mut() {
                        budget[i] -= read;
                        cut[i] |= left;
                    }
                }
            }
        }
    }
}

/// Grows `v` by at least `extra` elements of capacity, 1.5× at a time.
pub(crate) fn reserve_by_half<T>(v: &mut Vec<T>, extra: usize) {
    if v.capacity() - v.len() < extra {
        v.reserve_exact(extra.max(v.len() / 2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capacity_hint_is_bounded() {
        // Any hint, the largest included, sets at most MAX_PRESET_SLOTS band slots.
        for bands in [1, 9, 16, 1 << 16] {
            let preset = preset_documents(bands, usize::MAX);
            assert!(
                preset * bands <= MAX_PRESET_SLOTS,
                "{bands} bands: {preset}"
            );
            assert!(
                preset * bands > MAX_PRESET_SLOTS - bands,
                "{bands} bands: {preset}"
            );
        }
        assert_eq!(preset_documents(16, usize::MAX), 4_194_304);
        // A hint below the bound is kept as given.
        assert_eq!(preset_documents(16, 1000), 1000);
        assert_eq!(preset_documents(16, 0), 0);
    }

    #[test]
    fn chains_from_a_huge_hint_reserve_the_bound_and_still_grow() {
        // A bound of 4,096 band slots (the real one writes 716 MiB of tables) at 16
        // bands: a hint above it (usize::MAX included) sets 256 documents up front.
        let (bands, max_slots) = (16, 4096);
        for hint in [10_000, usize::MAX] {
            let chains = BandChains::with_capacity_within(bands, hint, usize::MAX, max_slots);
            assert_eq!(chains.band_keys.capacity(), max_slots, "hint {hint}");
            assert_eq!(chains.next.capacity(), max_slots, "hint {hint}");
            // Tables for 256 keys (342 slots at the 3/4 load limit), not 10,000.
            assert!(
                chains.tables.iter().all(|t| t.bytes() <= 512 * 8),
                "hint {hint}"
            );
        }
        // A hint below the bound is kept as given.
        let small = BandChains::with_capacity_within(bands, 100, usize::MAX, max_slots);
        assert_eq!(small.band_keys.capacity(), 100 * bands);
        // Past the preset, the chains grow on demand.
        let mut chains = BandChains::with_capacity_within(bands, usize::MAX, usize::MAX, max_slots);
        let documents = max_slots / bands;
        for doc in 0..=documents {
            assert_eq!(chains.push(), doc * bands);
        }
        assert_eq!(chains.band_keys.len(), (documents + 1) * bands);
        assert!(chains.band_keys.capacity() > max_slots);
    }
}

//! The compact signature store of a verifying [`BloomDedup`](crate::BloomDedup): one
//! byte per MinHash value of every document added (8-bit b-bit MinHash) and, per LSH
//! band, each document's band key cut to 32 bits with a chain through the documents
//! sharing it, so a flagged document is checked against the documents it collided
//! with by the Jaccard estimate before it is flagged.

use std::collections::HashMap;

use ndd_core::Error;
use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_lsh::LshParams;

/// Bits kept per MinHash value.
const BITS: u32 = 8;

/// The most earlier documents one check compares (bounded work on hot buckets: many
/// copies of one text); the most recent come first.
pub(crate) const MAX_COMPARED: usize = 1024;

/// No earlier document in the chain.
const NONE: u32 = u32::MAX;

/// See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VerifyStore {
    num_perm: usize,
    bands: usize,
    /// `num_perm` low bytes per document, documents one after another.
    values: Vec<u8>,
    /// Per band, each document's band key cut to 32 bits.
    keys: Vec<Vec<u32>>,
    /// Per band, each document's previous document with the same cut key.
    next: Vec<Vec<u32>>,
    /// Per band, the last document with each cut key.
    heads: Vec<HashMap<u32, u32>>,
}

impl VerifyStore {
    pub(crate) fn new(num_perm: usize, bands: usize) -> Self {
        VerifyStore {
            num_perm,
            bands,
            values: Vec::new(),
            keys: vec![Vec::new(); bands],
            next: vec![Vec::new(); bands],
            heads: vec![HashMap::new(); bands],
        }
    }

    /// Documents held.
    pub(crate) fn len(&self) -> usize {
        self.values.len() / self.num_perm.max(1)
    }

    /// Whether an earlier document whose band key matches one of `slots`' reaches
    /// `threshold` by the b-bit estimate `(m − 2^-b) / (1 − 2^-b)` of the share `m` of
    /// equal low bytes; then adds the document.
    pub(crate) fn check_then_insert(
        &mut self,
        params: LshParams,
        slots: &[u64],
        threshold: f64,
    ) -> Result<bool, Error> {
        let keys = params.band_keys(slots)?;
        let low: Vec<u8> = slots.iter().map(|&v| v.to_le_bytes()[0]).collect();
        let doc = u32::try_from(self.len())
            .map_err(|_| Error::invalid_parameter("documents", "more than 2^32 - 1"))?;
        let mut seen: Vec<u32> = Vec::new();
        let mut found = false;
        'bands: for (band, &key) in keys.iter().enumerate() {
            let mut at = self.heads[band].get(&cut(key)).copied().unwrap_or(NONE);
            while at != NONE {
                if seen.len() >= MAX_COMPARED {
                    break 'bands;
                }
                if !seen.contains(&at) {
                    seen.push(at);
                    if self.estimate(at as usize, &low) >= threshold {
                        found = true;
                        break 'bands;
                    }
                }
                at = self.next[band][at as usize];
            }
        }
        self.values.extend_from_slice(&low);
        for (band, &key) in keys.iter().enumerate() {
            let prev = self.heads[band].insert(cut(key), doc).unwrap_or(NONE);
            self.keys[band].push(cut(key));
            self.next[band].push(prev);
        }
        Ok(found)
    }

    /// The b-bit Jaccard estimate of document `doc` and the low bytes `low`.
    fn estimate(&self, doc: usize, low: &[u8]) -> f64 {
        let start = doc * self.num_perm;
        let stored = &self.values[start..start + self.num_perm];
        let equal = stored.iter().zip(low).filter(|(a, b)| a == b).count();
        let m = equal as f64 / self.num_perm.max(1) as f64;
        let chance = 1.0 / f64::from(1u32 << BITS);
        ((m - chance) / (1.0 - chance)).max(0.0)
    }

    /// Bytes held: the values, and per band a key and a link per document and a map
    /// entry (key, document and the map's own overhead, counted as 16 bytes) per
    /// distinct key.
    pub(crate) fn memory_bytes(&self) -> usize {
        let entries: usize = self.heads.iter().map(|h| h.capacity()).sum();
        self.values.len() + 8 * self.bands * self.len() + 16 * entries
    }

    pub(crate) fn write(&self, w: &mut ByteWriter) {
        w.u64(self.num_perm as u64);
        w.u64(self.bands as u64);
        w.bytes(&self.values);
        for keys in &self.keys {
            let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
            w.bytes(&bytes);
        }
    }

    /// MinHash values per document.
    pub(crate) fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// Bands keyed.
    pub(crate) fn bands(&self) -> usize {
        self.bands
    }

    /// Reads what [`write`](Self::write) wrote; the caller checks the shape against
    /// the filters and settings.
    pub(crate) fn read(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        let corrupt = |m: &str| Error::corrupt_data(format!("Bloom verification store: {m}"));
        let num_perm = usize::try_from(r.u64()?).map_err(|_| corrupt("too many values"))?;
        let bands = usize::try_from(r.u64()?).map_err(|_| corrupt("too many bands"))?;
        if num_perm == 0 || num_perm > 1 << 16 || bands == 0 || bands > num_perm {
            return Err(corrupt("its shape is out of range"));
        }
        let mut store = VerifyStore::new(num_perm, bands);
        store.values = r.bytes()?.to_vec();
        if store.values.len() % num_perm != 0 {
            return Err(corrupt("values are not whole signatures"));
        }
        let n = store.len();
        for band in 0..bands {
            let raw = r.bytes()?;
            if raw.len() != 4 * n {
                return Err(corrupt("band keys do not match the documents"));
            }
            for (doc, chunk) in raw.chunks_exact(4).enumerate() {
                let key = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                let doc = u32::try_from(doc).map_err(|_| corrupt("too many documents"))?;
                let prev = store.heads[band].insert(key, doc).unwrap_or(NONE);
                store.keys[band].push(key);
                store.next[band].push(prev);
            }
        }
        Ok(store)
    }
}

/// A band key cut to 32 bits (the low half of a 64-bit hash).
fn cut(key: u64) -> u32 {
    let b = key.to_le_bytes();
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

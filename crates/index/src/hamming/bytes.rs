//! The versioned byte form of [`HammingIndex`]: `to_bytes` / `from_bytes`.

use std::hash::Hash;

use ndd_core::codec::{ByteReader, ByteWriter, KeyCodec};
use ndd_core::{Error, SchemeId};

use super::{HammingIndex, HammingParams, MAX_DOCS};

const MAGIC: [u8; 4] = *b"HMIX";
/// 1: parameters, delta limit, documents. 2 adds the scheme (flag byte + `u64`)
/// after the delta limit.
const VERSION: u16 = 2;

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::corrupt_data(format!("Hamming index: {what}"))
}

impl<K: KeyCodec + Clone + Eq + Hash, S> HammingIndex<K, S> {
    /// The versioned byte form of the index (see [`ndd_core::codec`]: magic, version,
    /// body, XXH3 checksum), read back by [`from_bytes`](Self::from_bytes).
    ///
    /// It holds the parameters, the [delta limit](Self::with_delta_limit), and per
    /// document its key and 64-bit fingerprint; the permuted tables are rebuilt on
    /// load by one bulk sort, as [`from_fingerprints`](Self::from_fingerprints) does.
    ///
    /// Size: 48 bytes (9 of them the scheme) plus, per document, the key and 8 bytes (16 bytes per document
    /// with `u64` keys, against `8 + 12·tables` bytes per document in memory).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let mut index = HammingIndex::new(HammingParams::new(2, 4)?);
    /// index.insert(1u64, 0b1011)?;
    /// index.insert(2u64, 0b1000)?;
    /// let bytes = index.to_bytes();
    /// assert_eq!(bytes.len(), 48 + 2 * 16);
    /// let loaded: HammingIndex<u64> = HammingIndex::from_bytes(&bytes)?;
    /// assert_eq!(loaded.all_pairs(), vec![near_dup::ScoredPair::new(1, 2, 1.0 - 2.0 / 64.0)]);
    /// assert_eq!(loaded.params(), index.params());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.keys.len();
        let mut w = ByteWriter::with_capacity(MAGIC, VERSION, 32 + n * 16);
        w.u32(self.params.max_distance());
        w.u32(self.params.blocks());
        match self.delta_limit {
            Some(limit) => {
                w.u8(1);
                w.u64(limit as u64);
            }
            None => {
                w.u8(0);
                w.u64(0);
            }
        }
        w.u8(u8::from(self.scheme.is_some()));
        w.u64(self.scheme.map_or(0, SchemeId::as_u64));
        w.u64(n as u64);
        for (key, &fp) in self.keys.by_slot().iter().zip(&self.fps) {
            if let Some(key) = key {
                key.write_key(&mut w);
                w.u64(fp);
            }
        }
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes) and rebuilds the index
    /// in one bulk sort (its delta is empty afterwards).
    ///
    /// The loaded index finds the same `(key, distance)` results for every query and
    /// the same pairs, and behaves the same under later inserts and removals; the
    /// order among results at equal distance may differ (it follows the tables' sort
    /// order, which depends on when documents were merged).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for bytes that are truncated, altered (checksum), of
    /// another kind or a newer version, or inconsistent: invalid parameters, a flag
    /// byte other than 0 or 1, a delta limit that does not fit a `usize`, a document
    /// count the bytes cannot hold, a duplicate or undecodable key, trailing bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ErrorKind;
    /// use near_dup::index::{HammingIndex, HammingParams};
    /// let index: HammingIndex<u32> = HammingIndex::new(HammingParams::new(2, 4)?);
    /// let bytes = index.to_bytes();
    /// let err = HammingIndex::<u32>::from_bytes(&bytes[..20]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::CorruptData);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let max_distance = r.u32()?;
        let blocks = r.u32()?;
        let params = HammingParams::new(max_distance, blocks).map_err(corrupt)?;
        let has_limit = r.u8()?;
        let limit_bits = r.u64()?;
        let limit = match has_limit {
            0 => None,
            1 => Some(usize::try_from(limit_bits).map_err(|_| {
                corrupt(format_args!(
                    "delta limit {limit_bits} does not fit a usize"
                ))
            })?),
            f => return Err(corrupt(format_args!("delta limit flag {f}"))),
        };
        let scheme = if version >= 2 {
            let flag = r.u8()?;
            let bits = r.u64()?;
            match flag {
                0 => None,
                1 => Some(SchemeId::from_u64(bits)),
                f => return Err(corrupt(format_args!("scheme flag {f}"))),
            }
        } else {
            None
        };
        let n = r.u64()?;
        let left = r.remaining();
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n < MAX_DOCS && n.saturating_mul(8) <= left)
            .ok_or_else(|| {
                corrupt(format_args!(
                    "{n} documents cannot fit in the {left} bytes that remain"
                ))
            })?;
        let mut index = HammingIndex::for_signatures(params).with_delta_limit(limit);
        index.scheme = scheme;
        let hint = n.min(left / 8);
        index.keys.try_reserve(hint);
        let _ = index.fps.try_reserve_exact(hint);
        let _ = index.delta_fps.try_reserve_exact(hint);
        let _ = index.delta_ids.try_reserve_exact(hint);
        for i in 0..n {
            let key = K::read_key(&mut r)?;
            if index.keys.slot(&key).is_some() {
                return Err(corrupt(format_args!("document {i}'s key appears twice")));
            }
            let fp = r.u64()?;
            index.insert_delta(key, fp)?;
        }
        r.finish()?;
        index.compact();
        Ok(index)
    }
}

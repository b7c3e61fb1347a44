//! The versioned byte form of [`ExactIndex`]: `to_bytes` / `from_bytes`.

use std::hash::Hash;

use ndd_core::codec::{ByteReader, ByteWriter, KeyCodec, chain_order};
use ndd_core::{Error, SchemeId};

use super::{ExactIndex, ExactSignature, NIL};

const MAGIC: [u8; 4] = *b"EXIX";
const VERSION: u16 = 1;
/// Flag bit: the index has a scheme (fixed by its first insert).
const HAS_SCHEME: u8 = 2;

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::corrupt_data(format!("exact index: {what}"))
}

fn read_usize(r: &mut ByteReader<'_>, name: &str) -> Result<usize, Error> {
    let v = r.u64()?;
    usize::try_from(v).map_err(|_| corrupt(format_args!("{name} = {v} does not fit a usize")))
}

impl<K, S> ExactIndex<K, S>
where
    K: KeyCodec + Clone + Eq + Hash,
    S: ExactSignature,
    S::Coordinate: KeyCodec,
{
    /// The versioned byte form of the index (see [`ndd_core::codec`]: magic, version,
    /// body, XXH3 checksum), read back by [`from_bytes`](Self::from_bytes).
    ///
    /// It holds the scheme, the number of coordinates `w`, and per document its key
    /// followed by its `w` coordinates (one presence byte each, then the coordinate's
    /// [`KeyCodec`] form when present). The hash tables and chains are rebuilt on load;
    /// documents are written oldest first (consistent with every bucket's chain), so
    /// the rebuilt chains are the saved ones.
    ///
    /// Size: 39 bytes plus, per document, the key and `w` presence bytes and present
    /// coordinates: an I-Match signature with one 20-byte SHA-1 and a `u64` key takes
    /// 29 bytes per document.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SchemeId, ScoredPair};
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let s = SchemeId::new("demo").finish();
    /// let mut index = ExactIndex::new();
    /// index.insert(1u64, &PlainSlots::new(s, vec![7, 8])?)?;
    /// index.insert(2u64, &PlainSlots::new(s, vec![7, 9])?)?;
    /// let bytes = index.to_bytes();
    /// assert_eq!(bytes.len(), 39 + 2 * (8 + 2 * (1 + 8)));
    /// let loaded: ExactIndex<u64, PlainSlots> = ExactIndex::from_bytes(&bytes)?;
    /// assert_eq!(loaded.all_pairs(), vec![ScoredPair::new(1, 2, 0.5)]); // 7 shared, 8 ≠ 9
    /// assert_eq!(loaded.scheme(), Some(s));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let w = self.width;
        let order = chain_order(self.keys.by_slot(), &self.next, w);
        let mut out = ByteWriter::with_capacity(MAGIC, VERSION, 32 + order.len() * (8 + 9 * w));
        out.u8(if self.scheme.is_some() { HAS_SCHEME } else { 0 });
        out.u64(self.scheme.map_or(0, SchemeId::as_u64));
        out.u64(w as u64);
        out.u64(order.len() as u64);
        for &slot in &order {
            let d = slot as usize;
            if let Some(key) = &self.keys.by_slot()[d] {
                key.write_key(&mut out);
            }
            for c in &self.coords[d * w..(d + 1) * w] {
                match c {
                    Some(c) => {
                        out.u8(1);
                        c.write_key(&mut out);
                    }
                    None => out.u8(0),
                }
            }
        }
        out.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes) and rebuilds the index.
    ///
    /// The loaded index answers queries with the same keys in the same order, gives the
    /// same pairs (each `(earlier, later)` as before) and groups, and behaves the same
    /// under later inserts and removals. Cost: one hash-table insert per present
    /// coordinate, as inserting the signatures would.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for bytes that are truncated, altered (checksum), of
    /// another kind or a newer version, or inconsistent: unknown flags, documents or
    /// coordinates without a scheme, a document count the bytes cannot hold, a presence
    /// byte other than 0 or 1, a duplicate or undecodable key or coordinate, trailing
    /// bytes. More than 65,536 coordinates with no documents are refused too.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ErrorKind, SchemeId};
    /// use near_dup::index::ExactIndex;
    /// use near_dup::lsh::PlainSlots;
    /// let mut index = ExactIndex::new();
    /// index.insert(String::from("a"), &PlainSlots::new(SchemeId::new("d").finish(), vec![1])?)?;
    /// let mut bytes = index.to_bytes();
    /// bytes[8] ^= 1;
    /// let err = ExactIndex::<String, PlainSlots>::from_bytes(&bytes).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::CorruptData);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let flags = r.u8()?;
        if flags & !HAS_SCHEME != 0 {
            return Err(corrupt(format_args!("unknown flags {flags:#04x}")));
        }
        let scheme_bits = r.u64()?;
        let scheme = (flags & HAS_SCHEME != 0).then(|| SchemeId::from_u64(scheme_bits));
        let w = read_usize(&mut r, "the coordinate count")?;
        let n = read_usize(&mut r, "the document count")?;
        let left = r.remaining();
        if scheme.is_none() && (w > 0 || n > 0) {
            return Err(corrupt("coordinates or documents but no scheme"));
        }
        if n >= NIL as usize || n.saturating_mul(w) > left {
            return Err(corrupt(format_args!(
                "{n} documents of {w} coordinates cannot fit in the {left} bytes that remain"
            )));
        }
        if w > super::MAX_EXACT_COORDINATES {
            return Err(corrupt(format_args!(
                "{w} coordinates, more than the {} an exact index takes",
                super::MAX_EXACT_COORDINATES
            )));
        }
        let mut index = ExactIndex::new();
        index.scheme = scheme;
        index.width = w;
        index.tables = (0..w).map(|_| ahash::AHashMap::new()).collect();
        index.keys.try_reserve(n.min(left));
        let mut coords: Vec<Option<S::Coordinate>> = Vec::with_capacity(w);
        for i in 0..n {
            let key = K::read_key(&mut r)?;
            if index.keys.slot(&key).is_some() {
                return Err(corrupt(format_args!("document {i}'s key appears twice")));
            }
            coords.clear();
            for _ in 0..w {
                coords.push(match r.u8()? {
                    0 => None,
                    1 => Some(S::Coordinate::read_key(&mut r)?),
                    t => {
                        return Err(corrupt(format_args!(
                            "document {i}: presence byte {t} is neither 0 nor 1"
                        )));
                    }
                });
            }
            index.insert_coordinates(key, |j| coords[j].take())?;
        }
        r.finish()?;
        Ok(index)
    }
}

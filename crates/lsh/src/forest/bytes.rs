//! The versioned byte form of [`LshForest`]: `to_bytes` / `from_bytes`.
//!
//! The form holds the shape, the scheme and per document (oldest first) its key and
//! stored slot values; the sorted trees are rebuilt on load.

use std::hash::Hash;

use ndd_core::codec::{ByteReader, ByteWriter, KeyCodec};
use ndd_core::{Error, SchemeId};

use super::{ForestParams, LshForest};
use crate::form::Form;

const MAGIC: [u8; 4] = *b"LSHF";
const VERSION: u16 = 1;
/// Flag bit: the forest has a scheme (fixed by its first insert).
const HAS_SCHEME: u8 = 1;

const FORM: Form = Form("LSH forest");

fn corrupt(what: impl std::fmt::Display) -> Error {
    FORM.corrupt(what)
}

impl<K: KeyCodec + Clone + Eq + Hash> LshForest<K> {
    /// The versioned byte form (see [`ndd_core::codec`]: magic `LSHF`, version, body,
    /// XXH3 checksum), read back by [`from_bytes`](Self::from_bytes): the shape, the
    /// scheme, and per document, oldest first, its key ([`KeyCodec`]) and its
    /// `trees × depth` slot values. The settings
    /// ([`candidates_per_result`](Self::candidates_per_result),
    /// [`max_examined`](Self::max_examined)) are not saved.
    ///
    /// Size: 47 bytes plus, per document, the key and `8 · trees · depth` bytes (1,032
    /// bytes for 8 trees of 16 and `u64` keys).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("demo").finish();
    /// let mut f = LshForest::new(ForestParams::new(2, 2)?);
    /// f.insert(1u64, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// let bytes = f.to_bytes();
    /// assert_eq!(bytes.len(), 47 + 8 + 4 * 8);
    /// let loaded: LshForest<u64> = LshForest::from_bytes(&bytes)?;
    /// assert_eq!(loaded.len(), 1);
    /// assert_eq!(loaded.to_bytes(), bytes);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let l = self.params.slots_used();
        let mut order: Vec<u32> = self.keys.iter().map(|(_, slot)| slot).collect();
        order.sort_unstable_by_key(|&s| self.seq[s as usize]);
        let hint = order.len().saturating_mul(8 * l + 16).saturating_add(64);
        let mut w = ByteWriter::with_capacity(MAGIC, VERSION, hint);
        w.u64(self.params.trees() as u64);
        w.u64(self.params.depth() as u64);
        w.u8(if self.scheme.is_some() { HAS_SCHEME } else { 0 });
        w.u64(self.scheme.map_or(0, SchemeId::as_u64));
        w.u64(order.len() as u64);
        for &slot in &order {
            if let Some(key) = self.keys.key(slot) {
                key.write_key(&mut w);
            }
            for &v in self.row(slot) {
                w.u64(v);
            }
        }
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes); the loaded forest
    /// answers every query as the saved one (with default settings).
    ///
    /// Cost: reading the values and one sort per tree, `O(trees · n log n)`.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for bytes that are truncated, altered (checksum), of
    /// another kind or a newer version, or inconsistent: an invalid shape, unknown
    /// flags, a document count the bytes cannot hold (checked before anything is
    /// allocated), documents without a scheme, a duplicate or undecodable key,
    /// trailing bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ErrorKind, SchemeId};
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let mut f = LshForest::new(ForestParams::new(1, 2)?);
    /// f.insert(String::from("a"), &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?)?;
    /// let bytes = f.to_bytes();
    /// let err = LshForest::<String>::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::CorruptData);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let trees = FORM.read_usize(&mut r, "trees")?;
        let depth = FORM.read_usize(&mut r, "depth")?;
        let params = ForestParams::new(trees, depth).map_err(corrupt)?;
        let (_, scheme) = FORM.flags_and_scheme(&mut r, HAS_SCHEME, HAS_SCHEME)?;
        let n = FORM.read_usize(&mut r, "the document count")?;
        let l = params.slots_used();
        FORM.check_doc_count(&r, n, 8 * l, scheme)?;
        let mut f = Self::builder(params).capacity(n).build();
        for i in 0..n {
            let key = K::read_key(&mut r)?;
            if f.keys.slot(&key).is_some() {
                return Err(corrupt(format_args!("document {i}'s key appears twice")));
            }
            let slot = f.alloc_slot(key);
            let base = slot as usize * l;
            for v in &mut f.rows[base..base + l] {
                *v = r.u64()?;
            }
            f.seq[slot as usize] = f.next_seq;
            f.next_seq += 1;
            f.pending.push(slot);
        }
        r.finish()?;
        f.scheme = scheme;
        f.merge_pending();
        Ok(f)
    }
}

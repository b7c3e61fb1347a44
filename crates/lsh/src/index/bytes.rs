//! The versioned byte form of [`LshIndex`]: `to_bytes` / `from_bytes`.
//!
//! The form holds what the index cannot recompute (parameters, scheme, the keys, and
//! per document either its band keys or its kept signature) and none of what it can
//! (bucket tables, chain links, the key map): those are rebuilt on load, in an order
//! that reproduces every bucket's chain (see [`LshIndex::to_bytes`]).

use std::hash::Hash;

use ndd_core::codec::{ByteForm, ByteReader, ByteWriter, KeyCodec, chain_order};
use ndd_core::{Error, SchemeId, SlotSignature};

use super::LshIndex;
use crate::LshParams;
use crate::form::Form;

const MAGIC: [u8; 4] = *b"LSHI";
const VERSION: u16 = 1;
/// Flag bit: the index keeps signatures (stored instead of band keys).
const KEEPS_SIGNATURES: u8 = 1;
/// Flag bit: the index has a scheme (fixed by its first insert).
const HAS_SCHEME: u8 = 2;
/// Bands loaded without further evidence; more bands need the bytes of at least one
/// document's band keys or signature to justify their tables (see `from_bytes`).
const FREE_BANDS: usize = 1 << 16;

const FORM: Form = Form("LSH index");

fn corrupt(what: impl std::fmt::Display) -> Error {
    FORM.corrupt(what)
}

impl<K: KeyCodec + Clone + Eq + Hash, S: SlotSignature + ByteForm> LshIndex<K, S> {
    /// The versioned byte form of the index (see [`ndd_core::codec`]: magic, version,
    /// body, XXH3 checksum), read back by [`from_bytes`](Self::from_bytes).
    ///
    /// It holds the parameters, whether signatures are kept, the scheme, and per
    /// document its key ([`KeyCodec`]) followed by either its `b` band keys (8 bytes
    /// each) or, when the index [keeps signatures](super::LshIndexBuilder::keep_signatures),
    /// its signature's own byte form ([`ByteForm`], length-prefixed) from which the band
    /// keys are recomputed. The bucket tables and chains are not stored: documents are
    /// written oldest first (an order consistent with every bucket's chain), so
    /// inserting them in that order on load rebuilds every chain as it was.
    ///
    /// Size: 47 bytes plus, per document, the key (8 bytes for a `u64`) and `8b` bytes
    /// of band keys: 80 bytes per document for 9 bands and `u64` keys, against about
    /// 204–244 bytes in memory. Kept 128-slot MinHash signatures take `8 + 8·128 + 30
    /// = 1,062` bytes each instead of the band keys.
    ///
    /// Cost: one pass over the documents (to order them) and one copy of the band keys
    /// or signatures; measured at 1–2 GB/s (66,855 documents in about 5 ms with band
    /// keys, 40 ms with 128-slot signatures; `docs/performance.md`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("demo").finish();
    /// let mut index = LshIndex::new(LshParams::new(2, 2)?);
    /// index.insert(1u64, &PlainSlots::new(s, vec![1, 2, 3, 4])?)?;
    /// index.insert(2u64, &PlainSlots::new(s, vec![1, 2, 5, 6])?)?;
    /// let bytes = index.to_bytes();
    /// assert_eq!(bytes.len(), 47 + 2 * (8 + 2 * 8));
    ///
    /// let loaded: LshIndex<u64, PlainSlots> = LshIndex::from_bytes(&bytes)?;
    /// assert_eq!(loaded.params(), index.params());
    /// assert_eq!(loaded.scheme(), Some(s));
    /// let pairs = loaded.all_pairs();
    /// assert_eq!(pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(), vec![(1, 2)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let b = self.params.bands();
        let order = chain_order(self.keys.by_slot(), &self.chains.next, b);
        let sigs = self.signatures.as_deref();
        let per_doc = match (sigs, order.first()) {
            (Some(sigs), Some(&d)) => sigs[d as usize]
                .as_ref()
                .map_or(0, |s| 8 + 30 + 8 * s.slots().len()),
            _ => 8 * b,
        } + 8;
        let hint = order.len().saturating_mul(per_doc).saturating_add(64);
        let mut w = ByteWriter::with_capacity(MAGIC, VERSION, hint);
        w.u64(b as u64);
        w.u64(self.params.rows() as u64);
        let mut flags = 0;
        if sigs.is_some() {
            flags |= KEEPS_SIGNATURES;
        }
        if self.scheme.is_some() {
            flags |= HAS_SCHEME;
        }
        w.u8(flags);
        w.u64(self.scheme.map_or(0, SchemeId::as_u64));
        w.u64(order.len() as u64);
        for &slot in &order {
            let d = slot as usize;
            if let Some(key) = &self.keys.by_slot()[d] {
                key.write_key(&mut w);
            }
            match sigs {
                Some(sigs) => {
                    if let Some(sig) = &sigs[d] {
                        w.bytes(&sig.to_bytes());
                    }
                }
                None => {
                    for &k in &self.chains.band_keys[d * b..(d + 1) * b] {
                        w.u64(k);
                    }
                }
            }
        }
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes) and rebuilds the index.
    ///
    /// The loaded index answers [`query`](Self::query) with the same keys in the same
    /// order as the saved one, gives the same candidate pairs (each `(earlier,
    /// later)` as before; the order among pairs may differ), and behaves the same under
    /// later inserts and removals. Its tables are sized for the loaded documents (as
    /// with [`capacity`](super::LshIndexBuilder::capacity)), so it may use less memory
    /// than an index grown one insert at a time.
    ///
    /// Cost: like inserting the documents into an index of preset capacity, minus
    /// hashing the slots when band keys are stored; with kept signatures, each is
    /// decoded and its band keys recomputed. Measured on 66,855 documents of 9 bands:
    /// 40–68 ms with band keys (0.49–0.63 of the time of rebuilding by inserting the
    /// signatures), 107–113 ms with 128-slot signatures (0.58–0.88 of a rebuild;
    /// `docs/performance.md`).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for bytes that are truncated, altered (checksum), of
    /// another kind or a newer version, or inconsistent: invalid parameters, unknown
    /// flags, a document count the bytes cannot hold, documents without a scheme, a
    /// duplicate or undecodable key, a signature of another scheme or with fewer than
    /// `bands × rows` slots, trailing bytes. Counts read from the bytes are checked
    /// against the bytes that remain before anything is allocated. An index of more
    /// than 65,536 bands with no documents is refused too (nothing in the bytes
    /// would justify the memory of its tables).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ErrorKind, SchemeId};
    /// use near_dup::lsh::{LshIndex, LshParams, PlainSlots};
    /// let s = SchemeId::new("demo").finish();
    /// let mut index = LshIndex::builder(LshParams::new(1, 2)?).keep_signatures(true).build();
    /// index.insert(String::from("a"), &PlainSlots::new(s, vec![1, 2])?)?;
    /// let bytes = index.to_bytes();
    /// let loaded = LshIndex::<String, PlainSlots>::from_bytes(&bytes)?;
    /// assert_eq!(loaded.signature(&"a".to_string()), index.signature(&"a".to_string()));
    ///
    /// let truncated = &bytes[..bytes.len() - 1];
    /// let err = LshIndex::<String, PlainSlots>::from_bytes(truncated).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::CorruptData);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let bands = FORM.read_usize(&mut r, "bands")?;
        let rows = FORM.read_usize(&mut r, "rows")?;
        let params = LshParams::new(bands, rows).map_err(corrupt)?;
        let (flags, scheme) =
            FORM.flags_and_scheme(&mut r, KEEPS_SIGNATURES | HAS_SCHEME, HAS_SCHEME)?;
        let keeps = flags & KEEPS_SIGNATURES != 0;
        let n = FORM.read_usize(&mut r, "the document count")?;

        // Each document takes at least 8 bytes (a signature's length prefix) or 8b
        // (its band keys), and each band's table is only worth allocating if the
        // bytes hold a document with at least 8 bytes per band.
        let left = r.remaining();
        let band_bytes = bands.saturating_mul(8);
        let min_doc = if keeps { 8 } else { band_bytes };
        FORM.check_doc_count(&r, n, min_doc, scheme)?;
        if bands > FREE_BANDS && (n == 0 || band_bytes > left) {
            return Err(corrupt(format_args!(
                "{bands} bands are not justified by {n} documents in {left} bytes"
            )));
        }
        let mut index = Self::builder(params)
            .keep_signatures(keeps)
            .capacity(n.min(left / band_bytes.max(1)))
            .build();

        let mut no_out = Vec::new();
        for i in 0..n {
            let key = K::read_key(&mut r)?;
            if index.keys.slot(&key).is_some() {
                return Err(corrupt(format_args!("document {i}'s key appears twice")));
            }
            let signature = if keeps {
                let sig = S::from_bytes(r.bytes()?)
                    .map_err(|e| corrupt(format_args!("document {i}'s signature: {e}")))?;
                if Some(sig.scheme()) != scheme {
                    return Err(corrupt(format_args!(
                        "document {i}'s signature has scheme {}, the index {}",
                        sig.scheme(),
                        scheme.map_or(0, SchemeId::as_u64)
                    )));
                }
                params
                    .check_signature_len(sig.slots().len())
                    .map_err(|e| corrupt(format_args!("document {i}'s signature: {e}")))?;
                Some(sig)
            } else {
                None
            };
            let slot = index.alloc_slot(key);
            match &signature {
                Some(sig) => params.write_band_keys(sig.slots(), index.chains.keys_mut(slot)),
                None => {
                    for k in index.chains.keys_mut(slot) {
                        *k = r.u64()?;
                    }
                }
            }
            index.link_slot::<false>(slot, &mut no_out);
            if let Some(sigs) = &mut index.signatures {
                sigs[slot as usize] = signature;
            }
        }
        r.finish()?;
        index.scheme = scheme;
        Ok(index)
    }
}

//! The versioned byte form of [`LshEnsemble`]: `to_bytes` / `from_bytes`.
//!
//! The form holds the parameters, the scheme and per document (oldest first) its key,
//! set size and slot values; the classes and their banded indexes are rebuilt on load
//! (the parameter table is recomputed from the parameters).

use std::hash::Hash;

use ndd_core::codec::{ByteReader, ByteWriter, KeyCodec};
use ndd_core::{Error, SchemeId};

use super::{EnsembleParams, LshEnsemble};
use crate::PlainSlots;
use crate::form::Form;

const MAGIC: [u8; 4] = *b"LSHE";
const VERSION: u16 = 1;
/// Flag bit: the ensemble has a scheme (fixed by its first insert).
const HAS_SCHEME: u8 = 1;

const FORM: Form = Form("LSH ensemble");

fn corrupt(what: impl std::fmt::Display) -> Error {
    FORM.corrupt(what)
}

impl<K: KeyCodec + Clone + Eq + Hash> LshEnsemble<K> {
    /// The versioned byte form (magic `LSHE`, version, body, XXH3 checksum; see
    /// [`ndd_core::codec`]): the parameters (threshold, slots, longest band, classes
    /// per doubling, weights), the scheme, and per document, oldest first, its key
    /// ([`KeyCodec`]), set size and `num_slots` slot values. Size: 72 bytes plus, per
    /// document, the key, 8 bytes of size and `8 · num_slots` bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.8, 4)?);
    /// e.insert(1u64, &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2, 3, 4])?, 10)?;
    /// let bytes = e.to_bytes();
    /// assert_eq!(bytes.len(), 72 + 8 + 8 + 4 * 8);
    /// let loaded: LshEnsemble<u64> = LshEnsemble::from_bytes(&bytes)?;
    /// assert_eq!(loaded.size_of(&1), Some(10));
    /// assert_eq!(loaded.to_bytes(), bytes);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let k = self.params.num_slots();
        let mut order: Vec<(&K, &super::Doc)> = self.docs.iter().collect();
        order.sort_unstable_by_key(|(_, d)| d.seq);
        let hint = order.len().saturating_mul(8 * k + 24).saturating_add(96);
        let mut w = ByteWriter::with_capacity(MAGIC, VERSION, hint);
        let p = &self.params;
        w.f64(p.threshold());
        w.u64(k as u64);
        w.u64(p.max_rows() as u64);
        w.u8(p.classes_per_doubling());
        let (fp, fneg) = p.weights();
        w.f64(fp);
        w.f64(fneg);
        w.u8(if self.scheme.is_some() { HAS_SCHEME } else { 0 });
        w.u64(self.scheme.map_or(0, SchemeId::as_u64));
        w.u64(order.len() as u64);
        for (key, doc) in order {
            key.write_key(&mut w);
            w.u64(doc.size);
            for &v in ndd_core::SlotSignature::slots(&doc.slots) {
                w.u64(v);
            }
        }
        w.finish()
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes) and rebuilds the
    /// ensemble (inserting the documents oldest first), which then answers every query
    /// as the saved one.
    ///
    /// Cost: tabulating the parameters (as [`new`](Self::new)) and inserting every
    /// document.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for bytes that are truncated, altered (checksum), of
    /// another kind or a newer version, or inconsistent: invalid parameters, unknown
    /// flags, a document count the bytes cannot hold (checked before anything is
    /// allocated), documents without a scheme, a duplicate or undecodable key, a set
    /// size of 0, trailing bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{ErrorKind, SchemeId};
    /// use near_dup::lsh::{EnsembleParams, LshEnsemble, PlainSlots};
    /// let mut e = LshEnsemble::new(EnsembleParams::new(0.8, 2)?);
    /// e.insert(String::from("a"), &PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2])?, 3)?;
    /// let bytes = e.to_bytes();
    /// let err = LshEnsemble::<String>::from_bytes(&bytes[1..]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::CorruptData);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _version) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let threshold = r.f64()?;
        let k = FORM.read_usize(&mut r, "num_slots")?;
        let max_rows = FORM.read_usize(&mut r, "max_rows")?;
        let classes = r.u8()?;
        let fp = r.f64()?;
        let fneg = r.f64()?;
        let params = EnsembleParams::new(threshold, k)
            .and_then(|p| p.with_max_rows(max_rows))
            .and_then(|p| p.with_classes_per_doubling(classes))
            .and_then(|p| p.with_weights(fp, fneg))
            .map_err(corrupt)?;
        let (_, scheme) = FORM.flags_and_scheme(&mut r, HAS_SCHEME, HAS_SCHEME)?;
        let n = FORM.read_usize(&mut r, "the document count")?;
        FORM.check_doc_count(&r, n, 8 * k + 8, scheme)?;
        let mut e = Self::new(params);
        if let Some(scheme) = scheme {
            let mut values = Vec::with_capacity(k);
            for i in 0..n {
                let key = K::read_key(&mut r)?;
                if e.docs.contains_key(&key) {
                    return Err(corrupt(format_args!("document {i}'s key appears twice")));
                }
                let size = r.u64()?;
                values.clear();
                for _ in 0..k {
                    values.push(r.u64()?);
                }
                let slots = PlainSlots::new(scheme, values.clone()).map_err(corrupt)?;
                e.insert(key, &slots, size)
                    .map_err(|err| corrupt(format_args!("document {i}: {err}")))?;
            }
        }
        r.finish()?;
        e.scheme = scheme;
        Ok(e)
    }
}

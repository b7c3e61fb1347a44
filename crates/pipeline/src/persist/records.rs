//! The compact record of a run of documents that both saved forms write: byte-form
//! version 4 of the single file (all documents) and version 2 of a folder's segments
//! (the documents of one save).
//!
//! ```text
//! u64    count
//! bytes  ids: per document its length (LEB128) and its UTF-8
//! bytes  labels: per document `i - label(i)` (LEB128; 0 for most)
//! bytes  sketched: one bit per document, set when it is in the LSH index (not an
//!        exact copy), bit i % 8 of byte i / 8
//! u64    digest count; bytes: per digest the gap to the previous document (LEB128,
//!        the first from the record's first document) and the 20-byte digest
//! u8     set sizes kept (1) or not (0); bytes: per document its size (LEB128)
//! u8     shingle sets kept (1) or not (0), then
//!        with sets:    u64 slice of the sets one after another (each one's length its
//!                      set size, none for a document not sketched), u64 check of the
//!                      signatures sketched from them
//!        without sets: bytes of the sketched documents' signatures one after
//!                      another (num_perm values each, 8 bytes little-endian a value)
//! ```
//!
//! With sets, no signature is stored: MinHash sketches the set of a document's
//! distinct shingle hashes, and the set is what the index keeps for exact
//! verification, so loading sketches each stored set again and gets the signature the
//! document had (the check value compares them), the same band keys, candidates and
//! estimates. Without sets (verified by the estimate) the signatures are the only
//! record of the documents and are stored whole.

use ndd_core::Sketcher;
use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_lsh::LshIndex;
use ndd_minhash::MinHashSignature;

use super::{DedupIndex, SetStore, key, split_sets};
use crate::Error;
use crate::sketching::{Hasher, corrupt};

/// Appends `v` in LEB128 (7 bits a byte, low first, the high bit set on all but the
/// last).
fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v.to_le_bytes()[0] & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v.to_le_bytes()[0]);
}

/// A reader of the numbers [`put`] wrote, and of raw bytes between them.
struct Numbers<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Numbers<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Numbers { bytes, at: 0 }
    }

    /// The next number; refuses one cut short, longer than 64 bits or not in its
    /// shortest form (so that bytes that load save back to themselves).
    fn next(&mut self) -> Result<u64, Error> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| corrupt("a number cut short"))?;
            self.at += 1;
            let part = u64::from(b & 0x7f);
            if shift == 63 && part > 1 {
                return Err(corrupt("a number larger than 64 bits"));
            }
            v |= part << shift;
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 {
                    return Err(corrupt("a number not in its shortest form"));
                }
                return Ok(v);
            }
        }
        Err(corrupt("a number longer than 64 bits"))
    }

    /// The next number as a length or count.
    fn len(&mut self) -> Result<usize, Error> {
        usize::try_from(self.next()?).map_err(|_| corrupt("a length"))
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| corrupt("bytes cut short"))?;
        let part = &self.bytes[self.at..end];
        self.at = end;
        Ok(part)
    }

    /// Refuses bytes left over.
    fn finish(self) -> Result<(), Error> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(corrupt("bytes left over in a record"))
        }
    }
}

/// `check` with the signature `sig` folded in: what the record stores to compare
/// the signatures sketched from the sets at load with the ones the documents had. A
/// multiply and a rotation per value (each step a bijection, so one differing value
/// always changes the result): it guards against a sketch that drifted from the sets,
/// not against a forger, and costs a tenth of the sketching it checks.
fn fold(check: u64, sig: &MinHashSignature) -> u64 {
    sig.values().iter().fold(check, |c, &v| {
        (c ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
    })
}

/// Reads the number of documents a record or segment adds to the `base` indexed, each
/// taking at least `min_bytes` of what remains: that count and the total after it
/// (at most 2^32).
pub(super) fn read_count(
    r: &mut ByteReader<'_>,
    base: usize,
    min_bytes: usize,
) -> Result<(usize, usize), Error> {
    let count = usize::try_from(r.u64()?).map_err(|_| corrupt("document count"))?;
    if count > r.remaining() / min_bytes {
        return Err(corrupt("document count larger than the bytes"));
    }
    let n = base + count;
    if u32::try_from(n).is_err() {
        return Err(corrupt("more than 2^32 documents"));
    }
    Ok((count, n))
}

/// Refuses group labels that do not name an earlier document labelled by itself.
pub(super) fn check_labels(labels: &[u32]) -> Result<(), Error> {
    if labels
        .iter()
        .enumerate()
        .any(|(i, &l)| l as usize > i || labels[l as usize] != l)
    {
        return Err(corrupt("a group label does not name an earlier document"));
    }
    Ok(())
}

impl DedupIndex {
    /// Writes the record of the documents `from..len()` (see the module's docs).
    pub(super) fn write_documents(&self, from: usize, w: &mut ByteWriter) {
        let n = self.ids.len();
        w.u64((n - from) as u64);
        let mut blob = Vec::new();
        for id in &self.ids[from..] {
            put(&mut blob, id.len() as u64);
            blob.extend_from_slice(id.as_bytes());
        }
        w.bytes(&blob);
        blob.clear();
        for (i, &l) in self.labels.iter().enumerate().skip(from) {
            put(&mut blob, (i - l as usize) as u64);
        }
        w.bytes(&blob);
        let mut sketched = vec![0u8; (n - from).div_ceil(8)];
        for i in from..n {
            if self.lsh.signature(&key(i)).is_some() {
                sketched[(i - from) / 8] |= 1 << ((i - from) % 8);
            }
        }
        w.bytes(&sketched);
        let mut digests: Vec<_> = self
            .digests
            .iter()
            .filter(|&(_, &doc)| doc as usize >= from)
            .map(|(d, &doc)| (doc as usize, d))
            .collect();
        digests.sort_unstable_by_key(|&(doc, _)| doc);
        w.u64(digests.len() as u64);
        blob.clear();
        let mut previous = from;
        for (doc, d) in digests {
            put(&mut blob, (doc - previous) as u64);
            blob.extend_from_slice(d);
            previous = doc;
        }
        w.bytes(&blob);
        match &self.sizes {
            Some(sizes) => {
                w.u8(1);
                blob.clear();
                for &s in &sizes[from..] {
                    put(&mut blob, s);
                }
                w.bytes(&blob);
            }
            None => w.u8(0),
        }
        let signatures = (from..n).filter_map(|i| self.lsh.signature(&key(i)));
        match &self.sets {
            Some(store) => {
                w.u8(1);
                let (a, b) = (store.starts[from], store.starts[n]);
                w.u64_slice(&store.values[a..b]);
                w.u64(signatures.fold(0, fold));
            }
            None => {
                w.u8(0);
                let mut raw = Vec::with_capacity((n - from) * 8 * self.sketching.config.num_perm);
                for v in signatures.flat_map(|s| s.values()) {
                    raw.extend_from_slice(&v.to_le_bytes());
                }
                w.bytes(&raw);
            }
        }
    }

    /// Adds the documents of a record written by
    /// [`write_documents`](Self::write_documents) after the ones indexed, into `to`;
    /// returns their number. The index is left part-way on an error (loaders drop it
    /// then).
    pub(super) fn read_documents(
        &mut self,
        r: &mut ByteReader<'_>,
        mut to: ReadInto<'_>,
    ) -> Result<usize, Error> {
        let from = match &to {
            ReadInto::Part(part) => part.base,
            _ => self.ids.len(),
        };
        let whole = !matches!(to, ReadInto::Part(_));
        // Every document takes at least a byte of ids and one of labels.
        let (count, n) = read_count(r, from, 2)?;
        let mut ids = Numbers::new(r.bytes()?);
        for _ in 0..count {
            let len = ids.len()?;
            let id =
                std::str::from_utf8(ids.take(len)?).map_err(|_| corrupt("an id is not UTF-8"))?;
            if whole {
                self.ids.push(id.to_owned());
            }
        }
        ids.finish()?;
        let mut labels = Numbers::new(r.bytes()?);
        for i in from..n {
            let back = labels.len()?;
            let l = i
                .checked_sub(back)
                .ok_or_else(|| corrupt("a group label names no document"))?;
            if whole {
                self.labels.push(key(l));
            }
        }
        labels.finish()?;
        let sketched = r.bytes()?;
        if sketched.len() != count.div_ceil(8)
            || (count % 8 != 0 && sketched.last().is_some_and(|&b| b >> (count % 8) != 0))
        {
            return Err(corrupt("the sketched documents do not fit the count"));
        }
        let is_sketched = |i: usize| sketched[i / 8] & (1 << (i % 8)) != 0;
        if let ReadInto::Resident(unsketched) = &mut to {
            unsketched.extend(
                (0..count)
                    .filter(|&i| !is_sketched(i))
                    .map(|i| key(from + i)),
            );
        }
        let m = usize::try_from(r.u64()?).map_err(|_| corrupt("digest count"))?;
        if m > count {
            return Err(corrupt("more digests than documents"));
        }
        let mut digests = Numbers::new(r.bytes()?);
        let mut previous = from;
        for j in 0..m {
            let gap = digests.len()?;
            let doc = previous
                .checked_add(gap)
                .filter(|&d| d < n && (j == 0 || gap > 0))
                .ok_or_else(|| corrupt("a digest names no document of its record"))?;
            let d: crate::exact::DocDigest = digests
                .take(20)?
                .try_into()
                .map_err(|_| corrupt("a digest is not 20 bytes"))?;
            if whole && self.digests.insert(d, key(doc)).is_some() {
                return Err(corrupt("a digest repeats"));
            }
            previous = doc;
        }
        digests.finish()?;
        let sizes: Option<Vec<u64>> = match (r.u8()?, self.sizes.is_some()) {
            (0, false) => None,
            (1, true) => {
                let mut sizes = Numbers::new(r.bytes()?);
                let part = (0..count)
                    .map(|_| sizes.next())
                    .collect::<Result<Vec<u64>, Error>>()?;
                sizes.finish()?;
                Some(part)
            }
            _ => return Err(corrupt("set sizes differ from the index's settings")),
        };
        if let (Some(all), Some(part), true) = (self.sizes.as_mut(), &sizes, whole) {
            all.extend_from_slice(part);
        }
        let (lsh, store) = match &mut to {
            ReadInto::Whole => (Some(&mut self.lsh), self.sets.as_mut()),
            ReadInto::Resident(_) => (None, self.sets.as_mut()),
            ReadInto::Part(part) => (Some(&mut part.lsh), part.sets.as_mut()),
        };
        let scheme = self.sketching.hasher.scheme();
        match (r.u8()?, store) {
            (1, Some(store)) => {
                let values = r.u64_vec()?;
                let part = split_sets(values, sizes.as_deref(), is_sketched)?;
                let Some(lsh) = lsh else {
                    // The resident part of a segmented index: no set kept.
                    r.u64()?;
                    store.push_dropped(count);
                    return Ok(count);
                };
                let docs: Vec<usize> = (0..count).filter(|&i| is_sketched(i)).collect();
                let mut check = 0;
                // Sketched in chunks (in parallel under `rayon`), inserted in order.
                for chunk in docs.chunks(crate::progress::CHUNK) {
                    for (&i, sig) in
                        chunk
                            .iter()
                            .zip(sketch_sets(&self.sketching.hasher, &part, chunk))
                    {
                        check = fold(check, &sig);
                        lsh.insert(key(from + i), &sig)?;
                    }
                }
                if r.u64()? != check {
                    return Err(corrupt(
                        "the shingle sets do not give the signatures they were saved with",
                    ));
                }
                let offset = store.values.len();
                store
                    .starts
                    .extend(part.starts[1..].iter().map(|s| s + offset));
                if offset == 0 {
                    store.values = part.values;
                } else {
                    store.values.extend_from_slice(&part.values);
                }
            }
            (0, None) => {
                // Read in place, signature by signature (no second copy of them all).
                let k = self.sketching.config.num_perm;
                let sketched_count = (0..count).filter(|&i| is_sketched(i)).count();
                let raw = r.bytes()?;
                if Some(raw.len()) != sketched_count.checked_mul(k * 8) {
                    return Err(corrupt("signatures differ from the sketched documents"));
                }
                let Some(lsh) = lsh else {
                    return Ok(count);
                };
                let docs = (0..count).filter(|&i| is_sketched(i));
                for (i, sig) in docs.zip(raw.chunks_exact((k * 8).max(1))) {
                    let values = sig
                        .chunks_exact(8)
                        .map(|b| {
                            let mut v = [0u8; 8];
                            v.copy_from_slice(b);
                            u64::from_le_bytes(v)
                        })
                        .collect();
                    let sig = MinHashSignature::from_values(scheme, values)?;
                    lsh.insert(key(from + i), &sig)?;
                }
            }
            _ => return Err(corrupt("shingle sets differ from the index's settings")),
        }
        Ok(count)
    }
}

/// Where [`DedupIndex::read_documents`] puts a record's documents.
pub(super) enum ReadInto<'p> {
    /// Everything into the index: a whole load.
    Whole,
    /// Ids, labels, digests and set sizes into the index, the sets and signatures
    /// checked for their shape only (an empty set per document): the part of a
    /// segmented index that stays in memory; the documents not sketched (not in the
    /// LSH index) appended to the vector.
    Resident(&'p mut Vec<u32>),
    /// The signatures (sketched from the sets) and the sets into `part`, nothing into
    /// the index: one segment's candidate structure, for as long as a batch is checked
    /// against it.
    Part(&'p mut Part),
}

/// One segment's candidate structure: its documents' signatures banded, their sets.
pub(super) struct Part {
    /// The position of the segment's first document in the collection (keys in `lsh`
    /// are positions in the collection).
    pub(super) base: usize,
    /// The LSH index of the segment's sketched documents, keeping their signatures.
    pub(super) lsh: LshIndex<u32, MinHashSignature>,
    /// Their shingle sets, positions from `base`, when the index keeps sets.
    pub(super) sets: Option<SetStore>,
}

/// The signatures of the sets `docs` of `store`, in order: each sketched from the set
/// as its document's text was (the same features, the same minima).
fn sketch_sets(hasher: &Hasher, store: &SetStore, docs: &[usize]) -> Vec<MinHashSignature> {
    let one = |&i: &usize| hasher.sketch_features(store.get(i).iter().copied());
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        docs.par_iter().map(one).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        docs.iter().map(one).collect()
    }
}

#[cfg(test)]
mod tests {
    use ndd_core::DocSketcher;

    use super::{Numbers, put};
    use crate::{Dedup, DedupIndex, Document, Method, MinHashConfig, Shingles};

    /// The premise of a record without signatures: sketching a stored set gives the
    /// signature sketching the document's text gave, for word and character shingles,
    /// with and without NFKC, for texts shorter than a shingle, empty ones, HTML and
    /// repeated shingles.
    #[test]
    fn sketching_a_stored_set_gives_the_texts_signature() {
        let texts = [
            "the committee approved the budget for the new library building on monday",
            "The committee approved the budget; the budget for the new library!",
            "two words",
            "",
            "   ",
            "<p>a <b>marked up</b> text</p> with <script>var x = 1;</script> a script",
            "ｔｈｅ ｂｏａｒｄ ｍｅｅｔｓ ｏｎ ｍｏｎｄａｙ ａｔ ｎｏｏｎ",
            "la la la la la la la la la la la la la la la la",
        ];
        let docs: Vec<Document> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Document::new(format!("d{i}"), *t))
            .collect();
        for dedup in [
            Dedup::new(),
            Dedup::new().nfkc(true),
            Dedup::new().shingles(Shingles::Chars(5)),
            Dedup::new()
                .exact_pass(false)
                .method(Method::MinHash(MinHashConfig {
                    num_perm: 64,
                    ..MinHashConfig::default()
                })),
        ] {
            let mut index = DedupIndex::new(&dedup).expect("an index");
            index.add(&docs).expect("added");
            let loaded = DedupIndex::from_bytes(&index.to_bytes()).expect("loaded");
            let mut sketched = 0;
            for (i, text) in texts.iter().enumerate() {
                let k = super::key(i);
                let from_text = index.lsh().signature(&k);
                assert_eq!(loaded.lsh().signature(&k), from_text, "{dedup:?} {i}");
                if let Some(sig) = from_text {
                    assert_eq!(*sig, index.hasher().sketch(text), "{dedup:?} {i}");
                    sketched += 1;
                }
            }
            assert!(sketched >= 6, "{dedup:?}: {sketched} sketched");
        }
    }

    #[test]
    fn numbers_round_trip_and_refuse_what_no_writer_writes() {
        let values = [0, 1, 127, 128, 300, 1 << 35, u64::MAX - 1, u64::MAX];
        let mut out = Vec::new();
        for &v in &values {
            put(&mut out, v);
        }
        // 1 + 1 + 1 + 2 + 2 + 6 + 10 + 10 bytes.
        assert_eq!(out.len(), 33);
        let mut r = Numbers::new(&out);
        for &v in &values {
            assert_eq!(r.next().ok(), Some(v));
        }
        assert!(r.finish().is_ok());
        for bad in [
            &[0x80][..],                                                   // cut short
            &[0x80, 0x00],                                                 // not shortest
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], // 65 bits
            &[
                0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1,
            ], // 11 bytes
        ] {
            assert!(Numbers::new(bad).next().is_err(), "{bad:?}");
        }
        let mut r = Numbers::new(&[2, b'a']);
        assert!(r.len().is_ok_and(|n| r.take(n).is_err()));
    }
}

//! The folder form of a saved index: a manifest and one segment file per batch.
//!
//! ```text
//! DIR/MANIFEST                 settings, generation, documents, the committed segments
//!                              (name, byte length, checksum, documents), replaced by rename
//! DIR/segment-00000001.ndds    the documents of one save (ids, labels, digests, set
//! DIR/segment-00000002.ndds    sizes, shingle sets or signatures: the record of
//! ...                          `records`) and the earlier documents' label changes;
//!                              never rewritten
//! DIR/WRITER-LOCK              held by the one writer while it appends
//! ```
//!
//! Appending writes the new segment (synced), then `MANIFEST.tmp` (synced), renamed
//! over `MANIFEST`: a crash at any moment leaves the manifest before or after, and
//! loading reads only the segments the manifest lists. Files it does not list are
//! leftovers of a crashed append, removed by the next writer.
//!
//! Segments of version 1 (before the compact record: fixed-width fields, every
//! signature stored) are still read; a folder may hold both versions.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::hash::stable_hash64;
use ndd_lsh::{LshIndex, LshParams};
use ndd_minhash::MinHashSignature;

use super::records::{Part, ReadInto, check_labels, read_count};
use super::{DedupIndex, SetStore, key, read_settings, split_sets, verifier_code, write_settings};
use crate::sketching::corrupt;
use crate::{Error, Verifier};

const MANIFEST_MAGIC: [u8; 4] = *b"NDDM";
const SEGMENT_MAGIC: [u8; 4] = *b"NDDS";
/// The manifest's and the settings' layout.
const FORM_VERSION: u16 = 1;
/// The segments' layout: version 2 holds the compact record of `records` (no
/// signature when the index keeps shingle sets); version 1 is still read.
const SEGMENT_VERSION: u16 = 2;
const MANIFEST: &str = "MANIFEST";
const MANIFEST_TMP: &str = "MANIFEST.tmp";
const LOCK: &str = "WRITER-LOCK";
/// The largest manifest read: 64 bytes and a name per segment.
const MAX_MANIFEST_BYTES: u64 = 1 << 30;

/// What a folder held when this index was loaded from it or last saved to it.
#[derive(Debug, Clone)]
pub(super) struct Saved {
    /// The folder, resolved.
    dir: PathBuf,
    /// The manifest's generation (the number of segments written so far).
    generation: u64,
    /// The documents the folder holds.
    documents: usize,
    /// Their group labels then: a new segment stores the ones that changed.
    labels: Vec<u32>,
    /// The committed segments.
    segments: Vec<Entry>,
}

/// One committed segment, as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    bytes: u64,
    checksum: u64,
    documents: u64,
}

/// The manifest read back: the settings' bytes (compared, not parsed, when appending),
/// the generation and the segments.
struct Manifest {
    settings: Vec<u8>,
    generation: u64,
    documents: u64,
    segments: Vec<Entry>,
}

/// The settings part of the manifest, in the single-file form's order (the single
/// file of version 4 begins with them too).
pub(super) fn settings_bytes(ix: &DedupIndex) -> Vec<u8> {
    let mut w = ByteWriter::new(*b"NDDH", FORM_VERSION);
    write_settings(&mut w, &ix.sketching, ix.exact);
    w.u64(ix.lsh.params().bands() as u64);
    w.u64(ix.lsh.params().rows() as u64);
    w.u8(u8::from(ix.sizes.is_some()));
    w.u8(verifier_code(&ix.verifier));
    w.finish()
}

/// An empty index of the settings written by [`settings_bytes`].
pub(super) fn from_settings(bytes: &[u8]) -> Result<DedupIndex, Error> {
    let (mut r, _) = ByteReader::new(bytes, *b"NDDH", FORM_VERSION)?;
    let (head, exact, nfkc) = read_settings(&mut r)?;
    let bands = usize::try_from(r.u64()?).map_err(|_| corrupt("bands"))?;
    let rows = usize::try_from(r.u64()?).map_err(|_| corrupt("rows"))?;
    let sizes = match r.u8()? {
        0 => None,
        1 => Some(Vec::new()),
        _ => return Err(corrupt("unknown set-size flag")),
    };
    let verifier = match r.u8()? {
        0 => Verifier::MethodScore,
        1 => Verifier::ExactJaccard,
        2 => Verifier::Containment,
        _ => return Err(corrupt("unknown verifier")),
    };
    r.finish()?;
    if verifier_code(&verifier) != 0 && sizes.is_none() {
        return Err(corrupt("shingle sets without set sizes"));
    }
    let params = LshParams::new(bands, rows).map_err(|e| corrupt(&e.to_string()))?;
    let sketching = head.into_sketching(nfkc, bands, rows)?;
    let lsh = LshIndex::builder(params)
        .keep_signatures(true)
        .max_bucket_scan(crate::method::bounded_scan(
            sketching.config.max_bucket_scan,
        ))
        .build();
    let sets = (verifier_code(&verifier) != 0).then(SetStore::new);
    Ok(DedupIndex {
        sketching,
        exact,
        lsh,
        ids: Vec::new(),
        digests: std::collections::BTreeMap::new(),
        labels: Vec::new(),
        sizes,
        verifier,
        sets,
        saved: None,
    })
}

fn manifest_bytes(settings: &[u8], generation: u64, documents: u64, segments: &[Entry]) -> Vec<u8> {
    let mut w = ByteWriter::new(MANIFEST_MAGIC, FORM_VERSION);
    w.bytes(settings);
    w.u64(generation);
    w.u64(documents);
    w.u64(segments.len() as u64);
    for s in segments {
        w.bytes(s.name.as_bytes());
        w.u64(s.bytes);
        w.u64(s.checksum);
        w.u64(s.documents);
    }
    w.finish()
}

fn read_manifest(bytes: &[u8]) -> Result<Manifest, Error> {
    let (mut r, _) = ByteReader::new(bytes, MANIFEST_MAGIC, FORM_VERSION)?;
    let settings = r.bytes()?.to_vec();
    let generation = r.u64()?;
    let documents = r.u64()?;
    let n = usize::try_from(r.u64()?).map_err(|_| corrupt("segment count"))?;
    if n > r.remaining() / 32 {
        return Err(corrupt("segment count larger than the manifest"));
    }
    let mut segments = Vec::with_capacity(n);
    for _ in 0..n {
        let name = std::str::from_utf8(r.bytes()?)
            .map_err(|_| corrupt("a segment name is not UTF-8"))?
            .to_owned();
        if !is_segment_name(&name) {
            return Err(corrupt("a segment name is not one this form writes"));
        }
        segments.push(Entry {
            name,
            bytes: r.u64()?,
            checksum: r.u64()?,
            documents: r.u64()?,
        });
    }
    r.finish()?;
    if segments.iter().map(|s| s.documents).sum::<u64>() != documents {
        return Err(corrupt(
            "the segments' documents differ from the manifest's",
        ));
    }
    Ok(Manifest {
        settings,
        generation,
        documents,
        segments,
    })
}

/// Whether `name` is a segment file's name (`segment-` eight digits `.ndds`).
fn is_segment_name(name: &str) -> bool {
    name.strip_prefix("segment-")
        .and_then(|n| n.strip_suffix(".ndds"))
        .is_some_and(|d| d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The manifest of `dir`, `None` when it has none.
fn current_manifest(dir: &Path) -> Result<Option<Manifest>, Error> {
    let path = dir.join(MANIFEST);
    match fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
        Ok(m) if m.len() > MAX_MANIFEST_BYTES => {
            return Err(corrupt("a manifest larger than 1 GiB"));
        }
        Ok(_) => {}
    }
    let bytes = fs::read(&path).map_err(|e| Error::io(&path, e))?;
    read_manifest(&bytes)
        .map(Some)
        .map_err(|e| Error::io(&path, io::Error::new(io::ErrorKind::InvalidData, e)))
}

/// The writer's lock: `WRITER-LOCK` created with `create_new`, removed on drop.
struct WriterLock(PathBuf);

impl WriterLock {
    fn acquire(dir: &Path) -> Result<Self, Error> {
        let path = dir.join(LOCK);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                let lock = WriterLock(path);
                writeln!(f, "{}", std::process::id()).map_err(|e| Error::io(&lock.0, e))?;
                Ok(lock)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let holder = fs::read_to_string(&path).unwrap_or_default();
                Err(Error::io(
                    &path,
                    io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!(
                            "another writer (process {}) is adding to this index; wait for it. \
                             If no such process runs (it was killed), remove this file",
                            holder.trim()
                        ),
                    ),
                ))
            }
            Err(e) => Err(Error::io(&path, e)),
        }
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Writes `bytes` to the new file `path` and syncs it.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let write = || -> io::Result<()> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        f.write_all(bytes)?;
        f.sync_all()
    };
    write().map_err(|e| Error::io(path, e))
}

/// Syncs the folder's entries (a rename) where the platform allows it.
fn sync_dir(dir: &Path) {
    if let Ok(f) = fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// The error of a folder that changed under this index.
fn refused(dir: &Path, why: &str) -> Error {
    Error::io(dir, io::Error::other(why.to_owned()))
}

impl DedupIndex {
    /// Saves the index to the folder `dir` (created if missing) in the folder form: a
    /// manifest and one segment file per save. When `dir` is where this index was
    /// loaded from ([`load_dir`](Self::load_dir)) or last saved to, only the documents
    /// added since are written, as one new segment, and the manifest replaced: earlier
    /// segments are never rewritten. The group labels earlier batches' documents change
    /// when a batch links them are stored in the new segment as (document, label)
    /// pairs.
    ///
    /// A crash at any moment leaves the folder loading as before the save or after it:
    /// the segment is written and synced first, then the manifest is replaced by rename.
    /// Segments the manifest does not list (a crashed save's) are ignored by loads and
    /// removed by the next save.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when a file cannot be written; when another writer holds the
    /// folder's `WRITER-LOCK`; when another writer added a batch since this index was
    /// loaded (load it again); when `dir` holds another index (save to a new folder),
    /// or its manifest cannot be read.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document};
    /// let dir = std::env::temp_dir().join(format!("ndd-save-dir-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&[Document::new("m1", "the committee approved the budget for the library")])?;
    /// index.save_dir(&dir)?; // segment 1
    ///
    /// let mut index = DedupIndex::load_dir(&dir)?;
    /// let out = index.add(&[Document::new("t1", "The committee approved the budget for the library!")])?;
    /// assert_eq!(out.dropped(), vec![1]);
    /// index.save_dir(&dir)?; // segment 2: t1 alone, segment 1 untouched
    /// assert_eq!(DedupIndex::load(&dir)?.ids(), ["m1", "t1"]);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn save_dir(&mut self, dir: &Path) -> Result<(), Error> {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let resolved = fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        let _lock = WriterLock::acquire(&resolved)?;
        let settings = settings_bytes(self);
        let (from, generation, mut segments) = match (current_manifest(&resolved)?, &self.saved) {
            (None, _) => (0, 0, Vec::new()),
            (Some(m), Some(s)) if s.dir == resolved => {
                if m.generation != s.generation || m.segments != s.segments {
                    return Err(refused(
                        dir,
                        "another writer added to this index after it was loaded; load it \
                         again and add the batch to that",
                    ));
                }
                (s.documents, m.generation, m.segments)
            }
            (Some(_), _) => {
                return Err(refused(
                    dir,
                    "this folder holds another index; load it to add to it, or save to a \
                     new folder",
                ));
            }
        };
        remove_leftovers(&resolved, &segments)?;
        let n = self.ids.len();
        let next = generation + 1;
        if from < n || segments.is_empty() {
            let bytes = self.segment_bytes(from, next);
            let name = format!("segment-{next:08}.ndds");
            write_new(&resolved.join(&name), &bytes)?;
            segments.push(Entry {
                name,
                bytes: bytes.len() as u64,
                checksum: stable_hash64(&bytes, 0),
                documents: (n - from) as u64,
            });
            let manifest = manifest_bytes(&settings, next, n as u64, &segments);
            let tmp = resolved.join(MANIFEST_TMP);
            let _ = fs::remove_file(&tmp);
            write_new(&tmp, &manifest)?;
            fs::rename(&tmp, resolved.join(MANIFEST)).map_err(|e| Error::io(&tmp, e))?;
            sync_dir(&resolved);
            self.saved = Some(Saved {
                dir: resolved,
                generation: next,
                documents: n,
                labels: self.labels.clone(),
                segments,
            });
        }
        Ok(())
    }

    /// Reads an index saved by [`save_dir`](Self::save_dir): the manifest, then each
    /// segment it lists (length and checksum checked); files it does not list are
    /// ignored. Every segment is read into memory
    /// ([`SegmentedIndex`](crate::SegmentedIndex) reads one at a time).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the folder has no manifest or a listed segment cannot be read,
    /// or its length or checksum differ from the manifest's; [`Error::Core`] with
    /// `CorruptData` for inconsistent contents.
    ///
    /// # Example
    ///
    /// ```
    /// let missing = std::path::Path::new("/nonexistent/ndd/index-folder");
    /// assert!(near_dup::pipeline::DedupIndex::load_dir(missing).is_err());
    /// ```
    pub fn load_dir(dir: &Path) -> Result<Self, Error> {
        Self::read_dir(dir, None)
    }

    /// Reads the folder `dir`: every segment whole, or, given `resident`, only what a
    /// [`SegmentedIndex`](crate::SegmentedIndex) keeps in memory (ids, labels,
    /// digests, set sizes; the documents not sketched appended to `resident`).
    pub(super) fn read_dir(dir: &Path, mut resident: Option<&mut Vec<u32>>) -> Result<Self, Error> {
        let resolved = fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        let manifest = current_manifest(&resolved)?.ok_or_else(|| {
            Error::io(
                resolved.join(MANIFEST),
                io::Error::new(io::ErrorKind::NotFound, "no index manifest in this folder"),
            )
        })?;
        let mut ix = from_settings(&manifest.settings)?;
        for (i, s) in manifest.segments.iter().enumerate() {
            let bytes = read_segment(&resolved, s)?;
            let to = match resident.as_deref_mut() {
                Some(unsketched) => ReadInto::Resident(unsketched),
                None => ReadInto::Whole,
            };
            let before = ix.ids.len();
            ix.apply_segment(&bytes, i as u64 + 1, to)?;
            if (ix.ids.len() - before) as u64 != s.documents {
                return Err(corrupt("a segment's documents differ from the manifest's"));
            }
        }
        if ix.ids.len() as u64 != manifest.documents {
            return Err(corrupt("the documents differ from the manifest's"));
        }
        check_labels(&ix.labels)?;
        ix.saved = Some(Saved {
            dir: resolved,
            generation: manifest.generation,
            documents: ix.ids.len(),
            labels: ix.labels.clone(),
            segments: manifest.segments,
        });
        Ok(ix)
    }

    /// The committed segments of the folder this index was read from or saved to, as
    /// (position in the manifest, first document), oldest first.
    pub(super) fn committed_segments(&self) -> Vec<(usize, usize)> {
        let Some(saved) = &self.saved else {
            return Vec::new();
        };
        let mut base = 0usize;
        let mut out = Vec::with_capacity(saved.segments.len());
        for (g, s) in saved.segments.iter().enumerate() {
            out.push((g, base));
            base = base.saturating_add(usize::try_from(s.documents).unwrap_or(usize::MAX));
        }
        out
    }

    /// The folder this index was read from or last saved to.
    pub(super) fn saved_dir(&self) -> Option<PathBuf> {
        self.saved.as_ref().map(|s| s.dir.clone())
    }

    /// Reads the `g`-th committed segment, whose first document is `base`, into its
    /// candidate structure: its documents' signatures (sketched again from the sets)
    /// banded as the whole load bands them, and their sets.
    pub(super) fn read_part(&mut self, g: usize, base: usize) -> Result<Part, Error> {
        let Some(saved) = &self.saved else {
            return Err(corrupt("no committed segment"));
        };
        let entry = saved
            .segments
            .get(g)
            .ok_or_else(|| corrupt("no such segment"))?;
        let bytes = read_segment(&saved.dir, entry)?;
        let mut part = Part {
            base,
            lsh: self.empty_lsh(),
            sets: self.sets.is_some().then(SetStore::new),
        };
        let count = entry.documents;
        self.apply_segment(&bytes, g as u64 + 1, ReadInto::Part(&mut part))?;
        if part
            .sets
            .as_ref()
            .is_some_and(|s| s.starts.len() as u64 != count + 1)
        {
            return Err(corrupt("a segment's documents differ from the manifest's"));
        }
        Ok(part)
    }

    /// An LSH index of this index's parameters and bucket-scan bound, keeping
    /// signatures, empty.
    pub(super) fn empty_lsh(&self) -> LshIndex<u32, MinHashSignature> {
        LshIndex::builder(self.lsh.params())
            .keep_signatures(true)
            .max_bucket_scan(self.lsh.max_bucket_scan())
            .build()
    }

    /// The segment of the documents `from..len()`, the `generation`-th: their record
    /// and the label changes of the earlier documents.
    fn segment_bytes(&self, from: usize, generation: u64) -> Vec<u8> {
        let mut w = ByteWriter::new(SEGMENT_MAGIC, SEGMENT_VERSION);
        w.u64(generation);
        w.u64(from as u64);
        self.write_documents(from, &mut w);
        let before: &[u32] = match &self.saved {
            Some(s) if from > 0 => &s.labels,
            _ => &[],
        };
        let changes: Vec<(u32, u32)> = before
            .iter()
            .zip(&self.labels)
            .enumerate()
            .filter(|(_, (old, new))| old != new)
            .map(|(i, (_, &new))| (key(i), new))
            .collect();
        w.u64(changes.len() as u64);
        for (doc, label) in changes {
            w.u32(doc);
            w.u32(label);
        }
        w.finish()
    }

    /// Reads the label changes of the documents before `base` a segment stores, and
    /// applies them when `apply`.
    fn read_label_changes(
        &mut self,
        r: &mut ByteReader<'_>,
        base: usize,
        n: usize,
        apply: bool,
    ) -> Result<(), Error> {
        let changes = usize::try_from(r.u64()?).map_err(|_| corrupt("label changes"))?;
        if changes > base || changes > r.remaining() / 8 {
            return Err(corrupt("more label changes than earlier documents"));
        }
        for _ in 0..changes {
            let (doc, label) = (r.u32()? as usize, r.u32()?);
            if doc >= base || label as usize >= n {
                return Err(corrupt("a label change names no document"));
            }
            if apply {
                self.labels[doc] = label;
            }
        }
        Ok(())
    }

    /// Adds the documents of a segment written by [`segment_bytes`](Self::segment_bytes)
    /// (or by the version-1 writer before it) as the `generation`-th, into `to`
    /// (version 1: only into the whole index).
    fn apply_segment(
        &mut self,
        bytes: &[u8],
        generation: u64,
        to: ReadInto<'_>,
    ) -> Result<(), Error> {
        let (mut r, version) = ByteReader::new(bytes, SEGMENT_MAGIC, SEGMENT_VERSION)?;
        if r.u64()? != generation {
            return Err(corrupt("a segment out of order"));
        }
        let (base, apply) = match &to {
            ReadInto::Part(part) => (part.base, false),
            _ => (self.ids.len(), true),
        };
        if r.u64()? != base as u64 {
            return Err(corrupt("a segment does not follow the one before"));
        }
        if version < 2 {
            if !matches!(to, ReadInto::Whole) {
                return Err(corrupt(
                    "a segment of version 1 is read only by a whole load (DedupIndex::load_dir)",
                ));
            }
            return self.apply_segment_v1(r, base);
        }
        let count = self.read_documents(&mut r, to)?;
        self.read_label_changes(&mut r, base, base + count, apply)?;
        r.finish()?;
        Ok(())
    }

    /// The rest of a version-1 segment: fixed-width fields, every signature stored.
    fn apply_segment_v1(&mut self, mut r: ByteReader<'_>, base: usize) -> Result<(), Error> {
        let (count, n) = read_count(&mut r, base, 8)?;
        for _ in 0..count {
            let id = std::str::from_utf8(r.bytes()?).map_err(|_| corrupt("an id is not UTF-8"))?;
            self.ids.push(id.to_owned());
        }
        let labels = r.u64_vec()?;
        if labels.len() != count {
            return Err(corrupt("label count differs from the document count"));
        }
        for l in labels {
            match u32::try_from(l) {
                Ok(l) if (l as usize) < n => self.labels.push(l),
                _ => return Err(corrupt("a group label names no document")),
            }
        }
        self.read_label_changes(&mut r, base, n, true)?;
        let m = usize::try_from(r.u64()?).map_err(|_| corrupt("digest count"))?;
        if m > count {
            return Err(corrupt("more digests than documents"));
        }
        for _ in 0..m {
            let d: crate::exact::DocDigest = r
                .bytes()?
                .try_into()
                .map_err(|_| corrupt("a digest is not 20 bytes"))?;
            let doc = r.u32()?;
            if (doc as usize) < base || doc as usize >= n || self.digests.insert(d, doc).is_some() {
                return Err(corrupt(
                    "a digest names no document of its segment or repeats",
                ));
            }
        }
        let sizes = match r.u8()? {
            0 => None,
            1 => Some(r.u64_vec()?),
            _ => return Err(corrupt("unknown set-size flag")),
        };
        match (&mut self.sizes, sizes) {
            (Some(all), Some(new)) if new.len() == count => all.extend(new),
            (None, None) => {}
            _ => return Err(corrupt("set sizes differ from the manifest's settings")),
        }
        let scheme = ndd_core::Sketcher::scheme(&self.sketching.hasher);
        let signatures = usize::try_from(r.u64()?).map_err(|_| corrupt("signature count"))?;
        if signatures > count {
            return Err(corrupt("more signatures than documents"));
        }
        let mut last = None;
        for _ in 0..signatures {
            let k = r.u32()?;
            if (k as usize) < base || k as usize >= n || last.is_some_and(|l| l >= k) {
                return Err(corrupt("a signature names no document of its segment"));
            }
            last = Some(k);
            let values = r.u64_vec()?;
            if values.len() != self.sketching.config.num_perm {
                return Err(corrupt("a signature of another length"));
            }
            let sig = MinHashSignature::from_values(scheme, values)?;
            self.lsh.insert(k, &sig)?;
        }
        match (r.u8()?, &mut self.sets) {
            (0, None) => {}
            (1, Some(store)) => {
                let values = r.u64_vec()?;
                let sizes = self.sizes.as_deref().map(|s| &s[base..]);
                let lsh = &self.lsh;
                let part = split_sets(values, sizes, |i| lsh.signature(&key(base + i)).is_some())?;
                let offset = store.values.len();
                store.values.extend_from_slice(&part.values);
                store
                    .starts
                    .extend(part.starts[1..].iter().map(|s| s + offset));
            }
            _ => return Err(corrupt("shingle sets differ from the manifest's settings")),
        }
        r.finish()?;
        Ok(())
    }
}

/// The bytes of the committed segment `entry` of `dir`, its length and checksum
/// checked against the manifest's.
fn read_segment(dir: &Path, entry: &Entry) -> Result<Vec<u8>, Error> {
    let path = dir.join(&entry.name);
    let bytes = fs::read(&path).map_err(|e| Error::io(&path, e))?;
    if bytes.len() as u64 != entry.bytes || stable_hash64(&bytes, 0) != entry.checksum {
        return Err(Error::io(
            &path,
            io::Error::new(
                io::ErrorKind::InvalidData,
                "the segment differs from the manifest (length or checksum)",
            ),
        ));
    }
    Ok(bytes)
}

/// Removes what a crashed save left in `dir`: segment files not in `committed` and a
/// manifest never renamed.
fn remove_leftovers(dir: &Path, committed: &[Entry]) -> Result<(), Error> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let leftover = name == MANIFEST_TMP
            || (is_segment_name(&name) && !committed.iter().any(|s| s.name == name));
        if leftover {
            fs::remove_file(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
        }
    }
    Ok(())
}

//! Stage 1, per document and without communication: shingles, a signature (MinHash
//! or SimHash) and its band keys. Signatures go to `signatures.bin` (each in a byte
//! form of one length), band keys to runs sorted by bucket, and, when the verifier
//! reads texts or shingle sets (which verification makes from the texts of the
//! documents candidates name, `named.rs`), the texts to `texts.bin` with their end
//! offsets in `texts.idx`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use ndd_core::{DocSketcher, FeatureExtractor};
use ndd_lsh::LshParams;
use ndd_minhash::{BBitSignature, MinHashSignature, MinHasher};
use ndd_scale::{BandKeySort, DigestRecord};

use super::indexed::{TEXT_ENDS, TEXTS, out_of_range};
use super::reads::read_spans;
use super::{Job, damaged, digest_order, file_size};
use crate::progress::Stage;
use crate::{Document, Error};

/// What the sketch stage needs of a method: signatures of a chunk of texts, each
/// signature's bytes in `signatures.bin` (one length for every document) and its band
/// keys (band `i` is the `i`-th key).
pub(super) trait Signer: Sync {
    /// A signature.
    type Sig: Send;
    /// The signatures of `texts`, in order (in parallel under `rayon`).
    fn sketch_chunk(&self, texts: &[&str]) -> Vec<Self::Sig>;
    /// `sig`'s bytes for `signatures.bin` and its band keys, into the buffers.
    fn record(
        &self,
        sig: &Self::Sig,
        bytes: &mut Vec<u8>,
        keys: &mut Vec<u64>,
    ) -> Result<(), Error>;
}

/// The signatures of `texts` by `h`, in parallel under `rayon`.
pub(super) fn batch<H>(h: &H, texts: &[&str]) -> Vec<H::Signature>
where
    H: DocSketcher + Sync,
    H::State: Send,
    H::Signature: Send,
{
    #[cfg(feature = "rayon")]
    {
        ndd_core::ParDocSketcher::par_sketch_batch(h, texts)
    }
    #[cfg(not(feature = "rayon"))]
    {
        DocSketcher::sketch_batch(h, texts)
    }
}

/// MinHash: the signature's checked byte form (or, with `fields`, the checked byte
/// form of its `fields`-bit slots, [`BBitSignature`]: all that the plausibility filter
/// reads), band keys of `params`.
pub(super) struct MinSigner<'a, E> {
    pub(super) hasher: &'a MinHasher<E>,
    pub(super) params: LshParams,
    pub(super) fields: Option<u32>,
}

impl<E: FeatureExtractor + Sync> Signer for MinSigner<'_, E> {
    type Sig = MinHashSignature;

    fn sketch_chunk(&self, texts: &[&str]) -> Vec<MinHashSignature> {
        batch(self.hasher, texts)
    }

    fn record(
        &self,
        sig: &MinHashSignature,
        bytes: &mut Vec<u8>,
        keys: &mut Vec<u64>,
    ) -> Result<(), Error> {
        *bytes = match self.fields {
            Some(bits) => BBitSignature::from_minhash(sig, bits)?.to_bytes(),
            None => sig.to_bytes(),
        };
        keys.clear();
        self.params.band_keys_into(sig.values(), keys)?;
        Ok(())
    }
}

/// What stage 1 wrote.
pub(super) struct Sketched {
    pub(super) documents: u64,
    pub(super) signature_len: u64,
    pub(super) runs: Vec<PathBuf>,
    pub(super) digest_runs: Vec<PathBuf>,
    pub(super) bytes_written: u64,
    /// The raw files written and their [`file_checksum`]s.
    pub(super) checksums: Vec<(&'static str, u64)>,
}

pub(super) const SIGNATURES: &str = "signatures.bin";
/// The raw work files (no trailer of their own: checked by [`file_checksum`]).
pub(super) const RAW: [&str; 3] = [SIGNATURES, TEXTS, TEXT_ENDS];

/// A raw work file being written through a buffer: durable (checksummed, written
/// back behind the writer and synced at the end: the sketch stage's files, which a
/// later run reuses) or scratch (neither: a file a stage reads at once and removes,
/// such as verification's sets, [`super::named::make_sets`]).
struct Out {
    path: PathBuf,
    w: BufWriter<File>,
    bytes: u64,
    /// The checksum of the bytes written ([`file_checksum`] of the finished file);
    /// `None` for a scratch file.
    hash: Option<ndd_core::hash::StableHasher>,
    /// Bytes written since the last write-back was started.
    unsynced: u64,
    /// A write-back of what was written before, on a thread of its own.
    syncing: Option<JoinHandle<std::io::Result<()>>>,
}

/// How many bytes of a raw file are written between two write-backs started behind
/// the writer ([`Out::sync_behind`]).
const SYNC_EVERY: u64 = 64 << 20;

/// The checksum of a raw work file's bytes (`texts.bin`, `texts.idx`, `signatures.bin`),
/// kept in the sketch stage's marker and checked before the stage is reused: these
/// files have no trailer of their own.
pub(super) fn file_checksum(path: &Path) -> Result<u64, Error> {
    use std::io::Read;
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hash = ndd_core::hash::StableHasher::new(0);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        let Some(chunk) = buf.get(..n).filter(|c| !c.is_empty()) else {
            break;
        };
        hash.update(chunk);
    }
    Ok(hash.finish())
}

impl Out {
    /// A durable file (`durable`) or a scratch one, created anew.
    fn create(dir: &Path, name: &str, durable: bool) -> Result<Self, Error> {
        let path = dir.join(name);
        let f = File::create(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Out {
            w: BufWriter::with_capacity(1 << 16, f),
            path,
            bytes: 0,
            hash: durable.then(|| ndd_core::hash::StableHasher::new(0)),
            unsynced: 0,
            syncing: None,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.bytes += bytes.len() as u64;
        self.w
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        if let Some(hash) = &mut self.hash {
            hash.update(bytes);
            self.unsynced += bytes.len() as u64;
            if self.unsynced >= SYNC_EVERY {
                self.sync_behind()?;
            }
        }
        Ok(())
    }

    /// Starts writing back what was written so far, on a thread of its own, unless
    /// the last write-back still runs: the kernel would otherwise hold the file's
    /// pages until [`finish`](Self::finish) syncs it (up to a tenth of the memory
    /// dirty), and the stage's end would wait for all of them on the calling thread
    /// (0.48 s of the shingle sets then written and `signatures.bin` at 1M documents).
    fn sync_behind(&mut self) -> Result<(), Error> {
        if self.syncing.as_ref().is_some_and(|s| !s.is_finished()) {
            return Ok(());
        }
        self.wait_for_sync()?;
        self.w.flush().map_err(|e| Error::io(&self.path, e))?;
        let file = self
            .w
            .get_ref()
            .try_clone()
            .map_err(|e| Error::io(&self.path, e))?;
        self.syncing = Some(std::thread::spawn(move || file.sync_data()));
        self.unsynced = 0;
        Ok(())
    }

    /// Waits for the write-back started behind the writer, if any (a panic there goes
    /// on here).
    fn wait_for_sync(&mut self) -> Result<(), Error> {
        match self.syncing.take() {
            Some(s) => s
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                .map_err(|e| Error::io(&self.path, e)),
            None => Ok(()),
        }
    }

    /// Flushes, and syncs a durable file; the bytes written and their checksum (0 for
    /// a scratch file).
    fn finish(mut self) -> Result<(u64, u64), Error> {
        self.wait_for_sync()?;
        self.w.flush().map_err(|e| Error::io(&self.path, e))?;
        let Some(hash) = self.hash else {
            return Ok((self.bytes, 0));
        };
        self.w
            .get_ref()
            .sync_all()
            .map_err(|e| Error::io(&self.path, e))?;
        Ok((self.bytes, hash.finish()))
    }
}

/// One chunk's per-document results, computed on every core by [`prepare`] and
/// written in input order by [`Files::chunk`], in flat buffers (so that this thread
/// neither allocates nor frees per document).
struct Prepared {
    documents: usize,
    /// Each document's signature bytes, `signature_len` each, one after another.
    signatures: Vec<u8>,
    signature_len: usize,
    /// Each document's band keys, `bands` each.
    keys: Vec<u64>,
    bands: usize,
    /// The exact pass's digests (empty without the pass).
    digests: Vec<crate::DocDigest>,
    /// The texts' bytes one after another, and each text's length (empty unless the
    /// verifier reads texts or sets).
    text_values: Vec<u8>,
    text_sizes: Vec<u64>,
}

/// The signatures, band keys, digests and texts of `docs`, in order: each part by
/// the batch call the in-memory engine uses (the sketcher's,
/// [`crate::ExactPass::digests`]), in parallel under `rayon`; the texts only when
/// `keep_texts`. `docs` is dropped here, off the writing thread.
fn prepare<S: Signer>(
    signer: &S,
    exact: Option<crate::ExactPass>,
    keep_texts: bool,
    docs: Vec<Document>,
) -> Result<Prepared, Error> {
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let signatures = signer.sketch_chunk(&texts);
    let record = |sig: &S::Sig| {
        let (mut bytes, mut keys) = (Vec::new(), Vec::new());
        signer
            .record(sig, &mut bytes, &mut keys)
            .map(|()| (bytes, keys))
    };
    #[cfg(feature = "rayon")]
    let records: Vec<(Vec<u8>, Vec<u64>)> = {
        use rayon::prelude::*;
        signatures
            .into_par_iter()
            .map(|sig| record(&sig))
            .collect::<Result<_, _>>()?
    };
    #[cfg(not(feature = "rayon"))]
    let records: Vec<(Vec<u8>, Vec<u64>)> =
        signatures.iter().map(record).collect::<Result<_, _>>()?;
    let (signature_len, bands) = records.first().map_or((0, 0), |r| (r.0.len(), r.1.len()));
    let mut p = Prepared {
        documents: docs.len(),
        signatures: Vec::with_capacity(signature_len * records.len()),
        signature_len,
        keys: Vec::with_capacity(bands * records.len()),
        bands,
        digests: exact.map(|p| p.digests(&texts)).unwrap_or_default(),
        text_values: Vec::new(),
        text_sizes: Vec::new(),
    };
    for (bytes, keys) in &records {
        if bytes.len() != signature_len || keys.len() != bands {
            return Err(Error::Core(ndd_core::Error::corrupt_data(
                "signatures of one run differ in length",
            )));
        }
        p.signatures.extend_from_slice(bytes);
        p.keys.extend_from_slice(keys);
    }
    if keep_texts {
        p.text_values
            .reserve(texts.iter().map(|t| t.len()).sum::<usize>());
        for text in &texts {
            p.text_values.extend_from_slice(text.as_bytes());
            p.text_sizes.push(text.len() as u64);
        }
    }
    Ok(p)
}

/// Runs `compute` and `files` on rayon's pool while `serial` runs on this thread
/// (which need not be `Send`: it reads the input), all three to their end.
pub(super) fn overlap<A: Send, F: Send, B>(
    compute: impl FnOnce() -> A + Send,
    files: impl FnOnce() -> F + Send,
    serial: impl FnOnce() -> B,
) -> (A, F, B) {
    #[cfg(feature = "rayon")]
    {
        let (mut computed, mut written) = (None, None);
        let b = rayon::in_place_scope(|s| {
            s.spawn(|_| computed = Some(compute()));
            s.spawn(|_| written = Some(files()));
            serial()
        });
        // The scope returns once the spawned jobs have run (or re-raises a panic).
        match (computed, written) {
            (Some(a), Some(f)) => (a, f, b),
            _ => unreachable!("a rayon scope waits for its jobs"),
        }
    }
    #[cfg(not(feature = "rayon"))]
    {
        let (f, b) = (files(), serial());
        (compute(), f, b)
    }
}

/// The sketch stage's sorts (band keys, digests), fed on the reading thread.
struct Sorts {
    keys: BandKeySort,
    digests: Option<ndd_scale::ExternalSort<DigestRecord, ([u8; 20], u64)>>,
    documents: u64,
    signature_len: Option<usize>,
}

impl Sorts {
    /// Pushes a prepared chunk's band keys and digests, its documents numbered from
    /// `self.documents` on.
    fn chunk(&mut self, dir: &Path, p: &Prepared) -> Result<(), Error> {
        if p.documents > 0 && *self.signature_len.get_or_insert(p.signature_len) != p.signature_len
        {
            return Err(Error::Core(ndd_core::Error::corrupt_data(
                "signatures of one run differ in length",
            )));
        }
        let docs = self.documents..;
        if p.bands > usize::from(u16::MAX) + 1 {
            return Err(Error::Core(ndd_core::Error::invalid_parameter(
                "bands",
                "at most 65,536 bands are written to band-key files",
            )));
        }
        for (doc, keys) in docs.clone().zip(p.keys.chunks_exact(p.bands.max(1))) {
            self.keys
                .push_document(doc, keys)
                .map_err(|e| damaged(dir, e))?;
        }
        if let Some(digests) = &mut self.digests {
            for (doc, &digest) in docs.zip(&p.digests) {
                digests
                    .push(DigestRecord { doc, digest })
                    .map_err(|e| damaged(dir, e))?;
            }
        }
        self.documents += p.documents as u64;
        Ok(())
    }
}

/// A file of variable-length values and the file of their end offsets (in units of
/// the values: bytes for texts, `u64`s for sets), one per document in position order:
/// `texts.bin` and `texts.idx` (durable), verification's `sets.bin` and `sets.idx`
/// (scratch, [`super::named::make_sets`]).
pub(super) struct IndexedOut {
    values: Out,
    ends: Out,
    end: u64,
    /// A chunk's end offsets, as bytes (reused).
    buf: Vec<u8>,
}

impl IndexedOut {
    /// Both files, durable ([`Out`]) or scratch, created anew.
    pub(super) fn create(
        dir: &Path,
        values: &'static str,
        ends: &'static str,
        durable: bool,
    ) -> Result<Self, Error> {
        Ok(IndexedOut {
            values: Out::create(dir, values, durable)?,
            ends: Out::create(dir, ends, durable)?,
            end: 0,
            buf: Vec::new(),
        })
    }

    /// A chunk's documents' values: `bytes`, one after another, `units[i]` long each.
    pub(super) fn push_chunk(&mut self, bytes: &[u8], units: &[u64]) -> Result<(), Error> {
        self.values.write(bytes)?;
        self.buf.clear();
        for n in units {
            self.end += n;
            self.buf.extend_from_slice(&self.end.to_le_bytes());
        }
        self.ends.write(&self.buf)
    }

    /// Finishes a scratch pair: the bytes written.
    pub(super) fn finish_scratch(self) -> Result<u64, Error> {
        Ok(self.values.finish()?.0 + self.ends.finish()?.0)
    }

    /// Finishes both files: the bytes written, and the names and checksums of the
    /// files, into `checksums`.
    fn finish(
        self,
        names: [&'static str; 2],
        checksums: &mut Vec<(&'static str, u64)>,
    ) -> Result<u64, Error> {
        let ((vb, vs), (eb, es)) = (self.values.finish()?, self.ends.finish()?);
        checksums.extend([(names[0], vs), (names[1], es)]);
        Ok(vb + eb)
    }
}

/// The sketch stage's raw files (signatures, texts and their ends), written in
/// document order on a thread of the pool beside the reading thread.
struct Files {
    /// `None` when verification does not read signatures (containment).
    sigs: Option<Out>,
    texts: Option<IndexedOut>,
}

impl Files {
    fn chunk(&mut self, p: &Prepared) -> Result<(), Error> {
        if let Some(sigs) = &mut self.sigs {
            sigs.write(&p.signatures)?;
        }
        if let Some(texts) = &mut self.texts {
            texts.push_chunk(&p.text_values, &p.text_sizes)?;
        }
        Ok(())
    }
}

/// Reads the next chunk of `docs`: up to [`CHUNK`](crate::progress::CHUNK) documents
/// or `bytes` of text.
fn read_chunk<I>(docs: &mut I, bytes: u64) -> Result<Vec<Document>, Error>
where
    I: Iterator<Item = Result<Document, Error>>,
{
    let mut chunk = Vec::new();
    let mut held = 0u64;
    while chunk.len() < crate::progress::CHUNK && held < bytes {
        let Some(doc) = docs.next() else { break };
        let doc = doc?;
        held += doc.text.len() as u64;
        chunk.push(doc);
    }
    Ok(chunk)
}

pub(super) fn run<S, I>(
    job: &Job<'_>,
    signer: &S,
    fingerprint: u64,
    docs: I,
) -> Result<Sketched, Error>
where
    S: Signer,
    I: Iterator<Item = Result<Document, Error>>,
{
    let dir = job.dir;
    // Half the budget for sorting band keys, or a quarter each for band keys and
    // digests; the other half for the two chunks in flight (one prepared on every
    // core while the one before is written and the next read): each an eighth of the
    // budget of text, and as much again for its signatures and texts kept.
    let sorting = if job.exact.is_some() {
        job.budget / 4
    } else {
        job.budget / 2
    };
    let mut sorts = Sorts {
        // 16 bytes a band key held (`BandKeySort`).
        keys: BandKeySort::new(
            dir,
            "keys",
            usize::try_from(sorting / 16).unwrap_or(usize::MAX),
            fingerprint,
        )
        .map_err(|e| damaged(dir, e))?,
        digests: match job.exact {
            Some(_) => Some(job.sort("digests", digest_order, sorting, 0)?),
            None => None,
        },
        documents: 0,
        signature_len: None,
    };
    let mut files = Files {
        sigs: match job.reads_signatures() {
            true => Some(Out::create(dir, SIGNATURES, true)?),
            false => None,
        },
        // The set verifiers' sets are made by verification from the texts of the
        // documents candidates name.
        texts: match job.needs_texts || job.needs_sets {
            true => Some(IndexedOut::create(dir, TEXTS, TEXT_ENDS, true)?),
            false => None,
        },
    };
    let chunk_bytes = (job.budget / 8).max(1);
    let (exact, keep_texts) = (job.exact, job.needs_texts || job.needs_sets);
    let mut docs = docs;
    job.progress.start(Stage::Sketch, None);
    let mut next = read_chunk(&mut docs, chunk_bytes)?;
    let mut pending: Option<Prepared> = None;
    // Chunk i is prepared on the pool while chunk i - 1's raw files are written (on
    // the pool too) and its keys pushed, and chunk i + 1 is read, on this thread.
    while !next.is_empty() || pending.is_some() {
        let current = std::mem::take(&mut next);
        let before = pending.take();
        let (prepared, written, read) = overlap(
            move || match current.is_empty() {
                true => Ok(None),
                false => prepare(signer, exact, keep_texts, current).map(Some),
            },
            || before.as_ref().map_or(Ok(()), |p| files.chunk(p)),
            || {
                if let Some(p) = &before {
                    sorts.chunk(dir, p)?;
                    job.progress.advance(Stage::Sketch, p.documents as u64);
                }
                read_chunk(&mut docs, chunk_bytes)
            },
        );
        written?;
        pending = prepared?;
        next = read?;
    }
    job.progress.finish(Stage::Sketch);
    let Sorts {
        keys,
        digests,
        documents,
        signature_len,
    } = sorts;
    let Files { sigs, texts } = files;
    let runs = keys.finish().map_err(|e| damaged(dir, e))?;
    let digest_runs = match digests {
        Some(d) => d.finish().map_err(|e| damaged(dir, e))?.paths().to_vec(),
        None => Vec::new(),
    };
    let (mut bytes_written, mut checksums) = (0, Vec::new());
    if let Some(sigs) = sigs {
        let (b, sum) = sigs.finish()?;
        bytes_written += b;
        checksums.push((SIGNATURES, sum));
    }
    if let Some(texts) = texts {
        bytes_written += texts.finish([TEXTS, TEXT_ENDS], &mut checksums)?;
    }
    for p in runs.paths().iter().chain(&digest_runs) {
        bytes_written += file_size(p)?;
    }
    Ok(Sketched {
        documents,
        signature_len: signature_len.map_or(0, |l| l as u64),
        runs: runs.paths().to_vec(),
        digest_runs,
        bytes_written,
        checksums,
    })
}

/// Reads MinHash signatures (or 8-bit fields, or SimHash fingerprints) of
/// `signatures.bin` by document position, many at once: nearby documents' in one read
/// ([`read_spans`]).
pub(super) struct Signatures {
    file: File,
    path: PathBuf,
    len: u64,
}

impl Signatures {
    /// The signatures of `job`'s work folder, `len` bytes each; `None` when its
    /// verification does not read them ([`Job::reads_signatures`]: none were written).
    pub(super) fn open(job: &Job<'_>, len: u64) -> Result<Option<Self>, Error> {
        if !job.reads_signatures() {
            return Ok(None);
        }
        let path = job.dir.join(SIGNATURES);
        let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Some(Signatures { file, path, len }))
    }

    /// The MinHash signatures of `docs`, in order (read in parallel under `rayon`).
    pub(super) fn get_many(&self, docs: &[u64]) -> Result<Vec<MinHashSignature>, Error> {
        self.read_many(docs, |b| Ok(MinHashSignature::from_bytes(b)?))
    }

    /// `parse` of the bytes of each of `docs` (in increasing order), nearby ones read
    /// together ([`read_spans`]).
    fn read_many<T: Send>(
        &self,
        docs: &[u64],
        parse: impl Fn(&[u8]) -> Result<T, Error> + Sync + Send,
    ) -> Result<Vec<T>, Error> {
        let spans = docs
            .iter()
            .map(|&d| {
                d.checked_mul(self.len)
                    .map(|at| (at, self.len))
                    .ok_or_else(|| out_of_range(&self.path, d))
            })
            .collect::<Result<Vec<_>, _>>()?;
        read_spans(&self.file, &self.path, &spans, |_, b| parse(b))
    }

    /// The `b`-bit fields of `docs`, in order, when the sketch stage kept those
    /// ([`MinSigner::fields`]) instead of the signatures (their checked byte form: a
    /// file of full signatures is refused, not misread).
    pub(super) fn get_many_fields(&self, docs: &[u64]) -> Result<Vec<BBitSignature>, Error> {
        self.read_many(docs, |b| Ok(BBitSignature::from_bytes(b)?))
    }

    /// The SimHash fingerprints of `docs`, in order (read in parallel under `rayon`).
    #[cfg(feature = "simhash")]
    pub(super) fn fingerprints(&self, docs: &[u64]) -> Result<Vec<u64>, Error> {
        self.read_many(docs, |b| {
            let b: [u8; 8] = b.try_into().map_err(|_| {
                Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: a fingerprint is not eight bytes",
                    self.path.display()
                )))
            })?;
            Ok(u64::from_le_bytes(b))
        })
    }
}

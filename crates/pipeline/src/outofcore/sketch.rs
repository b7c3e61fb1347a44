//! Stage 1, per document and without communication: shingles, a signature (MinHash
//! or SimHash) and its band keys. Signatures go to `signatures.bin` (each in a byte
//! form of one length), band keys to runs sorted by bucket, and, when the verifier
//! reads shingle sets, the sets to `sets.bin` with their end offsets in `sets.idx`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use ndd_core::{DocSketcher, FeatureExtractor, FeatureSet};
use ndd_lsh::LshParams;
use ndd_minhash::{MinHashSignature, MinHasher};
use ndd_scale::{BandKeyRecord, DigestRecord};

use super::{Job, bucket_order, damaged, digest_order, file_size};
use crate::progress::Stage;
use crate::{Document, Error};

/// What the sketch stage needs of a method: signatures of a chunk of texts, each
/// signature's bytes in `signatures.bin` (one length for every document) and its band
/// keys (band `i` is the `i`-th key), and the shingles the set verifiers compare.
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
    /// The shingles of `text` (unsorted, repeats allowed) into `out`.
    fn extract(&self, text: &str, out: &mut Vec<u64>);
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

/// MinHash: the signature's checked byte form, band keys of `params`.
pub(super) struct MinSigner<'a, E> {
    pub(super) hasher: &'a MinHasher<E>,
    pub(super) params: LshParams,
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
        *bytes = sig.to_bytes();
        keys.clear();
        self.params.band_keys_into(sig.values(), keys)?;
        Ok(())
    }

    fn extract(&self, text: &str, out: &mut Vec<u64>) {
        self.hasher.extractor().extract(text, out);
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
pub(super) const SETS: &str = "sets.bin";
pub(super) const SET_ENDS: &str = "sets.idx";
pub(super) const TEXTS: &str = "texts.bin";
pub(super) const TEXT_ENDS: &str = "texts.idx";
/// The raw work files (no trailer of their own: checked by [`file_checksum`]).
pub(super) const RAW: [&str; 5] = [SIGNATURES, SETS, SET_ENDS, TEXTS, TEXT_ENDS];

struct Out {
    path: PathBuf,
    w: BufWriter<File>,
    bytes: u64,
    /// The checksum of the bytes written ([`file_checksum`] of the finished file).
    hash: ndd_core::hash::StableHasher,
}

/// The checksum of a raw work file's bytes (`sets.bin`, `sets.idx`, `signatures.bin`),
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
    fn create(dir: &Path, name: &str) -> Result<Self, Error> {
        let path = dir.join(name);
        let f = File::create(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Out {
            w: BufWriter::with_capacity(1 << 16, f),
            path,
            bytes: 0,
            hash: ndd_core::hash::StableHasher::new(0),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.bytes += bytes.len() as u64;
        self.hash.update(bytes);
        self.w
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes and syncs; the bytes written and their checksum.
    fn finish(mut self) -> Result<(u64, u64), Error> {
        self.w.flush().map_err(|e| Error::io(&self.path, e))?;
        self.w
            .get_ref()
            .sync_all()
            .map_err(|e| Error::io(&self.path, e))?;
        Ok((self.bytes, self.hash.finish()))
    }
}

/// A file of variable-length values and the file of their end offsets (in units of
/// the values: shingles for sets, bytes for texts), one per document in position
/// order: `sets.bin` and `sets.idx`, `texts.bin` and `texts.idx`.
struct IndexedOut {
    values: Out,
    ends: Out,
    end: u64,
}

impl IndexedOut {
    fn create(dir: &Path, values: &'static str, ends: &'static str) -> Result<Self, Error> {
        Ok(IndexedOut {
            values: Out::create(dir, values)?,
            ends: Out::create(dir, ends)?,
            end: 0,
        })
    }

    /// The next document's value: `bytes`, `units` long.
    fn push(&mut self, bytes: &[u8], units: u64) -> Result<(), Error> {
        self.values.write(bytes)?;
        self.end += units;
        self.ends.write(&self.end.to_le_bytes())
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
    // digests; a quarter for the chunk of text.
    let sorting = if job.exact.is_some() {
        job.budget / 4
    } else {
        job.budget / 2
    };
    let mut keys = job.sort("keys", bucket_order, sorting, fingerprint)?;
    let mut digests = match job.exact {
        Some(_) => Some(job.sort("digests", digest_order, sorting, 0)?),
        None => None,
    };
    let mut digest_buf = Vec::new();
    let mut sigs = Out::create(dir, SIGNATURES)?;
    let mut sets = match job.needs_sets {
        true => Some(IndexedOut::create(dir, SETS, SET_ENDS)?),
        false => None,
    };
    let mut kept_texts = match job.needs_texts {
        true => Some(IndexedOut::create(dir, TEXTS, TEXT_ENDS)?),
        false => None,
    };
    let chunk_bytes = (job.budget / 4).max(1);
    let mut documents = 0u64;
    let mut signature_len = None;
    let mut band_keys = Vec::new();
    let mut bytes = Vec::new();
    let mut scratch = Vec::new();
    let mut set_bytes = Vec::new();
    let mut chunk: Vec<Document> = Vec::new();
    let mut docs = docs.peekable();
    job.progress.start(Stage::Sketch, None);
    while docs.peek().is_some() {
        // A chunk: up to CHUNK documents or a quarter of the budget of text.
        chunk.clear();
        let mut held = 0u64;
        while chunk.len() < crate::progress::CHUNK && held < chunk_bytes {
            let Some(doc) = docs.next() else { break };
            let doc = doc?;
            held += doc.text.len() as u64;
            chunk.push(doc);
        }
        let texts: Vec<&str> = chunk.iter().map(|d| d.text.as_str()).collect();
        let signatures = signer.sketch_chunk(&texts);
        for (text, sig) in texts.iter().zip(&signatures) {
            let doc = documents;
            documents += 1;
            signer.record(sig, &mut bytes, &mut band_keys)?;
            if *signature_len.get_or_insert(bytes.len()) != bytes.len() {
                return Err(Error::Core(ndd_core::Error::corrupt_data(
                    "signatures of one run differ in length",
                )));
            }
            sigs.write(&bytes)?;
            for (band, &key) in band_keys.iter().enumerate() {
                let band = u16::try_from(band).map_err(|_| {
                    Error::Core(ndd_core::Error::invalid_parameter(
                        "bands",
                        "at most 65,536 bands are written to band-key files",
                    ))
                })?;
                keys.push(BandKeyRecord { doc, band, key })
                    .map_err(|e| damaged(dir, e))?;
            }
            if let (Some(pass), Some(digests)) = (&job.exact, &mut digests) {
                let digest = pass.digest_with(text, &mut digest_buf);
                digests
                    .push(DigestRecord { doc, digest })
                    .map_err(|e| damaged(dir, e))?;
            }
            if let Some(sets) = &mut sets {
                scratch.clear();
                signer.extract(text, &mut scratch);
                let set = FeatureSet::from_unsorted(std::mem::take(&mut scratch));
                set_bytes.clear();
                set_bytes.extend(set.as_slice().iter().flat_map(|v| v.to_le_bytes()));
                sets.push(&set_bytes, set.len() as u64)?;
                scratch = set.into_vec();
            }
            if let Some(kept) = &mut kept_texts {
                kept.push(text.as_bytes(), text.len() as u64)?;
            }
        }
        job.progress.advance(Stage::Sketch, texts.len() as u64);
    }
    job.progress.finish(Stage::Sketch);
    let runs = keys.finish().map_err(|e| damaged(dir, e))?;
    let digest_runs = match digests {
        Some(d) => d.finish().map_err(|e| damaged(dir, e))?.paths().to_vec(),
        None => Vec::new(),
    };
    let (mut bytes_written, signatures_sum) = sigs.finish()?;
    let mut checksums = vec![(SIGNATURES, signatures_sum)];
    if let Some(sets) = sets {
        bytes_written += sets.finish([SETS, SET_ENDS], &mut checksums)?;
    }
    if let Some(kept) = kept_texts {
        bytes_written += kept.finish([TEXTS, TEXT_ENDS], &mut checksums)?;
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

/// Reads a MinHash signature of `signatures.bin` by document position.
pub(super) struct Signatures {
    file: File,
    path: PathBuf,
    len: u64,
    buf: Vec<u8>,
}

impl Signatures {
    pub(super) fn open(dir: &Path, len: u64) -> Result<Self, Error> {
        let path = dir.join(SIGNATURES);
        let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        let buf = vec![0; usize::try_from(len).unwrap_or(0)];
        Ok(Signatures {
            file,
            path,
            len,
            buf,
        })
    }

    /// The bytes of document `doc`'s signature.
    fn bytes(&mut self, doc: u64) -> Result<&[u8], Error> {
        let at = doc
            .checked_mul(self.len)
            .ok_or_else(|| out_of_range(&self.path, doc))?;
        read_at(&mut self.file, &self.path, at, &mut self.buf)?;
        Ok(&self.buf)
    }

    /// Document `doc`'s MinHash signature (its checked byte form).
    pub(super) fn get(&mut self, doc: u64) -> Result<MinHashSignature, Error> {
        Ok(MinHashSignature::from_bytes(self.bytes(doc)?)?)
    }

    /// Document `doc`'s 64-bit SimHash fingerprint (eight bytes, little-endian).
    #[cfg(feature = "simhash")]
    pub(super) fn fingerprint(&mut self, doc: u64) -> Result<u64, Error> {
        let path = self.path.clone();
        let b: [u8; 8] = self.bytes(doc)?.try_into().map_err(|_| {
            Error::Core(ndd_core::Error::corrupt_data(format!(
                "{}: a fingerprint is not eight bytes",
                path.display()
            )))
        })?;
        Ok(u64::from_le_bytes(b))
    }
}

/// Reads the value of one document of a values file and its end offsets (see
/// [`IndexedOut`]) by document position.
struct Indexed {
    values: File,
    ends: File,
    values_path: PathBuf,
    ends_path: PathBuf,
    /// The values file's length: a corrupt offset cannot ask for more than it has.
    values_len: u64,
    /// Bytes per unit of the offsets.
    unit: u64,
}

impl Indexed {
    fn open(dir: &Path, names: [&str; 2], unit: u64) -> Result<Self, Error> {
        let values_path = dir.join(names[0]);
        let ends_path = dir.join(names[1]);
        let values = File::open(&values_path).map_err(|e| Error::io(&values_path, e))?;
        let ends = File::open(&ends_path).map_err(|e| Error::io(&ends_path, e))?;
        let values_len = values
            .metadata()
            .map_err(|e| Error::io(&values_path, e))?
            .len();
        Ok(Indexed {
            values,
            ends,
            values_path,
            ends_path,
            values_len,
            unit,
        })
    }

    /// Where document `doc`'s value lies in the values file: its start and its length,
    /// in bytes, checked against the file's length.
    fn span(&mut self, doc: u64) -> Result<(u64, u64), Error> {
        let mut b = [0u8; 8];
        let at = doc
            .checked_mul(8)
            .ok_or_else(|| out_of_range(&self.ends_path, doc))?;
        let start = if doc == 0 {
            0
        } else {
            read_at(&mut self.ends, &self.ends_path, at - 8, &mut b)?;
            u64::from_le_bytes(b)
        };
        read_at(&mut self.ends, &self.ends_path, at, &mut b)?;
        let end = u64::from_le_bytes(b);
        let unit = self.unit;
        end.checked_sub(start)
            .and_then(|n| n.checked_mul(unit))
            .zip(start.checked_mul(unit))
            .filter(|&(n, at)| at.saturating_add(n) <= self.values_len)
            .map(|(n, at)| (at, n))
            .ok_or_else(|| {
                Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: offsets {start}..{end} out of range",
                    self.ends_path.display()
                )))
            })
    }

    /// Document `doc`'s value's bytes.
    fn get(&mut self, doc: u64) -> Result<Vec<u8>, Error> {
        let (at, n) = self.span(doc)?;
        let mut buf = vec![0u8; usize::try_from(n).unwrap_or(0)];
        read_at(&mut self.values, &self.values_path, at, &mut buf)?;
        Ok(buf)
    }
}

/// Reads a shingle set of `sets.bin` by document position.
pub(super) struct Sets(Indexed);

impl Sets {
    pub(super) fn open(dir: &Path) -> Result<Self, Error> {
        Indexed::open(dir, [SETS, SET_ENDS], 8).map(Sets)
    }

    pub(super) fn get(&mut self, doc: u64) -> Result<FeatureSet, Error> {
        let values: Vec<u64> = self
            .0
            .get(doc)?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        Ok(FeatureSet::from_unsorted(values))
    }
}

/// Reads a document's text of `texts.bin` by document position.
pub(super) struct Texts(Indexed);

impl Texts {
    pub(super) fn open(dir: &Path) -> Result<Self, Error> {
        Indexed::open(dir, [TEXTS, TEXT_ENDS], 1).map(Texts)
    }

    /// The length of document `doc`'s text in bytes (what holding it costs).
    pub(super) fn len(&mut self, doc: u64) -> Result<u64, Error> {
        self.0.span(doc).map(|(_, n)| n)
    }

    pub(super) fn get(&mut self, doc: u64) -> Result<String, Error> {
        String::from_utf8(self.0.get(doc)?).map_err(|_| {
            Error::Core(ndd_core::Error::corrupt_data(format!(
                "{}: the text of document {doc} is not UTF-8",
                self.0.values_path.display()
            )))
        })
    }
}

/// A document position no work file can hold (a damaged pair file names it).
fn out_of_range(path: &Path, doc: u64) -> Error {
    Error::Core(ndd_core::Error::corrupt_data(format!(
        "{}: document {doc} is beyond any position the file can hold",
        path.display()
    )))
}

fn read_at(file: &mut File, path: &Path, at: u64, buf: &mut [u8]) -> Result<(), Error> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(at))
        .and_then(|_| file.read_exact(buf))
        .map_err(|e| Error::io(path, e))
}

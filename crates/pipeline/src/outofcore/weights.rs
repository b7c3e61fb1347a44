//! The weights stage (align-weighted only): the document frequencies of the corpus's
//! words, counted under the memory budget, for the weights the in-memory run builds
//! with [`CorpusWeights`] from every document it verifies among (the exact copies left
//! out, as in memory).
//!
//! Each document of `texts.bin` that is not an exact copy is tokenized as the
//! verifier tokenizes it; its distinct tokens, each with whether it is a number
//! somewhere in the document ([`CorpusWeights::document_tokens`]), go to runs sorted
//! by token (`tokens-*.bin`), which are merged into `weights.bin`: one record per
//! distinct token, in token order, an [`Edge`] record (16 bytes) with `a` the token
//! and `b` its document frequency, its top bit set for a number. Verification then
//! reads the weights of a block's tokens: the whole table when it fits in an eighth of
//! the budget, else the pages of the file that hold them.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use ndd_align::{CorpusWeights, TokenOptions, TokenWeights};
use ndd_scale::{Edge, HEADER_LEN, Record, RecordReader, RecordWriter};

use super::blocks::{block_text_bytes, map_in_order};
use super::exact::CopyBits;
use super::indexed::Texts;
use super::manifest::Marker;
use super::workdir::{checksum_key, trailer_checksum};
use super::{Job, damaged, file_size};
use crate::Error;
use crate::progress::Stage;

/// The stage's file of `(token, document frequency)` records.
pub(super) const WEIGHTS: &str = "weights.bin";

/// The bit of a record's `b` that marks a number.
const NUMBER: u64 = 1 << 63;

/// Records per page of `weights.bin` when only the pages a block needs are read
/// (64 KiB of records).
const PAGE_RECORDS: u64 = 4096;

/// Documents tokenized at once, at most (and at most a 32nd of the budget of text).
const CHUNK_DOCUMENTS: usize = 4 * crate::progress::CHUNK;

/// A word's count: `(token, document frequency, number)`.
type Count = (u64, u64, bool);

fn token_order(e: &Edge) -> (u64, u64) {
    (e.a, e.b)
}

/// Runs the stage over the `documents` of `texts.bin`: its marker (`tokens`: distinct
/// tokens; `counted`: documents counted; `bytes_written`; the checksum of
/// `weights.bin`) and the bytes it wrote (the sorted runs and `weights.bin`).
pub(super) fn run(
    job: &Job<'_>,
    documents: u64,
    exact_fingerprint: u64,
    fingerprint: u64,
) -> Result<(Marker, u64), Error> {
    let dir = job.dir;
    let texts = Texts::open(dir, job.budget / 8)?;
    let copies = CopyBits::load(job, documents, exact_fingerprint)?;
    let options = TokenOptions::default().nfkc(job.features.normalizes_nfkc());
    let mut sort = job.sort::<Edge, _>("tokens", token_order, job.budget / 2, fingerprint)?;
    let chunk_bytes = block_text_bytes(job.budget);
    job.progress.start(Stage::Weights, Some(documents));
    let (mut doc, mut counted) = (0u64, 0u64);
    let mut chunk: Vec<u64> = Vec::new();
    while doc < documents {
        let start = doc;
        chunk.clear();
        let mut held = 0u64;
        while doc < documents {
            if copies.is_copy(doc) {
                doc += 1;
                continue;
            }
            let n = texts.len(doc)?;
            let full = held.saturating_add(n) > chunk_bytes || chunk.len() == CHUNK_DOCUMENTS;
            if !chunk.is_empty() && full {
                break;
            }
            held = held.saturating_add(n);
            chunk.push(doc);
            doc += 1;
        }
        let read = texts.get_many(&chunk)?;
        let tokens = map_in_order(&read, |_, t| {
            Ok(CorpusWeights::document_tokens(&options.tokens(t)))
        })?;
        for (token, number) in tokens.into_iter().flatten() {
            sort.push(Edge {
                a: token,
                b: u64::from(number),
            })
            .map_err(|e| damaged(dir, e))?;
        }
        counted += chunk.len() as u64;
        job.progress.advance(Stage::Weights, doc - start);
    }
    let runs = sort.finish().map_err(|e| damaged(dir, e))?;
    let mut bytes_written = 0;
    for p in runs.paths() {
        bytes_written += file_size(p)?;
    }
    let path = dir.join(WEIGHTS);
    let mut out =
        RecordWriter::<Edge>::create(&path, fingerprint).map_err(|e| damaged(&path, e))?;
    let mut distinct = 0u64;
    // (token, document frequency, number) of the token being counted.
    let mut current: Option<Count> = None;
    let mut write = |c: Count| {
        distinct += 1;
        out.write(&encode(c)).map_err(|e| damaged(&path, e))
    };
    for r in runs.merge_to_end().map_err(|e| damaged(dir, e))? {
        let r = r.map_err(|e| damaged(dir, e))?;
        match &mut current {
            Some(c) if c.0 == r.a => {
                c.1 += 1;
                c.2 |= r.b != 0;
            }
            _ => {
                if let Some(c) = current.replace((r.a, 1, r.b != 0)) {
                    write(c)?;
                }
            }
        }
    }
    if let Some(c) = current {
        write(c)?;
    }
    out.finish().map_err(|e| damaged(&path, e))?;
    runs.remove().map_err(|e| damaged(dir, e))?;
    job.progress.finish(Stage::Weights);
    bytes_written += file_size(&path)?;
    let marker = Marker::default()
        .with("tokens", distinct)
        .with("counted", counted)
        .with("bytes_written", bytes_written)
        .with(
            &checksum_key(WEIGHTS),
            format!("{:016x}", trailer_checksum(&path)?),
        );
    Ok((marker, bytes_written))
}

/// A `weights.bin` record of `(token, document frequency, number)`.
fn encode((token, df, number): Count) -> Edge {
    Edge {
        a: token,
        b: df.min(!NUMBER) | if number { NUMBER } else { 0 },
    }
}

/// `(token, document frequency, number)` of a `weights.bin` record.
fn decode(e: Edge) -> Count {
    (e.a, e.b & !NUMBER, e.b & NUMBER != 0)
}

/// The weights of `weights.bin`, for verification: the whole table in memory, or the
/// file's pages read for the tokens of each block.
pub(super) enum Weights {
    Whole(TokenWeights),
    Paged(Pages),
}

/// `weights.bin` read a page at a time: the first token of each page in memory (8
/// bytes per [`PAGE_RECORDS`] records).
pub(super) struct Pages {
    file: File,
    path: PathBuf,
    records: u64,
    page: u64,
    firsts: Vec<u64>,
}

impl Weights {
    /// Opens `weights.bin` (checking its fingerprint and its checksum over the whole
    /// file): the whole table when its weights (16 bytes per token) fit in an eighth
    /// of the budget, else its pages of [`PAGE_RECORDS`].
    pub(super) fn open(job: &Job<'_>, fingerprint: u64) -> Result<Self, Error> {
        let (whole_bytes, page) = (job.budget / 8, PAGE_RECORDS);
        let path = job.dir.join(WEIGHTS);
        let reader = RecordReader::<Edge, _>::open(&path)
            .and_then(|r| r.expect_fingerprint(fingerprint))
            .map_err(|e| damaged(&path, e))?;
        let records = reader.len();
        let sorted = |prev: Option<u64>, token: u64| {
            if prev.is_some_and(|p| p >= token) {
                Err(Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: tokens out of order; remove the work directory to start over",
                    path.display()
                ))))
            } else {
                Ok(Some(token))
            }
        };
        let mut prev = None;
        if records.saturating_mul(16) <= whole_bytes {
            let mut counts = Vec::with_capacity(usize::try_from(records).unwrap_or(0));
            for r in reader {
                let c = decode(r.map_err(|e| damaged(&path, e))?);
                prev = sorted(prev, c.0)?;
                counts.push(c);
            }
            return Ok(Weights::Whole(CorpusWeights::weights_from_counts(counts)));
        }
        let mut firsts = Vec::new();
        for (i, r) in (0u64..).zip(reader) {
            let token = r.map_err(|e| damaged(&path, e))?.a;
            prev = sorted(prev, token)?;
            if i % page == 0 {
                firsts.push(token);
            }
        }
        let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Weights::Paged(Pages {
            file,
            path,
            records,
            page,
            firsts,
        }))
    }

    /// `f` of the weights of `tokens` (sorted, distinct; every one counted by the
    /// stage): the whole table, or a table of those tokens read from their pages.
    pub(super) fn with<R>(
        &self,
        tokens: &[u64],
        f: impl FnOnce(&TokenWeights) -> R,
    ) -> Result<R, Error> {
        match self {
            Weights::Whole(w) => Ok(f(w)),
            Weights::Paged(p) => Ok(f(&CorpusWeights::weights_from_counts(p.counts(tokens)?))),
        }
    }
}

impl Pages {
    /// The records of `tokens` (sorted, distinct), each page that holds one read once.
    fn counts(&self, tokens: &[u64]) -> Result<Vec<Count>, Error> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut loaded: Option<(usize, Vec<Count>)> = None;
        for &token in tokens {
            let missing = || {
                Error::Core(ndd_core::Error::corrupt_data(format!(
                    "{}: a token of a verified document is not counted; remove the work \
                     directory to start over",
                    self.path.display()
                )))
            };
            let i = self
                .firsts
                .partition_point(|&first| first <= token)
                .checked_sub(1)
                .ok_or_else(missing)?;
            let records = match &loaded {
                Some((at, records)) if *at == i => records,
                _ => &loaded.insert((i, self.read_page(i)?)).1,
            };
            let at = records
                .binary_search_by_key(&token, |c| c.0)
                .map_err(|_| missing())?;
            out.push(records[at]);
        }
        Ok(out)
    }

    /// The records of page `i`.
    fn read_page(&self, i: usize) -> Result<Vec<Count>, Error> {
        let size = Edge::KIND.record_size();
        let start = (i as u64).saturating_mul(self.page);
        let n = self.page.min(self.records.saturating_sub(start));
        let mut bytes = vec![0u8; usize::try_from(n).unwrap_or(0).saturating_mul(size)];
        let at = HEADER_LEN as u64 + start.saturating_mul(size as u64);
        let mut file = &self.file;
        file.seek(SeekFrom::Start(at))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|e| Error::io(&self.path, e))?;
        bytes
            .chunks_exact(size)
            .map(|b| {
                Edge::decode(b).map(decode).ok_or_else(|| {
                    Error::Core(ndd_core::Error::corrupt_data(format!(
                        "{}: a record cannot be read",
                        self.path.display()
                    )))
                })
            })
            .collect()
    }
}

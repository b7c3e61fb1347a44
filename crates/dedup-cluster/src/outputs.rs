//! The input as `ndd dedup` reads it (ndd-corpus), and worker 0's outputs written by
//! the rows of `ndd dedup` (`ndd_pipeline::outputs`): `--keep-out` (each kept
//! document's record as read), `--drop-out` (ids), `--pairs-out` and `--clusters-out`
//! (TSV with a header line).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use ndd_pipeline::Document;
use ndd_pipeline::corpus::{Accepted, FolderReader, JsonlReader, ReadOptions};
use ndd_pipeline::outputs::{self, DocRow, Format, OutputKind};

use crate::args::Args;

/// The accepted documents of a JSONL file or a folder, in the order and with the
/// positions `ndd dedup` gives them.
pub(crate) enum Reader {
    Jsonl(Box<Accepted<JsonlReader<Box<dyn BufRead + Send>>>>),
    Folder(Box<Accepted<FolderReader>>),
}

impl Reader {
    pub(crate) fn open(path: &Path, options: &ReadOptions) -> Result<Self, String> {
        let fail = |e: ndd_pipeline::corpus::Error| format!("{}: {e}", path.display());
        Ok(if path.is_dir() {
            let r = FolderReader::new(path, options).map_err(fail)?;
            Reader::Folder(Box::new(
                Accepted::new(r, options).with_location(FolderReader::location),
            ))
        } else {
            let r = JsonlReader::open(path, options).map_err(fail)?;
            Reader::Jsonl(Box::new(
                Accepted::new(r, options).with_location(JsonlReader::location),
            ))
        })
    }

    /// The next accepted document; bad lines and files are skipped or stop the read
    /// as the options' error policy says.
    pub(crate) fn next_doc(&mut self) -> Result<Option<Document>, String> {
        let next = match self {
            Reader::Jsonl(r) => r.next(),
            Reader::Folder(r) => r.next(),
        };
        next.transpose().map_err(|e| e.to_string())
    }

    /// The line of the document last read (JSONL).
    fn line(&self) -> Option<u64> {
        match self {
            Reader::Jsonl(r) => Some(r.reader().lines()),
            Reader::Folder(_) => None,
        }
    }

    /// The problems met, as warnings on stderr (the tool's wording).
    pub(crate) fn report_problems(&self) {
        let (problems, rejected) = match self {
            Reader::Jsonl(r) => (r.problems(), r.rejected()),
            Reader::Folder(r) => (r.problems(), r.rejected()),
        };
        for p in problems.iter().take(20) {
            eprintln!("warning: {p} (skipped)");
        }
        if rejected > 20 {
            eprintln!("warning: {} more lines or files skipped", rejected - 20);
        }
    }
}

/// Differential's updates summed: each value with a positive total, sorted.
pub(crate) fn consolidate<D: Ord + Copy>(updates: &[(D, isize)]) -> Vec<D> {
    let mut sorted = updates.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<D> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let value = sorted[i].0;
        let mut total = 0;
        while i < sorted.len() && sorted[i].0 == value {
            total += sorted[i].1;
            i += 1;
        }
        if total > 0 {
            out.push(value);
        }
    }
    out
}

/// The raw lines of a JSONL file (plain or gzip), read forward: the record of a
/// line number without its line end (nor the byte order mark of line 1), as
/// `ndd dedup` copies it.
struct Lines {
    reader: Box<dyn BufRead>,
    at: u64,
    buf: Vec<u8>,
}

impl Lines {
    fn open(path: &Path) -> Result<Self, String> {
        let fail = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut file = BufReader::new(File::open(path).map_err(fail)?);
        let reader: Box<dyn BufRead> = if file.fill_buf().map_err(fail)?.starts_with(&[0x1f, 0x8b])
        {
            Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(file)))
        } else {
            Box::new(file)
        };
        Ok(Lines {
            reader,
            at: 0,
            buf: Vec::new(),
        })
    }

    fn record(&mut self, line: u64) -> Result<&[u8], String> {
        while self.at < line {
            self.buf.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err(format!("line {line} is missing (the input changed?)"));
            }
            self.at += 1;
        }
        // Only the line end goes, as `ndd dedup` copies records: spaces and tabs
        // after the object are the record's own bytes.
        Ok(ndd_pipeline::corpus::line_record(&self.buf, line))
    }
}

/// One output being written under a temporary name beside its final path.
struct Pending {
    path: PathBuf,
    tmp: PathBuf,
    w: BufWriter<File>,
}

impl Pending {
    fn create(path: &Path, header: &[u8]) -> Result<Self, String> {
        let name = path
            .file_name()
            .map_or_else(|| "output".to_owned(), |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let mut p = Pending {
            path: path.to_path_buf(),
            tmp,
            w: BufWriter::new(file),
        };
        p.put(header)?;
        Ok(p)
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.w
            .write_all(bytes)
            .map_err(|e| format!("{}: {e}", self.tmp.display()))
    }

    /// Writes the row of a document to this `kind` of file, as `ndd dedup` does.
    fn document(&mut self, kind: OutputKind, row: &DocRow<'_>) -> Result<(), String> {
        outputs::write_document(&mut self.w, kind, Format::Tsv, row)
            .map_err(|e| format!("{}: {e}", self.tmp.display()))
    }

    fn finish(mut self) -> Result<(PathBuf, PathBuf), String> {
        let fail = |e: std::io::Error| format!("{}: {e}", self.tmp.display());
        self.w.flush().map_err(fail)?;
        self.w.get_ref().sync_all().map_err(fail)?;
        Ok((self.tmp, self.path))
    }
}

/// What the outputs hold, for the summary.
pub(crate) struct Summary {
    pub(crate) documents: u64,
    pub(crate) kept: u64,
    pub(crate) pairs: u64,
    pub(crate) groups: u64,
}

/// The outputs written under temporary names, to be renamed by [`Written::commit`].
pub(crate) struct Written {
    files: Vec<(PathBuf, PathBuf)>,
    summary: Summary,
}

impl Written {
    /// Moves every output into place.
    pub(crate) fn commit(self) -> Result<Summary, String> {
        for (tmp, path) in &self.files {
            std::fs::rename(tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(self.summary)
    }
}

/// Worker 0's outputs: the input read again beside the labels (`(doc, label)` of
/// every document not labelled by itself, sorted) and the pairs (sorted by
/// positions), as `ndd dedup` writes them.
pub(crate) fn write(
    args: &Args,
    pairs: &[crate::ScoredPair],
    labels: &[(u64, u64)],
) -> Result<Written, String> {
    let open =
        |p: &Option<PathBuf>, header: &[u8]| p.as_deref().map(|p| Pending::create(p, header));
    let header = |kind| outputs::header(kind, Format::Tsv);
    let mut keep = open(&args.keep_out, header(OutputKind::Keep)).transpose()?;
    let mut drop = open(&args.drop_out, header(OutputKind::Drop)).transpose()?;
    let mut clusters = open(&args.clusters_out, header(OutputKind::Clusters)).transpose()?;
    let mut pair_file = open(&args.pairs_out, header(OutputKind::Pairs)).transpose()?;
    let mut ids: HashMap<u64, String> = HashMap::new();
    if pair_file.is_some() {
        for &(a, b, _) in pairs {
            ids.insert(a, String::new());
            ids.insert(b, String::new());
        }
    }
    let mut lines = match &keep {
        Some(_) if args.input.is_file() => Some(Lines::open(&args.input)?),
        _ => None,
    };
    let mut reader = Reader::open(&args.input, &args.read)?;
    let mut next_label = labels.iter().peekable();
    let (mut pos, mut kept, mut groups) = (0u64, 0u64, 0u64);
    let mut reps: Vec<u64> = labels.iter().map(|&(_, l)| l).collect();
    reps.sort_unstable();
    reps.dedup();
    groups += reps.len() as u64;
    while let Some(doc) = reader.next_doc()? {
        let label = match next_label.peek() {
            Some(&&(d, l)) if d == pos => {
                next_label.next();
                l
            }
            _ => pos,
        };
        if let Some(id) = ids.get_mut(&pos) {
            id.clone_from(&doc.id);
        }
        let row = DocRow::new(&doc.id, &doc.text, label == pos).cluster(label);
        if row.kept {
            kept += 1;
            if let Some(out) = &mut keep {
                match (&mut lines, reader.line()) {
                    (Some(lines), Some(line)) => {
                        let record = lines.record(line)?;
                        out.document(OutputKind::Keep, &row.record(record, Some(line)))?;
                    }
                    _ => out.document(OutputKind::Keep, &row)?,
                }
            }
        } else if let Some(out) = &mut drop {
            out.document(OutputKind::Drop, &row)?;
        }
        if let Some(out) = &mut clusters {
            out.document(OutputKind::Clusters, &row)?;
        }
        pos += 1;
    }
    if let Some(out) = &mut pair_file {
        let id = |p: u64| ids.get(&p).map_or("", String::as_str);
        for &(a, b, bits) in pairs {
            let score = f64::from_bits(bits);
            outputs::write_pair(&mut out.w, Format::Tsv, id(a), id(b), score)
                .map_err(|e| format!("{}: {e}", out.tmp.display()))?;
        }
    }
    let mut files = Vec::new();
    for p in [keep, drop, clusters, pair_file].into_iter().flatten() {
        files.push(p.finish()?);
    }
    Ok(Written {
        files,
        summary: Summary {
            documents: pos,
            kept,
            pairs: pairs.len() as u64,
            groups,
        },
    })
}

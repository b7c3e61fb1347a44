//! The tool's one output layer: every engine (in memory, saved index, Bloom filters,
//! out of core) hands its documents and pairs to [`Writers`], which writes each
//! output file under a temporary name. How a record, an id, a pair or a cluster is
//! spelled in TSV or JSONL is [`ndd_pipeline::outputs`]'s, so that every program that
//! writes these files (the distributed example too) writes the same bytes.

use std::io::{self, Write};

use clap::ValueEnum;
use ndd_pipeline::outputs::{self, OutputKind, RowError};

use ndd_pipeline::corpus::{RecordWriter, Shard};

use crate::error::CliError;
use crate::files::{Output, Pending, Ready, Target};

/// `--format`: how `--pairs-out` and `--clusters-out` are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Tab-separated values with a header line.
    Tsv,
    /// One JSON object per line.
    Jsonl,
}

pub(crate) use ndd_pipeline::outputs::{Annotation, DocRow, round6, tsv_unescape};

impl Format {
    /// The pipeline's spelling of the same format.
    fn rows(self) -> outputs::Format {
        match self {
            Format::Tsv => outputs::Format::Tsv,
            Format::Jsonl => outputs::Format::Jsonl,
        }
    }
}

/// The pipeline's output file of `output`, when its rows are written by
/// [`ndd_pipeline::outputs`].
fn row_kind(output: Output) -> Option<OutputKind> {
    Some(match output {
        Output::Keep => OutputKind::Keep,
        Output::Annotate => OutputKind::Annotate,
        Output::Drop => OutputKind::Drop,
        Output::Pairs => OutputKind::Pairs,
        Output::Clusters => OutputKind::Clusters,
        _ => return None,
    })
}

/// The outputs of a run being written: each target's temporary file, fed row by row.
pub(crate) struct Writers<'t> {
    files: Vec<(&'t Target, Pending)>,
    format: Format,
    /// Records of a Parquet or zstd input, copied in their own format.
    shards: Option<ShardCopy>,
}

/// Records copied by ndd-corpus's [`RecordWriter`]: where each document's record is,
/// and a writer per `--keep-out`, `--annotate-out` or `--out` target (by index in
/// `files`).
struct ShardCopy {
    shards: Vec<Shard>,
    lines: Vec<u64>,
    /// Documents given to [`Writers::document`] so far.
    seen: usize,
    /// The shard of the last document located, and the documents of the shards
    /// before it.
    shard: usize,
    before: usize,
    writers: Vec<(usize, RecordWriter<io::BufWriter<std::fs::File>>)>,
}

impl ShardCopy {
    /// The shard and line of the record of the document at `index` in corpus order;
    /// indexes are asked for in increasing order.
    fn at(&mut self, index: usize) -> Option<(usize, u64)> {
        while self
            .shards
            .get(self.shard)
            .is_some_and(|s| index >= self.before + s.documents)
        {
            self.before += self.shards[self.shard].documents;
            self.shard += 1;
        }
        let line = self.lines.get(index).copied()?;
        Some((self.shard, line))
    }
}

impl<'t> Writers<'t> {
    /// Starts writing `targets` (each to a temporary file), the TSV header lines
    /// first.
    pub(crate) fn create(
        targets: impl IntoIterator<Item = &'t Target>,
        format: Format,
    ) -> Result<Self, CliError> {
        let mut files = Vec::new();
        for t in targets {
            let mut pending = Pending::create(&t.path)?;
            let header = row_kind(t.output).map_or(&b""[..], |k| outputs::header(k, format.rows()));
            pending
                .writer()
                .write_all(header)
                .map_err(|e| CliError::output(&t.path, e))?;
            files.push((t, pending));
        }
        Ok(Writers {
            files,
            format,
            shards: None,
        })
    }

    /// Copies `--keep-out` and `--annotate-out` records (and `--out`'s edited ones)
    /// of a Parquet or zstd input (a file or a folder of shards) or of a folder of
    /// JSON Lines shards with ndd-corpus's writer, in their format: a Parquet file
    /// with every column of the input, zstd-compressed JSON Lines, or JSON Lines (a
    /// gzip shard's records too, as a gzip file's are). Nothing changes for a JSON
    /// Lines file or standard input, whose records `input` names. Documents are
    /// then given to [`document`](Self::document) or [`edited`](Self::edited) in
    /// corpus order.
    pub(crate) fn copy_shards(&mut self, input: &crate::input::Input) -> Result<(), CliError> {
        let corpus = &input.corpus;
        let Some(format) = corpus.shards.first().map(|s| s.format) else {
            return Ok(());
        };
        if input.records.is_some() {
            return Ok(());
        }
        let mut writers = Vec::new();
        for (i, (t, p)) in self.files.iter().enumerate() {
            if matches!(t.output, Output::Keep | Output::Annotate | Output::Out) {
                let file = p.file().map_err(|e| CliError::output(&t.path, e))?;
                let w = RecordWriter::new(format, io::BufWriter::with_capacity(1 << 16, file))?;
                writers.push((i, w));
            }
        }
        self.shards = Some(ShardCopy {
            shards: corpus.shards.clone(),
            lines: corpus.lines.clone(),
            seen: 0,
            shard: 0,
            before: 0,
            writers,
        });
        Ok(())
    }

    /// Whether an output copies records (`--keep-out`, `--annotate-out`), so the
    /// engine has to read them again.
    pub(crate) fn wants_records(&self) -> bool {
        self.wants(Output::Keep) || self.wants(Output::Annotate)
    }

    /// Whether an output is written row by row from the documents
    /// ([`document`](Self::document) writes nothing otherwise, and the engine may skip
    /// the loop that fills the rows).
    pub(crate) fn wants_documents(&self) -> bool {
        self.files
            .iter()
            .any(|(t, _)| row_kind(t.output).is_some_and(|k| k != OutputKind::Pairs))
            || self.shards.as_ref().is_some_and(|s| !s.writers.is_empty())
    }

    /// Whether `output` is written.
    pub(crate) fn wants(&self, output: Output) -> bool {
        self.files.iter().any(|(t, _)| t.output == output)
    }

    /// Writes one document to `--keep-out` (its record unchanged, or `{"id",
    /// "text"}`), `--annotate-out`, `--drop-out` and `--clusters-out`.
    pub(crate) fn document(&mut self, d: &DocRow<'_>) -> Result<(), CliError> {
        let format = self.format.rows();
        let mut shards = self.shards.as_mut();
        let at = shards.as_mut().and_then(|s| {
            s.seen += 1;
            s.at(s.seen - 1)
        });
        for (i, (t, p)) in self.files.iter_mut().enumerate() {
            // The one point where a Parquet or zstd record is copied.
            if let (Some(s), Some((shard, line))) = (shards.as_mut(), at) {
                if let Some((_, w)) = s.writers.iter_mut().find(|(k, _)| *k == i) {
                    let fields = match (t.output, &d.annotation) {
                        (Output::Keep, _) if d.kept => serde_json::Map::new(),
                        (Output::Annotate, Some(a)) => outputs::annotation_fields(d, a),
                        _ => continue,
                    };
                    w.copy(&s.shards[shard], line, &fields)?;
                    continue;
                }
            }
            let Some(kind) = row_kind(t.output) else {
                continue;
            };
            outputs::write_document(p.writer(), kind, format, d).map_err(|e| match e {
                RowError::Io(e) => CliError::output(&t.path, e),
                RowError::Record(m) => CliError::Input(m),
            })?;
        }
        Ok(())
    }

    /// Writes one edited document, the `index`-th of the corpus, to `output`: its
    /// record with the text field (`text_field`, a name or a JSON pointer) replaced
    /// by `text` and every other byte kept (a Parquet row with every other column,
    /// when [`copy_shards`](Self::copy_shards) copies the input's records), or `{"id",
    /// "text"}` for a folder's document.
    pub(crate) fn edited(
        &mut self,
        output: Output,
        index: usize,
        d: &DocRow<'_>,
        text: &str,
        text_field: &str,
    ) -> Result<(), CliError> {
        let Some(i) = self.files.iter().position(|(t, _)| t.output == output) else {
            return Ok(());
        };
        if let Some(s) = self.shards.as_mut() {
            if let (Some((shard, line)), Some((_, w))) =
                (s.at(index), s.writers.iter_mut().find(|(k, _)| *k == i))
            {
                // The one point where an edited Parquet or shard record is copied.
                w.copy_edited(&s.shards[shard], line, text_field, text)?;
                return Ok(());
            }
        }
        let (t, p) = &mut self.files[i];
        edited_record(p.writer(), &t.path, d, text, text_field)
    }

    /// Writes one pair to `--pairs-out`: `id_a<TAB>id_b<TAB>score` or JSONL.
    pub(crate) fn pair(&mut self, a: &str, b: &str, score: f64) -> Result<(), CliError> {
        let format = self.format.rows();
        for (t, p) in &mut self.files {
            if t.output == Output::Pairs {
                outputs::write_pair(p.writer(), format, a, b, score)
                    .map_err(|e| CliError::output(&t.path, e))?;
            }
        }
        Ok(())
    }

    /// Writes the whole of `output` (a saved index or filter, `--explain-out`) with
    /// `write`.
    pub(crate) fn whole(
        &mut self,
        output: Output,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), CliError> {
        match self.files.iter_mut().find(|(t, _)| t.output == output) {
            Some((t, p)) => write(p.writer()).map_err(|e| CliError::output(&t.path, e)),
            None => Ok(()),
        }
    }

    /// Flushes and syncs every file; [`commit`] moves them into place.
    pub(crate) fn finish(self) -> Result<Vec<Ready>, CliError> {
        for (i, w) in self.shards.into_iter().flat_map(|s| s.writers) {
            let path = &self.files[i].0.path;
            w.finish()?
                .into_inner()
                .map_err(|e| CliError::output(path, e.into_error()))?;
        }
        self.files.into_iter().map(|(_, p)| p.finish()).collect()
    }
}

/// Writes `d`'s record to `w` (the output `path`) with its text field (`text_field`,
/// a name or a JSON pointer) replaced by `text` and every other byte kept, or
/// `{"id", "text"}` for a folder's document, and a line end: the JSONL copy of
/// [`Writers::edited`] and of `ndd substrings --out`.
pub(crate) fn edited_record(
    w: &mut impl Write,
    path: &std::path::Path,
    d: &DocRow<'_>,
    text: &str,
    text_field: &str,
) -> Result<(), CliError> {
    let io = |e: io::Error| CliError::output(path, e);
    match d.record {
        Some(record) => {
            let line = d.line.unwrap_or(0);
            let record = std::str::from_utf8(record).map_err(|_| {
                CliError::Input(format!(
                    "line {line}: the record is not UTF-8 (read with --encoding); it \
                     cannot be written back with its text replaced"
                ))
            })?;
            let edited = ndd_pipeline::corpus::with_text(record, text_field, text)
                .map_err(|e| CliError::Input(format!("line {line}: {e}")))?;
            w.write_all(edited.as_bytes()).map_err(io)?;
        }
        None => {
            let value = serde_json::json!({ "id": d.id, "text": text });
            serde_json::to_writer(&mut *w, &value).map_err(|e| io(e.into()))?;
        }
    }
    w.write_all(b"\n").map_err(io)
}

/// Moves every finished output into place, once the input is known to be the one
/// the run read ([`crate::input::input_unchanged`]).
pub(crate) fn commit(ready: Vec<Ready>) -> Result<(), CliError> {
    crate::input::input_unchanged()?;
    crate::files::commit_all(ready)
}

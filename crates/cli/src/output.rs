//! The tool's one output layer: every engine (in memory, saved index, Bloom filters,
//! out of core) hands its documents and pairs to [`Writers`], which writes each
//! output file under a temporary name. How a record, an id, a pair or a cluster is
//! spelled in TSV or JSONL is [`ndd_pipeline::outputs`]'s, so that every program that
//! writes these files (the distributed example too) writes the same bytes.

use std::io::{self, Write};

use clap::ValueEnum;
use ndd_pipeline::outputs::{self, OutputKind, RowError};

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
        Ok(Writers { files, format })
    }

    /// Whether an output copies records (`--keep-out`, `--annotate-out`), so the
    /// engine has to read them again.
    pub(crate) fn wants_records(&self) -> bool {
        self.wants(Output::Keep) || self.wants(Output::Annotate)
    }

    /// Whether `output` is written.
    pub(crate) fn wants(&self, output: Output) -> bool {
        self.files.iter().any(|(t, _)| t.output == output)
    }

    /// Writes one document to `--keep-out` (its record unchanged, or `{"id",
    /// "text"}`), `--annotate-out`, `--drop-out` and `--clusters-out`.
    pub(crate) fn document(&mut self, d: &DocRow<'_>) -> Result<(), CliError> {
        let format = self.format.rows();
        for (t, p) in &mut self.files {
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

    /// Writes one edited document to `output`: its record with the text field
    /// (`text_field`, a name or a JSON pointer) replaced by `text` and every other
    /// byte kept, or `{"id", "text"}` for a folder's document.
    pub(crate) fn edited(
        &mut self,
        output: Output,
        d: &DocRow<'_>,
        text: &str,
        text_field: &str,
    ) -> Result<(), CliError> {
        let Some((t, p)) = self.files.iter_mut().find(|(t, _)| t.output == output) else {
            return Ok(());
        };
        let io = |e: io::Error| CliError::output(&t.path, e);
        let w = p.writer();
        match d.record {
            Some(record) => {
                let line = d.line.unwrap_or(0);
                let record = std::str::from_utf8(record).map_err(|_| {
                    CliError::Input(format!(
                        "line {line}: the record is not UTF-8 (read with --encoding); it                          cannot be written back with its text replaced"
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
        self.files.into_iter().map(|(_, p)| p.finish()).collect()
    }
}

/// Moves every finished output into place, once the input is known to be the one
/// the run read ([`crate::input::input_unchanged`]).
pub(crate) fn commit(ready: Vec<Ready>) -> Result<(), CliError> {
    crate::input::input_unchanged()?;
    crate::files::commit_all(ready)
}

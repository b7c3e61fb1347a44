//! The tool's one output layer: what each output file holds, row by row, in each
//! format. Every engine (in memory, saved index, Bloom filters, out of core) hands
//! its documents and pairs to [`Writers`]; only this file knows how a record, an id,
//! a pair or a cluster is spelled in TSV or JSONL, so a new format is added here.

use std::io::{self, Write};

use clap::ValueEnum;

use ndd_pipeline::corpus::{RecordFormat, RecordWriter, Shard};

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

/// `x` rounded to six decimals: the precision of scores in JSON outputs (the TSV
/// form prints six).
pub(crate) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// One document of the input, in input order, with what the run decided for it.
pub(crate) struct DocRow<'a> {
    /// Its id.
    pub(crate) id: &'a str,
    /// Its text.
    pub(crate) text: &'a str,
    /// Its JSONL record as read (`None` for a folder's document, or when
    /// [`Writers::wants_records`] said no).
    pub(crate) record: Option<&'a [u8]>,
    /// Its line in the input (for messages about its record).
    pub(crate) line: Option<u64>,
    /// Whether it is kept.
    pub(crate) kept: bool,
    /// Its cluster: the collection position of the document kept for its group
    /// (`None` where the engine makes no groups).
    pub(crate) cluster: Option<u64>,
    /// What `--annotate-out` adds (`None` where the engine does not know it).
    pub(crate) annotation: Option<Annotation<'a>>,
}

/// What `--annotate-out` adds to a record.
pub(crate) struct Annotation<'a> {
    /// The id of the document kept for its group.
    pub(crate) group: &'a str,
    /// Why it is kept or dropped (unique, kept, exact, near).
    pub(crate) reason: &'a str,
}

/// The outputs of a run being written: each target's temporary file, fed row by row.
pub(crate) struct Writers<'t> {
    files: Vec<(&'t Target, Pending)>,
    format: Format,
    /// Records of a Parquet or zstd input, copied in their own format.
    shards: Option<ShardCopy>,
}

/// Records copied by ndd-corpus's [`RecordWriter`]: where each document's record is,
/// and a writer per `--keep-out` or `--annotate-out` target (by index in `files`).
struct ShardCopy {
    shards: Vec<Shard>,
    lines: Vec<u64>,
    /// Documents written so far, and the shard of the next one with how many of
    /// its documents were written.
    seen: usize,
    shard: usize,
    in_shard: usize,
    writers: Vec<(usize, RecordWriter<io::BufWriter<std::fs::File>>)>,
}

impl ShardCopy {
    /// The shard and line of the next document's record, advancing.
    fn next(&mut self) -> Option<(usize, u64)> {
        while self
            .shards
            .get(self.shard)
            .is_some_and(|s| self.in_shard >= s.documents)
        {
            self.shard += 1;
            self.in_shard = 0;
        }
        let line = self.lines.get(self.seen).copied()?;
        self.seen += 1;
        self.in_shard += 1;
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
            let header: &[u8] = match (t.output, format) {
                (Output::Pairs, Format::Tsv) => b"id_a\tid_b\tscore\n",
                (Output::Clusters, Format::Tsv) => b"id\tcluster\n",
                _ => b"",
            };
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

    /// Copies `--keep-out` and `--annotate-out` records of a Parquet or zstd input
    /// (a file or a folder of shards) with ndd-corpus's writer, in their format: a
    /// Parquet file with every column of the input, zstd-compressed JSON Lines.
    /// Nothing changes for other inputs. Documents are then given to
    /// [`document`](Self::document) in corpus order.
    pub(crate) fn copy_shards(&mut self, corpus: &ndd_pipeline::Corpus) -> Result<(), CliError> {
        let Some(format) = corpus.shards.first().map(|s| s.format) else {
            return Ok(());
        };
        if matches!(format, RecordFormat::Jsonl | RecordFormat::JsonlGzip) {
            return Ok(());
        }
        let mut writers = Vec::new();
        for (i, (t, p)) in self.files.iter().enumerate() {
            if matches!(t.output, Output::Keep | Output::Annotate) {
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
            in_shard: 0,
            writers,
        });
        Ok(())
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
        let format = self.format;
        let mut shards = self.shards.as_mut();
        let at = shards.as_mut().and_then(|s| s.next());
        for (i, (t, p)) in self.files.iter_mut().enumerate() {
            let io = |e: io::Error| CliError::output(&t.path, e);
            // The one point where a Parquet or zstd record is copied.
            if let (Some(s), Some((shard, line))) = (shards.as_mut(), at) {
                if let Some((_, w)) = s.writers.iter_mut().find(|(k, _)| *k == i) {
                    let fields = match (t.output, &d.annotation) {
                        (Output::Keep, _) if d.kept => serde_json::Map::new(),
                        (Output::Annotate, Some(a)) => annotation_fields(d, a),
                        _ => continue,
                    };
                    w.copy(&s.shards[shard], line, &fields)?;
                    continue;
                }
            }
            let w = p.writer();
            match t.output {
                Output::Keep if d.kept => {
                    record(w, d, None).map_err(|e| e.into_cli(&t.path))?;
                }
                Output::Annotate => {
                    let Some(a) = &d.annotation else { continue };
                    let fields = serde_json::Value::Object(annotation_fields(d, a));
                    record(w, d, Some(fields)).map_err(|e| e.into_cli(&t.path))?;
                }
                Output::Drop if !d.kept => {
                    tsv_field(w, d.id).map_err(io)?;
                    w.write_all(b"\n").map_err(io)?;
                }
                Output::Clusters => {
                    let Some(cluster) = d.cluster else { continue };
                    match format {
                        Format::Tsv => {
                            tsv_field(w, d.id).map_err(io)?;
                            writeln!(w, "\t{cluster}").map_err(io)?;
                        }
                        Format::Jsonl => {
                            let line = serde_json::json!({ "id": d.id, "cluster": cluster });
                            json_line(w, &line).map_err(io)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Writes one pair to `--pairs-out`: `id_a<TAB>id_b<TAB>score` or JSONL.
    pub(crate) fn pair(&mut self, a: &str, b: &str, score: f64) -> Result<(), CliError> {
        let format = self.format;
        for (t, p) in &mut self.files {
            if t.output != Output::Pairs {
                continue;
            }
            let io = |e: io::Error| CliError::output(&t.path, e);
            let w = p.writer();
            match format {
                Format::Tsv => {
                    tsv_field(w, a).map_err(io)?;
                    w.write_all(b"\t").map_err(io)?;
                    tsv_field(w, b).map_err(io)?;
                    writeln!(w, "\t{score:.6}").map_err(io)?;
                }
                Format::Jsonl => {
                    let line = serde_json::json!({ "id_a": a, "id_b": b, "score": round6(score) });
                    json_line(w, &line).map_err(io)?;
                }
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

/// Moves every finished output into place, once the input is known to be the one
/// the run read ([`crate::input::input_unchanged`]).
pub(crate) fn commit(ready: Vec<Ready>) -> Result<(), CliError> {
    crate::input::input_unchanged()?;
    crate::files::commit_all(ready)
}

/// What `--annotate-out` adds to a record, as members.
fn annotation_fields(
    d: &DocRow<'_>,
    a: &Annotation<'_>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut fields = serde_json::Map::new();
    fields.insert("ndd_group".into(), a.group.into());
    fields.insert("ndd_kept".into(), d.kept.into());
    fields.insert("ndd_reason".into(), a.reason.into());
    fields
}

/// `value` as one JSON line.
fn json_line(w: &mut impl Write, value: &serde_json::Value) -> io::Result<()> {
    serde_json::to_writer(&mut *w, value)?;
    w.write_all(b"\n")
}

/// Why a record could not be written.
enum RecordError {
    Io(io::Error),
    /// The record cannot take the annotation (exit status 1, as bad input).
    Record(String),
}

impl RecordError {
    fn into_cli(self, path: &std::path::Path) -> CliError {
        match self {
            RecordError::Io(e) => CliError::output(path, e),
            RecordError::Record(m) => CliError::Input(m),
        }
    }
}

/// The record of `d` (its own bytes, or `{"id", "text"}` for a folder's document),
/// with the members of `fields` appended, and a line end.
fn record(
    w: &mut impl Write,
    d: &DocRow<'_>,
    fields: Option<serde_json::Value>,
) -> Result<(), RecordError> {
    match (d.record, &fields) {
        (Some(record), None) => w.write_all(record).map_err(RecordError::Io)?,
        (Some(record), Some(fields)) => {
            let joined = with_fields(record, fields)
                .map_err(|m| RecordError::Record(format!("line {}: {m}", d.line.unwrap_or(0))))?;
            w.write_all(&joined).map_err(RecordError::Io)?;
        }
        (None, _) => {
            let mut value = serde_json::json!({ "id": d.id, "text": d.text });
            if let (Some(obj), Some(serde_json::Value::Object(extra))) =
                (value.as_object_mut(), fields)
            {
                obj.extend(extra);
            }
            serde_json::to_writer(&mut *w, &value).map_err(|e| RecordError::Io(e.into()))?;
        }
    }
    w.write_all(b"\n").map_err(RecordError::Io)
}

/// `record` (one JSON object) with the members of `fields` appended, the record's
/// own bytes unchanged. A record that already has one of the fields is refused
/// rather than given a duplicate key.
fn with_fields(record: &[u8], fields: &serde_json::Value) -> Result<Vec<u8>, String> {
    let keys: std::collections::BTreeMap<String, serde::de::IgnoredAny> =
        serde_json::from_slice(record).map_err(|e| format!("not a JSON object: {e}"))?;
    let serde_json::Value::Object(extra) = fields else {
        return Err("annotations are not an object".into());
    };
    if let Some(k) = extra.keys().find(|k| keys.contains_key(*k)) {
        return Err(format!(
            "the record already has a field {k:?}; --annotate-out would hide it"
        ));
    }
    let end = record
        .iter()
        .rposition(|&b| b == b'}')
        .ok_or("not a JSON object")?;
    let mut joined = record[..end].to_vec();
    for (n, (k, v)) in extra.iter().enumerate() {
        if n > 0 || !keys.is_empty() {
            joined.push(b',');
        }
        joined.extend(serde_json::to_vec(k).map_err(|e| e.to_string())?);
        joined.push(b':');
        joined.extend(serde_json::to_vec(v).map_err(|e| e.to_string())?);
    }
    joined.extend_from_slice(&record[end..]);
    Ok(joined)
}

/// Writes `s` as a TSV field: backslash, tab, newline and carriage return escaped as
/// `\\`, `\t`, `\n` and `\r`, so that every row has its fields on one line.
pub(crate) fn tsv_field(out: &mut impl Write, s: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: &[u8] = match b {
            b'\\' => b"\\\\",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            _ => continue,
        };
        out.write_all(&s.as_bytes()[start..i])?;
        out.write_all(esc)?;
        start = i + 1;
    }
    out.write_all(&s.as_bytes()[start..])
}

/// A TSV field as [`tsv_field`] wrote it, unescaped; a backslash before any other
/// character (or at the end) is kept as it is.
pub(crate) fn tsv_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            _ => {
                out.push('\\');
                continue;
            }
        }
        chars.next();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escaping undone by the rule it documents gives the id back.
    #[test]
    fn tsv_fields_round_trip_and_stay_on_one_line() {
        let unescape = tsv_unescape;
        assert_eq!(tsv_unescape("a\\x\\"), "a\\x\\");
        for id in [
            "plain",
            "a\tb",
            "line\nbreak\r\n",
            "back\\slash\\t",
            "",
            "é\t漢",
        ] {
            let mut buf = Vec::new();
            tsv_field(&mut buf, id).unwrap();
            let s = String::from_utf8(buf).unwrap();
            assert!(!s.contains(['\t', '\n', '\r']), "{s:?}");
            assert_eq!(unescape(&s), id);
        }
    }

    /// The joined record parses to the record's members plus the fields, in order.
    #[test]
    fn fields_are_appended_to_any_object() {
        let fields = serde_json::json!({ "ndd_group": "a", "ndd_kept": true });
        for record in [
            r#"{"id": "a", "text": "x"}"#,
            "{}",
            "  { }  ",
            r#"{"nested": {"b": [1, {"c": "}"}]}, "t": "}"}"#,
        ] {
            let joined = with_fields(record.as_bytes(), &fields).unwrap();
            let parsed: serde_json::Value = serde_json::from_slice(&joined).unwrap();
            let mut expected: serde_json::Value = serde_json::from_str(record).unwrap();
            let obj = expected.as_object_mut().unwrap();
            obj.insert("ndd_group".into(), "a".into());
            obj.insert("ndd_kept".into(), true.into());
            assert_eq!(parsed, expected, "{record}");
            // The record's own bytes come first, unchanged.
            let trimmed = record.trim_end();
            let prefix = &trimmed[..trimmed.len() - 1];
            assert!(joined.starts_with(prefix.as_bytes()), "{record}");
        }
        assert!(with_fields(br#"{"ndd_kept": 1}"#, &fields).is_err());
        assert!(with_fields(b"[1, 2]", &fields).is_err());
    }
}

//! The rows of a run's output files, byte for byte as `ndd dedup` writes them: the
//! kept records (`--keep-out`), the records with their fate (`--annotate-out`), the
//! dropped ids (`--drop-out`), the pairs (`--pairs-out`) and every document's
//! cluster (`--clusters-out`), in TSV or JSONL.
//!
//! Every writer of these files (the `ndd` tool's engines, the distributed example,
//! a program of yours) calls this module, so the bytes agree wherever they are
//! written: only this file knows how a record, an id, a pair or a cluster is spelled.
//!
//! # Example
//!
//! ```
//! use near_dup::pipeline::outputs::{self, DocRow, Format, OutputKind};
//!
//! let mut pairs = outputs::header(OutputKind::Pairs, Format::Tsv).to_vec();
//! outputs::write_pair(&mut pairs, Format::Tsv, "a", "b\tc", 0.8)?;
//! assert_eq!(pairs, b"id_a\tid_b\tscore\na\tb\\tc\t0.800000\n");
//!
//! let row = DocRow::new("b", "the text", false).cluster(0);
//! let mut clusters = Vec::new();
//! outputs::write_document(&mut clusters, OutputKind::Clusters, Format::Jsonl, &row)?;
//! assert_eq!(clusters, b"{\"cluster\":0,\"id\":\"b\"}\n");
//! # Ok::<(), near_dup::pipeline::outputs::RowError>(())
//! ```

use std::io::{self, Write};

/// How the tables (`--pairs-out`, `--clusters-out`) are written.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{Format, OutputKind, header};
/// assert_eq!(header(OutputKind::Clusters, Format::Tsv), b"id\tcluster\n");
/// assert_eq!(header(OutputKind::Clusters, Format::Jsonl), b"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Tab-separated values with a header line; fields escaped by [`tsv_field`].
    Tsv,
    /// One JSON object per line.
    Jsonl,
}

/// Which output file a row goes to.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{Format, OutputKind, header};
/// assert_eq!(header(OutputKind::Pairs, Format::Tsv), b"id_a\tid_b\tscore\n");
/// assert_eq!(header(OutputKind::Keep, Format::Tsv), b"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// `--keep-out`: each kept document's record, unchanged.
    Keep,
    /// `--annotate-out`: every record with `ndd_group`, `ndd_kept` and `ndd_reason`
    /// appended.
    Annotate,
    /// `--drop-out`: the ids of the documents dropped, one a line.
    Drop,
    /// `--pairs-out`: `id_a`, `id_b`, `score` (written by [`write_pair`]).
    Pairs,
    /// `--clusters-out`: `id`, `cluster` of every document of a group.
    Clusters,
}

/// The first bytes of a `kind` file in `format`: the TSV header line of the tables,
/// nothing otherwise.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{Format, OutputKind, header};
/// assert_eq!(header(OutputKind::Pairs, Format::Jsonl), b"");
/// assert_eq!(header(OutputKind::Drop, Format::Tsv), b"");
/// ```
#[must_use]
pub fn header(kind: OutputKind, format: Format) -> &'static [u8] {
    match (kind, format) {
        (OutputKind::Pairs, Format::Tsv) => b"id_a\tid_b\tscore\n",
        (OutputKind::Clusters, Format::Tsv) => b"id\tcluster\n",
        _ => b"",
    }
}

/// `x` rounded to six decimals: the precision of scores in JSON outputs (the TSV
/// form prints six).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::outputs::round6(0.123_456_789), 0.123_457);
/// ```
#[must_use]
pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// One document of the input, in input order, with what the run decided for it.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{Annotation, DocRow};
/// let row = DocRow::new("b", "text", false)
///     .cluster(0)
///     .annotation(Annotation { group: "a", reason: "near" });
/// assert!(!row.kept && row.cluster == Some(0) && row.record.is_none());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DocRow<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its text.
    pub text: &'a str,
    /// Its JSONL record as read, without its line end (`None` for a folder's
    /// document, which is written as `{"id", "text"}`).
    pub record: Option<&'a [u8]>,
    /// Its line in the input (for messages about its record).
    pub line: Option<u64>,
    /// Whether it is kept.
    pub kept: bool,
    /// Its cluster: the collection position of the document kept for its group
    /// (`None` where the engine makes no groups: no `--clusters-out` row).
    pub cluster: Option<u64>,
    /// What `--annotate-out` adds (`None` where the engine does not know it: no
    /// `--annotate-out` row).
    pub annotation: Option<Annotation<'a>>,
}

impl<'a> DocRow<'a> {
    /// The row of document `id` with `text`, kept or not, with no record, line,
    /// cluster or annotation.
    ///
    /// # Example
    ///
    /// ```
    /// let row = near_dup::pipeline::outputs::DocRow::new("a", "text", true);
    /// assert!(row.kept && row.line.is_none() && row.annotation.is_none());
    /// ```
    #[must_use]
    pub fn new(id: &'a str, text: &'a str, kept: bool) -> Self {
        DocRow {
            id,
            text,
            record: None,
            line: None,
            kept,
            cluster: None,
            annotation: None,
        }
    }

    /// With its JSONL `record` as read and its `line` in the input (`None` where
    /// unknown).
    ///
    /// # Example
    ///
    /// ```
    /// let row = near_dup::pipeline::outputs::DocRow::new("a", "x", true)
    ///     .record(br#"{"id":"a","text":"x"}"#, Some(1));
    /// assert_eq!(row.line, Some(1));
    /// ```
    #[must_use]
    pub fn record(mut self, record: &'a [u8], line: Option<u64>) -> Self {
        self.record = Some(record);
        self.line = line;
        self
    }

    /// With its cluster (the collection position of the document kept for its
    /// group).
    ///
    /// # Example
    ///
    /// ```
    /// let row = near_dup::pipeline::outputs::DocRow::new("a", "x", true).cluster(7);
    /// assert_eq!(row.cluster, Some(7));
    /// ```
    #[must_use]
    pub fn cluster(mut self, cluster: u64) -> Self {
        self.cluster = Some(cluster);
        self
    }

    /// With what `--annotate-out` adds.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::outputs::{Annotation, DocRow};
    /// let row = DocRow::new("a", "x", true).annotation(Annotation { group: "a", reason: "kept" });
    /// assert_eq!(row.annotation.map(|a| a.reason), Some("kept"));
    /// ```
    #[must_use]
    pub fn annotation(mut self, annotation: Annotation<'a>) -> Self {
        self.annotation = Some(annotation);
        self
    }
}

/// What `--annotate-out` adds to a record: `ndd_group`, `ndd_kept` (from
/// [`DocRow::kept`]) and `ndd_reason`.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{self, Annotation, DocRow, Format, OutputKind};
/// let row = DocRow::new("b", "x", false)
///     .record(br#"{"id":"b","text":"x"}"#, Some(2))
///     .annotation(Annotation { group: "a", reason: "near" });
/// let mut out = Vec::new();
/// outputs::write_document(&mut out, OutputKind::Annotate, Format::Tsv, &row)?;
/// assert_eq!(
///     out,
///     br#"{"id":"b","text":"x","ndd_group":"a","ndd_kept":false,"ndd_reason":"near"}
/// "#
/// );
/// # Ok::<(), near_dup::pipeline::outputs::RowError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Annotation<'a> {
    /// The id of the document kept for its group.
    pub group: &'a str,
    /// Why it is kept or dropped: a [`crate::Fate::name`] (unique, kept, exact, near).
    pub reason: &'a str,
}

/// Why a row could not be written.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{self, Annotation, DocRow, Format, OutputKind, RowError};
/// let row = DocRow::new("a", "x", true)
///     .record(br#"{"id":"a","ndd_kept":1}"#, Some(3))
///     .annotation(Annotation { group: "a", reason: "kept" });
/// let err = outputs::write_document(&mut Vec::new(), OutputKind::Annotate, Format::Tsv, &row);
/// assert!(matches!(err, Err(RowError::Record(m)) if m.starts_with("line 3:")));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum RowError {
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The record cannot take the annotation (not a JSON object, or it already has
    /// one of the fields): bad input rather than a failed write.
    #[error("{0}")]
    Record(String),
}

/// Writes the row of document `d` to a `kind` file in `format`: its record to
/// `--keep-out` when it is kept (its own bytes, or `{"id", "text"}`), its annotated
/// record to `--annotate-out`, its id to `--drop-out` when it is dropped, its
/// cluster to `--clusters-out`; nothing where the row has no place in that file
/// (pairs are written by [`write_pair`]).
///
/// # Errors
///
/// [`RowError::Io`] when writing fails; [`RowError::Record`] when the record cannot
/// take the annotation.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{self, DocRow, Format, OutputKind};
/// let dropped = DocRow::new("line\nbreak", "x", false);
/// let mut ids = Vec::new();
/// outputs::write_document(&mut ids, OutputKind::Drop, Format::Tsv, &dropped)?;
/// outputs::write_document(&mut ids, OutputKind::Keep, Format::Tsv, &dropped)?;
/// assert_eq!(ids, b"line\\nbreak\n");
/// # Ok::<(), near_dup::pipeline::outputs::RowError>(())
/// ```
pub fn write_document(
    w: &mut impl Write,
    kind: OutputKind,
    format: Format,
    d: &DocRow<'_>,
) -> Result<(), RowError> {
    match kind {
        OutputKind::Keep if d.kept => record(w, d, None)?,
        OutputKind::Annotate => {
            let Some(a) = &d.annotation else {
                return Ok(());
            };
            let fields = serde_json::Value::Object(annotation_fields(d, a));
            record(w, d, Some(fields))?;
        }
        OutputKind::Drop if !d.kept => {
            tsv_field(w, d.id)?;
            w.write_all(b"\n")?;
        }
        OutputKind::Clusters => {
            let Some(cluster) = d.cluster else {
                return Ok(());
            };
            match format {
                Format::Tsv => {
                    tsv_field(w, d.id)?;
                    writeln!(w, "\t{cluster}")?;
                }
                Format::Jsonl => {
                    let line = serde_json::json!({ "id": d.id, "cluster": cluster });
                    json_line(w, &line)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Writes one pair to a `--pairs-out` file: `id_a<TAB>id_b<TAB>score` (six
/// decimals) or `{"id_a", "id_b", "score"}` (rounded by [`round6`]).
///
/// # Errors
///
/// When writing fails.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::{self, Format};
/// let mut out = Vec::new();
/// outputs::write_pair(&mut out, Format::Jsonl, "a", "b", 0.123_456_7)?;
/// assert_eq!(out, b"{\"id_a\":\"a\",\"id_b\":\"b\",\"score\":0.123457}\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_pair(
    w: &mut impl Write,
    format: Format,
    a: &str,
    b: &str,
    score: f64,
) -> io::Result<()> {
    match format {
        Format::Tsv => {
            tsv_field(w, a)?;
            w.write_all(b"\t")?;
            tsv_field(w, b)?;
            writeln!(w, "\t{score:.6}")
        }
        Format::Jsonl => {
            let line = serde_json::json!({ "id_a": a, "id_b": b, "score": round6(score) });
            json_line(w, &line)
        }
    }
}

/// `value` as one JSON line.
fn json_line(w: &mut impl Write, value: &serde_json::Value) -> io::Result<()> {
    serde_json::to_writer(&mut *w, value)?;
    w.write_all(b"\n")
}

/// The record of `d` (its own bytes, or `{"id", "text"}` for a folder's document),
/// with the members of `fields` appended, and a line end.
fn record(
    w: &mut impl Write,
    d: &DocRow<'_>,
    fields: Option<serde_json::Value>,
) -> Result<(), RowError> {
    match (d.record, &fields) {
        (Some(record), None) => w.write_all(record).map_err(RowError::Io)?,
        (Some(record), Some(fields)) => {
            let joined = with_fields(record, fields)
                .map_err(|m| RowError::Record(format!("line {}: {m}", d.line.unwrap_or(0))))?;
            w.write_all(&joined).map_err(RowError::Io)?;
        }
        (None, _) => {
            let mut value = serde_json::json!({ "id": d.id, "text": d.text });
            if let (Some(obj), Some(serde_json::Value::Object(extra))) =
                (value.as_object_mut(), fields)
            {
                obj.extend(extra);
            }
            serde_json::to_writer(&mut *w, &value).map_err(|e| RowError::Io(e.into()))?;
        }
    }
    w.write_all(b"\n").map_err(RowError::Io)
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

/// What `--annotate-out` adds to the record of `d`, as JSON members in their order:
/// `ndd_group`, `ndd_kept` and `ndd_reason` (the members [`write_document`] appends,
/// and the columns a Parquet copy adds).
///
/// ```
/// use near_dup::pipeline::outputs::{annotation_fields, Annotation, DocRow};
///
/// let a = Annotation { group: "a", reason: "near" };
/// let fields = annotation_fields(&DocRow::new("b", "x", false), &a);
/// let names: Vec<&str> = fields.keys().map(String::as_str).collect();
/// assert_eq!(names, ["ndd_group", "ndd_kept", "ndd_reason"]);
/// assert_eq!(fields["ndd_kept"], false);
/// ```
pub fn annotation_fields(
    d: &DocRow<'_>,
    a: &Annotation<'_>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut fields = serde_json::Map::new();
    fields.insert("ndd_group".into(), a.group.into());
    fields.insert("ndd_kept".into(), d.kept.into());
    fields.insert("ndd_reason".into(), a.reason.into());
    fields
}

/// Writes `s` as a TSV field: backslash, tab, newline and carriage return escaped as
/// `\\`, `\t`, `\n` and `\r`, so that every row has its fields on one line.
///
/// # Errors
///
/// When writing fails.
///
/// # Example
///
/// ```
/// let mut out = Vec::new();
/// near_dup::pipeline::outputs::tsv_field(&mut out, "a\tb\\c")?;
/// assert_eq!(out, br"a\tb\\c");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn tsv_field(out: &mut impl Write, s: &str) -> io::Result<()> {
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
///
/// # Example
///
/// ```
/// use near_dup::pipeline::outputs::tsv_unescape;
/// assert_eq!(tsv_unescape(r"a\tb\\c"), "a\tb\\c");
/// assert_eq!(tsv_unescape(r"C:\x\"), r"C:\x\");
/// ```
#[must_use]
pub fn tsv_unescape(s: &str) -> String {
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

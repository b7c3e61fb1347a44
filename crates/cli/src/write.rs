//! The contents of each output file.

use std::io::{self, Write};

use crate::args::Format;
use crate::dedup::Found;
use crate::error::CliError;
use crate::input::{Input, Records};
use crate::output::tsv_field;

/// `x` rounded to six decimals: the precision of scores in JSON outputs (the TSV
/// form prints six).
pub(crate) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// `--pairs-out`: `id_a<TAB>id_b<TAB>score` after a header line, or JSONL.
pub(crate) fn pairs(out: &mut impl Write, f: &Found<'_>, format: Format) -> io::Result<()> {
    if format == Format::Tsv {
        out.write_all(b"id_a\tid_b\tscore\n")?;
    }
    for p in &f.outcome.pairs {
        let (a, b) = (f.ids[p.a], f.ids[p.b]);
        match format {
            Format::Tsv => {
                tsv_field(out, a)?;
                out.write_all(b"\t")?;
                tsv_field(out, b)?;
                writeln!(out, "\t{:.6}", p.score)?;
            }
            Format::Jsonl => {
                let score = round6(p.score);
                serde_json::to_writer(
                    &mut *out,
                    &serde_json::json!({ "id_a": a, "id_b": b, "score": score }),
                )?;
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(())
}

/// `--clusters-out`: `id<TAB>cluster` per document of the batch (cluster: the
/// collection position of the document kept for its group), or JSONL.
pub(crate) fn clusters(out: &mut impl Write, f: &Found<'_>, format: Format) -> io::Result<()> {
    if format == Format::Tsv {
        out.write_all(b"id\tcluster\n")?;
    }
    for (i, d) in f.docs.iter().enumerate() {
        let label = f.label(f.base + i);
        match format {
            Format::Tsv => {
                tsv_field(out, &d.id)?;
                writeln!(out, "\t{label}")?;
            }
            Format::Jsonl => {
                serde_json::to_writer(
                    &mut *out,
                    &serde_json::json!({ "id": d.id, "cluster": label }),
                )?;
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(())
}

/// `--drop-out`: the ids of the batch's documents to drop, one per line, escaped as
/// TSV fields.
pub(crate) fn dropped(out: &mut impl Write, f: &Found<'_>) -> io::Result<()> {
    for (i, d) in f.docs.iter().enumerate() {
        if !f.outcome.fate(f.base + i).is_kept() {
            tsv_field(out, &d.id)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// `--keep-out` (`annotate == false`): the kept records, unchanged; `--annotate-out`:
/// every record with `ndd_group`, `ndd_kept` and `ndd_reason` added. A folder's
/// documents become `{"id", "text"}` records.
pub(crate) fn records(
    out: &mut impl Write,
    f: &Found<'_>,
    input: &Input,
    annotate: bool,
) -> Result<(), CliError> {
    let io = |e: io::Error| CliError::Output(e.to_string());
    let mut records = input.records.as_ref().map(Records::open).transpose()?;
    for (i, d) in f.docs.iter().enumerate() {
        let g = f.base + i;
        let fate = f.outcome.fate(g);
        if !annotate && !fate.is_kept() {
            continue;
        }
        let fields = annotate.then(|| {
            serde_json::json!({
                "ndd_group": f.ids[f.label(g)],
                "ndd_kept": fate.is_kept(),
                "ndd_reason": fate.name(),
            })
        });
        match (&mut records, input.corpus.lines.get(i)) {
            (Some(records), Some(&line)) => {
                let record = records.at(line)?;
                match &fields {
                    None => out.write_all(record).map_err(io)?,
                    Some(fields) => {
                        let joined = with_fields(record, fields)
                            .map_err(|m| CliError::Input(format!("line {line}: {m}")))?;
                        out.write_all(&joined).map_err(io)?;
                    }
                }
            }
            _ => {
                let mut record = serde_json::json!({ "id": d.id, "text": d.text });
                if let (Some(obj), Some(serde_json::Value::Object(extra))) =
                    (record.as_object_mut(), fields)
                {
                    obj.extend(extra);
                }
                serde_json::to_writer(&mut *out, &record).map_err(|e| io(e.into()))?;
            }
        }
        out.write_all(b"\n").map_err(io)?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

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

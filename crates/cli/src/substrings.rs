//! `ndd substrings`: the exact repeated substrings of a corpus (the `ndd-repeats`
//! library's `substrings` module) cut from the documents, their byte ranges and the
//! spans cut most often written, and a summary printed.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use ndd_pipeline::ndd_core;
use ndd_repeats::substrings::{
    RepeatedSpan, RepeatedSubstrings, Scope, char_ranges, most_repeated, remove_ranges,
};

use crate::args::{ScopeName, SubstringsArgs};
use crate::error::{CliError, usage_of};
use crate::files::{self, Output, Pending, Ready, Target};
use crate::input::{self, Records, Source};
use crate::output::{DocRow, Format, Writers};
use crate::progress::Bars;
use crate::settings;
use crate::skipped::{Skipped, decoded};

/// The search the options ask for.
fn finder(a: &SubstringsArgs) -> Result<RepeatedSubstrings, CliError> {
    let finder = RepeatedSubstrings::new(a.min_length).map_err(|e| usage_of("--min-length", e))?;
    let finder = finder.scope(match a.scope {
        ScopeName::AcrossDocuments => Scope::AcrossDocuments,
        ScopeName::Anywhere => Scope::Anywhere,
    });
    Ok(match a.memory_budget {
        Some(b) => finder.memory_budget(usize::try_from(b).unwrap_or(usize::MAX)),
        None => finder,
    })
}

/// Runs `ndd substrings`.
pub(crate) fn run(a: &SubstringsArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let finder = finder(a)?;
    if a.input.order_field.is_some() {
        return Err(CliError::Usage(
            "--order-field: ndd substrings does not order documents".into(),
        ));
    }
    let source = Source::resolve(a.input.input.as_deref())?;
    let outputs = [
        (Output::Out, a.out.as_deref()),
        (Output::Ranges, a.ranges_out.as_deref()),
        (Output::Report, a.report_out.as_deref()),
        (Output::Problems, a.input.problems_out.as_deref()),
    ];
    let targets = files::check(&outputs, source.path(), None, false, &[])?;

    // Read.
    let bars = Bars::new(a.quiet);
    let options = settings::read_options(&a.input, &[]);
    let input = input::read(&source, &options, &bars, a.out.is_some())?;
    let read_time = started.elapsed();
    let mut skipped = Skipped::of_corpus(&input.corpus, &options, a.input.problems_out.is_some())?;
    let docs = &input.corpus.documents;
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();

    // Search.
    let search_started = Instant::now();
    let bar = bars.passes();
    let found = finder
        .find_with_progress(&texts, |done, all| {
            bar.set_length(all as u64);
            bar.set_position(done as u64);
        })
        .map_err(|e| match e {
            ndd_core::Error::InvalidParameter { .. } => usage_of("--memory-budget", e),
            e => CliError::from(e),
        })?;
    bar.finish_and_clear();
    let search_time = search_started.elapsed();
    // What is cut: the ranges widened to whole characters.
    let cut: Vec<Vec<Range<usize>>> = texts
        .iter()
        .zip(found.ranges())
        .map(|(t, r)| char_ranges(t, r))
        .collect();
    let top = most_repeated(&texts, &cut, a.top);
    let figures = Figures {
        source: source.name(),
        min_length: a.min_length,
        scope: a.scope,
        documents: docs.len(),
        with_spans: cut.iter().filter(|r| !r.is_empty()).count(),
        spans: cut.iter().map(Vec::len).sum(),
        bytes: texts.iter().map(|t| t.len()).sum(),
        cut: cut.iter().flatten().map(|r| r.end - r.start).sum(),
        passes: found.passes(),
        peak_bytes: found.peak_bytes(),
        skipped: input.corpus.problems.len(),
        skipped_kinds: skipped.kinds(),
        decoded: decoded(&input.corpus.stats, a.input.encoding),
    };

    // Write, then move into place.
    let mut ready: Vec<Ready> = Vec::new();
    for t in &targets {
        if t.output == Output::Out && input.records.is_none() && !input.corpus.shards.is_empty() {
            // Parquet, zstd and shard folder records: in their format, by the writer
            // `ndd dedup --keep-out` copies them with.
            let cut = Cut {
                input: &input,
                texts: &texts,
                ranges: &cut,
                text_field: &a.input.text_field,
            };
            ready.extend(cut.copy(t)?);
            continue;
        }
        let mut pending = Pending::create(&t.path)?;
        match t.output {
            Output::Out => Cut {
                input: &input,
                texts: &texts,
                ranges: &cut,
                text_field: &a.input.text_field,
            }
            .write(&mut pending, &t.path)?,
            Output::Ranges => {
                let io = |e: io::Error| CliError::output(&t.path, e);
                write_ranges(pending.writer(), docs, &cut).map_err(io)?;
            }
            Output::Report => {
                let report = figures.json(&top);
                let w = pending.writer();
                serde_json::to_writer_pretty(&mut *w, &report)
                    .map_err(io::Error::from)
                    .and_then(|()| w.write_all(b"\n"))
                    .map_err(|e| CliError::output(&t.path, e))?;
            }
            Output::Problems => skipped
                .write_to(pending.writer())
                .map_err(|e| CliError::output(&t.path, e))?,
            _ => {}
        }
        ready.push(pending.finish()?);
    }
    crate::output::commit(ready)?;
    let times = [
        ("read", read_time),
        ("search", search_time),
        ("total", started.elapsed()),
    ];
    crate::summary::print(&figures.render(&top, &times), a.quiet);
    Ok(())
}

/// What `--out` writes: the documents read and the ranges cut from each.
struct Cut<'a> {
    input: &'a input::Input,
    texts: &'a [&'a str],
    ranges: &'a [Vec<Range<usize>>],
    /// The JSONL field holding the text.
    text_field: &'a str,
}

impl Cut<'_> {
    /// `--out` to `pending`: every document's record with its text cut, gzip when the
    /// name ends in `.gz`.
    fn write(&self, pending: &mut Pending, path: &Path) -> Result<(), CliError> {
        let w = pending.writer();
        if path.extension().is_some_and(|e| e == "gz") {
            let mut gz = flate2::write::GzEncoder::new(w, flate2::Compression::default());
            self.records(&mut gz, path)?;
            gz.finish().map_err(|e| CliError::output(path, e))?;
            Ok(())
        } else {
            self.records(w, path)
        }
    }

    /// `--out` to the target `t` by [`Writers::edited`]: each record copied in the
    /// format of the input's shards with its text cut.
    fn copy(&self, t: &Target) -> Result<Vec<Ready>, CliError> {
        let mut writers = Writers::create([t], Format::Tsv)?;
        writers.copy_shards(self.input)?;
        let docs = &self.input.corpus.documents;
        for (i, (d, text)) in docs.iter().zip(self.texts).enumerate() {
            let row = DocRow {
                id: &d.id,
                text,
                record: None,
                line: self.input.corpus.lines.get(i).copied(),
                kept: true,
                cluster: None,
                annotation: None,
            };
            let kept = remove_ranges(text, &self.ranges[i]);
            writers.edited(Output::Out, i, &row, &kept, self.text_field)?;
        }
        writers.finish()
    }

    /// The records into `w`: a JSONL record with its text field replaced and every
    /// other byte kept, or `{"id", "text"}` for a folder's document.
    fn records(&self, w: &mut impl Write, path: &Path) -> Result<(), CliError> {
        let mut file = match &self.input.records {
            Some(file) => Some(Records::open(file)?),
            None => None,
        };
        let docs = &self.input.corpus.documents;
        for (i, (d, text)) in docs.iter().zip(self.texts).enumerate() {
            let kept = remove_ranges(text, &self.ranges[i]);
            let line = self.input.corpus.lines.get(i).copied();
            let row = DocRow {
                id: &d.id,
                text,
                record: Records::wanted(&mut file, line, true)?,
                line,
                kept: true,
                cluster: None,
                annotation: None,
            };
            crate::output::edited_record(w, path, &row, &kept, self.text_field)?;
        }
        Ok(())
    }
}

/// `--ranges-out`: one JSON line per document with ranges cut.
fn write_ranges(
    w: &mut impl Write,
    docs: &[ndd_pipeline::Document],
    cut: &[Vec<Range<usize>>],
) -> io::Result<()> {
    for (d, ranges) in docs.iter().zip(cut) {
        if ranges.is_empty() {
            continue;
        }
        let pairs: Vec<[usize; 2]> = ranges.iter().map(|r| [r.start, r.end]).collect();
        serde_json::to_writer(&mut *w, &serde_json::json!({ "id": d.id, "ranges": pairs }))?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// The figures of a run, for the summary and `--report-out`.
struct Figures {
    source: String,
    min_length: usize,
    scope: ScopeName,
    documents: usize,
    with_spans: usize,
    spans: usize,
    bytes: usize,
    cut: usize,
    passes: usize,
    peak_bytes: usize,
    skipped: usize,
    skipped_kinds: String,
    decoded: Option<String>,
}

impl Figures {
    fn scope_name(&self) -> &'static str {
        match self.scope {
            ScopeName::AcrossDocuments => "across-documents",
            ScopeName::Anywhere => "anywhere",
        }
    }

    /// `--report-out`'s object.
    fn json(&self, top: &[RepeatedSpan]) -> serde_json::Value {
        let spans: Vec<serde_json::Value> = top
            .iter()
            .map(|s| {
                serde_json::json!({
                    "count": s.count,
                    "bytes": s.bytes.len(),
                    "text": String::from_utf8_lossy(&s.bytes),
                })
            })
            .collect();
        serde_json::json!({
            "input": self.source,
            "min_length": self.min_length,
            "unit": "bytes",
            "scope": self.scope_name(),
            "documents": self.documents,
            "documents_with_spans": self.with_spans,
            "spans": self.spans,
            "bytes": self.bytes,
            "bytes_cut": self.cut,
            "passes": self.passes,
            "peak_working_bytes": self.peak_bytes,
            "skipped": self.skipped,
            "most_repeated": spans,
        })
    }

    /// The summary printed at the end.
    fn render(&self, top: &[RepeatedSpan], times: &[(&str, Duration)]) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "input:       {}", self.source);
        let skipped = if self.skipped == 0 {
            String::new()
        } else {
            format!(
                ", {} bad lines or files skipped ({})",
                self.skipped, self.skipped_kinds
            )
        };
        let _ = writeln!(
            s,
            "documents:   {} read ({:.1} MB){skipped}",
            self.documents,
            self.bytes as f64 / 1e6
        );
        if let Some(decoded) = &self.decoded {
            let _ = writeln!(s, "decoded:     {decoded}");
        }
        let _ = writeln!(
            s,
            "spans:       {} of at least {} bytes ({}) in {} documents",
            self.spans,
            self.min_length,
            self.scope_name(),
            self.with_spans
        );
        let share = if self.bytes == 0 {
            0.0
        } else {
            100.0 * self.cut as f64 / self.bytes as f64
        };
        let _ = writeln!(s, "cut:         {} bytes ({share:.2}%)", self.cut);
        let _ = writeln!(
            s,
            "passes:      {} (suffix arrays of at most {:.1} MB working memory)",
            self.passes,
            self.peak_bytes as f64 / 1e6
        );
        if !top.is_empty() {
            let _ = writeln!(s, "most cut:");
            for span in top {
                let text = String::from_utf8_lossy(&span.bytes);
                let mut shown: String = text.chars().take(60).collect();
                if shown.len() < text.len() {
                    shown.push('…');
                }
                let _ = writeln!(
                    s,
                    "  {:>6} x {:>6} bytes  {:?}",
                    span.count,
                    span.bytes.len(),
                    shown
                );
            }
        }
        let times: Vec<String> = times
            .iter()
            .map(|(name, d)| format!("{name} {:.2} s", d.as_secs_f64()))
            .collect();
        let _ = writeln!(s, "time:        {}", times.join(", "));
        s
    }
}

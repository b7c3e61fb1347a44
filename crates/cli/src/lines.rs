//! `ndd lines`: lines or paragraphs repeated across a corpus removed from its
//! documents (the `ndd-repeats` library's two passes: count, then edit).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ndd_pipeline::Document;
use ndd_pipeline::corpus::ReadOptions;
use ndd_repeats::lines::{
    Config, CountBy, Counter, Error, Normalization, Policy, Repeated, Summary, Unit,
};

use crate::args::{CountName, LinesArgs, UnitName};
use crate::error::CliError;
use crate::files::{self, Output};
use crate::input::{self, Input, RecordFile, Records, Source};
use crate::output::{self, DocRow, Format, Writers};
use crate::progress::Bars;
use crate::skipped::{self, Shared, Skipped};
use crate::stream::{self, Reader};

/// `--memory-budget` without a value: 1 GiB.
const DEFAULT_BUDGET: u64 = 1 << 30;

/// Bytes an in-memory count takes per distinct unit (hash, counts, first position,
/// and the table's slack), to turn `--memory-budget` into a number of units.
const BYTES_PER_DISTINCT: u64 = 64;

/// Bytes of one out-of-core occurrence record.
const BYTES_PER_RECORD: u64 = 16;

/// Runs `ndd lines`.
pub(crate) fn run(a: &LinesArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let config = config(a)?;
    if a.input.order_field.is_some() {
        return Err(CliError::Usage(
            "--order-field: ndd lines counts units in input order, whatever a field says".into(),
        ));
    }
    let source = Source::resolve(a.input.input.as_deref())?;
    let outputs = [
        (Output::Out, a.out.as_deref()),
        (Output::Report, a.report_out.as_deref()),
        (Output::Problems, a.input.problems_out.as_deref()),
    ];
    let targets = files::check(&outputs, source.path(), None, false, &[])?;
    check_work_dir(a, &source)?;

    let bars = Bars::new(a.quiet);
    let options = crate::settings::read_options(&a.input, &[]);
    let folder = source.path().is_some_and(Path::is_dir);
    let skipped = Skipped::shared(a.input.problems_out.is_some(), folder)?;
    let corpus = Corpus::open(&source, &options, &bars, &skipped, a.out.is_some())?;

    let count_started = Instant::now();
    let (mut repeated, engine) = count(a, &config, &corpus, &bars)?;
    let count_time = count_started.elapsed();

    let edit_started = Instant::now();
    let mut writers = Writers::create(&targets, Format::Tsv)?;
    if let Corpus::Held(input) = &corpus {
        writers.copy_shards(input)?;
    }
    let mut records = corpus.records(a.out.is_some())?;
    let (mut dropped, mut text_bytes) = (0u64, 0u64);
    let mut index = 0usize;
    let bar = bars.pass("edit");
    corpus
        .each(false, |doc, line| -> Result<(), Stop> {
            index += 1;
            let edits = repeated.edits(&doc.text)?;
            bar.inc(1);
            text_bytes += doc.text.len() as u64;
            if a.drop_empty && !edits.is_empty() && edits.empties(&doc.text) {
                dropped += 1;
                return Ok(());
            }
            if a.out.is_some() {
                let record = Records::wanted(&mut records, line, true)?;
                let row = DocRow {
                    id: &doc.id,
                    text: &doc.text,
                    record,
                    line,
                    kept: true,
                    cluster: None,
                    annotation: None,
                };
                writers.edited(
                    Output::Out,
                    index - 1,
                    &row,
                    &edits.apply(&doc.text),
                    &options.text_field,
                )?;
            }
            Ok(())
        })
        .map_err(Stop::into_cli)?;
    bar.finish_and_clear();
    let summary = repeated.finish().map_err(library)?;
    let edit_time = edit_started.elapsed();

    let facts = Facts {
        source: &source,
        config: &config,
        summary: &summary,
        engine,
        text_bytes,
        dropped,
        times: [count_time, edit_time, started.elapsed()],
    };
    writers.whole(Output::Report, |w| facts.report(w))?;
    skipped::write_list(&mut writers, &skipped)?;
    output::commit(writers.finish()?)?;
    let mut text = facts.render();
    let wrote: Vec<String> = targets
        .iter()
        .map(|t| format!("{} {}", t.output.flag(), t.path.display()))
        .collect();
    if !wrote.is_empty() {
        text += &format!("wrote:       {}\n", wrote.join(", "));
    }
    let kinds = skipped::lock(&skipped).kinds();
    if !kinds.is_empty() {
        text += &format!("skipped:     {kinds}\n");
    }
    crate::summary::print(&text, a.quiet);
    Ok(())
}

/// The library's parameters from the options.
fn config(a: &LinesArgs) -> Result<Config, CliError> {
    let policy = match a.min_count {
        Some(n) => Policy::AtLeast(n),
        None => Policy::KeepFirst,
    };
    let config = Config::new(policy)
        .with_unit(match a.unit {
            UnitName::Line => Unit::Line,
            UnitName::Paragraph => Unit::Paragraph,
        })
        .with_min_chars(a.min_length)
        .with_count_by(match a.count {
            CountName::Occurrences => CountBy::Occurrence,
            CountName::Documents => CountBy::Document,
        })
        .with_normalization(Normalization {
            fold_case: !a.no_fold_case,
            nfkc: !a.no_nfkc,
            digits: !a.keep_digits,
        })
        .with_top(a.top);
    config.validate().map_err(library)?;
    if a.memory_budget.is_some_and(|b| b < 1 << 20) {
        return Err(CliError::Usage(
            "invalid --memory-budget: must be at least 1M".to_owned(),
        ));
    }
    Ok(config)
}

/// The work folder may not be inside an input folder: the second pass would read the
/// runs as documents.
fn check_work_dir(a: &LinesArgs, source: &Source) -> Result<(), CliError> {
    let (Some(dir), Some(input)) = (&a.work_dir, source.path()) else {
        return Ok(());
    };
    let input = std::fs::canonicalize(input).unwrap_or_else(|_| input.to_path_buf());
    let dir = absolute(dir);
    if input.is_dir() && dir.starts_with(&input) {
        return Err(CliError::Usage(format!(
            "--work-dir {}: is inside the input folder; the edit pass would read its files \
             as documents",
            dir.display()
        )));
    }
    Ok(())
}

/// `path` with its existing ancestors resolved (it may not exist yet).
fn absolute(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                at = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The first pass: in memory; with `--work-dir`, under the budget, and again out of
/// core when the distinct units outgrow it.
fn count(
    a: &LinesArgs,
    config: &Config,
    corpus: &Corpus<'_>,
    bars: &Bars,
) -> Result<(Repeated, Engine), CliError> {
    let budget = a.memory_budget.unwrap_or(DEFAULT_BUDGET);
    let counter = match &a.work_dir {
        None => Counter::new(config.clone()),
        Some(_) => Counter::with_budget(config.clone(), units_of(budget / BYTES_PER_DISTINCT)),
    }
    .map_err(library)?;
    match pass(counter, corpus, bars) {
        Err(Stop::Library(Error::OverBudget { .. })) => {}
        other => return other.map(|r| (r, Engine::Memory)).map_err(Stop::into_cli),
    }
    let Some(dir) = &a.work_dir else {
        // An in-memory count without a budget cannot be over it.
        return Err(CliError::Input(
            "the in-memory count went over a budget it does not have".to_owned(),
        ));
    };
    // The aborted pass counted some problems: they are counted again.
    corpus.forget_problems(a.input.problems_out.is_some())?;
    let counter = Counter::out_of_core(config.clone(), dir, units_of(budget / BYTES_PER_RECORD))
        .map_err(library)?;
    let repeated = pass(counter, corpus, bars).map_err(Stop::into_cli)?;
    Ok((repeated, Engine::OutOfCore(dir.clone())))
}

fn units_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// One counting pass over the corpus.
fn pass(mut counter: Counter, corpus: &Corpus<'_>, bars: &Bars) -> Result<Repeated, Stop> {
    let bar = bars.pass("count");
    corpus.each(true, |doc, _| -> Result<(), Stop> {
        counter.add(&doc.text)?;
        bar.inc(1);
        Ok(())
    })?;
    bar.finish_and_clear();
    Ok(counter.finish()?)
}

/// Where the counts were kept.
enum Engine {
    Memory,
    OutOfCore(PathBuf),
}

/// Why a pass stopped: the tool's error, or the library's (kept as such so that an
/// over-budget count can start again out of core).
enum Stop {
    Cli(CliError),
    Library(Error),
}

impl From<CliError> for Stop {
    fn from(e: CliError) -> Self {
        Stop::Cli(e)
    }
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Library(e)
    }
}

impl From<ndd_pipeline::Error> for Stop {
    fn from(e: ndd_pipeline::Error) -> Self {
        Stop::Cli(e.into())
    }
}

impl Stop {
    fn into_cli(self) -> CliError {
        match self {
            Stop::Cli(e) => e,
            Stop::Library(e) => library(e),
        }
    }
}

/// The library's error in the tool's terms.
fn library(e: Error) -> CliError {
    match e {
        Error::InvalidParameter { name, message } => {
            let option = match name {
                "policy" => "--min-count",
                other => other,
            };
            CliError::Usage(format!("invalid {option}: {message}"))
        }
        Error::Records(e) => CliError::Output(format!("--work-dir: {e}")),
        Error::Mismatch { what } => CliError::Input(format!(
            "the input changed between the count and the edit pass ({what}); no output was \
             written, run again on a stable input"
        )),
        other => CliError::Input(other.to_string()),
    }
}

/// The documents, read once per pass: a JSON Lines file or a folder of documents
/// streamed again each time, or standard input and Parquet, zstd or shard folder
/// input held in memory (stdin's records spooled to copy them out, a shard input's
/// copied back by ndd-corpus's writer: `Writers::copy_shards`).
enum Corpus<'a> {
    Stream {
        path: &'a Path,
        source: &'a Source,
        options: &'a ReadOptions,
        skipped: &'a Shared,
    },
    Held(Input),
}

impl<'a> Corpus<'a> {
    fn open(
        source: &'a Source,
        options: &'a ReadOptions,
        bars: &Bars,
        skipped: &'a Shared,
        keep_records: bool,
    ) -> Result<Self, CliError> {
        if let Some(path) = source
            .path()
            .filter(|p| stream::shard_input(p, options).is_none())
        {
            input::warn_mixed_folder(path, options);
            return Ok(Corpus::Stream {
                path,
                source,
                options,
                skipped,
            });
        }
        let input = input::read(source, options, bars, keep_records)?;
        skipped::report_problems(&input.corpus.problems, input.corpus.problems.len());
        input::check_fields(input.corpus.fields.as_ref(), options)?;
        for p in &input.corpus.problems {
            skipped::lock(skipped).add(p);
        }
        Ok(Corpus::Held(input))
    }

    /// Calls `f` with each document and its line; `first`: the pass that reports
    /// the input's problems (and fails on an input without documents).
    fn each<E: From<CliError> + From<ndd_pipeline::Error>>(
        &self,
        first: bool,
        mut f: impl FnMut(&Document, Option<u64>) -> Result<(), E>,
    ) -> Result<u64, E> {
        match self {
            Corpus::Stream {
                path,
                source,
                options,
                skipped,
            } => {
                let mut reader = Reader::open(path, options)?;
                if first {
                    reader = reader.with_skipped(skipped);
                }
                let mut n = 0u64;
                while let Some(doc) = reader.next() {
                    let doc = doc?;
                    n += 1;
                    f(&doc, reader.line())?;
                }
                if first {
                    reader.finish(source, n)?;
                }
                Ok(n)
            }
            Corpus::Held(input) => {
                let docs = &input.corpus.documents;
                for (i, doc) in docs.iter().enumerate() {
                    f(doc, input.corpus.lines.get(i).copied())?;
                }
                Ok(docs.len() as u64)
            }
        }
    }

    /// Forgets the problems an aborted first pass counted (a streamed input's).
    /// `list`: whether `--problems-out` lists them.
    fn forget_problems(&self, list: bool) -> Result<(), CliError> {
        if let Corpus::Stream { path, skipped, .. } = self {
            *skipped::lock(skipped) = Skipped::new(list, path.is_dir())?;
        }
        Ok(())
    }

    /// The records of a JSONL input, to write back, when `wanted`.
    fn records(&self, wanted: bool) -> Result<Option<Records>, CliError> {
        if !wanted {
            return Ok(None);
        }
        match self {
            Corpus::Stream { path, .. } if path.is_file() => {
                Records::open(&RecordFile::Path(path.to_path_buf())).map(Some)
            }
            Corpus::Held(Input {
                records: Some(file),
                ..
            }) => Records::open(file).map(Some),
            _ => Ok(None),
        }
    }
}

/// What the summary and `--report-out` say.
struct Facts<'a> {
    source: &'a Source,
    config: &'a Config,
    summary: &'a Summary,
    engine: Engine,
    text_bytes: u64,
    dropped: u64,
    /// Count, edit, total.
    times: [Duration; 3],
}

impl Facts<'_> {
    fn unit(&self) -> &'static str {
        match self.config.unit {
            Unit::Line => "line",
            Unit::Paragraph => "paragraph",
        }
    }

    fn policy(&self) -> String {
        let by = match self.config.count_by {
            CountBy::Occurrence => "",
            CountBy::Document => "in ",
        };
        let what = match self.config.count_by {
            CountBy::Occurrence => "times",
            CountBy::Document => "documents",
        };
        match self.config.policy {
            Policy::AtLeast(n) => format!(
                "every occurrence of a {} seen {by}{n} {what} or more",
                self.unit()
            ),
            Policy::KeepFirst => format!("every occurrence of a {} after its first", self.unit()),
        }
    }

    fn share(&self) -> f64 {
        if self.text_bytes == 0 {
            0.0
        } else {
            100.0 * self.summary.removed_bytes as f64 / self.text_bytes as f64
        }
    }

    /// The summary printed at the end of a run.
    fn render(&self) -> String {
        let s = &self.summary;
        let st = &s.stats;
        let mut out = String::new();
        out += &format!("input:       {}\n", self.source.name());
        out += &format!(
            "documents:   {} ({} left empty{})\n",
            st.documents,
            s.emptied,
            if self.dropped > 0 {
                format!(", {} dropped by --drop-empty", self.dropped)
            } else {
                String::new()
            }
        );
        out += &format!(
            "units:       {} {}s counted, {} distinct, {} repeated\n",
            st.units,
            self.unit(),
            st.distinct,
            st.repeated
        );
        out += &format!("removed:     {}\n", self.policy());
        out += &format!(
            "             {} {}s of {} distinct units, {} bytes ({:.1}% of the text)\n",
            s.removed_units,
            self.unit(),
            st.removable,
            s.removed_bytes,
            self.share()
        );
        out += &match &self.engine {
            Engine::Memory => "count:       in memory\n".to_owned(),
            Engine::OutOfCore(dir) => format!(
                "count:       out of core (over --memory-budget), sorted runs in {}\n",
                dir.display()
            ),
        };
        let [count, edit, total] = self.times;
        out += &format!(
            "time:        count {:.2}s, edit {:.2}s, total {:.2}s\n",
            count.as_secs_f64(),
            edit.as_secs_f64(),
            total.as_secs_f64()
        );
        if !s.top.is_empty() {
            out += "most repeated (occurrences, documents, text):\n";
            for t in &s.top {
                out += &format!(
                    "  {:>9} {:>9}  {}\n",
                    t.occurrences,
                    t.documents,
                    shown(&t.sample)
                );
            }
        }
        out
    }

    /// `--report-out`: the counts and the most repeated units as one JSON object.
    fn report(&self, w: &mut dyn Write) -> std::io::Result<()> {
        let s = &self.summary;
        let st = &s.stats;
        let n = self.config.normalization;
        let top: Vec<serde_json::Value> = s
            .top
            .iter()
            .map(|t| {
                serde_json::json!({
                    "occurrences": t.occurrences,
                    "documents": t.documents,
                    "hash": format!("{:016x}", t.hash),
                    "text": t.sample,
                })
            })
            .collect();
        let value = serde_json::json!({
            "input": self.source.name(),
            "unit": self.unit(),
            "policy": match self.config.policy {
                Policy::AtLeast(n) => serde_json::json!({ "min_count": n }),
                Policy::KeepFirst => serde_json::json!("keep_first"),
            },
            "count": match self.config.count_by {
                CountBy::Occurrence => "occurrences",
                CountBy::Document => "documents",
            },
            "min_length": self.config.min_chars,
            "normalization": { "fold_case": n.fold_case, "nfkc": n.nfkc, "digits": n.digits },
            "documents": st.documents,
            "units": st.units,
            "distinct": st.distinct,
            "repeated": st.repeated,
            "removable": st.removable,
            "removed_units": s.removed_units,
            "removed_bytes": s.removed_bytes,
            "text_bytes": self.text_bytes,
            "emptied": s.emptied,
            "dropped": self.dropped,
            "top": top,
        });
        serde_json::to_writer_pretty(&mut *w, &value)?;
        w.write_all(b"\n")
    }
}

/// A sample on one line of the summary: line ends shown as `⏎`, at most 70
/// characters.
fn shown(sample: &str) -> String {
    let one_line: String = sample
        .chars()
        .map(|c| if c == '\n' { '⏎' } else { c })
        .filter(|&c| c != '\r')
        .collect();
    match one_line.char_indices().nth(70) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
}

//! The HTML report, built by `ndd-report`: `--report-out` (the page of an in-memory
//! run, from its outcome with the facts the summary prints) and `ndd report` (the
//! page of a finished run, from its outputs).

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ndd_pipeline::{Corpus, Dedup, Group, ScoredPair};
use ndd_report::HtmlReport;

use crate::args::ReportArgs;
use crate::error::CliError;
use crate::files::{self, Output, Pending};
use crate::found::Found;
use crate::input::{self, Source};
use crate::output::tsv_unescape;
use crate::progress::Bars;
use crate::settings;

/// The page of a run over `source`: the outcome and texts of `f`, the settings of
/// `dedup` and the command line as typed, the time spent reading, and warnings for
/// skipped input and for counts that cover a saved index's documents too.
pub(crate) fn page(
    source: &Source,
    corpus: &Corpus,
    f: &Found<'_>,
    dedup: &Dedup,
    read: Duration,
) -> String {
    let texts = (0..f.ids.len()).map(|pos| f.text(pos)).collect();
    let command: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut report = HtmlReport::from_parts(&f.outcome, f.ids.clone(), texts)
        .title(format!("ndd report: {}", source.name()))
        .setting("input", source.name())
        .setting("command", format!("ndd {}", command.join(" ")))
        .plan(dedup)
        .timing("read", read);
    let skipped = corpus.problems.len();
    if skipped > 0 {
        report = report.warning(format!(
            "{skipped} bad lines or files of the input were skipped (see the messages on \
             standard error)"
        ));
    }
    if f.base > 0 {
        report = report.warning(format!(
            "the counts cover the whole collection: {} documents of the saved index and \
             {} of this batch; the texts of the index's documents are not kept",
            f.base,
            f.docs.len()
        ));
    }
    report.render().html
}

/// Runs `ndd report`: the input read again, its documents' clusters and the pairs
/// read from the run's outputs, the page written.
pub(crate) fn run(a: &ReportArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let source = Source::resolve(a.input.input.as_deref())?;
    let reads: [files::Read<'_>; 2] = [
        ("--clusters", Some(&a.clusters)),
        ("--pairs", a.pairs.as_deref()),
    ];
    let targets = files::check(
        &[(Output::Out, Some(a.out.as_path()))],
        source.path(),
        None,
        false,
        &reads,
    )?;
    let bars = Arc::new(Bars::new(a.quiet));
    let corpus = input::read(
        &source,
        &settings::read_options(&a.input, &[]),
        &bars,
        false,
    )?
    .corpus;
    let docs = &corpus.documents;
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    let groups = read_clusters(&a.clusters, &ids)?;
    let pairs = match &a.pairs {
        Some(path) => read_pairs(path, &ids)?,
        None => Vec::new(),
    };
    let texts = docs.iter().map(|d| Some(d.text.as_str())).collect();
    let mut report = HtmlReport::from_groups(&groups, &pairs, ids, texts)
        .title(format!("ndd report: {}", source.name()))
        .setting("input", source.name())
        .setting("clusters", a.clusters.display().to_string());
    if let Some(p) = &a.pairs {
        report = report.setting("pairs", p.display().to_string());
    }
    if let Some(t) = a.threshold {
        report = report.threshold(t).setting("threshold", t.to_string());
    }
    if !corpus.problems.is_empty() {
        report = report.warning(format!(
            "{} bad lines or files of the input were skipped",
            corpus.problems.len()
        ));
    }
    let page = report.render();
    let target = &targets[0];
    let mut pending = Pending::create(&target.path)?;
    pending
        .writer()
        .write_all(page.html.as_bytes())
        .map_err(|e| CliError::output(&target.path, e))?;
    pending.finish()?.commit()?;
    if a.quiet {
        // `-q`: no summary, as every subcommand (`summary::print`).
        return Ok(());
    }
    println!("input:       {}", source.name());
    println!("documents:   {} read", docs.len());
    println!(
        "groups:      {} ({} on the page), {} pairs",
        page.groups_total,
        page.groups_shown,
        pairs.len()
    );
    println!(
        "wrote:       {} (--out, {:.1} MB) in {:.2?}",
        target.path.display(),
        page.html.len() as f64 / 1e6,
        started.elapsed()
    );
    Ok(())
}

/// The lines of an output file: TSV after its header line, or JSONL (a first line
/// that starts with `{`), each as its fields by name.
fn rows(path: &Path, fields: &[&str]) -> Result<Vec<Vec<String>>, CliError> {
    let bad = |m: String| CliError::Input(format!("{}: {m}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    let mut jsonl = None;
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| bad(e.to_string()))?;
        if line.is_empty() {
            continue;
        }
        let is_json = *jsonl.get_or_insert_with(|| line.starts_with('{'));
        if !is_json && n == 0 {
            // The header line.
            if line.split('\t').ne(fields.iter().copied()) {
                return Err(bad(format!("the header is not {:?}", fields.join("\t"))));
            }
            continue;
        }
        let row: Option<Vec<String>> = if is_json {
            let v: serde_json::Value =
                serde_json::from_str(&line).map_err(|e| bad(format!("line {}: {e}", n + 1)))?;
            fields
                .iter()
                .map(|f| match &v[*f] {
                    serde_json::Value::String(s) => Some(s.clone()),
                    serde_json::Value::Number(x) => Some(x.to_string()),
                    _ => None,
                })
                .collect()
        } else {
            let cells: Vec<String> = line.split('\t').map(tsv_unescape).collect();
            (cells.len() == fields.len()).then_some(cells)
        };
        out.push(row.ok_or_else(|| {
            bad(format!(
                "line {}: not the fields {}",
                n + 1,
                fields.join(", ")
            ))
        })?);
    }
    Ok(out)
}

/// The groups of a `--clusters-out` file: one row per document of the input, in
/// order, each naming the position of the document kept for its group.
fn read_clusters(path: &Path, ids: &[&str]) -> Result<Vec<Group>, CliError> {
    let bad = |m: String| CliError::Input(format!("--clusters {}: {m}", path.display()));
    let rows = rows(path, &["id", "cluster"])?;
    if rows.len() != ids.len() {
        return Err(bad(format!(
            "{} lines for {} documents of the input; give the input and the options the run read",
            rows.len(),
            ids.len()
        )));
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (pos, row) in rows.iter().enumerate() {
        if row[0] != ids[pos] {
            return Err(bad(format!(
                "line {} is document {:?}, the input's document {} is {:?}; give the input \
                 and the options the run read",
                pos + 1,
                row[0],
                pos + 1,
                ids[pos]
            )));
        }
        let cluster: usize = row[1]
            .parse()
            .ok()
            .filter(|&c| c < ids.len())
            .ok_or_else(|| {
                bad(format!(
                    "line {}: cluster {:?} is not a document",
                    pos + 1,
                    row[1]
                ))
            })?;
        members.entry(cluster).or_default().push(pos);
    }
    Ok(members
        .into_iter()
        .filter(|(_, m)| m.len() > 1)
        .map(|(representative, members)| Group {
            representative,
            members,
            copies: None,
        })
        .collect())
}

/// The pairs of a `--pairs-out` file, by the position of each id in the input.
fn read_pairs(path: &Path, ids: &[&str]) -> Result<Vec<ScoredPair>, CliError> {
    let bad = |m: String| CliError::Input(format!("--pairs {}: {m}", path.display()));
    let mut position: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        position.entry(id).or_insert(i);
    }
    rows(path, &["id_a", "id_b", "score"])?
        .iter()
        .enumerate()
        .map(|(n, row)| {
            let at = |id: &str| {
                position
                    .get(id)
                    .copied()
                    .ok_or_else(|| bad(format!("line {}: no document {id:?} in the input", n + 1)))
            };
            let (a, b) = (at(&row[0])?, at(&row[1])?);
            let score = row[2]
                .parse()
                .map_err(|_| bad(format!("line {}: score {:?}", n + 1, row[2])))?;
            Ok(ScoredPair {
                a: a.min(b),
                b: a.max(b),
                score,
            })
        })
        .collect()
}

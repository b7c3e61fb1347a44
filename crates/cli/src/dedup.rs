//! `ndd dedup`: read, deduplicate (in one run or against a saved index), write the
//! outputs, print the summary.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ndd_pipeline::{Dedup, DedupIndex, Document, Outcome};

use crate::args::DedupArgs;
use crate::error::CliError;
use crate::input::{self, Source};
use crate::output::{self, Target};
use crate::progress::Bars;
use crate::{explain_out, settings, summary, write};

/// The largest index file loaded: a saved index takes about `8 × num_perm + 100`
/// bytes per document, so 64 GiB is tens of millions of documents at 128 values.
pub(crate) const MAX_INDEX_BYTES: u64 = 64 << 30;

/// What a run found, over the whole collection when a saved index took part.
pub(crate) struct Found<'a> {
    /// The documents of this batch.
    pub(crate) docs: &'a [Document],
    /// The position of this batch's first document in the collection (0 without an
    /// index read).
    pub(crate) base: usize,
    /// Every document's id, the indexed ones first.
    pub(crate) ids: Vec<&'a str>,
    /// Pairs, groups and the report, over collection positions.
    pub(crate) outcome: Outcome,
}

impl Found<'_> {
    /// The position in the collection of the document kept for `g`'s group.
    pub(crate) fn label(&self, g: usize) -> usize {
        self.outcome
            .group_of(g)
            .map_or(g, |group| group.representative)
    }

    /// The text of the document at collection position `pos`, `None` for a document
    /// of a saved index (its text is not kept).
    pub(crate) fn text(&self, pos: usize) -> Option<&str> {
        pos.checked_sub(self.base)
            .and_then(|i| self.docs.get(i))
            .map(|d| d.text.as_str())
    }
}

/// Runs `ndd dedup`.
pub(crate) fn run(a: &DedupArgs) -> Result<(), CliError> {
    if a.bloom.bloom || !a.bloom.given().is_empty() {
        return crate::bloom::run(a);
    }
    let started = Instant::now();
    let index_in = a.index.index_in.as_deref();

    // Settings: from the options, or from the saved index.
    let mut index = match index_in {
        Some(path) => {
            let given = a.method.given();
            if !given.is_empty() {
                return Err(CliError::Usage(format!(
                    "{} cannot be combined with --index-in: the saved index decides how \
                     documents are compared",
                    given.join(", ")
                )));
            }
            let bytes = input::read_bounded(path, MAX_INDEX_BYTES)?;
            let mut ix = DedupIndex::from_bytes(&bytes)
                .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
            // A setting of the process, not saved with the index.
            if let Some(scan) = a.method.max_bucket_scan {
                ix.set_max_bucket_scan(scan.0);
            }
            Some(ix)
        }
        None => None,
    };
    let attributes = settings::attribute_fields(&a.method, &a.input)?;
    let dedup = match &index {
        Some(ix) => ix.settings(),
        None => settings::dedup(&a.method, &attributes)?,
    };
    if let Some(work_dir) = &a.scale.work_dir {
        let options = settings::read_options(&a.input, &attributes);
        return crate::outofcore::run(a, &dedup, &options, work_dir);
    }
    let incremental = index.is_some() || a.index.index_out.is_some();
    if incremental && a.method.group != crate::args::GroupName::Components {
        return Err(CliError::Usage(
            "--group durian cannot be combined with --index-out: a saved index groups \
             by connected components"
                .to_owned(),
        ));
    }
    if incremental && index.is_none() {
        // Refuse what an index cannot do before reading anything.
        index = Some(DedupIndex::new(&dedup).map_err(|e| {
            CliError::Usage(format!(
                "--index-out: {e} (an index supports --method minhash, verified by \
                 jaccard, containment or the estimate, keeping the first document)"
            ))
        })?);
    }

    // Outputs, checked before the work.
    let source = Source::resolve(a.input.input.as_deref())?;
    if source.path().is_some_and(Path::is_dir) {
        // A folder's files have no fields to read these from.
        let fields = [
            ("--order-field", a.input.order_field.is_some()),
            ("--attribute-fields", !a.method.attribute_fields.is_empty()),
        ];
        if let Some((flag, _)) = fields.iter().find(|f| f.1) {
            return Err(CliError::Usage(format!(
                "{flag} reads JSONL fields; a folder's files have none"
            )));
        }
    }
    let index_target: Option<(&'static str, &Path)> = match (&a.index.index_out, a.index.add) {
        (Some(p), _) => Some(("--index-out", p)),
        (None, true) => index_in.map(|p| ("--add", p)),
        (None, false) => None,
    };
    let o = &a.output;
    let mut outputs = vec![
        ("--keep-out", o.keep_out.as_deref()),
        ("--annotate-out", o.annotate_out.as_deref()),
        ("--drop-out", o.drop_out.as_deref()),
        ("--pairs-out", o.pairs_out.as_deref()),
        ("--clusters-out", o.clusters_out.as_deref()),
        ("--explain-out", o.explain_out.as_deref()),
        ("--members-out", o.members_out.as_deref()),
    ];
    if let Some((flag, p)) = index_target {
        outputs.push((flag, Some(p)));
    }
    let targets = output::check(&outputs, source.path(), index_in, a.index.add)?;

    // Read.
    let bars = Arc::new(Bars::new(a.quiet));
    let read_started = Instant::now();
    let options = settings::read_options(&a.input, &attributes);
    let input = input::read(
        &source,
        &options,
        &bars,
        o.keep_out.is_some() || o.annotate_out.is_some(),
    )?;
    let read_time = read_started.elapsed();
    report_problems(&input.corpus.problems, input.corpus.problems.len());
    let docs = &input.corpus.documents;

    // Deduplicate.
    let added = match &mut index {
        Some(ix) => {
            let base = ix.len();
            Some((base, ix.add_with_progress(docs, bars.as_ref())?))
        }
        None => None,
    };
    let found = match (added, &index) {
        (Some((base, outcome)), Some(ix)) => Found {
            docs,
            base,
            ids: ix.ids().iter().map(String::as_str).collect(),
            outcome,
        },
        _ => Found {
            docs,
            base: 0,
            ids: docs.iter().map(|d| d.id.as_str()).collect(),
            outcome: dedup.clone().progress(bars.clone()).run(docs)?,
        },
    };

    // Write everything, then move it into place.
    let mut ready = Vec::new();
    for t in &targets {
        ready.push(write_target(t, &found, &input, index.as_ref(), &dedup, a)?);
    }
    for r in ready {
        r.commit()?;
    }

    let total = started.elapsed();
    let timings = Timings {
        read: read_time,
        total,
    };
    print!(
        "{}",
        summary::text(&source, &input, &found, &dedup, &timings, &targets, a.top)
    );
    // The process ends here: its memory goes back to the system at once, without
    // freeing every document and pair one by one first.
    std::mem::forget(found);
    std::mem::forget(input);
    Ok(())
}

/// Times the summary shows beside the pipeline's own.
pub(crate) struct Timings {
    /// Reading the input.
    pub(crate) read: Duration,
    /// The whole run.
    pub(crate) total: Duration,
}

/// Writes the output of `t` to its temporary file.
fn write_target(
    t: &Target,
    found: &Found<'_>,
    input: &input::Input,
    index: Option<&DedupIndex>,
    dedup: &Dedup,
    a: &DedupArgs,
) -> Result<output::Ready, CliError> {
    let mut pending = output::Pending::create(&t.path)?;
    let io = |e: std::io::Error| CliError::output(&t.path, e);
    let format = a.output.format;
    match t.flag {
        "--pairs-out" => write::pairs(pending.writer(), found, format).map_err(io)?,
        "--clusters-out" => write::clusters(pending.writer(), found, format).map_err(io)?,
        "--drop-out" => write::dropped(pending.writer(), found).map_err(io)?,
        "--explain-out" => {
            explain_out::write(pending.writer(), found, dedup.nfkc_value()).map_err(io)?;
        }
        "--members-out" => {
            explain_out::members(pending.writer(), found, dedup.nfkc_value()).map_err(io)?;
        }
        "--keep-out" => write::records(pending.writer(), found, input, false)?,
        "--annotate-out" => write::records(pending.writer(), found, input, true)?,
        _ => {
            // --index-out, --add
            let index = index.ok_or_else(|| CliError::output(&t.path, "no index was built"))?;
            std::io::Write::write_all(pending.writer(), &index.to_bytes()).map_err(io)?;
        }
    }
    pending.finish()
}

/// Bad lines and files, on stderr: the first ones in full, then a count.
/// `rejected`: how many there were in all (a streamed read keeps only the first
/// problems).
pub(crate) fn report_problems(problems: &[ndd_pipeline::Problem], rejected: usize) {
    const SHOWN: usize = 20;
    for p in problems.iter().take(SHOWN) {
        eprintln!("warning: {p} (skipped)");
    }
    if rejected > SHOWN {
        eprintln!("warning: {} more lines or files skipped", rejected - SHOWN);
    }
}

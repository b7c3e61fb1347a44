//! `--report-out`: the HTML page of an in-memory run, built by `ndd-report` from the
//! run's outcome with the facts the summary prints.

use std::time::Duration;

use ndd_pipeline::{Corpus, Dedup};
use ndd_report::HtmlReport;

use crate::found::Found;
use crate::input::Source;

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

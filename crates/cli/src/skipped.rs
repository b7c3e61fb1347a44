//! Bad lines and files skipped: counted by reason for the summary, and listed in full
//! for `--problems-out` (one JSON object a line), whatever the engine.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ndd_pipeline::Problem;
use ndd_pipeline::corpus::{ProblemKind, ProblemSink, ReadStats};

use crate::args::EncodingName;
use crate::error::CliError;
use crate::files::Output;
use crate::output::Writers;

/// The problems of a run: counts by kind, and (with `--problems-out`) every one
/// spooled to a temporary file, so a streamed read does not hold them in memory.
pub(crate) struct Skipped {
    /// Whether the input is a folder (a problem's location is then a path, never
    /// `file:line`).
    folder: bool,
    by_kind: Vec<(ProblemKind, u64)>,
    spool: Option<(BufWriter<File>, tempfile::TempPath)>,
    /// The first error writing the spool.
    error: Option<io::Error>,
}

impl Skipped {
    /// Counts problems, and lists them too when `list`.
    pub(crate) fn new(list: bool, folder: bool) -> Result<Self, CliError> {
        let spool = if list {
            let (file, path) = tempfile::NamedTempFile::new()
                .map_err(|e| CliError::Output(format!("--problems-out: a temporary file: {e}")))?
                .into_parts();
            Some((BufWriter::new(file), path))
        } else {
            None
        };
        Ok(Skipped {
            folder,
            by_kind: Vec::new(),
            spool,
            error: None,
        })
    }

    /// The problems of a corpus read whole: each warned about on stderr (the first
    /// ones), the fields the options name checked ([`crate::input::check_fields`]),
    /// and all counted (and listed when `list`).
    pub(crate) fn of_corpus(
        corpus: &ndd_pipeline::Corpus,
        options: &ndd_pipeline::corpus::ReadOptions,
        list: bool,
    ) -> Result<Self, CliError> {
        report_problems(&corpus.problems, corpus.problems.len());
        crate::input::check_fields(corpus.fields.as_ref(), options)?;
        let mut skipped = Skipped::new(list, corpus.fields.is_none())?;
        for p in &corpus.problems {
            skipped.add(p);
        }
        Ok(skipped)
    }

    /// [`new`](Self::new), to share with a streamed reader's sink.
    pub(crate) fn shared(list: bool, folder: bool) -> Result<Shared, CliError> {
        Ok(Arc::new(Mutex::new(Skipped::new(list, folder)?)))
    }

    /// Counts (and lists) one problem.
    pub(crate) fn add(&mut self, p: &Problem) {
        match self.by_kind.iter_mut().find(|(k, _)| *k == p.kind) {
            Some((_, n)) => *n += 1,
            None => self.by_kind.push((p.kind, 1)),
        }
        if let Some((w, _)) = &mut self.spool {
            if self.error.is_none() {
                if let Err(e) = problem_line(w, p, self.folder) {
                    self.error = Some(e);
                }
            }
        }
    }

    /// The counts by kind, most first: `3 encoding, 1 binary`.
    pub(crate) fn kinds(&self) -> String {
        let mut kinds = self.by_kind.clone();
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.name().cmp(b.0.name())));
        kinds
            .iter()
            .map(|(k, n)| format!("{n} {}", k.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Writes the list to `w` (the `--problems-out` file).
    pub(crate) fn write_to(&mut self, w: &mut dyn Write) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let Some((spool, path)) = &mut self.spool else {
            return Ok(());
        };
        spool.flush()?;
        io::copy(&mut File::open(&*path)?, w)?;
        Ok(())
    }
}

/// What the summary says was decoded from another encoding than UTF-8, if anything:
/// `2 files from UTF-16, 3 files or lines from windows-1252`.
pub(crate) fn decoded(stats: &ReadStats, encoding: EncodingName) -> Option<String> {
    let mut parts = Vec::new();
    if stats.utf16_decoded > 0 {
        let n = stats.utf16_decoded;
        parts.push(format!("{n} file{} from UTF-16", plural(n)));
    }
    if stats.legacy_decoded > 0 {
        let name = match encoding {
            EncodingName::Latin1 => "latin-1",
            _ => "windows-1252",
        };
        let n = stats.legacy_decoded;
        parts.push(format!("{n} file{0} or line{0} from {name}", plural(n)));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The plural ending of a count.
fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Problems shared with a streamed reader's sink.
pub(crate) type Shared = Arc<Mutex<Skipped>>;

/// The problems of `shared`, locked (a panic elsewhere leaves them readable).
pub(crate) fn lock(shared: &Shared) -> MutexGuard<'_, Skipped> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Writes the `--problems-out` list of `shared`, when it is asked for.
pub(crate) fn write_list(writers: &mut Writers<'_>, shared: &Shared) -> Result<(), CliError> {
    writers.whole(Output::Problems, |w| lock(shared).write_to(w))
}

/// A sink that hands each problem to `shared`.
pub(crate) fn sink(shared: &Shared) -> ProblemSink {
    let shared = Arc::clone(shared);
    Box::new(move |p| {
        shared.lock().unwrap_or_else(PoisonError::into_inner).add(p);
    })
}

/// One problem as a JSON line: `{"source", "line", "kind", "message"}`.
fn problem_line(w: &mut impl Write, p: &Problem, folder: bool) -> io::Result<()> {
    // A JSONL problem is located `name:line`; a folder's is the file's path.
    let (source, line) = match p.location.rsplit_once(':') {
        Some((name, line)) if !folder => match line.parse::<u64>() {
            Ok(n) => (name, Some(n)),
            Err(_) => (p.location.as_str(), None),
        },
        _ => (p.location.as_str(), None),
    };
    let value = serde_json::json!({
        "source": source,
        "line": line,
        "kind": p.kind.name(),
        "message": p.message,
    });
    serde_json::to_writer(&mut *w, &value)?;
    w.write_all(b"\n")
}

/// Bad lines and files, on stderr: the first ones in full, then a count.
/// `rejected`: how many there were in all (a streamed read keeps only the first
/// problems).
pub(crate) fn report_problems(problems: &[Problem], rejected: usize) {
    const SHOWN: usize = 20;
    for p in problems.iter().take(SHOWN) {
        eprintln!("warning: {p} (skipped)");
    }
    if rejected > SHOWN {
        eprintln!(
            "warning: {} more lines or files skipped (--problems-out lists them all)",
            rejected - SHOWN
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_line_splits_a_jsonl_location_but_never_a_folder_path() {
        let p = Problem::new("data/c:1.jsonl:7", "bad", ProblemKind::Schema);
        let mut out = Vec::new();
        problem_line(&mut out, &p, false).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["source"], "data/c:1.jsonl");
        assert_eq!(v["line"], 7);
        assert_eq!(v["kind"], "schema");
        let p = Problem::new("docs/a:3", "binary", ProblemKind::Binary);
        let mut out = Vec::new();
        problem_line(&mut out, &p, true).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            (v["source"].as_str(), v["line"].is_null()),
            (Some("docs/a:3"), true)
        );
    }

    #[test]
    fn kinds_are_counted_most_first() {
        let mut s = Skipped::new(false, false).unwrap();
        for kind in [
            ProblemKind::Binary,
            ProblemKind::Encoding,
            ProblemKind::Encoding,
        ] {
            s.add(&Problem::new("x:1", "m", kind));
        }
        assert_eq!(s.kinds(), "2 encoding, 1 binary");
    }
}

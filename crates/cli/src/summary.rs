//! The summary printed after a `ndd dedup` run, whatever the engine: one set of run
//! facts ([`Facts`]), each engine filling in what it knows, rendered by one function.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use crate::files::{self, Target};

/// Prints a run's summary where [`files::print_summary`] puts it, or nothing under
/// `--quiet`. `-q` means the same to every subcommand that has it: no progress bars
/// and no summary; warnings and errors still go to standard error.
pub(crate) fn print(summary: &str, quiet: bool) {
    if !quiet {
        files::print_summary(summary);
    }
}

/// What a run did, as the summary reports it.
#[derive(Default)]
pub(crate) struct Facts {
    /// How the input is named.
    pub(crate) input: String,
    /// Documents read.
    pub(crate) documents: u64,
    /// Bytes of text read and bad lines or files skipped (in memory).
    pub(crate) read: Option<(u64, usize)>,
    /// The bad lines or files skipped by reason (`3 encoding, 1 binary`), when any.
    pub(crate) skipped: String,
    /// What was decoded from another encoding than UTF-8, when anything was.
    pub(crate) decoded: Option<String>,
    /// Documents of a saved index before this batch (0 without one).
    pub(crate) indexed_before: usize,
    /// What became of the documents.
    pub(crate) fates: Fates,
    /// The method.
    pub(crate) method: Option<MethodFacts>,
    /// What verification did.
    pub(crate) verify: Option<VerifyFacts>,
    /// Pairs and groups found.
    pub(crate) pairs: Option<PairFacts>,
    /// How often the MinHash bucket bound was hit (a warning when it was).
    pub(crate) bucket_scan: Option<ndd_pipeline::BucketScan>,
    /// DURIAN's theta and the groups kept as a form letter's reference copy.
    pub(crate) durian: Option<(f64, usize)>,
    /// Whether groups were made by center grouping (`--group center`).
    pub(crate) center: bool,
    /// The chaining floor and link fraction of linkage grouping (`--group linkage`).
    pub(crate) linkage: Option<(f64, f64)>,
    /// The Bloom filters' own lines (a `--bloom` run).
    pub(crate) filters: Vec<String>,
    /// Where the time went.
    pub(crate) time: Time,
    /// Bytes written to the work folder (out of core).
    pub(crate) disk: Option<u64>,
    /// The peak resident memory of the process, when known (out of core).
    pub(crate) peak_memory: Option<u64>,
    /// The outputs written.
    pub(crate) wrote: Vec<Target>,
    /// The largest groups: size, the id kept, and up to six members (id, snippet of
    /// the text or `None` for a document of a saved index).
    pub(crate) groups: Vec<GroupFacts>,
}

/// What became of the documents.
#[derive(Default)]
pub(crate) enum Fates {
    /// Kept alone, kept for a group, dropped as exact copies, dropped as
    /// near-duplicates.
    Grouped {
        unique: u64,
        kept: u64,
        exact: u64,
        near: u64,
    },
    /// Flagged as seen before (Bloom filters).
    Flagged(u64),
    /// Nothing known.
    #[default]
    None,
}

/// The method line.
pub(crate) struct MethodFacts {
    /// Its name.
    pub(crate) name: String,
    /// The threshold, for a method that uses one.
    pub(crate) threshold: Option<f64>,
    /// The work folder of an out-of-core run.
    pub(crate) work_dir: Option<PathBuf>,
}

/// The verify line.
pub(crate) struct VerifyFacts {
    /// The verifier's name.
    pub(crate) name: &'static str,
    /// Candidates checked.
    pub(crate) checked: u64,
    /// Pairs accepted.
    pub(crate) accepted: u64,
}

/// The pairs line.
pub(crate) struct PairFacts {
    /// Pairs found.
    pub(crate) pairs: u64,
    /// Groups.
    pub(crate) groups: u64,
    /// Whether the counts are over a saved index's whole collection.
    pub(crate) whole_collection: bool,
}

/// Where the time went.
#[derive(Default)]
pub(crate) enum Time {
    /// In memory: reading, the pipeline's stages, the whole run.
    Stages {
        read: Duration,
        stages: Vec<(String, Duration)>,
        total: Duration,
    },
    /// Out of core: each stage (or `reused`), writing the outputs, the whole run.
    OutOfCore {
        stages: Vec<String>,
        outputs: Duration,
        total: Duration,
    },
    /// Bloom filters: flagging, the whole run.
    Flag { flag: Duration, total: Duration },
    /// Nothing measured.
    #[default]
    None,
}

/// One of the largest groups.
pub(crate) struct GroupFacts {
    /// Its size.
    pub(crate) size: usize,
    /// The id of the document kept.
    pub(crate) keep: String,
    /// Up to six members: id and text (`None`: indexed earlier, text not kept).
    pub(crate) members: Vec<(String, Option<String>)>,
}

/// At most `max_chars` characters of `text`, white space collapsed.
pub(crate) fn snippet(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (n, c) in text
        .split_whitespace()
        .flat_map(|w| " ".chars().chain(w.chars()))
        .skip(1)
        .enumerate()
    {
        if n >= max_chars {
            out.push('…');
            break;
        }
        out.push(c);
    }
    out
}

impl Facts {
    /// The summary.
    pub(crate) fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "input:       {}", self.input);
        let _ = writeln!(
            s,
            "documents:   {} read{}",
            self.documents,
            match self.read {
                None => String::new(),
                Some((bytes, 0)) => format!(" ({:.1} MB)", bytes as f64 / 1e6),
                Some((bytes, skipped)) => format!(
                    " ({:.1} MB), {skipped} bad lines or files skipped{}",
                    bytes as f64 / 1e6,
                    if self.skipped.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", self.skipped)
                    }
                ),
            }
        );
        if self.read.is_none() && !self.skipped.is_empty() {
            // A streamed read: the bad lines or files by reason.
            let _ = writeln!(s, "skipped:     {}", self.skipped);
        }
        if let Some(decoded) = &self.decoded {
            let _ = writeln!(s, "decoded:     {decoded}");
        }
        if self.indexed_before > 0 {
            let _ = writeln!(
                s,
                "index:       {} documents indexed before this batch",
                self.indexed_before
            );
        }
        match self.fates {
            Fates::Grouped {
                unique,
                kept,
                exact,
                near,
            } => {
                let _ = writeln!(
                    s,
                    "kept:        {} ({unique} alone, {kept} for their group)",
                    unique + kept
                );
                let _ = writeln!(
                    s,
                    "dropped:     {} ({exact} exact copies, {near} near-duplicates)",
                    exact + near
                );
            }
            Fates::Flagged(n) => {
                let documents = self.documents;
                let _ = writeln!(
                    s,
                    "flagged:     {n} ({:.2}%) seen before (a near-duplicate, or by chance)",
                    if documents == 0 {
                        0.0
                    } else {
                        100.0 * n as f64 / documents as f64
                    }
                );
                let _ = writeln!(s, "kept:        {}", documents - n);
            }
            Fates::None => {}
        }
        if let Some(m) = &self.method {
            let mut line = m.name.clone();
            if let Some(t) = m.threshold {
                let _ = write!(line, ", threshold {t}");
            }
            if let Some(dir) = &m.work_dir {
                let _ = write!(line, ", out of core in {}", dir.display());
            }
            let _ = writeln!(s, "method:      {line}");
        }
        if let Some(v) = &self.verify {
            let _ = writeln!(
                s,
                "verify:      {} ({} candidates checked, {} kept)",
                v.name, v.checked, v.accepted
            );
        }
        if let Some(p) = &self.pairs {
            let _ = writeln!(
                s,
                "pairs:       {} ({} groups{})",
                p.pairs,
                p.groups,
                if p.whole_collection {
                    " in the whole collection"
                } else {
                    ""
                }
            );
        }
        if let Some(w) = self
            .bucket_scan
            .and_then(|b| b.warning("--max-bucket-scan"))
        {
            let _ = writeln!(s, "warning:     {w}");
        }
        if let Some((theta, references)) = self.durian {
            let _ = writeln!(
                s,
                "group:       durian (theta {theta}; {references} groups kept as a form \
                 letter's reference copy)"
            );
        }
        if self.center {
            let _ = writeln!(
                s,
                "group:       center (every member paired with the document kept for \
                 its group)"
            );
        }
        if let Some((floor, fraction)) = self.linkage {
            let _ = writeln!(
                s,
                "group:       linkage (chains through pairs of {floor} or more; weaker pairs \
                 join groups sharing {fraction} of their pairs or more; a member may be below \
                 the threshold to the document kept)"
            );
        }
        for line in &self.filters {
            let _ = writeln!(s, "{line}");
        }
        match &self.time {
            Time::Stages {
                read,
                stages,
                total,
            } => {
                let stages: Vec<String> = stages
                    .iter()
                    .map(|(stage, d)| format!("{stage} {d:.2?}"))
                    .collect();
                let _ = writeln!(
                    s,
                    "time:        read {read:.2?}, {}; total {total:.2?}",
                    stages.join(", ")
                );
            }
            Time::OutOfCore {
                stages,
                outputs,
                total,
            } => {
                let _ = writeln!(
                    s,
                    "stages:      {}; outputs {outputs:.2?}; total {total:.2?}",
                    stages.join(", ")
                );
            }
            Time::Flag { .. } | Time::None => {}
        }
        if let Some(bytes) = self.disk {
            let _ = writeln!(
                s,
                "disk:        {:.1} MB written to the work folder",
                bytes as f64 / 1e6
            );
        }
        if let Some(peak) = self.peak_memory {
            let _ = writeln!(s, "memory:      {:.1} MB peak resident", peak as f64 / 1e6);
        }
        let wrote = self
            .wrote
            .iter()
            .map(|t| format!("{} ({})", t.path.display(), t.output.flag()));
        if let Time::Flag { flag, total } = self.time {
            // A stream's outputs on one line, then its time.
            let list: Vec<String> = wrote.collect();
            if !list.is_empty() {
                let _ = writeln!(s, "wrote:       {}", list.join(", "));
            }
            let _ = writeln!(s, "time:        flag {flag:.2?}; total {total:.2?}");
        } else {
            for w in wrote {
                let _ = writeln!(s, "wrote:       {w}");
            }
        }
        for (n, g) in self.groups.iter().enumerate() {
            let _ = writeln!(
                s,
                "\ngroup {} ({} documents, keep {}):",
                n + 1,
                g.size,
                g.keep
            );
            for (id, text) in &g.members {
                let text = text.as_deref().unwrap_or("(indexed earlier)");
                let _ = writeln!(s, "  {:<28} {text}", snippet(id, 28));
            }
            if g.size > 6 {
                let _ = writeln!(s, "  … and {} more", g.size - 6);
            }
        }
        s
    }
}

/// The peak resident set of this process (Linux: `VmHWM` of `/proc/self/status`).
pub(crate) fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

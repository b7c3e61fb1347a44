//! `ndd dedup --work-dir DIR`: the out-of-core MinHash stages over a file or folder,
//! then a second streaming pass over the input that writes the outputs, with memory
//! bounded by `--memory-budget` (plus the ids of the documents in pairs when
//! `--pairs-out` is asked for).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use ndd_pipeline::corpus::{Accepted, FolderReader, JsonlReader, ReadOptions};
use ndd_pipeline::{Dedup, Document, OutOfCore, OutOfCoreOutcome, Problem};

use crate::args::{DedupArgs, Format};
use crate::error::CliError;
use crate::input::{RecordFile, Records, Source};
use crate::output::{self, Target, tsv_field};
use crate::progress::Bars;
use crate::write::round6;

/// The accepted documents of a JSONL file or a folder, streamed (also `--bloom`'s
/// reader).
pub(crate) enum Reader {
    Jsonl(Box<Accepted<JsonlReader<Box<dyn std::io::BufRead + Send>>>>),
    Folder(Box<Accepted<FolderReader>>),
}

impl Reader {
    pub(crate) fn open(path: &Path, options: &ReadOptions) -> Result<Self, CliError> {
        if path.is_dir() {
            let r = FolderReader::new(path, options)?;
            Ok(Reader::Folder(Box::new(
                Accepted::new(r, options).with_location(FolderReader::location),
            )))
        } else {
            let r = JsonlReader::open(path, options)?;
            Ok(Reader::Jsonl(Box::new(
                Accepted::new(r, options).with_location(JsonlReader::location),
            )))
        }
    }

    /// The line of the document last yielded (JSONL).
    pub(crate) fn line(&self) -> Option<u64> {
        match self {
            Reader::Jsonl(r) => Some(r.reader().lines()),
            Reader::Folder(_) => None,
        }
    }

    fn problems(&self) -> (&[Problem], u64) {
        match self {
            Reader::Jsonl(r) => (r.problems(), r.rejected()),
            Reader::Folder(r) => (r.problems(), r.rejected()),
        }
    }

    /// After the last document: an input without a usable document is an error (as
    /// when the input is read whole); otherwise the problems are reported on stderr.
    pub(crate) fn finish(&self, source: &Source, documents: u64) -> Result<(), CliError> {
        let (problems, rejected) = self.problems();
        let rejected = usize::try_from(rejected).unwrap_or(usize::MAX);
        if documents == 0 {
            return Err(ndd_pipeline::Error::NoDocuments {
                source_name: source.name(),
                rejected,
                first: problems.first().map_or_else(
                    || "the input is empty (no line or file to read)".to_owned(),
                    Problem::to_string,
                ),
            }
            .into());
        }
        crate::dedup::report_problems(problems, rejected);
        Ok(())
    }
}

impl Iterator for Reader {
    type Item = Result<Document, ndd_pipeline::Error>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Reader::Jsonl(r) => r.next().map(|r| r.map_err(Into::into)),
            Reader::Folder(r) => r.next().map(|r| r.map_err(Into::into)),
        }
    }
}

/// Runs `ndd dedup --work-dir`.
pub(crate) fn run(
    a: &DedupArgs,
    dedup: &Dedup,
    options: &ReadOptions,
    work_dir: &Path,
) -> Result<(), CliError> {
    let started = Instant::now();
    if a.index.index_in.is_some() || a.index.index_out.is_some() {
        return Err(CliError::Usage(
            "--work-dir cannot be combined with --index-in or --index-out".to_owned(),
        ));
    }
    let o = &a.output;
    let unsupported = [
        ("--annotate-out", o.annotate_out.is_some()),
        ("--explain-out", o.explain_out.is_some()),
        ("--members-out", o.members_out.is_some()),
    ];
    if let Some((flag, _)) = unsupported.iter().find(|f| f.1) {
        return Err(CliError::Usage(format!(
            "{flag} is not available with --work-dir (it needs every document in memory); \
             --keep-out, --drop-out, --pairs-out and --clusters-out are"
        )));
    }
    let mut job =
        OutOfCore::new(dedup, work_dir).map_err(|e| CliError::Usage(format!("--work-dir: {e}")))?;
    if let Some(bytes) = a.scale.memory_budget {
        job = job
            .memory_budget(bytes)
            .map_err(|e| CliError::Usage(format!("--memory-budget: {e}")))?;
    }
    let source = Source::resolve(a.input.input.as_deref())?;
    let Some(path) = source.path() else {
        return Err(CliError::Usage(
            "--work-dir reads the input twice (once for the stages, once for the outputs): \
             give a file or folder, not standard input"
                .to_owned(),
        ));
    };
    let outputs = [
        ("--keep-out", o.keep_out.as_deref()),
        ("--drop-out", o.drop_out.as_deref()),
        ("--pairs-out", o.pairs_out.as_deref()),
        ("--clusters-out", o.clusters_out.as_deref()),
    ];
    let targets = output::check(&outputs, Some(path), None, false)?;
    check_work_dir(work_dir, path, &targets)?;

    let bars = Arc::new(Bars::new(a.quiet));
    let job = job
        .input_fingerprint(ndd_pipeline::corpus::input_fingerprint(path)?)
        .progress(bars.clone());
    let mut reader = Reader::open(path, options)?;
    let outcome = job.run(&mut reader)?;
    reader.finish(&source, outcome.documents)?;
    drop(reader);

    let write_started = Instant::now();
    if !targets.is_empty() {
        write_outputs(&targets, &outcome, path, options, a.output.format)?;
    }
    let write_time = write_started.elapsed();
    print!(
        "{}",
        summary(
            &source, dedup, &outcome, work_dir, started, write_time, &targets
        )
    );
    Ok(())
}

/// The work folder must not be, or be inside, the input, and no output may go into it.
fn check_work_dir(work_dir: &Path, input: &Path, targets: &[Target]) -> Result<(), CliError> {
    let usage = |m: &str| CliError::Usage(format!("--work-dir {}: {m}", work_dir.display()));
    if work_dir.is_file() {
        return Err(usage("is a file; give a folder (created if missing)"));
    }
    std::fs::create_dir_all(work_dir).map_err(|e| usage(&e.to_string()))?;
    let work = std::fs::canonicalize(work_dir).map_err(|e| usage(&e.to_string()))?;
    let input = std::fs::canonicalize(input)
        .map_err(|e| CliError::Input(format!("{}: {e}", input.display())))?;
    if work == input || work.starts_with(&input) {
        return Err(usage(
            "is the input folder or inside it; its files would be read as documents",
        ));
    }
    for t in targets {
        if t.path
            .parent()
            .is_some_and(|p| std::fs::canonicalize(p).is_ok_and(|p| p.starts_with(&work)))
        {
            return Err(usage(&format!(
                "holds the output {}; the stages' files and the outputs must stay apart",
                t.path.display()
            )));
        }
    }
    Ok(())
}

/// The second pass: the input streamed again beside the assignments (both in
/// document order), each output written to its temporary file, then all moved into
/// place.
fn write_outputs(
    targets: &[Target],
    outcome: &OutOfCoreOutcome,
    path: &Path,
    options: &ReadOptions,
    format: Format,
) -> Result<(), CliError> {
    let mut pending = Vec::new();
    for t in targets {
        pending.push((t, output::Pending::create(&t.path)?));
    }
    let out_err = |t: &Target, e: std::io::Error| CliError::output(&t.path, e);
    // The ids of the documents in pairs, for --pairs-out.
    let wants_pairs = targets.iter().any(|t| t.flag == "--pairs-out");
    let mut ids: HashMap<u64, String> = HashMap::new();
    if wants_pairs {
        for p in outcome.scored_pairs()? {
            let p = p?;
            ids.insert(p.a as u64, String::new());
            ids.insert(p.b as u64, String::new());
        }
    }
    let mut records = if path.is_file() {
        Some(Records::open(&RecordFile::Path(path.to_path_buf()))?)
    } else {
        None
    };
    for (t, p) in &mut pending {
        if t.flag == "--clusters-out" && format == Format::Tsv {
            p.writer()
                .write_all(b"id\tcluster\n")
                .map_err(|e| out_err(t, e))?;
        }
    }
    let mut assignments = outcome.assignments()?.peekable();
    let mut reader = Reader::open(path, options)?;
    let mut pos = 0u64;
    while let Some(doc) = reader.next() {
        let doc = doc?;
        let mut label = pos;
        while let Some(next) = assignments.peek() {
            match next {
                Ok(a) if a.doc < pos => {
                    assignments.next();
                }
                Ok(a) if a.doc == pos => {
                    label = a.rep;
                    break;
                }
                Ok(_) => break,
                Err(_) => {
                    if let Some(Err(e)) = assignments.next() {
                        return Err(e.into());
                    }
                }
            }
        }
        let kept = label == pos;
        if let Some(id) = ids.get_mut(&pos) {
            id.clone_from(&doc.id);
        }
        for (t, p) in &mut pending {
            let w = p.writer();
            let io = |e: std::io::Error| out_err(t, e);
            match t.flag {
                "--keep-out" if kept => match (&mut records, reader.line()) {
                    (Some(records), Some(line)) => {
                        w.write_all(records.at(line)?).map_err(io)?;
                        w.write_all(b"\n").map_err(io)?;
                    }
                    _ => {
                        let record = serde_json::json!({ "id": doc.id, "text": doc.text });
                        serde_json::to_writer(&mut *w, &record).map_err(|e| io(e.into()))?;
                        w.write_all(b"\n").map_err(io)?;
                    }
                },
                "--drop-out" if !kept => {
                    tsv_field(w, &doc.id).map_err(io)?;
                    w.write_all(b"\n").map_err(io)?;
                }
                "--clusters-out" => match format {
                    Format::Tsv => {
                        tsv_field(w, &doc.id).map_err(io)?;
                        writeln!(w, "\t{label}").map_err(io)?;
                    }
                    Format::Jsonl => {
                        let record = serde_json::json!({ "id": doc.id, "cluster": label });
                        serde_json::to_writer(&mut *w, &record).map_err(|e| io(e.into()))?;
                        w.write_all(b"\n").map_err(io)?;
                    }
                },
                _ => {}
            }
        }
        pos += 1;
    }
    if pos != outcome.documents {
        return Err(CliError::Input(format!(
            "{}: {pos} documents on the second reading, {} on the first; the input changed \
             during the run",
            path.display(),
            outcome.documents
        )));
    }
    let mut ready = Vec::new();
    for (t, mut p) in pending {
        if t.flag == "--pairs-out" {
            write_pairs(p.writer(), outcome, &ids, format).map_err(|e| match e {
                PairsError::Io(e) => out_err(t, e),
                PairsError::Run(e) => e.into(),
            })?;
        }
        ready.push(p.finish()?);
    }
    for r in ready {
        r.commit()?;
    }
    Ok(())
}

enum PairsError {
    Io(std::io::Error),
    Run(ndd_pipeline::Error),
}

/// `--pairs-out`, as the in-memory run writes it: `(a, b)` order, ids and scores.
fn write_pairs(
    out: &mut impl Write,
    outcome: &OutOfCoreOutcome,
    ids: &HashMap<u64, String>,
    format: Format,
) -> Result<(), PairsError> {
    if format == Format::Tsv {
        out.write_all(b"id_a\tid_b\tscore\n")
            .map_err(PairsError::Io)?;
    }
    let id = |p: usize| ids.get(&(p as u64)).map_or("", String::as_str);
    for p in outcome.scored_pairs().map_err(PairsError::Run)? {
        let p = p.map_err(PairsError::Run)?;
        let (a, b) = (id(p.a), id(p.b));
        match format {
            Format::Tsv => {
                tsv_field(out, a).map_err(PairsError::Io)?;
                out.write_all(b"\t").map_err(PairsError::Io)?;
                tsv_field(out, b).map_err(PairsError::Io)?;
                writeln!(out, "\t{:.6}", p.score).map_err(PairsError::Io)?;
            }
            Format::Jsonl => {
                let record = serde_json::json!({ "id_a": a, "id_b": b, "score": round6(p.score) });
                serde_json::to_writer(&mut *out, &record).map_err(|e| PairsError::Io(e.into()))?;
                out.write_all(b"\n").map_err(PairsError::Io)?;
            }
        }
    }
    Ok(())
}

/// The summary on stdout.
fn summary(
    source: &Source,
    dedup: &Dedup,
    outcome: &OutOfCoreOutcome,
    work_dir: &Path,
    started: Instant,
    write_time: std::time::Duration,
    targets: &[Target],
) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let kept = outcome.documents - outcome.duplicates();
    let _ = writeln!(s, "input:       {}", source.name());
    let _ = writeln!(s, "documents:   {} read", outcome.documents);
    let _ = writeln!(
        s,
        "kept:        {kept} ({} alone, {} for their group)",
        kept - outcome.groups,
        outcome.groups
    );
    let _ = writeln!(
        s,
        "dropped:     {} ({} exact copies, {} near-duplicates)",
        outcome.duplicates(),
        outcome.exact_copies_dropped,
        outcome.duplicates() - outcome.exact_copies_dropped
    );
    let _ = writeln!(
        s,
        "method:      {}, threshold {}, out of core in {}",
        dedup.method_config().name(),
        dedup.threshold_value(),
        work_dir.display()
    );
    let _ = writeln!(
        s,
        "verify:      {} ({} distinct candidates, {} pairs kept)",
        dedup.verifier_config().name(),
        outcome.checked,
        outcome.pairs
    );
    let _ = writeln!(
        s,
        "pairs:       {} ({} groups)",
        outcome.pairs, outcome.groups
    );
    let stages: Vec<String> = outcome
        .stages
        .iter()
        .map(|st| {
            if st.reused {
                format!("{} reused", st.stage.name())
            } else {
                format!("{} {:.2?}", st.stage.name(), st.time)
            }
        })
        .collect();
    let written: u64 = outcome.stages.iter().map(|st| st.bytes_written).sum();
    let _ = writeln!(
        s,
        "stages:      {}; outputs {:.2?}; total {:.2?}",
        stages.join(", "),
        write_time,
        started.elapsed()
    );
    let _ = writeln!(
        s,
        "disk:        {:.1} MB written to the work folder",
        written as f64 / 1e6
    );
    if let Some(peak) = peak_memory() {
        let _ = writeln!(s, "memory:      {:.1} MB peak resident", peak as f64 / 1e6);
    }
    for t in targets {
        let _ = writeln!(s, "wrote:       {} ({})", t.path.display(), t.flag);
    }
    s
}

/// The peak resident set of this process (Linux: `VmHWM` of `/proc/self/status`).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

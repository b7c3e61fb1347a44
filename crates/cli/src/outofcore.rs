//! `ndd dedup --work-dir DIR`: the out-of-core MinHash or SimHash stages over a file or
//! folder, then a second streaming pass over the input that writes the outputs, with
//! memory bounded by `--memory-budget` (plus the ids of the documents in pairs when
//! `--pairs-out` is asked for).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use ndd_pipeline::corpus::ReadOptions;
use ndd_pipeline::{OutOfCore, OutOfCoreOutcome};

use crate::args::DedupArgs;
use crate::error::CliError;
use crate::files::{self, Output, Target};
use crate::input::{RecordFile, Records, Source};
use crate::output::{self, DocRow, Format, Writers};
use crate::progress::Bars;
use crate::settings;
use crate::skipped::{self, Shared, Skipped};
use crate::stream::Reader;
use crate::summary::{self, Facts, Fates, MethodFacts, PairFacts, Time, VerifyFacts};

/// Runs `ndd dedup --work-dir`.
pub(crate) fn run(a: &DedupArgs, work_dir: &Path) -> Result<(), CliError> {
    let started = Instant::now();
    if a.index.index_in.is_some() || a.index.index_out.is_some() {
        return Err(CliError::Usage(
            "--work-dir cannot be combined with --index-in or --index-out".to_owned(),
        ));
    }
    let attributes = settings::attribute_fields(&a.method, &a.input)?;
    let dedup = &settings::dedup(&a.method, &attributes)?;
    let options = &settings::read_options(&a.input, &attributes);
    let o = &a.output;
    let unsupported = [
        ("--annotate-out", o.annotate_out.is_some()),
        ("--explain-out", o.explain_out.is_some()),
        ("--members-out", o.members_out.is_some()),
        ("--report-out", o.report_out.is_some()),
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
            .map_err(|e| crate::error::usage_of("--memory-budget", e))?;
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
        (Output::Keep, o.keep_out.as_deref()),
        (Output::Drop, o.drop_out.as_deref()),
        (Output::Pairs, o.pairs_out.as_deref()),
        (Output::Clusters, o.clusters_out.as_deref()),
        (Output::Problems, a.input.problems_out.as_deref()),
    ];
    let targets = files::check(
        &outputs,
        Some(path),
        None,
        false,
        &files::method_reads(&a.method),
    )?;
    check_work_dir(work_dir, path, &targets)?;

    let bars = Arc::new(Bars::new(a.quiet));
    let job = job
        .input_fingerprint(ndd_pipeline::corpus::input_content_fingerprint(path)?)
        .progress(bars.clone());
    let skipped = Skipped::shared(a.input.problems_out.is_some(), path.is_dir())?;
    let mut reader = Reader::open(path, options)?.with_skipped(&skipped);
    let outcome = job.run(&mut reader)?;
    reader.finish(&source, outcome.documents)?;
    drop(reader);

    let write_started = Instant::now();
    if !targets.is_empty() {
        write_outputs(&targets, &outcome, path, options, a.output.format, &skipped)?;
    }
    let write_time = write_started.elapsed();
    let kept = outcome.documents - outcome.duplicates();
    let stages = outcome
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
    let facts = Facts {
        input: source.name(),
        documents: outcome.documents,
        fates: Fates::Grouped {
            unique: kept - outcome.groups,
            kept: outcome.groups,
            exact: outcome.exact_copies_dropped,
            near: outcome.duplicates() - outcome.exact_copies_dropped,
        },
        method: Some(MethodFacts {
            name: dedup.method_config().name().to_owned(),
            threshold: Some(dedup.threshold_value()),
            work_dir: Some(work_dir.to_path_buf()),
        }),
        // Counted as in memory: the candidates verified (past the estimate's floor)
        // and the near-duplicate pairs among them, the exact copies' pairs apart.
        verify: Some(VerifyFacts {
            name: dedup.verifier_config().name(),
            checked: outcome.verified,
            accepted: outcome.pairs - outcome.exact_copies,
        }),
        pairs: Some(PairFacts {
            pairs: outcome.pairs,
            groups: outcome.groups,
            whole_collection: false,
        }),
        bucket_scan: outcome.bucket_scan,
        time: Time::OutOfCore {
            stages,
            outputs: write_time,
            total: started.elapsed(),
        },
        disk: Some(outcome.stages.iter().map(|st| st.bytes_written).sum()),
        groups: crate::groups::largest(&outcome, path, options, a.top)?,
        peak_memory: summary::peak_memory(),
        wrote: targets,
        skipped: skipped::lock(&skipped).kinds(),
        ..Facts::default()
    };
    summary::print(&facts.render(), a.quiet);
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
    skipped: &Shared,
) -> Result<(), CliError> {
    let mut writers = Writers::create(targets, format)?;
    skipped::write_list(&mut writers, skipped)?;
    // The ids of the documents in pairs, for --pairs-out.
    let mut ids: HashMap<u64, String> = HashMap::new();
    if writers.wants(Output::Pairs) {
        for p in outcome.scored_pairs()? {
            let p = p?;
            ids.insert(p.a as u64, String::new());
            ids.insert(p.b as u64, String::new());
        }
    }
    let mut records = if path.is_file() && writers.wants_records() {
        Some(Records::open(&RecordFile::Path(path.to_path_buf()))?)
    } else {
        None
    };
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
        let line = reader.line();
        let record = Records::wanted(&mut records, line, kept)?;
        writers.document(&DocRow {
            id: &doc.id,
            text: &doc.text,
            record,
            line,
            kept,
            cluster: Some(label),
            annotation: None,
        })?;
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
    // --pairs-out, as the in-memory run writes it: `(a, b)` order, ids and scores.
    if writers.wants(Output::Pairs) {
        let id = |p: usize| ids.get(&(p as u64)).map_or("", String::as_str);
        for p in outcome.scored_pairs()? {
            let p = p?;
            writers.pair(id(p.a), id(p.b), p.score)?;
        }
    }
    output::commit(writers.finish()?)
}

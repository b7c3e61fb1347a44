//! `ndd dedup --work-dir DIR`: the out-of-core MinHash or SimHash stages over a file or
//! folder, then a second streaming pass over the input that writes the outputs, with
//! the process's memory bounded by `--memory-budget` from 65 MiB up: the stages get
//! the budget less [`PROCESS_RESERVE`], the rest of the process (with the ids of the
//! documents in pairs when `--pairs-out` is asked for) lives in the reserve.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use ndd_pipeline::{Document, OutOfCore, OutOfCoreOutcome};

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

/// The part of the process that `--memory-budget` counts but the stages' budget does
/// not: the program and its libraries, the pool's threads, the reader's batches in
/// flight, the allocator's slack (freed pages it keeps, one arena per thread), the
/// ids of the documents in pairs. Measured (peak RSS less the stages' budget, on the
/// bench corpus and at 1M documents, docs/performance.md): 24–42 MiB, and the peak of
/// one setting moves by up to 10 MB from run to run (the allocator's arenas, the
/// threads' timing); 64 MiB with room.
pub(crate) const PROCESS_RESERVE: u64 = 64 << 20;

/// The stages' budget for a process budget of `budget` bytes: `budget` less
/// [`PROCESS_RESERVE`], at least the pipeline's minimum (a budget below the reserve
/// and the minimum, 65 MiB, is run with the minimum and its peak is above it: that
/// is the floor); a budget below the minimum is handed on as it is, to be refused.
fn stages_budget(budget: u64) -> u64 {
    let least = budget.min(ndd_pipeline::MIN_MEMORY_BUDGET);
    budget.saturating_sub(PROCESS_RESERVE).max(least)
}

/// What to tell a user whose process budget of `budget` bytes is below what the
/// process itself takes ([`PROCESS_RESERVE`] and the stages' minimum): the job runs,
/// with the stages at their minimum, and its peak is above the budget. `None` for a
/// budget that is held, or one the pipeline refuses (below its minimum).
fn floor_warning(budget: u64) -> Option<String> {
    let floor = PROCESS_RESERVE + ndd_pipeline::MIN_MEMORY_BUDGET;
    (ndd_pipeline::MIN_MEMORY_BUDGET..floor)
        .contains(&budget)
        .then(|| {
            format!(
                "--memory-budget {budget} bytes is below what the process itself takes ({} MiB \
                 and the stages' {} MiB): the stages run with their minimum and the peak \
                 memory will be above the budget",
                PROCESS_RESERVE >> 20,
                ndd_pipeline::MIN_MEMORY_BUDGET >> 20
            )
        })
}

/// Runs `ndd dedup --work-dir`.
pub(crate) fn run(a: &DedupArgs, work_dir: &Path) -> Result<(), CliError> {
    let started = Instant::now();
    if a.index.index_in.is_some() || a.index.index_out.is_some() {
        return Err(CliError::Usage(
            "--work-dir cannot be combined with --index-in or --index-out".to_owned(),
        ));
    }
    let attributes = settings::attribute_fields(&a.method, &a.input)?;
    let (dedup, plan) = settings::planned(&a.method, &attributes)?;
    let dedup = &dedup;
    let options = &settings::read_options(&a.input, &attributes);
    let o = &a.output;
    o.refuse(
        &[
            Output::Annotate,
            Output::Explain,
            Output::Members,
            Output::Report,
        ],
        "is not available with --work-dir (it needs every document in memory); \
         --keep-out, --drop-out, --pairs-out and --clusters-out are",
    )?;
    let mut job = OutOfCore::from_plan(plan, work_dir)
        .map_err(|e| CliError::Usage(format!("--work-dir: {e}")))?;
    let budget = a
        .scale
        .memory_budget
        .unwrap_or(ndd_pipeline::DEFAULT_MEMORY_BUDGET);
    job = job
        .memory_budget(stages_budget(budget))
        .map_err(|e| crate::error::usage_of("--memory-budget", e))?;
    if let Some(warning) = floor_warning(budget) {
        eprintln!("warning: {warning}");
    }
    let source = Source::resolve(a.input.input.as_deref())?;
    let Some(path) = source.path() else {
        return Err(CliError::Usage(
            "--work-dir reads the input twice (once for the stages, once for the outputs): \
             give a file or folder, not standard input"
                .to_owned(),
        ));
    };
    // The in-memory-only outputs are refused above.
    let mut outputs = o.files().to_vec();
    outputs.push((Output::Problems, a.input.problems_out.as_deref()));
    let targets = files::check(&outputs, Some(path), None, false, &a.method.reads())?;
    check_work_dir(work_dir, path, &targets)?;

    let bars = Arc::new(Bars::new(a.quiet));
    // A whole reading of the input: beside the sketch stage when the work folder has
    // nothing to reuse, first when it has (the pipeline decides).
    let input = path.to_path_buf();
    let job = job
        .input_fingerprint_with(move || {
            Ok(ndd_pipeline::corpus::input_content_fingerprint(&input)?)
        })
        .progress(bars.clone());
    let skipped = Skipped::shared(a.input.problems_out.is_some(), path.is_dir())?;
    let mut reader = Reader::open(path, options)?.with_skipped(&skipped);
    let mut logged = Logged::new(&mut reader, work_dir, !targets.is_empty());
    let outcome = job.run(&mut logged);
    let rows = logged.finish(outcome.as_ref().map_or(0, |o| o.documents));
    let outcome = outcome?;
    reader.finish(&source, outcome.documents)?;
    drop(reader);

    let write_started = Instant::now();
    let written = if targets.is_empty() {
        Ok(())
    } else {
        let rows = match &rows {
            Some(file) => Rows::logged(file)?,
            None => Rows::decoded(Reader::open(path, options)?),
        };
        write_outputs(&targets, &outcome, path, rows, a.output.format, &skipped)
    };
    if let Some(file) = rows {
        // Best effort: a file left behind is replaced by the next run's.
        let _ = std::fs::remove_file(file);
    }
    written?;
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
        // Read from the input only to be shown: not under --quiet.
        groups: crate::groups::largest(&outcome, path, options, if a.quiet { 0 } else { a.top })?,
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

/// The work file where the first reading of a JSONL file notes each document's line
/// and id ([`Logged`]), read back by the outputs pass ([`Rows::logged`]) and removed
/// after it. Its name is none of the stages' own (they remove theirs by name).
const ROWS_FILE: &str = "tool-rows.tmp";

/// The documents of the stages' reading, passed on, each one's line and id noted in
/// [`ROWS_FILE`]: the outputs pass then copies the kept records by line and writes ids
/// without decoding the input's JSON a second time. Nothing is noted for a folder
/// (its documents have no line) or when no output is written.
struct Logged<'a> {
    reader: &'a mut Reader,
    path: PathBuf,
    notes: Notes,
    documents: u64,
    /// Whether the reader was read to its end.
    ended: bool,
}

/// Where [`Logged`] stands with its file.
enum Notes {
    /// Noting applies, no document read yet (the file is made for the first).
    Ready,
    /// Noting into the file.
    Writing(BufWriter<File>),
    /// Not noting: it does not apply, or a step failed (a file made is removed by
    /// [`Logged::finish`]).
    Off,
}

impl<'a> Logged<'a> {
    fn new(reader: &'a mut Reader, work_dir: &Path, wanted: bool) -> Self {
        let notes = if wanted && matches!(reader, Reader::Jsonl(_)) {
            Notes::Ready
        } else {
            Notes::Off
        };
        Logged {
            reader,
            path: work_dir.join(ROWS_FILE),
            notes,
            documents: 0,
            ended: false,
        }
    }

    /// Notes the document just read; on any failure stops noting (the outputs pass
    /// then decodes the input again, as without the file).
    fn note(&mut self, id: &str) {
        let Some(line) = self.reader.line() else {
            self.notes = Notes::Off;
            return;
        };
        if matches!(self.notes, Notes::Ready) {
            self.notes = match File::create(&self.path) {
                Ok(f) => Notes::Writing(BufWriter::with_capacity(1 << 16, f)),
                Err(_) => Notes::Off,
            };
        }
        let Notes::Writing(w) = &mut self.notes else {
            return;
        };
        let len = u32::try_from(id.len()).ok();
        let ok = len.is_some_and(|len| {
            w.write_all(&line.to_le_bytes())
                .and_then(|()| w.write_all(&len.to_le_bytes()))
                .and_then(|()| w.write_all(id.as_bytes()))
                .is_ok()
        });
        if ok {
            self.documents += 1;
        } else {
            self.notes = Notes::Off;
        }
    }

    /// The file of the rows noted, when it holds every one of the `documents` the
    /// stages counted: the reader was read to its end in this run (not when the
    /// sketch stage was reused from an earlier run, which does not read it) and every
    /// write succeeded. Otherwise the file, if any, is removed and `None` returned.
    fn finish(self, documents: u64) -> Option<PathBuf> {
        let flushed = match self.notes {
            Notes::Writing(w) => w.into_inner().is_ok(),
            Notes::Ready | Notes::Off => false,
        };
        if flushed && self.ended && self.documents == documents {
            Some(self.path)
        } else {
            if self.path.is_file() {
                let _ = std::fs::remove_file(&self.path);
            }
            None
        }
    }
}

impl Iterator for Logged<'_> {
    type Item = Result<Document, ndd_pipeline::Error>;
    fn next(&mut self) -> Option<Self::Item> {
        let item = self.reader.next();
        match &item {
            Some(Ok(doc)) if !matches!(self.notes, Notes::Off) => self.note(&doc.id),
            Some(Ok(_)) => {}
            Some(Err(_)) => self.notes = Notes::Off,
            None => self.ended = true,
        }
        item
    }
}

/// One document of the outputs pass: its id, text and line.
type Row<'a> = (&'a str, &'a str, Option<u64>);

/// The documents of the outputs pass, in order: each one's id, text and line.
enum Rows {
    /// The input decoded again (a folder's documents, or a JSONL file whose rows
    /// were not noted in this run).
    Decoded {
        reader: Box<Reader>,
        doc: Option<Document>,
    },
    /// The rows [`Logged`] noted: ids and lines, no texts (a JSONL file's kept
    /// documents are written as their records, read by line).
    Logged {
        file: BufReader<File>,
        path: PathBuf,
        id: String,
    },
}

impl Rows {
    fn decoded(reader: Reader) -> Self {
        Rows::Decoded {
            reader: Box::new(reader),
            doc: None,
        }
    }

    fn logged(path: &Path) -> Result<Self, CliError> {
        let file =
            File::open(path).map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
        Ok(Rows::Logged {
            file: BufReader::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
            id: String::new(),
        })
    }

    /// The next document's id, text (empty for [`Rows::Logged`], whose documents'
    /// records are copied instead) and line; `None` after the last.
    fn next(&mut self) -> Result<Option<Row<'_>>, CliError> {
        match self {
            Rows::Decoded { reader, doc } => {
                let Some(next) = reader.next() else {
                    return Ok(None);
                };
                let d = doc.insert(next?);
                Ok(Some((&d.id, &d.text, reader.line())))
            }
            Rows::Logged { file, path, id } => {
                let fail = |e: std::io::Error| CliError::Input(format!("{}: {e}", path.display()));
                if file.fill_buf().map_err(fail)?.is_empty() {
                    return Ok(None);
                }
                let (mut line, mut len) = ([0u8; 8], [0u8; 4]);
                file.read_exact(&mut line).map_err(fail)?;
                file.read_exact(&mut len).map_err(fail)?;
                let mut bytes = std::mem::take(id).into_bytes();
                bytes.resize(u32::from_le_bytes(len) as usize, 0);
                file.read_exact(&mut bytes).map_err(fail)?;
                *id = String::from_utf8(bytes)
                    .map_err(|e| fail(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
                Ok(Some((id, "", Some(u64::from_le_bytes(line)))))
            }
        }
    }
}

/// The ids of the documents in pairs, for `--pairs-out`: their positions, sorted, and
/// their ids one after the other in one string (about 16 bytes per document beside
/// the id's bytes; a map of strings took about 80).
#[derive(Default)]
struct PairedIds {
    /// The documents in pairs, in increasing order.
    docs: Vec<u64>,
    /// Where the id of `docs[i]` ends in `text`; noted in document order.
    ends: Vec<usize>,
    text: String,
}

impl PairedIds {
    /// The documents in `outcome`'s pairs, their ids not yet noted. Positions are
    /// sorted and deduplicated as the pairs are read (whenever they reach twice the
    /// count after the last deduplication), so memory grows with the documents in
    /// pairs, not with the pairs.
    fn of_pairs(outcome: &OutOfCoreOutcome) -> Result<Self, CliError> {
        let pairs = outcome
            .scored_pairs()?
            .map(|p| p.map(|p| [p.a as u64, p.b as u64]));
        Ok(PairedIds {
            docs: distinct_positions(pairs, 4_096)?,
            ..PairedIds::default()
        })
    }

    /// Notes document `pos`'s id if it is in a pair (documents come in order).
    fn note(&mut self, pos: u64, id: &str) {
        if self.docs.get(self.ends.len()) == Some(&pos) {
            self.text.push_str(id);
            self.ends.push(self.text.len());
        }
    }

    /// The id of document `pos`, "" if none was noted.
    fn get(&self, pos: u64) -> &str {
        let Ok(i) = self.docs.binary_search(&pos) else {
            return "";
        };
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1).copied().unwrap_or(0),
        };
        self.ends
            .get(i)
            .and_then(|&end| self.text.get(start..end))
            .unwrap_or("")
    }
}

/// The distinct positions of `pairs`, in increasing order: sorted and deduplicated
/// whenever they reach twice the count after the last deduplication (`first` at
/// first), so at most about twice the distinct positions are held.
fn distinct_positions<E>(
    pairs: impl IntoIterator<Item = Result<[u64; 2], E>>,
    first: usize,
) -> Result<Vec<u64>, E> {
    let mut docs: Vec<u64> = Vec::new();
    let mut after_dedup = 0usize;
    for pair in pairs {
        docs.extend(pair?);
        if docs.len() >= first.max(2 * after_dedup) {
            docs.sort_unstable();
            docs.dedup();
            after_dedup = docs.len();
        }
    }
    docs.sort_unstable();
    docs.dedup();
    docs.shrink_to_fit();
    Ok(docs)
}

/// The second pass: the documents again ([`Rows`]) beside the assignments (both in
/// document order), each output written to its temporary file, then all moved into
/// place.
fn write_outputs(
    targets: &[Target],
    outcome: &OutOfCoreOutcome,
    path: &Path,
    mut rows: Rows,
    format: Format,
    skipped: &Shared,
) -> Result<(), CliError> {
    let mut writers = Writers::create(targets, format)?;
    skipped::write_list(&mut writers, skipped)?;
    // The ids of the documents in pairs, for --pairs-out.
    let mut ids = if writers.wants(Output::Pairs) {
        PairedIds::of_pairs(outcome)?
    } else {
        PairedIds::default()
    };
    let mut records = if path.is_file() && writers.wants_records() {
        Some(Records::open(&RecordFile::Path(path.to_path_buf()))?)
    } else {
        None
    };
    let mut assignments = outcome.assignments()?.peekable();
    let mut pos = 0u64;
    while let Some((id, text, line)) = rows.next()? {
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
        ids.note(pos, id);
        let record = Records::wanted(&mut records, line, kept)?;
        writers.document(&DocRow {
            id,
            text,
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
        let id = |p: usize| ids.get(p as u64);
        for p in outcome.scored_pairs()? {
            let p = p?;
            writers.pair(id(p.a), id(p.b), p.score)?;
        }
    }
    output::commit(writers.finish()?)
}

#[cfg(test)]
mod tests {
    use super::{PROCESS_RESERVE, distinct_positions, floor_warning, stages_budget};
    use ndd_pipeline::MIN_MEMORY_BUDGET;

    #[test]
    fn the_stages_get_the_budget_less_the_reserve_at_least_the_minimum() {
        let mib = 1u64 << 20;
        assert_eq!(stages_budget(117 * mib), 53 * mib);
        assert_eq!(
            stages_budget(PROCESS_RESERVE + MIN_MEMORY_BUDGET),
            MIN_MEMORY_BUDGET
        );
        // Below the floor: the minimum; below the minimum: refused downstream.
        assert_eq!(stages_budget(16 * mib), MIN_MEMORY_BUDGET);
        assert_eq!(stages_budget(10), 10);
    }

    #[test]
    fn a_budget_below_the_process_floor_is_warned_of_and_a_held_one_is_not() {
        let mib = 1u64 << 20;
        let floor = PROCESS_RESERVE + MIN_MEMORY_BUDGET;
        assert!(floor_warning(16 * mib).is_some_and(|w| w.contains("above the budget")));
        assert!(floor_warning(floor - 1).is_some());
        assert_eq!(floor_warning(floor), None);
        assert_eq!(floor_warning(117 * mib), None);
        // Below the pipeline's minimum the budget is refused, not warned of.
        assert_eq!(floor_warning(MIN_MEMORY_BUDGET - 1), None);
    }

    #[test]
    fn positions_deduplicated_as_they_come_equal_one_sort_at_the_end() {
        // Pairs over 50 documents, many repeats: with a first bound of 4, many
        // intermediate deduplications.
        let mut x: u64 = 5;
        let pairs: Vec<[u64; 2]> = (0..2_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                [(x >> 33) % 50, (x >> 40) % 50 + 50]
            })
            .collect();
        let mut expected: Vec<u64> = pairs.iter().flatten().copied().collect();
        expected.sort_unstable();
        expected.dedup();
        for first in [1, 4, 4_096] {
            let got = distinct_positions(pairs.iter().map(|&p| Ok::<_, ()>(p)), first);
            assert_eq!(got, Ok(expected.clone()), "first {first}");
        }
        let failed = distinct_positions([Ok([1, 2]), Err("bad"), Ok([3, 4])], 4);
        assert_eq!(failed, Err("bad"));
    }
}

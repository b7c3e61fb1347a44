//! `ndd dedup` in memory: every document read, deduplicated in one run or against a
//! saved index (two engines, chosen in `main`), the outputs written, the summary
//! printed.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use ndd_pipeline::{
    Dedup, DedupIndex, DocDigest, Document, ExactPass, Fate, Outcome, Plan, Progress,
    SegmentedIndex,
};

use crate::args::{DedupArgs, GroupName};
use crate::error::CliError;
use crate::files::{self, Output, Target};
use crate::found::Found;
use crate::input::{self, Records, Source};
use crate::output::{self, Annotation, DocRow, Writers};
use crate::progress::Bars;
use crate::skipped::{Skipped, decoded};
use crate::summary::{self, Facts, Fates, GroupFacts, MethodFacts, PairFacts, Time, VerifyFacts};
use crate::{explain_out, report_out, settings};

/// The largest index file loaded: a saved index takes about 60 bytes per document and
/// 8 per distinct shingle (with sets, the default) or `8 × num_perm + 60` (verified by
/// the estimate), so 64 GiB is tens of millions of documents.
pub(crate) const MAX_INDEX_BYTES: u64 = 64 << 30;

/// Runs `ndd dedup` in memory, without a saved index.
pub(crate) fn run(a: &DedupArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let attributes = settings::attribute_fields(&a.method, &a.input)?;
    let (dedup, plan) = settings::planned(&a.method, &attributes)?;
    run_with(a, &dedup, Engine::Plan(&plan), &attributes, started)
}

/// Runs `ndd dedup` against a saved index (`--index-in`), or saving one
/// (`--index-out`).
pub(crate) fn run_with_index(a: &DedupArgs) -> Result<(), CliError> {
    let started = Instant::now();
    // Settings: from the saved index, or from the options.
    let index = match a.index.index_in.as_deref() {
        Some(path) => {
            let given = a.method.given();
            if !given.is_empty() {
                return Err(CliError::Usage(format!(
                    "{} cannot be combined with --index-in: the saved index decides how \
                     documents are compared",
                    given.join(", ")
                )));
            }
            // A folder that only grows (or is only read) is checked one segment at a
            // time; another output needs the whole index.
            let mut ix = if path.is_dir() && a.index.index_out.is_none() {
                Index::Segmented(
                    SegmentedIndex::open(path)
                        .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?,
                )
            } else {
                Index::Whole(read_index(path)?)
            };
            // A setting of the process, not saved with the index.
            if let Some(scan) = a.method.max_bucket_scan {
                ix.set_max_bucket_scan(scan.0);
            }
            Some(ix)
        }
        None => None,
    };
    let attributes = settings::attribute_fields(&a.method, &a.input)?;
    if a.method.group != GroupName::Components {
        return Err(CliError::Usage(format!(
            "--group {} cannot be combined with --index-out: a saved index groups \
             by connected components",
            a.method.group.name()
        )));
    }
    let (dedup, mut index) = match index {
        Some(ix) => (ix.settings(), ix),
        None => {
            // A new index is built from the plan the settings were checked with (the
            // MinHash banding searched once), refusing what an index cannot do before
            // anything is read.
            let (dedup, plan) = settings::planned(&a.method, &attributes)?;
            let ix = DedupIndex::from_plan(plan).map_err(|e| {
                CliError::Usage(format!(
                    "--index-out: {e} (an index supports --method minhash, verified by \
                     jaccard, containment or the estimate, keeping the first document)"
                ))
            })?;
            (dedup, Index::Whole(ix))
        }
    };
    run_with(a, &dedup, Engine::Index(&mut index), &attributes, started)
}

/// What a run deduplicates with: the settings' validated plan (a run of its own), or
/// the index its batch is added to.
enum Engine<'p> {
    Plan(&'p Plan),
    Index(&'p mut Index),
}

impl Engine<'_> {
    /// Deduplicates `docs`: by the plan (from the exact pass's `digests` when the
    /// read found them), or added to the index (refused when the index already holds
    /// one of their ids). Returns the position of the first document in the
    /// collection (0 without an index) and the outcome.
    fn run(
        &mut self,
        docs: &[Document],
        digests: Option<Vec<DocDigest>>,
        index_in: Option<&Path>,
        progress: &dyn Progress,
    ) -> Result<(usize, Outcome), CliError> {
        match self {
            Engine::Plan(plan) => Ok((
                0,
                match digests {
                    Some(digests) => plan.run_digested(docs, digests, progress)?,
                    None => plan.run(docs, progress)?,
                },
            )),
            Engine::Index(ix) => {
                refuse_known_ids(ix, docs, index_in)?;
                let base = ix.ids().len();
                Ok((base, ix.add_with_progress(docs, progress)?))
            }
        }
    }

    /// The ids of the collection the outcome numbers: the index's (earlier batches
    /// and `docs`), or those of `docs`.
    fn ids<'a>(&'a self, docs: &'a [Document]) -> Vec<&'a str> {
        match self {
            Engine::Plan(_) => docs.iter().map(|d| d.id.as_str()).collect(),
            Engine::Index(ix) => ix.ids().iter().map(String::as_str).collect(),
        }
    }

    /// The exact pass whose digests the read finds as it decodes the documents: the
    /// plan's, for a plan run (an index digests as it adds).
    fn exact_pass(&self) -> Option<ExactPass> {
        match self {
            Engine::Plan(plan) => plan.exact_pass(),
            Engine::Index(_) => None,
        }
    }
}

/// The index a run adds its batch to: loaded whole, or a folder read one segment at a
/// time (the same pairs, groups and segments; see [`SegmentedIndex`]).
enum Index {
    Whole(DedupIndex),
    Segmented(SegmentedIndex),
}

impl Index {
    fn settings(&self) -> Dedup {
        match self {
            Index::Whole(ix) => ix.settings(),
            Index::Segmented(ix) => ix.settings(),
        }
    }

    fn set_max_bucket_scan(&mut self, members: Option<usize>) {
        match self {
            Index::Whole(ix) => ix.set_max_bucket_scan(members),
            Index::Segmented(ix) => ix.set_max_bucket_scan(members),
        }
    }

    fn ids(&self) -> &[String] {
        match self {
            Index::Whole(ix) => ix.ids(),
            Index::Segmented(ix) => ix.ids(),
        }
    }

    fn add_with_progress(
        &mut self,
        docs: &[Document],
        progress: &dyn Progress,
    ) -> Result<Outcome, ndd_pipeline::Error> {
        match self {
            Index::Whole(ix) => ix.add_with_progress(docs, progress),
            Index::Segmented(ix) => ix.add_with_progress(docs, progress),
        }
    }

    /// The single-file byte form (a segmented index is only ever saved to its folder).
    fn to_bytes(&self) -> Result<Vec<u8>, CliError> {
        match self {
            Index::Whole(ix) => Ok(ix.to_bytes()),
            Index::Segmented(_) => Err(CliError::Output(
                "a folder index read one segment at a time is saved only to its folder".to_owned(),
            )),
        }
    }

    /// Saves to the folder `dir`: a whole index anywhere, a segmented one to the
    /// folder it was opened from (`--add`).
    fn save_dir(&mut self, dir: &Path) -> Result<(), ndd_pipeline::Error> {
        match self {
            Index::Whole(ix) => ix.save_dir(dir),
            Index::Segmented(ix) => ix.save(),
        }
    }
}

/// Reads a saved index: a folder (the manifest and its segments) or one file.
pub(crate) fn read_index(path: &Path) -> Result<DedupIndex, CliError> {
    let index = if path.is_dir() {
        DedupIndex::load_dir(path)
    } else {
        DedupIndex::from_bytes(&input::read_bounded(
            path,
            MAX_INDEX_BYTES,
            Some(DedupIndex::MAGIC),
        )?)
    };
    index.map_err(|e| CliError::Input(format!("{}: {e}", path.display())))
}

/// Refuses a batch whose documents the index already holds (by id): a batch added
/// twice had every document "dropped" as a copy of itself, without a word.
fn refuse_known_ids(
    ix: &Index,
    docs: &[Document],
    index_in: Option<&Path>,
) -> Result<(), CliError> {
    let known: std::collections::HashSet<&str> = ix.ids().iter().map(String::as_str).collect();
    let present: Vec<&str> = docs
        .iter()
        .map(|d| d.id.as_str())
        .filter(|id| known.contains(id))
        .collect();
    let Some(first) = present.first() else {
        return Ok(());
    };
    Err(CliError::Input(format!(
        "{}: {} of the {} documents of this batch are already in the index (ids {first:?}{}); \
         was this batch added before? Give each document a new id",
        index_in.map_or_else(|| "--index-in".to_owned(), |p| p.display().to_string()),
        present.len(),
        docs.len(),
        if present.len() > 1 { ", …" } else { "" },
    )))
}

/// The run itself: outputs checked, the input read, deduplicated by `engine`, the
/// outputs written and the summary printed.
fn run_with(
    a: &DedupArgs,
    dedup: &Dedup,
    mut engine: Engine<'_>,
    attributes: &[(String, settings::Roles)],
    started: Instant,
) -> Result<(), CliError> {
    let index_in = a.index.index_in.as_deref();
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
    let index_target: Option<(Output, &Path)> = match (&a.index.index_out, a.index.add) {
        (Some(p), _) => Some((Output::IndexOut, p)),
        (None, true) => index_in.map(|p| (Output::Add, p)),
        (None, false) => None,
    };
    let o = &a.output;
    let mut outputs = o.files().to_vec();
    outputs.push((Output::Problems, a.input.problems_out.as_deref()));
    if let Some((output, p)) = index_target {
        outputs.push((output, Some(p)));
    }
    let targets = files::check(
        &outputs,
        source.path(),
        index_in,
        a.index.add,
        &a.method.reads(),
    )?;

    // Read.
    let bars = Arc::new(Bars::new(a.quiet));
    let read_started = Instant::now();
    let options = settings::read_options(&a.input, attributes);
    let (input, digests) = input::read_digested(
        &source,
        &options,
        &bars,
        o.keep_out.is_some() || o.annotate_out.is_some(),
        engine.exact_pass(),
    )?;
    let read_time = read_started.elapsed();
    let mut skipped = Skipped::of_corpus(&input.corpus, &options, a.input.problems_out.is_some())?;
    let docs = &input.corpus.documents;

    // Deduplicate.
    let (base, outcome) = engine.run(docs, digests, index_in, bars.as_ref())?;
    let found = Found {
        docs,
        base,
        ids: engine.ids(docs),
        outcome,
    };

    // Write everything, then move it into place.
    // A folder index saves itself, after the other outputs.
    let mut writers = Writers::create(targets.iter().filter(|t| !t.folder), a.output.format)?;
    writers.copy_shards(&input)?;
    let mut records = match &input.records {
        Some(file) if writers.wants_records() => Some(Records::open(file)?),
        _ => None,
    };
    // Without a document output (the summary alone), no row to fill.
    let rows = if writers.wants_documents() {
        docs.len()
    } else {
        0
    };
    for (i, d) in docs.iter().enumerate().take(rows) {
        let g = found.base + i;
        let fate = found.outcome.fate(g);
        let label = found.label(g);
        let line = input.corpus.lines.get(i).copied();
        let record = Records::wanted(&mut records, line, true)?;
        writers.document(&DocRow {
            id: &d.id,
            text: &d.text,
            record,
            line,
            kept: fate.is_kept(),
            cluster: Some(label as u64),
            annotation: Some(Annotation {
                group: found.ids[label],
                reason: fate.name(),
            }),
        })?;
    }
    if writers.wants(Output::Pairs) {
        for p in &found.outcome.pairs {
            writers.pair(found.ids[p.a], found.ids[p.b], p.score)?;
        }
    }
    let nfkc = dedup.nfkc_value();
    writers.whole(Output::Explain, |w| explain_out::write(w, &found, nfkc))?;
    writers.whole(Output::Members, |w| explain_out::members(w, &found, nfkc))?;
    writers.whole(Output::Problems, |w| skipped.write_to(w))?;
    if writers.wants(Output::Report) {
        let page = report_out::page(&source, &input.corpus, &found, dedup, read_time);
        writers.whole(Output::Report, |w| w.write_all(page.as_bytes()))?;
    }
    if let Engine::Index(ix) = &engine {
        if writers.wants(Output::IndexOut) || writers.wants(Output::Add) {
            let bytes = ix.to_bytes()?;
            for output in [Output::IndexOut, Output::Add] {
                writers.whole(output, |w| w.write_all(&bytes))?;
            }
        }
    }
    output::commit(writers.finish()?)?;

    let facts = Facts {
        skipped: skipped.kinds(),
        decoded: decoded(&input.corpus.stats, a.input.encoding),
        ..facts(&source, &input.corpus, &found, dedup, &targets, a.top)
    };
    let stages = found
        .outcome
        .report
        .timings
        .iter()
        .map(|(stage, d)| (stage.to_string(), *d))
        .collect();
    // The process ends here: its memory goes back to the system at once, without
    // freeing every document and pair one by one first.
    std::mem::forget(found);
    std::mem::forget(input);
    // A folder index: the new segment, then the manifest. An interrupt waits for it,
    // as for the commit of the outputs just made.
    if let (Engine::Index(ix), Some(t)) = (&mut engine, targets.iter().find(|t| t.folder)) {
        let _held = crate::interrupt::hold();
        ix.save_dir(&t.path)
            .map_err(|e| CliError::Output(format!("{} {e}", t.output.flag())))?;
    }
    let total = started.elapsed();
    let facts = Facts {
        time: Time::Stages {
            read: read_time,
            stages,
            total,
        },
        ..facts
    };
    summary::print(&facts.render(), a.quiet);
    Ok(())
}

/// The summary's facts of an in-memory run (its times aside).
fn facts(
    source: &Source,
    corpus: &ndd_pipeline::Corpus,
    f: &Found<'_>,
    dedup: &Dedup,
    targets: &[Target],
    top: usize,
) -> Facts {
    let r = &f.outcome.report;
    let (mut unique, mut kept, mut exact, mut near) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..f.docs.len() {
        match f.outcome.fate(f.base + i) {
            Fate::Unique => unique += 1,
            Fate::Kept => kept += 1,
            Fate::ExactCopy => exact += 1,
            _ => near += 1,
        }
    }
    let method = dedup.method_config();
    let durian = match dedup.group_config() {
        ndd_pipeline::GroupMethod::Durian(d) => Some((
            d.theta_value(),
            f.outcome
                .groups
                .iter()
                .filter(|g| g.copies.is_some())
                .count(),
        )),
        _ => None,
    };
    let groups = f
        .largest_groups(top)
        .into_iter()
        .map(|g| GroupFacts {
            size: g.members.len(),
            keep: f.ids[g.representative].to_owned(),
            members: g
                .members
                .iter()
                .take(6)
                .map(|&m| {
                    (
                        f.ids[m].to_owned(),
                        f.text(m).map(|t| summary::snippet(t, 60)),
                    )
                })
                .collect(),
        })
        .collect();
    Facts {
        input: source.name(),
        documents: f.docs.len() as u64,
        read: Some((r.bytes, corpus.problems.len())),
        indexed_before: f.base,
        fates: Fates::Grouped {
            unique,
            kept,
            exact,
            near,
        },
        method: Some(MethodFacts {
            name: r.method.to_string(),
            threshold: method.uses_threshold().then(|| dedup.threshold_value()),
            work_dir: None,
        }),
        verify: (f.base == 0 && r.verify.checked > 0).then(|| VerifyFacts {
            name: dedup.verifier_config().name(),
            checked: r.verify.checked,
            accepted: r.verify.accepted,
        }),
        pairs: Some(PairFacts {
            pairs: f.outcome.pairs.len() as u64,
            groups: f.outcome.groups.len() as u64,
            whole_collection: f.base > 0,
        }),
        bucket_scan: r.bucket_scan,
        durian,
        center: matches!(dedup.group_config(), ndd_pipeline::GroupMethod::Center),
        linkage: match dedup.group_config() {
            ndd_pipeline::GroupMethod::Linkage(l) => {
                Some((l.chain_floor_value(), l.fraction_value()))
            }
            _ => None,
        },
        wrote: targets.to_vec(),
        groups,
        ..Facts::default()
    }
}

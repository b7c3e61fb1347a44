//! `ndd dedup --bloom`: flag-only deduplication of a stream with Bloom filters,
//! saved and continued across runs.

use std::path::Path;
use std::time::Instant;

use ndd_pipeline::{
    BloomDedup, DEFAULT_BLOOM_CAPACITY, DEFAULT_BLOOM_FALSE_POSITIVE_RATE, Document, Method,
};

use crate::args::{DedupArgs, GroupName, RepresentativeName};
use crate::error::CliError;
use crate::files::{self, Output};
use crate::input::{self, Records, Source};
use crate::output::{self, DocRow, Writers};
use crate::progress::Bars;
use crate::settings;
use crate::skipped::{self, Skipped};
use crate::stream::Reader;
use crate::summary::{self, Facts, Fates, Time};

/// The largest filter file loaded: the filters' bit bound (`MAX_BLOOM_BITS` bits,
/// 16 GiB) and a little for the settings.
const MAX_BLOOM_BYTES: u64 = (ndd_pipeline::MAX_BLOOM_BITS / 8) + (1 << 20);

/// Documents sketched and checked per batch (sketched in parallel, checked in order).
const BATCH: usize = 4096;

/// Refuses what `--bloom` cannot do, before anything is read.
fn check_options(a: &DedupArgs) -> Result<(), CliError> {
    let usage = |m: String| Err(CliError::Usage(m));
    if !a.bloom.bloom {
        return usage(format!("{} belongs to --bloom", a.bloom.given().join(", ")));
    }
    let o = &a.output;
    o.refuse(
        &[Output::Pairs, Output::Explain],
        "cannot be combined with --bloom: a Bloom filter finds no pairs",
    )?;
    o.refuse(
        &[
            Output::Annotate,
            Output::Clusters,
            Output::Members,
            Output::Report,
        ],
        "cannot be combined with --bloom: a Bloom filter makes no groups",
    )?;
    let refused = [
        ("--index-in", a.index.index_in.is_some(), "use --bloom-in"),
        (
            "--index-out",
            a.index.index_out.is_some(),
            "use --bloom-out",
        ),
        (
            "--work-dir",
            a.scale.work_dir.is_some(),
            "the filters are the bounded state",
        ),
        (
            "--group",
            a.method.group != GroupName::Components,
            "a Bloom filter makes no groups",
        ),
        (
            "--method",
            !matches!(a.method.method, Method::MinHash(_)),
            "the filters band MinHash signatures",
        ),
        (
            "--verify",
            a.method.verify.is_some(),
            "a Bloom filter keeps no texts to verify",
        ),
        (
            "--representative",
            a.method.representative != RepresentativeName::First,
            "the first document of a stream is the one kept",
        ),
        (
            "--weights",
            a.method.weights.is_some(),
            "the filters take binary MinHash only",
        ),
        (
            "--no-exact-pass",
            a.method.no_exact_pass,
            "exact copies share every band and are flagged anyway",
        ),
        (
            "--max-bucket-scan",
            a.method.max_bucket_scan.is_some(),
            "a Bloom filter has no buckets",
        ),
    ];
    if let Some((flag, _, why)) = refused.iter().find(|r| r.1) {
        return usage(format!("{flag} cannot be combined with --bloom: {why}"));
    }
    if a.bloom.bloom_in.is_some() {
        let mut given = a.method.given();
        if a.bloom.bloom_capacity.is_some() {
            given.push("--bloom-capacity");
        }
        if a.bloom.bloom_fp_rate.is_some() {
            given.push("--bloom-fp-rate");
        }
        if a.bloom.bloom_verify {
            given.push("--bloom-verify");
        }
        if !given.is_empty() {
            return usage(format!(
                "{} cannot be combined with --bloom-in: the saved filters decide",
                given.join(", ")
            ));
        }
    }
    Ok(())
}

/// Runs `ndd dedup --bloom`.
pub(crate) fn run(a: &DedupArgs) -> Result<(), CliError> {
    let started = Instant::now();
    check_options(a)?;
    let bloom_in = a.bloom.bloom_in.as_deref();
    let mut filter = match bloom_in {
        Some(path) => {
            let bytes = input::read_bounded(path, MAX_BLOOM_BYTES, Some(BloomDedup::MAGIC))?;
            BloomDedup::from_bytes(&bytes)
                .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?
        }
        None => {
            let (_, plan) = settings::planned(&a.method, &[])?;
            let capacity = a.bloom.bloom_capacity.unwrap_or(DEFAULT_BLOOM_CAPACITY);
            let rate = a
                .bloom
                .bloom_fp_rate
                .unwrap_or(DEFAULT_BLOOM_FALSE_POSITIVE_RATE);
            let filter =
                BloomDedup::from_plan(plan, capacity, rate).map_err(crate::error::usage)?;
            if a.bloom.bloom_verify {
                filter.verifying()?
            } else {
                filter
            }
        }
    };
    let before = filter.len();

    // Outputs, checked before the work.
    let source = Source::resolve(a.input.input.as_deref())?;
    let o = &a.output;
    let outputs = [
        (Output::Keep, o.keep_out.as_deref()),
        (Output::Drop, o.drop_out.as_deref()),
        (Output::BloomOut, a.bloom.bloom_out.as_deref()),
        (Output::Problems, a.input.problems_out.as_deref()),
    ];
    let targets = files::check(&outputs, source.path(), bloom_in, true, &a.method.reads())?;

    let bars = Bars::new(a.quiet);
    let attributes = settings::attribute_fields(&a.method, &a.input)?;
    let options = settings::read_options(&a.input, &attributes);
    let mut writers = Writers::create(&targets, a.output.format)?;
    let skipped = Skipped::shared(
        a.input.problems_out.is_some(),
        source.path().is_some_and(Path::is_dir),
    )?;
    let flag_started = Instant::now();
    let (documents, flagged) = match source.path() {
        // A file or folder: read, flag and write in one pass, a batch at a time, so
        // memory is the filters and one batch whatever the input's size.
        Some(path) => {
            let mut reader = Reader::open(path, &options)?.with_skipped(&skipped);
            let mut records = if path.is_file() && writers.wants_records() {
                Some(Records::open(&input::RecordFile::Path(path.to_path_buf()))?)
            } else {
                None
            };
            let (mut documents, mut flagged) = (0u64, 0u64);
            let mut batch: Vec<(Document, Option<u64>)> = Vec::with_capacity(BATCH);
            loop {
                batch.clear();
                while batch.len() < BATCH {
                    let Some(doc) = reader.next() else { break };
                    batch.push((doc?, reader.line()));
                }
                if batch.is_empty() {
                    break;
                }
                let texts: Vec<&str> = batch.iter().map(|(d, _)| d.text.as_str()).collect();
                let flags = filter.check_then_insert_batch(&texts)?;
                for ((doc, line), &seen) in batch.iter().zip(&flags) {
                    documents += 1;
                    flagged += u64::from(seen);
                    write_fate(&mut writers, doc, *line, seen, &mut records)?;
                }
            }
            reader.finish(&source, documents)?;
            (documents, flagged)
        }
        // Standard input: read whole (its records are spooled to be copied unchanged).
        None => {
            let input = input::read(&source, &options, &bars, o.keep_out.is_some())?;
            skipped::report_problems(&input.corpus.problems, input.corpus.problems.len());
            input::check_fields(input.corpus.fields.as_ref(), &options)?;
            for p in &input.corpus.problems {
                skipped::lock(&skipped).add(p);
            }
            let docs = &input.corpus.documents;
            let mut records = match &input.records {
                Some(file) if writers.wants_records() => Some(Records::open(file)?),
                _ => None,
            };
            let mut flagged = 0u64;
            for (c, chunk) in docs.chunks(BATCH).enumerate() {
                let texts: Vec<&str> = chunk.iter().map(|d| d.text.as_str()).collect();
                let flags = filter.check_then_insert_batch(&texts)?;
                for (i, (doc, &seen)) in chunk.iter().zip(&flags).enumerate() {
                    flagged += u64::from(seen);
                    let line = input.corpus.lines.get(c * BATCH + i).copied();
                    write_fate(&mut writers, doc, line, seen, &mut records)?;
                }
            }
            (docs.len() as u64, flagged)
        }
    };
    let flag_time = flag_started.elapsed();

    // Move everything into place.
    writers.whole(Output::BloomOut, |w| w.write_all(&filter.to_bytes()))?;
    skipped::write_list(&mut writers, &skipped)?;
    output::commit(writers.finish()?)?;
    let facts = Facts {
        input: source.name(),
        documents,
        fates: Fates::Flagged(flagged),
        filters: filter_lines(&filter, before, bloom_in),
        time: Time::Flag {
            flag: flag_time,
            total: started.elapsed(),
        },
        wrote: targets,
        skipped: skipped::lock(&skipped).kinds(),
        ..Facts::default()
    };
    summary::print(&facts.render(), a.quiet);
    Ok(())
}

/// Hands `doc` to the outputs: kept when it was not flagged (to `--keep-out`), dropped
/// when it was (to `--drop-out`).
fn write_fate(
    writers: &mut Writers<'_>,
    doc: &Document,
    line: Option<u64>,
    flagged: bool,
    records: &mut Option<Records>,
) -> Result<(), CliError> {
    let record = Records::wanted(records, line, !flagged)?;
    writers.document(&DocRow {
        id: &doc.id,
        text: &doc.text,
        record,
        line,
        kept: !flagged,
        cluster: None,
        annotation: None,
    })
}

/// The summary's lines about the filters of a `--bloom` run.
fn filter_lines(filter: &BloomDedup, before: u64, bloom_in: Option<&Path>) -> Vec<String> {
    let f = filter.filter();
    let p = f.params();
    vec![
        format!(
            "filters:     {} bands x {} rows, {} bits and {} probes per band; {} documents \
             ({} before this input{}), capacity {}",
            p.bands(),
            p.rows(),
            f.bits_per_band(),
            f.hashes(),
            filter.len(),
            before,
            bloom_in.map_or(String::new(), |p| format!(", from {}", p.display())),
            f.capacity()
        ),
        format!(
            "false pos.:  per band {:.3e}, overall {:.3e} now (designed {:.3e} at capacity)",
            f.band_false_positive_rate(),
            f.false_positive_rate(),
            f.design_false_positive_rate()
        ),
        format!(
            "memory:      {:.1} bytes per document of capacity ({:.1} MB){}",
            f.bytes_per_document(),
            f.memory_bytes() as f64 / 1e6,
            if filter.is_verifying() {
                format!(
                    "; verification store {:.1} bytes per document added",
                    filter.verify_bytes_per_document()
                )
            } else {
                String::new()
            }
        ),
        if filter.is_verifying() {
            "below T:     flags verified by the estimate against the earlier documents \
             sharing a band (--bloom-verify)"
                .to_owned()
        } else {
            format!(
                "below T:     banding also flags pairs below the threshold: {:.3} of pairs \
                 spread evenly over [T/2, T) share a band (S-curve); --bloom-verify checks \
                 each flag",
                filter.expected_below_threshold()
            )
        },
    ]
}

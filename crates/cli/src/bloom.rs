//! `ndd dedup --bloom`: flag-only deduplication of a stream with Bloom filters,
//! saved and continued across runs.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ndd_pipeline::{
    BloomDedup, DEFAULT_BLOOM_CAPACITY, DEFAULT_BLOOM_FALSE_POSITIVE_RATE, Document,
};

use crate::args::{DedupArgs, GroupName, MethodName, RepresentativeName};
use crate::error::CliError;
use crate::input::{self, Records, Source};
use crate::output::{self, tsv_field};
use crate::progress::Bars;
use crate::settings;

/// The largest filter file loaded: the filters' bit bound (`MAX_BLOOM_BITS` bits,
/// 16 GiB) and a little for the settings.
const MAX_BLOOM_BYTES: u64 = (ndd_lsh::MAX_BLOOM_BITS / 8) + (1 << 20);

/// Documents sketched and checked per batch (sketched in parallel, checked in order).
const BATCH: usize = 4096;

/// Refuses what `--bloom` cannot do, before anything is read.
fn check_options(a: &DedupArgs) -> Result<(), CliError> {
    let usage = |m: String| Err(CliError::Usage(m));
    if !a.bloom.bloom {
        return usage(format!("{} belongs to --bloom", a.bloom.given().join(", ")));
    }
    let o = &a.output;
    let refused = [
        (
            "--pairs-out",
            o.pairs_out.is_some(),
            "a Bloom filter finds no pairs",
        ),
        (
            "--clusters-out",
            o.clusters_out.is_some(),
            "a Bloom filter makes no groups",
        ),
        (
            "--annotate-out",
            o.annotate_out.is_some(),
            "a Bloom filter makes no groups",
        ),
        (
            "--explain-out",
            o.explain_out.is_some(),
            "a Bloom filter finds no pairs",
        ),
        (
            "--members-out",
            o.members_out.is_some(),
            "a Bloom filter makes no groups",
        ),
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
            a.method.method != MethodName::Minhash,
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
            let bytes = input::read_bounded(path, MAX_BLOOM_BYTES)?;
            BloomDedup::from_bytes(&bytes)
                .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?
        }
        None => {
            let dedup = settings::dedup(&a.method, &[])?;
            let capacity = a.bloom.bloom_capacity.unwrap_or(DEFAULT_BLOOM_CAPACITY);
            let rate = a
                .bloom
                .bloom_fp_rate
                .unwrap_or(DEFAULT_BLOOM_FALSE_POSITIVE_RATE);
            BloomDedup::new(&dedup, capacity, rate)
                .map_err(|e| CliError::Usage(format!("--bloom: {e}")))?
        }
    };
    let before = filter.len();

    // Outputs, checked before the work.
    let source = Source::resolve(a.input.input.as_deref())?;
    let o = &a.output;
    let outputs = [
        ("--keep-out", o.keep_out.as_deref()),
        ("--drop-out", o.drop_out.as_deref()),
        ("--bloom-out", a.bloom.bloom_out.as_deref()),
    ];
    let targets = output::check(&outputs, source.path(), bloom_in, true)?;

    let bars = Bars::new(a.quiet);
    let attributes = settings::attribute_fields(&a.method, &a.input)?;
    let options = settings::read_options(&a.input, &attributes);
    let mut pending = Vec::new();
    for t in &targets {
        if t.flag != "--bloom-out" {
            pending.push((t, output::Pending::create(&t.path)?));
        }
    }
    let flag_started = Instant::now();
    let (documents, flagged) = match source.path() {
        // A file or folder: read, flag and write in one pass, a batch at a time, so
        // memory is the filters and one batch whatever the input's size.
        Some(path) => {
            let mut reader = crate::outofcore::Reader::open(path, &options)?;
            let mut records = if path.is_file() {
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
                    write_fate(&mut pending, doc, *line, seen, &mut records)?;
                }
            }
            reader.finish(&source, documents)?;
            (documents, flagged)
        }
        // Standard input: read whole (its records are spooled to be copied unchanged).
        None => {
            let input = input::read(&source, &options, &bars, o.keep_out.is_some())?;
            crate::dedup::report_problems(&input.corpus.problems, input.corpus.problems.len());
            let docs = &input.corpus.documents;
            let mut records = input.records.as_ref().map(Records::open).transpose()?;
            let mut flagged = 0u64;
            for (c, chunk) in docs.chunks(BATCH).enumerate() {
                let texts: Vec<&str> = chunk.iter().map(|d| d.text.as_str()).collect();
                let flags = filter.check_then_insert_batch(&texts)?;
                for (i, (doc, &seen)) in chunk.iter().zip(&flags).enumerate() {
                    flagged += u64::from(seen);
                    let line = input.corpus.lines.get(c * BATCH + i).copied();
                    write_fate(&mut pending, doc, line, seen, &mut records)?;
                }
            }
            (docs.len() as u64, flagged)
        }
    };
    let flag_time = flag_started.elapsed();

    // Move everything into place.
    let mut ready = Vec::new();
    for (_, p) in pending {
        ready.push(p.finish()?);
    }
    for t in &targets {
        if t.flag == "--bloom-out" {
            let mut p = output::Pending::create(&t.path)?;
            p.writer()
                .write_all(&filter.to_bytes())
                .map_err(|e| CliError::output(&t.path, e))?;
            ready.push(p.finish()?);
        }
    }
    for r in ready {
        r.commit()?;
    }
    print!(
        "{}",
        summary(
            &source, documents, flagged, &filter, before, &targets, bloom_in
        ) + &format!(
            "time:        flag {flag_time:.2?}; total {:.2?}\n",
            started.elapsed()
        )
    );
    Ok(())
}

/// Writes `doc` to `--keep-out` when it was not flagged (its record unchanged when the
/// input is JSONL, `{"id", "text"}` for a folder's document) and its id to
/// `--drop-out` when it was.
fn write_fate(
    pending: &mut [(&output::Target, output::Pending)],
    doc: &Document,
    line: Option<u64>,
    flagged: bool,
    records: &mut Option<Records>,
) -> Result<(), CliError> {
    for (t, p) in pending.iter_mut() {
        let io = |e: std::io::Error| CliError::output(&t.path, e);
        let w = p.writer();
        match t.flag {
            "--keep-out" if !flagged => {
                match (records.as_mut(), line) {
                    (Some(records), Some(line)) => w.write_all(records.at(line)?).map_err(io)?,
                    _ => serde_json::to_writer(
                        &mut *w,
                        &serde_json::json!({ "id": doc.id, "text": doc.text }),
                    )
                    .map_err(|e| io(e.into()))?,
                }
                w.write_all(b"\n").map_err(io)?;
            }
            "--drop-out" if flagged => {
                tsv_field(w, &doc.id).map_err(io)?;
                w.write_all(b"\n").map_err(io)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The summary of a `--bloom` run.
fn summary(
    source: &Source,
    documents: u64,
    n: u64,
    filter: &BloomDedup,
    before: u64,
    targets: &[output::Target],
    bloom_in: Option<&Path>,
) -> String {
    let f = filter.filter();
    let mut s = String::new();
    let _ = writeln!(s, "input:       {}", source.name());
    let _ = writeln!(s, "documents:   {documents} read");
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
    let p = f.params();
    let _ = writeln!(
        s,
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
    );
    let _ = writeln!(
        s,
        "false pos.:  per band {:.3e}, overall {:.3e} now (designed {:.3e} at capacity)",
        f.band_false_positive_rate(),
        f.false_positive_rate(),
        f.design_false_positive_rate()
    );
    let _ = writeln!(
        s,
        "memory:      {:.1} bytes per document of capacity ({:.1} MB)",
        f.bytes_per_document(),
        f.memory_bytes() as f64 / 1e6
    );
    if !targets.is_empty() {
        let list: Vec<String> = targets
            .iter()
            .map(|t| format!("{} ({})", t.path.display(), t.flag))
            .collect();
        let _ = writeln!(s, "wrote:       {}", list.join(", "));
    }
    s
}

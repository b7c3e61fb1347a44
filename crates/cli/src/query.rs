//! `ndd query`: top-k or containment search of query texts against a saved index.

use std::io::Write;
use std::time::Instant;

use ndd_pipeline::corpus::{ErrorPolicy, ReadOptions};
use ndd_pipeline::{ContainmentSearch, Neighbour, NeighbourSearch};

use crate::args::{OnError, QueryArgs};
use crate::error::CliError;
use crate::files::{self, Output};
use crate::input::{self, Source};
use crate::progress::Bars;

/// The search a run does.
enum Search<'a> {
    TopK(NeighbourSearch<'a>, usize),
    Containment(ContainmentSearch<'a>),
}

/// Runs `ndd query`.
pub(crate) fn run(a: &QueryArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let usage = |m: String| CliError::Usage(m);
    if a.candidates_per_result == 0 {
        return Err(usage("--candidates-per-result must be at least 1".into()));
    }
    if a.max_examined == 0 {
        return Err(usage("--max-examined must be at least 1".into()));
    }
    // Outputs checked before anything is read: not the input, not the index.
    let source = Source::resolve(Some(&a.input))?;
    let targets = files::check(
        &[(Output::Out, a.out.as_deref())],
        source.path(),
        Some(&a.index),
        false,
        &[],
    )?;

    let index = crate::memory::read_index(&a.index)?;
    let index_error =
        |e: ndd_pipeline::Error| CliError::Input(format!("{}: {e}", a.index.display()));
    let search = match (a.top_k, a.containment) {
        (Some(k), _) => {
            let k = usize::try_from(k).map_err(|_| usage("--top-k is too large".into()))?;
            let search = NeighbourSearch::builder(&index)
                .map_err(index_error)?
                .shape(a.trees, a.depth)
                .map_err(|e| crate::error::usage_of("--trees/--depth", e))?
                .candidates_per_result(a.candidates_per_result)
                .max_examined(a.max_examined)
                .build()?;
            Search::TopK(search, k)
        }
        (None, Some(t)) => {
            let mut b = ContainmentSearch::builder(&index, t)
                .map_err(|e| crate::error::usage_of("--containment", e))?;
            if let Some(n) = a.partitions_per_doubling {
                b = b
                    .partitions_per_doubling(n)
                    .map_err(|e| crate::error::usage_of("--partitions-per-doubling", e))?;
            }
            if let Some(r) = a.max_rows {
                b = b
                    .max_rows(r)
                    .map_err(|e| crate::error::usage_of("--max-rows", e))?;
            }
            if let Some(w) = a.fn_weight {
                b = b
                    .false_negative_weight(w)
                    .map_err(|e| crate::error::usage_of("--fn-weight", e))?;
            }
            Search::Containment(b.build().map_err(index_error)?)
        }
        (None, None) => return Err(usage("give --top-k K or --containment T".into())),
    };

    // The queries.
    let options = ReadOptions::default()
        .with_id_field(a.id_field.clone())
        // As before: a corpus without ids is numbered by line.
        .with_id_required(false)
        .with_text_field(a.text_field.clone())
        .with_max_document_bytes(a.max_document_bytes)
        .with_errors(match a.on_error {
            OnError::Skip => ErrorPolicy::Skip,
            OnError::Stop => ErrorPolicy::Stop,
        });
    let bars = Bars::new(true);
    let queries = input::read(&source, &options, &bars, false)?;
    crate::skipped::report_problems(&queries.corpus.problems, queries.corpus.problems.len());
    let docs = &queries.corpus.documents;

    let ids = index.ids();
    let write = |out: &mut dyn Write, name: &str| -> Result<usize, CliError> {
        let mut answered = 0usize;
        for q in docs {
            let found: Vec<Neighbour> = match &search {
                Search::TopK(s, k) => s.top_k(&q.text, *k)?,
                Search::Containment(s) => s.query(&q.text)?,
            };
            answered += usize::from(!found.is_empty());
            let neighbours = found
                .iter()
                .map(|n| {
                    let id = ids.get(n.doc).ok_or_else(|| {
                        CliError::Input(format!(
                            "{}: the index names a document it does not hold",
                            a.index.display()
                        ))
                    })?;
                    // An estimate carries its standard error; exact scores stand alone.
                    Ok(match n.std_error {
                        Some(se) => {
                            serde_json::json!({ "id": id, "score": n.score, "std_error": se })
                        }
                        None => serde_json::json!({ "id": id, "score": n.score }),
                    })
                })
                .collect::<Result<Vec<serde_json::Value>, CliError>>()?;
            let line = serde_json::json!({ "id": q.id, "neighbours": neighbours });
            writeln!(out, "{line}").map_err(|e| CliError::Output(format!("{name}: {e}")))?;
        }
        Ok(answered)
    };
    let answered = match targets.first() {
        Some(t) => {
            let mut pending = files::Pending::create(&t.path)?;
            let n = write(pending.writer(), &t.path.display().to_string())?;
            pending.finish()?.commit()?;
            n
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = std::io::BufWriter::new(stdout.lock());
            let n = write(&mut lock, "<stdout>")?;
            lock.flush()
                .map_err(|e| CliError::Output(format!("<stdout>: {e}")))?;
            n
        }
    };
    if !a.quiet {
        let what = match &search {
            Search::TopK(s, k) if s.exact_scores() => format!(
                "top {k} by exact Jaccard (LSH Forest, {} trees x {}, {} candidates per result \
                 re-ranked by the index's shingle sets)",
                s.forest().params().trees(),
                s.forest().params().depth(),
                s.forest().candidates_per_result()
            ),
            Search::TopK(s, k) => format!(
                "top {k} by estimated Jaccard (LSH Forest, {} trees x {}; the index keeps no \
                 shingle sets, so scores are MinHash estimates with their std_error)",
                s.forest().params().trees(),
                s.forest().params().depth()
            ),
            Search::Containment(s) => format!(
                "containment >= {}, {} (LSH Ensemble, {} partitions, false-negative weight {})",
                s.threshold(),
                if s.exact_scores() {
                    "exact from the index's shingle sets"
                } else {
                    "estimated (the index keeps no shingle sets; each score has its std_error)"
                },
                s.ensemble().partitions(),
                s.ensemble().params().weights().1
            ),
        };
        eprintln!(
            "queries: {} read, {answered} with results; {what}; index {} ({} documents); {:.2?}",
            docs.len(),
            a.index.display(),
            index.len(),
            started.elapsed()
        );
    }
    Ok(())
}

//! `ndd query`: top-k or containment search of query texts against a saved index.

use std::io::Write;
use std::time::Instant;

use ndd_pipeline::corpus::{ErrorPolicy, ReadOptions};
use ndd_pipeline::{
    ContainmentSearch, ContainmentSearchBuilder, Document, EnsembleParams, LshForestBuilder,
    Neighbour, NeighbourSearch, NeighbourSearchBuilder, SegmentedIndex,
};

use crate::args::{OnError, QueryArgs};
use crate::error::CliError;
use crate::files::{self, Output};
use crate::input::{self, Source};
use crate::progress::Bars;

/// The search a run does over an index file loaded whole.
enum Search<'a> {
    TopK(NeighbourSearch<'a>, usize),
    Containment(ContainmentSearch<'a>),
}

/// The search a run does over a folder, one segment at a time.
enum FolderSearch {
    TopK(LshForestBuilder<u32>, usize),
    Containment(EnsembleParams, f64),
}

/// What the summary line says of the search.
enum Described {
    TopK {
        k: usize,
        exact: bool,
        trees: usize,
        depth: usize,
        per_result: usize,
    },
    Containment {
        threshold: f64,
        exact: bool,
        partitions: usize,
        fn_weight: f64,
    },
}

impl Described {
    fn top_k(s: &NeighbourSearch<'_>, k: usize) -> Self {
        Described::TopK {
            k,
            exact: s.exact_scores(),
            trees: s.forest().params().trees(),
            depth: s.forest().params().depth(),
            per_result: s.forest().candidates_per_result(),
        }
    }
}

/// The `--top-k` knobs on a builder of the search.
fn top_k_settings<'a>(
    b: Result<NeighbourSearchBuilder<'a>, ndd_pipeline::Error>,
    a: &QueryArgs,
) -> Result<NeighbourSearchBuilder<'a>, CliError> {
    Ok(
        b.map_err(|e| CliError::Input(format!("{}: {e}", a.index.display())))?
            .shape(a.trees, a.depth)
            .map_err(|e| crate::error::usage_of("--trees/--depth", e))?
            .candidates_per_result(a.candidates_per_result)
            .max_examined(a.max_examined),
    )
}

/// The `--containment` knobs on a builder of the search.
fn containment_settings<'a>(
    mut b: ContainmentSearchBuilder<'a>,
    a: &QueryArgs,
) -> Result<ContainmentSearchBuilder<'a>, CliError> {
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
    Ok(b)
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
    let k = match (a.top_k, a.containment) {
        (Some(k), _) => Some(usize::try_from(k).map_err(|_| usage("--top-k is too large".into()))?),
        (None, Some(_)) => None,
        (None, None) => return Err(usage("give --top-k K or --containment T".into())),
    };
    let index_error =
        |e: ndd_pipeline::Error| CliError::Input(format!("{}: {e}", a.index.display()));
    if a.index.is_dir() {
        // A folder: one segment at a time, the answers of the whole load.
        let mut index = SegmentedIndex::open(&a.index).map_err(index_error)?;
        // The settings, checked and described through the search over the documents in
        // memory (none but what a segment holds).
        let (described, search) = match k {
            Some(k) => {
                let settings = top_k_settings(index.neighbour_search(), a)?;
                let described = Described::top_k(&settings.clone().build()?, k);
                (described, FolderSearch::TopK(settings.forest_builder(), k))
            }
            None => {
                let t = a.containment.unwrap_or(1.0);
                let b = index
                    .containment_search(t)
                    .map_err(|e| crate::error::usage_of("--containment", e))?;
                let settings = containment_settings(b, a)?;
                let s = settings.clone().build().map_err(index_error)?;
                let (params, threshold) = settings.into_params();
                let described = Described::Containment {
                    threshold: s.threshold(),
                    exact: s.exact_scores(),
                    partitions: index.containment_partitions(params),
                    fn_weight: s.ensemble().params().weights().1,
                };
                (described, FolderSearch::Containment(params, threshold))
            }
        };
        let docs = read_queries(a, &source)?;
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
        let answers = match search {
            FolderSearch::TopK(forest, k) => index.top_k(&forest, &texts, k),
            FolderSearch::Containment(params, threshold) => {
                index.containment(params, threshold, &texts)
            }
        }
        .map_err(index_error)?;
        let mut answers = answers.into_iter();
        let mut next = |_: &Document| Ok(answers.next().unwrap_or_default());
        let summary = (described, index.len(), started);
        return finish(a, &targets, &docs, index.ids(), &mut next, &summary);
    }

    let index = crate::memory::read_index(&a.index)?;
    let search = match k {
        Some(k) => Search::TopK(
            top_k_settings(NeighbourSearch::builder(&index), a)?.build()?,
            k,
        ),
        None => {
            let t = a.containment.unwrap_or(1.0);
            let b = ContainmentSearch::builder(&index, t)
                .map_err(|e| crate::error::usage_of("--containment", e))?;
            Search::Containment(containment_settings(b, a)?.build().map_err(index_error)?)
        }
    };
    let described = match &search {
        Search::TopK(s, k) => Described::top_k(s, *k),
        Search::Containment(s) => Described::Containment {
            threshold: s.threshold(),
            exact: s.exact_scores(),
            partitions: s.ensemble().partitions(),
            fn_weight: s.ensemble().params().weights().1,
        },
    };
    let docs = read_queries(a, &source)?;
    let mut next = |q: &Document| -> Result<Vec<Neighbour>, CliError> {
        Ok(match &search {
            Search::TopK(s, k) => s.top_k(&q.text, *k)?,
            Search::Containment(s) => s.query(&q.text)?,
        })
    };
    let summary = (described, index.len(), started);
    finish(a, &targets, &docs, index.ids(), &mut next, &summary)
}

/// Reads the queries.
fn read_queries(a: &QueryArgs, source: &Source) -> Result<Vec<Document>, CliError> {
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
    let queries = input::read(source, &options, &bars, false)?;
    crate::skipped::report_problems(&queries.corpus.problems, queries.corpus.problems.len());
    Ok(queries.corpus.documents)
}

/// Writes each query's answer (`answer` of it, in order) and the summary line: the
/// search, the documents indexed and when the run started.
fn finish(
    a: &QueryArgs,
    targets: &[files::Target],
    docs: &[Document],
    ids: &[String],
    answer: &mut dyn FnMut(&Document) -> Result<Vec<Neighbour>, CliError>,
    (described, indexed, started): &(Described, usize, Instant),
) -> Result<(), CliError> {
    let mut write = |out: &mut dyn Write, name: &str| -> Result<usize, CliError> {
        let mut answered = 0usize;
        for q in docs {
            let found: Vec<Neighbour> = answer(q)?;
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
        let what = match *described {
            Described::TopK {
                k,
                exact: true,
                trees,
                depth,
                per_result,
            } => format!(
                "top {k} by exact Jaccard (LSH Forest, {trees} trees x {depth}, {per_result} \
                 candidates per result re-ranked by the index's shingle sets)"
            ),
            Described::TopK {
                k, trees, depth, ..
            } => format!(
                "top {k} by estimated Jaccard (LSH Forest, {trees} trees x {depth}; the index \
                 keeps no shingle sets, so scores are MinHash estimates with their std_error)"
            ),
            Described::Containment {
                threshold,
                exact,
                partitions,
                fn_weight,
            } => format!(
                "containment >= {threshold}, {} (LSH Ensemble, {partitions} partitions, \
                 false-negative weight {fn_weight})",
                if exact {
                    "exact from the index's shingle sets"
                } else {
                    "estimated (the index keeps no shingle sets; each score has its std_error)"
                },
            ),
        };
        eprintln!(
            "queries: {} read, {answered} with results; {what}; index {} ({indexed} documents); {:.2?}",
            docs.len(),
            a.index.display(),
            started.elapsed()
        );
    }
    Ok(())
}

//! `ndd train`: learns k-gram weights (ANDD) from a labeled JSONL corpus and writes the
//! model.

use std::sync::Arc;
use std::time::Instant;

use ndd_pipeline::corpus::{ErrorPolicy, ReadOptions};
use ndd_pipeline::learn::{Document, Feature, Kgrams, LabeledCorpus, Trainer};

use crate::args::{OnError, TrainArgs};
use crate::error::CliError;
use crate::files::{self, Output};
use crate::input::{self, Source};
use crate::progress::Bars;

/// Runs `ndd train`.
pub(crate) fn run(a: &TrainArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let usage = |m: String| CliError::Usage(m);
    let kgrams = Kgrams::new(a.k).map_err(|e| crate::error::usage_of("--k", e))?;
    let mut trainer = Trainer::new(
        a.objective
            .parse()
            .map_err(|e| crate::error::usage_of("--objective", e))?,
    )
    .max_iterations(a.max_iterations)
    .map_err(|e| crate::error::usage_of("--max-iterations", e))?;
    if let Some(l2) = a.l2 {
        trainer = trainer.l2(l2).map_err(|e| usage(format!("--l2: {e}")))?;
    }
    if a.instances == 0 || a.instances > ndd_pipeline::learn::MAX_INSTANCES {
        return Err(usage(format!(
            "--instances must lie in 1..={}, got {}",
            ndd_pipeline::learn::MAX_INSTANCES,
            a.instances
        )));
    }
    let source = Source::resolve(Some(&a.input))?;
    if source.path().is_some_and(std::path::Path::is_dir) {
        return Err(usage(
            "--input: ndd train reads a JSONL file (a folder has no label field)".to_owned(),
        ));
    }
    let targets = files::check(
        &[(Output::Out, Some(a.out.as_path()))],
        source.path(),
        None,
        false,
        &[],
    )?;

    let mut fields = vec![a.label_field.clone()];
    fields.extend(a.title_field.iter().cloned());
    fields.extend(a.url_field.iter().cloned());
    let mut sorted = fields.clone();
    sorted.sort();
    sorted.dedup();
    if sorted.len() != fields.len()
        || fields
            .iter()
            .any(|f| *f == a.id_field || *f == a.text_field)
    {
        return Err(usage(
            "--label-field, --title-field and --url-field must name different fields, none \
             of them the id or text field"
                .to_owned(),
        ));
    }
    let options = ReadOptions::default()
        .with_id_field(a.id_field.clone())
        // As before: a corpus without ids is numbered by line.
        .with_id_required(false)
        .with_text_field(a.text_field.clone())
        .with_attribute_fields(fields)
        .with_errors(match a.on_error {
            OnError::Skip => ErrorPolicy::Skip,
            OnError::Stop => ErrorPolicy::Stop,
        });
    let bars = Arc::new(Bars::new(a.quiet));
    let corpus = input::read(&source, &options, &bars, false)?.corpus;
    for p in corpus.problems.iter().take(20) {
        eprintln!("warning: {p} (skipped)");
    }
    // Documents with a label take part in the instances; every document counts in
    // the collection statistics.
    let mut labeled = LabeledCorpus::new();
    for d in &corpus.documents {
        let mut doc = Document::new(d.text.as_str());
        doc.title = a
            .title_field
            .as_deref()
            .and_then(|f| d.attribute(f))
            .map(str::to_owned);
        doc.url = a
            .url_field
            .as_deref()
            .and_then(|f| d.attribute(f))
            .map(str::to_owned);
        labeled.push(doc, d.attribute(&a.label_field));
    }
    let instances = labeled.instances(a.instances, a.seed).map_err(|e| {
        CliError::Input(format!(
            "{}: {e} ({} documents have a {:?} field, in {} clusters)",
            source.name(),
            labeled.labeled(),
            a.label_field,
            labeled.clusters()
        ))
    })?;
    let spinner = bars.training();
    let (model, report) = labeled
        .train(&trainer, kgrams, &instances, |p| {
            spinner.set_position(p.evaluations);
            spinner.set_message(format!("{:.6}", p.loss));
        })
        .map_err(|e| CliError::Input(format!("training failed: {e}")))?;
    spinner.finish_and_clear();

    let mut pending = files::Pending::create(&targets[0].path)?;
    std::io::Write::write_all(pending.writer(), &model.to_bytes())
        .map_err(|e| CliError::output(&targets[0].path, e))?;
    pending.finish()?.commit()?;

    if a.quiet {
        // `-q`: no summary, as every subcommand (`summary::print`).
        return Ok(());
    }
    println!("input:       {}", source.name());
    println!(
        "documents:   {} read, {} labeled, {} clusters",
        labeled.len(),
        labeled.labeled(),
        labeled.clusters()
    );
    println!(
        "training:    {} instances, word {}-grams, objective {}, {} iterations, {} evaluations",
        instances.len(),
        a.k,
        model.objective(),
        report.iterations,
        report.evaluations
    );
    println!(
        "loss:        {:.6} (binary weights) -> {:.6}",
        report.initial_loss, report.final_loss
    );
    let weights: Vec<String> = Feature::ALL
        .iter()
        .map(|f| format!("{} {:+.3}", f.name(), model.lambda()[f.index()]))
        .collect();
    println!("weights:     {}", weights.join(", "));
    println!(
        "wrote:       {} ({:.2?})",
        targets[0].path.display(),
        started.elapsed()
    );
    Ok(())
}

//! `Plan::run_prepared` from the plan's reader hook (`Plan::hook`: the exact digest and
//! the 64-bit SimHash stage's fingerprint, per document) against the oracle
//! `Plan::run` over the same documents: the same groups, pairs, kept documents and
//! counts, whether the values were computed by hand or by the reader as it decoded
//! (batches of at most 1 MiB or 16,384 lines, here with runs of copies across their
//! boundaries).

#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;

use ndd_pipeline::corpus::{ReadOptions, read_corpus_with_hook};
use ndd_pipeline::{
    Dedup, Document, DurianGrouping, GroupMethod, Method, NoProgress, Outcome, Plan, SimHashConfig,
    SimWeighting, Verifier,
};

use crate::common::debian;

/// SimHash of 64 bits with `hamming` differing bits at most and `weighting`.
fn simhash(hamming: usize, weighting: SimWeighting) -> Dedup {
    Dedup::new().method(Method::SimHash(SimHashConfig {
        hamming: Some(hamming),
        weighting,
        ..SimHashConfig::default()
    }))
}

/// The settings compared: SimHash's defaults (the hook sketches), other bounds and
/// weights, containment, DURIAN, no exact pass, and MinHash's defaults (the hook only
/// digests).
fn settings() -> Vec<Dedup> {
    vec![
        Dedup::new().method(Method::SimHash(SimHashConfig::default())),
        simhash(6, SimWeighting::Binary),
        simhash(3, SimWeighting::TermFrequency),
        simhash(3, SimWeighting::Binary).verifier(Verifier::Containment),
        simhash(3, SimWeighting::Binary).group(GroupMethod::Durian(DurianGrouping::new())),
        simhash(3, SimWeighting::Binary).exact_pass(false),
        Dedup::new(),
    ]
}

/// Asserts that `prepared` and `whole` are the same outcome.
fn assert_same(prepared: &Outcome, whole: &Outcome) {
    assert_eq!(prepared.groups, whole.groups);
    assert_eq!(prepared.pairs, whole.pairs);
    assert_eq!(prepared.kept(), whole.kept());
    assert_eq!(prepared.report.candidates, whole.report.candidates);
    assert_eq!(prepared.report.exact_copies, whole.report.exact_copies);
    assert_eq!(prepared.report.method, whole.report.method);
}

/// The outcome of `plan` over `docs` from its hook's values.
fn run_prepared(plan: &Plan, docs: &[Document]) -> Outcome {
    let hook = plan.hook().unwrap().unwrap();
    let values = docs.iter().map(|d| hook(d)).collect();
    plan.run_prepared(docs, values, &NoProgress).unwrap()
}

#[test]
fn prepared_runs_give_the_run_of_the_texts_with_exact_copies_in_runs() {
    // The bundled corpus with every fifth document copied twice right after itself and
    // once at the end: exact copies in runs and apart.
    let mut docs = Vec::new();
    let base = debian();
    for (i, d) in base.iter().enumerate() {
        docs.push(d.clone());
        if i % 5 == 0 {
            docs.push(Document::new(format!("{}-copy", d.id), d.text.clone()));
            docs.push(Document::new(
                format!("{}-COPY", d.id),
                d.text.to_uppercase(),
            ));
        }
    }
    docs.push(Document::new("last-copy", base[3].text.clone()));
    for settings in settings() {
        let plan = settings.plan().unwrap();
        let whole = plan.run(&docs, &NoProgress).unwrap();
        assert_same(&run_prepared(&plan, &docs), &whole);
    }
    // The defaults find copies and near copies here: the comparison is not vacuous.
    let whole = Dedup::new().run(&docs).unwrap();
    assert!(whole.report.exact_copies > 100 && whole.report.candidates > 0);
}

#[test]
fn only_a_simhash_stage_of_64_bits_and_document_weights_is_sketched_as_read() {
    let doc = Document::new("a", "a few words of a document");
    let sketched = |d: Dedup| d.plan().unwrap().hook().unwrap().unwrap()(&doc).is_sketched();
    assert!(sketched(simhash(3, SimWeighting::Binary)));
    assert!(sketched(
        simhash(3, SimWeighting::TermFrequency).exact_pass(false)
    ));
    assert!(!sketched(simhash(3, SimWeighting::TfIdf)));
    let long = SimHashConfig {
        bits: 128,
        ..SimHashConfig::default()
    };
    assert!(!sketched(Dedup::new().method(Method::SimHash(long))));
    assert!(!sketched(Dedup::new()));
    let nothing = Dedup::new().exact_pass(false);
    assert!(nothing.plan().unwrap().hook().unwrap().is_none());
}

#[test]
fn values_of_fewer_or_more_documents_are_refused() {
    let docs = debian();
    let plan = simhash(3, SimWeighting::Binary).plan().unwrap();
    let hook = plan.hook().unwrap().unwrap();
    let mut values: Vec<_> = docs.iter().map(|d| hook(d)).collect();
    values.pop();
    assert!(plan.run_prepared(&docs, values, &NoProgress).is_err());
}

#[test]
fn the_reader_s_values_across_batches_give_the_run_of_the_documents() {
    // 40,000 lines (four to five of the reader's batches of 1 MiB) of 4,000 distinct
    // texts in runs of 10 copies (a batch boundary falls inside a run unless it falls
    // on a multiple of 10 lines), near copies (one word changed), duplicate ids and
    // blank lines.
    let mut jsonl = String::new();
    for i in 0..40_000u32 {
        let text = format!(
            "text number {} of the corpus with a few more words to shingle {}",
            i / 10,
            if i % 7 == 0 { "changed" } else { "here" }
        );
        let id = if i % 997 == 0 { 0 } else { i };
        writeln!(jsonl, "{{\"id\": \"d{id}\", \"text\": \"{text}\"}}").unwrap();
        if i % 1000 == 0 {
            jsonl.push('\n');
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.jsonl");
    std::fs::write(&path, jsonl).unwrap();
    for settings in [
        simhash(3, SimWeighting::Binary),
        simhash(3, SimWeighting::Binary).exact_pass(false),
    ] {
        let plan = settings.plan().unwrap();
        let hook = plan.hook().unwrap().unwrap();
        let (corpus, values) =
            read_corpus_with_hook(&path, &ReadOptions::default(), |_| {}, hook).unwrap();
        assert!(corpus.problems.len() > 30); // the duplicate ids
        let whole = plan.run(&corpus.documents, &NoProgress).unwrap();
        let prepared = plan
            .run_prepared(&corpus.documents, values, &NoProgress)
            .unwrap();
        assert_same(&prepared, &whole);
        assert!(whole.report.pairs > 20_000);
    }
}

#[test]
fn a_prepared_value_stays_small() {
    // Held per document from the reading on: a digest (21 bytes with its tag) and a
    // fingerprint (9), byte-aligned.
    assert_eq!(size_of::<ndd_pipeline::Prepared>(), 30);
}

//! The ndd pipeline: from a corpus to deduplicated groups.
//!
//! ```text
//! corpus ─► exact pass ─► candidates ─► verify ─► group ─► keep / drop
//! (corpus)  (ExactPass)   (Candidate-   (Verifi-  (Grouping) (Outcome)
//!                          Generator)    cation)
//!                 every arrow after the exact pass carries ScoredPair
//! ```
//!
//! One call runs it all ([`Dedup`]); every stage is also a type of its own, so a
//! caller can read a corpus with [`corpus`], run only the exact pass, take
//! candidate pairs from any method and verify or group them differently. Stages hand
//! each other one currency, [`ScoredPair`]: two document
//! indices and a score where higher is more similar.
//!
//! # Quick start
//!
//! ```
//! use near_dup::pipeline::{Dedup, Document};
//!
//! let docs = vec![
//!     Document::new("mit-1", "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files"),
//!     Document::new("mit-2", "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files."),
//!     Document::new("gpl", "This program is free software; you can redistribute it and/or modify it under the terms of the GNU General Public License"),
//! ];
//! let out = Dedup::new().threshold(0.8).run(&docs)?;
//! for group in &out.groups {
//!     let ids: Vec<&str> = group.members.iter().map(|&i| docs[i].id.as_str()).collect();
//!     println!("keep {} of {ids:?}", docs[group.representative].id);
//! }
//! assert_eq!(out.kept(), vec![0, 2]);
//! # Ok::<(), near_dup::pipeline::Error>(())
//! ```
//!
//! # Parallelism
//!
//! With the `rayon` feature, sketching, the exact pass and verification run on all
//! cores; the output is the same as with one thread (pairs are produced in an order
//! that depends only on the input).
//!
//! # References
//!
//! - H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
//!   clustering", SIGIR 2006 (the exact-duplicate pass, section 4.3).
//! - A. Z. Broder, "On the resemblance and containment of documents", SEQUENCES 1997.

#[cfg(feature = "minhash")]
mod bloom;
mod cache;
mod candidates;
mod dedup;
mod durian;
mod error;
mod exact;
#[cfg(feature = "minhash")]
mod explain;
mod group;
mod linkage;
mod method;
#[cfg(feature = "minhash")]
mod outofcore;
pub mod outputs;
#[cfg(feature = "minhash")]
mod persist;
mod plan;
mod progress;
#[cfg(feature = "minhash")]
mod query;
mod report;
mod sets;
#[cfg(feature = "minhash")]
mod sketching;
mod verify;

/// Corpus input (JSONL plain or gzip, folders, standard input; documents, problems,
/// the input fingerprint): the `ndd-corpus` crate, re-exported.
#[doc(inline)]
pub use ndd_corpus as corpus;

#[cfg(feature = "minhash")]
pub use bloom::{BloomDedup, DEFAULT_BLOOM_CAPACITY, DEFAULT_BLOOM_FALSE_POSITIVE_RATE};
#[cfg(feature = "minhash")]
pub use candidates::estimate::{EstimateFilter, PLAUSIBLE_FIELD_BITS};
pub use candidates::{
    CandidateGenerator, CandidateReport, CandidateSource, Emit, Method, PLAUSIBLE_SIGMAS,
    SourceContext,
};
pub use corpus::{
    Corpus, ErrorPolicy, FolderReader, HtmlMode, JsonlReader, Problem, ProblemKind, ReadOptions,
    read_corpus,
};
pub use corpus::{Document, OrderKey};
pub use dedup::Dedup;
pub use durian::DurianGrouping;
pub use error::Error;
pub use exact::{DocDigest, ExactDuplicates, ExactPass};
#[cfg(feature = "minhash")]
pub use explain::{Explanation, SampleMeasure};
pub use group::{Group, GroupMethod, Grouping, Representative, RepresentativeFn};
pub use linkage::{DEFAULT_CHAIN_FLOOR, DEFAULT_LINK_FRACTION, Linkage};
#[cfg(feature = "imatch")]
pub use method::IMatchConfig;
#[cfg(feature = "ncd")]
pub use method::SigNcdConfig;
pub use method::{
    Banding, DEFAULT_MAX_BUCKET_SCAN, MAX_BUCKET_SCAN, MAX_NUM_PERM, MAX_SHINGLE_LEN,
    MinHashConfig, MinHashWeighting, Shingles, SimHashConfig, SimWeighting,
};
#[cfg(feature = "minhash")]
pub use ndd_lsh::{
    DEFAULT_CANDIDATES_PER_RESULT, DEFAULT_MAX_EXAMINED, EnsembleParams, LshForestBuilder,
    MAX_BLOOM_BITS,
};
#[cfg(feature = "minhash")]
pub use outofcore::{
    DEFAULT_MEMORY_BUDGET, MIN_MEMORY_BUDGET, OutOfCore, OutOfCoreOutcome, StageRun,
};
#[cfg(feature = "minhash")]
pub use persist::{DedupIndex, SegmentedIndex};
pub use plan::{Features, Plan};
pub use progress::{NoProgress, Progress, Stage};
#[cfg(feature = "minhash")]
pub use query::{
    ContainmentSearch, ContainmentSearchBuilder, Neighbour, NeighbourSearch, NeighbourSearchBuilder,
};
pub use report::{BucketScan, Fate, Outcome, Report};
pub use verify::{
    AlignMeasure, PairScorer, Verification, Verifier, VerifyReport, set_measure,
    set_measure_at_least,
};

pub use ndd_core::{self, PairSink, ScoredPair, Threshold};

/// Token alignment and block reports (`ndd-align`), the measures of
/// [`Verifier::Align`], re-exported for tools that explain the pairs found.
pub use ndd_align as align;
/// Union-find, DURIAN and the links a user asserts (`ndd-cluster`), the grouping
/// stage's crate, re-exported for tools that read links.
pub use ndd_cluster as cluster;
/// The I-Match lexicon of [`IMatchConfig::lexicon`], to load one saved elsewhere.
#[cfg(feature = "imatch")]
pub use ndd_imatch::Lexicon;
/// ANDD's learned k-gram weights (`ndd-learn`): the models of
/// [`MinHashWeighting::Learned`] and [`SimWeighting::Learned`], and their training.
#[cfg(feature = "learn")]
pub use ndd_learn as learn;

/// The default similarity threshold: 0.8.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::Dedup::new().threshold_value(), near_dup::pipeline::DEFAULT_THRESHOLD);
/// ```
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename, so readers see the old file or the new one, never half of one (outputs
/// of a run, saved indexes).
///
/// # Errors
///
/// [`Error::Io`] naming `path` when the temporary file cannot be written or
/// renamed; the temporary file is removed then.
///
/// # Example
///
/// ```
/// let path = std::env::temp_dir().join(format!("ndd-atomic-{}.tsv", std::process::id()));
/// near_dup::pipeline::write_atomically(&path, b"a\tb\t0.9\n")?;
/// assert_eq!(std::fs::read(&path)?, b"a\tb\t0.9\n");
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Error::io(path, std::io::ErrorKind::InvalidInput.into()))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

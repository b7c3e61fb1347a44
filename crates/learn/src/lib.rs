//! Adaptive near-duplicate detection (ANDD): k-gram weights learned from labeled
//! clusters of documents, so that near-duplicates score higher than unrelated
//! documents under cosine or extended Jaccard similarity.
//!
//! * [`CollectionStats`] and [`Document`]: the per-k-gram features of Table 1 (bias,
//!   TF, DF, the mean and median DF of its terms, query frequency, location, document
//!   length, capitalization, in-title, in-URL), [`Feature`].
//! * [`WeightModel`]: `gw(g, d) = max(0, Σ λj zj(g, d))` over the scaled features
//!   ([`FeatureScaling`], part of the model), its weighted vectors, the trained
//!   similarity ([`Objective`]), a versioned, checksummed byte form.
//! * [`Trainer`]: the pairwise-preference logistic loss ([`Loss`], equation 4) with
//!   L2 regularization, minimized by L-BFGS (the `argmin` crate) from binary weights,
//!   over [`Instance`]s drawn from labeled clusters ([`instances_from_clusters`]).
//! * [`LearnedKgrams`]: a model as a weighted [`FeatureExtractor`](ndd_core::FeatureExtractor),
//!   so SimHash and weighted MinHash sketch learned vectors unchanged.
//! * [`evaluate_splits`] and [`learning_curve`]: Max F1 of learned, binary and TF-IDF
//!   weights and plain Jaccard over random halvings of the clusters (Table 2), and
//!   against the number of training clusters (Figure 5).
//!
//! # Example
//!
//! Boilerplate that every document carries must not make two unrelated documents look
//! alike; training learns to weigh it down (its document frequency is high).
//!
//! ```
//! use near_dup::learn::{instances_from_clusters, CollectionStats, Document, Kgrams, Objective, Trainer, WeightModel};
//! let footer = "sent from my phone please excuse typos";
//! let texts: Vec<String> = (0..8)
//!     .map(|i| format!("story {} about topic {} {footer}", i / 2, i / 2))
//!     .collect();
//! let docs: Vec<Document> = texts.iter().map(|t| Document::new(t.as_str())).collect();
//! let labels: Vec<usize> = (0..8).map(|i| i / 2).collect();
//! let stats = CollectionStats::from_documents(Kgrams::new(1)?, texts.iter().map(String::as_str));
//! let instances = instances_from_clusters(&labels, 500, 1)?;
//! let (model, report) = Trainer::new(Objective::Cosine).train(&stats, &docs, &instances, |_| {})?;
//! assert!(report.final_loss < report.initial_loss);
//! let (a, b) = (model.vector(&stats, &docs[0]), model.vector(&stats, &docs[2]));
//! let binary = WeightModel::binary(stats.kgrams(), Objective::Cosine);
//! let (x, y) = (binary.vector(&stats, &docs[0]), binary.vector(&stats, &docs[2]));
//! // Different stories sharing the footer: less alike with learned weights.
//! assert!(model.similarity(&a, &b) < binary.similarity(&x, &y));
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! * H. Hajishirzi, W. Yih and A. Kołcz, "Adaptive near-duplicate detection via
//!   similarity learning", *Proceedings of the 33rd International ACM SIGIR
//!   Conference (SIGIR '10)*, 2010, Sections 3.1, 3.2 and 4.1.1.
//! * W. Yih, "Learning term-weighting functions for similarity measures", *EMNLP
//!   2009* (the preference-ordering setting).

mod evaluate;
mod features;
mod labeled;
mod model;
#[cfg(feature = "serde")]
mod serde_impl;
mod train;

pub use evaluate::{
    Evaluation, MAX_EVALUATION_DOCUMENTS, SplitScores, evaluate_splits, learning_curve,
};
pub use features::{CollectionStats, Document, Feature, FeatureRow, Kgrams, MAX_K, NUM_FEATURES};
pub use labeled::LabeledCorpus;
pub use model::{FeatureScaling, LearnedKgrams, MAX_WEIGHT, Objective, WeightModel};
pub use train::{
    DEFAULT_L2, Instance, Loss, MAX_INSTANCES, MAX_ITERATIONS, TrainProgress, TrainReport, Trainer,
    instances_from_clusters, instances_from_labels,
};

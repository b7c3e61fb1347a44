//! Evaluation for near-duplicate detection: how good are the pairs or clusters a
//! detector found, and labeled test data to measure it on.
//!
//! * [`Labels`]: the true (or a predicted) clustering of documents `0..n`.
//! * Scored pairs against the truth: [`evaluate_pairs`] at one threshold,
//!   [`evaluate_predicted_pairs`] for unscored pairs, and the threshold sweep
//!   [`sweep`] / [`max_f1`] reporting the best F1 with its precision and recall, the
//!   "Max F1" of Hajishirzi, Yih and Kołcz, *Adaptive Near-Duplicate Detection via
//!   Similarity Learning*, SIGIR 2010 (Section 4, Tables 4 and 5).
//! * Two clusterings of the same documents: pairwise precision/recall/F1 with
//!   [`cluster_pairwise`], and Gwet's AC1 inter-coder agreement with [`ac1`] /
//!   [`pair_agreement`], as defined by Yang and Callan, *Near-Duplicate Detection by
//!   Instance-level Constrained Clustering*, SIGIR 2006 (Section 5.2, equations 10 and
//!   11). Both run in O(n) through a contingency table, never enumerating pairs.
//!   Per category of document (exact copy, minor change, block added...):
//!   [`category_scores`], the precision, recall and F1 of the paper's Table 2.
//! * A seeded generator of labeled near-duplicates of real base texts:
//!   [`generate_variants`] and [`generate_corpus`], with the edit types of Yang and
//!   Callan (2006, Section 2) and the spam obfuscations of Hajishirzi et al. (2010,
//!   Section 4.2), see [`EditKind`].
//! * Hard negatives for those sets: [`generate_siblings`] makes documents that share
//!   almost all of a base text but differ in a clause, a name, a number or one short
//!   added paragraph ([`SiblingKind`]), labeled as different documents.
//!
//! Precision is `1` when nothing was predicted and recall is `1` when there is nothing
//! to find (see [`Confusion`]).
//!
//! # Example: generate, score, evaluate
//!
//! ```
//! use near_dup::eval::{generate_corpus, max_f1, SynthConfig};
//!
//! let bases = [
//!     "Protect our rivers from mercury.\n\nPower plants must cut emissions now.",
//!     "Raise fuel economy standards.\n\nCars can go farther on less fuel.",
//! ];
//! let corpus = generate_corpus(&bases, &SynthConfig { variants_per_base: 3, ..SynthConfig::new(1) })?;
//!
//! // A toy detector: word-set Jaccard of every pair.
//! let sets: Vec<std::collections::BTreeSet<&str>> =
//!     corpus.texts().iter().map(|t| t.split_whitespace().collect()).collect();
//! let mut pairs = Vec::new();
//! for a in 0..sets.len() {
//!     for b in a + 1..sets.len() {
//!         let inter = sets[a].intersection(&sets[b]).count() as f64;
//!         let union = sets[a].union(&sets[b]).count() as f64;
//!         pairs.push(near_dup::ScoredPair::new(a, b, inter / union));
//!     }
//! }
//! let best = max_f1(&pairs, &corpus.labels)?;
//! assert!(best.f1 > 0.5);
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! - H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
//!   clustering", SIGIR 2006 (AC1 agreement, section 5.2).
//! - K. L. Gwet, "Computing inter-rater reliability and its variance in the presence of
//!   high agreement", British Journal of Mathematical and Statistical Psychology 61(1),
//!   2008.

mod agreement;
mod bases;
mod category;
mod kinds;
mod labels;
mod metrics;
mod siblings;
mod synth;

pub use agreement::{
    PairAgreement, ac1, cluster_pairwise, group_agreements, macro_ac1, pair_agreement,
};
pub use bases::distinct_texts;
pub use category::{CategoryScores, category_scores};
pub use labels::Labels;
pub use metrics::{
    Confusion, SweepPoint, ThresholdSweep, evaluate_pairs, evaluate_predicted_pairs, max_f1, sweep,
};
pub use siblings::{Sibling, SiblingConfig, SiblingKind, generate_siblings};
pub use synth::{
    EditKind, LabeledDoc, SynthConfig, SyntheticCorpus, generate_corpus, generate_variants,
    labels_of,
};

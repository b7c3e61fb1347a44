//! Queries against a [`DedupIndex`]: the nearest indexed documents of a text
//! ([`NeighbourSearch`], over `ndd-lsh`'s `LshForest`, in `neighbour.rs`) and the
//! indexed documents that contain most of a text ([`ContainmentSearch`], over
//! `LshEnsemble`, in `containment.rs`); here what both share: the answer
//! ([`Neighbour`]), a query text as they read it, and the order of results.
//!
//! Both are built from the signatures the index keeps and sketch a query with the
//! index's own hasher and shingles, so the scheme always matches. Results name
//! documents by their position in [`DedupIndex::ids`]. Exact copies removed by the
//! index's exact pass are not in its LSH index, so a query finds the first copy only.

use ndd_core::{DocSketcher, DynFeatureExtractor, FeatureSet};
use ndd_minhash::MinHashSignature;

use crate::DedupIndex;

mod containment;
mod neighbour;

pub use containment::{ContainmentSearch, ContainmentSearchBuilder};
pub(crate) use containment::{containment_hits, fill_ensemble};
pub use neighbour::{NeighbourSearch, NeighbourSearchBuilder};
pub(crate) use neighbour::{check_k, fill_forest, probe_forest, top_k_answer};

/// One answer of a query: an indexed document (its position in [`DedupIndex::ids`]),
/// its score (higher is closer: an exact Jaccard or containment computed from the
/// shingle sets the index keeps, a MinHash estimate for an index without them, or
/// the caller's measure in the verified modes), and the standard error of that score
/// when it is an estimate.
///
/// # Example
///
/// ```
/// let n = near_dup::pipeline::Neighbour { doc: 3, score: 0.9, std_error: None };
/// assert_eq!((n.doc, n.score), (3, 0.9));
/// assert!(n.is_exact());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbour {
    /// The document's position in [`DedupIndex::ids`].
    pub doc: usize,
    /// Its score for the query.
    pub score: f64,
    /// The standard error of `score` when it is a MinHash estimate (an index saved
    /// without shingle sets); `None` when the score is exact or the caller's.
    pub std_error: Option<f64>,
}

impl Neighbour {
    /// Whether the score carries no estimation error (exact, or the caller's measure).
    ///
    /// # Example
    ///
    /// ```
    /// let n = near_dup::pipeline::Neighbour { doc: 0, score: 1.0, std_error: Some(0.3) };
    /// assert!(!n.is_exact());
    /// ```
    #[must_use]
    pub fn is_exact(&self) -> bool {
        self.std_error.is_none()
    }
}

/// The sorted distinct shingles of `text` as `index` reads them (the form of the
/// sets the index keeps).
fn query_set(index: &DedupIndex, text: &str) -> Vec<u64> {
    let mut features: Vec<u64> = Vec::new();
    index.hasher().extractor().extract_dyn(text, &mut features);
    FeatureSet::sort_and_dedup(&mut features);
    features
}

/// A query text as the searches read it: its signature and its sorted distinct
/// shingles, both by the index's hasher.
pub(crate) struct Query {
    pub(crate) sig: MinHashSignature,
    pub(crate) set: Vec<u64>,
}

impl Query {
    pub(crate) fn new(index: &DedupIndex, text: &str) -> Self {
        Query {
            sig: index.hasher().sketch(text),
            set: query_set(index, text),
        }
    }

    /// The query of a search by the estimate: its signature, no set (not read).
    pub(crate) fn estimated(index: &DedupIndex, text: &str) -> Self {
        Query {
            sig: index.hasher().sketch(text),
            set: Vec::new(),
        }
    }

    /// The query of a top-`k` search: with its set when the search scores `exact`ly
    /// ([`new`](Self::new)), else without ([`estimated`](Self::estimated): the set
    /// is not read).
    pub(crate) fn top_k(index: &DedupIndex, text: &str, exact: bool) -> Self {
        if exact {
            Query::new(index, text)
        } else {
            Query::estimated(index, text)
        }
    }

    /// The query of a containment search: `None` for a text without shingles (it
    /// gives no result).
    pub(crate) fn containment(index: &DedupIndex, text: &str) -> Option<Self> {
        let set = query_set(index, text);
        (!set.is_empty()).then(|| Query {
            sig: index.hasher().sketch(text),
            set,
        })
    }
}

/// The shingle set of an indexed document, by its key.
pub(crate) type SetOf<'s> = dyn Fn(u32) -> &'s [u64] + 's;

/// Whether `index` keeps every document's shingle set (exact scores possible).
fn keeps_sets(index: &DedupIndex) -> bool {
    index.stored_set(0).is_some()
}

/// The standard error of a MinHash Jaccard estimate `j` from `k` values:
/// `sqrt(j (1 - j) / k)`.
fn jaccard_std_error(j: f64, k: usize) -> f64 {
    (j * (1.0 - j) / k.max(1) as f64).max(0.0).sqrt()
}

/// The number of MinHash values of `index`'s signatures.
fn num_perm(index: &DedupIndex) -> usize {
    index.num_perm()
}

/// Highest score first, ties by document position (stable output).
pub(crate) fn sort_results(out: &mut [Neighbour]) {
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
}

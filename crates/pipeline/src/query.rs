//! Queries against a [`DedupIndex`]: the nearest indexed documents of a text
//! ([`NeighbourSearch`], over `ndd-lsh`'s `LshForest`) and the indexed documents that
//! contain most of a text ([`ContainmentSearch`], over `LshEnsemble`).
//!
//! Both are built from the signatures the index keeps and sketch a query with the
//! index's own hasher and shingles, so the scheme always matches. Results name
//! documents by their position in [`DedupIndex::ids`]. Exact copies removed by the
//! index's exact pass are not in its LSH index, so a query finds the first copy only.

use ndd_core::{DocSketcher, DynFeatureExtractor, Signature};
use ndd_lsh::{
    EnsembleParams, ForestParams, ForestProbe, LshEnsemble, LshForest, LshForestBuilder, LshIndex,
};
use ndd_minhash::MinHashSignature;

use crate::{DedupIndex, Error};

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
    features.sort_unstable();
    features.dedup();
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

/// The probe of `forest` (all of a top-`k` search's forest, or one segment's) for
/// `query`: its candidates scored by their exact Jaccard similarity to the query's set
/// when `sets` gives the indexed sets, else by the forest's MinHash estimate. After
/// `older`, the merged probe of forests over earlier documents, when given
/// ([`LshForest::probe_after`]).
pub(crate) fn probe_forest(
    forest: &LshForest<u32>,
    query: &Query,
    k: usize,
    sets: Option<&SetOf<'_>>,
    older: Option<&ForestProbe<u32>>,
) -> Result<ForestProbe<u32>, Error> {
    let exact = sets.map(|set_of| move |&doc: &u32| ndd_core::jaccard(&query.set, set_of(doc)));
    Ok(match (older, exact) {
        (Some(older), exact) => forest.probe_after(&query.sig, older, exact)?,
        (None, Some(exact)) => forest.probe_verified(&query.sig, k, exact)?,
        (None, None) => forest.probe(&query.sig, k)?,
    })
}

/// The answer of a top-`k` search from its (merged) probe: exact scores highest first,
/// ties by document; estimates with their standard error from `num_perm` values.
pub(crate) fn top_k_answer(
    probe: ForestProbe<u32>,
    exact: bool,
    num_perm: usize,
) -> Vec<Neighbour> {
    let mut out: Vec<Neighbour> = probe
        .top()
        .into_iter()
        .map(|(doc, score)| Neighbour {
            doc: doc as usize,
            score,
            std_error: (!exact).then(|| jaccard_std_error(score, num_perm)),
        })
        .collect();
    if exact {
        sort_results(&mut out);
    }
    out
}

/// Appends to `out` the `candidates` of a containment search (all of its ensemble's,
/// or one segment's) whose containment of `query` reaches `threshold`: exact from the
/// indexed sets `sets` gives, else the MinHash estimate from the candidate's signature
/// (`sig_of`) and set size (`sizes`), with its standard error from `num_perm` values.
/// Unsorted.
#[allow(clippy::too_many_arguments)]
pub(crate) fn containment_hits<'s>(
    candidates: Vec<u32>,
    query: &Query,
    threshold: f64,
    sizes: &[u64],
    num_perm: usize,
    sets: Option<&SetOf<'_>>,
    sig_of: &dyn Fn(u32) -> Option<&'s MinHashSignature>,
    out: &mut Vec<Neighbour>,
) -> Result<(), Error> {
    let q = query.set.len() as u64;
    for doc in candidates {
        let (c, std_error) = match sets {
            Some(set_of) => (ndd_core::containment(&query.set, set_of(doc)), None),
            None => {
                let Some(other) = sig_of(doc) else {
                    continue;
                };
                let j = other.similarity(&query.sig)?.value();
                let x = sizes.get(doc as usize).copied().unwrap_or(0);
                (
                    containment_estimate(j, q, x),
                    Some(containment_std_error(j, q, x, num_perm)),
                )
            }
        };
        if c >= threshold {
            out.push(Neighbour {
                doc: doc as usize,
                score: c,
                std_error,
            });
        }
    }
    Ok(())
}

/// Inserts every signature `lsh` keeps (a whole index's, or one segment's) into
/// `forest`, by its key.
pub(crate) fn fill_forest(
    forest: &mut LshForest<u32>,
    lsh: &LshIndex<u32, MinHashSignature>,
) -> Result<(), Error> {
    for (&key, sig) in lsh.signatures_iter() {
        forest.insert(key, sig)?;
    }
    Ok(())
}

/// Inserts every signature `lsh` keeps (a whole index's, or one segment's) into
/// `ensemble`, by its key, with its document's set size from `sizes` (by key);
/// documents without shingles (size 0) are left out.
pub(crate) fn fill_ensemble(
    ensemble: &mut LshEnsemble<u32>,
    lsh: &LshIndex<u32, MinHashSignature>,
    sizes: &[u64],
) -> Result<(), Error> {
    for (&key, sig) in lsh.signatures_iter() {
        let size = sizes.get(key as usize).copied().unwrap_or(0);
        if size > 0 {
            ensemble.insert(key, sig, size)?;
        }
    }
    Ok(())
}

/// Whether `index` keeps every document's shingle set (exact scores possible).
fn keeps_sets(index: &DedupIndex) -> bool {
    index.stored_set(0).is_some()
}

/// The standard error of a MinHash Jaccard estimate `j` from `k` values:
/// `sqrt(j (1 - j) / k)`.
fn jaccard_std_error(j: f64, k: usize) -> f64 {
    (j * (1.0 - j) / k.max(1) as f64).max(0.0).sqrt()
}

pub(crate) fn check_k(k: usize) -> Result<(), Error> {
    if k == 0 {
        return Err(ndd_core::Error::invalid_parameter("k", "must be at least 1").into());
    }
    Ok(())
}

/// Top-k search over a [`DedupIndex`]: an `LshForest` of its documents' signatures;
/// a query text is sketched with the index's hasher, the forest gathers `k ×`
/// candidates per result, and the `k` with the highest exact Jaccard similarity to the
/// query (from the shingle sets the index keeps) come back ([`top_k`](Self::top_k));
/// for an index without sets, the `k` with the highest MinHash estimate
/// ([`top_k_estimated`](Self::top_k_estimated)), or ranked by a measure of the
/// caller's ([`top_k_verified`](Self::top_k_verified)). Re-ranking costs `k ×`
/// candidates per result sorted-set intersections per query (0.26 ms per query
/// against 4,000 descriptions, `docs/performance.md`) and no bytes beyond the sets the
/// index keeps for verification.
///
/// Defaults are the library's: `ForestParams::for_slots(num_perm)` (8 trees),
/// `DEFAULT_CANDIDATES_PER_RESULT` and `DEFAULT_MAX_EXAMINED` of `ndd-lsh`; recall
/// measured in `docs/decisions.md`. Building costs one insert per indexed document
/// (`8 · num_perm` bytes of slot values each).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, DedupIndex, Document, NeighbourSearch};
/// let mut index = DedupIndex::new(&Dedup::new())?;
/// index.add(&[
///     Document::new("budget", "the committee approved the budget for the new library building on monday"),
///     Document::new("weather", "a different story about the weather in the mountains this week"),
/// ])?;
/// let search = NeighbourSearch::new(&index)?;
/// let top = search.top_k("the committee approved the budget for the new library building on friday", 1)?;
/// assert_eq!(index.ids()[top[0].doc], "budget");
/// assert!(top[0].score > 0.5);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug)]
pub struct NeighbourSearch<'a> {
    index: &'a DedupIndex,
    forest: LshForest<u32>,
}

impl<'a> NeighbourSearch<'a> {
    /// A forest of the library's default shape over `index`'s documents.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] if a stored signature does not fit the forest (not for an
    /// index that loaded).
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// assert_eq!(near_dup::pipeline::NeighbourSearch::new(&index)?.forest().params().trees(), 8);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn new(index: &'a DedupIndex) -> Result<Self, Error> {
        let params = ForestParams::for_slots(num_perm(index))?;
        Self::with_builder(index, LshForest::builder(params))
    }

    /// A forest configured by `builder` (shape, candidates per result, work bound)
    /// over `index`'s documents.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when the forest reads more slots than the index's signatures
    /// have (`trees × depth > num_perm`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::{ForestParams, LshForest};
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
    /// let index = DedupIndex::new(&Dedup::new())?; // 128 values
    /// let b = LshForest::builder(ForestParams::new(16, 8)?).candidates_per_result(8);
    /// assert_eq!(NeighbourSearch::with_builder(&index, b)?.forest().candidates_per_result(), 8);
    /// let too_long = LshForest::builder(ForestParams::new(16, 16)?);
    /// assert!(NeighbourSearch::with_builder(&index, too_long).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn with_builder(
        index: &'a DedupIndex,
        builder: LshForestBuilder<u32>,
    ) -> Result<Self, Error> {
        let mut forest = builder.capacity(index.len()).build();
        let slots = forest.params().slots_used();
        if slots > num_perm(index) {
            return Err(ndd_core::Error::invalid_parameter(
                "trees",
                format!(
                    "the forest reads {slots} slots, the index's signatures have {}",
                    num_perm(index)
                ),
            )
            .into());
        }
        fill_forest(&mut forest, index.lsh())?;
        Ok(NeighbourSearch { index, forest })
    }

    /// The forest queries run on.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// assert!(near_dup::pipeline::NeighbourSearch::new(&index)?.forest().is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn forest(&self) -> &LshForest<u32> {
        &self.forest
    }

    /// The index searched.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// assert!(near_dup::pipeline::NeighbourSearch::new(&index)?.index().is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn index(&self) -> &'a DedupIndex {
        self.index
    }

    /// The `k` indexed documents most similar to `text` by the exact Jaccard
    /// similarity of their shingle sets among the forest's candidates (by the MinHash
    /// estimate, with its standard error, when the index keeps no sets; see
    /// [`exact_scores`](Self::exact_scores)), highest first (ties: the earlier indexed
    /// first). Fewer when the index holds fewer or the forest's work bound stops the
    /// search.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when `k` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, NeighbourSearch};
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&[Document::new("a", "one two three four five six")])?;
    /// let search = NeighbourSearch::new(&index)?;
    /// assert_eq!(search.top_k("one two three four five six", 5)?[0].score, 1.0);
    /// assert!(search.top_k("x", 0).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn top_k(&self, text: &str, k: usize) -> Result<Vec<Neighbour>, Error> {
        check_k(k)?;
        let exact = self.exact_scores();
        let query = Query::top_k(self.index, text, exact);
        let index = self.index;
        let set_of = |doc: u32| index.stored_set(doc as usize).unwrap_or(&[]);
        let probe = probe_forest(&self.forest, &query, k, exact.then_some(&set_of), None)?;
        Ok(top_k_answer(probe, exact, num_perm(self.index)))
    }

    /// The `k` indexed documents with the highest MinHash estimate of the Jaccard
    /// similarity among the candidates the forest gathers, highest first (ties: the
    /// earlier indexed first), each with the estimate's standard error: what
    /// [`top_k`](Self::top_k) gives for an index without shingle sets.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when `k` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, NeighbourSearch};
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&[Document::new("a", "one two three four five six")])?;
    /// let search = NeighbourSearch::new(&index)?;
    /// let top = search.top_k_estimated("one two three four five six", 5)?;
    /// assert_eq!((top[0].score, top[0].std_error), (1.0, Some(0.0)));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn top_k_estimated(&self, text: &str, k: usize) -> Result<Vec<Neighbour>, Error> {
        check_k(k)?;
        let query = Query::estimated(self.index, text);
        let probe = probe_forest(&self.forest, &query, k, None, None)?;
        Ok(top_k_answer(probe, false, num_perm(self.index)))
    }

    /// Whether [`top_k`](Self::top_k) scores exactly: the index keeps every
    /// document's shingle set (the default since byte-form version 3), so the forest's
    /// candidates are re-ranked by their exact Jaccard similarity to the query.
    /// Otherwise they are ranked by the MinHash estimate.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch, Verifier};
    /// let exact = DedupIndex::new(&Dedup::new())?;
    /// assert!(NeighbourSearch::new(&exact)?.exact_scores());
    /// let estimated = DedupIndex::new(&Dedup::new().verifier(Verifier::MethodScore))?;
    /// assert!(!NeighbourSearch::new(&estimated)?.exact_scores());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn exact_scores(&self) -> bool {
        keeps_sets(self.index)
    }

    /// The top `k` by the caller's measure: every candidate the forest gathers for
    /// `text` is scored by `score(doc)` (its position in [`DedupIndex::ids`]), say
    /// the exact Jaccard similarity of the shingle sets of `text` and of the document
    /// kept by the caller (the index keeps no texts), and the `k` highest come back,
    /// highest first. A NaN score drops the candidate.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when `k` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, NeighbourSearch};
    /// let docs = [
    ///     Document::new("a", "the quick brown fox jumps over the lazy dog today"),
    ///     Document::new("b", "the quick brown fox jumps over the lazy cat today"),
    /// ];
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&docs)?;
    /// let search = NeighbourSearch::new(&index)?;
    /// // A measure of the caller's: the length difference of the texts.
    /// let query = "the quick brown fox jumps over the lazy dog today";
    /// let top = search.top_k_verified(query, 1, |doc| {
    ///     -(docs[doc].text.len() as f64 - query.len() as f64).abs()
    /// })?;
    /// assert_eq!(top[0].doc, 0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn top_k_verified<F: FnMut(usize) -> f64>(
        &self,
        text: &str,
        k: usize,
        mut score: F,
    ) -> Result<Vec<Neighbour>, Error> {
        check_k(k)?;
        let sig = self.index.hasher().sketch(text);
        Ok(self
            .forest
            .query_verified(&sig, k, |&doc| score(doc as usize))?
            .into_iter()
            .map(|(doc, score)| Neighbour {
                doc: doc as usize,
                score,
                std_error: None,
            })
            .collect())
    }
}

/// The number of MinHash values of `index`'s signatures.
fn num_perm(index: &DedupIndex) -> usize {
    index.num_perm()
}

/// Containment search over a [`DedupIndex`]: an `LshEnsemble` of its documents'
/// signatures and set sizes; a query text is sketched and counted with the index's
/// hasher and shingles, and the indexed documents that contain at least a fraction `t`
/// of its distinct shingles come back: by the MinHash estimate of that containment
/// ([`query`](Self::query)) or by the caller's exact measure
/// ([`query_verified`](Self::query_verified)).
///
/// The estimate: with the Jaccard estimate `J` of query `Q` (size `q`) and document
/// `X` (size `x`), `|Q ∩ X| = J (q + x) / (1 + J)`, so containment `J (q + x) / ((1 +
/// J) q)`, capped at 1. Documents without shingles (shorter than a shingle) are not
/// searched.
///
/// Needs the set sizes kept by indexes saved since byte-form version 2
/// ([`DedupIndex::set_sizes`]); [`Error::MissingSetSizes`] otherwise.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex, Document};
/// let mut index = DedupIndex::new(&Dedup::new())?;
/// index.add(&[
///     Document::new("long", "preamble words here then the committee approved the budget for the new \
///                            library building on monday and afterwards many more words follow"),
///     Document::new("other", "a different story about the weather in the mountains this week"),
/// ])?;
/// let search = ContainmentSearch::new(&index, 0.8)?;
/// let hits = search.query("the committee approved the budget for the new library building on monday")?;
/// assert_eq!(hits.len(), 1);
/// assert_eq!(index.ids()[hits[0].doc], "long");
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug)]
pub struct ContainmentSearch<'a> {
    index: &'a DedupIndex,
    ensemble: LshEnsemble<u32>,
    threshold: f64,
}

impl<'a> ContainmentSearch<'a> {
    /// The weight of false negatives (against `1 -` this for false positives) with
    /// which [`new`](Self::new) and [`builder`](Self::builder) choose each size
    /// partition's bands: recall-oriented, as `Dedup`'s banding is. Equal weights
    /// (datasketch's) found the source of 21 of 149 prefix queries at containment 0.9
    /// (issue 29); the measured figures for this default are in `docs/decisions.md`.
    /// The extra candidates cost set intersections, not wrong answers: scores are
    /// exact when the index keeps its shingle sets. A lower weight
    /// ([`ContainmentSearchBuilder::false_negative_weight`]) trades recall for fewer
    /// candidates.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::ContainmentSearch::DEFAULT_FALSE_NEGATIVE_WEIGHT, 0.9);
    /// ```
    pub const DEFAULT_FALSE_NEGATIVE_WEIGHT: f64 = 0.9;

    /// An ensemble with the library's defaults for containment `threshold` in `(0,
    /// 1]` (1 asks for an estimate of 1; the ensemble's bands are chosen for 0.999).
    ///
    /// # Errors
    ///
    /// [`Error::MissingSetSizes`] for an index without set sizes; [`Error::Core`]
    /// for a threshold outside `(0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// assert!(near_dup::pipeline::ContainmentSearch::new(&index, 0.5).is_ok());
    /// assert!(near_dup::pipeline::ContainmentSearch::new(&index, 0.0).is_err());
    /// assert!(near_dup::pipeline::ContainmentSearch::new(&index, 1.5).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn new(index: &'a DedupIndex, threshold: f64) -> Result<Self, Error> {
        Self::builder(index, threshold)?.build()
    }

    /// Sets the containment a result must reach, in `(0, 1]`, keeping the ensemble
    /// (whose bands were chosen for its own threshold): for a threshold of 1, which
    /// the ensemble's parameters cannot take, or to filter more strictly than the
    /// candidates were chosen for.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for a threshold outside `(0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// let search = near_dup::pipeline::ContainmentSearch::new(&index, 0.9)?.with_threshold(1.0)?;
    /// assert_eq!(search.threshold(), 1.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn with_threshold(mut self, threshold: f64) -> Result<Self, Error> {
        ndd_core::Threshold::new(threshold)?;
        self.threshold = threshold;
        Ok(self)
    }

    /// An ensemble with these parameters (threshold, partitions per doubling, longest
    /// band, error weights); results are those whose estimate reaches
    /// `params.threshold()`.
    ///
    /// # Errors
    ///
    /// [`Error::MissingSetSizes`] for an index without set sizes; [`Error::Core`]
    /// when `params.num_slots()` is above the index's `num_perm`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::EnsembleParams;
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?; // 128 values
    /// let p = EnsembleParams::new(0.7, 128)?.with_weights(0.1, 0.9)?;
    /// assert_eq!(ContainmentSearch::with_params(&index, p)?.threshold(), 0.7);
    /// assert!(ContainmentSearch::with_params(&index, EnsembleParams::new(0.7, 256)?).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn with_params(index: &'a DedupIndex, params: EnsembleParams) -> Result<Self, Error> {
        let sizes = index.set_sizes().ok_or(Error::MissingSetSizes)?;
        if params.num_slots() > num_perm(index) {
            return Err(ndd_core::Error::invalid_parameter(
                "num_slots",
                format!(
                    "the ensemble reads {} slots, the index's signatures have {}",
                    params.num_slots(),
                    num_perm(index)
                ),
            )
            .into());
        }
        let mut ensemble = LshEnsemble::new(params);
        fill_ensemble(&mut ensemble, index.lsh(), sizes)?;
        Ok(ContainmentSearch {
            index,
            ensemble,
            threshold: params.threshold(),
        })
    }

    /// The containment a result reaches.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// assert_eq!(near_dup::pipeline::ContainmentSearch::new(&index, 0.6)?.threshold(), 0.6);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The ensemble queries run on.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::pipeline::DedupIndex::new(&near_dup::pipeline::Dedup::new())?;
    /// let search = near_dup::pipeline::ContainmentSearch::new(&index, 0.6)?;
    /// assert_eq!(search.ensemble().params().threshold(), 0.6);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn ensemble(&self) -> &LshEnsemble<u32> {
        &self.ensemble
    }

    /// Bounds the ensemble's size classes by the set sizes of a whole collection it
    /// holds a part of ([`LshEnsemble::bound_classes_by`]).
    pub(crate) fn bound_classes_by(&mut self, sizes: impl IntoIterator<Item = u64>) {
        self.ensemble.bound_classes_by(sizes);
    }

    /// The query's signature and shingle set (`None`: the text has no shingle).
    fn prepare(&self, text: &str) -> Option<Query> {
        Query::containment(self.index, text)
    }

    /// Whether [`query`](Self::query) scores exactly: the index keeps every
    /// document's shingle set (the default since byte-form version 3), so each
    /// candidate's containment of the query is `|Q ∩ X| / |Q|` of the sets. Otherwise
    /// it is the MinHash estimate, with its standard error.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex, Verifier};
    /// let exact = DedupIndex::new(&Dedup::new())?;
    /// assert!(ContainmentSearch::new(&exact, 0.9)?.exact_scores());
    /// let estimated = DedupIndex::new(&Dedup::new().verifier(Verifier::MethodScore))?;
    /// assert!(!ContainmentSearch::new(&estimated, 0.9)?.exact_scores());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn exact_scores(&self) -> bool {
        keeps_sets(self.index)
    }

    /// The indexed documents whose estimated containment of `text`'s shingle set
    /// reaches the threshold, with that estimate, highest first (ties: the earlier
    /// indexed first). A text without shingles gives none.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] if the index's signatures do not fit (not for an index that
    /// loaded).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex, Document};
    /// let mut index = DedupIndex::new(&Dedup::new())?;
    /// index.add(&[Document::new("a", "one two three four five six seven eight")])?;
    /// let search = ContainmentSearch::new(&index, 0.9)?;
    /// let hits = search.query("one two three four five six seven eight")?;
    /// assert_eq!(hits[0].score, 1.0);
    /// assert!(search.query("")?.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn query(&self, text: &str) -> Result<Vec<Neighbour>, Error> {
        let Some(query) = self.prepare(text) else {
            return Ok(Vec::new());
        };
        let sizes = self.index.set_sizes().ok_or(Error::MissingSetSizes)?;
        let index = self.index;
        let set_of = |doc: u32| index.stored_set(doc as usize).unwrap_or(&[]);
        let mut out = Vec::new();
        containment_hits(
            self.ensemble.query(&query.sig, query.set.len() as u64)?,
            &query,
            self.threshold,
            sizes,
            num_perm(self.index),
            self.exact_scores().then_some(&set_of),
            &|doc| index.lsh().signature(&doc),
            &mut out,
        )?;
        sort_results(&mut out);
        Ok(out)
    }

    /// The candidates whose containment of `text` by the caller's measure
    /// `containment(doc)` (say, the exact `|Q ∩ X| / |Q|` of shingle sets the caller
    /// keeps; the index keeps no texts) reaches the threshold, with that value,
    /// highest first. What comes back is exact; the candidate step may miss some.
    ///
    /// # Errors
    ///
    /// As [`query`](Self::query).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{containment, FeatureExtractor};
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex, Document};
    /// use near_dup::shingle::WordShingler;
    /// let docs = [Document::new("a", "one two three four five six seven eight nine ten")];
    /// let mut index = DedupIndex::new(&Dedup::new())?; // word 3-grams
    /// index.add(&docs)?;
    /// let search = ContainmentSearch::new(&index, 0.5)?;
    /// let shingles = WordShingler::new(3)?;
    /// let query = "one two three four five six seven eight";
    /// let q = shingles.feature_set(query);
    /// let hits = search.query_verified(query, |doc| {
    ///     containment(q.as_slice(), shingles.feature_set(&docs[doc].text).as_slice())
    /// })?;
    /// assert_eq!(hits[0].score, 1.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn query_verified<F: FnMut(usize) -> f64>(
        &self,
        text: &str,
        mut containment: F,
    ) -> Result<Vec<Neighbour>, Error> {
        let Some(query) = self.prepare(text) else {
            return Ok(Vec::new());
        };
        let mut out: Vec<Neighbour> = self
            .ensemble
            .query(&query.sig, query.set.len() as u64)?
            .into_iter()
            .map(|doc| Neighbour {
                doc: doc as usize,
                score: containment(doc as usize),
                std_error: None,
            })
            .filter(|n| n.score >= self.threshold)
            .collect();
        sort_results(&mut out);
        Ok(out)
    }
}

/// The highest threshold the ensemble's parameters are chosen for (it needs one
/// strictly below 1); a search at 1 filters its candidates at 1.
const ENSEMBLE_MAX_THRESHOLD: f64 = 0.999;

/// Highest score first, ties by document position (stable output).
pub(crate) fn sort_results(out: &mut [Neighbour]) {
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
}

/// `|Q ∩ X| / |Q|` from the Jaccard estimate `j` and the set sizes, in `[0, 1]`.
fn containment_estimate(j: f64, q: u64, x: u64) -> f64 {
    if q == 0 {
        return 0.0;
    }
    (j * (q + x) as f64 / ((1.0 + j) * q as f64)).clamp(0.0, 1.0)
}

/// The standard error of [`containment_estimate`] by the delta method: the Jaccard
/// estimate's `sqrt(j (1 - j) / k)` times `d c / d j = (q + x) / (q (1 + j)²)`. Large
/// for a short query against a long document (`x ≫ q`), where one shared MinHash
/// value moves the estimate by `(q + x) / (k q)`.
fn containment_std_error(j: f64, q: u64, x: u64, k: usize) -> f64 {
    if q == 0 {
        return 0.0;
    }
    let slope = (q + x) as f64 / (q as f64 * (1.0 + j) * (1.0 + j));
    slope * jaccard_std_error(j, k)
}

/// The knobs of a [`NeighbourSearch`], set one by one, each checked when it is set:
/// the forest's shape (trees and values per tree), the candidates ranked per result
/// asked for, and the most candidates examined at one prefix length.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
/// let index = DedupIndex::new(&Dedup::new())?; // 128 values
/// let search = NeighbourSearch::builder(&index)?
///     .shape(Some(16), None)? // 16 trees of 128 / 16 = 8 values
///     .candidates_per_result(8)
///     .build()?;
/// assert_eq!((search.forest().params().trees(), search.forest().params().depth()), (16, 8));
/// assert!(NeighbourSearch::builder(&index)?.shape(Some(64), Some(4)).is_err()); // 256 > 128
/// // Checked once, used twice: a search and the forest's configuration.
/// let settings = NeighbourSearch::builder(&index)?.candidates_per_result(2);
/// assert_eq!(settings.clone().build()?.forest().candidates_per_result(), 2);
/// assert_eq!(settings.forest_builder().build().candidates_per_result(), 2);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct NeighbourSearchBuilder<'a> {
    index: &'a DedupIndex,
    params: ForestParams,
    candidates_per_result: usize,
    max_examined: usize,
}

impl<'a> NeighbourSearch<'a> {
    /// A builder over `index` with the library's defaults: the forest shape
    /// [`ForestParams::for_slots`] gives for the index's values,
    /// [`DEFAULT_CANDIDATES_PER_RESULT`](ndd_lsh::DEFAULT_CANDIDATES_PER_RESULT) and
    /// [`DEFAULT_MAX_EXAMINED`](ndd_lsh::DEFAULT_MAX_EXAMINED).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when the index's signatures have no values to build a forest
    /// of.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert!(NeighbourSearch::builder(&index)?.build()?.forest().is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn builder(index: &'a DedupIndex) -> Result<NeighbourSearchBuilder<'a>, Error> {
        Ok(NeighbourSearchBuilder {
            index,
            params: ForestParams::for_slots(num_perm(index))?,
            candidates_per_result: ndd_lsh::DEFAULT_CANDIDATES_PER_RESULT,
            max_examined: ndd_lsh::DEFAULT_MAX_EXAMINED,
        })
    }
}

impl<'a> NeighbourSearchBuilder<'a> {
    /// The forest's shape: `trees` prefix trees (`None`: the default's) of `depth`
    /// values each (`None`: the index's values divided by the trees).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for a shape [`ForestParams::new`] refuses, or one that reads
    /// more values than the index's signatures have (`trees × depth > num_perm`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
    /// let index = DedupIndex::new(&Dedup::new())?; // 128 values
    /// let search = NeighbourSearch::builder(&index)?.shape(None, Some(4))?.build()?;
    /// assert_eq!(search.forest().params().depth(), 4);
    /// assert!(NeighbourSearch::builder(&index)?.shape(Some(0), None).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn shape(mut self, trees: Option<usize>, depth: Option<usize>) -> Result<Self, Error> {
        let num_perm = num_perm(self.index);
        let trees = trees.unwrap_or(self.params.trees());
        let depth = depth.unwrap_or(num_perm / trees.max(1));
        let params = ForestParams::new(trees, depth)?;
        if params.slots_used() > num_perm {
            return Err(ndd_core::Error::invalid_parameter(
                "trees",
                format!(
                    "trees x depth = {} is more than the index's {num_perm} MinHash values",
                    params.slots_used()
                ),
            )
            .into());
        }
        self.params = params;
        Ok(self)
    }

    /// Candidates ranked per result asked for (at least `k ×` this many are examined
    /// for the top `k`; more finds more of the true top `k`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// let search = NeighbourSearch::builder(&index)?.candidates_per_result(3).build()?;
    /// assert_eq!(search.forest().candidates_per_result(), 3);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn candidates_per_result(mut self, factor: usize) -> Self {
        self.candidates_per_result = factor;
        self
    }

    /// The most candidates examined at one prefix length (bounds the work on many
    /// identical documents).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert!(NeighbourSearch::builder(&index)?.max_examined(100).build().is_ok());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn max_examined(mut self, documents: usize) -> Self {
        self.max_examined = documents;
        self
    }

    /// The search: the forest built over the index's documents.
    ///
    /// # Errors
    ///
    /// As [`NeighbourSearch::with_builder`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert!(NeighbourSearch::builder(&index)?.build()?.top_k("a b c d", 3)?.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn build(self) -> Result<NeighbourSearch<'a>, Error> {
        let index = self.index;
        NeighbourSearch::with_builder(index, self.forest_builder())
    }

    /// The forest's configuration, for a search that builds its forests itself
    /// ([`SegmentedIndex::top_k`](crate::SegmentedIndex::top_k), one per segment).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, NeighbourSearch};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// let forest = NeighbourSearch::builder(&index)?.max_examined(7).forest_builder().build();
    /// assert_eq!(forest.max_examined(), 7);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn forest_builder(self) -> LshForestBuilder<u32> {
        LshForest::builder(self.params)
            .candidates_per_result(self.candidates_per_result)
            .max_examined(self.max_examined)
    }
}

/// The knobs of a [`ContainmentSearch`], set one by one, each checked when it is set:
/// partitions per doubling of set size, the longest band, and how false negatives
/// weigh against false positives when bands are chosen.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
/// let index = DedupIndex::new(&Dedup::new())?;
/// let search = ContainmentSearch::builder(&index, 0.8)?
///     .max_rows(4)?
///     .false_negative_weight(0.9)?
///     .build()?;
/// assert_eq!(search.threshold(), 0.8);
/// assert!(ContainmentSearch::builder(&index, 0.8)?.partitions_per_doubling(3).is_err());
/// // Checked once, used twice: a search and the ensemble's parameters.
/// let settings = ContainmentSearch::builder(&index, 0.7)?.max_rows(4)?;
/// assert_eq!(settings.clone().build()?.ensemble().params().max_rows(), 4);
/// assert_eq!(settings.into_params().0.max_rows(), 4);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ContainmentSearchBuilder<'a> {
    index: &'a DedupIndex,
    params: EnsembleParams,
    threshold: f64,
}

impl<'a> ContainmentSearch<'a> {
    /// A builder over `index` for containment `threshold` in `(0, 1]`, with the
    /// library's defaults (the ensemble's bands are chosen for at most 0.999).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for a threshold outside `(0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert_eq!(ContainmentSearch::builder(&index, 1.0)?.build()?.threshold(), 1.0);
    /// assert!(ContainmentSearch::builder(&index, 0.0).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn builder(
        index: &'a DedupIndex,
        threshold: f64,
    ) -> Result<ContainmentSearchBuilder<'a>, Error> {
        ndd_core::Threshold::new(threshold)?;
        let w = Self::DEFAULT_FALSE_NEGATIVE_WEIGHT;
        Ok(ContainmentSearchBuilder {
            index,
            params: EnsembleParams::new(threshold.min(ENSEMBLE_MAX_THRESHOLD), num_perm(index))?
                .with_weights(1.0 - w, w)?,
            threshold,
        })
    }
}

impl<'a> ContainmentSearchBuilder<'a> {
    /// Size partitions per doubling of set size, 1 or 2.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for another number.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert!(ContainmentSearch::builder(&index, 0.8)?.partitions_per_doubling(1).is_ok());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn partitions_per_doubling(mut self, n: u8) -> Result<Self, Error> {
        self.params = self.params.with_classes_per_doubling(n)?;
        Ok(self)
    }

    /// The longest LSH band, in values.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for a length the ensemble refuses (0, or more than its values).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert!(ContainmentSearch::builder(&index, 0.8)?.max_rows(0).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn max_rows(mut self, rows: usize) -> Result<Self, Error> {
        self.params = self.params.with_max_rows(rows)?;
        Ok(self)
    }

    /// The weight `w` in `[0, 1]` of false negatives when bands are chosen (false
    /// positives weigh `1 - w`).
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for a weight the ensemble refuses.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert!(ContainmentSearch::builder(&index, 0.8)?.false_negative_weight(0.5).is_ok());
    /// assert!(ContainmentSearch::builder(&index, 0.8)?.false_negative_weight(2.0).is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn false_negative_weight(mut self, w: f64) -> Result<Self, Error> {
        self.params = self.params.with_weights(1.0 - w, w)?;
        Ok(self)
    }

    /// The search: the ensemble built over the index's documents.
    ///
    /// # Errors
    ///
    /// As [`ContainmentSearch::with_params`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// assert!(ContainmentSearch::builder(&index, 0.8)?.build()?.query("a b c d")?.is_empty());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn build(self) -> Result<ContainmentSearch<'a>, Error> {
        ContainmentSearch::with_params(self.index, self.params)?.with_threshold(self.threshold)
    }

    /// The ensemble's parameters and the containment a result reaches, for a search
    /// that builds its ensembles itself
    /// ([`SegmentedIndex::containment`](crate::SegmentedIndex::containment), one per
    /// segment).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{ContainmentSearch, Dedup, DedupIndex};
    /// let index = DedupIndex::new(&Dedup::new())?;
    /// let (params, threshold) = ContainmentSearch::builder(&index, 1.0)?.into_params();
    /// assert_eq!((params.threshold(), threshold), (0.999, 1.0));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn into_params(self) -> (EnsembleParams, f64) {
        (self.params, self.threshold)
    }
}

//! [`NeighbourSearch`]: the top `k` indexed documents of a text, over an `LshForest` of
//! the index's signatures; its knobs ([`NeighbourSearchBuilder`]) and the probe and
//! answer it shares with the segmented search.

use ndd_core::DocSketcher;
use ndd_lsh::{ForestParams, ForestProbe, LshForest, LshForestBuilder, LshIndex};
use ndd_minhash::MinHashSignature;

use super::{Neighbour, Query, SetOf, jaccard_std_error, keeps_sets, num_perm, sort_results};
use crate::{DedupIndex, Error};

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

/// Refuses a top-`k` search for `k` = 0.
pub(crate) fn check_k(k: usize) -> Result<(), Error> {
    if k == 0 {
        return Err(ndd_core::Error::invalid_parameter("k", "must be at least 1").into());
    }
    Ok(())
}

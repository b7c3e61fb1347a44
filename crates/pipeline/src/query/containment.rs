//! [`ContainmentSearch`]: the indexed documents that contain most of a text, over an
//! `LshEnsemble` of the index's signatures and set sizes; its knobs
//! ([`ContainmentSearchBuilder`]), the estimate of containment and the scoring it
//! shares with the segmented search.

use ndd_core::Signature;
use ndd_lsh::{EnsembleParams, LshEnsemble, LshIndex};
use ndd_minhash::MinHashSignature;

use super::{Neighbour, Query, SetOf, jaccard_std_error, keeps_sets, num_perm, sort_results};
use crate::{DedupIndex, Error};

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

/// The highest threshold the ensemble's parameters are chosen for (it needs one
/// strictly below 1); a search at 1 filters its candidates at 1.
const ENSEMBLE_MAX_THRESHOLD: f64 = 0.999;

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

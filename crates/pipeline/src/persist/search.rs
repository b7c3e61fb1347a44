//! Queries of a [`SegmentedIndex`] one committed segment at a time, with the answers
//! of [`NeighbourSearch`] and [`ContainmentSearch`] over the whole load.
//!
//! Top-k: each segment's documents go into a forest of the search's configuration,
//! every query probes it ([`LshForest::probe`](ndd_lsh::LshForest::probe)), scored
//! while the segment's sets are in memory, and the probes merge oldest first into what
//! the whole forest gathers ([`ForestProbe`]). Containment: each segment's ensemble is
//! bounded by the set sizes of every sketched document
//! ([`LshEnsemble::bound_classes_by`](ndd_lsh::LshEnsemble::bound_classes_by)), so it
//! chooses the bands the whole ensemble chooses, and the hits of all segments, sorted,
//! are the whole search's.

use ndd_lsh::{EnsembleParams, ForestProbe, LshEnsemble, LshForestBuilder};

use super::{SegmentedIndex, key, records::Part};
use crate::query::{
    Query, SetOf, check_k, containment_hits, fill_ensemble, fill_forest, probe_forest,
    sort_results, top_k_answer,
};
use crate::{
    ContainmentSearch, ContainmentSearchBuilder, Error, Neighbour, NeighbourSearch,
    NeighbourSearchBuilder,
};

impl SegmentedIndex {
    /// A builder of the top-k search's settings over this index (forest shape,
    /// candidates per result, work bound), for [`top_k`](Self::top_k) through
    /// [`NeighbourSearchBuilder::forest_builder`].
    ///
    /// # Errors
    ///
    /// As [`NeighbourSearch::builder`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-seg-nsearch-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// let index = SegmentedIndex::open(&dir)?;
    /// let forest = index.neighbour_search()?.candidates_per_result(2).forest_builder();
    /// assert_eq!(forest.build().candidates_per_result(), 2);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn neighbour_search(&self) -> Result<NeighbourSearchBuilder<'_>, Error> {
        NeighbourSearch::builder(&self.index)
    }

    /// A builder of the containment search's settings over this index, for
    /// [`containment`](Self::containment) through
    /// [`ContainmentSearchBuilder::into_params`].
    ///
    /// # Errors
    ///
    /// As [`ContainmentSearch::builder`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-seg-csearch-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// DedupIndex::new(&Dedup::new())?.save_dir(&dir)?;
    /// let index = SegmentedIndex::open(&dir)?;
    /// let (params, t) = index.containment_search(0.8)?.max_rows(4)?.into_params();
    /// assert_eq!((params.max_rows(), t), (4, 0.8));
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn containment_search(
        &self,
        threshold: f64,
    ) -> Result<ContainmentSearchBuilder<'_>, Error> {
        ContainmentSearch::builder(&self.index, threshold)
    }

    /// The top `k` of each of `texts`, searched one committed segment at a time:
    /// equal to [`NeighbourSearch::top_k`] over [`DedupIndex::load_dir`](crate::DedupIndex::load_dir) (with the
    /// documents added since) built from the same `forest` settings. Memory: the
    /// resident part, one segment's signatures, sets and forest, and per query its
    /// signature, shingle set and at most about `max(k · candidates_per_result,
    /// max_examined)` scored candidates. Cost: every segment read and sketched again
    /// once per call (not per query); pass all the queries of a batch at once.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when `k` is 0 or the forest reads more values than the index's
    /// signatures have; [`Error::Io`] or [`Error::Core`] with `CorruptData` for a
    /// segment that cannot be read (as [`add`](Self::add)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, NeighbourSearch, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-seg-topk-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut whole = DedupIndex::new(&Dedup::new())?;
    /// whole.add(&[Document::new("budget", "the committee approved the budget for the new library building")])?;
    /// whole.save_dir(&dir)?;
    /// whole.add(&[Document::new("weather", "a different story about the weather in the mountains")])?;
    /// whole.save_dir(&dir)?;
    ///
    /// let mut index = SegmentedIndex::open(&dir)?;
    /// let forest = index.neighbour_search()?.forest_builder();
    /// let q = "the committee approved the budget for the new library building on friday";
    /// let found = index.top_k(&forest, &[q], 1)?;
    /// assert_eq!(index.ids()[found[0][0].doc], "budget");
    /// assert_eq!(found[0], NeighbourSearch::new(&whole)?.top_k(q, 1)?);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn top_k(
        &mut self,
        forest: &LshForestBuilder<u32>,
        texts: &[&str],
        k: usize,
    ) -> Result<Vec<Vec<Neighbour>>, Error> {
        // The newest part first (it checks `k` and the shape); merged last.
        let (queries, exact, newest) = {
            check_k(k)?;
            let search = NeighbourSearch::with_builder(&self.index, forest.clone())?;
            let exact = search.exact_scores();
            let index = &self.index;
            let queries: Vec<Query> = texts
                .iter()
                .map(|t| Query::top_k(index, t, exact))
                .collect();
            let set_of = |doc: u32| index.stored_set(doc as usize).unwrap_or(&[]);
            let newest = queries
                .iter()
                .map(|q| {
                    let mut probe =
                        probe_forest(search.forest(), q, k, exact.then_some(&set_of), None)?;
                    probe.compact();
                    Ok(probe)
                })
                .collect::<Result<Vec<ForestProbe<u32>>, Error>>()?;
            (queries, exact, newest)
        };
        let mut probes: Vec<Option<ForestProbe<u32>>> = vec![None; queries.len()];
        for (g, base) in self.index.committed_segments() {
            let part = self.index.read_part(g, base)?;
            let mut tree = forest.clone().capacity(part.lsh.len()).build();
            fill_forest(&mut tree, &part.lsh)?;
            let set_of = |doc: u32| part_set(&part, doc);
            for (q, merged) in queries.iter().zip(&mut probes) {
                // Each segment walks no deeper than the older ones show the search stops.
                let sets = exact.then_some(&set_of as &SetOf<'_>);
                let probe = probe_forest(&tree, q, k, sets, merged.as_ref())?;
                let m = match merged {
                    Some(m) => {
                        m.merge(probe)?;
                        m
                    }
                    None => merged.insert(probe),
                };
                // Kept compact: what the answer can hold, not every candidate met.
                m.compact();
            }
        }
        let num_perm = self.index.num_perm();
        probes
            .into_iter()
            .zip(newest)
            .map(|(merged, newest)| {
                let probe = match merged {
                    Some(mut m) => {
                        m.merge(newest)?;
                        m
                    }
                    None => newest,
                };
                Ok(top_k_answer(probe, exact, num_perm))
            })
            .collect()
    }

    /// The documents containing at least `threshold` of each of `texts`' shingles,
    /// searched one committed segment at a time: equal to [`ContainmentSearch::query`]
    /// over [`DedupIndex::load_dir`](crate::DedupIndex::load_dir) (with the documents added since) built with
    /// `params` and `threshold` ([`ContainmentSearchBuilder::into_params`]). Each
    /// segment's ensemble is bounded by the set sizes of every document sketched
    /// ([`LshEnsemble::bound_classes_by`](ndd_lsh::LshEnsemble::bound_classes_by)).
    /// Memory: the resident part, one segment's signatures, sets and ensemble, and the
    /// queries' signatures, sets and hits. Cost: every segment read and sketched again
    /// once per call.
    ///
    /// # Errors
    ///
    /// As [`ContainmentSearch::with_params`] and [`ContainmentSearch::with_threshold`];
    /// [`Error::Io`] or [`Error::Core`] with `CorruptData` for a segment that cannot be
    /// read.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-seg-contain-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut whole = DedupIndex::new(&Dedup::new())?;
    /// whole.add(&[Document::new("long", "preamble words here then the committee approved the budget \
    ///     for the new library building on monday and afterwards many more words follow")])?;
    /// whole.save_dir(&dir)?;
    /// let mut index = SegmentedIndex::open(&dir)?;
    /// let (params, t) = index.containment_search(0.8)?.into_params();
    /// let hits = index.containment(params, t, &["the committee approved the budget for the new library building on monday"])?;
    /// assert_eq!(index.ids()[hits[0][0].doc], "long");
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn containment(
        &mut self,
        params: EnsembleParams,
        threshold: f64,
        texts: &[&str],
    ) -> Result<Vec<Vec<Neighbour>>, Error> {
        let sizes = self
            .index
            .set_sizes()
            .ok_or(Error::MissingSetSizes)?
            .to_vec();
        let num_perm = self.index.num_perm();
        // The newest part first (it checks the parameters and the threshold).
        let (queries, exact, mut hits) = {
            let mut search =
                ContainmentSearch::with_params(&self.index, params)?.with_threshold(threshold)?;
            search.bound_classes_by(self.sketched_sizes());
            let exact = search.exact_scores();
            let index = &self.index;
            let queries: Vec<Option<Query>> =
                texts.iter().map(|t| Query::containment(index, t)).collect();
            let set_of = |doc: u32| index.stored_set(doc as usize).unwrap_or(&[]);
            let mut hits = vec![Vec::new(); texts.len()];
            for (q, out) in queries.iter().zip(&mut hits) {
                let Some(q) = q else { continue };
                containment_hits(
                    search.ensemble().query(&q.sig, q.set.len() as u64)?,
                    q,
                    threshold,
                    &sizes,
                    num_perm,
                    exact.then_some(&set_of),
                    &|doc| index.lsh().signature(&doc),
                    out,
                )?;
            }
            (queries, exact, hits)
        };
        // Tabulated and bounded once (the bands per size ratio, the classes by every
        // document sketched), cloned per segment.
        let mut empty = LshEnsemble::new(params);
        empty.bound_classes_by(self.sketched_sizes());
        for (g, base) in self.index.committed_segments() {
            let part = self.index.read_part(g, base)?;
            let mut ensemble = empty.clone();
            fill_ensemble(&mut ensemble, &part.lsh, &sizes)?;
            let set_of = |doc: u32| part_set(&part, doc);
            for (q, out) in queries.iter().zip(&mut hits) {
                let Some(q) = q else { continue };
                containment_hits(
                    ensemble.query(&q.sig, q.set.len() as u64)?,
                    q,
                    threshold,
                    &sizes,
                    num_perm,
                    exact.then_some(&set_of),
                    &|doc| part.lsh.signature(&doc),
                    out,
                )?;
            }
        }
        for out in &mut hits {
            sort_results(out);
        }
        Ok(hits)
    }

    /// The number of size classes (partitions) a containment search with `params`
    /// spreads this index's documents over: [`LshEnsemble::partitions`] of the whole
    /// load's ensemble.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, DedupIndex, Document, SegmentedIndex};
    /// let dir = std::env::temp_dir().join(format!("ndd-seg-parts-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut whole = DedupIndex::new(&Dedup::new())?;
    /// whole.add(&[Document::new("a", "one two three four five six seven")])?;
    /// whole.save_dir(&dir)?;
    /// let index = SegmentedIndex::open(&dir)?;
    /// let (params, _) = index.containment_search(0.8)?.into_params();
    /// assert_eq!(index.containment_partitions(params), 1);
    /// std::fs::remove_dir_all(&dir).map_err(|e| near_dup::pipeline::Error::io(&dir, e))?;
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn containment_partitions(&self, params: EnsembleParams) -> usize {
        let mut ensemble = LshEnsemble::<u32>::new(params);
        ensemble.bound_classes_by(self.sketched_sizes());
        ensemble.partitions()
    }

    /// The set sizes of the documents in the LSH index (sketched): those the whole
    /// load's ensemble holds.
    fn sketched_sizes(&self) -> impl Iterator<Item = u64> + '_ {
        let sizes = self.index.set_sizes().unwrap_or(&[]);
        sizes
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.unsketched.binary_search(&key(i)).is_err())
            .map(|(_, &s)| s)
    }
}

/// The shingle set of document `doc` of `part` (empty without sets).
fn part_set(part: &Part, doc: u32) -> &[u64] {
    part.sets
        .as_ref()
        .map_or(&[][..], |s| s.get((doc as usize).saturating_sub(part.base)))
}

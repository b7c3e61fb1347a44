//! Exact candidate generation over feature sets: an inverted index, and an all-pairs
//! join with prefix filtering.

use std::hash::Hash;

use ahash::AHashMap;

use ndd_core::{
    CandidateIndex, Error, ExactSet, FeatureSet, PairSink, SchemeId, ScoredPair, Signature,
};

/// An inverted index from features to documents: the exact reference index.
///
/// `query` returns every stored document sharing at least one feature with the query;
/// [`query_scored`](Self::query_scored) also computes the exact Jaccard coefficient of
/// each from the overlap counts. Memory is one posting per (document, feature), so
/// this suits collections whose feature sets fit in memory; sketches and LSH indexes
/// exist for the rest.
///
/// # Example
///
/// ```
/// use near_dup::{CandidateIndex, ExactSetSketcher, SchemeId, Sketcher};
/// use near_dup::index::InvertedIndex;
/// let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
/// let mut index = InvertedIndex::new();
/// index.insert(1u32, &sk.sketch_features([1, 2, 3, 4]))?;
/// index.insert(2u32, &sk.sketch_features([3, 4, 5, 6]))?;
/// let hits = index.query_scored(&sk.sketch_features([1, 2, 3, 4, 5]), 0.6)?;
/// assert_eq!(hits, vec![(1, 0.8)]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct InvertedIndex<K> {
    scheme: Option<SchemeId>,
    slots: Vec<Option<(K, FeatureSet)>>,
    by_key: AHashMap<K, u32>,
    postings: AHashMap<u64, Vec<u32>>,
    live: usize,
}

impl<K> Default for InvertedIndex<K> {
    fn default() -> Self {
        InvertedIndex {
            scheme: None,
            slots: Vec::new(),
            by_key: AHashMap::new(),
            postings: AHashMap::new(),
            live: 0,
        }
    }
}

impl<K: Clone + Eq + Hash> InvertedIndex<K> {
    /// An empty index; its scheme is fixed by the first insert.
    ///
    /// # Example
    ///
    /// ```
    /// let index = near_dup::index::InvertedIndex::<String>::new();
    /// assert!(near_dup::CandidateIndex::is_empty(&index));
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn check(&self, sig: &ExactSet) -> Result<(), Error> {
        match self.scheme {
            Some(s) => Error::check_schemes(s, sig.scheme()),
            None => Ok(()),
        }
    }

    /// Visits every live document that shares a feature with `set`, with the overlap
    /// count (one small map allocated per query).
    fn for_each_overlap(&self, set: &FeatureSet, mut f: impl FnMut(u32, u32)) {
        let mut counts: AHashMap<u32, u32> = AHashMap::new();
        for feature in set.as_slice() {
            if let Some(list) = self.postings.get(feature) {
                for &slot in list {
                    *counts.entry(slot).or_insert(0) += 1;
                }
            }
        }
        for (slot, c) in counts {
            f(slot, c);
        }
    }

    /// Stored documents whose exact Jaccard coefficient with `signature` is at least
    /// `min_jaccard`, with that coefficient, in decreasing order of similarity.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] on a scheme mismatch; [`Error::InvalidParameter`] when
    /// `min_jaccard` is not in `[0, 1]`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{CandidateIndex, ExactSetSketcher, SchemeId, Sketcher};
    /// use near_dup::index::InvertedIndex;
    /// let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
    /// let mut index = InvertedIndex::new();
    /// index.insert("x", &sk.sketch_features([1, 2]))?;
    /// assert!(index.query_scored(&sk.sketch_features([2, 3, 4]), 0.5)?.is_empty());
    /// assert!(index.query_scored(&sk.sketch_features([1]), 2.0).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn query_scored(
        &self,
        signature: &ExactSet,
        min_jaccard: f64,
    ) -> Result<Vec<(K, f64)>, Error> {
        check_threshold(min_jaccard)?;
        self.check(signature)?;
        let mut out = Vec::new();
        let n = signature.set().len();
        self.for_each_overlap(signature.set(), |slot, c| {
            if let Some((key, set)) = &self.slots[slot as usize] {
                let j = f64::from(c) / (n + set.len() - c as usize) as f64;
                if j >= min_jaccard {
                    out.push((key.clone(), j));
                }
            }
        });
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(out)
    }
}

impl<K: Clone + Eq + Hash> InvertedIndex<K> {
    /// Pushes every pair of indexed documents that share at least one feature into
    /// `sink` once, scored by their exact Jaccard coefficient (the earlier-inserted
    /// document first when nothing was removed). One overlap count per pair, from the
    /// postings: no loop over all pairs of documents.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{CandidateIndex, ExactSetSketcher, SchemeId, ScoredPair, Sketcher};
    /// use near_dup::index::InvertedIndex;
    /// let sk = ExactSetSketcher::new(SchemeId::new("f").finish());
    /// let mut index = InvertedIndex::new();
    /// index.insert(1u32, &sk.sketch_features([1, 2, 3, 4]))?;
    /// index.insert(2u32, &sk.sketch_features([3, 4, 5, 6]))?;
    /// index.insert(3u32, &sk.sketch_features([9]))?;
    /// let mut pairs: Vec<ScoredPair<u32>> = Vec::new();
    /// index.all_pairs_into(&mut pairs);
    /// assert_eq!(pairs, vec![ScoredPair::new(1, 2, 2.0 / 6.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn all_pairs_into<S: PairSink<K> + ?Sized>(&self, sink: &mut S) {
        let mut counts: AHashMap<u32, u32> = AHashMap::new();
        for (slot, entry) in self.slots.iter().enumerate() {
            let Some((key, set)) = entry else { continue };
            counts.clear();
            for feature in set.as_slice() {
                if let Some(list) = self.postings.get(feature) {
                    for &other in list {
                        if (other as usize) < slot {
                            *counts.entry(other).or_insert(0) += 1;
                        }
                    }
                }
            }
            let mut found: Vec<(u32, u32)> = counts.iter().map(|(&o, &c)| (o, c)).collect();
            found.sort_unstable();
            for (other, c) in found {
                if let Some((okey, oset)) = &self.slots[other as usize] {
                    let j = f64::from(c) / (set.len() + oset.len() - c as usize) as f64;
                    sink.push_pair(ScoredPair::new(okey.clone(), key.clone(), j));
                }
            }
        }
    }
}

fn check_threshold(t: f64) -> Result<(), Error> {
    if (0.0..=1.0).contains(&t) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            "min_jaccard",
            format!("must lie in [0, 1], got {t}"),
        ))
    }
}

impl<K: Clone + Eq + Hash> CandidateIndex for InvertedIndex<K> {
    type Key = K;
    type Signature = ExactSet;

    fn insert(&mut self, key: K, signature: &ExactSet) -> Result<(), Error> {
        self.check(signature)?;
        self.scheme = Some(signature.scheme());
        self.remove(&key);
        let slot = u32::try_from(self.slots.len())
            .map_err(|_| Error::invalid_input("more than 2^32 documents in one index"))?;
        for &f in signature.set().as_slice() {
            self.postings.entry(f).or_default().push(slot);
        }
        self.slots
            .push(Some((key.clone(), signature.set().clone())));
        self.by_key.insert(key, slot);
        self.live += 1;
        Ok(())
    }

    fn remove(&mut self, key: &K) -> bool {
        let Some(slot) = self.by_key.remove(key) else {
            return false;
        };
        if let Some((_, set)) = self.slots[slot as usize].take() {
            for f in set.as_slice() {
                if let Some(list) = self.postings.get_mut(f) {
                    list.retain(|&s| s != slot);
                    if list.is_empty() {
                        self.postings.remove(f);
                    }
                }
            }
        }
        self.live -= 1;
        true
    }

    fn query_into(&self, signature: &ExactSet, out: &mut Vec<K>) -> Result<(), Error> {
        self.check(signature)?;
        self.for_each_overlap(signature.set(), |slot, _| {
            if let Some((key, _)) = &self.slots[slot as usize] {
                out.push(key.clone());
            }
        });
        Ok(())
    }

    fn len(&self) -> usize {
        self.live
    }

    fn query_then_insert(
        &mut self,
        key: K,
        signature: &ExactSet,
        out: &mut Vec<K>,
    ) -> Result<(), Error> {
        self.check(signature)?;
        self.remove(&key);
        self.query_into(signature, out)?;
        self.insert(key, signature)
    }

    /// Pairs sharing at least one feature, scored by their exact Jaccard coefficient.
    fn all_pairs_into(&self, sink: &mut dyn PairSink<K>) {
        InvertedIndex::all_pairs_into(self, sink);
    }
}

/// Every pair of sets whose exact Jaccard coefficient is at least `threshold`, as
/// [`ScoredPair`]s `(i, j, jaccard)` with `i < j` indices into `sets`, sorted by
/// `(i, j)` (collects [`exact_similar_pairs_into`] and sorts).
///
/// An exact all-pairs join without the O(N²) loop: prefix filtering (Bayardo, Ma and
/// Srikant, "Scaling Up All Pairs Similarity Search", WWW 2007, section 4). Features
/// are ordered rarest first; two sets with `J ≥ t` share at least one feature among
/// the first `|x| − ⌈t·|x|⌉ + 1` of each, so only those prefixes are indexed and every
/// candidate is verified by a merge. Empty sets pair with each other (their Jaccard
/// is 1 by convention) and with nothing else.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when `threshold` is not in `(0, 1]` (at 0 every pair
/// qualifies, which is a loop, not a join).
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSet, ScoredPair};
/// use near_dup::index::exact_similar_pairs;
/// let sets: Vec<FeatureSet> = [vec![1, 2, 3, 4], vec![1, 2, 3, 5], vec![7, 8]]
///     .into_iter().map(FeatureSet::from_unsorted).collect();
/// let pairs = exact_similar_pairs(&sets, 0.5)?;
/// assert_eq!(pairs, vec![ScoredPair::new(0, 1, 0.6)]);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn exact_similar_pairs(sets: &[FeatureSet], threshold: f64) -> Result<Vec<ScoredPair>, Error> {
    crate::pairs::sorted_pairs(|out| exact_similar_pairs_into(sets, threshold, out))
}

/// Pushes every pair of sets whose exact Jaccard coefficient is at least `threshold`
/// into `sink`, as [`ScoredPair`]s `(i, j, jaccard)` with `i < j` indices into
/// `sets`, each pair once, in the order the join finds them (not sorted): the
/// streaming form of [`exact_similar_pairs`], with no output `Vec` unless the sink is
/// one. The join's own working memory (feature ranks, prefix postings) is allocated
/// once per call.
///
/// # Errors
///
/// As [`exact_similar_pairs`]; nothing is pushed on error.
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSet, PairCounter};
/// use near_dup::index::exact_similar_pairs_into;
/// let sets: Vec<FeatureSet> = [vec![1, 2, 3], vec![1, 2, 3], vec![1, 2, 4], vec![9]]
///     .into_iter().map(FeatureSet::from_unsorted).collect();
/// let mut count = PairCounter::default();
/// exact_similar_pairs_into(&sets, 0.5, &mut count)?;
/// assert_eq!(count.count, 3); // 0–1 (J = 1), 0–2 and 1–2 (J = 0.5)
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn exact_similar_pairs_into<S: PairSink + ?Sized>(
    sets: &[FeatureSet],
    threshold: f64,
    sink: &mut S,
) -> Result<(), Error> {
    exact_similar_pairs_capped_into(sets, threshold, None, sink)
}

/// [`exact_similar_pairs_into`] with at most `max_partners` pairs per set among the
/// sets joined before it (`None`: every pair), the newest of each prefix posting list
/// first: the bound of a hot cluster. `n` mutually similar sets make `n(n − 1)/2`
/// pairs unbounded (2·10⁸ for 20,000 near-identical lines, several GB); capped, at
/// most `n · max_partners`, and the join stops reading a set's posting lists once its
/// partners are found, so its work is bounded too. Each set still pairs with up to
/// `max_partners` of its similar predecessors, so a cluster of mutual near-duplicates
/// stays connected; only some of its pairs go unreported. Sets with fewer similar
/// predecessors than the cap get exactly the pairs of the unbounded join.
///
/// # Errors
///
/// As [`exact_similar_pairs`], and [`Error::InvalidParameter`] for
/// `max_partners == Some(0)` (it would find nothing).
///
/// # Example
///
/// ```
/// use near_dup::{FeatureSet, PairCounter};
/// use near_dup::index::exact_similar_pairs_capped_into;
/// // Ten identical sets: 45 pairs, or at most 2 per set (1 + 2 × 8 = 17) when capped.
/// let sets: Vec<FeatureSet> = (0..10).map(|_| FeatureSet::from_unsorted(vec![1, 2, 3])).collect();
/// let mut all = PairCounter::default();
/// exact_similar_pairs_capped_into(&sets, 0.5, None, &mut all)?;
/// let mut capped = PairCounter::default();
/// exact_similar_pairs_capped_into(&sets, 0.5, Some(2), &mut capped)?;
/// assert_eq!((all.count, capped.count), (45, 17));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn exact_similar_pairs_capped_into<S: PairSink + ?Sized>(
    sets: &[FeatureSet],
    threshold: f64,
    max_partners: Option<usize>,
    sink: &mut S,
) -> Result<(), Error> {
    if max_partners == Some(0) {
        return Err(Error::invalid_parameter(
            "max_partners",
            "must be at least 1 (or none)",
        ));
    }
    let cap = max_partners.unwrap_or(usize::MAX);
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(Error::invalid_parameter(
            "threshold",
            format!("must lie in (0, 1], got {threshold}"),
        ));
    }
    // Global order: rarest feature first (ties by value), as ranks.
    let mut df: AHashMap<u64, u32> = AHashMap::new();
    for s in sets {
        for &f in s.as_slice() {
            *df.entry(f).or_insert(0) += 1;
        }
    }
    let mut order: Vec<(u32, u64)> = df.iter().map(|(&f, &c)| (c, f)).collect();
    order.sort_unstable();
    let rank: AHashMap<u64, usize> = order
        .iter()
        .enumerate()
        .map(|(r, &(_, f))| (f, r))
        .collect();
    drop(order);
    drop(df);

    let mut postings: AHashMap<usize, Vec<usize>> = AHashMap::new();
    let mut ranked: Vec<usize> = Vec::new();
    let mut seen: Vec<usize> = vec![usize::MAX; sets.len()];
    let mut empties: Vec<usize> = Vec::new();
    // Process in increasing size so each set is probed against smaller-or-equal ones,
    // which also allows the size filter |y| ≥ t·|x|.
    let mut by_size: Vec<usize> = (0..sets.len()).collect();
    by_size.sort_by_key(|&i| (sets[i].len(), i));
    for &i in &by_size {
        let x = &sets[i];
        if x.is_empty() {
            empties.push(i);
            continue;
        }
        ranked.clear();
        ranked.extend(x.as_slice().iter().map(|f| rank[f]));
        ranked.sort_unstable();
        let n = x.len();
        // Overlap needed for J ≥ t is at least ⌈t·|x|⌉ ∈ [1, n]; the cast is exact
        // because the value is a small non-negative integer.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let need = ((threshold * n as f64).ceil() as usize).clamp(1, n);
        let prefix = n - need + 1;
        let min_size = threshold * n as f64;
        let mut partners = 0usize;
        'lists: for &r in &ranked[..prefix] {
            if let Some(list) = postings.get(&r) {
                for &j in list.iter().rev() {
                    if seen[j] == i || (sets[j].len() as f64) < min_size - 1e-9 {
                        continue;
                    }
                    seen[j] = i;
                    let sim = ndd_core::jaccard(x.as_slice(), sets[j].as_slice());
                    if sim >= threshold {
                        sink.push_pair(ScoredPair::new(i.min(j), i.max(j), sim));
                        partners += 1;
                        if partners >= cap {
                            break 'lists;
                        }
                    }
                }
            }
        }
        for &r in &ranked[..prefix] {
            postings.entry(r).or_default().push(i);
        }
    }
    for (a, &i) in empties.iter().enumerate() {
        // Each empty set pairs with the (at most `cap`) empty sets before it.
        for &j in &empties[a.saturating_sub(cap)..a] {
            sink.push_pair(ScoredPair::new(i.min(j), i.max(j), 1.0));
        }
    }
    Ok(())
}

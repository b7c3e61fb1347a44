//! [`ForestProbe`]: what one [`LshForest`](super::LshForest) holds for a top-k query,
//! kept so that the forests of a collection split by insertion time answer together as
//! one forest over the whole collection answers.

use ndd_core::Error;

/// A candidate a probe recorded: its place in the insertion order (forest part, then
/// insertion number), the deepest prefix length at which some tree matched it, its
/// key and its score.
#[derive(Debug, Clone)]
struct Candidate<K> {
    order: (u32, u64),
    depth: usize,
    key: K,
    score: f64,
}

/// What an [`LshForest`](super::LshForest) holds for one top-`k` query, before the
/// prefix depth is chosen: per depth, the number of candidates and the work the forest
/// counts; per tree, the documents equal to the query over the full depth; each
/// candidate with the depth it is met at and its score. Made by
/// [`LshForest::probe`](super::LshForest::probe) or
/// [`LshForest::probe_verified`](super::LshForest::probe_verified).
///
/// A forest's query is its own probe, [`top`](Self::top)ped. A collection held as
/// several forests, each over documents inserted after those of the one before (say,
/// the segments of a saved index, read one at a time), answers exactly as one forest
/// over all of them does: probe each with the same query, [`merge`](Self::merge) the
/// probes oldest first, and take the [`top`](Self::top). Why it is exact: the depth
/// the whole forest stops at depends on the candidate and work counts per depth, which
/// add up over disjoint parts, and each part walks at least as deep as the whole forest
/// would (its counts are never larger), so it records every candidate the whole forest
/// can take; the per-tree cap at the full depth takes the oldest documents, which are
/// among each part's oldest. A probe holds at most about `max(k ·
/// candidates_per_result, max_examined)` candidates plus the full-depth matches (at
/// most `max_examined` per tree).
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
/// let s = SchemeId::new("demo").finish();
/// let sig = |v: &[u64]| PlainSlots::new(s, v.to_vec());
/// let docs = [[1, 2, 3, 4], [1, 2, 3, 9], [1, 2, 8, 9], [7, 7, 7, 7]];
/// let (mut whole, mut old, mut new) = (
///     LshForest::new(ForestParams::new(1, 4)?),
///     LshForest::new(ForestParams::new(1, 4)?),
///     LshForest::new(ForestParams::new(1, 4)?),
/// );
/// for (i, d) in docs.iter().enumerate() {
///     whole.insert(i, &sig(d)?)?;
///     if i < 2 { old.insert(i, &sig(d)?)? } else { new.insert(i, &sig(d)?)? }
/// }
/// let q = sig(&[1, 2, 3, 4])?;
/// let mut probe = old.probe(&q, 1)?;
/// probe.merge(new.probe(&q, 1)?)?;
/// assert_eq!(probe.top(), whole.probe(&q, 1)?.top());
/// assert_eq!(whole.probe(&q, 1)?.top()[0], (0, 1.0));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ForestProbe<K> {
    k: usize,
    want: usize,
    cap: usize,
    depth: usize,
    /// Forest parts merged in (their candidates' first order component is below it).
    parts: u32,
    /// Per tree, the documents equal to the query over the full depth, oldest first
    /// (at most `cap`), and how many there are (at most `cap + 1`).
    full: Vec<Vec<(u32, u64)>>,
    full_count: Vec<usize>,
    /// `work[i]`: the work the forest counts at depth `depth - 1 - i` (the matches of
    /// every tree summed; above `cap` for the depth the walk stopped at when it went
    /// over), for the depths walked.
    work: Vec<usize>,
    /// `found[d]`: the candidates first met at depth `d` (kept or compacted away).
    found: Vec<usize>,
    candidates: Vec<Candidate<K>>,
}

impl<K> ForestProbe<K> {
    /// An empty probe of one forest part.
    pub(super) fn new(k: usize, want: usize, cap: usize, trees: usize, depth: usize) -> Self {
        ForestProbe {
            k,
            want,
            cap,
            depth,
            parts: 1,
            full: vec![Vec::new(); trees],
            full_count: vec![0; trees],
            work: Vec::new(),
            found: vec![0; depth + 1],
            candidates: Vec::new(),
        }
    }

    /// Records a candidate first met at `depth`.
    pub(super) fn push(&mut self, seq: u64, depth: usize, key: K, score: f64) {
        self.found[depth.min(self.depth)] += 1;
        self.candidates.push(Candidate {
            order: (0, seq),
            depth,
            key,
            score,
        });
    }

    /// Records a full-depth match of tree `t` (oldest first), or, past the cap, that
    /// the tree holds more.
    pub(super) fn push_full(&mut self, t: usize, seq: Option<u64>) {
        if let Some(seq) = seq {
            self.full[t].push((0, seq));
        }
        self.full_count[t] += 1;
    }

    /// Records the work at the next depth of the walk.
    pub(super) fn push_work(&mut self, work: usize) {
        self.work.push(work);
    }

    /// Candidates recorded so far.
    pub(super) fn len(&self) -> usize {
        self.found.iter().sum()
    }

    /// The number of results asked for, `k`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let f: LshForest<u8> = LshForest::new(ForestParams::new(1, 1)?);
    /// let q = PlainSlots::new(SchemeId::new("d").finish(), vec![1])?;
    /// assert_eq!(f.probe(&q, 3)?.k(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn k(&self) -> usize {
        self.k
    }

    /// Adds the probe of a forest part whose documents were all inserted after this
    /// probe's (merge the parts oldest first), made with the same query, `k`, shape,
    /// candidates per result and work bound.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when the probes differ in `k`, shape, candidates
    /// per result or work bound (this probe is unchanged then).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let f: LshForest<u8> = LshForest::new(ForestParams::new(1, 1)?);
    /// let q = PlainSlots::new(SchemeId::new("d").finish(), vec![1])?;
    /// let mut p = f.probe(&q, 2)?;
    /// assert!(p.merge(f.probe(&q, 2)?).is_ok());
    /// assert!(p.merge(f.probe(&q, 3)?).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn merge(&mut self, newer: ForestProbe<K>) -> Result<(), Error> {
        if (self.k, self.want, self.cap, self.depth, self.full.len())
            != (
                newer.k,
                newer.want,
                newer.cap,
                newer.depth,
                newer.full.len(),
            )
        {
            return Err(Error::invalid_parameter(
                "probe",
                "merged forest probes must come from the same query settings and forest shape",
            ));
        }
        let shift = self.parts;
        self.parts = self.parts.saturating_add(newer.parts);
        let cap = self.cap;
        for (t, full) in newer.full.into_iter().enumerate() {
            let mine = &mut self.full[t];
            let room = cap.saturating_sub(mine.len());
            mine.extend(full.into_iter().take(room).map(|(p, s)| (p + shift, s)));
            self.full_count[t] = (self.full_count[t] + newer.full_count[t]).min(cap + 1);
        }
        // Known where both parts walked: the whole walk never goes deeper (see the
        // type's docs).
        let walked = self.work.len().min(newer.work.len());
        self.work.truncate(walked);
        for (w, n) in self.work.iter_mut().zip(&newer.work) {
            *w = w.saturating_add(*n);
        }
        for (f, n) in self.found.iter_mut().zip(&newer.found) {
            *f += n;
        }
        self.candidates
            .extend(newer.candidates.into_iter().map(|mut c| {
                c.order.0 += shift;
                c
            }));
        // Candidates shallower than every part walked are never taken.
        if !self.truncated() {
            let floor = self.depth - self.work.len();
            self.candidates.retain(|c| c.depth >= floor);
        }
        Ok(())
    }

    /// The shallowest depth a later part needs to walk: the whole search stops there
    /// or deeper (the full depth when it is truncated).
    pub(super) fn floor(&self) -> usize {
        if self.truncated() {
            self.depth
        } else {
            self.depth - self.work.len()
        }
    }

    /// Drops the candidates [`top`](Self::top) cannot return, whatever is merged
    /// later: below the full depth, each depth keeps only its `k` best scores (ties:
    /// the older), NaN scores dropped; the full-depth matches are all kept (the
    /// per-tree cap may take them). The counts stay, so merging and `top` answer as
    /// before; [`candidates`](Self::candidates) afterwards lists only what is kept.
    /// Memory per probe: `k` candidates per depth plus the full-depth matches, however
    /// many the forest's depth held (for a batch of queries searched part by part).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshForest::new(ForestParams::new(1, 2)?);
    /// for (i, v) in [[1, 5], [1, 6], [1, 7], [2, 2]].iter().enumerate() {
    ///     f.insert(i, &PlainSlots::new(s, v.to_vec())?)?;
    /// }
    /// let q = PlainSlots::new(s, vec![1, 2])?;
    /// let mut probe = f.probe_verified(&q, 1, |&i| i as f64)?; // depth 1: 0, 1, 2
    /// let top = probe.clone().top();
    /// assert_eq!(probe.clone().candidates(), vec![0, 1, 2]);
    /// probe.compact();
    /// assert_eq!(probe.clone().candidates(), vec![2]); // 0 and 1 dropped
    /// assert_eq!(probe.top(), top);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn compact(&mut self) {
        let (k, full) = (self.k, self.depth);
        self.candidates.sort_unstable_by(|a, b| {
            b.depth
                .cmp(&a.depth)
                .then(b.score.total_cmp(&a.score))
                .then(a.order.cmp(&b.order))
        });
        let mut at = (usize::MAX, 0usize);
        self.candidates.retain(|c| {
            if c.depth >= full {
                return true;
            }
            if c.score.is_nan() {
                return false;
            }
            if at.0 != c.depth {
                at = (c.depth, 0);
            }
            at.1 += 1;
            at.1 <= k
        });
    }

    /// Whether some tree holds more than the work bound's documents equal to the query
    /// over the full depth (then the oldest of each tree's are the candidates).
    fn truncated(&self) -> bool {
        self.full_count.iter().any(|&c| c > self.cap)
    }

    /// The candidates the whole forest takes, oldest first: the rule of the forest's
    /// docs applied to the merged counts.
    fn selected(self) -> Vec<Candidate<K>> {
        let mut chosen = if self.truncated() {
            let mut oldest: Vec<(u32, u64)> = self.full.into_iter().flatten().collect();
            oldest.sort_unstable();
            self.candidates
                .into_iter()
                .filter(|c| oldest.binary_search(&c.order).is_ok())
                .collect()
        } else {
            // found[d]: candidates met at depth d or deeper.
            let mut found = self.found.clone();
            found.push(0);
            for d in (0..self.depth).rev() {
                found[d] += found[d + 1];
            }
            let mut d = self.depth;
            for &w in &self.work {
                if d <= 1 || found[d] >= self.want || w > self.cap {
                    break;
                }
                d -= 1;
            }
            let mut c = self.candidates;
            c.retain(|c| c.depth >= d);
            c
        };
        chosen.sort_unstable_by_key(|c| c.order);
        chosen
    }

    /// The keys of the candidates the whole forest takes, oldest first, unranked (what
    /// [`LshForest::candidates_into`](super::LshForest::candidates_into) gives).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshForest::new(ForestParams::new(1, 2)?);
    /// f.insert('b', &PlainSlots::new(s, vec![1, 3])?)?;
    /// f.insert('a', &PlainSlots::new(s, vec![1, 2])?)?;
    /// assert_eq!(f.probe(&PlainSlots::new(s, vec![1, 2])?, 2)?.candidates(), vec!['b', 'a']);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn candidates(self) -> Vec<K> {
        self.selected().into_iter().map(|c| c.key).collect()
    }

    /// The answer: the `k` highest scores among the candidates the whole forest takes,
    /// highest first (ties: the earlier inserted first), a NaN score dropped.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::{ForestParams, LshForest, PlainSlots};
    /// let s = SchemeId::new("d").finish();
    /// let mut f = LshForest::new(ForestParams::new(1, 2)?);
    /// f.insert('a', &PlainSlots::new(s, vec![1, 2])?)?;
    /// f.insert('b', &PlainSlots::new(s, vec![1, 3])?)?;
    /// let top = f.probe_verified(&PlainSlots::new(s, vec![1, 2])?, 1, |&k| if k == 'b' { 1.0 } else { 0.5 })?.top();
    /// assert_eq!(top, vec![('b', 1.0)]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn top(self) -> Vec<(K, f64)> {
        let k = self.k;
        let mut scored: Vec<(K, f64)> = self
            .selected()
            .into_iter()
            .filter(|c| !c.score.is_nan())
            .map(|c| (c.key, c.score))
            .collect();
        // Oldest first; a stable sort keeps that order among ties.
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
        scored
    }
}

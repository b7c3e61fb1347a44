//! The one currency between pipeline stages: [`ScoredPair`] and the push-style
//! [`PairSink`] that receives them.
//!
//! Every candidate source (banded LSH, Hamming tables, exact-signature tables, the
//! exact all-pairs join, the compression-distance search) produces scored pairs;
//! verifiers, grouping and evaluation consume them. A new method or stage plugs in
//! without a new shape.

/// Two documents and how similar they are: the currency every stage passes on.
///
/// `score` is a similarity where **higher is more similar**, normally in `[0, 1]`:
/// an estimated or exact Jaccard coefficient, `1 − h/m` for a Hamming distance `h`
/// over `m` bits, `1 − NCD`, the fraction of shared I-Match coordinates. Sources that
/// only propose candidates without a score use [`ScoredPair::UNSCORED`] (`NaN`)
/// until a verifier scores them.
///
/// `K` is the document key: dense indices (`usize`, `u32`) inside the pipeline, any
/// key a user indexes with elsewhere.
///
/// # Example
///
/// ```
/// use near_dup::ScoredPair;
/// let p = ScoredPair::new(7usize, 3, 0.9).normalized();
/// assert_eq!((p.a, p.b, p.score), (3, 7, 0.9));
/// let from_tuple: ScoredPair = (1, 2, 0.5).into();
/// assert_eq!(from_tuple.into_tuple(), (1, 2, 0.5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair<K = usize> {
    /// The first document.
    pub a: K,
    /// The second document.
    pub b: K,
    /// Similarity of the two, higher is more similar (`NaN` when not scored yet).
    pub score: f64,
}

impl<K> ScoredPair<K> {
    /// The score of a candidate that no measure has scored yet: `NaN`, which no
    /// threshold comparison accepts.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ScoredPair;
    /// assert!(ScoredPair::<u32>::UNSCORED.is_nan());
    /// assert!(!(ScoredPair::<u32>::UNSCORED >= 0.5));
    /// ```
    pub const UNSCORED: f64 = f64::NAN;

    /// A pair with a score.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::ScoredPair::new("x", "y", 1.0);
    /// assert_eq!(p.a, "x");
    /// ```
    #[inline]
    pub const fn new(a: K, b: K, score: f64) -> Self {
        ScoredPair { a, b, score }
    }

    /// A candidate pair without a score yet ([`UNSCORED`](Self::UNSCORED)).
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::ScoredPair::candidate(1u32, 2);
    /// assert!(!p.is_scored());
    /// ```
    #[inline]
    pub const fn candidate(a: K, b: K) -> Self {
        ScoredPair {
            a,
            b,
            score: f64::NAN,
        }
    }

    /// Whether a measure has scored this pair (the score is not `NaN`).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::ScoredPair::new(1, 2, 0.0).is_scored());
    /// ```
    #[inline]
    #[must_use]
    pub fn is_scored(&self) -> bool {
        !self.score.is_nan()
    }

    /// The same pair with another score.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::ScoredPair::candidate(1, 2).with_score(0.75);
    /// assert_eq!(p.score, 0.75);
    /// ```
    #[inline]
    #[must_use]
    pub fn with_score(self, score: f64) -> Self {
        ScoredPair { score, ..self }
    }

    /// The pair with its keys mapped (for example from dense indices to user ids).
    ///
    /// # Example
    ///
    /// ```
    /// let ids = ["a.txt", "b.txt"];
    /// let p = near_dup::ScoredPair::new(0usize, 1, 0.9).map_keys(|i| ids[i]);
    /// assert_eq!((p.a, p.b), ("a.txt", "b.txt"));
    /// ```
    #[inline]
    pub fn map_keys<L>(self, mut f: impl FnMut(K) -> L) -> ScoredPair<L> {
        ScoredPair {
            a: f(self.a),
            b: f(self.b),
            score: self.score,
        }
    }

    /// `(a, b, score)`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ScoredPair::new(1, 2, 0.5).into_tuple(), (1, 2, 0.5));
    /// ```
    #[inline]
    pub fn into_tuple(self) -> (K, K, f64) {
        (self.a, self.b, self.score)
    }
}

impl<K: Ord> ScoredPair<K> {
    /// The pair with its keys in increasing order (`a <= b`), the form stages and
    /// evaluation compare pairs in.
    ///
    /// # Example
    ///
    /// ```
    /// let p = near_dup::ScoredPair::new(5, 2, 0.1).normalized();
    /// assert_eq!((p.a, p.b), (2, 5));
    /// ```
    #[inline]
    #[must_use]
    pub fn normalized(self) -> Self {
        if self.b < self.a {
            ScoredPair {
                a: self.b,
                b: self.a,
                score: self.score,
            }
        } else {
            self
        }
    }
}

impl<K> From<(K, K, f64)> for ScoredPair<K> {
    #[inline]
    fn from((a, b, score): (K, K, f64)) -> Self {
        ScoredPair { a, b, score }
    }
}

impl<K> From<ScoredPair<K>> for (K, K, f64) {
    #[inline]
    fn from(p: ScoredPair<K>) -> Self {
        (p.a, p.b, p.score)
    }
}

/// Receives scored pairs as a stage produces them (the push model: no `Vec` unless
/// the sink is one).
///
/// Object-safe. Implemented for `Vec<ScoredPair<K>>` (collects), closures through
/// [`FnPairSink`], [`PairCounter`] (counts only), and `&mut S`.
///
/// # Example
///
/// ```
/// use near_dup::{FnPairSink, PairSink, ScoredPair};
/// fn produce(sink: &mut dyn PairSink<u32>) {
///     sink.push_pair(ScoredPair::new(0, 1, 0.9));
///     sink.push_pair(ScoredPair::new(1, 2, 0.4));
/// }
/// let mut all: Vec<ScoredPair<u32>> = Vec::new();
/// produce(&mut all);
/// assert_eq!(all.len(), 2);
///
/// let mut high = 0;
/// produce(&mut FnPairSink(|p: ScoredPair<u32>| if p.score > 0.5 { high += 1 }));
/// assert_eq!(high, 1);
/// ```
pub trait PairSink<K = usize> {
    /// Receives one pair.
    fn push_pair(&mut self, pair: ScoredPair<K>);
}

impl<K, S: PairSink<K> + ?Sized> PairSink<K> for &mut S {
    #[inline]
    fn push_pair(&mut self, pair: ScoredPair<K>) {
        (**self).push_pair(pair);
    }
}

impl<K, S: PairSink<K> + ?Sized> PairSink<K> for Box<S> {
    #[inline]
    fn push_pair(&mut self, pair: ScoredPair<K>) {
        (**self).push_pair(pair);
    }
}

impl<K> PairSink<K> for Vec<ScoredPair<K>> {
    #[inline]
    fn push_pair(&mut self, pair: ScoredPair<K>) {
        self.push(pair);
    }
}

/// Adapts a closure into a [`PairSink`].
///
/// # Example
///
/// ```
/// use near_dup::{FnPairSink, PairSink, ScoredPair};
/// let mut total = 0.0;
/// let mut sink = FnPairSink(|p: ScoredPair| total += p.score);
/// sink.push_pair(ScoredPair::new(0, 1, 0.25));
/// sink.push_pair(ScoredPair::new(0, 2, 0.5));
/// drop(sink);
/// assert_eq!(total, 0.75);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FnPairSink<F>(pub F);

impl<K, F: FnMut(ScoredPair<K>)> PairSink<K> for FnPairSink<F> {
    #[inline]
    fn push_pair(&mut self, pair: ScoredPair<K>) {
        (self.0)(pair);
    }
}

/// A sink that only counts the pairs it receives.
///
/// # Example
///
/// ```
/// use near_dup::{PairCounter, PairSink, ScoredPair};
/// let mut c = PairCounter::default();
/// c.push_pair(ScoredPair::new(1u64, 2, 0.3));
/// assert_eq!(c.count, 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairCounter {
    /// Pairs received so far.
    pub count: u64,
}

impl<K> PairSink<K> for PairCounter {
    #[inline]
    fn push_pair(&mut self, _pair: ScoredPair<K>) {
        self.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dyn_pair_sink_is_object_safe() {
        let mut v: Vec<ScoredPair<u32>> = Vec::new();
        {
            let sink: &mut dyn PairSink<u32> = &mut v;
            sink.push_pair(ScoredPair::new(2, 1, 0.5));
            let mut boxed: Box<dyn PairSink<u32> + '_> = Box::new(PairCounter::default());
            boxed.push_pair(ScoredPair::candidate(0, 1));
        }
        assert_eq!(v, vec![ScoredPair::new(2, 1, 0.5)]);
    }

    #[test]
    fn unscored_never_passes_a_threshold() {
        let p = ScoredPair::candidate(0, 1);
        for t in [0.0, 0.5, 1.0] {
            assert!(p.score.partial_cmp(&t).is_none());
        }
        assert!(!p.is_scored());
    }

    #[test]
    fn normalized_orders_keys_and_keeps_score() {
        for (a, b) in [(0, 1), (1, 0), (3, 3)] {
            let p = ScoredPair::new(a, b, 0.25).normalized();
            assert!(p.a <= p.b);
            assert_eq!((p.a.min(p.b), p.a.max(p.b)), (a.min(b), a.max(b)));
            assert_eq!(p.score, 0.25);
        }
    }
}

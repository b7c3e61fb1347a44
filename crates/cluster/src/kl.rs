//! DURIAN's distance: the Kullback–Leibler divergence of two documents' word
//! distributions, the second smoothed with a Dirichlet prior toward the collection's
//! language model (Yang and Callan 2006, Section 4.2, equations 1 and 5–9).

use std::collections::HashMap;

use ndd_core::{Error, SparseVector};

/// The collection's language model `p(w|C)`: every term's count over all documents,
/// divided by the total count (equation 7, maximum likelihood).
///
/// Documents are term counts (a [`SparseVector`] of term → count, such as
/// `WordShingler::new(1)?.counts(text)` of `ndd-shingle`); negative weights count as
/// 0. Memory: one entry per distinct term.
///
/// # Example
///
/// ```
/// use near_dup::cluster::Background;
/// use near_dup::{SparseVector, Weighted};
/// let doc = |terms: &[(u64, f64)]| -> Result<SparseVector, near_dup::Error> {
///     Ok(SparseVector::from_unsorted(terms.iter().map(|&(t, c)| Weighted::new(t, c)).collect::<Result<_, _>>()?))
/// };
/// let background = Background::from_documents(&[doc(&[(1, 2.0), (2, 1.0)])?, doc(&[(1, 1.0)])?]);
/// assert_eq!(background.probability(1), 0.75);
/// assert_eq!(background.probability(9), 0.0);
/// assert_eq!(background.total(), 4.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Background {
    counts: HashMap<u64, f64, ahash::RandomState>,
    total: f64,
}

impl Background {
    /// An empty model (every probability 0).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::Background::new().probability(1), 0.0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one document's term counts.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::Background;
    /// use near_dup::{SparseVector, Weighted};
    /// let mut b = Background::new();
    /// b.add(&SparseVector::from_unsorted(vec![Weighted::new(5, 3.0)?]));
    /// assert_eq!(b.probability(5), 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn add(&mut self, doc: &SparseVector) {
        for e in doc.entries() {
            let c = e.weight.max(0.0);
            if c > 0.0 {
                *self.counts.entry(e.feature).or_insert(0.0) += c;
                self.total += c;
            }
        }
    }

    /// The model of a collection.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::Background;
    /// use near_dup::{SparseVector, Weighted};
    /// let docs = [SparseVector::from_unsorted(vec![Weighted::new(1, 1.0)?])];
    /// assert_eq!(Background::from_documents(&docs).probability(1), 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn from_documents<'a>(docs: impl IntoIterator<Item = &'a SparseVector>) -> Self {
        let mut b = Background::new();
        for d in docs {
            b.add(d);
        }
        b
    }

    /// `p(w|C)`: the term's share of all counted terms; 0 for a term never counted.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::Background::new().probability(42), 0.0);
    /// ```
    #[must_use]
    pub fn probability(&self, term: u64) -> f64 {
        if self.total > 0.0 {
            self.counts.get(&term).map_or(0.0, |&c| c / self.total)
        } else {
            0.0
        }
    }

    /// The total count of all terms added.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::cluster::Background::new().total(), 0.0);
    /// ```
    #[must_use]
    pub fn total(&self) -> f64 {
        self.total
    }
}

/// The Dirichlet-smoothed KL divergence of DURIAN (Yang and Callan 2006, Section 4.2).
///
/// For documents `a` and `b` with term counts `tf`:
/// * `p_a(w) = tf(w, a) / |a|` (equation 8, maximum likelihood);
/// * `p_b(w) = (tf(w, b) + μ·p(w|C)) / (μ + |b|)` (equation 5; for a term `b` lacks,
///   `α_b·p(w|C)` with `α_b = μ / (μ + |b|)`, equations 3 and 6);
/// * [`divergence`](Self::divergence) is `KL(p_a ‖ p_b) = Σ_w p_a(w) log(p_a(w) / p_b(w))`
///   (equation 1), summed over the terms of `a` only: the terms `a` lacks have
///   `p_a(w) = 0`;
/// * [`distance`](Self::distance) is the smaller of the two directions (equation 9).
///
/// It is computed from the two documents' sorted term counts in one merge, with one
/// background lookup per term of `a`: O(|terms of a| + |terms of b|), no dense vector.
///
/// The full divergence is kept (equation 1), not the rank-equivalent form of
/// equations 2 and 4, which drops `Σ p_a log p_a`: that term depends on `a`, so the
/// minimum over the two directions (equation 9) needs it.
///
/// # Example
///
/// ```
/// use near_dup::cluster::{Background, KlDivergence};
/// use near_dup::shingle::WordShingler;
/// let words = WordShingler::new(1)?;
/// let docs: Vec<_> = ["we oppose the new mine", "we oppose the new mine today", "save the whales"]
///     .iter()
///     .map(|t| words.counts(t))
///     .collect();
/// let background = Background::from_documents(&docs);
/// let kl = KlDivergence::new(&background, 1.0)?;
/// assert!(kl.distance(&docs[0], &docs[1]) < kl.distance(&docs[0], &docs[2]));
/// assert_eq!(kl.distance(&docs[0], &docs[1]), kl.distance(&docs[1], &docs[0]));
/// # Ok::<(), near_dup::Error>(())
/// ```
///
/// # References
///
/// * H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
///   clustering", *SIGIR 2006*, Section 4.2.
/// * C. Zhai and J. Lafferty, "A study of smoothing methods for language models
///   applied to ad hoc information retrieval", *SIGIR 2001* (Dirichlet prior
///   smoothing).
#[derive(Debug, Clone, Copy)]
pub struct KlDivergence<'b> {
    background: &'b Background,
    mu: f64,
}

/// The Dirichlet prior of DURIAN: μ = 1 (Yang and Callan 2006, Section 4.2).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::cluster::DEFAULT_MU, 1.0);
/// ```
pub const DEFAULT_MU: f64 = 1.0;

impl<'b> KlDivergence<'b> {
    /// The divergence against `background` with Dirichlet prior `mu` (how many words
    /// of collection-wide evidence each document is blended with; DURIAN uses
    /// [`DEFAULT_MU`] = 1, larger values pull short documents toward the collection).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] unless `mu` is finite and above 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Background, KlDivergence};
    /// let b = Background::new();
    /// assert!(KlDivergence::new(&b, 0.0).is_err());
    /// assert!(KlDivergence::new(&b, f64::NAN).is_err());
    /// assert!(KlDivergence::new(&b, 2000.0).is_ok());
    /// ```
    pub fn new(background: &'b Background, mu: f64) -> Result<Self, Error> {
        if !(mu.is_finite() && mu > 0.0) {
            return Err(Error::invalid_parameter(
                "mu",
                format!("must be finite and above 0, got {mu}"),
            ));
        }
        Ok(KlDivergence { background, mu })
    }

    /// `KL(p_a ‖ p_b)`, with `p_b` smoothed.
    ///
    /// Defined results at the edges: 0 when `a` has no term (nothing to diverge);
    /// `f64::INFINITY` when a term of `a` is in neither `b` nor the background (its
    /// smoothed probability is 0: build the background from every document compared).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Background, KlDivergence};
    /// use near_dup::shingle::WordShingler;
    /// let w = WordShingler::new(1)?;
    /// let (a, b) = (w.counts("a b c"), w.counts("a b d"));
    /// let bg = Background::from_documents([&a, &b]);
    /// let kl = KlDivergence::new(&bg, 1.0)?;
    /// assert!(kl.divergence(&a, &b) > 0.0);
    /// // "zzz" is in neither the other document nor the background:
    /// assert_eq!(kl.divergence(&w.counts("zzz"), &b), f64::INFINITY);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn divergence(&self, a: &SparseVector, b: &SparseVector) -> f64 {
        self.divergence_with(a, total(a), b, total(b))
    }

    /// [`divergence`](Self::divergence) with the two documents' total counts given.
    fn divergence_with(&self, a: &SparseVector, len_a: f64, b: &SparseVector, len_b: f64) -> f64 {
        if len_a <= 0.0 {
            return 0.0;
        }
        let denominator = self.mu + len_b;
        let bs = b.entries();
        let mut j = 0;
        let mut kl = 0.0;
        for e in a.entries() {
            let tf_a = e.weight;
            if tf_a <= 0.0 {
                continue;
            }
            let w = e.feature;
            while j < bs.len() && bs[j].feature < w {
                j += 1;
            }
            let tf_b = if j < bs.len() && bs[j].feature == w {
                bs[j].weight.max(0.0)
            } else {
                0.0
            };
            let p_b = (tf_b + self.mu * self.background.probability(w)) / denominator;
            if p_b <= 0.0 {
                return f64::INFINITY;
            }
            let p_a = tf_a / len_a;
            kl += p_a * (p_a / p_b).ln();
        }
        kl
    }

    /// DURIAN's distance: `min(KL(p_a ‖ p_b), KL(p_b ‖ p_a))` (equation 9); symmetric.
    /// Two documents without terms are at distance 0; one without terms is at
    /// `f64::INFINITY` from any other (it has no distribution to compare).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::cluster::{Background, KlDivergence};
    /// use near_dup::shingle::WordShingler;
    /// let w = WordShingler::new(1)?;
    /// let (a, e) = (w.counts("some words"), w.counts(""));
    /// let bg = Background::from_documents([&a]);
    /// let kl = KlDivergence::new(&bg, 1.0)?;
    /// assert_eq!(kl.distance(&a, &e), f64::INFINITY);
    /// assert_eq!(kl.distance(&e, &e), 0.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn distance(&self, a: &SparseVector, b: &SparseVector) -> f64 {
        let (len_a, len_b) = (total(a), total(b));
        match (len_a > 0.0, len_b > 0.0) {
            (false, false) => 0.0,
            (true, false) | (false, true) => f64::INFINITY,
            (true, true) => self
                .divergence_with(a, len_a, b, len_b)
                .min(self.divergence_with(b, len_b, a, len_a)),
        }
    }
}

/// A document's length `|d|`: the sum of its positive counts.
fn total(v: &SparseVector) -> f64 {
    v.entries().iter().map(|e| e.weight.max(0.0)).sum()
}

//! Training (Hajishirzi, Yih and Kołcz 2010, Sections 3.1 and 4.1.1): the
//! pairwise-preference logistic loss of equation 4 with L2 regularization, its
//! analytic gradient, instances drawn from labeled clusters, L-BFGS.

use std::cell::{Cell, RefCell};

use argmin::core::{CostFunction, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use ndd_core::Error;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::features::{CollectionStats, Document, FeatureRow, NUM_FEATURES};
use crate::model::{FeatureScaling, Objective, WeightModel, linear};

/// One training instance: two pairs of documents (indices) and which should score
/// higher (`y = true`: the first pair; equation 4's `y_k = 1`).
///
/// # Example
///
/// ```
/// let i = near_dup::learn::Instance { first: (0, 1), second: (0, 2), y: true };
/// assert!(i.y);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instance {
    /// The first pair.
    pub first: (usize, usize),
    /// The second pair.
    pub second: (usize, usize),
    /// Whether the first pair should score higher.
    pub y: bool,
}

/// The most instances a training run accepts: 10 million (about 40 B each, and one
/// gradient pass over them per L-BFGS evaluation).
///
/// # Example
///
/// ```
/// assert!(near_dup::learn::instances_from_clusters(&[0, 0, 1], near_dup::learn::MAX_INSTANCES + 1, 0).is_err());
/// ```
pub const MAX_INSTANCES: usize = 10_000_000;

/// Draws `count` instances from labeled clusters as Section 4.1.1 builds them: a
/// near-duplicate pair (two documents of one cluster) against a balanced draw of an
/// unrelated pair (documents of two clusters), in random order, seeded.
///
/// Positive pairs are drawn uniformly among all same-cluster pairs, negative pairs
/// uniformly among all pairs of documents from different clusters (by rejection).
///
/// # Errors
///
/// [`Error::InvalidInput`] when no cluster has two documents or there are fewer than
/// two clusters; [`Error::InvalidParameter`] when `count` exceeds [`MAX_INSTANCES`].
///
/// # Example
///
/// ```
/// let labels = [0, 0, 1, 1, 2];
/// let inst = near_dup::learn::instances_from_clusters(&labels, 100, 7)?;
/// assert_eq!(inst.len(), 100);
/// for i in &inst {
///     let (pos, neg) = if i.y { (i.first, i.second) } else { (i.second, i.first) };
///     assert_eq!(labels[pos.0], labels[pos.1]);
///     assert_ne!(labels[neg.0], labels[neg.1]);
/// }
/// assert_eq!(inst, near_dup::learn::instances_from_clusters(&labels, 100, 7)?);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn instances_from_clusters(
    labels: &[usize],
    count: usize,
    seed: u64,
) -> Result<Vec<Instance>, Error> {
    let labels: Vec<Option<usize>> = labels.iter().copied().map(Some).collect();
    instances_from_labels(&labels, count, seed)
}

/// [`instances_from_clusters`] where only some documents are labeled (`None`: a
/// document that takes part in no instance, for example one of the test half, or
/// one without a label in the input). Instances name documents by their index in
/// `labels`.
///
/// # Errors
///
/// As [`instances_from_clusters`], counting labeled documents only.
///
/// # Example
///
/// ```
/// let labels = [Some(0), None, Some(0), Some(1)];
/// let inst = near_dup::learn::instances_from_labels(&labels, 50, 1)?;
/// assert!(inst.iter().all(|i| ![i.first.0, i.first.1, i.second.0, i.second.1].contains(&1)));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn instances_from_labels(
    labels: &[Option<usize>],
    count: usize,
    seed: u64,
) -> Result<Vec<Instance>, Error> {
    if count > MAX_INSTANCES {
        return Err(Error::invalid_parameter(
            "count",
            format!("at most {MAX_INSTANCES}, got {count}"),
        ));
    }
    let mut by_label: ahash::AHashMap<usize, Vec<usize>> = ahash::AHashMap::new();
    let mut members = Vec::new();
    for (d, l) in labels.iter().enumerate() {
        if let Some(l) = *l {
            by_label.entry(l).or_default().push(d);
            members.push(d);
        }
    }
    let mut clusters: Vec<Vec<usize>> = by_label.into_values().collect();
    clusters.sort();
    if clusters.len() < 2 {
        return Err(Error::invalid_input(
            "training needs documents of at least two clusters",
        ));
    }
    // Same-cluster pairs, by cumulative count, to draw one uniformly.
    let mut cumulative = Vec::with_capacity(clusters.len());
    let mut total = 0u64;
    for c in &clusters {
        let m = c.len() as u64;
        total += m * (m - 1) / 2;
        cumulative.push(total);
    }
    if total == 0 {
        return Err(Error::invalid_input(
            "training needs a cluster of at least two documents",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let t = rng.random_range(0..total);
        let ci = cumulative.partition_point(|&c| c <= t);
        let c = &clusters[ci];
        let a = rng.random_range(0..c.len());
        let mut b = rng.random_range(0..c.len() - 1);
        if b >= a {
            b += 1;
        }
        let positive = (c[a], c[b]);
        let negative = loop {
            let x = members[rng.random_range(0..members.len())];
            let y = members[rng.random_range(0..members.len())];
            if labels[x] != labels[y] {
                break (x, y);
            }
        };
        let y = rng.random_bool(0.5);
        let (first, second) = if y {
            (positive, negative)
        } else {
            (negative, positive)
        };
        out.push(Instance { first, second, y });
    }
    Ok(out)
}

/// Where a training run is: reported after each loss evaluation.
///
/// # Example
///
/// ```
/// let p = near_dup::learn::TrainProgress { evaluations: 3, loss: 0.5 };
/// assert_eq!(p.evaluations, 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainProgress {
    /// Loss evaluations so far (each one pass over the instances).
    pub evaluations: u64,
    /// The loss at the last evaluation.
    pub loss: f64,
}

/// What a training run did.
///
/// # Example
///
/// ```
/// let r = near_dup::learn::TrainReport { initial_loss: 0.7, final_loss: 0.4, iterations: 12, evaluations: 20 };
/// assert!(r.final_loss < r.initial_loss);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainReport {
    /// The loss at the start (binary weights).
    pub initial_loss: f64,
    /// The loss of the weights returned.
    pub final_loss: f64,
    /// L-BFGS iterations.
    pub iterations: u64,
    /// Loss evaluations (line search included).
    pub evaluations: u64,
}

/// Settings of a training run.
///
/// # Example
///
/// ```
/// use near_dup::learn::{Objective, Trainer};
/// let t = Trainer::new(Objective::Jaccard).l2(0.01)?.max_iterations(50)?;
/// assert_eq!(t.objective(), Objective::Jaccard);
/// assert!(Trainer::new(Objective::Cosine).l2(-1.0).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trainer {
    objective: Objective,
    l2: f64,
    max_iterations: u64,
}

/// The default L2 weight α: 10⁻³ (the loss is a mean over instances, so α does not
/// depend on their number).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::learn::DEFAULT_L2, 0.001);
/// ```
pub const DEFAULT_L2: f64 = 1e-3;

/// The most L-BFGS iterations a run accepts: 10,000.
///
/// # Example
///
/// ```
/// use near_dup::learn::{Objective, Trainer, MAX_ITERATIONS};
/// assert!(Trainer::new(Objective::Cosine).max_iterations(MAX_ITERATIONS + 1).is_err());
/// ```
pub const MAX_ITERATIONS: u64 = 10_000;

impl Trainer {
    /// A trainer for `objective` with α = [`DEFAULT_L2`] and 100 iterations.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::Trainer::new(near_dup::learn::Objective::Cosine).objective(), near_dup::learn::Objective::Cosine);
    /// ```
    #[must_use]
    pub fn new(objective: Objective) -> Self {
        Trainer {
            objective,
            l2: DEFAULT_L2,
            max_iterations: 100,
        }
    }

    /// The L2 weight α of `α/2 · |λ|²`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] unless finite and 0 or more.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::Trainer::new(near_dup::learn::Objective::Cosine).l2(0.0).is_ok());
    /// ```
    pub fn l2(mut self, alpha: f64) -> Result<Self, Error> {
        if !(alpha.is_finite() && alpha >= 0.0) {
            return Err(Error::invalid_parameter(
                "l2",
                format!("must be finite and 0 or more, got {alpha}"),
            ));
        }
        self.l2 = alpha;
        Ok(self)
    }

    /// The most L-BFGS iterations.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] unless `1..=`[`MAX_ITERATIONS`].
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::Trainer::new(near_dup::learn::Objective::Cosine).max_iterations(0).is_err());
    /// ```
    pub fn max_iterations(mut self, n: u64) -> Result<Self, Error> {
        if n == 0 || n > MAX_ITERATIONS {
            return Err(Error::invalid_parameter(
                "max_iterations",
                format!("must lie in 1..={MAX_ITERATIONS}, got {n}"),
            ));
        }
        self.max_iterations = n;
        Ok(self)
    }

    /// The similarity trained for.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::Trainer::new(near_dup::learn::Objective::Jaccard).objective(), near_dup::learn::Objective::Jaccard);
    /// ```
    #[must_use]
    pub fn objective(&self) -> Objective {
        self.objective
    }

    /// Learns weights from `docs` and `instances` (indices into `docs`), starting from
    /// binary weights; `progress` is called after each loss evaluation.
    ///
    /// The bias weight is held at 1 and the others are learned: cosine and extended
    /// Jaccard do not change when every weight is multiplied by the same positive
    /// number, so with all weights free the L2 term would shrink them toward 0
    /// without changing any similarity. The feature
    /// scaling is fitted on the k-grams of the documents the instances name.
    ///
    /// Cost: per evaluation, one pass over the instances' document pairs (linear in
    /// their k-grams); at most about 20 evaluations per iteration.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when an instance names a document outside `docs` or
    /// there is no instance; an optimizer failure as [`Error::InvalidInput`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{instances_from_clusters, CollectionStats, Document, Kgrams, Objective, Trainer};
    /// let texts = ["breaking news the market fell today", "breaking news the market fell sharply today",
    ///              "breaking news a storm hits the coast", "breaking news a big storm hits the coast"];
    /// let docs: Vec<Document> = texts.iter().map(|t| Document::new(*t)).collect();
    /// let stats = CollectionStats::from_documents(Kgrams::new(1)?, texts);
    /// let instances = instances_from_clusters(&[0, 0, 1, 1], 200, 1)?;
    /// let (model, report) = Trainer::new(Objective::Cosine).train(&stats, &docs, &instances, |_| {})?;
    /// assert!(report.final_loss <= report.initial_loss);
    /// assert_eq!(model.objective(), Objective::Cosine);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn train(
        &self,
        stats: &CollectionStats,
        docs: &[Document],
        instances: &[Instance],
        mut progress: impl FnMut(TrainProgress),
    ) -> Result<(WeightModel, TrainReport), Error> {
        if instances.is_empty() {
            return Err(Error::invalid_input("training needs at least one instance"));
        }
        let n = docs.len();
        if let Some(bad) = instances.iter().find(|i| {
            [i.first.0, i.first.1, i.second.0, i.second.1]
                .iter()
                .any(|&d| d >= n)
        }) {
            return Err(Error::invalid_input(format!(
                "instance {bad:?} names a document outside 0..{n}"
            )));
        }
        let mut used = vec![false; n];
        for i in instances {
            for d in [i.first.0, i.first.1, i.second.0, i.second.1] {
                used[d] = true;
            }
        }
        let raw: Vec<Vec<(u64, FeatureRow)>> = (0..n)
            .map(|d| {
                if used[d] {
                    stats.rows(&docs[d])
                } else {
                    Vec::new()
                }
            })
            .collect();
        let scaling = FeatureScaling::fit(raw.iter().flatten().map(|(_, r)| r));
        let rows: Vec<Vec<(u64, FeatureRow)>> = raw
            .iter()
            .map(|d| d.iter().map(|(g, r)| (*g, scaling.apply(r))).collect())
            .collect();
        let loss = Loss {
            objective: self.objective,
            l2: self.l2,
            rows: &rows,
            instances,
        };
        let evaluations = Cell::new(0u64);
        let mut start = [0.0; NUM_FEATURES];
        start[0] = 1.0;
        let initial_loss = loss.value(&start);
        let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7);
        let reporter = Reporter {
            loss,
            evaluations: &evaluations,
            progress: RefCell::new(&mut progress),
            last: RefCell::new(None),
        };
        let result = Executor::new(reporter, solver)
            .configure(|s| s.param(start[1..].to_vec()).max_iters(self.max_iterations))
            .run()
            .map_err(|e| Error::invalid_input(format!("training failed: {e}")))?;
        let state = result.state();
        let best = state
            .get_best_param()
            .cloned()
            .unwrap_or_else(|| start[1..].to_vec());
        let lambda = to_array(&best);
        let final_loss = loss.value(&lambda);
        let (iterations, evaluations) = (state.get_iter(), evaluations.get());
        let model = WeightModel::new(stats.kgrams(), self.objective, scaling, lambda)?;
        Ok((
            model,
            TrainReport {
                initial_loss,
                final_loss,
                iterations,
                evaluations,
            },
        ))
    }
}

/// Equation 4 over scaled rows: the mean over instances of
/// `log(1 + exp(−s·Δ))`, `s = +1` when the first pair should score higher, plus
/// `α/2 · Σ λj²` over every weight but the bias.
///
/// Public for the gradient test and for users who optimize it themselves.
///
/// # Example
///
/// ```
/// use near_dup::learn::{Instance, Loss, Objective, NUM_FEATURES};
/// // Documents 0 and 1 share a k-gram; 2 shares nothing with 0.
/// let mut row = [0.0; NUM_FEATURES];
/// row[0] = 1.0;
/// let rows = vec![vec![(1, row)], vec![(1, row)], vec![(2, row)]];
/// let inst = [Instance { first: (0, 1), second: (0, 2), y: true }];
/// let loss = Loss::new(Objective::Cosine, 0.0, &rows, &inst);
/// let mut bias = [0.0; NUM_FEATURES];
/// bias[0] = 1.0;
/// // Δ = 1 − 0: log(1 + e^−1).
/// assert!((loss.value(&bias) - (1.0 + (-1.0f64).exp()).ln()).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Loss<'a> {
    objective: Objective,
    l2: f64,
    rows: &'a [Vec<(u64, FeatureRow)>],
    instances: &'a [Instance],
}

impl<'a> Loss<'a> {
    /// The loss over scaled rows (`rows[d]`: document `d`'s k-grams, sorted by key,
    /// with their scaled features) and `instances`.
    ///
    /// # Example
    ///
    /// ```
    /// let l = near_dup::learn::Loss::new(near_dup::learn::Objective::Jaccard, 0.1, &[], &[]);
    /// assert_eq!(l.value(&[0.0; near_dup::learn::NUM_FEATURES]), 0.0);
    /// ```
    #[must_use]
    pub fn new(
        objective: Objective,
        l2: f64,
        rows: &'a [Vec<(u64, FeatureRow)>],
        instances: &'a [Instance],
    ) -> Self {
        Loss {
            objective,
            l2,
            rows,
            instances,
        }
    }

    /// The loss at `lambda`.
    ///
    /// # Example
    ///
    /// ```
    /// let l = near_dup::learn::Loss::new(near_dup::learn::Objective::Cosine, 2.0, &[], &[]);
    /// let mut lambda = [0.0; near_dup::learn::NUM_FEATURES];
    /// lambda[1] = 1.0;
    /// assert_eq!(l.value(&lambda), 1.0); // α/2 · 1
    /// ```
    #[must_use]
    pub fn value(&self, lambda: &[f64; NUM_FEATURES]) -> f64 {
        self.value_and_gradient(lambda, false).0
    }

    /// The loss and its gradient at `lambda`.
    ///
    /// # Example
    ///
    /// ```
    /// let l = near_dup::learn::Loss::new(near_dup::learn::Objective::Cosine, 2.0, &[], &[]);
    /// let mut lambda = [0.0; near_dup::learn::NUM_FEATURES];
    /// lambda[1] = 1.0;
    /// assert_eq!(l.gradient(&lambda).1[1], 2.0);
    /// ```
    #[must_use]
    pub fn gradient(&self, lambda: &[f64; NUM_FEATURES]) -> (f64, [f64; NUM_FEATURES]) {
        self.value_and_gradient(lambda, true)
    }

    fn value_and_gradient(
        &self,
        lambda: &[f64; NUM_FEATURES],
        grad: bool,
    ) -> (f64, [f64; NUM_FEATURES]) {
        // Each document's weights once per evaluation, and the loss's derivative by
        // each of its weights accumulated over the instances; the chain rule to λ at
        // the end, once per document: O(instances · k-grams + documents · k-grams ·
        // features) instead of features times every instance.
        let n = self.rows.len();
        let mut weights: Vec<Option<Vec<f64>>> = vec![None; n];
        for inst in self.instances {
            for d in [inst.first.0, inst.first.1, inst.second.0, inst.second.1] {
                if let (Some(slot), Some(rows)) = (weights.get_mut(d), self.rows.get(d)) {
                    if slot.is_none() {
                        *slot = Some(
                            rows.iter()
                                .map(|(_, z)| linear(lambda, z).max(0.0))
                                .collect(),
                        );
                    }
                }
            }
        }
        let norms: Vec<f64> = weights
            .iter()
            .map(|w| w.as_ref().map_or(0.0, |w| w.iter().map(|x| x * x).sum()))
            .collect();
        let mut dw: Vec<Vec<f64>> = if grad {
            weights
                .iter()
                .map(|w| vec![0.0; w.as_ref().map_or(0, Vec::len)])
                .collect()
        } else {
            Vec::new()
        };
        let m = self.instances.len().max(1) as f64;
        let mut total = 0.0;
        for inst in self.instances {
            let (s1, dot1) = self.pair(&weights, &norms, inst.first);
            let (s2, dot2) = self.pair(&weights, &norms, inst.second);
            let sign = if inst.y { 1.0 } else { -1.0 };
            let x = -sign * (s1 - s2);
            total += softplus(x);
            if grad {
                // d softplus(x)/dΔ = σ(x) · (−sign), and Δ = s1 − s2.
                let d = -sign * sigmoid(x) / m;
                self.accumulate(&weights, &norms, inst.first, (s1, dot1), d, &mut dw);
                self.accumulate(&weights, &norms, inst.second, (s2, dot2), -d, &mut dw);
            }
        }
        let mut g = [0.0; NUM_FEATURES];
        if grad {
            for (d, dwd) in dw.iter().enumerate() {
                let Some(w) = &weights[d] else { continue };
                for (k, (_, z)) in self.rows[d].iter().enumerate() {
                    if w[k] > 0.0 && dwd[k] != 0.0 {
                        for f in 0..NUM_FEATURES {
                            g[f] += dwd[k] * z[f];
                        }
                    }
                }
            }
        }
        let mut value = total / m;
        // The bias is not penalized (the trainer holds it at 1).
        for j in 1..NUM_FEATURES {
            g[j] += self.l2 * lambda[j];
            value += 0.5 * self.l2 * lambda[j] * lambda[j];
        }
        (value, g)
    }

    /// The similarity of a pair from the documents' weights, and its dot product.
    fn pair(
        &self,
        weights: &[Option<Vec<f64>>],
        norms: &[f64],
        (p, q): (usize, usize),
    ) -> (f64, f64) {
        let (Some(Some(wp)), Some(Some(wq))) = (weights.get(p), weights.get(q)) else {
            return (0.0, 0.0);
        };
        let mut dot = 0.0;
        for_shared(&self.rows[p], &self.rows[q], |i, j| dot += wp[i] * wq[j]);
        (self.objective.of_parts(dot, norms[p], norms[q]), dot)
    }

    /// Adds `scale · ∂sim/∂w` of the pair to each document's weight derivatives, given
    /// the pair's similarity and dot product from [`pair`](Self::pair).
    fn accumulate(
        &self,
        weights: &[Option<Vec<f64>>],
        norms: &[f64],
        (p, q): (usize, usize),
        (sim, dot): (f64, f64),
        scale: f64,
        dw: &mut [Vec<f64>],
    ) {
        let (Some(Some(wp)), Some(Some(wq))) = (weights.get(p), weights.get(q)) else {
            return;
        };
        let (na, nb) = (norms[p], norms[q]);
        // ∂sim/∂w_p[k] = a·other_k + b·w_p[k] (and the same for q with its norm).
        let (a_p, b_p, a_q, b_q) = match self.objective {
            Objective::Cosine if na > 0.0 && nb > 0.0 => {
                let r = 1.0 / (na * nb).sqrt();
                (r, -sim / na, r, -sim / nb)
            }
            Objective::Jaccard if na + nb - dot > 0.0 => {
                // (other − J(2v − other)) / den = (1 + J)/den · other − 2J/den · v.
                let den = na + nb - dot;
                let (a, b) = ((1.0 + sim) / den, -2.0 * sim / den);
                (a, b, a, b)
            }
            _ => return,
        };
        for (k, &w) in wp.iter().enumerate() {
            dw[p][k] += scale * b_p * w;
        }
        for (k, &w) in wq.iter().enumerate() {
            dw[q][k] += scale * b_q * w;
        }
        // Indexed through `dw` each time, so a pair of a document with itself works.
        for_shared(&self.rows[p], &self.rows[q], |i, j| {
            dw[p][i] += scale * a_p * wq[j];
            dw[q][j] += scale * a_q * wp[i];
        });
    }
}

/// Calls `f(i, j)` for each k-gram both rows have (`a[i]` and `b[j]`), merging the
/// two sorted lists.
fn for_shared(a: &[(u64, FeatureRow)], b: &[(u64, FeatureRow)], mut f: impl FnMut(usize, usize)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Equal => {
                f(i, j);
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
}

/// `ln(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// `1 / (1 + e^−x)`.
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// A point, its loss and its gradient.
type Evaluated = ([f64; NUM_FEATURES], f64, [f64; NUM_FEATURES]);

/// The loss as argmin sees it, counting evaluations and reporting progress.
struct Reporter<'a, 'p, P: FnMut(TrainProgress)> {
    loss: Loss<'a>,
    evaluations: &'p Cell<u64>,
    progress: RefCell<&'p mut P>,
    /// The last point evaluated, with its loss and gradient: the line search asks for
    /// the cost and then the gradient of the same point, one pass serves both.
    last: RefCell<Option<Evaluated>>,
}

impl<P: FnMut(TrainProgress)> Reporter<'_, '_, P> {
    /// The loss and gradient at `p`, computed once per point.
    fn at(&self, p: &[f64]) -> (f64, [f64; NUM_FEATURES]) {
        let lambda = to_array(p);
        if let Some((l, v, g)) = *self.last.borrow() {
            if l == lambda {
                return (v, g);
            }
        }
        let (v, g) = self.loss.gradient(&lambda);
        let evaluations = self.evaluations.get() + 1;
        self.evaluations.set(evaluations);
        (self.progress.borrow_mut())(TrainProgress {
            evaluations,
            loss: v,
        });
        *self.last.borrow_mut() = Some((lambda, v, g));
        (v, g)
    }
}

/// The full λ from the optimized ones: the bias held at 1.
fn to_array(p: &[f64]) -> [f64; NUM_FEATURES] {
    let mut a = [0.0; NUM_FEATURES];
    a[0] = 1.0;
    for (x, y) in a[1..].iter_mut().zip(p) {
        *x = *y;
    }
    a
}

impl<P: FnMut(TrainProgress)> CostFunction for Reporter<'_, '_, P> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, p: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        Ok(self.at(p).0)
    }
}

impl<P: FnMut(TrainProgress)> Gradient for Reporter<'_, '_, P> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, p: &Vec<f64>) -> Result<Vec<f64>, argmin::core::Error> {
        Ok(self.at(p).1[1..].to_vec())
    }
}

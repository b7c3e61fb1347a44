//! The comparison of Hajishirzi, Yih and Kołcz (2010, Section 4.1.1, Table 2 and
//! Figure 5): train on half of the clusters, score every pair of the other half, Max
//! F1 of learned weights next to binary and TF-IDF weights and plain Jaccard, over
//! several random splits; and the learning curve against the number of training
//! clusters.

use ndd_core::{Error, ScoredPair, SparseVector, Weighted};
use ndd_eval::{Labels, max_f1};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::features::{CollectionStats, Document, Feature};
use crate::model::WeightModel;
use crate::train::{Trainer, instances_from_labels};

/// Max F1 over every pair of a split's test documents, for each weighting.
///
/// # Example
///
/// ```
/// let s = near_dup::learn::SplitScores { learned: 0.9, binary: 0.8, tfidf: 0.85, jaccard: 0.8 };
/// assert!(s.learned > s.binary);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitScores {
    /// The learned weights, under the trainer's objective.
    pub learned: f64,
    /// Every k-gram weighs 1, same objective.
    pub binary: f64,
    /// `ln(1 + tf) · ln(N / df)` weights, same objective.
    pub tfidf: f64,
    /// Plain Jaccard of the k-gram sets.
    pub jaccard: f64,
}

/// The most documents [`evaluate_splits`] scores all pairs of per split: 20,000 (2·10^8
/// pairs).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::learn::MAX_EVALUATION_DOCUMENTS, 20_000);
/// ```
pub const MAX_EVALUATION_DOCUMENTS: usize = 20_000;

/// Trains on the documents whose label is in `train` and scores every pair of those
/// whose label is in `test` (both sorted label lists), with each weighting. `stats`
/// should be counted over the whole collection (unsupervised statistics).
fn split(
    stats: &CollectionStats,
    docs: &[Document],
    labels: &[usize],
    (train, test): (&[usize], &[usize]),
    settings: &Evaluation,
    seed: u64,
) -> Result<SplitScores, Error> {
    let test: Vec<usize> = (0..docs.len())
        .filter(|&d| test.binary_search(&labels[d]).is_ok())
        .collect();
    if test.len() > MAX_EVALUATION_DOCUMENTS {
        return Err(Error::invalid_parameter(
            "documents",
            format!(
                "at most {MAX_EVALUATION_DOCUMENTS} test documents, got {}",
                test.len()
            ),
        ));
    }
    let train_labels: Vec<Option<usize>> = labels
        .iter()
        .map(|&l| train.binary_search(&l).is_ok().then_some(l))
        .collect();
    let inst = instances_from_labels(&train_labels, settings.instances, seed)?;
    let trainer = settings.trainer;
    let (model, _) = trainer.train(stats, docs, &inst, |_| {})?;
    let objective = trainer.objective();
    let binary = WeightModel::binary(stats.kgrams(), objective);
    let n_docs = stats.documents().max(1) as f64;
    let rows: Vec<_> = test.iter().map(|&d| stats.rows(&docs[d])).collect();
    let vectors = |f: &dyn Fn(&crate::FeatureRow) -> f64| -> Vec<SparseVector> {
        rows.iter()
            .map(|r| {
                SparseVector::from_unsorted(
                    r.iter()
                        .filter_map(|(g, row)| {
                            let w = f(row);
                            (w > 0.0).then(|| Weighted::new(*g, w).ok()).flatten()
                        })
                        .collect(),
                )
            })
            .collect()
    };
    let learned_v = vectors(&|row| model.weight(row));
    let binary_v = vectors(&|row| binary.weight(row));
    let tfidf_v = vectors(&|row| {
        // Rows hold ln(1 + tf) and ln(1 + df).
        let df = row[Feature::Df.index()].exp_m1().max(1.0);
        row[Feature::Tf.index()] * (n_docs / df).ln().max(0.0)
    });
    let sets: Vec<Vec<u64>> = rows
        .iter()
        .map(|r| r.iter().map(|(g, _)| *g).collect())
        .collect();
    let test_labels = Labels::new(&test.iter().map(|&d| labels[d]).collect::<Vec<_>>());
    let score = |sim: &dyn Fn(usize, usize) -> f64| -> Result<f64, Error> {
        let mut pairs = Vec::new();
        for a in 0..test.len() {
            for b in a + 1..test.len() {
                let s = sim(a, b);
                if s > 0.0 {
                    pairs.push(ScoredPair::new(a, b, s));
                }
            }
        }
        Ok(max_f1(&pairs, &test_labels)?.f1)
    };
    Ok(SplitScores {
        learned: score(&|a, b| objective.similarity(&learned_v[a], &learned_v[b]))?,
        binary: score(&|a, b| objective.similarity(&binary_v[a], &binary_v[b]))?,
        tfidf: score(&|a, b| objective.similarity(&tfidf_v[a], &tfidf_v[b]))?,
        jaccard: score(&|a, b| ndd_core::jaccard(&sets[a], &sets[b]))?,
    })
}

/// How an evaluation runs: the trainer, how many random splits, how many training
/// instances per split, the seed.
///
/// # Example
///
/// ```
/// use near_dup::learn::{Evaluation, Objective, Trainer};
/// let e = Evaluation::new(Trainer::new(Objective::Jaccard));
/// assert_eq!((e.splits, e.instances), (5, 20_000));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// The trainer (its objective decides the similarity of every weighting).
    pub trainer: Trainer,
    /// Random splits (5 by default, as the paper's five runs).
    pub splits: usize,
    /// Training instances per split (20,000 by default; the paper used 80,000).
    pub instances: usize,
    /// Seed of the splits and instances (0 by default).
    pub seed: u64,
}

impl Evaluation {
    /// Five splits of 20,000 instances, seed 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Evaluation, Objective, Trainer};
    /// assert_eq!(Evaluation::new(Trainer::new(Objective::Cosine)).seed, 0);
    /// ```
    #[must_use]
    pub fn new(trainer: Trainer) -> Self {
        Evaluation {
            trainer,
            splits: 5,
            instances: 20_000,
            seed: 0,
        }
    }
}

/// Table 2's comparison: `splits` random halvings of the clusters (seeded); on each,
/// weights learned from `instances` instances of the training half, then Max F1 over
/// every pair of the test half for learned, binary and TF-IDF weights and plain
/// Jaccard.
///
/// Cost per split: training (see [`Trainer::train`]) plus every pair of the test
/// documents (at most [`MAX_EVALUATION_DOCUMENTS`]).
///
/// # Errors
///
/// [`Error::LengthMismatch`] when `labels` is not one per document; those of
/// [`instances_from_clusters`](crate::instances_from_clusters) and [`Trainer::train`] for a training half without a
/// near-duplicate pair or two clusters; [`Error::InvalidParameter`] for too many
/// test documents.
///
/// # Example
///
/// ```
/// use near_dup::learn::{evaluate_splits, CollectionStats, Document, Evaluation, Kgrams, Objective, Trainer};
/// let texts: Vec<String> = (0..24).map(|i| format!("topic {} story words {} and the shared footer text", i / 3, i % 3)).collect();
/// let docs: Vec<Document> = texts.iter().map(|t| Document::new(t.as_str())).collect();
/// let labels: Vec<usize> = (0..24).map(|i| i / 3).collect();
/// let stats = CollectionStats::from_documents(Kgrams::new(1)?, texts.iter().map(String::as_str));
/// let settings = Evaluation { splits: 2, instances: 300, ..Evaluation::new(Trainer::new(Objective::Cosine)) };
/// let scores = evaluate_splits(&stats, &docs, &labels, &settings)?;
/// assert_eq!(scores.len(), 2);
/// assert!(scores.iter().all(|s| (0.0..=1.0).contains(&s.learned)));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn evaluate_splits(
    stats: &CollectionStats,
    docs: &[Document],
    labels: &[usize],
    settings: &Evaluation,
) -> Result<Vec<SplitScores>, Error> {
    let clusters = cluster_ids(docs, labels)?;
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let mut out = Vec::with_capacity(settings.splits);
    let half = clusters.len() / 2;
    for s in 0..settings.splits {
        let data = (stats, docs, labels);
        out.push(random_split(data, settings, &clusters, &mut rng, s, half)?);
    }
    Ok(out)
}

/// Figure 5's shape: for each number of training clusters in `counts`, the mean over
/// `splits` random splits of the learned weights' Max F1 (and the binary weights' on
/// the same test halves): the test half is half of the clusters, the training
/// clusters drawn from the other half.
///
/// # Errors
///
/// As [`evaluate_splits`]. A count is raised to 2 (training needs two clusters) and
/// capped at half of the clusters (a collection of fewer than 4 clusters then fails
/// to train).
///
/// # Example
///
/// ```
/// use near_dup::learn::{learning_curve, CollectionStats, Document, Evaluation, Kgrams, Objective, Trainer};
/// let texts: Vec<String> = (0..30).map(|i| format!("topic {} story {} and the shared footer", i / 3, i % 3)).collect();
/// let docs: Vec<Document> = texts.iter().map(|t| Document::new(t.as_str())).collect();
/// let labels: Vec<usize> = (0..30).map(|i| i / 3).collect();
/// let stats = CollectionStats::from_documents(Kgrams::new(1)?, texts.iter().map(String::as_str));
/// let settings = Evaluation { splits: 1, instances: 200, seed: 3, ..Evaluation::new(Trainer::new(Objective::Cosine)) };
/// let curve = learning_curve(&stats, &docs, &labels, &settings, &[2, 5])?;
/// assert_eq!(curve.len(), 2);
/// assert_eq!(curve[1].0, 5);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn learning_curve(
    stats: &CollectionStats,
    docs: &[Document],
    labels: &[usize],
    settings: &Evaluation,
    counts: &[usize],
) -> Result<Vec<(usize, f64, f64)>, Error> {
    let clusters = cluster_ids(docs, labels)?;
    let half = clusters.len() / 2;
    let mut out = Vec::with_capacity(counts.len());
    for &count in counts {
        // At least 2 clusters (training needs two), never more than the training half.
        let count = count.clamp(2, half.max(2)).min(half);
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let (mut learned, mut binary) = (0.0, 0.0);
        for s in 0..settings.splits {
            let data = (stats, docs, labels);
            let scores = random_split(data, settings, &clusters, &mut rng, s, count)?;
            learned += scores.learned;
            binary += scores.binary;
        }
        let k = settings.splits.max(1) as f64;
        out.push((count, learned / k, binary / k));
    }
    Ok(out)
}

/// Split number `s`: shuffles `clusters` with `rng`, tests on the second half of the
/// order (`clusters.len() / 2` onwards) and trains on the first `count` clusters.
fn random_split(
    (stats, docs, labels): (&CollectionStats, &[Document], &[usize]),
    settings: &Evaluation,
    clusters: &[usize],
    rng: &mut ChaCha8Rng,
    s: usize,
    count: usize,
) -> Result<SplitScores, Error> {
    let mut order = clusters.to_vec();
    order.shuffle(rng);
    let half = order.len() / 2;
    let (train, test) = sorted_halves(&mut order, count, half);
    split(
        stats,
        docs,
        labels,
        (train, test),
        settings,
        settings.seed ^ s as u64,
    )
}

/// The first `count` labels of the shuffled `order` (training) and those from `half`
/// on (test), each sorted for lookups.
fn sorted_halves(order: &mut [usize], count: usize, half: usize) -> (&[usize], &[usize]) {
    let (front, back) = order.split_at_mut(half);
    let train = &mut front[..count];
    train.sort_unstable();
    back.sort_unstable();
    (train, back)
}

/// The distinct labels, sorted, once `labels` is checked to be one per document.
fn cluster_ids(docs: &[Document], labels: &[usize]) -> Result<Vec<usize>, Error> {
    Error::check_lengths(docs.len(), labels.len())?;
    let mut c = labels.to_vec();
    c.sort_unstable();
    c.dedup();
    Ok(c)
}

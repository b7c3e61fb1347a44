//! The training workflow over a labeled corpus: documents with a cluster label (or
//! none), turned into collection statistics, training instances and a model.

use ndd_core::Error;

use crate::{
    CollectionStats, Document, Instance, Kgrams, TrainProgress, TrainReport, Trainer, WeightModel,
    instances_from_labels,
};

/// A corpus to learn from: every document counts in the collection statistics;
/// documents with the same label are near-duplicates of each other, and only
/// labeled documents take part in the training instances.
///
/// # Example
///
/// ```
/// use near_dup::learn::{Document, Kgrams, LabeledCorpus, Objective, Trainer};
/// let mut corpus = LabeledCorpus::new();
/// for (i, story) in ["rates rise again", "storm hits the coast", "team wins the cup"].iter().enumerate() {
///     let footer = "subscribe to our newsletter for more news";
///     corpus.push(Document::new(format!("{story} today {footer}")), Some(&format!("c{i}")));
///     corpus.push(Document::new(format!("{story} this morning {footer}")), Some(&format!("c{i}")));
/// }
/// corpus.push(Document::new("an unlabeled page"), None);
/// assert_eq!((corpus.len(), corpus.labeled(), corpus.clusters()), (7, 6, 3));
/// let instances = corpus.instances(50, 7)?;
/// let trainer = Trainer::new(Objective::Cosine).max_iterations(20)?;
/// let (model, report) = corpus.train(&trainer, Kgrams::new(1)?, &instances, |_| {})?;
/// assert!(report.final_loss <= report.initial_loss);
/// assert_eq!(model.objective(), Objective::Cosine);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LabeledCorpus {
    docs: Vec<Document>,
    labels: Vec<Option<usize>>,
    label_ids: ahash::AHashMap<String, usize>,
}

impl LabeledCorpus {
    /// An empty corpus.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::LabeledCorpus::new().is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `doc` with its cluster `label` (`None`: statistics only).
    ///
    /// # Example
    ///
    /// ```
    /// let mut c = near_dup::learn::LabeledCorpus::new();
    /// c.push(near_dup::learn::Document::new("a b"), Some("x"));
    /// c.push(near_dup::learn::Document::new("c d"), Some("x"));
    /// assert_eq!((c.len(), c.clusters()), (2, 1));
    /// ```
    pub fn push(&mut self, doc: Document, label: Option<&str>) {
        let label = label.map(|l| {
            let next = self.label_ids.len();
            *self.label_ids.entry(l.to_owned()).or_insert(next)
        });
        self.docs.push(doc);
        self.labels.push(label);
    }

    /// Documents in the corpus.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::LabeledCorpus::new().len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether the corpus has no document.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::LabeledCorpus::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Documents with a label.
    ///
    /// # Example
    ///
    /// ```
    /// let mut c = near_dup::learn::LabeledCorpus::new();
    /// c.push(near_dup::learn::Document::new("a b"), None);
    /// assert_eq!(c.labeled(), 0);
    /// ```
    #[must_use]
    pub fn labeled(&self) -> usize {
        self.labels.iter().flatten().count()
    }

    /// Distinct labels.
    ///
    /// # Example
    ///
    /// ```
    /// let mut c = near_dup::learn::LabeledCorpus::new();
    /// c.push(near_dup::learn::Document::new("a"), Some("x"));
    /// c.push(near_dup::learn::Document::new("b"), Some("y"));
    /// assert_eq!(c.clusters(), 2);
    /// ```
    #[must_use]
    pub fn clusters(&self) -> usize {
        self.label_ids.len()
    }

    /// `count` training instances drawn from the labels with `seed`
    /// ([`instances_from_labels`]).
    ///
    /// # Errors
    ///
    /// As [`instances_from_labels`]: too many asked for, or labels that give no
    /// near-duplicate pair or no unrelated pair.
    ///
    /// # Example
    ///
    /// ```
    /// let mut c = near_dup::learn::LabeledCorpus::new();
    /// c.push(near_dup::learn::Document::new("a"), Some("x"));
    /// assert!(c.instances(10, 0).is_err()); // no pair of one label
    /// ```
    pub fn instances(&self, count: usize, seed: u64) -> Result<Vec<Instance>, Error> {
        instances_from_labels(&self.labels, count, seed)
    }

    /// Trains `trainer` on `instances` over the corpus's `kgrams` statistics,
    /// reporting each loss evaluation to `progress`.
    ///
    /// # Errors
    ///
    /// As [`Trainer::train`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, LabeledCorpus, Objective, Trainer};
    /// let trainer = Trainer::new(Objective::Cosine);
    /// assert!(LabeledCorpus::new().train(&trainer, Kgrams::new(1)?, &[], |_| {}).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn train(
        &self,
        trainer: &Trainer,
        kgrams: Kgrams,
        instances: &[Instance],
        progress: impl FnMut(TrainProgress),
    ) -> Result<(WeightModel, TrainReport), Error> {
        let stats =
            CollectionStats::from_documents(kgrams, self.docs.iter().map(|d| d.body.as_str()));
        trainer.train(&stats, &self.docs, instances, progress)
    }
}

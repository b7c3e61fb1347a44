//! The learned weighting function `gw(g, d) = Σ λj φj(g, d)` (Hajishirzi, Yih and
//! Kołcz 2010, equation 1), the similarities it is trained for (equations 2 and 3),
//! and its byte form.

use std::path::Path;

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::file::{FileError, load_bounded};
use ndd_core::{Error, FeatureExtractor, FeatureSink, SchemeId, SparseVector, Weighted};

use crate::features::{CollectionStats, Document, FeatureRow, Kgrams, NUM_FEATURES};

/// The similarity the weights are learned for, and the LSH family that estimates it.
///
/// # Example
///
/// ```
/// use near_dup::learn::Objective;
/// assert_eq!("jaccard".parse::<Objective>()?, Objective::Jaccard);
/// assert_eq!(Objective::Cosine.name(), "cosine");
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Objective {
    /// Cosine of the weighted k-gram vectors (equation 2): SimHash estimates it
    /// (LSH-Cos).
    #[default]
    Cosine,
    /// Extended Jaccard `v·w / (|v|² + |w|² − v·w)` (equation 3): weighted MinHash
    /// estimates the weighted (min/max) Jaccard that it is trained as a proxy for
    /// (LSH-Jaccard).
    Jaccard,
}

impl Objective {
    /// `cosine` or `jaccard`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::learn::Objective::Jaccard.name(), "jaccard");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Objective::Cosine => "cosine",
            Objective::Jaccard => "jaccard",
        }
    }

    /// The similarity of two weighted vectors (sorted by feature), 0 when either has
    /// no positive weight.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{SparseVector, Weighted};
    /// use near_dup::learn::Objective;
    /// let v = |e: &[(u64, f64)]| SparseVector::from_unsorted(e.iter().map(|&(f, w)| Weighted::new(f, w).unwrap()).collect());
    /// let (a, b) = (v(&[(1, 1.0), (2, 1.0)]), v(&[(1, 1.0)]));
    /// assert!((Objective::Cosine.similarity(&a, &b) - 0.5f64.sqrt()).abs() < 1e-12);
    /// assert!((Objective::Jaccard.similarity(&a, &b) - 0.5).abs() < 1e-12);
    /// ```
    #[must_use]
    pub fn similarity(self, a: &SparseVector, b: &SparseVector) -> f64 {
        if a.is_empty() || b.is_empty() {
            return 0.0;
        }
        match self {
            Objective::Cosine => ndd_core::cosine(a, b),
            Objective::Jaccard => ndd_core::extended_jaccard(a, b),
        }
    }

    /// The similarity from `v·w`, `|v|²` and `|w|²` (training keeps the norms).
    pub(crate) fn of_parts(self, dot: f64, na: f64, nb: f64) -> f64 {
        match self {
            Objective::Cosine if na > 0.0 && nb > 0.0 => dot / (na * nb).sqrt(),
            Objective::Jaccard if na + nb - dot > 0.0 => dot / (na + nb - dot),
            _ => 0.0,
        }
    }
}

impl std::fmt::Display for Objective {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Objective {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cosine" => Ok(Objective::Cosine),
            "jaccard" => Ok(Objective::Jaccard),
            _ => Err(Error::invalid_input(format!(
                "unknown objective `{s}` (cosine, jaccard)"
            ))),
        }
    }
}

/// The standardization of raw features the model was trained with: `(x − mean) /
/// scale` per feature (the bias stays 1). Part of the model: the same rows must be
/// scaled the same way when the model is used.
///
/// # Example
///
/// ```
/// use near_dup::learn::{FeatureScaling, NUM_FEATURES};
/// let rows = [[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]];
/// let s = FeatureScaling::fit(rows.iter());
/// let z = s.apply(&rows[1]);
/// assert_eq!(z[0], 1.0); // the bias
/// assert!((z[1] - 1.0).abs() < 1e-12); // one standard deviation above the mean
/// assert_eq!(z[2], 0.0); // a constant feature scales to 0
/// # let _ = NUM_FEATURES;
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeatureScaling {
    mean: [f64; NUM_FEATURES],
    scale: [f64; NUM_FEATURES],
}

impl Default for FeatureScaling {
    fn default() -> Self {
        FeatureScaling {
            mean: [0.0; NUM_FEATURES],
            scale: [1.0; NUM_FEATURES],
        }
    }
}

impl FeatureScaling {
    /// The mean and standard deviation of each feature over `rows` (a feature with no
    /// spread gets scale 1 after centring, so it is 0 everywhere).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::learn::FeatureScaling::fit(std::iter::empty());
    /// assert_eq!(s, near_dup::learn::FeatureScaling::default());
    /// ```
    pub fn fit<'a>(rows: impl Iterator<Item = &'a FeatureRow>) -> Self {
        let mut n = 0.0;
        let mut sum = [0.0; NUM_FEATURES];
        let mut sq = [0.0; NUM_FEATURES];
        for r in rows {
            n += 1.0;
            for j in 0..NUM_FEATURES {
                sum[j] += r[j];
                sq[j] += r[j] * r[j];
            }
        }
        let mut s = FeatureScaling::default();
        if n == 0.0 {
            return s;
        }
        for j in 1..NUM_FEATURES {
            let mean = sum[j] / n;
            let var = (sq[j] / n - mean * mean).max(0.0);
            s.mean[j] = mean;
            s.scale[j] = if var > 1e-24 { var.sqrt() } else { 1.0 };
        }
        s
    }

    /// The scaled row.
    ///
    /// # Example
    ///
    /// ```
    /// let r = [1.0; near_dup::learn::NUM_FEATURES];
    /// assert_eq!(near_dup::learn::FeatureScaling::default().apply(&r), r);
    /// ```
    #[must_use]
    pub fn apply(&self, row: &FeatureRow) -> FeatureRow {
        let mut z = [0.0; NUM_FEATURES];
        z[0] = row[0];
        for j in 1..NUM_FEATURES {
            z[j] = (row[j] - self.mean[j]) / self.scale[j];
        }
        z
    }
}

/// Learned k-gram weights: `gw(g, d) = max(0, Σ λj zj(g, d))` for the scaled features
/// `z` of k-gram `g` in document `d` (equation 1). A k-gram whose linear score is
/// negative weighs 0: it is left out of the vector, as if it were not in the
/// document, which keeps every weight a valid input of SimHash and weighted MinHash.
///
/// Made by [`Trainer::train`](crate::Trainer::train), or [`WeightModel::binary`] (every
/// k-gram weighs 1: the unlearned baseline).
///
/// # Example
///
/// ```
/// use near_dup::learn::{CollectionStats, Document, Kgrams, Objective, WeightModel};
/// let stats = CollectionStats::from_documents(Kgrams::new(1)?, ["a b c", "a b d"]);
/// let binary = WeightModel::binary(stats.kgrams(), Objective::Cosine);
/// let (x, y) = (binary.vector(&stats, &Document::new("a b c")), binary.vector(&stats, &Document::new("a b d")));
/// assert!((binary.similarity(&x, &y) - 2.0 / 3.0).abs() < 1e-12);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WeightModel {
    kgrams: Kgrams,
    objective: Objective,
    scaling: FeatureScaling,
    lambda: [f64; NUM_FEATURES],
}

/// The largest weight magnitude `|λⱼ|` a [`WeightModel`] takes: trained weights of
/// standardized features are of order 1 (L2-regularized), and a bias of 1e300 made
/// every k-gram's weight so large that consistent weighted sampling gave every
/// document the same signature, so that all of them formed one group.
///
/// # Example
///
/// ```
/// use near_dup::learn::{FeatureScaling, Kgrams, Objective, WeightModel, MAX_WEIGHT, NUM_FEATURES};
/// let mut lambda = [0.0; NUM_FEATURES];
/// lambda[0] = MAX_WEIGHT;
/// assert!(WeightModel::new(Kgrams::new(2)?, Objective::Jaccard, FeatureScaling::default(), lambda).is_ok());
/// lambda[0] = 1e300;
/// assert!(WeightModel::new(Kgrams::new(2)?, Objective::Jaccard, FeatureScaling::default(), lambda).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub const MAX_WEIGHT: f64 = 1e6;

/// The smallest feature scale a [`WeightModel`] takes: what
/// [`FeatureScaling::fit`] gives a feature with any spread (a smaller scale would
/// blow a raw feature up as a huge weight does).
const MIN_SCALE: f64 = 1e-12;

const MAGIC: [u8; 4] = *b"NDLW";
const VERSION: u16 = 1;
/// The largest model file [`WeightModel::load`] reads.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// [`NUM_FEATURES`] as stored.
#[allow(clippy::cast_possible_truncation)] // 11
const FEATURE_COUNT: u32 = NUM_FEATURES as u32;

impl WeightModel {
    /// A model from its parts.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when a weight or a scaling value is not finite, a
    /// weight's magnitude is above [`MAX_WEIGHT`], or a scale is below 1e-12 (the
    /// smallest [`FeatureScaling::fit`] gives).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{FeatureScaling, Kgrams, Objective, WeightModel, NUM_FEATURES};
    /// let mut lambda = [0.0; NUM_FEATURES];
    /// lambda[0] = 1.0;
    /// let m = WeightModel::new(Kgrams::new(2)?, Objective::Jaccard, FeatureScaling::default(), lambda)?;
    /// assert_eq!(m.lambda()[0], 1.0);
    /// lambda[1] = f64::NAN;
    /// assert!(WeightModel::new(Kgrams::new(2)?, Objective::Jaccard, FeatureScaling::default(), lambda).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(
        kgrams: Kgrams,
        objective: Objective,
        scaling: FeatureScaling,
        lambda: [f64; NUM_FEATURES],
    ) -> Result<Self, Error> {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !finite(&lambda)
            || !finite(&scaling.mean)
            || !finite(&scaling.scale)
            || lambda.iter().any(|l| l.abs() > MAX_WEIGHT)
            || scaling.scale.iter().any(|&s| s < MIN_SCALE)
        {
            return Err(Error::invalid_parameter(
                "weight model",
                format!(
                    "weights, means and scales must be finite, weights within ±{MAX_WEIGHT:e}, \
                     scales at least {MIN_SCALE:e}"
                ),
            ));
        }
        Ok(WeightModel {
            kgrams,
            objective,
            scaling,
            lambda,
        })
    }

    /// Every k-gram weighs 1 (λ = bias only): the binary vectors ANDD is compared
    /// against.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel};
    /// assert_eq!(WeightModel::binary(Kgrams::new(1)?, Objective::Cosine).lambda()[0], 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn binary(kgrams: Kgrams, objective: Objective) -> Self {
        let mut lambda = [0.0; NUM_FEATURES];
        lambda[0] = 1.0;
        WeightModel {
            kgrams,
            objective,
            scaling: FeatureScaling::default(),
            lambda,
        }
    }

    /// The weights λ, by [`Feature`](crate::Feature) index.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel};
    /// assert_eq!(WeightModel::binary(Kgrams::new(1)?, Objective::Cosine).lambda()[1], 0.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn lambda(&self) -> &[f64; NUM_FEATURES] {
        &self.lambda
    }

    /// The feature scaling.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{FeatureScaling, Kgrams, Objective, WeightModel};
    /// assert_eq!(*WeightModel::binary(Kgrams::new(1)?, Objective::Cosine).scaling(), FeatureScaling::default());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scaling(&self) -> &FeatureScaling {
        &self.scaling
    }

    /// The similarity trained for.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel};
    /// assert_eq!(WeightModel::binary(Kgrams::new(1)?, Objective::Jaccard).objective(), Objective::Jaccard);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn objective(&self) -> Objective {
        self.objective
    }

    /// The k-grams weighed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel};
    /// assert_eq!(WeightModel::binary(Kgrams::new(3)?, Objective::Cosine).kgrams().k(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn kgrams(&self) -> Kgrams {
        self.kgrams
    }

    /// The weight of a k-gram with raw features `row`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel, NUM_FEATURES};
    /// let m = WeightModel::binary(Kgrams::new(1)?, Objective::Cosine);
    /// assert_eq!(m.weight(&[1.0; NUM_FEATURES]), 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn weight(&self, row: &FeatureRow) -> f64 {
        let z = self.scaling.apply(row);
        linear(&self.lambda, &z).max(0.0)
    }

    /// The document's weighted k-gram vector (k-grams of weight 0 left out). `stats`
    /// must count the model's k-grams; the vector is empty otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Document, Kgrams, Objective, WeightModel};
    /// let stats = CollectionStats::from_documents(Kgrams::new(2)?, ["a b c"]);
    /// let m = WeightModel::binary(stats.kgrams(), Objective::Cosine);
    /// assert_eq!(m.vector(&stats, &Document::new("a b c")).len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn vector(&self, stats: &CollectionStats, doc: &Document) -> SparseVector {
        self.vector_of(stats, &stats.rows(doc))
    }

    /// The weighted vector of rows from `stats` (empty when `stats` counts other
    /// k-grams).
    fn vector_of(&self, stats: &CollectionStats, rows: &[(u64, FeatureRow)]) -> SparseVector {
        if stats.kgrams() != self.kgrams {
            return SparseVector::default();
        }
        let entries: Vec<Weighted> = rows
            .iter()
            .filter_map(|(g, row)| {
                let w = self.weight(row);
                (w > 0.0).then(|| Weighted::new(*g, w).ok()).flatten()
            })
            .collect();
        SparseVector::from_unsorted(entries)
    }

    /// The trained similarity of two weighted vectors.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Document, Kgrams, Objective, WeightModel};
    /// let stats = CollectionStats::from_documents(Kgrams::new(1)?, ["x y"]);
    /// let m = WeightModel::binary(stats.kgrams(), Objective::Jaccard);
    /// let v = m.vector(&stats, &Document::new("x y"));
    /// assert_eq!(m.similarity(&v, &v), 1.0);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn similarity(&self, a: &SparseVector, b: &SparseVector) -> f64 {
        self.objective.similarity(a, b)
    }

    /// A fingerprint of the model for signature schemes: signatures built with
    /// different models refuse to compare.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel};
    /// let a = WeightModel::binary(Kgrams::new(1)?, Objective::Cosine);
    /// let b = WeightModel::binary(Kgrams::new(2)?, Objective::Cosine);
    /// assert_ne!(a.scheme(), b.scheme());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn scheme(&self) -> SchemeId {
        let mut b = SchemeId::new("ndd-learn-weights")
            .with(self.kgrams.k() as u64)
            .with_str(self.objective.name());
        for v in self
            .lambda
            .iter()
            .chain(&self.scaling.mean)
            .chain(&self.scaling.scale)
        {
            b = b.with_f64(*v);
        }
        b.finish()
    }

    /// The versioned, checksummed byte form (magic `NDLW`, version 1).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel};
    /// let m = WeightModel::binary(Kgrams::new(2)?, Objective::Jaccard);
    /// assert_eq!(WeightModel::from_bytes(&m.to_bytes())?, m);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(MAGIC, VERSION);
        w.u64(self.kgrams.k() as u64);
        w.u8(match self.objective {
            Objective::Cosine => 0,
            Objective::Jaccard => 1,
        });
        w.u32(FEATURE_COUNT);
        for v in self
            .lambda
            .iter()
            .chain(&self.scaling.mean)
            .chain(&self.scaling.scale)
        {
            w.f64(*v);
        }
        w.finish()
    }

    /// Loads [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for bytes that are truncated, altered, of another version
    /// or inconsistent (a k out of range, a weight not finite or above
    /// [`MAX_WEIGHT`]).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::learn::WeightModel::from_bytes(b"not a model").is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let corrupt = |m: &str| Error::CorruptData {
            reason: format!("weight model: {m}"),
        };
        let (mut r, _) = ByteReader::new(bytes, MAGIC, VERSION)?;
        let k = usize::try_from(r.u64()?).map_err(|_| corrupt("k"))?;
        let kgrams = Kgrams::new(k).map_err(|_| corrupt("k out of range"))?;
        let objective = match r.u8()? {
            0 => Objective::Cosine,
            1 => Objective::Jaccard,
            _ => return Err(corrupt("unknown objective")),
        };
        if r.u32()? != FEATURE_COUNT {
            return Err(corrupt("feature count"));
        }
        let mut read = || -> Result<[f64; NUM_FEATURES], Error> {
            let mut a = [0.0; NUM_FEATURES];
            for x in &mut a {
                *x = r.f64()?;
            }
            Ok(a)
        };
        let lambda = read()?;
        let mean = read()?;
        let scale = read()?;
        r.finish()?;
        WeightModel::new(kgrams, objective, FeatureScaling { mean, scale }, lambda).map_err(|_| {
            corrupt(&format!(
                "a weight, mean or scale is not finite, or out of range (weights within \
                 ±{MAX_WEIGHT:e}, scales at least {MIN_SCALE:e})"
            ))
        })
    }

    /// Reads a model saved with [`to_bytes`](Self::to_bytes) from the file at `path`.
    /// A file of more than 1 MiB is refused unread: a model is 291 bytes, and the bound
    /// leaves room for later versions while a wrong path to a large file is refused at
    /// once.
    ///
    /// # Errors
    ///
    /// [`FileError`] naming `path`: the file cannot be read, is a device or is too
    /// large, or its bytes are refused as by [`from_bytes`](Self::from_bytes)
    /// ([`FileError::Decode`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{Kgrams, Objective, WeightModel};
    /// let model = WeightModel::binary(Kgrams::new(1)?, Objective::Cosine);
    /// let path = std::env::temp_dir().join(format!("ndd-model-{}", std::process::id()));
    /// std::fs::write(&path, model.to_bytes())?;
    /// assert_eq!(WeightModel::load(&path)?.to_bytes(), model.to_bytes());
    /// std::fs::write(&path, b"not a model")?;
    /// assert!(WeightModel::load(&path).is_err());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(path: &Path) -> Result<Self, FileError> {
        load_bounded(path, MAX_FILE_BYTES, Some(&MAGIC), Self::from_bytes)
    }
}

/// `λ · z`.
pub(crate) fn linear(lambda: &[f64; NUM_FEATURES], z: &FeatureRow) -> f64 {
    lambda.iter().zip(z).map(|(l, x)| l * x).sum()
}

/// A model and its collection statistics as a [`FeatureExtractor`]: each k-gram of a
/// document (its body; title and URL features are 0) pushed once with its learned
/// weight through [`FeatureSink::push_weighted`], so any weighted sketcher takes it
/// unchanged: SimHash estimates the learned cosine (LSH-Cos), ICWS or bucketized
/// MinHash the weighted Jaccard of the learned vectors (LSH-Jaccard). k-grams of
/// weight 0 are not pushed. For documents with a title or URL, sketch
/// [`WeightModel::vector`] with the sketcher's weighted entry point instead.
///
/// # Example
///
/// ```
/// use near_dup::FeatureExtractor;
/// use near_dup::learn::{CollectionStats, Document, Kgrams, LearnedKgrams, Objective, WeightModel};
/// let stats = CollectionStats::from_documents(Kgrams::new(1)?, ["a b", "b c"]);
/// let model = WeightModel::binary(stats.kgrams(), Objective::Cosine);
/// let extractor = LearnedKgrams::new(&model, &stats);
/// assert_eq!(extractor.features("a b a").len(), 2); // each k-gram once
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LearnedKgrams<'a> {
    model: &'a WeightModel,
    stats: &'a CollectionStats,
    /// Fingerprinting the statistics reads every table: done once.
    scheme: SchemeId,
}

impl<'a> LearnedKgrams<'a> {
    /// The extractor of `model` over `stats` (which must count the model's k-grams;
    /// otherwise every document is empty).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::learn::{CollectionStats, Kgrams, LearnedKgrams, Objective, WeightModel};
    /// let stats = CollectionStats::from_documents(Kgrams::new(2)?, ["a b c"]);
    /// let model = WeightModel::binary(stats.kgrams(), Objective::Jaccard);
    /// let _ = LearnedKgrams::new(&model, &stats);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn new(model: &'a WeightModel, stats: &'a CollectionStats) -> Self {
        // The weights depend on the model and on the statistics' document
        // frequencies: signatures under other statistics must not compare.
        let scheme = SchemeId::new("ndd-learn-learned-kgrams")
            .with_scheme(model.scheme())
            .with(stats.documents())
            .with(stats.fingerprint())
            .finish();
        LearnedKgrams {
            model,
            stats,
            scheme,
        }
    }
}

impl FeatureExtractor for LearnedKgrams<'_> {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        let rows = self.stats.rows_of(doc, None, None);
        for e in self.model.vector_of(self.stats, &rows).entries() {
            sink.push_weighted(e.feature, e.weight);
        }
    }

    fn scheme(&self) -> SchemeId {
        self.scheme
    }
}

//! What a MinHash threshold and signature size mean before a run: the LSH bands and
//! rows chosen, the S-curve (the probability that a pair of a given similarity
//! becomes a candidate), expected recall, and candidates and bytes per document
//! measured on a sample of a corpus or on random documents.

use ndd_core::{DocSketcher, DynFeatureExtractor, Signature};
use ndd_lsh::{LshParams, SortedBandJoin};
use ndd_minhash::{MinHashSignature, MinHasher};

use crate::{Error, MinHashConfig, Shingles};

/// The explanation of a MinHash setting: its LSH parameters and the hasher that
/// sketches documents for the measurements.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
/// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
/// let (b, r) = (e.params().bands(), e.params().rows());
/// assert!(b * r <= 128);
/// // The S-curve 1 - (1 - s^r)^b, at least 99% at the threshold (the recall banding).
/// let s_curve = |s: f64| 1.0 - (1.0 - s.powi(r as i32)).powi(b as i32);
/// assert!((e.probability(0.5) - s_curve(0.5)).abs() < 1e-12);
/// assert!(e.probability(0.8) >= 0.99 - 1e-9);
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug)]
pub struct Explanation {
    threshold: f64,
    config: MinHashConfig,
    params: LshParams,
    hasher: MinHasher<Box<dyn DynFeatureExtractor + Send + Sync>>,
}

/// Candidates and index bytes measured on an evenly spaced sample of a corpus.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
/// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
/// let texts = ["a b c d e f", "a b c d e f", "u v w x y z"];
/// let m = e.measure(&texts, 3)?;
/// assert_eq!((m.sampled, m.candidates, m.similar), (3, 1, 1));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleMeasure {
    /// Documents in the sample.
    pub sampled: usize,
    /// Candidate pairs the LSH index found among the sample's documents.
    pub candidates: u64,
    /// Sample pairs whose MinHash estimate reaches the threshold.
    pub similar: u64,
    /// Bytes per document of the LSH index over the sample.
    pub index_bytes_per_document: f64,
}

impl SampleMeasure {
    /// Pairs of the sample (at least 1).
    ///
    /// # Example
    ///
    /// ```
    /// let m = near_dup::pipeline::SampleMeasure { sampled: 4, candidates: 0, similar: 0, index_bytes_per_document: 0.0 };
    /// assert_eq!(m.pairs(), 6.0);
    /// ```
    #[must_use]
    pub fn pairs(&self) -> f64 {
        (self.sampled * self.sampled.saturating_sub(1) / 2).max(1) as f64
    }

    /// `count` sample pairs as a number per document over a corpus of `n`
    /// documents.
    ///
    /// # Example
    ///
    /// ```
    /// let m = near_dup::pipeline::SampleMeasure { sampled: 4, candidates: 3, similar: 0, index_bytes_per_document: 0.0 };
    /// assert_eq!(m.per_document(m.candidates, 4), 1.5); // 3 of 6 pairs, 3 others each
    /// ```
    #[must_use]
    pub fn per_document(&self, count: u64, n: usize) -> f64 {
        count as f64 / self.pairs() * n.saturating_sub(1) as f64
    }
}

impl Explanation {
    /// The explanation of `config` at `threshold`, over `shingles`.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] for a threshold, signature size, banding or shingle length
    /// the pipeline refuses.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// assert!(Explanation::new(1.5, MinHashConfig::default(), Shingles::Words(3)).is_err());
    /// ```
    pub fn new(threshold: f64, config: MinHashConfig, shingles: Shingles) -> Result<Self, Error> {
        let params = config.lsh_params(threshold)?;
        let hasher = MinHasher::builder()
            .num_hashes(config.num_perm)
            .seed(config.seed)
            .build_with(shingles.extractor_with(false)?)?;
        Ok(Explanation {
            threshold,
            config,
            params,
            hasher,
        })
    }

    /// The LSH bands and rows.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Banding, Explanation, MinHashConfig, Shingles};
    /// let config = MinHashConfig { banding: Banding::Fixed { bands: 20, rows: 5 }, ..MinHashConfig::default() };
    /// let e = Explanation::new(0.8, config, Shingles::Words(3))?;
    /// assert_eq!((e.params().bands(), e.params().rows()), (20, 5));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// The MinHash setting explained.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
    /// assert_eq!(e.config().num_perm, 128);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn config(&self) -> &MinHashConfig {
        &self.config
    }

    /// The standard error of a MinHash estimate at the threshold,
    /// `sqrt(t (1 - t) / num_perm)`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
    /// assert!((e.standard_error() - (0.8f64 * 0.2 / 128.0).sqrt()).abs() < 1e-12);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn standard_error(&self) -> f64 {
        let t = self.threshold;
        (t * (1.0 - t) / self.config.num_perm as f64).sqrt()
    }

    /// The probability that a pair of similarity `s` becomes a candidate (the
    /// S-curve, `1 - (1 - s^rows)^bands`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
    /// assert_eq!(e.probability(1.0), 1.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn probability(&self, s: f64) -> f64 {
        self.params.probability(s)
    }

    /// The similarities the S-curve is shown at: 0.1 to 1.0 in steps of 0.1 and the
    /// threshold with 0.05 either side (inside `(0, 1)`), in order, each once.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// let e = Explanation::new(0.72, MinHashConfig::default(), Shingles::Words(3))?;
    /// let points = e.curve_points();
    /// assert_eq!(points.len(), 13);
    /// assert!(points.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn curve_points(&self) -> Vec<f64> {
        let t = self.threshold;
        let mut points: Vec<f64> = (1..=10).map(|i| f64::from(i) / 10.0).collect();
        points.extend(
            [t - 0.05, t, t + 0.05]
                .into_iter()
                .filter(|s| *s > 0.0 && *s < 1.0),
        );
        points.sort_by(f64::total_cmp);
        points.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
        points
    }

    /// The mean of the S-curve over `[lo, hi]` (Simpson's rule on 200 intervals):
    /// the expected recall of pairs spread evenly over the interval.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
    /// let mean = e.mean_probability(0.8, 1.0);
    /// assert!(mean > e.probability(0.8) && mean <= 1.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn mean_probability(&self, lo: f64, hi: f64) -> f64 {
        let params = &self.params;
        if hi <= lo {
            return params.probability(lo);
        }
        let n = 200;
        let h = (hi - lo) / f64::from(n);
        let mut sum = params.probability(lo) + params.probability(hi);
        for i in 1..n {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            sum += w * params.probability(lo + h * f64::from(i));
        }
        sum * h / 3.0 / (hi - lo)
    }

    /// Candidates and index bytes measured on `sample` documents of `texts`, evenly
    /// spaced (all of them when there are fewer): every pair of the sample is
    /// compared, so the work grows with `sample²`.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when the LSH index refuses a signature (it does not for the
    /// hasher's own).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
    /// let m = e.measure(&["a b c d", "e f g h"], 10)?;
    /// assert_eq!((m.sampled, m.candidates), (2, 0));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn measure<T: AsRef<str>>(
        &self,
        texts: &[T],
        sample: usize,
    ) -> Result<SampleMeasure, Error> {
        let n = texts.len();
        let take = sample.min(n);
        let signatures: Vec<MinHashSignature> = (0..take)
            .map(|i| self.hasher.sketch(texts[i * n / take].as_ref()))
            .collect();
        let sampled: Vec<&str> = (0..take).map(|i| texts[i * n / take].as_ref()).collect();
        // The main job's candidate stage (its sorted band join), every candidate
        // passed on (no floor, no bucket-scan bound), counted.
        let mut counted = ndd_core::PairCounter::default();
        let joined = crate::candidates::minhash::sorted_join(
            &self.hasher,
            &sampled,
            self.params,
            None,
            crate::candidates::minhash::Kept::Full(Vec::new()),
            crate::candidates::estimate::EstimateFilter::every_candidate(),
            &crate::NoProgress,
            &mut counted,
        )?;
        // The pairs of the sample whose estimate reaches the threshold, all compared.
        let mut similar = 0u64;
        for (i, sig) in signatures.iter().enumerate() {
            for other in &signatures[..i] {
                if other.similarity(sig).map(|v| v.value()).unwrap_or(0.0) >= self.threshold {
                    similar += 1;
                }
            }
        }
        Ok(SampleMeasure {
            sampled: take,
            candidates: joined.streamed.candidates,
            similar,
            index_bytes_per_document: joined.index_bytes_per_document,
        })
    }

    /// Bytes per document of the main job's LSH state (its band keys and sorted band
    /// join) over `count` random documents of 60 words drawn from a 5,000-word
    /// vocabulary (splitmix64 from a fixed seed): distinct documents that share words
    /// but hardly any 3-gram.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] when the LSH index refuses a signature (it does not for the
    /// hasher's own).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Explanation, MinHashConfig, Shingles};
    /// let e = Explanation::new(0.8, MinHashConfig::default(), Shingles::Words(3))?;
    /// assert!(e.index_bytes_on_random_documents(100)? > 0.0);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    pub fn index_bytes_on_random_documents(&self, count: usize) -> Result<f64, Error> {
        // What the main job's candidate stage holds, without running its queries: the
        // band keys (8 bytes per document and band), then the join built from them
        // (`ndd-lsh`'s flat bench counts the sorted band join the same way).
        let documents = synthetic_documents(count);
        let mut keys: Vec<u64> = Vec::with_capacity(documents.len() * self.params.bands());
        for text in &documents {
            let sig = self.hasher.sketch(text);
            self.params
                .band_keys_into(ndd_core::SlotSignature::slots(&sig), &mut keys)?;
        }
        let join = SortedBandJoin::build(
            self.params,
            &keys,
            crate::method::bounded_scan(self.config.max_bucket_scan),
        )?;
        let bytes = keys.capacity() * size_of::<u64>() + join.memory().index_bytes();
        Ok(bytes as f64 / documents.len().max(1) as f64)
    }
}

/// `count` documents of 60 words drawn from a 5,000-word vocabulary (splitmix64 from
/// a fixed seed).
fn synthetic_documents(count: usize) -> Vec<String> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..count)
        .map(|_| {
            (0..60)
                .map(|_| format!("w{}", next() % 5000))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figure from the band keys and the join alone is the one the main job's
    /// candidate stage reports after running every query (the way explain measured it
    /// before), with and without a bucket-scan bound.
    #[test]
    fn random_documents_bytes_are_the_candidate_stage_figure() {
        for (threshold, max_bucket_scan) in [(0.8, Some(256)), (0.5, None), (0.9, Some(2))] {
            let config = MinHashConfig {
                max_bucket_scan,
                ..MinHashConfig::default()
            };
            let e = Explanation::new(threshold, config, Shingles::Words(3)).unwrap();
            let documents = synthetic_documents(300);
            let texts: Vec<&str> = documents.iter().map(String::as_str).collect();
            let joined = crate::candidates::minhash::sorted_join(
                &e.hasher,
                &texts,
                e.params,
                crate::method::bounded_scan(e.config.max_bucket_scan),
                crate::candidates::minhash::Kept::Full(Vec::new()),
                crate::candidates::estimate::EstimateFilter::every_candidate(),
                &crate::NoProgress,
                &mut ndd_core::PairCounter::default(),
            )
            .unwrap();
            let figure = e.index_bytes_on_random_documents(300).unwrap();
            assert_eq!(figure, joined.index_bytes_per_document);
            // Positions alone are 4 bytes per document and band, keys 8.
            assert!(figure >= 12.0 * e.params().bands() as f64);
        }
    }
}

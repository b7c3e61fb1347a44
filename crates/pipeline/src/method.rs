//! Which features a document is cut into ([`Shingles`]) and the settings of each
//! method that turns them into candidate pairs ([`MinHashConfig`] and the others;
//! the choice among them is [`Method`](crate::Method)).

#[cfg(feature = "learn")]
use std::sync::Arc;

use ndd_core::{DynFeatureExtractor, Error};

use ndd_shingle::{CharShingler, WordShingler};

/// The features of a document: word k-grams for spaced scripts, character k-grams
/// for unspaced ones (Chinese, Japanese, Thai) or very short texts.
///
/// Case is folded; words are Unicode words (see `ndd_shingle::WordTokenizer`).
/// Every method but SigNCD and I-Match (which have features of their own) sketches
/// these, and the exact verifiers compare them.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Shingles;
/// assert_eq!(Shingles::default(), Shingles::Words(3));
/// assert!(Shingles::Words(0).validate().is_err());
/// assert_eq!(Shingles::Chars(4).to_string(), "character 4-grams");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shingles {
    /// Runs of `k` consecutive words. Smaller `k` is more tolerant of scattered
    /// edits; larger `k` more discriminating between documents that share phrases.
    Words(usize),
    /// Runs of `k` consecutive characters (white space collapsed).
    Chars(usize),
}

/// Largest shingle length the pipeline accepts: a k-gram of more words or
/// characters than this never occurs in real text, and the rolling hash costs O(k)
/// per document to set up.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Shingles, MAX_SHINGLE_LEN};
/// assert!(Shingles::Words(MAX_SHINGLE_LEN).validate().is_ok());
/// assert!(Shingles::Words(MAX_SHINGLE_LEN + 1).validate().is_err());
/// ```
pub const MAX_SHINGLE_LEN: usize = ndd_core::hash::MAX_KGRAM_LEN;

/// Word 3-grams ([`ndd_shingle::DEFAULT_WORD_K`], the library's default too): on
/// labeled sets generated from three real sources, with hard negatives, they beat
/// 5-grams for MinHash and SimHash in every cell (`docs/decisions.md`, "Defaults
/// measured on generated labeled sets").
impl Default for Shingles {
    fn default() -> Self {
        Shingles::Words(ndd_shingle::DEFAULT_WORD_K)
    }
}

impl std::fmt::Display for Shingles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shingles::Words(k) => write!(f, "word {k}-grams"),
            Shingles::Chars(k) => write!(f, "character {k}-grams"),
        }
    }
}

impl Shingles {
    /// `Ok` when `k` is in `1..=`[`MAX_SHINGLE_LEN`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `k`.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::Shingles::Chars(5000).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        let k = match *self {
            Shingles::Words(k) | Shingles::Chars(k) => k,
        };
        if k == 0 || k > MAX_SHINGLE_LEN {
            return Err(Error::invalid_parameter(
                "k",
                format!("shingle length must lie in 1..={MAX_SHINGLE_LEN}, got {k}"),
            ));
        }
        Ok(())
    }

    /// The extractor, chosen at run time.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::pipeline::Shingles::Words(2).extractor()?;
    /// let mut out: Vec<u64> = Vec::new();
    /// e.extract_dyn("a b c", &mut out);
    /// assert_eq!(out.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn extractor(&self) -> Result<Box<dyn DynFeatureExtractor + Send + Sync>, Error> {
        self.extractor_with(false)
    }

    /// The extractor, with tokens normalized to Unicode NFKC first when `nfkc` is on
    /// (full-width letters, ligatures and other compatibility forms then shingle like
    /// their plain forms; the extractor's scheme records the choice).
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::FeatureSink;
    /// let e = near_dup::pipeline::Shingles::Words(1).extractor_with(true)?;
    /// let (mut a, mut b): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    /// e.extract_dyn("ＡＢＣ", &mut a);
    /// e.extract_dyn("abc", &mut b);
    /// assert_eq!(a, b);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn extractor_with(
        &self,
        nfkc: bool,
    ) -> Result<Box<dyn DynFeatureExtractor + Send + Sync>, Error> {
        self.validate()?;
        Ok(match *self {
            Shingles::Words(k) => Box::new(word_shingler(k, nfkc)?),
            Shingles::Chars(k) => Box::new(CharShingler::new(k)?.with_nfkc(nfkc)),
        })
    }
}

/// Word k-grams, NFKC on or off (off: the same extractor as `WordShingler::new(k)`).
pub(crate) fn word_shingler(k: usize, nfkc: bool) -> Result<WordShingler, Error> {
    WordShingler::builder().k(k).nfkc(nfkc).build()
}

/// Evaluates `$body` with `$e` bound to the concrete extractor of `$shingles` (so the
/// per-shingle path is monomorphized; a closure cannot be generic over the extractor
/// type). The enclosing function returns `Result<_, ndd_core::Error>`.
macro_rules! for_extractor {
    ($features:expr, |$e:ident| $body:expr) => {{
        let features: $crate::Features = $features;
        features.validate()?;
        let nfkc = features.normalizes_nfkc();
        match features.shingles() {
            $crate::Shingles::Words(k) => {
                let $e = $crate::method::word_shingler(k, nfkc)?;
                $body
            }
            $crate::Shingles::Chars(k) => {
                let $e = ndd_shingle::CharShingler::new(k)?.with_nfkc(nfkc);
                $body
            }
        }
    }};
}
pub(crate) use for_extractor;

/// How a MinHash run chooses its LSH bands and rows.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Banding;
/// assert_eq!(Banding::default(), Banding::Recall(0.99));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Banding {
    /// The fewest candidates whose probability of proposing a pair of similarity
    /// exactly `T` is at least this recall (the default, 0.99 =
    /// [`ndd_lsh::DEFAULT_MIN_RECALL`], as `LshParams::for_threshold`): pairs just
    /// above the threshold are not lost, and verification removes the extra
    /// candidates.
    Recall(f64),
    /// False positives and false negatives weighed equally around `T` (the S-curve's
    /// midpoint lands slightly above `T`, so about a third of the pairs just above
    /// the threshold are missed; fewer candidates to verify):
    /// `LshParams::for_threshold_balanced`.
    Balanced,
    /// Exactly these bands and rows (`bands × rows` at most the number of hashes).
    Fixed {
        /// Number of bands `b`.
        bands: usize,
        /// Rows per band `r`.
        rows: usize,
    },
}

impl Default for Banding {
    fn default() -> Self {
        Banding::Recall(ndd_lsh::DEFAULT_MIN_RECALL)
    }
}

/// MinHash + banded LSH: memory per document, not per shingle; any threshold.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::MinHashConfig;
/// let c = MinHashConfig::default();
/// assert_eq!(c.num_perm, 128);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MinHashConfig {
    /// MinHash values per document (one-permutation hashing). More values give a
    /// tighter estimate: standard error `sqrt(J(1−J)/num_perm)`, 0.035 at J = 0.8
    /// with 128. Cost: 8 bytes per value per document while sketching, and time
    /// linear in the document plus, for documents with fewer shingles than values,
    /// one-permutation densification that grows up to about `num_perm²` (2.1 s per
    /// document at 2^16, about 8 ms at 4096, 0.1 ms at 512). At most
    /// [`MAX_NUM_PERM`] = 4096, so that cost stays bounded.
    pub num_perm: usize,
    /// The seed of the hash functions (signatures of different seeds do not compare).
    pub seed: u64,
    /// How bands and rows are chosen.
    pub banding: Banding,
    /// Most members of one LSH bucket each document's query reads, the newest first
    /// (`None`: no bound but the hard cap [`MAX_BUCKET_SCAN`], which also caps a
    /// larger number). Bounds the candidate pairs of a hot bucket (thousands of
    /// near-identical documents) to about `documents × bands × bound` instead of the
    /// square of the bucket; a bucket of mutual near-duplicates stays connected
    /// through each document's newest bucket-mates, so groups are kept and only some
    /// of their pairs are not reported. Default [`DEFAULT_MAX_BUCKET_SCAN`]. Not saved
    /// with a [`DedupIndex`](crate::DedupIndex): a later batch uses its own.
    /// `Some(0)` is refused (it would find nothing).
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method, MinHashConfig};
    /// let zero = MinHashConfig { max_bucket_scan: Some(0), ..MinHashConfig::default() };
    /// assert!(Dedup::new().method(Method::MinHash(zero)).validate().is_err());
    /// ```
    pub max_bucket_scan: Option<usize>,
    /// How shingles weigh: [`MinHashWeighting::Binary`] (set Jaccard, the default)
    /// or weights learned by `ndd train` (weighted Jaccard through ICWS).
    pub weighting: MinHashWeighting,
}

/// How MinHash weighs a feature.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{MinHashConfig, MinHashWeighting};
/// assert_eq!(MinHashConfig::default().weighting, MinHashWeighting::Binary);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MinHashWeighting {
    /// Every distinct shingle weighs 1: the signatures estimate the Jaccard
    /// similarity of the shingle sets (one-permutation MinHash).
    #[default]
    Binary,
    /// ANDD's LSH-Jaccard: k-gram weights learned from labeled clusters (`ndd
    /// train`, [`ndd_learn::Trainer`]), over the model's own k-grams (the pipeline's
    /// shingle setting is not used), with document frequencies from the corpus being
    /// deduplicated. Signatures are Ioffe's consistent weighted samples, which
    /// estimate the weighted Jaccard `Σ min(x, y) / Σ max(x, y)` of the learned
    /// vectors; the threshold applies to that similarity and the default verifier
    /// is the estimate ([`Verifier::MethodScore`](crate::Verifier::MethodScore)),
    /// since set Jaccard would ignore the weights. Models trained with
    /// [`Objective::Jaccard`](ndd_learn::Objective::Jaccard) fit this method best.
    /// Cost: about 70× the time of binary MinHash per document, since ICWS draws
    /// `num_perm` samples per distinct k-gram (4.5 MiB/s against 329 MiB/s at 128
    /// values, `docs/performance.md`). Not accepted by a [`DedupIndex`](crate::DedupIndex),
    /// whose byte form does not carry the model. Feature `learn`.
    ///
    /// # References
    ///
    /// - H. Hajishirzi, W. Yih and A. Kołcz, "Adaptive near-duplicate detection via
    ///   similarity learning", *SIGIR '10*, 2010, Section 3.2 (LSH-Jaccard).
    /// - Sergey Ioffe, *Improved Consistent Sampling, Weighted Minhash and L1
    ///   Sketching*, ICDM 2010.
    #[cfg(feature = "learn")]
    Learned(Arc<ndd_learn::WeightModel>),
}

impl MinHashWeighting {
    /// Whether the weights come from a learned model.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!near_dup::pipeline::MinHashWeighting::Binary.is_learned());
    /// ```
    #[must_use]
    pub fn is_learned(&self) -> bool {
        !matches!(self, MinHashWeighting::Binary)
    }
}

/// The default [`MinHashConfig::max_bucket_scan`]: 256 (measured in
/// `docs/decisions.md`: no bucket of the bench corpus reaches it at the default
/// threshold, so its output is unchanged).
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::MinHashConfig::default().max_bucket_scan, Some(near_dup::pipeline::DEFAULT_MAX_BUCKET_SCAN));
/// ```
pub const DEFAULT_MAX_BUCKET_SCAN: usize = 256;

/// The most members of one LSH bucket a query of any engine reads, whatever is asked:
/// [`MinHashConfig::max_bucket_scan`] of `None` (the tool's `--max-bucket-scan none`)
/// or above this reads 1,024. Without it, 20,000 near-identical lines made 2·10⁸
/// candidate pairs and aborted at 9 GB; at the cap `n` documents make at most about
/// `1,024·n` pairs. The plan resolves it once ([`Plan::bucket_scan`](crate::Plan::bucket_scan)),
/// so the out-of-core engine and the distributed job cap as the in-memory engines do.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{DedupIndex, Dedup, MAX_BUCKET_SCAN};
/// let mut index = DedupIndex::new(&Dedup::new())?;
/// index.set_max_bucket_scan(None);
/// assert_eq!(index.max_bucket_scan(), Some(MAX_BUCKET_SCAN));
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
pub const MAX_BUCKET_SCAN: usize = 1_024;

/// The bucket scan every engine applies for the asked bound (`None`: no bound but the
/// cap): capped at [`MAX_BUCKET_SCAN`]. The plan resolves its scan with it, and the
/// engines that take a bound after the plan (a saved index's setter, the stand-alone
/// candidate stage) with it too.
#[cfg_attr(not(feature = "minhash"), allow(dead_code))] // MinHash's stages call it
pub(crate) fn bounded_scan(asked: Option<usize>) -> Option<usize> {
    Some(asked.map_or(MAX_BUCKET_SCAN, |s| s.min(MAX_BUCKET_SCAN)))
}

/// The most pairs each document makes with the documents before it in the exact
/// Jaccard join and the SigNCD search: the default bucket scan, so a hot cluster of
/// near-identical documents costs them what it costs MinHash (see
/// [`MinHashConfig::max_bucket_scan`]; the group is kept, some of its pairs go
/// unreported).
pub(crate) const MAX_PARTNERS: usize = DEFAULT_MAX_BUCKET_SCAN;

/// Largest `num_perm` the pipeline accepts: the densification of a very short
/// document costs up to about `num_perm²`, a few milliseconds per document at 4096;
/// more values narrow the estimate's error as `1/sqrt(num_perm)` and buy little
/// beyond that (0.006 at 4096 against 0.035 at 128, for J = 0.8).
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Method, MinHashConfig, MAX_NUM_PERM};
/// let too_many = MinHashConfig { num_perm: MAX_NUM_PERM + 1, ..MinHashConfig::default() };
/// assert!(Dedup::new().method(Method::MinHash(too_many)).run_texts(&["a"]).is_err());
/// ```
pub const MAX_NUM_PERM: usize = 4096;

impl MinHashConfig {
    /// The bands and rows this configuration uses at `threshold`: what
    /// [`Dedup::run`](crate::Dedup::run) and [`DedupIndex`](crate::DedupIndex) build
    /// their LSH index with. Look at its
    /// [`probability`](ndd_lsh::LshParams::probability) (the S-curve) before a run to
    /// see which pairs can become candidates.
    ///
    /// # Errors
    ///
    /// [`ndd_core::Error::InvalidParameter`] when `threshold` is not in `(0, 1]`,
    /// `num_perm` is outside `1..=`[`MAX_NUM_PERM`], or the banding cannot be met
    /// with `num_perm` hashes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::MinHashConfig;
    /// let p = MinHashConfig::default().lsh_params(0.8)?;
    /// assert!(p.probability(0.8) >= 0.99); // the default recall banding
    /// assert!(p.bands() * p.rows() <= 128);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn lsh_params(&self, threshold: f64) -> Result<ndd_lsh::LshParams, Error> {
        let threshold = ndd_core::Threshold::new(threshold)?;
        check_num_perm(self.num_perm)?;
        self.banding_for(threshold)
    }

    /// [`lsh_params`](Self::lsh_params) without the checks of `threshold` and
    /// `num_perm` (done by the caller). Each call searches the S-curves of every
    /// `(bands, rows)` (about 3 ms for 128 values): a run resolves its banding once,
    /// when its plan is made ([`Plan::lsh_params`](crate::Plan::lsh_params)), and its
    /// stages take it from there.
    pub(crate) fn banding_for(
        &self,
        threshold: ndd_core::Threshold,
    ) -> Result<ndd_lsh::LshParams, Error> {
        use ndd_lsh::LshParams;
        // A threshold of 1 asks for identical signatures: the bands are tuned for 0.99.
        let t = threshold.banded();
        let params = match self.banding {
            Banding::Recall(r) => LshParams::min_candidates_for_recall(t, self.num_perm, r)?,
            Banding::Balanced => LshParams::for_threshold_balanced(t, self.num_perm)?,
            Banding::Fixed { bands, rows } => LshParams::new(bands, rows)?,
        };
        params.check_signature_len(self.num_perm)?;
        Ok(params)
    }
}

/// Checks `num_perm` against the pipeline's bound.
pub(crate) fn check_num_perm(num_perm: usize) -> Result<(), Error> {
    if num_perm == 0 || num_perm > MAX_NUM_PERM {
        return Err(Error::invalid_parameter(
            "num_perm",
            format!("must lie in 1..={MAX_NUM_PERM}, got {num_perm}"),
        ));
    }
    Ok(())
}

impl Default for MinHashConfig {
    fn default() -> Self {
        MinHashConfig {
            num_perm: 128,
            seed: 0,
            banding: Banding::default(),
            max_bucket_scan: Some(DEFAULT_MAX_BUCKET_SCAN),
            weighting: MinHashWeighting::Binary,
        }
    }
}

/// How SimHash weighs a feature.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::pipeline::SimWeighting::default(), near_dup::pipeline::SimWeighting::Binary);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SimWeighting {
    /// Every distinct feature weighs 1.
    #[default]
    Binary,
    /// Features weigh their count in the document (repeated boilerplate then
    /// dominates the fingerprint).
    TermFrequency,
    /// Count times IDF from the corpus's own document frequencies.
    TfIdf,
    /// Weights learned from labeled clusters (ANDD: `ndd train`, `ndd_learn`),
    /// over the model's own k-grams (the pipeline's shingle setting is not used),
    /// with document frequencies from the corpus being deduplicated. Feature
    /// `learn`.
    #[cfg(feature = "learn")]
    Learned(Arc<ndd_learn::WeightModel>),
}

/// SimHash fingerprints: very near copies at web scale, 8 bytes per document at 64
/// bits.
///
/// How pairs are searched is the library's decision, by length. 64-bit fingerprints
/// go to permuted sorted tables (Manku, Jain and Das Sarma, *Detecting
/// Near-Duplicates for Web Crawling*, WWW 2007, section 3): exact (every pair within
/// the bound, nothing else), with `C(blocks, h)` tables whose count `ndd_lsh`'s cost
/// model picks for the collection size; the layout needs the fingerprint in one
/// 64-bit word. Every other length goes through bit-sampling banded LSH: bands of
/// sampled bit positions chosen for 99% recall at the bound's bit agreement `1 −
/// h/bits`, from at most `2 × bits` positions, one band key per band per document,
/// then the exact Hamming distance removes every false positive. Tables would need a
/// number of blocks growing with the bound (3 per 64 bits by default means 48 bits
/// at 1024), which the permuted layout does not scale to.
///
/// # Example
///
/// ```
/// let c = near_dup::pipeline::SimHashConfig::default();
/// assert_eq!((c.bits, c.max_hamming()), (64, 3));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SimHashConfig {
    /// Signature length in bits (64 … 4096). 64 bits are searched exactly with
    /// permuted sorted tables; other lengths with bit-sampling LSH tuned for 99%
    /// recall at the bound, then the exact Hamming distance.
    pub bits: usize,
    /// Most differing bits for a pair (`None`: 3 per 64 bits, the web-crawl setting
    /// of Manku et al.). A pair `h` bits apart scores `1 − h/bits`.
    pub hamming: Option<usize>,
    /// How features are weighted.
    pub weighting: SimWeighting,
}

impl Default for SimHashConfig {
    fn default() -> Self {
        SimHashConfig {
            bits: 64,
            hamming: None,
            weighting: SimWeighting::default(),
        }
    }
}

impl SimHashConfig {
    /// The Hamming bound in force.
    ///
    /// # Example
    ///
    /// ```
    /// let c = near_dup::pipeline::SimHashConfig { bits: 256, ..Default::default() };
    /// assert_eq!(c.max_hamming(), 12);
    /// ```
    #[must_use]
    pub fn max_hamming(&self) -> usize {
        self.hamming.unwrap_or(3 * self.bits / 64)
    }
}

/// I-Match: one SHA-1 per lexicon per document; documents sharing one are pairs.
///
/// A lexicon built from the input needs collection statistics: when the input is too
/// small or uniform for any term to fall in the nidf window, no document is signed
/// and the method finds no pair (the report says why) rather than failing.
///
/// # Example
///
/// ```
/// let c = near_dup::pipeline::IMatchConfig::default();
/// assert_eq!(c.extra_lexicons, 5);
/// ```
#[cfg(feature = "imatch")]
#[derive(Debug, Clone, PartialEq)]
pub struct IMatchConfig {
    /// Randomized extra lexicons `K` (0 is classic I-Match; at most 30). Each adds
    /// one SHA-1 per document and recall against small edits.
    pub extra_lexicons: usize,
    /// A lexicon built from another corpus; `None` builds one from the input.
    pub lexicon: Option<ndd_imatch::Lexicon>,
    /// Normalized-IDF window of a lexicon built from the input (0.2, 0.8 for web
    /// text; 0.2, 0.3 did better on email in the paper).
    pub nidf: (f64, f64),
    /// Required fraction of a document's terms in the lexicon (`None`: the
    /// signer's default).
    pub min_coverage: Option<f64>,
}

#[cfg(feature = "imatch")]
impl Default for IMatchConfig {
    fn default() -> Self {
        IMatchConfig {
            extra_lexicons: 5,
            lexicon: None,
            nidf: (0.2, 0.8),
            min_coverage: None,
        }
    }
}

/// SigNCD: compression distance of punctuation-spot signatures, searched exactly.
///
/// # Example
///
/// ```
/// let c = near_dup::pipeline::SigNcdConfig::default();
/// assert_eq!(c.compressor, "snappy".parse()?);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[cfg(feature = "ncd")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SigNcdConfig {
    /// The compressor.
    pub compressor: ndd_ncd::CompressorKind,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A banding the signature cannot hold is refused, every time it is asked.
    #[test]
    fn a_banding_longer_than_the_signature_is_refused() -> Result<(), Error> {
        let too_long = MinHashConfig {
            num_perm: 16,
            banding: Banding::Fixed { bands: 8, rows: 4 },
            ..MinHashConfig::default()
        };
        let t = ndd_core::Threshold::new(0.8)?;
        assert!(too_long.banding_for(t).is_err());
        assert!(too_long.banding_for(t).is_err());
        Ok(())
    }
}

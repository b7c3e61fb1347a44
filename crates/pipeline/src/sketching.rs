//! What the engines that keep MinHash signatures instead of texts share
//! ([`DedupIndex`](crate::DedupIndex), [`BloomDedup`](crate::BloomDedup)): the plan's
//! MinHash settings, features and threshold, the hasher built from them once, and the
//! head of their byte forms.

#[cfg(not(feature = "rayon"))]
use ndd_core::DocSketcher;
#[cfg(feature = "rayon")]
use ndd_core::ParDocSketcher;
use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{DynFeatureExtractor, Error as CoreError, Threshold};
use ndd_minhash::{MinHashSignature, MinHasher};

use crate::{
    Banding, Dedup, Emit, Error, Features, Method, MinHashConfig, Plan, Shingles, Verifier,
};

/// The MinHash hasher of a run's features.
pub(crate) type Hasher = MinHasher<Box<dyn DynFeatureExtractor + Send + Sync>>;

/// A plan's MinHash sketching, for the engines that keep signatures.
#[derive(Debug)]
pub(crate) struct Sketching {
    pub(crate) config: MinHashConfig,
    pub(crate) features: Features,
    pub(crate) threshold: Threshold,
    pub(crate) hasher: Hasher,
}

impl Sketching {
    /// The sketching of `plan`, which `engine` (named in errors) runs with the MinHash
    /// estimate as its only verifier ("it keeps no texts"): a plan without a verifier
    /// set is verified by the estimate.
    pub(crate) fn for_plan(plan: Plan, engine: &'static str) -> Result<(Self, Plan), Error> {
        let plan = plan.estimate_unless_set();
        let config = plan
            .minhash_engine(engine, &["method"], "it keeps no texts")?
            .clone();
        Self::with_config(config, plan)
    }

    /// The sketching of `plan` for an engine that keeps every document's shingle set
    /// besides its signature, so that it verifies as the plan says: by the estimate,
    /// exact Jaccard (MinHash's default) or containment. Alignment and a user's
    /// measure need texts, which it does not keep: refused.
    pub(crate) fn for_plan_with_sets(
        plan: Plan,
        engine: &'static str,
    ) -> Result<(Self, Plan), Error> {
        let config = plan
            .minhash_engine(
                engine,
                &["method", "jaccard", "containment"],
                "it keeps shingle sets, not texts",
            )?
            .clone();
        Self::with_config(config, plan)
    }

    fn with_config(config: MinHashConfig, plan: Plan) -> Result<(Self, Plan), Error> {
        let hasher = hasher(&config, plan.features)?;
        let sketching = Sketching {
            config,
            features: plan.features,
            threshold: plan.threshold,
            hasher,
        };
        Ok((sketching, plan))
    }

    /// The filter the candidate stream applies for `emit`, as the in-memory MinHash
    /// candidate stage sets it: the estimate reaching the threshold when it verifies,
    /// the plausible fields for exact Jaccard, none when every candidate goes on.
    pub(crate) fn filter(&self, emit: Emit) -> crate::EstimateFilter {
        crate::EstimateFilter::new(emit, self.threshold, self.config.num_perm)
    }

    /// The signatures of `texts`, in parallel under `rayon`.
    pub(crate) fn sketch_batch(&self, texts: &[&str]) -> Vec<MinHashSignature> {
        #[cfg(feature = "rayon")]
        {
            self.hasher.par_sketch_batch(texts)
        }
        #[cfg(not(feature = "rayon"))]
        {
            self.hasher.sketch_batch(texts)
        }
    }

    /// The settings as a [`Dedup`] verified by the estimate, with `banding`.
    pub(crate) fn settings(&self, banding: Banding) -> Dedup {
        let config = MinHashConfig {
            banding,
            ..self.config.clone()
        };
        Dedup::new()
            .method(Method::MinHash(config))
            .threshold(self.threshold.get())
            .features(self.features)
            .verifier(Verifier::MethodScore)
    }

    /// Writes the head of a byte form: MinHash values and seed, the shingles and the
    /// threshold. NFKC follows, written by [`write_nfkc`](Self::write_nfkc) (a saved
    /// index writes its exact-pass setting between the two).
    pub(crate) fn write_head(&self, w: &mut ByteWriter) {
        w.u64(self.config.num_perm as u64);
        w.u64(self.config.seed);
        let (kind, k) = match self.features.shingles() {
            Shingles::Words(k) => (0, k),
            Shingles::Chars(k) => (1, k),
        };
        w.u8(kind);
        w.u64(k as u64);
        w.f64(self.threshold.get());
    }

    /// Writes the NFKC flag that ends the settings.
    pub(crate) fn write_nfkc(&self, w: &mut ByteWriter) {
        w.u8(u8::from(self.features.normalizes_nfkc()));
    }
}

/// The settings read back by [`Head::read`], before the engine's own fields.
pub(crate) struct Head {
    num_perm: usize,
    seed: u64,
    shingles: Shingles,
    threshold: f64,
}

impl Head {
    /// Reads what [`Sketching::write_head`] wrote.
    pub(crate) fn read(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        let num_perm = usize::try_from(r.u64()?).map_err(|_| corrupt("num_perm"))?;
        let seed = r.u64()?;
        let kind = r.u8()?;
        let k = usize::try_from(r.u64()?).map_err(|_| corrupt("shingle length"))?;
        let shingles = match kind {
            0 => Shingles::Words(k),
            1 => Shingles::Chars(k),
            _ => return Err(corrupt("unknown shingle kind")),
        };
        let threshold = r.f64()?;
        Ok(Head {
            num_perm,
            seed,
            shingles,
            threshold,
        })
    }

    /// The sketching of these settings with `nfkc` read already.
    pub(crate) fn into_sketching(
        self,
        nfkc: bool,
        bands: usize,
        rows: usize,
    ) -> Result<Sketching, Error> {
        let threshold = Threshold::new(self.threshold).map_err(|_| corrupt("threshold"))?;
        let features = Features::new(self.shingles).nfkc(nfkc);
        // The bucket bound is a setting of the process, not saved: the default.
        let config = MinHashConfig {
            num_perm: self.num_perm,
            seed: self.seed,
            banding: Banding::Fixed { bands, rows },
            ..MinHashConfig::default()
        };
        let hasher = hasher(&config, features).map_err(|e| corrupt(&e.to_string()))?;
        Ok(Sketching {
            config,
            features,
            threshold,
            hasher,
        })
    }
}

/// Reads an NFKC flag.
pub(crate) fn read_nfkc(r: &mut ByteReader<'_>) -> Result<bool, Error> {
    match r.u8()? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(corrupt("unknown NFKC setting")),
    }
}

/// A corrupt-data error naming `what`.
pub(crate) fn corrupt(what: &str) -> Error {
    Error::from(CoreError::corrupt_data(what.to_owned()))
}

fn hasher(config: &MinHashConfig, features: Features) -> Result<Hasher, CoreError> {
    crate::method::check_num_perm(config.num_perm)?;
    MinHasher::builder()
        .num_hashes(config.num_perm)
        .seed(config.seed)
        .build_with(features.extractor()?)
}

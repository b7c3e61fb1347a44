//! [`Plan`]: a run described once and checked once, which every engine takes; and
//! [`Features`], the shingles and their normalization as one value.

use ndd_core::{DynFeatureExtractor, Error as CoreError, Threshold};

#[cfg(feature = "minhash")]
use crate::Error;
use crate::candidates::Emit;
use crate::{ExactPass, GroupMethod, Method, Representative, Shingles, Verifier};

/// What every document of a run is cut into and compared by: its [`Shingles`] and
/// whether tokens are normalized to Unicode NFKC first. One value, so that the exact
/// pass, sketching and verification of one run cannot disagree about it.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Features, Shingles};
/// let f = Features::new(Shingles::Words(2)).nfkc(true);
/// assert_eq!((f.shingles(), f.normalizes_nfkc()), (Shingles::Words(2), true));
/// assert_eq!(Features::default(), Features::new(Shingles::Words(3)));
/// let mut out: Vec<u64> = Vec::new();
/// f.extractor()?.extract_dyn("ｏｎｅ two three", &mut out);
/// assert_eq!(out.len(), 2);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features {
    shingles: Shingles,
    nfkc: bool,
}

impl Features {
    /// `shingles` cut from tokens as they are (no NFKC).
    ///
    /// # Example
    ///
    /// ```
    /// let f = near_dup::pipeline::Features::new(near_dup::pipeline::Shingles::Chars(5));
    /// assert!(!f.normalizes_nfkc());
    /// ```
    #[must_use]
    pub const fn new(shingles: Shingles) -> Self {
        Features {
            shingles,
            nfkc: false,
        }
    }

    /// Whether tokens are normalized to Unicode NFKC first.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::Features::default().nfkc(true).normalizes_nfkc());
    /// ```
    #[must_use]
    pub const fn nfkc(mut self, on: bool) -> Self {
        self.nfkc = on;
        self
    }

    /// The same features with other shingles.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Features, Shingles};
    /// let f = Features::default().nfkc(true).with_shingles(Shingles::Words(1));
    /// assert_eq!(f, Features::new(Shingles::Words(1)).nfkc(true));
    /// ```
    #[must_use]
    pub const fn with_shingles(mut self, shingles: Shingles) -> Self {
        self.shingles = shingles;
        self
    }

    /// The shingles.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Features, Shingles};
    /// assert_eq!(Features::default().shingles(), Shingles::Words(3));
    /// ```
    #[must_use]
    pub const fn shingles(&self) -> Shingles {
        self.shingles
    }

    /// Whether NFKC is on.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!near_dup::pipeline::Features::default().normalizes_nfkc());
    /// ```
    #[must_use]
    pub const fn normalizes_nfkc(&self) -> bool {
        self.nfkc
    }

    /// `Ok` when the shingle length is valid ([`Shingles::validate`]).
    ///
    /// # Errors
    ///
    /// As [`Shingles::validate`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Features, Shingles};
    /// assert!(Features::new(Shingles::Words(0)).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), CoreError> {
        self.shingles.validate()
    }

    /// The extractor of these features, chosen at run time.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::pipeline::Features::default().extractor()?;
    /// let mut out: Vec<u64> = Vec::new();
    /// e.extract_dyn("one two three four", &mut out);
    /// assert_eq!(out.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn extractor(&self) -> Result<Box<dyn DynFeatureExtractor + Send + Sync>, CoreError> {
        self.shingles.extractor_with(self.nfkc)
    }
}

impl From<Shingles> for Features {
    fn from(shingles: Shingles) -> Self {
        Features::new(shingles)
    }
}

/// A run described once: features, threshold, method, verifier, exact pass, grouping
/// and representative, every parameter checked. Built by
/// [`Dedup::plan`](crate::Dedup::plan); every engine runs from one (in memory
/// [`Dedup`](crate::Dedup), the saved [`DedupIndex`](crate::DedupIndex), the
/// [`BloomDedup`](crate::BloomDedup) stream, [`OutOfCore`](crate::OutOfCore) files),
/// so none of them checks again what the plan guarantees, and none can read a setting
/// differently from another.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::{Dedup, Verifier};
/// let plan = Dedup::new().threshold(0.9).plan()?;
/// assert_eq!(plan.threshold().get(), 0.9);
/// assert_eq!(plan.verifier().name(), "jaccard"); // MinHash's default verifier, resolved
/// assert!(Dedup::new().threshold(0.0).plan().is_err());
/// # Ok::<(), near_dup::pipeline::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Plan {
    pub(crate) features: Features,
    pub(crate) threshold: Threshold,
    /// The banding at the threshold of a banded source (MinHash, or a source whose
    /// `CandidateSource::validate_banding` gives one), searched once when the plan is
    /// made (`None` for the other methods).
    pub(crate) banding: Option<ndd_lsh::LshParams>,
    pub(crate) method: Method,
    pub(crate) verifier: Verifier,
    /// Whether the verifier was set, not the method's default.
    #[cfg_attr(not(feature = "minhash"), allow(dead_code))]
    pub(crate) verifier_set: bool,
    pub(crate) exact: Option<ExactPass>,
    pub(crate) group: GroupMethod,
    pub(crate) representative: Representative,
}

impl Plan {
    /// The features every stage cuts documents into.
    ///
    /// # Example
    ///
    /// ```
    /// let plan = near_dup::pipeline::Dedup::new().nfkc(true).plan()?;
    /// assert!(plan.features().normalizes_nfkc());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn features(&self) -> Features {
        self.features
    }

    /// The threshold, checked.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Dedup::new().plan()?.threshold().get(), 0.8);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn threshold(&self) -> Threshold {
        self.threshold
    }

    /// The method that proposes candidates.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Dedup::new().plan()?.method().name(), "minhash");
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The bands and rows of the MinHash method at the plan's threshold
    /// ([`MinHashConfig::lsh_params`](crate::MinHashConfig::lsh_params)), resolved once
    /// when the plan is made: every engine's MinHash stage takes its banding from here.
    /// A custom source that bands (`CandidateSource::validate_banding`) has its banding
    /// here too; `None` for the other methods.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method, MinHashConfig};
    /// let plan = Dedup::new().threshold(0.8).plan()?;
    /// assert_eq!(plan.lsh_params(), Some(MinHashConfig::default().lsh_params(0.8)?));
    /// assert_eq!(Dedup::new().method(Method::ExactJaccard).plan()?.lsh_params(), None);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn lsh_params(&self) -> Option<ndd_lsh::LshParams> {
        self.banding
    }

    /// [`lsh_params`](Self::lsh_params) for an engine that runs MinHash only (its
    /// plan checked by [`minhash_engine`](Self::minhash_engine)); an error for a plan
    /// of another method.
    #[cfg(feature = "minhash")]
    pub(crate) fn minhash_banding(&self) -> Result<ndd_lsh::LshParams, Error> {
        self.banding.ok_or_else(|| {
            Error::Core(CoreError::invalid_parameter(
                "dedup",
                format!("the {} method has no LSH banding", self.method.name()),
            ))
        })
    }

    /// The verifier in force (the one set, or the method's default).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method};
    /// assert_eq!(Dedup::new().method(Method::ExactJaccard).plan()?.verifier().name(), "method");
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// The exact pass, if on, with the plan's normalization.
    ///
    /// # Example
    ///
    /// ```
    /// let plan = near_dup::pipeline::Dedup::new().nfkc(true).plan()?;
    /// assert!(plan.exact_pass().is_some_and(|p| p.normalizes_nfkc()));
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn exact_pass(&self) -> Option<ExactPass> {
        self.exact
    }

    /// The most members of one MinHash bucket each document reads, the newest first, as
    /// every engine applies it (in memory, the saved index, out of core, the
    /// distributed job): [`MinHashConfig::max_bucket_scan`](crate::MinHashConfig::max_bucket_scan)
    /// capped at [`MAX_BUCKET_SCAN`](crate::MAX_BUCKET_SCAN), `None` asked included,
    /// resolved once when the plan is made (the plan's MinHash configuration carries
    /// it). `None` for the other methods.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method, MinHashConfig, MAX_BUCKET_SCAN};
    /// assert_eq!(Dedup::new().plan()?.bucket_scan(), Some(256));
    /// let none = MinHashConfig { max_bucket_scan: None, ..MinHashConfig::default() };
    /// let plan = Dedup::new().method(Method::MinHash(none)).plan()?;
    /// assert_eq!(plan.bucket_scan(), Some(MAX_BUCKET_SCAN));
    /// assert_eq!(Dedup::new().method(Method::ExactJaccard).plan()?.bucket_scan(), None);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn bucket_scan(&self) -> Option<usize> {
        match &self.method {
            #[cfg(feature = "minhash")]
            Method::MinHash(config) => config.max_bucket_scan,
            _ => None,
        }
    }

    /// `method` with its bucket scan resolved as every engine applies it (see
    /// [`bucket_scan`](Self::bucket_scan)): what [`Dedup::plan`](crate::Dedup::plan)
    /// puts in the plan.
    pub(crate) fn resolve_bucket_scan(method: Method) -> Method {
        match method {
            #[cfg(feature = "minhash")]
            Method::MinHash(mut config) => {
                config.max_bucket_scan = crate::method::bounded_scan(config.max_bucket_scan);
                Method::MinHash(config)
            }
            other => other,
        }
    }

    /// How pairs become groups.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Dedup::new().plan()?.group().name(), "components");
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn group(&self) -> &GroupMethod {
        &self.group
    }

    /// Which document of a group is kept.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::Representative;
    /// assert_eq!(*near_dup::pipeline::Dedup::new().plan()?.representative(), Representative::FirstSeen);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn representative(&self) -> &Representative {
        &self.representative
    }

    /// The plan verified by the method's score when no verifier was set: what the
    /// engines that keep signatures but no texts run by default.
    #[cfg(feature = "minhash")]
    pub(crate) fn estimate_unless_set(mut self) -> Self {
        if !self.verifier_set {
            self.verifier = Verifier::MethodScore;
        }
        self
    }

    /// Which candidates the candidate stage passes on, for this plan's verifier and
    /// grouping: every candidate when DURIAN's distance or a measure the method's
    /// estimate does not bound decides; those whose estimate may reach the threshold
    /// for exact Jaccard; the method's own decisions when its score verifies.
    pub(crate) fn emit(&self) -> Emit {
        emit_for(&self.group, &self.verifier)
    }

    /// The lowest MinHash estimate (of `num_perm` values) a candidate pair may show to
    /// go on to verification, as the in-memory MinHash candidate stage sets it for
    /// this plan: the threshold when the estimate verifies, the plausible floor (the
    /// threshold less [`PLAUSIBLE_SIGMAS`](crate::PLAUSIBLE_SIGMAS) standard errors)
    /// for exact Jaccard, minus infinity when a measure the estimate does not bound
    /// decides. Every engine that verifies MinHash candidates filters with it.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Verifier};
    /// let exact = Dedup::new().threshold(0.8).plan()?;
    /// let floor = exact.estimate_floor(128);
    /// assert!(floor < 0.8 && floor > 0.6, "{floor}");
    /// let estimate = Dedup::new().threshold(0.8).verifier(Verifier::MethodScore).plan()?;
    /// assert_eq!(estimate.estimate_floor(128), 0.8);
    /// let containment = Dedup::new().verifier(Verifier::Containment).plan()?;
    /// assert_eq!(containment.estimate_floor(128), f64::NEG_INFINITY);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[cfg(feature = "minhash")]
    #[must_use]
    pub fn estimate_floor(&self, num_perm: usize) -> f64 {
        self.estimate_filter(num_perm).floor()
    }

    /// The test a MinHash candidate pair (of `num_perm` values) passes before
    /// verification in every engine of this plan: its score (the estimate, or for
    /// exact Jaccard the fraction of equal 8-bit fields) reaching
    /// [`estimate_floor`](Self::estimate_floor). See [`EstimateFilter`](crate::EstimateFilter).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, PLAUSIBLE_FIELD_BITS, Verifier};
    /// let exact = Dedup::new().threshold(0.8).plan()?.estimate_filter(128);
    /// assert_eq!(exact.field_bits(), Some(PLAUSIBLE_FIELD_BITS));
    /// let estimate = Dedup::new().verifier(Verifier::MethodScore).plan()?.estimate_filter(128);
    /// assert_eq!(estimate.field_bits(), None);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[cfg(feature = "minhash")]
    #[must_use]
    pub fn estimate_filter(&self, num_perm: usize) -> crate::EstimateFilter {
        crate::EstimateFilter::new(self.emit(), self.threshold, num_perm)
    }

    /// The MinHash configuration of a plan that an engine supporting only part of the
    /// pipeline can run: the MinHash method with binary weights, a verifier among
    /// `verifiers` (`why` says why not others), components keeping the first-seen
    /// document. `engine` names the engine in errors ("an incremental index"). An
    /// engine outside this crate (a distributed job) checks its plan with it too.
    ///
    /// # Errors
    ///
    /// [`ndd_core::Error::InvalidParameter`] (wrapped) naming `engine` when the plan
    /// asks for what it does not run.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, Method};
    /// let plan = Dedup::new().plan()?;
    /// let config = plan.minhash_engine("my engine", &["method", "jaccard"], "why")?;
    /// assert_eq!(config.num_perm, 128);
    /// let other = Dedup::new().method(Method::ExactJaccard).plan()?;
    /// assert!(other.minhash_engine("my engine", &["jaccard"], "why").is_err());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[cfg(feature = "minhash")]
    pub fn minhash_engine(
        &self,
        engine: &'static str,
        verifiers: &[&str],
        why: &str,
    ) -> Result<&crate::MinHashConfig, Error> {
        let unsupported = |m: String| Error::Core(CoreError::invalid_parameter("dedup", m));
        let Method::MinHash(config) = &self.method else {
            return Err(unsupported(format!(
                "{engine} supports the minhash method, not {}",
                self.method.name()
            )));
        };
        if config.weighting.is_learned() {
            return Err(unsupported(format!(
                "{engine} takes binary MinHash weights only (it does not carry a learned model)"
            )));
        }
        self.engine_runs(engine, verifiers, why)?;
        Ok(config)
    }

    /// `Ok` when an engine that verifies by `verifiers` only, groups by components and
    /// keeps the first-seen document runs this plan's verifier, grouping and
    /// representative (the checks of [`minhash_engine`](Self::minhash_engine) beyond
    /// the method).
    #[cfg(feature = "minhash")]
    pub(crate) fn engine_runs(
        &self,
        engine: &'static str,
        verifiers: &[&str],
        why: &str,
    ) -> Result<(), Error> {
        let unsupported = |m: String| Error::Core(CoreError::invalid_parameter("dedup", m));
        let verifier = self.verifier.name();
        if !verifiers.contains(&verifier) {
            return Err(unsupported(format!(
                "{engine} verifies by {} only ({why}), not {verifier}",
                verifiers.join(", ")
            )));
        }
        if self.representative != Representative::FirstSeen {
            return Err(unsupported(format!(
                "{engine} keeps the first-seen document of each group"
            )));
        }
        if !matches!(self.group, GroupMethod::Components) {
            return Err(unsupported(format!(
                "{engine} groups by connected components"
            )));
        }
        Ok(())
    }
}

/// Which candidates the candidate stage passes on for `verifier` and `group` (see
/// [`Plan::emit`]): what an engine whose grouping and verifier are fixed (the saved
/// index) asks without building a plan.
pub(crate) fn emit_for(group: &GroupMethod, verifier: &Verifier) -> Emit {
    if matches!(group, GroupMethod::Durian(_)) {
        // DURIAN's distance decides among every candidate.
        return Emit::AllCandidates;
    }
    match verifier {
        Verifier::MethodScore => Emit::Accepted,
        // The estimate bounds Jaccard, not containment or a user's measure.
        Verifier::ExactJaccard => Emit::Plausible,
        // Containment, word order and a user's measure are not bounded by it.
        Verifier::Containment
        | Verifier::Align(_)
        | Verifier::AlignWeighted
        | Verifier::Custom(_) => Emit::AllCandidates,
    }
}

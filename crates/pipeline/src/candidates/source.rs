//! [`CandidateSource`]: what a method is to the pipeline, so that a crate outside it
//! can add one ([`Method::Custom`](crate::Method::Custom)).

use ndd_core::{PairSink, Threshold};

use super::{CandidateReport, Emit, SourceContext};
use crate::progress::Progress;
use crate::{Error, Features};

/// A candidate source: the stage that proposes pairs of similar documents. The five
/// methods of the pipeline implement it (MinHash, SimHash, I-Match, SigNCD, the exact
/// Jaccard join), and any type of another crate can, through
/// [`Method::custom`](crate::Method::custom): the pipeline then runs it like the others
/// (exact pass before it, verification and grouping after it), in every engine that
/// takes any method.
///
/// Pairs go to the sink as [`ScoredPair`](ndd_core::ScoredPair)s of indices into the
/// texts given, `a < b`, each at most once, scored by the source's own measure (higher
/// is more similar; `NaN` when it has none), in an order that depends only on the
/// input. [`SourceContext::emit`] says which pairs the verifier after it needs.
///
/// # Example
///
/// A source that proposes every pair of documents sharing their first word (an
/// exact verifier then decides):
///
/// ```
/// use near_dup::pipeline::{
///     CandidateReport, CandidateSource, Dedup, Error, Method, PairSink, ScoredPair,
///     SourceContext, Verifier,
/// };
/// #[derive(Debug)]
/// struct SameFirstWord;
/// impl CandidateSource for SameFirstWord {
///     fn name(&self) -> &str {
///         "first-word"
///     }
///     fn run(&self, texts: &[&str], _ctx: &SourceContext<'_>, sink: &mut dyn PairSink)
///         -> Result<CandidateReport, Error>
///     {
///         let first = |t: &str| t.split_whitespace().next().map(str::to_lowercase);
///         let mut candidates = 0;
///         for b in 0..texts.len() {
///             for a in 0..b {
///                 if first(texts[a]).is_some() && first(texts[a]) == first(texts[b]) {
///                     sink.push_pair(ScoredPair::new(a, b, f64::NAN));
///                     candidates += 1;
///                 }
///             }
///         }
///         Ok(CandidateReport { description: "same first word".into(), candidates, ..Default::default() })
///     }
/// }
/// let out = Dedup::new()
///     .method(Method::custom(SameFirstWord))
///     .verifier(Verifier::ExactJaccard)
///     .run_texts(&["Permission is hereby granted, free of charge, to any person",
///                  "permission is hereby granted, free of charge, to any person obtaining",
///                  "Permission to use, copy and modify this software is granted"])?;
/// assert_eq!(out.groups.len(), 1);
/// assert_eq!(out.groups[0].members, vec![0, 1]);
/// assert_eq!(out.report.candidates, 3);
/// # Ok::<(), Error>(())
/// ```
pub trait CandidateSource: Send + Sync + std::fmt::Debug {
    /// The method's name, as reports and errors show it (`minhash`, `simhash`, ...).
    fn name(&self) -> &str;

    /// Checks the source's parameters for `features` and `threshold`, once, when a
    /// plan is built ([`Dedup::plan`](crate::Dedup::plan)); nothing by default.
    ///
    /// # Errors
    ///
    /// [`Error::Core`] (an invalid parameter) for settings the source cannot run.
    fn validate(&self, features: Features, threshold: Threshold) -> Result<(), Error> {
        let _ = (features, threshold);
        Ok(())
    }

    /// [`validate`](Self::validate), returning the LSH banding (bands × rows) the check
    /// resolved for a banded source (MinHash: the S-curve search at the threshold);
    /// `None` by default. The plan keeps it ([`Plan::lsh_params`](crate::Plan::lsh_params))
    /// and hands it to [`run`](Self::run) ([`SourceContext::lsh_params`]), so that a
    /// run searches it once. A banded source implements both, its `validate` through
    /// this.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateSource, Dedup, Features, Method, MinHashConfig, Threshold};
    /// let config = MinHashConfig::default();
    /// let banding = config.validate_banding(Features::default(), Threshold::new(0.8)?)?;
    /// assert_eq!(banding, Some(config.lsh_params(0.8)?));
    /// // The plan keeps it, whether MinHash is the method or a custom source.
    /// let plan = Dedup::new().method(Method::custom(config.clone())).threshold(0.8).plan()?;
    /// assert_eq!(plan.lsh_params(), banding);
    /// assert_eq!(Method::ExactJaccard.source().validate_banding(Features::default(), Threshold::new(0.8)?)?, None);
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    fn validate_banding(
        &self,
        features: Features,
        threshold: Threshold,
    ) -> Result<Option<ndd_lsh::LshParams>, Error> {
        self.validate(features, threshold).map(|()| None)
    }

    /// Whether the source scores pairs by the similarity threshold (SimHash decides
    /// by a Hamming bound and I-Match by a shared signature instead); `true` by
    /// default.
    fn uses_threshold(&self) -> bool {
        true
    }

    /// Proposes pairs among `texts` (at least two, fewer than 2^32) into `sink`.
    ///
    /// # Errors
    ///
    /// Whatever stops the source; the run stops with it.
    fn run(
        &self,
        texts: &[&str],
        ctx: &SourceContext<'_>,
        sink: &mut dyn PairSink,
    ) -> Result<CandidateReport, Error>;
}

impl<'a> SourceContext<'a> {
    /// A context: what a test or a caller that drives a source by hand passes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Emit, Features, NoProgress, SourceContext, Threshold};
    /// let ctx = SourceContext::new(Threshold::default(), Features::default(), Emit::Accepted, &NoProgress);
    /// assert!(!ctx.features().normalizes_nfkc());
    /// ```
    #[must_use]
    pub fn new(
        threshold: Threshold,
        features: Features,
        emit: Emit,
        progress: &'a dyn Progress,
    ) -> Self {
        SourceContext {
            threshold,
            banding: None,
            emit,
            features,
            progress,
        }
    }

    /// The context of `plan`'s candidate stage: its threshold, features, the pairs its
    /// verifier and grouping need, and the LSH banding it resolved; what the in-memory
    /// engine runs its source with, and what a caller driving a source by hand passes
    /// so that the source does not search its banding again.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Dedup, NoProgress, SourceContext};
    /// let plan = Dedup::new().threshold(0.9).plan()?;
    /// let ctx = SourceContext::for_plan(&plan, &NoProgress);
    /// assert_eq!(ctx.threshold().get(), 0.9);
    /// assert!(ctx.lsh_params().is_some());
    /// assert_eq!(ctx.lsh_params(), plan.lsh_params());
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn for_plan(plan: &crate::Plan, progress: &'a dyn Progress) -> Self {
        SourceContext {
            threshold: plan.threshold(),
            banding: plan.lsh_params(),
            emit: plan.emit(),
            features: plan.features(),
            progress,
        }
    }

    /// The LSH banding the plan resolved for a banded source
    /// ([`CandidateSource::validate_banding`]); `None` for other sources and for a
    /// context from [`new`](Self::new) (a banded source then resolves its own).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Emit, Features, NoProgress, SourceContext, Threshold};
    /// let ctx = SourceContext::new(Threshold::default(), Features::default(), Emit::Accepted, &NoProgress);
    /// assert_eq!(ctx.lsh_params(), None);
    /// ```
    #[must_use]
    pub fn lsh_params(&self) -> Option<ndd_lsh::LshParams> {
        self.banding
    }

    /// The similarity threshold, checked.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Emit, Features, NoProgress, SourceContext, Threshold};
    /// let ctx = SourceContext::new(Threshold::new(0.7)?, Features::default(), Emit::Accepted, &NoProgress);
    /// assert_eq!(ctx.threshold().get(), 0.7);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn threshold(&self) -> Threshold {
        self.threshold
    }

    /// The features the run's verifiers compare (a source may sketch others).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Emit, Features, NoProgress, Shingles, SourceContext, Threshold};
    /// let f = Features::new(Shingles::Chars(4));
    /// let ctx = SourceContext::new(Threshold::default(), f, Emit::Accepted, &NoProgress);
    /// assert_eq!(ctx.features(), f);
    /// ```
    #[must_use]
    pub fn features(&self) -> Features {
        self.features
    }

    /// Which pairs the verifier after the source needs: those the source accepts,
    /// every candidate, or those whose similarity may reach the threshold.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Emit, Features, NoProgress, SourceContext, Threshold};
    /// let ctx = SourceContext::new(Threshold::default(), Features::default(), Emit::AllCandidates, &NoProgress);
    /// assert_eq!(ctx.emit(), Emit::AllCandidates);
    /// ```
    #[must_use]
    pub fn emit(&self) -> Emit {
        self.emit
    }

    /// Where the source reports its progress (stages `Sketch` and `Candidates`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{Emit, Features, NoProgress, SourceContext, Stage, Threshold};
    /// let ctx = SourceContext::new(Threshold::default(), Features::default(), Emit::Accepted, &NoProgress);
    /// ctx.progress().advance(Stage::Sketch, 1);
    /// ```
    #[must_use]
    pub fn progress(&self) -> &'a dyn Progress {
        self.progress
    }
}

/// The exact Jaccard join as a source ([`Method::ExactJaccard`](crate::Method::ExactJaccard)).
#[derive(Debug)]
pub(crate) struct ExactJaccardSource;

/// The source of one of the pipeline's methods: its name, its parameter check
/// (`$validate` over the source and the threshold, giving the banding it resolved),
/// whether it scores by the threshold, and its runner in `candidates/`.
macro_rules! method_source {
    ($source:ty, $name:literal, $uses_threshold:literal,
     |$c:ident, $t:ident| $validate:expr, $run:path) => {
        impl CandidateSource for $source {
            fn name(&self) -> &str {
                $name
            }

            fn validate(&self, features: Features, threshold: Threshold) -> Result<(), Error> {
                self.validate_banding(features, threshold).map(drop)
            }

            fn validate_banding(
                &self,
                _features: Features,
                threshold: Threshold,
            ) -> Result<Option<ndd_lsh::LshParams>, Error> {
                let ($c, $t) = (self, threshold);
                Ok($validate?)
            }

            fn uses_threshold(&self) -> bool {
                $uses_threshold
            }

            fn run(
                &self,
                texts: &[&str],
                ctx: &SourceContext<'_>,
                sink: &mut dyn PairSink,
            ) -> Result<CandidateReport, Error> {
                Ok($run(self, texts, ctx, sink)?)
            }
        }
    };
}

method_source!(
    ExactJaccardSource,
    "exact",
    true,
    |_c, _t| Ok::<_, ndd_core::Error>(None),
    super::exact_jaccard::run
);
#[cfg(feature = "minhash")]
method_source!(
    crate::MinHashConfig,
    "minhash",
    true,
    |c, t| super::minhash::validate(c, t).map(Some),
    super::minhash::run
);
#[cfg(feature = "simhash")]
method_source!(
    crate::SimHashConfig,
    "simhash",
    false,
    |c, _t| super::simhash::validate(c).map(|()| None),
    super::simhash::run
);
#[cfg(feature = "imatch")]
method_source!(
    crate::IMatchConfig,
    "imatch",
    false,
    |c, _t| super::imatch::validate(c).map(|()| None),
    super::imatch::run
);
#[cfg(feature = "ncd")]
method_source!(
    crate::SigNcdConfig,
    "signcd",
    true,
    |c, t| super::signcd::validate(c, t).map(|()| None),
    super::signcd::run
);

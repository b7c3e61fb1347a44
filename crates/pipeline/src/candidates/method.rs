//! [`Method`]: which candidate source a run uses, one of the five methods' sources
//! or a user's ([`Method::Custom`]).

use std::sync::Arc;

use ndd_core::Error;

use super::{CandidateSource, ExactJaccardSource};
#[cfg(feature = "imatch")]
use crate::method::IMatchConfig;
#[cfg(feature = "minhash")]
use crate::method::MinHashConfig;
#[cfg(feature = "ncd")]
use crate::method::SigNcdConfig;
#[cfg(feature = "simhash")]
use crate::method::SimHashConfig;

/// The method that proposes and scores pairs.
///
/// | method | decides a pair | reach for it when |
/// | --- | --- | --- |
/// | [`MinHash`](Method::MinHash) (default) | estimated Jaccard of the shingle sets ≥ T | the general case: any threshold, any size |
/// | [`SimHash`](Method::SimHash) | fingerprints at most `h` bits apart | very near copies at web scale, 8 bytes per document |
/// | [`IMatch`](Method::IMatch) | one of the SHA-1s of the mid-IDF words is shared | exact-match lookups, spam campaigns, streams |
/// | [`SigNcd`](Method::SigNcd) | compression distance of punctuation-spot signatures ≤ 1 − T | small to mid collections, no tuning |
/// | [`ExactJaccard`](Method::ExactJaccard) | exact Jaccard of the shingle sets ≥ T | the reference; holds every shingle |
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Method;
/// assert_eq!(Method::default().name(), "minhash");
/// assert_eq!("exact".parse::<Method>()?.name(), "exact");
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Method {
    /// MinHash + banded LSH.
    #[cfg(feature = "minhash")]
    MinHash(MinHashConfig),
    /// SimHash + Hamming search.
    #[cfg(feature = "simhash")]
    SimHash(SimHashConfig),
    /// I-Match signatures.
    #[cfg(feature = "imatch")]
    IMatch(IMatchConfig),
    /// SigNCD exact search.
    #[cfg(feature = "ncd")]
    SigNcd(SigNcdConfig),
    /// Exact Jaccard, all pairs by a prefix-filtered join.
    ExactJaccard,
    /// A candidate source of another crate ([`Method::custom`]).
    Custom(Arc<dyn CandidateSource>),
}

/// Two custom methods are equal when they are the same source (one `Arc`).
impl PartialEq for Method {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            #[cfg(feature = "minhash")]
            (Method::MinHash(a), Method::MinHash(b)) => a == b,
            #[cfg(feature = "simhash")]
            (Method::SimHash(a), Method::SimHash(b)) => a == b,
            #[cfg(feature = "imatch")]
            (Method::IMatch(a), Method::IMatch(b)) => a == b,
            #[cfg(feature = "ncd")]
            (Method::SigNcd(a), Method::SigNcd(b)) => a == b,
            (Method::ExactJaccard, Method::ExactJaccard) => true,
            (Method::Custom(a), Method::Custom(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

#[allow(clippy::derivable_impls)] // not derivable when the minhash feature is on
impl Default for Method {
    fn default() -> Self {
        #[cfg(feature = "minhash")]
        {
            Method::MinHash(MinHashConfig::default())
        }
        #[cfg(not(feature = "minhash"))]
        {
            Method::ExactJaccard
        }
    }
}

impl Method {
    /// A method of another crate: `source` proposes the candidates, the pipeline does
    /// the rest (see [`CandidateSource`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::{CandidateReport, CandidateSource, Error, Method, PairSink, SourceContext};
    /// #[derive(Debug)]
    /// struct Nothing;
    /// impl CandidateSource for Nothing {
    ///     fn name(&self) -> &str { "nothing" }
    ///     fn run(&self, _: &[&str], _: &SourceContext<'_>, _: &mut dyn PairSink) -> Result<CandidateReport, Error> {
    ///         Ok(CandidateReport::default())
    ///     }
    /// }
    /// assert_eq!(Method::custom(Nothing).name(), "nothing");
    /// ```
    #[must_use]
    pub fn custom(source: impl CandidateSource + 'static) -> Self {
        Method::Custom(Arc::new(source))
    }

    /// The method as the stage that runs it.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Method::ExactJaccard.source().name(), "exact");
    /// ```
    #[must_use]
    pub fn source(&self) -> &dyn CandidateSource {
        match self {
            #[cfg(feature = "minhash")]
            Method::MinHash(c) => c,
            #[cfg(feature = "simhash")]
            Method::SimHash(c) => c,
            #[cfg(feature = "imatch")]
            Method::IMatch(c) => c,
            #[cfg(feature = "ncd")]
            Method::SigNcd(c) => c,
            Method::ExactJaccard => &ExactJaccardSource,
            Method::Custom(s) => s.as_ref(),
        }
    }

    /// The method's command-line name: `minhash`, `simhash`, `imatch`, `signcd` or
    /// `exact`, or a custom source's name.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::pipeline::Method::ExactJaccard.name(), "exact");
    /// ```
    #[must_use]
    pub fn name(&self) -> &str {
        self.source().name()
    }

    /// Whether the method scores pairs by a similarity threshold `T` (MinHash, SigNCD
    /// and exact Jaccard do; SimHash uses its Hamming bound and I-Match a shared
    /// signature instead).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::pipeline::Method::ExactJaccard.uses_threshold());
    /// ```
    #[must_use]
    pub fn uses_threshold(&self) -> bool {
        self.source().uses_threshold()
    }
}

impl Method {
    /// Every name [`FromStr`](std::str::FromStr) accepts with the features built, with
    /// what the method is: the choices a tool's `--method` offers.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::pipeline::Method;
    /// for (name, _) in Method::choices() {
    ///     assert_eq!(name.parse::<Method>()?.name(), name);
    /// }
    /// # Ok::<(), near_dup::pipeline::Error>(())
    /// ```
    #[must_use]
    pub fn choices() -> Vec<(&'static str, &'static str)> {
        [
            ("minhash", "MinHash + banded LSH", cfg!(feature = "minhash")),
            ("simhash", "SimHash fingerprints", cfg!(feature = "simhash")),
            ("exact", "Exact Jaccard of all shingle sets", true),
            (
                "signcd",
                "Compression distance of spot signatures",
                cfg!(feature = "ncd"),
            ),
            ("imatch", "I-Match signatures", cfg!(feature = "imatch")),
        ]
        .into_iter()
        .filter(|&(_, _, built)| built)
        .map(|(name, help, _)| (name, help))
        .collect()
    }
}

impl std::str::FromStr for Method {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Ok(match s {
            #[cfg(feature = "minhash")]
            "minhash" => Method::MinHash(MinHashConfig::default()),
            #[cfg(feature = "simhash")]
            "simhash" => Method::SimHash(SimHashConfig::default()),
            #[cfg(feature = "imatch")]
            "imatch" => Method::IMatch(IMatchConfig::default()),
            #[cfg(feature = "ncd")]
            "signcd" => Method::SigNcd(SigNcdConfig::default()),
            "exact" => Method::ExactJaccard,
            other => {
                return Err(Error::invalid_parameter(
                    "method",
                    format!("must be minhash, simhash, imatch, signcd or exact, got {other:?}"),
                ));
            }
        })
    }
}

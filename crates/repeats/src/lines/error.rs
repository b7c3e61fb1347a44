//! The error of the line and paragraph stage.

/// Everything the repeated-unit stage can fail with, as a value.
///
/// # Example
///
/// ```
/// use near_dup::repeats::lines::{Config, Counter, Error, Policy};
/// let e = Counter::new(Config::new(Policy::AtLeast(1))).unwrap_err();
/// assert!(matches!(e, Error::InvalidParameter { name: "policy", .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter outside its documented range.
    #[error("invalid parameter {name}: {message}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The in-memory count held more distinct units than its budget allows: count out
    /// of core ([`Counter::out_of_core`](crate::lines::Counter::out_of_core)) instead.
    #[error(
        "more than {budget} distinct units to count in memory; count them out of core \
         (a work folder) instead"
    )]
    OverBudget {
        /// The budget, in distinct units.
        budget: usize,
    },
    /// The second pass was not given the documents of the first, in the same order.
    #[error(
        "the edit pass saw {what}: it must be given the documents the count saw, in the \
         same order"
    )]
    Mismatch {
        /// What differed.
        what: String,
    },
    /// A sorted run of the out-of-core count could not be written or read.
    #[error("out-of-core count: {0}")]
    Records(#[from] ndd_scale::RecordError),
}

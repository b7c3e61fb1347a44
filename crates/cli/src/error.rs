//! Why a run failed, and the exit status each reason gives.

use ndd_pipeline::ndd_core;

/// A failed run. The message names the file (and line, for bad input).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Invalid options or a combination of them that cannot work (exit status 2,
    /// as clap's own usage errors).
    #[error("{0}")]
    Usage(String),
    /// The input could not be read or had no usable document (exit status 1).
    #[error("{0}")]
    Input(String),
    /// An output could not be written (exit status 1).
    #[error("{0}")]
    Output(String),
    /// The library refused or failed (exit status 1), in the user's words
    /// ([`user_words`]).
    #[error("{}", user_words(.0))]
    Pipeline(#[from] ndd_pipeline::Error),
}

/// The option of the tool that sets a library parameter, by the parameter's name in
/// the API ([`ndd_core::Error::InvalidParameter`]'s `name`): the one place where the
/// tool translates the library's words into the ones the user typed. Names that no
/// option sets are left as they are.
fn option_for(parameter: &str) -> Option<&'static str> {
    Some(match parameter {
        "threshold" => "--threshold",
        "num_perm" | "num_hashes" => "--num-perm",
        "k" => "--k (or --char-k)",
        "bands" => "--bands",
        "rows" => "--rows",
        "bands × rows" => "--bands × --rows",
        "min_recall" => "--banding recall",
        "max_bucket_scan" => "--max-bucket-scan",
        "bits" => "--bits",
        "max_hamming" => "--max-hamming",
        "extra_lexicons" => "--lexicons",
        "nidf" | "nidf_window" => "--nidf",
        "min_coverage" => "--min-coverage",
        "verifier" => "--verify",
        "representative" => "--representative",
        "theta" => "--theta",
        "memory_budget" => "--memory-budget",
        "capacity" => "--bloom-capacity",
        "overall_rate" => "--bloom-fp-rate",
        "trees" => "--trees",
        "trees × depth" => "--trees × --depth",
        "max_rows" => "--max-rows",
        "classes_per_doubling" => "--partitions-per-doubling",
        "fn_weight" => "--fn-weight",
        "max_iterations" => "--max-iterations",
        _ => return None,
    })
}

/// `e` as the user reads it: an invalid parameter is named by the option that set it
/// (`invalid --memory-budget: must be at least ...`, not ``invalid parameter
/// `memory_budget` ``); everything else as the library says it.
pub(crate) fn user_words(e: &ndd_pipeline::Error) -> String {
    if let ndd_pipeline::Error::Core(ndd_core::Error::InvalidParameter { name, reason }) = e {
        if let Some(option) = option_for(name) {
            return format!("invalid {option}: {reason}");
        }
    }
    e.to_string()
}

/// A usage error (exit status 2) for a value the library refused, in the user's words.
pub(crate) fn usage(e: impl Into<ndd_pipeline::Error>) -> CliError {
    CliError::Usage(user_words(&e.into()))
}

/// A usage error for a value of `option` that the library refused: an invalid
/// parameter reads `invalid {option}: {reason}`, any other error `{option}: {e}`.
pub(crate) fn usage_of(option: &str, e: impl Into<ndd_pipeline::Error>) -> CliError {
    match e.into() {
        ndd_pipeline::Error::Core(ndd_core::Error::InvalidParameter { reason, .. }) => {
            CliError::Usage(format!("invalid {option}: {reason}"))
        }
        e => CliError::Usage(format!("{option}: {e}")),
    }
}

impl From<ndd_core::Error> for CliError {
    fn from(e: ndd_core::Error) -> Self {
        CliError::Pipeline(e.into())
    }
}

impl From<ndd_pipeline::corpus::Error> for CliError {
    fn from(e: ndd_pipeline::corpus::Error) -> Self {
        use ndd_pipeline::corpus::{Error, FieldRole};
        match e {
            // A field no record has, named by the option that names it.
            Error::FieldNotFound {
                field,
                role: role @ (FieldRole::Id | FieldRole::Order),
                records,
            } => CliError::Input(format!(
                "{} {field:?}: no record has this field ({records} records read); is the name \
                 misspelt? (a nested field is named by a JSON pointer, such as /meta/id)",
                if role == FieldRole::Id {
                    "--id-field"
                } else {
                    "--order-field"
                }
            )),
            e => CliError::Pipeline(e.into()),
        }
    }
}

impl CliError {
    /// The process exit status for this failure.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Input(_) | CliError::Output(_) | CliError::Pipeline(_) => 1,
        }
    }

    /// An output error naming `path`.
    pub(crate) fn output(path: &std::path::Path, e: impl std::fmt::Display) -> Self {
        CliError::Output(format!("{}: {e}", path.display()))
    }
}

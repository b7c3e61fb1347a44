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
    /// The library refused or failed (exit status 1).
    #[error(transparent)]
    Pipeline(#[from] ndd_pipeline::Error),
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

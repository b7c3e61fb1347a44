//! The pipeline's error type: the core error plus what reading a corpus adds.

use std::path::PathBuf;

/// Everything that can stop a pipeline run, as a value.
///
/// Problems with single documents (a malformed JSONL line, an unreadable file) are
/// not errors under [`ErrorPolicy::Skip`](crate::corpus::ErrorPolicy::Skip): they are
/// collected as [`Problem`](crate::corpus::Problem)s and the run goes on. Under
/// [`ErrorPolicy::Stop`](crate::corpus::ErrorPolicy::Stop) the first one becomes
/// [`Error::Input`].
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Error;
/// let e = Error::from(near_dup::Error::invalid_parameter("threshold", "must lie in (0, 1]"));
/// assert!(e.to_string().contains("threshold"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter, signature or byte form was rejected by an ndd crate.
    #[error(transparent)]
    Core(#[from] ndd_core::Error),
    /// A file or folder could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A document was rejected and the error policy says stop.
    #[error("{location}: {message}")]
    Input {
        /// Where: `file:line` for JSONL, the file's path for folders.
        location: String,
        /// What is wrong, in the user's terms.
        message: String,
    },
    /// The input held no usable document: every line or file was rejected (the
    /// problems say why), which is an error rather than an empty success.
    #[error("{source_name}: no usable document ({rejected} rejected; first problem: {first})")]
    NoDocuments {
        /// The input that was read.
        source_name: String,
        /// How many lines or files were rejected.
        rejected: usize,
        /// The first rejection, for the message.
        first: String,
    },
    /// Containment search over a [`DedupIndex`](crate::DedupIndex) saved without its
    /// documents' set sizes (byte-form version 1, before they were kept): LSH
    /// Ensemble needs them. Top-k search still works; rebuilding the index (`ndd dedup
    /// --index-out`) adds them.
    #[error(
        "this index was saved without set sizes (an index from before they were kept): \
         containment search needs them; rebuild it to add them (top-k search works as it is)"
    )]
    MissingSetSizes,
    /// A corpus reader's error that has no variant of its own here (the readers'
    /// [`Io`](Self::Io), [`Input`](Self::Input) and [`NoDocuments`](Self::NoDocuments)
    /// errors convert to those variants).
    #[error(transparent)]
    Corpus(ndd_corpus::Error),
}

/// The corpus readers' errors, variant by variant: the same variants, the same
/// messages, so that a caller's `?` and `match` on [`Error`] work as before the
/// readers moved to `ndd-corpus`.
///
/// # Example
///
/// ```
/// use near_dup::pipeline::Error;
/// let e = Error::from(near_dup::pipeline::corpus::Error::io("in.jsonl", std::io::ErrorKind::NotFound.into()));
/// assert!(matches!(e, Error::Io { .. }));
/// ```
impl From<ndd_corpus::Error> for Error {
    fn from(e: ndd_corpus::Error) -> Self {
        match e {
            ndd_corpus::Error::Io { path, source } => Error::Io { path, source },
            ndd_corpus::Error::Input { location, message } => Error::Input { location, message },
            ndd_corpus::Error::NoDocuments {
                source_name,
                rejected,
                first,
            } => Error::NoDocuments {
                source_name,
                rejected,
                first,
            },
            other => Error::Corpus(other),
        }
    }
}

impl From<ndd_corpus::Problem> for Error {
    /// [`Error::Input`] with the problem's location and message.
    fn from(p: ndd_corpus::Problem) -> Self {
        ndd_corpus::Error::from(p).into()
    }
}

impl Error {
    /// An [`Error::Io`] for `path`.
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::pipeline::Error::io("missing.jsonl", std::io::ErrorKind::NotFound.into());
    /// assert!(e.to_string().starts_with("missing.jsonl"));
    /// ```
    #[must_use]
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

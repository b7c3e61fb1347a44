//! The corpus readers' error type.

use std::path::PathBuf;

/// Everything that can stop reading a corpus, as a value.
///
/// Problems with single documents (a malformed JSONL line, an unreadable file) are
/// not errors under [`ErrorPolicy::Skip`](crate::ErrorPolicy::Skip): they are
/// collected as [`Problem`](crate::Problem)s and reading goes on. Under
/// [`ErrorPolicy::Stop`](crate::ErrorPolicy::Stop) the first one becomes
/// [`Error::Input`].
///
/// `ndd-pipeline`'s error type converts from this one variant by variant (`Io` to
/// `Io`, `Input` to `Input`, `NoDocuments` to `NoDocuments`), with the same messages.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_corpus, Error, ReadOptions};
/// let missing = std::env::temp_dir().join("ndd-corpus-doc-no-such-file.jsonl");
/// match read_corpus(&missing, &ReadOptions::default()) {
///     Err(Error::Io { path, .. }) => assert_eq!(path, missing),
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
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
    /// A field the options name (the id field when required, the order field) that
    /// no record read has: most likely a misspelt name, which would otherwise number
    /// every document or order none.
    #[error(
        "no record has the field {field:?} ({role}; {records} records read): is the name \
         misspelt? (a nested field is named by a JSON pointer such as /meta/id)"
    )]
    FieldNotFound {
        /// The field as the options name it.
        field: String,
        /// What the field is for.
        role: crate::FieldRole,
        /// Records read, none with the field.
        records: u64,
    },
    /// A file is not of the format its first bytes claim, or cannot be read or
    /// written as such: a damaged Parquet footer, a missing or mistyped Parquet
    /// column, shards of one folder with different schemas.
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the column or part.
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
}

impl Error {
    /// An [`Error::Io`] for `path`.
    ///
    /// # Example
    ///
    /// ```
    /// let e = near_dup::corpus::Error::io("missing.jsonl", std::io::ErrorKind::NotFound.into());
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

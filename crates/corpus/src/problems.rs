//! [`Problem`]: one rejected line or file, where and why.

use std::fmt;

use crate::Error;

/// What kind of rejection a [`Problem`] is, for callers that count or filter them.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{JsonlReader, ProblemKind, ReadOptions};
/// let mut r = JsonlReader::new(&b"{\"text\": 7}\n"[..], "in.jsonl", &ReadOptions::default());
/// let problem = r.next().unwrap().unwrap_err();
/// assert_eq!(problem.kind, ProblemKind::Schema);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProblemKind {
    /// A JSONL line that is not one JSON object.
    MalformedJson,
    /// A JSON object whose fields do not fit the options: text missing or not a
    /// string, id or order key of the wrong type, a field given twice.
    Schema,
    /// A document whose text is empty or only whitespace.
    Empty,
    /// Bytes that are not text: a NUL byte (or NUL character of a UTF-16 file).
    Binary,
    /// Text in another encoding than the one read: bytes that are not UTF-8 (under
    /// the default [`TextEncoding::Utf8`](crate::TextEncoding::Utf8)), or a UTF-16
    /// file with a byte order mark whose bytes are not valid UTF-16.
    Encoding,
    /// A line or file larger than
    /// [`ReadOptions::max_document_bytes`](super::ReadOptions::max_document_bytes).
    TooLarge,
    /// An id that an earlier document already has (the earlier one is kept).
    DuplicateId,
    /// A folder entry that could not be opened or read (permissions, a dangling
    /// symbolic link, a FIFO, socket or device), or a read error in a JSONL stream
    /// (such as a truncated gzip file), after which that stream ends.
    Unreadable,
    /// A symbolic link that points to one of its own ancestor folders.
    SymlinkLoop,
}

impl ProblemKind {
    /// Its stable `snake_case` name, for counts and machine-readable lists of
    /// problems (the tool's `--problems-out`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::ProblemKind;
    /// assert_eq!(ProblemKind::MalformedJson.name(), "malformed_json");
    /// assert_eq!(ProblemKind::Encoding.name(), "encoding");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::MalformedJson => "malformed_json",
            ProblemKind::Schema => "schema",
            ProblemKind::Empty => "empty",
            ProblemKind::Binary => "binary",
            ProblemKind::Encoding => "encoding",
            ProblemKind::TooLarge => "too_large",
            ProblemKind::DuplicateId => "duplicate_id",
            ProblemKind::Unreadable => "unreadable",
            ProblemKind::SymlinkLoop => "symlink_loop",
        }
    }
}

/// One rejected line or file: where (`file:line` for JSONL, the file's path for a
/// folder), what is wrong in the user's terms, and its [`ProblemKind`].
///
/// Displays as `location: message`.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{JsonlReader, ReadOptions};
/// let input = "{\"id\": 1, \"text\": \"ok\"}\n{\"id\": 2}\n";
/// let problems: Vec<_> = JsonlReader::new(input.as_bytes(), "corpus.jsonl", &ReadOptions::default())
///     .filter_map(Result::err)
///     .collect();
/// assert_eq!(problems[0].to_string(),
///            r#"corpus.jsonl:2: field "text" (the text field) is missing"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// `file:line` for a JSONL line, the file's path for a folder entry.
    pub location: String,
    /// What is wrong.
    pub message: String,
    /// The kind of rejection.
    pub kind: ProblemKind,
}

impl Problem {
    /// A problem at `location`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Problem, ProblemKind};
    /// let p = Problem::new("a.txt", "file is empty", ProblemKind::Empty);
    /// assert_eq!(p.to_string(), "a.txt: file is empty");
    /// ```
    #[must_use]
    pub fn new(location: impl Into<String>, message: impl Into<String>, kind: ProblemKind) -> Self {
        Problem {
            location: location.into(),
            message: message.into(),
            kind,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for Problem {}

impl From<Problem> for Error {
    /// [`Error::Input`] with the problem's location and message.
    fn from(p: Problem) -> Self {
        Error::Input {
            location: p.location,
            message: p.message,
        }
    }
}

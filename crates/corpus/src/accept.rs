//! [`Accepted`]: the documents of a reader that a corpus read keeps, streamed: the
//! same duplicate-id rule and error policy as [`read_corpus`](super::read_corpus), for
//! corpora that do not fit in memory (`ndd-pipeline`'s `OutOfCore` reads them so).

use ahash::AHashSet;
use xxhash_rust::xxh3::xxh3_128;

use super::{ErrorPolicy, Problem, ProblemKind};
use crate::id_runs::{IdRuns, Known};
use crate::{Document, Error};

/// How many problems [`Accepted`] keeps for display; the rest are counted.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::corpus::KEPT_PROBLEMS, 100);
/// ```
pub const KEPT_PROBLEMS: usize = 100;

/// The documents of `reader` that [`read_corpus`](super::read_corpus) would keep, in the
/// same order, streamed: a document whose id an earlier document has is rejected (a
/// [`ProblemKind::DuplicateId`] problem), and a problem stops the stream with an error
/// under [`ErrorPolicy::Stop`] or is counted under [`ErrorPolicy::Skip`].
///
/// Memory: nothing per id for integer ids that come in ascending runs (`1`, `2`, `3`, …,
/// as the line numbers of a JSONL file without ids: they are kept as ranges, 16 bytes
/// per run), 16 bytes per other id (its 128-bit XXH3 hash; two different ids agree on
/// it with probability about `n² / 2¹²⁹`, 10⁻²⁵ for a billion ids, and the later one
/// would be rejected as a duplicate) and the first [`KEPT_PROBLEMS`] problems.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
/// let input = "{\"id\": \"a\", \"text\": \"one\"}\n{\"id\": \"a\", \"text\": \"two\"}\nnot json\n{\"id\": \"b\", \"text\": \"three\"}\n";
/// let options = ReadOptions::default();
/// let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in.jsonl", &options), &options);
/// let texts: Vec<String> = docs.by_ref().map(|d| d.map(|d| d.text)).collect::<Result<_, _>>()?;
/// assert_eq!(texts, ["one", "three"]);
/// assert_eq!((docs.accepted(), docs.rejected()), (2, 2));
/// # Ok::<(), near_dup::corpus::Error>(())
/// ```
pub struct Accepted<I> {
    inner: I,
    policy: ErrorPolicy,
    runs: IdRuns,
    seen: AHashSet<u128>,
    problems: Vec<Problem>,
    rejected: u64,
    accepted: u64,
    stopped: bool,
    location: Option<fn(&I) -> String>,
    by_kind: Vec<(ProblemKind, u64)>,
    sink: Option<ProblemSink>,
}

/// Where [`Accepted::with_problem_sink`] sends every problem.
///
/// # Example
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use near_dup::corpus::{Problem, ProblemKind, ProblemSink};
/// let lines = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&lines);
/// let mut sink: ProblemSink = Box::new(move |p: &Problem| {
///     log.lock().unwrap().push(format!("{}\t{}", p.kind.name(), p.location));
/// });
/// sink(&Problem::new("a.txt", "file is empty", ProblemKind::Empty));
/// assert_eq!(*lines.lock().unwrap(), ["empty\ta.txt"]);
/// ```
pub type ProblemSink = Box<dyn FnMut(&Problem) + Send>;

impl<I: std::fmt::Debug> std::fmt::Debug for Accepted<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accepted")
            .field("inner", &self.inner)
            .field("policy", &self.policy)
            .field("rejected", &self.rejected)
            .field("accepted", &self.accepted)
            .field("by_kind", &self.by_kind)
            .finish_non_exhaustive()
    }
}

impl<I: Iterator<Item = Result<Document, Problem>>> Accepted<I> {
    /// The accepted documents of `reader` under `options`' error policy.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
    /// let input = "{\"id\": 1, \"text\": \"a\"}\n{\"id\": 1, \"text\": \"b\"}\n";
    /// let options = ReadOptions::default();
    /// let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in", &options), &options);
    /// assert_eq!(docs.by_ref().count(), 1);
    /// assert_eq!((docs.accepted(), docs.rejected()), (1, 1));
    /// ```
    pub fn new(reader: I, options: &super::ReadOptions) -> Self {
        Accepted {
            inner: reader,
            policy: options.errors,
            runs: IdRuns::default(),
            seen: AHashSet::new(),
            problems: Vec::new(),
            rejected: 0,
            accepted: 0,
            stopped: false,
            location: None,
            by_kind: Vec::new(),
            sink: None,
        }
    }

    /// Hands every problem to `sink` as it is met (all of them, not only the first
    /// [`KEPT_PROBLEMS`]): to list them in a file without holding them in memory.
    ///
    /// # Example
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
    /// let options = ReadOptions::default();
    /// let input = "[1]\n{\"text\": \"kept\"}\n7\n";
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = Arc::clone(&seen);
    /// let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in", &options), &options)
    ///     .with_problem_sink(Box::new(move |p| log.lock().unwrap().push(p.location.clone())));
    /// assert_eq!(docs.by_ref().count(), 1);
    /// assert_eq!(*seen.lock().unwrap(), ["in:1", "in:3"]);
    /// ```
    #[must_use]
    pub fn with_problem_sink(mut self, sink: ProblemSink) -> Self {
        self.sink = Some(sink);
        self
    }

    /// How many problems of each kind so far, in the order each kind was first met.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Accepted, JsonlReader, ProblemKind, ReadOptions};
    /// let options = ReadOptions::default();
    /// let input = "[1]\n{\"text\": 3}\nnull\n";
    /// let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in", &options), &options);
    /// assert_eq!(docs.by_ref().count(), 0);
    /// assert_eq!(docs.rejected_by_kind(), [(ProblemKind::MalformedJson, 2), (ProblemKind::Schema, 1)]);
    /// ```
    #[must_use]
    pub fn rejected_by_kind(&self) -> &[(ProblemKind, u64)] {
        &self.by_kind
    }

    /// Names where a duplicate id was found with `location` (for example
    /// [`JsonlReader::location`](super::JsonlReader::location), `file:line`) instead of
    /// the document's number.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
    /// let input = "{\"id\": 1, \"text\": \"a\"}\n{\"id\": 1, \"text\": \"b\"}\n";
    /// let options = ReadOptions::default();
    /// let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in.jsonl", &options), &options)
    ///     .with_location(JsonlReader::location);
    /// assert_eq!(docs.by_ref().count(), 1);
    /// assert_eq!(docs.problems()[0].location, "in.jsonl:2");
    /// ```
    #[must_use]
    pub fn with_location(mut self, location: fn(&I) -> String) -> Self {
        self.location = Some(location);
        self
    }

    /// Documents yielded so far.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
    /// let input = "{\"id\": 1, \"text\": \"a\"}\n{\"id\": 1, \"text\": \"b\"}\n";
    /// let options = ReadOptions::default();
    /// let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in", &options), &options);
    /// assert_eq!(docs.by_ref().count(), 1);
    /// assert_eq!((docs.accepted(), docs.rejected()), (1, 1));
    /// ```
    #[must_use]
    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    /// Lines or files rejected so far.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
    /// let input = "{\"id\": 1, \"text\": \"a\"}\n{\"id\": 1, \"text\": \"b\"}\n";
    /// let options = ReadOptions::default();
    /// let mut docs = Accepted::new(JsonlReader::new(input.as_bytes(), "in", &options), &options);
    /// assert_eq!(docs.by_ref().count(), 1);
    /// assert_eq!((docs.accepted(), docs.rejected()), (1, 1));
    /// ```
    #[must_use]
    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    /// The first [`KEPT_PROBLEMS`] problems.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
    /// let options = ReadOptions::default();
    /// let mut docs = Accepted::new(JsonlReader::new("[1]\n".as_bytes(), "in.jsonl", &options), &options);
    /// assert_eq!(docs.by_ref().count(), 0);
    /// assert_eq!(docs.problems()[0].location, "in.jsonl:1");
    /// ```
    #[must_use]
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The reader, to ask it where it is (a JSONL reader's line, say).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Accepted, JsonlReader, ReadOptions};
    /// let options = ReadOptions::default();
    /// let mut docs = Accepted::new(JsonlReader::new("\n{\"text\": \"x\"}\n".as_bytes(), "in", &options), &options);
    /// docs.next();
    /// assert_eq!(docs.reader().lines(), 2);
    /// ```
    #[must_use]
    pub fn reader(&self) -> &I {
        &self.inner
    }
}

impl<I> Accepted<I> {
    /// Whether no accepted document has `id` (which is then recorded).
    fn first_time(&mut self, id: &str) -> bool {
        match self.runs.first_time(id) {
            Known::Seen => false,
            Known::New => true,
            Known::Ask => self.seen.insert(xxh3_128(id.as_bytes())),
        }
    }
}

impl<I: Iterator<Item = Result<Document, Problem>>> Iterator for Accepted<I> {
    type Item = Result<Document, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped {
            return None;
        }
        loop {
            let problem = match self.inner.next()? {
                Ok(doc) if self.first_time(&doc.id) => {
                    self.accepted += 1;
                    return Some(Ok(doc));
                }
                Ok(doc) => Problem::new(
                    match self.location {
                        Some(at) => at(&self.inner),
                        None => format!("document {}", self.accepted + self.rejected + 1),
                    },
                    format!(
                        "duplicate id {:?}: an earlier document has it (the first is kept)",
                        doc.id
                    ),
                    ProblemKind::DuplicateId,
                ),
                Err(p) => p,
            };
            self.rejected += 1;
            match self.by_kind.iter_mut().find(|(k, _)| *k == problem.kind) {
                Some((_, n)) => *n += 1,
                None => self.by_kind.push((problem.kind, 1)),
            }
            if let Some(sink) = &mut self.sink {
                sink(&problem);
            }
            if self.policy == ErrorPolicy::Stop {
                self.stopped = true;
                return Some(Err(problem.into()));
            }
            if self.problems.len() < KEPT_PROBLEMS {
                self.problems.push(problem);
            }
        }
    }
}

//! [`JsonlReader`]'s items decoded in parallel on rayon's pool, a batch at a time
//! (`Batched`): the same items, problems and order as the serial reader.

use std::io::BufRead;
use std::sync::Arc;

use super::{JsonlReader, LineDoc, RawBatch, RawLine, decode_line};
use crate::options::ReadOptions;
use crate::problems::{Problem, ProblemKind};
use crate::{DocHook, Document};

/// [`JsonlReader`]'s items, decoded in parallel a batch at a time while the items of the
/// batch before are taken and the batch after is read: the same items in the same
/// order, with the same problems.
///
/// Three batches are in flight: the calling thread takes the items of batch `k` (the
/// duplicate-id check, the field counts, the corpus's vectors) and then reads batch
/// `k + 2`, while the pool decodes batch `k + 1`. Decoding batch `k + 1` only after the
/// items of batch `k` were taken, as a join did before, left the pool idle for that
/// serial part of every batch (issue 31's timeline: the two workers at ~70%).
///
/// With a hook ([`Batched::with_hook`]), each document's value `T` is computed on the
/// pool right after the document is decoded (its text still in that core's cache), and
/// [`Batched::take_value`] gives the value of the document last yielded.
pub(crate) struct Batched<'r, R, T = ()> {
    reader: Held<'r, R>,
    name: Arc<str>,
    options: Arc<ReadOptions>,
    hook: Option<DocHook<T>>,
    ready: std::vec::IntoIter<DecodedLine<T>>,
    /// The batch after `ready`, on the pool.
    decoding: Option<Decoding<T>>,
    /// Whether the first batch was read.
    started: bool,
    /// The last batch decoded, its buffers kept for the next read.
    spare: RawBatch,
    line: u64,
    bytes_read: u64,
    blank: u64,
    /// The id key of the last document yielded.
    id_key: crate::IdKey,
    /// The hook's value of the last document yielded (until taken).
    value: Option<T>,
}

/// A line decoded on the pool: its number, what it gave (`None`: blank), the
/// document's id key for the duplicate-id check (the default for anything else) and
/// the hook's value of the document (`None` without a hook or a document).
type DecodedLine<T> = (
    u64,
    Option<Result<LineDoc, Problem>>,
    crate::IdKey,
    Option<T>,
);

/// A batch's lines decoded, or the panic that stopped it, and the batch (its buffers
/// for the next read).
type DecodedBatch<T> = (std::thread::Result<Vec<DecodedLine<T>>>, RawBatch);

/// A batch handed to the pool: decoding there, or decoded already (by a caller that
/// is itself one of the pool's threads).
enum Decoding<T> {
    /// Decoding on the pool; the result comes through the channel. (A `Mutex` makes
    /// the reader `Sync` as it was; it is never contended.)
    Spawned(std::sync::Mutex<std::sync::mpsc::Receiver<DecodedBatch<T>>>),
    /// Decoded on the calling thread.
    Done(DecodedBatch<T>),
}

impl<T: Send + 'static> Decoding<T> {
    /// Hands `batch` to the pool. A caller on one of the pool's threads decodes it
    /// itself (in parallel, with the pool's other threads): waiting there for a job of
    /// its own pool could wait for itself (a pool of one thread).
    fn start(
        batch: RawBatch,
        name: &Arc<str>,
        options: &Arc<ReadOptions>,
        hook: Option<&DocHook<T>>,
    ) -> Self {
        if rayon::current_thread_index().is_some() {
            let decoded = decode_batch(&batch, name, options, hook.map(|h| &**h));
            return Decoding::Done((Ok(decoded), batch));
        }
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        let (name, options, hook) = (Arc::clone(name), Arc::clone(options), hook.cloned());
        rayon::spawn(move || {
            let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                decode_batch(&batch, &name, &options, hook.as_deref())
            }));
            // The reader may be gone (dropped before its end): nobody waits then.
            let _ = sender.send((decoded, batch));
        });
        Decoding::Spawned(std::sync::Mutex::new(receiver))
    }

    /// The batch's lines and the batch, once decoded; a panic of the decoding goes on
    /// here, on the calling thread, as a join's would.
    fn wait(self) -> (Vec<DecodedLine<T>>, RawBatch) {
        let (decoded, batch) = match self {
            Decoding::Done(done) => done,
            Decoding::Spawned(receiver) => {
                let receiver = receiver
                    .into_inner()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                // The job sends before it ends, and a panic is caught: no message
                // means a job that never ran (the pool torn down).
                receiver
                    .recv()
                    .unwrap_or_else(|_| panic!("the pool dropped a JSONL decoding job"))
            }
        };
        match decoded {
            Ok(lines) => (lines, batch),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The reader a [`Batched`] reads: borrowed ([`read_jsonl_with_progress`](crate::read_jsonl_with_progress))
/// or its own ([`ParallelJsonl`](crate::ParallelJsonl)).
pub(crate) enum Held<'r, R> {
    Borrowed(&'r mut JsonlReader<R>),
    Owned(Box<JsonlReader<R>>),
}

impl<R> std::ops::Deref for Held<'_, R> {
    type Target = JsonlReader<R>;
    fn deref(&self) -> &JsonlReader<R> {
        match self {
            Held::Borrowed(r) => r,
            Held::Owned(r) => r,
        }
    }
}

impl<R> std::ops::DerefMut for Held<'_, R> {
    fn deref_mut(&mut self) -> &mut JsonlReader<R> {
        match self {
            Held::Borrowed(r) => r,
            Held::Owned(r) => r,
        }
    }
}

impl<'r, R: BufRead + Send> Batched<'r, R> {
    /// The reader's items, without a hook (the tests' reader; `read_jsonl_hooked`
    /// passes its optional hook to [`with_hook`](Self::with_hook)).
    #[cfg(test)]
    pub(crate) fn new(reader: &'r mut JsonlReader<R>) -> Self {
        Self::of(Held::Borrowed(reader), None)
    }

    /// The reader's items, read by the batch that owns it.
    pub(crate) fn owning(reader: JsonlReader<R>) -> Batched<'static, R> {
        Batched::of(Held::Owned(Box::new(reader)), None)
    }
}

impl<'r, R: BufRead + Send, T: Send + 'static> Batched<'r, R, T> {
    /// The reader's items, each document's `hook` value (if any) computed on the pool
    /// as it is decoded ([`take_value`](Self::take_value)).
    pub(crate) fn with_hook(reader: &'r mut JsonlReader<R>, hook: Option<DocHook<T>>) -> Self {
        Self::of(Held::Borrowed(reader), hook)
    }

    fn of(reader: Held<'r, R>, hook: Option<DocHook<T>>) -> Self {
        Batched {
            name: Arc::from(reader.name.as_str()),
            options: Arc::new(reader.options.clone()),
            hook,
            reader,
            ready: Vec::new().into_iter(),
            decoding: None,
            started: false,
            spare: RawBatch::default(),
            line: 0,
            bytes_read: 0,
            blank: 0,
            id_key: crate::IdKey::default(),
            value: None,
        }
    }

    /// The hook's value of the document last yielded, once (`None` without a hook).
    pub(crate) fn take_value(&mut self) -> Option<T> {
        self.value.take()
    }

    /// `name:line` of the last item yielded, as [`JsonlReader::location`].
    pub(crate) fn location(&self) -> String {
        format!("{}:{}", self.name, self.line)
    }

    /// Bytes read up to the end of the batch of the last item yielded, and the total.
    pub(crate) fn bytes(&self) -> (u64, Option<u64>) {
        (self.bytes_read, self.reader.total_bytes())
    }

    /// Blank lines skipped so far.
    pub(crate) fn blank_lines(&self) -> u64 {
        self.blank
    }

    /// The line number of the last item yielded.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// The reader (its field counts are those of the items yielded so far).
    pub(crate) fn reader(&self) -> &JsonlReader<R> {
        &self.reader
    }

    /// The id key of the last document yielded (found on the pool, as it was
    /// decoded).
    pub(crate) fn id_key(&self) -> crate::IdKey {
        self.id_key
    }

    /// Reads the next batch into the spare buffer and hands it to the pool; `None`
    /// when the input has no more lines.
    fn read_and_start(&mut self) -> Option<Decoding<T>> {
        let batch = self.reader.read_batch(std::mem::take(&mut self.spare));
        (!batch.lines.is_empty())
            .then(|| Decoding::start(batch, &self.name, &self.options, self.hook.as_ref()))
    }
}

fn decode_batch<T: Send>(
    batch: &RawBatch,
    name: &str,
    options: &ReadOptions,
    hook: Option<&(dyn Fn(&Document) -> T + Send + Sync)>,
) -> Vec<DecodedLine<T>> {
    use rayon::prelude::*;
    batch
        .lines
        .par_iter()
        .with_min_len(64)
        .map(|(number, raw)| {
            let problem = |kind, message| Problem::new(format!("{name}:{number}"), message, kind);
            let item = match raw {
                RawLine::Line(range) => batch.data.get(range.clone()).and_then(|line| {
                    decode_line(line, *number, options)
                        .map(|r| r.map_err(|(kind, m)| problem(kind, m)))
                }),
                RawLine::TooLong(len) => Some(Err(problem(
                    ProblemKind::TooLarge,
                    format!(
                        "line is {len} bytes, more than the limit of {} bytes (max_document_bytes)",
                        options.max_document_bytes
                    ),
                ))),
                RawLine::Unreadable(message) => {
                    Some(Err(problem(ProblemKind::Unreadable, message.clone())))
                }
            };
            let (id_key, value) = match &item {
                Some(Ok((doc, _, _))) => (crate::IdKey::of(&doc.id), hook.map(|h| h(doc))),
                _ => (crate::IdKey::default(), None),
            };
            (*number, item, id_key, value)
        })
        .collect()
}

impl<R: BufRead + Send, T: Send + 'static> Iterator for Batched<'_, R, T> {
    type Item = Result<Document, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            for (line, item, id_key, value) in self.ready.by_ref() {
                self.line = line;
                match item {
                    None => self.blank += 1,
                    Some(Ok(decoded)) => {
                        self.id_key = id_key;
                        self.value = value;
                        return Some(Ok(self.reader.note(decoded)));
                    }
                    Some(Err(problem)) => return Some(Err(problem)),
                }
            }
            if !self.started {
                self.started = true;
                self.decoding = self.read_and_start();
            }
            // None: the input ended.
            let decoding = self.decoding.take()?;
            // The batch after it read while it decodes, then handed to the pool while
            // its items are taken.
            let next = self.read_and_start();
            let (decoded, batch) = decoding.wait();
            self.decoding = next;
            self.ready = decoded.into_iter();
            self.bytes_read = batch.bytes_read;
            self.spare = batch;
        }
    }
}

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
/// serial part of every batch (issue 31's timeline: the two workers at ~70%). Under
/// [`read_ahead`], batch `k + 2` is read on a reader thread instead, at the same time
/// as the calling thread takes the items of batch `k` (the calling thread alone, both
/// pool threads idle, for ~1.5-2 ms of every batch before).
///
/// With a hook ([`read_ahead`]'s), each document's value `T` is computed on the
/// pool right after the document is decoded (its text still in that core's cache), and
/// [`Batched::take_value`] gives the value of the document last yielded.
pub(crate) struct Batched<R, T = ()> {
    reader: JsonlReader<R>,
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
    /// The batches read on a reader thread ([`read_ahead`]); `None`: read here.
    feed: Option<Feed<T>>,
}

/// Batches read on a reader thread ([`read_ahead`]): read ones come through `full`
/// (handed to the pool already, unless the calling thread is one of the pool's),
/// their buffers go back through `spares` once decoded.
struct Feed<T> {
    spares: std::sync::mpsc::SyncSender<RawBatch>,
    /// (A `Mutex` keeps the reader `Sync`; it is never contended.)
    full: std::sync::Mutex<std::sync::mpsc::Receiver<Fed<T>>>,
}

/// A batch from the reader thread.
enum Fed<T> {
    /// Read, for the calling thread to decode (it is one of the pool's threads: see
    /// [`Decoding::start`]); empty at the end.
    Read(RawBatch),
    /// Read and handed to the pool.
    Started(Decoding<T>),
}

/// Batch buffers in flight when a reader thread reads ([`read_ahead`]): one decoding,
/// one being read (or read and waiting), as many as the calling thread's reading held.
const FED_BUFFERS: usize = 2;

/// Runs `body` on `reader`'s items decoded in parallel, as [`Batched`] gives them,
/// with the batches read (the `read(2)` copies and the line split) on a reader thread
/// of their own: batch `k + 2` is read while the calling thread takes the items of
/// batch `k` and the pool decodes batch `k + 1`. The batched reader that `body` gets
/// counts the fields and legacy decodings, which go back to `reader` at the end.
///
/// The reader thread is not one of the pool's (a pool of one thread still decodes);
/// it stops when the input ends or when `body` drops the batched reader.
pub(crate) fn read_ahead<R: BufRead + Send, T: Send + 'static, X>(
    reader: &mut JsonlReader<R>,
    hook: Option<DocHook<T>>,
    body: impl FnOnce(&mut Batched<std::io::Empty, T>) -> X,
) -> X {
    let mut counts = JsonlReader::new(std::io::empty(), reader.name.clone(), &reader.options);
    counts.total = reader.total;
    let (spares, spare_buffers) = std::sync::mpsc::sync_channel::<RawBatch>(FED_BUFFERS);
    let (read, full) = std::sync::mpsc::sync_channel::<Fed<T>>(FED_BUFFERS);
    for _ in 0..FED_BUFFERS {
        // The channel holds them all: no wait.
        let _ = spares.send(RawBatch::default());
    }
    // The reader thread hands each batch to the pool as soon as it is read, unless
    // the calling thread is one of a pool's threads (then it decodes them itself, on
    // its own pool, as `Decoding::start` does).
    let start_here = rayon::current_thread_index().is_none();
    let (name, options, decode_hook) = (
        Arc::<str>::from(reader.name.as_str()),
        Arc::new(reader.options.clone()),
        hook.clone(),
    );
    let (out, fields, legacy) = std::thread::scope(|scope| {
        let reading = &mut *reader;
        scope.spawn(move || {
            for spare in spare_buffers {
                let batch = reading.read_batch(spare);
                let end = batch.lines.is_empty();
                let fed = if start_here && !end {
                    Fed::Started(Decoding::start(
                        batch,
                        &name,
                        &options,
                        decode_hook.as_ref(),
                    ))
                } else {
                    Fed::Read(batch)
                };
                // The batched reader gone (dropped before the end): nobody reads on.
                if read.send(fed).is_err() || end {
                    break;
                }
            }
        });
        let mut batched = Batched::of(counts, hook);
        batched.feed = Some(Feed {
            spares,
            full: std::sync::Mutex::new(full),
        });
        let out = body(&mut batched);
        let counted = (
            std::mem::take(&mut batched.reader.fields),
            batched.reader.legacy_decoded,
        );
        // Dropping the feed stops the reader thread (the scope waits for it).
        drop(batched);
        (out, counted.0, counted.1)
    });
    reader.fields = fields;
    reader.legacy_decoded = legacy;
    out
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

impl<R: BufRead + Send> Batched<R> {
    /// The reader's items, without a hook, read on the calling thread by the batch
    /// that owns the reader ([`ParallelJsonl`](crate::ParallelJsonl), the tests;
    /// `read_jsonl_hooked` reads through [`read_ahead`]).
    pub(crate) fn owning(reader: JsonlReader<R>) -> Self {
        Self::of(reader, None)
    }
}

impl<R: BufRead + Send, T: Send + 'static> Batched<R, T> {
    fn of(reader: JsonlReader<R>, hook: Option<DocHook<T>>) -> Self {
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
            feed: None,
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
        let batch = match &self.feed {
            None => self.reader.read_batch(std::mem::take(&mut self.spare)),
            // A reader thread that is gone (it panicked: the scope goes on with its
            // panic) ends the input here.
            Some(feed) => match feed
                .full
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .recv()
            {
                Ok(Fed::Started(decoding)) => return Some(decoding),
                Ok(Fed::Read(batch)) => batch,
                Err(_) => RawBatch::default(),
            },
        };
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

impl<R: BufRead + Send, T: Send + 'static> Iterator for Batched<R, T> {
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
            match &self.feed {
                None => self.spare = batch,
                // Its buffers back to the reader thread, for the batch after next.
                Some(feed) => {
                    let _ = feed.spares.send(batch);
                }
            }
        }
    }
}

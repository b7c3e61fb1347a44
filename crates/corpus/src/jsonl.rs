//! [`JsonlReader`]: JSON Lines, one document per line, plain, gzip- or zstd-compressed,
//! streamed with a bounded line buffer.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::decode::{BOM, Decoded, NotText, decode};
use super::fields::FieldCounts;
use super::options::ReadOptions;
use super::problems::{Problem, ProblemKind};
use super::record::parse_line;
use crate::{Document, Error};

/// A line decoded into a document: the document, whether its record had the id
/// field, and whether it was decoded from a legacy encoding.
type LineDoc = (Document, bool, bool);

/// What the message of a file or line that is not UTF-8 adds: how to read it.
pub(super) const ENCODING_HINT: &str = " (read legacy text with the encoding option: \
     --encoding auto or windows-1252 in the tool)";

/// The first two bytes of every gzip member (RFC 1952).
pub(super) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The first four bytes of every zstd frame (RFC 8878).
pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The read buffer of [`JsonlReader::open`]: most lines lie whole in it and are
/// decoded in place, without a copy.
const READ_BUFFER: usize = 128 * 1024;

/// A reader that counts the bytes it hands out, shared with the [`JsonlReader`] so
/// that progress is reported in bytes of the file on disk even when it is compressed.
#[derive(Debug)]
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What one bounded line read found.
enum LineRead {
    Eof,
    /// A line, now in the buffer (without its `'\n'`).
    Line,
    /// A line longer than the limit, skipped; its length in bytes.
    TooLong(u64),
}

/// A streaming JSON Lines reader: yields one `Result<`[`Document`]`, `[`Problem`]`>`
/// per non-blank line, holding only the current line in memory.
///
/// Each line is one JSON object. The text is the string field
/// [`ReadOptions::text_field`]; the id is [`ReadOptions::id_field`] (a string, or a
/// number kept as spelled in the JSON, so `7`, `7.0` and `"7"` stay distinct; without
/// it or with `null`, the 1-based line number); the order key, if
/// [`ReadOptions::order_field`] is set, a number or a string. Other fields are
/// skipped without being built.
///
/// * A UTF-8 byte order mark at the start, `"\r\n"` line ends and blank lines are
///   accepted; blank lines are counted ([`blank_lines`](Self::blank_lines)), not
///   yielded.
/// * A line that is not a JSON object, or whose fields do not fit, is yielded as a
///   [`Problem`] at `name:line` with the reason, e.g.
///   `corpus.jsonl:7: field "text" is a number, expected a string`; a text that is
///   empty or only whitespace too ([`ProblemKind::Empty`]).
/// * A line longer than [`ReadOptions::max_document_bytes`] is read through but not
///   kept, and yielded as a [`ProblemKind::TooLarge`] problem: memory stays bounded
///   by the limit whatever the input, even a 10 GB line without a newline.
/// * A read error (a truncated or corrupt gzip stream, a failing disk) is yielded as a
///   [`ProblemKind::Unreadable`] problem, and the iterator ends there.
///
/// The reader yields every problem; [`ReadOptions::errors`] and duplicate ids are the
/// business of [`read_corpus`](super::read_corpus), which drives it.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{JsonlReader, ReadOptions};
/// let input = "\u{feff}{\"id\": 7, \"text\": \"first\"}\n\n{\"text\": \"second\"}\n{\"id\": \"x\"}\n";
/// let mut reader = JsonlReader::new(input.as_bytes(), "in.jsonl", &ReadOptions::default());
/// let items: Vec<_> = reader.by_ref().collect();
/// assert_eq!(items[0].as_ref().unwrap().id, "7");
/// assert_eq!(items[1].as_ref().unwrap().id, "3"); // no id: the line number
/// assert_eq!(items[2].as_ref().unwrap_err().location, "in.jsonl:4");
/// assert_eq!((reader.lines(), reader.blank_lines()), (4, 1));
/// assert_eq!(reader.bytes_read(), input.len() as u64);
/// ```
#[derive(Debug)]
pub struct JsonlReader<R> {
    reader: R,
    name: String,
    options: ReadOptions,
    buf: Vec<u8>,
    line: u64,
    blank: u64,
    consumed: u64,
    /// Bytes read from the file on disk, when [`open`](JsonlReader::open) made the reader.
    source_count: Option<Arc<AtomicU64>>,
    total: Option<u64>,
    done: bool,
    fields: FieldCounts,
    legacy_decoded: u64,
}

impl<R: BufRead> JsonlReader<R> {
    /// A reader over `reader`; `name` is the file name used in problem locations.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let opts = ReadOptions::default().with_text_field("body").with_order_field("t");
    /// let doc = JsonlReader::new(&br#"{"body": "hello", "t": 3}"#[..], "x.jsonl", &opts)
    ///     .next().unwrap().unwrap();
    /// assert_eq!((doc.id.as_str(), doc.text.as_str()), ("1", "hello"));
    /// assert_eq!(doc.order, Some(near_dup::corpus::OrderKey::Number(3.0)));
    /// ```
    pub fn new(reader: R, name: impl Into<String>, options: &ReadOptions) -> Self {
        JsonlReader {
            reader,
            name: name.into(),
            options: options.clone(),
            buf: Vec::new(),
            line: 0,
            blank: 0,
            consumed: 0,
            source_count: None,
            total: None,
            done: false,
            fields: FieldCounts::default(),
            legacy_decoded: 0,
        }
    }

    /// The same reader, reporting `total` as its [`total_bytes`](Self::total_bytes)
    /// (for a progress bar over a stream whose size the caller knows).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let r = JsonlReader::new(&b""[..], "x", &ReadOptions::default()).with_total_bytes(10);
    /// assert_eq!(r.total_bytes(), Some(10));
    /// ```
    #[must_use]
    pub fn with_total_bytes(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Bytes of input consumed so far: of the file on disk (compressed, if it is) for
    /// a reader made by [`open`](JsonlReader::open), of `reader` otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let mut r = JsonlReader::new(&b"{\"text\":\"a\"}\n{\"text\":\"b\"}\n"[..], "x", &ReadOptions::default());
    /// r.next();
    /// assert_eq!(r.bytes_read(), 13);
    /// ```
    pub fn bytes_read(&self) -> u64 {
        match &self.source_count {
            Some(c) => c.load(Ordering::Relaxed),
            None => self.consumed,
        }
    }

    /// The input's size in the units of [`bytes_read`](Self::bytes_read), when known
    /// (the file's size for [`open`](JsonlReader::open)).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// assert_eq!(JsonlReader::new(&b""[..], "x", &ReadOptions::default()).total_bytes(), None);
    /// ```
    pub fn total_bytes(&self) -> Option<u64> {
        self.total
    }

    /// Lines read so far, blank ones included (the line number of the last line).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let mut r = JsonlReader::new(&b"\n\n{\"text\":\"a\"}"[..], "x", &ReadOptions::default());
    /// assert!(r.next().unwrap().is_ok());
    /// assert_eq!(r.lines(), 3);
    /// ```
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// Blank lines (empty or only whitespace) skipped so far.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let mut r = JsonlReader::new(&b" \n\t\r\n"[..], "x", &ReadOptions::default());
    /// assert!(r.next().is_none());
    /// assert_eq!(r.blank_lines(), 2);
    /// ```
    pub fn blank_lines(&self) -> u64 {
        self.blank
    }

    /// How many of the records read so far had each field the options name.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let opts = ReadOptions::default().with_id_field("/meta/id");
    /// let input = b"{\"text\": \"a\", \"meta\": {\"id\": \"x\"}}\n{\"text\": \"b\"}\n";
    /// let mut r = JsonlReader::new(&input[..], "in", &opts);
    /// assert_eq!(r.next().unwrap().unwrap().id, "x");
    /// assert_eq!(r.next().unwrap().unwrap().id, "2");
    /// assert_eq!((r.fields().records, r.fields().id), (2, 1));
    /// ```
    pub fn fields(&self) -> &FieldCounts {
        &self.fields
    }

    /// Lines decoded from a legacy encoding
    /// ([`ReadOptions::encoding`](crate::ReadOptions::encoding)) so far: lines with a
    /// byte outside ASCII read as Windows-1252 or Latin-1.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions, TextEncoding};
    /// let opts = ReadOptions::default().with_encoding(TextEncoding::Auto);
    /// let mut r = JsonlReader::new(&b"{\"text\": \"na\xefve\"}\n"[..], "in", &opts);
    /// assert_eq!(r.next().unwrap().unwrap().text, "naïve");
    /// assert_eq!(r.legacy_decoded(), 1);
    /// ```
    pub fn legacy_decoded(&self) -> u64 {
        self.legacy_decoded
    }

    /// Counts what a decoded line was, and gives its document.
    fn note(&mut self, (doc, has_id, legacy): LineDoc) -> Document {
        self.fields.count(&doc, has_id, &self.options);
        self.legacy_decoded += u64::from(legacy);
        doc
    }

    /// The byte stream, decompressed, as far as it was read (the record copier reads
    /// a file's lines with it).
    pub(crate) fn into_inner(self) -> R {
        self.reader
    }

    /// The options this reader decodes with.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let opts = ReadOptions::default().with_text_field("body");
    /// assert_eq!(JsonlReader::new(&b""[..], "x", &opts).options().text_field, "body");
    /// ```
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The name used in problem locations.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// `name:line` of the last line read: where the last item came from.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let mut r = JsonlReader::new(&b"\n{\"text\":\"a\"}\n"[..], "c.jsonl", &ReadOptions::default());
    /// r.next();
    /// assert_eq!(r.location(), "c.jsonl:2");
    /// ```
    pub fn location(&self) -> String {
        format!("{}:{}", self.name, self.line)
    }

    /// Reads the next line into `self.buf`, keeping at most `max_document_bytes` of it.
    fn read_line_bounded(&mut self) -> io::Result<LineRead> {
        self.buf.clear();
        let max = self.options.max_document_bytes;
        let mut any = false;
        let mut too_long = false;
        let mut len: u64 = 0;
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                break;
            }
            any = true;
            let (chunk, newline) = match memchr::memchr(b'\n', avail) {
                Some(i) => (&avail[..i], true),
                None => (avail, false),
            };
            len += chunk.len() as u64;
            if !too_long {
                if len > max {
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = chunk.len() + usize::from(newline);
            self.reader.consume(used);
            self.consumed += used as u64;
            if newline {
                break;
            }
        }
        Ok(if !any {
            LineRead::Eof
        } else if too_long {
            LineRead::TooLong(len)
        } else {
            LineRead::Line
        })
    }

    fn problem(&self, kind: ProblemKind, message: String) -> Problem {
        Problem::new(self.location(), message, kind)
    }
}

impl JsonlReader<Box<dyn BufRead + Send>> {
    /// Opens a JSONL file, plain, gzip- or zstd-compressed: gzip is recognized by its
    /// magic bytes (`1f 8b`), zstd by its own (`28 b5 2f fd`, feature `zstd`),
    /// whatever the file is named, and concatenated gzip members or zstd frames are
    /// read as one stream. Problem locations name the file as `path` displays.
    ///
    /// A device (`/dev/zero`, a terminal, a disk) is refused: it is not a corpus, and
    /// some never end. So is a file in UTF-16 (it starts with a UTF-16 byte order
    /// mark): JSON Lines are read as UTF-8. Standard input is read with [`from_read`](Self::from_read);
    /// a pipe (`<(zcat …)`) is read to its end.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the file cannot be opened or its first bytes read, or is a
    /// device.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let path = std::env::temp_dir().join(format!("ndd-doc-open-{}.jsonl", std::process::id()));
    /// std::fs::write(&path, "{\"id\": \"a\", \"text\": \"alpha\"}\n")?;
    /// let mut reader = JsonlReader::open(&path, &ReadOptions::default())?;
    /// assert_eq!(reader.next().unwrap().unwrap().text, "alpha");
    /// assert_eq!(reader.bytes_read(), reader.total_bytes().unwrap());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Self, Error> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        refuse_device(&file).map_err(|e| Error::io(path, e))?;
        // A pipe (such as `<(zcat …)`) has no size to report.
        let total = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let mut r = Self::from_read(file, path.display().to_string(), options)
            .map_err(|e| Error::io(path, e))?;
        r.total = total;
        Ok(r)
    }

    /// A reader over any byte stream (standard input, a socket, a decompressor of
    /// the caller's), plain or gzip-compressed: gzip is recognized by its magic bytes
    /// and concatenated gzip members are read as one stream, as [`open`](Self::open)
    /// does for files. `name` names the stream in problem locations (`<stdin>:3`).
    /// [`bytes_read`](JsonlReader::bytes_read) counts the stream's bytes (compressed,
    /// if it is); the total is unknown unless given with
    /// [`with_total_bytes`](JsonlReader::with_total_bytes).
    ///
    /// # Errors
    ///
    /// The I/O error met while reading the stream's first bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{JsonlReader, ReadOptions};
    /// let input: &[u8] = b"{\"id\": \"a\", \"text\": \"alpha\"}\n";
    /// let mut reader = JsonlReader::from_read(input, "<stdin>", &ReadOptions::default())?;
    /// assert_eq!(reader.next().unwrap().unwrap().text, "alpha");
    /// assert_eq!(reader.location(), "<stdin>:1");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn from_read(
        read: impl Read + Send + 'static,
        name: impl Into<String>,
        options: &ReadOptions,
    ) -> io::Result<Self> {
        let count = Arc::new(AtomicU64::new(0));
        let mut raw = BufReader::with_capacity(
            READ_BUFFER,
            Counting {
                inner: read,
                count: Arc::clone(&count),
            },
        );
        let (is_gzip, is_zstd) = loop {
            match raw.fill_buf() {
                Ok(b) => break (b.starts_with(&GZIP_MAGIC), b.starts_with(&ZSTD_MAGIC)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        let mut reader: Box<dyn BufRead + Send> = if is_gzip {
            Box::new(BufReader::with_capacity(
                READ_BUFFER,
                flate2::bufread::MultiGzDecoder::new(raw),
            ))
        } else if is_zstd {
            zstd_lines(raw)?
        } else {
            Box::new(raw)
        };
        refuse_utf16(&mut reader)?;
        let mut r = JsonlReader::new(reader, name, options);
        r.source_count = Some(count);
        Ok(r)
    }
}

/// A zstd stream's decompressed bytes (concatenated frames read as one stream, as
/// gzip members are). Memory is bounded as for gzip: lines by
/// [`ReadOptions::max_document_bytes`], and the decoder's window by zstd's default
/// limit (128 MiB); a frame asking for a larger window is a read error.
#[cfg(feature = "zstd")]
fn zstd_lines(raw: impl BufRead + Send + 'static) -> io::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(BufReader::with_capacity(
        READ_BUFFER,
        zstd::stream::read::Decoder::with_buffer(raw)?,
    )))
}

/// Without the `zstd` feature a zstd stream is refused by name.
#[cfg(not(feature = "zstd"))]
fn zstd_lines(_raw: impl BufRead + Send + 'static) -> io::Result<Box<dyn BufRead + Send>> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "is zstd-compressed, and ndd-corpus was built without its feature `zstd`",
    ))
}

/// Refuses JSON Lines in UTF-16 (they start with its byte order mark): lines are
/// split on the byte `\n` and JSON for interchange is UTF-8, so such a stream would
/// give one confusing problem per line; it is named for what it is instead.
fn refuse_utf16(reader: &mut dyn BufRead) -> io::Result<()> {
    let start = loop {
        match reader.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // A read error is the first line's problem, as before.
            Err(_) => return Ok(()),
        }
    };
    if start.starts_with(&[0xFF, 0xFE]) || start.starts_with(&[0xFE, 0xFF]) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "is UTF-16 text (it starts with a UTF-16 byte order mark); JSON Lines are read \
             as UTF-8: convert it first (iconv -f UTF-16 -t UTF-8)",
        ));
    }
    Ok(())
}

/// Refuses a character or block device (`/dev/zero` reads forever, `/dev/urandom`
/// is no corpus, a terminal waits for typing): regular files and pipes pass.
fn refuse_device(file: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = file.metadata()?.file_type();
        if kind.is_char_device() || kind.is_block_device() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "is a device, not a JSONL file, folder or pipe (give - to read standard input)",
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

impl<R: BufRead> JsonlReader<R> {
    /// A decoded line as the next item, or `None` for a blank line (counted).
    fn item(
        &mut self,
        decoded: Option<Result<LineDoc, (ProblemKind, String)>>,
    ) -> Option<Result<Document, Problem>> {
        let Some(decoded) = decoded else {
            self.blank += 1;
            return None;
        };
        Some(match decoded {
            Ok(line) => Ok(self.note(line)),
            Err((kind, m)) => Err(self.problem(kind, m)),
        })
    }

    /// A read error: the rest of the input is lost, the problem stands at the next line.
    fn read_error(&mut self, e: &io::Error) -> Problem {
        self.done = true;
        self.line += 1;
        let message = format!("read error, the rest of the input is lost: {e}");
        self.problem(ProblemKind::Unreadable, message)
    }
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = Result<Document, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            // Fast path: the whole line is already in the reader's buffer, so it is
            // decoded where it lies, without a copy into `self.buf`.
            let max = self.options.max_document_bytes;
            let fast = match self.reader.fill_buf() {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Some(Err(self.read_error(&e)));
                }
                Ok(avail) => match memchr::memchr(b'\n', avail) {
                    Some(i) if i as u64 <= max => {
                        Some((i, decode_line(&avail[..i], self.line + 1, &self.options)))
                    }
                    _ => None,
                },
            };
            if let Some((i, decoded)) = fast {
                self.reader.consume(i + 1);
                self.consumed += i as u64 + 1;
                self.line += 1;
                if let Some(item) = self.item(decoded) {
                    return Some(item);
                }
                continue;
            }
            let read = self.read_line_bounded();
            match read {
                Err(e) => {
                    return Some(Err(self.read_error(&e)));
                }
                Ok(LineRead::Eof) => {
                    self.done = true;
                    return None;
                }
                Ok(LineRead::TooLong(len)) => {
                    self.line += 1;
                    let message = format!(
                        "line is {len} bytes, more than the limit of {} bytes (max_document_bytes)",
                        self.options.max_document_bytes
                    );
                    return Some(Err(self.problem(ProblemKind::TooLarge, message)));
                }
                Ok(LineRead::Line) => {
                    self.line += 1;
                    let decoded = decode_line(&self.buf, self.line, &self.options);
                    if let Some(item) = self.item(decoded) {
                        return Some(item);
                    }
                }
            }
        }
    }
}

/// One line (without its `'\n'`) to a document or the reason it is not one; `None`
/// for a blank line. `line` is its 1-based number: the first line may start with a
/// byte order mark.
fn decode_line(
    line: &[u8],
    number: u64,
    options: &ReadOptions,
) -> Option<Result<LineDoc, (ProblemKind, String)>> {
    let mut line = line;
    if number == 1 {
        line = line.strip_prefix(BOM).unwrap_or(line);
    }
    line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(match decode(line, options.encoding, false) {
        Err(NotText::NotUtf8(at)) => Err((
            ProblemKind::Encoding,
            format!(
                "not UTF-8 text: invalid byte sequence at byte {at} of the line{ENCODING_HINT}"
            ),
        )),
        Err(NotText::BadUtf16(_) | NotText::Nul(_)) => {
            Err((ProblemKind::Encoding, "not UTF-8 text".to_owned()))
        }
        Ok((text, how)) => parse_line(&text, number, options)
            .map(|(doc, has_id)| (doc, has_id, how == Decoded::Legacy)),
    })
}

impl<R: BufRead> std::iter::FusedIterator for JsonlReader<R> {}

/// A line read but not decoded yet (the batched reading of
/// [`read_corpus`](super::read_corpus) under `rayon`).
#[cfg(feature = "rayon")]
enum RawLine {
    /// The line's bytes in the batch, without its `'\n'`.
    Line(std::ops::Range<usize>),
    /// A line longer than the limit, skipped; its length in bytes.
    TooLong(u64),
    /// A read error's message; the input ends there.
    Unreadable(String),
}

/// Lines read in one go, decoded later (in parallel): at least one line, and lines
/// until `BATCH_BYTES` are held or `BATCH_LINES` are read, so a batch holds at most
/// `BATCH_BYTES` plus one line of at most `max_document_bytes`, and at most
/// `BATCH_LINES` lines' bookkeeping (a blank line holds no byte but costs about 110
/// bytes once decoded: bounded by bytes alone, a gzip of newlines filled memory).
#[cfg(feature = "rayon")]
#[derive(Default)]
struct RawBatch {
    data: Vec<u8>,
    /// Each line's 1-based number and what was read.
    lines: Vec<(u64, RawLine)>,
    /// [`JsonlReader::bytes_read`] after the batch.
    bytes_read: u64,
}

/// Bytes of lines read per batch.
#[cfg(feature = "rayon")]
const BATCH_BYTES: usize = 1 << 20;

/// The largest line buffer a batch keeps for the next read.
#[cfg(feature = "rayon")]
const RETAINED_BATCH_BYTES: usize = 4 * BATCH_BYTES;

/// Lines read per batch, blank or not: what bounds a batch of short or empty lines.
#[cfg(feature = "rayon")]
const BATCH_LINES: usize = 16 * 1024;

#[cfg(feature = "rayon")]
impl<R: BufRead> JsonlReader<R> {
    /// Reads the next batch of lines without decoding them (empty at the end) into
    /// `batch`, a batch decoded before whose buffers are reused (cleared here): a
    /// new batch's megabyte was grown by doubling and faulted in page by page.
    fn read_batch(&mut self, mut batch: RawBatch) -> RawBatch {
        if batch.data.capacity() > RETAINED_BATCH_BYTES {
            // A batch that held a long line: not kept at that size.
            batch.data = Vec::new();
        }
        batch.data.clear();
        batch.data.reserve(BATCH_BYTES + (1 << 16));
        batch.lines.clear();
        let max = self.options.max_document_bytes;
        while !self.done && batch.data.len() < BATCH_BYTES && batch.lines.len() < BATCH_LINES {
            let raw = match self.reader.fill_buf() {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    RawLine::Unreadable(format!("read error, the rest of the input is lost: {e}"))
                }
                Ok(avail) => match memchr::memchr(b'\n', avail) {
                    Some(i) if i as u64 <= max => {
                        let start = batch.data.len();
                        batch.data.extend_from_slice(&avail[..i]);
                        self.reader.consume(i + 1);
                        self.consumed += i as u64 + 1;
                        RawLine::Line(start..start + i)
                    }
                    _ => match self.read_line_bounded() {
                        Err(e) => {
                            self.done = true;
                            RawLine::Unreadable(format!(
                                "read error, the rest of the input is lost: {e}"
                            ))
                        }
                        Ok(LineRead::Eof) => {
                            self.done = true;
                            break;
                        }
                        Ok(LineRead::TooLong(len)) => RawLine::TooLong(len),
                        Ok(LineRead::Line) => {
                            let start = batch.data.len();
                            batch.data.extend_from_slice(&self.buf);
                            RawLine::Line(start..batch.data.len())
                        }
                    },
                },
            };
            self.line += 1;
            batch.lines.push((self.line, raw));
        }
        if !self.done && matches!(self.reader.fill_buf(), Ok(b) if b.is_empty()) {
            // At the end: the progress of this batch is the whole input.
            self.done = true;
        }
        batch.bytes_read = self.bytes_read();
        batch
    }
}

#[cfg(feature = "rayon")]
mod batched;
#[cfg(feature = "rayon")]
pub(crate) use batched::{Batched, read_ahead};

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch of blank lines is bounded by its line count (bounded by bytes alone, a
    /// batch of newlines never filled and read the whole input into bookkeeping).
    #[cfg(feature = "rayon")]
    #[test]
    fn a_batch_of_blank_lines_is_bounded() {
        let lines = 3 * BATCH_LINES + 5;
        let input = vec![b'\n'; lines];
        let mut reader = JsonlReader::new(input.as_slice(), "blank", &ReadOptions::default());
        let mut sizes = Vec::new();
        loop {
            let batch = reader.read_batch(RawBatch::default());
            if batch.lines.is_empty() {
                break;
            }
            sizes.push(batch.lines.len());
        }
        assert_eq!(sizes.iter().sum::<usize>(), lines);
        assert!(sizes.iter().all(|&n| n <= BATCH_LINES), "{sizes:?}");
        // Decoded a batch at a time, the blank lines are counted and nothing yielded.
        let reader = JsonlReader::new(input.as_slice(), "blank", &ReadOptions::default());
        let mut batched = Batched::owning(reader);
        assert!(batched.next().is_none());
        assert_eq!(batched.blank_lines(), lines as u64);
    }

    /// An item as the batched-reading tests compare it.
    #[cfg(feature = "rayon")]
    fn show(item: Result<Document, Problem>) -> String {
        match item {
            Ok(d) => format!("{} {}", d.id, d.text),
            Err(p) => p.to_string(),
        }
    }

    /// A pool of one thread (a caller on it decodes the batches itself).
    #[cfg(feature = "rayon")]
    fn pool_of_one() -> rayon::ThreadPool {
        let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(1).build() else {
            panic!("a pool of one thread");
        };
        pool
    }

    /// Decoding in batches changes no item, problem or order, on the calling thread
    /// and on a pool's only thread.
    #[cfg(feature = "rayon")]
    #[test]
    fn batched_reading_yields_the_plain_readers_items_inside_a_pool_too() {
        // 40,000 lines, three batches by line count; some malformed, some blank.
        let input = crate::mixed_jsonl(40_000, 0);
        let opts = ReadOptions::default();
        let plain: Vec<String> = JsonlReader::new(input.as_bytes(), "x", &opts)
            .map(show)
            .collect();
        let batched = || {
            let reader = JsonlReader::new(input.as_bytes(), "x", &opts);
            let items: Vec<String> = Batched::owning(reader).map(show).collect();
            items
        };
        assert!(plain.len() > 39_900 && plain.iter().any(|p| p.contains("x:998")));
        assert_eq!(batched(), plain);
        let pool = pool_of_one();
        assert_eq!(pool.install(batched), plain);
    }

    /// Batches read on a reader thread ([`read_ahead`]) give the plain reader's items
    /// and field counts, on the calling thread and on a pool's only thread, and stop
    /// early without a hang when the items are dropped.
    #[cfg(feature = "rayon")]
    #[test]
    fn read_ahead_yields_the_plain_readers_items_and_counts() {
        let input = crate::mixed_jsonl(40_000, 0);
        let opts = ReadOptions::default();
        let mut plain_reader = JsonlReader::new(input.as_bytes(), "x", &opts);
        let plain: Vec<String> = plain_reader.by_ref().map(show).collect();
        let ahead = || {
            let mut reader = JsonlReader::new(input.as_bytes(), "x", &opts);
            let items = read_ahead(&mut reader, None::<crate::DocHook<()>>, |batched| {
                batched.map(show).collect::<Vec<_>>()
            });
            (items, reader.fields().clone(), reader.legacy_decoded())
        };
        let expected = (
            plain,
            plain_reader.fields().clone(),
            plain_reader.legacy_decoded(),
        );
        assert!(expected.0.len() > 39_900 && expected.1 != FieldCounts::default());
        assert!(ahead() == expected);
        let pool = pool_of_one();
        assert!(pool.install(ahead) == expected);
        // Two items of the first batch taken, the rest dropped: the reader thread ends.
        let mut reader = JsonlReader::new(input.as_bytes(), "x", &opts);
        let first = read_ahead(&mut reader, None::<crate::DocHook<()>>, |batched| {
            batched.take(2).map(show).collect::<Vec<_>>()
        });
        assert_eq!(first, expected.0[..2]);
    }

    /// A read error in the middle of the input ends the items read on a reader thread
    /// with the problem that reading on the calling thread gives.
    #[cfg(feature = "rayon")]
    #[test]
    fn read_ahead_reports_a_read_error_as_the_calling_threads_reading() {
        /// The input's bytes, then an error.
        struct FailAfter<'a>(&'a [u8]);
        impl Read for FailAfter<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() {
                    return Err(io::Error::other("the disk is gone"));
                }
                let n = buf.len().min(self.0.len()).min(4096);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        // Cut in the middle of a line, after more than one batch.
        let input = crate::mixed_jsonl(20_000, 0);
        let cut = &input.as_bytes()[..input.len() - 1000];
        let opts = ReadOptions::default();
        let reader = || JsonlReader::new(BufReader::new(FailAfter(cut)), "x", &opts);
        let here: Vec<String> = Batched::owning(reader()).map(show).collect();
        let ahead = read_ahead(&mut reader(), None::<crate::DocHook<()>>, |batched| {
            batched.map(show).collect::<Vec<_>>()
        });
        assert!(here.last().is_some_and(|p| p.contains("the disk is gone")));
        assert!(here.len() > 19_000);
        assert_eq!(ahead, here);
    }

    #[cfg(feature = "rayon")]
    /// The duplicate-id check takes the pool's key of each id: it must be the hash
    /// and the integer the check itself finds.
    #[test]
    fn batched_ids_are_keyed_as_the_duplicate_check_keys_them() {
        use std::hash::BuildHasher;
        let input = "{\"id\": \"a\", \"text\": \"x\"}\n\n{\"text\": \"y\"}\n";
        let opts = ReadOptions::default();
        let reader = JsonlReader::new(input.as_bytes(), "in", &opts);
        let mut batched = Batched::owning(reader);
        let mut ids = Vec::new();
        while let Some(doc) = batched.next() {
            let doc = doc.unwrap();
            let expected = BuildHasher::hash_one(&crate::id_hasher(), doc.id.as_str());
            assert_eq!(batched.id_key().hash, expected);
            assert_eq!(batched.id_key().integer, doc.id.parse::<u64>().ok());
            ids.push(doc.id);
        }
        assert_eq!(ids, ["a", "3"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused() {
        let err = JsonlReader::open("/dev/zero", &ReadOptions::default())
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("is a device")),
            "{err:?}"
        );
    }
}

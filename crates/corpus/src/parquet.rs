//! Parquet files (feature `parquet`): [`ParquetReader`] yields documents from a text
//! column and an id column chosen by name, a row group at a time; [`ParquetCopier`]
//! writes chosen rows back with every column of the input, plus added columns.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch};
use arrow_array::{LargeStringArray, StringArray, StringViewArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::file::properties::WriterProperties;

use crate::options::ReadOptions;
use crate::problems::{Problem, ProblemKind};
use crate::{Document, Error};

/// The largest row group read, in bytes of its columns as the footer gives them
/// (uncompressed; of the columns read): a footer that claims more is refused before
/// anything of the row group is read.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::corpus::MAX_ROW_GROUP_BYTES, 1 << 30); // 1 GiB
/// ```
pub const MAX_ROW_GROUP_BYTES: u64 = 1 << 30;

/// Rows decoded at a time.
const BATCH_ROWS: usize = 1024;

fn format_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// `f`, with a panic of the `parquet` crate on damaged input (its footer decoder
/// unwraps some fields: found by this crate's tests on a footer with a byte changed)
/// turned into an [`Error::Format`] naming `what`.
fn guarded<T, E: std::fmt::Display>(
    path: &Path,
    what: &str,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, Error> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(format_error(path, format!("{what}: {e}"))),
        Err(_) => Err(format_error(
            path,
            format!("{what}: damaged (the decoder failed)"),
        )),
    }
}

/// The footer of `path`, read (and checked) once.
fn open_metadata(path: &Path) -> Result<(File, ArrowReaderMetadata), Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = guarded(path, "not a readable Parquet file", || {
        ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
    })?;
    Ok((file, meta))
}

/// The next batch of `reader`, a panic of the decoder on a damaged page an error.
fn next_batch(
    path: &Path,
    reader: &mut ParquetRecordBatchReader,
) -> Option<Result<RecordBatch, Error>> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next())) {
        Ok(None) => None,
        Ok(Some(r)) => Some(r.map_err(|e| format_error(path, e))),
        Err(_) => Some(Err(format_error(path, "damaged page (the decoder failed)"))),
    }
}

/// A reader of the row group `rg` of the file behind `meta`, of the columns `mask`.
fn row_group_reader(
    path: &Path,
    file: &File,
    meta: &ArrowReaderMetadata,
    mask: ProjectionMask,
    rg: usize,
) -> Result<ParquetRecordBatchReader, Error> {
    let file = file.try_clone().map_err(|e| Error::io(path, e))?;
    guarded(path, &format!("row group {rg}"), || {
        ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta.clone())
            .with_projection(mask)
            .with_row_groups(vec![rg])
            .with_batch_size(BATCH_ROWS)
            .build()
    })
}

/// The `i`-th value of a string column (`Utf8`, `LargeUtf8`, `Utf8View`, or a
/// dictionary of them); `None` when null. `Err` names the type of another column.
fn string_at(col: &ArrayRef, i: usize) -> Result<Option<String>, DataType> {
    if col.is_null(i) {
        return Ok(None);
    }
    Ok(Some(match col.data_type() {
        DataType::Utf8 => col.as_string::<i32>().value(i).to_owned(),
        DataType::LargeUtf8 => col.as_string::<i64>().value(i).to_owned(),
        DataType::Utf8View => col.as_string_view().value(i).to_owned(),
        DataType::Dictionary(_, value) if is_string(value) => {
            let dict = col.as_any_dictionary();
            let key = dict.normalized_keys()[i];
            return string_at(dict.values(), key);
        }
        other => return Err(other.clone()),
    }))
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// The `i`-th value of an id column: a string column, or an integer one written in
/// decimal.
fn id_at(col: &ArrayRef, i: usize) -> Result<Option<String>, DataType> {
    if col.is_null(i) {
        return Ok(None);
    }
    macro_rules! int {
        ($t:ty) => {
            Ok(Some(col.as_primitive::<$t>().value(i).to_string()))
        };
    }
    match col.data_type() {
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        _ => string_at(col, i),
    }
}

/// A streaming reader of one Parquet file: one `Result<`[`Document`]`, `[`Problem`]`>`
/// per row, a row group at a time.
///
/// * **Columns.** The text is the top-level column [`ReadOptions::text_field`] names, a
///   string column (`string`, `large_string`, `string_view`, or dictionary-encoded
///   strings); the id the column [`ReadOptions::id_field`] names, a string or integer
///   column. A file without the text column, or whose text or id column has another
///   type, is an [`Error::Format`] naming the column. Without the id column (or where
///   an id is null) a row is numbered by its 1-based position, as a JSONL record is by
///   its line; when [`ReadOptions::id_required`] is set, a file without the id column
///   is [`Error::FieldNotFound`]. Order and attribute fields are JSONL's: naming one
///   for a Parquet file is an [`Error::Format`].
/// * **Rows.** A null text is a [`ProblemKind::Schema`] problem, an empty or
///   whitespace-only one [`ProblemKind::Empty`], a text longer than
///   [`ReadOptions::max_document_bytes`] [`ProblemKind::TooLarge`]. A row group that
///   cannot be decoded (a damaged page) is one [`ProblemKind::Unreadable`] problem,
///   and reading goes on with the next row group.
/// * **Bounds.** Only the text and id columns are decoded, 1,024 rows at a
///   time, a row group at a time; a row group whose columns are larger than
///   [`MAX_ROW_GROUP_BYTES`] is refused from its footer entry, before it is read. A
///   damaged footer is an [`Error::Format`], never a panic (the `parquet` crate's
///   decoder panics on some damaged footers and pages: such a panic is caught and
///   becomes the error or problem, though the panic hook may still print it).
///
/// # Example
///
/// ```
/// use near_dup::corpus::{ParquetCopier, ParquetReader, ReadOptions};
/// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-1-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// # let path = dir.join("in.parquet");
/// # ParquetCopier::write_example(&path, &[("a", "alpha"), ("b", "beta")])?;
/// let mut reader = ParquetReader::open(&path, &ReadOptions::default())?;
/// let doc = reader.next().unwrap()?;
/// assert_eq!((doc.id.as_str(), doc.text.as_str()), ("a", "alpha"));
/// assert_eq!(reader.row(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ParquetReader {
    path: PathBuf,
    file: File,
    meta: ArrowReaderMetadata,
    mask: ProjectionMask,
    /// Positions in the projected batch.
    text: usize,
    id: Option<usize>,
    options: ReadOptions,
    next_group: usize,
    reader: Option<ParquetRecordBatchReader>,
    batch: Option<RecordBatch>,
    in_batch: usize,
    /// Rows yielded (or skipped with their row group) so far: the last row's number.
    row: u64,
    /// The first row of the row group being read.
    group_start: u64,
    bytes: u64,
    total: u64,
    with_id: u64,
}

impl ParquetReader {
    /// Opens `path` and checks its footer and columns.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the file cannot be opened; [`Error::Format`] if it is not a
    /// readable Parquet file or lacks the text column, or a column has the wrong
    /// type; [`Error::FieldNotFound`] for a required id column it lacks.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Error, ParquetReader, ReadOptions};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-2-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("not.parquet");
    /// std::fs::write(&path, b"PAR1 but no footer")?;
    /// assert!(matches!(ParquetReader::open(&path, &ReadOptions::default()), Err(Error::Format { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Self, Error> {
        let path = path.as_ref();
        if options.order_field.is_some() || !options.attribute_fields.is_empty() {
            return Err(format_error(
                path,
                "order and attribute fields are read from JSON Lines only, not from a \
                 Parquet file",
            ));
        }
        let (file, meta) = open_metadata(path)?;
        let total = file.metadata().map(|m| m.len()).unwrap_or(0);
        let schema = Arc::clone(meta.schema());
        let find = |name: &str| schema.fields().iter().position(|f| f.name() == name);
        let text = find(&options.text_field).ok_or_else(|| {
            format_error(
                path,
                format!(
                    "no column {:?} (the text field); its columns are {}",
                    options.text_field,
                    column_names(&schema)
                ),
            )
        })?;
        let id = find(&options.id_field);
        check_type(path, &schema, text, "the text field", is_string)?;
        if let Some(id) = id {
            check_type(path, &schema, id, "the id field", |t| {
                is_string(t) || t.is_integer()
            })?;
        } else if options.id_required {
            return Err(Error::FieldNotFound {
                field: options.id_field.clone(),
                role: crate::FieldRole::Id,
                records: meta
                    .metadata()
                    .file_metadata()
                    .num_rows()
                    .try_into()
                    .unwrap_or(0),
            });
        }
        let roots: Vec<usize> = match id {
            Some(id) if id != text => vec![text.min(id), text.max(id)],
            _ => vec![text],
        };
        let position = |c: usize| roots.iter().position(|&r| r == c).unwrap_or(0);
        Ok(ParquetReader {
            path: path.to_path_buf(),
            mask: ProjectionMask::roots(meta.parquet_schema(), roots.iter().copied()),
            text: position(text),
            id: id.map(position),
            options: options.clone(),
            file,
            meta,
            next_group: 0,
            reader: None,
            batch: None,
            in_batch: 0,
            row: 0,
            group_start: 0,
            bytes: 0,
            total,
            with_id: 0,
        })
    }

    /// The 1-based number of the row last yielded (0 before the first).
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ParquetCopier, ParquetReader, ReadOptions};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-3-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let path = dir.join("in.parquet");
    /// # ParquetCopier::write_example(&path, &[("a", "alpha")])?;
    /// let reader = ParquetReader::open(&path, &ReadOptions::default())?;
    /// assert_eq!(reader.row(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row(&self) -> u64 {
        self.row
    }

    /// Bytes of the row groups read so far (compressed, as stored) and the file's
    /// size.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ParquetCopier, ParquetReader, ReadOptions};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-4-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let path = dir.join("in.parquet");
    /// # ParquetCopier::write_example(&path, &[("a", "alpha")])?;
    /// let mut reader = ParquetReader::open(&path, &ReadOptions::default())?;
    /// reader.by_ref().for_each(drop);
    /// let (read, total) = reader.bytes();
    /// assert!(read > 0 && read <= total);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bytes(&self) -> (u64, u64) {
        (self.bytes, self.total)
    }

    /// Rows read that had an id (a non-null value in the id column).
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ParquetCopier, ParquetReader, ReadOptions};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-5-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let path = dir.join("in.parquet");
    /// # ParquetCopier::write_example(&path, &[("a", "alpha")])?;
    /// let mut reader = ParquetReader::open(&path, &ReadOptions::default())?;
    /// reader.by_ref().for_each(drop);
    /// assert_eq!(reader.with_id(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_id(&self) -> u64 {
        self.with_id
    }

    /// Where the last row came from: `path:row N`.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::corpus::{ParquetCopier, ParquetReader, ReadOptions};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-6-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let path = dir.join("in.parquet");
    /// # ParquetCopier::write_example(&path, &[("a", "alpha")])?;
    /// let mut reader = ParquetReader::open(&path, &ReadOptions::default())?;
    /// reader.next();
    /// assert!(reader.location().ends_with("in.parquet:row 1"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn location(&self) -> String {
        format!("{}:row {}", self.path.display(), self.row)
    }

    fn problem(&self, kind: ProblemKind, message: impl Into<String>) -> Problem {
        Problem::new(self.location(), message, kind)
    }

    /// Opens the next row group; `Ok(false)` after the last one.
    fn next_group(&mut self) -> Result<bool, Problem> {
        let groups = self.meta.metadata().row_groups();
        let Some(group) = groups.get(self.next_group) else {
            return Ok(false);
        };
        let rg = self.next_group;
        self.next_group += 1;
        self.group_start = self.row;
        let rows = u64::try_from(group.num_rows()).unwrap_or(0);
        let (text, id) = (&self.options.text_field, &self.options.id_field);
        let mut size = 0u64;
        let mut stored = 0u64;
        for c in group.columns() {
            let name = c.column_path().parts().first().map(String::as_str);
            if name == Some(text.as_str()) || name == Some(id.as_str()) {
                size =
                    size.saturating_add(u64::try_from(c.uncompressed_size()).unwrap_or(u64::MAX));
                stored = stored.saturating_add(u64::try_from(c.compressed_size()).unwrap_or(0));
            }
        }
        self.bytes = self.bytes.saturating_add(stored).min(self.total);
        let refuse = |this: &mut Self, message: String| {
            // The row group's rows are skipped: the next row keeps its number.
            this.row = this.group_start.saturating_add(rows);
            Err(this.problem(ProblemKind::TooLarge, message))
        };
        if size > MAX_ROW_GROUP_BYTES {
            return refuse(
                self,
                format!(
                    "row group {rg} ({rows} rows) has {size} bytes of text and ids, more \
                     than the limit of {MAX_ROW_GROUP_BYTES}; not read"
                ),
            );
        }
        match row_group_reader(&self.path, &self.file, &self.meta, self.mask.clone(), rg) {
            Ok(r) => {
                self.reader = Some(r);
                Ok(true)
            }
            Err(e) => {
                self.row = self.group_start.saturating_add(rows);
                Err(Problem::new(
                    self.location(),
                    e.to_string(),
                    ProblemKind::Unreadable,
                ))
            }
        }
    }

    /// The document of row `i` of the current batch.
    fn row_document(&mut self, batch: &RecordBatch, i: usize) -> Result<Document, Problem> {
        self.row += 1;
        let text = match string_at(batch.column(self.text), i) {
            Ok(Some(t)) => t,
            Ok(None) => {
                return Err(self.problem(
                    ProblemKind::Schema,
                    format!(
                        "column {:?} (the text field) is null",
                        self.options.text_field
                    ),
                ));
            }
            Err(t) => return Err(self.problem(ProblemKind::Schema, format!("type {t}"))),
        };
        if text.len() as u64 > self.options.max_document_bytes {
            return Err(self.problem(
                ProblemKind::TooLarge,
                format!(
                    "text is {} bytes, more than the limit of {} bytes (max_document_bytes)",
                    text.len(),
                    self.options.max_document_bytes
                ),
            ));
        }
        if text.trim().is_empty() {
            return Err(self.problem(ProblemKind::Empty, "text is empty or only whitespace"));
        }
        let id = match self.id.map(|c| id_at(batch.column(c), i)) {
            Some(Ok(Some(id))) => {
                self.with_id += 1;
                id
            }
            _ => self.row.to_string(),
        };
        Ok(Document::new(id, text))
    }
}

/// An error's message without the file's path (a problem names it already).
fn message_of(e: Error) -> String {
    match e {
        Error::Format { message, .. } => message,
        other => other.to_string(),
    }
}

fn column_names(schema: &Schema) -> String {
    let names: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{:?}", f.name()))
        .collect();
    names.join(", ")
}

fn check_type(
    path: &Path,
    schema: &Schema,
    column: usize,
    role: &str,
    ok: impl Fn(&DataType) -> bool,
) -> Result<(), Error> {
    let field = schema.field(column);
    let t = match field.data_type() {
        DataType::Dictionary(_, value) => value.as_ref(),
        t => t,
    };
    if ok(t) {
        return Ok(());
    }
    Err(format_error(
        path,
        format!(
            "column {:?} ({role}) has type {}, expected a string{} column",
            field.name(),
            field.data_type(),
            if role == "the id field" {
                " or integer"
            } else {
                ""
            }
        ),
    ))
}

impl Iterator for ParquetReader {
    type Item = Result<Document, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(batch) = self.batch.take() {
                if self.in_batch < batch.num_rows() {
                    let i = self.in_batch;
                    self.in_batch += 1;
                    let item = self.row_document(&batch, i);
                    self.batch = Some(batch);
                    return Some(item);
                }
            }
            let path = &self.path;
            match self.reader.as_mut().map(|r| next_batch(path, r)) {
                Some(Some(Ok(batch))) => {
                    self.batch = Some(batch);
                    self.in_batch = 0;
                }
                Some(Some(Err(e))) => {
                    // A damaged page: the rest of the row group is skipped.
                    self.reader = None;
                    let rows = self
                        .meta
                        .metadata()
                        .row_groups()
                        .get(self.next_group - 1)
                        .map_or(0, |g| u64::try_from(g.num_rows()).unwrap_or(0));
                    self.row = self.group_start.saturating_add(rows);
                    let message = format!(
                        "row group {}: {}; not read",
                        self.next_group - 1,
                        message_of(e)
                    );
                    return Some(Err(self.problem(ProblemKind::Unreadable, message)));
                }
                Some(None) | None => {
                    self.reader = None;
                    match self.next_group() {
                        Ok(true) => {}
                        Ok(false) => return None,
                        Err(problem) => return Some(Err(problem)),
                    }
                }
            }
        }
    }
}

/// The type of an added column, from its first value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Added {
    Text,
    Bool,
    Int,
    Float,
}

impl Added {
    fn of(v: &serde_json::Value) -> Self {
        match v {
            serde_json::Value::Bool(_) => Added::Bool,
            serde_json::Value::Number(n) if n.is_i64() => Added::Int,
            serde_json::Value::Number(_) => Added::Float,
            _ => Added::Text,
        }
    }

    fn data_type(self) -> DataType {
        match self {
            Added::Text => DataType::Utf8,
            Added::Bool => DataType::Boolean,
            Added::Int => DataType::Int64,
            Added::Float => DataType::Float64,
        }
    }

    fn array(self, values: &[serde_json::Value]) -> ArrayRef {
        match self {
            Added::Text => Arc::new(
                values
                    .iter()
                    .map(|v| match v {
                        serde_json::Value::String(s) => Some(s.clone()),
                        serde_json::Value::Null => None,
                        other => Some(other.to_string()),
                    })
                    .collect::<StringArray>(),
            ),
            Added::Bool => Arc::new(
                values
                    .iter()
                    .map(serde_json::Value::as_bool)
                    .collect::<BooleanArray>(),
            ),
            Added::Int => Arc::new(
                values
                    .iter()
                    .map(serde_json::Value::as_i64)
                    .collect::<Int64Array>(),
            ),
            Added::Float => Arc::new(
                values
                    .iter()
                    .map(serde_json::Value::as_f64)
                    .collect::<Float64Array>(),
            ),
        }
    }
}

/// The row group being copied from.
struct Open {
    group: usize,
    reader: ParquetRecordBatchReader,
    batch: Option<RecordBatch>,
    /// The 1-based number of the batch's first row, in the file.
    batch_start: u64,
}

/// Writes chosen rows of Parquet files to one Parquet file: every column of the input
/// as it is (names, types, nulls, nesting, the schema's metadata), plus added columns
/// (the annotations of `ndd dedup --annotate-out`), rows in the order they are asked
/// for.
///
/// Rows are named by their file and 1-based number ([`ParquetReader::row`]) and must
/// be asked for in increasing order within a file; several files may be copied one
/// after another into one output (the shards of a folder) if their schemas are equal.
/// Only the row groups holding a row asked for are decoded, a batch at a time. The
/// added columns' names and types are those of the first row's `fields` (string,
/// boolean, 64-bit integer or float; anything else as its JSON text); every later
/// row gives the same names.
///
/// The output is compressed with the codec of the first input's first column
/// (snappy for an uncompressed input).
///
/// # Example
///
/// ```
/// use near_dup::corpus::{ParquetCopier, ParquetReader, ReadOptions};
/// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-7-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let input = dir.join("in.parquet");
/// ParquetCopier::write_example(&input, &[("a", "alpha"), ("b", "beta"), ("c", "gamma")])?;
/// let out = dir.join("out.parquet");
/// let mut copier = ParquetCopier::new(std::fs::File::create(&out)?);
/// copier.copy(&input, 1, &Default::default())?; // no added column
/// copier.copy(&input, 3, &Default::default())?;
/// copier.finish()?;
/// let ids: Vec<String> = ParquetReader::open(&out, &ReadOptions::default())?
///     .map(|d| d.map(|d| d.id)).collect::<Result<_, _>>()?;
/// assert_eq!(ids, ["a", "c"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParquetCopier<W: Write + Send> {
    out: Option<W>,
    writer: Option<ArrowWriter<W>>,
    /// The input's schema and the added columns, fixed by the first row.
    schema: Option<(SchemaRef, Vec<(String, Added)>)>,
    source: Option<(PathBuf, File, ArrowReaderMetadata)>,
    open: Option<Open>,
    /// Rows of the current batch to write, and their added fields.
    take: Vec<u32>,
    added: Vec<Vec<serde_json::Value>>,
    /// The column whose value is replaced ([`copy_edited`](Self::copy_edited)), and
    /// the replacement of each row of `take` (`None`: the value as it is).
    edit_column: Option<String>,
    edits: Vec<Option<String>>,
    last: u64,
}

impl<W: Write + Send> std::fmt::Debug for ParquetCopier<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetCopier")
            .field("source", &self.source.as_ref().map(|s| &s.0))
            .field("last", &self.last)
            .finish_non_exhaustive()
    }
}

impl<W: Write + Send> ParquetCopier<W> {
    /// A copier writing to `out`.
    ///
    /// # Example
    ///
    /// ```
    /// let copier = near_dup::corpus::ParquetCopier::new(Vec::new());
    /// assert!(format!("{copier:?}").starts_with("ParquetCopier"));
    /// ```
    pub fn new(out: W) -> Self {
        ParquetCopier {
            out: Some(out),
            writer: None,
            schema: None,
            source: None,
            open: None,
            take: Vec::new(),
            added: Vec::new(),
            edit_column: None,
            edits: Vec::new(),
            last: 0,
        }
    }

    /// Copies row `row` (1-based) of the Parquet file `source`, with `fields` as
    /// added columns.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if `source` cannot be opened or the output written;
    /// [`Error::Format`] if `source` is not readable Parquet, has another schema
    /// than the first source, has no row `row`, a row asked for is not after the last
    /// one of the same file, an added field is already a column of the input, or
    /// `fields` names other fields than the first row's.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::ParquetCopier;
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-pcopy-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let input = dir.join("in.parquet");
    /// ParquetCopier::write_example(&input, &[("a", "alpha"), ("b", "beta")])?;
    /// let mut copier = ParquetCopier::new(Vec::new());
    /// copier.copy(&input, 2, &Default::default())?;
    /// assert!(copier.copy(&input, 1, &Default::default()).is_err()); // rows go forward
    /// assert_eq!(&copier.finish()?[..4], b"PAR1");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn copy(
        &mut self,
        source: &Path,
        row: u64,
        fields: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), Error> {
        self.copy_row(source, row, fields, None)
    }

    /// Copies row `row` (1-based) of the Parquet file `source` with the value of its
    /// string column `column` replaced by `text` (`ndd lines` and `ndd substrings`
    /// write the edited text so); every other column is copied as it is.
    ///
    /// # Errors
    ///
    /// As [`copy`](Self::copy); [`Error::Format`] as well if `source` has no column
    /// `column`, or its type is not `Utf8`, `LargeUtf8` or `Utf8View` (a
    /// dictionary-encoded text column is refused rather than re-typed), or another
    /// column was edited before.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{ParquetCopier, ParquetReader, ReadOptions};
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-pedit-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let input = dir.join("in.parquet");
    /// ParquetCopier::write_example(&input, &[("a", "alpha"), ("b", "beta")])?;
    /// let out = dir.join("out.parquet");
    /// let mut copier = ParquetCopier::new(std::fs::File::create(&out)?);
    /// copier.copy_edited(&input, 1, "text", "ALPHA")?;
    /// copier.copy(&input, 2, &Default::default())?; // as it is
    /// copier.finish()?;
    /// let docs: Vec<(String, String)> = ParquetReader::open(&out, &ReadOptions::default())?
    ///     .map(|d| d.map(|d| (d.id, d.text))).collect::<Result<_, _>>()?;
    /// assert_eq!(docs, [("a".into(), "ALPHA".into()), ("b".into(), "beta".into())]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn copy_edited(
        &mut self,
        source: &Path,
        row: u64,
        column: &str,
        text: &str,
    ) -> Result<(), Error> {
        match &self.edit_column {
            Some(c) if c != column => {
                return Err(format_error(
                    source,
                    format!(
                        "column {column:?} edited after column {c:?}: one output edits one column"
                    ),
                ));
            }
            Some(_) => {}
            None => self.edit_column = Some(column.to_owned()),
        }
        self.copy_row(source, row, &serde_json::Map::new(), Some(text))
    }

    /// [`copy`](Self::copy), with the edited column's value replaced by `edit`.
    fn copy_row(
        &mut self,
        source: &Path,
        row: u64,
        fields: &serde_json::Map<String, serde_json::Value>,
        edit: Option<&str>,
    ) -> Result<(), Error> {
        if self.source.as_ref().is_none_or(|(p, _, _)| p != source) {
            self.flush()?;
            self.open = None;
            let (file, meta) = open_metadata(source)?;
            self.start(source, &meta, fields)?;
            self.source = Some((source.to_path_buf(), file, meta));
            self.last = 0;
        }
        if row <= self.last {
            return Err(format_error(
                source,
                format!("row {row} asked for after row {}", self.last),
            ));
        }
        self.last = row;
        let Some((path, file, meta)) = &self.source else {
            return Ok(());
        };
        // The row group holding `row`.
        let mut first = 1u64;
        let mut group = None;
        for (g, rg) in meta.metadata().row_groups().iter().enumerate() {
            let rows = u64::try_from(rg.num_rows()).unwrap_or(0);
            if row < first.saturating_add(rows) {
                group = Some((g, first));
                break;
            }
            first = first.saturating_add(rows);
        }
        let Some((group, group_first)) = group else {
            return Err(format_error(source, format!("no row {row}")));
        };
        if self.open.as_ref().is_none_or(|o| o.group != group) {
            let (path, file, meta) = (path.clone(), file.try_clone(), meta.clone());
            self.flush()?;
            let file = file.map_err(|e| Error::io(&path, e))?;
            let mask = ProjectionMask::all();
            self.open = Some(Open {
                group,
                reader: row_group_reader(&path, &file, &meta, mask, group)?,
                batch: None,
                batch_start: group_first,
            });
        }
        // The batch holding `row`.
        loop {
            let open = self
                .open
                .as_mut()
                .ok_or_else(|| format_error(source, "no row group"))?;
            let end = open
                .batch
                .as_ref()
                .map_or(open.batch_start, |b| open.batch_start + b.num_rows() as u64);
            if open.batch.is_some() && row < end {
                let at = u32::try_from(row - open.batch_start)
                    .map_err(|_| format_error(source, "batch too large"))?;
                self.push_fields(source, fields)?;
                self.take.push(at);
                self.edits.push(edit.map(str::to_owned));
                return Ok(());
            }
            self.flush()?;
            let open = self
                .open
                .as_mut()
                .ok_or_else(|| format_error(source, "no row group"))?;
            match next_batch(source, &mut open.reader) {
                Some(Ok(batch)) => {
                    open.batch_start = end;
                    open.batch = Some(batch);
                }
                Some(Err(e)) => return Err(e),
                None => return Err(format_error(source, format!("no row {row}"))),
            }
        }
    }

    /// Fixes the output's schema from the first source and row, or checks a later
    /// source's schema against it.
    fn start(
        &mut self,
        source: &Path,
        meta: &ArrowReaderMetadata,
        fields: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), Error> {
        let input = meta.schema();
        if let Some((first, _)) = &self.schema {
            // Names and types; field metadata and nullability may differ (a writer
            // records what each shard happened to hold).
            let same = first.fields().len() == input.fields().len() + self.added.len()
                && first
                    .fields()
                    .iter()
                    .zip(input.fields().iter())
                    .all(|(a, b)| {
                        a.name() == b.name() && a.data_type().equals_datatype(b.data_type())
                    });
            if !same {
                return Err(format_error(
                    source,
                    "its columns differ from the first Parquet file's: the shards of one \
                     output must have one schema",
                ));
            }
            return Ok(());
        }
        if let Some(k) = fields.keys().find(|k| input.field_with_name(k).is_ok()) {
            return Err(format_error(
                source,
                format!("the input already has a column {k:?}, which the added column would hide"),
            ));
        }
        let added: Vec<(String, Added)> = fields
            .iter()
            .map(|(k, v)| (k.clone(), Added::of(v)))
            .collect();
        let mut columns: Vec<Arc<Field>> = input.fields().iter().cloned().collect();
        columns.extend(
            added
                .iter()
                .map(|(k, t)| Arc::new(Field::new(k, t.data_type(), true))),
        );
        let schema = Arc::new(Schema::new_with_metadata(columns, input.metadata().clone()));
        let codec = meta
            .metadata()
            .row_groups()
            .first()
            .and_then(|g| g.columns().first())
            .map(|c| c.compression())
            .filter(|c| *c != parquet::basic::Compression::UNCOMPRESSED)
            .unwrap_or(parquet::basic::Compression::SNAPPY);
        let props = WriterProperties::builder().set_compression(codec).build();
        let out = self
            .out
            .take()
            .ok_or_else(|| format_error(source, "output already closed"))?;
        self.writer = Some(
            ArrowWriter::try_new(out, Arc::clone(&schema), Some(props))
                .map_err(|e| format_error(source, e))?,
        );
        self.added = vec![Vec::new(); added.len()];
        self.schema = Some((schema, added));
        Ok(())
    }

    fn push_fields(
        &mut self,
        source: &Path,
        fields: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), Error> {
        let Some((_, added)) = &self.schema else {
            return Ok(());
        };
        if fields.len() != added.len() {
            return Err(format_error(source, "rows with different added fields"));
        }
        for ((name, _), values) in added.iter().zip(&mut self.added) {
            let v = fields
                .get(name)
                .ok_or_else(|| format_error(source, format!("a row without the field {name:?}")))?;
            values.push(v.clone());
        }
        Ok(())
    }

    /// Writes the rows taken from the current batch.
    fn flush(&mut self) -> Result<(), Error> {
        if self.take.is_empty() {
            return Ok(());
        }
        let path = self
            .source
            .as_ref()
            .map(|s| s.0.clone())
            .unwrap_or_default();
        let (Some(open), Some((schema, added)), Some(writer)) =
            (&self.open, &self.schema, &mut self.writer)
        else {
            return Ok(());
        };
        let Some(batch) = &open.batch else {
            return Ok(());
        };
        let indices = UInt32Array::from(std::mem::take(&mut self.take));
        let edits = std::mem::take(&mut self.edits);
        let rows = arrow_select::take::take_record_batch(batch, &indices)
            .map_err(|e| format_error(&path, e))?;
        let mut columns = rows.columns().to_vec();
        if let Some(name) = &self.edit_column {
            if edits.iter().any(Option::is_some) {
                let (i, _) = rows.schema().column_with_name(name).ok_or_else(|| {
                    format_error(
                        &path,
                        format!("no column {name:?} to write the edited text to"),
                    )
                })?;
                columns[i] = replaced(&columns[i], &edits).map_err(|t| {
                    format_error(
                        &path,
                        format!(
                            "column {name:?} is {t}: only a Utf8, LargeUtf8 or Utf8View text \
                             column is written back edited"
                        ),
                    )
                })?;
            }
        }
        for ((_, t), values) in added.iter().zip(&mut self.added) {
            columns.push(t.array(values));
            values.clear();
        }
        let out = RecordBatch::try_new(Arc::clone(schema), columns)
            .map_err(|e| format_error(&path, e))?;
        writer.write(&out).map_err(|e| format_error(&path, e))
    }

    /// Writes the last rows and the footer, and gives the output back.
    ///
    /// # Errors
    ///
    /// [`Error::Format`] if the last rows or the footer cannot be written (an I/O
    /// error of the output included); [`Error::Format`] as well if no row was copied
    /// (a Parquet file needs a schema).
    ///
    /// # Example
    ///
    /// ```
    /// let empty = near_dup::corpus::ParquetCopier::new(Vec::new());
    /// assert!(empty.finish().is_err()); // no row, no schema
    /// ```
    pub fn finish(mut self) -> Result<W, Error> {
        let path = self
            .source
            .as_ref()
            .map(|s| s.0.clone())
            .unwrap_or_default();
        self.flush()?;
        let writer = self
            .writer
            .take()
            .ok_or_else(|| format_error(&path, "no row to write: a Parquet output needs one"))?;
        writer.into_inner().map_err(|e| format_error(&path, e))
    }
}

/// The string column `col` with the values of `edits` in place of its own where they
/// are `Some`, of the same type; `Err` names another type.
fn replaced(col: &ArrayRef, edits: &[Option<String>]) -> Result<ArrayRef, DataType> {
    let mut values = Vec::with_capacity(col.len());
    for (k, edit) in edits.iter().enumerate().take(col.len()) {
        values.push(match edit {
            Some(text) => Some(text.clone()),
            None => string_at(col, k)?,
        });
    }
    Ok(match col.data_type() {
        DataType::Utf8 => Arc::new(values.into_iter().collect::<StringArray>()),
        DataType::LargeUtf8 => Arc::new(values.into_iter().collect::<LargeStringArray>()),
        DataType::Utf8View => Arc::new(values.into_iter().collect::<StringViewArray>()),
        other => return Err(other.clone()),
    })
}

impl ParquetCopier<File> {
    /// Writes a small Parquet file with the columns `id` and `text` (for examples and
    /// tests).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] or [`Error::Format`] if it cannot be written.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndd-doc-parquet-8-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("two.parquet");
    /// near_dup::corpus::ParquetCopier::write_example(&path, &[("a", "x"), ("b", "y")])?;
    /// assert_eq!(&std::fs::read(&path)?[..4], b"PAR1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(hidden)]
    pub fn write_example(path: &Path, rows: &[(&str, &str)]) -> Result<(), Error> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, true),
            Field::new("text", DataType::Utf8, true),
        ]));
        let ids: StringArray = rows.iter().map(|r| Some(r.0)).collect();
        let texts: StringArray = rows.iter().map(|r| Some(r.1)).collect();
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(ids), Arc::new(texts)])
            .map_err(|e| format_error(path, e))?;
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut w = ArrowWriter::try_new(file, schema, None).map_err(|e| format_error(path, e))?;
        w.write(&batch).map_err(|e| format_error(path, e))?;
        w.close().map_err(|e| format_error(path, e))?;
        Ok(())
    }
}

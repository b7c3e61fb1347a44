//! [`ParquetReader`]: the documents of one Parquet file, a row group at a time.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Schema};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReader};

use super::file::{
    format_error, is_string, next_batch, open_metadata, row_group_reader, string_at,
};
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

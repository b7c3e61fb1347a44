//! [`ParquetCopier`]: chosen rows of Parquet files written to one Parquet file.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch};
use arrow_array::{LargeStringArray, StringArray, StringViewArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReader};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::file::properties::WriterProperties;

use super::file::{format_error, next_batch, open_metadata, row_group_reader, string_at};
use crate::Error;

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
            Added::Text => column::<StringArray, _>(values, |v| match v {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Null => None,
                other => Some(other.to_string()),
            }),
            Added::Bool => column::<BooleanArray, _>(values, serde_json::Value::as_bool),
            Added::Int => column::<Int64Array, _>(values, serde_json::Value::as_i64),
            Added::Float => column::<Float64Array, _>(values, serde_json::Value::as_f64),
        }
    }
}

/// The column of type `A` holding `value` of each of `values` (null where it is `None`).
fn column<A, T>(
    values: &[serde_json::Value],
    value: impl Fn(&serde_json::Value) -> Option<T>,
) -> ArrayRef
where
    A: Array + FromIterator<Option<T>> + 'static,
{
    Arc::new(values.iter().map(value).collect::<A>())
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
/// Rows are named by their file and 1-based number
/// ([`ParquetReader::row`](crate::ParquetReader::row)) and must be asked for in
/// increasing order within a file; several files may be copied one after another into
/// one output (the shards of a folder) if their schemas are equal.
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

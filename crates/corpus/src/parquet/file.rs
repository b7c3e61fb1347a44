//! Opening a Parquet file and decoding its row groups and string values, for the
//! reader and the copier alike: a panic of the `parquet` crate on damaged input
//! becomes an [`Error::Format`].

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};

use crate::Error;

/// Rows decoded at a time.
pub(super) const BATCH_ROWS: usize = 1024;

pub(super) fn format_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// `f`, with a panic of the `parquet` crate on damaged input (its footer decoder
/// unwraps some fields: found by this crate's tests on a footer with a byte changed)
/// turned into an [`Error::Format`] naming `what`.
pub(super) fn guarded<T, E: std::fmt::Display>(
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
pub(super) fn open_metadata(path: &Path) -> Result<(File, ArrowReaderMetadata), Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = guarded(path, "not a readable Parquet file", || {
        ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
    })?;
    Ok((file, meta))
}

/// The next batch of `reader`, a panic of the decoder on a damaged page an error.
pub(super) fn next_batch(
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
pub(super) fn row_group_reader(
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
pub(super) fn string_at(col: &ArrayRef, i: usize) -> Result<Option<String>, DataType> {
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

pub(super) fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

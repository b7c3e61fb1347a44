//! Parquet files (feature `parquet`): [`ParquetReader`] yields documents from a text
//! column and an id column chosen by name, a row group at a time; [`ParquetCopier`]
//! writes chosen rows back with every column of the input, plus added columns.
//!
//! `read` holds the reader, `write` the copier; both open files and decode row groups
//! and string values through `file`, which depends on neither.

mod file;
mod read;
mod write;

pub use read::{MAX_ROW_GROUP_BYTES, ParquetReader};
pub use write::ParquetCopier;

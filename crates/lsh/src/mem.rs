//! The memory estimates of the memory reports: a hash map's allocation from its
//! capacity (`ndd_core::mem::map_bytes`), and bytes per document.

pub(crate) use ndd_core::mem::map_bytes;

/// `bytes` divided by `documents` (0 for no document).
pub(crate) fn per_document(bytes: usize, documents: usize) -> f64 {
    ndd_core::mem::bytes_per(bytes as u64, documents as u64)
}

//! The memory estimates of the memory reports: a hash map's allocation from its
//! capacity (`ndd_core::mem::map_bytes`), and bytes per document.

pub(crate) use ndd_core::mem::map_bytes;

/// `bytes` divided by `documents` (0 for no document).
pub(crate) fn per_document(bytes: usize, documents: usize) -> f64 {
    if documents == 0 {
        return 0.0;
    }
    bytes as f64 / documents as f64
}

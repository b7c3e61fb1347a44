//! SimHash (work in progress).

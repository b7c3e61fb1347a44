//! Repeated lines and paragraphs (work in progress).

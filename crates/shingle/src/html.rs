//! HTML to text.

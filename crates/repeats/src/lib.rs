//! Repeated text across a corpus: what stays inside the documents a near-duplicate
//! pass keeps (navigation, cookie notices, license headers).
//!
//! * [`lines`]: repeated lines and paragraphs, counted by normalized hash across the
//!   corpus and removed (every occurrence of a unit seen at least N times, or every
//!   occurrence after the first), as CCNet's paragraph deduplication does (Wenzek et
//!   al., LREC 2020, section 3.3).

pub mod lines;
// `substrings`: exact repeated substrings (task E of issue 34) are declared here.

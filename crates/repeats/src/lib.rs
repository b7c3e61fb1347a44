//! Repeated text across a corpus: what stays inside the documents a near-duplicate
//! pass keeps (navigation, cookie notices, license headers).
//!
//! * [`lines`]: repeated lines and paragraphs, counted by normalized hash across the
//!   corpus and removed (every occurrence of a unit seen at least N times, or every
//!   occurrence after the first), as CCNet's paragraph deduplication does (Wenzek et
//!   al., LREC 2020, section 3.3).
//! * [`substrings`]: exact repeated substrings, every span of at least L bytes found
//!   in two documents or more with a suffix array, as byte ranges to remove (Lee et
//!   al., ACL 2022, section 4.1).

pub mod lines;
pub mod substrings;

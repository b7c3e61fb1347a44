//! Repeated lines and paragraphs across a corpus: the boilerplate (navigation, cookie
//! notices, license headers) that stays inside the documents a near-duplicate pass
//! keeps.
//!
//! Two passes over the same documents, in the same order:
//!
//! 1. [`Counter`] splits each document into [`units`](fn@units) (lines or paragraphs,
//!    [`Unit`]), hashes each with its [`Normalization`] ([`Normalizer`]: whitespace
//!    collapsed, and by default case folded, NFKC, digits read as `0`), leaves out
//!    blank units and those shorter than [`Config::min_chars`], and counts the rest by
//!    hash, per occurrence or per document ([`CountBy`]): in memory (a hash table,
//!    optionally under a budget), or out of core through `ndd-scale`'s sorted runs.
//! 2. [`Repeated`] gives each document its [`Edits`], the byte ranges to remove:
//!    every occurrence of a unit counted at least N times ([`Policy::AtLeast`]) or
//!    every occurrence after the first ([`Policy::KeepFirst`]). Its [`Summary`] says
//!    what was removed and lists the most repeated units with a sample text.
//!
//! This is the paragraph deduplication of CCNet (Wenzek et al., "CCNet: Extracting
//! High Quality Monolingual Datasets from Web Crawl Data", LREC 2020, section 3.3:
//! newline-separated paragraphs hashed after normalization, every occurrence after
//! the first removed) and of datatrove's line deduplication (lines hashed, those seen
//! in other documents removed); both engines give the same edits.
//!
//! # Example
//!
//! ```
//! use near_dup::repeats::lines::{run, Config, Policy};
//! let docs = [
//!     "Home | News | Contact\nThe council met on Monday.\nAll rights reserved 2019.",
//!     "Home | News | Contact\nA new bridge opens.\nAll rights reserved 2024.",
//! ];
//! let (edits, summary) = run(&docs, &Config::new(Policy::AtLeast(2)))?;
//! assert_eq!(edits[0].apply(docs[0]), "The council met on Monday.\n");
//! assert_eq!(edits[1].apply(docs[1]), "A new bridge opens.\n");
//! assert_eq!(summary.removed_units, 4);
//! assert_eq!(summary.top[0].sample, "Home | News | Contact");
//! # Ok::<(), near_dup::repeats::lines::Error>(())
//! ```

mod config;
mod count;
mod error;
mod plan;
mod run;
mod units;

pub use config::{Config, CountBy, Normalization, Policy, Unit};
pub use count::Counter;
pub use error::Error;
pub use plan::{Edits, Repeated, SAMPLE_BYTES, Stats, Summary, TopUnit};
pub use run::{run, run_with};
pub use units::{Normalizer, UnitSpan, Units, units};

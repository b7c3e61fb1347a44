//! The ndd pipeline: from a corpus to deduplicated groups.
//!
//! (Work in progress: the stages land in the following commits.)

mod document;
mod error;

pub mod corpus;

pub use corpus::{
    Corpus, ErrorPolicy, FolderReader, HtmlMode, JsonlReader, Problem, ProblemKind, ReadOptions,
    read_corpus,
};
pub use document::{Document, OrderKey};
pub use error::Error;

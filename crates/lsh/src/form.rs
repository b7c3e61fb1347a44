//! The checks that every index's `from_bytes` makes on its header: numbers that must fit
//! a `usize`, the flags byte and the scheme, and a document count that the bytes left
//! can hold. Each message names the form's type, as `LSH forest: …`.

use std::fmt;

use ndd_core::codec::ByteReader;
use ndd_core::{Error, SchemeId};

use crate::table::MAX_DOCS;

/// The byte form of one index type, named in its corrupt-data messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Form(pub(crate) &'static str);

impl Form {
    /// A [`Error::CorruptData`] naming this form.
    pub(crate) fn corrupt(self, what: impl fmt::Display) -> Error {
        Error::corrupt_data(format!("{}: {what}", self.0))
    }

    /// Reads a `u64` that must fit a `usize` (`name` for the message).
    pub(crate) fn read_usize(self, r: &mut ByteReader<'_>, name: &str) -> Result<usize, Error> {
        let v = r.u64()?;
        usize::try_from(v)
            .map_err(|_| self.corrupt(format_args!("{name} = {v} does not fit a usize")))
    }

    /// Reads the flags byte, which may set only the bits of `known`, and the scheme,
    /// present when the flags set `has_scheme`.
    pub(crate) fn flags_and_scheme(
        self,
        r: &mut ByteReader<'_>,
        known: u8,
        has_scheme: u8,
    ) -> Result<(u8, Option<SchemeId>), Error> {
        let flags = r.u8()?;
        if flags & !known != 0 {
            return Err(self.corrupt(format_args!("unknown flags {flags:#04x}")));
        }
        let scheme_bits = r.u64()?;
        let scheme = (flags & has_scheme != 0).then(|| SchemeId::from_u64(scheme_bits));
        Ok((flags, scheme))
    }

    /// Refuses, before anything is allocated, `n` documents of at least `min_doc` bytes
    /// each that the bytes left in `r` cannot hold, and documents without a scheme.
    pub(crate) fn check_doc_count(
        self,
        r: &ByteReader<'_>,
        n: usize,
        min_doc: usize,
        scheme: Option<SchemeId>,
    ) -> Result<(), Error> {
        let left = r.remaining();
        if n > MAX_DOCS || n.saturating_mul(min_doc) > left {
            return Err(self.corrupt(format_args!(
                "{n} documents cannot fit in the {left} bytes that remain"
            )));
        }
        if n > 0 && scheme.is_none() {
            return Err(self.corrupt("documents but no scheme"));
        }
        Ok(())
    }
}

//! The integration tests of ndd-learn as one test binary (the crate and its dependencies linked once).

mod learn;
mod sketch;

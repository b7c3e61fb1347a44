//! The integration tests of ndd-cluster as one test binary (the crate and its dependencies linked once).

mod clustering;
mod constraints;
mod distance;
mod rules;

//! The integration tests of ndd-align as one test binary (the crate and its dependencies linked once).

mod categories;
mod corpus;
mod hostile;
mod lcs;
mod measures;

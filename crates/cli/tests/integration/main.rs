//! The integration tests of ndd-cli as one test binary: each runs the built `ndd` binary.

mod bloom;
mod bucket_scan;
mod center;
mod cli;
mod common;
mod durian;
mod exact_copies;
mod index_folder;
mod input;
#[cfg(target_os = "linux")]
mod interrupts;
mod lines;
mod linkage;
mod messages;
mod out_of_core;
mod query;
mod query_folder;
mod quiet;
mod readme;
mod reliability;
mod report;
mod shards;
mod substrings;
mod train;

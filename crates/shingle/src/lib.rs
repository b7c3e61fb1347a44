//! Text preparation and feature extraction for ndd.
pub mod html;
pub mod rabin;

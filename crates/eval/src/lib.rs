//! Evaluation for near-duplicate detection.

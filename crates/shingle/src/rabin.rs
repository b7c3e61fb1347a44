//! 64-bit Rabin fingerprints.

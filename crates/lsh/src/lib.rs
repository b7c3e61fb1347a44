//! Banded LSH (work in progress).

//! Normalized compression distance (NCD) and SigNCD for near-duplicate detection,
//! after X. Zhang, Y. Yao, Y. Ji, B. Fang, "Effective and Fast Near Duplicate
//! Detection via Signature-Based Compression Metrics", Hindawi research article, 2016.
//!
//! * [`Compressor`]: the compressed length `C(x)`, measured into a reused buffer, over
//!   [`Snappy`] (the paper's default), [`Lz4`] and [`Deflate`] (raw, zlib, gzip; levels
//!   0–9); [`CompressorKind`] picks one by name.
//! * [`Ncd`]: equation 2, `(C(xy) − min{C(x), C(y)}) / max{C(x), C(y)}`.
//! * [`SigNcd`]: equation 4, NCD of punctuation-spot signatures (Sig-1L on commas by
//!   default, [`ndd_shingle::spots::PunctSpotExtractor`]) with the full-text fallback
//!   for documents with fewer than three spots.
//! * [`Corpus`]: strings with `C(x)` computed once; [`SearchConfig::search`]: all
//!   pairs with NCD ≤ τ, exact, pruned by the size bound (P1, Lemma 3) and optionally
//!   by the triangle inequality (P2, Lemma 5), on all cores with the `rayon` feature,
//!   with a [`SearchReport`] of what was compared and pruned. Algorithm 1's faster,
//!   inexact `checked` shortcut is a named option.
//!
//! NCD is a distance: 0 for identical inputs, about 1 for unrelated ones. Users who
//! think in similarities use `1 − NCD` (the score of the search's [`ndd_core::ScoredPair`]s).
//!
//! # Example
//!
//! ```
//! use near_dup::ncd::{SearchConfig, SigNcd};
//! let docs = [
//!     "Permission is hereby granted, free of charge, to any person obtaining a copy \
//!      of this software, to deal in the Software without restriction, including \
//!      without limitation the rights to use, copy, modify, merge, publish.",
//!     "Permission is hereby granted, free of charge, to any person obtaining a copy \
//!      of this software, to deal in the Software without restriction, including \
//!      without limitation the rights to use, copy, modify, merge, publish, distribute.",
//!     "This program is free software; you can redistribute it and/or modify it under \
//!      the terms of the GNU General Public License as published by the Free Software \
//!      Foundation, either version 3 of the License, or any later version.",
//! ];
//! let corpus = SigNcd::new().corpus(&docs)?;
//! let out = SearchConfig::new(0.5)?.search(&corpus)?;
//! assert_eq!(out.pairs.len(), 1);
//! assert_eq!((out.pairs[0].a, out.pairs[0].b), (0, 1));
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! - R. Cilibrasi and P. M. B. Vitányi, "Clustering by compression", IEEE Transactions on
//!   Information Theory 51(4), 2005.
//! - X. Zhang, Y. Yao, Y. Ji and B. Fang, "Effective and fast near duplicate detection via
//!   signature-based compression metrics", Mathematical Problems in Engineering, 2016.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod compress;
pub mod ncd;
pub mod search;

pub use compress::{Compressor, CompressorKind, Deflate, DeflateFormat, Lz4, Snappy};
pub use ncd::{Corpus, Ncd, SigNcd, SigNcdBuilder, monotone_ncd_from_lengths, ncd_from_lengths};
pub use search::{
    DEFAULT_P2_SLACK, DEFAULT_PIVOTS, Pruning, SearchBuilder, SearchConfig, SearchOutput,
    SearchReport,
};

//! SimHash for near-duplicate detection: a document's weighted features become `m`
//! bits whose Hamming distance estimates the angle between the feature vectors.
//!
//! * [`SimHasher`] — the sketcher: signatures of any length (64, 128, 384, 512, 1024,
//!   4096 … bits) on text through any [`FeatureExtractor`](ndd_core::FeatureExtractor)
//!   (word 3-grams by default, as in the `ndd` tool), on feature hashes, or on weighted vectors;
//!   [`Projection::Sign`] (`±1` values from hash bits, fast) or
//!   [`Projection::Gaussian`] (Charikar's Gaussian hyperplanes). A named
//!   configuration of [`Composed`]`<E, `[`SimHashSketcher`]`>`:
//!   build the extractor-free sketcher with
//!   [`SimHasherBuilder::build_sketcher`] and compose it with any extractor.
//! * [`Weighting`] — binary, term frequency, TF-IDF from
//!   [`DocumentFrequencies`](ndd_core::stats::DocumentFrequencies) ([`TfIdf`]), or your
//!   own weights ([`FeatureWeights`], [`FnWeights`]; the weight contract lives in
//!   [`ndd_core::weights`], shared with weighted MinHash, and is re-exported here).
//!   A term-frequency-aware model reaches the hasher through an extractor weighted by
//!   it ([`weighted_by`](ndd_core::weights::FeatureExtractorExt::weighted_by)).
//! * [`SimHashSignature`] — packed bits (a 64-bit fingerprint is one `u64`:
//!   [`SimHashSignature::as_u64`]); Hamming distance by popcount, the similarity
//!   estimate `1 − h/m`, the cosine estimate `cos(π·h/m)`, a versioned byte form;
//!   implements [`BitSignature`](ndd_core::BitSignature) for Hamming indexes.
//!
//! Sources: M. S. Charikar, *Similarity estimation techniques from rounding
//! algorithms*, STOC 2002 (random hyperplanes: a bit differs with probability `θ/π`);
//! G. S. Manku, A. Jain and A. Das Sarma, *Detecting near-duplicates for web crawling*,
//! WWW 2007 (64-bit fingerprints of weighted features); Hajishirzi, Yih and Kołcz,
//! *Adaptive near-duplicate detection via similarity learning*, SIGIR 2010 (//! §2.3 random projection, §3.2 LSH-Cosine with Gaussian values, Table 2 weighting,
//! Table 3 the 384-bit Charikar baseline, Figure 1 the 64…4096-bit sweep); and Zhang, Yao, Ji and Fang (Mathematical Problems in Engineering 2016)
//! (*Effective and fast near duplicate detection via signature-based compression
//! metrics*, §5.2 and §6: Google's simhash with 64-bit fingerprints as a baseline).
//!
//! # Example: estimate the similarity of two documents
//!
//! ```
//! use near_dup::{DocSketcher, Signature};
//! use near_dup::simhash::SimHasher;
//!
//! let hasher = SimHasher::new(384)?; // Hajishirzi, Yih and Kołcz's (SIGIR 2010) Charikar baseline length
//! let a = hasher.sketch("It was the best of times, it was the worst of times, it was the age of wisdom");
//! let b = hasher.sketch("It was the best of times, it was the worst of times, it was the age of folly");
//! let sim = a.similarity(&b)?; // 1 − h/m, estimates 1 − θ/π
//! let cos = a.cosine_estimate(&b)?; // cos(π·h/m)
//! // Binary vectors of the word 3-grams: 11 of 12 shared in each, cosine 11/12,
//! // so 1 − θ/π = 0.87.
//! assert!(sim.value() > 0.75 && cos.value() > 0.7);
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # Value specification
//!
//! Signatures are a pure function of the features, their weights, the parameters and
//! the crate's major version, bit-identical on every platform; `tests/simhash_spec.py`
//! re-implements this from the text below and produces the golden vectors.
//!
//! For a document with features `f` and weights `w_f`, bit `i` is 1 exactly when
//! `S_i = Σ_f w_f·r_f[i] > 0`. The values `r_f[i]` (`fmix64` is
//! [`ndd_core::hash::mix64`], `γ = 0x9E3779B97F4A7C15`, `u64` arithmetic wraps):
//!
//! * [`Projection::Sign`]: `s = fmix64(f ⊕ fmix64(seed ⊕ 0x73696D6861736821))`; block
//!   word `b_0 = s`, `b_j = fmix64(s + j·γ)`; `r_f[64j + t] = +1` if bit `t` of `b_j`
//!   is set, else `−1`. With unit weights `S_i = 2·c_i − n` is computed exactly in
//!   integers (`c_i` the number of `+1` values among `n` contributions); with real
//!   weights `S_i = 2·P_i − W` in `f64`, `P_i` the sum (in push order) of the weights
//!   whose value is `+1` and `W` the sum of all weights.
//! * [`Projection::Gaussian`]: `s = fmix64(f ⊕ fmix64(seed ⊕ 0x676175737369616E))`;
//!   `x = fmix64(s + (i + 1)·γ)`; `U = ((x >> 12) + 0.5)·2^-52`; `r_f[i] = Φ⁻¹(U)` by
//!   Acklam's rational approximation with a logarithm computed from the exponent bits
//!   and an `atanh` series (only `+ − × ÷ sqrt`, so correctly rounded everywhere);
//!   `S_i = Σ w_f·r_f[i]` summed in `f64` in push order.
//! * Weights: binary gives each distinct feature weight 1; term frequency adds 1 per
//!   occurrence; TF-IDF adds `idf(f) = ln(N / max(df, 1))` per occurrence; custom
//!   weights give each distinct feature `w(f)`; explicit weights add as given.
//!   A non-finite weight contributes nothing (and is an error in the fallible APIs).
//!
//! # References
//!
//! - M. S. Charikar, "Similarity estimation techniques from rounding algorithms", STOC
//!   2002.
//! - G. S. Manku, A. Jain and A. Das Sarma, "Detecting near-duplicates for web crawling",
//!   WWW 2007.
mod fingerprint;
mod hasher;
#[cfg(feature = "serde")]
mod serde_impl;
mod signature;
mod values;
mod weighting;

pub use fingerprint::Fingerprinter64;
pub use hasher::{Checked, Projection, SimHashSketcher, SimHashState, SimHasher, SimHasherBuilder};
#[cfg(feature = "rayon")]
pub use ndd_core::ParDocSketcher;
pub use ndd_core::{self, Composed, DocSketcher, Sketcher, TrySketcher};
pub use signature::{MAX_BITS, SimHashSignature};
pub use weighting::{FeatureWeights, FnWeights, TfIdf, Weighting};

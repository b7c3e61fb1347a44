//! MinHash sketches for near-duplicate detection: a document's feature set (shingles)
//! becomes `k` small integers whose agreement rate estimates the Jaccard coefficient.
//!
//! * [`MinHasher`] — the sketcher: classic `k`-hash MinHash or one-permutation
//!   hashing with optimal densification ([`MinHashScheme`]), on text through any
//!   [`FeatureExtractor`](ndd_core::FeatureExtractor) (word 3-grams by default, as in the `ndd` tool) or on
//!   feature hashes you extracted yourself.
//! * [`MinHashSignature`] — `k` slot values; `similarity` gives the estimate `r/k` with
//!   its standard error and confidence interval (Gambosi's near-duplicate detection slides, after Manning and Schütze); a versioned byte form.
//! * [`HashFamily`], [`UniversalHashes`], [`FnFamily`] — the hash functions of classic
//!   MinHash, including your own (Gambosi's slides' worked examples are tests).
//! * [`SuperShingles`] — groups of values fingerprinted, and the "1-Shingles" rule
//!   (Hajishirzi, Yih and Kołcz, SIGIR 2010, §2.1).
//! * [`IcwsMinHasher`], [`BucketizedMinHasher`] — weighted MinHash for real-valued
//!   vectors, estimating the weighted Jaccard `Σ min / Σ max`: Ioffe's improved
//!   consistent weighted sampling (recommended) and Hajishirzi, Yih and Kołcz's (SIGIR 2010) bucketization;
//!   configured with `new(..)` or their builders ([`IcwsMinHasherBuilder`],
//!   [`BucketizedMinHasherBuilder`]).
//! * [`BBitSignature`] — b-bit compression with the Li–König estimator.
//!
//! Sources: Gambosi, *Near duplicate detection* (Information Retrieval course slides,
//! University of Rome Tor Vergata, after Manning and Schütze; Gambosi's near-duplicate detection slides (after Manning and Schütze):
//! minhashing, the estimator, banding); Hajishirzi, Yih and Kołcz, *Adaptive
//! near-duplicate detection via similarity learning*, SIGIR 2010 (§2.1
//! super-shingles, §3.2 the linear hash family and MinHash over real-valued vectors);
//! Shrivastava, *Optimal densification for fast and accurate minwise hashing*, ICML
//! 2017; Ioffe, *Improved consistent sampling, weighted minhash and L1 sketching*, ICDM
//! 2010; Li and König, *b-Bit minwise hashing*, WWW 2010.
//!
//! # Example: estimate the similarity of two documents
//!
//! ```
//! use near_dup::{DocSketcher, Signature};
//! use near_dup::minhash::MinHasher;
//!
//! let hasher = MinHasher::new(256)?;
//! let a = hasher.sketch("It was the best of times, it was the worst of times, it was the age of wisdom");
//! let b = hasher.sketch("It was the best of times, it was the worst of times, it was the age of folly");
//! let est = a.similarity(&b)?;
//! let (lo, hi) = est.interval(0.95)?; // [p̂ − 1.96 ŝ, p̂ + 1.96 ŝ]
//! println!("J ≈ {:.2} (95% CI {lo:.2}–{hi:.2})", est.value());
//! assert!(est.value() > 0.6); // exact J = 11/13
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! - A. Z. Broder, "On the resemblance and containment of documents", Compression and
//!   Complexity of Sequences (SEQUENCES), 1997.
//! - P. Li, A. Owen and C.-H. Zhang, "One permutation hashing", NeurIPS 2012.
//! - A. Shrivastava, "Optimal densification for fast and accurate minwise hashing", ICML
//!   2017.
//! - P. Li and A. C. König, "b-Bit minwise hashing", WWW 2010.
//! - S. Ioffe, "Improved consistent sampling, weighted minhash and L1 sketching", ICDM
//!   2010.
//! - C. D. Manning, P. Raghavan and H. Schütze, *Introduction to Information Retrieval*,
//!   Cambridge University Press, 2008, chapter 19.

mod bbit;
mod bbit_store;
mod bucketized;
mod densify;
mod family;
mod hasher;
mod icws;
#[cfg(feature = "serde")]
mod serde_impl;
mod signature;
mod super_shingles;
mod weighted;

pub use bbit::BBitSignature;
pub use bbit_store::BBitSlots;
pub use bucketized::{BucketizedMinHasher, BucketizedMinHasherBuilder, BucketizedState};
pub use family::{FnFamily, HashFamily, MERSENNE_61, UniversalHashes};
pub use hasher::{
    MAX_NUM_HASHES, MinHashScheme, MinHashSketcher, MinHashState, MinHasher, MinHasherBuilder,
};
pub use icws::{IcwsMinHasher, IcwsMinHasherBuilder, IcwsState};
#[cfg(feature = "rayon")]
pub use ndd_core::ParDocSketcher;
pub use ndd_core::{self, Composed, DocSketcher, Sketcher, TrySketcher};
pub use signature::{EMPTY, MinHashSignature};
pub use super_shingles::SuperShingles;

//! From near-duplicate pairs to groups, after DURIAN (Yang and Callan, SIGIR 2006):
//! its distance, the Dirichlet-smoothed KL divergence of two documents' word
//! distributions ([`KlDivergence`] over a collection [`Background`]), and its
//! redundancy-based reference copies ([`reference_copies`]), its instance-level
//! constraints ([`Constraints`], closed by [`Constraints::close`]) and its constrained
//! clustering ([`cluster`], over the candidate graph [`Neighbours`] an index proposed).
//!
//! A typical run: exact-duplicate groups give the reference copies and must-link each
//! group; rules over document attributes give cannot- and family-links; candidate
//! pairs come from an index (`ndd-lsh` banding over MinHash signatures); the distance
//! is [`KlDivergence::distance`] over word counts.
//!
//! # Example
//!
//! ```
//! use near_dup::cluster::{reference_copies, Background, KlDivergence, DEFAULT_MIN_COPIES, DEFAULT_MU};
//! use near_dup::shingle::WordShingler;
//!
//! let words = WordShingler::new(1)?;
//! let texts = ["stop the mine now", "stop the mine now please", "protect the river"];
//! let counts: Vec<_> = texts.iter().map(|t| words.counts(t)).collect();
//! let background = Background::from_documents(&counts);
//! let kl = KlDivergence::new(&background, DEFAULT_MU)?;
//! assert!(kl.distance(&counts[0], &counts[1]) < kl.distance(&counts[0], &counts[2]));
//!
//! // Seven exact copies of a form letter, submitted at these times:
//! let groups = vec![(0..7).collect::<Vec<usize>>()];
//! let time = [9, 4, 7, 8, 5, 6, 3];
//! let refs = reference_copies(&groups, DEFAULT_MIN_COPIES, |d| time[d]);
//! assert_eq!((refs[0].document, refs[0].copies), (6, 7));
//! # Ok::<(), near_dup::Error>(())
//! ```
//!
//! # References
//!
//! * H. Yang and J. Callan, "Near-duplicate detection by instance-level constrained
//!   clustering", *Proceedings of the 29th Annual International ACM SIGIR Conference
//!   (SIGIR '06)*, 2006, Sections 4.2 and 4.3.
//! * H. Yang and J. Callan, Sections 4.4 (constraints) and 4.4.5 with Figure 3
//!   (clustering), of the same paper.
//! * C. Zhai and J. Lafferty, "A study of smoothing methods for language models applied
//!   to ad hoc information retrieval", *SIGIR 2001*.

mod clustering;
mod constraints;
mod kl;
mod neighbours;
mod reference;
mod rules;

pub use clustering::{ClusterOptions, Clustering, DEFAULT_ALPHA, DEFAULT_THETA, cluster};
pub use constraints::{Closure, Conflicts, Constraints, Link, LinkPair, MAX_CLOSED_CANNOT};
pub use kl::{Background, DEFAULT_MU, KlDivergence};
pub use neighbours::Neighbours;
pub use reference::{DEFAULT_MIN_COPIES, ReferenceCopy, reference_copies};
pub use rules::{DEFAULT_MUST_OVERLAP, is_must_link};

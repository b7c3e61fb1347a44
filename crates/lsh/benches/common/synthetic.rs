//! Synthetic MinHash-like signatures for the index benches (included with
//! `#[path = "common/synthetic.rs"] mod synthetic;`): random 64-bit slots, and half of
//! the documents copy each slot of a random earlier document with probability
//! `s ~ U(0.8, 1)` (else a fresh value), which plants near-duplicates at the
//! similarities an LSH index at threshold 0.8 is asked to find.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n × k` slots, row-major, with planted near-duplicates; the same rows for the same
/// `seed`.
pub(crate) fn slots(n: usize, k: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = vec![0u64; n * k];
    for d in 0..n {
        if d > 0 && rng.random_bool(0.5) {
            let origin = rng.random_range(0..d);
            let s: f64 = rng.random_range(0.8..1.0);
            for j in 0..k {
                m[d * k + j] = if rng.random_bool(s) {
                    m[origin * k + j]
                } else {
                    rng.random()
                };
            }
        } else {
            for j in 0..k {
                m[d * k + j] = rng.random();
            }
        }
    }
    m
}

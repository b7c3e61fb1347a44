#![allow(clippy::unwrap_used)]
//! The candidate rate of synthetic pairs follows the S-curve.
//!
//! Each pair's second signature copies each slot of the first with probability `s`
//! independently (else a fresh random value), which is exactly the model behind
//! `1 − (1 − s^r)^b`. The observed fraction of pairs that become candidates must lie
//! within 4 binomial standard errors of the curve (a fixed seed keeps the test
//! deterministic; 4 SE makes a false alarm a ~6e-5 event per check).

use crate::common;

use ndd_core::{SchemeId, SlotSignature};
use ndd_lsh::{LshIndex, LshParams, PlainSlots, candidate_pairs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn pair(rng: &mut ChaCha8Rng, k: usize, s: f64, scheme: SchemeId) -> (PlainSlots, PlainSlots) {
    let a: Vec<u64> = (0..k).map(|_| rng.random()).collect();
    let b: Vec<u64> = a
        .iter()
        .map(|&v| if rng.random_bool(s) { v } else { rng.random() })
        .collect();
    (
        PlainSlots::new(scheme, a).unwrap(),
        PlainSlots::new(scheme, b).unwrap(),
    )
}

#[test]
fn candidate_rate_follows_the_s_curve() {
    let scheme = SchemeId::new("statistical").finish();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0002);
    let n = 4000;
    for (b, r) in [(20, 5), (9, 13), (4, 4), (1, 8), (32, 2)] {
        let params = LshParams::new(b, r).unwrap();
        let k = b * r + 3; // trailing slots are ignored
        for s in [0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] {
            let mut sigs = Vec::with_capacity(2 * n);
            for _ in 0..n {
                let (x, y) = pair(&mut rng, k, s, scheme);
                sigs.push(x);
                sigs.push(y);
            }
            // Through the batch join: with random 64-bit slots, only planted pairs collide.
            let pairs = candidate_pairs(&sigs, params).unwrap();
            assert!(pairs.iter().all(|&(i, j)| i % 2 == 0 && j == i + 1));
            let p = params.probability(s);
            common::within_4_se(pairs.len(), n, p, &format!("{b}x{r} s={s} batch"));

            // And through the index, streaming: each second signature queries its first.
            let mut index: LshIndex<usize, PlainSlots> = LshIndex::new(params);
            let mut hits = 0;
            let mut out = Vec::new();
            for (i, sig) in sigs.iter().enumerate() {
                out.clear();
                index.query_then_insert(i, sig, &mut out).unwrap();
                if i % 2 == 1 && out == [i - 1] {
                    hits += 1;
                } else {
                    assert!(out.is_empty(), "unplanted candidate for {i}: {out:?}");
                }
            }
            assert_eq!(hits, pairs.len());
            assert_eq!(sigs[0].slots().len(), k);
        }
    }
}

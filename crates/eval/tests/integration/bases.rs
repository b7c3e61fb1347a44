//! `distinct_texts` against its definition computed the slow way: every earlier text
//! kept is compared with every later one by the Jaccard coefficient of their sets.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use ndd_core::{FeatureExtractor, FeatureSink, SchemeId};
use proptest::prelude::*;

/// Words as features.
struct Words;

impl FeatureExtractor for Words {
    fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
        for w in doc.split_whitespace() {
            sink.push(ndd_core::hash::stable_hash64(w.as_bytes(), 0));
        }
    }
    fn scheme(&self) -> SchemeId {
        SchemeId::new("words").finish()
    }
}

fn jaccard(a: &str, b: &str) -> f64 {
    let a: BTreeSet<&str> = a.split_whitespace().collect();
    let b: BTreeSet<&str> = b.split_whitespace().collect();
    let union = a.union(&b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

proptest! {
    #[test]
    fn equals_the_pairwise_definition(
        pool in prop::collection::vec(
            prop::collection::vec(0u8..12, 1..8).prop_map(|ws| {
                ws.iter().map(|w| format!("w{w}")).collect::<Vec<_>>().join(" ")
            }),
            0..25,
        ),
        t in prop::sample::select(vec![0.3, 0.5, 0.8, 1.0]),
        n in 0usize..30,
    ) {
        // The rule: a text is dropped when it is at or above t with an earlier text
        // that was not dropped itself.
        let mut dropped = vec![false; pool.len()];
        for b in 0..pool.len() {
            for a in 0..b {
                if !dropped[a] && jaccard(&pool[a], &pool[b]) >= t {
                    dropped[b] = true;
                }
            }
        }
        let expected: Vec<String> = pool
            .iter()
            .zip(&dropped)
            .filter(|(_, d)| !**d)
            .map(|(t, _)| t.clone())
            .take(n)
            .collect();
        prop_assert_eq!(ndd_eval::distinct_texts(&pool, &Words, t, n).unwrap(), expected);
    }
}

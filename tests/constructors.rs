//! Every constructor's parameter space (issue "bounded work"): any value is refused
//! with an error or gives an object whose first use finishes within its documented
//! cost (here: well under two seconds), never a panic, an abort or a hang.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use near_dup::lsh::{HammingIndex, HammingParams, LshIndex, LshParams, PlainSlots};
use near_dup::pipeline::{Dedup, Method, MinHashConfig, Shingles, SimHashConfig};
use near_dup::prelude::*;
use near_dup::simhash::SimHasher;
use proptest::prelude::*;

/// Small values, values around the limits, and anything.
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..=70, 1000usize..=70_000, any::<usize>()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn lsh_parameters(bands in size(), rows in size()) {
        let started = Instant::now();
        if let Ok(p) = LshParams::new(bands, rows) {
            let mut index: LshIndex<u32, PlainSlots> = LshIndex::new(p);
            let scheme = near_dup::SchemeId::new("c").finish();
            let slots = PlainSlots::new(scheme, vec![1; p.slots_used()]).unwrap();
            index.insert(1, &slots).unwrap();
            prop_assert_eq!(index.query(&slots).unwrap(), vec![1]);
        }
        prop_assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn hamming_parameters(max_distance in any::<u32>(), blocks in any::<u32>()) {
        let started = Instant::now();
        if let Ok(p) = HammingParams::new(max_distance % 80, blocks % 80) {
            let mut index: HammingIndex<u32> = HammingIndex::new(p);
            index.insert(1, 0xF0F0).unwrap();
            prop_assert_eq!(index.query(0xF0F0), vec![(1, 0)]);
        }
        prop_assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn simhash_lengths(bits in size()) {
        let started = Instant::now();
        if let Ok(h) = SimHasher::new(bits) {
            prop_assert_eq!(h.sketch("a short document of seven words").words().len(), bits.div_ceil(64));
        }
        prop_assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn pipeline_settings(
        k in size(),
        chars in any::<bool>(),
        num_perm in size(),
        threshold in prop_oneof![Just(0.0), Just(1.0), Just(f64::NAN), -1.0f64..2.0],
        simhash in any::<bool>(),
        bits in size(),
    ) {
        let started = Instant::now();
        let method = if simhash {
            Method::SimHash(SimHashConfig { bits, ..SimHashConfig::default() })
        } else {
            Method::MinHash(MinHashConfig { num_perm, ..MinHashConfig::default() })
        };
        let dedup = Dedup::new()
            .method(method)
            .shingles(if chars { Shingles::Chars(k) } else { Shingles::Words(k) })
            .threshold(threshold);
        if dedup.validate().is_ok() {
            let out = dedup.run_texts(&["one two three four five", "one two three four five!", "six"]);
            prop_assert!(out.is_ok());
        }
        prop_assert!(started.elapsed() < Duration::from_secs(2));
    }
}

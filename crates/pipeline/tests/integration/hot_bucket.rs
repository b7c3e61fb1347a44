//! A hot bucket of near-identical (not identical) documents: the candidate pairs are
//! bounded by `MinHashConfig::max_bucket_scan`, the group stays whole.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_pipeline::{Dedup, Method, MinHashConfig};

fn lines(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!(
                "we urge the agency to adopt the strictest possible limits on mercury \
                 emissions from power plants near our homes comment number {i}"
            )
        })
        .collect()
}

fn run(texts: &[String], scan: Option<usize>) -> ndd_pipeline::Outcome {
    let config = MinHashConfig {
        max_bucket_scan: scan,
        ..MinHashConfig::default()
    };
    // Threshold 0.7: every pair of lines is a near-duplicate (they differ in a number).
    Dedup::new()
        .threshold(0.7)
        .method(Method::MinHash(config))
        .run_texts(texts)
        .unwrap()
}

#[test]
fn a_bounded_scan_bounds_the_pairs_and_keeps_the_group() {
    let n = 1500;
    let texts = lines(n);
    let all = run(&texts, None);
    // Unbounded: every pair of the bucket (the lines share most bands).
    assert!(
        all.pairs.len() > n * (n - 1) / 2 * 9 / 10,
        "{}",
        all.pairs.len()
    );
    let bands = match Dedup::new().threshold(0.7).method_config() {
        Method::MinHash(c) => c.lsh_params(0.7).unwrap().bands(),
        _ => unreachable!(),
    };
    let bound = 8;
    let bounded = run(&texts, Some(bound));
    assert!(
        bounded.pairs.len() <= n * bands * bound,
        "{}",
        bounded.pairs.len()
    );
    assert!(bounded.pairs.len() * 4 < all.pairs.len());
    // One group of every line either way.
    for out in [&all, &bounded] {
        assert_eq!(out.groups.len(), 1);
        assert_eq!(out.groups[0].members.len(), n);
    }
}

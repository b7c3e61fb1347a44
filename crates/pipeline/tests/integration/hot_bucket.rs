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

/// Groups of identical texts (`sizes[g]` copies of text `g`), interleaved, the texts of
/// different groups sharing no word: every copy falls in its group's bucket in every
/// band, and nothing else does.
fn copies(sizes: &[usize]) -> Vec<String> {
    let longest = sizes.iter().copied().max().unwrap_or(0);
    let mut texts = Vec::new();
    for round in 0..longest {
        for (g, &s) in sizes.iter().enumerate() {
            if round < s {
                texts.push(
                    (0..30)
                        .map(|w| format!("g{g}w{w}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
        }
    }
    texts
}

fn bands_at(threshold: f64) -> usize {
    MinHashConfig::default()
        .lsh_params(threshold)
        .unwrap()
        .bands()
}

#[test]
fn the_bucket_bound_counts_the_reads_it_cut() {
    // The j-th copy of a group (from 0) meets j earlier copies in each band: its reads
    // are cut when j > bound, so a group of s copies has max(0, s - bound - 1) cut
    // documents and `bands` times as many cut reads.
    let bound = 5;
    let sizes = [40, 3, 6, 7, 1];
    let texts = copies(&sizes);
    let config = MinHashConfig {
        max_bucket_scan: Some(bound),
        ..MinHashConfig::default()
    };
    let dedup = Dedup::new()
        .threshold(0.7)
        .method(Method::MinHash(config))
        .exact_pass(false);
    let out = dedup.run_texts(&texts).unwrap();
    let cut: u64 = sizes
        .iter()
        .map(|&s| s.saturating_sub(bound + 1) as u64)
        .sum();
    assert_eq!(cut, 34 + 1);
    let scan = out.report.bucket_scan.unwrap();
    assert_eq!(scan.bound, bound);
    assert_eq!(scan.cut_documents, cut);
    assert_eq!(scan.cut_reads, cut * bands_at(0.7) as u64);
    assert!(scan.hit());
    assert!(
        scan.warning("--max-bucket-scan")
            .unwrap()
            .starts_with("35 documents")
    );

    // A saved index counts each batch's own cuts: the second batch's copies of the
    // first group all meet more than `bound` earlier ones.
    let mut index = ndd_pipeline::DedupIndex::new(&dedup).unwrap();
    let docs = |texts: &[String], from: usize| -> Vec<ndd_pipeline::Document> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| ndd_pipeline::Document::new((from + i).to_string(), t.as_str()))
            .collect()
    };
    let first = index.add(&docs(&texts, 0)).unwrap();
    assert_eq!(first.report.bucket_scan, out.report.bucket_scan);
    let more = copies(&[4]);
    let second = index.add(&docs(&more, texts.len())).unwrap();
    let scan = second.report.bucket_scan.unwrap();
    assert_eq!(scan.cut_documents, 4);
    assert_eq!(scan.cut_reads, 4 * bands_at(0.7) as u64);
}

#[test]
fn a_bound_not_reached_cuts_nothing() {
    let texts = copies(&[6, 2, 6]);
    let config = MinHashConfig {
        max_bucket_scan: Some(5),
        ..MinHashConfig::default()
    };
    let out = Dedup::new()
        .threshold(0.7)
        .method(Method::MinHash(config))
        .exact_pass(false)
        .run_texts(&texts)
        .unwrap();
    let scan = out.report.bucket_scan.unwrap();
    assert!(!scan.hit());
    assert_eq!(scan.warning("--max-bucket-scan"), None);
    // Another method reads no LSH bucket.
    let other = Dedup::new()
        .method(Method::SimHash(ndd_pipeline::SimHashConfig::default()))
        .run_texts(&texts)
        .unwrap();
    assert_eq!(other.report.bucket_scan, None);
}

#[test]
fn near_identical_lines_hit_the_bound() {
    // A document with at most `bound` documents before it cannot be cut.
    let n = 600;
    let bound = 8;
    let out = run(&lines(n), Some(bound));
    let scan = out.report.bucket_scan.unwrap();
    assert!(scan.cut_documents > 0);
    assert!(scan.cut_documents <= (n - bound - 1) as u64);
    assert!(scan.cut_reads >= scan.cut_documents);
    assert!(scan.cut_reads <= scan.cut_documents * bands_at(0.7) as u64);
}

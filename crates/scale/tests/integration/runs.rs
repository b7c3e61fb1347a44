//! External sorting against the standard library's sort: every record comes back, in
//! order, whatever the memory bound and the number of runs; damaged runs are errors.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_scale::{BandKeyRecord, Edge, ExternalSort, MAX_FAN_IN, RecordError};
use proptest::prelude::*;

fn bucket_order(r: &BandKeyRecord) -> (u16, u64, u64) {
    (r.band, r.key, r.doc)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn merged_runs_equal_a_sort_in_memory(
        records in proptest::collection::vec((0u64..50, 0u16..4, 0u64..8), 0..400),
        bound in 1usize..40,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut sort = ExternalSort::new(dir.path(), "keys", bucket_order, bound, 7).unwrap();
        let records: Vec<BandKeyRecord> = records
            .into_iter()
            .map(|(doc, band, key)| BandKeyRecord { doc, band, key })
            .collect();
        for r in &records {
            sort.push(*r).unwrap();
        }
        prop_assert_eq!(sort.len(), records.len() as u64);
        let runs = sort.finish().unwrap();
        prop_assert!(runs.paths().len() <= MAX_FAN_IN);
        let got: Vec<BandKeyRecord> = runs.merge().unwrap().collect::<Result<_, _>>().unwrap();
        let mut want = records.clone();
        want.sort_by_key(bucket_order);
        prop_assert_eq!(got, want);
    }
}

#[test]
fn more_runs_than_the_fan_in_are_merged_in_passes() {
    let dir = tempfile::tempdir().unwrap();
    // One record per run: 3 × 64 + 5 runs before the passes.
    let n = 3 * MAX_FAN_IN as u64 + 5;
    let mut sort = ExternalSort::new(dir.path(), "e", |e: &Edge| (e.a, e.b), 1, 0).unwrap();
    for i in 0..n {
        // A permutation of 0..n: 7919 is prime and does not divide n = 197.
        sort.push(Edge {
            a: (i * 7919) % n,
            b: i,
        })
        .unwrap();
    }
    let runs = sort.finish().unwrap();
    assert!(runs.paths().len() <= MAX_FAN_IN);
    // Only the final runs are left on disk.
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        runs.paths().len()
    );
    let got: Vec<u64> = runs.merge().unwrap().map(|e| e.unwrap().a).collect();
    let mut want: Vec<u64> = (0..n).map(|i| (i * 7919) % n).collect();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn a_damaged_or_foreign_run_is_an_error_not_a_short_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut sort = ExternalSort::new(dir.path(), "e", |e: &Edge| e.a, 4, 1).unwrap();
    for i in 0..10 {
        sort.push(Edge { a: i, b: i }).unwrap();
    }
    let runs = sort.finish().unwrap();
    let first = runs.paths()[0].clone();
    // A byte of a record flipped: the checksum, checked while streaming, refuses it.
    let mut bytes = std::fs::read(&first).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&first, &bytes).unwrap();
    let results: Vec<Result<Edge, RecordError>> = match runs.merge() {
        Ok(m) => m.collect(),
        Err(e) => vec![Err(e)],
    };
    assert!(results.iter().any(Result::is_err), "{results:?}");
    // Read once to the end: the damage is the last item, after the records.
    let to_end: Vec<Result<Edge, RecordError>> = runs.merge_to_end().unwrap().collect();
    assert!(
        matches!(
            to_end.last(),
            Some(Err(RecordError::ChecksumMismatch { .. }))
        ),
        "{to_end:?}"
    );
    assert_eq!(to_end.iter().filter(|r| r.is_err()).count(), 1);
    // Cut short (the trailer gone): refused when the merge opens it.
    std::fs::write(&first, &bytes[..bytes.len() - 10]).unwrap();
    assert!(runs.merge().is_err());
    assert!(runs.merge_to_end().is_err());
    // Runs of another fingerprint (other parameters) are refused.
    let other = ndd_scale::SortedRuns::from_paths(runs.paths()[1..].to_vec(), |e: &Edge| e.a, 2);
    assert!(matches!(
        other.merge(),
        Err(RecordError::FingerprintMismatch { .. })
    ));
}

/// Runs large enough that rayon's sort splits them (feature `rayon`): each run file
/// holds its slice of the input sorted as the standard library sorts it.
#[test]
fn each_large_run_is_its_records_sorted() {
    let dir = tempfile::tempdir().unwrap();
    let (n, bound) = (150_000u64, 60_000usize);
    let mut sort = ExternalSort::new(dir.path(), "keys", bucket_order, bound, 3).unwrap();
    // A pseudo-random permutation with many equal keys across bands.
    let records: Vec<BandKeyRecord> = (0..n)
        .map(|i| BandKeyRecord {
            doc: (i * 48_271) % n,
            band: u16::try_from(i % 5).unwrap(),
            key: (i * 7_919) % 1_000,
        })
        .collect();
    for r in &records {
        sort.push(*r).unwrap();
    }
    let runs = sort.finish().unwrap();
    assert_eq!(runs.paths().len(), 3);
    for (path, slice) in runs.paths().iter().zip(records.chunks(bound)) {
        let got: Vec<BandKeyRecord> = ndd_scale::read_all(path, Some(3)).unwrap();
        let mut want = slice.to_vec();
        want.sort_by_key(bucket_order);
        assert_eq!(got, want);
    }
}

/// The `a` of the one record [`edge_radix`] has no radix key for.
const NO_RADIX: u64 = 777;

/// `(a, b)` packed in a `u128` (the order of `(a, b)`), except for `a == NO_RADIX`.
fn edge_radix(e: &Edge) -> Option<u128> {
    (e.a != NO_RADIX).then_some(u128::from(e.a) << 64 | u128::from(e.b))
}

/// About 1,000 edges through a radix sort whose runs hold 300 records (several runs,
/// each past the radix sort's small-slice cut-off, so its byte passes run), one
/// record without a radix key (its run sorted by comparison): both merges equal the
/// standard library's sort.
#[test]
fn radix_sorted_runs_with_one_fallback_run_merge_to_a_sorted_vec() {
    radix_runs_merge_to_a_sorted_vec(false, 4);
}

/// As [`radix_sorted_runs_with_one_fallback_run_merge_to_a_sorted_vec`], each run
/// sorted and written on its own thread while the next fills: twice as many runs of
/// half the records (150), the same merged records.
#[test]
fn overlapped_runs_merge_to_the_same_sorted_vec() {
    radix_runs_merge_to_a_sorted_vec(true, 7);
}

/// 1,003 edges (one without a radix key) through an external sort of 300 records in
/// memory, `overlapped` or not: `runs` runs, merged (both ways) into the standard
/// library's sort of the edges.
fn radix_runs_merge_to_a_sorted_vec(overlapped: bool, runs: usize) {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x
    };
    let mut records: Vec<Edge> = (0..1_000)
        .map(|i| {
            let r = next();
            // Values spread over several bytes of both halves; some repeats.
            let a = (r >> 40) % 5_000;
            let b = if i % 10 == 0 { 3 } else { next() >> (r % 48) };
            Edge { a, b }
        })
        .collect();
    records.push(Edge { a: NO_RADIX, b: 1 });
    records.push(Edge { a: 12, b: 34 });
    records.push(Edge { a: 12, b: 34 });
    let dir = tempfile::tempdir().unwrap();
    let mut sort = ExternalSort::new(dir.path(), "edges", |e: &Edge| (e.a, e.b), 300, 5)
        .unwrap()
        .radix(edge_radix);
    if overlapped {
        sort = sort.overlapped();
    }
    for r in &records {
        sort.push(*r).unwrap();
    }
    let (expected_runs, runs) = (runs, sort.finish().unwrap());
    assert_eq!(runs.paths().len(), expected_runs);
    let mut expected: Vec<(u64, u64)> = records.iter().map(|e| (e.a, e.b)).collect();
    expected.sort_unstable();
    let merged: Vec<(u64, u64)> = runs
        .merge()
        .unwrap()
        .map(|e| e.map(|e| (e.a, e.b)))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(merged, expected);
    let mut to_end = Vec::new();
    for e in runs.merge_to_end().unwrap() {
        let e = e.unwrap();
        to_end.push((e.a, e.b));
    }
    assert_eq!(to_end, expected);
}

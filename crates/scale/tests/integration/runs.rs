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

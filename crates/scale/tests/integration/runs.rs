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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// `partition_point` and range reading against a brute-force scan of the records:
    /// the count of the sorted records below a bound, and the records at positions
    /// `lo..hi` (from the file, through a `Cursor` too).
    #[test]
    fn partition_points_and_ranges_equal_a_scan(
        records in proptest::collection::vec((0u64..50, 0u16..6, 0u64..8), 0..300),
        bound in (0u16..7, 0u64..9, 0u64..51),
        cut in (0usize..301, 0usize..301),
    ) {
        use ndd_scale::{RecordReader, RecordWriter};
        let dir = tempfile::tempdir().unwrap();
        let mut records: Vec<BandKeyRecord> = records
            .into_iter()
            .map(|(doc, band, key)| BandKeyRecord { doc, band, key })
            .collect();
        records.sort_by_key(bucket_order);
        let path = dir.path().join("keys.bin");
        let mut w = RecordWriter::create(&path, 1).unwrap();
        for r in &records {
            w.write(r).unwrap();
        }
        w.finish().unwrap();
        let mut reader = RecordReader::<BandKeyRecord, _>::open(&path).unwrap();
        let below = records.iter().filter(|r| bucket_order(r) < bound).count() as u64;
        prop_assert_eq!(reader.partition_point(|r| bucket_order(r) < bound).unwrap(), below);
        let band = records.iter().filter(|r| r.band <= bound.0).count() as u64;
        prop_assert_eq!(reader.partition_point(|r| r.band <= bound.0).unwrap(), band);
        // The reader still reads every record, from the first, checksum and all.
        let all: Vec<BandKeyRecord> = reader.collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(&all, &records);

        let n = records.len();
        let (lo, hi) = (cut.0.min(n), cut.1.min(n));
        let range = RecordReader::<BandKeyRecord, _>::open_range(&path, lo as u64..hi as u64);
        if lo <= hi {
            let got: Vec<BandKeyRecord> = range.unwrap().collect::<Result<_, _>>().unwrap();
            prop_assert_eq!(&got[..], &records[lo..hi]);
            let mut cursor =
                RecordReader::<BandKeyRecord, _>::new(std::io::Cursor::new(std::fs::read(&path).unwrap()))
                    .unwrap();
            prop_assert!(cursor.next().is_some() || n == 0);
            cursor.restrict(lo as u64..hi as u64).unwrap();
            let got: Vec<BandKeyRecord> = cursor.collect::<Result<_, _>>().unwrap();
            prop_assert_eq!(&got[..], &records[lo..hi]);
        } else {
            prop_assert!(range.is_err());
        }
        prop_assert!(
            RecordReader::<BandKeyRecord, _>::open_range(&path, 0..n as u64 + 1).is_err()
        );
    }

    /// `merge_range` against a brute-force filter of every record, sorted: the
    /// records whose keys lie in the range, for ranges of every kind of bound; the
    /// merges of consecutive ranges together are the whole merge.
    #[test]
    fn merged_ranges_equal_a_filter_of_the_sorted_records(
        records in proptest::collection::vec((0u64..50, 0u16..6, 0u64..8), 0..400),
        bound in 1usize..40,
        a in (0u16..7, 0u64..9, 0u64..51),
        b in (0u16..7, 0u64..9, 0u64..51),
    ) {
        use std::ops::Bound;
        let dir = tempfile::tempdir().unwrap();
        let mut sort = ExternalSort::new(dir.path(), "keys", bucket_order, bound, 7).unwrap();
        let records: Vec<BandKeyRecord> = records
            .into_iter()
            .map(|(doc, band, key)| BandKeyRecord { doc, band, key })
            .collect();
        for r in &records {
            sort.push(*r).unwrap();
        }
        let runs = sort.finish().unwrap();
        runs.check().unwrap();
        let mut sorted = records.clone();
        sorted.sort_by_key(bucket_order);
        let bounds = [Bound::Included(a), Bound::Excluded(a), Bound::Unbounded];
        let ends = [Bound::Included(b), Bound::Excluded(b), Bound::Unbounded];
        for start in bounds {
            for end in ends {
                let got: Vec<BandKeyRecord> =
                    runs.merge_range((start, end)).unwrap().collect::<Result<_, _>>().unwrap();
                let want: Vec<BandKeyRecord> = sorted
                    .iter()
                    .filter(|r| std::ops::RangeBounds::contains(&(start, end), &bucket_order(r)))
                    .copied()
                    .collect();
                prop_assert_eq!(got, want);
            }
        }
        // Band groups, as the candidates stage cuts them: together the whole merge.
        let mut joined = Vec::new();
        for g in 0..3u16 {
            let part = runs.merge_range((2 * g, 0, 0)..(2 * g + 2, 0, 0)).unwrap();
            joined.extend(part.map(Result::unwrap));
        }
        prop_assert_eq!(joined, sorted);
    }
}

#[test]
fn check_finds_damage_merge_range_does_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut sort = ExternalSort::new(dir.path(), "keys", bucket_order, 40, 7).unwrap();
    for doc in 0..100u64 {
        for band in 0..4u16 {
            sort.push(BandKeyRecord {
                doc,
                band,
                key: doc % 5,
            })
            .unwrap();
        }
    }
    let runs = sort.finish().unwrap();
    runs.check().unwrap();
    // The last record's key (band 3) in the first run changed: the band 0 section
    // reads well, the check refuses the run.
    let path = &runs.paths()[0];
    let mut bytes = std::fs::read(path).unwrap();
    let at = bytes.len() - ndd_scale::TRAILER_LEN - 1;
    bytes[at] ^= 0x40;
    std::fs::write(path, bytes).unwrap();
    let section: Vec<BandKeyRecord> = runs
        .merge_range((0, 0, 0)..(1, 0, 0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(section.len(), 100);
    assert!(matches!(
        runs.check(),
        Err(RecordError::ChecksumMismatch { .. })
    ));
    // A run of another fingerprint, missing or cut short: refused by both.
    std::fs::write(path, b"NDDSCALE").unwrap();
    assert!(runs.merge_range(..).is_err());
    assert!(runs.check().is_err());
    std::fs::remove_file(path).unwrap();
    assert!(runs.merge_range(..).is_err());
    assert!(runs.check().is_err());
}

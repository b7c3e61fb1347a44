//! Record files: the bytes against the layout of `docs/formats.md` built by hand here,
//! round trips, and refusal of every truncation, every bit flip, other kinds, versions
//! and fingerprints, and arbitrary bytes (never a panic).
#![allow(clippy::unwrap_used)]

use std::io::Cursor;
use std::path::Path;

use ndd_scale::{
    Assignment, BandKeyRecord, Edge, Record, RecordError, RecordReader, RecordWriter, read_all,
    temp_path,
};
use proptest::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

fn read_bytes<T: Record>(bytes: &[u8]) -> Result<Vec<T>, RecordError> {
    RecordReader::<T, _>::new(Cursor::new(bytes.to_vec()))?.collect()
}

fn write_file<T: Record>(path: &Path, fingerprint: u64, records: &[T]) -> Vec<u8> {
    let mut w = RecordWriter::create(path, fingerprint).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    assert_eq!(w.finish().unwrap(), records.len() as u64);
    std::fs::read(path).unwrap()
}

/// The layout of `docs/formats.md`, written out field by field.
fn expected_bytes(kind: u16, size: u32, fingerprint: u64, records: &[Vec<u8>]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"NDDSCALE");
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(&size.to_le_bytes());
    b.extend_from_slice(&fingerprint.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    for r in records {
        b.extend_from_slice(r);
    }
    b.extend_from_slice(b"NDDSCEND");
    b.extend_from_slice(&(records.len() as u64).to_le_bytes());
    let checksum = xxh3_64(&b);
    b.extend_from_slice(&checksum.to_le_bytes());
    b
}

fn sample_band_keys() -> Vec<BandKeyRecord> {
    (0..5u64)
        .map(|i| BandKeyRecord {
            doc: i * 0x0101_0101_0101_0101,
            band: u16::try_from(i).unwrap() * 300,
            key: u64::MAX - i,
        })
        .collect()
}

#[test]
fn bytes_follow_the_documented_layout() {
    let dir = tempfile::tempdir().unwrap();
    let keys = sample_band_keys();
    let got = write_file(&dir.path().join("k.bin"), 0xDEAD_BEEF, &keys);
    let records: Vec<Vec<u8>> = keys
        .iter()
        .map(|k| {
            let mut r = k.doc.to_le_bytes().to_vec();
            r.extend_from_slice(&k.band.to_le_bytes());
            r.extend_from_slice(&k.key.to_le_bytes());
            r
        })
        .collect();
    assert_eq!(got, expected_bytes(1, 18, 0xDEAD_BEEF, &records));

    let edges = [Edge { a: 1, b: 2 }, Edge { a: u64::MAX, b: 0 }];
    let got = write_file(&dir.path().join("e.bin"), 0, &edges);
    let records: Vec<Vec<u8>> = edges
        .iter()
        .map(|e| [e.a.to_le_bytes(), e.b.to_le_bytes()].concat())
        .collect();
    assert_eq!(got, expected_bytes(2, 16, 0, &records));

    let got = write_file::<Assignment>(&dir.path().join("a.bin"), 9, &[]);
    assert_eq!(got, expected_bytes(3, 16, 9, &[]));
    assert_eq!(got.len(), 56);
}

#[test]
fn a_hand_built_file_is_read() {
    // The other direction: bytes made by another program, from the specification.
    let records = vec![[7u64.to_le_bytes(), 3u64.to_le_bytes()].concat()];
    let bytes = expected_bytes(3, 16, 0, &records);
    assert_eq!(
        read_bytes::<Assignment>(&bytes).unwrap(),
        vec![Assignment { doc: 7, rep: 3 }]
    );
}

#[test]
fn every_truncation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let full = write_file(&dir.path().join("k.bin"), 1, &sample_band_keys());
    for len in 0..full.len() {
        let cut = &full[..len];
        let err = read_bytes::<BandKeyRecord>(cut).unwrap_err();
        match len {
            0..32 => assert!(matches!(err, RecordError::Truncated { .. }), "{len}: {err}"),
            // A cut file has lost its trailer (its last 24 bytes are not one).
            _ => assert!(
                matches!(err, RecordError::Incomplete | RecordError::Corrupt { .. }),
                "{len}: {err}"
            ),
        }
    }
    assert_eq!(
        read_bytes::<BandKeyRecord>(&full).unwrap(),
        sample_band_keys()
    );
    // The same through a real file, and `read_all`.
    let path = dir.path().join("cut.bin");
    std::fs::write(&path, &full[..full.len() - 1]).unwrap();
    assert!(matches!(
        read_all::<BandKeyRecord>(&path, None),
        Err(RecordError::Incomplete)
    ));
}

#[test]
fn every_bit_flip_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let full = write_file(
        &dir.path().join("e.bin"),
        5,
        &[Edge { a: 1, b: 2 }, Edge { a: 3, b: 4 }],
    );
    for byte in 0..full.len() {
        for bit in 0..8 {
            let mut bad = full.clone();
            bad[byte] ^= 1 << bit;
            let result = read_bytes::<Edge>(&bad);
            assert!(result.is_err(), "flip of bit {bit} of byte {byte} accepted");
        }
    }
}

/// A damaged record is refused when the file is opened, not only once the last record
/// is read: the scores read beside their pairs and the assignments of a second pass
/// stop before the end, and took a damaged record for a good one (issue 27, defect 7).
#[test]
fn a_damaged_record_is_refused_before_any_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<Edge> = (0..100).map(|i| Edge { a: i, b: i + 1 }).collect();
    let full = write_file(&dir.path().join("e.bin"), 5, &records);
    // The last record's last byte: a reader taking only the first record misses it
    // unless the whole file is checked first.
    let mut bad = full.clone();
    let last = full.len() - 24 - 1;
    bad[last] ^= 0x10;
    let opened = RecordReader::<Edge, _>::new(Cursor::new(bad));
    assert!(
        matches!(opened, Err(RecordError::ChecksumMismatch { .. })),
        "{opened:?}"
    );
    // An intact file still reads record by record, and a reader may stop early.
    let mut reader = RecordReader::<Edge, _>::new(Cursor::new(full)).unwrap();
    assert_eq!(reader.next().unwrap().unwrap(), Edge { a: 0, b: 1 });
}

#[test]
fn other_kinds_versions_and_fingerprints_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.bin");
    let full = write_file(&path, 5, &[Edge { a: 1, b: 2 }]);
    assert!(matches!(
        read_bytes::<Assignment>(&full),
        Err(RecordError::WrongKind { found: 2, .. })
    ));
    assert!(matches!(
        read_bytes::<BandKeyRecord>(&full),
        Err(RecordError::WrongKind { found: 2, .. })
    ));
    let mut v2 = full.clone();
    v2[8] = 2;
    assert!(matches!(
        read_bytes::<Edge>(&v2),
        Err(RecordError::UnsupportedVersion {
            found: 2,
            supported: 1
        })
    ));
    let mut not_ours = full.clone();
    not_ours[0] = b'X';
    assert!(matches!(
        read_bytes::<Edge>(&not_ours),
        Err(RecordError::BadMagic)
    ));
    assert!(matches!(
        read_all::<Edge>(&path, Some(6)),
        Err(RecordError::FingerprintMismatch {
            expected: 6,
            found: 5
        })
    ));
    assert_eq!(
        read_all::<Edge>(&path, Some(5)).unwrap(),
        vec![Edge { a: 1, b: 2 }]
    );
    // A trailer that counts more records than the file holds (checksum recomputed, so
    // only the count is wrong).
    let mut lying = full[..full.len() - 8].to_vec();
    let at = lying.len() - 8;
    lying[at..].copy_from_slice(&1_000_000u64.to_le_bytes());
    let checksum = xxh3_64(&lying);
    lying.extend_from_slice(&checksum.to_le_bytes());
    assert!(matches!(
        read_bytes::<Edge>(&lying),
        Err(RecordError::Corrupt { .. })
    ));
}

#[test]
fn unfinished_writers_leave_nothing_that_looks_complete() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bin");
    let mut w = RecordWriter::<Assignment>::create(&path, 0).unwrap();
    w.write(&Assignment { doc: 1, rep: 1 }).unwrap();
    assert!(!path.exists());
    assert!(temp_path(&path).exists());
    drop(w);
    assert!(!path.exists());
    assert!(!temp_path(&path).exists());
    // What a killed writer leaves (header and records, no trailer) is refused.
    let full = write_file(&path, 0, &[Assignment { doc: 1, rep: 1 }]);
    let killed = &full[..full.len() - 24];
    assert!(matches!(
        read_bytes::<Assignment>(killed),
        Err(RecordError::Incomplete)
    ));
}

fn arb_edges() -> impl Strategy<Value = Vec<Edge>> {
    proptest::collection::vec((any::<u64>(), any::<u64>()).prop_map(Edge::from), 0..50)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn roundtrip_every_kind(
        edges in arb_edges(),
        keys in proptest::collection::vec((any::<u64>(), any::<u16>(), any::<u64>()), 0..50),
        fingerprint in any::<u64>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let keys: Vec<BandKeyRecord> = keys
            .into_iter()
            .map(|(doc, band, key)| BandKeyRecord { doc, band, key })
            .collect();
        let assignments: Vec<Assignment> = edges.iter().map(|e| Assignment { doc: e.a, rep: e.b }).collect();
        write_file(&dir.path().join("e"), fingerprint, &edges);
        write_file(&dir.path().join("k"), fingerprint, &keys);
        write_file(&dir.path().join("a"), fingerprint, &assignments);
        prop_assert_eq!(read_all::<Edge>(dir.path().join("e"), Some(fingerprint)).unwrap(), edges);
        prop_assert_eq!(read_all::<BandKeyRecord>(dir.path().join("k"), Some(fingerprint)).unwrap(), keys);
        prop_assert_eq!(read_all::<Assignment>(dir.path().join("a"), Some(fingerprint)).unwrap(), assignments);
    }

    /// Arbitrary bytes, with or without a valid header in front, never panic.
    #[test]
    fn arbitrary_bytes_are_refused_without_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..200),
        with_header in any::<bool>(),
    ) {
        let mut bytes = Vec::new();
        if with_header {
            bytes.extend_from_slice(b"NDDSCALE");
            bytes.extend_from_slice(&1u16.to_le_bytes());
            bytes.extend_from_slice(&2u16.to_le_bytes());
            bytes.extend_from_slice(&16u32.to_le_bytes());
            bytes.extend_from_slice(&[0; 16]);
        }
        bytes.extend_from_slice(&tail);
        prop_assert!(read_bytes::<Edge>(&bytes).is_err());
    }

    /// Random overwrites of a valid file: refused, unless the bytes did not change.
    #[test]
    fn random_corruption_is_refused(
        edges in arb_edges(),
        writes in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let full = write_file(&dir.path().join("e"), 0, &edges);
        let mut bad = full.clone();
        for (at, v) in writes {
            let i = at % bad.len();
            bad[i] = v;
        }
        let result = read_bytes::<Edge>(&bad);
        if bad == full {
            prop_assert_eq!(result.unwrap(), edges);
        } else {
            prop_assert!(result.is_err());
        }
    }
}

/// Files of several of the blocks the writer and the reader hash at once (16 KiB):
/// the bytes are the documented layout (checksum of the whole), they read back, and a
/// flipped bit in any block is refused, whether the checksum is checked before the
/// first record (`RecordReader::new`) or after the last (a merge to the end).
#[test]
fn files_of_several_blocks_follow_the_layout_and_refuse_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.bin");
    for n in [1023u64, 1024, 1025, 3000, 5000] {
        let records: Vec<Edge> = (0..n)
            .map(|i| Edge {
                a: i * 7,
                b: i ^ 0x55,
            })
            .collect();
        let full = write_file(&path, 9, &records);
        let encoded: Vec<Vec<u8>> = records
            .iter()
            .map(|r| {
                let mut b = Vec::new();
                r.encode_into(&mut b);
                b
            })
            .collect();
        assert_eq!(full, expected_bytes(2, 16, 9, &encoded), "{n} records");
        assert_eq!(read_bytes::<Edge>(&full).unwrap(), records);
        // A record byte of the first block, of the second (when there is one), of the
        // last record.
        let records_end = full.len() - 24;
        for at in [32, 32 + 16 * 1024 + 3, records_end - 1]
            .into_iter()
            .filter(|&at| at < records_end)
        {
            let mut bad = full.clone();
            bad[at] ^= 0x04;
            assert!(read_bytes::<Edge>(&bad).is_err(), "{n} records, byte {at}");
            std::fs::write(&path, &bad).unwrap();
            let runs = ndd_scale::SortedRuns::from_paths(vec![path.clone()], |e: &Edge| e.a, 9);
            let items: Vec<Result<Edge, RecordError>> = runs.merge_to_end().unwrap().collect();
            assert!(
                matches!(
                    items.last(),
                    Some(Err(RecordError::ChecksumMismatch { .. }))
                ),
                "{n} records, byte {at}"
            );
        }
    }
}

//! Out of core's spill sort on rayon's pool (`ExternalSort` under the `rayon`
//! feature, commit e460232) against the previous serial sort, in the same run
//! (issue 31).
//!
//! Records: the band keys the out-of-core sketch stage spills, `BandKeyRecord { doc,
//! band, key }` for every document and band, in document order, from 128-slot MinHash
//! signatures (word 3-grams, seed 0: `ndd dedup`'s defaults) of every text of the
//! corpus, banded for a 0.8 threshold
//! (`LshParams::min_candidates_for_recall(0.8, 128, DEFAULT_MIN_RECALL)`), sorted by
//! the stage's key `(band, key, doc)`.
//!
//! * `run sort`: one run of all the records sorted in memory, by the previous code,
//!   `slice::sort_unstable_by_key` on the calling thread (kept below), and by the
//!   call `ExternalSort` makes now, rayon's `par_sort_unstable_by_key`; by wall time
//!   and by the calling thread's CPU time (`common/thread_cpu.rs`: the serial path,
//!   which a loaded machine does not inflate).
//! * `external sort`: the library's `ExternalSort` end to end (push with a quarter of
//!   the records in memory, so four runs are sorted and written, then the merge read
//!   back), on rayon's global pool against the same on a pool of one thread (the
//!   previous code's one sorting thread; rayon's sort on one thread, not the serial
//!   sort itself).
//!
//! * `external sort, comparison` against `external sort, radix` (issue 28): the
//!   same, each run sorted by comparing `(band, key, doc)` (rayon's sort) or by
//!   [`ExternalSort::radix`] (`bucket_radix`, the out-of-core sketch stage's), with
//!   four runs and with one (the run sort, one file written and read back).
//!
//! * `band-key spill (issue 28, session 13)`: the sketch stage's band-key spill
//!   before (`ExternalSort`, overlapped, `bucket_radix`) and after (`BandKeySort`,
//!   the same records pushed a document at a time), the same bytes of records in
//!   memory, each end to end with the merge read back.
//!
//! * `band-key merge by band groups (issue 28, session 14)`: the candidates stage's
//!   reading of the band-key runs before (one merge of every run, `merge_to_end`,
//!   checksums checked at each run's end) and after (`SortedRuns::check` on a thread
//!   of its own beside G merges of the runs' band sections, `merge_range`, each on a
//!   thread of its own), every record consumed.
//!
//! Both sorts, and the external sort on either pool and with either run sort, are
//! checked to give the same order before anything is timed.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS` (`bench`: the 66,855 documents
//! of `bench/data/corpus.jsonl`).
//!
//! Run: `cargo bench -p ndd-scale --features rayon --bench spill_sort` (the run files
//! go to a temporary folder, removed at the end).
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::path::Path;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::{DocSketcher, SlotSignature};
use ndd_lsh::{DEFAULT_MIN_RECALL, LshParams};
use ndd_scale::{BandKeyRecord, BandKeySort, ExternalSort};
use rayon::slice::ParallelSliceMut;

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/thread_cpu.rs"]
mod thread_cpu;

/// The out-of-core sketch stage's order of band keys: bucket by bucket.
fn bucket_order(r: &BandKeyRecord) -> (u16, u64, u64) {
    (r.band, r.key, r.doc)
}

/// [`bucket_order`] as one `u128` (the out-of-core sketch stage's `bucket_radix`):
/// band, key, then the document in 48 bits.
fn bucket_radix(r: &BandKeyRecord) -> Option<u128> {
    (r.doc < 1 << 48)
        .then(|| u128::from(r.band) << 112 | u128::from(r.key) << 48 | u128::from(r.doc))
}

/// Every band key of every text, in document order.
fn band_key_records(texts: &[String]) -> Vec<BandKeyRecord> {
    let hasher = ndd_minhash::MinHasher::builder()
        .num_hashes(128)
        .build()
        .expect("valid");
    let params = LshParams::min_candidates_for_recall(0.8, 128, DEFAULT_MIN_RECALL).expect("valid");
    let mut records = Vec::new();
    let mut keys = Vec::new();
    for (doc, text) in (0u64..).zip(texts) {
        keys.clear();
        params
            .band_keys_into(hasher.sketch(text).slots(), &mut keys)
            .expect("128 slots");
        for (band, &key) in (0u16..).zip(&keys) {
            records.push(BandKeyRecord { doc, band, key });
        }
    }
    records
}

/// The records through `ExternalSort` (at most `in_memory` of them in memory) and its
/// merge, in `dir`; the run files are removed.
fn external_sort(
    dir: &Path,
    records: &[BandKeyRecord],
    in_memory: usize,
    radix: bool,
) -> Vec<BandKeyRecord> {
    let sort = ExternalSort::new(dir, "keys", bucket_order, in_memory, 0).expect("a folder");
    let mut sort = match radix {
        true => sort.radix(bucket_radix),
        false => sort,
    };
    for &r in records {
        sort.push(r).expect("a run written");
    }
    let runs = sort.finish().expect("runs written");
    let merged = runs
        .merge()
        .expect("runs read")
        .collect::<Result<Vec<_>, _>>()
        .expect("runs read");
    runs.remove().expect("runs removed");
    merged
}

/// The records through `ExternalSort` as the out-of-core sketch stage used it before
/// `BandKeySort` (overlapped, `bucket_radix`), `bytes` of records in memory, and the
/// merge; the run files are removed.
fn external_radix_overlapped(
    dir: &Path,
    records: &[BandKeyRecord],
    bytes: usize,
) -> Vec<BandKeyRecord> {
    let in_memory = bytes / size_of::<BandKeyRecord>();
    let mut sort = ExternalSort::new(dir, "keys", bucket_order, in_memory, 0)
        .expect("a folder")
        .overlapped()
        .radix(bucket_radix);
    for &r in records {
        sort.push(r).expect("a run written");
    }
    merge_and_remove(&sort.finish().expect("runs written"))
}

/// The same records pushed a document at a time (`bands` keys each) through
/// `BandKeySort`, `bytes` of records in memory (16 each), and the merge.
fn band_key_sort(
    dir: &Path,
    records: &[BandKeyRecord],
    bands: usize,
    bytes: usize,
) -> Vec<BandKeyRecord> {
    let mut sort = BandKeySort::new(dir, "keys", bytes / 16, 0).expect("a folder");
    let mut keys = Vec::with_capacity(bands);
    for doc in records.chunks(bands) {
        keys.clear();
        keys.extend(doc.iter().map(|r| r.key));
        sort.push_document(doc[0].doc, &keys)
            .expect("a run written");
    }
    merge_and_remove(&sort.finish().expect("runs written"))
}

fn merge_and_remove(
    runs: &ndd_scale::SortedRuns<BandKeyRecord, (u16, u64, u64)>,
) -> Vec<BandKeyRecord> {
    let merged = runs
        .merge()
        .expect("runs read")
        .collect::<Result<Vec<_>, _>>()
        .expect("runs read");
    for p in runs.paths() {
        std::fs::remove_file(p).expect("a run removed");
    }
    merged
}

/// A run sort timed: sorts the records in place by `bucket_order`.
type RunSort = fn(&mut [BandKeyRecord]);

fn bench(c: &mut Criterion) {
    let records = band_key_records(&corpus::load());
    let n = records.len();
    let in_memory = n.div_ceil(4);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");

    // The run sort before e460232 (kept here) and the call `ExternalSort` makes now.
    let run_sorts: [(&str, RunSort); 2] = [
        ("run sort, previous: sort_unstable_by_key", |run| {
            run.sort_unstable_by_key(bucket_order);
        }),
        ("run sort: par_sort_unstable_by_key", |run| {
            run.par_sort_unstable_by_key(bucket_order);
        }),
    ];
    let mut serial = records.clone();
    run_sorts[0].1(&mut serial);
    let mut parallel = records.clone();
    run_sorts[1].1(&mut parallel);
    assert_eq!(serial, parallel, "the same run");
    for radix in [false, true] {
        assert_eq!(
            external_sort(dir.path(), &records, in_memory, radix),
            serial
        );
        assert_eq!(
            one_thread.install(|| external_sort(dir.path(), &records, in_memory, radix)),
            serial
        );
        // One run: the run sort alone, then one file written and read back.
        assert_eq!(external_sort(dir.path(), &records, n, radix), serial);
    }
    eprintln!(
        "spill sort: {n} band-key records, {in_memory} in memory (4 runs), rayon feature \
         of ndd-scale {}, {} threads",
        cfg!(feature = "rayon"),
        rayon::current_num_threads(),
    );

    let mut group = c.benchmark_group("spill sort (issue 31)");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    for (name, sort) in run_sorts {
        group.bench_function(BenchmarkId::new(format!("wall, {name}"), n), |b| {
            b.iter_batched_ref(|| records.clone(), |run| sort(run), BatchSize::LargeInput);
        });
        let setup = || records.clone();
        thread_cpu::bench_batched(&mut group, name, n, setup, |mut run| sort(&mut run));
    }
    // ExternalSort's run sort by comparing keys (rayon's sort, before issue 28's radix)
    // against ExternalSort::radix (the in-place radix sort of `bucket_radix`).
    for (sort, radix) in [("comparison", false), ("radix", true)] {
        group.bench_function(
            BenchmarkId::new(format!("external sort, {sort}, pool of 1 thread"), n),
            |b| {
                b.iter(|| {
                    one_thread.install(|| {
                        black_box(external_sort(dir.path(), &records, in_memory, radix).len())
                    })
                });
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("external sort, {sort}, global pool"), n),
            |b| {
                b.iter(|| black_box(external_sort(dir.path(), &records, in_memory, radix).len()));
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("external sort, {sort}, one run, global pool"), n),
            |b| {
                b.iter(|| black_box(external_sort(dir.path(), &records, n, radix).len()));
            },
        );
    }
    group.finish();

    // Issue 28, session 13: the sketch stage's band-key spill before (`ExternalSort`,
    // overlapped, `bucket_radix`) and after (`BandKeySort`), the same bytes of
    // records in memory (a quarter of the 24-byte records': about eight runs before,
    // five after), then the merge read back.
    let bands = records.iter().filter(|r| r.doc == 0).count();
    let bytes = in_memory * size_of::<BandKeyRecord>();
    assert_eq!(band_key_sort(dir.path(), &records, bands, bytes), serial);
    assert_eq!(
        external_radix_overlapped(dir.path(), &records, bytes),
        serial
    );
    let mut group = c.benchmark_group("band-key spill (issue 28, session 13)");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(
        BenchmarkId::new("ExternalSort, overlapped, radix (before)", n),
        |b| {
            b.iter(|| black_box(external_radix_overlapped(dir.path(), &records, bytes).len()));
        },
    );
    group.bench_function(BenchmarkId::new("BandKeySort (after)", n), |b| {
        b.iter(|| black_box(band_key_sort(dir.path(), &records, bands, bytes).len()));
    });
    group.finish();
}

/// Folds the records of a merge (every record consumed, as the walk consumes them).
fn fold(merge: ndd_scale::Merge<BandKeyRecord, (u16, u64, u64)>) -> u64 {
    merge.fold(0u64, |acc, r| {
        let r = r.expect("runs read");
        acc.wrapping_mul(31).wrapping_add(r.doc ^ r.key)
    })
}

/// The runs read as the candidates stage reads them after session 14: their
/// checksums on a thread of their own, and `groups` merges of consecutive bands'
/// sections, each on a thread of its own; the folds of the groups, in band order.
fn merge_by_groups(
    runs: &ndd_scale::SortedRuns<BandKeyRecord, (u16, u64, u64)>,
    bands: usize,
    groups: usize,
) -> Vec<u64> {
    std::thread::scope(|s| {
        let checked = s.spawn(|| runs.check());
        let walks: Vec<_> = (0..groups)
            .map(|g| {
                let lo = u16::try_from(g * bands / groups).expect("few bands");
                let hi = u16::try_from((g + 1) * bands / groups).expect("few bands");
                s.spawn(move || fold(runs.merge_range((lo, 0, 0)..(hi, 0, 0)).expect("runs read")))
            })
            .collect();
        let folds = walks
            .into_iter()
            .map(|w| w.join().expect("a walk"))
            .collect();
        checked.join().expect("a check").expect("runs intact");
        folds
    })
}

/// Issue 28, session 14: the band-key runs read by one merge against by band groups.
fn bench_band_groups(c: &mut Criterion) {
    let records = band_key_records(&corpus::load());
    let n = records.len();
    let bands = records.iter().filter(|r| r.doc == 0).count();
    let dir = tempfile::tempdir().expect("a temporary folder");
    // About 16 runs (the stage at 1M documents under 117M merges 37).
    let mut sort = BandKeySort::new(dir.path(), "keys", n.div_ceil(8), 0).expect("a folder");
    let mut keys = Vec::with_capacity(bands);
    for doc in records.chunks(bands) {
        keys.clear();
        keys.extend(doc.iter().map(|r| r.key));
        sort.push_document(doc[0].doc, &keys)
            .expect("a run written");
    }
    let runs = sort.finish().expect("runs written");
    // The same records either way: the groups' folds are the whole merge's, cut at
    // the groups' first bands.
    let whole: Vec<BandKeyRecord> = runs
        .merge_to_end()
        .expect("runs read")
        .collect::<Result<_, _>>()
        .expect("runs read");
    for groups in [1, 2, 4] {
        let expected: Vec<u64> = (0..groups)
            .map(|g| {
                let (lo, hi) = (g * bands / groups, (g + 1) * bands / groups);
                whole
                    .iter()
                    .filter(|r| (lo..hi).contains(&usize::from(r.band)))
                    .fold(0u64, |acc, r| {
                        acc.wrapping_mul(31).wrapping_add(r.doc ^ r.key)
                    })
            })
            .collect();
        assert_eq!(merge_by_groups(&runs, bands, groups), expected);
    }
    eprintln!(
        "band-key merge: {n} records, {} runs, {bands} bands, {} threads",
        runs.paths().len(),
        rayon::current_num_threads()
    );
    let mut group = c.benchmark_group("band-key merge by band groups (issue 28, session 14)");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(
        BenchmarkId::new("one merge, merge_to_end (before)", n),
        |b| {
            b.iter(|| black_box(fold(runs.merge_to_end().expect("runs read"))));
        },
    );
    for groups in [1, 2, 4] {
        group.bench_function(
            BenchmarkId::new(
                format!("check + {groups} band groups, merge_range (after)"),
                n,
            ),
            |b| b.iter(|| black_box(merge_by_groups(&runs, bands, groups))),
        );
    }
    group.finish();
}

criterion_group!(benches, bench, bench_band_groups);
criterion_main!(benches);

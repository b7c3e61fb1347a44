//! `hash::hash_u64s` (the LSH band key: XXH3 of the values' little-endian bytes)
//! against its code before issue 31's cuts (commits `cf12f0a` and `da5d674`), kept
//! here as the baselines, in the same run.
//!
//! `before` copied up to 32 values into a 256-byte stack buffer, cleared whole on
//! every call; `previous` (`da5d674`) copied up to 8 values (a band's rows) into a
//! 64-byte one (9 to 32 still through 256 bytes) and hashed the buffer's bytes;
//! `hash_u64s` reads 3 to 16 values as words, with no buffer (session 11, task M).
//! Each iteration hashes 4,096 different bands of `n` values, for `n` = 4, 6, 8 and
//! 16. Before measuring, the baselines are checked to give the same value for every
//! band.
//!
//! Run: `cargo bench -p ndd-core --bench hash -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::hash::{StableHasher, hash_u64s, stable_hash64};

/// The baseline: `cf12f0a`'s `hash_u64s`.
fn hash_u64s_before(values: &[u64], seed: u64) -> u64 {
    const STACK: usize = 32;
    if values.len() <= STACK {
        let mut buf = [0u8; STACK * 8];
        for (chunk, v) in buf.chunks_exact_mut(8).zip(values) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        stable_hash64(&buf[..values.len() * 8], seed)
    } else {
        let mut h = StableHasher::new(seed);
        values.iter().for_each(|v| h.update(&v.to_le_bytes()));
        h.finish()
    }
}

/// The baseline: `da5d674`'s `hash_u64s`, through a 64-byte buffer up to 8 values.
fn hash_u64s_previous(values: &[u64], seed: u64) -> u64 {
    fn through<const N: usize>(values: &[u64], seed: u64) -> u64 {
        let mut buf = [0u8; N];
        for (chunk, v) in buf.chunks_exact_mut(8).zip(values) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        stable_hash64(&buf[..values.len() * 8], seed)
    }
    if values.len() <= 8 {
        through::<64>(values, seed)
    } else {
        hash_u64s_before(values, seed)
    }
}

/// The bands one iteration hashes.
const BANDS: usize = 4096;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hash_u64s");
    for n in [4usize, 6, 8, 16] {
        // Values as a MinHash signature holds them: spread over all 64 bits.
        let values: Vec<u64> = (0..(BANDS * n) as u64)
            .map(|i| stable_hash64(&i.to_le_bytes(), 7))
            .collect();
        for band in values.chunks_exact(n) {
            assert_eq!(hash_u64s_before(band, 1), hash_u64s(band, 1), "{band:?}");
            assert_eq!(hash_u64s_previous(band, 1), hash_u64s(band, 1), "{band:?}");
        }
        group.throughput(Throughput::Elements(BANDS as u64));
        group.bench_with_input(BenchmarkId::new("before", n), &values, |b, v| {
            b.iter(|| {
                v.chunks_exact(n)
                    .fold(0u64, |acc, band| acc ^ hash_u64s_before(black_box(band), 1))
            });
        });
        group.bench_with_input(BenchmarkId::new("previous", n), &values, |b, v| {
            b.iter(|| {
                v.chunks_exact(n).fold(0u64, |acc, band| {
                    acc ^ hash_u64s_previous(black_box(band), 1)
                })
            });
        });
        group.bench_with_input(BenchmarkId::new("hash_u64s", n), &values, |b, v| {
            b.iter(|| {
                v.chunks_exact(n)
                    .fold(0u64, |acc, band| acc ^ hash_u64s(black_box(band), 1))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

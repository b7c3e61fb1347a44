//! `BBitSlots::push` (the b-bit fields the MinHash candidate stage keeps of every
//! document: 128 slots of 8 bits at the defaults) against its packing before session
//! 11's task M (`da5d674`), kept here as the baseline, in the same run.
//!
//! `previous` packed each word by folding its `64 / b` values with the width read at
//! run time; `push` now dispatches once on the width to a loop with the width a
//! constant. Each iteration stores 4,096 signatures of 128 values into a cleared store
//! (`previous` into a plain vector the same way). Before measuring, the baseline is
//! checked to give the same words as the store for every signature.
//!
//! Run: `cargo bench -p ndd-minhash --bench bbit_pack -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::Sketcher;
use ndd_core::hash::stable_hash64;
use ndd_minhash::{BBitSlots, MinHasher};

/// The baseline: `da5d674`'s `pack_into` for widths that divide 64.
fn pack_previous(values: &[u64], bits: u32, words: &mut [u64]) {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    for (w, chunk) in words.iter_mut().zip(values.chunks(64 / bits as usize)) {
        *w = chunk
            .iter()
            .rev()
            .fold(0u64, |acc, &v| acc.wrapping_shl(bits) | (v & mask));
    }
}

/// Signatures one iteration stores.
const DOCS: usize = 4096;
/// Slots per signature (the tool's default).
const K: usize = 128;

fn bench(c: &mut Criterion) {
    let hasher = MinHasher::new(K).expect("128 slots");
    let sigs: Vec<_> = (0..DOCS as u64)
        .map(|d| {
            hasher.sketch_features((0..40).map(|i| stable_hash64(&(d * 64 + i).to_le_bytes(), 3)))
        })
        .collect();
    let mut group = c.benchmark_group("bbit_pack");
    group.throughput(Throughput::Elements(DOCS as u64));
    for bits in [4u32, 8, 16] {
        let stride = K * bits as usize / 64;
        let mut store = BBitSlots::new(bits, K).expect("width");
        for s in &sigs {
            store.push(s).expect("same scheme");
        }
        let mut words = vec![0u64; DOCS * stride];
        for (s, w) in sigs.iter().zip(words.chunks_exact_mut(stride)) {
            pack_previous(s.values(), bits, w);
        }
        for (d, w) in words.chunks_exact(stride).enumerate() {
            assert_eq!(store.fields(d), w, "doc {d}");
        }
        group.bench_with_input(BenchmarkId::new("previous", bits), &sigs, |b, sigs| {
            b.iter(|| {
                let mut words: Vec<u64> = Vec::with_capacity(DOCS * stride);
                for s in sigs {
                    let start = words.len();
                    words.resize(start + stride, 0);
                    pack_previous(black_box(s.values()), bits, &mut words[start..]);
                }
                words
            });
        });
        group.bench_with_input(BenchmarkId::new("push", bits), &sigs, |b, sigs| {
            b.iter(|| {
                let mut store = BBitSlots::new(bits, K).expect("width");
                store.reserve(DOCS);
                for s in sigs {
                    store.push(black_box(s)).expect("same scheme");
                }
                store
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

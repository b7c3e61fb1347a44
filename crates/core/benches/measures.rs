//! `intersection_len` (the two-by-two block merge) against the one-element merge it
//! replaced (issue 31), and a verifier's test `jaccard(a, b) >= 0.8` against
//! `jaccard_at_least(a, b, 0.8)` (stops once 0.8 is out of reach), in the same run.
//! Random sets of `n` values, the second sharing about `share` of the first's; enough
//! pairs (400,000 values a side) that the branch predictor cannot learn them. Each
//! variant is checked equal to the baseline before it is timed.
//!
//! Run: `cargo bench -p ndd-core --bench measures -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::{intersection_len, jaccard, jaccard_at_least};

/// The baseline: the one-element branch-free merge before issue 31's cut.
fn intersection_before(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    n
}

/// Pairs of sorted random sets of `n` values each sharing about `share` of them.
fn pairs(n: usize, share: f64, count: usize) -> Vec<(Vec<u64>, Vec<u64>)> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..count)
        .map(|_| {
            let mut a: Vec<u64> = (0..n).map(|_| next()).collect();
            let mut b: Vec<u64> = a
                .iter()
                .map(|&v| {
                    #[allow(clippy::cast_precision_loss)]
                    let keep = (next() >> 11) as f64 / (1u64 << 53) as f64 <= share;
                    if keep { v } else { next() }
                })
                .collect();
            a.sort_unstable();
            a.dedup();
            b.sort_unstable();
            b.dedup();
            (a, b)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("intersection_len");
    for (n, share) in [(30usize, 0.9), (100, 0.9), (100, 0.6), (400, 0.9)] {
        let sets = pairs(n, share, 400_000 / n);
        for (a, b) in &sets {
            assert_eq!(intersection_len(a, b), intersection_before(a, b));
            let j = jaccard(a, b);
            assert_eq!(jaccard_at_least(a, b, 0.8), (j >= 0.8).then_some(j));
        }
        group.throughput(Throughput::Elements((n * sets.len()) as u64));
        let id = format!("n{n}-share{share}");
        group.bench_with_input(BenchmarkId::new("before", &id), &sets, |bch, s| {
            bch.iter(|| {
                s.iter()
                    .map(|(a, b)| intersection_before(black_box(a), black_box(b)))
                    .sum::<usize>()
            });
        });
        group.bench_with_input(BenchmarkId::new("now", &id), &sets, |bch, s| {
            bch.iter(|| {
                s.iter()
                    .map(|(a, b)| intersection_len(black_box(a), black_box(b)))
                    .sum::<usize>()
            });
        });
        // A verifier's question at 0.8: the whole merge for kept pairs, a part for
        // the others.
        group.bench_with_input(BenchmarkId::new("jaccard", &id), &sets, |bch, s| {
            bch.iter(|| {
                s.iter()
                    .filter(|(a, b)| jaccard(black_box(a), black_box(b)) >= 0.8)
                    .count()
            });
        });
        group.bench_with_input(
            BenchmarkId::new("jaccard_at_least", &id),
            &sets,
            |bch, s| {
                bch.iter(|| {
                    s.iter()
                        .filter_map(|(a, b)| jaccard_at_least(black_box(a), black_box(b), 0.8))
                        .count()
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! `LshParams::min_candidates_for_recall`, the banding search `ndd dedup` runs on its
//! calling thread before reading (issue 31, session 10 task H), against its previous
//! version (before `570f0ee`: every feasible `bands × rows` shape integrated, the first
//! strict minimum of the false-positive area kept), copied here as `every_shape_search`.
//! The library now integrates one shape per row count, the fewest bands reaching the
//! recall.
//!
//! Inputs: the tool's defaults (`0.8`, 128 slots, recall `0.99`) and two more searches
//! (`0.5` over 256 slots at `0.9`, `0.9` over 64 at `0.999`). Before timing, both give
//! the same shape for every one of them.
//!
//! Run: `cargo bench -p ndd-lsh --bench recall_search -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ndd_lsh::LshParams;

/// The search before `570f0ee`: every shape with `bands × rows ≤ num_slots`, bands
/// ascending then rows, whose probability at `threshold` reaches `min_recall`,
/// integrated; the first with the smallest false-positive area wins.
fn every_shape_search(threshold: f64, num_slots: usize, min_recall: f64) -> Option<LshParams> {
    let mut best = None;
    let mut best_fp = f64::INFINITY;
    for bands in 1..=num_slots {
        for rows in 1..=num_slots / bands {
            let p = LshParams::new(bands, rows).expect("a valid shape");
            if p.probability(threshold) >= min_recall {
                let fp = p.false_positive_area(threshold);
                if fp < best_fp {
                    best_fp = fp;
                    best = Some(p);
                }
            }
        }
    }
    best
}

fn bench(c: &mut Criterion) {
    let searches = [(0.8, 128, 0.99), (0.5, 256, 0.9), (0.9, 64, 0.999)];
    for &(t, slots, recall) in &searches {
        let old = every_shape_search(t, slots, recall);
        let new = LshParams::min_candidates_for_recall(t, slots, recall).ok();
        assert!(old.is_some(), "({t}, {slots}, {recall}) is feasible");
        assert_eq!(old, new, "({t}, {slots}, {recall}): the same shape");
    }
    let mut g = c.benchmark_group("lsh/min_candidates_for_recall");
    for &(t, slots, recall) in &searches {
        let id = format!("{t}_{slots}_{recall}");
        g.bench_function(BenchmarkId::new("previous_every_shape", &id), |b| {
            b.iter(|| every_shape_search(black_box(t), black_box(slots), black_box(recall)));
        });
        g.bench_function(BenchmarkId::new("new_fewest_bands", &id), |b| {
            b.iter(|| {
                LshParams::min_candidates_for_recall(
                    black_box(t),
                    black_box(slots),
                    black_box(recall),
                )
            });
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

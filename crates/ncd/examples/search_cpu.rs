//! CPU time of the exact SigNCD search (P1, τ = 0.7, at most 256 pairs per row, as
//! `ndd dedup --method signcd --threshold 0.3`), with identical signatures sharing
//! their compressions and with every compared pair compressed (the search before
//! issue 31), alternated over `R` rounds (default 2).
//!
//! Corpus: the bundled `data/debian-copyright.jsonl`, or the JSONL file named by
//! `NDD_BENCH_CORPUS` (the `text` field of every line). Time is this thread's CPU time
//! (`/proc/thread-self/schedstat` on Linux, wall time elsewhere), so time spent
//! descheduled on a shared machine does not count.
//!
//! Run: `cargo run --release -p ndd-ncd --example search_cpu [-- R]`

use std::time::Instant;

use ndd_ncd::{SearchConfig, SigNcd};

#[path = "../benches/common/corpus.rs"]
mod corpus;

/// This thread's CPU time in seconds, or `None` where the kernel does not say.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

fn main() -> Result<(), ndd_core::Error> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    let docs = corpus::load();
    let corpus = SigNcd::new().corpus(&docs)?;
    println!(
        "{} documents, {} fallbacks",
        corpus.len(),
        corpus.fallback_count()
    );
    for _ in 0..rounds {
        for share in [false, true] {
            let search = SearchConfig::builder(0.7)
                .max_partners(Some(256))
                .share_identical(share)
                .build()?;
            let (wall, cpu) = (Instant::now(), cpu_seconds());
            let out = search.search(&corpus)?;
            let seconds = match (cpu, cpu_seconds()) {
                (Some(a), Some(b)) => b - a,
                _ => wall.elapsed().as_secs_f64(),
            };
            let r = out.report;
            println!(
                "share_identical({share}): {seconds:.3} s, {} pairs, {} compared, {} compressions",
                out.pairs.len(),
                r.compared,
                r.compared - r.reused
            );
        }
    }
    Ok(())
}

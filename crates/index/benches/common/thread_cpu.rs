//! The calling thread's CPU time as a criterion measurement, for the benches of code
//! that moved work onto rayon's pool (included with `#[path = "common/thread_cpu.rs"]
//! mod thread_cpu;`; the other crates' copies are links to this file).
//!
//! The calling thread's time is the serial path: while rayon's workers run a parallel
//! call, the thread that made it waits without using a CPU. Unlike wall time, it is not
//! inflated by waiting for a core, so on a machine shared with other builds it still
//! shows what a change moved off the calling thread (cache and memory contention still
//! show). It is read from Linux's `/proc/thread-self/schedstat`, which the kernel
//! updates at context switches and timer ticks: a reading can lag by up to a tick, so
//! only many iterations give a figure.

use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};

/// Nanoseconds of CPU the calling thread has used, `None` off Linux.
fn now_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Adds the row `calling thread CPU, {name}` (parameter `n`) to `group`: `routine`
/// timed by the calling thread's CPU time.
#[allow(dead_code)] // not every including bench has calls without a setup
pub(crate) fn bench<O>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    n: usize,
    mut routine: impl FnMut() -> O,
) {
    bench_batched(group, name, n, || (), |()| routine());
}

/// As [`bench`], `routine` on a fresh `setup()` each iteration, made outside the
/// measured time.
#[allow(dead_code)] // not every including bench has a setup
pub(crate) fn bench_batched<I, O>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    n: usize,
    mut setup: impl FnMut() -> I,
    mut routine: impl FnMut(I) -> O,
) {
    let id = BenchmarkId::new(format!("calling thread CPU, {name}"), n);
    group.bench_function(id, |b| {
        b.iter_custom(|iters| calling_thread_cpu(iters, &mut setup, &mut routine));
    });
}

/// The calling thread's CPU time over `iters` calls of `routine`, each on a fresh
/// `setup()` made outside the measured time (the wall time where the CPU time cannot
/// be read).
fn calling_thread_cpu<I, O>(
    iters: u64,
    mut setup: impl FnMut() -> I,
    mut routine: impl FnMut(I) -> O,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let input = setup();
        let (wall, start) = (Instant::now(), now_ns());
        let output = routine(input);
        total += match (start, now_ns()) {
            (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
            _ => wall.elapsed(),
        };
        drop(std::hint::black_box(output));
    }
    total
}

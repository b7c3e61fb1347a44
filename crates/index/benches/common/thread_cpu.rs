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

/// Nanoseconds of CPU the calling thread has used, `None` off Linux.
fn now_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// The calling thread's CPU time over `iters` calls of `routine`, each on a fresh
/// `setup()` made outside the measured time (the wall time where the CPU time cannot
/// be read): for criterion's `iter_custom`.
pub(crate) fn calling_thread_cpu<I, O>(
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

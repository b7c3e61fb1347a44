//! Reading memory ahead of its use: the read-ahead of verification
//! (`verify::score_by_sets`) and of the MinHash estimate filter (`candidates::minhash`).

/// Values of `u64` in one 64-byte cache line.
const LINE_VALUES: usize = 8;

/// Reads one value in each of the first `lines` cache lines of `values` (fewer when
/// `values` is shorter), so that they are in the cache when `values` is used, and
/// returns their XOR: a value for the caller to fold into its own and hand to
/// [`std::hint::black_box`] once, which keeps the reads.
pub(crate) fn touch_lines(values: &[u64], lines: usize) -> u64 {
    values
        .iter()
        .step_by(LINE_VALUES)
        .take(lines)
        .fold(0, |x, v| x ^ v)
}

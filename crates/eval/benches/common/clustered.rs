//! Scored pairs over documents in clusters of five, from a fixed xorshift stream:
//! shared by the `sweep` bench (a million pairs) and the integration test that checks
//! the sweep of a small draw against a brute-force oracle (through a link
//! `tests/integration/clustered.rs` to this file).

/// `n` documents, document `i` in cluster `i / 5`, and `m` scored pairs: each pair's
/// first document drawn uniformly, its second in the same cluster for half of the
/// pairs and anywhere for the rest (self-pairs and repeats included, as a candidate
/// stream has them); scores are multiples of 1/1000 in [0, 1).
pub(crate) fn clustered_pairs(n: usize, m: usize) -> (Vec<usize>, Vec<(usize, usize, f64)>) {
    let labels: Vec<usize> = (0..n).map(|i| i / 5).collect();
    let mut pairs = Vec::with_capacity(m);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let within = |v: u64| usize::try_from(v % n as u64).expect("below n, a usize");
    for _ in 0..m {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let a = within(x);
        let b = if x & 1 == 0 {
            ((a / 5) * 5 + within((x >> 8) % 5)).min(n - 1)
        } else {
            within(x >> 20)
        };
        pairs.push((a, b, ((x >> 40) % 1000) as f64 / 1000.0));
    }
    (labels, pairs)
}

//! The set verifiers' Jaccard merge as it was at `84e7619`, before issue 31's split
//! merge (session 12, task C): one chain of two-by-two block steps. A copy kept for the
//! benches that time it against the library (the library carries no dead code),
//! included with `#[path = ".../benches/common/merge_84e7619.rs"] mod merge_84e7619;`.

/// Block steps between two checks of the bound.
const ROUND: usize = 16;

/// `|A ∩ B|` of two sorted, duplicate-free slices, or `None` as soon as it cannot reach
/// `need`: `ndd_core::measures::common_unless_below` at `84e7619`.
pub(crate) fn common_unless_below(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    let (mut i, mut j, mut n) = (0, 0, 0);
    loop {
        let rest = (a.len() - i).min(b.len() - j);
        if n + rest < need {
            return None;
        }
        let steps = (rest / 2).min(ROUND);
        if steps == 0 {
            break;
        }
        for _ in 0..steps {
            let (x0, x1, y0, y1) = (a[i], a[i + 1], b[j], b[j + 1]);
            n += usize::from(x0 == y0)
                + usize::from(x0 == y1)
                + usize::from(x1 == y0)
                + usize::from(x1 == y1);
            i += 2 * usize::from(x1 <= y1);
            j += 2 * usize::from(y1 <= x1);
        }
    }
    let (a, b) = (&a[i..], &b[j..]);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    (n >= need).then_some(n)
}

/// `ndd_core::jaccard_at_least` at `84e7619`: the least intersection reaching `t`, then
/// the merge above bounded by it.
pub(crate) fn jaccard_at_least(a: &[u64], b: &[u64], t: f64) -> Option<f64> {
    jaccard_at_least_with(a, b, t, common_unless_below)
}

/// PROTO: [`jaccard_at_least`] with another merge.
pub(crate) fn jaccard_at_least_with(
    a: &[u64],
    b: &[u64],
    t: f64,
    merge: impl Fn(&[u64], &[u64], usize) -> Option<usize>,
) -> Option<f64> {
    let sizes = a.len() + b.len();
    if sizes == 0 {
        return (1.0 >= t).then_some(1.0);
    }
    let score = |k: usize| k as f64 / (sizes - k) as f64;
    if t.is_nan() || t > 1.0 {
        return None;
    }
    let most = a.len().min(b.len());
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mut k = ((t * sizes as f64 / (1.0 + t)).max(0.0) as usize).min(most + 1);
    while k > 0 && score(k - 1) >= t {
        k -= 1;
    }
    while k <= most && score(k) < t {
        k += 1;
    }
    if k > most {
        return None;
    }
    let j = score(merge(a, b, k)?);
    (j >= t).then_some(j)
}

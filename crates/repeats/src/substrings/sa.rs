//! The suffix array of a byte string by induced sorting (SA-IS: Nong, Zhang and Chan,
//! "Two Efficient Algorithms for Linear Time Suffix Array Construction", IEEE
//! Transactions on Computers 60(10), 2011), linear time, with the reduced problem
//! solved inside the suffix array's own memory.
//!
//! Working memory beyond the text and the `4 × n` bytes of the array: one bit per
//! symbol for the suffix types and a bucket table of the alphabet (256 entries for
//! bytes, at most `n / 2` for the reduced string), about `2.2 × n` bytes at worst,
//! freed before the recursion goes deeper and rebuilt after it returns.

use ndd_core::Error;

/// An empty slot of the array while suffixes are induced.
const EMPTY: u32 = u32::MAX;

/// The longest text [`suffix_array`] sorts: positions are `u32`, and one value marks
/// empty slots.
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::MAX_TEXT_BYTES;
/// // About 4 GiB: a larger corpus is sorted in shards (`RepeatedSubstrings::memory_budget`).
/// assert_eq!(MAX_TEXT_BYTES, u32::MAX as usize - 1);
/// ```
pub const MAX_TEXT_BYTES: usize = (u32::MAX - 1) as usize;

/// The suffix array of `text`: the start positions of its suffixes in lexicographic
/// order of the suffixes (a suffix that is a prefix of another sorts first).
///
/// # Errors
///
/// [`Error::InvalidInput`] when `text` is longer than [`MAX_TEXT_BYTES`].
///
/// # Example
///
/// ```
/// use near_dup::repeats::substrings::suffix_array;
/// // Suffixes of "banana": a, ana, anana, banana, na, nana.
/// assert_eq!(suffix_array(b"banana")?, [5, 3, 1, 0, 4, 2]);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub fn suffix_array(text: &[u8]) -> Result<Vec<u32>, Error> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(Error::InvalidInput {
            reason: format!(
                "a suffix array of {} bytes: at most {MAX_TEXT_BYTES} bytes are sorted at once",
                text.len()
            ),
        });
    }
    let mut sa = vec![EMPTY; text.len()];
    sais(text, 256, &mut sa);
    Ok(sa)
}

/// A symbol of the text being sorted: a byte at the top level, a name (`u32`) in
/// the reduced strings.
trait Symbol: Copy + Ord {
    fn index(self) -> usize;
}

impl Symbol for u8 {
    fn index(self) -> usize {
        usize::from(self)
    }
}

impl Symbol for u32 {
    fn index(self) -> usize {
        self as usize
    }
}

/// `n` as a position (`n` is below [`MAX_TEXT_BYTES`], checked by [`suffix_array`]).
fn pos(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(EMPTY)
}

/// One bit per symbol: whether its suffix is S-type (smaller than the next suffix).
struct Types(Vec<u64>);

impl Types {
    fn of<T: Symbol>(s: &[T]) -> Self {
        let n = s.len();
        let mut bits = vec![0u64; n.div_ceil(64)];
        // The last suffix is L-type: it is larger than the empty suffix after it.
        let mut next_s = false;
        for i in (0..n.saturating_sub(1)).rev() {
            let is_s = s[i] < s[i + 1] || (s[i] == s[i + 1] && next_s);
            if is_s {
                bits[i / 64] |= 1 << (i % 64);
            }
            next_s = is_s;
        }
        Types(bits)
    }

    fn is_s(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// Whether `i` is a leftmost S-type position (an S-type after an L-type).
    fn is_lms(&self, i: usize) -> bool {
        i > 0 && self.is_s(i) && !self.is_s(i - 1)
    }
}

/// The start of each symbol's bucket in the array, and the array's length at `k`.
fn buckets<T: Symbol>(s: &[T], k: usize) -> Vec<u32> {
    let mut b = vec![0u32; k + 1];
    for &c in s {
        b[c.index() + 1] += 1;
    }
    for c in 0..k {
        b[c + 1] += b[c];
    }
    b
}

/// Sorts the suffixes of `s` (symbols below `k`) into `sa` (`sa.len() == s.len()`).
fn sais<T: Symbol>(s: &[T], k: usize, sa: &mut [u32]) {
    let n = s.len();
    match n {
        0 => return,
        1 => {
            sa[0] = 0;
            return;
        }
        _ => {}
    }
    let types = Types::of(s);
    let bkt = buckets(s, k);

    // Stage 1: the LMS positions at the ends of their buckets, then induced; the LMS
    // substrings come out sorted.
    sa.fill(EMPTY);
    let mut tails: Vec<u32> = bkt[1..].to_vec();
    for (i, c) in s.iter().enumerate().skip(1) {
        if types.is_lms(i) {
            let c = c.index();
            tails[c] -= 1;
            sa[tails[c] as usize] = pos(i);
        }
    }
    drop(tails);
    induce(s, sa, &types, &bkt);

    // The sorted LMS positions to the front.
    let mut m = 0;
    for i in 0..n {
        let p = sa[i] as usize;
        if types.is_lms(p) {
            sa[m] = sa[i];
            m += 1;
        }
    }
    // Name each LMS substring by its rank among the distinct ones; the name of
    // position p goes to slot m + p / 2 (LMS positions are at least two apart).
    sa[m..].fill(EMPTY);
    let mut names = 0u32;
    let mut prev: Option<usize> = None;
    for i in 0..m {
        let p = sa[i] as usize;
        if prev.is_none_or(|q| !lms_equal(s, &types, q, p)) {
            names += 1;
        }
        prev = Some(p);
        sa[m + p / 2] = names - 1;
    }
    // The reduced string (the names in text order) to the end of the array.
    let mut j = n;
    for i in (m..n).rev() {
        if sa[i] != EMPTY {
            j -= 1;
            sa[j] = sa[i];
        }
    }
    drop(bkt);
    drop(types);

    // Stage 2: sort the reduced string, recursively when names repeat. Its suffix
    // array goes to sa[..m], the string itself stays in sa[n - m..] (m <= n / 2).
    {
        let (left, right) = sa.split_at_mut(n - m);
        let reduced = &right[..];
        let sa1 = &mut left[..m];
        if (names as usize) < m {
            sais(reduced, names as usize, sa1);
        } else {
            for (i, &name) in reduced.iter().enumerate() {
                sa1[name as usize] = pos(i);
            }
        }
    }

    // Stage 3: the LMS suffixes in sorted order, placed at the ends of their
    // buckets, induce every suffix.
    let types = Types::of(s);
    let bkt = buckets(s, k);
    let mut j = n - m;
    for i in 1..n {
        if types.is_lms(i) {
            sa[j] = pos(i);
            j += 1;
        }
    }
    for i in 0..m {
        sa[i] = sa[n - m + sa[i] as usize];
    }
    sa[m..].fill(EMPTY);
    let mut tails: Vec<u32> = bkt[1..].to_vec();
    for i in (0..m).rev() {
        let p = sa[i];
        sa[i] = EMPTY;
        let c = s[p as usize].index();
        tails[c] -= 1;
        sa[tails[c] as usize] = p;
    }
    drop(tails);
    induce(s, sa, &types, &bkt);
}

/// Whether the LMS substrings at `p` and `q` are equal (same symbols and types up to
/// and including the next LMS position; the one reaching the end of the text is
/// unique, as the virtual sentinel after it is).
fn lms_equal<T: Symbol>(s: &[T], types: &Types, p: usize, q: usize) -> bool {
    let n = s.len();
    let mut d = 0;
    loop {
        let (a, b) = (p + d, q + d);
        if a == n || b == n {
            return false;
        }
        if s[a] != s[b] || types.is_s(a) != types.is_s(b) {
            return false;
        }
        if d > 0 {
            let (la, lb) = (types.is_lms(a), types.is_lms(b));
            if la || lb {
                return la && lb;
            }
        }
        d += 1;
    }
}

/// Induces the L-type suffixes from the left (the last suffix first: the virtual
/// sentinel precedes every suffix) and then the S-type ones from the right.
fn induce<T: Symbol>(s: &[T], sa: &mut [u32], types: &Types, bkt: &[u32]) {
    let n = s.len();
    let mut heads: Vec<u32> = bkt[..bkt.len() - 1].to_vec();
    let last = s[n - 1].index();
    sa[heads[last] as usize] = pos(n - 1);
    heads[last] += 1;
    for i in 0..n {
        let p = sa[i];
        if p != EMPTY && p > 0 {
            let j = p as usize - 1;
            if !types.is_s(j) {
                let c = s[j].index();
                sa[heads[c] as usize] = pos(j);
                heads[c] += 1;
            }
        }
    }
    drop(heads);
    let mut tails: Vec<u32> = bkt[1..].to_vec();
    for i in (0..n).rev() {
        let p = sa[i];
        if p != EMPTY && p > 0 {
            let j = p as usize - 1;
            if types.is_s(j) {
                let c = s[j].index();
                tails[c] -= 1;
                sa[tails[c] as usize] = pos(j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The suffix array the slow, obvious way: sort the suffixes themselves.
    fn naive(text: &[u8]) -> Vec<u32> {
        let mut sa: Vec<u32> = (0..pos(text.len())).collect();
        sa.sort_by(|&a, &b| text[a as usize..].cmp(&text[b as usize..]));
        sa
    }

    #[test]
    fn small_cases() {
        for text in [
            &b""[..],
            b"a",
            b"aa",
            b"ab",
            b"ba",
            b"aaaaaaaa",
            b"abababab",
            b"mississippi",
            b"banana",
            b"\xff\x00\xff\x00",
            "naïve café naïve".as_bytes(),
        ] {
            assert_eq!(suffix_array(text).unwrap(), naive(text), "{text:?}");
        }
    }

    #[test]
    fn long_periodic_text_recurses_deeply() {
        let text: Vec<u8> = b"abcab".iter().copied().cycle().take(5000).collect();
        assert_eq!(suffix_array(&text).unwrap(), naive(&text));
        let fib = {
            let (mut a, mut b) = (b"a".to_vec(), b"ab".to_vec());
            while b.len() < 3000 {
                let next = [b.clone(), a].concat();
                a = b;
                b = next;
            }
            b
        };
        assert_eq!(suffix_array(&fib).unwrap(), naive(&fib));
    }

    proptest! {
        #[test]
        fn matches_naive_sort_small_alphabet(text in proptest::collection::vec(0u8..3, 0..400)) {
            prop_assert_eq!(suffix_array(&text).unwrap(), naive(&text));
        }

        #[test]
        fn matches_naive_sort_any_bytes(text in proptest::collection::vec(any::<u8>(), 0..400)) {
            prop_assert_eq!(suffix_array(&text).unwrap(), naive(&text));
        }
    }
}

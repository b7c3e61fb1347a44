//! An in-place most-significant-digit radix sort (American flag sort) of records by a
//! `u128` key, for the runs [`ExternalSort`](crate::ExternalSort) spills: no second
//! buffer (the run's memory stays its records'), a byte at a time from the highest
//! byte in which the keys differ, small buckets finished by a comparison sort.

/// Buckets of at most this many records are finished by `sort_unstable_by_key`.
const SMALL: usize = 48;

/// Buckets of at least this many records are sorted on rayon's pool (feature
/// `rayon`), each on its own.
#[cfg(feature = "rayon")]
const PARALLEL: usize = 1 << 14;

/// Sorts `v` by `key` (records of equal keys in an unspecified order) when every
/// record has a key; else leaves `v` as it is and returns `false`. The keys are
/// computed once before anything moves: the pass that finds the bytes they differ in.
pub(crate) fn sort_by_u128<T: Send>(
    v: &mut [T],
    key: &(impl Fn(&T) -> Option<u128> + Sync),
) -> bool {
    let Some(first) = v.first().map_or(Some(0), key) else {
        return false;
    };
    let Some(differ) = v
        .iter()
        .try_fold(0u128, |acc, r| key(r).map(|k| acc | (k ^ first)))
    else {
        return false;
    };
    let key = |r: &T| key(r).unwrap_or(u128::MAX);
    match v.len() <= SMALL {
        true => v.sort_unstable_by_key(key),
        false => partition(v, &key, differ),
    }
    true
}

/// The digit (byte `byte`, 0 the lowest) of `k`.
fn digit(k: u128, byte: u32) -> usize {
    usize::from(k.to_le_bytes()[byte as usize & 15])
}

/// Sorts `v`: small slices by comparison, else by its keys' highest differing byte.
fn sort_from<T: Send>(v: &mut [T], key: &(impl Fn(&T) -> u128 + Sync)) {
    if v.len() <= SMALL {
        v.sort_unstable_by_key(key);
        return;
    }
    // The bits in which some key differs from the first one.
    let first = v.first().map_or(0, key);
    partition(
        v,
        key,
        v.iter().fold(0u128, |acc, r| acc | (key(r) ^ first)),
    );
}

/// Sorts `v` whose keys differ from the first one's in the bits of `differ`: by the
/// highest byte they differ in (bytes on which every key agrees are skipped), then
/// each bucket by the bytes below, which its keys all share above.
fn partition<T: Send>(v: &mut [T], key: &(impl Fn(&T) -> u128 + Sync), differ: u128) {
    if differ == 0 {
        return;
    }
    let byte = (127 - differ.leading_zeros()) / 8;
    let mut counts = [0usize; 256];
    for r in v.iter() {
        counts[digit(key(r), byte)] += 1;
    }
    // Each bucket's start, and its next unplaced slot.
    let mut starts = [0usize; 257];
    for d in 0..256 {
        starts[d + 1] = starts[d] + counts[d];
    }
    let mut next = starts;
    for d in 0..256 {
        let end = starts[d + 1];
        while next[d] < end {
            let to = digit(key(&v[next[d]]), byte);
            if to == d {
                next[d] += 1;
            } else {
                // The record goes to its bucket's next slot; what was there comes
                // here and is looked at in turn.
                v.swap(next[d], next[to]);
                next[to] += 1;
            }
        }
    }
    if byte == 0 {
        return;
    }
    let mut buckets: Vec<&mut [T]> = Vec::with_capacity(256);
    let mut rest = v;
    for &count in &counts {
        let (bucket, tail) = rest.split_at_mut(count);
        rest = tail;
        if bucket.len() > 1 {
            buckets.push(bucket);
        }
    }
    #[cfg(feature = "rayon")]
    {
        if buckets.iter().map(|b| b.len()).max().unwrap_or(0) >= PARALLEL {
            use rayon::prelude::*;
            buckets.into_par_iter().for_each(|b| sort_from(b, key));
            return;
        }
    }
    for b in buckets {
        sort_from(b, key);
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by_u128;

    /// A small deterministic generator (xorshift), enough to spread keys.
    fn keys(n: usize, seed: u64, mask: u128) -> Vec<u128> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                let mut word = || {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s
                };
                ((u128::from(word()) << 64) | u128::from(word())) & mask
            })
            .collect()
    }

    #[test]
    fn sorts_as_the_standard_sort_does() {
        for (n, mask) in [
            (0, u128::MAX),
            (1, u128::MAX),
            (47, u128::MAX),
            (1000, u128::MAX),
            (100_000, u128::MAX),
            // Many equal keys and constant high bytes (skipped).
            (50_000, 0xFF),
            (50_000, 0xFFFF_0000_0000_0000_0000),
            (70_000, (1 << 70) - 1),
        ] {
            let mut v = keys(n, n as u64 + 7, mask);
            let mut expected = v.clone();
            expected.sort_unstable();
            assert!(sort_by_u128(&mut v, &|&k| Some(k)));
            assert_eq!(v, expected, "{n} keys under {mask:x}");
        }
    }

    #[test]
    fn sorts_records_by_a_derived_key() {
        // (band, key, doc) packed as the sketch stage packs it; records carry more.
        let mut records: Vec<(u16, u64, u64)> = keys(30_000, 3, u128::MAX)
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                let band = u16::try_from(k % 5).unwrap_or(0);
                (band, u64::try_from((k >> 64) % 1000).unwrap_or(0), i as u64)
            })
            .collect();
        let mut expected = records.clone();
        expected.sort_unstable();
        assert!(sort_by_u128(&mut records, &|&(b, k, d)| {
            Some((u128::from(b) << 112) | (u128::from(k) << 48) | u128::from(d))
        }));
        assert_eq!(records, expected);
    }

    #[test]
    fn a_record_without_a_key_leaves_the_slice_unsorted() {
        let mut v = keys(1000, 5, u128::MAX);
        let before = v.clone();
        // The last record has no key: nothing moves.
        let last = before[999];
        assert!(!sort_by_u128(&mut v, &|&k| (k != last).then_some(k)));
        assert_eq!(v, before);
        let mut small = vec![3u128, 1, 2];
        assert!(!sort_by_u128(&mut small, &|&k| (k != 2).then_some(k)));
        assert_eq!(small, [3, 1, 2]);
    }
}

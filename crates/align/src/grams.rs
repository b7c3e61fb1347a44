//! Where each run of k tokens of a sequence starts: a sorted table of k-gram keys,
//! for finding moved text and contained paragraphs in linear-ish time.

use ndd_core::hash::kgram_hash;

/// The k-grams of a sequence (k ≤ 4), sorted by key.
#[derive(Debug, Clone)]
pub(crate) struct GramIndex {
    k: usize,
    /// (key, start position), sorted.
    table: Vec<(u64, u32)>,
}

impl GramIndex {
    /// The `k`-grams of `seq` (`1 <= k <= 4`; positions fit in `u32` because sides
    /// are cut to `MAX_TOKENS`).
    pub(crate) fn new(seq: &[u64], k: usize) -> Self {
        debug_assert!((1..=4).contains(&k));
        let mut table: Vec<(u64, u32)> = seq
            .windows(k)
            .enumerate()
            .map(|(p, w)| (kgram_hash(w), u32::try_from(p).unwrap_or(u32::MAX)))
            .collect();
        table.sort_unstable();
        GramIndex { k, table }
    }

    /// The first `limit` positions (in order) where a k-gram with the key of
    /// `run[..k]` starts; the caller confirms each by comparing tokens.
    pub(crate) fn starts(&self, run: &[u64], limit: usize) -> impl Iterator<Item = usize> + '_ {
        let want = kgram_hash(&run[..self.k.min(run.len())]);
        let from = self.table.partition_point(|&(k, _)| k < want);
        self.table[from..]
            .iter()
            .take_while(move |&&(k, _)| k == want)
            .take(limit)
            .map(|&(_, p)| p as usize)
    }
}

//! The rolling k-gram combiners of the word shingler: [`KGramRoller`] for any `k`, and
//! [`SmallRoller`], its values with the window on the stack, for small `k`.

use ndd_core::hash::{KGRAM_BASE, KGramRoller, mix64};

/// A rolling k-gram combiner: [`KGramRoller`], or [`SmallRoller`] for small `k`.
pub(crate) trait Roll {
    /// Adds a token hash; the k-gram hash once `k` tokens were pushed.
    fn push(&mut self, token_hash: u64) -> Option<u64>;
    /// The hash of the partial window when `0 < pushed < k`.
    fn partial(&self) -> Option<u64>;
}

impl Roll for KGramRoller {
    #[inline(always)]
    fn push(&mut self, token_hash: u64) -> Option<u64> {
        KGramRoller::push(self, token_hash)
    }
    #[inline(always)]
    fn partial(&self) -> Option<u64> {
        KGramRoller::partial(self)
    }
}

/// [`KGramRoller`]'s values (the k-gram hash of [`ndd_core::hash`]) for `k <=`
/// [`MAX_K`](Self::MAX_K), with the window in a fixed power-of-two ring on the stack:
/// no allocation per document, no wrap-around branch.
pub(crate) struct SmallRoller {
    ring: [u64; SmallRoller::MAX_K],
    k: usize,
    pushed: usize,
    acc: u64,
    /// `B^k mod 2^64`, the weight of the token leaving the window.
    out_weight: u64,
}

impl SmallRoller {
    /// The largest window; a power of two.
    pub(crate) const MAX_K: usize = 32;

    #[inline]
    pub(crate) fn new(k: usize) -> Self {
        debug_assert!((1..=Self::MAX_K).contains(&k));
        let mut out_weight = 1u64;
        for _ in 0..k {
            out_weight = out_weight.wrapping_mul(KGRAM_BASE);
        }
        SmallRoller {
            ring: [0; Self::MAX_K],
            k,
            pushed: 0,
            acc: 0,
            out_weight,
        }
    }
}

impl Roll for SmallRoller {
    #[inline(always)]
    fn push(&mut self, token_hash: u64) -> Option<u64> {
        // The token pushed k positions ago; while fewer than k were pushed this slot
        // was never written (k <= MAX_K), so it is 0 and subtracts nothing.
        let leaving = self.ring[self.pushed.wrapping_sub(self.k) % Self::MAX_K];
        self.ring[self.pushed % Self::MAX_K] = token_hash;
        self.pushed += 1;
        self.acc = self
            .acc
            .wrapping_mul(KGRAM_BASE)
            .wrapping_add(token_hash)
            .wrapping_sub(leaving.wrapping_mul(self.out_weight));
        (self.pushed >= self.k).then(|| mix64(self.acc))
    }

    #[inline(always)]
    fn partial(&self) -> Option<u64> {
        (self.pushed > 0 && self.pushed < self.k).then(|| mix64(self.acc))
    }
}

//! How verification and the weights stage work through a block: the share of the
//! budget its texts may take, and an in-order map over it on the pool.

use crate::Error;

/// The most bytes of text a verification block holds, for the verifiers that read
/// texts: a 32nd of the budget, as alignment prepares each text into about five times
/// its size (24 bytes per word: its token hash with its position, and a word 3-gram
/// hash), so that texts and their prepared forms stay within about a fifth of it. A
/// block holds at least one pair, whatever its texts' size.
pub(super) fn block_text_bytes(budget: u64) -> u64 {
    budget / 32
}

/// Maps `f` over `items` in order, on rayon's pool when the feature is on.
pub(super) fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(usize, &T) -> Result<R, Error> + Sync + Send,
) -> Result<Vec<R>, Error> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        items.par_iter().enumerate().map(|(i, x)| f(i, x)).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        items.iter().enumerate().map(|(i, x)| f(i, x)).collect()
    }
}

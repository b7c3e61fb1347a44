//! The hot exact bucket (issue "bounded work"), shared by the test that checks the
//! index answers as the definition says through it (`exact_hamming_bytes.rs`) and the
//! `exact` bench that measures it (`benches/exact.rs` includes this file).

use ndd_core::SchemeId;
use ndd_index::ExactIndex;
use ndd_lsh::PlainSlots;

/// An exact index of `n` documents (keys `0..n`) with one signature: one bucket per
/// coordinate holding all of them. Returns it and the signature.
pub(crate) fn hot_index(n: u32) -> (ExactIndex<u32, PlainSlots>, PlainSlots) {
    let s = SchemeId::new("hot").finish();
    let sig = PlainSlots::new(s, vec![5, 6]).expect("two slots");
    let mut index = ExactIndex::new();
    for i in 0..n {
        index.insert(i, &sig).expect("one scheme");
    }
    (index, sig)
}

/// Removes the `n` documents of [`hot_index`]`(n)`, the oldest half oldest-first and
/// the rest newest-first (removing walked the bucket's chain per document: 81 s for
/// 100,000). Returns how many removals found their key and the size of the bucket
/// that a query found in between.
pub(crate) fn drain(
    index: &mut ExactIndex<u32, PlainSlots>,
    sig: &PlainSlots,
    n: u32,
) -> (u32, usize) {
    let mut removed = 0;
    for i in 0..n / 2 {
        removed += u32::from(index.remove(&i));
    }
    let halfway = index.query(sig).map_or(0, |found| found.len());
    for i in (n / 2..n).rev() {
        removed += u32::from(index.remove(&i));
    }
    (removed, halfway)
}

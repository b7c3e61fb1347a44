//! Hostile inputs of `LshIndex` (issue "bounded work"), shared by the test that checks
//! the index answers as the definition says on them (`index_bytes.rs`) and the
//! `bounded_work` group of `benches/index_bytes.rs`, which measures them (it includes
//! this file).

use ndd_core::SchemeId;
use ndd_core::codec::{ByteWriter, KeyCodec};
use ndd_lsh::{LshIndex, LshParams, PlainSlots};

/// The byte form of a 1 band × 1 row index (scheme `scheme`) of the documents `0..n`
/// whose band keys are distinct but share their high 32 bits: they piled into one
/// probe run (80,000 documents loaded in 6.3 s).
pub(crate) fn crafted_keys(scheme: SchemeId, n: u32) -> Vec<u8> {
    let mut w = ByteWriter::new(*b"LSHI", 1);
    w.u64(1); // bands
    w.u64(1); // rows
    w.u8(2); // has a scheme
    w.u64(scheme.as_u64());
    w.u64(u64::from(n));
    for i in 0..n {
        i.write_key(&mut w);
        w.u64((0xDEAD_BEEF_u64 << 32) | u64::from(i));
    }
    w.finish()
}

/// A 2 band × 1 row index of the documents `0..m`, all with the signature `sig`: one
/// hot bucket per band.
pub(crate) fn hot_index(sig: &PlainSlots, m: u32) -> LshIndex<u32, PlainSlots> {
    let mut hot = LshIndex::new(LshParams::new(2, 1).expect("2 bands of 1 row"));
    for i in 0..m {
        hot.insert(i, sig).expect("one scheme");
    }
    hot
}

/// Re-inserts every document of [`hot_index`]`(sig, m)` (each a remove and an insert),
/// then removes the oldest half oldest-first and the rest newest-first (each walked
/// the bucket's chain per document: 29 s and 59 s for 50,000). Returns how many
/// removals found their key and the bucket's size that a query found half way.
pub(crate) fn churn(
    hot: &mut LshIndex<u32, PlainSlots>,
    sig: &PlainSlots,
    m: u32,
) -> (usize, usize) {
    for i in 0..m {
        hot.insert(i, sig).expect("one scheme");
    }
    let oldest = (0..m / 2).filter(|i| hot.remove(i)).count();
    let halfway = hot.query(sig).map_or(0, |found| found.len());
    let newest = (m / 2..m).rev().filter(|i| hot.remove(i)).count();
    (oldest + newest, halfway)
}

//! Every decoder of saved bytes: a typed error or a value whose bytes load again, never
//! a panic, a hang or an allocation out of proportion to the input. The first byte
//! picks the decoder; the rest is the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use near_dup::imatch::{IMatchSignature, Lexicon};
use near_dup::index::{ExactIndex, HammingIndex};
use near_dup::lsh::{
    LshBloom, LshEnsemble, LshForest, LshIndex, PlainSlots, SampledBits,
};
use near_dup::minhash::{BBitSignature, MinHashSignature};
use near_dup::pipeline::DedupIndex;
use near_dup::simhash::SimHashSignature;
use near_dup::stats::DocumentFrequencies;

/// Loads `bytes`, saves what loaded and loads that again: it must load.
macro_rules! round_trip {
    ($load:expr, $bytes:expr) => {
        if let Ok(v) = $load($bytes) {
            let saved = v.to_bytes();
            assert!($load(&saved[..]).is_ok());
        }
    };
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    match which % 15 {
        0 => round_trip!(LshIndex::<u64, PlainSlots>::from_bytes, bytes),
        1 => round_trip!(ExactIndex::<u64, PlainSlots>::from_bytes, bytes),
        2 => round_trip!(HammingIndex::<u64>::from_bytes, bytes),
        3 => round_trip!(MinHashSignature::from_bytes, bytes),
        4 => round_trip!(BBitSignature::from_bytes, bytes),
        5 => round_trip!(SimHashSignature::from_bytes, bytes),
        6 => round_trip!(IMatchSignature::from_bytes, bytes),
        7 => round_trip!(PlainSlots::from_bytes, bytes),
        8 => round_trip!(SampledBits::from_bytes, bytes),
        9 => round_trip!(Lexicon::from_bytes, bytes),
        10 => round_trip!(DocumentFrequencies::from_bytes, bytes),
        11 => round_trip!(LshForest::<u64>::from_bytes, bytes),
        12 => round_trip!(LshEnsemble::<u64>::from_bytes, bytes),
        13 => round_trip!(LshBloom::from_bytes, bytes),
        _ => round_trip!(DedupIndex::from_bytes, bytes),
    }
});

//! `serde` support (feature `serde`) for [`Lexicon`]: it serializes as its versioned
//! byte form ([`Lexicon::to_bytes`]), so every format gets the same checks on the way
//! in (magic, version, checksum, contents) and corrupt input is a deserialization
//! error. [`IMatchSignature`](crate::IMatchSignature)'s impl sits with the type, in
//! `signature.rs`.

use crate::Lexicon;

ndd_core::impl_serde_via_bytes!(Lexicon);

#[cfg(test)]
mod tests {
    use crate::{Lexicon, unigram_extractor_scheme};

    #[test]
    fn json_round_trip_and_corruption() {
        let lex = Lexicon::from_terms(unigram_extractor_scheme(), vec![3, 1, 2], vec![9]).unwrap();
        let json = serde_json::to_string(&lex).unwrap();
        let back: Lexicon = serde_json::from_str(&json).unwrap();
        assert_eq!(back, lex);
        assert!(serde_json::from_str::<Lexicon>("\"text\"").is_err());
    }
}

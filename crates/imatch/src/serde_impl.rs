//! `serde` support (feature `serde`): [`IMatchSignature`] and [`Lexicon`] serialize as
//! their versioned byte form ([`IMatchSignature::to_bytes`], [`Lexicon::to_bytes`]),
//! so every format gets the same checks on the way in (magic, version, checksum,
//! contents) and corrupt input is a deserialization error.

use crate::{IMatchSignature, Lexicon};

ndd_core::impl_serde_via_bytes!(IMatchSignature, Lexicon);

#[cfg(test)]
mod tests {
    use crate::{IMatchSignature, Lexicon, unigram_extractor_scheme};

    #[test]
    fn json_round_trip_and_corruption() {
        let lex = Lexicon::from_terms(unigram_extractor_scheme(), vec![3, 1, 2], vec![9]).unwrap();
        let json = serde_json::to_string(&lex).unwrap();
        let back: Lexicon = serde_json::from_str(&json).unwrap();
        assert_eq!(back, lex);
        let sig =
            IMatchSignature::from_parts(unigram_extractor_scheme(), vec![Some([7; 20]), None]);
        let json = serde_json::to_string(&sig).unwrap();
        assert_eq!(serde_json::from_str::<IMatchSignature>(&json).unwrap(), sig);
        let mut v: Vec<u8> = serde_json::from_str(&json).unwrap();
        v[8] ^= 1;
        let bad = serde_json::to_string(&v).unwrap();
        assert!(serde_json::from_str::<IMatchSignature>(&bad).is_err());
        assert!(serde_json::from_str::<Lexicon>("\"text\"").is_err());
    }
}

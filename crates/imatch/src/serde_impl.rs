//! `serde` support (feature `serde`): [`IMatchSignature`] and [`Lexicon`] serialize as
//! their versioned byte form ([`IMatchSignature::to_bytes`], [`Lexicon::to_bytes`]),
//! so every format gets the same checks on the way in (magic, version, checksum,
//! contents) and corrupt input is a deserialization error.

use serde::de::{Error as _, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{IMatchSignature, Lexicon};

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the byte form of an ndd I-Match value")
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    // Formats without a bytes type (JSON) write a sequence of numbers.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(b) = seq.next_element::<u8>()? {
            out.push(b);
        }
        Ok(out)
    }
}

fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    d.deserialize_bytes(BytesVisitor)
}

impl Serialize for IMatchSignature {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de> Deserialize<'de> for IMatchSignature {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IMatchSignature::from_bytes(&bytes(d)?).map_err(D::Error::custom)
    }
}

impl Serialize for Lexicon {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de> Deserialize<'de> for Lexicon {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Lexicon::from_bytes(&bytes(d)?).map_err(D::Error::custom)
    }
}

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

//! `serde` support (feature `serde`): signatures serialize as their versioned byte form
//! ([`SimHashSignature::to_bytes`]), so every format gets
//! the same checks on the way in — magic, version, checksum, parameters — and corrupt
//! input is a deserialization error, never a signature with wrong values.

use serde::de::{Error as _, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::SimHashSignature;

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the byte form of an ndd signature")
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

impl Serialize for SimHashSignature {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de> Deserialize<'de> for SimHashSignature {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SimHashSignature::from_bytes(&bytes(d)?).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use ndd_core::DocSketcher;

    use crate::{SimHashSignature, SimHasher};

    #[test]
    fn json_round_trip_and_corruption_is_an_error() {
        let h = SimHasher::new(384).unwrap();
        let sig = h.sketch("serde support for simhash signatures in any format");
        let json = serde_json::to_string(&sig).unwrap();
        let back: SimHashSignature = serde_json::from_str(&json).unwrap();
        assert_eq!(back, sig);
        // Flip one number of the byte array: the checksum refuses it.
        let mut v: Vec<u8> = serde_json::from_str(&json).unwrap();
        v[30] ^= 1;
        let bad = serde_json::to_string(&v).unwrap();
        assert!(serde_json::from_str::<SimHashSignature>(&bad).is_err());
        assert!(serde_json::from_str::<SimHashSignature>("[1,2,3]").is_err());
        assert!(serde_json::from_str::<SimHashSignature>("\"text\"").is_err());
    }
}

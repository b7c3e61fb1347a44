//! `serde` support (feature `serde`): the indexes of this crate that have a byte form
//! serialize as it ([`ExactIndex::to_bytes`], [`HammingIndex::to_bytes`]), so every
//! format gets the same checks on the way in (magic, version, checksum, parameters)
//! and corrupt input is a deserialization error, never an index with wrong contents.
//! An index's key type needs [`KeyCodec`], as for `to_bytes`.

use std::hash::Hash;

use ndd_core::codec::KeyCodec;
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize, Serializer};

use crate::{ExactIndex, ExactSignature, HammingIndex};

/// Reads a byte string (or, in formats without one, a sequence of numbers).
fn deserialize_byte_form<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    ndd_core::codec::deserialize_byte_form(d, "an ndd index")
}

impl<K, S> Serialize for ExactIndex<K, S>
where
    K: KeyCodec + Clone + Eq + Hash,
    S: ExactSignature,
    S::Coordinate: KeyCodec,
{
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de, K, S> Deserialize<'de> for ExactIndex<K, S>
where
    K: KeyCodec + Clone + Eq + Hash,
    S: ExactSignature,
    S::Coordinate: KeyCodec,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = deserialize_byte_form(d)?;
        ExactIndex::from_bytes(&bytes).map_err(D::Error::custom)
    }
}

impl<K: KeyCodec + Clone + Eq + Hash> Serialize for HammingIndex<K> {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de, K: KeyCodec + Clone + Eq + Hash> Deserialize<'de> for HammingIndex<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = deserialize_byte_form(d)?;
        HammingIndex::from_bytes(&bytes).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use ndd_core::{SchemeId, ScoredPair};
    use ndd_lsh::PlainSlots;

    use crate::{ExactIndex, HammingIndex, HammingParams};

    #[test]
    fn exact_and_hamming_indexes_through_json() {
        let s = SchemeId::new("serde").finish();
        let mut exact = ExactIndex::new();
        exact
            .insert(1u32, &PlainSlots::new(s, vec![4, 5]).unwrap())
            .unwrap();
        exact
            .insert(2u32, &PlainSlots::new(s, vec![4, 6]).unwrap())
            .unwrap();
        let json = serde_json::to_string(&exact).unwrap();
        let back: ExactIndex<u32, PlainSlots> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.all_pairs(), vec![ScoredPair::new(1, 2, 0.5)]);
        assert!(serde_json::from_str::<HammingIndex<u32>>(&json).is_err());

        let mut hamming = HammingIndex::new(HammingParams::new(1, 3).unwrap());
        hamming.insert(String::from("x"), 0b10).unwrap();
        hamming.insert(String::from("y"), 0b11).unwrap();
        let json = serde_json::to_string(&hamming).unwrap();
        let back: HammingIndex<String> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.all_pairs().len(), 1);
        assert!(serde_json::from_str::<ExactIndex<u32, PlainSlots>>(&json).is_err());
    }
}

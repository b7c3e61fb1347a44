//! `serde` support (feature `serde`): the signatures of this crate and its indexes
//! serialize as their versioned byte form ([`PlainSlots::to_bytes`],
//! [`SampledBits::to_bytes`], [`LshIndex::to_bytes`], [`LshForest::to_bytes`],
//! [`LshEnsemble::to_bytes`], [`LshBloom::to_bytes`]), so every format gets the same
//! checks on the way in (magic, version, checksum, parameters) and corrupt input is a
//! deserialization error, never an index with wrong contents. An index's key type needs
//! [`KeyCodec`] and its signature type [`ByteForm`], as for `to_bytes`.

use std::hash::Hash;

use ndd_core::SlotSignature;
use ndd_core::codec::{ByteForm, KeyCodec};
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize, Serializer};

use crate::{LshBloom, LshEnsemble, LshForest, LshIndex, PlainSlots, SampledBits};

ndd_core::impl_serde_via_bytes!(PlainSlots, SampledBits);

/// Reads a byte string (or, in formats without one, a sequence of numbers).
fn deserialize_byte_form<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    ndd_core::codec::deserialize_byte_form(d, "an ndd index")
}

impl<K, S> Serialize for LshIndex<K, S>
where
    K: KeyCodec + Clone + Eq + Hash,
    S: SlotSignature + ByteForm,
{
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de, K, S> Deserialize<'de> for LshIndex<K, S>
where
    K: KeyCodec + Clone + Eq + Hash,
    S: SlotSignature + ByteForm,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = deserialize_byte_form(d)?;
        LshIndex::from_bytes(&bytes).map_err(D::Error::custom)
    }
}

/// `Serialize` and `Deserialize` through the byte form, for the index types over keys
/// `K` (written `LshForest<K>`) and those without a key parameter.
macro_rules! serde_via_byte_form {
    ($($ty:ident $(<$k:ident>)?),+ $(,)?) => {$(
        impl<$($k: KeyCodec + Clone + Eq + Hash)?> Serialize for $ty$(<$k>)? {
            fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
                s.serialize_bytes(&self.to_bytes())
            }
        }

        impl<'de, $($k: KeyCodec + Clone + Eq + Hash)?> Deserialize<'de> for $ty$(<$k>)? {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let bytes = deserialize_byte_form(d)?;
                $ty::from_bytes(&bytes).map_err(D::Error::custom)
            }
        }
    )+};
}

serde_via_byte_form!(LshForest<K>, LshEnsemble<K>, LshBloom);

#[cfg(test)]
mod tests {
    use ndd_core::SchemeId;

    use crate::{LshIndex, LshParams, PlainSlots};

    #[test]
    fn json_round_trip_and_corruption_is_an_error() {
        let s = SchemeId::new("serde").finish();
        let mut index = LshIndex::builder(LshParams::new(2, 2).unwrap())
            .keep_signatures(true)
            .build();
        index
            .insert(
                "a".to_string(),
                &PlainSlots::new(s, vec![1, 2, 3, 4]).unwrap(),
            )
            .unwrap();
        index
            .insert(
                "b".to_string(),
                &PlainSlots::new(s, vec![1, 2, 5, 6]).unwrap(),
            )
            .unwrap();
        let json = serde_json::to_string(&index).unwrap();
        let back: LshIndex<String, PlainSlots> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_bytes(), index.to_bytes());
        let pairs: Vec<(String, String)> =
            back.all_pairs().into_iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(pairs, vec![("a".to_string(), "b".to_string())]);

        let sig = PlainSlots::new(s, vec![9, 8]).unwrap();
        let back: PlainSlots = serde_json::from_str(&serde_json::to_string(&sig).unwrap()).unwrap();
        assert_eq!(back, sig);

        let mut v: Vec<u8> = serde_json::from_str(&json).unwrap();
        v[20] ^= 1;
        let bad = serde_json::to_string(&v).unwrap();
        assert!(serde_json::from_str::<LshIndex<String, PlainSlots>>(&bad).is_err());
        assert!(serde_json::from_str::<LshIndex<String, PlainSlots>>("[1,2,3]").is_err());
        assert!(serde_json::from_str::<LshIndex<String, PlainSlots>>("\"text\"").is_err());
        // Another key type than the one saved: the keys do not decode.
        assert!(serde_json::from_str::<LshIndex<u64, PlainSlots>>(&json).is_err());
    }
}

//! `serde` support (feature `serde`): signatures serialize as their versioned byte form
//! ([`SimHashSignature::to_bytes`]), so every format gets
//! the same checks on the way in — magic, version, checksum, parameters — and corrupt
//! input is a deserialization error, never a signature with wrong values.

use crate::SimHashSignature;

ndd_core::impl_serde_via_bytes!(SimHashSignature);

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

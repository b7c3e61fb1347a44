//! `serde` support (feature `serde`): signatures serialize as their versioned byte form
//! ([`MinHashSignature::to_bytes`], [`BBitSignature::to_bytes`]), so every format gets
//! the same checks on the way in — magic, version, checksum, parameters — and corrupt
//! input is a deserialization error, never a signature with wrong values.

use crate::{BBitSignature, MinHashSignature};

ndd_core::impl_serde_via_bytes!(BBitSignature, MinHashSignature);

#[cfg(test)]
mod tests {
    use ndd_core::DocSketcher;

    use crate::{BBitSignature, MinHashSignature, MinHasher};

    #[test]
    fn json_round_trip_and_corruption_is_an_error() {
        let h = MinHasher::new(16).unwrap();
        let sig = h.sketch("serde support for minhash signatures in any format");
        let json = serde_json::to_string(&sig).unwrap();
        let back: MinHashSignature = serde_json::from_str(&json).unwrap();
        assert_eq!(back, sig);
        let b = BBitSignature::from_minhash(&sig, 4).unwrap();
        let back: BBitSignature =
            serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(back, b);
        // Flip one number of the byte array: the checksum refuses it.
        let mut v: Vec<u8> = serde_json::from_str(&json).unwrap();
        v[20] ^= 1;
        let bad = serde_json::to_string(&v).unwrap();
        assert!(serde_json::from_str::<MinHashSignature>(&bad).is_err());
        assert!(serde_json::from_str::<MinHashSignature>("[1,2,3]").is_err());
        assert!(serde_json::from_str::<MinHashSignature>("\"text\"").is_err());
    }
}

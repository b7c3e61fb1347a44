//! `serde` support (feature `serde`) for [`WeightModel`]: it serializes as its
//! versioned byte form ([`WeightModel::to_bytes`]), so every format gets the same checks
//! on the way in (magic, version, checksum, finite weights) and corrupt input is a
//! deserialization error, never a model with wrong weights.

use crate::WeightModel;

ndd_core::impl_serde_via_bytes!(WeightModel);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

    use crate::{FeatureScaling, Kgrams, NUM_FEATURES, Objective, WeightModel};

    #[test]
    fn json_round_trip_and_corruption_is_an_error() {
        let mut lambda = [0.0; NUM_FEATURES];
        lambda[0] = 1.0;
        lambda[2] = -0.5;
        let model = WeightModel::new(
            Kgrams::new(2).unwrap(),
            Objective::Jaccard,
            FeatureScaling::default(),
            lambda,
        )
        .unwrap();
        let json = serde_json::to_string(&model).unwrap();
        let back: WeightModel = serde_json::from_str(&json).unwrap();
        assert_eq!(back, model);
        assert_eq!(back.to_bytes(), model.to_bytes());
        // Flip one number of the byte array: the checksum refuses it.
        let mut v: Vec<u8> = serde_json::from_str(&json).unwrap();
        v[20] ^= 1;
        let bad = serde_json::to_string(&v).unwrap();
        assert!(serde_json::from_str::<WeightModel>(&bad).is_err());
        assert!(serde_json::from_str::<WeightModel>("[1,2,3]").is_err());
        assert!(serde_json::from_str::<WeightModel>("\"text\"").is_err());
    }
}

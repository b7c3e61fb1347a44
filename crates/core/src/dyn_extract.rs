//! `dyn DynFeatureExtractor` as a [`FeatureExtractor`]: an extractor chosen at run time
//! plugs into every generic sketcher (`MinHasher<Box<dyn DynFeatureExtractor>>`).
//!
//! The blanket `impl<E: FeatureExtractor> DynFeatureExtractor for E` covers sized
//! extractors only, so these impls for the (unsized) trait objects do not overlap
//! with it; `Box<dyn DynFeatureExtractor>`, `&dyn DynFeatureExtractor` and the
//! `Send + Sync` variants then come from the forwarding impls for `Box<E>` and `&E`.

use crate::{DynFeatureExtractor, FeatureExtractor, FeatureSink, SchemeId};

macro_rules! impl_for_dyn {
    ($t:ty) => {
        impl FeatureExtractor for $t {
            #[inline]
            fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
                // `&mut S` is sized (and a sink by the forwarding impl), so it becomes
                // `&mut dyn FeatureSink` even when `S` itself is unsized.
                let mut sink = sink;
                self.extract_dyn(doc, &mut sink);
            }
            #[inline]
            fn scheme(&self) -> SchemeId {
                self.scheme_dyn()
            }
        }
    };
}

impl_for_dyn!(dyn DynFeatureExtractor + '_);
impl_for_dyn!(dyn DynFeatureExtractor + Send + '_);
impl_for_dyn!(dyn DynFeatureExtractor + Send + Sync + '_);

#[cfg(test)]
mod tests {
    use super::*;

    struct Bytes(u64);
    impl FeatureExtractor for Bytes {
        fn extract<S: FeatureSink + ?Sized>(&self, doc: &str, sink: &mut S) {
            doc.bytes().for_each(|b| sink.push(u64::from(b) + self.0));
        }
        fn scheme(&self) -> SchemeId {
            SchemeId::new("bytes").with(self.0).finish()
        }
    }

    fn features_of<E: FeatureExtractor + ?Sized>(e: &E, doc: &str) -> (Vec<u64>, SchemeId) {
        let mut out = Vec::new();
        e.extract(doc, &mut out);
        (out, e.scheme())
    }

    #[test]
    fn trait_objects_forward_features_and_scheme() {
        for offset in [0, 1000] {
            let expected = features_of(&Bytes(offset), "héllo");
            let boxed: Box<dyn DynFeatureExtractor> = Box::new(Bytes(offset));
            assert_eq!(features_of(&boxed, "héllo"), expected);
            assert_eq!(features_of(&*boxed, "héllo"), expected);
            let shared: Box<dyn DynFeatureExtractor + Send + Sync> = Box::new(Bytes(offset));
            assert_eq!(features_of(&shared, "héllo"), expected);
            // Through an unsized sink as well.
            let mut sink: Vec<u64> = Vec::new();
            let dyn_sink: &mut dyn FeatureSink = &mut sink;
            boxed.extract("héllo", dyn_sink);
            assert_eq!(sink, expected.0);
        }
    }
}

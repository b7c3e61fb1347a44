//! SimHash through the shared composition pieces: run-time extractors, the weight
//! adapter (TF-IDF and term-frequency-aware models), the checked TrySketcher, and the
//! parallel batch, each against an independent route to the same values.

use std::collections::BTreeMap;

use ndd_core::stats::DocumentFrequencies;
use ndd_core::weights::{FeatureExtractorExt, FeatureWeights, TfIdf};
use ndd_core::{
    DocSketcher, DynFeatureExtractor, FeatureExtractor, FeatureSink, SchemeId, Sketcher,
    TrySketcher, Weighted,
};
use ndd_shingle::{CharShingler, WordShingler};
use ndd_simhash::{Projection, SimHasher, Weighting};

const DOCS: [&str; 4] = [
    "It was the best of times, it was the worst of times, it was the age of wisdom",
    "It was the best of times, it was the worst of times, it was the age of folly",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c",
    "",
];

fn chosen(name: &str) -> Box<dyn DynFeatureExtractor + Send + Sync> {
    match name {
        "chars" => Box::new(CharShingler::new(4).expect("valid")),
        _ => Box::new(WordShingler::new(2).expect("valid")),
    }
}

#[test]
fn boxed_dyn_extractor_gives_the_static_signatures() {
    for bits in [64, 384] {
        for projection in [Projection::Sign, Projection::Gaussian] {
            for weighting in [Weighting::Binary, Weighting::TermFrequency] {
                let b = || {
                    SimHasher::builder()
                        .bits(bits)
                        .projection(projection)
                        .weighting(weighting.clone())
                };
                let words = b().build_with(WordShingler::new(2).unwrap()).unwrap();
                let chars = b().build_with(CharShingler::new(4).unwrap()).unwrap();
                let dyn_words = b().build_with(chosen("words")).unwrap();
                let dyn_chars = b().build_with(chosen("chars")).unwrap();
                for doc in DOCS {
                    assert_eq!(dyn_words.sketch(doc), words.sketch(doc));
                    assert_eq!(dyn_chars.sketch(doc), chars.sketch(doc));
                }
            }
        }
    }
}

/// `tf²·idf`: a model that needs the term frequency.
struct TfSquaredIdf(TfIdf);
impl FeatureWeights for TfSquaredIdf {
    fn weight(&self, feature: u64, tf: u32) -> f64 {
        f64::from(tf * tf) * self.0.idf(feature)
    }
    fn scheme(&self) -> SchemeId {
        SchemeId::new("tf2-idf").with(self.0.fingerprint()).finish()
    }
}

#[test]
fn weighted_extractor_pushes_the_models_weights_of_counted_features() {
    let words = WordShingler::new(1).unwrap();
    let stats = DocumentFrequencies::from_documents(&words, DOCS);
    for (name, model) in [
        (
            "tf-idf",
            Box::new(TfIdf::new(stats.clone())) as Box<dyn FeatureWeights>,
        ),
        ("tf2-idf", Box::new(TfSquaredIdf(TfIdf::new(stats.clone())))),
    ] {
        let extractor = words.clone().weighted_by(model);
        let h = SimHasher::builder()
            .bits(128)
            .build_with(&extractor)
            .unwrap();
        for doc in DOCS {
            // Oracle: counts in a BTreeMap, weights from the statistics' own idf.
            let mut counts = BTreeMap::<u64, u32>::new();
            for f in words.features(doc) {
                *counts.entry(f).or_default() += 1;
            }
            let entries: Vec<Weighted> = counts
                .iter()
                .map(|(&f, &tf)| Weighted {
                    feature: f,
                    weight: if name == "tf-idf" {
                        f64::from(tf) * stats.idf(f)
                    } else {
                        f64::from(tf * tf) * stats.idf(f)
                    },
                })
                .collect();
            let expected = SimHasher::builder()
                .bits(128)
                .build_for_features(extractor.scheme())
                .unwrap()
                .sketch_weighted(&entries)
                .unwrap();
            assert_eq!(h.sketch(doc).words(), expected.words(), "{name}: {doc}");
        }
    }
}

#[test]
fn checked_mode_is_a_try_sketcher() {
    fn run<T: TrySketcher>(s: &T, features: &[(u64, f64)]) -> Result<T::Signature, T::Error> {
        let mut state = s.new_state();
        let mut out = s.new_signature();
        for &(f, w) in features {
            state.push_weighted(f, w);
        }
        s.try_finish_into(&mut state, &mut out)?;
        Ok(out)
    }
    let h = SimHasher::new(64).unwrap();
    let good = [(1, 1.0), (2, 0.5)];
    let bad = [(1, 1.0), (2, f64::INFINITY)];
    // Infallible path (blanket impl) and checked path agree on good input.
    let Ok(plain) = run(&h, &good);
    assert_eq!(run(&h.checked(), &good).unwrap(), plain);
    // The checked path refuses what the infallible one skips.
    assert!(run(&h.checked(), &bad).is_err());
    let Ok(skipped) = run(&h, &bad);
    assert_eq!(skipped, run(&h, &[(1, 1.0)]).unwrap_or_else(|e| match e {}));
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_batches_equal_sequential_ones() {
    use ndd_simhash::ParDocSketcher;
    let docs: Vec<String> = (0..700)
        .map(|i| format!("document {i} shares words with document {} and more", i / 3))
        .collect();
    for bits in [64, 384] {
        let h = SimHasher::builder()
            .bits(bits)
            .build_with(chosen("words"))
            .unwrap();
        let seq = h.sketch_batch(&docs);
        assert_eq!(h.par_sketch_batch(&docs), seq);
        let mut out = vec![Sketcher::new_signature(&h); docs.len()];
        h.par_sketch_batch_into(&docs, &mut out).unwrap();
        assert_eq!(out, seq);
        assert!(h.par_sketch_batch_into(&docs, &mut out[1..]).is_err());
    }
}

/// `SimHasher<E>` is a named configuration of `Composed<E, SimHashSketcher>`: the
/// sketcher built alone and composed by hand gives the same signatures as the named
/// hasher for every weighting and projection, and its `sketch_weighted` and
/// `try_finish_into` are the hasher's.
#[test]
fn the_sketcher_composed_by_hand_is_the_named_hasher() {
    let words = WordShingler::new(2).unwrap();
    let stats = DocumentFrequencies::from_documents(&words, DOCS);
    let weightings = [
        Weighting::Binary,
        Weighting::TermFrequency,
        Weighting::tf_idf(stats),
        Weighting::custom(ndd_core::weights::FnWeights::new("len", |f: u64| {
            (f % 7) as f64 - 2.0
        })),
    ];
    for bits in [64, 200] {
        for projection in [Projection::Sign, Projection::Gaussian] {
            for weighting in &weightings {
                let b = || {
                    SimHasher::builder()
                        .bits(bits)
                        .seed(3)
                        .projection(projection)
                        .weighting(weighting.clone())
                };
                let named = b().build_with(words.clone()).unwrap();
                let sketcher = b().build_sketcher(words.scheme()).unwrap();
                assert_eq!(Sketcher::scheme(&sketcher), Sketcher::scheme(&named));
                assert_eq!(sketcher.bits(), bits);
                assert_eq!(sketcher.projection(), projection);
                let composed = ndd_core::Composed::new(words.clone(), sketcher.clone()).unwrap();
                for doc in DOCS {
                    assert_eq!(composed.sketch(doc), named.sketch(doc));
                }
                let v = [
                    Weighted {
                        feature: 1,
                        weight: 0.5,
                    },
                    Weighted {
                        feature: 9,
                        weight: -2.0,
                    },
                ];
                assert_eq!(
                    sketcher.sketch_weighted(&v).unwrap(),
                    named.sketch_weighted(&v).unwrap()
                );
                let mut state = Sketcher::new_state(&sketcher);
                let mut out = Sketcher::new_signature(&sketcher);
                state.push_weighted(4, f64::NAN);
                assert!(sketcher.try_finish_into(&mut state, &mut out).is_err());
                // The sketcher is for the words' features only.
                let chars = CharShingler::new(4).unwrap();
                assert!(ndd_core::Composed::new(chars, sketcher).is_err());
            }
        }
    }
}

//! The composition of extractor and sketcher: run-time extractors, the weight
//! adapter, the fallible bucketized path and the parallel batch, each checked against
//! an independent route to the same values.

use ndd_core::stats::DocumentFrequencies;
use ndd_core::weights::{FeatureExtractorExt, TfIdf};
use ndd_core::{
    Composed, DocSketcher, DynFeatureExtractor, FeatureExtractor, SparseVector, TrySketcher,
    Weighted,
};
use ndd_minhash::{BucketizedMinHasher, IcwsMinHasher, MinHashScheme, MinHasher};
use ndd_shingle::{CharShingler, WordShingler};

const DOCS: [&str; 4] = [
    "It was the best of times, it was the worst of times, it was the age of wisdom",
    "It was the best of times, it was the worst of times, it was the age of folly",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c",
    "",
];

/// Picks an extractor from a configuration string, as a program would.
fn chosen(name: &str) -> Box<dyn DynFeatureExtractor + Send + Sync> {
    match name {
        "chars" => Box::new(CharShingler::new(4).expect("valid")),
        _ => Box::new(WordShingler::new(3).expect("valid")),
    }
}

#[test]
fn boxed_dyn_extractor_gives_the_static_signatures() {
    for k in [32, 64, 128, 200] {
        for scheme in [MinHashScheme::OnePermutation, MinHashScheme::Classic] {
            let b = || MinHasher::builder().num_hashes(k).seed(9).scheme(scheme);
            let words = b().build_with(WordShingler::new(3).unwrap()).unwrap();
            let chars = b().build_with(CharShingler::new(4).unwrap()).unwrap();
            let dyn_words = b().build_with(chosen("words")).unwrap();
            let dyn_chars = b().build_with(chosen("chars")).unwrap();
            for doc in DOCS {
                assert_eq!(dyn_words.sketch(doc), words.sketch(doc), "k={k}");
                assert_eq!(dyn_chars.sketch(doc), chars.sketch(doc), "k={k}");
            }
        }
    }
}

#[test]
fn composed_sketcher_equals_the_named_hasher_and_pushed_features() {
    // `build()` shingles word 3-grams, the tool's default.
    let words = WordShingler::new(3).unwrap();
    for k in [64, 128, 100] {
        let named = MinHasher::builder().num_hashes(k).build().unwrap();
        let sketcher = MinHasher::builder()
            .num_hashes(k)
            .build_sketcher(words.scheme())
            .unwrap();
        let composed = Composed::new(words.clone(), sketcher.clone()).unwrap();
        for doc in DOCS {
            let expected = ndd_core::Sketcher::sketch_features(&sketcher, words.features(doc));
            assert_eq!(composed.sketch(doc), expected);
            assert_eq!(named.sketch(doc), expected);
        }
    }
    // A sketcher for other features is refused.
    let other = MinHasher::builder()
        .build_sketcher(CharShingler::new(4).unwrap().scheme())
        .unwrap();
    assert!(Composed::new(words, other).is_err());
}

#[test]
fn tf_idf_weights_reach_icws_and_bucketized_minhash_the_same_way() {
    let words = WordShingler::new(1).unwrap();
    let stats = DocumentFrequencies::from_documents(&words, DOCS);
    let weighted = words.clone().weighted_by(TfIdf::new(stats.clone()));
    // Oracle: the TF-IDF vector built by hand from term counts and the stats' idf.
    let vector = |doc: &str| {
        let entries = words
            .features(doc)
            .into_iter()
            .map(|f| Weighted {
                feature: f,
                weight: stats.idf(f),
            })
            .collect();
        SparseVector::from_unsorted(entries)
    };
    let icws = IcwsMinHasher::new(64, 3)
        .unwrap()
        .with_feature_scheme(weighted.scheme());
    let icws_doc = Composed::new(weighted.clone(), icws.clone()).unwrap();
    let bucket = BucketizedMinHasher::builder()
        .num_hashes(64)
        .seed(3)
        .scale(1000.0)
        .feature_scheme(weighted.scheme())
        .build()
        .unwrap();
    let bucket_doc = Composed::new(weighted, bucket.clone()).unwrap();
    for doc in DOCS {
        let v = vector(doc);
        let a = icws_doc.sketch(doc);
        let b = icws.sketch_weighted(&v);
        // The sums differ only in rounding order; ICWS is consistent under such
        // changes except at a threshold, so almost every slot agrees.
        let agree = a
            .values()
            .iter()
            .zip(b.values())
            .filter(|(x, y)| x == y)
            .count();
        assert!(agree >= 62, "{agree} of 64 slots agree");
        assert_eq!(
            bucket_doc.try_sketch(doc).unwrap(),
            bucket.sketch_weighted(&v).unwrap()
        );
    }
}

#[test]
fn bucketized_refuses_through_try_sketcher() {
    let h = BucketizedMinHasher::builder()
        .num_hashes(32)
        .max_expansion(1000)
        .build()
        .unwrap();
    let mut state = h.new_state();
    let mut out = h.new_signature();
    let before = out.clone();
    ndd_core::FeatureSink::push_weighted(&mut state, 1, 20.0); // 2000 sub-features
    assert!(h.try_finish_into(&mut state, &mut out).is_err());
    assert_eq!(out, before, "out is untouched on error");
    ndd_core::FeatureSink::push_weighted(&mut state, 1, f64::NAN);
    assert!(h.try_finish_into(&mut state, &mut out).is_err());
    // The state was reset by the failures: a small document now succeeds.
    ndd_core::FeatureSink::push_weighted(&mut state, 1, 0.5);
    h.try_finish_into(&mut state, &mut out).unwrap();
    let v = SparseVector::from_unsorted(vec![Weighted::new(1, 0.5).unwrap()]);
    assert_eq!(out, h.sketch_weighted(&v).unwrap());
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_batches_equal_sequential_ones() {
    use ndd_minhash::ParDocSketcher;
    let docs: Vec<String> = (0..700)
        .map(|i| format!("document {i} shares words with document {} and more", i / 3))
        .collect();
    for k in [64, 128, 200] {
        for scheme in [MinHashScheme::OnePermutation, MinHashScheme::Classic] {
            let h = MinHasher::builder()
                .num_hashes(k)
                .scheme(scheme)
                .build_with(chosen("words"))
                .unwrap();
            let seq = h.sketch_batch(&docs);
            assert_eq!(h.par_sketch_batch(&docs), seq);
            let mut out = vec![ndd_core::Sketcher::new_signature(&h); docs.len()];
            h.par_sketch_batch_into(&docs, &mut out).unwrap();
            assert_eq!(out, seq);
            assert!(h.par_sketch_batch_into(&docs, &mut out[1..]).is_err());
        }
    }
}

//! ndd-learn costs: training time against the number of training instances, and
//! weighted sketching with a learned model against unweighted sketching of the same
//! documents in the same run.
//!
//! * `train/{1000,4000,16000}`: `Trainer::train` (cosine, 20 L-BFGS iterations at
//!   most) over instances drawn from 300 documents: 100 groups of 3 windows of 200
//!   words of the bundled corpus (one window and two copies with 10 words replaced).
//! * `sketch/*`: 64-bit SimHash of the 300 documents' unigrams, binary
//!   (`WordShingler`) against learned weights (`LearnedKgrams`), and the learned
//!   vectors alone (`WeightModel::vector`: the features and weights); 128-value
//!   one-permutation MinHash of binary unigrams against ICWS over learned weights
//!   (what `ndd dedup --weights` runs with `--method minhash`).
//!
//! Run: `cargo bench -p ndd-learn --bench learn -- --warm-up-time 1 --measurement-time 5`
#![allow(missing_docs, clippy::unwrap_used)] // criterion_group! generates an undocumented function

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndd_core::DocSketcher;
use ndd_learn::{
    CollectionStats, Document, Kgrams, LearnedKgrams, Objective, Trainer, instances_from_clusters,
};
use ndd_shingle::WordShingler;
use ndd_simhash::SimHasher;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn collection() -> (Vec<String>, Vec<usize>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    let data = std::fs::read_to_string(path).unwrap();
    let words: Vec<String> = data
        .lines()
        .flat_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["text"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut texts, mut labels) = (Vec::new(), Vec::new());
    for g in 0..100 {
        let start = rng.random_range(0..words.len() - 200);
        let base: Vec<String> = words[start..start + 200].to_vec();
        for v in 0..3 {
            let mut w = base.clone();
            if v > 0 {
                for _ in 0..10 {
                    let i = rng.random_range(0..w.len());
                    w[i] = words[rng.random_range(0..words.len())].clone();
                }
            }
            texts.push(w.join(" "));
            labels.push(g);
        }
    }
    (texts, labels)
}

fn bench(c: &mut Criterion) {
    let (texts, labels) = collection();
    let docs: Vec<Document> = texts.iter().map(|t| Document::new(t.as_str())).collect();
    let stats =
        CollectionStats::from_documents(Kgrams::new(1).unwrap(), texts.iter().map(String::as_str));
    let trainer = Trainer::new(Objective::Cosine).max_iterations(20).unwrap();

    let mut g = c.benchmark_group("train");
    g.sample_size(10);
    for n in [1000usize, 4000, 16_000] {
        let instances = instances_from_clusters(&labels, n, 1).unwrap();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &instances, |b, inst| {
            b.iter(|| black_box(trainer.train(&stats, &docs, inst, |_| {}).unwrap()));
        });
    }
    g.finish();

    let instances = instances_from_clusters(&labels, 4000, 1).unwrap();
    let (model, _) = trainer.train(&stats, &docs, &instances, |_| {}).unwrap();
    let bytes: u64 = texts.iter().map(|t| t.len() as u64).sum();
    let mut g = c.benchmark_group("sketch");
    g.throughput(Throughput::Bytes(bytes));
    let binary = SimHasher::builder()
        .bits(64)
        .build_with(WordShingler::new(1).unwrap())
        .unwrap();
    g.bench_function("simhash_binary", |b| {
        b.iter(|| texts.iter().map(|t| binary.sketch(t)).collect::<Vec<_>>());
    });
    let learned = SimHasher::builder()
        .bits(64)
        .weighting(ndd_simhash::Weighting::TermFrequency)
        .build_with(LearnedKgrams::new(&model, &stats))
        .unwrap();
    g.bench_function("simhash_learned", |b| {
        b.iter(|| texts.iter().map(|t| learned.sketch(t)).collect::<Vec<_>>());
    });
    let minhash = ndd_minhash::MinHasher::builder()
        .num_hashes(128)
        .build_with(WordShingler::new(1).unwrap())
        .unwrap();
    g.bench_function("minhash_binary", |b| {
        b.iter(|| texts.iter().map(|t| minhash.sketch(t)).collect::<Vec<_>>());
    });
    let kgrams = LearnedKgrams::new(&model, &stats);
    let icws = ndd_core::Composed::new(
        kgrams,
        ndd_minhash::IcwsMinHasher::new(128, 0)
            .unwrap()
            .with_feature_scheme(ndd_core::FeatureExtractor::scheme(&kgrams)),
    )
    .unwrap();
    g.bench_function("icws_learned", |b| {
        b.iter(|| texts.iter().map(|t| icws.sketch(t)).collect::<Vec<_>>());
    });
    g.bench_function("learned_vectors", |b| {
        b.iter(|| {
            docs.iter()
                .map(|d| model.vector(&stats, d))
                .collect::<Vec<_>>()
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

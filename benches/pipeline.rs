//! The dedup pipeline on real text, stage by stage, with baselines in the same run:
//!
//! * LSH insert + query of every document's real MinHash signature (sketching done
//!   before timing), against a naive per-band `HashMap<u64, Vec<u32>>` index;
//! * the whole pipeline without I/O: text → signature → LSH candidates → verified
//!   pairs, single thread and (with `--features rayon`) parallel sketching;
//! * `near_dup::pipeline::Dedup`, documents in, groups out: today's defaults (exact pass,
//!   word 3-grams, banding for 99% recall, exact-Jaccard verification) against the
//!   settings of the earlier `dedup` (word 5-grams, balanced banding, the estimate
//!   decides, no exact pass) in the same run, and the exact pass alone.
//!
//! Corpus: `data/debian-copyright.jsonl` (bundled), or any JSONL file of
//! `{"text": ...}` objects named by `NDD_BENCH_CORPUS`.
//!
//! Run: `NDD_BENCH_CORPUS=.../corpus.jsonl cargo bench --bench pipeline --features rayon`
#![allow(missing_docs)] // criterion_group! generates an undocumented function
#![allow(clippy::cast_possible_truncation)] // document indexes of a corpus fit u32

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use near_dup::lsh::{LshIndex, LshParams};
#[cfg(feature = "rayon")]
use near_dup::minhash::ParDocSketcher;
use near_dup::minhash::{MinHashSignature, MinHasher};
use near_dup::{DocSketcher, Signature};

#[path = "common/corpus.rs"]
mod corpus;

/// The baseline index: per band a `HashMap<u64, Vec<u32>>`, candidates deduplicated
/// with a "seen" stamp per document; the same band keys as `LshIndex`.
fn naive_query_then_insert(sigs: &[MinHashSignature], params: LshParams) -> usize {
    let mut tables: Vec<HashMap<u64, Vec<u32>>> = vec![HashMap::new(); params.bands()];
    let mut seen = vec![u32::MAX; sigs.len()];
    let mut keys = Vec::with_capacity(params.bands());
    let mut found = 0;
    for (i, s) in sigs.iter().enumerate() {
        let i = i as u32;
        keys.clear();
        params.band_keys_into(s.values(), &mut keys).expect("valid");
        for (table, &key) in tables.iter_mut().zip(&keys) {
            let bucket = table.entry(key).or_default();
            for &j in bucket.iter() {
                if seen[j as usize] != i {
                    seen[j as usize] = i;
                    found += 1;
                }
            }
            bucket.push(i);
        }
    }
    found
}

fn bench(c: &mut Criterion) {
    let docs = corpus::load();
    let bytes: usize = docs.iter().map(String::len).sum();
    // Word 5-grams and balanced bands, the settings `performance.md` measured.
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .build_with(near_dup::shingle::WordShingler::new(5).expect("valid"))
        .expect("valid");
    let sigs = hasher.sketch_batch(&docs);
    let params = LshParams::for_threshold_balanced(0.8, 128).expect("valid");

    let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(params);
    for (i, s) in sigs.iter().enumerate() {
        index.insert(i as u32, s).expect("same scheme");
    }
    let m = index.memory();
    eprintln!(
        "{} documents, {}x{} bands: index {:.1} B/doc (band tables {}, chains {}, band keys {}), \
         key map {:.1} B/doc, signatures kept by the caller {} B/doc",
        m.documents,
        params.bands(),
        params.rows(),
        m.bytes_per_document(),
        m.band_tables,
        m.chains,
        m.band_keys,
        m.key_map as f64 / m.documents as f64,
        sigs[0].values().len() * 8
    );

    let mut group = c.benchmark_group("lsh-real-signatures");
    group.throughput(Throughput::Elements(sigs.len() as u64));
    group.sample_size(20);
    group.bench_function(
        "baseline: HashMap<u64, Vec<u32>> per band, query+insert",
        |b| {
            b.iter(|| black_box(naive_query_then_insert(&sigs, params)));
        },
    );
    group.bench_function("ndd LshIndex: query_then_insert", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(params);
            let mut found = 0;
            for (i, s) in sigs.iter().enumerate() {
                out.clear();
                index
                    .query_then_insert(i as u32, s, &mut out)
                    .expect("valid");
                found += out.len();
            }
            black_box(found)
        });
    });
    group.bench_function("ndd LshIndex: insert all, then query all", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(params);
            for (i, s) in sigs.iter().enumerate() {
                index.insert(i as u32, s).expect("valid");
            }
            let mut found = 0;
            for s in &sigs {
                out.clear();
                index.query_into(s, &mut out).expect("valid");
                found += out.len();
            }
            black_box(found)
        });
    });
    group.finish();

    let mut group = c.benchmark_group("pipeline");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    let run = |sigs: &[MinHashSignature]| {
        let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(params);
        let mut out = Vec::new();
        let mut pairs = 0usize;
        for (i, s) in sigs.iter().enumerate() {
            out.clear();
            index
                .query_then_insert(i as u32, s, &mut out)
                .expect("valid");
            for &j in &out {
                if sigs[j as usize].similarity(s).expect("valid").value() >= 0.8 {
                    pairs += 1;
                }
            }
        }
        pairs
    };
    group.bench_function(
        "text -> signatures -> LSH -> verified pairs, 1 thread",
        |b| {
            b.iter(|| black_box(run(&hasher.sketch_batch(&docs))));
        },
    );
    #[cfg(feature = "rayon")]
    group.bench_function("same, sketching with rayon", |b| {
        b.iter(|| black_box(run(&hasher.par_sketch_batch(&docs))));
    });
    group.finish();

    use near_dup::pipeline::{
        Banding, Dedup, Document, ExactPass, Method, MinHashConfig, Shingles, Verifier,
    };
    let documents: Vec<Document> = docs
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(i.to_string(), t.as_str()))
        .collect();
    let earlier = Dedup::new()
        .shingles(Shingles::Words(5))
        .method(Method::MinHash(MinHashConfig {
            banding: Banding::Balanced,
            ..MinHashConfig::default()
        }))
        .verifier(Verifier::MethodScore)
        .exact_pass(false);
    let defaults = Dedup::new();
    for (name, d) in [
        ("earlier dedup settings", &earlier),
        ("defaults", &defaults),
    ] {
        let out = d.run(&documents).expect("valid");
        eprintln!(
            "Dedup {name}: {} pairs, {} groups, {} dropped, {} candidates",
            out.report.pairs, out.report.groups, out.report.dropped, out.report.candidates
        );
    }
    let mut group = c.benchmark_group("dedup (ndd-pipeline)");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("baseline: earlier dedup settings", |b| {
        b.iter(|| black_box(earlier.run(&documents).expect("valid").report.pairs));
    });
    group.bench_function(
        "defaults: exact pass + 3-grams + recall banding + exact verify",
        |b| {
            b.iter(|| black_box(defaults.run(&documents).expect("valid").report.pairs));
        },
    );
    group.bench_function("exact pass alone", |b| {
        b.iter(|| black_box(ExactPass::new().run(&docs).copies()));
    });
    group.finish();
}

/// The serial steps of the in-memory run that issue 31 cut (docs/performance.md, "The
/// main job's serial path"), each against its previous version, written out here as it
/// was, in the same run: the exact pass's grouping of the digests (the sort now on
/// every core under `rayon`; run with `--features rayon`), grouping pairs into
/// components (no vector per singleton now), and choosing the banding (searched once
/// per process now).
#[cfg(feature = "rayon")]
fn serial_steps(c: &mut Criterion) {
    use near_dup::UnionFind;
    use near_dup::pipeline::{
        Dedup, Document, ExactDuplicates, ExactPass, Grouping, MinHashConfig,
    };
    let docs = corpus::load();
    let digests = ExactPass::new().digests(&docs);
    let documents: Vec<Document> = docs
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(i.to_string(), t.as_str()))
        .collect();
    let pairs = Dedup::new().run(&documents).expect("valid").pairs;
    eprintln!(
        "serial steps: {} documents, {} pairs",
        docs.len(),
        pairs.len()
    );
    let mut group = c.benchmark_group("serial steps (ndd-pipeline)");
    group.sample_size(20);

    // The exact pass's grouping before: its sort on the calling thread alone, as on
    // a pool of one thread (the rest of `from_digests` is unchanged).
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");
    let serial = || one.install(|| ExactDuplicates::from_digests(digests.clone()));
    assert_eq!(
        serial().groups(),
        ExactDuplicates::from_digests(digests.clone()).groups()
    );
    group.bench_function("exact grouping: previous (one thread)", |b| {
        b.iter(|| black_box(serial().groups().len()));
    });
    group.bench_function("exact grouping: ExactDuplicates::from_digests", |b| {
        b.iter(|| {
            black_box(
                ExactDuplicates::from_digests(digests.clone())
                    .groups()
                    .len(),
            )
        });
    });

    // Components before: `UnionFind::groups` (a vector per document), singletons
    // dropped, the first member kept (the first-seen policy).
    let previous_components = || {
        let mut uf = UnionFind::new(documents.len());
        for p in &pairs {
            uf.union(p.a, p.b);
        }
        uf.groups()
            .into_iter()
            .filter(|g| g.len() > 1)
            .map(|g| (g[0], g))
            .collect::<Vec<_>>()
    };
    let grouping = Grouping::default();
    let now = grouping.run(&documents, &pairs).expect("valid");
    let before = previous_components();
    assert_eq!(before.len(), now.len());
    assert!(
        before
            .iter()
            .zip(&now)
            .all(|((r, m), g)| *r == g.representative && *m == g.members)
    );
    group.bench_function("components: previous (a vector per document)", |b| {
        b.iter(|| black_box(previous_components().len()));
    });
    group.bench_function("components: Grouping::run", |b| {
        b.iter(|| black_box(grouping.run(&documents, &pairs).expect("valid").len()));
    });

    let config = MinHashConfig::default();
    let searched = || {
        LshParams::min_candidates_for_recall(
            0.8,
            config.num_perm,
            near_dup::lsh::DEFAULT_MIN_RECALL,
        )
        .expect("valid")
    };
    assert_eq!(searched(), config.lsh_params(0.8).expect("valid"));
    group.bench_function("banding at 0.8: previous (searched every time)", |b| {
        b.iter(|| black_box(searched().bands()));
    });
    group.bench_function("banding at 0.8: MinHashConfig::lsh_params", |b| {
        b.iter(|| black_box(config.lsh_params(0.8).expect("valid").bands()));
    });
    group.finish();
}

#[cfg(feature = "rayon")]
criterion_group!(benches, bench, serial_steps);
#[cfg(not(feature = "rayon"))]
criterion_group!(benches, bench);
criterion_main!(benches);

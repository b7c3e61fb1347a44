//! ndd's side of the comparison with datasketch's `MinHashLSHForest` and
//! `MinHashLSHEnsemble` (`scripts/compare_datasketch_query.py` runs the other side):
//! on a JSONL corpus, word 5-gram sets and 128-slot MinHash signatures, then
//!
//! - top-10 search: `LshForest` (8 trees × 16, the defaults) built over every
//!   document, 500 queries (documents `i · ⌊n/500⌋`), recall@10 of the exact top 10
//!   by Jaccard (ties counted: a returned document counts when its Jaccard is at least
//!   the exact 10th best), ranked by the MinHash estimate and re-ranked by exact
//!   Jaccard (`query_verified`), and the recall of the exact top-10 neighbours whose
//!   Jaccard is at least 0.5 (ties counted the same way);
//! - containment search at 0.8: `LshEnsemble` (defaults), the same queries, recall of
//!   the documents (other than the query) containing at least 80% of the query's
//!   shingles, and the candidates returned.
//!
//! Times cover the index only (sketches are made first); memory is the index's own
//! report. The exact answers come from a brute-force scan of the shingle sets.
//!
//! ```text
//! cargo run --release --example query_indexes --features shingle,minhash,lsh -- [PATH.jsonl]
//! ```
//!
//! Without a path it reads the bundled `data/debian-copyright.jsonl`.

use std::error::Error as StdError;
use std::time::Instant;

use near_dup::lsh::{EnsembleParams, ForestParams, LshEnsemble, LshForest};
use near_dup::minhash::MinHasher;
use near_dup::shingle::WordShingler;
use near_dup::{DocSketcher, FeatureExtractor, FeatureSet, containment, jaccard};

type Res<T> = Result<T, Box<dyn StdError>>;

const QUERIES: usize = 500;
const TOP: usize = 10;
const CONTAINMENT: f64 = 0.8;

fn main() -> Res<()> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/debian-copyright.jsonl").to_string()
    });
    let data = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let mut texts = Vec::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        texts.push(v["text"].as_str().ok_or("a line without text")?.to_string());
    }
    let n = texts.len();
    let shingler = WordShingler::new(5)?;
    let hasher = MinHasher::builder()
        .num_hashes(128)
        .build_with(shingler.clone())?;
    let t0 = Instant::now();
    let sets: Vec<FeatureSet> = texts.iter().map(|t| shingler.feature_set(t)).collect();
    let sigs: Vec<_> = texts.iter().map(|t| hasher.sketch(t)).collect();
    println!(
        "corpus: {n} documents; shingles and sketches in {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    let step = (n / QUERIES).max(1);
    let queries: Vec<usize> = (0..n).step_by(step).take(QUERIES).collect();

    // Exact answers by brute force.
    let t0 = Instant::now();
    let mut kth = Vec::with_capacity(queries.len());
    // Per query, its exact top 10 with Jaccard >= 0.5: the neighbours that matter.
    let mut close: Vec<Vec<usize>> = Vec::with_capacity(queries.len());
    let mut contained = Vec::with_capacity(queries.len());
    for &q in &queries {
        let mut js: Vec<f64> = (0..n)
            .map(|d| jaccard(sets[q].as_slice(), sets[d].as_slice()))
            .collect();
        let mut ranked: Vec<usize> = (0..n).collect();
        ranked.sort_by(|&a, &b| js[b].total_cmp(&js[a]));
        close.push(
            ranked
                .into_iter()
                .take(TOP)
                .filter(|&d| js[d] >= 0.5)
                .collect(),
        );
        contained.push(
            (0..n)
                .filter(|&d| {
                    d != q
                        && !sets[q].is_empty()
                        && containment(sets[q].as_slice(), sets[d].as_slice()) >= CONTAINMENT
                })
                .collect::<Vec<usize>>(),
        );
        js.sort_by(|a, b| b.total_cmp(a));
        kth.push(js[TOP.min(n) - 1]);
    }
    println!(
        "brute force (exact answers): {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    // Recall@TOP averaged over the queries, `answers[i]` being query i's answer.
    let mean_recall = |answers: &[Vec<usize>]| -> f64 {
        let recall_at = |q_index: usize, got: &[usize]| -> f64 {
            let q = queries[q_index];
            got.iter()
                .filter(|&&d| jaccard(sets[q].as_slice(), sets[d].as_slice()) >= kth[q_index])
                .count()
                .min(TOP) as f64
                / TOP.min(n) as f64
        };
        answers
            .iter()
            .enumerate()
            .map(|(i, g)| recall_at(i, g))
            .sum::<f64>()
            / queries.len() as f64
    };

    // Top-k: LshForest.
    let t0 = Instant::now();
    let mut forest = LshForest::builder(ForestParams::for_slots(128)?)
        .capacity(n)
        .build();
    for (d, s) in sigs.iter().enumerate() {
        forest.insert(d, s)?;
    }
    let build = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let answers: Vec<Vec<usize>> = queries
        .iter()
        .map(|&q| {
            forest
                .query(&sigs[q], TOP)
                .map(|v| v.into_iter().map(|x| x.0).collect())
        })
        .collect::<Result<_, _>>()?;
    let query_s = t0.elapsed().as_secs_f64();
    let recall = mean_recall(&answers);
    // Ties counted as for recall@10: a returned document counts when its Jaccard is at
    // least 0.5 and at least the exact 10th best.
    let close_recall = |got: &[Vec<usize>]| -> f64 {
        let want: usize = close.iter().map(Vec::len).sum();
        let hit: usize = close
            .iter()
            .zip(got)
            .enumerate()
            .map(|(i, (c, g))| {
                let q = queries[i];
                let bar = kth[i].max(0.5);
                g.iter()
                    .filter(|&&d| jaccard(sets[q].as_slice(), sets[d].as_slice()) >= bar)
                    .count()
                    .min(c.len())
            })
            .sum();
        hit as f64 / want.max(1) as f64
    };
    let close_est = close_recall(&answers);
    let t0 = Instant::now();
    let verified: Vec<Vec<usize>> = queries
        .iter()
        .map(|&q| {
            forest
                .query_verified(&sigs[q], TOP, |&d| {
                    jaccard(sets[q].as_slice(), sets[d].as_slice())
                })
                .map(|v| v.into_iter().map(|x| x.0).collect())
        })
        .collect::<Result<_, _>>()?;
    let verified_s = t0.elapsed().as_secs_f64();
    let recall_v = mean_recall(&verified);
    let close_ver = close_recall(&verified);
    println!(
        "ndd LshForest 8x16: build {build:.3} s ({:.0} docs/s); {} queries {query_s:.3} s ({:.0} queries/s), recall@{TOP} {recall:.4} \
         (top-{TOP} neighbours with J >= 0.5: {close_est:.4}); verified by exact Jaccard {verified_s:.3} s, \
         recall@{TOP} {recall_v:.4} ({close_ver:.4}); {:.0} bytes/doc",
        n as f64 / build,
        queries.len(),
        queries.len() as f64 / query_s,
        forest.memory().bytes_per_document()
    );

    // Containment: LshEnsemble.
    let t0 = Instant::now();
    let mut ensemble = LshEnsemble::new(EnsembleParams::new(CONTAINMENT, 128)?);
    for (d, s) in sigs.iter().enumerate() {
        if !sets[d].is_empty() {
            ensemble.insert(d, s, sets[d].len() as u64)?;
        }
    }
    let build = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let mut found = Vec::with_capacity(queries.len());
    for &q in &queries {
        found.push(if sets[q].is_empty() {
            Vec::new()
        } else {
            ensemble.query(&sigs[q], sets[q].len() as u64)?
        });
    }
    let query_s = t0.elapsed().as_secs_f64();
    let (mut hits, mut truths, mut candidates) = (0usize, 0usize, 0usize);
    for (i, got) in found.iter().enumerate() {
        candidates += got.len();
        truths += contained[i].len();
        hits += contained[i].iter().filter(|d| got.contains(d)).count();
    }
    println!(
        "ndd LshEnsemble t=0.8: build {build:.3} s ({:.0} docs/s), {} partitions; {} queries {query_s:.3} s ({:.0} queries/s), \
         recall {:.4} ({hits}/{truths}), {candidates} candidates; {:.0} bytes/doc",
        n as f64 / build,
        ensemble.partitions(),
        queries.len(),
        queries.len() as f64 / query_s,
        hits as f64 / truths.max(1) as f64,
        ensemble.memory().bytes_per_document()
    );
    Ok(())
}

//! How much recall at a threshold T does MinHash LSH keep with balanced banding
//! (`LshParams::for_threshold_balanced`, false positives and negatives weighed
//! equally; `for_threshold` until 0.1.0) and with banding chosen for recall
//! (`LshParams::min_candidates_for_recall(T, 128, 0.99)`, today's
//! `LshParams::for_threshold`), and what does it cost?
//!
//! For word k-gram sets of a real corpus: the exact pairs with Jaccard `>= T`
//! (`near_dup::index::exact_similar_pairs`, an exact prefix-filtered join) are the truth. MinHash
//! (one-permutation, 128 values) signatures stream through an `LshIndex`
//! (`query_then_insert`); the candidates are then verified either by the MinHash
//! estimate `>= T` or by the exact Jaccard of the shingle sets `>= T`. Reported:
//! candidates, pairs kept, recall against the exact pairs, and times.
//!
//! ```text
//! cargo run --release --example recall_banding -- [--corpus PATH.jsonl] [--k 5,3]
//! ```
//!
//! Without `--corpus` it reads the bundled `data/debian-copyright.jsonl`.

use std::collections::HashSet;
use std::error::Error as StdError;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use near_dup::index::exact_similar_pairs;
use near_dup::lsh::{LshIndex, LshParams};
use near_dup::minhash::{MinHashSignature, MinHasher};
use near_dup::shingle::WordShingler;
use near_dup::{DocSketcher, FeatureExtractor, FeatureSet, Signature, jaccard};

type Res<T> = Result<T, Box<dyn StdError>>;

const SLOTS: usize = 128;

/// Reads the `text` of `{"id", "text"}` JSON lines.
fn read_texts(path: &PathBuf) -> Res<Vec<String>> {
    let data = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        out.push(v["text"].as_str().unwrap_or_default().to_string());
    }
    Ok(out)
}

/// Candidates of every document against the earlier ones, and the time it took.
fn candidates(sigs: &[MinHashSignature], params: LshParams) -> Res<(Vec<(u32, u32)>, Duration)> {
    let t = Instant::now();
    let mut index: LshIndex<u32, MinHashSignature> =
        LshIndex::builder(params).capacity(sigs.len()).build();
    let (mut found, mut out) = (Vec::new(), Vec::new());
    for (i, sig) in sigs.iter().enumerate() {
        found.clear();
        let key = u32::try_from(i)?;
        index.query_then_insert(key, sig, &mut found)?;
        out.extend(found.iter().map(|&j| (j, key)));
    }
    Ok((out, t.elapsed()))
}

fn main() -> Res<()> {
    let mut corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/debian-copyright.jsonl");
    let mut ks = vec![5usize, 3];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--corpus" => corpus = PathBuf::from(val()?),
            "--k" => {
                ks = val()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
            }
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    let texts = read_texts(&corpus)?;
    let mb = texts.iter().map(String::len).sum::<usize>() as f64 / 1e6;
    println!(
        "# recall_banding: {} ({} documents, {mb:.1} MB), MinHash one-permutation {SLOTS} values\n",
        corpus.display(),
        texts.len()
    );
    println!(
        "| k | T | banding b x r | P(cand) at T | exact pairs | candidates | LSH ms | \
         est >= T: kept | recall | verify ms | exact >= T: kept | recall | verify ms |"
    );
    println!(
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for &k in &ks {
        let e = WordShingler::new(k)?;
        let t = Instant::now();
        let sets: Vec<FeatureSet> = texts.iter().map(|d| e.feature_set(d)).collect();
        let shingle_time = t.elapsed();
        let h = MinHasher::builder().num_hashes(SLOTS).build_with(e)?;
        let t = Instant::now();
        let sigs: Vec<MinHashSignature> = h.sketch_batch(&texts);
        let sketch_time = t.elapsed();
        eprintln!("k = {k}: shingle sets {shingle_time:.2?}, sketch {sketch_time:.2?}");
        for threshold in [0.5, 0.7, 0.8, 0.9] {
            let t = Instant::now();
            let exact = exact_similar_pairs(&sets, threshold)?;
            let exact_time = t.elapsed();
            let truth: HashSet<(u32, u32)> = exact
                .iter()
                .map(|p| {
                    let (a, b) = (p.a.min(p.b), p.a.max(p.b));
                    Ok((u32::try_from(a)?, u32::try_from(b)?))
                })
                .collect::<Res<_>>()?;
            eprintln!(
                "k = {k}, T = {threshold}: {} exact pairs in {exact_time:.2?} (exact join)",
                truth.len()
            );
            let recall_banding = LshParams::min_candidates_for_recall(threshold, SLOTS, 0.99)?;
            for (name, params) in [
                (
                    "for_threshold_balanced",
                    LshParams::for_threshold_balanced(threshold, SLOTS)?,
                ),
                ("recall 0.99", recall_banding),
            ] {
                let (cands, lsh_time) = candidates(&sigs, params)?;
                let recall = |kept: &[(u32, u32)]| {
                    let hit = kept
                        .iter()
                        .filter(|&&(a, b)| truth.contains(&(a.min(b), a.max(b))))
                        .count();
                    if truth.is_empty() {
                        1.0
                    } else {
                        hit as f64 / truth.len() as f64
                    }
                };
                let t = Instant::now();
                let mut by_estimate = Vec::new();
                for &(a, b) in &cands {
                    let s = sigs[a as usize].similarity(&sigs[b as usize])?.value();
                    if s >= threshold {
                        by_estimate.push((a, b));
                    }
                }
                let est_time = t.elapsed();
                let t = Instant::now();
                let by_exact: Vec<(u32, u32)> = cands
                    .iter()
                    .copied()
                    .filter(|&(a, b)| {
                        jaccard(sets[a as usize].as_slice(), sets[b as usize].as_slice())
                            >= threshold
                    })
                    .collect();
                let exact_verify_time = t.elapsed();
                println!(
                    "| {k} | {threshold} | {name} {} x {} | {:.3} | {} | {} | {:.1} | {} | {:.4} | \
                     {:.1} | {} | {:.4} | {:.1} |",
                    params.bands(),
                    params.rows(),
                    params.probability(threshold),
                    truth.len(),
                    cands.len(),
                    lsh_time.as_secs_f64() * 1e3,
                    by_estimate.len(),
                    recall(&by_estimate),
                    est_time.as_secs_f64() * 1e3,
                    by_exact.len(),
                    recall(&by_exact),
                    exact_verify_time.as_secs_f64() * 1e3,
                );
            }
        }
    }
    Ok(())
}

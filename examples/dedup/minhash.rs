//! `--method minhash` (the default): one-permutation MinHash signatures, a banded LSH
//! index, candidates kept when their estimated Jaccard reaches the threshold.

use std::time::Instant;

use ndd::lsh::{LshIndex, LshParams};
use ndd::minhash::{MinHashSignature, MinHasher};
use ndd::shingle::{CharShingler, WordShingler};
use ndd::{FeatureExtractor, ScoredPair, Signature};

use crate::{Doc, Found, Options};

pub(crate) fn pairs(docs: &[Doc], o: &Options) -> Result<Found, String> {
    match o.char_k {
        Some(k) => with_extractor(docs, CharShingler::new(k).map_err(|e| e.to_string())?, o),
        None => with_extractor(docs, WordShingler::new(o.k).map_err(|e| e.to_string())?, o),
    }
}

fn with_extractor<E: FeatureExtractor + Sync>(
    docs: &[Doc],
    extractor: E,
    o: &Options,
) -> Result<Found, String> {
    let err = |e: ndd::Error| e.to_string();
    let hasher = MinHasher::builder()
        .num_hashes(o.num_perm)
        .build_with(extractor)
        .map_err(err)?;
    let params = match (o.bands, o.rows) {
        (Some(b), Some(r)) => LshParams::new(b, r).map_err(err)?,
        // A threshold of 1 asks for identical signatures: tune the bands for 0.99.
        _ => LshParams::for_threshold(o.threshold.min(0.99), o.num_perm).map_err(err)?,
    };
    params.check_signature_len(o.num_perm).map_err(err)?;

    let t = Instant::now();
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    #[cfg(feature = "rayon")]
    let sigs: Vec<MinHashSignature> = hasher.par_sketch_batch(&texts);
    #[cfg(not(feature = "rayon"))]
    let sigs: Vec<MinHashSignature> = ndd::DocSketcher::sketch_batch(&hasher, &texts);
    let sketched = t.elapsed();

    // Stream the documents through the index: each one's candidates are the earlier
    // documents sharing a band; keep those whose estimated Jaccard reaches T.
    let t = Instant::now();
    let mut index: LshIndex<u32, MinHashSignature> =
        LshIndex::builder(params).capacity(sigs.len()).build();
    let (mut candidates, mut pairs) = (Vec::new(), Vec::new());
    let mut n_candidates = 0usize;
    for (i, sig) in sigs.iter().enumerate() {
        candidates.clear();
        let key = u32::try_from(i).map_err(|_| "more than 2^32 documents".to_string())?;
        index
            .query_then_insert(key, sig, &mut candidates)
            .map_err(err)?;
        n_candidates += candidates.len();
        for &j in &candidates {
            let j = j as usize;
            let est = sigs[j].similarity(sig).map_err(err)?.value();
            if est >= o.threshold {
                pairs.push(ScoredPair::new(j, i, est));
            }
        }
    }
    let indexed = t.elapsed();
    let mem = index.memory();
    Ok(Found {
        pairs,
        method: format!(
            "MinHash ({} values, one-permutation) + LSH ({} bands x {} rows, \
             {n_candidates} candidates, index {:.0} B/doc), estimated Jaccard",
            o.num_perm,
            params.bands(),
            params.rows(),
            mem.bytes_per_document()
        ),
        timing: format!("sketch {sketched:.2?}, LSH + verify {indexed:.2?}"),
    })
}

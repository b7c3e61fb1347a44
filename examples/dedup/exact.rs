//! `--method exact`: exact Jaccard of the shingle sets, all pairs at or above the
//! threshold found by a prefix-filtered inverted index.

use std::time::Instant;

use ndd::shingle::{CharShingler, WordShingler};
use ndd::{DynFeatureExtractor, FeatureSet, exact_similar_pairs};

use crate::{Doc, Found, Options};

pub(crate) fn pairs(docs: &[Doc], o: &Options) -> Result<Found, String> {
    let extractor: Box<dyn DynFeatureExtractor> = match o.char_k {
        Some(k) => Box::new(CharShingler::new(k).map_err(|e| e.to_string())?),
        None => Box::new(WordShingler::new(o.k).map_err(|e| e.to_string())?),
    };
    let t = Instant::now();
    let mut scratch: Vec<u64> = Vec::new();
    let sets: Vec<FeatureSet> = docs
        .iter()
        .map(|d| {
            scratch.clear();
            extractor.extract_dyn(&d.text, &mut scratch);
            FeatureSet::from_unsorted(scratch.clone())
        })
        .collect();
    let shingled = t.elapsed();
    let t = Instant::now();
    let pairs = exact_similar_pairs(&sets, o.threshold).map_err(|e| e.to_string())?;
    Ok(Found {
        pairs,
        method: "exact Jaccard".into(),
        timing: format!(
            "shingle {shingled:.2?}, all-pairs search {:.2?}",
            t.elapsed()
        ),
    })
}

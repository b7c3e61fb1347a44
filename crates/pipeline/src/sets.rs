//! Shingle sets of many documents, for the exact join and the exact verifiers.

use ndd_core::{Error, FeatureExtractor, FeatureSet};

use crate::Features;
use crate::progress::{CHUNK, Progress, Stage};

/// The shingle set of every text whose `needed` flag is set (every text when `None`;
/// the others get an empty set), in parallel under `rayon`, with the extractor's
/// per-shingle calls monomorphized and one scratch buffer per worker.
pub(crate) fn shingle_sets(
    features: Features,
    texts: &[&str],
    needed: Option<&[bool]>,
    stage: Stage,
    progress: &dyn Progress,
) -> Result<Vec<FeatureSet>, Error> {
    crate::method::for_extractor!(features, |e| Ok(sets_with(
        &e, texts, needed, stage, progress
    )))
}

fn sets_with<E: FeatureExtractor + Sync>(
    extractor: &E,
    texts: &[&str],
    needed: Option<&[bool]>,
    stage: Stage,
    progress: &dyn Progress,
) -> Vec<FeatureSet> {
    let mut out = Vec::with_capacity(texts.len());
    for (c, chunk) in texts.chunks(CHUNK).enumerate() {
        let first = c * CHUNK;
        let one = |scratch: &mut Vec<u64>, (i, t): (usize, &&str)| {
            if needed.is_some_and(|n| !n[first + i]) {
                return FeatureSet::default();
            }
            scratch.clear();
            extractor.extract(t, scratch);
            FeatureSet::from_unsorted(scratch.clone())
        };
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            let part: Vec<FeatureSet> = chunk
                .par_iter()
                .enumerate()
                .map_init(Vec::new, one)
                .collect();
            out.extend(part);
        }
        #[cfg(not(feature = "rayon"))]
        {
            let mut scratch = Vec::new();
            out.extend(chunk.iter().enumerate().map(|x| one(&mut scratch, x)));
        }
        progress.advance(stage, chunk.len() as u64);
    }
    out
}

/// Documents a part of [`PackedSets`] holds: one task of [`packed_sets`]'s pool work.
const PACK: usize = 256;

/// The shingle sets of many documents packed into one buffer per [`PACK`] documents:
/// what the set verifiers read. Against one `Vec` per document it saves the vector's
/// header (24 bytes) and the allocator's overhead per document, and a lookup reads a
/// dense table of bounds (8 bytes per document) rather than a header wherever the
/// allocator put it.
#[derive(Debug, Default)]
pub(crate) struct PackedSets {
    parts: Vec<PackedPart>,
}

/// [`PACK`] documents' sets: document `k` of the part is `hashes[bounds[k]..bounds[k + 1]]`.
#[derive(Debug, Default)]
struct PackedPart {
    hashes: Vec<u64>,
    bounds: Vec<usize>,
}

impl PackedSets {
    /// Document `i`'s sorted distinct shingle hashes (empty for a document that was not
    /// needed).
    ///
    /// # Panics
    ///
    /// When `i` is not below the number of texts the sets were made from.
    pub(crate) fn get(&self, i: usize) -> &[u64] {
        let part = &self.parts[i / PACK];
        let k = i % PACK;
        &part.hashes[part.bounds[k]..part.bounds[k + 1]]
    }
}

/// [`shingle_sets`] of the texts whose `needed` flag is set, packed ([`PackedSets`]):
/// the same set for each such text (an empty one for the others), without a vector per
/// document.
pub(crate) fn packed_sets(
    features: Features,
    texts: &[&str],
    needed: &[bool],
) -> Result<PackedSets, Error> {
    crate::method::for_extractor!(features, |e| Ok(packed_with(&e, texts, needed)))
}

fn packed_with<E: FeatureExtractor + Sync>(
    extractor: &E,
    texts: &[&str],
    needed: &[bool],
) -> PackedSets {
    let one = |scratch: &mut Vec<u64>, (p, part): (usize, &[&str])| {
        let first = p * PACK;
        let mut out = PackedPart {
            hashes: Vec::new(),
            bounds: Vec::with_capacity(part.len() + 1),
        };
        out.bounds.push(0);
        for (i, t) in part.iter().enumerate() {
            if needed[first + i] {
                scratch.clear();
                extractor.extract(t, scratch);
                FeatureSet::sort_and_dedup(scratch);
                out.hashes.extend_from_slice(scratch);
            }
            out.bounds.push(out.hashes.len());
        }
        out.hashes.shrink_to_fit();
        out
    };
    #[cfg(feature = "rayon")]
    let parts = {
        use rayon::prelude::*;
        // One part per task: rayon's adaptive split stops at about a quarter of the
        // parts per thread, and the bench corpus's last parts (long license texts) hold
        // ten times the bytes of the others, so one thread shingled a leaf of them alone
        // while the other waited (issue 31's timeline).
        texts
            .par_chunks(PACK)
            .enumerate()
            .with_max_len(1)
            .map_init(Vec::new, one)
            .collect()
    };
    #[cfg(not(feature = "rayon"))]
    let parts = {
        let mut scratch = Vec::new();
        texts
            .chunks(PACK)
            .enumerate()
            .map(|x| one(&mut scratch, x))
            .collect()
    };
    PackedSets { parts }
}

/// The number of distinct shingles of every text (the set sizes LSH Ensemble needs),
/// in parallel under `rayon`, one scratch buffer per worker; no set is kept.
#[cfg(feature = "minhash")]
pub(crate) fn set_sizes(features: Features, texts: &[&str]) -> Result<Vec<u64>, Error> {
    crate::method::for_extractor!(features, |e| Ok(sizes_with(&e, texts)))
}

#[cfg(feature = "minhash")]
fn sizes_with<E: FeatureExtractor + Sync>(extractor: &E, texts: &[&str]) -> Vec<u64> {
    let one = |scratch: &mut Vec<u64>, t: &&str| {
        scratch.clear();
        extractor.extract(t, scratch);
        FeatureSet::sort_and_dedup(scratch);
        scratch.len() as u64
    };
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        texts.par_iter().map_init(Vec::new, one).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        let mut scratch = Vec::new();
        texts.iter().map(|t| one(&mut scratch, t)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use crate::{Features, Shingles};

    /// Texts of many lengths (some empty, some repeating a word), enough to span
    /// several parts and more than one chunk.
    fn texts() -> Vec<String> {
        (0..CHUNK + 3 * PACK + 17)
            .map(|i| {
                (0..i % 23)
                    .map(|w| format!("w{}", (i * 7 + w * 13) % 41))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn packed_sets_are_the_sets_of_each_needed_text_and_empty_for_the_others() {
        let texts = texts();
        let strs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let needed: Vec<bool> = (0..strs.len()).map(|i| i % 5 != 3).collect();
        for features in [
            Features::default(),
            Features::new(Shingles::Words(1)),
            Features::new(Shingles::Chars(4)),
        ] {
            let plain = shingle_sets(features, &strs, None, Stage::Verify, &NoProgress)
                .expect("valid features");
            let packed = packed_sets(features, &strs, &needed).expect("valid features");
            for (i, set) in plain.iter().enumerate() {
                let want: &[u64] = if needed[i] { set.as_slice() } else { &[] };
                assert_eq!(packed.get(i), want, "text {i} with {features:?}");
            }
            // Words(1) of a non-empty text are never empty: the sets are not trivially equal.
            assert!(packed.get(PACK + 1).len() > 1);
        }
    }
}

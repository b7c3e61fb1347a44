//! Shingle sets of many documents, for the exact join and the exact verifiers.

use ndd_core::{Error, FeatureExtractor, FeatureSet};

use crate::Shingles;
use crate::method::ExtractorFn;
use crate::progress::{CHUNK, Progress, Stage};

/// The shingle set of every text whose `needed` flag is set (every text when `None`;
/// the others get an empty set), in parallel under `rayon`, with the extractor's
/// per-shingle calls monomorphized and one scratch buffer per worker.
pub(crate) fn shingle_sets(
    shingles: Shingles,
    nfkc: bool,
    texts: &[&str],
    needed: Option<&[bool]>,
    stage: Stage,
    progress: &dyn Progress,
) -> Result<Vec<FeatureSet>, Error> {
    struct Go<'a> {
        texts: &'a [&'a str],
        needed: Option<&'a [bool]>,
        stage: Stage,
        progress: &'a dyn Progress,
    }
    impl ExtractorFn<Vec<FeatureSet>> for Go<'_> {
        fn call<E: FeatureExtractor + Send + Sync + 'static>(
            self,
            extractor: E,
        ) -> Result<Vec<FeatureSet>, Error> {
            let mut out = Vec::with_capacity(self.texts.len());
            for (c, chunk) in self.texts.chunks(CHUNK).enumerate() {
                let first = c * CHUNK;
                let one = |scratch: &mut Vec<u64>, (i, t): (usize, &&str)| {
                    if self.needed.is_some_and(|n| !n[first + i]) {
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
                self.progress.advance(self.stage, chunk.len() as u64);
            }
            Ok(out)
        }
    }
    shingles.with(
        nfkc,
        Go {
            texts,
            needed,
            stage,
            progress,
        },
    )
}

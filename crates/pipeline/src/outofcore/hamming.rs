//! SimHash out of core: 64-bit fingerprints, their blocks as band keys, and the
//! candidate stage that pairs the documents within the Hamming bound.
//!
//! The in-memory run finds every pair of 64-bit fingerprints at most `h` bits apart
//! with permuted sorted tables (`ndd_index::hamming_pairs`, Manku et al.): the 64 bits
//! cut into blocks, one table per choice of leading blocks, the pairs compared within
//! runs of equal leading bits. Here the same tables are sorted on disk: `h + 1` blocks
//! (so one leading block per table, `h + 1` tables: two fingerprints at most `h` bits
//! apart agree on at least one block), each document's fingerprint written once per
//! block as a band key rotated so that the block leads (`band` = the block), the keys
//! merged in bucket order, and each run of keys agreeing on the leading block searched
//! with the in-memory join (`ndd_index::for_each_hamming_pair`). A pair is kept in
//! the table of the first block it agrees on only, so each comes once. The join is
//! exact, so the pairs are the in-memory run's, whatever the layouts.

use ndd_core::bits::low_mask;
use ndd_core::{FeatureExtractor, SchemeId};
use ndd_index::{HammingParams, for_each_hamming_pair};
use ndd_scale::{BandKeyRecord, Edge, SortedRuns};
use ndd_simhash::{SimHashSignature, SimHasher, Weighting};

use super::buckets::{self, Bucketed};
use super::exact::CopyBits;
use super::sketch::{self, Signer, Sketched};
use super::{Job, damaged, pair_order, pair_radix};
use crate::{Document, Error, Features, SimHashConfig, SimWeighting};

/// The longest run of keys searched pair by pair; longer runs go through the
/// permuted-table join.
const SMALL_RUN: usize = 64;

/// The blocks of a 64-bit fingerprint for a Hamming bound `h`: `h + 1` contiguous
/// blocks, the first `64 mod (h + 1)` one bit longer.
#[derive(Debug, Clone)]
pub(super) struct Blocks {
    max_hamming: u32,
    /// `(start, len)` of each block, lowest bits first.
    ranges: Vec<(u32, u32)>,
}

impl Blocks {
    /// The blocks for `max_hamming` (below 64, as the plan checks).
    pub(super) fn new(max_hamming: u32) -> Self {
        let b = max_hamming.min(63) + 1;
        let (len, longer) = (64 / b, 64 % b);
        let mut start = 0;
        let ranges = (0..b)
            .map(|j| {
                let l = len + u32::from(j < longer);
                let r = (start, l);
                start += l;
                r
            })
            .collect();
        Blocks {
            max_hamming,
            ranges,
        }
    }

    fn range(&self, band: u16) -> (u32, u32) {
        self.ranges
            .get(usize::from(band))
            .copied()
            .unwrap_or((0, 64))
    }

    /// `fp` rotated so that block `band` takes the top bits.
    fn key(&self, fp: u64, band: u16) -> u64 {
        let (start, len) = self.range(band);
        fp.rotate_left(64 - (start + len))
    }

    /// The fingerprint behind [`key`](Self::key).
    fn fingerprint(&self, key: u64, band: u16) -> u64 {
        let (start, len) = self.range(band);
        key.rotate_right(64 - (start + len))
    }

    /// The block's bits of a key: the run it belongs to.
    fn run_of(&self, key: u64, band: u16) -> u64 {
        key >> (64 - self.range(band).1)
    }

    /// Whether block `band` is the first block two fingerprints `diff` = a XOR b
    /// agree on (they agree on `band`; the table of that block reports the pair).
    fn first_agreeing(&self, diff: u64, band: u16) -> bool {
        self.ranges
            .iter()
            .take(usize::from(band))
            .all(|&(start, len)| (diff >> start) & low_mask(len) != 0)
    }
}

/// SimHash: the fingerprint's eight bytes (little-endian) and its blocks as keys.
struct SimSigner<E> {
    hasher: SimHasher<E>,
    blocks: Blocks,
}

impl<E: FeatureExtractor + Sync> Signer for SimSigner<E> {
    type Sig = SimHashSignature;

    fn sketch_chunk(&self, texts: &[&str]) -> Vec<SimHashSignature> {
        sketch::batch(&self.hasher, texts)
    }

    fn record(
        &self,
        sig: &SimHashSignature,
        bytes: &mut Vec<u8>,
        keys: &mut Vec<u64>,
    ) -> Result<(), Error> {
        let fp = sig.as_u64().ok_or_else(|| {
            Error::Core(ndd_core::Error::invalid_input(
                "a 64-bit SimHash signature has no u64 form",
            ))
        })?;
        bytes.clear();
        bytes.extend_from_slice(&fp.to_le_bytes());
        keys.clear();
        keys.extend((0..self.blocks.ranges.len()).map(|j| {
            // At most 64 blocks.
            let band = u16::try_from(j).unwrap_or(u16::MAX);
            self.blocks.key(fp, band)
        }));
        Ok(())
    }
}

/// The weighting of a SimHash run out of core: binary or term frequency (per
/// document); TF-IDF and learned weights need the whole collection's statistics
/// first, which [`OutOfCore::new`](super::OutOfCore::new) refuses.
pub(super) fn weighting(config: &SimHashConfig) -> Option<(Weighting, u64)> {
    match config.weighting {
        SimWeighting::Binary => Some((Weighting::Binary, 0)),
        SimWeighting::TermFrequency => Some((Weighting::TermFrequency, 1)),
        _ => None,
    }
}

/// Stage 1 for SimHash: fingerprints to `signatures.bin` (8 bytes each), their blocks
/// to key runs, sets when the verifier reads them; with the key runs' fingerprint.
pub(super) fn sketch<I>(
    job: &Job<'_>,
    config: &SimHashConfig,
    features: Features,
    docs: I,
) -> Result<(Sketched, u64), Error>
where
    I: Iterator<Item = Result<Document, Error>>,
{
    let Some((weighting, _)) = weighting(config) else {
        return Err(Error::Core(ndd_core::Error::invalid_parameter(
            "weighting",
            "out of core, SimHash weighs features by binary or term-frequency weights",
        )));
    };
    let blocks = Blocks::new(job.max_hamming.unwrap_or(0));
    crate::method::for_extractor!(features, |e| {
        let hasher = SimHasher::builder()
            .bits(config.bits)
            .weighting(weighting.clone())
            .build_with(e)?;
        let scheme = ndd_core::Signature::scheme(&ndd_core::DocSketcher::sketch(&hasher, ""));
        let fp = SchemeId::new("ndd-pipeline/out-of-core/simhash-blocks")
            .with(u64::from(blocks.max_hamming))
            .with_scheme(scheme)
            .finish()
            .as_u64();
        let signer = SimSigner { hasher, blocks };
        sketch::run(job, &signer, fp, docs).map(|s| (s, fp))
    })
}

/// Stage 3 for SimHash: the key runs merged; each run of keys agreeing on a block
/// (exact copies left out, as in memory) searched for pairs within the bound, kept
/// in the table of the first block they agree on; the pairs sorted into candidate
/// runs. A run's fingerprints are held in memory (16 bytes each).
pub(super) fn candidates(
    job: &Job<'_>,
    keys: &SortedRuns<BandKeyRecord, (u16, u64, u64)>,
    copies: &CopyBits,
    fingerprint: u64,
) -> Result<Bucketed, Error> {
    let dir = job.dir;
    let blocks = Blocks::new(job.max_hamming.unwrap_or(0));
    let mut pairs = job
        .sort("candidates", pair_order, job.budget / 2, fingerprint)?
        .radix(pair_radix);
    let mut named = buckets::named_bits(job, copies.len())?;
    // The one place a pair is emitted: sorted, and its documents marked.
    let mut emit = |e: Edge| {
        if let Some(named) = &mut named {
            named.mark(e);
        }
        pairs.push(e).map_err(|e| damaged(dir, e))
    };
    let mut run: Vec<(u64, u64)> = Vec::new();
    let mut at: Option<(u16, u64)> = None;
    let mut fps: Vec<u64> = Vec::new();
    let mut found: Vec<Edge> = Vec::new();
    let mut search = |band: u16, run: &[(u64, u64)], found: &mut Vec<Edge>| {
        found.clear();
        let h = blocks.max_hamming;
        let mut keep = |i: usize, j: usize| {
            let ((x, a), (y, b)) = (run[i], run[j]);
            let diff = x ^ y;
            if diff.count_ones() <= h && blocks.first_agreeing(diff, band) {
                found.push(Edge {
                    a: a.min(b),
                    b: a.max(b),
                });
            }
        };
        if run.len() <= SMALL_RUN {
            for i in 0..run.len() {
                for j in i + 1..run.len() {
                    keep(i, j);
                }
            }
            return Ok::<(), Error>(());
        }
        fps.clear();
        fps.extend(run.iter().map(|&(fp, _)| fp));
        let params = HammingParams::for_collection(h, fps.len())?;
        for_each_hamming_pair(&fps, params, |i, j, _| keep(i, j))?;
        Ok(())
    };
    // Exact copies stay out of the search, as in memory.
    buckets::for_each_key(job, keys, copies, |r| {
        let here = (r.band, blocks.run_of(r.key, r.band));
        if at != Some(here) {
            if let Some((band, _)) = at {
                search(band, &run, &mut found)?;
                for e in &found {
                    emit(*e)?;
                }
            }
            run.clear();
            at = Some(here);
        }
        run.push((blocks.fingerprint(r.key, r.band), r.doc));
        Ok(())
    })?;
    if let Some((band, _)) = at {
        search(band, &run, &mut found)?;
        for e in &found {
            emit(*e)?;
        }
    }
    let mut bucketed = buckets::finish(dir, pairs)?;
    bucketed.named = named;
    Ok(bucketed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_the_64_bits_and_keys_round_trip() {
        for h in [0u32, 1, 3, 5, 7, 20, 63] {
            let blocks = Blocks::new(h);
            assert_eq!(blocks.ranges.len(), h as usize + 1);
            assert_eq!(blocks.ranges.iter().map(|r| r.1).sum::<u32>(), 64);
            let fp = 0x0123_4567_89ab_cdefu64;
            for band in 0..=h {
                let band = u16::try_from(band).unwrap_or(0);
                let (start, len) = blocks.range(band);
                let key = blocks.key(fp, band);
                assert_eq!(blocks.fingerprint(key, band), fp);
                // The run is the block's bits.
                assert_eq!(blocks.run_of(key, band), (fp >> start) & low_mask(len));
            }
        }
    }

    #[test]
    fn a_pair_is_reported_by_the_first_block_it_agrees_on() {
        let blocks = Blocks::new(3); // blocks of 16 bits
        // Differ in block 0 only: blocks 1, 2 and 3 agree; block 1 reports.
        let diff = 0b101;
        assert!(!blocks.first_agreeing(diff, 2));
        assert!(blocks.first_agreeing(diff, 1));
        // Differ in blocks 0 and 1: block 2 reports, block 3 (agreeing too) does not.
        let diff = 1 | 1 << 16;
        assert!(blocks.first_agreeing(diff, 2));
        assert!(!blocks.first_agreeing(diff, 3));
        // Agree everywhere: block 0.
        assert!(blocks.first_agreeing(0, 0));
    }
}

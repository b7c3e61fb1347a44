//! Stage 4: each distinct candidate pair, in order, scored as the in-memory run scores
//! it: the MinHash estimate from the two signatures, then (for the exact verifiers)
//! the measure of the two shingle sets. Accepted pairs, merged in order with the exact
//! copies' pairs (score 1), go to `pairs.bin` (edges, `a < b`) with their scores in
//! `scores.bin` (score records, same order).

use ndd_core::{Signature, jaccard};
use ndd_scale::{Edge, RecordWriter, Score, SortedRuns};

use super::sketch::{Sets, Signatures};
use super::{EXACT, Job, PAIRS, SCORES, damaged};
use crate::progress::Stage;
use crate::{Error, Verifier};

/// What stage 3 wrote.
pub(super) struct Verified {
    pub(super) checked: u64,
    pub(super) pairs: u64,
    pub(super) bytes_written: u64,
}

pub(super) fn run(
    job: &Job<'_>,
    candidates: &SortedRuns<Edge, (u64, u64)>,
    signature_len: u64,
    exact_fingerprint: u64,
    fingerprint: u64,
) -> Result<Verified, Error> {
    let dir = job.dir;
    let mut sigs = Signatures::open(dir, signature_len)?;
    let mut sets = if job.needs_sets {
        Some(Sets::open(dir)?)
    } else {
        None
    };
    let pairs_path = dir.join(PAIRS);
    let mut out =
        RecordWriter::<Edge>::create(&pairs_path, fingerprint).map_err(|e| damaged(dir, e))?;
    let scores_path = dir.join(SCORES);
    let mut scores =
        RecordWriter::<Score>::create(&scores_path, fingerprint).map_err(|e| damaged(dir, e))?;
    let t = job.threshold;
    let floor = match job.verifier {
        Verifier::MethodScore => t,
        Verifier::ExactJaccard => crate::candidates::minhash::plausible_floor(t, job.num_perm),
        _ => f64::NEG_INFINITY,
    };
    let (mut checked, mut accepted) = (0u64, 0u64);
    let mut exact = ndd_scale::RecordReader::<Edge, _>::open(dir.join(EXACT))
        .and_then(|r| r.expect_fingerprint(exact_fingerprint))
        .map_err(|e| damaged(dir, e))?
        .peekable();
    // Writes the exact pairs before `until` (all of them for `None`), in order.
    let mut flush_exact = |until: Option<Edge>,
                           out: &mut RecordWriter<Edge>,
                           scores: &mut RecordWriter<Score>,
                           accepted: &mut u64|
     -> Result<(), Error> {
        while let Some(next) = exact.peek() {
            let e = match next {
                Ok(e) if until.is_none_or(|u| (e.a, e.b) < (u.a, u.b)) => *e,
                Ok(_) => break,
                Err(_) => {
                    return match exact.next() {
                        Some(Err(e)) => Err(damaged(dir, e)),
                        _ => Ok(()),
                    };
                }
            };
            exact.next();
            out.write(&e).map_err(|err| damaged(dir, err))?;
            scores.write(&Score(1.0)).map_err(|err| damaged(dir, err))?;
            *accepted += 1;
        }
        Ok(())
    };
    let mut last: Option<Edge> = None;
    let mut cached_a: Option<(
        u64,
        ndd_minhash::MinHashSignature,
        Option<ndd_core::FeatureSet>,
    )> = None;
    job.progress.start(Stage::Verify, None);
    for e in candidates.merge().map_err(|e| damaged(dir, e))? {
        let e = e.map_err(|e| damaged(dir, e))?;
        if last == Some(e) {
            continue;
        }
        last = Some(e);
        checked += 1;
        if checked % 65_536 == 0 {
            job.progress.advance(Stage::Verify, 65_536);
        }
        if cached_a.as_ref().is_none_or(|c| c.0 != e.a) {
            cached_a = Some((e.a, sigs.get(e.a)?, None));
        }
        let Some((_, sig_a, set_a)) = cached_a.as_mut() else {
            continue;
        };
        let est = sig_a.similarity(&sigs.get(e.b)?)?.value();
        if est < floor {
            continue;
        }
        let score = match (&job.verifier, &mut sets) {
            (Verifier::ExactJaccard | Verifier::Containment, Some(sets)) => {
                if set_a.is_none() {
                    *set_a = Some(sets.get(e.a)?);
                }
                let (a, b) = (
                    set_a.as_ref().map_or(&[][..], |s| s.as_slice()),
                    sets.get(e.b)?,
                );
                if matches!(job.verifier, Verifier::ExactJaccard) {
                    jaccard(a, b.as_slice())
                } else {
                    crate::verify::containment_of_smaller(a, b.as_slice())
                }
            }
            _ => est,
        };
        if score < t {
            continue;
        }
        flush_exact(Some(e), &mut out, &mut scores, &mut accepted)?;
        accepted += 1;
        out.write(&e).map_err(|err| damaged(dir, err))?;
        scores
            .write(&Score(score))
            .map_err(|err| damaged(dir, err))?;
    }
    flush_exact(None, &mut out, &mut scores, &mut accepted)?;
    job.progress.finish(Stage::Verify);
    scores.finish().map_err(|e| damaged(dir, e))?;
    out.finish().map_err(|e| damaged(dir, e))?;
    let size = |p: &std::path::Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(|e| Error::io(p, e))
    };
    let bytes_written = size(&pairs_path)? + size(&scores_path)?;
    Ok(Verified {
        checked,
        pairs: accepted,
        bytes_written,
    })
}

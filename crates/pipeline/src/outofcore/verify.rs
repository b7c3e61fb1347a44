//! Stage 4: each distinct candidate pair, in order, scored as the in-memory run scores
//! it: the method's score from the two signatures (the MinHash estimate, or SimHash's
//! `1 − h/64`), then (for the exact verifiers) the measure of the two shingle sets,
//! or (for the alignment and custom verifiers) the in-memory verification stage over
//! the two texts (for align-weighted, with the weights of the weights stage's
//! document frequencies). Accepted pairs, merged in order with the exact copies' pairs (score
//! 1), go to `pairs.bin` (edges, `a < b`) with their scores in `scores.bin` (score
//! records, same order).

use ndd_align::TokenOptions;
use ndd_core::ScoredPair;
use ndd_scale::{Edge, RecordError, RecordWriter, Score, SortedRuns};

use super::blocks::{block_text_bytes, map_in_order};
use super::indexed::{Sets, SetsRead, Texts};
use super::manifest::Marker;
use super::sketch::Signatures;
use super::weights::Weights;
use super::{EXACT, Job, PAIRS, SCORES, damaged, file_size};
use crate::progress::{NoProgress, Stage};
use crate::{Error, Verifier};

/// Runs the stage over the candidate pairs of `documents` documents: its marker
/// (`checked`: distinct candidates; `verified`: those whose estimate reached the
/// plausible floor, then verified; `pairs`: accepted, the exact copies' included) and
/// the bytes it wrote.
pub(super) fn run(
    job: &Job<'_>,
    candidates: &SortedRuns<Edge, (u64, u64)>,
    documents: u64,
    signature_len: u64,
    [exact_fingerprint, weights_fingerprint]: [u64; 2],
    fingerprint: u64,
) -> Result<(Marker, u64), Error> {
    let dir = job.dir;
    let weights = match job.verifier {
        Verifier::AlignWeighted => Some(Weights::open(job, weights_fingerprint)?),
        _ => None,
    };
    let sigs = Signatures::open(job, signature_len)?;
    let sets = if job.needs_sets {
        Some(Sets::open(dir, job.budget / 8)?)
    } else {
        None
    };
    let texts = if job.needs_texts {
        Some(Texts::open(dir, job.budget / 8)?)
    } else {
        None
    };
    let pairs_path = dir.join(PAIRS);
    let mut out =
        RecordWriter::<Edge>::create(&pairs_path, fingerprint).map_err(|e| damaged(dir, e))?;
    let scores_path = dir.join(SCORES);
    let mut scores =
        RecordWriter::<Score>::create(&scores_path, fingerprint).map_err(|e| damaged(dir, e))?;
    let t = job.threshold.get();
    // The lowest method score a candidate goes on to verification with, and the
    // lowest final score accepted: as in memory, MinHash candidates past the
    // estimate's floor for the plan, then scores at least T; every SimHash candidate
    // (each is within the Hamming bound), its own score accepted whatever T.
    let (floor, accept) = match job.max_hamming {
        None => (
            crate::candidates::estimate::floor(job.emit, job.threshold, job.num_perm),
            t,
        ),
        Some(_) if matches!(job.verifier, Verifier::MethodScore) => {
            (f64::NEG_INFINITY, f64::NEG_INFINITY)
        }
        Some(_) => (f64::NEG_INFINITY, t),
    };
    let (mut checked, mut verified, mut accepted) = (0u64, 0u64, 0u64);
    let exact_path = dir.join(EXACT);
    let mut exact = ndd_scale::RecordReader::<Edge, _>::open(&exact_path)
        .and_then(|r| r.expect_fingerprint(exact_fingerprint))
        .map_err(|e| damaged(&exact_path, e))?
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
                        Some(Err(e)) => Err(damaged(&exact_path, e)),
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
    // Candidates are verified a block at a time: each document of a block is read
    // once (its signature, then its set or text if an estimate kept one of its pairs),
    // in position order, and the block's pairs are scored in parallel under `rayon`.
    // The next block is made ready (the candidates' merge, the estimates, the reads)
    // on a thread of its own while this thread scores and writes the current one: two
    // blocks are held at once, each of half the share one block had alone.
    job.progress.start(Stage::Verify, None);
    let candidates = candidates.merge_to_end().map_err(|e| damaged(dir, e))?;
    let source = Source {
        floor,
        signature_len,
        sigs: sigs.as_ref(),
        sets: sets.as_ref(),
        texts: texts.as_ref(),
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Ready, Error>>(0);
    std::thread::scope(|s| -> Result<(), Error> {
        s.spawn(move || {
            let made = ready_blocks(job, candidates, documents, source, |ready| {
                tx.send(Ok(ready)).is_ok()
            });
            if let Err(e) = made {
                // The scoring loop stops at the error (or stopped already).
                let _ = tx.send(Err(e));
            }
        });
        // Dropping `rx` on an error stops the reading thread at its next send.
        for ready in rx {
            let Ready {
                block,
                estimates,
                within,
                read,
            } = ready?;
            checked += block.len() as u64;
            job.progress.advance(Stage::Verify, block.len() as u64);
            verified += estimates.iter().filter(|s| s.is_some()).count() as u64;
            let scored = measure_block(job, estimates, &within, read, weights.as_ref())?;
            for (e, score) in block.iter().zip(scored) {
                let Some(score) = score.filter(|&s| s >= accept) else {
                    continue;
                };
                flush_exact(Some(*e), &mut out, &mut scores, &mut accepted)?;
                accepted += 1;
                out.write(e).map_err(|err| damaged(dir, err))?;
                scores
                    .write(&Score(score))
                    .map_err(|err| damaged(dir, err))?;
            }
        }
        Ok(())
    })?;
    flush_exact(None, &mut out, &mut scores, &mut accepted)?;
    job.progress.finish(Stage::Verify);
    scores.finish().map_err(|e| damaged(dir, e))?;
    out.finish().map_err(|e| damaged(dir, e))?;
    let bytes_written = file_size(&pairs_path)? + file_size(&scores_path)?;
    let marker = Marker::default()
        .with("checked", checked)
        .with("verified", verified)
        .with("pairs", accepted);
    Ok((marker, bytes_written))
}

/// How a verification block is cut by its bytes: a document's bytes, the bytes of
/// many documents (appended in order to the vector given), the block's limit, and the
/// bytes of a pair.
type CutBy<'a> = (
    &'a dyn Fn(u64) -> Result<u64, Error>,
    &'a dyn Fn(&[u64], &mut Vec<u64>) -> Result<(), Error>,
    u64,
    u64,
);

/// Candidates taken from the merge at once ahead of a block's cut: the bytes of their
/// later documents are looked up together ([`Sets::lens`]), their cache misses
/// overlapping (one at a time, between the merge's steps, they took 5.6% of
/// verification's samples at 1M).
const AHEAD: usize = 4096;

/// What a verification block reads beside its candidates: the plausible floor of the
/// method's score, the signatures (of `signature_len` bytes), and the shingle sets (the exact verifiers) or the
/// texts (the alignment and custom verifiers).
#[derive(Clone, Copy)]
struct Source<'a> {
    floor: f64,
    /// The bytes of a signature.
    signature_len: u64,
    sigs: Option<&'a Signatures>,
    sets: Option<&'a Sets>,
    texts: Option<&'a Texts>,
}

/// A block made ready for scoring: its distinct candidate pairs in order, their
/// method scores (`None` below the floor), each pair's two places among the documents
/// of the pairs an estimate kept (in position order; unused for a pair not kept) and
/// what the verifier reads of those documents.
struct Ready {
    block: Vec<Edge>,
    estimates: Vec<Option<f64>>,
    within: Vec<[u32; 2]>,
    read: Read,
}

/// The data of the documents of a block's pairs an estimate kept, in position order.
enum Read {
    /// The method's score decides (or its files were not kept): nothing read.
    Nothing,
    /// The shingle sets, for the exact verifiers.
    Sets(SetsRead),
    /// The texts, for the alignment and custom verifiers.
    Texts(Vec<String>),
}

/// Cuts `candidates` (the merge of the candidate runs, in order, repeats included)
/// into blocks, and hands each to `send` made ready: deduplicated, checked against
/// the `documents` documents, estimated from the signatures, its documents' sets or
/// texts read. Stops when `send` returns `false` (the scoring loop stopped).
///
/// With the sets' offsets held in memory ([`Sets::held`]), a block ends before its
/// documents' signatures and sets and its pairs pass [`block_set_bytes`]; otherwise it
/// holds at most [`block_pairs`] of half the budget, and with texts ends before its
/// texts pass half of [`block_text_bytes`]: the scoring loop holds the previous block
/// meanwhile. The documents are counted without a set of them: a block's `a` once per
/// run of its pairs, its `b` once per pair (a bound: a `b` of several pairs is
/// counted for each).
fn ready_blocks(
    job: &Job<'_>,
    mut candidates: impl Iterator<Item = Result<Edge, RecordError>>,
    documents: u64,
    source: Source<'_>,
    mut send: impl FnMut(Ready) -> bool,
) -> Result<(), Error> {
    let dir = job.dir;
    // What a block's documents hold, when blocks are cut by it: their texts, or (with
    // the sets' offsets in memory) their signatures and sets.
    let text_len = |d: u64| source.texts.map_or(Ok(0), |t| t.len(d));
    let text_lens = |docs: &[u64], out: &mut Vec<u64>| match source.texts {
        Some(t) => t.lens(docs, out),
        None => {
            out.resize(out.len() + docs.len(), 0);
            Ok(())
        }
    };
    let beside_set = source.signature_len.saturating_add(PER_DOCUMENT);
    let set_len = |d: u64| {
        let set = source.sets.map_or(Ok(0), |s| s.len(d))?;
        Ok(set.saturating_add(beside_set))
    };
    let set_lens = |docs: &[u64], out: &mut Vec<u64>| {
        let from = out.len();
        match source.sets {
            Some(s) => s.lens(docs, out)?,
            None => out.resize(from + docs.len(), 0),
        }
        for n in out.get_mut(from..).unwrap_or_default() {
            *n = n.saturating_add(beside_set);
        }
        Ok(())
    };
    let sized: Option<CutBy<'_>> = match (source.texts, source.sets) {
        (Some(_), _) => Some((&text_len, &text_lens, block_text_bytes(job.budget) / 2, 0)),
        (None, Some(sets)) if sets.held() => {
            Some((&set_len, &set_lens, block_set_bytes(job.budget), PER_PAIR))
        }
        _ => None,
    };
    // Blocks cut by their sets' bytes count their pairs' too; the others hold at most
    // `block_pairs` of half the budget.
    let block_len = match sized {
        Some((_, _, _, per_pair)) if per_pair > 0 => MAX_BLOCK_PAIRS,
        _ => block_pairs(job.budget / 2, source.signature_len),
    };
    // The candidates taken from the merge ahead of the cut (checked, repeats skipped),
    // up to `AHEAD` at a time, and (blocks cut by their bytes) the bytes of each one's
    // `b` with its pair's, looked up together; `next` is the first not yet in a block.
    let mut ahead: Vec<Edge> = Vec::with_capacity(AHEAD);
    let mut ahead_bytes: Vec<u64> = Vec::with_capacity(AHEAD);
    let mut later: Vec<u64> = Vec::with_capacity(AHEAD);
    let mut next = 0usize;
    let mut merged = false;
    let mut last: Option<Edge> = None;
    loop {
        let mut block: Vec<Edge> = Vec::with_capacity(block_len.min(1 << 16));
        let mut held = 0u64;
        loop {
            if next == ahead.len() {
                ahead.clear();
                ahead_bytes.clear();
                next = 0;
                while !merged && ahead.len() < AHEAD {
                    let Some(e) = candidates.next() else {
                        merged = true;
                        break;
                    };
                    let e = e.map_err(|e| damaged(dir, e))?;
                    // The merge yields a run's records before its checksum is checked:
                    // a pair naming a document past the last (a damaged run) is refused
                    // as a damaged candidate run before any file is read at its
                    // positions.
                    if e.a.max(e.b) >= documents {
                        return Err(damaged(
                            dir,
                            RecordError::Corrupt {
                                reason: format!(
                                    "candidate pair ({}, {}) names a document beyond the {documents} documents",
                                    e.a, e.b
                                ),
                            },
                        ));
                    }
                    // Runs repeat a pair that several buckets proposed.
                    if last == Some(e) {
                        continue;
                    }
                    last = Some(e);
                    ahead.push(e);
                }
                if ahead.is_empty() {
                    break;
                }
                if let Some((_, lens, _, per_pair)) = sized {
                    later.clear();
                    later.extend(ahead.iter().map(|e| e.b));
                    lens(&later, &mut ahead_bytes)?;
                    for n in &mut ahead_bytes {
                        *n = n.saturating_add(per_pair);
                    }
                }
            }
            let e = ahead[next];
            if let Some((len, _, limit, _)) = sized {
                // The pairs come in order: `a` once per run of its pairs.
                let mut more = ahead_bytes[next];
                if block.last().is_none_or(|p| p.a != e.a) {
                    more = more.saturating_add(len(e.a)?);
                }
                if !block.is_empty() && held.saturating_add(more) > limit {
                    break;
                }
                held = held.saturating_add(more);
            }
            next += 1;
            block.push(e);
            if block.len() == block_len {
                break;
            }
        }
        if block.is_empty() {
            return Ok(());
        }
        let places = places(&block);
        let estimates = estimate_block(job, &places, source.floor, source.sigs)?;
        let (needed, within) = needed_of(&places, &estimates);
        drop(places);
        let read = match (job.verifier, source.sets, source.texts) {
            (Verifier::ExactJaccard | Verifier::Containment, Some(sets), _) => {
                Read::Sets(sets.get_many(&needed)?)
            }
            (
                Verifier::Align(_) | Verifier::Custom(_) | Verifier::AlignWeighted,
                _,
                Some(texts),
            ) => Read::Texts(texts.get_many(&needed)?),
            _ => Read::Nothing,
        };
        let ready = Ready {
            block,
            estimates,
            within,
            read,
        };
        if !send(ready) {
            return Ok(());
        }
    }
}

/// The bytes a verification block's document is counted for beside its signature and
/// set when blocks are cut by their sets ([`block_set_bytes`]): the vectors' headers,
/// its position in the block's lists.
const PER_DOCUMENT: u64 = 64;

/// The bytes a verification block's pair is counted for when blocks are cut by their
/// sets: the pair, its estimate, its place in the scoring loop's list and its score.
const PER_PAIR: u64 = 64;

/// The most pairs of a block cut by its sets' bytes (which count the pairs' bytes too).
const MAX_BLOCK_PAIRS: usize = 1 << 20;

/// The bytes of one verification block when the sets' offsets are held in memory:
/// three eighths of the budget, counting each distinct document's signature, set
/// ([`PER_DOCUMENT`] more) and each pair ([`PER_PAIR`]): with the block scored
/// meanwhile, three quarters, beside the offsets' eighth
/// ([`Sets::open`]'s share). Every document's set is counted, although only those of
/// the pairs past the estimate's floor are read: a bound, not an estimate.
fn block_set_bytes(budget: u64) -> u64 {
    budget / 8 * 3
}

/// Pairs per verification block: the block's documents (at most two per pair) hold a
/// signature each and, for the exact verifiers, a set of about the same size, within a
/// quarter of the memory budget; at least 128, at most 65,536 pairs.
fn block_pairs(budget: u64, signature_len: u64) -> usize {
    let per_pair = signature_len.max(1).saturating_mul(4);
    let pairs = (budget / 4 / per_pair).clamp(128, 65_536);
    usize::try_from(pairs).unwrap_or(65_536)
}

/// A block's distinct documents, in position order, and each of its pairs' two places
/// among them.
struct Places {
    docs: Vec<u64>,
    of: Vec<[u32; 2]>,
}

/// The [`Places`] of `block`'s pairs (in order, so their `a`s come in order): only the
/// `b`s are sorted (each with its pair), then merged with the `a`s, each document
/// given its place as it is taken, where a sort of every pair's two documents and two
/// binary searches per pair found them before. (A damaged run's pairs out of order,
/// refused at its checksum, give a document two places: nothing misread.)
fn places(block: &[Edge]) -> Places {
    let mut later: Vec<(u64, usize)> = block.iter().enumerate().map(|(i, e)| (e.b, i)).collect();
    later.sort_unstable_by_key(|&(b, _)| b);
    let mut docs: Vec<u64> = Vec::with_capacity(block.len() + later.len() / 2);
    let mut of = vec![[0u32; 2]; block.len()];
    // The place of `d`, taken next: the last document's when it is the same.
    let mut place = |d: u64| -> u32 {
        if docs.last() != Some(&d) {
            docs.push(d);
        }
        u32::try_from(docs.len() - 1).unwrap_or(u32::MAX)
    };
    let (mut i, mut j) = (0, 0);
    loop {
        let a = block.get(i).map(|e| e.a);
        let b = later.get(j).copied();
        match (a, b) {
            (Some(a), _) if b.is_none_or(|(b, _)| a <= b) => {
                if let Some(p) = of.get_mut(i) {
                    p[0] = place(a);
                }
                i += 1;
            }
            (_, Some((b, k))) => {
                if let Some(p) = of.get_mut(k) {
                    p[1] = place(b);
                }
                j += 1;
            }
            _ => break,
        }
    }
    Places { docs, of }
}

/// The documents of the pairs an estimate kept (`estimates`, in the order of
/// `places.of`), in position order, and each pair's two places among them (those of a
/// pair not kept are unused).
fn needed_of(places: &Places, estimates: &[Option<f64>]) -> (Vec<u64>, Vec<[u32; 2]>) {
    let mut used = vec![false; places.docs.len()];
    for (p, est) in places.of.iter().zip(estimates) {
        if est.is_some() {
            for &d in p {
                if let Some(u) = used.get_mut(d as usize) {
                    *u = true;
                }
            }
        }
    }
    let mut needed = Vec::new();
    let mut moved = vec![0u32; places.docs.len()];
    for ((&d, &u), m) in places.docs.iter().zip(&used).zip(&mut moved) {
        if u {
            *m = u32::try_from(needed.len()).unwrap_or(u32::MAX);
            needed.push(d);
        }
    }
    let to = |d: u32| moved.get(d as usize).copied().unwrap_or(0);
    let within = places.of.iter().map(|&[a, b]| [to(a), to(b)]).collect();
    (needed, within)
}

/// Each pair's method score from the two signatures (the MinHash [`EstimateFilter`]'s
/// score, SimHash's `1 − h/64`), `None` when it falls below `floor`.
///
/// [`EstimateFilter`]: crate::EstimateFilter
fn estimate_block(
    job: &Job<'_>,
    places: &Places,
    floor: f64,
    sigs: Option<&Signatures>,
) -> Result<Vec<Option<f64>>, Error> {
    let Places { docs, of } = places;
    let at = |d: u32| d as usize;
    match (job.max_hamming, sigs) {
        // Containment: every candidate goes on, its estimate unread (and unwritten).
        (None, None) => Ok(vec![Some(f64::NEG_INFINITY); of.len()]),
        (None, Some(sigs)) => {
            // The in-memory stream's filter: its floor is `floor`.
            let filter = crate::EstimateFilter::new(job.emit, job.threshold, job.num_perm);
            if job.fields.is_some() {
                // The b-bit fields the sketch stage kept in place of the signatures:
                // the fraction of equal fields, what `filter.score` counts from whole
                // signatures.
                let fields = sigs.get_many_fields(docs)?;
                return map_in_order(of, |_, &[a, b]| {
                    let (a, b) = (&fields[at(a)], &fields[at(b)]);
                    let score = a.matches(b)? as f64 / a.num_values().max(1) as f64;
                    Ok(filter.passes(score).then_some(score))
                });
            }
            let signatures = sigs.get_many(docs)?;
            map_in_order(of, |_, &[a, b]| {
                let (a, b) = (&signatures[at(a)], &signatures[at(b)]);
                let score = filter.score(a, b)?;
                Ok(filter.passes(score).then_some(score))
            })
        }
        #[cfg(feature = "simhash")]
        (Some(_), Some(sigs)) => {
            let fps = sigs.fingerprints(docs)?;
            map_in_order(of, |_, &[a, b]| {
                let diff = fps[at(a)] ^ fps[at(b)];
                let score = ndd_index::similarity_from_hamming(diff.count_ones());
                Ok((score >= floor).then_some(score))
            })
        }
        // SimHash without the feature (or, never, without its fingerprints).
        (Some(_), _) => Err(Error::Core(ndd_core::Error::invalid_parameter(
            "method",
            "SimHash needs the simhash feature",
        ))),
    }
}

/// Each pair's score as the in-memory run scores it, `None` when it is not verified
/// (`estimates` has none for it) or, for the verifiers that read texts, rejected: the
/// method's score for its own verifier (or when `read` holds nothing); the measure of
/// the two shingle sets for the exact verifiers, by the in-memory stage's scoring loop;
/// for the alignment and custom verifiers, the in-memory verification stage run over
/// the block's texts (for align-weighted, its tokens weighed by the whole corpus's
/// document frequencies, `weights`). `read` holds the data of the documents kept
/// pairs name, each pair's two places among them in `within`.
fn measure_block(
    job: &Job<'_>,
    estimates: Vec<Option<f64>>,
    within: &[[u32; 2]],
    read: Read,
    weights: Option<&Weights>,
) -> Result<Vec<Option<f64>>, Error> {
    match (job.verifier, read) {
        (Verifier::ExactJaccard | Verifier::Containment, Read::Sets(read)) => {
            // The in-memory stage's one loop over the block's sets (read ahead, tasks
            // of at most 256 pairs), the pairs in the positions of `needed`.
            let pairs = pairs_within(within, &estimates);
            let set_of = |i: usize| read.get(i);
            let kept = crate::verify::score_by_sets(
                matches!(job.verifier, Verifier::ExactJaccard),
                job.threshold.get(),
                &set_of,
                &pairs,
                &NoProgress,
            );
            Ok(scores_of(within, estimates, kept))
        }
        (Verifier::Align(_) | Verifier::Custom(_), Read::Texts(read)) => {
            let pairs = pairs_within(within, &estimates);
            let (kept, _) = crate::verify::verify(
                job.verifier,
                job.threshold,
                job.features,
                &read,
                pairs,
                &NoProgress,
            )?;
            Ok(scores_of(within, estimates, kept))
        }
        (Verifier::AlignWeighted, Read::Texts(read)) => {
            let Some(weights) = weights else {
                return Ok(estimates);
            };
            // Tokenized as the in-memory verification stage tokenizes them.
            let options = TokenOptions::default().nfkc(job.features.normalizes_nfkc());
            let tokens = map_in_order(&read, |_, t| Ok(options.tokens(t).hashes().to_vec()))?;
            let mut distinct: Vec<u64> = tokens.iter().flatten().copied().collect();
            distinct.sort_unstable();
            distinct.dedup();
            let pairs = pairs_within(within, &estimates);
            let (kept, _) = weights.with(&distinct, |w| {
                crate::verify::verify_weighted(job.threshold, &tokens, w, pairs, &NoProgress)
            })??;
            Ok(scores_of(within, estimates, kept))
        }
        _ => Ok(estimates),
    }
}

/// The block's pairs that an estimate kept, their documents by their places
/// `within` the documents read, in order: the verification stage keeps those it
/// accepts, in that order.
fn pairs_within(within: &[[u32; 2]], estimates: &[Option<f64>]) -> Vec<ScoredPair> {
    within
        .iter()
        .zip(estimates)
        .filter_map(|(&[a, b], est)| est.map(|s| ScoredPair::new(a as usize, b as usize, s)))
        .collect()
}

/// Each pair's score among `kept` (the verification stage's answer to
/// [`pairs_within`]), `None` for a pair it rejected or no estimate kept.
fn scores_of(
    within: &[[u32; 2]],
    estimates: Vec<Option<f64>>,
    kept: Vec<ScoredPair>,
) -> Vec<Option<f64>> {
    let mut kept = kept.into_iter().peekable();
    within
        .iter()
        .zip(estimates)
        .map(|(&[a, b], est)| {
            est?;
            kept.next_if(|p| (p.a, p.b) == (a as usize, b as usize))
                .map(|p| p.score)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]
    use ndd_scale::Edge;

    use super::{needed_of, places};

    /// Pairs `a < b` over `n` documents from a small generator, in order, distinct.
    fn block(pairs: usize, n: u64) -> Vec<Edge> {
        let mut x = 3u64;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 33) % n
        };
        let mut block: Vec<Edge> = (0..pairs)
            .map(|_| {
                let (a, b) = (next(), next());
                Edge {
                    a: a.min(b),
                    b: a.max(b) + u64::from(a == b),
                }
            })
            .collect();
        block.sort_unstable_by_key(|e| (e.a, e.b));
        block.dedup();
        block
    }

    #[test]
    fn places_name_each_pairs_documents_among_the_distinct_ones() {
        for (pairs, n) in [(0, 10), (1, 10), (500, 40), (3_000, 100_000)] {
            let block = block(pairs, n);
            let p = places(&block);
            // The oracle: every end, sorted and distinct.
            let mut docs: Vec<u64> = block.iter().flat_map(|e| [e.a, e.b]).collect();
            docs.sort_unstable();
            docs.dedup();
            assert_eq!(p.docs, docs);
            for (e, &[a, b]) in block.iter().zip(&p.of) {
                assert_eq!((p.docs[a as usize], p.docs[b as usize]), (e.a, e.b));
            }
            // Every third pair kept: the documents of those, each pair's places there.
            let estimates: Vec<Option<f64>> = (0..block.len())
                .map(|i| (i % 3 == 0).then_some(0.5))
                .collect();
            let (needed, within) = needed_of(&p, &estimates);
            let mut kept: Vec<u64> = block.iter().step_by(3).flat_map(|e| [e.a, e.b]).collect();
            kept.sort_unstable();
            kept.dedup();
            assert_eq!(needed, kept);
            for (e, &[a, b]) in block.iter().zip(&within).step_by(3) {
                assert_eq!((needed[a as usize], needed[b as usize]), (e.a, e.b));
            }
        }
    }

    #[test]
    fn pairs_out_of_order_still_get_their_own_documents() {
        // A damaged run's pairs, not in order: places may repeat a document, but each
        // pair's places hold its own two.
        let block: Vec<Edge> = [(5, 9), (2, 7), (5, 6), (1, 9), (5, 6)]
            .iter()
            .map(|&(a, b)| Edge { a, b })
            .collect();
        let p = places(&block);
        for (e, &[a, b]) in block.iter().zip(&p.of) {
            assert_eq!((p.docs[a as usize], p.docs[b as usize]), (e.a, e.b));
        }
        let (needed, within) = needed_of(&p, &[Some(1.0); 5]);
        for (e, &[a, b]) in block.iter().zip(&within) {
            assert_eq!((needed[a as usize], needed[b as usize]), (e.a, e.b));
        }
    }
}

//! Stage 4: each distinct candidate pair, in order, scored as the in-memory run scores
//! it: the method's score from the two signatures (the MinHash estimate, or SimHash's
//! `1 − h/64`), then (for the exact verifiers) the measure of the two shingle sets,
//! or (for the alignment and custom verifiers) the in-memory verification stage over
//! the two texts (for align-weighted, with the weights of the weights stage's
//! document frequencies). For the exact verifiers, a first pass shingles the
//! documents candidates name (`named.bin`) from `texts.bin` into `sets.bin`, which the
//! blocks read and the stage removes at its end ([`super::named::make_sets`]). Accepted pairs, merged in order with the exact copies' pairs (score
//! 1), go to `pairs.bin` (edges, `a < b`) with their scores in `scores.bin` (score
//! records, same order).

use ndd_align::TokenOptions;
use ndd_core::ScoredPair;
use ndd_scale::{Edge, RecordError, RecordWriter, Score, SortedRuns};

use super::blocks::{block_text_bytes, map_in_order};
use super::indexed::{SET_ENDS, SETS, Sets, SetsRead, Texts};
use super::manifest::Marker;
use super::named::{Named, make_sets};
use super::sketch::Signatures;
use super::weights::Weights;
use super::workdir::remove_outputs;
use super::{EXACT, Job, PAIRS, SCORES, damaged, file_size};
use crate::progress::{NoProgress, Stage};
use crate::{Error, Verifier};

/// Runs the stage over the candidate pairs of `documents` documents: its marker
/// (`checked`: distinct candidates; `verified`: those whose estimate reached the
/// plausible floor, then verified; `pairs`: accepted, the exact copies' included;
/// for the exact verifiers, `shingled`: the documents whose sets were made) and the
/// bytes it wrote (the sets' files included).
pub(super) fn run(
    job: &Job<'_>,
    candidates: &SortedRuns<Edge, (u64, u64)>,
    documents: u64,
    signature_len: u64,
    [
        exact_fingerprint,
        candidates_fingerprint,
        weights_fingerprint,
    ]: [u64; 3],
    fingerprint: u64,
) -> Result<(Marker, u64), Error> {
    let dir = job.dir;
    let weights = match job.verifier {
        Verifier::AlignWeighted => Some(Weights::open(job, weights_fingerprint)?),
        _ => None,
    };
    let sigs = Signatures::open(job, signature_len)?;
    // The exact verifiers' sets: made first from the texts of the named documents.
    let (mut sets_written, mut shingled) = (0, None);
    let sets = if job.needs_sets {
        let named = Named::load(dir, documents, candidates_fingerprint)?;
        sets_written = make_sets(job, documents, &named)?;
        shingled = Some(named.count());
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
    // on a thread of its own while this thread scores and writes the current one.
    // With the sets' offsets held in memory, a block is cut by its signatures and
    // pairs and handed on in sub-blocks cut by the kept pairs' sets (the block, the
    // sub-block being read and the one being scored: a quarter of the budget each,
    // [`ready_blocks`]); otherwise two blocks are held at once, each of half the share
    // one block had alone.
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
    let bytes_written = file_size(&pairs_path)? + file_size(&scores_path)? + sets_written;
    // The sets were this stage's alone: a later run that redoes it makes them again.
    if sets.is_some() {
        drop(sets);
        remove_outputs(dir, &[SETS, SET_ENDS])?;
    }
    let marker = Marker::default()
        .with("checked", checked)
        .with("verified", verified)
        .with("pairs", accepted);
    let marker = match shingled {
        Some(n) => marker.with("shingled", n),
        None => marker,
    };
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
/// documents' signatures and its pairs pass [`block_signature_bytes`]; it is
/// estimated, then handed on in sub-blocks ([`sub_block_ends`]), each ending before
/// the sets its estimates kept and its pairs pass [`block_set_bytes`], each sub-block's
/// sets read as it is handed on. Otherwise a block holds at most [`block_pairs`] of
/// half the budget, and with texts ends before its texts pass half of
/// [`block_text_bytes`]: the scoring loop holds the previous block meanwhile. The
/// documents are counted without a set of them: a block's `a` once per run of its
/// pairs, its `b` once per pair (a bound: a `b` of several pairs is counted for each).
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
    // With the sets' offsets held, a block is cut by its signatures (each document's
    // the same bytes), its kept pairs' sets read in sub-blocks cut by theirs.
    let signature = source.signature_len.saturating_add(PER_DOCUMENT);
    let signature_len = |_: u64| Ok(signature);
    let signature_lens = |docs: &[u64], out: &mut Vec<u64>| {
        out.resize(out.len() + docs.len(), signature);
        Ok(())
    };
    let split_by = source.sets.filter(|s| s.held() && source.texts.is_none());
    let sized: Option<CutBy<'_>> = match (source.texts, split_by) {
        (Some(_), _) => Some((&text_len, &text_lens, block_text_bytes(job.budget) / 2, 0)),
        (None, Some(_)) => Some((
            &signature_len,
            &signature_lens,
            block_signature_bytes(job.budget),
            PER_PAIR,
        )),
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
        drop(places);
        let ends = match split_by {
            Some(sets) => sub_block_ends(&block, &estimates, sets, block_set_bytes(job.budget))?,
            None => vec![block.len()],
        };
        // One sub-block takes the block as it is; several, a copy of their pairs each.
        let single = ends.len() == 1;
        let mut whole = Some((block, estimates));
        let mut start = 0;
        for end in ends {
            let (pairs, estimates) = match &whole {
                Some((block, estimates)) if !single => {
                    let range = start..end.max(start);
                    (
                        block.get(range.clone()).unwrap_or_default().to_vec(),
                        estimates.get(range).unwrap_or_default().to_vec(),
                    )
                }
                _ => whole.take().unwrap_or_default(),
            };
            start = end;
            let (needed, within) = kept_places(&pairs, &estimates);
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
                block: pairs,
                estimates,
                within,
                read,
            };
            if !send(ready) {
                return Ok(());
            }
        }
    }
}

/// Where `block`'s sub-blocks end (each the end of a run of its pairs, the last the
/// block's length): a sub-block ends before the sets of the documents of its pairs an
/// estimate kept (`estimates`), [`PER_DOCUMENT`] more each, and [`PER_PAIR`] for each
/// of its pairs pass `limit` (or at its first pair). A kept pair's `a` is counted once
/// per run of the sub-block's kept pairs, its `b` once per pair (a bound, as for a
/// block).
fn sub_block_ends(
    block: &[Edge],
    estimates: &[Option<f64>],
    sets: &Sets,
    limit: u64,
) -> Result<Vec<usize>, Error> {
    let kept = block
        .iter()
        .zip(estimates)
        .filter(|(_, est)| est.is_some())
        .flat_map(|(e, _)| [e.a, e.b]);
    let docs: Vec<u64> = kept.collect();
    let mut lens = Vec::with_capacity(docs.len());
    sets.lens(&docs, &mut lens)?;
    let mut lens = lens.chunks_exact(2);
    let mut ends = Vec::new();
    let (mut start, mut held, mut last_a) = (0usize, 0u64, None);
    for (i, (e, est)) in block.iter().zip(estimates).enumerate() {
        // The pair's bytes, and its `a`'s when it starts a run of kept pairs.
        let (mut more, mut a_more) = (PER_PAIR, 0);
        if est.is_some()
            && let Some(&[a, b]) = lens.next()
        {
            more = more.saturating_add(b).saturating_add(PER_DOCUMENT);
            a_more = a.saturating_add(PER_DOCUMENT);
        }
        let mut with_a = if last_a == Some(e.a) {
            more
        } else {
            more.saturating_add(a_more)
        };
        if i > start && held.saturating_add(with_a) > limit {
            ends.push(i);
            (start, held, last_a) = (i, 0, None);
            with_a = more.saturating_add(a_more);
        }
        held = held.saturating_add(with_a);
        if est.is_some() {
            last_a = Some(e.a);
        }
    }
    ends.push(block.len());
    Ok(ends)
}

/// The bytes a verification block's document is counted for beside its signature
/// ([`block_signature_bytes`]) or its set ([`block_set_bytes`]): the vectors' headers,
/// its position in the block's lists.
const PER_DOCUMENT: u64 = 64;

/// The bytes a verification block's or sub-block's pair is counted for when blocks are
/// cut by their signatures: the pair, its estimate, its places and its score.
const PER_PAIR: u64 = 64;

/// The most pairs of a block cut by its signatures' bytes (which count the pairs' bytes
/// too).
const MAX_BLOCK_PAIRS: usize = 1 << 20;

/// The bytes of one verification block when the sets' offsets are held in memory: a
/// quarter of the budget, counting each document's signature ([`PER_DOCUMENT`] more)
/// and each pair ([`PER_PAIR`]). The signatures are dropped once the block is
/// estimated; its pairs and their estimates are held while its sub-blocks are read
/// ([`block_set_bytes`] each) and handed on.
fn block_signature_bytes(budget: u64) -> u64 {
    budget / 4
}

/// The bytes of one sub-block of a verification block ([`sub_block_ends`]): a quarter
/// of the budget, counting the sets of the documents of its pairs past the estimate's
/// floor (only those are read; [`PER_DOCUMENT`] more each) and each of its pairs
/// ([`PER_PAIR`]). The block being cut ([`block_signature_bytes`]), the sub-block being
/// read and the one scored meanwhile are held at once: three quarters of the budget,
/// beside the offsets' eighth ([`Sets::open`]'s share).
fn block_set_bytes(budget: u64) -> u64 {
    budget / 4
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

/// The documents of `block`'s pairs an estimate kept (`estimates`), in position
/// order, and each pair's two places among them (`[0, 0]` for a pair not kept): the
/// [`places`] of the kept pairs alone.
fn kept_places(block: &[Edge], estimates: &[Option<f64>]) -> (Vec<u64>, Vec<[u32; 2]>) {
    let kept: Vec<Edge> = block
        .iter()
        .zip(estimates)
        .filter(|(_, est)| est.is_some())
        .map(|(e, _)| *e)
        .collect();
    let Places { docs, of } = places(&kept);
    let mut of = of.into_iter();
    let within = estimates
        .iter()
        .map(|est| match est {
            Some(_) => of.next().unwrap_or_default(),
            None => [0, 0],
        })
        .collect();
    (docs, within)
}

/// The documents of the pairs an estimate kept (`estimates`, in the order of
/// `places.of`), in position order, and each pair's two places among them (those of a
/// pair not kept are unused).
#[cfg(test)]
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
    // Only SimHash's fingerprints are compared with the floor here (MinHash's filter
    // knows its own).
    #[cfg(not(feature = "simhash"))]
    let _ = floor;
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

    use super::super::indexed::{SET_ENDS, SETS, Sets};
    use super::{
        PER_DOCUMENT, PER_PAIR, kept_places, needed_of, pairs_within, places, scores_of,
        sub_block_ends,
    };
    use crate::progress::NoProgress;

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

    /// Sets of `n` documents over a small universe (so that pairs share values), each
    /// sorted and distinct, some empty, and the folder holding them as verification's
    /// sets pass writes them (`sets.bin`, `sets.idx`: each set's end in values).
    fn sets(n: u64) -> (Vec<Vec<u64>>, tempfile::TempDir) {
        let sets: Vec<Vec<u64>> = (0..n)
            .map(|d| {
                let keep = (d / 3) % 5;
                (0..24 + d % 40)
                    .filter(|v| (v * 7 + d) % 5 != keep || (d % 11 == 0 && v % 2 == 0))
                    .filter(|_| d % 13 != 12)
                    .collect()
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let values: Vec<u8> = sets
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut end = 0u64;
        let ends: Vec<u8> = sets
            .iter()
            .flat_map(|s| {
                end += s.len() as u64;
                end.to_le_bytes()
            })
            .collect();
        std::fs::write(dir.path().join(SETS), values).unwrap();
        std::fs::write(dir.path().join(SET_ENDS), ends).unwrap();
        (sets, dir)
    }

    /// The bytes a sub-block of `pairs` is counted for, the slow way: each pair's, each
    /// kept pair's `b`'s set, and its `a`'s set where the kept pair before it in the
    /// sub-block has another `a`.
    fn counted(pairs: &[Edge], estimates: &[Option<f64>], sets: &[Vec<u64>]) -> u64 {
        let bytes = |d: u64| 8 * sets[d as usize].len() as u64 + PER_DOCUMENT;
        let mut last_a = None;
        let mut total = 0;
        for (e, est) in pairs.iter().zip(estimates) {
            total += PER_PAIR;
            if est.is_some() {
                total += bytes(e.b);
                if last_a != Some(e.a) {
                    total += bytes(e.a);
                }
                last_a = Some(e.a);
            }
        }
        total
    }

    #[test]
    fn sub_blocks_are_the_longest_runs_within_the_limit_and_score_as_one_block() {
        let n = 300;
        let (want_sets, dir) = sets(n);
        let sets = Sets::open(dir.path(), u64::MAX).unwrap();
        assert!(sets.held());
        let block = block(2_000, n);
        let estimates: Vec<Option<f64>> = (0..block.len())
            .map(|i| (i % 4 != 1).then_some(0.5))
            .collect();
        // The oracle's score of a pair: the Jaccard similarity of the two sets, the
        // slow way; accepted at 0.3 or more.
        let jaccard = |e: &Edge| {
            let (a, b) = (&want_sets[e.a as usize], &want_sets[e.b as usize]);
            let common = a.iter().filter(|v| b.contains(v)).count();
            let union = a.len() + b.len() - common;
            if union == 0 {
                1.0
            } else {
                common as f64 / union as f64
            }
        };
        let want: Vec<Option<f64>> = block
            .iter()
            .zip(&estimates)
            .map(|(e, est)| est.map(|_| jaccard(e)).filter(|&s| s >= 0.3))
            .collect();
        assert!(want.iter().filter(|s| s.is_some()).count() > 50);
        for limit in [0, 1_000, 10_000, 100_000, u64::MAX] {
            let ends = sub_block_ends(&block, &estimates, &sets, limit).unwrap();
            assert_eq!(ends.last(), Some(&block.len()));
            let mut start = 0;
            let mut scored = Vec::new();
            for &end in &ends {
                assert!(end > start, "limit {limit}: an empty sub-block");
                let (pairs, est) = (&block[start..end], &estimates[start..end]);
                // Within the limit (or a single pair), and the next pair would pass it.
                assert!(end - start == 1 || counted(pairs, est, &want_sets) <= limit);
                if end < block.len() {
                    let more = (&block[start..=end], &estimates[start..=end]);
                    assert!(counted(more.0, more.1, &want_sets) > limit, "limit {limit}");
                }
                // The sub-block scored on its own, as the scoring loop scores it.
                let (needed, within) = kept_places(pairs, est);
                let read = sets.get_many(&needed).unwrap();
                let set_of = |i: usize| read.get(i);
                let candidates = pairs_within(&within, est);
                let kept =
                    crate::verify::score_by_sets(true, 0.3, &set_of, &candidates, &NoProgress);
                scored.extend(scores_of(&within, est.to_vec(), kept));
                start = end;
            }
            if limit == u64::MAX {
                assert_eq!(ends.len(), 1);
            } else if limit <= 10_000 {
                assert!(ends.len() > 4, "limit {limit}: {} sub-blocks", ends.len());
            }
            assert_eq!(scored.len(), want.len());
            for (i, (got, want)) in scored.iter().zip(&want).enumerate() {
                match (got, want) {
                    (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "pair {i}: {g} {w}"),
                    (None, None) => {}
                    _ => panic!("limit {limit}, pair {i}: {got:?} against {want:?}"),
                }
            }
        }
    }

    #[test]
    fn kept_places_are_the_places_of_the_kept_pairs_among_all() {
        for (pairs, n) in [(0, 10), (1, 10), (700, 50), (3_000, 100_000)] {
            let block = block(pairs, n);
            for every in [1, 2, 5] {
                let estimates: Vec<Option<f64>> = (0..block.len())
                    .map(|i| (i % every == 0).then_some(0.5))
                    .collect();
                let (needed, within) = kept_places(&block, &estimates);
                let (want_needed, want_within) = needed_of(&places(&block), &estimates);
                assert_eq!(needed, want_needed);
                for ((got, want), est) in within.iter().zip(&want_within).zip(&estimates) {
                    if est.is_some() {
                        assert_eq!(got, want);
                    }
                }
            }
        }
    }
}

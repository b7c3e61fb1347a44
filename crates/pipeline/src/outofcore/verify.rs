//! Stage 4: each distinct candidate pair, in order, scored as the in-memory run scores
//! it: the method's score from the two signatures (the MinHash estimate, or SimHash's
//! `1 − h/64`), then (for the exact verifiers) the measure of the two shingle sets,
//! or (for the alignment and custom verifiers) the in-memory verification stage over
//! the two texts (for align-weighted, with the weights of the weights stage's
//! document frequencies). When the input can be read again by position, the set
//! verifiers and the alignment and custom verifiers read the texts of a block's
//! documents from it instead (by the byte ranges of `spans.bin`) and run the in-memory
//! verification stage over them (which shingles them for the set verifiers, as in
//! memory). Accepted pairs, merged in order with the exact copies' pairs (score
//! 1), go to `pairs.bin` (edges, `a < b`) with their scores in `scores.bin` (score
//! records, same order).

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use ndd_align::TokenOptions;
use ndd_core::{FeatureSet, ScoredPair};
use ndd_scale::{Edge, RecordWriter, Score, SortedRuns};

use super::blocks::{block_text_bytes, map_in_order};
use super::manifest::Marker;
use super::sketch::{Sets, Signatures, Spans, Texts};
use super::weights::Weights;
use super::{EXACT, InputTexts, Job, PAIRS, SCORES, damaged, file_size};
use crate::progress::{NoProgress, Stage};
use crate::{Error, Verifier};

/// Runs the stage: its marker (`checked`: distinct candidates; `verified`: those whose
/// estimate reached the plausible floor, then verified; `pairs`: accepted, the exact
/// copies' included) and the bytes it wrote.
pub(super) fn run(
    job: &Job<'_>,
    candidates: &SortedRuns<Edge, (u64, u64)>,
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
    let sets = if job.needs_sets && !job.rereads() {
        Some(Sets::open(dir)?)
    } else {
        None
    };
    // Where the texts come from: the sketch stage's `texts.bin`, or the input read
    // again by the byte ranges of `spans.bin` (then for the set verifiers too).
    // The set verifiers' sets made from the texts read again: kept from block to
    // block within a quarter of the budget.
    let mut made = (job.needs_sets && job.rereads()).then(|| MadeSets {
        sets: BTreeMap::new(),
        bytes: 0,
        cap: job.budget / 4,
        block: 0,
    });
    let texts = match job.input {
        Some(input) => Some(TextSource::Input {
            // Held whole within an eighth of the budget (16 bytes per document).
            spans: Spans::open(dir, job.budget / 8)?,
            input,
        }),
        None if job.needs_texts => Some(TextSource::Kept(Texts::open(dir)?)),
        None => None,
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
            crate::candidates::minhash::floor(job.emit, job.threshold, job.num_perm),
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
    // With texts, a block also ends before its texts pass their share of the budget
    // (texts read again for the set verifiers: twice that share, the texts and their
    // sets about as large as alignment's texts prepared).
    let block_len = block_pairs(job.budget, signature_len);
    let text_bytes = match job.needs_sets {
        true => block_text_bytes(job.budget).saturating_mul(2),
        false => block_text_bytes(job.budget),
    };
    let mut block: Vec<Edge> = Vec::with_capacity(block_len);
    let mut last: Option<Edge> = None;
    let mut pending: Option<Edge> = None;
    // The block's documents, each with its byte range in the input when it is read
    // again from there (0..0 otherwise).
    let mut block_docs: HashMap<u64, Range<u64>> = HashMap::new();
    job.progress.start(Stage::Verify, None);
    let mut candidates = candidates.merge().map_err(|e| damaged(dir, e))?;
    loop {
        block.clear();
        block_docs.clear();
        let mut held = 0u64;
        loop {
            let e = match pending.take() {
                Some(e) => e,
                None => match candidates.next() {
                    Some(e) => e.map_err(|e| damaged(dir, e))?,
                    None => break,
                },
            };
            // Runs repeat a pair that several buckets proposed (a pending pair is
            // never the last one taken).
            if last == Some(e) {
                continue;
            }
            if let Some(texts) = &texts {
                let mut more = Vec::with_capacity(2);
                for d in [e.a, e.b] {
                    if !block_docs.contains_key(&d) && more.iter().all(|(m, _)| *m != d) {
                        more.push((d, texts.span(d)?));
                    }
                }
                let bytes = more.iter().map(|(_, r)| r.end - r.start).sum::<u64>();
                if !block.is_empty() && held.saturating_add(bytes) > text_bytes {
                    pending = Some(e);
                    break;
                }
                held = held.saturating_add(bytes);
                block_docs.extend(more);
            }
            last = Some(e);
            block.push(e);
            if block.len() == block_len {
                break;
            }
        }
        if block.is_empty() {
            break;
        }
        checked += block.len() as u64;
        job.progress.advance(Stage::Verify, block.len() as u64);
        let estimates = estimate_block(job, &block, floor, sigs.as_ref())?;
        verified += estimates.iter().filter(|s| s.is_some()).count() as u64;
        let read = Read {
            sets: sets.as_ref(),
            made: made.as_mut(),
            texts: texts.as_ref().map(|t| (t, &block_docs)),
            weights: weights.as_ref(),
        };
        let scored = measure_block(job, &block, estimates, read)?;
        if let (Some(made), Some(last)) = (made.as_mut(), block.last()) {
            made.forget(last.a);
        }
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

/// Pairs per verification block: the block's documents (at most two per pair) hold a
/// signature each and, for the exact verifiers, a set of about the same size, within a
/// quarter of the memory budget; at least 128, at most 65,536 pairs.
fn block_pairs(budget: u64, signature_len: u64) -> usize {
    let per_pair = signature_len.max(1).saturating_mul(4);
    let pairs = (budget / 4 / per_pair).clamp(128, 65_536);
    usize::try_from(pairs).unwrap_or(65_536)
}

/// The distinct documents of `pairs` (both ends of those `keep` selects), in position
/// order.
fn documents_of(pairs: &[Edge], keep: impl Fn(usize) -> bool) -> Vec<u64> {
    let mut docs: Vec<u64> = pairs
        .iter()
        .enumerate()
        .filter(|&(i, _)| keep(i))
        .flat_map(|(_, e)| [e.a, e.b])
        .collect();
    docs.sort_unstable();
    docs.dedup();
    docs
}

/// The position of document `d` in `docs` (sorted, holding it).
fn at(docs: &[u64], d: u64) -> usize {
    docs.binary_search(&d).unwrap_or(0)
}

/// Each pair's method score from the two signatures (the MinHash [`EstimateFilter`]'s
/// score, SimHash's `1 − h/64`), `None` when it falls below `floor`.
///
/// [`EstimateFilter`]: crate::EstimateFilter
fn estimate_block(
    job: &Job<'_>,
    block: &[Edge],
    floor: f64,
    sigs: Option<&Signatures>,
) -> Result<Vec<Option<f64>>, Error> {
    let docs = documents_of(block, |_| true);
    match (job.max_hamming, sigs) {
        // Containment: every candidate goes on, its estimate unread (and unwritten).
        (None, None) => Ok(vec![Some(f64::NEG_INFINITY); block.len()]),
        (None, Some(sigs)) => {
            // The in-memory stream's filter: its floor is `floor`.
            let filter = crate::EstimateFilter::new(job.emit, job.threshold, job.num_perm);
            if job.fields.is_some() {
                // The b-bit fields the sketch stage kept in place of the signatures:
                // the fraction of equal fields, what `filter.score` counts from whole
                // signatures.
                let fields = sigs.get_many_fields(&docs)?;
                return map_in_order(block, |_, e| {
                    let (a, b) = (&fields[at(&docs, e.a)], &fields[at(&docs, e.b)]);
                    let score = a.matches(b)? as f64 / a.num_values().max(1) as f64;
                    Ok(filter.passes(score).then_some(score))
                });
            }
            let signatures = sigs.get_many(&docs)?;
            map_in_order(block, |_, e| {
                let (a, b) = (&signatures[at(&docs, e.a)], &signatures[at(&docs, e.b)]);
                let score = filter.score(a, b)?;
                Ok(filter.passes(score).then_some(score))
            })
        }
        #[cfg(feature = "simhash")]
        (Some(_), Some(sigs)) => {
            let fps = sigs.fingerprints(&docs)?;
            map_in_order(block, |_, e| {
                let diff = fps[at(&docs, e.a)] ^ fps[at(&docs, e.b)];
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

/// What verification reads beside the signatures: the shingle sets (the exact
/// verifiers), the texts (the alignment and custom verifiers), the weights
/// (align-weighted).
struct Read<'a> {
    sets: Option<&'a Sets>,
    /// The sets made from texts read again from the input (the set verifiers when
    /// no sets were kept).
    made: Option<&'a mut MadeSets>,
    /// The texts' source, with the byte ranges of the block's documents.
    texts: Option<(&'a TextSource<'a>, &'a HashMap<u64, Range<u64>>)>,
    weights: Option<&'a Weights>,
}

/// Shingle sets made from texts read again from the input, kept from block to block:
/// blocks follow the candidates in `(a, b)` order, so that a document before the
/// current block's last first document is never needed again and is forgotten; of the
/// others, past `cap` bytes, those a block needed least recently are forgotten first.
struct MadeSets {
    /// Each document's set and the last block that needed it.
    sets: BTreeMap<u64, (FeatureSet, u64)>,
    bytes: u64,
    cap: u64,
    /// The current block's number.
    block: u64,
}

impl MadeSets {
    /// Makes the sets of `docs` (ascending) not held yet.
    fn fill(
        &mut self,
        job: &Job<'_>,
        docs: &[u64],
        texts: &TextSource<'_>,
        spans: &HashMap<u64, Range<u64>>,
    ) -> Result<(), Error> {
        self.block += 1;
        let mut missing = Vec::new();
        for &d in docs {
            match self.sets.get_mut(&d) {
                Some((_, used)) => *used = self.block,
                None => missing.push(d),
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let read = texts.get_many(&missing, spans)?;
        let read: Vec<&str> = read.iter().map(String::as_str).collect();
        let made =
            crate::sets::shingle_sets(job.features, &read, None, Stage::Verify, &NoProgress)?;
        for (d, set) in missing.into_iter().zip(made) {
            self.bytes += 8 * set.len() as u64;
            self.sets.insert(d, (set, self.block));
        }
        Ok(())
    }

    /// Document `doc`'s set (made by [`fill`](Self::fill)).
    fn get(&self, doc: u64) -> Result<&[u64], Error> {
        self.sets
            .get(&doc)
            .map(|(s, _)| s.as_slice())
            .ok_or_else(|| {
                Error::Core(ndd_core::Error::corrupt_data(format!(
                    "document {doc}'s set was not made"
                )))
            })
    }

    /// After a block whose last pair's first document is `last`: the sets of the
    /// documents before it forgotten, then, past the cap, those needed least recently.
    fn forget(&mut self, last: u64) {
        let bytes = |s: &FeatureSet| 8 * s.len() as u64;
        let kept = self.sets.split_off(&last);
        let gone = std::mem::replace(&mut self.sets, kept);
        self.bytes -= gone.values().map(|(s, _)| bytes(s)).sum::<u64>();
        if self.bytes <= self.cap {
            return;
        }
        let mut by_use: Vec<(u64, u64)> = self.sets.iter().map(|(&d, (_, u))| (*u, d)).collect();
        by_use.sort_unstable();
        for (_, d) in by_use {
            if self.bytes <= self.cap {
                break;
            }
            if let Some((set, _)) = self.sets.remove(&d) {
                self.bytes -= bytes(&set);
            }
        }
    }
}

/// Where verification reads documents' texts: the sketch stage's `texts.bin`, or the
/// input again, by the byte ranges the sketch stage kept in `spans.bin`.
enum TextSource<'a> {
    Kept(Texts),
    Input {
        spans: Spans,
        input: &'a dyn InputTexts,
    },
}

impl TextSource<'_> {
    /// Where document `doc`'s text lies: in `texts.bin`, `0..` its length; in the
    /// input, its byte range there. Its length is what holding it costs (in the input,
    /// at least the text's).
    fn span(&self, doc: u64) -> Result<Range<u64>, Error> {
        match self {
            TextSource::Kept(texts) => texts.len(doc).map(|n| 0..n),
            TextSource::Input { spans, .. } => spans.get(doc),
        }
    }

    /// The texts of `docs` (ascending), in order; `block` holds their byte ranges in
    /// the input (as [`span`](Self::span) gave them).
    fn get_many(
        &self,
        docs: &[u64],
        block: &HashMap<u64, Range<u64>>,
    ) -> Result<Vec<String>, Error> {
        match self {
            TextSource::Kept(texts) => texts.get_many(docs),
            TextSource::Input { spans, input } => {
                let ranges = docs
                    .iter()
                    .map(|d| block.get(d).cloned().map_or_else(|| spans.get(*d), Ok))
                    .collect::<Result<Vec<_>, Error>>()?;
                let texts = input.texts(&ranges)?;
                if texts.len() != ranges.len() {
                    return Err(Error::Core(ndd_core::Error::invalid_input(format!(
                        "the input gave {} texts for {} documents read again: it changed \
                         since the stages read it; remove the work directory to start over",
                        texts.len(),
                        ranges.len()
                    ))));
                }
                Ok(texts)
            }
        }
    }
}

/// Each pair's score as the in-memory run scores it, `None` when it is not verified
/// (`estimates` has none for it) or, for the verifiers that read texts, rejected: the
/// method's score for its own verifier; the measure of the two shingle sets for the
/// exact verifiers; for the alignment and custom verifiers, the in-memory verification
/// stage run over the block's texts (for align-weighted, its tokens weighed by the
/// whole corpus's document frequencies).
fn measure_block(
    job: &Job<'_>,
    block: &[Edge],
    estimates: Vec<Option<f64>>,
    Read {
        sets,
        made,
        texts,
        weights,
    }: Read<'_>,
) -> Result<Vec<Option<f64>>, Error> {
    let needed = documents_of(block, |i| estimates[i].is_some());
    match job.verifier {
        Verifier::ExactJaccard | Verifier::Containment => {
            let jaccard_verifier = matches!(job.verifier, Verifier::ExactJaccard);
            let Some(sets) = sets else {
                // No sets kept: the texts read again from the input and shingled as
                // the in-memory verification stage shingles them, each set kept for
                // the later blocks that may need it.
                let (Some((texts, spans)), Some(made)) = (texts, made) else {
                    return Ok(estimates);
                };
                made.fill(job, &needed, texts, spans)?;
                let made = &*made;
                return map_in_order(block, |i, e| {
                    if estimates[i].is_none() {
                        return Ok(None);
                    }
                    let (a, b) = (made.get(e.a)?, made.get(e.b)?);
                    Ok(Some(crate::verify::set_measure(jaccard_verifier, a, b)))
                });
            };
            let read = sets.get_many(&needed)?;
            map_in_order(block, |i, e| {
                if estimates[i].is_none() {
                    return Ok(None);
                }
                let (a, b) = (
                    read[at(&needed, e.a)].as_slice(),
                    read[at(&needed, e.b)].as_slice(),
                );
                Ok(Some(crate::verify::set_measure(jaccard_verifier, a, b)))
            })
        }
        Verifier::Align(_) | Verifier::Custom(_) => {
            let Some((texts, spans)) = texts else {
                return Ok(estimates);
            };
            let read = texts.get_many(&needed, spans)?;
            let pairs = pairs_within(block, &estimates, &needed);
            let (kept, _) = crate::verify::verify(
                job.verifier,
                job.threshold,
                job.features,
                &read,
                pairs,
                &NoProgress,
            )?;
            Ok(scores_of(block, estimates, &needed, kept))
        }
        Verifier::AlignWeighted => {
            let (Some((texts, spans)), Some(weights)) = (texts, weights) else {
                return Ok(estimates);
            };
            let read = texts.get_many(&needed, spans)?;
            // Tokenized as the in-memory verification stage tokenizes them.
            let options = TokenOptions::default().nfkc(job.features.normalizes_nfkc());
            let tokens = map_in_order(&read, |_, t| Ok(options.tokens(t).hashes().to_vec()))?;
            let mut distinct: Vec<u64> = tokens.iter().flatten().copied().collect();
            distinct.sort_unstable();
            distinct.dedup();
            let pairs = pairs_within(block, &estimates, &needed);
            let (kept, _) = weights.with(&distinct, |w| {
                crate::verify::verify_weighted(job.threshold, &tokens, w, pairs, &NoProgress)
            })??;
            Ok(scores_of(block, estimates, &needed, kept))
        }
        Verifier::MethodScore => Ok(estimates),
    }
}

/// The block's pairs that an estimate kept, in the positions of their documents in
/// `needed`, in order: the verification stage keeps those it accepts, in that order.
fn pairs_within(block: &[Edge], estimates: &[Option<f64>], needed: &[u64]) -> Vec<ScoredPair> {
    block
        .iter()
        .zip(estimates)
        .filter_map(|(e, est)| est.map(|s| ScoredPair::new(at(needed, e.a), at(needed, e.b), s)))
        .collect()
}

/// Each pair's score among `kept` (the verification stage's answer to
/// [`pairs_within`]), `None` for a pair it rejected or no estimate kept.
fn scores_of(
    block: &[Edge],
    estimates: Vec<Option<f64>>,
    needed: &[u64],
    kept: Vec<ScoredPair>,
) -> Vec<Option<f64>> {
    let mut kept = kept.into_iter().peekable();
    block
        .iter()
        .zip(estimates)
        .map(|(e, est)| {
            est?;
            let (a, b) = (at(needed, e.a), at(needed, e.b));
            kept.next_if(|p| (p.a, p.b) == (a, b)).map(|p| p.score)
        })
        .collect()
}

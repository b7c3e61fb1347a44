//! I-Match signatures over a lexicon (from the input's own statistics or given),
//! with randomized extra lexicons; documents sharing any coordinate are pairs,
//! scored by the fraction of coordinates they share.

use ndd_core::{Error, ErrorKind, PairSink, ScoredPair, Signature};
use ndd_imatch::{
    DocumentFrequencies, IMatchSignature, IMatcher, Lexicon, Rejection, unigram_extractor,
};
use ndd_index::ExactIndex;

use super::{CandidateReport, Ctx, in_chunks, key};
use crate::IMatchConfig;
use crate::progress::Stage;

/// Most randomized extra lexicons accepted (each costs one SHA-1 per document).
pub(crate) const MAX_EXTRA_LEXICONS: usize = 30;

pub(crate) fn validate(config: &IMatchConfig) -> Result<(), Error> {
    if config.extra_lexicons > MAX_EXTRA_LEXICONS {
        return Err(Error::invalid_parameter(
            "extra_lexicons",
            format!(
                "must be at most {MAX_EXTRA_LEXICONS}, got {}",
                config.extra_lexicons
            ),
        ));
    }
    if let Some(c) = config.min_coverage {
        if !(0.0..=1.0).contains(&c) {
            return Err(Error::invalid_parameter(
                "min_coverage",
                format!("must lie in [0, 1], got {c}"),
            ));
        }
    }
    let (lo, hi) = config.nidf;
    if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) || lo >= hi {
        return Err(Error::invalid_parameter(
            "nidf",
            format!("the window must satisfy 0 <= min < max <= 1, got ({lo}, {hi})"),
        ));
    }
    Ok(())
}

pub(crate) fn run(
    config: &IMatchConfig,
    texts: &[&str],
    ctx: &Ctx<'_>,
    sink: &mut dyn PairSink,
) -> Result<CandidateReport, Error> {
    let n = texts.len() as u64;
    let (lexicon, source) = match &config.lexicon {
        Some(l) => (l.clone(), "given lexicon"),
        None => {
            let stats =
                DocumentFrequencies::from_documents(&unigram_extractor(), texts.iter().copied());
            match Lexicon::builder()
                .nidf_window(config.nidf.0, config.nidf.1)
                .build(&stats)
            {
                Ok(lex) => (lex, "lexicon from the input"),
                // Too few documents or terms for a lexicon: a documented empty result.
                Err(e) if e.kind() == ErrorKind::InvalidInput => {
                    return Ok(CandidateReport {
                        description: format!(
                            "I-Match found no lexicon in the input ({e}): no document signed"
                        ),
                        ..CandidateReport::default()
                    });
                }
                Err(e) => return Err(e),
            }
        }
    };
    let ((imatch, sigs), sketch_time) = ctx.stage(Stage::Sketch, Some(n), || {
        let mut builder = IMatcher::builder(lexicon).extra_lexicons(config.extra_lexicons);
        if let Some(c) = config.min_coverage {
            builder = builder.min_coverage(c);
        }
        let imatch = builder.build()?;
        let sigs: Vec<Result<IMatchSignature, Rejection>> =
            in_chunks(texts, Stage::Sketch, ctx.progress, |chunk| {
                #[cfg(feature = "rayon")]
                {
                    imatch.par_sign_batch(chunk)
                }
                #[cfg(not(feature = "rayon"))]
                {
                    imatch.sign_batch(chunk)
                }
            });
        Ok((imatch, sigs))
    })?;
    let signed = sigs.iter().filter(|s| s.is_ok()).count();

    let ((candidates, bytes), search_time) = ctx.stage(Stage::Candidates, Some(n), || {
        let mut index: ExactIndex<u32, IMatchSignature> = ExactIndex::new();
        for (i, s) in sigs.iter().enumerate() {
            if let Ok(sig) = s {
                index.insert(key(i), sig)?;
            }
        }
        let mut pairs = Vec::new();
        let mut failure = None;
        index.for_each_candidate_pair(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            if let (Ok(sa), Ok(sb)) = (&sigs[a], &sigs[b]) {
                match sa.similarity(sb) {
                    Ok(e) => pairs.push(ScoredPair::new(a.min(b), a.max(b), e.value())),
                    Err(e) => failure = Some(e),
                }
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        let count = pairs.len() as u64;
        for p in pairs {
            sink.push_pair(p);
        }
        let bytes = index.memory_bytes() as f64 / (signed.max(1)) as f64;
        Ok((count, bytes))
    })?;
    Ok(CandidateReport {
        description: format!(
            "I-Match with 1 + {} randomized lexicons ({source}); signed {signed} of {} \
             documents (the rest too short or with too few lexicon terms); pairs share at \
             least one of {} signatures, score = fraction shared",
            imatch.extra_lexicons(),
            texts.len(),
            imatch.extra_lexicons() + 1,
        ),
        candidates,
        emitted: 0,
        sketch_time,
        search_time,
        index_bytes_per_document: Some(bytes),
        signature_bytes_per_document: Some(21.0 * (imatch.extra_lexicons() + 1) as f64),
        bucket_scan: None,
    })
}

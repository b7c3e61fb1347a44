//! `--method imatch`: I-Match signatures (Kołcz and Chowdhury, J. Supercomputing 2008)
//! over a lexicon from the input's own collection statistics or from `--lexicon FILE`,
//! with `--lexicons K` randomized extra lexicons; documents sharing any coordinate of
//! the `(K + 1)`-tuple are pairs, scored by the fraction of coordinates they share.

use std::time::Instant;

use ndd::imatch::{
    DocumentFrequencies, IMatchSignature, IMatcher, Lexicon, Rejection, unigram_extractor,
};
use ndd::lsh::ExactIndex;
use ndd::{FeatureExtractor, Signature};

use crate::{Doc, Found, Options};

pub(crate) fn pairs(docs: &[Doc], o: &Options) -> Result<Found, String> {
    let err = |e: ndd::Error| e.to_string();
    let words = unigram_extractor();
    let t = Instant::now();
    let (lexicon, source) = match &o.imatch_lexicon {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let lex =
                Lexicon::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            (lex, format!("lexicon {}", path.display()))
        }
        None => {
            let stats =
                DocumentFrequencies::from_documents(&words, docs.iter().map(|d| d.text.as_str()));
            let lex = Lexicon::builder()
                .nidf_window(o.imatch_nidf.0, o.imatch_nidf.1)
                .build(&stats)
                .map_err(err)?;
            (lex, "lexicon from the input".to_string())
        }
    };
    let (primary, secondary, window) = (lexicon.len(), lexicon.secondary().len(), lexicon.window());
    let mut builder = IMatcher::builder(lexicon).extra_lexicons(o.imatch_lexicons);
    if let Some(c) = o.imatch_min_coverage {
        builder = builder.min_coverage(c);
    }
    let imatch = builder.build().map_err(err)?;
    let lexicon_time = t.elapsed();

    let t = Instant::now();
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    #[cfg(feature = "rayon")]
    let sigs: Vec<Result<IMatchSignature, Rejection>> = imatch.par_sign_batch(&texts);
    #[cfg(not(feature = "rayon"))]
    let sigs: Vec<Result<IMatchSignature, Rejection>> = imatch.sign_batch(&texts);
    let signed = t.elapsed();
    let (mut short, mut few, mut low) = (0usize, 0usize, 0usize);
    for s in &sigs {
        match s {
            Err(Rejection::TooShort { .. }) => short += 1,
            Err(Rejection::TooFewLexiconTerms { .. }) => few += 1,
            Err(_) => low += 1,
            Ok(_) => {}
        }
    }

    let t = Instant::now();
    let mut index: ExactIndex<u32, IMatchSignature> = ExactIndex::new();
    for (i, s) in sigs.iter().enumerate() {
        if let Ok(sig) = s {
            let key = u32::try_from(i).map_err(|_| "more than 2^32 documents".to_string())?;
            index.insert(key, sig).map_err(err)?;
        }
    }
    let mut pairs = Vec::new();
    let mut failure = None;
    index.for_each_candidate_pair(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        if let (Ok(sa), Ok(sb)) = (&sigs[a], &sigs[b]) {
            match sa.similarity(sb) {
                Ok(e) => pairs.push(ndd::ScoredPair::new(a.min(b), a.max(b), e.value())),
                Err(e) => failure = Some(e.to_string()),
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    pairs.sort_unstable_by_key(|x| (x.a, x.b));
    let indexed = t.elapsed();

    // Paper 003 §6.4 judges I-Match against the cosine of the unique-term sets, with
    // 0.9 as "near duplicate": report that for a sample of the pairs found.
    let sample_every = (pairs.len() / 2000).max(1);
    let (mut checked, mut close) = (0usize, 0usize);
    for &ndd::ScoredPair { a, b, .. } in pairs.iter().step_by(sample_every) {
        let (ta, tb) = (
            words.feature_set(&docs[a].text),
            words.feature_set(&docs[b].text),
        );
        let common = ndd::intersection_len(ta.as_slice(), tb.as_slice());
        let cos = common as f64 / ((ta.len() * tb.len()) as f64).sqrt();
        checked += 1;
        if cos >= 0.9 {
            close += 1;
        }
    }
    let mem = imatch.memory();
    Ok(Found {
        pairs,
        method: format!(
            "I-Match with {} + {} randomized lexicons ({source}: {primary} terms with nidf in \
             [{}, {}], {secondary} secondary; table {:.1} B/term); signed {} of {} documents \
             (rejected: {short} too short, {few} too few lexicon terms, {low} low coverage); \
             pairs share at least one of {} coordinates, score = fraction shared; \
             {close} of {checked} sampled pairs have unique-term cosine >= 0.9",
            1,
            imatch.extra_lexicons(),
            window.0,
            window.1,
            mem.bytes_per_term(),
            sigs.iter().filter(|s| s.is_ok()).count(),
            docs.len(),
            imatch.extra_lexicons() + 1,
        ),
        timing: format!(
            "lexicon {lexicon_time:.2?}, sign {signed:.2?}, index + pairs {indexed:.2?}"
        ),
    })
}

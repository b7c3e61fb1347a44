//! `ndd explain`: what a threshold and signature size mean, before a run.

use std::fmt::Write as _;

use ndd_core::{DocSketcher, Signature};
use ndd_lsh::{LshIndex, LshParams};
use ndd_minhash::{MinHashSignature, MinHasher};
use ndd_pipeline::{Banding, MinHashConfig, Shingles};

use crate::args::ExplainArgs;
use crate::error::CliError;
use crate::input::{self, Source};
use crate::progress::Bars;
use crate::settings;

/// The largest `--sample`: all pairs of the sample are compared (2 million pairs at
/// 2,000 documents, 50 million at the limit of 10,000).
const MAX_SAMPLE: usize = 10_000;

/// Runs `ndd explain`.
pub(crate) fn run(a: &ExplainArgs) -> Result<(), CliError> {
    let usage = |e: ndd_core::Error| CliError::Usage(e.to_string());
    if a.sample < 2 || a.sample > MAX_SAMPLE {
        return Err(CliError::Usage(format!(
            "--sample must lie in 2..={MAX_SAMPLE}, got {}",
            a.sample
        )));
    }
    let config = MinHashConfig {
        num_perm: a.num_perm,
        banding: settings::banding(a.banding, a.bands, a.rows),
        ..MinHashConfig::default()
    };
    let params = config.lsh_params(a.threshold).map_err(usage)?;
    let shingles = Shingles::Words(a.k);
    let hasher = MinHasher::builder()
        .num_hashes(config.num_perm)
        .seed(config.seed)
        .build_with(shingles.extractor_with(false).map_err(usage)?)
        .map_err(usage)?;
    let t = a.threshold;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "threshold:   {t} (Jaccard similarity of two documents' sets of {shingles})"
    );
    let se = (t * (1.0 - t) / config.num_perm as f64).sqrt();
    let _ = writeln!(
        s,
        "signature:   {} MinHash values per document; an estimate of {t} is off by {se:.3} \
         on average (standard error)",
        config.num_perm
    );
    let policy = match config.banding {
        Banding::Recall(r) => format!(
            "recall: the fewest candidates that keep {:.0}% of the pairs at the threshold",
            r * 100.0
        ),
        Banding::Balanced => {
            "balanced: false positives and false negatives weighed equally".to_owned()
        }
        _ => "given with --bands and --rows".to_owned(),
    };
    let _ = writeln!(s, "banding:     {policy}");
    let _ = writeln!(
        s,
        "bands:       {} bands of {} rows ({} of the {} values used); a pair becomes a \
         candidate when all rows of one band agree",
        params.bands(),
        params.rows(),
        params.bands() * params.rows(),
        config.num_perm
    );
    let _ = writeln!(
        s,
        "\nprobability that a pair becomes a candidate (the S-curve, 1 - (1 - s^rows)^bands):"
    );
    let mut points: Vec<f64> = (1..=10).map(|i| f64::from(i) / 10.0).collect();
    points.extend(
        [t - 0.05, t, t + 0.05]
            .into_iter()
            .filter(|s| *s > 0.0 && *s < 1.0),
    );
    points.sort_by(f64::total_cmp);
    points.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    for p in points {
        let prob = params.probability(p);
        // One mark per 2.5% (rounded).
        let bar = "#".repeat(
            (0..40)
                .filter(|&i| f64::from(i) + 0.5 <= prob * 40.0)
                .count(),
        );
        let mark = if (p - t).abs() < 1e-9 {
            " <- threshold"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "  similarity {p:.2}: {:>7.3}%  {bar}{mark}",
            prob * 100.0
        );
    }
    let _ = writeln!(
        s,
        "\nexpected recall: {:.2}% of the pairs at exactly {t}, {:.2}% of pairs spread \
         evenly over [{t}, 1] (before verification, which only removes false candidates)",
        params.probability(t) * 100.0,
        mean_probability(&params, t, 1.0) * 100.0
    );

    match &a.input {
        Some(path) => sample_report(&mut s, a, path, &hasher, params)?,
        None => {
            let _ = writeln!(
                s,
                "false candidates: per million unrelated documents, a document meets {:.1} \
                 candidates at similarity 0.1, {:.1} at 0.3, {:.1} at 0.5 (give --input for \
                 a measurement on your documents)",
                1e6 * params.probability(0.1),
                1e6 * params.probability(0.3),
                1e6 * params.probability(0.5)
            );
            let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(params);
            for (i, d) in (0u32..).zip(synthetic_documents(1000)) {
                index.insert(i, &hasher.sketch(&d))?;
            }
            bytes_report(&mut s, config.num_perm, &index, "1,000 random documents");
        }
    }
    print!("{s}");
    Ok(())
}

/// The mean of the S-curve over `[lo, hi]` (Simpson's rule on 200 intervals).
fn mean_probability(params: &LshParams, lo: f64, hi: f64) -> f64 {
    if hi <= lo {
        return params.probability(lo);
    }
    let n = 200;
    let h = (hi - lo) / f64::from(n);
    let mut sum = params.probability(lo) + params.probability(hi);
    for i in 1..n {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * params.probability(lo + h * f64::from(i));
    }
    sum * h / 3.0 / (hi - lo)
}

/// Candidates and bytes per document, measured on an evenly spaced sample of `path`.
fn sample_report(
    s: &mut String,
    a: &ExplainArgs,
    path: &std::path::Path,
    hasher: &MinHasher<Box<dyn ndd_core::DynFeatureExtractor + Send + Sync>>,
    params: LshParams,
) -> Result<(), CliError> {
    let source = Source::resolve(Some(path))?;
    let read = input::read(
        &source,
        &ndd_pipeline::corpus::ReadOptions::default(),
        &Bars::new(false),
        false,
    )?;
    let docs = &read.corpus.documents;
    let n = docs.len();
    let take = a.sample.min(n);
    let sample: Vec<&str> = (0..take)
        .map(|i| docs[i * n / take].text.as_str())
        .collect();
    let signatures: Vec<MinHashSignature> = sample.iter().map(|d| hasher.sketch(d)).collect();
    let mut index: LshIndex<u32, MinHashSignature> = LshIndex::new(params);
    let mut found = Vec::new();
    let (mut candidates, mut similar) = (0u64, 0u64);
    for (i, sig) in signatures.iter().enumerate() {
        found.clear();
        let key = u32::try_from(i).unwrap_or(u32::MAX);
        index.query_then_insert(key, sig, &mut found)?;
        candidates += found.len() as u64;
        for other in &signatures[..i] {
            if other.similarity(sig).map(|v| v.value()).unwrap_or(0.0) >= a.threshold {
                similar += 1;
            }
        }
    }
    let pairs = (take * take.saturating_sub(1) / 2).max(1) as f64;
    let per_doc = |count: u64| count as f64 / pairs * n.saturating_sub(1) as f64;
    let _ = writeln!(
        s,
        "\nmeasured on {take} of the {n} documents of {} (evenly spaced):",
        source.name()
    );
    let _ = writeln!(
        s,
        "  candidates per document: {:.2} over the whole input ({candidates} candidate pairs \
         among {pairs:.0} sample pairs); pairs estimated at or above {}: {:.2} per document",
        per_doc(candidates),
        a.threshold,
        per_doc(similar)
    );
    bytes_report(s, a.num_perm, &index, "the sample");
    Ok(())
}

/// Bytes per document: the signature, and the LSH index as measured on `index`.
fn bytes_report(
    s: &mut String,
    num_perm: usize,
    index: &LshIndex<u32, MinHashSignature>,
    what: &str,
) {
    let _ = writeln!(
        s,
        "bytes per document: {} of signature (8 x {num_perm}) + {:.0} of LSH index \
         (measured on {what}); the text and shingle sets of a run come on top",
        8 * num_perm,
        index.memory().bytes_per_document()
    );
}

/// `count` documents of 60 words drawn from a 5,000-word vocabulary (splitmix64 from
/// a fixed seed): distinct documents that share words but hardly any 3-gram.
fn synthetic_documents(count: usize) -> Vec<String> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..count)
        .map(|_| {
            (0..60)
                .map(|_| format!("w{}", next() % 5000))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

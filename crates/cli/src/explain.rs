//! `ndd explain`: what a threshold and signature size mean, before a run (the
//! numbers are the library's [`Explanation`]; this file words them).

use std::fmt::Write as _;

use ndd_pipeline::{Banding, Explanation, MinHashConfig, Shingles};

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
    let shingles = Shingles::Words(a.k);
    let explanation =
        Explanation::new(a.threshold, config, shingles).map_err(crate::error::usage)?;
    let config = explanation.config();
    let params = explanation.params();
    let t = a.threshold;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "threshold:   {t} (Jaccard similarity of two documents' sets of {shingles})"
    );
    let se = explanation.standard_error();
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
    for p in explanation.curve_points() {
        let prob = explanation.probability(p);
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
        explanation.probability(t) * 100.0,
        explanation.mean_probability(t, 1.0) * 100.0
    );

    match &a.input {
        Some(path) => sample_report(&mut s, a, path, &explanation)?,
        None => {
            let _ = writeln!(
                s,
                "false candidates: per million unrelated documents, a document meets {:.1} \
                 candidates at similarity 0.1, {:.1} at 0.3, {:.1} at 0.5 (give --input for \
                 a measurement on your documents)",
                1e6 * explanation.probability(0.1),
                1e6 * explanation.probability(0.3),
                1e6 * explanation.probability(0.5)
            );
            let bytes = explanation.index_bytes_on_random_documents(1000)?;
            bytes_report(&mut s, config.num_perm, bytes, "1,000 random documents");
        }
    }
    print!("{s}");
    Ok(())
}

/// Candidates and bytes per document, measured on an evenly spaced sample of `path`.
fn sample_report(
    s: &mut String,
    a: &ExplainArgs,
    path: &std::path::Path,
    explanation: &Explanation,
) -> Result<(), CliError> {
    let source = Source::resolve(Some(path))?;
    let read = input::read(
        &source,
        &ndd_pipeline::corpus::ReadOptions::default(),
        &Bars::new(false),
        false,
    )?;
    let texts: Vec<&str> = read
        .corpus
        .documents
        .iter()
        .map(|d| d.text.as_str())
        .collect();
    let n = texts.len();
    let m = explanation.measure(&texts, a.sample)?;
    let _ = writeln!(
        s,
        "\nmeasured on {} of the {n} documents of {} (evenly spaced):",
        m.sampled,
        source.name()
    );
    let _ = writeln!(
        s,
        "  candidates per document: {:.2} over the whole input ({} candidate pairs \
         among {:.0} sample pairs); pairs estimated at or above {}: {:.2} per document",
        m.per_document(m.candidates, n),
        m.candidates,
        m.pairs(),
        a.threshold,
        m.per_document(m.similar, n)
    );
    bytes_report(s, a.num_perm, m.index_bytes_per_document, "the sample");
    Ok(())
}

/// Bytes per document: what the main job keeps of each signature (the filter's 8-bit
/// fields before exact Jaccard; the full signature when the estimate verifies), and
/// the LSH index as measured.
fn bytes_report(s: &mut String, num_perm: usize, index_bytes: f64, what: &str) {
    let bits = ndd_pipeline::PLAUSIBLE_FIELD_BITS as usize;
    let fields = (num_perm * bits).div_ceil(64) * 8;
    let _ = writeln!(
        s,
        "bytes per document: {fields} of {bits}-bit fields (the filter before exact Jaccard; \
         {} of signature, 8 x {num_perm}, with --verify method) + {index_bytes:.0} of LSH index \
         (measured on {what}); the text and shingle sets of a run come on top",
        8 * num_perm
    );
}

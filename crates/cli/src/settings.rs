//! From options to the library's settings: a [`Dedup`] and [`ReadOptions`].

use ndd_pipeline::corpus::{ErrorPolicy, ReadOptions};
use ndd_pipeline::{
    Banding, Dedup, IMatchConfig, Method, MinHashConfig, Representative, Shingles, SigNcdConfig,
    SimHashConfig, SimWeighting, Verifier,
};

use crate::args::{
    BandingName, InputArgs, MethodArgs, MethodName, OnError, RepresentativeName, VerifyName,
    WeightingName,
};
use crate::error::CliError;

/// How the input is read.
pub(crate) fn read_options(a: &InputArgs) -> ReadOptions {
    let mut o = ReadOptions::default()
        .with_id_field(a.id_field.clone())
        .with_text_field(a.text_field.clone())
        .with_max_document_bytes(a.max_document_bytes)
        .with_errors(match a.on_error {
            OnError::Skip => ErrorPolicy::Skip,
            OnError::Stop => ErrorPolicy::Stop,
        });
    if let Some(f) = &a.order_field {
        o = o.with_order_field(f.clone());
    }
    o
}

/// The banding the options ask for (`None`: the default).
pub(crate) fn banding(
    name: Option<BandingName>,
    bands: Option<usize>,
    rows: Option<usize>,
) -> Banding {
    match (name, bands, rows) {
        (_, Some(bands), Some(rows)) => Banding::Fixed { bands, rows },
        (Some(BandingName::Balanced), _, _) => Banding::Balanced,
        _ => Banding::default(),
    }
}

/// The pipeline settings the options ask for, validated.
pub(crate) fn dedup(a: &MethodArgs) -> Result<Dedup, CliError> {
    let usage = |flag: &str, what: &str| CliError::Usage(format!("{flag} {what}"));
    let mut method = match a.method {
        MethodName::Minhash => Method::MinHash(MinHashConfig::default()),
        MethodName::Simhash => Method::SimHash(SimHashConfig::default()),
        MethodName::Exact => Method::ExactJaccard,
        MethodName::Signcd => Method::SigNcd(SigNcdConfig::default()),
        MethodName::Imatch => Method::IMatch(IMatchConfig::default()),
    };
    // Options of another method than the one chosen are mistakes, not no-ops.
    let foreign: &[(&str, bool, MethodName)] = &[
        ("--num-perm", a.num_perm.is_some(), MethodName::Minhash),
        ("--banding", a.banding.is_some(), MethodName::Minhash),
        ("--bands", a.bands.is_some(), MethodName::Minhash),
        ("--bits", a.bits.is_some(), MethodName::Simhash),
        (
            "--max-hamming",
            a.max_hamming.is_some(),
            MethodName::Simhash,
        ),
        ("--weighting", a.weighting.is_some(), MethodName::Simhash),
        ("--lexicons", a.lexicons.is_some(), MethodName::Imatch),
        ("--lexicon", a.lexicon.is_some(), MethodName::Imatch),
        ("--nidf", a.nidf.is_some(), MethodName::Imatch),
        (
            "--min-coverage",
            a.min_coverage.is_some(),
            MethodName::Imatch,
        ),
        ("--compressor", a.compressor.is_some(), MethodName::Signcd),
    ];
    for &(flag, given, owner) in foreign {
        if given && owner != a.method {
            return Err(usage(
                flag,
                &format!(
                    "belongs to --method {}, not {}",
                    spelling(owner),
                    spelling(a.method)
                ),
            ));
        }
    }
    match &mut method {
        Method::MinHash(c) => {
            c.num_perm = a.num_perm.unwrap_or(c.num_perm);
            c.banding = banding(a.banding, a.bands, a.rows);
        }
        Method::SimHash(c) => {
            c.bits = a.bits.unwrap_or(c.bits);
            c.hamming = a.max_hamming;
            c.weighting = match a.weighting {
                None | Some(WeightingName::Binary) => SimWeighting::Binary,
                Some(WeightingName::Tf) => SimWeighting::TermFrequency,
                Some(WeightingName::Tfidf) => SimWeighting::TfIdf,
            };
        }
        Method::IMatch(c) => {
            if let Some(path) = &a.lexicon {
                let bytes = crate::input::read_bounded(path, MAX_LEXICON_BYTES)?;
                c.lexicon = Some(
                    ndd_imatch::Lexicon::from_bytes(&bytes)
                        .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?,
                );
            }
            c.extra_lexicons = a.lexicons.unwrap_or(c.extra_lexicons);
            c.nidf = a.nidf.unwrap_or(c.nidf);
            c.min_coverage = a.min_coverage;
        }
        Method::SigNcd(c) => {
            if let Some(name) = &a.compressor {
                c.compressor = name
                    .parse()
                    .map_err(|e| usage("--compressor", &format!(": {e}")))?;
            }
        }
        _ => {}
    }
    let shingles = match (a.char_k, a.k) {
        (Some(k), _) => Shingles::Chars(k),
        (None, Some(k)) => Shingles::Words(k),
        (None, None) => Shingles::default(),
    };
    let mut dedup = Dedup::new()
        .method(method)
        .shingles(shingles)
        .exact_pass(!a.no_exact_pass)
        .nfkc(a.nfkc)
        .representative(match a.representative {
            RepresentativeName::First => Representative::FirstSeen,
            RepresentativeName::SmallestId => Representative::SmallestId,
            RepresentativeName::Longest => Representative::Longest,
            RepresentativeName::Order => Representative::Order,
        });
    if let Some(t) = a.threshold {
        dedup = dedup.threshold(t);
    }
    if let Some(v) = a.verify {
        dedup = dedup.verifier(match v {
            VerifyName::Jaccard => Verifier::ExactJaccard,
            VerifyName::Method => Verifier::MethodScore,
            VerifyName::Containment => Verifier::Containment,
            VerifyName::Align => Verifier::Align(ndd_pipeline::AlignMeasure::Combined),
        });
    }
    // Every parameter checked before any input is read.
    dedup
        .validate()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(dedup)
}

/// The largest `--lexicon` file read: far above any real lexicon (a 2-million-word
/// lexicon is about 40 MB), so that a wrong path does not read a disk image.
const MAX_LEXICON_BYTES: u64 = 1 << 30;

/// `--method`'s spelling of a method: the name clap parses.
fn spelling(m: MethodName) -> String {
    clap::ValueEnum::to_possible_value(&m).map_or_else(String::new, |v| v.get_name().to_owned())
}

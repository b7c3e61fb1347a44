//! From options to the library's settings: a [`Dedup`] and [`ReadOptions`].

use ndd_pipeline::cluster::Link;
use ndd_pipeline::corpus::{ErrorPolicy, ReadOptions, TextEncoding};
use ndd_pipeline::{
    Banding, Dedup, DurianGrouping, GroupMethod, Method, MinHashWeighting, Plan, Representative,
    Shingles, SimWeighting,
};

use crate::args::{
    BandingName, EncodingName, GroupName, InputArgs, MethodArgs, OnError, RepresentativeName,
    WeightingName,
};
use crate::error::CliError;
use crate::output::tsv_unescape;

/// How the input is read (`attributes`: the JSONL fields the grouping reads).
pub(crate) fn read_options(a: &InputArgs, attributes: &[(String, Roles)]) -> ReadOptions {
    let mut o = ReadOptions::default()
        .with_id_field(a.id_field())
        .with_text_field(a.text_field.clone())
        .with_encoding(match a.encoding {
            EncodingName::Utf8 => TextEncoding::Utf8,
            EncodingName::Auto => TextEncoding::Auto,
            EncodingName::Windows1252 => TextEncoding::Windows1252,
            EncodingName::Latin1 => TextEncoding::Latin1,
        })
        .with_max_document_bytes(a.max_document_bytes)
        .with_follow_links_out(a.follow_links)
        .with_errors(match a.on_error {
            OnError::Skip => ErrorPolicy::Skip,
            OnError::Stop => ErrorPolicy::Stop,
        });
    // A field named is a field expected; the default "id" may be absent.
    o.id_required = a.id_field.is_some();
    if let Some(f) = &a.order_field {
        o = o.with_order_field(f.clone());
    }
    o.with_attribute_fields(attributes.iter().map(|(name, _)| name.clone()))
}

/// What an attribute field of `--attribute-fields` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Roles {
    /// Different values make a cannot-link.
    pub(crate) cannot: bool,
    /// The same value makes a family-link.
    pub(crate) family: bool,
}

/// `--attribute-fields`, parsed: each field once, with its roles, none of them the
/// id, text or order field.
pub(crate) fn attribute_fields(
    method: &MethodArgs,
    input: &InputArgs,
) -> Result<Vec<(String, Roles)>, CliError> {
    let usage = |m: String| CliError::Usage(format!("--attribute-fields: {m}"));
    let mut out: Vec<(String, Roles)> = Vec::new();
    for item in &method.attribute_fields {
        let (name, role) = match item.split_once('=') {
            Some((n, r)) => (n.trim(), r.trim()),
            None => (item.trim(), "family"),
        };
        let roles = match role {
            "cannot" => Roles {
                cannot: true,
                family: false,
            },
            "family" => Roles {
                cannot: false,
                family: true,
            },
            "both" => Roles {
                cannot: true,
                family: true,
            },
            other => {
                return Err(usage(format!(
                    "{name:?} has role {other:?}; expected cannot, family or both"
                )));
            }
        };
        if name.is_empty() {
            return Err(usage(format!("{item:?} names no field")));
        }
        let taken = [
            Some(input.id_field()),
            Some(input.text_field.as_str()),
            input.order_field.as_deref(),
        ];
        if taken.contains(&Some(name)) {
            return Err(usage(format!(
                "{name:?} is already the id, text or order field"
            )));
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(usage(format!("{name:?} is given twice")));
        }
        out.push((name.to_owned(), roles));
    }
    Ok(out)
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

/// The pipeline settings the options ask for (`attributes` from [`attribute_fields`])
/// and their [`Plan`], every parameter checked before any input is read: every engine
/// runs this plan ([`Plan::run`] in memory, `DedupIndex::from_plan`,
/// `OutOfCore::from_plan`, `BloomDedup::from_plan`), so that it is made (and the
/// MinHash banding searched) once per run.
pub(crate) fn planned(
    a: &MethodArgs,
    attributes: &[(String, Roles)],
) -> Result<(Dedup, Plan), CliError> {
    let usage = |flag: &str, what: &str| CliError::Usage(format!("{flag} {what}"));
    let mut method = a.method.clone();
    let name = method.name();
    // Options of another method than the one chosen are mistakes, not no-ops.
    let foreign: &[(&str, bool, &str)] = &[
        ("--num-perm", a.num_perm.is_some(), "minhash"),
        ("--banding", a.banding.is_some(), "minhash"),
        ("--bands", a.bands.is_some(), "minhash"),
        ("--max-bucket-scan", a.max_bucket_scan.is_some(), "minhash"),
        ("--bits", a.bits.is_some(), "simhash"),
        ("--max-hamming", a.max_hamming.is_some(), "simhash"),
        ("--weighting", a.weighting.is_some(), "simhash"),
        ("--lexicons", a.lexicons.is_some(), "imatch"),
        ("--lexicon", a.lexicon.is_some(), "imatch"),
        ("--nidf", a.nidf.is_some(), "imatch"),
        ("--min-coverage", a.min_coverage.is_some(), "imatch"),
        ("--compressor", a.compressor.is_some(), "signcd"),
    ];
    if a.weights.is_some() && !matches!(method, Method::MinHash(_) | Method::SimHash(_)) {
        return Err(usage(
            "--weights",
            &format!("belongs to --method minhash or simhash, not {name}"),
        ));
    }
    for &(flag, given, owner) in foreign {
        if given && owner != name {
            return Err(usage(
                flag,
                &format!("belongs to --method {owner}, not {name}"),
            ));
        }
    }
    match &mut method {
        Method::MinHash(c) => {
            c.num_perm = a.num_perm.unwrap_or(c.num_perm);
            c.banding = banding(a.banding, a.bands, a.rows);
            if let Some(scan) = a.max_bucket_scan {
                c.max_bucket_scan = scan.0;
            }
            if let Some(path) = &a.weights {
                c.weighting = MinHashWeighting::Learned(learned_model(path)?);
            }
        }
        Method::SimHash(c) => {
            c.bits = a.bits.unwrap_or(c.bits);
            c.hamming = a.max_hamming;
            c.weighting = match a.weighting {
                None | Some(WeightingName::Binary) => SimWeighting::Binary,
                Some(WeightingName::Tf) => SimWeighting::TermFrequency,
                Some(WeightingName::Tfidf) => SimWeighting::TfIdf,
            };
            if let Some(path) = &a.weights {
                c.weighting = SimWeighting::Learned(learned_model(path)?);
            }
        }
        Method::IMatch(c) => {
            if let Some(path) = &a.lexicon {
                let lexicon = ndd_pipeline::Lexicon::load(path);
                c.lexicon = Some(lexicon.map_err(|e| CliError::Input(e.to_string()))?);
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
    if let Some(v) = &a.verify {
        dedup = dedup.verifier(v.clone());
    }
    dedup = dedup.group(grouping(a, attributes)?);
    // Every parameter checked before any input is read.
    let plan = dedup.plan().map_err(crate::error::usage)?;
    Ok((dedup, plan))
}

/// The grouping the options ask for.
fn grouping(a: &MethodArgs, attributes: &[(String, Roles)]) -> Result<GroupMethod, CliError> {
    let linkage_only = [
        ("--chain-floor", a.chain_floor.is_some()),
        ("--link-fraction", a.link_fraction.is_some()),
    ];
    if a.group != GroupName::Linkage {
        if let Some((flag, _)) = linkage_only.iter().find(|f| f.1) {
            return Err(CliError::Usage(format!(
                "{flag} belongs to --group linkage, not {}",
                a.group.name()
            )));
        }
    }
    if a.group != GroupName::Durian {
        let durian_only = [
            ("--attribute-fields", !a.attribute_fields.is_empty()),
            ("--links-in", a.links_in.is_some()),
            ("--theta", a.theta.is_some()),
            ("--min-copies", a.min_copies.is_some()),
        ];
        if let Some((flag, _)) = durian_only.iter().find(|f| f.1) {
            return Err(CliError::Usage(format!(
                "{flag} belongs to --group durian, not {}",
                a.group.name()
            )));
        }
        let mut group = a
            .group
            .name()
            .parse::<GroupMethod>()
            .map_err(|e| CliError::Usage(e.to_string()))?;
        if let GroupMethod::Linkage(l) = &mut group {
            if let Some(c) = a.chain_floor {
                *l = l.chain_floor(c);
            }
            if let Some(f) = a.link_fraction {
                *l = l.fraction(f);
            }
        }
        return Ok(group);
    }
    let mut d = DurianGrouping::new();
    if let Some(t) = a.theta {
        d = d.theta(t);
    }
    if let Some(m) = a.min_copies {
        d = d.min_copies(m);
    }
    if let Some(path) = &a.links_in {
        for (link, x, y) in links_in(path)? {
            d = d.assert_link(link, x, y);
        }
    }
    for (name, roles) in attributes {
        if roles.cannot {
            d = d.cannot_if_different(name.clone());
        }
        if roles.family {
            d = d.family_if_same(name.clone());
        }
    }
    Ok(GroupMethod::Durian(d))
}

/// The model of `--weights`, read by its library (with a bound on its size).
fn learned_model(
    path: &std::path::Path,
) -> Result<std::sync::Arc<ndd_pipeline::learn::WeightModel>, CliError> {
    let model =
        ndd_pipeline::learn::WeightModel::load(path).map_err(|e| CliError::Input(e.to_string()))?;
    Ok(std::sync::Arc::new(model))
}

/// The largest `--links-in` file read: 1 GiB (about 30 million links).
const MAX_LINKS_BYTES: u64 = 1 << 30;

/// `--links-in`: `link<TAB>id<TAB>id` lines; blank lines and `#` comments skipped; ids
/// unescaped as the TSV outputs escape them.
fn links_in(path: &std::path::Path) -> Result<Vec<(Link, String, String)>, CliError> {
    let bytes = crate::input::read_bounded(path, MAX_LINKS_BYTES, None)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| CliError::Input(format!("{}: not UTF-8 text: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |m: String| CliError::Input(format!("{}:{}: {m}", path.display(), i + 1));
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [link, a, b] = fields[..] else {
            return Err(at(format!(
                "expected 3 tab-separated fields (link, id, id), found {}",
                fields.len()
            )));
        };
        let link: Link = link.parse().map_err(|_| {
            at(format!(
                "unknown link {link:?}; expected must, cannot or family"
            ))
        })?;
        out.push((link, tsv_unescape(a), tsv_unescape(b)));
    }
    Ok(out)
}

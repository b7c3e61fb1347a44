//! Finds near-duplicate groups in a folder of text/HTML files or a JSONL file: a thin
//! program over `ndd::pipeline` (argument parsing and printing only).
//!
//! ```text
//! cargo run --release --example dedup                      # the bundled corpus
//! cargo run --release --example dedup -- --input docs/ --threshold 0.7 \
//!     --pairs-out pairs.tsv --clusters-out clusters.tsv
//! ```
//!
//! Every stage is the library's: `corpus::read_corpus` reads the input,
//! `pipeline::Dedup` removes exact copies, finds candidates with the chosen method,
//! verifies them and groups them. See `--help` for the options.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use ndd::pipeline::corpus::{ErrorPolicy, ReadOptions, read_corpus};
use ndd::pipeline::{
    Banding, Dedup, IMatchConfig, Method, MinHashConfig, Representative, Shingles, SigNcdConfig,
    SimHashConfig, SimWeighting, Verifier,
};

const USAGE: &str = "\
usage: dedup [--input PATH] [--threshold T]
             [--method minhash|simhash|exact|signcd|imatch] [--verify V]
             [--num-perm N] [--bands B --rows R] [--banding recall|balanced]
             [--k K | --char-k K] [--bits M] [--max-hamming H]
             [--weighting binary|tf|tfidf] [--lexicons K] [--lexicon FILE]
             [--nidf MIN,MAX] [--min-coverage F] [--compressor C]
             [--no-exact-pass] [--nfkc] [--representative P] [--id-field F] [--text-field F]
             [--order-field F] [--pairs-out FILE] [--clusters-out FILE]
             [--on-error skip|stop] [--top N]

  --input PATH         folder of text/HTML files, or a JSONL file (plain or gzip) of
                       {\"id\", \"text\"} objects (default: the bundled
                       data/debian-copyright.jsonl)
  --threshold T        minimum similarity in (0, 1] for a pair to count (default 0.8):
                       0.8 means 80% of the two documents' distinct shingles are shared
  --method M           minhash (default): MinHash + banded LSH, estimated Jaccard;
                       simhash: fingerprints at most --max-hamming bits apart;
                       exact: exact Jaccard (holds every shingle); signcd: compression
                       distance of punctuation-spot signatures <= 1 - T; imatch: I-Match
                       SHA-1 signatures of mid-IDF words, pairs share one of K + 1
  --verify V           jaccard (exact Jaccard of the shingle sets >= T; the default for
                       minhash), method (the method's own score decides; the default for
                       the others) or containment (the smaller set in the larger >= T)
  --num-perm N         MinHash values per document (default 128; standard error of the
                       estimate sqrt(J(1-J)/N): 0.035 at 0.8)
  --banding B          recall (default: the fewest candidates with 99% recall at T) or
                       balanced (false positives and negatives weighed equally)
  --bands B --rows R   explicit LSH banding (B x R <= N)
  --k K                words per shingle (default 3)
  --char-k K           character K-grams instead of words (Chinese, Japanese, Thai)
  --bits M             simhash: signature length (default 64)
  --max-hamming H      simhash: most differing bits for a pair (default 3 per 64 bits)
  --weighting W        simhash: binary (default), tf or tfidf
  --lexicons K         imatch: randomized extra lexicons (default 5, at most 30)
  --lexicon FILE       imatch: a lexicon built from another corpus (build_lexicon
                       example of ndd-imatch); default: built from the input
  --nidf MIN,MAX       imatch: normalized-IDF window (default 0.2,0.8)
  --min-coverage F     imatch: required fraction of a document's terms in the lexicon
  --compressor C       signcd: snappy (default), lz4, deflate, zlib, gzip (gzip-9: level)
  --no-exact-pass      do not remove exact copies first (every pair between copies is
                       then reported, not one per copy)
  --nfkc               normalize text to Unicode NFKC first (full-width letters,
                       ligatures and other compatibility forms count as plain ones)
  --representative P   which document of a group is kept: first (default), smallest-id,
                       longest, order (smallest --order-field value)
  --id-field F, --text-field F, --order-field F
                       JSONL field names (default id, text, none)
  --pairs-out FILE     write id_a<TAB>id_b<TAB>score for every pair (higher is more
                       similar)
  --clusters-out FILE  write id<TAB>cluster for every document (cluster = the input
                       position of the document kept for its group)
  --on-error MODE      skip (default: report bad input and continue) or stop
  --top N              how many of the largest groups to show (default 5)
";

struct Options {
    input: PathBuf,
    dedup: Dedup,
    read: ReadOptions,
    pairs_out: Option<PathBuf>,
    clusters_out: Option<PathBuf>,
    top: usize,
}

/// Every flag's raw value, checked and turned into pipeline settings by `build`.
#[derive(Default)]
struct Raw {
    threshold: Option<f64>,
    method: Option<String>,
    verify: Option<String>,
    num_perm: Option<usize>,
    bands: Option<usize>,
    rows: Option<usize>,
    banding: Option<String>,
    bits: Option<usize>,
    max_hamming: Option<usize>,
    weighting: Option<String>,
    k: Option<usize>,
    char_k: Option<usize>,
    lexicons: Option<usize>,
    lexicon: Option<PathBuf>,
    nidf: Option<(f64, f64)>,
    min_coverage: Option<f64>,
    compressor: Option<String>,
    no_exact: bool,
    nfkc: bool,
    representative: Option<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        input: Path::new(env!("CARGO_MANIFEST_DIR")).join("data/debian-copyright.jsonl"),
        dedup: Dedup::new(),
        read: ReadOptions::default(),
        pairs_out: None,
        clusters_out: None,
        top: 5,
    };
    let mut raw = Raw::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            print!("{USAGE}");
            std::process::exit(0);
        }
        // `--flag=value` and `--flag value` both work.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--input" => o.input = PathBuf::from(value()?),
            "--threshold" => raw.threshold = Some(parse_num(&flag, &value()?)?),
            "--method" => raw.method = Some(value()?),
            "--verify" => raw.verify = Some(value()?),
            "--num-perm" => raw.num_perm = Some(parse_count(&flag, &value()?)?),
            "--bands" => raw.bands = Some(parse_count(&flag, &value()?)?),
            "--rows" => raw.rows = Some(parse_count(&flag, &value()?)?),
            "--banding" => raw.banding = Some(value()?),
            "--bits" => raw.bits = Some(parse_count(&flag, &value()?)?),
            "--max-hamming" => {
                let v = value()?;
                raw.max_hamming = Some(v.parse().map_err(|_| {
                    format!("--max-hamming must be a non-negative integer, got {v}")
                })?);
            }
            "--weighting" => raw.weighting = Some(value()?),
            "--k" => raw.k = Some(parse_count(&flag, &value()?)?),
            "--char-k" => raw.char_k = Some(parse_count(&flag, &value()?)?),
            "--lexicons" => {
                let v = value()?;
                raw.lexicons =
                    Some(v.parse().map_err(|_| {
                        format!("--lexicons must be a count from 0 to 30, got {v}")
                    })?);
            }
            "--lexicon" => raw.lexicon = Some(PathBuf::from(value()?)),
            "--nidf" => {
                let v = value()?;
                let parsed = v
                    .split_once(',')
                    .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
                raw.nidf = Some(parsed.ok_or_else(|| format!("--nidf MIN,MAX: got {v}"))?);
            }
            "--min-coverage" => raw.min_coverage = Some(parse_num(&flag, &value()?)?),
            "--compressor" => raw.compressor = Some(value()?),
            "--no-exact-pass" => raw.no_exact = true,
            "--nfkc" => raw.nfkc = true,
            "--representative" => raw.representative = Some(value()?),
            "--id-field" => o.read = o.read.with_id_field(value()?),
            "--text-field" => o.read = o.read.with_text_field(value()?),
            "--order-field" => o.read = o.read.with_order_field(value()?),
            "--pairs-out" => o.pairs_out = Some(PathBuf::from(value()?)),
            "--clusters-out" => o.clusters_out = Some(PathBuf::from(value()?)),
            "--on-error" => {
                o.read = o.read.with_errors(match value()?.as_str() {
                    "skip" => ErrorPolicy::Skip,
                    "stop" => ErrorPolicy::Stop,
                    v => return Err(format!("--on-error must be skip or stop, got {v}")),
                });
            }
            "--top" => o.top = parse_count(&flag, &value()?)?,
            _ => return Err(format!("unknown option {arg}\n\n{USAGE}")),
        }
    }
    o.dedup = build(raw)?;
    // Refuse bad settings before reading a corpus.
    o.dedup.validate().map_err(|e| e.to_string())?;
    Ok(o)
}

/// The pipeline settings the flags ask for.
fn build(raw: Raw) -> Result<Dedup, String> {
    let err = |e: ndd::Error| e.to_string();
    let mut method: Method = raw
        .method
        .as_deref()
        .unwrap_or("minhash")
        .parse()
        .map_err(err)?;
    match &mut method {
        Method::MinHash(c) => {
            *c = MinHashConfig {
                num_perm: raw.num_perm.unwrap_or(c.num_perm),
                banding: match (raw.bands, raw.rows, raw.banding.as_deref()) {
                    (Some(bands), Some(rows), None) => Banding::Fixed { bands, rows },
                    (None, None, None | Some("recall")) => Banding::default(),
                    (None, None, Some("balanced")) => Banding::Balanced,
                    (None, None, Some(b)) => {
                        return Err(format!("--banding must be recall or balanced, got {b}"));
                    }
                    (Some(_), Some(_), Some(_)) => {
                        return Err("--banding and --bands/--rows exclude each other".into());
                    }
                    _ => return Err("--bands and --rows go together".into()),
                },
                ..*c
            };
        }
        Method::SimHash(c) => {
            *c = SimHashConfig {
                bits: raw.bits.unwrap_or(c.bits),
                hamming: raw.max_hamming,
                weighting: match raw.weighting.as_deref() {
                    None | Some("binary") => SimWeighting::Binary,
                    Some("tf") => SimWeighting::TermFrequency,
                    Some("tfidf") => SimWeighting::TfIdf,
                    Some(w) => {
                        return Err(format!("--weighting must be binary, tf or tfidf, got {w}"));
                    }
                },
            };
        }
        Method::IMatch(c) => {
            let lexicon = match &raw.lexicon {
                Some(path) => {
                    let bytes =
                        std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
                    Some(
                        ndd::imatch::Lexicon::from_bytes(&bytes)
                            .map_err(|e| format!("{}: {e}", path.display()))?,
                    )
                }
                None => None,
            };
            *c = IMatchConfig {
                extra_lexicons: raw.lexicons.unwrap_or(c.extra_lexicons),
                lexicon,
                nidf: raw.nidf.unwrap_or(c.nidf),
                min_coverage: raw.min_coverage,
            };
        }
        Method::SigNcd(c) => {
            if let Some(name) = &raw.compressor {
                *c = SigNcdConfig {
                    compressor: name.parse().map_err(|e| format!("--compressor: {e}"))?,
                };
            }
        }
        _ => {}
    }
    let shingles = match (raw.char_k, raw.k) {
        (Some(_), Some(_)) => return Err("--k and --char-k exclude each other".into()),
        (Some(k), None) => Shingles::Chars(k),
        (None, Some(k)) => Shingles::Words(k),
        (None, None) => Shingles::default(),
    };
    let mut dedup = Dedup::new()
        .method(method)
        .shingles(shingles)
        .exact_pass(!raw.no_exact)
        .nfkc(raw.nfkc)
        .representative(
            raw.representative
                .as_deref()
                .unwrap_or("first")
                .parse::<Representative>()
                .map_err(err)?,
        );
    if let Some(t) = raw.threshold {
        dedup = dedup.threshold(t);
    }
    if let Some(v) = &raw.verify {
        dedup = dedup.verifier(v.parse::<Verifier>().map_err(err)?);
    }
    Ok(dedup)
}

fn parse_count(flag: &str, v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{flag} must be a positive integer, got {v}")),
    }
}

fn parse_num(flag: &str, v: &str) -> Result<f64, String> {
    v.parse().map_err(|_| format!("{flag}: not a number: {v}"))
}

fn snippet(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for c in text
        .split_whitespace()
        .flat_map(|w| " ".chars().chain(w.chars()))
        .skip(1)
    {
        if out.chars().count() >= max_chars {
            out.push('…');
            break;
        }
        out.push(c);
    }
    out
}

fn run(o: &Options) -> Result<(), String> {
    let started = Instant::now();
    let corpus = read_corpus(&o.input, &o.read).map_err(|e| e.to_string())?;
    for p in &corpus.problems {
        eprintln!("warning: {p} (skipped)");
    }
    let loaded = started.elapsed();
    let docs = &corpus.documents;
    let out = o.dedup.run(docs).map_err(|e| e.to_string())?;
    let r = &out.report;

    if let Some(path) = &o.pairs_out {
        let mut s = String::new();
        for p in &out.pairs {
            let _ = writeln!(s, "{}\t{}\t{:.6}", docs[p.a].id, docs[p.b].id, p.score);
        }
        ndd::pipeline::write_atomically(path, s.as_bytes()).map_err(|e| e.to_string())?;
    }
    if let Some(path) = &o.clusters_out {
        let mut s = String::new();
        for (d, l) in docs.iter().zip(out.labels()) {
            let _ = writeln!(s, "{}\t{l}", d.id);
        }
        ndd::pipeline::write_atomically(path, s.as_bytes()).map_err(|e| e.to_string())?;
    }

    let mut groups: Vec<&ndd::pipeline::Group> = out.groups.iter().collect();
    groups.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.members[0].cmp(&b.members[0]))
    });
    let mut text = String::new();
    let _ = writeln!(text, "input:       {}", o.input.display());
    let _ = writeln!(
        text,
        "documents:   {} ({:.1} MB{})",
        docs.len(),
        r.bytes as f64 / 1e6,
        if corpus.problems.is_empty() {
            String::new()
        } else {
            format!(", {} skipped", corpus.problems.len())
        }
    );
    let _ = writeln!(
        text,
        "exact pass:  {} exact copies in {} groups removed before the method",
        r.exact_copies, r.exact_groups
    );
    let method = o.dedup.method_config();
    let _ = writeln!(
        text,
        "method:      {}{}{}",
        r.method,
        match method.name() {
            "signcd" | "imatch" => String::new(),
            _ => format!(" over {}", o.dedup.shingles_config()),
        },
        if method.uses_threshold() {
            format!(", threshold {}", o.dedup.threshold_value())
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        text,
        "verify:      {} ({} candidates checked, {} kept)",
        o.dedup.verifier_config().name(),
        r.verify.checked,
        r.verify.accepted
    );
    let _ = writeln!(text, "pairs:       {}", r.pairs);
    let per_doc = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |b| format!("{b:.0} B"));
    let _ = writeln!(
        text,
        "memory:      per document {:.0} B of text, {} of signature, {} of index",
        r.mean_document_bytes(),
        per_doc(r.signature_bytes_per_document),
        per_doc(r.index_bytes_per_document)
    );
    let _ = writeln!(
        text,
        "groups:      {} (holding {} documents; {} kept, {} dropped)",
        r.groups,
        r.grouped_documents,
        docs.len() - r.dropped,
        r.dropped
    );
    let stages: Vec<String> = r
        .timings
        .iter()
        .map(|(s, t)| format!("{s} {t:.2?}"))
        .collect();
    let _ = writeln!(
        text,
        "time:        load {loaded:.2?}, {}; total {:.2?}",
        stages.join(", "),
        started.elapsed()
    );
    for (n, g) in groups.iter().take(o.top).enumerate() {
        let _ = writeln!(
            text,
            "\ngroup {} ({} documents, keep {}):",
            n + 1,
            g.members.len(),
            docs[g.representative].id
        );
        for &i in g.members.iter().take(6) {
            let _ = writeln!(
                text,
                "  {:<28} {}",
                snippet(&docs[i].id, 28),
                snippet(&docs[i].text, 60)
            );
        }
        if g.members.len() > 6 {
            let _ = writeln!(text, "  … and {} more", g.members.len() - 6);
        }
    }
    print!("{text}");
    // The process ends here: its memory goes back to the system at once, without
    // freeing every document and pair one by one first (tens of milliseconds on
    // large corpora).
    std::mem::forget(out);
    std::mem::forget(corpus);
    Ok(())
}

fn main() -> ExitCode {
    match parse_args().and_then(|o| run(&o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

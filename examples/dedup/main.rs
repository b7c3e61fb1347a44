//! Finds near-duplicate groups in a folder of text/HTML files or a JSONL file.
//!
//! ```text
//! cargo run --release --example dedup                      # the bundled corpus
//! cargo run --release --example dedup -- --input docs/ --threshold 0.7 \
//!     --pairs-out pairs.tsv --clusters-out clusters.tsv
//! ```
//!
//! Input: a folder (every file below it, recursively; `.html`/`.htm` files and files
//! that look like HTML are converted to text first) or a JSONL file with one
//! `{"id": ..., "text": ...}` object per line (`id` may be a string or a number; when
//! it is missing, the line number is the id).
//!
//! Both methods start from word k-gram shingles (k = 5 by default, or character
//! k-grams with `--char-k` for text without spaces) and group the pairs found by
//! connected components.
//!
//! * `minhash` (default): a 128-value MinHash signature per document (one-permutation
//!   hashing), a banded LSH index whose bands and rows are chosen for `--threshold`
//!   (or given with `--bands`/`--rows`), and candidates kept when their estimated
//!   Jaccard reaches the threshold. Memory is per document, not per shingle.
//! * `exact`: exact Jaccard of the shingle sets, all pairs at or above `--threshold`
//!   found with a prefix-filtered inverted index. The reference; holds every shingle.
//! * `signcd`: SigNCD, the normalized compression distance of punctuation-spot
//!   signatures (the words before each comma; documents with fewer than three commas
//!   use all their words), all pairs with SigNCD <= 1 - `--threshold` found exactly by
//!   the P1-pruned search of `ndd::ncd`; the score is 1 - SigNCD. `--compressor` picks
//!   snappy (default), lz4, deflate, zlib or gzip (`gzip-9`: with a level).
//! * `imatch`: I-Match (paper 003): SHA-1 of each document's terms inside a lexicon of
//!   mid-IDF words (from the input's own statistics, or `--lexicon FILE` built from
//!   another corpus by `cargo run -p ndd-imatch --example build_lexicon`), plus
//!   `--lexicons K` randomized lexicons (default 5); documents sharing any of the
//!   `K + 1` signatures are pairs, scored by the fraction shared. Word unigrams, not
//!   k-grams; `--threshold` does not apply.
//!
//! Outputs: `--pairs-out` writes `id_a<TAB>id_b<TAB>score` (higher is more similar),
//! `--clusters-out` writes `id<TAB>cluster` for every document.

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use ndd::shingle::html::{html_to_text, looks_like_html};
use ndd::{ScoredPair, UnionFind};

mod exact;
mod imatch;
mod minhash;
mod signcd;
mod simhash;

const USAGE: &str = "\
usage: dedup [--input PATH] [--threshold T]
             [--method minhash|simhash|exact|signcd|imatch]
             [--num-perm N] [--bands B --rows R] [--k K | --char-k K]
             [--bits M] [--max-hamming H] [--weighting binary|tf|tfidf]
             [--lexicons K] [--lexicon FILE] [--nidf MIN,MAX] [--min-coverage F]
             [--pairs-out FILE] [--clusters-out FILE] [--on-error skip|stop]
             [--top N] [--compressor C]

  --input PATH         folder of text/HTML files, or a JSONL file of {\"id\", \"text\"}
                       objects (default: the bundled data/debian-copyright.jsonl)
  --threshold T        minimum similarity in (0, 1] for a pair to count (default 0.8;
                       not used by imatch, where sharing one signature makes a pair):
                       0.8 means 80% of the two documents' distinct shingles are shared
  --method M           minhash (default): MinHash signatures + banded LSH, pairs kept
                       when their estimated Jaccard reaches T; simhash: SimHash
                       fingerprints, pairs at most --max-hamming bits apart (T unused);
                       exact: exact Jaccard of the shingle sets (slower, holds every
                       shingle in memory); signcd: compression distance of
                       punctuation-spot signatures, pairs kept when SigNCD <= 1 - T
                       (score 1 - SigNCD); imatch: I-Match SHA-1 signatures of the
                       mid-IDF words, pairs share one of K + 1 signatures (T unused)
  --num-perm N         MinHash values per document (default 128); more values give a
                       tighter estimate (standard error sqrt(J(1-J)/N): 0.035 at 0.8)
  --bands B --rows R   LSH banding (B x R <= N); by default chosen for T by weighing
                       false positives and false negatives equally
  --bits M             simhash: signature length in bits (default 64)
  --max-hamming H      simhash: most differing bits for a pair (default 3 per 64 bits,
                       the web-crawl setting); a pair h bits apart scores 1 - h/M.
                       At 64 bits the search is exact; other lengths use
                       bit-sampling LSH tuned for 99% recall at H
  --weighting W        simhash: tf (default, term frequency), binary, or tfidf (IDF
                       from the input's own document frequencies)
  --k K                words per shingle (default 5)
  --char-k K           use character K-grams instead of words (for Chinese, Japanese...)
  --lexicons K         imatch: randomized extra lexicons (default 5, at most 30); 0 is
                       classic I-Match, one signature per document
  --lexicon FILE       imatch: a lexicon built from another corpus (build_lexicon
                       example of ndd-imatch); default: built from the input itself
  --nidf MIN,MAX       imatch: normalized-IDF window of a lexicon built from the input
                       (default 0.2,0.8 for web text; 0.2,0.3 did better on email)
  --min-coverage F     imatch: required fraction of a document's terms in the lexicon,
                       topped up from rarer terms for long documents (default 0.1)
  --pairs-out FILE     write id_a<TAB>id_b<TAB>score for every pair found
  --clusters-out FILE  write id<TAB>cluster for every document
  --on-error MODE      skip (default: report bad input and continue) or stop
  --top N              how many of the largest groups to show (default 5)
  --compressor C       signcd: snappy (default), lz4, deflate, zlib, gzip; with a
                       level for the last three (gzip-9)
";

#[derive(PartialEq)]
enum Method {
    MinHash,
    SimHash,
    Exact,
    SigNcd,
    IMatch,
}

pub(crate) struct Options {
    input: PathBuf,
    threshold: f64,
    method: Method,
    num_perm: usize,
    bands: Option<usize>,
    rows: Option<usize>,
    bits: usize,
    max_hamming: Option<usize>,
    weighting: simhash::SimWeighting,
    k: usize,
    char_k: Option<usize>,
    pairs_out: Option<PathBuf>,
    clusters_out: Option<PathBuf>,
    stop_on_error: bool,
    top: usize,
    compressor: String,
    imatch_lexicons: usize,
    imatch_lexicon: Option<PathBuf>,
    imatch_nidf: (f64, f64),
    imatch_min_coverage: Option<f64>,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        input: Path::new(env!("CARGO_MANIFEST_DIR")).join("data/debian-copyright.jsonl"),
        threshold: 0.8,
        method: Method::MinHash,
        num_perm: 128,
        bands: None,
        rows: None,
        bits: 64,
        max_hamming: None,
        weighting: simhash::SimWeighting::Tf,
        k: 5,
        char_k: None,
        pairs_out: None,
        clusters_out: None,
        stop_on_error: false,
        top: 5,
        compressor: "snappy".into(),
        imatch_lexicons: 5,
        imatch_lexicon: None,
        imatch_nidf: (0.2, 0.8),
        imatch_min_coverage: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            print!("{USAGE}");
            std::process::exit(0);
        }
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--input" => o.input = PathBuf::from(value()?),
            "--threshold" => {
                let v = value()?;
                o.threshold = v
                    .parse()
                    .map_err(|_| format!("--threshold: not a number: {v}"))?;
                if !(o.threshold > 0.0 && o.threshold <= 1.0) {
                    return Err(format!("--threshold must lie in (0, 1], got {v}"));
                }
            }
            "--method" => {
                o.method = match value()?.as_str() {
                    "minhash" => Method::MinHash,
                    "simhash" => Method::SimHash,
                    "exact" => Method::Exact,
                    "signcd" => Method::SigNcd,
                    "imatch" => Method::IMatch,
                    v => {
                        return Err(format!(
                            "--method must be minhash, simhash, exact, signcd or imatch, got {v}"
                        ));
                    }
                }
            }
            "--num-perm" => o.num_perm = parse_count(&flag, &value()?)?,
            "--bands" => o.bands = Some(parse_count(&flag, &value()?)?),
            "--rows" => o.rows = Some(parse_count(&flag, &value()?)?),
            "--bits" => o.bits = parse_count(&flag, &value()?)?,
            "--max-hamming" => {
                let v = value()?;
                o.max_hamming = Some(v.parse().map_err(|_| {
                    format!("--max-hamming must be a non-negative integer, got {v}")
                })?);
            }
            "--weighting" => o.weighting = simhash::SimWeighting::parse(&value()?)?,
            "--k" => o.k = parse_count(&flag, &value()?)?,
            "--char-k" => o.char_k = Some(parse_count(&flag, &value()?)?),
            "--pairs-out" => o.pairs_out = Some(PathBuf::from(value()?)),
            "--clusters-out" => o.clusters_out = Some(PathBuf::from(value()?)),
            "--on-error" => {
                o.stop_on_error = match value()?.as_str() {
                    "skip" => false,
                    "stop" => true,
                    v => return Err(format!("--on-error must be skip or stop, got {v}")),
                }
            }
            "--top" => o.top = parse_count(&flag, &value()?)?,
            "--compressor" => {
                let v = value()?;
                v.parse::<ndd::ncd::CompressorKind>()
                    .map_err(|e| format!("--compressor: {e}"))?;
                o.compressor = v;
            }
            "--lexicons" => {
                let v = value()?;
                o.imatch_lexicons = v
                    .parse()
                    .map_err(|_| format!("--lexicons must be a count from 0 to 30, got {v}"))?;
            }
            "--lexicon" => o.imatch_lexicon = Some(PathBuf::from(value()?)),
            "--nidf" => {
                let v = value()?;
                let parsed = v
                    .split_once(',')
                    .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
                o.imatch_nidf = parsed.ok_or_else(|| format!("--nidf MIN,MAX: got {v}"))?;
            }
            "--min-coverage" => {
                let v = value()?;
                o.imatch_min_coverage = Some(
                    v.parse()
                        .map_err(|_| format!("--min-coverage: not a number: {v}"))?,
                );
            }
            _ => return Err(format!("unknown option {flag}\n\n{USAGE}")),
        }
    }
    if o.bands.is_some() != o.rows.is_some() {
        return Err("--bands and --rows go together".into());
    }
    Ok(o)
}

fn parse_count(flag: &str, v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{flag} must be a positive integer, got {v}")),
    }
}

pub(crate) struct Doc {
    id: String,
    text: String,
}

/// Collects problems with the input; stops the run at the first one in `stop` mode.
struct Problems {
    stop: bool,
    count: usize,
}

impl Problems {
    fn report(&mut self, message: String) -> Result<(), String> {
        self.count += 1;
        if self.stop {
            return Err(message);
        }
        eprintln!("warning: {message} (skipped)");
        Ok(())
    }
}

fn load(path: &Path, problems: &mut Problems) -> Result<Vec<Doc>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut docs = if meta.is_dir() {
        load_folder(path, problems)?
    } else {
        load_jsonl(path, problems)?
    };
    let mut kept = Vec::with_capacity(docs.len());
    for d in docs.drain(..) {
        if d.text.trim().is_empty() {
            problems.report(format!("{}: document {:?} is empty", path.display(), d.id))?;
        } else {
            kept.push(d);
        }
    }
    Ok(kept)
}

/// One JSONL line: typed, borrowing the text when it has no escapes (several times
/// faster than building a `serde_json::Value`); other fields are ignored.
#[derive(serde::Deserialize)]
struct Record<'a> {
    #[serde(borrow, default)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Id<'a>>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Id<'a> {
    #[serde(borrow)]
    Text(std::borrow::Cow<'a, str>),
    Number(serde_json::Number),
}

fn load_jsonl(path: &Path, problems: &mut Problems) -> Result<Vec<Doc>, String> {
    let content = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut docs = Vec::new();
    for (i, line) in content.split(|&b| b == b'\n').enumerate() {
        let line_no = i + 1;
        let at = || format!("{}:{line_no}", path.display());
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(line) = std::str::from_utf8(line) else {
            problems.report(format!("{}: invalid UTF-8", at()))?;
            continue;
        };
        let record: Record<'_> = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                problems.report(format!("{}: malformed JSON: {e}", at()))?;
                continue;
            }
        };
        let Some(text) = record.text else {
            problems.report(format!("{}: no string field \"text\"", at()))?;
            continue;
        };
        let id = match record.id {
            Some(Id::Text(s)) => s.into_owned(),
            Some(Id::Number(n)) => n.to_string(),
            None => line_no.to_string(),
        };
        docs.push(Doc {
            id,
            text: text.into_owned(),
        });
    }
    Ok(docs)
}

fn load_folder(root: &Path, problems: &mut Problems) -> Result<Vec<Doc>, String> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                problems.report(format!("{}: {e}", dir.display()))?;
                continue;
            }
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut docs = Vec::with_capacity(files.len());
    for f in files {
        let bytes = match std::fs::read(&f) {
            Ok(b) => b,
            Err(e) => {
                problems.report(format!("{}: {e}", f.display()))?;
                continue;
            }
        };
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                problems.report(format!("{}: invalid UTF-8 at byte {at}", f.display()))?;
                continue;
            }
        };
        let is_html = f
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
        let text = if is_html || looks_like_html(&text) {
            html_to_text(&text)
        } else {
            text
        };
        let id = f.strip_prefix(root).unwrap_or(&f).display().to_string();
        docs.push(Doc { id, text });
    }
    Ok(docs)
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
    let mut problems = Problems {
        stop: o.stop_on_error,
        count: 0,
    };
    let docs = load(&o.input, &mut problems)?;
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    let loaded = started.elapsed();

    let found = match o.method {
        Method::Exact => exact::pairs(&docs, o)?,
        Method::MinHash => minhash::pairs(&docs, o)?,
        Method::SimHash => simhash::pairs(&docs, o)?,
        Method::SigNcd => signcd::pairs(&docs, o)?,
        Method::IMatch => imatch::pairs(&docs, o)?,
    };
    let pairs = &found.pairs;

    let t = Instant::now();
    let mut uf = UnionFind::new(docs.len());
    for p in pairs {
        uf.union(p.a, p.b);
    }
    let labels = uf.labels();
    let mut groups: Vec<Vec<usize>> = uf.groups().into_iter().filter(|g| g.len() > 1).collect();
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    let grouped = t.elapsed();

    if let Some(path) = &o.pairs_out {
        write_file(path, |w| {
            for p in pairs {
                let s = p.score;
                writeln!(w, "{}\t{}\t{s:.6}", docs[p.a].id, docs[p.b].id)?;
            }
            Ok(())
        })?;
    }
    if let Some(path) = &o.clusters_out {
        write_file(path, |w| {
            for (d, &l) in docs.iter().zip(&labels) {
                writeln!(w, "{}\t{l}", d.id)?;
            }
            Ok(())
        })?;
    }

    let in_groups: usize = groups.iter().map(Vec::len).sum();
    let mut report = String::new();
    let _ = writeln!(report, "input:       {}", o.input.display());
    let _ = writeln!(
        report,
        "documents:   {} ({:.1} MB{})",
        docs.len(),
        bytes as f64 / 1e6,
        if problems.count > 0 {
            format!(", {} skipped", problems.count)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        report,
        "method:      {}{}{}",
        found.method,
        match (&o.method, o.char_k) {
            (Method::SigNcd, _) => " over punctuation-spot signatures".to_string(),
            (Method::IMatch, _) => String::new(), // word unigrams, said in the method
            (_, Some(k)) => format!(" over character {k}-grams"),
            (_, None) => format!(" over word {}-grams", o.k),
        },
        if matches!(o.method, Method::SimHash | Method::IMatch) {
            String::new() // the Hamming bound or a shared signature decides
        } else {
            format!(", threshold {}", o.threshold)
        }
    );
    let _ = writeln!(report, "pairs:       {}", pairs.len());
    let _ = writeln!(
        report,
        "groups:      {} (holding {in_groups} documents; {} documents have no near-duplicate)",
        groups.len(),
        docs.len() - in_groups
    );
    let _ = writeln!(
        report,
        "time:        load {loaded:.2?}, {}, group {grouped:.2?}; total {:.2?}",
        found.timing,
        started.elapsed()
    );
    for (n, g) in groups.iter().take(o.top).enumerate() {
        let _ = writeln!(report, "\ngroup {} ({} documents):", n + 1, g.len());
        for &i in g.iter().take(6) {
            let _ = writeln!(
                report,
                "  {:<28} {}",
                snippet(&docs[i].id, 28),
                snippet(&docs[i].text, 60)
            );
        }
        if g.len() > 6 {
            let _ = writeln!(report, "  … and {} more", g.len() - 6);
        }
    }
    print!("{report}");
    Ok(())
}

/// The pairs a method found, `(a, b, score)` with `a < b` (the one pair currency,
/// `ndd::ScoredPair`), and how it spent its time.
pub(crate) struct Found {
    pairs: Vec<ScoredPair>,
    method: String,
    timing: String,
}

fn write_file(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = BufWriter::new(file);
    body(&mut w)
        .and_then(|()| w.flush())
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|o| run(&o));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

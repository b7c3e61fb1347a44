//! The command line: subcommands and options, parsed by clap from these types (their
//! doc comments are the `--help` text).

use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
use clap::{Args, Parser, Subcommand, ValueEnum};
use ndd_pipeline::{Method, Verifier};

use crate::error::CliError;
use crate::files::{Output, Read};
use crate::output::Format;

/// Near-duplicate detection of text: finds documents that say the same thing with
/// small differences, groups them, and keeps one of each group.
#[derive(Debug, Parser)]
#[command(name = "ndd", version, propagate_version = true, max_term_width = 100)]
#[command(
    after_help = "Exit status: 0 on success, 1 when the run failed (unreadable \
    input, no document read, bad input under --on-error stop, an output that cannot be \
    written), 2 for invalid options, 130 or 143 when interrupted by SIGINT or SIGTERM \
    (the run's temporary files removed, every output as it was or complete)."
)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Find near-duplicate groups in a corpus and write the deduplicated result.
    ///
    /// With no --input, runs on the bundled corpus of 562 Debian copyright files
    /// (data/debian-copyright.jsonl of the source repository).
    Dedup(Box<DedupArgs>),
    /// Show what a threshold and signature size mean before a run: the bands and rows,
    /// the probability that a pair becomes a candidate, expected recall, candidates
    /// and bytes per document.
    Explain(ExplainArgs),
    /// Learn k-gram weights from a labeled JSONL corpus (ANDD: Hajishirzi, Yih and
    /// Kołcz, SIGIR 2010) and write the model.
    ///
    /// Documents with the same value of --label-field are near-duplicates of each
    /// other; training prefers their pairs to pairs of different labels.
    Train(TrainArgs),
    /// Find the indexed documents nearest to each query (--top-k) or containing most
    /// of it (--containment), against an index saved by `ndd dedup --index-out`.
    ///
    /// Writes one JSONL line per query: {"id": ..., "neighbours": [{"id": ...,
    /// "score": ...}, ...]}, highest score first; scores are MinHash estimates (of
    /// the Jaccard similarity, or of the share of the query's shingles in the
    /// document), since the index keeps signatures, not texts.
    Query(QueryArgs),
    /// Write the HTML report of a finished `ndd dedup` run from its outputs, without
    /// running it again: the input it read, its --clusters-out and, for the scores,
    /// its --pairs-out. For a run too large to repeat (--work-dir); an in-memory run
    /// writes the same page with --report-out.
    Report(ReportArgs),
    /// Remove lines or paragraphs repeated across the corpus (navigation, cookie
    /// notices, license headers): units counted by normalized hash, then every
    /// occurrence of a unit seen at least --min-count times, or every occurrence after
    /// the first (--keep-first), cut from the documents, which are written back with
    /// all other fields intact.
    ///
    /// As CCNet's paragraph deduplication (Wenzek et al., LREC 2020, section 3.3) and
    /// datatrove's line deduplication. Run it after `ndd dedup` on the kept corpus.
    Lines(Box<LinesArgs>),
    /// Find the long spans of text that documents share verbatim (boilerplate,
    /// licence texts, quoted passages), which document-level near-duplicate
    /// detection does not see, and remove them: every span of at least --min-length
    /// bytes found in two documents or more (ExactSubstr of Lee et al., ACL 2022,
    /// section 4.1, with a suffix array).
    ///
    /// Writes the records with those spans cut out of their text (--out), the byte
    /// ranges cut per document (--ranges-out) and the spans cut most often
    /// (--report-out).
    Substrings(SubstringsArgs),
    /// Print a shell completion script (for example `ndd completions bash >
    /// ~/.local/share/bash-completion/completions/ndd`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `ndd dedup`.
#[derive(Debug, Args)]
pub(crate) struct DedupArgs {
    /// Where the documents come from.
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// How documents are compared.
    #[command(flatten)]
    pub(crate) method: MethodArgs,
    /// What is written.
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// Incremental use with a saved index.
    #[command(flatten)]
    pub(crate) index: IndexArgs,
    /// Corpora larger than memory.
    #[command(flatten)]
    pub(crate) scale: ScaleArgs,
    /// Streams: flag-only deduplication with Bloom filters.
    #[command(flatten)]
    pub(crate) bloom: BloomArgs,
    /// No progress bars and no summary (warnings and errors still go to stderr)
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// How many of the largest groups the summary shows.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub(crate) top: usize,
}

/// Input options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Input")]
pub(crate) struct InputArgs {
    /// A folder of text/HTML files (plain or gzip), a JSONL file (plain or gzip) of {"id": ..., "text":
    /// ...} lines, or `-` for JSONL on standard input [default: the bundled corpus]
    #[arg(long, short, value_name = "PATH")]
    pub(crate) input: Option<PathBuf>,
    /// JSONL field holding each document's id (the line number when absent; named
    /// here, a field no record has is an error) [default: id]. Any field option takes
    /// a JSON pointer for a nested field: /meta/id
    #[arg(long, value_name = "FIELD")]
    pub(crate) id_field: Option<String>,
    /// JSONL field holding each document's text
    #[arg(long, default_value = "text", value_name = "FIELD")]
    pub(crate) text_field: String,
    /// JSONL field ordering documents (a number or an ISO 8601 date): the earliest
    /// copy of a form letter is its reference copy (--group durian), and the kept one
    /// under `--representative order`. A field no record has is an error; records
    /// without it are counted in a warning
    #[arg(long, value_name = "FIELD", alias = "timestamp-field")]
    pub(crate) order_field: Option<String>,
    /// How bytes that are not UTF-8 are read: utf-8 reports them as bad input; auto
    /// reads a file or line that is not UTF-8 as windows-1252; windows-1252 and
    /// latin-1 read every one so. UTF-16 files with a byte order mark are always
    /// decoded; the summary counts what was decoded
    #[arg(long, value_enum, default_value_t = EncodingName::Utf8, value_name = "ENCODING")]
    pub(crate) encoding: EncodingName,
    /// Write every bad line or file skipped to FILE, one JSON object a line:
    /// {"source", "line", "kind", "message"} (line is null for a folder's file)
    #[arg(long, value_name = "FILE")]
    pub(crate) problems_out: Option<PathBuf>,
    /// What to do with a bad line or file: skip it with a warning, or stop with an error
    #[arg(long, value_enum, default_value_t = OnError::Skip, value_name = "MODE")]
    pub(crate) on_error: OnError,
    /// Largest document accepted, in bytes; longer lines and files are skipped as bad
    /// input
    #[arg(long, default_value_t = ndd_pipeline::corpus::DEFAULT_MAX_DOCUMENT_BYTES, value_name = "BYTES")]
    pub(crate) max_document_bytes: u64,
    /// In a folder, follow symbolic links to files and folders outside it too (by
    /// default such a link is skipped as bad input, so a planted link cannot bring a
    /// file from elsewhere into the outputs)
    #[arg(long)]
    pub(crate) follow_links: bool,
}

impl InputArgs {
    /// The id field, named or the default.
    pub(crate) fn id_field(&self) -> &str {
        self.id_field.as_deref().unwrap_or("id")
    }
}

/// `--encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EncodingName {
    /// UTF-8 only: other bytes are bad input.
    #[value(name = "utf-8")]
    Utf8,
    /// UTF-8, or windows-1252 for a file or line that is not UTF-8.
    Auto,
    /// Windows-1252 (the superset of Latin-1 that browsers read for it).
    #[value(name = "windows-1252")]
    Windows1252,
    /// ISO-8859-1.
    #[value(name = "latin-1")]
    Latin1,
}

/// `--on-error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnError {
    /// Report bad input on stderr and go on.
    Skip,
    /// Stop at the first bad line or file (exit status 1).
    Stop,
}

/// Method options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Method")]
pub(crate) struct MethodArgs {
    /// minhash: MinHash + banded LSH (the general case); simhash: fingerprints at most
    /// --max-hamming bits apart; exact: exact Jaccard of all shingle sets (the
    /// reference, small corpora); signcd: compression distance of punctuation-spot
    /// signatures; imatch: I-Match signatures of mid-IDF words
    #[arg(long, default_value = "minhash", value_parser = method_parser(), value_name = "METHOD")]
    pub(crate) method: Method,
    /// Minimum similarity in (0, 1] for a pair to count [default: 0.8]: 0.8 means 80%
    /// of the two documents' distinct shingles are shared
    #[arg(long, short, value_name = "T")]
    pub(crate) threshold: Option<f64>,
    /// jaccard: exact Jaccard of the shingle sets (default for minhash); method: the
    /// method's own score (default for the others); containment: the smaller set
    /// within the larger; align, align-dice, align-containment, align-max: word order
    /// too (token alignment; see --explain-out)
    #[arg(long, value_parser = verifier_parser(), value_name = "HOW")]
    pub(crate) verify: Option<Verifier>,
    /// Words per shingle [default: 3]
    #[arg(long, value_name = "K", conflicts_with = "char_k")]
    pub(crate) k: Option<usize>,
    /// Character K-grams instead of words (Chinese, Japanese, Thai)
    #[arg(long, value_name = "K")]
    pub(crate) char_k: Option<usize>,
    /// Do not remove exact copies first (every pair between copies is then reported,
    /// not one per copy)
    #[arg(long)]
    pub(crate) no_exact_pass: bool,
    /// Normalize text to Unicode NFKC first (full-width letters, ligatures and other
    /// compatibility forms count as plain ones)
    #[arg(long)]
    pub(crate) nfkc: bool,
    /// Which document of a group is kept: the first read, the smallest id, the
    /// longest, or the smallest --order-field value
    #[arg(long, value_enum, default_value_t = RepresentativeName::First, value_name = "WHICH")]
    pub(crate) representative: RepresentativeName,
    /// minhash: hash values per document [default: 128]; standard error of the
    /// estimate sqrt(J(1-J)/N), 0.035 at 0.8
    #[arg(long, value_name = "N", help_heading = "MinHash")]
    pub(crate) num_perm: Option<usize>,
    /// minhash: recall (the fewest candidates with 99% recall at the threshold) or
    /// balanced (false positives and negatives weighed equally) [default: recall]
    #[arg(long, value_enum, value_name = "HOW", help_heading = "MinHash", conflicts_with_all = ["bands", "rows"])]
    pub(crate) banding: Option<BandingName>,
    /// minhash: explicit number of LSH bands (with --rows; bands x rows <= --num-perm)
    #[arg(long, value_name = "B", help_heading = "MinHash", requires = "rows")]
    pub(crate) bands: Option<usize>,
    /// minhash: explicit rows per band (with --bands)
    #[arg(long, value_name = "R", help_heading = "MinHash", requires = "bands")]
    pub(crate) rows: Option<usize>,
    /// minhash: most members of one LSH bucket a document is compared with, the newest
    /// first, or `none` [default: 256]; bounds the pairs of thousands of
    /// near-identical documents (their group is kept, some of its pairs not reported);
    /// every engine reads at most 1,024, `none` included
    #[arg(long, value_name = "N", value_parser = parse_bucket_scan, help_heading = "MinHash")]
    pub(crate) max_bucket_scan: Option<BucketScan>,
    /// simhash: signature length in bits [default: 64]
    #[arg(long, value_name = "M", help_heading = "SimHash")]
    pub(crate) bits: Option<usize>,
    /// simhash: most differing bits for a pair [default: 3 per 64 bits]
    #[arg(long, value_name = "H", help_heading = "SimHash")]
    pub(crate) max_hamming: Option<usize>,
    /// simhash: feature weights [default: binary]
    #[arg(
        long,
        value_enum,
        value_name = "W",
        help_heading = "SimHash",
        conflicts_with = "weights"
    )]
    pub(crate) weighting: Option<WeightingName>,
    /// simhash or minhash: k-gram weights learned by `ndd train` (the model's k-grams
    /// replace --k; document frequencies come from this corpus). With minhash the
    /// signatures are weighted samples (ICWS) of the learned weighted Jaccard,
    /// verified by their estimate unless --verify says otherwise
    #[arg(long, value_name = "MODEL", help_heading = "Learned weights")]
    pub(crate) weights: Option<PathBuf>,
    /// imatch: randomized extra lexicons, 0 to 30 [default: 5]
    #[arg(long, value_name = "K", help_heading = "I-Match")]
    pub(crate) lexicons: Option<usize>,
    /// imatch: a lexicon built from another corpus [default: built from the input]
    #[arg(long, value_name = "FILE", help_heading = "I-Match")]
    pub(crate) lexicon: Option<PathBuf>,
    /// imatch: normalized-IDF window of the lexicon's words [default: 0.2,0.8]
    #[arg(long, value_name = "MIN,MAX", value_parser = parse_window, help_heading = "I-Match")]
    pub(crate) nidf: Option<(f64, f64)>,
    /// imatch: required fraction of a document's distinct terms in the lexicon
    #[arg(long, value_name = "F", help_heading = "I-Match")]
    pub(crate) min_coverage: Option<f64>,
    /// signcd: snappy (default), lz4, deflate, zlib, gzip, or name-level (gzip-9)
    #[arg(long, value_name = "C", help_heading = "SigNCD")]
    pub(crate) compressor: Option<String>,
    /// How pairs become groups. components: connected components of the pairs found
    /// (a chain of pairs is one group); center: the document paired with the most
    /// others is kept with its partners, then the next among those left (no chains:
    /// every member is paired with the kept one, which need not be the first); linkage:
    /// chains followed only through pairs scoring at least --chain-floor, weaker pairs
    /// join two groups when they are at least --link-fraction of the pairs between
    /// them (components at a threshold at or above the floor; as with components, a
    /// member may be below --threshold to the kept one); durian: DURIAN's constrained
    /// clustering over every candidate (reference copies seed groups, a document joins
    /// the nearest seed under --theta, attribute rules honoured; a member below
    /// --threshold to the kept document is kept)
    #[arg(long, value_enum, default_value_t = GroupName::Components, value_name = "HOW", help_heading = "Grouping")]
    pub(crate) group: GroupName,
    /// linkage: chains are followed through pairs scoring at least C [default: 0.9]
    #[arg(long, value_name = "C", help_heading = "Grouping")]
    pub(crate) chain_floor: Option<f64>,
    /// linkage: pairs below --chain-floor join two groups when they are at least F of
    /// the pairs between them (|A| x |B|) [default: 0.125]
    #[arg(long, value_name = "F", help_heading = "Grouping")]
    pub(crate) link_fraction: Option<f64>,
    /// durian: JSONL fields that make constraints, comma-separated, each NAME=cannot
    /// (documents whose values differ are never grouped: a docket), NAME=family (the
    /// same value brings a document 0.05 closer to a reference copy: a value that
    /// identifies a campaign, such as a relay, not one campaigns share, such as a mail
    /// footer), NAME=both, or NAME alone for family
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        help_heading = "Grouping"
    )]
    pub(crate) attribute_fields: Vec<String>,
    /// durian: links you assert, one per line: must, cannot or family, then the two
    /// documents' ids, separated by tabs (lines starting with # are comments)
    #[arg(long, value_name = "FILE", help_heading = "Grouping")]
    pub(crate) links_in: Option<PathBuf>,
    /// durian: largest KL-divergence distance at which a document joins a seed
    /// [default: 1.0]; larger makes larger groups
    #[arg(long, value_name = "THETA", help_heading = "Grouping")]
    pub(crate) theta: Option<f64>,
    /// durian: a text with more than M exact copies is a form letter, its earliest
    /// copy the reference copy [default: 5]
    #[arg(long, value_name = "M", help_heading = "Grouping")]
    pub(crate) min_copies: Option<usize>,
}

/// `ndd report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The documents the run read, with the options it read them with.
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// The run's --clusters-out (TSV or JSONL): one line per document, in input order
    #[arg(long, value_name = "FILE")]
    pub(crate) clusters: PathBuf,
    /// The run's --pairs-out (TSV or JSONL), for the scores of the pairs found
    #[arg(long, value_name = "FILE")]
    pub(crate) pairs: Option<PathBuf>,
    /// The run's threshold, marked on the plots
    #[arg(long, short, value_name = "T", value_parser = parse_unit_interval)]
    pub(crate) threshold: Option<f64>,
    /// Where the page goes (replaced atomically)
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: PathBuf,
    /// No progress bars and no summary (warnings and errors still go to stderr)
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// `ndd train`.
#[derive(Debug, Args)]
pub(crate) struct TrainArgs {
    /// A JSONL file (plain or gzip) of labeled documents, or `-` for standard input
    #[arg(long, short, value_name = "PATH")]
    pub(crate) input: PathBuf,
    /// JSONL field holding each document's cluster label (documents without it count
    /// in the collection statistics only)
    #[arg(long, value_name = "FIELD")]
    pub(crate) label_field: String,
    /// Where to write the model (a small binary file)
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: PathBuf,
    /// The similarity to learn for: cosine (SimHash estimates it) or jaccard (weighted
    /// MinHash)
    #[arg(long, default_value = "cosine", value_name = "OBJECTIVE")]
    pub(crate) objective: String,
    /// Words per k-gram
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub(crate) k: usize,
    /// Training instances (pairs of a near-duplicate pair and an unrelated pair)
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub(crate) instances: usize,
    /// Most L-BFGS iterations
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub(crate) max_iterations: u64,
    /// L2 regularization weight [default: 0.001]
    #[arg(long, value_name = "ALPHA")]
    pub(crate) l2: Option<f64>,
    /// Seed of the instances drawn
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub(crate) seed: u64,
    /// JSONL field holding each document's id
    #[arg(long, default_value = "id", value_name = "FIELD")]
    pub(crate) id_field: String,
    /// JSONL field holding each document's text
    #[arg(long, default_value = "text", value_name = "FIELD")]
    pub(crate) text_field: String,
    /// JSONL field holding a title or e-mail subject (the in-title feature)
    #[arg(long, value_name = "FIELD")]
    pub(crate) title_field: Option<String>,
    /// JSONL field holding a URL (the in-URL feature)
    #[arg(long, value_name = "FIELD")]
    pub(crate) url_field: Option<String>,
    /// What to do with a bad line: skip it with a warning, or stop with an error
    #[arg(long, value_enum, default_value_t = OnError::Skip, value_name = "MODE")]
    pub(crate) on_error: OnError,
    /// No progress spinner and no summary (warnings and errors still go to stderr)
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// `ndd query`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["top_k", "containment"])))]
pub(crate) struct QueryArgs {
    /// The index, saved by `ndd dedup --index-out`
    #[arg(long, value_name = "PATH")]
    pub(crate) index: PathBuf,
    /// The queries: a JSONL file (plain or gzip) of {"id": ..., "text": ...} lines, a
    /// folder of text files, or `-` for JSONL on standard input
    #[arg(long, short, value_name = "PATH")]
    pub(crate) input: PathBuf,
    /// Return the K indexed documents most similar to each query (LSH Forest
    /// candidates ranked by their exact Jaccard similarity from the index's shingle
    /// sets; by the MinHash estimate, with its std_error, for an index without sets)
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub(crate) top_k: Option<u64>,
    /// Return the indexed documents that contain at least this share of each query's
    /// distinct shingles, in (0, 1] (LSH Ensemble; scored exactly from the index's
    /// shingle sets, or estimated with its std_error for an index without sets). Needs
    /// an index with set sizes (saved since byte-form version 2)
    #[arg(long, value_name = "T", value_parser = parse_unit_interval)]
    pub(crate) containment: Option<f64>,
    /// Write the results here instead of standard output (atomically)
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// JSONL field holding each query's id (the line number when absent)
    #[arg(long, default_value = "id", value_name = "FIELD")]
    pub(crate) id_field: String,
    /// JSONL field holding each query's text
    #[arg(long, default_value = "text", value_name = "FIELD")]
    pub(crate) text_field: String,
    /// What to do with a bad query line: skip it with a warning, or stop with an error
    #[arg(long, value_enum, default_value_t = OnError::Skip, value_name = "MODE")]
    pub(crate) on_error: OnError,
    /// Largest query accepted, in bytes; longer ones are skipped as bad input
    #[arg(long, default_value_t = ndd_pipeline::corpus::DEFAULT_MAX_DOCUMENT_BYTES, value_name = "BYTES")]
    pub(crate) max_document_bytes: u64,
    /// top-k: prefix trees of the forest [default: 8, or one per value below 8]
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "containment",
        help_heading = "LSH Forest (--top-k)"
    )]
    pub(crate) trees: Option<usize>,
    /// top-k: values per tree, the longest prefix matched [default: num_perm / trees]
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "containment",
        help_heading = "LSH Forest (--top-k)"
    )]
    pub(crate) depth: Option<usize>,
    /// top-k: candidates ranked per result asked for (at least K x this many are
    /// examined; more finds more of the true top K)
    #[arg(long, value_name = "N", conflicts_with = "containment", default_value_t = ndd_pipeline::DEFAULT_CANDIDATES_PER_RESULT, help_heading = "LSH Forest (--top-k)")]
    pub(crate) candidates_per_result: usize,
    /// top-k: most candidates examined at one prefix length (bounds the work on many
    /// identical documents)
    #[arg(long, value_name = "N", conflicts_with = "containment", default_value_t = ndd_pipeline::DEFAULT_MAX_EXAMINED, help_heading = "LSH Forest (--top-k)")]
    pub(crate) max_examined: usize,
    /// containment: size partitions per doubling of set size, 1 or 2 [default: 2]
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "top_k",
        help_heading = "LSH Ensemble (--containment)"
    )]
    pub(crate) partitions_per_doubling: Option<u8>,
    /// containment: longest LSH band, in values [default: 8]
    #[arg(
        long,
        value_name = "R",
        conflicts_with = "top_k",
        help_heading = "LSH Ensemble (--containment)"
    )]
    pub(crate) max_rows: Option<usize>,
    /// containment: weight of false negatives against false positives when bands are
    /// chosen, in [0, 1] [default: 0.9, recall-oriented]; 0.5 (equal weights) gives
    /// fewer candidates and misses most sources of short queries at 0.9
    #[arg(long, value_name = "W", value_parser = parse_weight, conflicts_with = "top_k", help_heading = "LSH Ensemble (--containment)")]
    pub(crate) fn_weight: Option<f64>,
    /// No summary on stderr (warnings and errors still go there)
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// A number in (0, 1].
fn parse_unit_interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 1.0 => Ok(t),
        _ => Err(format!("expected a number in (0, 1], got {s:?}")),
    }
}

/// A number in [0, 1].
fn parse_weight(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(w) if (0.0..=1.0).contains(&w) => Ok(w),
        _ => Err(format!("expected a number in [0, 1], got {s:?}")),
    }
}

/// `--max-bucket-scan`: a bound, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BucketScan(pub(crate) Option<usize>);

/// Parses `--max-bucket-scan`: a positive number or `none`.
fn parse_bucket_scan(s: &str) -> Result<BucketScan, String> {
    if s == "none" {
        return Ok(BucketScan(None));
    }
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(BucketScan(Some(n))),
        _ => Err(format!("expected a positive number or `none`, got {s:?}")),
    }
}

/// `--group`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum GroupName {
    /// Connected components of the pairs found.
    Components,
    /// Center grouping: the document paired with the most others keeps its partners.
    Center,
    /// Linkage grouping: single link above a chaining floor, average linkage below.
    Linkage,
    /// DURIAN's constrained clustering.
    Durian,
}

impl GroupName {
    /// The name, as the library's `GroupMethod` parses it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            GroupName::Components => "components",
            GroupName::Center => "center",
            GroupName::Linkage => "linkage",
            GroupName::Durian => "durian",
        }
    }
}

impl MethodArgs {
    /// The files the method options read (`--weights`, `--links-in`, `--lexicon`),
    /// which no output may replace.
    pub(crate) fn reads(&self) -> [Read<'_>; 3] {
        [
            ("--weights", self.weights.as_deref()),
            ("--links-in", self.links_in.as_deref()),
            ("--lexicon", self.lexicon.as_deref()),
        ]
    }

    /// The flags given that set how documents are compared (refused with a saved
    /// index, whose settings decide).
    pub(crate) fn given(&self) -> Vec<&'static str> {
        let flags = [
            ("--method", self.method.name() != "minhash"),
            ("--threshold", self.threshold.is_some()),
            ("--verify", self.verify.is_some()),
            ("--k", self.k.is_some()),
            ("--char-k", self.char_k.is_some()),
            ("--no-exact-pass", self.no_exact_pass),
            ("--nfkc", self.nfkc),
            (
                "--representative",
                self.representative != RepresentativeName::First,
            ),
            ("--num-perm", self.num_perm.is_some()),
            ("--banding", self.banding.is_some()),
            ("--bands", self.bands.is_some()),
            ("--bits", self.bits.is_some()),
            ("--max-hamming", self.max_hamming.is_some()),
            ("--weighting", self.weighting.is_some()),
            ("--weights", self.weights.is_some()),
            ("--lexicons", self.lexicons.is_some()),
            ("--lexicon", self.lexicon.is_some()),
            ("--nidf", self.nidf.is_some()),
            ("--min-coverage", self.min_coverage.is_some()),
            ("--compressor", self.compressor.is_some()),
            ("--group", self.group != GroupName::Components),
            ("--chain-floor", self.chain_floor.is_some()),
            ("--link-fraction", self.link_fraction.is_some()),
            ("--attribute-fields", !self.attribute_fields.is_empty()),
            ("--links-in", self.links_in.is_some()),
            ("--theta", self.theta.is_some()),
            ("--min-copies", self.min_copies.is_some()),
        ];
        flags
            .into_iter()
            .filter(|&(_, given)| given)
            .map(|(f, _)| f)
            .collect()
    }
}

/// `--method`: every method of the library, parsed by its `FromStr`.
fn method_parser() -> impl clap::builder::TypedValueParser<Value = Method> {
    let choices = Method::choices()
        .into_iter()
        .map(|(name, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(choices).try_map(|s| s.parse::<Method>())
}

/// `--verify`: every verifier of the library, parsed by its `FromStr`.
fn verifier_parser() -> impl clap::builder::TypedValueParser<Value = Verifier> {
    let choices = Verifier::CHOICES
        .iter()
        .map(|&(name, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(choices).try_map(|s| s.parse::<Verifier>())
}

/// `--representative`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RepresentativeName {
    /// The first document read.
    First,
    /// The smallest id.
    SmallestId,
    /// The longest text.
    Longest,
    /// The smallest --order-field value.
    Order,
}

/// `--banding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum BandingName {
    /// 99% recall at the threshold with the fewest candidates.
    Recall,
    /// False positives and negatives weighed equally.
    Balanced,
}

/// `--weighting`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WeightingName {
    /// Every feature weighs 1.
    Binary,
    /// Term frequency.
    Tf,
    /// Term frequency times inverse document frequency.
    Tfidf,
}

/// Output options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Output")]
pub(crate) struct OutputArgs {
    /// Write the deduplicated corpus: the kept JSONL records, unchanged (for a folder,
    /// {"id", "text"} records)
    #[arg(long, value_name = "FILE")]
    pub(crate) keep_out: Option<PathBuf>,
    /// Write every record with "ndd_group" (the id of the document kept for its
    /// group), "ndd_kept" (true/false) and "ndd_reason" (unique, kept, exact, near)
    #[arg(long, value_name = "FILE")]
    pub(crate) annotate_out: Option<PathBuf>,
    /// Write the ids of the documents to drop, one per line (escaped as in TSV)
    #[arg(long, value_name = "FILE")]
    pub(crate) drop_out: Option<PathBuf>,
    /// Write every pair found: id_a, id_b, score (higher is more similar)
    #[arg(long, value_name = "FILE")]
    pub(crate) pairs_out: Option<PathBuf>,
    /// Write every document's cluster: id, cluster (the input position of the
    /// document kept for its group)
    #[arg(long, value_name = "FILE")]
    pub(crate) clusters_out: Option<PathBuf>,
    /// Write, per pair found, what differs: the category of the second document
    /// relative to the first (minor-change, block-added, key-block, ...), their
    /// blocks with byte offsets and the unique text of each (JSONL); at most the first
    /// 1,000 pairs of each group. Pairs with a document of a saved index (--index-in)
    /// are left out: its texts are not kept
    #[arg(long, value_name = "FILE")]
    pub(crate) explain_out: Option<PathBuf>,
    /// Write, per member of every group, its category relative to the document kept
    /// for the group (minor-change, block-added, key-block, ...) and its unique text
    /// (JSONL); the kept document's line says how many exact copies it has when it is
    /// a form letter's reference copy (--group durian)
    #[arg(long, value_name = "FILE")]
    pub(crate) members_out: Option<PathBuf>,
    /// Write one self-contained HTML page to look at before dropping anything: the
    /// summary, plots of the scores, the banding and the group sizes, and the groups
    /// (largest first, with search and filters), each member's score, reason and
    /// category, and a side-by-side diff of it against the document kept. It opens
    /// offline in any browser
    #[arg(long, value_name = "FILE")]
    pub(crate) report_out: Option<PathBuf>,
    /// Format of --pairs-out and --clusters-out: TSV with a header line (tab, newline,
    /// carriage return and backslash in ids escaped as \t \n \r \\), or JSONL
    #[arg(long, value_enum, default_value_t = Format::Tsv, value_name = "FORMAT")]
    pub(crate) format: Format,
}

impl OutputArgs {
    /// The output files of `ndd dedup`'s output options, each with its path when it
    /// is asked for: the one list the modes check and refuse from (each mode adds
    /// `--problems-out` and the state it writes, an index or filters).
    pub(crate) fn files(&self) -> [(Output, Option<&Path>); 8] {
        [
            (Output::Keep, self.keep_out.as_deref()),
            (Output::Annotate, self.annotate_out.as_deref()),
            (Output::Drop, self.drop_out.as_deref()),
            (Output::Pairs, self.pairs_out.as_deref()),
            (Output::Clusters, self.clusters_out.as_deref()),
            (Output::Explain, self.explain_out.as_deref()),
            (Output::Members, self.members_out.as_deref()),
            (Output::Report, self.report_out.as_deref()),
        ]
    }

    /// A usage error "`--x-out` `why`" for the first output asked for among
    /// `refused`.
    pub(crate) fn refuse(&self, refused: &[Output], why: &str) -> Result<(), CliError> {
        match self
            .files()
            .into_iter()
            .find(|(output, path)| path.is_some() && refused.contains(output))
        {
            Some((output, _)) => Err(CliError::Usage(format!("{} {why}", output.flag()))),
            None => Ok(()),
        }
    }
}

/// Incremental options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Incremental batches (minhash)")]
pub(crate) struct IndexArgs {
    /// Save an index of the documents seen, to check later batches against them: one
    /// file, or a folder (a name ending in `/`, or an existing folder) that later
    /// batches append to without rewriting it
    #[arg(long, value_name = "PATH")]
    pub(crate) index_out: Option<PathBuf>,
    /// Check this batch against a saved index: pairs within the batch and with the
    /// indexed documents; the index's settings decide the method
    #[arg(long, value_name = "PATH")]
    pub(crate) index_in: Option<PathBuf>,
    /// With --index-in: add this batch to the saved index (a file rewritten in place,
    /// a folder appended to; or written to --index-out when given)
    #[arg(long, requires = "index_in")]
    pub(crate) add: bool,
}

/// Out-of-core options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Corpora larger than memory")]
pub(crate) struct ScaleArgs {
    /// Deduplicate out of core: the MinHash or SimHash stages write sorted runs, pairs
    /// and assignments to this folder under --memory-budget, and a rerun reuses every
    /// stage that finished (same outputs as the in-memory run, with every --verify;
    /// the input is read twice, so it must be a file or folder)
    #[arg(long, value_name = "DIR")]
    pub(crate) work_dir: Option<PathBuf>,
    /// With --work-dir: memory for the whole process, in bytes or with a K, M or G
    /// suffix (powers of 1024); the stages get it less 64M (what the rest of the
    /// process takes), held from 65M up, at least 1M [default: 1G]
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "work_dir")]
    pub(crate) memory_budget: Option<u64>,
}

/// Stream options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Streams (--bloom: flag-only, minhash)")]
pub(crate) struct BloomArgs {
    /// Flag, in input order, each document that shares an LSH band with an earlier one
    /// (of this input, or of the streams before with --bloom-in), through one Bloom
    /// filter per band (LSHBloom): a few tens of bytes per document, no texts kept,
    /// no pairs or groups. Flagged documents are left out of --keep-out and listed in
    /// --drop-out. Some documents are flagged by chance (the false-positive rate the
    /// summary reports); none that banding would pair is missed
    #[arg(long)]
    pub(crate) bloom: bool,
    /// Continue from filters saved by --bloom-out: their settings (MinHash values,
    /// shingles, threshold, bands, capacity) decide
    #[arg(long, value_name = "PATH")]
    pub(crate) bloom_in: Option<PathBuf>,
    /// Save the filters with this input's documents added (may be the --bloom-in file)
    #[arg(long, value_name = "PATH")]
    pub(crate) bloom_out: Option<PathBuf>,
    /// Documents the filters are sized for; past it the false-positive rate grows
    /// [default: 1000000]
    #[arg(long, value_name = "N")]
    pub(crate) bloom_capacity: Option<usize>,
    /// Overall false-positive rate at capacity, in (0, 1): the chance that a document
    /// without an earlier near-duplicate is flagged [default: 0.001]
    #[arg(long, value_name = "P")]
    pub(crate) bloom_fp_rate: Option<f64>,
    /// Verify each flag: keep a compact signature per document (one byte per MinHash
    /// value and a 32-bit key per band, about num_perm + 8 x bands bytes) and flag a
    /// document only when the estimate against an earlier document sharing a band
    /// reaches the threshold, as the verified run drops it. Saved with --bloom-out; a
    /// --bloom-in file decides by itself whether it verifies
    #[arg(long)]
    pub(crate) bloom_verify: bool,
}

impl BloomArgs {
    /// The stream options given besides `--bloom`.
    pub(crate) fn given(&self) -> Vec<&'static str> {
        [
            ("--bloom-in", self.bloom_in.is_some()),
            ("--bloom-out", self.bloom_out.is_some()),
            ("--bloom-capacity", self.bloom_capacity.is_some()),
            ("--bloom-fp-rate", self.bloom_fp_rate.is_some()),
            ("--bloom-verify", self.bloom_verify),
        ]
        .into_iter()
        .filter(|&(_, g)| g)
        .map(|(f, _)| f)
        .collect()
    }
}

/// `ndd substrings`. `--order-field` is hidden: no document comes before another here
/// (the command refuses it).
#[derive(Debug, Args)]
#[command(mut_arg("order_field", |a| a.hide(true)))]
pub(crate) struct SubstringsArgs {
    /// Where the documents come from.
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// Shortest span cut, in --unit: the paper's 50 tokens are about 100 bytes of
    /// English text (its reference implementation's setting)
    #[arg(long, default_value_t = 100, value_name = "L", help_heading = "Search")]
    pub(crate) min_length: usize,
    /// What --min-length counts: bytes of the UTF-8 text (a span cut at a character's
    /// middle takes the whole character)
    #[arg(long, value_enum, default_value_t = SpanUnit::Bytes, value_name = "UNIT", help_heading = "Search")]
    pub(crate) unit: SpanUnit,
    /// Which repeats are cut: across-documents (a span found in two documents or
    /// more) or anywhere (also a span found twice in one document)
    #[arg(long, value_enum, default_value_t = ScopeName::AcrossDocuments, value_name = "SCOPE", help_heading = "Search")]
    pub(crate) scope: ScopeName,
    /// Working memory of the suffix arrays, in bytes or with a K, M or G suffix
    /// (powers of 1024), at 8 bytes per byte sorted: a corpus larger is sorted in
    /// shards, each pair of shards together (the same result; k shards take k(k-1)/2
    /// passes). The documents are held in memory besides [default: one pass]
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Search")]
    pub(crate) memory_budget: Option<u64>,
    /// Write the records with the spans cut from their text and every other field as
    /// it was (a folder's documents as {"id", "text"}); gzip when FILE ends in .gz;
    /// a Parquet or zstd input (or folder of shards) in its own format; - for
    /// standard output
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) out: Option<PathBuf>,
    /// Write one JSON line per document with spans cut: {"id": ..., "ranges": [[start,
    /// end], ...]}, byte offsets into its text, end excluded
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) ranges_out: Option<PathBuf>,
    /// Write the run's figures and the spans cut most often (--top) as one JSON object
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) report_out: Option<PathBuf>,
    /// How many of the spans cut most often the summary and --report-out list
    #[arg(long, default_value_t = 5, value_name = "N", help_heading = "Output")]
    pub(crate) top: usize,
    /// No progress bars and no summary (warnings and errors still go to stderr)
    #[arg(long, short, help_heading = "Output")]
    pub(crate) quiet: bool,
}

/// `--unit` of `ndd substrings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SpanUnit {
    /// Bytes of the UTF-8 text.
    Bytes,
}

/// `--scope` of `ndd substrings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScopeName {
    /// A span found in two documents or more.
    AcrossDocuments,
    /// A span found twice anywhere, in one document too.
    Anywhere,
}

/// `1048576`, `512K`, `64M`, `2G` (powers of 1024).
fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let shift = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("{s:?}: expected bytes or a size like 512M or 2G")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?}: expected bytes or a size like 512M or 2G"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s:?}: too large"))
}

/// `ndd lines`. `--order-field` is hidden: units are counted in input order, whatever
/// a field says (the command refuses it).
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("policy").required(true).args(["min_count", "keep_first"])))]
#[command(mut_arg("order_field", |a| a.hide(true)))]
pub(crate) struct LinesArgs {
    /// Where the documents come from.
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// Remove every occurrence of a unit counted at least N times (N >= 2)
    #[arg(long, value_name = "N", help_heading = "Units")]
    pub(crate) min_count: Option<u64>,
    /// Remove every occurrence of a unit after its first, in input order
    #[arg(long, help_heading = "Units")]
    pub(crate) keep_first: bool,
    /// What a unit is: a line, or a paragraph (lines between blank lines)
    #[arg(long, value_enum, default_value_t = UnitName::Line, value_name = "UNIT", help_heading = "Units")]
    pub(crate) unit: UnitName,
    /// Units shorter than this many characters (whitespace collapsed) are never
    /// counted nor removed
    #[arg(
        long,
        default_value_t = 0,
        value_name = "CHARS",
        help_heading = "Units"
    )]
    pub(crate) min_length: usize,
    /// What --min-count counts: every occurrence, or each document once
    #[arg(long, value_enum, default_value_t = CountName::Occurrences, value_name = "WHAT", help_heading = "Units")]
    pub(crate) count: CountName,
    /// Compare units without Unicode case folding (by default "Menu" is "MENU")
    #[arg(long, help_heading = "Units")]
    pub(crate) no_fold_case: bool,
    /// Compare units without NFKC (by default "ﬁle" is "file")
    #[arg(long, help_heading = "Units")]
    pub(crate) no_nfkc: bool,
    /// Compare digits as they are (by default every digit reads as 0, so "© 2019"
    /// is "© 2024")
    #[arg(long, help_heading = "Units")]
    pub(crate) keep_digits: bool,
    /// Write the corpus with the repeated units removed: each JSONL record with its
    /// text field replaced and every other byte kept (for a folder, {"id", "text"}
    /// records; a Parquet or zstd input, or folder of shards, in its own format);
    /// `-` for standard output
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) out: Option<PathBuf>,
    /// Leave out of --out the documents left with nothing but whitespace
    #[arg(long, help_heading = "Output")]
    pub(crate) drop_empty: bool,
    /// Write the counts and the most repeated units (--top) as one JSON object
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) report_out: Option<PathBuf>,
    /// How many of the most repeated units the summary and --report-out list
    #[arg(long, default_value_t = 10, value_name = "K", help_heading = "Output")]
    pub(crate) top: usize,
    /// Count out of core when the distinct units outgrow --memory-budget: sorted
    /// runs in this folder (the input is then read three times, so it must be a file
    /// or folder, or standard input spooled)
    #[arg(long, value_name = "DIR", help_heading = "Corpora larger than memory")]
    pub(crate) work_dir: Option<PathBuf>,
    /// With --work-dir: memory for the counts, in bytes or with a K, M or G suffix
    /// (powers of 1024), at least 1M [default: 1G]
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "work_dir", help_heading = "Corpora larger than memory")]
    pub(crate) memory_budget: Option<u64>,
    /// No progress bars and no summary (warnings and errors still go to stderr)
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// `--unit` of `ndd lines`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum UnitName {
    /// A line.
    Line,
    /// Consecutive lines that are not blank.
    Paragraph,
}

/// `--count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CountName {
    /// Every occurrence counts (CCNet).
    Occurrences,
    /// A document counts once (datatrove).
    Documents,
}

/// `ndd explain`.
#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// The similarity threshold in (0, 1]
    #[arg(long, short, default_value_t = ndd_pipeline::DEFAULT_THRESHOLD, value_name = "T")]
    pub(crate) threshold: f64,
    /// MinHash values per document
    #[arg(long, default_value_t = 128, value_name = "N")]
    pub(crate) num_perm: usize,
    /// recall (99% recall at the threshold, fewest candidates) or balanced
    #[arg(long, value_enum, value_name = "HOW", conflicts_with_all = ["bands", "rows"])]
    pub(crate) banding: Option<BandingName>,
    /// Explicit number of bands (with --rows)
    #[arg(long, value_name = "B", requires = "rows")]
    pub(crate) bands: Option<usize>,
    /// Explicit rows per band (with --bands)
    #[arg(long, value_name = "R", requires = "bands")]
    pub(crate) rows: Option<usize>,
    /// A corpus (as for dedup) to measure candidates and bytes per document on a
    /// sample of it
    #[arg(long, short, value_name = "PATH")]
    pub(crate) input: Option<PathBuf>,
    /// Documents sampled from --input (evenly spaced)
    #[arg(long, default_value_t = 2000, value_name = "N")]
    pub(crate) sample: usize,
    /// Words per shingle for the sample
    #[arg(long, default_value_t = 3, value_name = "K")]
    pub(crate) k: usize,
}

/// `MIN,MAX` of `--nidf`.
fn parse_window(s: &str) -> Result<(f64, f64), String> {
    s.split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
        .ok_or_else(|| format!("expected MIN,MAX (two numbers), got {s:?}"))
}

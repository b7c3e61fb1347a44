//! The command line, parsed by hand (no argument-parsing crate: the example's build
//! stays small). Options shared with `ndd dedup` have its names and meanings.

use std::path::PathBuf;

use ndd_pipeline::corpus::ReadOptions;
use ndd_pipeline::{Banding, Dedup, Method, MinHashConfig, Shingles, Verifier};

pub(crate) const USAGE: &str = "\
dedup-cluster: `ndd dedup` (MinHash, connected components) as one timely/differential
dataflow job, on worker threads of one process or on many processes. Its outputs are
byte for byte those of `ndd dedup` with the same options.

USAGE:
    dedup-cluster --input <PATH> [outputs] [options] [-w T] [-n N -p I -h HOSTFILE]

INPUT (read by every worker; worker i sketches documents i, i + W, i + 2W, ...):
    --input <PATH>              a JSONL file (plain or gzip) or a folder, as `ndd dedup`
                                reads it
    --id-field <FIELD>          [default: id]
    --text-field <FIELD>        [default: text]
    --max-document-bytes <N>    longest document accepted [default: ndd's]

OUTPUTS (written by worker 0 of process 0, in `ndd dedup`'s TSV format):
    --keep-out <FILE>           the kept documents' records
    --drop-out <FILE>           the dropped documents' ids
    --pairs-out <FILE>          id_a, id_b, score of every pair found
    --clusters-out <FILE>       id, cluster of every document

SETTINGS (as `ndd dedup`; every process must get the same):
    -t, --threshold <T>         [default: 0.8]
    --verify <HOW>              jaccard (default), containment or method
    --k <K> | --char-k <K>      word or character shingles [default: --k 3]
    --no-exact-pass             do not remove exact copies first
    --nfkc                      normalize text to NFKC first
    --num-perm <N>              MinHash values per document [default: 128]
    --bands <B> --rows <R>      explicit LSH banding [default: 99% recall at T]
    --max-bucket-scan <N|none>  members of a bucket each document is compared with,
                                the newest first [default: 256]

PROCESSES:
    -w <T>                      worker threads per process [default: 1]
    -n <N>                      number of processes [default: 1]
    -p <I>                      this process's index, 0..N [default: 0]
    -h <HOSTFILE>               N lines host:port, in process order (required when N > 1)
    --connect-timeout <SECS>    give up when the N processes are not all connected within
                                this time (a peer that died at start-up) [default: 120]

TESTING:
    --stall-ms <MS>             each worker sleeps this long after reading its share (to
                                kill a process mid-job and watch the others fail)
";

/// Everything the command line sets.
#[derive(Debug, Clone)]
pub(crate) struct Args {
    pub(crate) input: PathBuf,
    pub(crate) read: ReadOptions,
    pub(crate) dedup: Dedup,
    pub(crate) keep_out: Option<PathBuf>,
    pub(crate) drop_out: Option<PathBuf>,
    pub(crate) pairs_out: Option<PathBuf>,
    pub(crate) clusters_out: Option<PathBuf>,
    pub(crate) threads: usize,
    pub(crate) processes: usize,
    pub(crate) process: usize,
    pub(crate) hostfile: Option<PathBuf>,
    pub(crate) connect_timeout_secs: u64,
    pub(crate) stall_ms: u64,
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag}: `{value}` is not a valid number"))
}

/// The settings flags, before they make a [`Dedup`].
#[derive(Default)]
struct Settings {
    threshold: Option<f64>,
    verify: Option<Verifier>,
    k: Option<usize>,
    char_k: Option<usize>,
    no_exact_pass: bool,
    nfkc: bool,
    num_perm: Option<usize>,
    bands: Option<usize>,
    rows: Option<usize>,
    max_bucket_scan: Option<Option<usize>>,
}

impl Settings {
    /// The run these flags describe, built as `ndd dedup` builds it, validated.
    fn dedup(&self) -> Result<Dedup, String> {
        let mut config = MinHashConfig::default();
        config.num_perm = self.num_perm.unwrap_or(config.num_perm);
        config.banding = match (self.bands, self.rows) {
            (Some(bands), Some(rows)) => Banding::Fixed { bands, rows },
            (None, None) => Banding::default(),
            _ => return Err("--bands and --rows go together".into()),
        };
        if let Some(scan) = self.max_bucket_scan {
            config.max_bucket_scan = scan;
        }
        let shingles = match (self.char_k, self.k) {
            (Some(_), Some(_)) => return Err("--k and --char-k exclude each other".into()),
            (Some(k), None) => Shingles::Chars(k),
            (None, Some(k)) => Shingles::Words(k),
            (None, None) => Shingles::default(),
        };
        let mut dedup = Dedup::new()
            .method(Method::MinHash(config))
            .shingles(shingles)
            .exact_pass(!self.no_exact_pass)
            .nfkc(self.nfkc);
        if let Some(t) = self.threshold {
            dedup = dedup.threshold(t);
        }
        if let Some(v) = &self.verify {
            dedup = dedup.verifier(v.clone());
        }
        dedup.validate().map_err(|e| e.to_string())?;
        Ok(dedup)
    }
}

impl Args {
    /// Parses the arguments after the program name. `Ok(None)` for `--help`.
    pub(crate) fn parse(mut it: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
        let mut s = Settings::default();
        let mut read = ReadOptions::default();
        let mut input = None;
        let mut outs: [Option<PathBuf>; 4] = Default::default();
        let (mut threads, mut processes, mut process) = (1, 1, 0);
        let (mut hostfile, mut stall_ms, mut connect_timeout_secs) = (None, 0, 120);
        while let Some(flag) = it.next() {
            match flag.as_str() {
                "--help" => return Ok(None),
                "--no-exact-pass" => {
                    s.no_exact_pass = true;
                    continue;
                }
                "--nfkc" => {
                    s.nfkc = true;
                    continue;
                }
                _ => {}
            }
            let value = it
                .next()
                .ok_or_else(|| format!("{flag} needs a value (see --help)"))?;
            match flag.as_str() {
                "--input" => input = Some(PathBuf::from(value)),
                "--id-field" => read = read.with_id_field(value),
                "--text-field" => read = read.with_text_field(value),
                "--max-document-bytes" => {
                    read = read.with_max_document_bytes(number(&flag, &value)?);
                }
                "--keep-out" => outs[0] = Some(PathBuf::from(value)),
                "--drop-out" => outs[1] = Some(PathBuf::from(value)),
                "--pairs-out" => outs[2] = Some(PathBuf::from(value)),
                "--clusters-out" => outs[3] = Some(PathBuf::from(value)),
                "-t" | "--threshold" => s.threshold = Some(number(&flag, &value)?),
                "--verify" => {
                    let v: Verifier = value.parse().map_err(|e| format!("--verify: {e}"))?;
                    s.verify = Some(v);
                }
                "--k" => s.k = Some(number(&flag, &value)?),
                "--char-k" => s.char_k = Some(number(&flag, &value)?),
                "--num-perm" => s.num_perm = Some(number(&flag, &value)?),
                "--bands" => s.bands = Some(number(&flag, &value)?),
                "--rows" => s.rows = Some(number(&flag, &value)?),
                "--max-bucket-scan" => {
                    s.max_bucket_scan = Some(match value.as_str() {
                        "none" => None,
                        _ => Some(number(&flag, &value)?),
                    });
                }
                "--stall-ms" => stall_ms = number(&flag, &value)?,
                "--connect-timeout" => connect_timeout_secs = number(&flag, &value)?,
                "-w" => threads = number(&flag, &value)?,
                "-n" => processes = number(&flag, &value)?,
                "-p" => process = number(&flag, &value)?,
                "-h" => hostfile = Some(PathBuf::from(value)),
                _ => return Err(format!("unknown option {flag} (see --help)")),
            }
        }
        let input = input.ok_or("--input is required (see --help)")?;
        if threads == 0 || processes == 0 {
            return Err("-w and -n must be at least 1".into());
        }
        if process >= processes {
            return Err(format!("-p {process} is not below -n {processes}"));
        }
        if processes > 1 && hostfile.is_none() {
            return Err("-n above 1 needs a host file (-h)".into());
        }
        let [keep_out, drop_out, pairs_out, clusters_out] = outs;
        Ok(Some(Args {
            input,
            read,
            dedup: s.dedup()?,
            keep_out,
            drop_out,
            pairs_out,
            clusters_out,
            threads,
            processes,
            process,
            hostfile,
            connect_timeout_secs,
            stall_ms,
        }))
    }
}

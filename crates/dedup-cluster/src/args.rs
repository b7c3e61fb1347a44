//! The command line, parsed by hand (no argument-parsing crate: the example's build
//! stays small).

use std::path::PathBuf;

use ndd_core::EdgePolicy;

pub(crate) const USAGE: &str = "\
dedup-cluster: MinHash near-duplicate groups of JSONL shards ({\"id\": u64, \"text\": str}
per line) as one timely/differential dataflow job, on threads or on many processes.

USAGE:
    dedup-cluster --input <PATH>... --out <DIR> [options] [-w T] [-n N -p I -h HOSTFILE]

INPUT AND OUTPUT:
    --input <PATH>       a JSONL shard, or a folder whose *.jsonl files are the shards
                         (repeatable); shard i (in sorted path order) is read by the
                         worker i mod (number of workers)
    --out <DIR>          assignments-<worker>.bin per worker (ndd-scale record files:
                         (doc, rep), rep = the smallest id of the doc's group) and
                         summary.json, written by worker 0 once every worker's file is
                         complete; refused if DIR already holds a summary.json

PARAMETERS (every process must get the same):
    --num-perm <K>       MinHash values per document [default: 128]
    --seed <S>           MinHash seed [default: 0]
    --shingle <K>        word k-gram length [default: 3]
    --bands <B>          LSH bands [default: 9]
    --rows <R>           rows per band [default: 13]
    --edges <star|chain> edges per bucket [default: star]
    --max-doc-bytes <N>  longest JSONL line accepted [default: 16777216]

PROCESSES:
    -w <T>               worker threads per process [default: 1]
    -n <N>               number of processes [default: 1]
    -p <I>               this process's index, 0..N [default: 0]
    -h <HOSTFILE>        N lines host:port, in process order (required when N > 1)

TESTING:
    --stall-ms <MS>      each worker sleeps this long after reading its shards (to kill
                         a process mid-job and watch the others fail) [default: 0]
";

/// Everything the command line sets.
#[derive(Debug, Clone)]
pub(crate) struct Args {
    pub(crate) inputs: Vec<PathBuf>,
    pub(crate) out: PathBuf,
    pub(crate) num_perm: usize,
    pub(crate) seed: u64,
    pub(crate) shingle: usize,
    pub(crate) bands: usize,
    pub(crate) rows: usize,
    pub(crate) edges: EdgePolicy,
    pub(crate) max_doc_bytes: u64,
    pub(crate) threads: usize,
    pub(crate) processes: usize,
    pub(crate) process: usize,
    pub(crate) hostfile: Option<PathBuf>,
    pub(crate) stall_ms: u64,
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag}: `{value}` is not a valid number"))
}

impl Args {
    /// Parses the arguments after the program name. `Ok(None)` for `--help`.
    pub(crate) fn parse(mut it: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
        let mut a = Args {
            inputs: Vec::new(),
            out: PathBuf::new(),
            num_perm: 128,
            seed: 0,
            shingle: 3,
            bands: 9,
            rows: 13,
            edges: EdgePolicy::Star,
            max_doc_bytes: 16 << 20,
            threads: 1,
            processes: 1,
            process: 0,
            hostfile: None,
            stall_ms: 0,
        };
        let mut out = None;
        while let Some(flag) = it.next() {
            if flag == "--help" {
                return Ok(None);
            }
            let value = it
                .next()
                .ok_or_else(|| format!("{flag} needs a value (see --help)"))?;
            match flag.as_str() {
                "--input" => a.inputs.push(PathBuf::from(value)),
                "--out" => out = Some(PathBuf::from(value)),
                "--num-perm" => a.num_perm = number(&flag, &value)?,
                "--seed" => a.seed = number(&flag, &value)?,
                "--shingle" => a.shingle = number(&flag, &value)?,
                "--bands" => a.bands = number(&flag, &value)?,
                "--rows" => a.rows = number(&flag, &value)?,
                "--edges" => {
                    a.edges = match value.as_str() {
                        "star" => EdgePolicy::Star,
                        "chain" => EdgePolicy::Chain,
                        _ => return Err(format!("--edges: `{value}` is not star or chain")),
                    }
                }
                "--max-doc-bytes" => a.max_doc_bytes = number(&flag, &value)?,
                "--stall-ms" => a.stall_ms = number(&flag, &value)?,
                "-w" => a.threads = number(&flag, &value)?,
                "-n" => a.processes = number(&flag, &value)?,
                "-p" => a.process = number(&flag, &value)?,
                "-h" => a.hostfile = Some(PathBuf::from(value)),
                _ => return Err(format!("unknown option {flag} (see --help)")),
            }
        }
        a.out = out.ok_or("--out is required (see --help)")?;
        if a.inputs.is_empty() {
            return Err("--input is required (see --help)".into());
        }
        if a.threads == 0 || a.processes == 0 {
            return Err("-w and -n must be at least 1".into());
        }
        if a.process >= a.processes {
            return Err(format!("-p {} is not below -n {}", a.process, a.processes));
        }
        if a.processes > 1 && a.hostfile.is_none() {
            return Err("-n above 1 needs a host file (-h)".into());
        }
        Ok(Some(a))
    }
}

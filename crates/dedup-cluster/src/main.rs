//! `dedup-cluster`: ndd's MinHash deduplication as one timely/differential dataflow
//! job, on worker threads of one process (`-w`) or on N processes joined by a host
//! file (`-n N -p i -h hosts`). See README.md.
//!
//! 1. Stage 1, per worker, no communication: read the shards `i` with
//!    `i mod workers == worker`, sketch (ndd-minhash), band keys (ndd-lsh).
//! 2. Exchange by `(band, key)`; each bucket emits star edges
//!    (`ndd_core::bucket_edges`); distinct.
//! 3. Connected components by differential's min-label propagation: every document's
//!    label is the smallest id of its component.
//! 4. Each worker writes its share of the assignments (`ndd_scale` record file, under
//!    a temporary name); a barrier across all workers checks that every one succeeded;
//!    then each renames its file, and worker 0 writes `summary.json` after a second
//!    barrier. Any failure anywhere leaves no `summary.json` and exits non-zero.

mod args;
mod shards;

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use differential_dataflow::algorithms::graphs::propagate::propagate;
use differential_dataflow::input::Input;
use ndd_core::{DocSketcher, EdgePolicy, Sketcher, SlotSignature, bucket_edges};
use ndd_lsh::LshParams;
use ndd_minhash::MinHasher;
use ndd_scale::{Assignment, RecordWriter, band_key_fingerprint};
use ndd_shingle::WordShingler;
use timely::dataflow::operators::probe::Handle as Probe;
use timely::dataflow::operators::{Exchange, Input as TimelyInput, Inspect, Probe as _};
use timely::worker::Worker;

use crate::args::Args;

/// Documents sketched per batch call.
const BATCH: usize = 1024;

/// What each worker tells every other at the barriers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Stats {
    documents: u64,
    band_keys: u64,
    edges: u64,
    assignments: u64,
    representatives: u64,
    /// Workers that failed (0 or 1 per worker before summing).
    failed: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.documents += o.documents;
        self.band_keys += o.band_keys;
        self.edges += o.edges;
        self.assignments += o.assignments;
        self.representatives += o.representatives;
        self.failed += o.failed;
    }
}

/// The settings every worker shares.
struct Job {
    args: Args,
    shards: Vec<PathBuf>,
    params: LshParams,
    fingerprint: u64,
}

fn main() -> ExitCode {
    // A panic in any thread (a timely worker, or its network thread when a peer
    // died) ends the process at once with a failure status: other workers of this
    // process would otherwise wait for it forever. Nothing is renamed into place.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        eprintln!(
            "dedup-cluster: a thread panicked (a peer process died?); stopping, no output committed"
        );
        std::process::exit(101);
    }));
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dedup-cluster: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let Some(args) = Args::parse(std::env::args().skip(1))? else {
        print!("{}", args::USAGE);
        return Ok(());
    };
    let params = LshParams::new(args.bands, args.rows).map_err(|e| e.to_string())?;
    params
        .check_signature_len(args.num_perm)
        .map_err(|e| e.to_string())?;
    let hasher = make_hasher(&args)?;
    let fingerprint = band_key_fingerprint(Sketcher::scheme(hasher.sketcher()), params);
    if args.out.join("summary.json").exists() {
        return Err(format!(
            "{} already holds a finished job's summary.json: give a fresh --out",
            args.out.display()
        ));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let shards = shards::list(&args.inputs)?;
    let config = timely_config(&args)?;
    let job = Job {
        args,
        shards,
        params,
        fingerprint,
    };
    let guards = timely::execute(config, move |worker| run_worker(worker, &job))?;
    let mut failed = false;
    for result in guards.join() {
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                eprintln!("dedup-cluster: {e}");
                failed = true;
            }
            Err(e) => {
                eprintln!("dedup-cluster: a worker failed: {e}");
                failed = true;
            }
        }
    }
    if failed {
        Err("the job failed; no output was committed".into())
    } else {
        Ok(())
    }
}

fn make_hasher(args: &Args) -> Result<MinHasher<WordShingler>, String> {
    let shingler = WordShingler::new(args.shingle).map_err(|e| e.to_string())?;
    MinHasher::builder()
        .num_hashes(args.num_perm)
        .seed(args.seed)
        .build_with(shingler)
        .map_err(|e| e.to_string())
}

fn timely_config(args: &Args) -> Result<timely::Config, String> {
    if args.processes == 1 {
        return Ok(timely::Config::process(args.threads));
    }
    let hostfile = args.hostfile.as_deref().unwrap_or(Path::new(""));
    let text = std::fs::read_to_string(hostfile)
        .map_err(|e| format!("host file {}: {e}", hostfile.display()))?;
    let addresses: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    if addresses.len() < args.processes {
        return Err(format!(
            "host file {} lists {} addresses for -n {}",
            hostfile.display(),
            addresses.len(),
            args.processes
        ));
    }
    Ok(timely::Config {
        communication: timely::CommunicationConfig::Cluster {
            threads: args.threads,
            process: args.process,
            addresses: addresses[..args.processes].to_vec(),
            report: false,
            zerocopy: false,
        },
        worker: timely::WorkerConfig::default(),
    })
}

type Updates<D> = Rc<RefCell<Vec<(D, isize)>>>;

fn run_worker(worker: &mut Worker, job: &Job) -> Result<(), String> {
    let index = worker.index();
    let peers = worker.peers();
    let started = Instant::now();
    // Workers of process p are p·threads .. (p+1)·threads: the first one speaks for it
    // (the line a launcher or test can wait for: every connection is up).
    if index == job.args.process * job.args.threads {
        eprintln!(
            "dedup-cluster: process {} connected, {peers} workers",
            job.args.process
        );
    }

    // The main dataflow: band keys in, assignments out.
    let policy = job.args.edges;
    let labels_out: Updates<(u64, u64)> = Rc::new(RefCell::new(Vec::new()));
    let edge_count = Rc::new(Cell::new(0isize));
    let probe = Probe::new();
    let (mut keys_in, mut docs_in) = worker.dataflow::<u64, _, _>(|scope| {
        // ((band, key), doc) and (doc, doc): every document labelled with itself.
        let (keys_in, keys) = scope.new_collection::<((u16, u64), u64), isize>();
        let (docs_in, docs) = scope.new_collection::<(u64, u64), isize>();
        let mut members = Vec::new();
        let edges = keys
            .reduce(move |_bucket, docs: &[(&u64, isize)], out| {
                members.clear();
                members.extend(docs.iter().filter(|(_, n)| *n > 0).map(|(d, _)| **d));
                out.extend(bucket_edges(&members, policy).map(|e| (e, 1)));
            })
            .map(|(_bucket, edge)| edge)
            .distinct();
        let counter = Rc::clone(&edge_count);
        let edges = edges.inspect(move |(_, _, diff)| counter.set(counter.get() + diff));
        // Components are undirected: propagate along both directions.
        let both = edges.clone().concat(edges.map(|(a, b)| (b, a)));
        let sink = Rc::clone(&labels_out);
        propagate(both, docs)
            .inspect(move |(label, _time, diff)| sink.borrow_mut().push((*label, *diff)))
            .probe_with(&probe);
        (keys_in, docs_in)
    });

    // The barrier dataflow: each worker's stats to every worker, twice (round 0:
    // outputs written; round 1: outputs renamed).
    let barrier_out: Rc<RefCell<Vec<(u64, Stats)>>> = Rc::new(RefCell::new(Vec::new()));
    let barrier_probe = Probe::new();
    let mut barrier_in = worker.dataflow::<u64, _, _>(|scope| {
        let (input, stream) = scope.new_input::<Vec<(u64, u64, Stats)>>();
        let sink = Rc::clone(&barrier_out);
        stream
            .exchange(|(to, _, _)| *to)
            .inspect(move |(_, round, stats)| sink.borrow_mut().push((*round, *stats)))
            .probe_with(&barrier_probe);
        input
    });

    // Stage 1: no communication.
    let mut local = Stats::default();
    let stage1 = sketch_shards(
        job,
        index,
        peers,
        &mut local,
        |band, key, doc| {
            keys_in.insert(((band, key), doc));
        },
        |doc| docs_in.insert((doc, doc)),
    );
    if let Err(e) = &stage1 {
        eprintln!("dedup-cluster: worker {index}: {e}");
        local.failed = 1;
    }
    if job.args.stall_ms > 0 {
        std::thread::sleep(Duration::from_millis(job.args.stall_ms));
    }
    keys_in.close();
    docs_in.close();
    while !probe.done() {
        worker.step();
    }

    // This worker's share of the assignments, consolidated and checked.
    let mut path = job.args.out.clone();
    path.push(format!("assignments-{index:05}.bin"));
    let written = if local.failed == 0 {
        local.edges = u64::try_from(edge_count.get()).unwrap_or(0);
        match write_assignments(&path, job.fingerprint, &labels_out.borrow(), &mut local) {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("dedup-cluster: worker {index}: {e}");
                local.failed = 1;
                None
            }
        }
    } else {
        None
    };

    // Barrier, round 0: did every worker get this far?
    for to in 0..peers {
        barrier_in.send((to as u64, 0, local));
    }
    barrier_in.advance_to(1);
    while barrier_probe.less_than(&1) {
        worker.step();
    }
    let total = sum_round(&barrier_out.borrow(), 0, peers)?;
    if total.failed > 0 {
        return Err(format!(
            "worker {index}: {} worker(s) failed; discarding this worker's output",
            total.failed
        ));
    }
    if total.assignments != total.documents {
        // Every worker sees the same totals, so all of them refuse together.
        return Err(format!(
            "worker {index}: {} documents read but {} distinct ids: ids must be unique; \
             discarding this worker's output",
            total.documents, total.assignments
        ));
    }
    let written = written.ok_or("unreachable: no output although no worker failed")?;
    written
        .finish()
        .map_err(|e| format!("{}: {e}", path.display()))?;

    // Round 1: every worker renamed its output; worker 0 writes the summary.
    for to in 0..peers {
        barrier_in.send((to as u64, 1, Stats::default()));
    }
    barrier_in.close();
    while !barrier_probe.done() {
        worker.step();
    }
    sum_round(&barrier_out.borrow(), 1, peers)?;
    if index == 0 {
        write_summary(job, peers, &total, started.elapsed())?;
    }
    Ok(())
}

/// Stage 1 of this worker: its shards, sketched in batches, band keys pushed out.
fn sketch_shards(
    job: &Job,
    index: usize,
    peers: usize,
    local: &mut Stats,
    mut key: impl FnMut(u16, u64, u64),
    mut doc: impl FnMut(u64),
) -> Result<(), String> {
    let hasher = make_hasher(&job.args)?;
    let mut ids = Vec::with_capacity(BATCH);
    let mut texts: Vec<String> = Vec::with_capacity(BATCH);
    let mut keys = Vec::with_capacity(job.params.bands());
    let mut flush = |ids: &mut Vec<u64>, texts: &mut Vec<String>, local: &mut Stats| {
        for (id, sig) in ids.iter().zip(hasher.sketch_batch(texts)) {
            keys.clear();
            job.params
                .band_keys_into(sig.slots(), &mut keys)
                .map_err(|e| e.to_string())?;
            for (band, &k) in keys.iter().enumerate() {
                let band = u16::try_from(band).map_err(|_| "more than 65,536 bands")?;
                key(band, k, *id);
            }
            doc(*id);
            local.documents += 1;
            local.band_keys += keys.len() as u64;
        }
        ids.clear();
        texts.clear();
        Ok::<(), String>(())
    };
    for shard in job.shards.iter().skip(index).step_by(peers) {
        shards::read(shard, job.args.max_doc_bytes, |id, text| {
            ids.push(id);
            texts.push(text);
            if ids.len() == BATCH {
                flush(&mut ids, &mut texts, local)?;
            }
            Ok(())
        })?;
    }
    flush(&mut ids, &mut texts, local)
}

/// Sums the stats of `round`, checking that every worker reported exactly once.
fn sum_round(received: &[(u64, Stats)], round: u64, peers: usize) -> Result<Stats, String> {
    let mut total = Stats::default();
    let mut n = 0;
    for (_, s) in received.iter().filter(|(r, _)| *r == round) {
        total.add(s);
        n += 1;
    }
    if n != peers {
        return Err(format!(
            "barrier {round}: heard from {n} of {peers} workers"
        ));
    }
    Ok(total)
}

/// Consolidates the label updates into one `(doc, rep)` per document, sorted, and
/// writes them under the temporary name; the caller renames after the barrier.
fn write_assignments(
    path: &Path,
    fingerprint: u64,
    updates: &[((u64, u64), isize)],
    local: &mut Stats,
) -> Result<RecordWriter<Assignment>, String> {
    let mut updates = updates.to_vec();
    updates.sort_unstable();
    let mut w = RecordWriter::create(path, fingerprint).map_err(|e| e.to_string())?;
    let mut last_doc = None;
    let mut i = 0;
    while i < updates.len() {
        let (pair, _) = updates[i];
        let mut count = 0isize;
        while i < updates.len() && updates[i].0 == pair {
            count += updates[i].1;
            i += 1;
        }
        match count {
            0 => continue,
            1 => {}
            _ => {
                return Err(format!(
                    "document {} has label {} {count} times (ids must be unique)",
                    pair.0, pair.1
                ));
            }
        }
        if last_doc == Some(pair.0) {
            return Err(format!(
                "document {} has two labels (ids must be unique)",
                pair.0
            ));
        }
        last_doc = Some(pair.0);
        w.write(&Assignment {
            doc: pair.0,
            rep: pair.1,
        })
        .map_err(|e| e.to_string())?;
        local.assignments += 1;
        local.representatives += u64::from(pair.0 == pair.1);
    }
    Ok(w)
}

fn write_summary(
    job: &Job,
    workers: usize,
    total: &Stats,
    elapsed: Duration,
) -> Result<(), String> {
    let edges = match job.args.edges {
        EdgePolicy::Star => "star",
        EdgePolicy::Chain => "chain",
    };
    let summary = serde_json::json!({
        "documents": total.documents,
        "band_key_records": total.band_keys,
        "edges": total.edges,
        "assignments": total.assignments,
        "groups": total.representatives,
        "duplicates": total.assignments - total.representatives.min(total.assignments),
        "workers": workers,
        "processes": job.args.processes,
        "shards": job.shards.len(),
        "num_perm": job.args.num_perm,
        "seed": job.args.seed,
        "shingle": job.args.shingle,
        "bands": job.params.bands(),
        "rows": job.params.rows(),
        "edge_policy": edges,
        "fingerprint": format!("{:016x}", job.fingerprint),
        "seconds": elapsed.as_secs_f64(),
    });
    let text = format!("{summary}\n");
    let path = job.args.out.join("summary.json");
    let tmp = ndd_scale::temp_path(&path);
    std::fs::write(&tmp, &text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{text}");
    Ok(())
}

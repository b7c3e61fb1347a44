//! `dedup-cluster`: `ndd dedup` (the MinHash method, connected components) as one
//! timely/differential dataflow job, on worker threads of one process (`-w`) or on N
//! processes joined by a host file (`-n N -p i -h hosts`). Its outputs are byte for
//! byte those of `ndd dedup` with the same options. See README.md.
//!
//! Every stage is `ndd_pipeline`'s; only the routing of data between workers is new:
//!
//! 1. Per worker, no communication: every worker reads the input with ndd-corpus (the
//!    reader `ndd dedup` uses, so positions and ids are the same) and takes documents
//!    `i, i + W, ...`; for each, the exact pass's digest ([`ExactPass::digest_with`]),
//!    the MinHash signature and band keys of the plan's features, and its shingle set.
//! 2. Exact pass, exchanged by digest: the first document of each digest keeps, the
//!    others are its copies (pairs of score 1) and stay out of the buckets.
//! 3. Candidates, exchanged by bucket: each member paired with at most
//!    `max_bucket_scan` earlier members, the newest first (the in-memory index's
//!    bounded walk); distinct.
//! 4. Verification, pairs routed to their documents' owners: a pair joins its first
//!    document's signature and set, then travels with them to the second document's
//!    owner, where the pipeline's candidate filter ([`Plan::estimate_filter`]) and set
//!    measure ([`ndd_pipeline::set_measure_at_least`]) decide.
//! 5. Grouping: connected components of the accepted and exact pairs by differential's
//!    min-label propagation (star-shaped groups stay two rounds deep); the label is
//!    the smallest position, the first-seen document `ndd dedup` keeps.
//! 6. Pairs and labels go to worker 0, which reads the input once more and writes the
//!    tool's outputs under temporary names; after a barrier at which every worker
//!    reported success it renames them into place. Any failure anywhere commits
//!    nothing and exits non-zero.

mod args;
mod outputs;

use std::cell::{Cell, RefCell};
use std::path::Path;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use differential_dataflow::algorithms::graphs::propagate::propagate;
use differential_dataflow::input::Input;
use ndd_core::{DocSketcher, DynFeatureExtractor, FeatureSet};
use ndd_lsh::LshParams;
use ndd_minhash::{MinHashSignature, MinHasher};
use ndd_pipeline::{EstimateFilter, ExactPass, Plan};
use timely::dataflow::operators::probe::Handle as Probe;
use timely::dataflow::operators::{Exchange, Input as TimelyInput, Inspect, Probe as _};
use timely::worker::Worker;

use crate::args::Args;

/// Documents sketched per batch call.
const BATCH: usize = 1024;

/// A document's data for verification: its signature's byte form and its sorted
/// shingle set (empty when the estimate verifies).
type DocData = (Vec<u8>, Vec<u64>);

/// A pair of positions and its score's bits (scores are at least 0, so the bits
/// order as the scores do).
type ScoredPair = (u64, u64, u64);

/// What each worker tells every other at the barrier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Stats {
    documents: u64,
    candidates: u64,
    accepted: u64,
    /// Payload bytes this worker put into the exchanges (band keys, digests, data).
    sent_bytes: u64,
    /// Workers that failed (0 or 1 per worker before summing).
    failed: u64,
    /// The job's settings and the input's content as this worker saw them
    /// ([`Job::settings`] and the documents read): equal at every worker, or the
    /// processes were started on different inputs or with different options.
    agreed: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.documents += o.documents;
        self.candidates += o.candidates;
        self.accepted += o.accepted;
        self.sent_bytes += o.sent_bytes;
        self.failed += o.failed;
    }
}

/// The settings every worker shares.
struct Job {
    args: Args,
    plan: Plan,
    num_perm: usize,
    seed: u64,
    params: LshParams,
    scan: usize,
}

impl Job {
    /// A fingerprint of what every process must agree on: the plan, the sketching and
    /// banding, the input's reading options and the process layout (not this
    /// process's index, nor where outputs go).
    fn settings(&self) -> u64 {
        let a = &self.args;
        let text = format!(
            "{:?}|{}|{}|{:?}|{}|{:?}|{}|{}",
            self.plan,
            self.num_perm,
            self.seed,
            self.params,
            self.scan,
            a.read,
            a.threads,
            a.processes
        );
        ndd_core::hash::stable_hash64(text.as_bytes(), 0x006e_6464_2d6a_6f62)
    }
}

/// Set by the first worker to start: every connection is up.
static CONNECTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ends the process when the processes are not all connected within `secs` seconds:
/// timely retries a peer that died at start-up forever.
fn connect_deadline(secs: u64) {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(secs));
        if !CONNECTED.load(std::sync::atomic::Ordering::SeqCst) {
            eprintln!(
                "dedup-cluster: the processes were not all connected after {secs} s \
                 (--connect-timeout); is every process started, with the same host file?"
            );
            std::process::exit(1);
        }
    });
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
    let plan = args.dedup.plan().map_err(|e| e.to_string())?;
    let config = plan
        .minhash_engine(
            "the distributed job",
            &["method", "jaccard", "containment"],
            "it ships shingle sets, not texts",
        )
        .map_err(|e| e.to_string())?
        .clone();
    // The banding the plan resolved (a MinHash plan always has one).
    let params = plan
        .lsh_params()
        .ok_or_else(|| "the plan has no MinHash banding".to_string())?;
    if !args.input.exists() {
        return Err(format!("{}: no such file or folder", args.input.display()));
    }
    let config_timely = timely_config(&args)?;
    let job = Job {
        num_perm: config.num_perm,
        seed: config.seed,
        scan: config.max_bucket_scan.unwrap_or(usize::MAX),
        args,
        plan,
        params,
    };
    if job.args.processes > 1 {
        connect_deadline(job.args.connect_timeout_secs);
    }
    let guards = timely::execute(config_timely, move |worker| run_worker(worker, &job))?;
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

type Sink<D> = Rc<RefCell<Vec<(D, isize)>>>;

/// Sends every update of `collection` to worker 0 and pushes it into `sink` there,
/// the stream observed by `probe`.
fn gather<D: timely::ExchangeData + Copy>(
    collection: differential_dataflow::VecCollection<'_, u64, D, isize>,
    sink: &Sink<D>,
    probe: &Probe<u64>,
) {
    let sink = Rc::clone(sink);
    collection
        .inner
        .exchange(|_| 0)
        .inspect(move |(d, _t, n)| sink.borrow_mut().push((*d, *n)))
        .probe_with(probe);
}

/// The score of a candidate pair as every ndd engine scores it, `None` when the
/// pipeline's candidate filter drops it: the filter's score (the MinHash estimate, or
/// 8-bit fields before exact Jaccard), then (for the set verifiers) the set measure,
/// `None` below `threshold`.
fn score(
    a: &DocData,
    b: &DocData,
    filter: &EstimateFilter,
    sets: Option<bool>,
    threshold: f64,
) -> Option<f64> {
    let sa = MinHashSignature::from_bytes(&a.0).ok()?;
    let sb = MinHashSignature::from_bytes(&b.0).ok()?;
    let estimate = filter.score(&sa, &sb).ok()?;
    if !filter.passes(estimate) {
        return None;
    }
    Some(match sets {
        Some(jaccard) => ndd_pipeline::set_measure_at_least(jaccard, &a.1, &b.1, threshold)?,
        None => estimate,
    })
}

/// The verifier's use of shingle sets: `Some(true)` exact Jaccard, `Some(false)`
/// containment, `None` the estimate alone.
fn set_verifier(plan: &Plan) -> Option<bool> {
    match plan.verifier() {
        ndd_pipeline::Verifier::ExactJaccard => Some(true),
        ndd_pipeline::Verifier::Containment => Some(false),
        _ => None,
    }
}

#[allow(clippy::too_many_lines)]
fn run_worker(worker: &mut Worker, job: &Job) -> Result<(), String> {
    CONNECTED.store(true, std::sync::atomic::Ordering::SeqCst);
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

    let scan = job.scan;
    let threshold = job.plan.threshold().get();
    let filter = job.plan.estimate_filter(job.num_perm);
    let sets = set_verifier(&job.plan);
    let pairs_out: Sink<ScoredPair> = Rc::new(RefCell::new(Vec::new()));
    let labels_out: Sink<(u64, u64)> = Rc::new(RefCell::new(Vec::new()));
    let candidates_seen = Rc::new(Cell::new(0isize));
    let accepted_seen = Rc::new(Cell::new(0isize));
    let probe = Probe::new();
    let (mut digests_in, mut keys_in, mut data_in) = worker.dataflow::<u64, _, _>(|scope| {
        let (digests_in, digests) = scope.new_collection::<([u8; 20], u64), isize>();
        let (keys_in, keys) = scope.new_collection::<((u16, u64), u64), isize>();
        let (data_in, data) = scope.new_collection::<(u64, DocData), isize>();

        // Exact pass: the first position of each digest keeps; (first, copy) pairs.
        let copies = digests
            .reduce(|_digest, docs: &[(&u64, isize)], out| {
                let first = *docs[0].0;
                out.extend(docs[1..].iter().map(|(copy, _)| ((first, **copy), 1)));
            })
            .map(|(_digest, pair)| pair);

        // Candidates: copies leave the buckets; each member meets at most `scan`
        // members before it, the newest first.
        let candidates = keys
            .map(|(bucket, doc)| (doc, bucket))
            .antijoin(copies.clone().map(|(_, copy)| copy))
            .map(|(doc, bucket)| (bucket, doc))
            .reduce(move |_bucket, docs: &[(&u64, isize)], out| {
                for (i, (b, _)) in docs.iter().enumerate() {
                    let earlier = &docs[i.saturating_sub(scan)..i];
                    out.extend(earlier.iter().map(|(a, _)| ((**a, **b), 1)));
                }
            })
            .map(|(_bucket, pair)| pair)
            .distinct();
        let counter = Rc::clone(&candidates_seen);
        let candidates = candidates.inspect(move |(_, _, n)| counter.set(counter.get() + n));

        // Verification: the pair picks up its first document's data at that
        // document's owner, then meets the second's at its owner and is scored there.
        let accepted = candidates
            .join_map(data.clone(), |a, b, da| (*b, (*a, da.clone())))
            .join_map(data, move |b, (a, da), db| {
                let s = score(da, db, &filter, sets, threshold).filter(|&s| s >= threshold);
                (*a, *b, s.map(f64::to_bits))
            })
            .flat_map(|(a, b, s)| s.map(|s| (a, b, s)));
        let counter = Rc::clone(&accepted_seen);
        let accepted = accepted.inspect(move |(_, _, n)| counter.set(counter.get() + n));
        let pairs = accepted.concat(copies.map(|(a, b)| (a, b, 1f64.to_bits())));

        // Grouping: components, labelled by their smallest position.
        let edges = pairs.clone().map(|(a, b, _)| (a, b));
        let nodes = edges
            .clone()
            .flat_map(|(a, b)| [a, b])
            .distinct()
            .map(|d| (d, d));
        let both = edges.clone().concat(edges.map(|(a, b)| (b, a)));
        let labels = propagate(both, nodes).filter(|(doc, label)| doc != label);

        // Everything worker 0 writes goes to worker 0.
        gather(labels, &labels_out, &probe);
        gather(pairs, &pairs_out, &probe);
        (digests_in, keys_in, data_in)
    });

    // The barrier dataflow: each worker's stats to every worker.
    let barrier_out: Rc<RefCell<Vec<Stats>>> = Rc::new(RefCell::new(Vec::new()));
    let barrier_probe = Probe::new();
    let mut barrier_in = worker.dataflow::<u64, _, _>(|scope| {
        let (input, stream) = scope.new_input::<Vec<(u64, Stats)>>();
        let sink = Rc::clone(&barrier_out);
        stream
            .exchange(|(to, _)| *to)
            .inspect(move |(_, stats)| sink.borrow_mut().push(*stats))
            .probe_with(&barrier_probe);
        input
    });

    // Stage 1: no communication.
    let mut local = Stats::default();
    let stage1 = sketch_share(
        job,
        index,
        peers,
        &mut local,
        |digest, doc| digests_in.insert((digest, doc)),
        |band, key, doc| keys_in.insert(((band, key), doc)),
        |doc, data| data_in.insert((doc, data)),
    );
    if let Err(e) = &stage1 {
        eprintln!("dedup-cluster: worker {index}: {e}");
        local.failed = 1;
    }
    if job.args.stall_ms > 0 {
        std::thread::sleep(Duration::from_millis(job.args.stall_ms));
    }
    digests_in.close();
    keys_in.close();
    data_in.close();
    while !probe.done() {
        worker.step();
    }
    local.candidates = u64::try_from(candidates_seen.get()).unwrap_or(0);
    local.accepted = u64::try_from(accepted_seen.get()).unwrap_or(0);

    // Worker 0: the outputs, under temporary names.
    let mut written = None;
    if index == 0 && local.failed == 0 {
        let pairs = outputs::consolidate(&pairs_out.borrow());
        let labels = outputs::consolidate(&labels_out.borrow());
        match outputs::write(&job.args, &pairs, &labels) {
            Ok(w) => written = Some(w),
            Err(e) => {
                eprintln!("dedup-cluster: worker 0: {e}");
                local.failed = 1;
            }
        }
    }

    // Barrier: did every worker get this far?
    for to in 0..peers {
        barrier_in.send((to as u64, local));
    }
    barrier_in.close();
    while !barrier_probe.done() {
        worker.step();
    }
    let total = sum(&barrier_out.borrow(), peers)?;
    if total.failed > 0 {
        return Err(format!(
            "worker {index}: {} worker(s) failed; nothing committed",
            total.failed
        ));
    }
    if let Some(w) = written {
        let summary = w.commit()?;
        let report = serde_json::json!({
            "documents": summary.documents,
            "kept": summary.kept,
            "pairs": summary.pairs,
            "groups": summary.groups,
            "candidates": total.candidates,
            "accepted_near": total.accepted,
            "exchanged_bytes": total.sent_bytes,
            "workers": peers,
            "processes": job.args.processes,
            "bands": job.params.bands(),
            "rows": job.params.rows(),
            "seconds": started.elapsed().as_secs_f64(),
        });
        println!("{report}");
    }
    Ok(())
}

/// Stage 1 of this worker: every document of the input read (the same positions on
/// every worker), this worker's share sketched in batches and pushed out.
fn sketch_share(
    job: &Job,
    index: usize,
    peers: usize,
    local: &mut Stats,
    mut digest: impl FnMut([u8; 20], u64),
    mut key: impl FnMut(u16, u64, u64),
    mut data: impl FnMut(u64, DocData),
) -> Result<(), String> {
    let features = job.plan.features();
    let hasher = MinHasher::builder()
        .num_hashes(job.num_perm)
        .seed(job.seed)
        .build_with(features.extractor().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let exact: Option<ExactPass> = job.plan.exact_pass();
    let with_sets = set_verifier(&job.plan).is_some();
    let mut docs: Vec<(u64, String)> = Vec::with_capacity(BATCH);
    let mut keys = Vec::with_capacity(job.params.bands());
    let mut scratch: Vec<u64> = Vec::new();
    let mut buf = Vec::new();
    let mut flush = |docs: &mut Vec<(u64, String)>, local: &mut Stats| {
        let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
        for ((pos, text), sig) in docs.iter().zip(hasher.sketch_batch(&texts)) {
            keys.clear();
            job.params
                .band_keys_into(sig.values(), &mut keys)
                .map_err(|e| e.to_string())?;
            for (band, &k) in keys.iter().enumerate() {
                let band = u16::try_from(band).map_err(|_| "more than 65,536 bands")?;
                key(band, k, *pos);
            }
            if let Some(pass) = &exact {
                digest(pass.digest_with(text, &mut buf), *pos);
            }
            let set = if with_sets {
                scratch.clear();
                hasher.extractor().extract_dyn(text, &mut scratch);
                FeatureSet::from_unsorted(std::mem::take(&mut scratch)).into_vec()
            } else {
                Vec::new()
            };
            let bytes = sig.to_bytes();
            local.documents += 1;
            local.sent_bytes += (keys.len() * 18) as u64
                + u64::from(exact.is_some()) * 28
                + (bytes.len() + 8 * set.len() + 8) as u64;
            data(*pos, (bytes, set));
        }
        docs.clear();
        Ok::<(), String>(())
    };
    let mut reader = outputs::Reader::open(&job.args.input, &job.args.read)?;
    let mut pos = 0u64;
    // What this worker read, with the settings: every worker reads every document.
    let mut agreed = ndd_core::hash::StableHasher::new(job.settings());
    while let Some(doc) = reader.next_doc()? {
        agreed.update(doc.id.as_bytes());
        agreed.update(&[0xff]);
        agreed.update(doc.text.as_bytes());
        agreed.update(&[0xfe]);
        if pos % peers as u64 == index as u64 {
            docs.push((pos, doc.text));
            if docs.len() == BATCH {
                flush(&mut docs, local)?;
            }
        }
        pos += 1;
    }
    flush(&mut docs, local)?;
    local.agreed = agreed.finish();
    if index == 0 {
        reader.report_problems();
    }
    if pos == 0 {
        return Err(format!(
            "{}: no document to deduplicate",
            job.args.input.display()
        ));
    }
    Ok(())
}

/// Sums the stats, checking that every worker reported exactly once and that all saw
/// the same settings and input.
fn sum(received: &[Stats], peers: usize) -> Result<Stats, String> {
    // (A worker that failed may not have read everything: it is reported as failed.)
    let mut seen = received.iter().filter(|s| s.failed == 0).map(|s| s.agreed);
    let first = seen.next();
    if seen.any(|a| Some(a) != first) {
        return Err(
            "the processes were started with different settings or read different inputs \
             (every process must get the same options and the same input); nothing committed"
                .into(),
        );
    }
    let mut total = Stats::default();
    for s in received {
        total.add(s);
    }
    if received.len() != peers {
        return Err(format!(
            "barrier: heard from {} of {peers} workers",
            received.len()
        ));
    }
    Ok(total)
}

//! The built `dedup-cluster` binary on generated corpora: one process with two worker
//! threads, two processes on 127.0.0.1, and ndd's in-memory computation (LSH candidate
//! pairs of `ndd_lsh::candidate_pairs` + union-find, same parameters, no verification)
//! must give identical assignments; a hot bucket of 2,000 identical documents finishes
//! in seconds; killing one process makes the other fail fast with no complete output.
//!
//! Every child runs under a timeout: a timely process retries an unreachable peer
//! forever.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ndd_core::{DocSketcher, DocUnionFind};
use ndd_lsh::LshParams;
use ndd_minhash::MinHasher;
use ndd_scale::{Assignment, read_all};
use ndd_shingle::WordShingler;

const BIN: &str = env!("CARGO_BIN_EXE_dedup-cluster");
const TIMEOUT: Duration = Duration::from_secs(60);

/// The parameters every run and the oracle use (not the binary's defaults, so the
/// flags are exercised).
const NUM_PERM: usize = 64;
const SEED: u64 = 7;
const SHINGLE: usize = 3;
const BANDS: usize = 8;
const ROWS: usize = 8;

fn params() -> Vec<String> {
    [
        "--num-perm",
        "64",
        "--seed",
        "7",
        "--shingle",
        "3",
        "--bands",
        "8",
        "--rows",
        "8",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect()
}

/// A small deterministic generator (an LCG's high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 17
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next()).unwrap() % n
    }
}

/// Groups of near-duplicates (one or two words changed per copy, so some copies fall
/// below the LSH curve and the groups split in interesting ways), unrelated singletons,
/// and optionally `hot` identical documents. Ids are scattered over all of u64,
/// including values at or above 2^63.
fn corpus(groups: usize, hot: usize) -> Vec<(u64, String)> {
    let mut rng = Lcg(42);
    let words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    let mut docs = Vec::new();
    let next_id = |rng: &mut Lcg| rng.next() ^ (rng.next() << 40);
    for _ in 0..groups {
        let base: Vec<usize> = (0..30).map(|_| rng.below(words.len())).collect();
        let copies = 1 + rng.below(5);
        for _ in 0..copies {
            let mut t = base.clone();
            for _ in 0..rng.below(3) {
                let at = rng.below(t.len());
                t[at] = rng.below(words.len());
            }
            let text: Vec<&str> = t.iter().map(|&w| words[w].as_str()).collect();
            docs.push((next_id(&mut rng), text.join(" ")));
        }
    }
    for _ in 0..hot {
        docs.push((
            next_id(&mut rng),
            "this page intentionally left blank by the template engine".to_string(),
        ));
    }
    docs
}

/// Writes the corpus as `shards` JSONL files, round robin.
fn write_shards(dir: &Path, docs: &[(u64, String)], shards: usize) -> PathBuf {
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let mut texts = vec![String::new(); shards];
    for (i, (id, text)) in docs.iter().enumerate() {
        let line = serde_json::json!({ "id": id, "text": text });
        texts[i % shards].push_str(&format!("{line}\n"));
    }
    for (i, t) in texts.iter().enumerate() {
        std::fs::write(input.join(format!("shard-{i:03}.jsonl")), t).unwrap();
    }
    input
}

/// ndd's in-memory computation: sketches, LSH candidate pairs, union-find; every
/// document assigned to the smallest id of its component.
fn in_memory(docs: &[(u64, String)]) -> Vec<(u64, u64)> {
    let hasher = MinHasher::builder()
        .num_hashes(NUM_PERM)
        .seed(SEED)
        .build_with(WordShingler::new(SHINGLE).unwrap())
        .unwrap();
    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let sigs = hasher.sketch_batch(&texts);
    let pairs = ndd_lsh::candidate_pairs(&sigs, LshParams::new(BANDS, ROWS).unwrap()).unwrap();
    let mut uf = DocUnionFind::new();
    for (id, _) in docs {
        uf.insert(*id);
    }
    for (i, j) in pairs {
        uf.union(docs[i].0, docs[j].0);
    }
    uf.into_assignments()
}

/// Every worker's assignments file, concatenated and sorted.
fn assignments(out: &Path) -> Vec<(u64, u64)> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("assignments-") && name.ends_with(".bin") {
            all.extend(
                read_all::<Assignment>(&path, None)
                    .unwrap()
                    .into_iter()
                    .map(<(u64, u64)>::from),
            );
        }
    }
    all.sort_unstable();
    all
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Waits for `child` at most `timeout`; kills it when it takes longer.
fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn command(input: &Path, out: &Path, extra: &[String]) -> Command {
    let mut c = Command::new(BIN);
    c.arg("--input").arg(input).arg("--out").arg(out);
    c.args(params()).args(extra);
    c.stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut s);
    }
    s
}

/// One process, `threads` workers.
fn run_threads(input: &Path, out: &Path, threads: usize, extra: &[&str]) {
    let mut extra: Vec<String> = extra.iter().map(|s| (*s).to_string()).collect();
    extra.extend(["-w".to_string(), threads.to_string()]);
    let mut child = command(input, out, &extra).spawn().unwrap();
    let status = wait_with_timeout(&mut child, TIMEOUT);
    let err = stderr_of(&mut child);
    assert!(status.is_some_and(|s| s.success()), "{status:?}: {err}");
}

/// A host file of `n` addresses on 127.0.0.1, from ports the system handed out for
/// port 0 (released just before the processes bind them).
fn host_file(dir: &Path, n: usize) -> PathBuf {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let lines: Vec<String> = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
        .collect();
    let path = dir.join(format!("hosts-{}", lines.concat().len()));
    std::fs::write(&path, lines.concat()).unwrap();
    path
}

/// Starts `n` processes of one worker each.
fn spawn_processes(input: &Path, out: &Path, dir: &Path, n: usize, extra: &[&str]) -> Vec<Child> {
    let hosts = host_file(dir, n);
    (0..n)
        .map(|p| {
            let mut args: Vec<String> = extra.iter().map(|s| (*s).to_string()).collect();
            args.extend(["-n".into(), n.to_string(), "-p".into(), p.to_string()]);
            args.extend(["-h".into(), hosts.display().to_string()]);
            command(input, out, &args).spawn().unwrap()
        })
        .collect()
}

/// `n` processes to completion; retries once with fresh ports if a port was taken
/// between its release and the bind.
fn run_processes(input: &Path, out: &Path, dir: &Path, n: usize, extra: &[&str]) {
    let mut last = String::new();
    for _attempt in 0..2 {
        let mut children = spawn_processes(input, out, dir, n, extra);
        let statuses: Vec<Option<ExitStatus>> = children
            .iter_mut()
            .map(|c| wait_with_timeout(c, TIMEOUT))
            .collect();
        let errs: Vec<String> = children.iter_mut().map(stderr_of).collect();
        if statuses.iter().all(|s| s.is_some_and(|s| s.success())) {
            return;
        }
        last = format!("{statuses:?}: {errs:?}");
        if !last.contains("Address already in use") {
            break;
        }
        let _ = std::fs::remove_dir_all(out);
    }
    panic!("{last}");
}

#[test]
fn two_processes_match_threads_and_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(300, 0);
    let input = write_shards(dir.path(), &docs, 5);
    let expected = in_memory(&docs);
    assert_eq!(expected.len(), docs.len());
    // The corpus has groups of several documents, and documents left alone.
    let groups = expected.iter().filter(|(d, r)| d == r).count();
    assert!(groups > 300 / 2 && groups < docs.len() - 100, "{groups}");

    let threads = dir.path().join("threads");
    run_threads(&input, &threads, 2, &[]);
    assert_eq!(assignments(&threads), expected);
    let s = summary(&threads);
    assert_eq!(s["documents"], docs.len());
    assert_eq!(s["groups"], groups);

    let procs = dir.path().join("procs");
    run_processes(&input, &procs, dir.path(), 2, &[]);
    assert_eq!(assignments(&procs), expected);
    assert_eq!(summary(&procs)["groups"], groups);

    // Chain edges connect the same documents.
    let chain = dir.path().join("chain");
    run_threads(&input, &chain, 1, &["--edges", "chain"]);
    assert_eq!(assignments(&chain), expected);

    // A finished output folder is not overwritten.
    let mut again = command(&input, &threads, &[]).spawn().unwrap();
    let status = wait_with_timeout(&mut again, TIMEOUT).unwrap();
    assert!(!status.success());
}

#[test]
fn hot_bucket_of_2000_identical_documents_takes_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(50, 2000);
    let input = write_shards(dir.path(), &docs, 4);
    let out = dir.path().join("out");
    let start = Instant::now();
    run_processes(&input, &out, dir.path(), 2, &[]);
    let took = start.elapsed();
    // Star edges: two rounds of propagation. (Chain edges took 194 s here.) The
    // budget includes timely's one-second retry while the processes connect.
    assert!(took < Duration::from_secs(15), "{took:?}");
    let got = assignments(&out);
    let hot_min = docs[docs.len() - 2000..].iter().map(|d| d.0).min().unwrap();
    let hot: std::collections::HashSet<u64> =
        docs[docs.len() - 2000..].iter().map(|d| d.0).collect();
    for (doc, rep) in &got {
        if hot.contains(doc) {
            assert_eq!(*rep, hot_min);
        }
    }
    assert_eq!(got, in_memory(&docs));
}

#[test]
fn killing_one_process_fails_the_other_fast_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(100, 0);
    let input = write_shards(dir.path(), &docs, 2);
    let out = dir.path().join("out");
    // Each worker stalls after reading its shards, so the job is surely running when
    // one process is killed.
    let mut children = spawn_processes(&input, &out, dir.path(), 2, &["--stall-ms", "5000"]);
    // Wait until process 0 says every connection is up.
    let stderr = children[0].stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("connected") {
                let _ = tx.send(());
            }
        }
    });
    if rx.recv_timeout(Duration::from_secs(30)).is_err() {
        for c in &mut children {
            let _ = c.kill();
            let _ = c.wait();
        }
        panic!("process 0 never connected");
    }
    children[1].kill().unwrap(); // SIGKILL
    children[1].wait().unwrap();
    let killed_at = Instant::now();
    let status = wait_with_timeout(&mut children[0], Duration::from_secs(10));
    let took = killed_at.elapsed();
    let status = status.expect("the survivor did not exit within 10 s");
    assert!(!status.success(), "{status:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    // Nothing that looks like a finished output: no summary, no assignments file
    // under its final name (a `.tmp` file has no trailer and is refused by readers).
    let names: Vec<String> = std::fs::read_dir(&out)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        names.iter().all(|n| n.ends_with(".tmp")),
        "output left behind: {names:?}"
    );
}

#[test]
fn a_bad_shard_fails_every_worker_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(20, 0);
    let input = write_shards(dir.path(), &docs, 3);
    // Shard 1 (read by worker 1) has a record without an id; workers 0 and 1 read
    // fine shards too, and the barrier must stop both.
    std::fs::write(input.join("shard-001.jsonl"), "{\"text\": \"no id\"}\n").unwrap();
    let out = dir.path().join("out");
    let mut child = command(&input, &out, &["-w".to_string(), "2".to_string()])
        .spawn()
        .unwrap();
    let status = wait_with_timeout(&mut child, TIMEOUT).unwrap();
    let err = stderr_of(&mut child);
    assert!(!status.success());
    assert!(err.contains("shard-001.jsonl:1"), "{err}");
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(names.is_empty(), "output left behind: {names:?}");
}

#[test]
fn duplicate_ids_fail_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut docs = corpus(20, 0);
    let id = docs[0].0;
    docs.push((id, "another text under an id already used".to_string()));
    let input = write_shards(dir.path(), &docs, 3);
    let out = dir.path().join("out");
    let mut child = command(&input, &out, &["-w".to_string(), "2".to_string()])
        .spawn()
        .unwrap();
    let status = wait_with_timeout(&mut child, TIMEOUT).unwrap();
    let err = stderr_of(&mut child);
    assert!(!status.success());
    assert!(err.contains("ids must be unique"), "{err}");
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(names.is_empty(), "output left behind: {names:?}");
}

//! The built `dedup-cluster` binary against the `ndd` binary: one process with two
//! worker threads and two processes on 127.0.0.1 must write the same `--keep-out`,
//! `--drop-out`, `--pairs-out` and `--clusters-out` bytes as `ndd dedup` with the same
//! options, on the bundled corpus and on generated ones; a hot bucket of 2,000
//! near-identical documents finishes in seconds; killing one process makes the other
//! fail fast with no output committed.
//!
//! The reference is `ndd dedup` itself: the test builds the `ndd` binary of this
//! workspace (`cargo build --profile test --workspace --all-features --bin ndd`) and runs it. Every child runs under a timeout:
//! a timely process retries an unreachable peer forever.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{OnceLock, mpsc};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_dedup-cluster");
const TIMEOUT: Duration = Duration::from_secs(120);
const OUTPUTS: [&str; 4] = ["keep-out", "drop-out", "pairs-out", "clusters-out"];

/// The `ndd` binary of this workspace, built once.
fn ndd() -> &'static Path {
    static NDD: OnceLock<PathBuf> = OnceLock::new();
    NDD.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let status = Command::new(env!("CARGO"))
            // The units `cargo test --workspace --all-features` (the README's test
            // command) already built: the same profile, features and targets, so this
            // is a no-op there rather than a second build. `--tests` matters: a
            // `--bin`-only build resolves features without the dev-dependencies and
            // recompiled four crates and the tool (1 min 39 s of the suite).
            .args([
                "build",
                "--quiet",
                "--profile",
                "test",
                "--workspace",
                "--all-features",
                "--tests",
            ])
            .args(["--bin", "ndd"])
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(status.success(), "cargo build -p ndd-cli failed");
        let target =
            std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
        let exe = target
            .join("debug")
            .join(format!("ndd{}", std::env::consts::EXE_SUFFIX));
        assert!(exe.is_file(), "{} not built", exe.display());
        exe
    })
}

fn bundled() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/debian-copyright.jsonl")
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

/// JSONL lines: groups of near-duplicates (zero to three words changed per copy, so
/// some copies are exact, some near, some fall below the threshold), and `hot`
/// documents of one template that differ in their last word.
fn corpus(groups: usize, hot: usize) -> Vec<String> {
    let mut rng = Lcg(42);
    let words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    let mut lines = Vec::new();
    let mut id = 0;
    let mut push = |text: String, lines: &mut Vec<String>| {
        id += 1;
        lines.push(serde_json::json!({ "id": format!("doc\t{id}"), "text": text }).to_string());
    };
    for _ in 0..groups {
        let base: Vec<usize> = (0..40).map(|_| rng.below(words.len())).collect();
        for _ in 0..1 + rng.below(5) {
            let mut t = base.clone();
            for _ in 0..rng.below(4) {
                let at = rng.below(t.len());
                t[at] = rng.below(words.len());
            }
            let text: Vec<&str> = t.iter().map(|&w| words[w].as_str()).collect();
            push(text.join(" "), &mut lines);
        }
    }
    let template = "this page intentionally left blank by the template engine of the site \
                    and every page of the archive looks like this one except for";
    for i in 0..hot {
        push(format!("{template} number{i}"), &mut lines);
    }
    lines
}

fn write_lines(dir: &Path, lines: &[String]) -> PathBuf {
    let path = dir.join("in.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
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

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut s);
    }
    s
}

/// `program` with `--input`, every output in `out` (created), and `options`.
fn command(program: &Path, input: &Path, out: &Path, options: &[&str]) -> Command {
    std::fs::create_dir_all(out).unwrap();
    let mut c = Command::new(program);
    c.arg("--input").arg(input);
    for o in OUTPUTS {
        c.arg(format!("--{o}")).arg(out.join(o));
    }
    c.args(options);
    c.stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

/// `ndd dedup` with `options`: the reference outputs.
fn reference(input: &Path, out: &Path, options: &[&str]) {
    std::fs::create_dir_all(out).unwrap();
    let mut c = Command::new(ndd());
    c.arg("dedup").arg("--quiet").arg("--input").arg(input);
    for o in OUTPUTS {
        c.arg(format!("--{o}")).arg(out.join(o));
    }
    let out = c.args(options).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One process, `threads` workers.
fn run_threads(input: &Path, out: &Path, threads: usize, options: &[&str]) {
    let mut c = command(Path::new(BIN), input, out, options);
    let mut child = c.args(["-w", &threads.to_string()]).spawn().unwrap();
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
fn spawn_processes(input: &Path, out: &Path, n: usize, options: &[&str]) -> Vec<Child> {
    let hosts = host_file(out.parent().unwrap(), n);
    (0..n)
        .map(|p| {
            let mut c = command(Path::new(BIN), input, out, options);
            c.args(["-n", &n.to_string(), "-p", &p.to_string(), "-h"])
                .arg(&hosts);
            c.spawn().unwrap()
        })
        .collect()
}

/// `n` processes to completion; retries once with fresh ports if a port was taken
/// between its release and the bind.
fn run_processes(input: &Path, out: &Path, n: usize, options: &[&str]) {
    let mut last = String::new();
    for _attempt in 0..2 {
        let mut children = spawn_processes(input, out, n, options);
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
    }
    panic!("{last}");
}

/// Every output of `got` equals the reference's, byte for byte.
fn assert_same_outputs(reference: &Path, got: &Path) {
    for o in OUTPUTS {
        let want = std::fs::read(reference.join(o)).unwrap();
        let have = std::fs::read(got.join(o)).unwrap();
        assert!(
            want == have,
            "{o} differs from ndd dedup's ({})",
            got.display()
        );
    }
}

fn lines_of(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

/// Threads and processes against `ndd dedup` on `input` with `options`.
fn check(dir: &Path, name: &str, input: &Path, options: &[&str]) -> PathBuf {
    let want = dir.join(format!("{name}-ndd"));
    reference(input, &want, options);
    let threads = dir.join(format!("{name}-threads"));
    run_threads(input, &threads, 2, options);
    assert_same_outputs(&want, &threads);
    let procs = dir.join(format!("{name}-procs"));
    run_processes(input, &procs, 2, options);
    assert_same_outputs(&want, &procs);
    want
}

#[test]
fn bundled_corpus_outputs_equal_ndd_dedup() {
    let dir = tempfile::tempdir().unwrap();
    let input = bundled();
    let want = check(dir.path(), "default", &input, &[]);
    // Not an empty answer: the bundled corpus has exact and near copies.
    let pairs = lines_of(&want.join("pairs-out")) - 1;
    let kept = lines_of(&want.join("keep-out"));
    assert!(
        pairs > 100 && kept > 200 && kept < 562,
        "{pairs} pairs, {kept} kept"
    );
    // Other settings: no exact pass, another threshold, containment, explicit bands.
    check(dir.path(), "t07", &input, &["--no-exact-pass", "-t", "0.7"]);
    check(
        dir.path(),
        "containment",
        &input,
        &[
            "--verify",
            "containment",
            "--num-perm",
            "64",
            "--bands",
            "16",
            "--rows",
            "4",
        ],
    );
}

#[test]
fn generated_corpus_with_bad_lines_and_repeated_ids_equals_ndd_dedup() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = corpus(150, 0);
    // A line that is not JSON, one without text, and a repeated id: `ndd dedup`
    // skips them with a warning; the job must read the input the same way.
    lines.insert(7, "{not json".to_owned());
    lines.insert(20, "{\"id\": \"no-text\"}".to_owned());
    let repeated = lines[3].clone();
    lines.push(repeated);
    // Records with spaces and a tab after the object, and one with a CRLF line end:
    // `--keep-out` copies the first two's bytes with their blanks, the last without
    // its carriage return (the job trimmed every blank once).
    lines.push("{\"id\": \"blanks\", \"text\": \"a record with blanks after it\"}  \t".to_owned());
    lines.push("{\"id\": \"tab\", \"text\": \"another record, one tab after it\"}\t".to_owned());
    lines
        .push("{\"id\": \"crlf\", \"text\": \"a record that ends its line in CRLF\"}\r".to_owned());
    let input = write_lines(dir.path(), &lines);
    let want = check(dir.path(), "gen", &input, &["--k", "2", "-t", "0.75"]);
    assert!(lines_of(&want.join("drop-out")) > 50);
    let kept = std::fs::read_to_string(want.join("keep-out")).unwrap();
    assert!(kept.contains("blanks after it\"}  \t\n"));
    assert!(kept.contains("one tab after it\"}\t\n"));
    assert!(kept.contains("line in CRLF\"}\n"));
    check(dir.path(), "gen-method", &input, &["--verify", "method"]);
}

#[test]
fn hot_bucket_of_2000_near_identical_documents_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_lines(dir.path(), &corpus(50, 2000));
    let options = ["--max-bucket-scan", "32"];
    let want = dir.path().join("ndd");
    reference(&input, &want, &options);
    let out = dir.path().join("procs");
    // Star-shaped groups: two rounds of propagation whatever the group's size (chain
    // edges took one round per member: 194 s for 2,000). Not timed here (a loaded
    // machine is no measure): `run_processes` fails the test past its 120 s timeout.
    run_processes(&input, &out, 2, &options);
    assert_same_outputs(&want, &out);
    // The 2,000 documents are one group: one of them kept.
    let kept = std::fs::read_to_string(out.join("keep-out")).unwrap();
    let hot_kept = kept
        .lines()
        .filter(|l| l.contains("template engine"))
        .count();
    assert_eq!(hot_kept, 1);
}

#[test]
fn killing_one_process_fails_the_other_fast_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_lines(dir.path(), &corpus(100, 0));
    let out = dir.path().join("out");
    // Each worker stalls after reading its share, so the job is surely running when
    // one process is killed.
    let mut children = spawn_processes(&input, &out, 2, &["--stall-ms", "5000"]);
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
    // No output under its final name (at most a temporary file).
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        names.iter().all(|n| n.ends_with(".tmp")),
        "output left behind: {names:?}"
    );
}

#[test]
fn an_unreadable_input_fails_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = command(
        Path::new(BIN),
        &dir.path().join("missing.jsonl"),
        &out,
        &["-w", "2"],
    )
    .spawn()
    .unwrap();
    let status = wait_with_timeout(&mut child, TIMEOUT).unwrap();
    let err = stderr_of(&mut child);
    assert!(!status.success());
    assert!(err.contains("missing.jsonl"), "{err}");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

/// Processes started with different settings (here thresholds) or on different inputs
/// finish with an error and commit nothing: they finished with a different result and
/// exit 0 before (issue 27, next in line).
#[test]
fn processes_that_disagree_fail_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_lines(dir.path(), &corpus(60, 0));
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, corpus(60, 1).join("\n") + "\n").unwrap();
    for (name, second_input, second_options) in [
        ("threshold", &input, vec!["-t", "0.6"]),
        ("input", &other, vec![]),
    ] {
        let out = dir.path().join(format!("out-{name}"));
        let hosts = host_file(dir.path(), 2);
        let mut children: Vec<Child> = [(&input, vec![]), (second_input, second_options)]
            .into_iter()
            .enumerate()
            .map(|(p, (input, options))| {
                let mut c = command(Path::new(BIN), input, &out, &options);
                c.args(["-n", "2", "-p", &p.to_string(), "-h"]).arg(&hosts);
                c.spawn().unwrap()
            })
            .collect();
        let statuses: Vec<Option<ExitStatus>> = children
            .iter_mut()
            .map(|c| wait_with_timeout(c, TIMEOUT))
            .collect();
        let errs: Vec<String> = children.iter_mut().map(stderr_of).collect();
        assert!(
            statuses.iter().all(|s| s.is_some_and(|s| !s.success())),
            "{name}: {statuses:?} {errs:?}"
        );
        assert!(
            errs.iter()
                .any(|e| e.contains("different settings or read different inputs")),
            "{name}: {errs:?}"
        );
        let left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| !n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{name}: output left behind: {left:?}");
    }
}

/// A process whose peer never comes (it died at start-up) gives up after
/// `--connect-timeout` instead of waiting forever.
#[test]
fn a_peer_that_never_starts_ends_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_lines(dir.path(), &corpus(20, 0));
    let out = dir.path().join("out");
    let hosts = host_file(dir.path(), 2);
    let mut c = command(Path::new(BIN), &input, &out, &["--connect-timeout", "2"]);
    let mut child = c
        .args(["-n", "2", "-p", "0", "-h"])
        .arg(&hosts)
        .spawn()
        .unwrap();
    let status = wait_with_timeout(&mut child, Duration::from_secs(30));
    let err = stderr_of(&mut child);
    let status = status.expect("process 0 still waits for its peer after 30 s");
    assert!(!status.success(), "{status:?}");
    assert!(err.contains("--connect-timeout"), "{err}");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

//! Running the built `ndd` binary as a user does, shared by the tool's test files.
#![allow(dead_code)] // each test file uses part of it

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The built `ndd` with `args`, to run in `dir`; the caller sets its streams.
pub(crate) fn ndd_command(args: &[&str], dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ndd"));
    command.args(args).current_dir(dir);
    command
}

pub(crate) fn ndd(args: &[&str], dir: &Path) -> Output {
    ndd_command(args, dir)
        .stdin(Stdio::null())
        .output()
        .expect("run ndd")
}

pub(crate) fn ndd_stdin(args: &[&str], dir: &Path, input: &[u8]) -> Output {
    let mut child = ndd_command(args, dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ndd");
    // A run refused before it reads its input (a usage error) closes standard input
    // early: the broken pipe is the test's input arriving too late, not a failure.
    match child.stdin.take().expect("stdin").write_all(input) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("write stdin"),
    }
    child.wait_with_output().expect("wait for ndd")
}

/// A temporary folder with an empty folder `name` in it; returns both.
pub(crate) fn dir_with_folder(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let folder = dir.path().join(name);
    fs::create_dir(&folder).expect("create the input folder");
    (dir, folder)
}

/// A temporary folder holding one file, `name`, with `contents`.
pub(crate) fn dir_with(name: &str, contents: impl AsRef<[u8]>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    fs::write(dir.path().join(name), contents).expect("write the fixture");
    dir
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[track_caller]
pub(crate) fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[track_caller]
pub(crate) fn fails(out: &Output, code: i32, message: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains(message),
        "stderr {:?} lacks {message:?}",
        text(&out.stderr)
    );
}

/// Each of `cases`, (arguments, what the message names), run by `run`, fails with exit
/// code `code` and a message naming it.
#[track_caller]
pub(crate) fn fails_each(run: impl Fn(&[&str]) -> Output, code: i32, cases: &[(&[&str], &str)]) {
    for (args, message) in cases {
        fails(&run(args), code, message);
    }
}

/// Each of `cases`, (options, what the message names), run by `run`, is a usage error:
/// exit code 2 and a message naming the option.
#[track_caller]
pub(crate) fn usage_errors(run: impl Fn(&[&str]) -> Output, cases: &[(&[&str], &str)]) {
    fails_each(run, 2, cases);
}

/// splitmix64: a fixed, dependency-free source of words.
pub(crate) struct Words(pub(crate) u64);

impl Words {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `n` words `w{x}`, each `x` below `below`.
    pub(crate) fn words(&mut self, n: usize, below: u64) -> Vec<String> {
        (0..n)
            .map(|_| format!("w{}", self.next() % below))
            .collect()
    }

    /// `n` words `w{x}`, each `x` below 100,000.
    pub(crate) fn text(&mut self, n: usize) -> Vec<String> {
        self.words(n, 100_000)
    }
}

/// The JSON values of a JSON Lines file, one a line (an output of the tool).
pub(crate) fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(path)
        .expect("the JSON Lines output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// A `--clusters-out` TSV as (id, cluster label) rows (center grouping labels a
/// cluster by the input position of the document it keeps).
pub(crate) fn clusters(path: &Path) -> Vec<(String, String)> {
    fs::read_to_string(path)
        .expect("the clusters output")
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once('\t').expect("two columns");
            (a.to_owned(), b.to_owned())
        })
        .collect()
}

/// Six documents `d0`..`d5` in `dir/in.jsonl`, document i the words w{i}..w{i+7}: each
/// shares 7 of 9 distinct words with the next (word Jaccard 0.78), 6 of 10 with the
/// one after (0.6). The groupings' chain.
pub(crate) fn write_chain(dir: &Path) {
    let body: String = (0..6)
        .map(|i| {
            let text: Vec<String> = (i..i + 8).map(|w| format!("w{w}")).collect();
            format!(
                "{}\n",
                serde_json::json!({"id": format!("d{i}"), "text": text.join(" ")})
            )
        })
        .collect();
    fs::write(dir.join("in.jsonl"), body).expect("write in.jsonl");
}

/// `ndd dedup` of [`write_chain`]'s documents by exact word 1-gram Jaccard at 0.75.
pub(crate) const CHAIN_RUN: [&str; 9] = [
    "dedup",
    "--input",
    "in.jsonl",
    "--method",
    "exact",
    "--k",
    "1",
    "--threshold",
    "0.75",
];

/// `ndd` with `args` and no `--input`, writing `--out a.jsonl` in `dir`, then again with
/// `--input` naming the bundled corpus of the source checkout (`--out b.jsonl`): the two
/// outputs are the same bytes, one record for each of the corpus's 562 lines, and
/// shorter than the corpus (its Debian copyright files share licence texts, so an edit
/// command cuts something). Returns the first run's summary.
#[track_caller]
pub(crate) fn same_as_the_bundled_corpus(args: &[&str], dir: &Path) -> String {
    let summary = ok(&ndd(&[args, &["--out", "a.jsonl"]].concat(), dir));
    let named = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/debian-copyright.jsonl");
    let named = named.to_str().expect("a UTF-8 path");
    let again = [args, &["--input", named, "--out", "b.jsonl", "--quiet"]].concat();
    ok(&ndd(&again, dir));
    let a = fs::read(dir.join("a.jsonl")).expect("read a.jsonl");
    assert_eq!(a, fs::read(dir.join("b.jsonl")).expect("read b.jsonl"));
    assert_eq!(a.iter().filter(|&&b| b == b'\n').count(), 562);
    assert!(a.len() < fs::read(named).expect("read the bundled corpus").len());
    summary
}

/// `--order-field` is not in the `--help` of `command` (which lists `--input`), and
/// `args` (which give it) are a usage error saying `message`.
#[track_caller]
pub(crate) fn order_field_refused(command: &str, args: &[&str], message: &str, dir: &Path) {
    let help = ok(&ndd(&[command, "--help"], dir));
    assert!(help.contains("--input"), "{help}");
    assert!(!help.contains("--order-field"), "{help}");
    fails(&ndd(args, dir), 2, message);
}

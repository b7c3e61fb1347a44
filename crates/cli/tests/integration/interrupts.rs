//! Interrupts and kills leave nothing behind but the user's own files: a run stopped
//! by SIGINT or SIGTERM at any moment removes its temporary files and leaves each
//! output old or new, never part (issue 30, item 4); a run killed outright
//! (SIGKILL) in the middle of moving its outputs into place leaves a commit journal
//! that the next run writing in that folder completes, so the outputs are all new,
//! never some of each (issue 27, defect 8). Linux only: signals are sent with
//! `kill`, and whether a process has ended is read in `/proc`.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use std::fs;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Words, ndd, ndd_command, ok};

/// Every output of an in-memory run that copies or lists documents.
const FIVE_OUTPUTS: [&str; 5] = [
    "--keep-out",
    "--drop-out",
    "--pairs-out",
    "--clusters-out",
    "--annotate-out",
];

/// Writes `name` in `dir`: `families` families of three 40-word documents (an
/// original and two copies with one word changed each), the words drawn from a
/// fixed seed.
fn families(dir: &Path, name: &str, families: usize) -> String {
    let mut words = Words(30);
    let mut s = String::new();
    for g in 0..families {
        let base = words.text(40);
        for v in 0..3 {
            let mut text = base.clone();
            if v > 0 {
                let at = usize::try_from(words.next() % 40).unwrap();
                text[at] = format!("x{}", words.next() % 1_000);
            }
            s.push_str(&format!(
                "{{\"id\": \"{g}-{v}\", \"text\": \"{}\"}}\n",
                text.join(" ")
            ));
        }
    }
    fs::write(dir.join(name), s).unwrap();
    name.to_owned()
}

/// `ndd dedup -q --input INPUT` with each `(option, path)` of `outputs`, and `extra`.
fn dedup_args(input: &str, outputs: &[(&str, String)], extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["dedup", "-q", "--input", input]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    for (option, path) in outputs {
        args.push((*option).to_owned());
        args.push(path.clone());
    }
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

/// The outputs `options` asks for, in `folder` (a path relative to the run's folder).
fn outputs(folder: &str, options: &[&'static str]) -> Vec<(&'static str, String)> {
    options
        .iter()
        .map(|option| {
            let name = option.trim_start_matches("--").replace("-out", ".out");
            (*option, format!("{folder}/{name}"))
        })
        .collect()
}

/// Each output's bytes, `None` where there is no file.
fn state(d: &Path, outputs: &[(&str, String)]) -> Vec<Option<Vec<u8>>> {
    outputs
        .iter()
        .map(|(_, p)| fs::read(d.join(p)).ok())
        .collect()
}

/// Gives every other output old bytes of its own and removes the others; returns
/// that state.
fn set_old(d: &Path, outputs: &[(&str, String)]) -> Vec<Option<Vec<u8>>> {
    for (i, (_, p)) in outputs.iter().enumerate() {
        if i % 2 == 0 {
            fs::write(d.join(p), format!("old {p}\n")).unwrap();
        } else {
            let _ = fs::remove_file(d.join(p));
        }
    }
    state(d, outputs)
}

/// The hidden files in `folder`: temporary outputs, backups, commit journals.
fn hidden(folder: &Path) -> Vec<String> {
    fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// Starts `ndd args` in `d`, its streams closed, with the environment `env`.
fn spawn(d: &Path, args: &[String], env: &[(&str, &str)]) -> Child {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut command = ndd_command(&args, d);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in env {
        command.env(k, v);
    }
    command.spawn().unwrap()
}

/// Sends `signal` (`INT`, `TERM`) to the child and waits for it.
fn signal(mut child: Child, signal: &str) -> ExitStatus {
    let sent = std::process::Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .unwrap();
    // The run may have ended just before (then `kill` finds no process).
    let status = child.wait().unwrap();
    assert!(
        sent.success() || status.success(),
        "kill -s {signal} failed"
    );
    status
}

/// Runs `ndd args` in `d` to its end; returns how long it took.
fn timed(d: &Path, args: &[String]) -> Duration {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = Instant::now();
    ok(&ndd(&args, d));
    started.elapsed()
}

/// Interrupts at `moments` spread over a run: each run, stopped by SIGINT or SIGTERM
/// in turn, exits 130 or 143 (or 0 when it had finished), leaves no hidden file beside
/// its outputs, and each output is as it was (old bytes, or no file) or the complete
/// new output of an uninterrupted run, all together. Without the handler a signal
/// killed the run and its 16–30 MB temporary files stayed. With `work_dirs`, each run
/// is out of core in a work folder of its own, `w-new` for the uninterrupted one and
/// `w{i}` for the `i`-th interrupted one.
fn interrupt_at_random_moments(
    d: &Path,
    input: &str,
    options: &[&'static str],
    work_dirs: bool,
    moments: u64,
    seed: u64,
) {
    let work = |name: String| {
        if work_dirs {
            vec!["--work-dir".to_owned(), name]
        } else {
            Vec::new()
        }
    };
    let with = |outs: &[(&str, String)], extra: Vec<String>| {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        dedup_args(input, outs, &extra)
    };
    let fresh = outputs("new", options);
    fs::create_dir_all(d.join("new")).unwrap();
    let took = timed(d, &with(&fresh, work("w-new".into())));
    let new = state(d, &fresh);
    assert!(new.iter().all(Option::is_some));
    let outs = outputs("out", options);
    fs::create_dir_all(d.join("out")).unwrap();
    let span = u64::try_from(took.as_millis()).unwrap().max(50);
    let mut words = Words(seed);
    let mut stopped = 0;
    for i in 0..moments {
        let old = set_old(d, &outs);
        // Spread over the run (10% more than it took), a random point in each slice.
        let slice = span * 11 / 10 / moments;
        let at = 20 + i * slice + words.next() % slice;
        let (name, number) = if i % 2 == 0 { ("INT", 2) } else { ("TERM", 15) };
        let child = spawn(d, &with(&outs, work(format!("w{i}"))), &[]);
        std::thread::sleep(Duration::from_millis(at));
        let status = signal(child, name);
        let now = state(d, &outs);
        let context = format!("SIG{name} at {at} ms of {span} ms: exit {status:?}");
        match status.code() {
            Some(0) => assert_eq!(now, new, "{context}"),
            Some(c) if c == 128 + number => {
                stopped += 1;
                assert!(
                    now == old || now == new,
                    "{context}: outputs mixed or partial"
                );
            }
            _ => panic!("{context}"),
        }
        assert_eq!(hidden(&d.join("out")), Vec::<String>::new(), "{context}");
    }
    assert!(stopped > 0, "every run ended before its signal");
}

/// SIGINT and SIGTERM at random moments of an in-memory run with five outputs leave
/// no temporary file and no partial output.
#[test]
fn interrupts_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = families(d, "in.jsonl", 8_000);
    interrupt_at_random_moments(d, &input, &FIVE_OUTPUTS, false, 6, 4);
}

/// The same for an out-of-core run: its work folder is kept for the next run
/// (that is what it is for), and a run in each interrupted run's work folder gives
/// the outputs of an uninterrupted run.
#[test]
fn interrupts_of_an_out_of_core_run_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = families(d, "in.jsonl", 8_000);
    let options = ["--keep-out", "--drop-out", "--pairs-out", "--clusters-out"];
    interrupt_at_random_moments(d, &input, &options, true, 3, 5);
    let fresh = outputs("new", &options);
    let again = outputs("out", &options);
    for i in 0..3 {
        let work = format!("w{i}");
        ok(&ndd(
            &dedup_args(&input, &again, &["--work-dir", &work])
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            d,
        ));
        assert_eq!(state(d, &again), state(d, &fresh), "{work}");
    }
}

/// Polls `done` every millisecond, failing after a minute.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed().as_secs() < 60, "never saw {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A run killed outright (SIGKILL) at a random moment of its commit, after its
/// journal is written and while it renames its outputs one by one (paused 40 ms before
/// each rename by the hidden `NDD_TEST_COMMIT_PAUSE_MS`), leaves some outputs new
/// and some old (the defect: 3 new and 3 old). The next run writing an output in
/// either folder of the outputs completes the commit before its own work: every
/// output is then the new one, and no temporary file, backup or journal is left in
/// either folder.
#[test]
fn a_commit_killed_at_any_moment_is_completed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = families(d, "in.jsonl", 300);
    fs::create_dir_all(d.join("new/sub")).unwrap();
    fs::create_dir_all(d.join("out/sub")).unwrap();
    // Two folders: the pairs in a folder of their own.
    let place = |folder: &str| {
        let mut o = outputs(folder, &FIVE_OUTPUTS);
        o[2].1 = o[2].1.replacen(folder, &format!("{folder}/sub"), 1);
        o
    };
    let fresh = place("new");
    ok(&ndd(
        &dedup_args(&input, &fresh, &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        d,
    ));
    let new = state(d, &fresh);
    let outs = place("out");
    let args = dedup_args(&input, &outs, &[]);
    let mut words = Words(8);
    let mut mixed = 0;
    for trial in 0..6 {
        let old = set_old(d, &outs);
        assert_ne!(old, new);
        let mut child = spawn(d, &args, &[("NDD_TEST_COMMIT_PAUSE_MS", "40")]);
        let journal = d.join(format!("out/.ndd-commit.{}.ndd-journal", child.id()));
        wait_until("the commit journal", || {
            journal.exists() || child.try_wait().unwrap().is_some()
        });
        // Five renames 40 ms apart, the last at 200 ms: a moment before or between
        // them (the run then waits for the last one).
        std::thread::sleep(Duration::from_millis(words.next() % 200));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "the run finished before it was killed");
        let killed = state(d, &outs);
        if killed != old && killed != new {
            mixed += 1;
        }
        // The next run writes another output, in one folder or the other.
        let folder = if trial % 2 == 0 { "out" } else { "out/sub" };
        let next = ndd(
            &[
                "dedup",
                "-q",
                "--input",
                &input,
                "--drop-out",
                &format!("{folder}/other.txt"),
            ],
            d,
        );
        ok(&next);
        assert_eq!(state(d, &outs), new, "trial {trial}");
        if killed != new {
            assert!(
                String::from_utf8_lossy(&next.stderr).contains("were completed"),
                "{}",
                String::from_utf8_lossy(&next.stderr)
            );
        }
        for folder in ["out", "out/sub"] {
            assert_eq!(
                hidden(&d.join(folder)),
                Vec::<String>::new(),
                "trial {trial}"
            );
        }
    }
    assert!(mixed > 0, "no kill fell between two renames");
}

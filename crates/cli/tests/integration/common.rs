//! Running the built `ndd` binary as a user does, shared by the tool's test files.
#![allow(dead_code)] // each test file uses part of it

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

pub(crate) fn ndd(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndd"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run ndd")
}

pub(crate) fn ndd_stdin(args: &[&str], dir: &Path, input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndd"))
        .args(args)
        .current_dir(dir)
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

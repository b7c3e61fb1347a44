//! The defects of a reliability attack on the tool (issue 27), each kept fixed by a
//! test that runs the built binary as the attack did: endless or empty input, outputs
//! that are not files, concurrent updates of a saved state, a work folder that is not
//! the tool's, and outputs naming a file the run reads.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

mod common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{fails, ndd, ok};

/// A JSONL file of `n` short letters, two of each (`a` and `b` copies).
fn letters(dir: &Path, name: &str, n: usize, first: usize) -> String {
    let mut s = String::new();
    for i in first..first + n {
        let text = format!(
            "dear customer number {i} your parcel {i} was delivered to the front door \
             of house {i} on street {i} today"
        );
        s.push_str(&format!(
            "{{\"id\": \"{i}a\", \"text\": \"{text}\"}}\n{{\"id\": \"{i}b\", \"text\": \"{text} !\"}}\n"
        ));
    }
    fs::write(dir.join(name), s).unwrap();
    name.to_owned()
}

// 1. Blank lines exhaust memory.

/// Runs `ndd args` under a limit of its address space (`ulimit -v`, in KiB).
#[cfg(target_os = "linux")]
fn ndd_limited(kib: u64, args: &[&str], dir: &Path) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_ndd"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// 24 million newlines (a 24 KB gzip) read within a 1.5 GiB address space: each blank
/// line cost about 140 bytes of batch bookkeeping (3.3 GB here) before the reader's
/// batches were bounded by lines as well as bytes.
#[cfg(target_os = "linux")]
#[test]
fn a_gzip_of_newlines_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lines = 24_000_000usize;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let block = vec![b'\n'; 1 << 20];
    let mut left = lines;
    while left > 0 {
        let n = left.min(block.len());
        gz.write_all(&block[..n]).unwrap();
        left -= n;
    }
    fs::write(d.join("blank.jsonl.gz"), gz.finish().unwrap()).unwrap();
    let out = ndd_limited(
        1_536 * 1024,
        &["dedup", "-q", "--input", "blank.jsonl.gz"],
        d,
    );
    fails(&out, 1, "no usable document");
    // Blank lines around real records change nothing.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&fs::read(d.join(letters(d, "l.jsonl", 2, 0))).unwrap())
        .unwrap();
    for _ in 0..8 {
        gz.write_all(&block).unwrap();
    }
    gz.write_all(&fs::read(d.join(letters(d, "m.jsonl", 1, 7))).unwrap())
        .unwrap();
    fs::write(d.join("mixed.jsonl.gz"), gz.finish().unwrap()).unwrap();
    let out = ndd_limited(
        1_536 * 1024,
        &[
            "dedup",
            "-q",
            "--input",
            "mixed.jsonl.gz",
            "--drop-out",
            "drop.txt",
        ],
        d,
    );
    ok(&out);
    assert_eq!(
        fs::read_to_string(d.join("drop.txt")).unwrap(),
        "0b\n1b\n7b\n"
    );
}

/// A device is no corpus: `/dev/zero` read forever (one endless line, read through).
#[cfg(unix)]
#[test]
fn a_device_as_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for command in [
        &["dedup", "-q", "--input", "/dev/zero"][..],
        &["dedup", "-q", "--input", "/dev/zero", "--bloom"][..],
    ] {
        let out = ndd(command, dir.path());
        fails(&out, 1, "/dev/zero: is a device");
    }
}

//! The defects of a reliability attack on the tool (issue 27), each kept fixed by a
//! test that runs the built binary as the attack did: endless or empty input, outputs
//! that are not files, concurrent updates of a saved state, a work folder that is not
//! the tool's, and outputs naming a file the run reads.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{fails, ndd, ok};

/// A JSONL file of `n` short letters, two of each (`a` and `b` copies).
/// A temporary folder holding `name`, three letters and their copies (see
/// [`letters`]); returns the folder and the name.
fn three_letters(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let name = letters(dir.path(), name, 3, 0);
    (dir, name)
}

/// Builds the index `ix.ndd` in `d` from the file `input`.
fn build_index(d: &Path, input: &str) {
    ok(&ndd(
        &["dedup", "-q", "--input", input, "--index-out", "ix.ndd"],
        d,
    ));
}

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

// 2. Outputs replace what is not a file.

/// A FIFO and a link (to a device or to a file) are refused before any work and left
/// as they were: `--pairs-out /dev/stdout` replaced the system's link (as root). `-`
/// is standard output, never a file named `-` (`outputs_to_standard_output`).
#[cfg(unix)]
#[test]
fn outputs_that_are_not_regular_files_are_refused() {
    let (dir, input) = three_letters("in.jsonl");
    let d = dir.path();
    let fifo = std::process::Command::new("mkfifo")
        .arg(d.join("fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());
    std::os::unix::fs::symlink("/dev/null", d.join("null-link")).unwrap();
    fs::write(d.join("real.tsv"), "mine\n").unwrap();
    std::os::unix::fs::symlink(d.join("real.tsv"), d.join("file-link")).unwrap();
    for (flag, target, message) in [
        ("--pairs-out", "fifo", "is not a regular file"),
        ("--pairs-out", "/dev/null", "is not a regular file"),
        ("--drop-out", "null-link", "is a symbolic link"),
        ("--clusters-out", "file-link", "is a symbolic link"),
    ] {
        let out = ndd(&["dedup", "-q", "--input", &input, flag, target], d);
        fails(&out, 2, message);
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(
        fs::symlink_metadata(d.join("fifo"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
    for link in ["null-link", "file-link"] {
        assert!(
            fs::symlink_metadata(d.join(link))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert_eq!(fs::read_to_string(d.join("real.tsv")).unwrap(), "mine\n");
}

/// `-` means standard output for every output (`--keep-out -` wrote a file named `-`):
/// the bytes equal those of the same output written to a file, the summary moves to
/// standard error, nothing is named `-`, and at most one output may be `-`; a saved
/// index or filter (a file the next run reads) is refused.
#[test]
fn outputs_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = letters(d, "in.jsonl", 40, 3);
    for flag in ["--keep-out", "--drop-out", "--pairs-out", "--clusters-out"] {
        let to_file = ndd(&["dedup", "-q", "--input", &input, flag, "file.out"], d);
        assert!(to_file.status.success(), "{flag} to a file failed");
        let to_stdout = ndd(&["dedup", "--input", &input, flag, "-"], d);
        assert!(to_stdout.status.success(), "{flag} - failed");
        let expected = fs::read(d.join("file.out")).unwrap();
        assert!(!expected.is_empty(), "{flag}: nothing to compare");
        assert_eq!(to_stdout.stdout, expected, "{flag} -: not the file's bytes");
        let summary = String::from_utf8_lossy(&to_stdout.stderr);
        assert!(
            summary.contains("documents:"),
            "{flag} -: no summary on stderr: {summary}"
        );
        assert!(!d.join("-").exists(), "{flag} -: wrote a file named -");
    }
    let two = ndd(
        &[
            "dedup",
            "-q",
            "--input",
            &input,
            "--pairs-out",
            "-",
            "--keep-out",
            "-",
        ],
        d,
    );
    fails(&two, 2, "one output at most may be `-`");
    let index = ndd(&["dedup", "-q", "--input", &input, "--index-out", "-"], d);
    fails(
        &index,
        2,
        "a saved index or filter is a file the next run reads",
    );
}

/// An output replaced keeps its permissions (a 0600 output became 0644).
#[cfg(unix)]
#[test]
fn a_replaced_output_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, input) = three_letters("in.jsonl");
    let d = dir.path();
    for (name, mode) in [("drop.txt", 0o600), ("keep.jsonl", 0o640)] {
        fs::write(d.join(name), "old\n").unwrap();
        fs::set_permissions(d.join(name), fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = ndd(
        &[
            "dedup",
            "-q",
            "--input",
            &input,
            "--drop-out",
            "drop.txt",
            "--keep-out",
            "keep.jsonl",
        ],
        d,
    );
    ok(&out);
    assert_eq!(
        fs::read_to_string(d.join("drop.txt")).unwrap(),
        "0b\n1b\n2b\n"
    );
    for (name, mode) in [("drop.txt", 0o600), ("keep.jsonl", 0o640)] {
        let meta = fs::metadata(d.join(name)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, mode, "{name}");
    }
}

// 3. Concurrent updates lose a batch silently.

/// The ids of a saved index's documents, learnt by adding `probe`'s batch to a
/// copy: the refusal names how many of the batch it already holds.
fn held(d: &Path, index: &str, probe: &str) -> String {
    fs::copy(d.join(index), d.join("probe.ndd")).unwrap();
    let out = ndd(
        &[
            "dedup",
            "-q",
            "--input",
            probe,
            "--index-in",
            "probe.ndd",
            "--add",
        ],
        d,
    );
    common::text(&out.stderr)
}

/// Two updates of one index at once: either one is refused with a clear error, or
/// they ran one after the other and the index holds both batches; never both exit 0
/// with one batch lost (5 of 5 trials before the lock).
#[test]
fn concurrent_updates_of_an_index_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = letters(d, "base.jsonl", 2, 1_000_000);
    build_index(d, &base);
    let a = letters(d, "a.jsonl", 4_000, 0);
    let b = letters(d, "b.jsonl", 4_000, 10_000);
    for _ in 0..3 {
        fs::copy(d.join("ix.ndd"), d.join("shared.ndd")).unwrap();
        let spawn = |input: &str| {
            std::process::Command::new(env!("CARGO_BIN_EXE_ndd"))
                .args(["dedup", "-q", "--input", input, "--index-in", "shared.ndd"])
                .args(["--add"])
                .current_dir(d)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (pa, pb) = (spawn(&a), spawn(&b));
        let (oa, ob) = (
            pa.wait_with_output().unwrap(),
            pb.wait_with_output().unwrap(),
        );
        for (o, probe) in [(&oa, &a), (&ob, &b)] {
            if o.status.success() {
                // Its batch is in the index.
                assert!(
                    held(d, "shared.ndd", probe).contains("8000 of the 8000 documents"),
                    "{probe} lost"
                );
            } else {
                let err = common::text(&o.stderr);
                assert!(
                    err.contains("another ndd run is updating it")
                        || err.contains("another ndd run replaced it after this run read it"),
                    "{err}"
                );
            }
        }
        assert!(oa.status.success() || ob.status.success());
    }
}

/// A run holding the lock (here, its lock file) makes a second writer fail at once,
/// the state unchanged; the lock is gone after every run, failed or not.
#[test]
fn a_locked_state_is_refused_and_locks_are_released() {
    let (dir, a) = three_letters("a.jsonl");
    let d = dir.path();
    let b = letters(d, "b.jsonl", 3, 100);
    build_index(d, &a);
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            &a,
            "--bloom",
            "--bloom-out",
            "f.bloom",
        ],
        d,
    ));
    let before = (
        fs::read(d.join("ix.ndd")).unwrap(),
        fs::read(d.join("f.bloom")).unwrap(),
    );
    let lists = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let files = lists(d);
    // The same update of the index and of the filter, refused while locked and
    // accepted after.
    let add = [
        "dedup",
        "-q",
        "--input",
        &b,
        "--index-in",
        "ix.ndd",
        "--add",
    ];
    let bloom = [
        "dedup",
        "-q",
        "--input",
        &b,
        "--bloom",
        "--bloom-in",
        "f.bloom",
        "--bloom-out",
        "f.bloom",
    ];
    fs::write(d.join(".ix.ndd.ndd-lock"), "4242\n").unwrap();
    fs::write(d.join(".f.bloom.ndd-lock"), "4243\n").unwrap();
    let out = ndd(&add, d);
    fails(&out, 1, "another ndd run is updating it (process 4242)");
    let out = ndd(&bloom, d);
    fails(&out, 1, "another ndd run is updating it (process 4243)");
    assert_eq!(
        (
            fs::read(d.join("ix.ndd")).unwrap(),
            fs::read(d.join("f.bloom")).unwrap()
        ),
        before
    );
    fs::remove_file(d.join(".ix.ndd.ndd-lock")).unwrap();
    fs::remove_file(d.join(".f.bloom.ndd-lock")).unwrap();
    ok(&ndd(&add, d));
    ok(&ndd(&bloom, d));
    // A failed update releases its lock too.
    fails(&ndd(&add, d), 1, "already in the index");
    assert_eq!(lists(d), files);
}

/// A batch already in the index is refused by id (each of its documents was
/// "dropped" as a copy of itself).
#[test]
fn a_batch_added_twice_is_refused() {
    let (dir, a) = three_letters("a.jsonl");
    let d = dir.path();
    build_index(d, &a);
    let before = fs::read(d.join("ix.ndd")).unwrap();
    let out = ndd(
        &[
            "dedup",
            "-q",
            "--input",
            &a,
            "--index-in",
            "ix.ndd",
            "--add",
            "--drop-out",
            "d.txt",
        ],
        d,
    );
    fails(
        &out,
        1,
        "6 of the 6 documents of this batch are already in the index",
    );
    assert_eq!(fs::read(d.join("ix.ndd")).unwrap(), before);
    assert!(!d.join("d.txt").exists());
}

// 4. `--work-dir` deletes the user's files.

/// A folder of the user's files given as `--work-dir` is refused before any work, and
/// every file in it is left as it was (nine of ten were removed: their names matched
/// the stages' own prefixes).
#[test]
fn a_work_dir_of_the_users_files_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = letters(d, "a.jsonl", 20, 0);
    let work = d.join("mine");
    fs::create_dir(&work).unwrap();
    let names = [
        "keys-2024.txt",
        "candidates-draft.md",
        "pairs.bin",
        "scores.bin",
        "signatures.bin",
        "exact-pairs-notes",
        "sets.bin",
        "sets.idx",
        "assignments.bin",
        "todo.txt",
    ];
    for n in names {
        fs::write(work.join(n), n).unwrap();
    }
    let out = ndd(
        &[
            "dedup",
            "-q",
            "--input",
            &a,
            "--work-dir",
            "mine",
            "--keep-out",
            "k.jsonl",
        ],
        d,
    );
    assert!(!out.status.success());
    let err = common::text(&out.stderr);
    assert!(err.contains("no out-of-core run wrote"), "{err}");
    for n in names {
        assert_eq!(fs::read_to_string(work.join(n)).unwrap(), n, "{n} changed");
    }
    assert_eq!(fs::read_dir(&work).unwrap().count(), names.len());
    assert!(!d.join("k.jsonl").exists());
    // A new folder works, and a second run reuses it.
    for _ in 0..2 {
        ok(&ndd(
            &[
                "dedup",
                "-q",
                "--input",
                &a,
                "--work-dir",
                "new",
                "--keep-out",
                "k.jsonl",
            ],
            d,
        ));
    }
}

// 5. Other files a run reads can be overwritten.

/// No output replaces a file the run reads: the `--weights` model, the `--links-in`
/// file, the `--lexicon` (each was replaced, exit 0).
#[test]
fn no_output_replaces_a_file_the_run_reads() {
    let (dir, input) = three_letters("in.jsonl");
    let d = dir.path();
    // A real model (it is read before the outputs are checked).
    let mut labeled = String::new();
    for i in 0..30 {
        for v in 0..3 {
            labeled.push_str(&format!(
                "{{\"id\": \"{i}-{v}\", \"cluster\": \"{i}\", \"text\": \"letter {i} about parcel {i} \
                 sent to house {i} on day {v} with greetings number {}\"}}\n",
                i * 7
            ));
        }
    }
    fs::write(d.join("labeled.jsonl"), labeled).unwrap();
    let train = [
        "train",
        "-q",
        "--input",
        "labeled.jsonl",
        "--label-field",
        "cluster",
        "--out",
    ];
    ok(&ndd(&[&train[..], &["model.ndl"]].concat(), d));
    let model = fs::read(d.join("model.ndl")).unwrap();
    fs::write(d.join("links.tsv"), "must\t0a\t1a\n").unwrap();
    let scheme = ndd_core::SchemeId::new("user-terms").finish();
    let lexicon = ndd_pipeline::Lexicon::from_terms(scheme, vec![1, 2, 3], vec![]).unwrap();
    fs::write(d.join("lexicon.txt"), lexicon.to_bytes()).unwrap();
    let kept = |name: &str| fs::read(d.join(name)).unwrap();
    let before = [kept("links.tsv"), kept("lexicon.txt")];
    for (read_flag, file, method, out_flag) in [
        ("--weights", "model.ndl", "minhash", "--pairs-out"),
        ("--weights", "./model.ndl", "simhash", "--keep-out"),
        ("--links-in", "links.tsv", "minhash", "--clusters-out"),
        ("--lexicon", "lexicon.txt", "imatch", "--drop-out"),
    ] {
        let mut args = vec!["dedup", "-q", "--input", &input, "--method", method];
        if read_flag == "--links-in" {
            args.extend(["--group", "durian"]);
        }
        args.extend([read_flag, file, out_flag, file.trim_start_matches("./")]);
        let out = ndd(&args, d);
        fails(&out, 2, &format!("is the file {read_flag} reads"));
    }
    assert_eq!(fs::read(d.join("model.ndl")).unwrap(), model);
    assert_eq!([kept("links.tsv"), kept("lexicon.txt")], before);
}

// 10. Symbolic links are followed out of the input folder.

/// A link in the input folder to a file outside it is skipped as bad input (a link to
/// a system file ended up in `--keep-out`), unless `--follow-links` asks for it; a link
/// within the folder is still followed.
#[cfg(unix)]
#[test]
fn links_out_of_the_input_folder_are_not_followed_unless_asked() {
    let (dir, corpus) = common::dir_with_folder("corpus");
    let d = dir.path();
    fs::write(
        corpus.join("a.txt"),
        "the minutes of the meeting of the parish council",
    )
    .unwrap();
    fs::create_dir(d.join("elsewhere")).unwrap();
    fs::write(
        d.join("elsewhere/secret.txt"),
        "a private file outside the corpus folder",
    )
    .unwrap();
    std::os::unix::fs::symlink(d.join("elsewhere/secret.txt"), corpus.join("out.txt")).unwrap();
    std::os::unix::fs::symlink(d.join("elsewhere"), corpus.join("outdir")).unwrap();
    std::os::unix::fs::symlink(corpus.join("a.txt"), corpus.join("in.txt")).unwrap();
    let out = ndd(
        &["dedup", "-q", "--input", "corpus", "--keep-out", "k.jsonl"],
        d,
    );
    ok(&out);
    let warnings = common::text(&out.stderr);
    assert!(warnings.contains("out.txt"), "{warnings}");
    assert!(warnings.contains("outdir"), "{warnings}");
    assert!(
        warnings.contains("a symbolic link out of the input folder"),
        "{warnings}"
    );
    let kept = fs::read_to_string(d.join("k.jsonl")).unwrap();
    assert!(!kept.contains("private file"), "{kept}");
    assert!(kept.contains("parish council"), "{kept}");
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "corpus",
            "--follow-links",
            "--keep-out",
            "k2.jsonl",
        ],
        d,
    ));
    let kept = fs::read_to_string(d.join("k2.jsonl")).unwrap();
    assert!(kept.contains("private file"), "{kept}");
}

// 6. Near-identical documents crash two methods.

/// `n` lines of one letter with a different number each: every pair is a
/// near-duplicate (J ≥ 0.85), and no two are identical, so no exact pass removes them.
fn near_identical(dir: &Path, name: &str, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "{{\"id\": \"{i}\", \"text\": \"dear customer your parcel was delivered to the \
             front door of the house on the main street today and we thank you for \
             choosing our service number {i}\"}}\n"
        ));
    }
    fs::write(dir.join(name), s).unwrap();
    name.to_owned()
}

/// The summary's pair and group counts (`pairs:  N (G groups)`).
fn pairs_and_groups(summary: &str) -> (u64, u64) {
    let line = summary
        .lines()
        .find_map(|l| l.strip_prefix("pairs:"))
        .unwrap_or_else(|| panic!("no pairs line in {summary}"));
    let mut words = line.split_whitespace();
    let pairs = words.next().unwrap().parse().unwrap();
    let groups = words
        .next()
        .unwrap()
        .trim_start_matches('(')
        .parse()
        .unwrap();
    (pairs, groups)
}

/// 2,000 near-identical lines: the exact and SigNCD methods found all 1,999,000 pairs
/// (20,000 lines aborted at 7 GB); each document now pairs with at most 256 of the
/// documents before it, as MinHash's bucket scan bounds it, and the group is kept
/// whole. `--max-bucket-scan none` (which aborted at 9 GB on 20,000) reads at most
/// 1,024 members of a bucket.
#[test]
fn near_identical_documents_cost_bounded_pairs_in_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 2_000u64;
    let input = near_identical(d, "near.jsonl", 2_000);
    for method in ["exact", "signcd", "minhash"] {
        let out = ok(&ndd(&["dedup", "--input", &input, "--method", method], d));
        let (pairs, groups) = pairs_and_groups(&out);
        assert_eq!(groups, 1, "{method}: {out}");
        // MinHash meets 256 members of each of its 16 bands' buckets.
        let bound = if method == "minhash" {
            n * (n - 1) / 2 - 1
        } else {
            n * 256
        };
        assert!(pairs >= n - 1 && pairs <= bound, "{method}: {pairs} pairs");
        assert!(out.contains("dropped:     1999 "), "{method}: {out}");
    }
    // Unbounded would be all 4,498,500 pairs of 3,000.
    let input = near_identical(d, "near3k.jsonl", 3_000);
    let out = ok(&ndd(
        &["dedup", "--input", &input, "--max-bucket-scan", "none"],
        d,
    ));
    let (pairs, groups) = pairs_and_groups(&out);
    assert_eq!(groups, 1);
    assert!(pairs < 3_000 * 2_999 / 2, "{pairs} pairs");
}

/// `--explain-out` writes at most 1,000 pairs of a group (a group of 20,000
/// near-identical lines wrote 11.8 GB); the pairs of other groups are all written.
#[test]
fn explain_out_is_bounded_per_group() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    near_identical(d, "near.jsonl", 600);
    let mut input = fs::read_to_string(d.join("near.jsonl")).unwrap();
    input.push_str(&fs::read_to_string(d.join(letters(d, "l.jsonl", 2, 0))).unwrap());
    fs::write(d.join("in.jsonl"), input).unwrap();
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            "in.jsonl",
            "--explain-out",
            "explain.jsonl",
        ],
        d,
    ));
    let lines = common::json_lines(&d.join("explain.jsonl"));
    let letter = |v: &serde_json::Value| v["id_a"].as_str().unwrap().ends_with('a');
    assert_eq!(lines.iter().filter(|v| !letter(v)).count(), 1_000);
    assert_eq!(lines.iter().filter(|v| letter(v)).count(), 2);
}

// 9. An input rewritten during a run.

/// Bytes the process `pid` has read so far (`rchar` of `/proc/PID/io`).
#[cfg(target_os = "linux")]
fn bytes_read(pid: u32) -> Option<u64> {
    let io = fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
}

/// Starts `ndd dedup -q --input INPUT --max-bucket-scan none OUTPUTS...` in `d`: on
/// 3,000 near-identical lines, a run of a second or more after it has read its input.
#[cfg(target_os = "linux")]
fn slow_dedup(d: &Path, input: &str, outputs: &[&str]) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_ndd"))
        .args(["dedup", "-q", "--input", input, "--max-bucket-scan", "none"])
        .args(outputs)
        .current_dir(d)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// A new temporary folder holding the input [`slow_dedup`] is timed on: 3,000
/// near-identical lines in `near.jsonl`. Returns the folder and the input's name.
#[cfg(target_os = "linux")]
fn slow_input() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let input = near_identical(dir.path(), "near.jsonl", 3_000);
    (dir, input)
}

/// Polls `done` every millisecond, failing after a minute without `what`.
#[cfg(target_os = "linux")]
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed().as_secs() < 60, "never saw {what}");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// An input rewritten after the run read it: `--keep-out` copied the records of the
/// new content (91,071 of 91,409) beside groups of the old, exit 0. The run now fails
/// naming the input, and no output is written.
#[cfg(target_os = "linux")]
#[test]
fn an_input_rewritten_during_the_run_writes_nothing() {
    let (dir, input) = slow_input();
    let d = dir.path();
    let size = fs::metadata(d.join(&input)).unwrap().len();
    let mut child = slow_dedup(
        d,
        &input,
        &["--keep-out", "keep.jsonl", "--drop-out", "drop.txt"],
    );
    // Once the input is read (the run then finds pairs for a second or more), rewrite
    // it: the same ids, other texts.
    wait_until("the input was read", || {
        bytes_read(child.id()).is_none_or(|n| n >= size)
    });
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before the input could be rewritten"
    );
    let mut rewritten = String::new();
    for i in 0..3_000 {
        rewritten.push_str(&format!(
            "{{\"id\": \"{i}\", \"text\": \"another text altogether {i}\"}}\n"
        ));
    }
    fs::write(d.join(&input), rewritten).unwrap();
    let out = child.wait_with_output().unwrap();
    fails(&out, 1, "the input changed while the run read it");
    assert!(!d.join("keep.jsonl").exists() && !d.join("drop.txt").exists());
}

// 8. Outputs are not committed together.

/// A commit that fails at its last rename leaves every output as it was: a rename
/// made impossible (the last output's path became a folder while the run wrote) left
/// the outputs renamed before it new and the rest old.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_commit_changes_no_output() {
    let (dir, input) = slow_input();
    let d = dir.path();
    for name in ["drop.txt", "pairs.tsv"] {
        fs::write(d.join(name), "old\n").unwrap();
    }
    let child = slow_dedup(
        d,
        &input,
        &[
            "--drop-out",
            "drop.txt",
            "--pairs-out",
            "pairs.tsv",
            "--clusters-out",
            "clusters.tsv",
        ],
    );
    // Once the outputs are being written (millions of pairs), the last one's path
    // becomes a folder that a rename cannot replace.
    let temp = format!(".clusters.tsv.{}.0.ndd-tmp", child.id());
    wait_until("a temporary output", || d.join(&temp).exists());
    fs::create_dir(d.join("clusters.tsv")).unwrap();
    fs::write(d.join("clusters.tsv").join("mine"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    fails(&out, 1, "no output was changed");
    for name in ["drop.txt", "pairs.tsv"] {
        assert_eq!(fs::read_to_string(d.join(name)).unwrap(), "old\n", "{name}");
    }
    let left: Vec<String> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The hidden temporary files and backups a killed run left beside an output (up to
/// 244 MB each, never removed) are removed by the next run writing that output; files
/// of a running process, and other files, are left.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_runs_temporary_files_are_removed() {
    let (dir, input) = three_letters("in.jsonl");
    let d = dir.path();
    // A process that has ended: a child waited for.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let own = std::process::id();
    let stale = [
        format!(".drop.txt.{dead}.0.ndd-tmp"),
        format!(".drop.txt.{dead}.7.ndd-tmp"),
        format!(".drop.txt.{dead}.ndd-old"),
    ];
    let kept = [
        format!(".drop.txt.{own}.0.ndd-tmp"),
        format!(".other.txt.{dead}.0.ndd-tmp"),
        format!(".drop.txt.{dead}.x.ndd-tmp"),
        "drop.txt.ndd-tmp".to_owned(),
    ];
    for name in stale.iter().chain(&kept) {
        fs::write(d.join(name), "left\n").unwrap();
    }
    ok(&ndd(
        &["dedup", "-q", "--input", &input, "--drop-out", "drop.txt"],
        d,
    ));
    for name in &stale {
        assert!(!d.join(name).exists(), "{name} was left");
    }
    for name in &kept {
        assert!(d.join(name).exists(), "{name} was removed");
    }
    assert_eq!(
        fs::read_to_string(d.join("drop.txt")).unwrap(),
        "0b\n1b\n2b\n"
    );
}

// 7. Out-of-core accepts damaged or foreign work files.

/// A JSONL file of 20 families of three 30-word documents, ids and words tagged
/// `tag`: the original (`{tag}{g}a`), one with a word changed (`b`, Jaccard 0.81 of
/// word 3-grams) and one with two adjacent words changed (`c`, 0.75 to both), so that
/// thresholds 0.8 and 0.7 group them differently; family by family, or (`by_variant`)
/// every original first, then every `b`, then every `c`.
fn graded(dir: &Path, name: &str, tag: char, by_variant: bool) -> String {
    let mut lines = Vec::new();
    for g in 0..20 {
        let words: Vec<String> = (0..30).map(|j| format!("{tag}{g}w{j:02}")).collect();
        let mut b = words.clone();
        b[10] = format!("{tag}{g}xb");
        let mut c = words.clone();
        c[10] = format!("{tag}{g}xc");
        c[11] = format!("{tag}{g}yc");
        for (i, (v, w)) in [("a", &words), ("b", &b), ("c", &c)]
            .into_iter()
            .enumerate()
        {
            let line = format!(
                "{{\"id\": \"{tag}{g:02}{v}\", \"text\": \"{}\"}}\n",
                w.join(" ")
            );
            lines.push((if by_variant { i } else { 0 }, lines.len(), line));
        }
    }
    lines.sort();
    let s: String = lines.into_iter().map(|(_, _, l)| l).collect();
    fs::write(dir.join(name), s).unwrap();
    name.to_owned()
}

/// Flips a bit of the byte at `at` of `path`.
fn flip(path: &Path, at: usize) {
    let mut bytes = fs::read(path).unwrap();
    bytes[at] ^= 0x04;
    fs::write(path, bytes).unwrap();
}

/// `ndd dedup` of `input` at threshold `t`, its drop and pairs outputs as one string;
/// in memory without `work`, else out of core in `work`.
fn dedup_outputs(d: &Path, input: &str, t: &str, work: Option<&str>) -> String {
    let mut args = vec![
        "dedup",
        "-q",
        "--input",
        input,
        "--threshold",
        t,
        "--drop-out",
        "drop.txt",
        "--pairs-out",
        "pairs.tsv",
    ];
    if let Some(w) = work {
        args.extend(["--work-dir", w]);
    }
    ok(&ndd(&args, d));
    fs::read_to_string(d.join("drop.txt")).unwrap()
        + &fs::read_to_string(d.join("pairs.tsv")).unwrap()
}

/// Damaged work files are refused or redone, never read as good (12 of 47 tamper runs
/// gave other outputs with exit 0): the scores and the assignments, read by a reader
/// that stops at the pairs' or documents' end, are checked whole when opened; the
/// texts and their offsets (no trailer) are checked against the checksums the sketch
/// stage's marker keeps; a marker whose lines were edited is not reused.
#[test]
fn damaged_work_files_are_refused_or_redone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = graded(d, "in.jsonl", 'p', false);
    let at_08 = dedup_outputs(d, &input, "0.8", None);
    let at_07 = dedup_outputs(d, &input, "0.7", None);
    assert_ne!(at_08, at_07);
    // The scores and the assignments: refused, naming the damaged file (the refusal
    // named the work folder) and what is wrong with it: a flipped bit, a file cut
    // short of its trailer, a file cut short of its header.
    for file in ["scores.bin", "assignments.bin"] {
        let work = format!("work-{file}");
        assert_eq!(dedup_outputs(d, &input, "0.8", Some(&work)), at_08);
        let path = d.join(&work).join(file);
        let whole = fs::read(&path).unwrap();
        let damages: [(&dyn Fn(), &str); 3] = [
            (&|| flip(&path, 40), "checksum mismatch"),
            (
                &|| fs::write(&path, &whole[..whole.len() - 5]).unwrap(),
                "no trailer",
            ),
            (
                &|| fs::write(&path, &whole[..20]).unwrap(),
                "truncated record file",
            ),
        ];
        for (damage, what) in damages {
            damage();
            let out = ndd(
                &[
                    "dedup",
                    "-q",
                    "--input",
                    &input,
                    "--threshold",
                    "0.8",
                    "--work-dir",
                    &work,
                    "--drop-out",
                    "drop.txt",
                    "--pairs-out",
                    "pairs.tsv",
                ],
                d,
            );
            fails(
                &out,
                1,
                &format!("{work}/{file}: this work file is damaged"),
            );
            fails(&out, 1, what);
            fs::write(&path, &whole).unwrap();
        }
    }
    // The texts (the set verifiers' sets are made from them), and a marker's counts:
    // redone.
    for (file, at, edit) in [
        ("texts.bin", 16, None),
        ("texts.idx", 8, None),
        ("sketch.done", 0, Some(("documents=60", "documents=59"))),
        ("verify.done", 0, Some(("pairs=", "pairs=1"))),
    ] {
        let work = format!("work-{file}");
        assert_eq!(dedup_outputs(d, &input, "0.8", Some(&work)), at_08);
        let path = d.join(&work).join(file);
        match edit {
            None => flip(&path, at),
            Some((from, to)) => {
                let text = fs::read_to_string(&path).unwrap();
                assert!(text.contains(from), "{text}");
                fs::write(&path, text.replacen(from, to, 1)).unwrap();
            }
        }
        // Verification interrupted, so that it reads the texts again (a damaged text
        // read as good changes a pair's score).
        if file.starts_with("texts") {
            fs::remove_file(d.join(&work).join("verify.done")).unwrap();
        }
        // The same settings: every stage would be reused but for the damage.
        assert_eq!(
            dedup_outputs(d, &input, "0.8", Some(&work)),
            at_08,
            "{file}"
        );
    }
}

/// An input replaced by another of the same size and modification time is not taken
/// for the one the work folder was made from: its stages are redone (the old work was
/// reused, and the outputs were the old input's).
#[test]
fn a_replaced_input_of_the_same_size_and_time_is_redone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    graded(d, "a.jsonl", 'p', false);
    graded(d, "b.jsonl", 'q', true);
    let (a, b) = (
        fs::read_to_string(d.join("a.jsonl")).unwrap(),
        fs::read_to_string(d.join("b.jsonl")).unwrap(),
    );
    assert_eq!(a.len(), b.len());
    let want_b = dedup_outputs(d, "b.jsonl", "0.8", None);
    fs::write(d.join("in.jsonl"), &a).unwrap();
    let when = fs::metadata(d.join("in.jsonl"))
        .unwrap()
        .modified()
        .unwrap();
    let want_a = dedup_outputs(d, "in.jsonl", "0.8", Some("work"));
    assert_ne!(want_a, want_b);
    fs::write(d.join("in.jsonl"), &b).unwrap();
    fs::File::options()
        .write(true)
        .open(d.join("in.jsonl"))
        .unwrap()
        .set_modified(when)
        .unwrap();
    assert_eq!(dedup_outputs(d, "in.jsonl", "0.8", Some("work")), want_b);
}

// Next in line: a model whose bias is a huge finite number.

/// A weight model file (`ndd train`'s byte form, written field by field) whose
/// weights are `lambda`: k = 3, the Jaccard objective, no scaling.
fn model_bytes(lambda: [f64; 11]) -> Vec<u8> {
    let mut w = ndd_core::codec::ByteWriter::new(*b"NDLW", 1);
    w.u64(3);
    w.u8(1);
    w.u32(11);
    for v in lambda.iter().chain(&[0.0; 11]).chain(&[1.0; 11]) {
        w.f64(*v);
    }
    w.finish()
}

/// A model whose bias is 1e300 (finite) put every document in one group; it is now
/// refused when loaded, naming the file, and a sensible one is still used.
#[test]
fn a_model_with_a_huge_bias_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = letters(d, "in.jsonl", 5, 0);
    let mut lambda = [0.0; 11];
    lambda[0] = 1e300;
    fs::write(d.join("huge.ndl"), model_bytes(lambda)).unwrap();
    lambda[0] = 1.0;
    fs::write(d.join("plain.ndl"), model_bytes(lambda)).unwrap();
    let out = ndd(
        &["dedup", "-q", "--input", &input, "--weights", "huge.ndl"],
        d,
    );
    fails(&out, 1, "huge.ndl");
    assert!(String::from_utf8_lossy(&out.stderr).contains("out of range"));
    ok(&ndd(
        &[
            "dedup",
            "-q",
            "--input",
            &input,
            "--weights",
            "plain.ndl",
            "--drop-out",
            "drop.txt",
        ],
        d,
    ));
    assert_eq!(
        fs::read_to_string(d.join("drop.txt")).unwrap(),
        "0b\n1b\n2b\n3b\n4b\n"
    );
}

// Next in line: an index read whole before it is checked.

/// A 6 GB sparse file given as `--index-in` was read whole (6.3 GB of memory, 16 s)
/// before its checksum failed; it is now refused by its first bytes, within a 512 MiB
/// address space. A FIFO is refused as not a regular file, `/dev/zero` as a device;
/// the same for `--bloom-in` and `--weights`.
#[cfg(target_os = "linux")]
#[test]
fn an_index_that_is_not_one_is_refused_before_it_is_read() {
    let (dir, input) = three_letters("in.jsonl");
    let d = dir.path();
    let sparse = fs::File::create(d.join("sparse.ndx")).unwrap();
    sparse.set_len(6 << 30).unwrap();
    drop(sparse);
    let fifo = std::process::Command::new("mkfifo")
        .arg(d.join("fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());
    for (flag, path, message) in [
        ("--index-in", "sparse.ndx", "not a file of this kind"),
        ("--index-in", "fifo", "is not a regular file"),
        ("--index-in", "/dev/zero", "is a device"),
        ("--weights", "sparse.ndx", "such a file can honestly need"),
        ("--weights", "in.jsonl", "not a file of this kind"),
    ] {
        let out = ndd_limited(
            512 * 1024,
            &["dedup", "-q", "--input", &input, flag, path],
            d,
        );
        fails(&out, 1, message);
    }
    let out = ndd_limited(
        512 * 1024,
        &[
            "dedup",
            "-q",
            "--input",
            &input,
            "--bloom",
            "--bloom-in",
            "sparse.ndx",
        ],
        d,
    );
    fails(&out, 1, "not a file of this kind");
}

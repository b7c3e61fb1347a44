//! `ndd dedup --work-dir`, run as a user runs it: the same outputs as the in-memory
//! run on the bundled corpus and on a folder, stages reused on a rerun, a changed
//! input not taken for the old one, and bad use refused before any work.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;

use common::{fails, ndd, ndd_stdin, ok};

fn read(dir: &std::path::Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn same_outputs_as_the_in_memory_run_and_stages_reused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let outputs = |tag: &str| {
        [
            "--keep-out".to_owned(),
            format!("{tag}-keep.jsonl"),
            "--drop-out".to_owned(),
            format!("{tag}-drop.txt"),
            "--clusters-out".to_owned(),
            format!("{tag}-clusters.tsv"),
            "--pairs-out".to_owned(),
            format!("{tag}-pairs.tsv"),
        ]
    };
    let args = |extra: &[&str], tag: &str| -> Vec<String> {
        let mut v: Vec<String> = ["dedup", "--no-exact-pass"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        v.extend(extra.iter().map(|s| (*s).to_owned()));
        v.extend(outputs(tag));
        v
    };
    let run = |v: Vec<String>| {
        let v: Vec<&str> = v.iter().map(String::as_str).collect();
        ok(&ndd(&v, d))
    };
    run(args(&[], "mem"));
    let first = run(args(
        &["--work-dir", "work", "--memory-budget", "1M"],
        "ooc",
    ));
    assert!(first.contains("out of core"), "{first}");
    for name in ["keep.jsonl", "drop.txt", "clusters.tsv", "pairs.tsv"] {
        let (mem, ooc) = (
            read(d, &format!("mem-{name}")),
            read(d, &format!("ooc-{name}")),
        );
        assert!(
            mem.lines().count() > 100,
            "{name}: {} lines",
            mem.lines().count()
        );
        assert_eq!(mem, ooc, "{name} differs");
    }
    // A rerun reuses every stage and writes the same outputs again.
    let again = run(args(&["--work-dir", "work"], "again"));
    assert!(
        again.contains(
            "sketch reused, exact reused, candidates reused, verify reused, group reused"
        ),
        "{again}"
    );
    assert_eq!(read(d, "mem-keep.jsonl"), read(d, "again-keep.jsonl"));
    // With the exact pass (the default): the same outputs too.
    let with_exact = |extra: &[&str], tag: &str| {
        let (keep, clusters, pairs) = (
            format!("{tag}.jsonl"),
            format!("{tag}.tsv"),
            format!("{tag}-pairs.tsv"),
        );
        let outputs = ["--keep-out", &keep, "--clusters-out", &clusters];
        let v = [&["dedup"][..], extra, &outputs, &["--pairs-out", &pairs]].concat();
        ok(&ndd(&v, d))
    };
    with_exact(&[], "m");
    let out = with_exact(&["--work-dir", "work2"], "o");
    // Every copy of a repeated text but one, as every method counts them (issue 30).
    assert!(out.contains("226 exact copies"), "{out}");
    assert_eq!(read(d, "m.jsonl"), read(d, "o.jsonl"));
    assert_eq!(read(d, "m.tsv"), read(d, "o.tsv"));
    assert_eq!(read(d, "m-pairs.tsv"), read(d, "o-pairs.tsv"));
}

/// The names the four outputs of a run end in.
const OUTPUTS: [&str; 4] = ["keep.jsonl", "drop.txt", "clusters.tsv", "pairs.tsv"];

/// The options writing the four outputs to `names` (in the order of [`OUTPUTS`]).
fn output_args(names: &[String; 4]) -> [&str; 8] {
    [
        "--keep-out",
        &names[0],
        "--drop-out",
        &names[1],
        "--clusters-out",
        &names[2],
        "--pairs-out",
        &names[3],
    ]
}

/// Runs `ndd dedup` with each of `runs` (settings separated by spaces) in memory and
/// out of core under the smallest budget, in `d`, and checks that every output is the
/// same bytes (and not nearly empty); returns the work folders.
fn same_outputs_in_memory_and_out_of_core(d: &std::path::Path, runs: &[&str]) -> Vec<String> {
    let mut works = Vec::new();
    for (i, settings) in runs.iter().enumerate() {
        let settings: &[&str] = &settings.split_whitespace().collect::<Vec<_>>();
        let run = |tag: &str, work: &[&str]| {
            let names = OUTPUTS.map(|n| format!("{tag}{i}-{n}"));
            let outputs = output_args(&names);
            // Not `-q`: the summary says which engine ran.
            ok(&ndd(
                &[&["dedup"][..], settings, work, &outputs].concat(),
                d,
            ))
        };
        run("mem", &[]);
        let work = format!("work{i}");
        let out = run("ooc", &["--work-dir", &work, "--memory-budget", "1M"]);
        assert!(out.contains("out of core"), "{out}");
        for name in OUTPUTS {
            let (mem, ooc) = (
                read(d, &format!("mem{i}-{name}")),
                read(d, &format!("ooc{i}-{name}")),
            );
            assert!(mem.lines().count() > 10, "{settings:?} {name}: {mem}");
            assert_eq!(mem, ooc, "{settings:?}: {name} differs");
        }
        works.push(work);
    }
    works
}

/// `--method simhash` (with its own score, exact Jaccard, containment and alignment),
/// MinHash verified by containment, `--verify align` and `--verify align-dice`: out of
/// core under the smallest budget, the same bytes as the in-memory run in every
/// output. The alignment verifiers read texts, kept for them in `texts.bin`, in
/// blocks of a 32nd of the budget (32 KiB): many blocks. The set verifiers keep the
/// texts too, and the documents candidates name (`named.bin`), whose sets
/// verification makes and removes.
#[test]
fn simhash_containment_and_align_give_the_in_memory_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let works = same_outputs_in_memory_and_out_of_core(
        dir.path(),
        &[
            "--method simhash",
            "--method simhash --verify jaccard --threshold 0.5",
            "--method simhash --verify containment --no-exact-pass",
            "--verify containment --threshold 0.7",
            "--verify align",
            "--method simhash --verify align --no-exact-pass",
            "--verify align-dice --threshold 0.7",
        ],
    );
    for (i, work) in works.iter().enumerate() {
        let texts = fs::metadata(dir.path().join(work).join("texts.bin"));
        match texts {
            Ok(t) => assert!(i >= 1 && t.len() > 16 * 32 * 1024, "{i}: {} bytes", t.len()),
            Err(_) => assert!(i < 1, "{i}: no texts kept"),
        }
        let named = dir.path().join(work).join("named.bin").exists();
        assert_eq!(named, (1..4).contains(&i), "{i}: named.bin");
        assert!(!dir.path().join(work).join("sets.bin").exists(), "{i}");
    }
}

/// `--verify align-weighted`, whose weights are the document frequencies of the whole
/// corpus: out of core under the smallest budget (the weights stage counts them into
/// `weights.bin`, more than an eighth of the budget, so verification reads the pages
/// its blocks need), the same bytes as the in-memory run in every output, with and
/// without the exact pass, and with SimHash.
#[test]
fn align_weighted_gives_the_in_memory_outputs() {
    let settings = [
        "--verify align-weighted",
        "--verify align-weighted --no-exact-pass --threshold 0.6",
        "--method simhash --verify align-weighted",
    ];
    let dir = tempfile::tempdir().unwrap();
    for work in &same_outputs_in_memory_and_out_of_core(dir.path(), &settings) {
        let weights = fs::metadata(dir.path().join(work).join("weights.bin")).unwrap();
        assert!(
            weights.len() > 1024 * 1024 / 8,
            "{work}: {} bytes",
            weights.len()
        );
    }
}

#[test]
fn a_folder_and_a_changed_input() {
    let (dir, input) = common::dir_with_folder("docs");
    let d = dir.path();
    let letter = "we the undersigned ask the council to keep the library open on sundays \
                  because students and families rely on it every weekend of the year";
    for i in 0..6 {
        fs::write(
            input.join(format!("{i}.txt")),
            format!("{letter} signed {i}"),
        )
        .unwrap();
    }
    fs::write(
        input.join("other.txt"),
        "a note about something else entirely",
    )
    .unwrap();
    let run = |extra: &[&str], keep: &str| {
        let base = ["dedup", "--input", "docs", "--threshold", "0.7"];
        ok(&ndd(&[&base[..], extra, &["--keep-out", keep]].concat(), d))
    };
    let dedup = |work: &str, keep: &str| run(&["--work-dir", work], keep);
    run(&[], "mem.jsonl");
    let out = dedup("work", "ooc.jsonl");
    assert!(out.contains("documents:   7 read"), "{out}");
    assert_eq!(read(d, "mem.jsonl"), read(d, "ooc.jsonl"));
    assert_eq!(read(d, "ooc.jsonl").lines().count(), 2);
    // A new file in the folder: the old stages are not reused for the new input.
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(
        input.join("new.txt"),
        "yet another unrelated note about the weather",
    )
    .unwrap();
    let out = dedup("work", "ooc2.jsonl");
    assert!(out.contains("documents:   8 read"), "{out}");
    assert!(!out.contains("sketch reused"), "{out}");
    assert_eq!(read(d, "ooc2.jsonl").lines().count(), 3);
    // A file changed in place (the folder's own time does not change): redone too.
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(input.join("other.txt"), format!("{letter} signed again")).unwrap();
    let out = dedup("work", "ooc3.jsonl");
    assert!(!out.contains("sketch reused"), "{out}");
    assert_eq!(read(d, "ooc3.jsonl").lines().count(), 2);
}

#[test]
fn bad_use_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("in.jsonl"),
        "{\"id\": 1, \"text\": \"one two three\"}\n",
    )
    .unwrap();
    fs::write(d.join("afile"), "x").unwrap();
    let base = ["dedup", "--input", "in.jsonl", "--work-dir", "w"];
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    // Usage errors: (arguments, what the message names).
    let usage = [
        (with(&base, &["--memory-budget", "10"]), "at least"),
        (with(&base, &["--memory-budget", "lots"]), "512M"),
        (
            vec!["dedup", "--input", "in.jsonl", "--memory-budget", "1G"],
            "--work-dir",
        ),
        (with(&base, &["--method", "imatch"]), "minhash"),
        (with(&base, &["--representative", "longest"]), "first-seen"),
        (
            with(&base, &["--method", "simhash", "--bits", "128"]),
            "64-bit",
        ),
        (
            with(&base, &["--annotate-out", "a.jsonl"]),
            "--annotate-out is not available",
        ),
        (
            with(&base, &["--explain-out", "e.jsonl"]),
            "--explain-out is not available",
        ),
        (
            with(&base, &["--members-out", "m.jsonl"]),
            "--members-out is not available",
        ),
        (with(&base, &["--index-out", "i.ndd"]), "--index-out"),
        (
            vec!["dedup", "--input", "in.jsonl", "--work-dir", "afile"],
            "is a file",
        ),
    ];
    for (args, message) in &usage {
        fails(&ndd(args, d), 2, message);
    }
    fails(
        &ndd_stdin(
            &["dedup", "--input", "-", "--work-dir", "w"],
            d,
            b"{\"text\": \"x\"}\n",
        ),
        2,
        "standard input",
    );
    // An output inside the work folder, a work folder inside the input folder.
    fs::create_dir(d.join("w")).unwrap();
    fails(
        &ndd(&with(&base, &["--keep-out", "w/keep.jsonl"]), d),
        2,
        "stay apart",
    );
    fs::create_dir(d.join("folder")).unwrap();
    fs::write(d.join("folder/a.txt"), "text").unwrap();
    fails(
        &ndd(&["dedup", "--input", "folder", "--work-dir", "folder/w"], d),
        2,
        "inside it",
    );
    // Nothing was written by the refused runs.
    assert!(!d.join("a.jsonl").exists() && !d.join("i.ndd").exists());
    // Bad lines are skipped with a warning, as in memory; a file of only bad lines is
    // refused as in memory.
    fs::write(d.join("bad.jsonl"), "not json\n[1]\n").unwrap();
    fails(
        &ndd(&["dedup", "--input", "bad.jsonl", "--work-dir", "wb"], d),
        1,
        "no usable document (2 rejected",
    );
    fs::write(d.join("some.jsonl"), "not json\n{\"text\": \"fine\"}\n").unwrap();
    let out = ndd(&["dedup", "--input", "some.jsonl", "--work-dir", "ws"], d);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped"));
}

/// The outputs pass copies kept records by the lines the first reading noted (no
/// second decoding): lines skipped by the first reading (bad JSON, a blank line, a
/// repeated id) do not shift them, ids that TSV escapes stay escaped, a gzip input
/// gives the same, the noted rows' file is gone afterwards, and a rerun whose stages
/// are all reused (the input not read, nothing noted) decodes the input again and
/// writes the same bytes.
#[test]
fn kept_records_by_line_past_skipped_lines_and_on_a_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = common::Words(7);
    let mut lines = Vec::new();
    for i in 0..60 {
        let words = rng.words(40, 400).join(" ");
        let id = match i % 7 {
            0 => format!("tab\there {i}"),
            1 => format!("line\nbreak {i}"),
            _ => format!("d{i}"),
        };
        lines.push(serde_json::json!({ "id": id, "text": words, "extra": i }).to_string());
        if i % 3 == 0 {
            // A near copy of it, a few lines on.
            let near = format!("{words} and one more");
            let v = serde_json::json!({ "text": near, "id": format!("near {i}") });
            lines.push(v.to_string());
        }
        match i {
            5 => lines.push("{not json".to_owned()),
            9 => lines.push(String::new()),
            // The id of line 1 again: skipped.
            13 => lines.push(r#"{"id":"tab\there 0","text":"a repeated id"}"#.to_owned()),
            _ => {}
        }
    }
    let jsonl = lines.join("\n") + "\n";
    fs::write(d.join("in.jsonl"), &jsonl).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, jsonl.as_bytes()).unwrap();
    fs::write(d.join("in.jsonl.gz"), gz.finish().unwrap()).unwrap();
    let run = |input: &str, tag: &str, work: &[&str]| {
        let names = OUTPUTS.map(|n| format!("{tag}-{n}"));
        let outputs = output_args(&names);
        let base = ["dedup", "--input", input, "--threshold", "0.7"];
        ok(&ndd(&[&base[..], work, &outputs].concat(), d))
    };
    let same = |a: &str, b: &str| {
        for name in OUTPUTS {
            let (x, y) = (
                read(d, &format!("{a}-{name}")),
                read(d, &format!("{b}-{name}")),
            );
            assert!(x.lines().count() >= 10, "{a}-{name}: {x}");
            assert_eq!(x, y, "{a}-{name} and {b}-{name} differ");
        }
    };
    run("in.jsonl", "mem", &[]);
    // The in-memory run wrote the near copies' pairs, and the kept records whole.
    assert!(read(d, "mem-pairs.tsv").contains("near 3"));
    assert!(read(d, "mem-keep.jsonl").contains(r#"{"extra":1,"id""#));
    for (input, work) in [("in.jsonl", "w1"), ("in.jsonl.gz", "w2")] {
        let out = run(input, work, &["--work-dir", work]);
        assert!(out.contains("out of core"), "{out}");
        same("mem", work);
        assert!(!d.join(work).join("tool-rows.tmp").exists());
        let again = run(input, &format!("{work}-again"), &["--work-dir", work]);
        assert!(again.contains("sketch reused"), "{again}");
        same("mem", &format!("{work}-again"));
    }
}

/// The highest resident set (`VmHWM`, bytes) of the running process `pid`, polled
/// every few milliseconds until it exits (Linux: `/proc/{pid}/status`); the last
/// reading before it exits.
#[cfg(target_os = "linux")]
fn peak_rss_while_running(child: &mut std::process::Child) -> u64 {
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        if let Ok(s) = fs::read_to_string(&status) {
            let kb = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak = peak.max(kb.unwrap_or(0) * 1024);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    peak
}

/// `--memory-budget` bounds the whole process, not only the stages' buffers: on a
/// generated corpus of about 24 MB (30,000 documents, near-duplicate families among
/// them) that the stages spill (a 72 MiB budget leaves them 8 MiB), the peak
/// resident set stays under the budget, and the kept records are the in-memory run's.
#[cfg(target_os = "linux")]
#[test]
fn the_peak_resident_set_stays_under_the_memory_budget() {
    use std::fmt::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (mut corpus, mut x) = (String::new(), 0x2545_f491_4f6c_dd1d_u64);
    let mut word = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        format!("w{}", x % 50_000)
    };
    for i in 0..30_000 {
        // Every tenth document repeats the one before with its last word changed.
        let text: Vec<String> = (0..100).map(|_| word()).collect();
        writeln!(
            corpus,
            "{{\"id\":\"d{i}\",\"text\":\"{}\"}}",
            text.join(" ")
        )
        .unwrap();
        if i % 10 == 0 {
            let mut near = text.clone();
            near[99] = "changed".to_owned();
            writeln!(
                corpus,
                "{{\"id\":\"n{i}\",\"text\":\"{}\"}}",
                near.join(" ")
            )
            .unwrap();
        }
    }
    fs::write(d.join("c.jsonl"), corpus).unwrap();
    let budget: u64 = 72 << 20;
    let dedup = |keep: &'static str, extra: &[&'static str]| {
        let mut args = vec!["dedup", "-q", "--top", "0", "--input", "c.jsonl"];
        args.extend(["--keep-out", keep]);
        args.extend(extra);
        args
    };
    let mut child = common::ndd_command(
        &dedup(
            "ooc.jsonl",
            &["--work-dir", "work", "--memory-budget", "72M"],
        ),
        d,
    )
    .stdin(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let peak = peak_rss_while_running(&mut child);
    assert!(child.wait().unwrap().success());
    ok(&ndd(&dedup("mem.jsonl", &[]), d));
    let (mem, ooc) = (read(d, "mem.jsonl"), read(d, "ooc.jsonl"));
    assert_eq!(mem.lines().count(), 30_000, "every near copy dropped");
    assert_eq!(mem, ooc);
    let runs = fs::read_dir(d.join("work"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("keys-")
        })
        .count();
    assert!(
        runs > 1,
        "{runs} runs of band keys: the stages did not spill"
    );
    assert!(
        peak > 0 && peak < budget,
        "peak {peak} bytes, budget {budget}"
    );
}

/// A `--memory-budget` below what the process itself takes (its 64 MiB reserve and the
/// stages' 1 MiB minimum) runs with a warning that the peak will be above it; a budget
/// from that floor up runs without one.
#[test]
fn a_budget_below_the_process_floor_runs_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("c.jsonl"),
        "{\"id\":\"a\",\"text\":\"one two three four five six\"}\n\
         {\"id\":\"b\",\"text\":\"one two three four five seven\"}\n",
    )
    .unwrap();
    let stderr = |budget: &str, work: &str| {
        let out = ndd(
            &[
                "dedup",
                "-q",
                "--input",
                "c.jsonl",
                "--work-dir",
                work,
                "--memory-budget",
                budget,
            ],
            d,
        );
        ok(&out);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let low = stderr("16M", "w16");
    assert!(
        low.contains(
            "warning: --memory-budget 16777216 bytes is below what the process itself takes"
        ),
        "{low}"
    );
    let held = stderr("65M", "w65");
    assert!(!held.contains("--memory-budget"), "{held}");
}

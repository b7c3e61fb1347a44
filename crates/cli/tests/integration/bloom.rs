//! `ndd dedup --bloom` run as a user runs it: flags against the in-memory dedup of
//! the same stream, false positives within the rate it reports, a stream saved and
//! continued equal to one stream, bad options refused before reading.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::{Words, fails, ndd, ndd_stdin, ok, usage_errors};

const DEBIAN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/debian-copyright.jsonl"
);

/// `families` families of random text (no 3-gram shared across families): a base,
/// an exact copy in upper case, and an edit of its last word; or bases only.
fn fixture(families: usize, variants: bool) -> String {
    let mut w = Words(42);
    let mut out = String::new();
    for f in 0..families {
        let base = w.text(120).join(" ");
        let mut docs = vec![(format!("{f}-base"), base.clone())];
        if variants {
            docs.push((format!("{f}-copy"), base.to_uppercase()));
            let cut = base.rfind(' ').unwrap();
            docs.push((
                format!("{f}-edit"),
                format!("{} x{}", &base[..cut], w.next()),
            ));
        }
        for (id, text) in docs {
            out += &serde_json::json!({ "id": id, "text": text }).to_string();
            out.push('\n');
        }
    }
    out
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The value after `label` in the summary line starting with `line`.
fn number_after(summary: &str, line: &str, label: &str) -> f64 {
    let l = summary.lines().find(|l| l.starts_with(line)).unwrap();
    let rest = &l[l.find(label).unwrap() + label.len()..];
    rest.split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches(',')
        .parse()
        .unwrap()
}

/// `ndd dedup --bloom` over `input` in `d` (filters for 10,000 documents, with `extra`
/// options) and the in-memory run over it: the --bloom run's summary, the ids it flags
/// and the ids the in-memory run drops.
fn flagged_and_dropped(
    d: &Path,
    input: &str,
    extra: &[&str],
) -> (String, BTreeSet<String>, BTreeSet<String>) {
    let bloom = [
        "dedup",
        "--input",
        input,
        "--bloom",
        "--bloom-capacity",
        "10000",
    ];
    let flag_out = ["--drop-out", "flagged.txt"];
    let out = ok(&ndd(&[&bloom[..], &flag_out, extra].concat(), d));
    let memory = ["dedup", "-q", "--input", input, "--drop-out", "dropped.txt"];
    ok(&ndd(&memory, d));
    let set = |name: &str| lines(&d.join(name)).into_iter().collect();
    (out, set("flagged.txt"), set("dropped.txt"))
}

#[test]
fn flags_every_near_duplicate_the_in_memory_dedup_drops() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Families built to be near-duplicates: flags are exactly the copies and edits.
    fs::write(d.join("f.jsonl"), fixture(60, true)).unwrap();
    let (out, flagged, dropped) = flagged_and_dropped(d, "f.jsonl", &["--keep-out", "kept.jsonl"]);
    assert_eq!(dropped.len(), 120);
    assert_eq!(flagged, dropped);
    assert!(out.contains("flagged:     120"), "{out}");
    // --keep-out: the other records, unchanged and in order.
    let kept = lines(&d.join("kept.jsonl"));
    let all = lines(&d.join("f.jsonl"));
    let expect: Vec<&String> = all.iter().filter(|l| l.contains("-base\"")).collect();
    assert_eq!(kept.iter().collect::<Vec<_>>(), expect);

    // Real text: everything the in-memory dedup drops is flagged (the filters also
    // flag band collisions below the threshold, which the dedup verifies away).
    let (_, flagged, dropped) = flagged_and_dropped(d, DEBIAN, &["-q"]);
    assert!(dropped.len() > 100);
    assert!(
        dropped.is_subset(&flagged),
        "{:?}",
        dropped.difference(&flagged)
    );
}

#[test]
fn false_positives_stay_within_the_rate_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 400 unrelated texts through filters sized for 50: every flag is a false positive.
    fs::write(d.join("u.jsonl"), fixture(400, false)).unwrap();
    let out = ok(&ndd(
        &[
            "dedup",
            "--input",
            "u.jsonl",
            "--bloom",
            "--bloom-capacity",
            "50",
            "--bloom-fp-rate",
            "0.05",
            "--drop-out",
            "fp.txt",
        ],
        d,
    ));
    let fp = lines(&d.join("fp.txt")).len() as f64;
    // The rate after all 400 bounds the rate each document met on arrival.
    let overall = number_after(&out, "false pos.:", "overall ");
    let designed = number_after(&out, "false pos.:", "(designed ");
    assert!((designed - 0.05).abs() < 0.01, "{out}");
    assert!(overall > designed, "past capacity the rate grows: {out}");
    let bound = 400.0 * overall;
    assert!(
        fp > 0.0 && fp <= bound + 4.0 * bound.sqrt(),
        "{fp} flagged: {out}"
    );
    assert!(out.contains("bytes per document"), "{out}");
}

#[test]
fn a_saved_and_continued_stream_equals_one_stream() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let all = fs::read_to_string(DEBIAN).unwrap();
    let cut: usize = all.match_indices('\n').nth(299).unwrap().0 + 1;
    fs::write(d.join("first.jsonl"), &all[..cut]).unwrap();
    let bloom = ["--bloom", "--bloom-capacity", "5000", "-q"];
    let args = |extra: &[&str]| -> Vec<String> {
        ["dedup"]
            .iter()
            .chain(&bloom)
            .chain(extra)
            .map(|s| (*s).to_owned())
            .collect()
    };
    let run = |a: Vec<String>| ndd(&a.iter().map(String::as_str).collect::<Vec<_>>(), d);
    ok(&run(args(&[
        "--input",
        DEBIAN,
        "--bloom-out",
        "one.bloom",
        "--drop-out",
        "one.txt",
        "--keep-out",
        "one.jsonl",
    ])));
    ok(&run(args(&[
        "--input",
        "first.jsonl",
        "--bloom-out",
        "s.bloom",
        "--drop-out",
        "a.txt",
        "--keep-out",
        "a.jsonl",
    ])));
    // The rest from standard input, continuing the saved filters in place.
    let second = ndd_stdin(
        &[
            "dedup",
            "--bloom",
            "--bloom-in",
            "s.bloom",
            "--bloom-out",
            "s.bloom",
            "--input",
            "-",
            "--drop-out",
            "b.txt",
            "--keep-out",
            "b.jsonl",
        ],
        d,
        &all.as_bytes()[cut..],
    );
    let summary = ok(&second);
    assert!(summary.contains("300 before this input"), "{summary}");
    assert_eq!(
        fs::read(d.join("s.bloom")).unwrap(),
        fs::read(d.join("one.bloom")).unwrap()
    );
    let cat = |a: &str, b: &str| {
        let mut v = lines(&d.join(a));
        v.extend(lines(&d.join(b)));
        v
    };
    assert_eq!(cat("a.txt", "b.txt"), lines(&d.join("one.txt")));
    assert_eq!(cat("a.jsonl", "b.jsonl"), lines(&d.join("one.jsonl")));
    assert!(lines(&d.join("one.txt")).len() > 100);
}

#[test]
fn nonsense_combinations_and_bad_filters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("f.jsonl"), fixture(3, true)).unwrap();
    let base = ["dedup", "--input", "f.jsonl"];
    let run = |extra: &[&str]| {
        let a: Vec<&str> = base.iter().chain(extra).copied().collect();
        ndd(&a, d)
    };
    usage_errors(
        run,
        &[
            (&["--bloom", "--pairs-out", "p.tsv"], "--pairs-out"),
            (&["--bloom", "--clusters-out", "c.tsv"], "--clusters-out"),
            (&["--bloom", "--annotate-out", "a.jsonl"], "--annotate-out"),
            (&["--bloom", "--explain-out", "e.jsonl"], "--explain-out"),
            (&["--bloom", "--members-out", "m.jsonl"], "--members-out"),
            (&["--bloom", "--report-out", "r.html"], "--report-out"),
            (&["--bloom", "--group", "durian"], "--group"),
            (&["--bloom", "--method", "simhash"], "--method"),
            (&["--bloom", "--verify", "jaccard"], "--verify"),
            (&["--bloom", "--index-out", "i.ndd"], "--index-out"),
            (&["--bloom", "--work-dir", "w"], "--work-dir"),
            (&["--bloom-out", "x.bloom"], "belongs to --bloom"),
            (&["--bloom", "--bloom-capacity", "0"], "capacity"),
            (&["--bloom", "--bloom-fp-rate", "1"], "rate"),
            (&["--bloom", "--bloom-fp-rate", "nan"], "rate"),
            (&["--bloom", "--bloom-out", "f.jsonl"], "is the input"),
        ],
    );
    ok(&run(&[
        "--bloom",
        "--bloom-capacity",
        "100",
        "--bloom-out",
        "s.bloom",
    ]));
    let saved = |option: &'static str, value: &'static str| {
        ["--bloom", "--bloom-in", "s.bloom", option, value]
    };
    usage_errors(
        run,
        &[
            (&saved("--num-perm", "64"), "--num-perm"),
            (&saved("--bloom-capacity", "9"), "--bloom-in"),
            (&saved("--keep-out", "s.bloom"), "s.bloom"),
        ],
    );
    // Missing, truncated and corrupt filters; nothing is written then.
    fails(
        &run(&["--bloom", "--bloom-in", "missing.bloom"]),
        1,
        "missing.bloom",
    );
    let bytes = fs::read(d.join("s.bloom")).unwrap();
    fs::write(d.join("cut.bloom"), &bytes[..bytes.len() - 3]).unwrap();
    fails(
        &run(&["--bloom", "--bloom-in", "cut.bloom", "--drop-out", "x.txt"]),
        1,
        "cut.bloom",
    );
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    fs::write(d.join("bad.bloom"), &flipped).unwrap();
    fails(
        &run(&["--bloom", "--bloom-in", "bad.bloom"]),
        1,
        "bad.bloom",
    );
    fails(&run(&["--bloom", "--bloom-in", "f.jsonl"]), 1, "f.jsonl");
    assert!(!d.join("x.txt").exists());
}

#[test]
fn an_input_without_a_usable_document_is_refused_as_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.jsonl"), "not json\n[1]\n").unwrap();
    let out = ndd(&["dedup", "--bloom", "--input", "bad.jsonl"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no usable document (2 rejected"),
        "{out:?}"
    );
    fs::create_dir(dir.path().join("empty")).unwrap();
    let out = ndd(&["dedup", "--bloom", "--input", "empty"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

#[test]
fn bloom_verify_flags_what_the_verified_run_drops_and_says_what_it_flags() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |extra: &[&str], drop: &str| -> String {
        let mut args = vec!["dedup", "--input", DEBIAN, "--drop-out", drop];
        args.extend_from_slice(extra);
        ok(&ndd(&args, d))
    };
    let plain = run(&["--bloom"], "plain.txt");
    let verify = run(
        &["--bloom", "--bloom-verify", "--bloom-out", "v.nddb"],
        "verify.txt",
    );
    run(&["-q"], "dropped.txt");
    let plain_set: BTreeSet<String> = lines(&d.join("plain.txt")).into_iter().collect();
    let flagged: BTreeSet<String> = lines(&d.join("verify.txt")).into_iter().collect();
    let dropped: BTreeSet<String> = lines(&d.join("dropped.txt")).into_iter().collect();
    // Issue 29: 339 flagged by the filters, 239 dropped by the verified run.
    assert_eq!((plain_set.len(), dropped.len()), (339, 239));
    assert!(flagged.is_subset(&plain_set));
    assert!(flagged.len().abs_diff(dropped.len()) * 20 <= dropped.len());
    assert!(flagged.intersection(&dropped).count() * 20 >= dropped.len() * 19);
    // The summaries say what is flagged below the threshold.
    let share = number_after(&plain, "below T:", "threshold: ");
    assert!(share > 0.1 && share < 0.9, "{plain}");
    assert!(plain.contains("--bloom-verify checks each flag"), "{plain}");
    assert!(
        verify.contains("flags verified by the estimate"),
        "{verify}"
    );
    assert!(verify.contains("verification store"), "{verify}");
    // A saved verifying filter continues verifying; --bloom-verify beside --bloom-in
    // is refused (the saved filters decide).
    let again = run(&["--bloom", "--bloom-in", "v.nddb"], "again.txt");
    assert!(again.contains("flags verified by the estimate"), "{again}");
    fails(
        &ndd(
            &[
                "dedup",
                "--input",
                DEBIAN,
                "--bloom",
                "--bloom-in",
                "v.nddb",
                "--bloom-verify",
            ],
            d,
        ),
        2,
        "--bloom-verify",
    );
    // Without --bloom it belongs nowhere.
    fails(
        &ndd(&["dedup", "--input", DEBIAN, "--bloom-verify"], d),
        2,
        "--bloom-verify",
    );
}

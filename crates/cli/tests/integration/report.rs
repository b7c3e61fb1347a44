//! `--report-out`: the HTML page of a run, checked against what the run printed and
//! wrote, with ids that try to end the page's script.

use std::fs;

use serde_json::Value;

use crate::common::{dir_with, fails, ndd, ok};

/// The page's JSON blob.
fn blob(html: &str) -> Value {
    let open = r#"<script type="application/json" id="ndd-data">"#;
    let start = html.find(open).expect("data element") + open.len();
    let len = html[start..].find("</script>").expect("end of data");
    serde_json::from_str(&html[start..start + len]).expect("JSON")
}

/// The numbers of a summary line (`kept:  3 (1 alone, 2 for their group)`).
fn numbers(summary: &str, label: &str) -> Vec<u64> {
    let line = summary
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label} line in {summary}"));
    line.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("digits"))
        .collect()
}

#[test]
fn report_out_holds_the_run_and_survives_hostile_ids() {
    let dir = tempfile::tempdir().unwrap();
    let letter = "We support the proposed rule on mercury emissions from power plants. \
                  Mercury harms children and pregnant women and the rivers they fish in.";
    let evil = "</script><script>alert(1)</script>";
    let records = [
        ("a", letter.to_owned()),
        (evil, format!("{letter} Signed, a parent.")),
        ("c", letter.to_owned()),
        (
            "d",
            "Something else entirely: the weather report for Tuesday.".to_owned(),
        ),
        ("e", format!("{letter} {evil}")),
    ];
    let input: String = records
        .iter()
        .map(|(id, text)| format!("{}\n", serde_json::json!({ "id": id, "text": text })))
        .collect();
    fs::write(dir.path().join("in.jsonl"), input).unwrap();
    let summary = ok(&ndd(
        &[
            "dedup",
            "--input",
            "in.jsonl",
            "--threshold",
            "0.7",
            "--report-out",
            "report.html",
            "--clusters-out",
            "clusters.tsv",
        ],
        dir.path(),
    ));
    assert!(summary.contains("report.html (--report-out)"), "{summary}");
    let html = fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Only the page's own two scripts: no id ended one or began another.
    assert_eq!(html.to_ascii_lowercase().matches("<script").count(), 2);
    let data = blob(&html);
    let s = &data["summary"];
    let kept = numbers(&summary, "kept:");
    let dropped = numbers(&summary, "dropped:");
    let pairs = numbers(&summary, "pairs:");
    assert_eq!(s["documents"], numbers(&summary, "documents:")[0]);
    assert_eq!(
        [&s["kept"], &s["unique"], &s["kept_for_group"]],
        kept.as_slice()
    );
    assert_eq!([&s["dropped"], &s["exact"], &s["near"]], dropped.as_slice());
    assert_eq!([&s["pairs"], &s["groups"]], pairs.as_slice());
    assert_eq!(s["threshold"], 0.7);
    // The groups are the clusters --clusters-out wrote: each group's members are the
    // documents of one cluster, its kept document the cluster's name.
    let clusters = fs::read_to_string(dir.path().join("clusters.tsv")).unwrap();
    let mut by_cluster: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for line in clusters.lines().skip(1) {
        let (id, cluster) = line.split_once('\t').unwrap();
        by_cluster
            .entry(cluster.to_owned())
            .or_default()
            .push(id.to_owned());
    }
    let multi: Vec<&Vec<String>> = by_cluster.values().filter(|v| v.len() > 1).collect();
    let groups = data["groups"].as_array().unwrap();
    assert_eq!(groups.len(), multi.len());
    let id = |slot: &Value| {
        data["docs"][usize::try_from(slot.as_u64().unwrap()).unwrap()][0]
            .as_str()
            .unwrap()
            .to_owned()
    };
    for g in groups {
        let mut members: Vec<String> = g[2].as_array().unwrap().iter().map(|m| id(&m[0])).collect();
        members.sort();
        let mut want = multi
            .iter()
            .find(|c| c.contains(&id(&g[0])))
            .expect("a cluster with the kept document")
            .to_vec();
        want.sort();
        assert_eq!(members, want);
    }
    // The hostile id comes back whole, as text.
    assert!(
        groups
            .iter()
            .flat_map(|g| g[2].as_array().unwrap())
            .any(|m| id(&m[0]) == evil)
    );
}

#[test]
fn engines_without_groups_refuse_report_out() {
    let dir = dir_with("in.jsonl", "{\"id\":\"a\",\"text\":\"x y z\"}\n");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "dedup",
            "-q",
            "--input",
            "in.jsonl",
            "--report-out",
            "r.html",
        ];
        args.extend(extra);
        ndd(&args, dir.path())
    };
    fails(&run(&["--bloom"]), 2, "--report-out");
    fails(&run(&["--work-dir", "work"]), 2, "--report-out");
    assert!(!dir.path().join("r.html").exists());
}

#[test]
fn ndd_report_from_the_outputs_shows_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let letter = "Dear agency, we support the rule on mercury emissions from coal plants; \
                  mercury harms children, pregnant women and the fish of our rivers.";
    let mut lines = String::new();
    for i in 0..12 {
        let text = match i % 4 {
            0 => letter.to_owned(),
            1 => format!("{letter} Signed, reader {i}."),
            2 => format!("An unrelated note number {i} about gardening and tomatoes."),
            _ => format!("{letter} {letter}"),
        };
        lines.push_str(&format!(
            "{}\n",
            serde_json::json!({ "id": format!("d\t{i}"), "text": text })
        ));
    }
    fs::write(dir.path().join("in.jsonl"), lines).unwrap();
    let common = ["-q", "--input", "in.jsonl", "--threshold", "0.6"];
    let dedup = |extra: &[&str]| {
        let mut args = vec!["dedup"];
        args.extend(common);
        args.extend(extra);
        ok(&ndd(&args, dir.path()))
    };
    dedup(&[
        "--report-out",
        "run.html",
        "--clusters-out",
        "c.tsv",
        "--pairs-out",
        "p.tsv",
    ]);
    // The out-of-core engine's outputs, in JSONL.
    dedup(&[
        "--work-dir",
        "work",
        "--format",
        "jsonl",
        "--clusters-out",
        "c.jsonl",
        "--pairs-out",
        "p.jsonl",
    ]);
    let run = blob(&fs::read_to_string(dir.path().join("run.html")).unwrap());
    assert!(!run["groups"].as_array().unwrap().is_empty());
    for (clusters, pairs) in [("c.tsv", "p.tsv"), ("c.jsonl", "p.jsonl")] {
        ok(&ndd(
            &[
                "report",
                "-q",
                "--input",
                "in.jsonl",
                "--clusters",
                clusters,
                "--pairs",
                pairs,
                "--out",
                "out.html",
            ],
            dir.path(),
        ));
        let page = blob(&fs::read_to_string(dir.path().join("out.html")).unwrap());
        for key in [
            "documents",
            "kept",
            "exact",
            "near",
            "dropped",
            "groups",
            "pairs",
        ] {
            assert_eq!(
                page["summary"][key], run["summary"][key],
                "{clusters}: {key}"
            );
        }
        assert_eq!(page["groups"], run["groups"], "{clusters}");
        assert_eq!(page["docs"], run["docs"], "{clusters}");
    }
    // Outputs of another input are refused, not reported wrongly.
    fs::write(
        dir.path().join("other.jsonl"),
        "{\"id\":\"x\",\"text\":\"a b\"}\n",
    )
    .unwrap();
    fails(
        &ndd(
            &[
                "report",
                "--input",
                "other.jsonl",
                "--clusters",
                "c.tsv",
                "--out",
                "o.html",
            ],
            dir.path(),
        ),
        1,
        "1 documents of the input",
    );
    assert!(!dir.path().join("o.html").exists());
}

//! `ndd dedup --group linkage`, run as a user runs it: a chain of documents, each near
//! the next, that linkage breaks where two groups share too few pairs and follows
//! above its chaining floor; the summary line; its options refused elsewhere.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::path::Path;

use common::{CHAIN_RUN as BASE, clusters, ndd, ok, usage_errors, write_chain};

/// The cluster (input position of the kept document) of d0..d5 for `extra` options.
fn cluster_column(dir: &Path, extra: &[&str]) -> (String, Vec<String>) {
    let summary = ok(&ndd(
        &[&BASE[..], extra, &["--clusters-out", "c.tsv"]].concat(),
        dir,
    ));
    let column = clusters(&dir.join("c.tsv"))
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    (summary, column)
}

#[test]
fn linkage_breaks_weak_chains_and_follows_strong_ones() {
    let dir = tempfile::tempdir().unwrap();
    write_chain(dir.path());
    // With a link fraction of 1/2, the pairs (all 0.78, under the floor 0.9) join d0,
    // d1, d2 (d2 shares 1 of 2 pairs with {d0, d1}), not d3 (1 of 3 with {d0, d1, d2}),
    // then d3, d4, d5.
    let (summary, column) = cluster_column(
        dir.path(),
        &["--group", "linkage", "--link-fraction", "0.5"],
    );
    assert_eq!(column, ["0", "0", "0", "3", "3", "3"]);
    assert!(
        summary.contains("group:       linkage (chains through pairs of 0.9 or more"),
        "{summary}"
    );
    assert!(
        summary.contains("a member may be below the threshold"),
        "{summary}"
    );
    // With a floor at the threshold, the chain is followed: components' one group.
    let (_, column) = cluster_column(
        dir.path(),
        &[
            "--group",
            "linkage",
            "--link-fraction",
            "0.5",
            "--chain-floor",
            "0.75",
        ],
    );
    assert_eq!(column, ["0"; 6]);
    let (summary, components) = cluster_column(dir.path(), &[]);
    assert_eq!(components, ["0"; 6]);
    assert!(!summary.contains("group:       linkage"), "{summary}");
}

/// The options of one grouping refused with another, out of range, or with a saved
/// index (center and linkage groupings are not kept in one).
#[test]
fn grouping_options_are_refused_elsewhere_and_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    write_chain(dir.path());
    let run = |extra: &[&str]| ndd(&[&BASE[..], extra].concat(), dir.path());
    usage_errors(
        run,
        &[
            (
                &["--group", "center", "--chain-floor", "0.8"],
                "--chain-floor belongs to --group linkage, not center",
            ),
            (
                &["--link-fraction", "0.5"],
                "--link-fraction belongs to --group linkage, not components",
            ),
            (
                &["--group", "linkage", "--chain-floor", "1.5"],
                "chain_floor",
            ),
            (
                &["--group", "linkage", "--theta", "0.5"],
                "--theta belongs to --group durian, not linkage",
            ),
            (
                &["--group", "linkage", "--index-out", "ix.bin"],
                "--group linkage cannot be combined with --index-out",
            ),
            (
                &["--group", "center", "--theta", "0.5"],
                "--theta belongs to --group durian, not center",
            ),
            (
                &["--group", "center", "--index-out", "ix.bin"],
                "--group center cannot be combined with --index-out",
            ),
        ],
    );
}

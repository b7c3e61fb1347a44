//! `ndd dedup --group center`, run as a user runs it: a chain of documents, each near
//! the next, that components join into one group and center grouping does not; the
//! summary line (its refused options are tested with linkage's, `linkage.rs`).
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use crate::common;

use std::fs;

use common::{CHAIN_RUN as BASE, clusters, ndd, ok, write_chain};

#[test]
fn center_grouping_keeps_no_chain() {
    let dir = tempfile::tempdir().unwrap();
    write_chain(dir.path());
    ok(&ndd(
        &[&BASE[..], &["-q", "--clusters-out", "components.tsv"]].concat(),
        dir.path(),
    ));
    let components = clusters(&dir.path().join("components.tsv"));
    // Every document's cluster is the input position of d0.
    assert!(components.iter().all(|(_, c)| c == "0"), "{components:?}");

    let summary = ok(&ndd(
        &[
            &BASE[..],
            &[
                "--group",
                "center",
                "--clusters-out",
                "center.tsv",
                "--drop-out",
                "drop.txt",
            ],
        ]
        .concat(),
        dir.path(),
    ));
    assert!(summary.contains("group:       center"), "{summary}");
    // d1 (two partners, first) keeps d0 and d2; d3 keeps d4; d5 is alone.
    let center = clusters(&dir.path().join("center.tsv"));
    let expected: Vec<(String, String)> = [
        ("d0", "1"),
        ("d1", "1"),
        ("d2", "1"),
        ("d3", "3"),
        ("d4", "3"),
        ("d5", "5"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(center, expected);
    let dropped = fs::read_to_string(dir.path().join("drop.txt")).unwrap();
    assert_eq!(dropped.lines().collect::<Vec<_>>(), ["d0", "d2", "d4"]);
}

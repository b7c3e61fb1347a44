//! One count of exact copies (issue 30): the summary's "exact copies" is the exact
//! pass's count, the same for every method and engine on the same input (it was
//! 181–224 on the bundled corpus, depending on how each method's groups merged sets of
//! copies). The out-of-core summary counts candidates as the in-memory one does and
//! shows the same groups.

use crate::common::{ndd, ok};

/// The `(exact copies, near-duplicates)` of the summary's `dropped:` line.
fn dropped(summary: &str) -> (u64, u64) {
    let line = summary
        .lines()
        .find(|l| l.starts_with("dropped:"))
        .unwrap_or_else(|| panic!("no dropped line in {summary}"));
    // "dropped:     239 (226 exact copies, 13 near-duplicates)"
    let inner = line
        .split_once('(')
        .and_then(|(_, r)| r.strip_suffix(')'))
        .expect("a parenthesis");
    let (exact, near) = inner.split_once(", ").expect("two counts");
    let number = |s: &str| {
        s.split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a count")
    };
    (number(exact), number(near))
}

#[test]
fn exact_copies_are_counted_the_same_by_every_method_and_engine() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut counts = Vec::new();
    for method in ["minhash", "simhash", "exact", "signcd", "imatch"] {
        let out = ok(&ndd(
            &["dedup", "--method", method, "--top", "0"],
            dir.path(),
        ));
        counts.push((method, dropped(&out)));
    }
    let out = ok(&ndd(&["dedup", "--work-dir", "work"], dir.path()));
    counts.push(("minhash out of core", dropped(&out)));
    // The out-of-core summary counts candidates as the in-memory one does, and shows
    // the same largest groups (after the first blank line).
    let in_memory = ok(&ndd(&["dedup"], dir.path()));
    let verify = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("verify:"))
            .map(str::to_owned)
    };
    assert!(verify(&out).is_some());
    assert_eq!(verify(&out), verify(&in_memory));
    let groups = |s: &str| s.split_once("\n\n").map(|(_, g)| g.to_owned());
    assert!(groups(&in_memory).is_some_and(|g| g.starts_with("group 1 (")));
    assert_eq!(groups(&out), groups(&in_memory));
    let out = ok(&ndd(
        &["dedup", "--representative", "longest", "--top", "0"],
        dir.path(),
    ));
    counts.push(("minhash, longest kept", dropped(&out)));
    // The bundled corpus has many exact copies; every method drops the same ones as
    // copies (the near-duplicates differ by method).
    let first = counts[0].1.0;
    assert!(first > 100, "{counts:?}");
    for (name, (exact, _)) in &counts {
        assert_eq!(*exact, first, "{name}: {counts:?}");
    }
    // In memory and out of core, the same method finds the same near-duplicates too.
    assert_eq!(counts[0].1, counts[5].1, "{counts:?}");
}

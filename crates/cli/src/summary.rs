//! The summary printed after a run.

use std::fmt::Write as _;

use ndd_pipeline::{Dedup, Fate, Group};

use crate::dedup::{Found, Timings};
use crate::input::{Input, Source};
use crate::output::Target;

/// At most `max_chars` characters of `text`, white space collapsed.
fn snippet(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (n, c) in text
        .split_whitespace()
        .flat_map(|w| " ".chars().chain(w.chars()))
        .skip(1)
        .enumerate()
    {
        if n >= max_chars {
            out.push('…');
            break;
        }
        out.push(c);
    }
    out
}

/// The summary of a run.
pub(crate) fn text(
    source: &Source,
    input: &Input,
    f: &Found<'_>,
    dedup: &Dedup,
    t: &Timings,
    targets: &[Target],
    top: usize,
) -> String {
    let r = &f.outcome.report;
    let docs = f.docs;
    let corpus = &input.corpus;
    let mut s = String::new();
    let mut counts = [0usize; 4];
    for i in 0..docs.len() {
        counts[match f.outcome.fate(f.base + i) {
            Fate::Unique => 0,
            Fate::Kept => 1,
            Fate::ExactCopy => 2,
            _ => 3,
        }] += 1;
    }
    let _ = writeln!(s, "input:       {}", source.name());
    let _ = writeln!(
        s,
        "documents:   {} read ({:.1} MB){}",
        docs.len(),
        r.bytes as f64 / 1e6,
        if corpus.problems.is_empty() {
            String::new()
        } else {
            format!(", {} bad lines or files skipped", corpus.problems.len())
        }
    );
    if f.base > 0 {
        let _ = writeln!(
            s,
            "index:       {} documents indexed before this batch",
            f.base
        );
    }
    let _ = writeln!(
        s,
        "kept:        {} ({} alone, {} for their group)",
        counts[0] + counts[1],
        counts[0],
        counts[1]
    );
    let _ = writeln!(
        s,
        "dropped:     {} ({} exact copies, {} near-duplicates)",
        counts[2] + counts[3],
        counts[2],
        counts[3]
    );
    let method = dedup.method_config();
    let _ = writeln!(
        s,
        "method:      {}{}",
        r.method,
        if method.uses_threshold() {
            format!(", threshold {}", dedup.threshold_value())
        } else {
            String::new()
        }
    );
    if f.base == 0 && r.verify.checked > 0 {
        let _ = writeln!(
            s,
            "verify:      {} ({} candidates checked, {} kept)",
            dedup.verifier_config().name(),
            r.verify.checked,
            r.verify.accepted
        );
    }
    let _ = writeln!(
        s,
        "pairs:       {} ({} groups{})",
        f.outcome.pairs.len(),
        f.outcome.groups.len(),
        if f.base > 0 {
            " in the whole collection"
        } else {
            ""
        }
    );
    if let ndd_pipeline::GroupMethod::Durian(d) = dedup.group_config() {
        let references = f
            .outcome
            .groups
            .iter()
            .filter(|g| g.copies.is_some())
            .count();
        let _ = writeln!(
            s,
            "group:       durian (theta {}; {references} groups kept as a form letter's \
             reference copy)",
            d.theta_value()
        );
    }
    let stages: Vec<String> = r
        .timings
        .iter()
        .map(|(stage, d)| format!("{stage} {d:.2?}"))
        .collect();
    let _ = writeln!(
        s,
        "time:        read {:.2?}, {}; total {:.2?}",
        t.read,
        stages.join(", "),
        t.total
    );
    for target in targets {
        let _ = writeln!(
            s,
            "wrote:       {} ({})",
            target.path.display(),
            target.flag
        );
    }

    // The largest groups with a new document.
    let mut groups: Vec<&Group> = f
        .outcome
        .groups
        .iter()
        .filter(|g| g.members.last().is_some_and(|&m| m >= f.base))
        .collect();
    groups.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.members[0].cmp(&b.members[0]))
    });
    for (n, g) in groups.iter().take(top).enumerate() {
        let _ = writeln!(
            s,
            "\ngroup {} ({} documents, keep {}):",
            n + 1,
            g.members.len(),
            f.ids[g.representative]
        );
        for &m in g.members.iter().take(6) {
            let text = m
                .checked_sub(f.base)
                .and_then(|i| docs.get(i))
                .map_or_else(|| "(indexed earlier)".to_owned(), |d| snippet(&d.text, 60));
            let _ = writeln!(s, "  {:<28} {}", snippet(f.ids[m], 28), text);
        }
        if g.members.len() > 6 {
            let _ = writeln!(s, "  … and {} more", g.members.len() - 6);
        }
    }
    s
}

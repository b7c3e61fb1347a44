//! The summary's largest groups of an out-of-core run, as the in-memory summary shows
//! them: from the assignments on disk, the ids and texts read again from the input.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use ndd_pipeline::OutOfCoreOutcome;
use ndd_pipeline::corpus::ReadOptions;

use crate::error::CliError;
use crate::stream::Reader;
use crate::summary::{self, GroupFacts};

/// Members shown per group, as in memory.
const SHOWN: usize = 6;

/// The `top` largest groups (largest first, then by their first document), each with
/// its first [`SHOWN`] members. Memory: one counter per group, then the shown
/// members' ids and snippets; the input is read once more only when there is a group
/// to show.
pub(crate) fn largest(
    outcome: &OutOfCoreOutcome,
    path: &Path,
    options: &ReadOptions,
    top: usize,
) -> Result<Vec<GroupFacts>, CliError> {
    if top == 0 || outcome.groups == 0 {
        return Ok(Vec::new());
    }
    // Sizes by representative (the group's first document).
    let mut sizes: HashMap<u64, usize> = HashMap::new();
    for a in outcome.assignments()? {
        *sizes.entry(a?.rep).or_default() += 1;
    }
    let mut by_size: Vec<(u64, usize)> = sizes.into_iter().collect();
    by_size.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    by_size.truncate(top);
    let chosen: HashMap<u64, usize> = by_size.iter().map(|&(rep, size)| (rep, size)).collect();
    // The first members of the chosen groups, by position.
    let mut members: BTreeMap<u64, u64> = BTreeMap::new();
    let mut taken: HashMap<u64, usize> = HashMap::new();
    for a in outcome.assignments()? {
        let a = a?;
        if chosen.contains_key(&a.rep) {
            let n = taken.entry(a.rep).or_default();
            if *n < SHOWN {
                *n += 1;
                members.insert(a.doc, a.rep);
            }
        }
    }
    // Their ids and snippets, from the input.
    let mut shown: HashMap<u64, (String, String)> = HashMap::new();
    let reader = Reader::open(path, options)?;
    for (pos, doc) in (0u64..).zip(reader) {
        if members.range(pos..).next().is_none() {
            break;
        }
        let doc = doc?;
        if members.contains_key(&pos) {
            shown.insert(pos, (doc.id, summary::snippet(&doc.text, 60)));
        }
    }
    Ok(by_size
        .iter()
        .map(|&(rep, size)| GroupFacts {
            size,
            keep: shown.get(&rep).map(|s| s.0.clone()).unwrap_or_default(),
            members: members
                .iter()
                .filter(|&(_, &r)| r == rep)
                .map(|(d, _)| {
                    let (id, text) = shown.get(d).cloned().unwrap_or_default();
                    (id, Some(text))
                })
                .collect(),
        })
        .collect())
}

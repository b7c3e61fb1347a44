//! Stage 4: connected components of the accepted pairs by union-find over document
//! positions (representative: the smallest position, the first-seen document), written
//! as assignments sorted by document for every document of a group of two or more.

use ndd_core::DocUnionFind;
use ndd_scale::{Assignment, Edge, RecordReader, RecordWriter};

use super::manifest::Marker;
use super::{ASSIGNMENTS, EXACT, Job, PAIRS, damaged, file_size};
use crate::Error;
use crate::progress::Stage;

/// Runs the stage: its marker (`groups`; `grouped`: documents in a group of two or
/// more; `exact_dropped`: documents dropped as exact copies of their group's kept
/// document) and the bytes it wrote.
pub(super) fn run(
    job: &Job<'_>,
    exact_fingerprint: u64,
    fingerprint: u64,
) -> Result<(Marker, u64), Error> {
    let dir = job.dir;
    let pairs = dir.join(PAIRS);
    let mut uf = DocUnionFind::new();
    job.progress.start(Stage::Group, None);
    let reader = RecordReader::<Edge, _>::open(&pairs)
        .and_then(|r| r.expect_fingerprint(fingerprint))
        .map_err(|e| damaged(&pairs, e))?;
    for e in reader {
        let e = e.map_err(|e| damaged(&pairs, e))?;
        uf.union(e.a, e.b);
    }
    // Every exact copy (an edge from its first copy) is dropped as an exact copy, as
    // `Outcome::fate` counts them in memory: the representative is the smallest
    // position, so never a later copy, and a first copy dropped with its group is the
    // near-duplicate.
    let mut exact_dropped = 0u64;
    let exact_path = dir.join(EXACT);
    let exact = RecordReader::<Edge, _>::open(&exact_path)
        .and_then(|r| r.expect_fingerprint(exact_fingerprint))
        .map_err(|e| damaged(&exact_path, e))?;
    for e in exact {
        e.map_err(|e| damaged(&exact_path, e))?;
        exact_dropped += 1;
    }
    let assignments = uf.into_assignments();
    let path = dir.join(ASSIGNMENTS);
    let mut w =
        RecordWriter::<Assignment>::create(&path, fingerprint).map_err(|e| damaged(&path, e))?;
    let mut groups = 0u64;
    for &(doc, rep) in &assignments {
        if doc == rep {
            groups += 1;
        }
        w.write(&Assignment { doc, rep })
            .map_err(|e| damaged(&path, e))?;
    }
    w.finish().map_err(|e| damaged(&path, e))?;
    job.progress.finish(Stage::Group);
    let bytes_written = file_size(&path)?;
    let marker = Marker::default()
        .with("groups", groups)
        .with("grouped", assignments.len() as u64)
        .with("exact_dropped", exact_dropped);
    Ok((marker, bytes_written))
}

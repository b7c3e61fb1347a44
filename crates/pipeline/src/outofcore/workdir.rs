//! The work folder's bookkeeping: claiming a folder as ours, removing a stage's files
//! before it is redone, and reading what a stage's marker says of its files (their
//! names and checksums).

use std::path::{Path, PathBuf};

use super::manifest::Marker;
use super::sketch;
use crate::Error;

/// The files each stage writes, by name prefix: removed before the stage is redone,
/// so that runs of an earlier run (more of them, say) are not left behind.
pub(super) const OUTPUTS: [&[&str]; 6] = [
    // (`sets.bin` and `sets.idx`: the sketch stage wrote them before 2026-11-28.)
    &[
        "keys-",
        "digests-",
        "signatures.bin",
        "sets.bin",
        "sets.idx",
        "texts.bin",
        "texts.idx",
    ],
    &["exact.bin", "exact-pairs-"],
    &["candidates-", "named.bin"],
    &["tokens-", "weights.bin"],
    // The sets verification makes of the named documents (an interrupted pass's).
    &["pairs.bin", "scores.bin", "sets.bin", "sets.idx"],
    &["assignments.bin"],
];

/// The file that marks a folder as an out-of-core work folder. A run writes it into
/// the folder it creates or finds empty, and refuses a folder that holds other files
/// without it, so the stages (which remove their own earlier files by name) never
/// delete a file they did not write.
pub(crate) const WORK_DIR_MARKER: &str = ".ndd-work-dir";

/// Creates `dir` or checks that it is a work folder of ours (see [`WORK_DIR_MARKER`]).
pub(super) fn claim_work_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let marker = dir.join(WORK_DIR_MARKER);
    if marker.is_file() {
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    if let Some(entry) = entries.next() {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        return Err(Error::Core(ndd_core::Error::invalid_input(format!(
            "{}: the work folder holds files no out-of-core run wrote ({} among them; \
             it has no {WORK_DIR_MARKER} marker): give a new or empty folder, whose \
             files the run may replace",
            dir.display(),
            entry.file_name().to_string_lossy()
        ))));
    }
    std::fs::write(
        &marker,
        b"ndd out-of-core work folder: its stages' files may be replaced\n",
    )
    .map_err(|e| Error::io(&marker, e))
}

/// Removes the files of `dir` whose names start with one of `prefixes` (never a
/// folder, never anything else).
pub(super) fn remove_outputs(dir: &Path, prefixes: &[&str]) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = prefixes.iter().any(|p| name.starts_with(p));
        if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
        }
    }
    Ok(())
}

pub(super) fn need(m: &Marker, key: &str) -> Result<u64, Error> {
    m.get_u64(key).ok_or_else(|| {
        Error::Core(ndd_core::Error::corrupt_data(format!(
            "a stage marker has no {key}; remove the work directory to start over"
        )))
    })
}

/// The marker key of a raw work file's checksum (`texts.bin` → `checksum_texts.bin`).
pub(super) fn checksum_key(name: &str) -> String {
    format!("checksum_{name}")
}

/// Whether the files whose checksums marker `m` lists are the ones its stage wrote:
/// the raw files (the texts and their offsets, `texts.bin` and `texts.idx`, and the
/// signatures, which have no trailer of their own: a damaged one was read as good)
/// by a hash of their bytes; the sorted runs by the checksum in their trailer (which
/// a reader checks against the bytes when it opens them), so that a run of another
/// input with the same settings is not taken for this one's. A stage whose files are
/// not is redone.
pub(super) fn raw_files_intact(dir: &Path, m: &Marker) -> bool {
    m.values.iter().all(|(key, sum)| {
        let Some(name) = key.strip_prefix("checksum_") else {
            return true;
        };
        if name.contains(['/', '\\']) || name == ".." {
            return false;
        }
        let path = dir.join(name);
        let now = if sketch::RAW.contains(&name) {
            sketch::file_checksum(&path)
        } else {
            trailer_checksum(&path)
        };
        now.is_ok_and(|now| format!("{now:016x}") == *sum)
    })
}

/// The checksum a record file's trailer holds (its last eight bytes).
pub(super) fn trailer_checksum(path: &Path) -> Result<u64, Error> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut b = [0u8; 8];
    f.seek(SeekFrom::End(-8))
        .and_then(|_| f.read_exact(&mut b))
        .map_err(|e| Error::io(path, e))?;
    Ok(u64::from_le_bytes(b))
}

pub(super) fn run_names(runs: &[PathBuf]) -> String {
    runs.iter()
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()))
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn run_paths(dir: &Path, m: &Marker, key: &str) -> Vec<PathBuf> {
    m.get(key)
        .unwrap_or("")
        .split(',')
        .filter(|n| !n.is_empty())
        // Names only: a marker cannot point outside the work directory.
        .filter(|n| !n.contains(['/', '\\']) && *n != "..")
        .map(|n| dir.join(n))
        .collect()
}

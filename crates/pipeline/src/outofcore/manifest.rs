//! Stage markers: a stage that finished writes `{stage}.done` (atomically) with the
//! fingerprint of the settings and its counts, and a last line `checksum=` (the
//! stable hash of the lines before it); a later run with the same settings reuses it
//! instead of redoing the stage. A marker whose checksum does not match (damaged, or
//! edited: its counts and run lists are trusted) is not reused: the stage is redone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::Error;

/// What a finished stage left: `key=value` lines.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Marker {
    pub(super) values: BTreeMap<String, String>,
}

impl Marker {
    pub(super) fn with(mut self, key: &str, value: impl ToString) -> Self {
        self.values.insert(key.to_owned(), value.to_string());
        self
    }

    pub(super) fn get_u64(&self, key: &str) -> Option<u64> {
        self.values.get(key)?.parse().ok()
    }

    pub(super) fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    fn path(dir: &Path, stage: &str) -> PathBuf {
        dir.join(format!("{stage}.done"))
    }

    /// The marker of `stage` when it exists and was written for `fingerprint`.
    pub(super) fn load(dir: &Path, stage: &str, fingerprint: u64) -> Option<Marker> {
        // A marker is a few lines; a large file there is not one of ours.
        let path = Self::path(dir, stage);
        if std::fs::metadata(&path).ok()?.len() > 1 << 16 {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let (body, sum) = text.strip_suffix('\n')?.rsplit_once('\n')?;
        let body = format!("{body}\n");
        if sum != format!("checksum={:016x}", checksum(&body)) {
            return None;
        }
        let mut m = Marker::default();
        for line in body.lines() {
            let (k, v) = line.split_once('=')?;
            m.values.insert(k.to_owned(), v.to_owned());
        }
        (m.get("fingerprint") == Some(&format!("{fingerprint:016x}"))).then_some(m)
    }

    /// Writes the marker of `stage` (temporary file, then rename).
    pub(super) fn save(&self, dir: &Path, stage: &str, fingerprint: u64) -> Result<(), Error> {
        let path = Self::path(dir, stage);
        let mut text = format!("fingerprint={fingerprint:016x}\n");
        for (k, v) in &self.values {
            if k != "fingerprint" && k != "checksum" {
                text.push_str(&format!("{k}={v}\n"));
            }
        }
        text.push_str(&format!("checksum={:016x}\n", checksum(&text)));
        let tmp = ndd_scale::temp_path(&path);
        std::fs::write(&tmp, text).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
    }

    /// Whether `dir` holds a marker of `stage`, whatever it says.
    pub(super) fn exists(dir: &Path, stage: &str) -> bool {
        Self::path(dir, stage).is_file()
    }

    /// Removes the marker of `stage`, so that it is redone.
    pub(super) fn clear(dir: &Path, stage: &str) -> Result<(), Error> {
        let path = Self::path(dir, stage);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(path, e)),
        }
    }
}

/// The checksum of a marker's lines: a specified hash (XXH3-64 under a tag).
fn checksum(text: &str) -> u64 {
    ndd_core::hash::stable_hash64(text.as_bytes(), MARKER_SEED)
}

/// The seed of [`checksum`]: "ndd-done" in ASCII.
const MARKER_SEED: u64 = u64::from_le_bytes(*b"ndd-done");

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_damaged_or_edited_marker_is_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let m = Marker::default()
            .with("documents", 3)
            .with("runs", "keys-0.bin");
        m.save(d, "sketch", 7).unwrap();
        let loaded = Marker::load(d, "sketch", 7).unwrap();
        assert_eq!(loaded.get_u64("documents"), Some(3));
        assert_eq!(loaded.get("runs"), Some("keys-0.bin"));
        assert_eq!(Marker::load(d, "sketch", 8), None);
        let path = d.join("sketch.done");
        let text = std::fs::read_to_string(&path).unwrap();
        // A count changed, a run added, the checksum line removed: each refused.
        for edited in [
            text.replace("documents=3", "documents=4"),
            text.replace("keys-0.bin", "keys-0.bin,keys-1.bin"),
            text.lines()
                .filter(|l| !l.starts_with("checksum="))
                .map(|l| format!("{l}\n"))
                .collect(),
        ] {
            assert_ne!(edited, text);
            std::fs::write(&path, edited).unwrap();
            assert_eq!(Marker::load(d, "sketch", 7), None);
        }
    }
}

//! Stage markers: a stage that finished writes `{stage}.done` (atomically) with the
//! fingerprint of the settings and its counts; a later run with the same settings
//! reuses it instead of redoing the stage.

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
        let mut m = Marker::default();
        for line in text.lines() {
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
            if k != "fingerprint" {
                text.push_str(&format!("{k}={v}\n"));
            }
        }
        let tmp = ndd_scale::temp_path(&path);
        std::fs::write(&tmp, text).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
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

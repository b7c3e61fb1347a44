//! Fixture files shared by the tests of this binary.

use std::path::PathBuf;

/// Writes `content` to a file `name` in a new temporary folder; returns the folder
/// (deleted when dropped, so keep it alive) and the file's path.
pub(crate) fn temp_file(name: &str, content: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("create a temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, content).expect("write the fixture");
    (dir, path)
}

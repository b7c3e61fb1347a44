//! `input_fingerprint`: the same input gives the same value; a file added, removed,
//! resized or touched, or another input, gives another; a missing input is an error
//! naming it.

use std::fs;
use std::time::{Duration, SystemTime};

use ndd_corpus::{Error, input_fingerprint};

/// The fingerprint of `path`, which must have one.
fn fingerprint(path: &std::path::Path) -> u64 {
    input_fingerprint(path).expect("fingerprint the input")
}

fn touch(path: &std::path::Path, at: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .expect("open the fixture")
        .set_modified(at)
        .expect("set the fixture's modification time");
}

#[test]
fn a_file_keeps_its_fingerprint_until_its_size_or_time_changes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("corpus.jsonl");
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    fs::write(&file, "{\"text\": \"one\"}\n").unwrap();
    touch(&file, t0);
    let first = fingerprint(&file);
    assert_eq!(fingerprint(&file), first);

    // Same size, same time, other bytes: metadata only, by design.
    fs::write(&file, "{\"text\": \"two\"}\n").unwrap();
    touch(&file, t0);
    assert_eq!(fingerprint(&file), first);

    // Same bytes, another modification time.
    touch(&file, t0 + Duration::from_secs(1));
    let touched = fingerprint(&file);
    assert_ne!(touched, first);

    // Another size, the first time.
    fs::write(&file, "{\"text\": \"three\"}\n").unwrap();
    touch(&file, t0);
    let resized = fingerprint(&file);
    assert_ne!(resized, first);
    assert_ne!(resized, touched);
}

#[test]
fn a_file_at_another_path_has_another_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    for p in [&a, &b] {
        fs::write(p, "{\"text\": \"same\"}\n").unwrap();
        touch(p, t0);
    }
    assert_ne!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn a_path_and_its_spellings_share_a_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let file = dir.path().join("corpus.jsonl");
    fs::write(&file, "{\"text\": \"one\"}\n").unwrap();
    let roundabout = dir.path().join("sub").join("..").join("corpus.jsonl");
    assert_eq!(fingerprint(&roundabout), fingerprint(&file));
}

#[test]
fn a_folder_changes_its_fingerprint_with_any_of_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    fs::create_dir_all(root.join("nested")).unwrap();
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let a = root.join("a.txt");
    let deep = root.join("nested").join("b.txt");
    fs::write(&a, "alpha").unwrap();
    fs::write(&deep, "beta").unwrap();
    touch(&a, t0);
    touch(&deep, t0);
    let first = fingerprint(&root);
    assert_eq!(fingerprint(&root), first);

    // A file deep in the tree, touched.
    touch(&deep, t0 + Duration::from_secs(60));
    let touched = fingerprint(&root);
    assert_ne!(touched, first);
    touch(&deep, t0);
    assert_eq!(fingerprint(&root), first);

    // A file added, then removed again.
    let c = root.join("c.txt");
    fs::write(&c, "gamma").unwrap();
    touch(&c, t0);
    assert_ne!(fingerprint(&root), first);
    fs::remove_file(&c).unwrap();
    assert_eq!(fingerprint(&root), first);

    // A file renamed (same size and time, another path).
    fs::rename(&a, root.join("a2.txt")).unwrap();
    assert_ne!(fingerprint(&root), first);

    // An empty folder is not a file's metadata: no files, only the folder's path.
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    assert_ne!(fingerprint(&empty), first);
}

#[test]
fn a_missing_input_is_an_io_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-corpus.jsonl");
    let err = input_fingerprint(&missing).unwrap_err();
    assert!(err.to_string().starts_with(&missing.display().to_string()));
    match err {
        Error::Io { path, source } => {
            assert_eq!(path, missing);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected Error::Io, got {other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn a_dangling_link_in_a_folder_is_an_error_naming_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("a.txt"), "alpha").unwrap();
    std::os::unix::fs::symlink(root.join("gone.txt"), root.join("link.txt")).unwrap();
    match input_fingerprint(&root) {
        Err(Error::Io { path, source }) => {
            assert_eq!(path, root);
            // walkdir's message names the entry.
            assert!(source.to_string().contains("link.txt"), "{source}");
        }
        other => panic!("expected Error::Io, got {other:?}"),
    }
}

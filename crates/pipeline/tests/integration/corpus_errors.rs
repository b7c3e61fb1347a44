//! The corpus readers (`ndd-corpus`, re-exported as `ndd_pipeline::corpus`) fail with
//! their own error type; through `?` into `ndd_pipeline::Error` each becomes the
//! variant of the same name, with the same message, as before the readers moved.

use std::fs;
use std::path::Path;

use ndd_pipeline::Error;
use ndd_pipeline::corpus::{ErrorPolicy, Problem, ProblemKind, ReadOptions, read_corpus};

/// A caller of the pipeline: `?` converts the corpus error.
fn documents(path: &Path, options: &ReadOptions) -> Result<usize, Error> {
    Ok(read_corpus(path, options)?.documents.len())
}

#[test]
fn a_rejected_line_under_stop_is_error_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.jsonl");
    fs::write(&path, "{\"text\": \"fine\"}\n{\"text\": 5}\n").unwrap();
    let stop = ReadOptions::default().with_errors(ErrorPolicy::Stop);
    let direct = read_corpus(&path, &stop).unwrap_err().to_string();
    let err = documents(&path, &stop).unwrap_err();
    assert_eq!(err.to_string(), direct);
    match err {
        Error::Input { location, message } => {
            assert_eq!(location, format!("{}:2", path.display()));
            assert_eq!(message, "field \"text\" is a number, expected a string");
        }
        other => panic!("expected Error::Input, got {other:?}"),
    }
}

#[test]
fn an_empty_input_is_error_no_documents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    fs::write(&path, "\n\n").unwrap();
    match documents(&path, &ReadOptions::default()) {
        Err(e @ Error::NoDocuments { .. }) => assert_eq!(
            e.to_string(),
            format!(
                "{}: no usable document (0 rejected; first problem: the input is empty \
                 (no line or file to read))",
                path.display()
            )
        ),
        other => panic!("expected Error::NoDocuments, got {other:?}"),
    }
}

#[test]
fn a_missing_input_is_error_io_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.jsonl");
    match documents(&path, &ReadOptions::default()) {
        Err(Error::Io { path: p, source }) => {
            assert_eq!(p, path);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected Error::Io, got {other:?}"),
    }
}

#[test]
fn a_problem_converts_to_error_input() {
    let problem = Problem::new("a.txt", "file is empty", ProblemKind::Empty);
    match Error::from(problem) {
        Error::Input { location, message } => {
            assert_eq!(
                (location.as_str(), message.as_str()),
                ("a.txt", "file is empty")
            );
        }
        other => panic!("expected Error::Input, got {other:?}"),
    }
}

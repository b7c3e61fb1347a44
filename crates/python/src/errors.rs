//! Rust errors as Python exceptions.

use pyo3::PyErr;
use pyo3::exceptions::{PyException, PyOSError, PyValueError};

pyo3::create_exception!(
    near_dup,
    Error,
    PyException,
    "An ndd error that is neither a bad parameter or input (`ValueError`) nor a file \
     error (`OSError`): corrupt or truncated bytes, among others. The message is the Rust one."
);

/// An `ndd-core` error as a Python exception: bad parameters, inputs, mismatched
/// signatures and lengths raise `ValueError`; corrupt bytes raise `near_dup.Error`.
///
/// # Example
///
/// ```
/// let err = near_dup_native::core_error(near_dup::Error::corrupt_data("truncated"));
/// pyo3::Python::initialize();
/// pyo3::Python::attach(|py| assert!(err.is_instance_of::<near_dup_native::Error>(py)));
/// ```
#[must_use]
pub fn core_error(e: ndd_core::Error) -> PyErr {
    match e.kind() {
        ndd_core::ErrorKind::CorruptData => Error::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// An `ndd-pipeline` error as a Python exception: [`core_error`] for the crates'
/// errors, `OSError` for files, `ValueError` for rejected documents and
/// `near_dup.Error` for the rest.
///
/// # Example
///
/// ```
/// let io = near_dup::pipeline::Error::Io {
///     path: "missing.jsonl".into(),
///     source: std::io::ErrorKind::NotFound.into(),
/// };
/// let err = near_dup_native::pipeline_error(io);
/// pyo3::Python::initialize();
/// pyo3::Python::attach(|py| {
///     assert!(err.is_instance_of::<pyo3::exceptions::PyOSError>(py));
///     assert!(err.value(py).to_string().contains("missing.jsonl"));
/// });
/// ```
#[must_use]
pub fn pipeline_error(e: ndd_pipeline::Error) -> PyErr {
    match e {
        ndd_pipeline::Error::Core(c) => core_error(c),
        e @ ndd_pipeline::Error::Io { .. } => PyOSError::new_err(e.to_string()),
        e @ (ndd_pipeline::Error::Input { .. } | ndd_pipeline::Error::NoDocuments { .. }) => {
            PyValueError::new_err(e.to_string())
        }
        e => Error::new_err(e.to_string()),
    }
}

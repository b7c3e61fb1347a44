//! The `near_dup` Python package: ndd from Python, built by maturin with pyo3 against
//! the stable ABI of CPython 3.9+ (one wheel for every later version).
//!
//! The package wraps the crates and re-implements nothing:
//!
//! * batch entry points over the pipeline: `sketch(texts, ...)` (an `(n, num_perm)`
//!   numpy array of `ndd-minhash` signatures), `dedup(texts, ...)` (one
//!   `ndd_pipeline::Dedup` run: groups, kept and dropped indices, pairs and the
//!   report), `DedupIndex` (the pipeline's saved index) and `explain(...)`;
//! * the stages as plain values for a distributed job: `exact_digests`, `band_keys`,
//!   `verify`;
//! * datasketch-shaped classes: `MinHash` (classic `k`-hash MinHash of
//!   `ndd-minhash` over token bytes), `MinHashLSH` (`ndd-lsh`'s banded index),
//!   `MinHashLSHForest` (`ndd-lsh`'s LSH Forest), `MinHashLSHEnsemble` (`ndd-lsh`'s
//!   LSH Ensemble, containment search) and `WeightedMinHashGenerator` /
//!   `WeightedMinHash` (`ndd-minhash`'s ICWS);
//! * `SimHash` (`ndd-simhash`) and `SimHashIndex` (`ndd-index`'s Hamming index),
//!   shaped like the `simhash` package's `Simhash` and `SimhashIndex`.
//!
//! Work runs with the GIL released and on rayon's pool as in Rust; errors become
//! `ValueError` (bad parameters and inputs), `OSError` (files) or `near_dup.Error`
//! (everything else, corrupt bytes among them), with the Rust message. Every class
//! pickles (and copies) through the crates' versioned byte forms; an index keeps its
//! Python keys beside its Rust bytes.
//!
//! The Rust items are the module's implementation; Python users read
//! `crates/python/README.md` and the type stubs (`python/near_dup/__init__.pyi`).
//! From Rust, the crate offers the error conversions the module uses:
//!
//! ```
//! let err = near_dup_native::pipeline_error(near_dup::pipeline::Error::from(
//!     near_dup::Error::invalid_parameter("threshold", "must lie in (0, 1]"),
//! ));
//! pyo3::Python::initialize();
//! pyo3::Python::attach(|py| {
//!     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
//! });
//! ```

mod batch;
mod classes;
mod errors;
mod input;
mod simhash;
mod stages;
mod weighted;

use pyo3::prelude::*;

pub use errors::{Error, core_error, pipeline_error};

/// The extension module `near_dup._native`; `near_dup/__init__.py` re-exports it.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(batch::sketch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::dedup, m)?)?;
    m.add_function(wrap_pyfunction!(batch::explain, m)?)?;
    m.add_function(wrap_pyfunction!(stages::exact_digests, m)?)?;
    m.add_function(wrap_pyfunction!(stages::band_keys, m)?)?;
    m.add_function(wrap_pyfunction!(stages::verify, m)?)?;
    m.add_class::<batch::Outcome>()?;
    m.add_class::<batch::DedupIndex>()?;
    m.add_class::<classes::MinHash>()?;
    m.add_class::<classes::KeyedIndex>()?;
    m.add_class::<classes::MinHashLsh>()?;
    m.add_class::<classes::LshSession>()?;
    m.add_class::<classes::MinHashLshForest>()?;
    m.add_class::<classes::MinHashLshEnsemble>()?;
    m.add_class::<weighted::WeightedMinHashGenerator>()?;
    m.add_class::<weighted::WeightedMinHash>()?;
    m.add_class::<simhash::SimHash>()?;
    m.add_class::<simhash::SimHashIndex>()?;
    Ok(())
}

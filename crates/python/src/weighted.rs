//! datasketch's `WeightedMinHashGenerator` and `WeightedMinHash` over `ndd-minhash`'s
//! ICWS (`IcwsMinHasher`).

use ndd_core::{SchemeId, Signature, Sketcher, Weighted};
use ndd_minhash::{IcwsMinHasher, MinHashSignature};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::classes::Reduce;
use crate::errors::core_error;

/// The features of a dense vector: the dimension index `i` is feature `i`.
fn feature_scheme() -> SchemeId {
    SchemeId::new("near_dup.python.dense-index").finish()
}

fn hasher(sample_size: usize, seed: u64) -> PyResult<IcwsMinHasher> {
    Ok(IcwsMinHasher::new(sample_size, seed)
        .map_err(core_error)?
        .with_feature_scheme(feature_scheme()))
}

/// A vector given from Python: a 1-D numpy float64 array or any sequence of numbers.
fn dense_vector(v: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    if let Ok(a) = v.extract::<PyReadonlyArray1<'_, f64>>() {
        return Ok(a.as_array().to_vec());
    }
    v.extract::<Vec<f64>>()
}

/// A weighted MinHash: `sample_size` consistent weighted samples of a vector (ICWS),
/// shaped like datasketch's `WeightedMinHash`; made by `WeightedMinHashGenerator`.
#[pyclass(module = "near_dup")]
pub(crate) struct WeightedMinHash {
    sig: MinHashSignature,
    seed: u64,
}

#[pymethods]
impl WeightedMinHash {
    /// A sketch from its `seed` and `digest()` (datasketch's `WeightedMinHash(seed,
    /// hashvalues)`, here a 1-D uint64 array).
    #[new]
    fn new(seed: u64, hashvalues: PyReadonlyArray1<'_, u64>) -> PyResult<Self> {
        let values = hashvalues.as_slice()?.to_vec();
        let scheme = hasher(values.len(), seed)?.scheme();
        let sig = MinHashSignature::from_values(scheme, values).map_err(core_error)?;
        Ok(WeightedMinHash { sig, seed })
    }

    /// The estimated weighted Jaccard similarity `Σ min / Σ max` of the two vectors.
    fn jaccard(&self, other: &WeightedMinHash) -> PyResult<f64> {
        if self.seed != other.seed {
            return Err(PyValueError::new_err(
                "Cannot compute Jaccard given WeightedMinHash objects with different seeds",
            ));
        }
        if self.sig.num_values() != other.sig.num_values() {
            return Err(PyValueError::new_err(
                "Cannot compute Jaccard given WeightedMinHash objects with different \
                 numbers of hash values",
            ));
        }
        Ok(self.sig.similarity(&other.sig).map_err(core_error)?.value())
    }

    /// The samples, one uint64 hash of datasketch's `(k, t)` pair each.
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.sig.values().to_vec().into_pyarray(py)
    }

    /// The samples (as `digest()`).
    #[getter]
    fn hashvalues<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.digest(py)
    }

    /// The seed of the generator that made it.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// An independent copy.
    fn copy(&self) -> Self {
        WeightedMinHash {
            sig: self.sig.clone(),
            seed: self.seed,
        }
    }

    fn __len__(&self) -> usize {
        self.sig.num_values()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<WeightedMinHash>() {
            Ok(o) => {
                let o = o.borrow();
                self.seed == o.seed && self.sig == o.sig
            }
            Err(_) => false,
        }
    }

    /// The sketch's versioned byte form (`ndd-minhash`'s).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.sig.to_bytes())
    }

    /// A sketch from `to_bytes`; `seed` must be the generator's (the bytes carry the
    /// fingerprint of the seed and the sample size, and refuse others with
    /// `ValueError`; bytes that are not a sketch's raise `near_dup.Error`).
    #[staticmethod]
    #[pyo3(signature = (data, seed=1))]
    fn from_bytes(data: &[u8], seed: u64) -> PyResult<Self> {
        let sig = MinHashSignature::from_bytes(data).map_err(core_error)?;
        if sig.scheme() != hasher(sig.num_values(), seed)?.scheme() {
            return Err(PyValueError::new_err(format!(
                "these bytes hold a sketch of other parameters than a WeightedMinHash of \
                 seed={seed} and sample_size={}",
                sig.num_values()
            )));
        }
        Ok(WeightedMinHash { sig, seed })
    }

    /// Pickles through the byte form.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<Reduce<'py, (Bound<'py, PyBytes>, u64)>> {
        let me = slf.borrow();
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        Ok((from_bytes, (me.to_bytes(slf.py()), me.seed)))
    }

    fn __repr__(&self) -> String {
        format!(
            "WeightedMinHash(seed={}, sample_size={})",
            self.seed,
            self.sig.num_values()
        )
    }
}

/// datasketch's `WeightedMinHashGenerator`: weighted MinHash of `dim`-dimensional
/// non-negative vectors by Ioffe's ICWS (`ndd-minhash`'s `IcwsMinHasher`, its own
/// random numbers: samples differ from datasketch's, estimates agree in distribution).
#[pyclass(module = "near_dup")]
pub(crate) struct WeightedMinHashGenerator {
    hasher: IcwsMinHasher,
    dim: usize,
}

impl WeightedMinHashGenerator {
    fn sketch(&self, v: &[f64]) -> PyResult<Option<WeightedMinHash>> {
        if v.len() != self.dim {
            return Err(PyValueError::new_err(format!(
                "Input dimension mismatch, expecting {}, got {}",
                self.dim,
                v.len()
            )));
        }
        let entries = v
            .iter()
            .enumerate()
            .map(|(i, &w)| Weighted {
                feature: i as u64,
                weight: w,
            })
            .collect::<Vec<_>>();
        let sig = self.hasher.sketch_entries(&entries).map_err(core_error)?;
        if sig.is_empty_document() {
            return Ok(None);
        }
        Ok(Some(WeightedMinHash {
            sig,
            seed: self.hasher.seed(),
        }))
    }
}

#[pymethods]
impl WeightedMinHashGenerator {
    #[new]
    #[pyo3(signature = (dim, sample_size=128, seed=1))]
    fn new(dim: usize, sample_size: usize, seed: u64) -> PyResult<Self> {
        if dim == 0 {
            return Err(PyValueError::new_err("dim must be positive"));
        }
        Ok(WeightedMinHashGenerator {
            hasher: hasher(sample_size, seed)?,
            dim,
        })
    }

    /// The weighted MinHash of `v` (`dim` non-negative finite weights: a numpy array
    /// or a sequence). A wrong length, a negative, NaN or infinite weight, or an
    /// all-zero vector raise `ValueError`.
    fn minhash(&self, v: &Bound<'_, PyAny>) -> PyResult<WeightedMinHash> {
        self.sketch(&dense_vector(v)?)?
            .ok_or_else(|| PyValueError::new_err("Input is all zeros"))
    }

    /// The weighted MinHash of each row of `X` (a 2-D array, sequence of rows, or a
    /// scipy sparse matrix), `None` for an all-zero row.
    #[allow(non_snake_case)]
    fn minhash_many<'py>(
        &self,
        py: Python<'py>,
        X: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let rows = if X.hasattr("toarray")? {
            X.call_method0("toarray")?
        } else {
            X.clone()
        };
        let mut out = Vec::new();
        for row in rows.try_iter()? {
            out.push(self.sketch(&dense_vector(&row?)?)?);
        }
        PyList::new(py, out)
    }

    /// The number of dimensions of the input vectors.
    #[getter]
    fn dim(&self) -> usize {
        self.dim
    }

    /// The number of samples of each sketch.
    #[getter]
    fn sample_size(&self) -> usize {
        self.hasher.num_hashes()
    }

    /// The seed of the samples' random numbers.
    #[getter]
    fn seed(&self) -> u64 {
        self.hasher.seed()
    }

    /// Pickles as its parameters: `ndd-minhash`'s `IcwsMinHasher` is a pure function
    /// of `sample_size` and `seed` (it has no byte form to keep).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> Reduce<'py, (usize, usize, u64)> {
        let me = slf.borrow();
        (
            slf.get_type().into_any(),
            (me.dim, me.hasher.num_hashes(), me.hasher.seed()),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "WeightedMinHashGenerator(dim={}, sample_size={}, seed={})",
            self.dim,
            self.hasher.num_hashes(),
            self.hasher.seed()
        )
    }
}

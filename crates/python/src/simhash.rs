//! `SimHash` over `ndd-simhash` and `SimHashIndex` over `ndd-index`'s Hamming index,
//! shaped like the `simhash` PyPI package's `Simhash` and `SimhashIndex`.

use ndd_core::{DocSketcher, SchemeId, Signature, Weighted};
use ndd_index::{HammingIndex, HammingParams};
use ndd_simhash::{SimHashSignature, SimHasher};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList, PyString, PyTuple};

use crate::classes::{Keys, Reduce, feature_scheme, token_hash};
use crate::errors::core_error;

fn token_feature(token: &Bound<'_, PyAny>) -> PyResult<u64> {
    token_hash(
        token,
        "SimHash features are (token, weight) pairs or tokens, and tokens are",
    )
}

/// A feature of a token list: a token (weight 1) or a `(token, weight)` pair.
fn weighted_feature(item: &Bound<'_, PyAny>) -> PyResult<Weighted> {
    if let Ok(pair) = item.cast::<PyTuple>() {
        let (token, weight): (Bound<'_, PyAny>, f64) = pair.extract()?;
        return Ok(Weighted {
            feature: token_feature(&token)?,
            weight,
        });
    }
    Ok(Weighted {
        feature: token_feature(item)?,
        weight: 1.0,
    })
}

/// A SimHash fingerprint of `f` bits, shaped like the `simhash` package's `Simhash`:
/// of a text (`ndd-simhash`'s `SimHasher` over word 3-grams, as the `ndd` tool's
/// simhash method), of a list of tokens or `(token, weight)` pairs, or an integer
/// fingerprint itself.
#[pyclass(module = "near_dup")]
pub(crate) struct SimHash {
    /// The bits, under one scheme whatever made them (a text, tokens or an integer):
    /// fingerprints of the same length compare, as in the `simhash` package.
    sig: SimHashSignature,
}

/// The scheme of every `SimHash`: only the length tells fingerprints apart.
fn fingerprint_scheme() -> SchemeId {
    SchemeId::new("near_dup.python.simhash").finish()
}

impl SimHash {
    fn from_words(bits: usize, words: Vec<u64>) -> PyResult<Self> {
        let sig =
            SimHashSignature::from_words(fingerprint_scheme(), bits, words).map_err(core_error)?;
        Ok(SimHash { sig })
    }

    fn from_signature(sig: &SimHashSignature) -> PyResult<Self> {
        SimHash::from_words(sig.bits(), sig.words().to_vec())
    }

    /// The 64-bit fingerprint (`ValueError` for other lengths).
    fn as_u64(&self) -> PyResult<u64> {
        self.sig.as_u64().ok_or_else(|| {
            PyValueError::new_err(format!(
                "a SimHashIndex holds 64-bit fingerprints, got f={}",
                self.sig.bits()
            ))
        })
    }
}

#[pymethods]
impl SimHash {
    #[new]
    #[pyo3(signature = (value, f=64))]
    fn new(value: &Bound<'_, PyAny>, f: usize) -> PyResult<Self> {
        if f == 0 || f % 64 != 0 {
            return Err(PyValueError::new_err(format!(
                "f must be a positive multiple of 64, got {f}"
            )));
        }
        if let Ok(text) = value.cast::<PyString>() {
            let hasher = SimHasher::new(f).map_err(core_error)?;
            return SimHash::from_signature(&hasher.sketch(&text.to_cow()?));
        }
        if let Ok(int) = value.cast::<PyInt>() {
            let mut rest = int.clone().into_any();
            if rest.lt(0)? {
                return Err(PyValueError::new_err("a fingerprint is not negative"));
            }
            let mut words = Vec::with_capacity(f / 64);
            for _ in 0..f / 64 {
                words.push(rest.bitand(u64::MAX)?.extract::<u64>()?);
                rest = rest.rshift(64)?;
            }
            if rest.gt(0)? {
                return Err(PyValueError::new_err(format!(
                    "the fingerprint does not fit in f={f} bits"
                )));
            }
            return SimHash::from_words(f, words);
        }
        let features = value
            .try_iter()?
            .map(|item| weighted_feature(&item?))
            .collect::<PyResult<Vec<_>>>()?;
        let hasher = SimHasher::builder()
            .bits(f)
            .build_for_features(feature_scheme())
            .map_err(core_error)?;
        let sig = hasher.sketch_weighted(&features).map_err(core_error)?;
        SimHash::from_signature(&sig)
    }

    /// The fingerprint as a non-negative integer of `f` bits.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut v = 0u64.into_pyobject(py)?.into_any();
        for &w in self.sig.words().iter().rev() {
            v = v.lshift(64)?.bitor(w)?;
        }
        Ok(v)
    }

    /// The number of bits.
    #[getter]
    fn f(&self) -> usize {
        self.sig.bits()
    }

    /// The Hamming distance: the number of bits that differ (`ValueError` for
    /// fingerprints of different `f`).
    fn distance(&self, another: &SimHash) -> PyResult<u32> {
        self.sig.hamming_distance(&another.sig).map_err(core_error)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<SimHash>() {
            Ok(o) => self.sig == o.borrow().sig,
            Err(_) => false,
        }
    }

    /// The fingerprint's versioned byte form (`ndd-simhash`'s).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.sig.to_bytes())
    }

    /// A fingerprint from `to_bytes`; bytes that are not a SimHash's raise
    /// `near_dup.Error`, a signature of another scheme than `SimHash`'s `ValueError`.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let sig = SimHashSignature::from_bytes(data).map_err(core_error)?;
        if sig.scheme() != fingerprint_scheme() || sig.bits() % 64 != 0 {
            return Err(PyValueError::new_err(format!(
                "these bytes hold a SimHash signature of another scheme or length ({} bits) \
                 than SimHash's",
                sig.bits()
            )));
        }
        Ok(SimHash { sig })
    }

    /// Pickles through the byte form.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduce<'py, (Bound<'py, PyBytes>,)>> {
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        Ok((from_bytes, (slf.borrow().to_bytes(slf.py()),)))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "SimHash({}, f={})",
            self.value(py)?,
            self.sig.bits()
        ))
    }
}

/// The `simhash` package's `SimhashIndex` over `ndd-index`'s `HammingIndex`: 64-bit
/// fingerprints under Python keys; `get_near_dups` gives every key within `k` bits
/// (exactly: the permuted tables of Manku et al. miss none).
#[pyclass(module = "near_dup")]
pub(crate) struct SimHashIndex {
    index: HammingIndex<u32>,
    keys: Keys,
    k: u32,
}

impl SimHashIndex {
    fn insert(&mut self, obj_id: &Bound<'_, PyAny>, simhash: &SimHash) -> PyResult<()> {
        let fingerprint = simhash.as_u64()?;
        let (id, new) = match self.keys.get(obj_id)? {
            Some(id) => (id, false),
            None => (self.keys.next_id()?, true),
        };
        self.index.insert(id, fingerprint).map_err(core_error)?;
        if new {
            self.keys.add(obj_id, id)?;
        }
        Ok(())
    }
}

#[pymethods]
impl SimHashIndex {
    #[new]
    #[pyo3(signature = (objs=None, f=64, k=2))]
    fn new(py: Python<'_>, objs: Option<&Bound<'_, PyAny>>, f: usize, k: u32) -> PyResult<Self> {
        if f != 64 {
            return Err(PyValueError::new_err(format!(
                "a SimHashIndex holds 64-bit fingerprints, got f={f}"
            )));
        }
        // k + 1 blocks (k + 1 tables), as the simhash package splits.
        let params = HammingParams::new(k, k.saturating_add(1)).map_err(core_error)?;
        let mut me = SimHashIndex {
            index: HammingIndex::new(params),
            keys: Keys::new(py),
            k,
        };
        if let Some(objs) = objs {
            for item in objs.try_iter()? {
                let (obj_id, simhash): (Bound<'_, PyAny>, PyRef<'_, SimHash>) = item?.extract()?;
                me.insert(&obj_id, &simhash)?;
            }
        }
        Ok(me)
    }

    /// Adds `simhash` under `obj_id` (an id already present gets the new fingerprint).
    fn add(&mut self, obj_id: &Bound<'_, PyAny>, simhash: &SimHash) -> PyResult<()> {
        self.insert(obj_id, simhash)
    }

    /// Removes `obj_id`; an id not present is ignored, as by the simhash package.
    #[pyo3(signature = (obj_id, simhash=None))]
    fn delete(&mut self, obj_id: &Bound<'_, PyAny>, simhash: Option<&SimHash>) -> PyResult<()> {
        let _ = simhash; // the simhash package needs it to find the buckets; ids suffice here
        if self.keys.contains(obj_id)? {
            let id = self.keys.remove(obj_id)?;
            self.index.remove(&id);
        }
        Ok(())
    }

    /// The ids of the fingerprints within `k` bits of `simhash`, nearest first.
    fn get_near_dups<'py>(
        &self,
        py: Python<'py>,
        simhash: &SimHash,
    ) -> PyResult<Bound<'py, PyList>> {
        let found = self.index.query(simhash.as_u64()?);
        PyList::new(
            py,
            found
                .into_iter()
                .filter_map(|(id, _)| self.keys.key(py, id)),
        )
    }

    /// The largest distance searched.
    #[getter]
    fn k(&self) -> u32 {
        self.k
    }

    /// The fingerprint length (64).
    #[getter]
    fn f(&self) -> usize {
        64
    }

    fn __contains__(&self, obj_id: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.keys.contains(obj_id)
    }

    fn __len__(&self) -> usize {
        self.index.len()
    }

    /// Pickles through `ndd-index`'s byte form of the Hamming index, with the ids as
    /// `(internal id, obj_id)` pairs.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<Reduce<'py, (Bound<'py, PyBytes>, Bound<'py, PyList>)>> {
        let py = slf.py();
        let me = slf.borrow();
        let from_state = slf.get_type().getattr("_from_state")?;
        let index = &me.index;
        Ok((
            from_state,
            (
                PyBytes::new(py, &py.detach(|| index.to_bytes())),
                me.keys.pairs(py)?,
            ),
        ))
    }

    /// The index `__reduce__` pickled: bytes that are not a Hamming index's, or ids
    /// that do not match it, raise `near_dup.Error`.
    #[staticmethod]
    #[pyo3(name = "_from_state")]
    fn from_state(py: Python<'_>, data: &[u8], keys: &Bound<'_, PyAny>) -> PyResult<Self> {
        let index = py
            .detach(|| HammingIndex::<u32>::from_bytes(data))
            .map_err(core_error)?;
        let keys = Keys::from_pairs(
            keys,
            index.len(),
            |id| index.contains_key(&id),
            "SimHashIndex",
        )?;
        let k = index.params().max_distance();
        Ok(SimHashIndex { index, keys, k })
    }
}

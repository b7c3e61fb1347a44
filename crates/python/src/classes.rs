//! The datasketch-shaped classes: `MinHash` over `ndd-minhash`'s classic scheme,
//! `MinHashLSH` over `ndd-lsh`'s banded index, `MinHashLSHForest` over its LSH Forest
//! and `MinHashLSHEnsemble` over its LSH Ensemble.

use ndd_core::{FeatureSink, SchemeId, Signature, Sketcher};
use ndd_lsh::{EnsembleParams, LshEnsemble, LshIndex, LshParams};
use ndd_minhash::{MinHashScheme, MinHashSignature, MinHashSketcher, MinHashState};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::PyClassInitializer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyBytes, PyDict, PyIterator, PyList, PyString, PyTuple, PyType};

use crate::errors::core_error;

/// What `__reduce__` returns: a callable and its arguments.
pub(crate) type Reduce<'py, A> = (Bound<'py, PyAny>, A);

/// A pickled keyed index: its class, the Rust index's bytes, the `(id, key)` pairs and
/// the class's settings the bytes do not hold.
type KeyedState<'py> = (
    Bound<'py, PyType>,
    Bound<'py, PyBytes>,
    Bound<'py, PyList>,
    Bound<'py, PyAny>,
);

/// The features of the datasketch-shaped `MinHash` (and of `SimHash`'s tokens): each
/// value given to `update` is one feature, hashed by the specified token hash (XXH3-64
/// of its bytes, seed 0).
pub(crate) fn feature_scheme() -> SchemeId {
    SchemeId::new("near_dup.python.token-bytes")
        .with_str("stable_hash64")
        .finish()
}

fn feature_of(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    token_hash(value, "MinHash.update takes")
}

/// The token hash of a `str` (its UTF-8 bytes) or bytes-like value; anything else is a
/// `TypeError` whose message starts with `what`.
pub(crate) fn token_hash(value: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(ndd_core::hash::stable_hash64(s.to_cow()?.as_bytes(), 0));
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(ndd_core::hash::stable_hash64(b.as_bytes(), 0));
    }
    if let Ok(b) = value.extract::<Vec<u8>>() {
        return Ok(ndd_core::hash::stable_hash64(&b, 0));
    }
    Err(PyTypeError::new_err(format!(
        "{what} bytes or str, got {}",
        value.get_type().name()?
    )))
}

/// A MinHash sketch built value by value, shaped like datasketch's `MinHash`:
/// `num_perm` independent hash functions (`ndd-minhash`'s classic scheme), the
/// minimum of each over the values given to `update`.
#[pyclass(module = "near_dup")]
pub(crate) struct MinHash {
    sketcher: MinHashSketcher,
    state: MinHashState,
    /// Minima merged in from other sketches or a saved digest (`EMPTY` where none).
    merged: Vec<u64>,
    seed: u64,
}

impl MinHash {
    fn build(num_perm: usize, seed: u64) -> PyResult<Self> {
        let sketcher = ndd_minhash::MinHasher::builder()
            .num_hashes(num_perm)
            .seed(seed)
            .scheme(MinHashScheme::Classic)
            .build_sketcher(feature_scheme())
            .map_err(core_error)?;
        let state = sketcher.new_state();
        Ok(MinHash {
            merged: vec![ndd_minhash::EMPTY; num_perm],
            sketcher,
            state,
            seed,
        })
    }

    /// The signature of every value given so far.
    pub(crate) fn signature(&self) -> MinHashSignature {
        let mut state = self.state.clone();
        let mut sig = self.sketcher.new_signature();
        self.sketcher.finish_into(&mut state, &mut sig);
        let values: Vec<u64> = sig
            .values()
            .iter()
            .zip(&self.merged)
            .map(|(&a, &b)| a.min(b))
            .collect();
        // Same scheme, same length: cannot fail.
        MinHashSignature::from_values(self.sketcher.scheme(), values).unwrap_or(sig)
    }

    fn same_kind(&self, other: &MinHash, what: &str) -> PyResult<()> {
        if self.sketcher.scheme() != other.sketcher.scheme() {
            return Err(PyValueError::new_err(format!(
                "cannot {what} MinHash objects with different num_perm or seed \
                 ({}/{} and {}/{})",
                self.merged.len(),
                self.seed,
                other.merged.len(),
                other.seed
            )));
        }
        Ok(())
    }

    fn estimate(&self, other: &MinHash) -> PyResult<ndd_core::Estimate> {
        self.same_kind(other, "compare")?;
        self.signature()
            .similarity(&other.signature())
            .map_err(core_error)
    }

    pub(crate) fn num_perm(&self) -> usize {
        self.merged.len()
    }
}

#[pymethods]
impl MinHash {
    #[new]
    #[pyo3(signature = (num_perm=128, seed=1, hashvalues=None))]
    fn new(
        num_perm: usize,
        seed: u64,
        hashvalues: Option<PyReadonlyArray1<'_, u64>>,
    ) -> PyResult<Self> {
        let num_perm = match &hashvalues {
            Some(h) => h.len()?,
            None => num_perm,
        };
        let mut m = MinHash::build(num_perm, seed)?;
        if let Some(h) = hashvalues {
            m.merged = h.as_slice()?.to_vec();
        }
        Ok(m)
    }

    /// Adds one value (bytes or str) to the set.
    fn update(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let f = feature_of(value)?;
        self.state.push(f);
        Ok(())
    }

    /// Adds every value of an iterable.
    fn update_batch(&mut self, values: &Bound<'_, PyAny>) -> PyResult<()> {
        for v in values.try_iter()? {
            let f = feature_of(&v?)?;
            self.state.push(f);
        }
        Ok(())
    }

    /// The estimated Jaccard similarity of the two sets.
    fn jaccard(&self, other: &MinHash) -> PyResult<f64> {
        Ok(self.estimate(other)?.value())
    }

    /// The estimate's standard error, `sqrt(J(1 - J) / num_perm)` at the estimate.
    fn jaccard_std_error(&self, other: &MinHash) -> PyResult<f64> {
        Ok(self.estimate(other)?.std_error())
    }

    /// Makes this the sketch of the union of both sets.
    fn merge(&mut self, other: &MinHash) -> PyResult<()> {
        self.same_kind(other, "merge")?;
        let theirs = other.signature();
        for (m, &v) in self.merged.iter_mut().zip(theirs.values()) {
            *m = (*m).min(v);
        }
        Ok(())
    }

    /// The slot values, an array of `num_perm` uint64.
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.signature().values().to_vec().into_pyarray(py)
    }

    /// An independent copy.
    fn copy(&self) -> Self {
        MinHash {
            sketcher: self.sketcher.clone(),
            state: self.state.clone(),
            merged: self.merged.clone(),
            seed: self.seed,
        }
    }

    /// Whether no value was given.
    fn is_empty(&self) -> bool {
        self.signature().is_empty_document()
    }

    /// Forgets every value.
    fn clear(&mut self) {
        self.state = self.sketcher.new_state();
        self.merged.fill(ndd_minhash::EMPTY);
    }

    /// The number of hash functions.
    #[getter(num_perm)]
    fn get_num_perm(&self) -> usize {
        self.num_perm()
    }

    /// The seed of the hash functions.
    #[getter(seed)]
    fn get_seed(&self) -> u64 {
        self.seed
    }

    /// The signature's versioned byte form (`ndd-minhash`'s).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.signature().to_bytes())
    }

    /// A sketch from `to_bytes`; `num_perm` and `seed` must be the ones it was made
    /// with (the bytes carry their fingerprint and refuse others).
    #[staticmethod]
    #[pyo3(signature = (data, num_perm=128, seed=1))]
    fn from_bytes(data: &[u8], num_perm: usize, seed: u64) -> PyResult<Self> {
        let sig = MinHashSignature::from_bytes(data).map_err(core_error)?;
        let mut m = MinHash::build(num_perm, seed)?;
        if sig.scheme() != m.sketcher.scheme() {
            return Err(PyValueError::new_err(format!(
                "these bytes hold a sketch of other parameters than num_perm={num_perm}, seed={seed}"
            )));
        }
        m.merged = sig.values().to_vec();
        Ok(m)
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<Reduce<'py, (Bound<'py, PyBytes>, usize, u64)>> {
        let py = slf.py();
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        let me = slf.borrow();
        Ok((from_bytes, (me.to_bytes(py), me.num_perm(), me.seed)))
    }

    /// The estimated number of distinct values given (datasketch's `count`, Flajolet
    /// and Martin's estimate): `num_perm / Σ (h_i / p) − 1`, `p = 2^61 − 1` the range
    /// of the hash functions; 0 for an empty sketch.
    fn count(&self) -> f64 {
        let sig = self.signature();
        if sig.is_empty_document() {
            return 0.0;
        }
        let p = ndd_minhash::MERSENNE_61 as f64;
        let sum: f64 = sig.values().iter().map(|&v| v as f64 / p).sum();
        self.num_perm() as f64 / sum - 1.0
    }

    /// A new sketch of the union of the sets of two or more sketches of the same
    /// `num_perm` and seed (`ValueError` otherwise).
    #[staticmethod]
    #[pyo3(signature = (*mhs))]
    fn union(mhs: Vec<PyRef<'_, MinHash>>) -> PyResult<Self> {
        let [first, rest @ ..] = &mhs[..] else {
            return Err(PyValueError::new_err("Cannot union less than 2 MinHash"));
        };
        if rest.is_empty() {
            return Err(PyValueError::new_err("Cannot union less than 2 MinHash"));
        }
        let mut union = first.copy();
        for m in rest {
            union.merge(m)?;
        }
        Ok(union)
    }

    /// One sketch per iterable of values in `b`, all of `num_perm` and `seed`, as a
    /// list.
    #[staticmethod]
    #[pyo3(signature = (b, *, num_perm=128, seed=1))]
    fn bulk(b: &Bound<'_, PyAny>, num_perm: usize, seed: u64) -> PyResult<Vec<Self>> {
        MinHashGenerator::new(b, num_perm, seed)?.collect(b.py())
    }

    /// One sketch per iterable of values in `b`, all of `num_perm` and `seed`, made as
    /// the iterator is advanced.
    #[staticmethod]
    #[pyo3(signature = (b, *, num_perm=128, seed=1))]
    fn generator(b: &Bound<'_, PyAny>, num_perm: usize, seed: u64) -> PyResult<MinHashGenerator> {
        MinHashGenerator::new(b, num_perm, seed)
    }

    fn __len__(&self) -> usize {
        self.num_perm()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<MinHash>() {
            Ok(o) => {
                let o = o.borrow();
                self.sketcher.scheme() == o.sketcher.scheme() && self.signature() == o.signature()
            }
            Err(_) => false,
        }
    }

    fn __repr__(&self) -> String {
        format!("MinHash(num_perm={}, seed={})", self.num_perm(), self.seed)
    }
}

/// What `MinHash.generator` returns: the sketch of each iterable of values of an
/// iterable, made as it is advanced.
#[pyclass(module = "near_dup", name = "_MinHashGenerator")]
pub(crate) struct MinHashGenerator {
    sets: Py<PyIterator>,
    empty: MinHash,
}

impl MinHashGenerator {
    fn new(b: &Bound<'_, PyAny>, num_perm: usize, seed: u64) -> PyResult<Self> {
        Ok(MinHashGenerator {
            sets: b.try_iter()?.unbind(),
            empty: MinHash::build(num_perm, seed)?,
        })
    }

    /// Every remaining sketch.
    fn collect(&self, py: Python<'_>) -> PyResult<Vec<MinHash>> {
        let mut out = Vec::new();
        while let Some(m) = self.next_sketch(py)? {
            out.push(m);
        }
        Ok(out)
    }

    fn next_sketch(&self, py: Python<'_>) -> PyResult<Option<MinHash>> {
        let Some(values) = self.sets.bind(py).clone().next() else {
            return Ok(None);
        };
        let mut m = self.empty.copy();
        m.update_batch(&values?)?;
        Ok(Some(m))
    }
}

#[pymethods]
impl MinHashGenerator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<MinHash>> {
        self.next_sketch(py)
    }
}

/// Python keys (any hashable) of an index, as the dense `u32` ids the Rust index holds.
pub(crate) struct Keys {
    /// Key → id.
    ids: Py<PyDict>,
    /// Id → key (`None` once removed).
    keys: Vec<Option<Py<PyAny>>>,
}

impl Keys {
    pub(crate) fn new(py: Python<'_>) -> Self {
        Keys {
            ids: PyDict::new(py).unbind(),
            keys: Vec::new(),
        }
    }

    /// The id of `key`, if present.
    pub(crate) fn get(&self, key: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        match self.ids.bind(key.py()).get_item(key)? {
            Some(id) => Ok(Some(id.extract::<u32>()?)),
            None => Ok(None),
        }
    }

    /// The id the next new key gets.
    pub(crate) fn next_id(&self) -> PyResult<u32> {
        u32::try_from(self.keys.len())
            .map_err(|_| PyValueError::new_err("the index holds 2^32 keys"))
    }

    pub(crate) fn add(&mut self, key: &Bound<'_, PyAny>, id: u32) -> PyResult<()> {
        self.ids.bind(key.py()).set_item(key, id)?;
        self.keys.push(Some(key.clone().unbind()));
        Ok(())
    }

    /// Forgets `key` and gives its id (`ValueError` when absent).
    pub(crate) fn remove(&mut self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let Some(id) = self.get(key)? else {
            return Err(PyValueError::new_err("The given key does not exist"));
        };
        self.ids.bind(key.py()).del_item(key)?;
        if let Some(slot) = self.keys.get_mut(id as usize) {
            *slot = None;
        }
        Ok(id)
    }

    pub(crate) fn contains(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.ids.bind(key.py()).contains(key)
    }

    pub(crate) fn key<'py>(&self, py: Python<'py>, id: u32) -> Option<Bound<'py, PyAny>> {
        self.keys
            .get(id as usize)?
            .as_ref()
            .map(|k| k.bind(py).clone())
    }

    pub(crate) fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.keys.iter().flatten().map(|k| k.bind(py).clone()))
    }

    /// The ids of the keys present, in id order.
    pub(crate) fn ids(&self) -> Vec<u32> {
        (0u32..)
            .zip(&self.keys)
            .filter_map(|(id, key)| key.as_ref().map(|_| id))
            .collect()
    }

    /// The keys present as `(id, key)` pairs, in id order: what a pickled index keeps
    /// beside its Rust byte form (which holds the ids).
    pub(crate) fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut pairs = Vec::new();
        for (id, key) in self.keys.iter().enumerate() {
            if let Some(key) = key {
                pairs.push((id, key.bind(py).clone()));
            }
        }
        PyList::new(py, pairs)
    }

    /// The keys of `pairs` (as written by [`pairs`](Self::pairs)) for a loaded Rust
    /// index of `len` ids that holds an id when `holds` says so: every id must be held,
    /// once, and every held id named (`near_dup.Error` otherwise, naming `what`).
    pub(crate) fn from_pairs(
        pairs: &Bound<'_, PyAny>,
        len: usize,
        holds: impl Fn(u32) -> bool,
        what: &str,
    ) -> PyResult<Self> {
        let py = pairs.py();
        let mut keys = Keys::new(py);
        let mut count = 0usize;
        for pair in pairs.try_iter()? {
            let (id, key): (u32, Bound<'_, PyAny>) = pair?.extract()?;
            let slot = id as usize;
            if !holds(id) || keys.keys.get(slot).is_some_and(Option::is_some) {
                return Err(crate::Error::new_err(format!(
                    "{what}: the pickled keys do not match the index (id {id})"
                )));
            }
            if keys.contains(&key)? {
                return Err(crate::Error::new_err(format!(
                    "{what}: the pickled keys name {} twice",
                    key.repr()?
                )));
            }
            if keys.keys.len() <= slot {
                keys.keys.resize_with(slot + 1, || None);
            }
            keys.ids.bind(py).set_item(&key, id)?;
            keys.keys[slot] = Some(key.unbind());
            count += 1;
        }
        if count != len {
            return Err(crate::Error::new_err(format!(
                "{what}: the pickled keys name {count} documents, the index holds {len}"
            )));
        }
        Ok(keys)
    }
}

fn check_num_perm(num_perm: usize, minhash: &MinHash) -> PyResult<()> {
    if minhash.num_perm() != num_perm {
        return Err(PyValueError::new_err(format!(
            "expecting a MinHash with num_perm {num_perm}, got {}",
            minhash.num_perm()
        )));
    }
    Ok(())
}

/// The Rust index behind a keyed Python index.
enum Searcher {
    Bands(LshIndex<u32, MinHashSignature>),
    Forest(ndd_lsh::LshForest<u32>),
    Ensemble(LshEnsemble<u32>),
}

impl Searcher {
    /// Indexes `sig` under `id`; `size` (the set's number of distinct values) is the
    /// ensemble's partition key, unused by the others.
    fn insert(
        &mut self,
        id: u32,
        sig: &MinHashSignature,
        size: u64,
    ) -> Result<(), ndd_core::Error> {
        match self {
            Searcher::Bands(i) => i.insert(id, sig),
            Searcher::Forest(f) => f.insert(id, sig),
            Searcher::Ensemble(e) => e.insert(id, sig, size),
        }
    }

    fn remove(&mut self, id: u32) {
        match self {
            Searcher::Bands(i) => {
                i.remove(&id);
            }
            Searcher::Forest(f) => {
                f.remove(&id);
            }
            Searcher::Ensemble(e) => {
                e.remove(&id);
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Searcher::Bands(i) => i.len(),
            Searcher::Forest(f) => f.len(),
            Searcher::Ensemble(e) => e.len(),
        }
    }

    /// Whether `id` is indexed.
    fn holds(&self, id: u32) -> bool {
        match self {
            Searcher::Bands(i) => i.contains_key(&id),
            Searcher::Forest(f) => f.contains_key(&id),
            Searcher::Ensemble(e) => e.size_of(&id).is_some(),
        }
    }

    /// The Rust index's versioned byte form (`ndd-lsh`'s `to_bytes`).
    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Searcher::Bands(i) => i.to_bytes(),
            Searcher::Forest(f) => f.to_bytes(),
            Searcher::Ensemble(e) => e.to_bytes(),
        }
    }
}

/// What `MinHashLSH`, `MinHashLSHForest` and `MinHashLSHEnsemble` share (`near_dup._KeyedIndex`): MinHash
/// sketches of `num_perm` values under Python keys.
#[pyclass(module = "near_dup", name = "_KeyedIndex", subclass)]
pub(crate) struct KeyedIndex {
    searcher: Searcher,
    num_perm: usize,
    keys: Keys,
}

impl KeyedIndex {
    fn new(py: Python<'_>, searcher: Searcher, num_perm: usize) -> Self {
        KeyedIndex {
            searcher,
            num_perm,
            keys: Keys::new(py),
        }
    }

    /// Indexes `minhash` under `key`: a key already present is refused, or replaced
    /// when `replace`.
    fn insert(&mut self, key: &Bound<'_, PyAny>, minhash: &MinHash, replace: bool) -> PyResult<()> {
        self.insert_sized(key, minhash, 1, replace)
    }

    /// [`insert`](Self::insert) with the set's size (the ensemble's partition key).
    fn insert_sized(
        &mut self,
        key: &Bound<'_, PyAny>,
        minhash: &MinHash,
        size: u64,
        replace: bool,
    ) -> PyResult<()> {
        check_num_perm(self.num_perm, minhash)?;
        let existing = self.keys.get(key)?;
        if existing.is_some() && !replace {
            return Err(PyValueError::new_err("The given key already exists"));
        }
        let id = match existing {
            Some(id) => id,
            None => self.keys.next_id()?,
        };
        self.searcher
            .insert(id, &minhash.signature(), size)
            .map_err(core_error)?;
        if existing.is_none() {
            self.keys.add(key, id)?;
        }
        Ok(())
    }

    /// An index restored from a loaded Rust index and the pickled key pairs, which
    /// must name exactly its ids.
    fn restore(
        searcher: Searcher,
        num_perm: usize,
        pairs: &Bound<'_, PyAny>,
        what: &str,
    ) -> PyResult<Self> {
        let keys = Keys::from_pairs(pairs, searcher.len(), |id| searcher.holds(id), what)?;
        Ok(KeyedIndex {
            searcher,
            num_perm,
            keys,
        })
    }

    /// Per band of a banded index, a dict from band key to the number of `ids` in
    /// its bucket.
    fn band_counts<'py>(
        &self,
        py: Python<'py>,
        ids: Vec<u32>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let Searcher::Bands(index) = &self.searcher else {
            return Err(crate::Error::new_err("a MinHashLSH holds a banded index"));
        };
        let mut counts =
            vec![std::collections::HashMap::<u64, usize>::new(); index.params().bands()];
        for id in ids {
            for (band, &key) in counts
                .iter_mut()
                .zip(index.band_keys_of(&id).unwrap_or_default())
            {
                *band.entry(key).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .map(|band| band.into_py_dict(py))
            .collect()
    }

    /// The keys of `ids`, in their order.
    fn keys_of<'py>(
        &self,
        py: Python<'py>,
        ids: impl IntoIterator<Item = u32>,
    ) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, ids.into_iter().filter_map(|id| self.keys.key(py, id)))
    }
}

#[pymethods]
impl KeyedIndex {
    /// Removes `key`; a key not present raises `ValueError`.
    fn remove(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.keys.remove(key)?;
        self.searcher.remove(id);
        Ok(())
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.keys.contains(key)
    }

    /// The keys indexed, in insertion order.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.keys.list(py)
    }

    /// Whether no key is indexed.
    fn is_empty(&self) -> bool {
        self.searcher.len() == 0
    }

    fn __len__(&self) -> usize {
        self.searcher.len()
    }

    /// Pickles (and copies) through the Rust index's versioned byte form (`ndd-lsh`'s
    /// `to_bytes`), with the keys as `(id, key)` pairs and the class's settings the
    /// bytes do not hold.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduce<'py, KeyedState<'py>>> {
        let py = slf.py();
        let me = slf.borrow();
        let settings = if let Ok(lsh) = slf.cast::<MinHashLsh>() {
            let lsh = lsh.borrow();
            (lsh.threshold, me.num_perm, lsh.weights)
                .into_pyobject(py)?
                .into_any()
        } else if let Ok(ensemble) = slf.cast::<MinHashLshEnsemble>() {
            (ensemble.borrow().num_part,).into_pyobject(py)?.into_any()
        } else {
            (me.num_perm,).into_pyobject(py)?.into_any()
        };
        let restore = py.get_type::<KeyedIndex>().getattr("_restore")?;
        let searcher = &me.searcher;
        let data = PyBytes::new(py, &py.detach(|| searcher.to_bytes()));
        Ok((
            restore,
            (slf.get_type(), data, me.keys.pairs(py)?, settings),
        ))
    }

    /// The index `__reduce__` pickled: bytes that are not the class's index, keys
    /// that do not name exactly its ids, or settings it cannot have raise
    /// `near_dup.Error` or `ValueError` with the Rust message.
    #[staticmethod]
    #[pyo3(name = "_restore")]
    fn restore_pickled(
        cls: &Bound<'_, PyType>,
        data: &[u8],
        keys: &Bound<'_, PyAny>,
        settings: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let py = cls.py();
        if cls.is(py.get_type::<MinHashLsh>()) {
            restored(
                py,
                MinHashLsh::from_saved(py, data, settings.extract()?)?,
                keys,
            )
        } else if cls.is(py.get_type::<MinHashLshForest>()) {
            restored(
                py,
                MinHashLshForest::from_saved(py, data, settings.extract()?)?,
                keys,
            )
        } else if cls.is(py.get_type::<MinHashLshEnsemble>()) {
            restored(
                py,
                MinHashLshEnsemble::from_saved(py, data, settings.extract()?)?,
                keys,
            )
        } else {
            Err(PyTypeError::new_err(format!(
                "{} is not a MinHashLSH, MinHashLSHForest or MinHashLSHEnsemble",
                cls.name()?
            )))
        }
    }
}

/// datasketch's `MinHashLSH` over `ndd-lsh`'s banded index: `b` bands of `r` rows
/// chosen by weighing false positives against false negatives as datasketch does.
#[pyclass(module = "near_dup", name = "MinHashLSH", extends = KeyedIndex)]
pub(crate) struct MinHashLsh {
    params: LshParams,
    threshold: f64,
    weights: (f64, f64),
    /// The sketches given to `add_to_query_buffer` since the last
    /// `collect_query_buffer`.
    query_buffer: Vec<MinHashSignature>,
}

#[pymethods]
impl MinHashLsh {
    #[new]
    #[pyo3(signature = (threshold=0.9, num_perm=128, weights=(0.5, 0.5), params=None))]
    fn new(
        py: Python<'_>,
        threshold: f64,
        num_perm: usize,
        weights: (f64, f64),
        params: Option<(usize, usize)>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let lsh = match params {
            Some((b, r)) => {
                let p = LshParams::new(b, r).map_err(core_error)?;
                p.check_signature_len(num_perm).map_err(core_error)?;
                p
            }
            None => {
                LshParams::optimal(threshold, num_perm, weights.0, weights.1).map_err(core_error)?
            }
        };
        let base = KeyedIndex::new(py, Searcher::Bands(LshIndex::new(lsh)), num_perm);
        Ok(PyClassInitializer::from(base).add_subclass(MinHashLsh {
            params: lsh,
            threshold,
            weights,
            query_buffer: Vec::new(),
        }))
    }

    /// Indexes `minhash` under `key`; a key already present is refused unless
    /// `check_duplication` is false (then the new sketch replaces it).
    #[pyo3(signature = (key, minhash, check_duplication=true))]
    fn insert(
        mut slf: PyRefMut<'_, Self>,
        key: &Bound<'_, PyAny>,
        minhash: &MinHash,
        check_duplication: bool,
    ) -> PyResult<()> {
        slf.as_super().insert(key, minhash, !check_duplication)
    }

    /// The keys whose sketches share a band with `minhash` (candidates, unverified).
    fn query<'py>(slf: PyRef<'py, Self>, minhash: &MinHash) -> PyResult<Bound<'py, PyList>> {
        let base = slf.as_super();
        check_num_perm(base.num_perm, minhash)?;
        let Searcher::Bands(index) = &base.searcher else {
            return Err(crate::Error::new_err("a MinHashLSH holds a banded index"));
        };
        let found = index.query(&minhash.signature()).map_err(core_error)?;
        base.keys_of(slf.py(), found)
    }

    /// A context manager for many inserts (datasketch's `insertion_session`): its
    /// `insert` is the index's, applied at once (there is no storage to buffer for,
    /// so `buffer_size` is only checked).
    #[pyo3(signature = (buffer_size=50000))]
    fn insertion_session(slf: Bound<'_, Self>, buffer_size: usize) -> PyResult<LshSession> {
        LshSession::new(slf, buffer_size)
    }

    /// A context manager for many removals (datasketch's `deletion_session`): its
    /// `remove` is the index's, applied at once.
    #[pyo3(signature = (buffer_size=50000))]
    fn deletion_session(slf: Bound<'_, Self>, buffer_size: usize) -> PyResult<LshSession> {
        LshSession::new(slf, buffer_size)
    }

    /// Per band, a dict from band key (a `u64`, not datasketch's bytes) to the number
    /// of indexed keys in its bucket.
    fn get_counts<'py>(slf: PyRef<'py, Self>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let base = slf.as_super();
        let ids = base.keys.ids();
        base.band_counts(slf.py(), ids)
    }

    /// `get_counts` over the given keys only (each counted once; a key not present
    /// raises `ValueError`).
    #[pyo3(signature = (*keys))]
    fn get_subset_counts<'py>(
        slf: PyRef<'py, Self>,
        keys: &Bound<'py, PyTuple>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let base = slf.as_super();
        let mut ids = Vec::with_capacity(keys.len());
        for key in keys.iter() {
            let Some(id) = base.keys.get(&key)? else {
                return Err(PyValueError::new_err(format!(
                    "The given key does not exist: {}",
                    key.repr()?
                )));
            };
            ids.push(id);
        }
        ids.sort_unstable();
        ids.dedup();
        base.band_counts(slf.py(), ids)
    }

    /// Buffers a query; `collect_query_buffer` answers every buffered one.
    fn add_to_query_buffer(mut slf: PyRefMut<'_, Self>, minhash: &MinHash) -> PyResult<()> {
        check_num_perm(slf.as_super().num_perm, minhash)?;
        slf.query_buffer.push(minhash.signature());
        Ok(())
    }

    /// The keys every buffered query finds (the intersection of their `query`
    /// results, in the order of the first), emptying the buffer.
    fn collect_query_buffer<'py>(mut slf: PyRefMut<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        let buffer = std::mem::take(&mut slf.query_buffer);
        let base = slf.as_super();
        let Searcher::Bands(index) = &base.searcher else {
            return Err(crate::Error::new_err("a MinHashLSH holds a banded index"));
        };
        let mut found: Option<Vec<u32>> = None;
        for sig in &buffer {
            let mut these = index.query(sig).map_err(core_error)?;
            if let Some(before) = &found {
                these.sort_unstable();
                found = Some(
                    before
                        .iter()
                        .copied()
                        .filter(|id| these.binary_search(id).is_ok())
                        .collect(),
                );
            } else {
                found = Some(these);
            }
        }
        base.keys_of(py, found.unwrap_or_default())
    }

    /// `(bands, rows)`, as datasketch's `b` and `r`.
    #[getter]
    fn params(&self) -> (usize, usize) {
        (self.params.bands(), self.params.rows())
    }

    /// Bands (datasketch's `b`).
    #[getter]
    fn b(&self) -> usize {
        self.params.bands()
    }

    /// Rows per band (datasketch's `r`).
    #[getter]
    fn r(&self) -> usize {
        self.params.rows()
    }

    /// The threshold the banding was chosen for.
    #[getter]
    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn __repr__(slf: PyRef<'_, Self>) -> String {
        format!(
            "MinHashLSH(threshold={}, num_perm={}, weights={:?}, b={}, r={}, len={})",
            slf.threshold,
            slf.as_super().num_perm,
            slf.weights,
            slf.b(),
            slf.r(),
            slf.as_super().searcher.len()
        )
    }
}

/// What `MinHashLSH.insertion_session` and `deletion_session` return: a context
/// manager whose `insert` and `remove` are the index's.
#[pyclass(module = "near_dup", name = "MinHashLSHSession")]
pub(crate) struct LshSession {
    lsh: Py<MinHashLsh>,
}

impl LshSession {
    fn new(lsh: Bound<'_, MinHashLsh>, buffer_size: usize) -> PyResult<Self> {
        if buffer_size == 0 {
            return Err(PyValueError::new_err("buffer_size must be positive"));
        }
        Ok(LshSession { lsh: lsh.unbind() })
    }
}

#[pymethods]
impl LshSession {
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Lets any exception propagate.
    #[pyo3(signature = (exc_type, exc_value, traceback, /))]
    fn __exit__(
        &self,
        exc_type: &Bound<'_, PyAny>,
        exc_value: &Bound<'_, PyAny>,
        traceback: &Bound<'_, PyAny>,
    ) -> bool {
        let _ = (exc_type, exc_value, traceback);
        false
    }

    /// Nothing to flush: inserts and removals were applied at once.
    fn close(&self) {}

    /// The index's `insert`.
    #[pyo3(signature = (key, minhash, check_duplication=true))]
    fn insert(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        minhash: &MinHash,
        check_duplication: bool,
    ) -> PyResult<()> {
        MinHashLsh::insert(
            self.lsh.bind(py).borrow_mut(),
            key,
            minhash,
            check_duplication,
        )
    }

    /// The index's `remove`.
    fn remove(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        self.lsh.bind(py).borrow_mut().as_super().remove(key)
    }
}

/// datasketch's `MinHashLSHForest` over `ndd-lsh`'s `LshForest`: `l` prefix trees of
/// `num_perm // l` slots; `query(minhash, k)` gives the `k` most similar keys by the
/// MinHash estimate, best first (datasketch gives `k` candidates in no order).
#[pyclass(module = "near_dup", name = "MinHashLSHForest", extends = KeyedIndex)]
pub(crate) struct MinHashLshForest;

#[pymethods]
impl MinHashLshForest {
    #[new]
    #[pyo3(signature = (num_perm=128, l=8))]
    fn new(py: Python<'_>, num_perm: usize, l: usize) -> PyResult<PyClassInitializer<Self>> {
        if l == 0 || num_perm < l {
            return Err(PyValueError::new_err(format!(
                "l must lie in 1..=num_perm ({num_perm}), got {l}"
            )));
        }
        let params = ndd_lsh::ForestParams::new(l, num_perm / l).map_err(core_error)?;
        let forest = Searcher::Forest(ndd_lsh::LshForest::new(params));
        Ok(
            PyClassInitializer::from(KeyedIndex::new(py, forest, num_perm))
                .add_subclass(MinHashLshForest),
        )
    }

    /// Adds `minhash` under `key`, searchable at once (a key already present raises
    /// `ValueError`).
    fn add(mut slf: PyRefMut<'_, Self>, key: &Bound<'_, PyAny>, minhash: &MinHash) -> PyResult<()> {
        slf.as_super().insert(key, minhash, false)
    }

    /// Kept for datasketch programs; added keys are searchable at once.
    fn index(&self) {}

    /// The `k` keys most similar to `minhash`, best first.
    fn query<'py>(
        slf: PyRef<'py, Self>,
        minhash: &MinHash,
        k: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let base = slf.as_super();
        check_num_perm(base.num_perm, minhash)?;
        if k == 0 {
            return Err(PyValueError::new_err("k must be positive"));
        }
        let Searcher::Forest(forest) = &base.searcher else {
            return Err(crate::Error::new_err("a MinHashLSHForest holds a forest"));
        };
        let found = forest.query(&minhash.signature(), k).map_err(core_error)?;
        base.keys_of(slf.py(), found.into_iter().map(|(id, _)| id))
    }
}

/// A set size given from Python: a positive integer (`ValueError` otherwise, not the
/// `OverflowError` of a negative `u64`).
fn set_size(size: &Bound<'_, PyAny>) -> PyResult<u64> {
    let n: i128 = size.extract()?;
    u64::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| PyValueError::new_err(format!("Set size must be positive, got {n}")))
}

/// datasketch's `MinHashLSHEnsemble` over `ndd-lsh`'s `LshEnsemble`: containment
/// search, the indexed sets `X` with `|Q ∩ X| / |Q| ≥ threshold` for a query set `Q`
/// (candidates, unverified). Partitions are fixed geometric size classes (two per
/// doubling) rather than datasketch's `num_part` equi-depth ones computed once, so
/// `index` may be called again and keys removed; `num_part` is checked and kept for
/// datasketch programs.
#[pyclass(module = "near_dup", name = "MinHashLSHEnsemble", extends = KeyedIndex)]
pub(crate) struct MinHashLshEnsemble {
    threshold: f64,
    num_part: usize,
    m: usize,
    weights: (f64, f64),
}

#[pymethods]
impl MinHashLshEnsemble {
    #[new]
    #[pyo3(signature = (threshold=0.9, num_perm=128, num_part=16, m=8, weights=(0.5, 0.5)))]
    fn new(
        py: Python<'_>,
        threshold: f64,
        num_perm: usize,
        num_part: usize,
        m: usize,
        weights: (f64, f64),
    ) -> PyResult<PyClassInitializer<Self>> {
        if num_part == 0 {
            return Err(PyValueError::new_err("num_part must be at least 1"));
        }
        let params = EnsembleParams::new(threshold, num_perm)
            .and_then(|p| p.with_max_rows(m))
            .and_then(|p| p.with_weights(weights.0, weights.1))
            .map_err(core_error)?;
        let ensemble = Searcher::Ensemble(LshEnsemble::new(params));
        Ok(
            PyClassInitializer::from(KeyedIndex::new(py, ensemble, num_perm)).add_subclass(
                MinHashLshEnsemble {
                    threshold,
                    num_part,
                    m,
                    weights,
                },
            ),
        )
    }

    /// Indexes `(key, minhash, size)` entries, `size` the number of distinct values of
    /// the set. All entries are checked before any is indexed: an empty `entries`, a
    /// size below 1, a key already present or repeated, or a sketch of another
    /// `num_perm` or seed raise `ValueError` and leave the index unchanged.
    fn index(mut slf: PyRefMut<'_, Self>, entries: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let base = slf.as_super();
        let seen = PyDict::new(py);
        let mut checked = Vec::new();
        let mut scheme = match &base.searcher {
            Searcher::Ensemble(e) => e.scheme(),
            _ => None,
        };
        for entry in entries.try_iter()? {
            let (key, minhash, size): (Bound<'_, PyAny>, PyRef<'_, MinHash>, Bound<'_, PyAny>) =
                entry?.extract()?;
            let size = set_size(&size)?;
            check_num_perm(base.num_perm, &minhash)?;
            if base.keys.contains(&key)? || seen.contains(&key)? {
                return Err(PyValueError::new_err(format!(
                    "The given key already exists: {}",
                    key.repr()?
                )));
            }
            seen.set_item(&key, true)?;
            let sig = minhash.signature();
            let theirs = sig.scheme();
            if *scheme.get_or_insert(theirs) != theirs {
                return Err(PyValueError::new_err(
                    "the MinHash objects have different seeds from each other or the index",
                ));
            }
            checked.push((key, sig, size));
        }
        if checked.is_empty() {
            return Err(PyValueError::new_err("entries is empty"));
        }
        for (key, sig, size) in checked {
            let id = base.keys.next_id()?;
            base.searcher.insert(id, &sig, size).map_err(core_error)?;
            base.keys.add(&key, id)?;
        }
        Ok(())
    }

    /// The keys whose sets may contain at least `threshold` of the query set (its
    /// MinHash and its number of distinct values): candidates, unverified.
    fn query<'py>(
        slf: PyRef<'py, Self>,
        minhash: &MinHash,
        size: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let size = set_size(size)?;
        let base = slf.as_super();
        check_num_perm(base.num_perm, minhash)?;
        let Searcher::Ensemble(ensemble) = &base.searcher else {
            return Err(crate::Error::new_err(
                "a MinHashLSHEnsemble holds an ensemble",
            ));
        };
        let found = ensemble
            .query(&minhash.signature(), size)
            .map_err(core_error)?;
        base.keys_of(slf.py(), found)
    }

    /// The containment threshold.
    #[getter]
    fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The number of hash values of the indexed sketches (datasketch's `h`).
    #[getter]
    fn h(slf: PyRef<'_, Self>) -> usize {
        slf.as_super().num_perm
    }

    /// The longest band (datasketch's memory factor `m`).
    #[getter]
    fn m(&self) -> usize {
        self.m
    }

    /// The number of occupied size partitions (at most `num_part` in datasketch; here
    /// as many as the sizes need, two per doubling).
    #[getter]
    fn partitions(slf: PyRef<'_, Self>) -> usize {
        match &slf.as_super().searcher {
            Searcher::Ensemble(e) => e.partitions(),
            _ => 0,
        }
    }

    fn __repr__(slf: PyRef<'_, Self>) -> String {
        let (threshold, num_part, m, weights) = (slf.threshold, slf.num_part, slf.m, slf.weights);
        let base = slf.as_super();
        let (num_perm, len) = (base.num_perm, base.searcher.len());
        format!(
            "MinHashLSHEnsemble(threshold={threshold}, num_perm={num_perm}, \
             num_part={num_part}, m={m}, weights={weights:?}, len={len})"
        )
    }
}

impl MinHashLsh {
    /// The index a pickle holds: a banding longer than `num_perm` raises
    /// `ValueError`.
    fn from_saved(
        py: Python<'_>,
        data: &[u8],
        settings: (f64, usize, (f64, f64)),
    ) -> PyResult<Saved<Self>> {
        let (threshold, num_perm, weights) = settings;
        let index = py
            .detach(|| LshIndex::<u32, MinHashSignature>::from_bytes(data))
            .map_err(core_error)?;
        let params = index.params();
        params.check_signature_len(num_perm).map_err(core_error)?;
        let lsh = MinHashLsh {
            params,
            threshold,
            weights,
            query_buffer: Vec::new(),
        };
        Ok((Searcher::Bands(index), num_perm, lsh))
    }
}

impl MinHashLshForest {
    /// The forest a pickle holds: a shape other than `l` trees of `num_perm // l`
    /// raises `near_dup.Error`.
    fn from_saved(py: Python<'_>, data: &[u8], (num_perm,): (usize,)) -> PyResult<Saved<Self>> {
        let forest = py
            .detach(|| ndd_lsh::LshForest::<u32>::from_bytes(data))
            .map_err(core_error)?;
        let params = forest.params();
        if params.depth() != num_perm / params.trees() {
            return Err(crate::Error::new_err(format!(
                "MinHashLSHForest: a forest of {} trees of depth {} is not the forest of \
                 num_perm={num_perm}",
                params.trees(),
                params.depth()
            )));
        }
        Ok((Searcher::Forest(forest), num_perm, MinHashLshForest))
    }
}

impl MinHashLshEnsemble {
    /// The ensemble a pickle holds (its bytes carry its parameters but `num_part`).
    fn from_saved(py: Python<'_>, data: &[u8], (num_part,): (usize,)) -> PyResult<Saved<Self>> {
        if num_part == 0 {
            return Err(PyValueError::new_err("num_part must be at least 1"));
        }
        let ensemble = py
            .detach(|| LshEnsemble::<u32>::from_bytes(data))
            .map_err(core_error)?;
        let params = ensemble.params();
        let ens = MinHashLshEnsemble {
            threshold: params.threshold(),
            num_part,
            m: params.max_rows(),
            weights: params.weights(),
        };
        Ok((Searcher::Ensemble(ensemble), params.num_slots(), ens))
    }
}

/// A keyed index read from its pickled bytes: the Rust index, `num_perm` and the
/// subclass's part.
type Saved<T> = (Searcher, usize, T);

/// The Python object of a keyed index read from its pickled bytes, with the keys of
/// the pickled `(id, key)` pairs (which must name exactly the index's ids).
fn restored<T: pyo3::PyClass<BaseType = KeyedIndex> + pyo3::PyTypeInfo>(
    py: Python<'_>,
    (searcher, num_perm, sub): Saved<T>,
    pairs: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let base = KeyedIndex::restore(searcher, num_perm, pairs, T::NAME)?;
    Ok(Py::new(py, PyClassInitializer::from(base).add_subclass(sub))?.into_any())
}

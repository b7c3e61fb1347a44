//! ndd's own entry points, batch first: `sketch`, `dedup` and its `Outcome`,
//! `DedupIndex`, `explain`. Each one builds the pipeline's settings once and runs the
//! crates with the GIL released.

use std::path::PathBuf;

use ndd_core::ParDocSketcher;
use ndd_minhash::MinHasher;
use ndd_pipeline::{
    Dedup, Document, Explanation, Features, GroupMethod, Method, MinHashConfig, NeighbourSearch,
    Representative, Shingles, Verifier,
};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{core_error, pipeline_error};
use crate::input::Texts;

/// The shingles of `k` (word k-grams) or `char_k` (character k-grams): the
/// pipeline's default (word 3-grams) when neither is given.
pub(crate) fn shingles(k: Option<usize>, char_k: Option<usize>) -> PyResult<Shingles> {
    match (k, char_k) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "give k (word k-grams) or char_k (character k-grams), not both",
        )),
        (None, Some(c)) => Ok(Shingles::Chars(c)),
        (Some(w), None) => Ok(Shingles::Words(w)),
        (None, None) => Ok(Shingles::default()),
    }
}

/// The `ndd dedup` options `dedup` and `DedupIndex` share, from their keyword
/// arguments (`None` or absent: ndd's default).
#[derive(Default)]
struct Options {
    threshold: Option<f64>,
    verify: Option<String>,
    group: Option<String>,
    representative: Option<String>,
    k: Option<usize>,
    char_k: Option<usize>,
    num_perm: Option<usize>,
    seed: Option<u64>,
    exact_pass: Option<bool>,
    nfkc: Option<bool>,
}

impl Options {
    fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut o = Options::default();
        for (key, value) in kwargs.into_iter().flat_map(|kw| kw.iter()) {
            let key: String = key.extract()?;
            if value.is_none() {
                continue;
            }
            match key.as_str() {
                "threshold" => o.threshold = Some(value.extract()?),
                "verify" => o.verify = Some(value.extract()?),
                "group" => o.group = Some(value.extract()?),
                "representative" => o.representative = Some(value.extract()?),
                "k" => o.k = Some(value.extract()?),
                "char_k" => o.char_k = Some(value.extract()?),
                "num_perm" => o.num_perm = Some(value.extract()?),
                "seed" => o.seed = Some(value.extract()?),
                "exact_pass" => o.exact_pass = Some(value.extract()?),
                "nfkc" => o.nfkc = Some(value.extract()?),
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected keyword argument {other:?} (the options: threshold, \
                         verify, group, representative, k, char_k, num_perm, seed, \
                         exact_pass, nfkc)"
                    )));
                }
            }
        }
        Ok(o)
    }

    /// The pipeline's settings for `method` (validated): the settings `ndd dedup`
    /// builds from the same options.
    fn dedup(&self, method: &str) -> PyResult<Dedup> {
        let mut method: Method = method.parse().map_err(core_error)?;
        match &mut method {
            Method::MinHash(c) => {
                c.num_perm = self.num_perm.unwrap_or(c.num_perm);
                c.seed = self.seed.unwrap_or(c.seed);
            }
            _ if self.num_perm.is_some() || self.seed.is_some() => {
                return Err(PyValueError::new_err(format!(
                    "num_perm and seed belong to method='minhash', not {:?}",
                    method.name()
                )));
            }
            _ => {}
        }
        let mut dedup = Dedup::new()
            .method(method)
            .shingles(shingles(self.k, self.char_k)?)
            .exact_pass(self.exact_pass.unwrap_or(true))
            .nfkc(self.nfkc.unwrap_or(false));
        if let Some(g) = &self.group {
            dedup = dedup.group(g.parse::<GroupMethod>().map_err(core_error)?);
        }
        if let Some(r) = &self.representative {
            dedup = dedup.representative(r.parse::<Representative>().map_err(core_error)?);
        }
        if let Some(t) = self.threshold {
            dedup = dedup.threshold(t);
        }
        if let Some(v) = &self.verify {
            dedup = dedup.verifier(v.parse::<Verifier>().map_err(core_error)?);
        }
        dedup.validate().map_err(pipeline_error)?;
        Ok(dedup)
    }
}

fn documents(t: &Texts) -> Vec<Document> {
    t.texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let id = t
                .ids
                .as_ref()
                .and_then(|ids| ids.get(i).cloned())
                .unwrap_or_else(|| i.to_string());
            Document::new(id, AsRef::<str>::as_ref(text))
        })
        .collect()
}

/// MinHash signatures of `texts`, one row each: the sketches the pipeline's MinHash
/// method computes with the same settings (one-permutation hashing over word 3-grams
/// by default), on all cores.
#[pyfunction]
#[pyo3(signature = (texts, num_perm=128, seed=0, k=None, char_k=None, nfkc=false))]
pub(crate) fn sketch<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    num_perm: usize,
    seed: u64,
    k: Option<usize>,
    char_k: Option<usize>,
    nfkc: bool,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let features = Features::new(shingles(k, char_k)?).nfkc(nfkc);
    let extractor = features.extractor().map_err(core_error)?;
    if num_perm == 0 || num_perm > ndd_pipeline::MAX_NUM_PERM {
        return Err(PyValueError::new_err(format!(
            "num_perm must lie in 1..={}, got {num_perm}",
            ndd_pipeline::MAX_NUM_PERM
        )));
    }
    let hasher = MinHasher::builder()
        .num_hashes(num_perm)
        .seed(seed)
        .build_with(extractor)
        .map_err(core_error)?;
    let input = crate::input::texts(texts)?;
    let n = input.texts.len();
    let values = py.detach(|| {
        let sigs = hasher.par_sketch_batch(&input.texts);
        let mut values = Vec::with_capacity(n * num_perm);
        for s in &sigs {
            values.extend_from_slice(s.values());
        }
        values
    });
    let array = Array2::from_shape_vec((n, num_perm), values)
        .map_err(|e| crate::Error::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py))
}

/// What a `dedup` run found: the groups, which documents to keep and drop, the
/// verified pairs and the report. Indices refer to the documents as given; the
/// arrays are made once and read-only.
#[pyclass(module = "near_dup", frozen)]
pub(crate) struct Outcome {
    ids: Option<Vec<String>>,
    groups: Vec<Vec<usize>>,
    /// Per group, the index of the document kept.
    #[pyo3(get)]
    representatives: Py<PyArray1<i64>>,
    /// The indices of the documents to keep, increasing.
    #[pyo3(get)]
    kept: Py<PyArray1<i64>>,
    /// The indices of the documents to drop, increasing.
    #[pyo3(get)]
    dropped: Py<PyArray1<i64>>,
    /// Per document, the smallest member of its group (itself when alone).
    #[pyo3(get)]
    labels: Py<PyArray1<i64>>,
    /// The pairs found, an `(m, 2)` array of indices `a < b`, sorted.
    #[pyo3(get)]
    pairs: Py<PyArray2<i64>>,
    /// The score of each pair (higher is more similar; 1 for exact copies).
    #[pyo3(get)]
    scores: Py<PyArray1<f64>>,
    report: ndd_pipeline::Report,
}

impl Outcome {
    fn new(py: Python<'_>, out: ndd_pipeline::Outcome, ids: Option<Vec<String>>) -> PyResult<Self> {
        let indices = |v: Vec<usize>| -> PyResult<Py<PyArray1<i64>>> {
            frozen(
                v.into_iter()
                    .map(to_i64)
                    .collect::<Vec<_>>()
                    .into_pyarray(py),
            )
        };
        let flat: Vec<i64> = out
            .pairs
            .iter()
            .flat_map(|p| [to_i64(p.a), to_i64(p.b)])
            .collect();
        let pairs = Array2::from_shape_vec((out.pairs.len(), 2), flat)
            .map_err(|e| crate::Error::new_err(e.to_string()))?
            .into_pyarray(py);
        let scores: Vec<f64> = out.pairs.iter().map(|p| p.score).collect();
        Ok(Outcome {
            ids,
            representatives: indices(out.groups.iter().map(|g| g.representative).collect())?,
            kept: indices(out.kept())?,
            dropped: indices(out.dropped())?,
            labels: indices(out.labels())?,
            pairs: frozen(pairs)?,
            scores: frozen(scores.into_pyarray(py))?,
            groups: out.groups.into_iter().map(|g| g.members).collect(),
            report: out.report,
        })
    }
}

/// `array`, made read-only (an outcome's arrays are shared by every access).
fn frozen<T: pyo3::PyTypeInfo>(array: Bound<'_, T>) -> PyResult<Py<T>> {
    array
        .as_any()
        .getattr("flags")?
        .setattr("writeable", false)?;
    Ok(array.unbind())
}

pub(crate) fn to_i64(i: usize) -> i64 {
    i64::try_from(i).unwrap_or(i64::MAX)
}

#[pymethods]
impl Outcome {
    /// Groups of two or more documents (each a list of indices, increasing), ordered
    /// by their smallest member.
    #[getter]
    fn groups(&self) -> Vec<Vec<usize>> {
        self.groups.clone()
    }

    /// The groups as ids (the ids given with `(id, text)` items, else positions).
    #[getter]
    fn group_ids(&self) -> Vec<Vec<String>> {
        self.groups
            .iter()
            .map(|g| g.iter().map(|&i| self.id(i)).collect())
            .collect()
    }

    /// The report: counts per stage, timings in seconds, memory.
    #[getter]
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = &self.report;
        let d = PyDict::new(py);
        d.set_item("documents", r.documents)?;
        d.set_item("bytes", r.bytes)?;
        d.set_item("exact_groups", r.exact_groups)?;
        d.set_item("exact_copies", r.exact_copies)?;
        d.set_item("method", &r.method)?;
        d.set_item("candidates", r.candidates)?;
        d.set_item("verified", r.verify.checked)?;
        d.set_item("accepted", r.verify.accepted)?;
        d.set_item("pairs", r.pairs)?;
        d.set_item("groups", r.groups)?;
        d.set_item("grouped_documents", r.grouped_documents)?;
        d.set_item("dropped", r.dropped)?;
        let timings = PyDict::new(py);
        for (stage, time) in &r.timings {
            timings.set_item(stage.name(), time.as_secs_f64())?;
        }
        d.set_item("timings", timings)?;
        d.set_item("index_bytes_per_document", r.index_bytes_per_document)?;
        d.set_item(
            "signature_bytes_per_document",
            r.signature_bytes_per_document,
        )?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Outcome(documents={}, groups={}, kept={}, dropped={}, pairs={})",
            self.report.documents,
            self.groups.len(),
            self.report.documents - self.report.dropped,
            self.report.dropped,
            self.report.pairs
        )
    }
}

impl Outcome {
    fn id(&self, i: usize) -> String {
        self.ids
            .as_ref()
            .and_then(|ids| ids.get(i).cloned())
            .unwrap_or_else(|| i.to_string())
    }
}

/// Deduplicates `texts` with ndd's pipeline (`ndd_pipeline::Dedup`): exact pass,
/// candidates of `method`, verification, grouping, representatives.
#[pyfunction]
#[pyo3(signature = (texts, *, method="minhash", **settings))]
pub(crate) fn dedup(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    method: &str,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Outcome> {
    let dedup = Options::from_kwargs(settings)?.dedup(method)?;
    let input = crate::input::texts(texts)?;
    let out = py
        .detach(|| dedup.run(&documents(&input)))
        .map_err(pipeline_error)?;
    Outcome::new(py, out, input.ids)
}

/// The MinHash banding of a threshold, in numbers: bands, rows, the S-curve at the
/// threshold and the estimate's standard error there.
#[pyfunction]
#[pyo3(signature = (threshold=0.8, num_perm=128, k=None, char_k=None))]
pub(crate) fn explain<'py>(
    py: Python<'py>,
    threshold: f64,
    num_perm: usize,
    k: Option<usize>,
    char_k: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let config = MinHashConfig {
        num_perm,
        ..MinHashConfig::default()
    };
    let e = Explanation::new(threshold, config, shingles(k, char_k)?).map_err(pipeline_error)?;
    let d = PyDict::new(py);
    d.set_item("threshold", threshold)?;
    d.set_item("num_perm", num_perm)?;
    d.set_item("bands", e.params().bands())?;
    d.set_item("rows", e.params().rows())?;
    d.set_item("probability_at_threshold", e.probability(threshold))?;
    d.set_item("standard_error", e.standard_error())?;
    Ok(d)
}

/// The pipeline's saved index (`ndd_pipeline::DedupIndex`): batches added one after
/// another are deduplicated against everything indexed before.
#[pyclass(module = "near_dup")]
pub(crate) struct DedupIndex {
    inner: ndd_pipeline::DedupIndex,
}

#[pymethods]
impl DedupIndex {
    #[new]
    #[pyo3(signature = (**settings))]
    fn new(settings: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let dedup = Options::from_kwargs(settings)?.dedup("minhash")?;
        let inner = ndd_pipeline::DedupIndex::new(&dedup).map_err(pipeline_error)?;
        Ok(DedupIndex { inner })
    }

    /// Adds a batch; the outcome's indices cover every document indexed so far (the
    /// new ones at and above the earlier `len(index)`).
    fn add(&mut self, py: Python<'_>, texts: &Bound<'_, PyAny>) -> PyResult<Outcome> {
        let input = crate::input::texts(texts)?;
        let before = self.inner.len();
        let docs = documents(&input);
        let docs: Vec<Document> = if input.ids.is_some() {
            docs
        } else {
            docs.into_iter()
                .enumerate()
                .map(|(i, d)| Document::new((before + i).to_string(), d.text))
                .collect()
        };
        let inner = &mut self.inner;
        let out = py.detach(|| inner.add(&docs)).map_err(pipeline_error)?;
        Outcome::new(py, out, Some(self.inner.ids().to_vec()))
    }

    /// The `k` indexed documents most similar to `text`: `(id, score)` pairs, best
    /// first (an LSH Forest over the index's signatures, built for the call).
    #[pyo3(signature = (text, k=10))]
    fn query(&self, py: Python<'_>, text: &str, k: usize) -> PyResult<Vec<(String, f64)>> {
        let inner = &self.inner;
        let found = py
            .detach(|| NeighbourSearch::new(inner)?.top_k(text, k))
            .map_err(pipeline_error)?;
        Ok(found
            .into_iter()
            .filter_map(|n| Some((inner.ids().get(n.doc)?.clone(), n.score)))
            .collect())
    }

    /// The ids of the indexed documents, in the order they were added.
    fn ids(&self) -> Vec<String> {
        self.inner.ids().to_vec()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Writes the index to `path` (atomically).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let inner = &self.inner;
        py.detach(|| inner.save(&path)).map_err(pipeline_error)
    }

    /// Reads an index written by `save` (or by `ndd dedup --index-out`).
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py
            .detach(|| ndd_pipeline::DedupIndex::load(&path))
            .map_err(pipeline_error)?;
        Ok(DedupIndex { inner })
    }

    /// The index's versioned byte form.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    /// An index from its byte form.
    #[staticmethod]
    fn from_bytes(bytes: &[u8]) -> PyResult<Self> {
        let inner = ndd_pipeline::DedupIndex::from_bytes(bytes).map_err(pipeline_error)?;
        Ok(DedupIndex { inner })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<crate::classes::Reduce<'py, (Bound<'py, PyBytes>,)>> {
        let py = slf.py();
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        Ok((from_bytes, (slf.borrow().to_bytes(py),)))
    }

    fn __repr__(&self) -> String {
        format!("DedupIndex(len={})", self.inner.len())
    }
}

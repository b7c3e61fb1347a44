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
use pyo3::exceptions::PyValueError;
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

/// The keyword arguments `dedup` and `DedupIndex` share, as the pipeline's settings
/// (validated): the same settings `ndd dedup` builds from its options.
#[allow(clippy::too_many_arguments)]
fn settings(
    threshold: Option<f64>,
    method: &str,
    verify: Option<&str>,
    group: &str,
    representative: &str,
    k: Option<usize>,
    char_k: Option<usize>,
    num_perm: Option<usize>,
    seed: Option<u64>,
    exact_pass: bool,
    nfkc: bool,
) -> PyResult<Dedup> {
    let mut method: Method = method.parse().map_err(core_error)?;
    match &mut method {
        Method::MinHash(c) => {
            c.num_perm = num_perm.unwrap_or(c.num_perm);
            c.seed = seed.unwrap_or(c.seed);
        }
        _ if num_perm.is_some() || seed.is_some() => {
            return Err(PyValueError::new_err(format!(
                "num_perm and seed belong to method='minhash', not {:?}",
                method.name()
            )));
        }
        _ => {}
    }
    let mut dedup = Dedup::new()
        .method(method)
        .shingles(shingles(k, char_k)?)
        .exact_pass(exact_pass)
        .nfkc(nfkc)
        .group(group.parse::<GroupMethod>().map_err(core_error)?)
        .representative(
            representative
                .parse::<Representative>()
                .map_err(core_error)?,
        );
    if let Some(t) = threshold {
        dedup = dedup.threshold(t);
    }
    if let Some(v) = verify {
        dedup = dedup.verifier(v.parse::<Verifier>().map_err(core_error)?);
    }
    dedup.validate().map_err(pipeline_error)?;
    Ok(dedup)
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
/// verified pairs and the report. Indices refer to the documents as given.
#[pyclass(module = "near_dup", frozen)]
pub(crate) struct Outcome {
    ids: Option<Vec<String>>,
    pairs: Vec<(usize, usize, f64)>,
    groups: Vec<Vec<usize>>,
    representatives: Vec<usize>,
    kept: Vec<usize>,
    dropped: Vec<usize>,
    labels: Vec<usize>,
    report: ndd_pipeline::Report,
}

impl Outcome {
    fn new(out: ndd_pipeline::Outcome, ids: Option<Vec<String>>) -> Self {
        Outcome {
            ids,
            pairs: out.pairs.iter().map(|p| (p.a, p.b, p.score)).collect(),
            representatives: out.groups.iter().map(|g| g.representative).collect(),
            kept: out.kept(),
            dropped: out.dropped(),
            labels: out.labels(),
            groups: out.groups.into_iter().map(|g| g.members).collect(),
            report: out.report,
        }
    }
}

pub(crate) fn to_i64(i: usize) -> i64 {
    i64::try_from(i).unwrap_or(i64::MAX)
}

fn index_array<'py>(py: Python<'py>, v: &[usize]) -> Bound<'py, PyArray1<i64>> {
    v.iter()
        .map(|&i| to_i64(i))
        .collect::<Vec<_>>()
        .into_pyarray(py)
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

    /// Per group, the index of the document kept.
    #[getter]
    fn representatives<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        index_array(py, &self.representatives)
    }

    /// The indices of the documents to keep, increasing.
    #[getter]
    fn kept<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        index_array(py, &self.kept)
    }

    /// The indices of the documents to drop, increasing.
    #[getter]
    fn dropped<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        index_array(py, &self.dropped)
    }

    /// Per document, the smallest member of its group (itself when alone).
    #[getter]
    fn labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        index_array(py, &self.labels)
    }

    /// The pairs found, an `(m, 2)` array of indices `a < b`, sorted.
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let flat: Vec<i64> = self
            .pairs
            .iter()
            .flat_map(|&(a, b, _)| [to_i64(a), to_i64(b)])
            .collect();
        let array = Array2::from_shape_vec((self.pairs.len(), 2), flat)
            .map_err(|e| crate::Error::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// The score of each pair (higher is more similar; 1 for exact copies).
    #[getter]
    fn scores<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.pairs
            .iter()
            .map(|p| p.2)
            .collect::<Vec<_>>()
            .into_pyarray(py)
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
            self.kept.len(),
            self.dropped.len(),
            self.pairs.len()
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
#[pyo3(signature = (
    texts, threshold=None, method="minhash", verify=None, group="components",
    representative="first", k=None, char_k=None, num_perm=None, seed=None,
    exact_pass=true, nfkc=false
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    threshold: Option<f64>,
    method: &str,
    verify: Option<&str>,
    group: &str,
    representative: &str,
    k: Option<usize>,
    char_k: Option<usize>,
    num_perm: Option<usize>,
    seed: Option<u64>,
    exact_pass: bool,
    nfkc: bool,
) -> PyResult<Outcome> {
    let dedup = settings(
        threshold,
        method,
        verify,
        group,
        representative,
        k,
        char_k,
        num_perm,
        seed,
        exact_pass,
        nfkc,
    )?;
    let input = crate::input::texts(texts)?;
    let out = py
        .detach(|| dedup.run(&documents(&input)))
        .map_err(pipeline_error)?;
    Ok(Outcome::new(out, input.ids))
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
    #[pyo3(signature = (
        threshold=None, verify=None, group="components", representative="first",
        k=None, char_k=None, num_perm=None, seed=None, exact_pass=true, nfkc=false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        threshold: Option<f64>,
        verify: Option<&str>,
        group: &str,
        representative: &str,
        k: Option<usize>,
        char_k: Option<usize>,
        num_perm: Option<usize>,
        seed: Option<u64>,
        exact_pass: bool,
        nfkc: bool,
    ) -> PyResult<Self> {
        let dedup = settings(
            threshold,
            "minhash",
            verify,
            group,
            representative,
            k,
            char_k,
            num_perm,
            seed,
            exact_pass,
            nfkc,
        )?;
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
        Ok(Outcome::new(out, Some(self.inner.ids().to_vec())))
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

//! The pipeline's stages as plain values, for a distributed job (the Spark example):
//! exact-pass digests, band keys of signatures and the verification of candidate
//! pairs. Each is the crate's own stage, run with the GIL released.

use ndd_core::ScoredPair;
use ndd_pipeline::{ExactPass, Features, MinHashConfig, Verification, Verifier};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::batch::shingles;

/// Pairs of indices, `(m, 2)`, and their scores.
type ScoredPairs<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<f64>>);
use crate::errors::{core_error, pipeline_error};

/// The exact pass's digest of each text (SHA-1 of the normalized word string, 20
/// bytes): texts with equal digests are the exact copies `dedup` pairs first.
#[pyfunction]
#[pyo3(signature = (texts, nfkc=false))]
pub(crate) fn exact_digests<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    nfkc: bool,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let input = crate::input::texts(texts)?;
    let pass = ExactPass::new().nfkc(nfkc);
    let digests = py.detach(|| pass.digests(&input.texts));
    Ok(digests.iter().map(|d| PyBytes::new(py, d)).collect())
}

/// The LSH band keys of MinHash signatures (rows of `sketch`), with the banding
/// `dedup` uses at `threshold` for their `num_perm`: an `(n, bands)` uint64 array.
/// Two documents are candidates when they share a key in the same column.
#[pyfunction]
#[pyo3(signature = (signatures, threshold=0.8))]
pub(crate) fn band_keys<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u64>,
    threshold: f64,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let view = signatures.as_array();
    let (n, num_perm) = view.dim();
    let config = MinHashConfig {
        num_perm,
        ..MinHashConfig::default()
    };
    let params = config.lsh_params(threshold).map_err(core_error)?;
    let bands = params.bands();
    let rows: Vec<Vec<u64>> = view.rows().into_iter().map(|r| r.to_vec()).collect();
    let keys = py.detach(|| -> Result<Vec<u64>, ndd_core::Error> {
        // `band_keys_into` appends each row's keys.
        let mut keys = Vec::with_capacity(n * bands);
        for row in &rows {
            params.band_keys_into(row, &mut keys)?;
        }
        Ok(keys)
    });
    let keys = keys.map_err(core_error)?;
    let array = Array2::from_shape_vec((n, bands), keys)
        .map_err(|e| crate::Error::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py))
}

/// Verifies candidate pairs of `texts` (an `(m, 2)` array or list of index pairs) as
/// `dedup` does: the pairs whose score reaches `threshold`, with their scores.
#[pyfunction]
#[pyo3(signature = (texts, pairs, threshold=0.8, verify="jaccard", k=None, char_k=None, nfkc=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn verify<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    pairs: Vec<(usize, usize)>,
    threshold: f64,
    verify: &str,
    k: Option<usize>,
    char_k: Option<usize>,
    nfkc: bool,
) -> PyResult<ScoredPairs<'py>> {
    let verifier: Verifier = verify.parse().map_err(core_error)?;
    if matches!(verifier, Verifier::MethodScore) {
        return Err(PyValueError::new_err(
            "verify='method' keeps the method's own score: there is none to compute here",
        ));
    }
    let features = Features::new(shingles(k, char_k)?).nfkc(nfkc);
    features.validate().map_err(core_error)?;
    let input = crate::input::texts(texts)?;
    let candidates: Vec<ScoredPair> = pairs
        .into_iter()
        .map(|(a, b)| ScoredPair::new(a.min(b), a.max(b), 0.0))
        .collect();
    let verification = Verification::new(verifier, threshold).features(features);
    let (kept, _) = py
        .detach(|| verification.run(&input.texts, candidates))
        .map_err(pipeline_error)?;
    let flat: Vec<i64> = kept
        .iter()
        .flat_map(|p| [crate::batch::to_i64(p.a), crate::batch::to_i64(p.b)])
        .collect();
    let scores: Vec<f64> = kept.iter().map(|p| p.score).collect();
    let array = Array2::from_shape_vec((kept.len(), 2), flat)
        .map_err(|e| crate::Error::new_err(e.to_string()))?;
    Ok((array.into_pyarray(py), scores.into_pyarray(py)))
}

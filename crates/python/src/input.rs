//! Python inputs as texts: a list of str, an iterable of `(id, text)`, a pandas
//! Series or a pyarrow array.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyString, PyTuple};

/// Texts borrowed from Python strings (no copy), with their ids when given.
pub(crate) struct Texts {
    /// The ids of `(id, text)` items (`str(id)`); `None` when only texts were given.
    pub(crate) ids: Option<Vec<String>>,
    pub(crate) texts: Vec<PyBackedStr>,
}

/// Reads `obj`: a pandas Series or a pyarrow array (through `tolist` /
/// `to_pylist`), or any iterable whose items are all `str` or all `(id, text)` pairs.
pub(crate) fn texts(obj: &Bound<'_, PyAny>) -> PyResult<Texts> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyValueError::new_err(
            "texts must be a list or iterable of str (or of (id, text) pairs), not one str",
        ));
    }
    let list = if obj.hasattr("to_pylist")? {
        obj.call_method0("to_pylist")?
    } else if obj.hasattr("tolist")? && obj.hasattr("dtype")? {
        obj.call_method0("tolist")?
    } else {
        obj.clone()
    };
    let mut ids: Option<Vec<String>> = None;
    let mut texts = Vec::new();
    for (i, item) in list.try_iter()?.enumerate() {
        let item = item?;
        if let Ok(tuple) = item.cast::<PyTuple>() {
            if tuple.len() != 2 {
                return Err(PyValueError::new_err(format!(
                    "item {i}: an (id, text) pair has 2 elements, this one has {}",
                    tuple.len()
                )));
            }
            if i > 0 && ids.is_none() {
                return Err(mixed(i));
            }
            let id = tuple.get_item(0)?.str()?.to_string();
            ids.get_or_insert_with(Vec::new).push(id);
            texts.push(text_of(&tuple.get_item(1)?, i)?);
        } else {
            if ids.is_some() {
                return Err(mixed(i));
            }
            texts.push(text_of(&item, i)?);
        }
    }
    Ok(Texts { ids, texts })
}

fn mixed(i: usize) -> PyErr {
    PyValueError::new_err(format!(
        "item {i}: items must all be str or all be (id, text) pairs, not a mix"
    ))
}

fn text_of(item: &Bound<'_, PyAny>, i: usize) -> PyResult<PyBackedStr> {
    item.extract::<PyBackedStr>().map_err(|_| {
        let type_name = item
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyValueError::new_err(format!("item {i}: a text must be str, got {type_name}"))
    })
}

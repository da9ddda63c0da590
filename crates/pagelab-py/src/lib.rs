//! Thin PyO3 adapter: converts arguments, calls the Rust crates, converts results. No model
//! logic lives here. Errors of the model become `ValueError` with the model's one-line message;
//! the Python front end turns them into `PagelabError`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod lab;
mod programs;
mod sys;
mod trace;

/// A model error as a Python `ValueError` carrying its one-line message.
pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A serde value as a Python object (dicts, lists, numbers, strings).
pub(crate) fn to_py<T: serde::Serialize>(py: Python<'_>, value: &T) -> PyResult<PyObject> {
    Ok(pythonize::pythonize(py, value).map_err(err)?.unbind())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    lab::register(m)?;
    programs::register(m)?;
    trace::register(m)?;
    sys::register(m)?;
    Ok(())
}

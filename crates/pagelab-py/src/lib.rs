//! Thin PyO3 adapter: converts arguments, calls the Rust crates, converts results. No model
//! logic lives here. Errors of the model become `ValueError` with the model's one-line message;
//! the Python front end turns them into `PagelabError`. A run stopped by a signal
//! (`pagelab_core::interrupt`) becomes whatever the Python handler of that signal raises
//! (`KeyboardInterrupt` by default), run at once so that it is not raised again later.

use pagelab_core::interrupt;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

mod lab;
mod linux;
mod model;
mod programs;
mod sys;
mod trace;

/// A model error as a Python `ValueError` carrying its one-line message; an interrupted run as
/// the exception its signal's Python handler raises.
pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    if let Some(signal) = interrupt::pending() {
        interrupt::clear();
        return Python::with_gil(|py| match py.check_signals() {
            Err(raised) => raised,
            // The handler already ran (inside a progress callback, whose errors are dropped):
            // raise what it raises.
            Ok(()) => py
                .import("pagelab.interrupt")
                .and_then(|m| m.getattr("Interrupted"))
                .and_then(|c| c.call1((signal,)))
                .map_or_else(|_| PyKeyboardInterrupt::new_err(signal), PyErr::from_value),
        });
    }
    PyValueError::new_err(e.to_string())
}

/// Makes SIGINT and SIGTERM stop long Rust work (the loops call `interrupt::check`). Call it
/// after installing the Python handlers: the Rust handler runs first, then chains to them.
#[pyfunction]
fn install_signal_handlers() -> PyResult<()> {
    let flag = interrupt::shared_flag();
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_usize(signal, flag.clone(), signal as usize)
            .map_err(|e| PyValueError::new_err(format!("signal {signal}: {e}")))?;
    }
    Ok(())
}

/// A serde value as a Python object (dicts, lists, numbers, strings).
pub(crate) fn to_py<T: serde::Serialize>(py: Python<'_>, value: &T) -> PyResult<PyObject> {
    Ok(pythonize::pythonize(py, value).map_err(err)?.unbind())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(install_signal_handlers, m)?)?;
    lab::register(m)?;
    linux::register(m)?;
    programs::register(m)?;
    trace::register(m)?;
    sys::register(m)?;
    model::register(m)?;
    Ok(())
}

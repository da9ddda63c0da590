//! The system simulator: a spec in, a report out (as JSON text, parsed by the front end).

use std::path::Path;

use pagelab_trace::format::TraceReader;
use pagelab_trace::{ReferenceSource, TraceError};
use pyo3::prelude::*;

use crate::err;

/// Opens trace programs of a spec with pagelab's own trace reader.
pub(crate) fn open_trace(path: &Path) -> Result<Box<dyn ReferenceSource>, TraceError> {
    Ok(Box::new(TraceReader::open(path)?))
}

/// Loads `toml` (with `key.path=value` overrides), simulates it with `seed`, and returns the
/// report as JSON.
#[pyfunction]
#[pyo3(signature = (toml, origin, overrides, seed, progress=None))]
fn run_system(
    py: Python<'_>,
    toml: &str,
    origin: &str,
    overrides: Vec<(String, String)>,
    seed: u64,
    progress: Option<PyObject>,
) -> PyResult<String> {
    let mut last = -1.0f64;
    let mut cb = |fraction: f64| {
        if let Some(cb) = &progress {
            if fraction - last >= 0.01 || fraction >= 1.0 {
                last = fraction;
                Python::with_gil(|py| {
                    let _ = cb.call1(py, (fraction, 1.0));
                });
            }
        }
    };
    let report = py
        .allow_threads(|| {
            // The engine (demand paging or whole-process swapping) is chosen by the spec's
            // `memory.residency`.
            pagelab_sys::run_toml(toml, origin, &overrides, seed, Some(&open_trace), &mut cb)
        })
        .map_err(err)?;
    serde_json::to_string(&report).map_err(err)
}

/// Loads `toml` (with overrides) and makes every check a run makes before it starts; returns
/// the system's kind (`vm`, `unix` or `m44`).
#[pyfunction]
fn check_system(toml: &str, origin: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    let kind = pagelab_sys::check_toml(toml, origin, &overrides).map_err(err)?;
    Ok(kind.name().to_string())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_system, m)?)?;
    m.add_function(wrap_pyfunction!(check_system, m)?)?;
    Ok(())
}

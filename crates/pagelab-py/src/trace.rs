//! Reference traces: info, convert, capture, export; one-pass curves over a trace file.

use std::path::Path;

use pagelab_trace::capture;
use pagelab_trace::curve::{self, Curve};
use pagelab_trace::format::{PrefetchReader, TraceReader};
use pagelab_trace::grid;
use pagelab_trace::policy::PolicySpec;
use pagelab_trace::read::{self, AddressRange, ConvertOptions, InputFormat, KindFilter, Units};
use pagelab_trace::touch;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::lab::{parse_spec, rows};
use crate::{err, to_py};

/// Calls a Python progress callback, ignoring its errors (a broken bar must not stop a run).
fn progress_fn(py_cb: Option<PyObject>) -> impl FnMut(u64, Option<u64>) {
    move |done, total| {
        if let Some(cb) = &py_cb {
            Python::with_gil(|py| {
                let _ = cb.call1(py, (done, total));
            });
        }
    }
}

/// Describes a pagelab trace.
#[pyfunction]
fn trace_info(py: Python<'_>, path: &str) -> PyResult<PyObject> {
    let r = TraceReader::open(Path::new(path)).map_err(err)?;
    to_py(py, &r.info())
}

/// Checks every chunk's checksum and the page map of a pagelab trace.
#[pyfunction]
fn trace_verify(py: Python<'_>, path: &str) -> PyResult<PyObject> {
    let report = py
        .allow_threads(|| pagelab_trace::format::verify(Path::new(path), &mut |_, _| Ok(())))
        .map_err(err)?;
    to_py(py, &report)
}

fn input_format(name: Option<&str>) -> PyResult<Option<InputFormat>> {
    let Some(name) = name else { return Ok(None) };
    InputFormat::ALL
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .map(Some)
        .ok_or_else(|| {
            let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.name()).collect();
            err(format!(
                "--from {name}: expected one of {}",
                names.join(", ")
            ))
        })
}

/// Converts any known trace format into a pagelab trace.
#[pyfunction]
#[pyo3(signature = (source, output, from_, units, page_size, only, ranges, progress=None,
    max_access_pages=read::MAX_ACCESS_PAGES, lenient=false))]
#[allow(clippy::too_many_arguments)]
fn trace_convert(
    py: Python<'_>,
    source: &str,
    output: &str,
    from_: Option<&str>,
    units: Option<&str>,
    page_size: u64,
    only: Option<&str>,
    ranges: Vec<(u64, u64)>,
    progress: Option<PyObject>,
    max_access_pages: u64,
    lenient: bool,
) -> PyResult<PyObject> {
    let from = input_format(from_)?;
    let units = match units {
        None => None,
        Some("pages") => Some(Units::Pages),
        Some("addresses") => Some(Units::Addresses),
        Some(u) => return Err(err(format!("--units {u}: expected pages or addresses"))),
    };
    let kinds = match only {
        None => KindFilter::All,
        Some("instructions") => KindFilter::Instructions,
        Some("data") => KindFilter::Data,
        Some(o) => return Err(err(format!("--only {o}: expected instructions or data"))),
    };
    let opts = ConvertOptions {
        page_size,
        kinds,
        ranges: ranges
            .into_iter()
            .map(|(start, end)| AddressRange { start, end })
            .collect(),
        max_access_pages,
        lenient,
        ..ConvertOptions::default()
    };
    let mut cb = progress_fn(progress);
    let info = py
        .allow_threads(|| {
            read::convert(
                Path::new(source),
                from,
                units,
                &opts,
                Path::new(output),
                &mut cb,
            )
        })
        .map_err(err)?;
    to_py(py, &info)
}

/// Runs a program under valgrind's lackey and records its references.
#[pyfunction]
#[pyo3(signature = (program, args, page_size, output, progress=None))]
fn trace_capture(
    py: Python<'_>,
    program: &str,
    args: Vec<String>,
    page_size: u64,
    output: &str,
    progress: Option<PyObject>,
) -> PyResult<PyObject> {
    let mut cb = progress_fn(progress);
    let info = py
        .allow_threads(|| {
            capture::capture(
                Path::new(program),
                &args,
                page_size,
                Path::new(output),
                &mut cb,
            )
        })
        .map_err(err)?;
    to_py(py, &info)
}

/// Writes a pagelab trace as libCacheSim's oracleGeneral binary.
#[pyfunction]
fn trace_export_oracle(py: Python<'_>, source: &str, output: &str) -> PyResult<u64> {
    py.allow_threads(|| {
        read::write_oracle_general(Path::new(source), Path::new(output), &mut |_, _| {})
    })
    .map_err(err)
}

/// Rows of a one-pass curve, in the same shape as per-size runs.
fn curve_rows<'py>(py: Python<'py>, c: &Curve) -> PyResult<Vec<Bound<'py, PyDict>>> {
    c.points
        .iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("policy", &c.policy)?;
            d.set_item("frames", p.frames)?;
            d.set_item("references", p.references)?;
            d.set_item("faults", p.faults)?;
            d.set_item("pushes", p.pushes)?;
            d.set_item("fault_rate", p.fault_rate)?;
            d.set_item("warmup_references", c.warmup)?;
            Ok(d)
        })
        .collect()
}

/// Runs each policy over a trace file at each size, end to end from the file: the file is
/// decoded once and every (policy, size) reads the same blocks. Returns the rows (policy-major)
/// and what the shared decode held in memory.
#[pyfunction]
fn simulate_trace<'py>(
    py: Python<'py>,
    specs: Vec<String>,
    path: &str,
    sizes: Vec<u32>,
    warmup: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let specs = specs
        .iter()
        .map(|s| parse_spec(s))
        .collect::<PyResult<Vec<PolicySpec>>>()?;
    let grid = py
        .allow_threads(|| grid::simulate_trace_grid(&specs, Path::new(path), &sizes, warmup))
        .map_err(err)?;
    let d = PyDict::new(py);
    d.set_item("rows", rows(py, &grid.outcomes)?)?;
    d.set_item("memory", to_py(py, &grid.memory)?)?;
    Ok(d)
}

/// LRU at every size in one pass (Mattson stack distances).
#[pyfunction]
fn lru_curve(py: Python<'_>, path: &str, warmup: u64) -> PyResult<PyObject> {
    let reader = TraceReader::open(Path::new(path)).map_err(err)?;
    let c = py
        .allow_threads(|| {
            let mut st = curve::LruStack::new(
                pagelab_trace::ReferenceSource::page_bound(&reader).unwrap_or(0),
                warmup,
            );
            // Chunks decode on a second thread while the stack runs on this one.
            let mut source = PrefetchReader::new(reader);
            st.push_source(&mut source).map(|_| st.into_curve())
        })
        .map_err(err)?;
    curve_result(py, &c)
}

/// MIN at every size (up to `max_frames`) in one pass (the OPT stack).
#[pyfunction]
#[pyo3(signature = (path, warmup, max_frames=None))]
fn opt_curve(
    py: Python<'_>,
    path: &str,
    warmup: u64,
    max_frames: Option<u32>,
) -> PyResult<PyObject> {
    let c = py
        .allow_threads(|| {
            curve::opt_curve_trace(Path::new(path), warmup, max_frames.unwrap_or(u32::MAX))
        })
        .map_err(err)?;
    curve_result(py, &c)
}

fn curve_result(py: Python<'_>, c: &Curve) -> PyResult<PyObject> {
    let d = PyDict::new(py);
    d.set_item("policy", &c.policy)?;
    d.set_item("warmup", c.warmup)?;
    d.set_item("rows", curve_rows(py, c)?)?;
    Ok(d.into_any().unbind())
}

/// The working-set curve: mean size and fault rate against τ.
#[pyfunction]
fn ws_curve(py: Python<'_>, path: &str, taus: Vec<u64>) -> PyResult<PyObject> {
    let mut reader = TraceReader::open(Path::new(path)).map_err(err)?;
    let runs = py.allow_threads(|| reader.read_all()).map_err(err)?;
    let c = py
        .allow_threads(|| curve::ws_curve(&runs, &taus))
        .map_err(err)?;
    let d = PyDict::new(py);
    d.set_item("pages", c.pages)?;
    d.set_item("rows", to_py(py, &c.points)?)?;
    Ok(d.into_any().unbind())
}

/// Bard's Ψ-realization of a trace for each Ψ: A, R, t, f, and the break Ψ_c, β.
#[pyfunction]
fn psi_curve(
    py: Python<'_>,
    path: &str,
    psis: Vec<u32>,
    reference_time: f64,
    refs_per_io: u64,
) -> PyResult<PyObject> {
    let model = curve::PsiModel {
        reference_time,
        refs_per_io,
    };
    let mut reader = TraceReader::open(Path::new(path)).map_err(err)?;
    let c = py
        .allow_threads(|| {
            let mut r = curve::psi::PsiRealizer::new(&psis, model)?;
            r.push_source(&mut reader)?;
            r.finish()
        })
        .map_err(err)?;
    to_py(py, &c)
}

/// Predicts Ψ* and the system paging rate of programs run together on `frames` (Bard eq. 1-3)
/// from their characteristics (as returned by `psi_curve`).
#[pyfunction]
fn psi_predict(py: Python<'_>, characteristics: &str, frames: u32) -> PyResult<PyObject> {
    let curves: Vec<curve::PsiCurve> = serde_json::from_str(characteristics).map_err(err)?;
    let p = curve::predict(&curves, frames).map_err(err)?;
    to_py(py, &p)
}

/// Writes the touch list the kernel replayer reads (`pagelab_trace::touch`) from a pagelab trace:
/// every touch writes when `all_writes`; instruction fetches count when `instructions`; at most
/// `limit` touches.
#[pyfunction]
#[pyo3(signature = (path, output, all_writes, instructions=false, limit=u64::MAX))]
fn trace_touches(
    py: Python<'_>,
    path: &str,
    output: &str,
    all_writes: bool,
    instructions: bool,
    limit: u64,
) -> PyResult<PyObject> {
    let mut reader = TraceReader::open(Path::new(path)).map_err(err)?;
    let opts = touch::TouchOptions {
        all_writes,
        instructions,
        limit,
    };
    let info = py
        .allow_threads(|| touch::write_touches(&mut reader, Path::new(output), opts))
        .map_err(err)?;
    to_py(py, &info)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(trace_touches, m)?)?;
    m.add_function(wrap_pyfunction!(psi_curve, m)?)?;
    m.add_function(wrap_pyfunction!(psi_predict, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(trace_verify, m)?)?;
    m.add_function(wrap_pyfunction!(trace_convert, m)?)?;
    m.add_function(wrap_pyfunction!(trace_capture, m)?)?;
    m.add_function(wrap_pyfunction!(trace_export_oracle, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_trace, m)?)?;
    m.add_function(wrap_pyfunction!(lru_curve, m)?)?;
    m.add_function(wrap_pyfunction!(opt_curve, m)?)?;
    m.add_function(wrap_pyfunction!(ws_curve, m)?)?;
    Ok(())
}

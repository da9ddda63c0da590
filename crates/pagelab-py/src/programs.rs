//! The M44/44X study's programs: run a kernel, write its reference string as a pagelab trace.

use std::path::Path;

use pagelab_trace::format::TraceWriter;
use pagelab_trace::gen::{self, M44Params, M44Program};
use pyo3::prelude::*;

use crate::{err, to_py};

/// Every program: name, the paper's label, what it computes.
#[pyfunction]
fn m44_programs(py: Python<'_>) -> PyResult<PyObject> {
    let list: Vec<serde_json::Value> = gen::INFO
        .iter()
        .map(
            |i| serde_json::json!({"name": i.name, "label": i.label, "description": i.description}),
        )
        .collect();
    to_py(py, &list)
}

/// Runs `program` with `params` (JSON, the kernel's parameter tree) and writes its reference
/// string to `output`. The trace's page size is the page in 44X words (the 44X is word
/// addressed: one "byte" of the trace is one 36-bit word).
#[pyfunction]
fn m44_generate(
    py: Python<'_>,
    program: &str,
    params: &str,
    seed: u64,
    output: &str,
) -> PyResult<PyObject> {
    let program = M44Program::from_name(program).map_err(err)?;
    let params: M44Params =
        serde_json::from_str(params).map_err(|e| err(format!("program parameters: {e}")))?;
    let (info, check, extent, os_job_pages) = py
        .allow_threads(|| -> Result<_, pagelab_trace::TraceError> {
            let g = gen::generate(program, &params, seed)?;
            let description = serde_json::json!({
                "tool": "pagelab instrumented kernel",
                "program": program.name(),
                "label": program.label(),
                "seed": seed,
                "params": params,
                "address_unit": "36-bit word",
            });
            let mut w =
                TraceWriter::create(Path::new(output), u64::from(g.page_words), description)?;
            for r in &g.runs {
                w.push_run(g.page_map[r.page as usize], r.count, r.kind)?;
            }
            let os_job_pages = g.pages_in("44X OS job pages");
            Ok((w.finish()?, g.check, g.extent_words, os_job_pages))
        })
        .map_err(err)?;
    let value = serde_json::json!({
        "references": info.references,
        "runs": info.runs,
        "distinct_pages": info.distinct_pages,
        "page_words": info.page_size,
        "extent_words": extent,
        "os_job_pages": os_job_pages,
        "check": check,
        "trace": info,
    });
    to_py(py, &value)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(m44_programs, m)?)?;
    m.add_function(wrap_pyfunction!(m44_generate, m)?)?;
    Ok(())
}

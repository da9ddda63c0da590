//! The replacement lab: policies at many sizes, step mode.

use pagelab_trace::policy::{self, Outcome, PolicySpec, Step, Stepper as RustStepper};
use pagelab_trace::reference::dense_pages;
use pagelab_trace::{AccessKind, Run};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{err, to_py};

/// Parses a policy spec given as JSON (`{"kind": "ws", "tau": 5000}`).
pub(crate) fn parse_spec(json: &str) -> PyResult<PolicySpec> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(err)?;
    let kind = value
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or("?")
        .to_string();
    // Resolve the name first, for the registry's own "expected one of" message.
    policy::PolicySpec::by_name(&kind).map_err(err)?;
    serde_json::from_value(value).map_err(|e| err(format!("policy `{kind}`: {e}")))
}

/// The runs of a page list, with optional write flags.
pub(crate) fn runs_of(pages: &[u32], writes: Option<&[bool]>) -> PyResult<Vec<Run>> {
    if let Some(w) = writes {
        if w.len() != pages.len() {
            return Err(err(format!(
                "writes: {} flags for {} pages; expected one flag per page",
                w.len(),
                pages.len()
            )));
        }
    }
    let mut runs: Vec<Run> = Vec::with_capacity(pages.len());
    for (i, &p) in pages.iter().enumerate() {
        let kind = if writes.is_some_and(|w| w[i]) {
            AccessKind::Store
        } else {
            AccessKind::Load
        };
        match runs.last_mut() {
            Some(r) if r.page == p && r.kind == kind => r.count += 1,
            _ => runs.push(Run::new(p, 1, kind)),
        }
    }
    Ok(runs)
}

/// One result row as the Python front end prints it.
pub(crate) fn row<'py>(py: Python<'py>, o: &Outcome) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("policy", o.policy.name())?;
    d.set_item("frames", o.frames)?;
    d.set_item("references", o.measured.references)?;
    d.set_item("faults", o.measured.faults)?;
    d.set_item("pushes", o.measured.pushes)?;
    d.set_item("fault_rate", o.fault_rate)?;
    d.set_item("dirty_resident", o.dirty_resident)?;
    d.set_item("mean_resident", o.mean_resident)?;
    d.set_item("warmup_references", o.warmup.references)?;
    d.set_item("warmup_faults", o.warmup.faults)?;
    d.set_item("warmup_pushes", o.warmup.pushes)?;
    Ok(d)
}

pub(crate) fn rows<'py>(
    py: Python<'py>,
    outcomes: &[Outcome],
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    outcomes.iter().map(|o| row(py, o)).collect()
}

/// Every policy of the registry.
#[pyfunction]
fn policies(py: Python<'_>) -> PyResult<PyObject> {
    to_py(py, &policy::INFO)
}

/// Runs one policy over a page list (any page numbers) at each size.
#[pyfunction]
#[pyo3(signature = (spec, pages, writes, sizes, warmup))]
fn simulate_pages<'py>(
    py: Python<'py>,
    spec: &str,
    pages: Vec<u32>,
    writes: Option<Vec<bool>>,
    sizes: Vec<u32>,
    warmup: u64,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let spec = parse_spec(spec)?;
    // The policies index their tables by page number: the user's numbers (up to 2^32 - 1)
    // renumbered densely first, as a trace file's are. Counts do not depend on the names.
    let runs = runs_of(&dense_pages(&pages), writes.as_deref())?;
    let out = py
        .allow_threads(|| policy::simulate_sizes(&spec, &runs, &sizes, warmup))
        .map_err(err)?;
    rows(py, &out)
}

/// Step mode over a whole string.
#[pyclass(name = "Stepper", module = "pagelab._core", unsendable)]
struct PyStepper {
    inner: RustStepper,
    frames: u32,
}

#[pymethods]
impl PyStepper {
    #[new]
    #[pyo3(signature = (spec, frames, pages, writes=None))]
    fn new(spec: &str, frames: u32, pages: Vec<u32>, writes: Option<Vec<bool>>) -> PyResult<Self> {
        let spec = parse_spec(spec)?;
        // Step mode shows the user's own page numbers, so no densifying here: the pages index
        // the policy's tables directly.
        let runs = runs_of(&pages, writes.as_deref())?;
        let inner = RustStepper::new(&spec, frames, &runs).map_err(err)?;
        Ok(PyStepper { inner, frames })
    }

    /// The next reference, or None at the end of the string.
    fn step<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.inner.next() else {
            return Ok(None);
        };
        step_dict(py, &s).map(Some)
    }

    /// Frames [frames].
    #[getter]
    fn frames(&self) -> u32 {
        self.frames
    }
}

fn step_dict<'py>(py: Python<'py>, s: &Step) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time", s.time)?;
    d.set_item("page", s.page)?;
    d.set_item("written", s.written)?;
    d.set_item("fault", !s.hit)?;
    d.set_item("victim", s.victims.first().map(|v| v.page))?;
    d.set_item(
        "victims",
        s.victims.iter().map(|v| v.page).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "pushed",
        s.victims
            .iter()
            .filter(|v| v.pushed)
            .map(|v| v.page)
            .collect::<Vec<_>>(),
    )?;
    d.set_item("frames", s.frames.clone())?;
    d.set_item("state", describe_state(&s.state))?;
    Ok(d)
}

/// The policy state in one short line (`hand 2, bits 101`), for the step table.
fn describe_state(st: &policy::PolicyState) -> String {
    let mut parts = Vec::new();
    if let Some(h) = st.hand {
        parts.push(format!("hand {h}"));
    }
    if let Some(bits) = &st.frame_bits {
        parts.push(format!(
            "bits {}",
            bits.iter()
                .map(|&b| if b { '1' } else { '0' })
                .collect::<String>()
        ));
    }
    for (name, pages) in &st.lists {
        let items: Vec<String> = pages.iter().map(|p| p.to_string()).collect();
        parts.push(format!("{name} [{}]", items.join(" ")));
    }
    for (name, v) in &st.values {
        parts.push(format!("{name} {v:.3}"));
    }
    parts.join(", ")
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_pages, m)?)?;
    m.add_class::<PyStepper>()?;
    Ok(())
}

//! The analytic twin: a spec in, its derived demands, lifetime curves and MVA rows out (as
//! JSON text, turned into DataFrames by the front end).

use pyo3::prelude::*;

use crate::err;

/// Solves the twin of `toml` (with overrides) at each number of `users`; `seed` seeds the
/// lifetime measurement, `mpl_limit` replaces the storage test by a fixed limit; the means
/// are over the spec's run window, or stationary with `stationary`.
#[pyfunction]
#[pyo3(signature = (toml, origin, overrides, users, seed=1, mpl_limit=None, stationary=false))]
#[allow(clippy::too_many_arguments)]
fn model_system(
    py: Python<'_>,
    toml: &str,
    origin: &str,
    overrides: Vec<(String, String)>,
    users: Vec<u32>,
    seed: u64,
    mpl_limit: Option<f64>,
    stationary: bool,
) -> PyResult<String> {
    let horizon = if stationary {
        pagelab_model::Horizon::Stationary
    } else {
        pagelab_model::Horizon::Run
    };
    let opts = pagelab_model::TwinOptions { mpl_limit, horizon };
    let report = py
        .allow_threads(|| {
            pagelab_model::twin_toml(
                toml,
                origin,
                &overrides,
                &users,
                seed,
                opts,
                Some(&crate::sys::open_trace),
            )
        })
        .map_err(err)?;
    serde_json::to_string(&report).map_err(err)
}

/// The service demands the simulator's own code derives from `toml` (with overrides).
#[pyfunction]
fn service_demands(toml: &str, origin: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    let spec = pagelab_sys::load_spec(toml, origin, &overrides).map_err(err)?;
    serde_json::to_string(&pagelab_sys::demands::ServiceDemands::of(&spec)).map_err(err)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(model_system, m)?)?;
    m.add_function(wrap_pyfunction!(service_demands, m)?)?;
    Ok(())
}

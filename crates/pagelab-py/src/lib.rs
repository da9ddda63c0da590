//! Thin PyO3 adapter: converts arguments, calls the Rust crates, converts results. No model
//! logic lives here.

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

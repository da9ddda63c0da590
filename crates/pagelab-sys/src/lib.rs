//! The timed system model: a discrete-event simulator of a multiprogrammed virtual-memory
//! time-sharing system, and on it the base systems the papers measure against (CP-67 and
//! VM/370 before HPO 3.4).
//!
//! ```text
//!  terminals ─think─► load control (eligible list, Q1/Q2) ─► dispatcher (1..n CPUs)
//!      ▲                                                        │ reference runs
//!      └──────── transaction end ◄── VIO, terminal writes ◄─────┤
//!                                                               ▼
//!            memory (frames, page tables, free/flush lists, core-table scan)
//!                                                               │ page-in / page-out
//!            paging I/O (slot allocation, device selection) ─► devices ─► channels
//!  monitor: counters per interval, summary in the papers' terms
//! ```
//!
//! Entry points: [`load_spec`] turns TOML (plus `key.path=value` overrides) into a validated
//! [`SystemSpec`]; [`run`] simulates it with a seed and returns a [`Report`]. Each component is
//! a module; the seams (load control, devices, slot allocation, device selection, programs) are
//! closed enums built from serde-tagged specs. See `docs/system.md` for the design essay.
//!
//! A second engine, [`unix`], simulates UNIX V6 whole-process swapping (Chanson 1982); a spec
//! whose `memory.residency` is `whole-process-swapping` runs there, and [`run_toml`] picks
//! the engine from that key. A third, [`m44`], runs the M44/44X batch jobs of Brawn &
//! Gustavson 1968 (`machine.model = "m44-44x"`).

pub mod budget;
pub mod device;
pub mod error;
pub mod guest;
pub mod load_control;
pub mod m44;
pub mod memory;
pub mod monitor;
pub mod page_swap;
pub mod psi_scheduler;
pub mod spec;
pub mod survival;
pub mod system;
pub mod unix;
pub mod workload;

pub use error::SysError;
pub use monitor::{Metric, Report};
pub use spec::{load_spec, SystemSpec};
pub use system::System;
pub use workload::TraceOpener;

/// Simulates `spec` with random streams from `seed`.
pub fn run(spec: &SystemSpec, seed: u64) -> Result<Report, SysError> {
    System::build(spec, seed, None)?.run(&mut |_| {})
}

/// As [`run`], calling `progress` with the fraction of simulated time done (0 to 1).
pub fn run_with_progress(
    spec: &SystemSpec,
    seed: u64,
    progress: &mut dyn FnMut(f64),
) -> Result<Report, SysError> {
    System::build(spec, seed, None)?.run(progress)
}

/// As [`run_with_progress`], opening trace programs with `opener` (any
/// [`pagelab_trace::ReferenceSource`] reader plugs in here).
pub fn run_with_sources(
    spec: &SystemSpec,
    seed: u64,
    opener: &TraceOpener,
    progress: &mut dyn FnMut(f64),
) -> Result<Report, SysError> {
    System::build(spec, seed, Some(opener))?.run(progress)
}

/// Loads `toml_text` with overrides and runs it on the engine its `memory.residency` names:
/// demand paging ([`System`], trace programs opened with `opener`) or whole-process swapping ([`unix::run`]).
pub fn run_toml(
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
    seed: u64,
    opener: Option<&TraceOpener>,
    progress: &mut dyn FnMut(f64),
) -> Result<Report, SysError> {
    let value: toml::Value = toml::from_str(toml_text).map_err(|e| SysError::Syntax {
        origin: origin.into(),
        what: error::one_line(&e.to_string()),
    })?;
    // Overrides apply to the resolved preset (resolving again in load_spec changes nothing).
    let mut value = spec::resolve_extends(value, origin, 0)?;
    spec::drop_provenance(&mut value);
    for (key, val) in overrides {
        spec::apply_override(&mut value, key, val)?;
    }
    budget::check(&value, origin, budget::limit()?)?; // before anything is allocated
    let swapping = value
        .get("memory")
        .and_then(|m| m.get("residency"))
        .and_then(|r| r.as_str())
        == Some("whole-process-swapping");
    let m44 = value
        .get("machine")
        .and_then(|m| m.get("model"))
        .and_then(|r| r.as_str())
        == Some(m44::spec::MODEL);
    if m44 {
        let spec = m44::spec::from_value(value, origin)?;
        return m44::run(&spec, seed, progress);
    }
    if swapping {
        let spec = unix::spec::from_value(value, origin)?;
        unix::run(&spec, seed, progress)
    } else {
        let text = toml::to_string(&value).map_err(|e| SysError::Syntax {
            origin: origin.into(),
            what: error::one_line(&e.to_string()),
        })?;
        let spec = load_spec(&text, origin, &[])?;
        System::build(&spec, seed, opener)?.run(progress)
    }
}

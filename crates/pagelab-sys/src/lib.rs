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
//! A spec names its system with `[system] kind` ([`SystemKind`]): `vm` (the default) runs the
//! VM/370 family here, `unix` runs UNIX V6 whole-process swapping ([`unix`], Chanson 1982) and
//! `m44` the M44/44X batch jobs of Brawn & Gustavson 1968 ([`m44`]); [`run_toml`] dispatches on
//! that key alone ([`systems`]). Which components each system is built from, and how they are
//! connected, is the one file of that system in [`systems`].

pub mod budget;
pub mod demands;
pub mod device;
pub mod error;
pub mod guest;
pub mod kind;
pub mod load_control;
pub mod locality;
pub mod m44;
pub mod memory;
pub mod monitor;
pub mod page_swap;
pub mod pressure;
pub mod queue;
pub mod spec;
pub mod steal;
pub mod supply;
pub mod survival;
pub mod system;
pub mod systems;
pub mod unix;
pub mod vmsp_spec;
pub mod workload;
pub mod zswap;

pub use error::SysError;
pub use kind::SystemKind;
pub use monitor::{Metric, Report};
pub use spec::{load_spec, SystemSpec};
pub use system::System;
pub use systems::system_kind;
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

/// Loads `toml_text` with overrides and runs the system its `[system] kind` names
/// ([`systems::AnySpec`]): the VM/370 family ([`System`], trace programs opened with `opener`),
/// UNIX V6 ([`unix::run`]) or the M44/44X ([`m44::run`]).
pub fn run_toml(
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
    seed: u64,
    opener: Option<&TraceOpener>,
    progress: &mut dyn FnMut(f64),
) -> Result<Report, SysError> {
    let blame = |e| spec::blame::blame(e, toml_text, origin, overrides);
    let value = spec::toml_with_overrides(toml_text, origin, overrides).map_err(blame)?;
    budget::check(&value, origin, budget::limit()?).map_err(blame)?; // before any allocation
    let spec = systems::AnySpec::from_value(value, origin).map_err(blame)?;
    spec.run(seed, opener, progress)
}

/// Loads `toml_text` with overrides and runs every check [`run_toml`] makes before it builds
/// the system (the memory budget, the typed spec, its ranges), without running it: so that a
/// sweep or a calibration can refuse a bad point before its first run. Returns the kind.
pub fn check_toml(
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
) -> Result<SystemKind, SysError> {
    let checked = || -> Result<SystemKind, SysError> {
        let value = spec::toml_with_overrides(toml_text, origin, overrides)?;
        budget::check(&value, origin, budget::limit()?)?;
        Ok(systems::AnySpec::from_value(value, origin)?.kind())
    };
    checked().map_err(|e| spec::blame::blame(e, toml_text, origin, overrides))
}

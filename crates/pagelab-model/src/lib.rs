//! The analytic twin of a pagelab system: the same spec, solved as a queueing network in
//! milliseconds instead of simulated for minutes.
//!
//! ```text
//!  terminals (N_c, Z_c) ──► memory queue (load control's MPL limit) ──► flow-equivalent server
//!                                                                         │  μ_c(k) from
//!   central subsystem at MPL n:  CPU(s) ─ paging devices ─ minidisks ─ terminal writes
//!   paging demand per transaction = faults(m) with m = frames per program = free frames / n
//! ```
//!
//! Courtois's decomposition (*Decomposability*, Academic Press 1977; Courtois, JACM 22(1)
//! 1975): the central subsystem reaches equilibrium far faster than users arrive and leave
//! memory, so it is solved alone at each multiprogramming level and replaced by a
//! load-dependent flow-equivalent server in the terminal level. The paging demand depends on
//! the level through the program's lifetime curve (Denning; Belady and Kuehner 1969): the mean
//! references between faults against the frames a program holds, measured here with the trace
//! lab's LRU stack on the program's own reference string ([`lifetime`]). The parameters come
//! from [`pagelab_sys::demands`], the code the simulator builds its machine with.

pub mod batch;
mod estimate;
pub mod lifetime;
pub mod metastable;
pub mod mva;
mod secant;
pub mod survival;
pub mod swapping;
pub mod twin;

pub use lifetime::{Lifetime, LifetimePoint, Survival};
pub use twin::{solve, Horizon, Row, TwinOptions};

use pagelab_sys::demands::ServiceDemands;
use pagelab_sys::{SysError, SystemKind, TraceOpener};

/// What a spec sets up, as the twin reads it: the VM family's demands, or the M44's batch.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(untagged)]
pub enum Demands {
    /// The VM family, as the simulator builds it ([`pagelab_sys::demands`]).
    Vm(ServiceDemands),
    /// The M44/44X's copies of one program ([`batch`]).
    Batch(batch::BatchDemands),
    /// UNIX V6's prototype processes under whole-process swapping ([`swapping`]).
    Swap(swapping::SwapDemands),
}

/// The twin's answer for a spec: the demands it read, the lifetime curves it measured, one row
/// per number of users (for the M44, copies of its program; for UNIX V6, prototype processes).
#[derive(Clone, Debug, serde::Serialize)]
pub struct TwinReport {
    /// What the spec sets up.
    pub demands: Demands,
    /// One lifetime curve per class.
    pub lifetimes: Vec<Lifetime>,
    /// One row per number of users.
    pub rows: Vec<Row>,
}

/// Loads `toml` with overrides and solves its twin at each number of users; the lifetime
/// curves are measured with random streams from `seed`, trace programs opened with `open`.
pub fn twin_toml(
    toml: &str,
    origin: &str,
    overrides: &[(String, String)],
    users: &[u32],
    seed: u64,
    opts: TwinOptions,
    open: Option<&TraceOpener>,
) -> Result<TwinReport, SysError> {
    let kind = pagelab_sys::check_toml(toml, origin, overrides)?;
    if kind == SystemKind::M44 {
        let spec = pagelab_sys::m44::load_spec(toml, origin, overrides)?;
        let (demands, life, rows) = batch::solve(&spec, users, seed)?;
        return Ok(TwinReport {
            demands: Demands::Batch(demands),
            lifetimes: vec![life],
            rows,
        });
    }
    if kind == SystemKind::Unix {
        let spec = pagelab_sys::unix::load_spec(toml, origin, overrides)?;
        let (demands, rows) = swapping::solve(&spec, origin, users, opts.mpl_limit)?;
        return Ok(TwinReport {
            demands: Demands::Swap(demands),
            lifetimes: Vec::new(),
            rows,
        });
    }
    let spec = pagelab_sys::load_spec(toml, origin, overrides)?;
    let demands = ServiceDemands::of(&spec);
    let lifetimes = lifetime::of_classes(&demands, seed, open)?;
    let rows = solve(&spec, lifetimes.clone(), users, opts);
    Ok(TwinReport {
        demands: Demands::Vm(demands),
        lifetimes,
        rows,
    })
}

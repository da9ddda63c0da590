//! The M44/44X of Brawn & Gustavson 1968 multiprogrammed: identical background 44X jobs, each
//! one of the study's programs run to completion, competing freely for one paged store.
//!
//! ```text
//!  jobs (1..5 copies of a program's reference string) ─► CPU queue, round robin, 0.1 s slice
//!        ▲                                                   │ reference at 10 µs
//!        │ pull done                                         ▼ page not in core
//!  two IBM 1301 disks, 0.21 s a page ◄── frame: free, else global FIFO / BIFO / AR victim
//!  load leveler: every period, paging rate and CPU use ─► set a job aside / restore one
//! ```
//!
//! The store is word-addressed: a program's references are to 36-bit words, numbered by the
//! 44X address, and page = word / `page_words` (1024); the real store holds
//! `store_words / page_words` frames (184K words: 184 frames). Nothing is in bytes.
//!
//! This configuration differs from the demand-paging one ([`crate::System`]), which models
//! interactive users with think times and a core-table scan; here jobs are batch jobs that end
//! when their reference string ends and the measure is elapsed time per job. It runs on the
//! same loop (`pagelab_core::kernel`, `kernel_impl.rs`); its disks are the device catalogue's
//! IBM 1301, queued in arrival order by the shared device queue (`device::FifoBacklog`, the
//! closed form of UNIX's `FifoQueue`), and its replacement goes through the frame-supply seam
//! (`supply.rs`: FIFO and AR the trace lab's, BIFO a supply of its own). A spec of
//! `[system] kind = "m44"` is an [`M44Spec`], wired in [`crate::systems::m44`] and run here
//! ([`crate::run_toml`]).
//!
//! Metrics: `elapsed_s`, `time_per_job_s` (the paper's Time/Job), `pulls`, `pushes`,
//! `pulls_per_job`, `cpu_busy_pct`, `set_asides`, `restores`, `references`, `jobs`, `frames`.
//! The interval table has one row per leveler sample.

mod kernel_impl;
pub mod leveler;
pub mod machine;
pub mod spec;
pub mod supply;

pub use machine::Machine;
pub use spec::{load_spec, M44Spec};

use crate::{Report, SysError};

/// Simulates `spec`; the programs' input comes from `seed`; `progress` gets the fraction done.
pub fn run(spec: &M44Spec, seed: u64, progress: &mut dyn FnMut(f64)) -> Result<Report, SysError> {
    Machine::build(spec, seed)?.run(progress)
}

#[cfg(test)]
mod supply_tests;
#[cfg(test)]
mod tests;

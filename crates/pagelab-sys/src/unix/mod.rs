//! UNIX Sixth Edition on a PDP-11/45: whole-process swapping, the V6 swapper and CPU
//! scheduler, and Chanson's synthetic prototype process.
//!
//! ```text
//!  prototype process: compute (PC) ─► disk I/O (PRIBIO) ─► sleep(n s) (PSLEP) ─► tty output (TTOPRI) ─┐
//!        ▲                                                                                            │
//!        └──────────────────────────── endless loop ◄────────────────────────────────────────────────┘
//!  swtch: lowest p_pri among SRUN ∧ SLOAD, circular scan     clock (60 Hz): p_cpu, p_time, setpri, runin
//!  sched (proc 0): swap in the ready process out longest; swap out easy core, else deserving
//!  core (coremap, 64-B clicks) and swap (swapmap, 512-B blocks): first fit, contiguous
//!  RK11 controller: one FIFO queue, two RK05 drives, no overlapped seeks
//!  buffer cache (bio.c): NBUF 512-B buffers, LRU av-list, delayed writes, update's sync / 30 s
//!  system processes: init, update, a getty per idle terminal, the console shell
//!  sleep(n): the one `tout` of sys2.c sslep; interrupts (clock, disk, terminal) cost CPU
//! ```
//!
//! Files by mechanism: `machine` (the table, assembled from the parts [`crate::systems::unix`]
//! wires), `kernel_impl` (its events on the one run loop), `cpu` (swtch, setpri, sleep/wakeup,
//! clock, interrupts), `prototype` (running a process's steps), `fileio` and `bufcache` (the
//! file-system path), `callout` (`tout`), `sysproc` (the system's processes), `tty` (terminal
//! output and console input), `swapper` and `swapio` (sched and its transfers), `disk` (the
//! RK11), `map` (coremap/swapmap), `report`, `invariants`.
//!
//! Everything follows Chanson 1982 (PDP-11/45, 112 KB of which ~48 KB the system, two RK05 on
//! one controller without overlapped seeks; §2) and the V6 source as restated in
//! fidelity-notes §1 (swapper §1.2-1.4, CPU scheduling §1.5); where Chanson's appendix and
//! the source differ the source is followed (the swapper's 3 s and 2 s tests; `runin` also
//! woken when a process sleeps at low priority).
//!
//! The machine is a configuration of its own beside the demand-paging one, on the same run
//! loop (`pagelab_core::kernel`, `kernel_impl.rs`) and the same device catalogue (the RK05 of
//! `device/geometry.rs`): a spec of `[system] kind = "unix"` is a [`UnixSpec`], wired in
//! [`crate::systems::unix`] and run here ([`crate::run_toml`]). It returns the same [`crate::Report`].
//!
//! Metrics (in the report's `metrics`): `reaction_time_ms` (Chanson §2.B), `swap_rate`,
//! `swap_interval_s` (Figure 1), `swap_wait_ms`, `disk_queue_length`, `disk_wait_ms`, `disk_request_rate`,
//! `disk_io_rate` (physical file-system transfers), `fs_access_rate` (block accesses
//! through the cache), `fs_accesses_per_swap`, `cache_hit_pct`, `read_ahead_rate`, `reaction_min_ms`, `interrupt_pct`, `cpu_interval_ms`, `cpu_wait_ms`, `cpu_busy_pct`, `pctrmm` (§3), and the
//! workload parameters `pn`, `ps`, `pc_ms`, `mm`.

pub mod bufcache;
pub mod callout;
mod cpu;
mod disk;
mod disk_request;
mod fileio;
mod invariants;
mod kernel_impl;
pub mod machine;
pub mod map;
mod process;
mod prototype;
mod report;
pub mod spec;
mod spec_checks;
mod stats;
mod swapio;
pub mod swapper;
mod sysproc;
mod tty;

pub use machine::Machine;
pub use map::ResourceMap;
pub use spec::{load_spec, UnixSpec};
pub use swapper::{decide, OutReason, ProcView, Stat, SwapperParams, TextView, Verdict};

use crate::{Report, SysError};

/// Simulates `spec` with random streams from `seed`; `progress` gets the fraction done.
pub fn run(spec: &UnixSpec, seed: u64, progress: &mut dyn FnMut(f64)) -> Result<Report, SysError> {
    Machine::build(spec, seed)?.run(progress)
}

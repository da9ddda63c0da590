//! The components of the machine, each owning its state and built once from the spec
//! ([`System::assemble`](super::System::assemble) reads the spec into them; the run reads
//! them).
//!
//! ```text
//!  Scheduler ── admits to / drops from the multiprogramming set (the load controller, E1/E2;
//!               scheduler.rs)
//!  Dispatcher ── runs the ready users on the CPUs, pays the supervisor's costs (dispatcher.rs)
//!  Reclaim ── which frame SELECT frees next (the frame supply), the free-list targets
//!             (reclaim.rs)
//!  Faults ── the fault path: frame waiters, page-ins, SELECT's pass and page-outs
//!            (faults.rs)
//!  Paging ── page-in and page-out I/O on the paging devices, swap sets, zswap, readahead
//!            (paging_io.rs; page swapping's handlers in page_swapping.rs)
//!  CpSpool ── CP's spool pages, a ring in the system owner's page table (cp_spool.rs)
//!  VirtualIo ── the virtual machines' own I/O devices (virtual_io.rs)
//!  MonitorBooks ── the counters' samples and the sampling clock (monitor_books.rs)
//!  GuestBooks ── guest operating systems, PAGEMON, the terminal-driver benchmark
//! ```

use super::*;

/// Guest virtual machines (user indices), their PAGEMON, the benchmark's report sections.
pub(super) struct GuestBooks {
    pub(super) guests: Vec<u32>,
    pub(super) pagemons: Vec<Option<Pagemon>>,
    pub(super) bench: Option<BenchmarkReport>,
    pub(super) sessions: BTreeMap<u32, usize>,
    pub(super) done_at: Option<Tick>,
    /// Each guest's spec (`workload.guest`), in guest order.
    pub(super) specs: Vec<crate::spec::guest::GuestSpec>,
    /// Some guest ends the run when the benchmark is over (`end_when_done`).
    pub(super) end_when_done: bool,
    /// Frames PAGEMON counts as available [frames] (`memory.frames`).
    pub(super) apages: f64,
}

impl GuestBooks {
    pub(super) fn new(spec: &SystemSpec, n_users: u32, n_all: u32) -> GuestBooks {
        GuestBooks {
            guests: (n_users..n_all).collect(),
            pagemons: Vec::new(),
            bench: None,
            sessions: BTreeMap::new(),
            done_at: None,
            specs: spec.workload.guests.clone(),
            end_when_done: spec.workload.guests.iter().any(|g| g.end_when_done),
            apages: f64::from(spec.memory.frames.get()),
        }
    }
}

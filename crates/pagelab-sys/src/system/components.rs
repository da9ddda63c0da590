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
//!  Paging ── page-in and page-out I/O on the paging devices, swap sets, zswap, readahead
//!  VirtualIo ── the virtual machines' own I/O devices (virtual_io.rs)
//!  MonitorBooks ── the counters' samples and the sampling clock (monitor_books.rs)
//!  GuestBooks ── guest operating systems, PAGEMON, the terminal-driver benchmark
//! ```

use super::*;

/// Paging I/O: the paging devices and their queues, the users waiting on frames and pages,
/// page swapping's swap sets, the compressed pool and swap readahead.
pub(super) struct Paging {
    pub(super) io: PagingIo,
    pub(super) pending_outs: u32,
    pub(super) done_io: Vec<PageIo>,
    /// Users waiting for a frame, with the page (a guest's may be tagged [`PSEUDO`]).
    pub(super) frame_waiters: VecDeque<(u32, u32)>,
    pub(super) page_waiters: Vec<(u32, u32)>,
    /// The page waiters a finished channel program wakes, in order ([`paging_io::IoVerdict`]).
    pub(super) wakes: Vec<u32>,
    pub(super) write_unchanged: bool,
    /// Frames SELECT may take past its target to fill an open round-turkey group, halved
    /// [frames] (`paging.round_turkey_run`).
    pub(super) round_turkey_run: u32,
    /// The garbage collector's period (`swapping.gc_period_s`; none without one).
    pub(super) gc_period: Option<Tick>,
    /// Page swapping books (residency `page-swapping`).
    pub(super) swap: Option<PageSwap>,
    /// The compressed page pool (`[memory.zswap]`), and its counters at the warm-up's end.
    pub(super) zswap: Option<Zswap>,
    pub(super) zswap_warm: ZswapCounters,
    /// Swap readahead's books (`paging.page_cluster` > 0).
    pub(super) readahead: Option<readahead::Readahead>,
}

impl Paging {
    pub(super) fn build(spec: &SystemSpec, io: PagingIo, swap: Option<PageSwap>) -> Paging {
        let frames = spec.memory.frames.get();
        let readahead = (spec.paging.page_cluster > 0).then(|| {
            let p = &spec.paging;
            readahead::Readahead::new(p.page_cluster, p.readahead, p.readahead_window, &io, frames)
        });
        Paging {
            pending_outs: 0,
            done_io: Vec::new(),
            frame_waiters: VecDeque::new(),
            page_waiters: Vec::new(),
            wakes: Vec::new(),
            write_unchanged: spec.paging.write_unchanged,
            round_turkey_run: spec.paging.round_turkey_run,
            gc_period: (swap.is_some() && spec.swapping.garbage_collector)
                .then(|| Tick::from_secs_f64(spec.swapping.gc_period_s)),
            swap,
            zswap: spec.memory.zswap.clone().map(|z| Zswap::new(z, frames)),
            zswap_warm: ZswapCounters::default(),
            readahead,
            io,
        }
    }
}

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

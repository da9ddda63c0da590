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
//!                (guest_hooks.rs)
//! ```

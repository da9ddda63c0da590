//! Linux's memory manager for one process's anonymous pages in a memory cgroup: what the kernel
//! counts (`pgmajfault`, `pswpin`, `workingset_*`, `zswp*`) when a program touches the pages of
//! a trace in order inside a cgroup v2 whose `memory.max` leaves it `frames` pages.
//!
//! ```text
//!  reference (page, write?)
//!    resident ──► PTE accessed bit set on a TLB miss (tlb::Tlb; a write to a read-only PTE:
//!                 a minor fault, and a walk)
//!    never touched, read ──► the shared zero page (minor fault, no page, nothing charged)
//!    never touched / zero page, written ──► new page: minor fault, charge, onto the LRU
//!    swapped ──► major fault: read from zswap or the device, charge, onto the LRU (refault?)
//!  charge (memcg::Charge) fails at the limit ──► cgroup reclaim of ≥ 32 pages
//!    two_list::TwoList (lru_gen off) or mglru::Mglru (lru_gen on): which pages go
//!    each evicted page: zswap store (zswap::ReplayPool) or write to the swap device (pswpout)
//! ```
//!
//! Rules (each cited beside its code): a read fault on never-touched anonymous memory maps the
//! zero page (mm/memory.c `do_anonymous_page`); a write to it allocates (`do_wp_page`). A swap
//! device that completes I/O in the submitter (`SWP_SYNCHRONOUS_IO`: brd and zram) is read
//! without the swap cache and without readahead when the entry has one user
//! (mm/memory.c `do_swap_page`), so `page_cluster` has no effect there, the slot is freed
//! at swap-in and every later eviction writes the page again. The swap cache and readahead of
//! other devices are not modelled (see `docs/policies/linux-replay.md`).
//!
//! Memory stalls (kernel/sched/psi.c: a task between `psi_memstall_enter` and `_leave` is
//! `TSK_MEMSTALL`): the replay counts the events that happen inside one, the pages the cgroup's
//! reclaim writes (`memstall_swapouts`) and the swap-ins of `PG_workingset` pages
//! (`memstall_swapins`); `pagelab.linux.prediction` times them with the fitted guest clock.

mod clock;
mod fault_stats;
mod lists;
pub mod memcg;
mod report;
pub mod rseq;
mod swapcache;
pub mod tlb;
pub mod zswap;

#[cfg(test)]
mod tests;

use crate::{ReferenceSource, Run, TraceError};
use serde::{Deserialize, Serialize};

pub use crate::policy::kernel::{Kernel, ReclaimEvent, Workingset};
use crate::policy::{linux_mglru as mglru, linux_two_list as two_list};
use lists::Lists;

pub use clock::{GuestClock, FLUSH_PERIOD_S};
pub use rseq::RseqWrites;
pub use tlb::TlbParams;
pub use zswap::ZswapParams;

/// How the kernel is set up for the replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinuxParams {
    /// The kernel series.
    pub kernel: Kernel,
    /// `/sys/kernel/mm/lru_gen/enabled`: the multi-generational LRU, else the two lists.
    pub lru_gen: bool,
    /// `vm.page-cluster` [log2 pages] (readahead; no effect on a synchronous device).
    pub page_cluster: u8,
    /// `vm.swappiness` [0-200].
    pub swappiness: u32,
    /// zswap, if enabled.
    pub zswap: Option<ZswapParams>,
    /// The guest's clock, for the periodic flush of the memcg counters; none: no flush.
    #[serde(default)]
    pub clock: Option<GuestClock>,
    /// The guest CPU's TLB, which decides when an access sets the accessed bit again
    /// ([`tlb`]); none: every reference sets it.
    #[serde(default)]
    pub tlb: Option<TlbParams>,
    /// Where the replayer's loop charges a kernel page to the cgroup: before each of these
    /// references (indices into the replay's references, ascending), one page-table page.
    /// The loop reads its touch list through a file mapping, and each 2 MiB of it it enters
    /// takes a PTE page, charged to the faulting task's cgroup (`pte_alloc_one`,
    /// `GFP_PGTABLE_USER` has `__GFP_ACCOUNT`: include/asm-generic/pgalloc.h).
    #[serde(default)]
    pub kernel_charges: Vec<u64>,
    /// How many of the first new pages the two lists hold on the active list rather than in
    /// the `lru_add` batch: the replayer's argument page, which exec touches twice through
    /// `get_user_pages_remote` (`FOLL_TOUCH`, so `folio_mark_accessed` activates it) before
    /// `exec_mmap`'s `exit_mmap` drains the batch (mm/mmap.c); MGLRU takes no part.
    #[serde(default)]
    pub exec_active_pages: u32,
    /// Before this reference the counters' copies are flushed: the replayer's report reads
    /// memory.stat before its loop (`memory_stat_format` → `mem_cgroup_flush_stats`).
    #[serde(default)]
    pub stat_read_at: Option<u64>,
    /// Before this reference the replayer's report writes the first page of its output file,
    /// an unmapped shmem page on the cgroup's anonymous lists ([`report`]); none: no such page.
    #[serde(default)]
    pub report_page_at: Option<u64>,
    /// Kernel pages the cgroup holds when the loop starts (before `stat_read_at`, else the
    /// first reference) beyond what it holds at the loop's end, given back when the first
    /// reclaim ends (docs/readings.md `linux-start-charge`: measured where the kernel's first
    /// reclaim runs; which kernel objects they are is not known).
    #[serde(default)]
    pub start_kernel_pages: u32,
    /// The reclaim at whose end the start's kernel pages are given back, counted from 1 (0 is
    /// taken as 1): where the lists' sizes step up, measured per series and list by
    /// `python -m pagelab.linux.start_back` (docs/readings.md `linux-start-back-measured`).
    #[serde(default)]
    pub start_back_at: u32,
    /// 6.12 only: a reclaim pass that frees nothing runs once more (`do_try_to_free_pages`'s
    /// `memcg_full_walk`; docs/readings.md `linux-6.12-full-walk-retry`).
    #[serde(default)]
    pub full_walk_retry: bool,
    /// MGLRU's look-around queues its promotions on the CPU's activate batch
    /// (docs/readings.md `linux-lookaround-batch`).
    #[serde(default)]
    pub lookaround_batch: bool,
    /// A write-protect fault reuses the replayer's page, which is exclusive, without moving the
    /// CPU's `lru_add` batch (mm/memory.c `do_wp_page` tests `PageAnonExclusive` before its
    /// drain; docs/readings.md `linux-anon-exclusive-reuse`); off: the batch is moved.
    #[serde(default)]
    pub anon_exclusive: bool,
    /// 6.1's count of counter updates also takes the faults that charge nothing and the touch
    /// list's mapping ([`fault_stats`]; docs/readings.md `linux-fault-stat-updates`).
    #[serde(default)]
    pub fault_stat_updates: bool,
    /// The kernel's writes to the replayer's rseq area at its context switches ([`rseq`]);
    /// none: no such writes.
    #[serde(default)]
    pub rseq: Option<RseqWrites>,
}

impl Default for LinuxParams {
    fn default() -> Self {
        LinuxParams {
            kernel: Kernel::V6_1,
            lru_gen: false,
            page_cluster: 0,
            swappiness: 60,
            zswap: None,
            clock: None,
            tlb: None,
            kernel_charges: Vec::new(),
            exec_active_pages: 0,
            stat_read_at: None,
            report_page_at: None,
            start_kernel_pages: 0,
            start_back_at: 1,
            full_walk_retry: false,
            lookaround_batch: false,
            anon_exclusive: false,
            fault_stat_updates: false,
            rseq: None,
        }
    }
}

impl LinuxParams {
    fn check(&self) -> Result<(), TraceError> {
        if self.swappiness > 200 {
            return Err(TraceError::invalid(format!(
                "swappiness {}: expected 0 to 200",
                self.swappiness
            )));
        }
        if self.page_cluster > 31 {
            return Err(TraceError::invalid(format!(
                "page_cluster {}: expected 0 to 31",
                self.page_cluster
            )));
        }
        if let Some(z) = &self.zswap {
            z.check()?;
        }
        if let Some(t) = &self.tlb {
            t.check()?;
        }
        if let Some(r) = &self.rseq {
            r.check()?;
        }
        Ok(())
    }
}

/// What the kernel counts over the replay (memory.stat / vmstat names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinuxCounters {
    /// References replayed.
    pub references: u64,
    /// `pgmajfault`: swap-ins that read the device or zswap.
    pub major_faults: u64,
    /// `pgfault` − `pgmajfault`: zero-page maps, first writes, write-protect faults.
    pub minor_faults: u64,
    /// `pswpin`: pages read from the swap device.
    pub pswpin: u64,
    /// `pswpout`: pages written to the swap device.
    pub pswpout: u64,
    /// `workingset_refault_anon`.
    pub workingset_refault_anon: u64,
    /// `workingset_activate_anon`.
    pub workingset_activate_anon: u64,
    /// `workingset_restore_anon`.
    pub workingset_restore_anon: u64,
    /// `zswpout`: pages stored in zswap.
    pub zswpout: u64,
    /// `zswpin`: pages loaded from zswap.
    pub zswpin: u64,
    /// Stores zswap refused (pool full, or above the accept threshold after it was).
    pub zswap_rejected: u64,
    /// Pages zswap wrote back to the swap device to make room.
    pub zswap_written_back: u64,
    /// Cgroup reclaims run (`try_to_free_mem_cgroup_pages` calls).
    pub reclaims: u64,
    /// Pages the cgroup's reclaims wrote to the swap device themselves: inside the memory
    /// stall around the reclaim (mm/memcontrol.c `try_charge_memcg`). zswap's writebacks are
    /// not among them: its shrink worker writes them, outside the cgroup.
    pub memstall_swapouts: u64,
    /// Swap-ins of a page its refault marked `PG_workingset`: read inside a memory stall
    /// (mm/page_io.c `swap_readpage` in 6.1, `swap_read_folio` in 6.12).
    pub memstall_swapins: u64,
}

const UNTOUCHED: u8 = 0;
const ZERO_PAGE: u8 = 1;
const RESIDENT: u8 = 2;
const ON_DEVICE: u8 = 3;
const IN_ZSWAP: u8 = 4;
/// Unmapped but kept in the swap cache ([`swapcache`]).
const SWAP_CACHE: u8 = 5;

/// The replay's state: page table, cgroup charge, LRU, zswap pool.
struct Replay {
    state: Vec<u8>,
    writable: Vec<bool>,
    /// The PTE's dirty bit: a write through a clean writable PTE walks the table to set it.
    dirty: Vec<bool>,
    charge: memcg::Charge,
    lists: Lists,
    pool: Option<zswap::ReplayPool>,
    c: LinuxCounters,
    ws: Workingset,
    victims: Vec<u32>,
    tlb: Option<tlb::Tlb>,
    /// Page-table pages the loop charged to the cgroup, and the start's kernel pages while
    /// they are held [pages].
    kernel_pages: u32,
    /// The start's kernel pages still held: given back when reclaim `start_back_at` ends.
    start_pages: u32,
    start_back_at: u32,
    /// New pages still to go onto the active list as exec's argument page did.
    exec_active: u32,
    anon_exclusive: bool,
    is_6_12: bool,
    clock: Option<GuestClock>,
    /// The guest's time since the replay began, and the flusher's next run [s].
    now_s: f64,
    next_flush_s: f64,
    /// The replayer's context switches, each a kernel write to its rseq area.
    switches: Option<rseq::Switches>,
    /// Whether a reclaim in the fault under way switched the replayer out (a vmpressure work).
    switched_in_reclaim: bool,
    /// The first reference of the run under way (its index in the replay).
    run_start: u64,
    /// With `fault_stat_updates`: where the touch list's windows fall.
    list_windows: Option<fault_stats::ListWindows>,
    /// Each major fault as (the reference that took it, its page), when asked for.
    faults: Option<Vec<(u64, u32)>>,
}

impl Replay {
    fn new(frames: u32, bound: u32, p: &LinuxParams) -> Replay {
        let retry = p.full_walk_retry && p.kernel == Kernel::V6_12;
        let lists = if p.lru_gen {
            let mut l = mglru::Mglru::new(p.kernel, bound);
            l.full_walk_retry = retry;
            l.lookaround_batch = p.lookaround_batch;
            Lists::Mglru(l)
        } else {
            let mut l = two_list::TwoList::new(p.kernel, bound, p.swappiness);
            if p.clock.is_some() {
                l.flush_periodically();
            }
            l.full_walk_retry = retry;
            Lists::TwoList(l)
        };
        Replay {
            state: vec![UNTOUCHED; bound as usize],
            writable: vec![false; bound as usize],
            dirty: vec![false; bound as usize],
            charge: memcg::Charge::new(frames),
            lists,
            pool: p.zswap.clone().map(|z| zswap::ReplayPool::new(z, p.kernel)),
            c: LinuxCounters::default(),
            ws: Workingset::default(),
            victims: Vec::new(),
            tlb: p.tlb.map(tlb::Tlb::new),
            kernel_pages: 0,
            start_pages: 0,
            start_back_at: p.start_back_at.max(1),
            exec_active: p.exec_active_pages,
            anon_exclusive: p.anon_exclusive,
            is_6_12: p.kernel == Kernel::V6_12,
            clock: p.clock,
            now_s: 0.0,
            next_flush_s: p.clock.map_or(f64::INFINITY, |c| c.phase_s),
            switches: p.rseq.map(rseq::Switches::new),
            switched_in_reclaim: false,
            run_start: 0,
            list_windows: p.fault_stat_updates.then_some(fault_stats::ListWindows {
                loop_start: p.stat_read_at.unwrap_or(0),
            }),
            faults: None,
        }
    }

    fn reserve(&mut self, bound: u32) {
        if self.state.len() < bound as usize {
            self.state.resize(bound as usize, UNTOUCHED);
            self.writable.resize(bound as usize, false);
            self.dirty.resize(bound as usize, false);
            self.lists.reserve(bound);
        }
    }

    /// One run: `count` references to `page`, writing if `write`.
    fn reference(&mut self, page: u32, count: u32, write: bool) -> Result<(), TraceError> {
        let i = page as usize;
        self.run_start = self.c.references;
        self.c.references += u64::from(count);
        if let Some(w) = self.list_windows {
            let n = w.updates(self.run_start, self.c.references);
            self.lists.fault_updates(n);
        }
        if let Some(t) = self.tlb.as_mut() {
            t.next_touch();
        }
        let mut faulted = true;
        match self.state[i] {
            RESIDENT => faulted = self.resident_access(i, write),
            SWAP_CACHE => self.swap_cache_hit(page, write),
            UNTOUCHED if !write => {
                // do_anonymous_page: a read maps the shared zero page.
                self.c.minor_faults += 1;
                self.uncharged_fault();
                self.state[i] = ZERO_PAGE;
                return Ok(());
            }
            ZERO_PAGE if !write => return Ok(()),
            UNTOUCHED | ZERO_PAGE => {
                self.c.minor_faults += 1;
                self.fault_in(page)?;
                self.writable[i] = true;
                self.dirty[i] = true;
            }
            _ => self.swap_in(page, write)?,
        }
        // The accessed bit is set by a page-table walk: after a fault, or on a TLB miss.
        if self.tlb.as_mut().is_none_or(|t| t.access(page, faulted)) {
            self.lists.touch(page);
        }
        self.tick();
        self.rseq_write()
    }

    /// do_swap_page on a synchronous device: read into a new page, the slot freed.
    fn swap_in(&mut self, page: u32, write: bool) -> Result<(), TraceError> {
        let i = page as usize;
        self.c.major_faults += 1;
        if let Some(f) = self.faults.as_mut() {
            f.push((self.run_start, page));
        }
        if self.state[i] == IN_ZSWAP {
            self.c.zswpin += 1;
            self.pool.as_mut().expect("a page in zswap").load(page);
        } else {
            self.c.pswpin += 1;
        }
        self.fault_in(page)?;
        // do_swap_page: the refault (`workingset_refault`) runs before the read, and the read
        // of a `PG_workingset` page is a memory stall (mm/page_io.c).
        if self.lists.is_workingset(page) {
            self.c.memstall_swapins += 1;
        }
        self.map_swapped(i, write);
        Ok(())
    }

    /// An unmapped page's translations flushed: the replayer's (`flush_tlb_page`) and, for the
    /// rseq page, the kernel's.
    fn flush_page(&mut self, page: u32) {
        if let Some(t) = self.tlb.as_mut() {
            t.flush_page(page);
        }
        if let Some(sw) = self.switches.as_mut().filter(|sw| sw.w.page == page) {
            sw.cached = false;
        }
    }

    /// The kernel's write to the rseq area on the replayer's return from a context switch
    /// ([`rseq`]): one in this fault's reclaim, or one of the others due by now. It is a
    /// page-table walk (the accessed and dirty bits set, the page faulted back if it was
    /// swapped out), or with `through_tlb` a walk only when the page was unmapped since the
    /// last one: the kernel's own TLB keeps the translation otherwise, and reclaim clears the
    /// accessed bit without flushing it (arch/x86/mm/pgtable.c `ptep_clear_flush_young`).
    /// Before the replayer has touched the page it is not written.
    fn rseq_write(&mut self) -> Result<(), TraceError> {
        let in_reclaim = std::mem::take(&mut self.switched_in_reclaim);
        let Some(sw) = self.switches.as_mut() else {
            return Ok(());
        };
        let (page, cached) = (sw.w.page, sw.w.through_tlb && sw.cached);
        let due = sw.due(sw.w.clock.elapsed_s(&self.c));
        if due {
            // A switch outside reclaim (those inside armed the walk in the reclaim).
            self.lists.switched_in();
        } else if !in_reclaim {
            return Ok(());
        }
        let i = page as usize;
        match self.state.get(i).copied() {
            None | Some(UNTOUCHED) | Some(ZERO_PAGE) => return Ok(()),
            Some(RESIDENT) if cached => return Ok(()),
            Some(RESIDENT) => {
                self.writable[i] = true;
                self.dirty[i] = true;
            }
            Some(SWAP_CACHE) => self.swap_cache_hit(page, true),
            Some(_) => self.swap_in(page, true)?,
        }
        self.lists.touch(page);
        if let Some(sw) = self.switches.as_mut() {
            sw.cached = true;
        }
        Ok(())
    }

    /// A reference to a resident page; returns whether the CPU walks the page table for it
    /// (and so sets the accessed bit) whatever the TLB holds. A write through a read-only PTE
    /// takes a write-protect fault (`do_wp_page` reuses the exclusive page: a minor fault; it
    /// moves the `lru_add` batch first unless `anon_exclusive`). The
    /// first write through a clean PTE walks the table to set the dirty bit, which sets the
    /// accessed bit too (x86): after a write-protect fault, or in 6.12 after a swap-in by a
    /// read, which maps the page writable but clean (mm/memory.c `do_swap_page`).
    fn resident_access(&mut self, i: usize, write: bool) -> bool {
        if write && !self.writable[i] {
            self.c.minor_faults += 1;
            self.uncharged_fault();
            self.writable[i] = true;
            if !self.anon_exclusive {
                self.lists.drain_if_pending(i as u32);
            }
        }
        let walks = write && !self.dirty[i];
        self.dirty[i] |= write;
        walks
    }

    /// A fault that charges no page: its `pgfault`, where 6.1's count takes it.
    fn uncharged_fault(&mut self) {
        if self.list_windows.is_some() {
            self.lists.fault_updates(1);
        }
    }

    /// The guest's clock moves on by what the replay did since the last tick; the periodic
    /// flusher runs each time it passes (`flush_memcg_stats_dwork`).
    fn tick(&mut self) {
        let Some(k) = self.clock else { return };
        self.now_s = k.elapsed_s(&self.c);
        while self.now_s >= self.next_flush_s {
            self.lists.flush_stats(&self.ws);
            self.next_flush_s += FLUSH_PERIOD_S;
        }
    }
}

impl Replay {
    /// A page comes in: charged (reclaiming while the cgroup is at its limit, as
    /// `try_charge_memcg` does, up to `MAX_RECLAIM_RETRIES` = 16 times), then added to the LRU.
    fn fault_in(&mut self, page: u32) -> Result<(), TraceError> {
        self.charge_reclaiming(memcg::Charge::try_charge)?;
        self.state[page as usize] = RESIDENT;
        if self.exec_active > 0 {
            self.exec_active -= 1;
            self.lists.add_exec_active(page, &mut self.ws);
        } else {
            self.lists.add(page, &mut self.ws);
        }
        Ok(())
    }

    /// Kernel memory charged to the cgroup besides the LRU's pages: the zswap pool's
    /// compressed bytes (`obj_cgroup_charge_zswap`) and the page-table pages the loop took.
    fn kmem_pages(&self) -> u32 {
        self.pool.as_ref().map_or(0, |p| p.charged_pages()) + self.kernel_pages
    }

    /// A page-table page charged to the cgroup (`pte_alloc_one`: `__memcg_kmem_charge_page`,
    /// through `try_charge_memcg` as a fault's page is), reclaiming while it does not fit.
    fn charge_kernel_page(&mut self) -> Result<(), TraceError> {
        self.charge_reclaiming(memcg::Charge::try_charge_kernel)?;
        self.kernel_pages += 1;
        Ok(())
    }

    /// The start's kernel pages ([`LinuxParams::start_kernel_pages`]), charged one by one as
    /// a page table is.
    fn charge_start_pages(&mut self, n: u32) -> Result<(), TraceError> {
        for _ in 0..n {
            self.charge_kernel_page()?;
            self.start_pages += 1;
        }
        Ok(())
    }

    /// `try_charge_memcg`'s loop: `charge` (with the kernel memory charged so far) until it
    /// fits, reclaiming between tries, up to `MAX_RECLAIM_RETRIES` = 16 times.
    fn charge_reclaiming(
        &mut self,
        charge: fn(&mut memcg::Charge, u32) -> bool,
    ) -> Result<(), TraceError> {
        let mut tries = 0;
        loop {
            let kmem = self.kmem_pages();
            if charge(&mut self.charge, kmem) {
                return Ok(());
            }
            tries += 1;
            if tries > 16 {
                return Err(TraceError::OomKilled {
                    limit: self.charge.limit,
                });
            }
            self.reclaim();
        }
    }

    /// `try_to_free_mem_cgroup_pages(memcg, 1)`: at least `SWAP_CLUSTER_MAX` pages; each
    /// evicted page is stored in zswap or written to the device, and uncharged. The caller,
    /// `try_charge_memcg`, runs it inside a memory stall (mm/memcontrol.c), so its writes are
    /// stalled time; brd writes in the submitter.
    fn reclaim(&mut self) {
        self.c.reclaims += 1;
        let mut out = std::mem::take(&mut self.victims);
        out.clear();
        let works = self.lists.vmpressure_works();
        self.lists
            .reclaim(memcg::SWAP_CLUSTER_MAX, &mut out, &mut self.ws);
        if self.c.reclaims >= u64::from(self.start_back_at) {
            self.kernel_pages -= std::mem::take(&mut self.start_pages);
        }
        self.switched_in_reclaim |= self.lists.vmpressure_works() > works;
        self.mark_unmapped();
        for &v in &out {
            self.flush_page(v);
            let stored = match self.pool.as_mut() {
                Some(pool) => pool.store(v, &mut self.c),
                None => false,
            };
            if stored {
                self.c.zswpout += 1;
                self.state[v as usize] = IN_ZSWAP;
            } else {
                self.c.pswpout += 1;
                self.c.memstall_swapouts += 1;
                self.state[v as usize] = ON_DEVICE;
            }
            self.writable[v as usize] = false;
            self.dirty[v as usize] = false;
        }
        if let Some(pool) = self.pool.as_mut() {
            for w in pool.take_written_back() {
                self.state[w as usize] = ON_DEVICE;
                self.c.pswpout += 1;
            }
        }
        self.charge.uncharge(out.len() as u32);
        self.victims = out;
    }
}

impl Replay {
    fn counters(&self) -> LinuxCounters {
        LinuxCounters {
            workingset_refault_anon: self.ws.refault,
            workingset_activate_anon: self.ws.activate,
            workingset_restore_anon: self.ws.restore,
            ..self.c
        }
    }
}

fn check_frames(frames: u32) -> Result<(), TraceError> {
    if frames == 0 {
        return Err(TraceError::invalid(
            "frames 0: expected a cgroup limit of at least one page".to_string(),
        ));
    }
    Ok(())
}

/// Replays `refs` (page, write?) in a cgroup whose limit leaves `frames` pages for them, with
/// the kernel set up as `params`; returns what the kernel counts.
pub fn replay(
    refs: &[(u32, bool)],
    frames: u32,
    params: &LinuxParams,
) -> Result<LinuxCounters, TraceError> {
    replay_recorded(refs, frames, params, Record::default()).map(|r| r.counters)
}

/// As [`replay`], with each step of each reclaim as the kernel's vmscan tracepoints report it
/// (MGLRU's `evict_folios` reports its steps as `shrink_inactive` ones, none `shrink_active`).
pub fn replay_with_events(
    refs: &[(u32, bool)],
    frames: u32,
    params: &LinuxParams,
) -> Result<(LinuxCounters, Vec<ReclaimEvent>), TraceError> {
    let what = Record {
        events: true,
        faults: false,
    };
    replay_recorded(refs, frames, params, what).map(|r| (r.counters, r.events))
}

/// What a replay records besides its counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Record {
    /// Each step of each reclaim ([`replay_with_events`]).
    pub events: bool,
    /// Each major fault: the reference that took it and its page, in order.
    pub faults: bool,
}

/// A replay's counters and what it was asked to record (empty where it was not).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Recorded {
    pub counters: LinuxCounters,
    pub events: Vec<ReclaimEvent>,
    /// (index in `refs` of the reference that faulted, page), one per major fault.
    pub faults: Vec<(u64, u32)>,
}

/// As [`replay`], recording what `what` asks for.
pub fn replay_recorded(
    refs: &[(u32, bool)],
    frames: u32,
    params: &LinuxParams,
    what: Record,
) -> Result<Recorded, TraceError> {
    check_frames(frames)?;
    params.check()?;
    let bound = refs.iter().map(|r| r.0 + 1).max().unwrap_or(0);
    let report = params.report_page_at.map(|_| bound);
    let mut r = Replay::new(frames, bound + u32::from(report.is_some()), params);
    match (what.events, &mut r.lists) {
        (true, Lists::TwoList(l)) => l.events.record(),
        (true, Lists::Mglru(l)) => l.events.record(),
        _ => {}
    }
    if what.faults {
        r.faults = Some(Vec::new());
    }
    let mut charges = params.kernel_charges.iter().peekable();
    let start_at = params.stat_read_at.unwrap_or(0);
    let mut i = 0;
    while i < refs.len() {
        while charges.next_if(|&&at| at <= i as u64).is_some() {
            r.charge_kernel_page()?;
        }
        if i as u64 == start_at {
            r.charge_start_pages(params.start_kernel_pages)?;
        }
        if params.stat_read_at == Some(i as u64) {
            r.lists.flush_stats(&r.ws);
        }
        if let Some(page) = report.filter(|_| params.report_page_at == Some(i as u64)) {
            r.report_written(page)?;
        }
        let (page, write) = refs[i];
        let mut j = i + 1;
        // A run ends where a kernel page is charged or the counters are read.
        let read = [params.stat_read_at, params.report_page_at]
            .into_iter()
            .flatten()
            .map(|at| at as usize)
            .filter(|&at| at > i)
            .min()
            .unwrap_or(refs.len());
        let end = charges
            .peek()
            .map_or(refs.len(), |&&at| (at as usize).min(refs.len()))
            .min(read);
        while j < end.max(i + 1) && refs[j] == (page, write) {
            j += 1;
        }
        r.reference(page, (j - i) as u32, write)?;
        i = j;
    }
    if let Some(page) = report {
        r.report_read_back(page);
    }
    let events = match &mut r.lists {
        Lists::TwoList(l) => l.events.take(),
        Lists::Mglru(l) => l.events.take(),
    };
    Ok(Recorded {
        counters: r.counters(),
        events,
        faults: r.faults.take().unwrap_or_default(),
    })
}

/// As [`replay`], over the runs of a reference source (a trace file): a run that writes is a
/// write to its page, else a read.
pub fn replay_source<S: ReferenceSource + ?Sized>(
    source: &mut S,
    frames: u32,
    params: &LinuxParams,
) -> Result<LinuxCounters, TraceError> {
    check_frames(frames)?;
    params.check()?;
    let bound = source.page_bound().unwrap_or(0);
    let mut r = Replay::new(frames, bound, params);
    let mut batch: Vec<Run> = Vec::with_capacity(1 << 14);
    loop {
        batch.clear();
        if !source.next_batch(&mut batch)? {
            break;
        }
        let top = batch.iter().map(|x| x.page + 1).max().unwrap_or(0);
        r.reserve(top);
        for x in &batch {
            r.reference(x.page, x.count, x.kind.is_write())?;
        }
    }
    Ok(r.counters())
}

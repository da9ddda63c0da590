//! The two-list LRU of anonymous pages as a memory cgroup's reclaim runs it (`lru_gen` off),
//! rule by rule from mm/vmscan.c and mm/workingset.c; 6.1 and 6.12 agree on every rule here.
//!
//! ```text
//!  fault (new page, or swap-in without a near shadow) ──► lru_add batch ──► inactive head
//!  swap-in whose refault distance ≤ active list ──► lru_add batch ──► active head
//!  lru_add batch: moved onto the lists when full (15 pages in 6.1, 31 in 6.12) and at the
//!    start of each list's shrink (`lru_add_drain`)
//!  reclaim, priority 12 → 0, until 32 pages are freed:
//!    targets = (list >> priority) × anon share (swappiness, costs)
//!    inactive tail, in chunks of ≤ 32: young → PG_referenced set; set before → active,
//!                                      else back to the inactive head; not young → swapped out
//!    active tail (when deactivation is allowed): young bit cleared unread, PG_workingset set,
//!                                      to the inactive head
//! ```
//!
//! Each rule below names the kernel function it follows. Facts only; no code was taken.

use super::kernel::{EventLog, Kernel, ReclaimEvent, Vmpressure, Workingset};
use super::list::{Links, List};

const ABSENT: u8 = 0;
const INACTIVE: u8 = 1;
const ACTIVE: u8 = 2;
/// In the CPU's `lru_add` batch, on no list yet.
const PENDING: u8 = 3;
/// No shadow entry.
const NO_SHADOW: u64 = u64::MAX;
/// The highest reclaim priority (`DEF_PRIORITY`, mm/vmscan.c).
const DEF_PRIORITY: u32 = 12;
/// Largest isolation per step (`SWAP_CLUSTER_MAX`, include/linux/swap.h).
const CHUNK: u32 = 32;
/// Pages the CPU's `lru_add` batch holds (`PAGEVEC_SIZE`, include/linux/pagevec.h).
fn lru_add_batch(kernel: Kernel) -> usize {
    match kernel {
        Kernel::V6_1 => 15,
        Kernel::V6_12 => 31,
    }
}
/// Stat updates per flush batch (`MEMCG_CHARGE_BATCH`, include/linux/memcontrol.h).
const STAT_BATCH: u64 = 64;
/// The guest's CPUs (`num_online_cpus()`; the harness boots QEMU with `-smp 1`).
const GUEST_CPUS: u64 = 1;

/// Memcg counter updates per event in 6.1, read from the call sites (each one unit per page):
/// a new page counts `pgfault`, `pgpgin`, `NR_ANON_MAPPED` and, when the batch is moved, the LRU
/// size; a swap-in with a shadow also `pgmajfault`, `MEMCG_SWAP` and `workingset_refault` (then one each for
/// `workingset_activate` and `_restore`); an isolation the LRU size and `pgscan`; an eviction
/// `MEMCG_SWAP`, `NR_FILE_PAGES` and `NR_SWAPCACHE` in and out of the swap cache,
/// `NR_ANON_MAPPED`, `pgpgout` and `pgsteal`; a page put back the LRU size (and `pgactivate`);
/// a deactivation isolation, `pgrefill`, the LRU size and `pgdeactivate`. Zero-page and
/// write-protect faults (`pgfault` only) and the touch list's mapping are the driver's to add
/// (`linux::fault_stats`).
const NEW_PAGE_UPDATES: u64 = 3;
const REFAULT_UPDATES: u64 = 6;
const LRU_ADD_UPDATES: u64 = 1;
const ISOLATE_UPDATES: u64 = 2;
const EVICT_UPDATES: u64 = 8;
const DEACTIVATE_UPDATES: u64 = 4;

/// The lruvec's counters as `lruvec_page_state` reads them: copies flushed from the per-CPU
/// deltas by `cgroup_rstat_flush` (mm/memcontrol.c), not the lists' current sizes.
#[derive(Clone, Copy, Debug, Default)]
struct Flushed {
    inactive: u64,
    active: u64,
    /// `workingset_activate_anon`.
    activate: u64,
}

/// One priority's scan: the targets of `get_scan_count` (inactive, active) and whether the
/// active list may be deactivated.
#[derive(Clone, Copy, Debug)]
struct Scan {
    priority: u32,
    targets: [u64; 2],
    may_deactivate: bool,
}

/// Anonymous pages on the active and inactive lists of one cgroup's lruvec.
#[derive(Clone, Debug)]
pub struct TwoList {
    links: Links,
    lists: [List; 3],
    place: Vec<u8>,
    /// The CPU's `lru_add` batch (`folio_add_lru`, mm/swap.c): each page and the list it goes
    /// to, oldest first.
    batch: Vec<(u32, u8)>,
    batch_size: usize,
    /// The PTE's accessed bit.
    young: Vec<bool>,
    /// `PG_referenced`.
    referenced: Vec<bool>,
    /// `PG_workingset`: the page was deactivated from the active list (or restored).
    workingset: Vec<bool>,
    /// Eviction stamp (`nonresident_age` before the eviction) << 1 | `PG_workingset`.
    shadow: Vec<u64>,
    /// The lruvec's `nonresident_age` (mm/workingset.c).
    age: u64,
    /// The lruvec's `anon_cost` (mm/swap.c `lru_note_cost`); `file_cost` is always 0 here.
    anon_cost: u64,
    /// `workingset_activate_anon` as read when the last reclaim ended (`snapshot_refaults`).
    refaults_seen: u64,
    /// What `lruvec_page_state` returns: the counters at the last flush.
    flushed: Flushed,
    /// `memcg_rstat_updated` (6.1): the CPU's stat updates since it last passed a batch, and
    /// the batches passed since the last flush (`stats_flush_threshold`).
    pending: u64,
    batches: u64,
    /// The driver runs the periodic flusher (6.1 besides the reclaim's flushes; 6.12 then reads
    /// the flushed copies).
    periodic_flush: bool,
    /// 6.12's `memcg_full_walk` retry (docs/readings.md `linux-6.12-full-walk-retry`).
    pub full_walk_retry: bool,
    swappiness: u32,
    kernel: Kernel,
    /// The reclaim's steps, when recorded (`pagelab linux predict --reclaim-events`).
    pub events: EventLog,
    /// The cgroup's vmpressure window: its works switch the reclaiming task out.
    pub vmpressure: Vmpressure,
}

impl TwoList {
    /// Empty lists for pages `0..page_bound`, with `vm.swappiness` (0-200).
    pub fn new(kernel: Kernel, page_bound: u32, swappiness: u32) -> TwoList {
        let n = page_bound as usize;
        TwoList {
            links: Links::new(page_bound),
            lists: [List::default(); 3],
            place: vec![ABSENT; n],
            batch: Vec::new(),
            batch_size: lru_add_batch(kernel),
            young: vec![false; n],
            referenced: vec![false; n],
            workingset: vec![false; n],
            shadow: vec![NO_SHADOW; n],
            age: 0,
            anon_cost: 0,
            refaults_seen: 0,
            flushed: Flushed::default(),
            pending: 0,
            batches: 0,
            periodic_flush: false,
            full_walk_retry: false,
            swappiness,
            kernel,
            events: EventLog::default(),
            vmpressure: Vmpressure::default(),
        }
    }

    fn len(&self, l: u8) -> u32 {
        self.lists[l as usize].len
    }

    /// Pages on either list or in the `lru_add` batch.
    pub fn resident(&self) -> u32 {
        self.len(INACTIVE) + self.len(ACTIVE) + self.batch.len() as u32
    }

    /// Pages the tables cover.
    pub fn bound(&self) -> usize {
        self.place.len()
    }

    /// Whether `page` is on a list or in the `lru_add` batch.
    pub fn is_resident(&self, page: u32) -> bool {
        self.place[page as usize] != ABSENT
    }

    /// Pages on the active list.
    pub fn active(&self) -> u32 {
        self.len(ACTIVE)
    }

    fn push_head(&mut self, x: u32, l: u8) {
        self.links.push_front(&mut self.lists[l as usize], x);
        self.place[x as usize] = l;
    }

    fn take_tail(&mut self, l: u8) -> u32 {
        let x = self.lists[l as usize].tail;
        self.links.remove(&mut self.lists[l as usize], x);
        self.place[x as usize] = ABSENT;
        x
    }

    /// A reference: the hardware sets the PTE's accessed bit; no list moves.
    pub fn touch(&mut self, page: u32) {
        self.young[page as usize] = true;
    }

    /// `PG_workingset` of a resident page: set by a restore (`workingset_refault`) or a
    /// deactivation.
    pub fn is_workingset(&self, page: u32) -> bool {
        self.workingset[page as usize]
    }

    /// The fault maps `page` with a young PTE and adds it to the CPU's `lru_add` batch, bound
    /// for a list ([`Self::drain`]). A new page goes to the inactive list (`folio_add_lru_vma`,
    /// anon since 5.9). A swap-in with a shadow entry is a
    /// refault (`workingset_refault`): counted; if its distance (`nonresident_age` now minus at
    /// eviction) is at most the active list, the refault workingset for anon when swap is
    /// available, it is activated (the age moves on one); if it was on the active list before
    /// its eviction (`PG_workingset` in the shadow), it is restored and its cost noted
    /// (`lru_note_cost_refault`).
    pub fn add(&mut self, page: u32, c: &mut Workingset) {
        let i = page as usize;
        self.young[i] = true;
        self.referenced[i] = false;
        self.workingset[i] = false;
        let shadow = std::mem::replace(&mut self.shadow[i], NO_SHADOW);
        if shadow == NO_SHADOW {
            self.stat_updates(NEW_PAGE_UPDATES);
            self.batch_add(page, INACTIVE);
            return;
        }
        c.refault += 1;
        self.stat_updates(REFAULT_UPDATES);
        let distance = self.age - (shadow >> 1);
        if distance > self.read_counters().active {
            self.batch_add(page, INACTIVE);
            return;
        }
        self.age += 1;
        c.activate += 1;
        self.stat_updates(1);
        if shadow & 1 == 1 {
            self.workingset[i] = true;
            c.restore += 1;
            self.stat_updates(1);
            self.note_cost(1, 0);
        }
        self.batch_add(page, ACTIVE);
    }

    /// A new page no PTE maps, with `PG_referenced` set (the replayer's report page in tmpfs,
    /// `linux::report`): into the batch for the inactive list; not young, so its first scan
    /// reclaims it.
    pub fn add_unmapped(&mut self, page: u32) {
        let i = page as usize;
        self.young[i] = false;
        self.referenced[i] = true;
        self.workingset[i] = false;
        self.shadow[i] = NO_SHADOW;
        self.stat_updates(NEW_PAGE_UPDATES);
        self.batch_add(page, INACTIVE);
    }

    /// A new page straight onto the active list, as exec leaves its argument page (see
    /// `LinuxParams::exec_active_pages`).
    pub fn add_active(&mut self, page: u32) {
        let i = page as usize;
        // folio_mark_accessed: activated, PG_referenced cleared (mm/swap.c).
        self.young[i] = true;
        self.referenced[i] = false;
        self.stat_updates(NEW_PAGE_UPDATES + LRU_ADD_UPDATES);
        self.push_head(page, ACTIVE);
    }

    /// `folio_batch_add_and_move`: into the batch, which is moved onto the lists once full.
    fn batch_add(&mut self, page: u32, l: u8) {
        self.place[page as usize] = PENDING;
        self.batch.push((page, l));
        if self.batch.len() == self.batch_size {
            self.drain();
        }
    }

    /// `lru_add_drain` → `folio_batch_move_lru` with `lru_add_fn`: the batch's pages onto the
    /// heads of their lists, oldest first (so the newest ends nearest the head), each counted
    /// in its list's size from now on.
    pub fn drain(&mut self) {
        let mut batch = std::mem::take(&mut self.batch);
        self.stat_updates(LRU_ADD_UPDATES * batch.len() as u64);
        for &(x, l) in &batch {
            self.push_head(x, l);
        }
        batch.clear();
        self.batch = batch;
    }

    /// 6.1's `do_wp_page` moves the batch onto the lists when the page a write-protect fault
    /// reuses is on no list yet (`wp_can_reuse_anon_folio`'s `lru_add_drain`, mm/memory.c).
    pub fn drain_if_pending(&mut self, page: u32) {
        if self.place[page as usize] == PENDING {
            self.drain();
        }
    }

    /// `memcg_rstat_updated` (6.1): `n` counter updates, summed as absolute values, on the
    /// guest's one CPU; each time more than a batch has gathered, the batches are passed on
    /// (`stats_flush_threshold`) and the CPU's count starts again. The driver adds the updates
    /// of events outside the lists (`linux::fault_stats`).
    pub fn stat_updates(&mut self, n: u64) {
        self.pending += n;
        if self.pending > STAT_BATCH {
            self.batches += self.pending / STAT_BATCH;
            self.pending = 0;
        }
    }

    /// The flush at the start of each `shrink_node` (`prepare_scan_count`). 6.1 calls
    /// `mem_cgroup_flush_stats`, which flushes once more batches have passed than there are
    /// CPUs. 6.12 calls `mem_cgroup_flush_stats_ratelimited`, which flushes only when the
    /// 2-s periodic flusher (`flush_memcg_stats_dwork`, the driver's [`Self::flush_stats`])
    /// is a whole period late, so the copies stay as that flusher left them; before its first
    /// run they are as before the replay: no active page, no activation
    /// (see [`Self::flush_periodically`]).
    fn flush_at_shrink_node(&mut self, c: &Workingset) {
        if self.kernel == Kernel::V6_1 && self.batches > GUEST_CPUS {
            self.flush_stats(c);
        }
    }

    /// What `lruvec_page_state` returns: the flushed copies, or (6.12 without the periodic
    /// flusher modelled, see [`Self::flush_periodically`]) the lists' sizes now.
    fn read_counters(&self) -> Flushed {
        if self.reads_flushed() {
            self.flushed
        } else {
            Flushed {
                inactive: u64::from(self.len(INACTIVE)),
                active: u64::from(self.len(ACTIVE)),
                activate: self.flushed.activate,
            }
        }
    }

    /// As [`Self::read_counters`], with the activations counted so far.
    fn read_counters_with(&self, c: &Workingset) -> Flushed {
        if self.reads_flushed() {
            self.flushed
        } else {
            Flushed {
                activate: c.activate,
                ..self.read_counters()
            }
        }
    }

    fn reads_flushed(&self) -> bool {
        self.kernel == Kernel::V6_1 || self.periodic_flush
    }

    /// The driver runs the 2-s periodic flusher on its clock ([`Self::flush_stats`]): 6.1
    /// then has it besides the reclaim's flushes; 6.12 reads the flushed copies too, brought up
    /// to date only by that flusher. Without it, 6.12 reads
    /// the lists' sizes as they are: the flushed reading, run with a fitted clock, faults 8-75
    /// times as often as the kernel on two write-only patterns (docs/policies/linux-replay.md).
    pub fn flush_periodically(&mut self) {
        self.periodic_flush = true;
    }

    /// `cgroup_rstat_flush`: the counters' copies brought up to date.
    pub fn flush_stats(&mut self, c: &Workingset) {
        self.flushed = Flushed {
            inactive: u64::from(self.len(INACTIVE)),
            active: u64::from(self.len(ACTIVE)),
            activate: c.activate,
        };
        self.batches = 0;
    }

    /// `page` left memory without reclaim (not used by the replay; the lab's `forget`).
    pub fn forget(&mut self, page: u32) {
        let i = page as usize;
        match self.place[i] {
            ABSENT => {}
            PENDING => self.batch.retain(|&(x, _)| x != page),
            l => self.links.remove(&mut self.lists[l as usize], page),
        }
        self.place[i] = ABSENT;
        self.young[i] = false;
        self.referenced[i] = false;
        self.workingset[i] = false;
    }

    /// `lru_note_cost` (mm/swap.c): the cost is the pages written (6.1), or 32 per page
    /// written plus the pages rotated (6.12); it is added, and both costs halve once they pass
    /// a quarter of the lruvec's pages.
    fn note_cost(&mut self, io: u64, rotated: u64) {
        self.anon_cost += match self.kernel {
            Kernel::V6_1 => io,
            Kernel::V6_12 => io * u64::from(CHUNK) + rotated,
        };
        let seen = self.read_counters();
        if self.anon_cost > (seen.inactive + seen.active) / 4 {
            self.anon_cost /= 2;
        }
    }

    /// `inactive_is_low` (mm/vmscan.c): inactive × ratio < active, the ratio √(10 × GB) of the
    /// two lists, 1 below 1 GB; the sizes as last flushed (`lruvec_page_state`).
    fn inactive_is_low(&self) -> bool {
        let Flushed {
            inactive, active, ..
        } = self.read_counters();
        let gb = (inactive + active) >> 18;
        let ratio = if gb == 0 { 1 } else { (10 * gb).isqrt() };
        inactive * ratio < active
    }

    /// `get_scan_count` (mm/vmscan.c) for a cgroup with anonymous pages only: each list's size
    /// shifted right by the priority, times the anon share `ap / (ap + fp)` of swappiness and
    /// the recorded costs (SCAN_FRACT); at priority 0 the whole list (SCAN_EQUAL); nothing at
    /// swappiness 0 (a cgroup reclaim then scans file pages only).
    fn scan_targets(&self, priority: u32) -> [u64; 2] {
        let sizes = [u64::from(self.len(INACTIVE)), u64::from(self.len(ACTIVE))];
        let sw = u64::from(self.swappiness);
        if sw == 0 {
            return [0, 0];
        }
        if priority == 0 {
            return sizes;
        }
        let total = self.anon_cost;
        let (anon_cost, file_cost) = (total + self.anon_cost, total);
        let total = anon_cost + file_cost;
        let ap = sw * (total + 1) / (anon_cost + 1);
        let fp = (200 - sw) * (total + 1) / (file_cost + 1);
        sizes.map(|s| (s >> priority) * ap / (ap + fp))
    }

    /// `try_to_free_mem_cgroup_pages` → `do_try_to_free_pages`: priorities 12 down to 0, each
    /// one `shrink_lruvec`, until `nr_to_reclaim` pages are freed; if nothing was freed because
    /// deactivation was not allowed, once more with deactivation forced. Evicted pages are
    /// appended to `out`, oldest first.
    pub fn reclaim(&mut self, nr_to_reclaim: u32, out: &mut Vec<u32>, c: &mut Workingset) {
        let mut reclaimed = 0u32;
        let mut force = false;
        let mut retry = self.full_walk_retry;
        // `skipped_deactivate` outlives the full-walk retry; the forced retry clears it.
        let mut skipped = false;
        self.events.push(ReclaimEvent::ReclaimBegin);
        let pages = self.resident();
        self.events.push(ReclaimEvent::LruPages { pages });
        loop {
            for priority in (0..=DEF_PRIORITY).rev() {
                // prepare_scan_count: deactivate when the inactive list is low, or when
                // refaults have activated pages since the last reclaim (a new workingset);
                // both read from the flushed counters.
                self.flush_at_shrink_node(c);
                let may_deactivate = force
                    || self.read_counters_with(c).activate != self.refaults_seen
                    || self.inactive_is_low();
                let targets = self.scan_targets(priority);
                let scan = Scan {
                    priority,
                    targets,
                    may_deactivate,
                };
                self.vmpressure.pass(priority);
                reclaimed += self.shrink_lruvec(scan, nr_to_reclaim, out, &mut skipped);
                self.vmpressure.pass_end();
                if reclaimed >= nr_to_reclaim {
                    break;
                }
            }
            self.refaults_seen = self.read_counters_with(c).activate;
            if reclaimed == 0 && std::mem::take(&mut retry) {
                continue; // 6.12: once more from the start with `memcg_full_walk`
            }
            if reclaimed > 0 || !skipped || force {
                self.events.push(ReclaimEvent::ReclaimEnd { reclaimed });
                return;
            }
            (force, skipped) = (true, false);
        }
    }

    /// `shrink_lruvec`: the inactive and active targets in chunks of 32, inactive first, while
    /// inactive pages remain to scan and this call has freed fewer than `nr_to_reclaim`; then
    /// 32 active pages deactivated if the inactive list is low. Returns the pages freed.
    fn shrink_lruvec(
        &mut self,
        scan: Scan,
        nr_to_reclaim: u32,
        out: &mut Vec<u32>,
        skipped: &mut bool,
    ) -> u32 {
        let Scan {
            priority,
            targets: [mut inactive, mut active],
            may_deactivate,
        } = scan;
        let mut reclaimed = 0;
        while inactive > 0 {
            let n = inactive.min(u64::from(CHUNK));
            inactive -= n;
            reclaimed += self.shrink_inactive(n as u32, priority, out);
            if active > 0 {
                let n = active.min(u64::from(CHUNK));
                active -= n;
                if may_deactivate {
                    self.shrink_active(n as u32, priority);
                } else {
                    *skipped = true;
                }
            }
            if reclaimed >= nr_to_reclaim {
                break;
            }
        }
        if self.inactive_is_low() {
            self.shrink_active(CHUNK, priority);
        }
        reclaimed
    }

    /// `shrink_inactive_list` → `shrink_folio_list` with `folio_check_references`, the batch
    /// moved onto the lists first (`lru_add_drain`): up to `n` pages from the inactive tail, oldest first. Young: `PG_referenced` set; if it was set
    /// already (used twice, or again after a deactivation) activated, else kept. Not young:
    /// swapped out and freed (a synchronous device completes the write at once), leaving a
    /// shadow (`workingset_eviction`: stamped with the age, which then moves on one). Kept pages go
    /// back to the inactive head and activated ones to the active head in their order; each
    /// activation moves the age on one (`move_folios_to_lru`). The pages written are the cost.
    fn shrink_inactive(&mut self, n: u32, priority: u32, out: &mut Vec<u32>) -> u32 {
        self.drain();
        let mut back: Vec<(u32, u8)> = Vec::new();
        let mut freed = 0;
        let scanned = n.min(self.len(INACTIVE));
        self.vmpressure.scanned(u64::from(scanned));
        for _ in 0..scanned {
            let x = self.take_tail(INACTIVE);
            let i = x as usize;
            let was_referenced = std::mem::take(&mut self.referenced[i]);
            if std::mem::take(&mut self.young[i]) {
                self.referenced[i] = true;
                back.push((x, if was_referenced { ACTIVE } else { INACTIVE }));
                continue;
            }
            // workingset_eviction: the stamp is the age read before this eviction moves it on.
            self.shadow[i] = (self.age << 1) | u64::from(self.workingset[i]);
            self.age += 1;
            self.workingset[i] = false;
            out.push(x);
            freed += 1;
        }
        self.stat_updates(
            ISOLATE_UPDATES * u64::from(scanned)
                + EVICT_UPDATES * u64::from(freed)
                + back.len() as u64,
        );
        if scanned > 0 {
            // The kernel's tracepoint fires only when pages were isolated.
            let activated = back.iter().filter(|b| b.1 == ACTIVE).count() as u32;
            self.events.push(ReclaimEvent::ShrinkInactive {
                priority,
                scanned,
                reclaimed: freed,
                activated,
                kept: back.len() as u32 - activated,
            });
        }
        for (x, l) in back {
            if l == ACTIVE {
                self.age += 1;
                self.stat_updates(1);
            }
            self.push_head(x, l);
        }
        self.note_cost(
            u64::from(freed),
            u64::from(n.min(scanned)) - u64::from(freed),
        );
        freed
    }

    /// `shrink_active_list`, the batch moved onto the lists first: up to `n` pages from the
    /// active tail, oldest first; the accessed
    /// bit is read and cleared (`folio_referenced`) but only executable file pages stay active,
    /// so every anonymous page is deactivated with `PG_workingset` set, to the inactive head
    /// in order. `PG_referenced` is left as it was.
    fn shrink_active(&mut self, n: u32, priority: u32) {
        self.drain();
        let n = n.min(self.len(ACTIVE));
        self.events.push(ReclaimEvent::ShrinkActive {
            priority,
            taken: n,
            deactivated: n,
        });
        self.stat_updates(DEACTIVATE_UPDATES * u64::from(n));
        for _ in 0..n {
            let x = self.take_tail(ACTIVE);
            self.young[x as usize] = false;
            self.workingset[x as usize] = true;
            self.push_head(x, INACTIVE);
        }
    }

    /// The lists, each newest first, for step mode and tests: (active, inactive).
    pub fn lists(&self) -> (Vec<u32>, Vec<u32>) {
        (
            self.links.collect(&self.lists[ACTIVE as usize]),
            self.links.collect(&self.lists[INACTIVE as usize]),
        )
    }

    /// The pages in the `lru_add` batch, oldest first, for step mode and tests.
    pub fn batch(&self) -> Vec<u32> {
        self.batch.iter().map(|&(x, _)| x).collect()
    }

    /// Grows the per-page tables to `page_bound` pages.
    pub fn reserve(&mut self, page_bound: u32) {
        let n = page_bound as usize;
        self.links.reserve_pages(page_bound);
        if self.place.len() < n {
            self.place.resize(n, ABSENT);
            self.young.resize(n, false);
            self.referenced.resize(n, false);
            self.workingset.resize(n, false);
            self.shadow.resize(n, NO_SHADOW);
        }
    }
}

#[cfg(test)]
#[path = "linux_two_list_tests.rs"]
mod tests;

//! The multi-generational LRU of anonymous pages as a memory cgroup's reclaim runs it
//! (`lru_gen` on), rule by rule from mm/vmscan.c, mm/workingset.c and
//! include/linux/mm_inline.h of Debian's 6.1 (6.1.192) and 6.12 (6.12.117).
//!
//! ```text
//!  generations min_seq … max_seq (2 to 4); a fault adds its page to max_seq (PG_active in fault)
//!  reclaim, priority 12 → 0, until 32 pages are freed; per priority, while scanned < target:
//!    too few generations (or badly spread) → aging: if the task was switched in since the
//!      last walk, walk the page tables, every young PTE cleared and its page, if older,
//!      moved to max_seq; then max_seq + 1
//!    eviction (evict_folios): from the oldest generation's tail, up to 64 pages isolated;
//!      a protected tier → min_seq + 1; young PTE → look-around of 64 PTEs (young neighbours
//!      to max_seq, bits cleared) and back to max_seq; not young → swapped out
//!  refault: a shadow stamped with min_seq; refaults, tiers and the PID controller (get_tier_idx)
//! ```
//!
//! The two versions differ where said (`V6_1` / `V6_12`). Facts only; no code was taken.

use super::kernel::{EventLog, GenerationsAt, Kernel, ReclaimEvent, Vmpressure, Workingset};
use super::linux_mglru_walk::{suitable_to_scan, WalkGate, PTRS_PER_PTE};
use super::list::{Links, List};
use super::NIL;

const MIN_NR_GENS: u64 = 2;
const MAX_NR_GENS: u64 = 4;
const MAX_NR_TIERS: usize = 4;
/// `LRU_REFS_WIDTH` on x86-64 (include/linux/page-flags-layout.h): two bits of access count.
const REFS_MAX: u8 = 3;
/// `MIN_LRU_BATCH` (include/linux/mmzone.h): `BITS_PER_LONG`.
const MIN_LRU_BATCH: u64 = 64;
/// `MAX_LRU_BATCH`: folios one `scan_folios` may look at.
const MAX_LRU_BATCH: u32 = 64 * 64;
const DEF_PRIORITY: u32 = 12;
const NO_GEN: u64 = u64::MAX;
const NO_SHADOW: u64 = u64::MAX;

/// Histories of the PID controller's books (`NR_HIST_GENS`, include/linux/mmzone.h): 1, as
/// both Debian kernels build without `CONFIG_LRU_GEN_STATS`.
const NR_HIST_GENS: usize = 1;

/// The PID controller's books per tier (`lru_gen_folio`: `avg_*`, `refaulted`, `evicted`,
/// `protected`), for the anon type only.
#[derive(Clone, Debug, Default)]
struct Ctrl {
    avg_refaulted: [u64; MAX_NR_TIERS],
    avg_total: [u64; MAX_NR_TIERS],
    refaulted: [[u64; MAX_NR_TIERS]; NR_HIST_GENS],
    evicted: [[u64; MAX_NR_TIERS]; NR_HIST_GENS],
    protected: [[u64; MAX_NR_TIERS - 1]; NR_HIST_GENS],
}

/// Anonymous pages in generations of one cgroup's lruvec.
#[derive(Clone, Debug)]
pub struct Mglru {
    kernel: Kernel,
    /// 6.12's `do_try_to_free_pages`: a pass that frees nothing runs once more with
    /// `memcg_full_walk` (docs/readings.md `linux-6.12-full-walk-retry`).
    pub full_walk_retry: bool,
    links: Links,
    gens: [List; MAX_NR_GENS as usize],
    /// Each resident page's generation (`seq`), [`NO_GEN`] otherwise (or while isolated).
    seq: Vec<u64>,
    young: Vec<bool>,
    /// `PG_referenced`, `PG_workingset` and the `LRU_REFS` access count.
    referenced: Vec<bool>,
    workingset: Vec<bool>,
    refs: Vec<u8>,
    /// min_seq at eviction << 3 | the eviction's refs (count + workingset, 0-4).
    shadow: Vec<u64>,
    min_seq: u64,
    max_seq: u64,
    ctrl: Ctrl,
    /// Pages of the mapping: the look-around's window stays inside it.
    vma_pages: u32,
    resident: u32,
    /// When the aging walks the page tables, and which tables (`linux_mglru_walk.rs`).
    gate: WalkGate,
    /// Agings so far.
    pub n_agings: u64,
    /// Agings that walked the page tables.
    pub n_walks: u64,
    /// The reclaim's steps, when recorded (`pagelab linux predict --reclaim-events`).
    pub events: EventLog,
    /// The cgroup's vmpressure window: its works switch the reclaiming task out.
    pub vmpressure: Vmpressure,
    /// The priority of the pass under way (for the events).
    priority: u32,
    /// The look-around queues its promotions on the CPU's activate batch
    /// (docs/readings.md `linux-lookaround-batch`; `linux_mglru_lookaround.rs`).
    pub lookaround_batch: bool,
    /// The activate batch (`cpu_fbatches.activate`), oldest first, and how many of its entries
    /// hold each page.
    activate: Vec<u32>,
    held: Vec<u16>,
    /// 6.1: an aging in this `lru_gen_shrink_lruvec` left its walk in hand (`set_mm_walk`).
    walk_in_hand: bool,
    /// Pages the eviction unmapped but could not free (the batch held them), not yet taken.
    unmapped: Vec<u32>,
}

fn tier_of(refs: u8) -> usize {
    // lru_tier_from_refs: order_base_2(refs + 1).
    match refs {
        0 => 0,
        1 => 1,
        2 | 3 => 2,
        _ => 3,
    }
}

impl Mglru {
    /// Empty generations for a mapping of `vma_pages` pages (the kernel starts at four).
    pub fn new(kernel: Kernel, vma_pages: u32) -> Mglru {
        let n = vma_pages as usize;
        Mglru {
            kernel,
            links: Links::new(vma_pages),
            gens: [List::default(); MAX_NR_GENS as usize],
            seq: vec![NO_GEN; n],
            young: vec![false; n],
            referenced: vec![false; n],
            workingset: vec![false; n],
            refs: vec![0; n],
            shadow: vec![NO_SHADOW; n],
            min_seq: 0,
            max_seq: MAX_NR_GENS - 1,
            ctrl: Ctrl::default(),
            vma_pages,
            resident: 0,
            gate: WalkGate::new(kernel),
            n_agings: 0,
            n_walks: 0,
            events: EventLog::default(),
            vmpressure: Vmpressure::default(),
            priority: DEF_PRIORITY,
            full_walk_retry: false,
            lookaround_batch: false,
            activate: Vec::new(),
            held: vec![0; n],
            walk_in_hand: false,
            unmapped: Vec::new(),
        }
    }

    /// Pages resident.
    pub fn resident(&self) -> u32 {
        self.resident
    }

    /// Pages the tables cover.
    pub fn bound(&self) -> usize {
        self.seq.len()
    }

    /// Whether `page` is resident.
    pub fn is_resident(&self, page: u32) -> bool {
        self.seq[page as usize] != NO_GEN
    }

    fn list(&mut self, seq: u64) -> &mut List {
        &mut self.gens[(seq % MAX_NR_GENS) as usize]
    }

    fn size(&self, seq: u64) -> u64 {
        u64::from(self.gens[(seq % MAX_NR_GENS) as usize].len)
    }

    /// `lru_hist_from_seq(min_seq)`: seq % `NR_HIST_GENS`, so always the one history.
    fn hist(&self) -> usize {
        0
    }

    fn push_head(&mut self, x: u32, seq: u64) {
        let l = (seq % MAX_NR_GENS) as usize;
        self.links.push_front(&mut self.gens[l], x);
        self.seq[x as usize] = seq;
    }

    fn push_tail(&mut self, x: u32, seq: u64) {
        let l = (seq % MAX_NR_GENS) as usize;
        self.links.push_back(&mut self.gens[l], x);
        self.seq[x as usize] = seq;
    }

    fn unlink(&mut self, x: u32) {
        let s = self.seq[x as usize];
        let l = (s % MAX_NR_GENS) as usize;
        self.links.remove(&mut self.gens[l], x);
        self.seq[x as usize] = NO_GEN;
    }

    /// A reference sets the PTE's accessed bit; no list moves.
    pub fn touch(&mut self, page: u32) {
        self.young[page as usize] = true;
        self.gate.walked_through(page);
    }

    /// `PG_workingset` of a resident page: set by a refault in a fault (`lru_gen_refault`),
    /// cleared by `folio_update_gen` and `folio_inc_gen`.
    pub fn is_workingset(&self, page: u32) -> bool {
        self.workingset[page as usize]
    }

    /// The fault maps `page` young and adds it (`folio_add_lru` sets `PG_active` in a fault, so
    /// `lru_gen_add_folio` puts it in max_seq). A swap-in with a shadow is a refault
    /// (`lru_gen_refault`): 6.1 counts it only if min_seq has not moved since the eviction,
    /// 6.12 always; when min_seq has not moved, the tier's refaults are counted (6.12 also
    /// counts an activation) and, being in a fault, the page gets the full access count and
    /// `PG_workingset` (a restore). 6.12's `lru_gen_add_folio` then clears the count and
    /// `PG_referenced` of an active page, keeping `PG_workingset` (tier 1); 6.1 keeps the count
    /// (refs 4, which `sort_folio` always protects once).
    pub fn add(&mut self, page: u32, c: &mut Workingset) {
        let i = page as usize;
        self.young[i] = true;
        self.gate.walked_through(page);
        self.referenced[i] = false;
        self.workingset[i] = false;
        self.refs[i] = 0;
        let shadow = std::mem::replace(&mut self.shadow[i], NO_SHADOW);
        if shadow != NO_SHADOW {
            let recent = shadow >> 3 == self.min_seq;
            if recent || self.kernel == Kernel::V6_12 {
                c.refault += 1;
            }
            if recent {
                let refs = (shadow & 7) as u8;
                // token's low bits hold max(refs − 1, 0); the shadow's workingset bit adds one.
                let refs = refs.saturating_sub(1) + u8::from(refs > 0);
                let h = self.hist();
                self.ctrl.refaulted[h][tier_of(refs)] += 1;
                if self.kernel == Kernel::V6_12 {
                    c.activate += 1;
                }
                self.workingset[i] = true;
                self.refs[i] = if self.kernel == Kernel::V6_1 {
                    REFS_MAX
                } else {
                    0
                };
                c.restore += 1;
            }
        }
        self.push_head(page, self.max_seq);
        self.resident += 1;
    }

    /// A new page no PTE maps, with `PG_referenced` set (the replayer's report page in tmpfs,
    /// `linux::report`), added outside a fault: `lru_gen_add_folio` puts an anonymous-type
    /// folio outside the swap cache in max_seq − 1. No walk or look-around finds it young.
    pub fn add_unmapped(&mut self, page: u32) {
        let i = page as usize;
        self.young[i] = false;
        self.referenced[i] = true;
        self.workingset[i] = false;
        self.refs[i] = 0;
        self.shadow[i] = NO_SHADOW;
        self.push_head(page, self.max_seq - 1);
        self.resident += 1;
    }

    /// `folio_update_gen` and `folio_inc_gen` clear `LRU_REFS_MASK` and `LRU_REFS_FLAGS`.
    fn clear_refs(&mut self, x: u32) {
        let i = x as usize;
        self.refs[i] = 0;
        self.referenced[i] = false;
        self.workingset[i] = false;
    }

    /// `folio_lru_refs`: the access count plus `PG_workingset`.
    fn lru_refs(&self, x: u32) -> u8 {
        self.refs[x as usize] + u8::from(self.workingset[x as usize])
    }

    /// `try_to_free_mem_cgroup_pages` with `lru_gen` on: priorities 12 down to 0, each
    /// `lru_gen_shrink_lruvec`, until `nr_to_reclaim` pages are freed. Evicted pages are
    /// appended to `out`.
    pub fn reclaim(&mut self, nr_to_reclaim: u32, out: &mut Vec<u32>, c: &mut Workingset) {
        let start = out.len();
        self.events.push(ReclaimEvent::ReclaimBegin);
        let pages = self.resident;
        self.events.push(ReclaimEvent::LruPages { pages });
        for pass in 0..=u8::from(self.full_walk_retry) {
            // 6.12: the second pass only if the first freed nothing (`memcg_full_walk`).
            if pass > 0 && out.len() > start {
                break;
            }
            self.pass(nr_to_reclaim, start, out, c);
        }
        let reclaimed = (out.len() - start) as u32;
        self.events.push(ReclaimEvent::ReclaimEnd { reclaimed });
    }

    /// One pass of `do_try_to_free_pages`: priorities 12 down to 0 until `nr_to_reclaim`
    /// pages have been freed since `start`.
    fn pass(&mut self, nr_to_reclaim: u32, start: usize, out: &mut Vec<u32>, c: &mut Workingset) {
        for priority in (0..=DEF_PRIORITY).rev() {
            self.priority = priority;
            // A vmpressure work queued at the pass's start preempts the replayer at the first
            // `cond_resched` of `shrink_node_memcgs`, before this pass's aging; one queued at
            // its end, before the next pass's. Switching back re-arms the walk either way.
            let works = self.vmpressure.works;
            self.vmpressure.pass(priority);
            if self.vmpressure.works > works {
                self.gate.arm();
            }
            // lru_gen_shrink_lruvec begins with lru_add_drain, which moves the activate batch.
            self.drain_activate();
            self.walk_in_hand = false;
            match self.kernel {
                Kernel::V6_1 => self.shrink_lruvec_6_1(priority, nr_to_reclaim, start, out, c),
                Kernel::V6_12 => self.shrink_lruvec_6_12(priority, out, c),
            }
            let works = self.vmpressure.works;
            self.vmpressure.pass_end();
            if self.vmpressure.works > works {
                self.gate.arm();
            }
            if out.len() - start >= nr_to_reclaim as usize {
                break;
            }
        }
    }

    /// `should_run_aging`: (aging needed, the pages of all generations). Aging is needed at
    /// two generations, and at three when more than half the pages are in the youngest or
    /// less than a quarter in the oldest but one... the oldest of the three.
    fn should_run_aging(&self) -> (bool, u64) {
        let total: u64 = (self.min_seq..=self.max_seq).map(|s| self.size(s)).sum();
        if self.min_seq + MIN_NR_GENS > self.max_seq {
            return (true, total);
        }
        if self.min_seq + MIN_NR_GENS < self.max_seq {
            return (false, total);
        }
        let young = self.size(self.max_seq);
        let old = self.size(self.max_seq - MIN_NR_GENS);
        (
            young * MIN_NR_GENS > total || old * (MIN_NR_GENS + 2) < total,
            total,
        )
    }

    /// 6.1's `lru_gen_shrink_lruvec`: `get_nr_to_scan` (total >> priority; when aging is
    /// needed it ages first below the default priority, and at the default priority scans
    /// only with three generations or more), then `evict_folios` until that many are
    /// scanned, stopping once the reclaim has its pages and swapped (`should_abort_scan`) or
    /// max_seq moved twice.
    fn shrink_lruvec_6_1(
        &mut self,
        priority: u32,
        nr_to_reclaim: u32,
        start: usize,
        out: &mut Vec<u32>,
        c: &mut Workingset,
    ) {
        let seq0 = self.max_seq;
        let mut scanned = 0;
        loop {
            let (aging, total) = self.should_run_aging();
            let mut nr = total >> priority;
            if aging {
                if priority == DEF_PRIORITY {
                    if self.min_seq + MIN_NR_GENS > self.max_seq {
                        nr = 0;
                    }
                } else {
                    self.age();
                    self.walk_in_hand = true;
                }
            }
            if nr == 0 {
                return;
            }
            let before = out.len();
            let delta = self.evict_folios(out, c);
            if delta == 0 {
                return;
            }
            scanned += delta;
            if scanned >= nr {
                return;
            }
            let swapped = out.len() > before;
            if self.max_seq - seq0 > 1 || (out.len() - start >= nr_to_reclaim as usize && swapped) {
                return;
            }
        }
    }

    /// 6.12's `try_to_shrink_lruvec`: `get_nr_to_scan` (without aging, or at the default
    /// priority, total >> priority; else it ages and stops this lruvec for this priority),
    /// then `evict_folios` until that many are scanned; a cgroup reclaim never aborts early.
    fn shrink_lruvec_6_12(&mut self, priority: u32, out: &mut Vec<u32>, c: &mut Workingset) {
        let mut scanned = 0;
        loop {
            self.record_generations(GenerationsAt::Shrink);
            let (aging, total) = self.should_run_aging();
            let total = if self.min_seq + MIN_NR_GENS > self.max_seq {
                0
            } else {
                total
            };
            if aging && priority != DEF_PRIORITY {
                self.age();
                return;
            }
            let nr = total >> priority;
            if nr == 0 {
                return;
            }
            let delta = self.evict_folios(out, c);
            if delta == 0 {
                return;
            }
            scanned += delta;
            if scanned >= nr {
                return;
            }
        }
    }

    /// 6.12: the generations at `at`, when the steps are recorded.
    fn record_generations(&mut self, at: GenerationsAt) {
        if self.kernel != Kernel::V6_12 || !self.events.recording() {
            return;
        }
        let sizes = (self.min_seq..=self.max_seq)
            .map(|s| self.size(s))
            .collect();
        self.events.push(ReclaimEvent::Generations {
            at,
            priority: self.priority,
            min_seq: self.min_seq,
            max_seq: self.max_seq,
            sizes,
        });
    }

    /// `try_to_inc_max_seq`. If the walk runs ([`Mglru::walk_tables`]), every young PTE in
    /// the tables it visits is cleared, `folio_update_gen` clearing its page's access count,
    /// `PG_referenced` and `PG_workingset`, and a page of an older generation moves to
    /// max_seq (met oldest generation first, tail first, as `sort_folio` later files them);
    /// a page already in max_seq keeps its place, since only its generation number would
    /// change. Then `inc_max_seq` adds an empty youngest generation.
    fn age(&mut self) {
        self.record_generations(GenerationsAt::Age);
        let mut walk = Vec::new();
        // should_skip_mm and walk_pmd_range: which tables, if any, this aging walks.
        if let Some(tables) = self.walk_tables() {
            self.n_walks += 1;
            for s in self.min_seq..=self.max_seq {
                let mut x = self.gens[(s % MAX_NR_GENS) as usize].tail;
                while x != NIL {
                    if self.young[x as usize] && tables[(x / PTRS_PER_PTE) as usize] {
                        walk.push(x);
                    }
                    x = self.links.prev(x);
                }
            }
        }
        for x in walk {
            self.young[x as usize] = false;
            self.clear_refs(x);
            // folio_update_gen to max_seq: a page already there keeps its place.
            if self.seq[x as usize] != self.max_seq {
                self.unlink(x);
                self.push_head(x, self.max_seq);
            }
        }
        // reset_ctrl_pos without carry-over clears a history only when there are several;
        // with one it is cleared as min_seq moves.
        self.max_seq += 1;
        self.n_agings += 1;
    }

    /// The tables this aging's walk visits (`iterate_mm_list`, `walk_pmd_range`), or None when
    /// it does not walk; each visited table where one PTE of the mapping's in 8 is young goes
    /// into the next generation's filter (`walk_pte_range` → `suitable_to_scan`).
    fn walk_tables(&mut self) -> Option<Vec<bool>> {
        let w = self.gate.begin(self.max_seq)?;
        let pages = self.young.len() as u32;
        let mut tables = vec![false; pages.div_ceil(PTRS_PER_PTE) as usize];
        for (t, visit) in tables.iter_mut().enumerate() {
            let start = t as u32 * PTRS_PER_PTE;
            *visit = self.gate.visits(w, start);
            if !*visit {
                continue;
            }
            let end = (start + PTRS_PER_PTE).min(pages);
            let young = (start..end)
                .filter(|&y| self.young[y as usize] && self.seq[y as usize] != NO_GEN)
                .count() as u32;
            if suitable_to_scan(end - start, young) {
                self.gate.mark(w.seq + 1, start);
            }
        }
        Some(tables)
    }

    /// `reset_ctrl_pos`'s clearing of history `h`: its refaults, evictions and protections.
    fn clear_hist(&mut self, h: usize) {
        self.ctrl.refaulted[h] = [0; MAX_NR_TIERS];
        self.ctrl.evicted[h] = [0; MAX_NR_TIERS];
        self.ctrl.protected[h] = [0; MAX_NR_TIERS - 1];
    }

    /// `try_to_inc_min_seq`: empty oldest generations are retired while more than two remain;
    /// each move folds the new min_seq's history into the averages and, with one history,
    /// clears it (`reset_ctrl_pos` with carry-over). Returns whether min_seq moved.
    fn try_to_inc_min_seq(&mut self) -> bool {
        let mut moved = false;
        while self.min_seq + MIN_NR_GENS <= self.max_seq && self.size(self.min_seq) == 0 {
            self.min_seq += 1;
            moved = true;
        }
        if moved {
            let h = self.hist();
            let k = &mut self.ctrl;
            for t in 0..MAX_NR_TIERS {
                k.avg_refaulted[t] = (k.avg_refaulted[t] + k.refaulted[h][t]) / 2;
                let prot = if t > 0 { k.protected[h][t - 1] } else { 0 };
                k.avg_total[t] = (k.avg_total[t] + k.evicted[h][t] + prot) / 2;
            }
            self.clear_hist(h);
        }
        moved
    }

    /// `get_tier_idx`: the PID controller compares each tier's refault rate (gain 2) with
    /// tier 0's (gain 1); the first tier that refaults more than that ends the eligible
    /// tiers. Tiers above the returned index are protected.
    fn tier_idx(&self) -> usize {
        let h = self.hist();
        let k = &self.ctrl;
        let pos = |t: usize| {
            let refaulted = k.avg_refaulted[t] + k.refaulted[h][t];
            let prot = if t > 0 { k.protected[h][t - 1] } else { 0 };
            (refaulted, k.avg_total[t] + k.evicted[h][t] + prot)
        };
        let (sp_ref, sp_tot) = pos(0);
        for t in 1..MAX_NR_TIERS {
            let (pv_ref, pv_tot) = pos(t);
            let positive = pv_ref < MIN_LRU_BATCH
                || pv_ref * (sp_tot + MIN_LRU_BATCH) <= (sp_ref + 1) * pv_tot * 2;
            if !positive {
                return t - 1;
            }
        }
        MAX_NR_TIERS - 1
    }

    /// `evict_folios`: isolate from the oldest generation (`scan_folios`), retire empty
    /// generations, then `shrink_folio_list` each isolated page and put the rejected back.
    /// Returns the pages scanned (0 once only two generations remain).
    fn evict_folios(&mut self, out: &mut Vec<u32>, c: &mut Workingset) -> u64 {
        self.record_generations(GenerationsAt::Evict);
        let mut isolated = Vec::new();
        let mut scanned = self.scan_folios(&mut isolated, c);
        scanned += u64::from(self.try_to_inc_min_seq());
        if self.max_seq - self.min_seq + 1 == MIN_NR_GENS {
            scanned = 0;
        }
        // Every isolated page goes through shrink_folio_list (sc->nr_scanned).
        self.vmpressure.scanned(isolated.len() as u64);
        let mut rejected = Vec::new();
        let (before, mut kept) = (out.len(), 0);
        for &x in &isolated {
            match self.rejected(x, &isolated) {
                Some(young) => {
                    rejected.push(x);
                    kept += u32::from(young);
                }
                None => self.evict(x, out, c),
            }
        }
        if !isolated.is_empty() {
            // evict_folios' tracepoint: pages scanned (0 once two generations remain), freed,
            // and kept for a young PTE (`nr_ref_keep`); a page kept because a look-around tried
            // to promote it is counted nowhere, and none is activated (one PTE each).
            self.events.push(ReclaimEvent::ShrinkInactive {
                priority: self.priority,
                scanned: scanned as u32,
                reclaimed: (out.len() - before) as u32,
                activated: 0,
                kept,
            });
        }
        // Rejected pages: the access count and flags cleared, PG_active set, so back to the
        // head of max_seq in their order (evict_folios, then move_folios_to_lru).
        for &x in rejected.iter().rev() {
            let i = x as usize;
            self.refs[i] = 0;
            self.referenced[i] = false;
            self.workingset[i] = false;
            self.push_head(x, self.max_seq);
            self.resident += 1;
        }
        scanned
    }

    /// `scan_folios` with `sort_folio` and `isolate_folio`, oldest generation's tail first: a
    /// page whose tier is above `get_tier_idx`, or whose refs are 4 (`BIT(LRU_REFS_WIDTH)`),
    /// is protected: to the tail of min_seq + 1, its count and flags cleared, counted in the
    /// tier's history (and as an activation in 6.1); the rest are isolated, their count and
    /// `PG_workingset` cleared unless `PG_referenced` is set, then `PG_referenced` cleared.
    /// Stops at 64 isolated or 4096 looked at. Returns the pages looked at (0 if none was
    /// isolated before the limit).
    fn scan_folios(&mut self, isolated: &mut Vec<u32>, c: &mut Workingset) -> u64 {
        let tier_idx = self.tier_idx();
        let h = self.hist();
        let mut remaining = MAX_LRU_BATCH;
        let mut scanned = 0u64;
        let old = self.min_seq;
        while self.size(old) > 0 {
            let x = self.list(old).tail;
            let i = x as usize;
            scanned += 1;
            let refs = self.lru_refs(x);
            let tier = tier_of(refs);
            if tier > tier_idx || refs == REFS_MAX + 1 {
                self.unlink(x);
                self.push_tail(x, old + 1);
                self.refs[i] = 0;
                self.referenced[i] = false;
                self.workingset[i] = false;
                self.ctrl.protected[h][tier - 1] += 1;
                if self.kernel == Kernel::V6_1 {
                    c.activate += 1;
                }
            } else {
                self.unlink(x);
                self.resident -= 1;
                if !self.referenced[i] {
                    self.refs[i] = 0;
                    self.workingset[i] = false;
                }
                self.referenced[i] = false;
                isolated.push(x);
            }
            remaining -= 1;
            if remaining == 0 || isolated.len() as u64 >= MIN_LRU_BATCH {
                break;
            }
        }
        if isolated.is_empty() && remaining > 0 {
            0
        } else {
            scanned
        }
    }

    /// `shrink_folio_list` → `folio_check_references` for an isolated page: `PG_referenced`
    /// set (a look-around found it young while isolated: "tried to promote") → kept; a young
    /// PTE → the look-around runs (`lru_gen_look_around`) and the page is kept
    /// (`FOLIOREF_KEEP`); else reclaimed (None). `Some(young)`: kept, and whether for a young PTE.
    fn rejected(&mut self, x: u32, isolated: &[u32]) -> Option<bool> {
        let i = x as usize;
        if self.referenced[i] {
            return Some(false);
        }
        if !self.young[i] {
            if self.held[i] > 0 {
                // try_to_unmap, then pageout finds the batch's reference: kept, unmapped.
                self.unmapped.push(x);
                return Some(false);
            }
            return None;
        }
        self.look_around(x, isolated);
        Some(true)
    }

    /// `lru_gen_look_around`: the 64 PTEs around `x` inside its page table and the mapping
    /// (centred on it, or pushed against the table's edge). Each young PTE is cleared; its
    /// page, if isolated, gets `PG_referenced`; if on a list in another generation, it is
    /// promoted to max_seq: with `lookaround_batch`, as the kernel does, by way of the
    /// activate batch unless a walk is in hand (`linux_mglru_lookaround.rs`); without it, at
    /// once by `folio_update_gen` (its count and flags cleared), which the old replay also
    /// ran on 6.12's young pages already in max_seq.
    fn look_around(&mut self, x: u32, isolated: &[u32]) {
        let base = x & !(PTRS_PER_PTE - 1);
        let mut start = base;
        let mut end = (base + PTRS_PER_PTE).min(self.vma_pages);
        let half = (MIN_LRU_BATCH / 2) as u32;
        if u64::from(end - start) > MIN_LRU_BATCH {
            if x - start < half {
                end = start + 2 * half;
            } else if end - x < half {
                start = end - 2 * half;
            } else {
                start = x - half;
                end = x + half;
            }
        }
        let mut young = 0;
        let mut moves = Vec::new();
        for y in start..end {
            let j = y as usize;
            if !std::mem::take(&mut self.young[j]) {
                continue;
            }
            young += 1;
            if self.seq[j] != NO_GEN {
                if self.seq[j] != self.max_seq {
                    moves.push(y);
                } else if self.kernel == Kernel::V6_12 && !self.lookaround_batch {
                    self.clear_refs(y);
                }
            } else if y == x || isolated.contains(&y) {
                self.referenced[j] = true;
            }
        }
        if self.lookaround_batch {
            self.promote_queued(&moves);
        } else {
            self.promote_now(&moves);
        }
        // Feedback to the walk: one young PTE in 8 puts the window's table into max_seq's
        // filter (both series count the page the look-around began from).
        if suitable_to_scan(end - start, young) {
            self.gate.mark(self.max_seq, x);
        }
    }

    /// Swapped out and freed (a synchronous device completes the write in `pageout`):
    /// `lru_gen_eviction` stamps the shadow with min_seq and the refs, and counts the
    /// eviction in its tier's history.
    fn evict(&mut self, x: u32, out: &mut Vec<u32>, _c: &mut Workingset) {
        let i = x as usize;
        let refs = self.lru_refs(x);
        let h = self.hist();
        self.ctrl.evicted[h][tier_of(refs)] += 1;
        self.shadow[i] = (self.min_seq << 3) | u64::from(refs);
        self.refs[i] = 0;
        self.workingset[i] = false;
        self.young[i] = false;
        out.push(x);
    }

    /// `page` left memory without reclaim (a system trimmed it): off its list, no shadow.
    pub fn forget(&mut self, page: u32) {
        let i = page as usize;
        if self.seq[i] != NO_GEN {
            self.unlink(page);
            self.resident -= 1;
        }
        self.young[i] = false;
        self.referenced[i] = false;
        self.workingset[i] = false;
        self.refs[i] = 0;
    }

    /// The task was switched back in (`lru_gen_use_mm`, kernel/sched/core.c `context_switch`):
    /// the next aging walks its page tables (`should_skip_mm`).
    pub fn arm_walk(&mut self) {
        self.gate.arm();
    }

    /// The generations, youngest first, each newest first.
    pub fn generations(&self) -> Vec<(u64, Vec<u32>)> {
        (self.min_seq..=self.max_seq)
            .rev()
            .map(|s| {
                (
                    s,
                    self.links.collect(&self.gens[(s % MAX_NR_GENS) as usize]),
                )
            })
            .collect()
    }

    /// Grows the per-page tables to `page_bound` pages (the mapping grows with them).
    pub fn reserve(&mut self, page_bound: u32) {
        let n = page_bound as usize;
        self.links.reserve_pages(page_bound);
        if self.seq.len() < n {
            self.seq.resize(n, NO_GEN);
            self.young.resize(n, false);
            self.referenced.resize(n, false);
            self.workingset.resize(n, false);
            self.refs.resize(n, 0);
            self.shadow.resize(n, NO_SHADOW);
            self.held.resize(n, 0);
        }
        self.vma_pages = self.vma_pages.max(page_bound);
    }
}

#[path = "linux_mglru_lookaround.rs"]
mod lookaround;

#[cfg(test)]
#[path = "linux_mglru_tests.rs"]
mod tests;

//! Swap readahead (Linux's `vm.page-cluster`, mm/swap_state.c's cluster readahead; ours, no
//! paper of the lab has it): a demand read also reads the pages on the other slots of its
//! aligned cluster of 2^k slots, chained in the same channel program, into free frames.
//!
//! ```text
//!  fault on the page at slot s ──► cluster [s & !(2^k − 1), + 2^k) on s's device
//!      every other slot of it whose page is out of storage ──► read too, while frames are free
//!      (not referenced: no waiter; a later fault on it waits for the read or finds it resident)
//! ```
//!
//! Readings (each said here): a slot's page is found by a map kept where a page-out takes its
//! slot, checked against the page table (a stale entry is passed by); readahead takes only
//! frames already free and starts no SELECT of its own (the free list is refilled afterwards
//! as after any fault); a read-ahead page counts as a hit if it was referenced before its frame
//! was taken back, as a miss if not (Linux's swap_ra / swap_ra_hit).

use super::*;
use crate::device::{IoOp, PageIo, SlotAddr};
use crate::monitor::{put_metric, Metric};
use crate::survival::Mark;

/// The readahead's books.
#[derive(Clone, Debug)]
pub(super) struct Readahead {
    /// Slots per cluster (2^page_cluster).
    cluster: u32,
    /// Per device and slot: the page last given the slot, `(owner << 32) | page`.
    owners: Vec<Vec<u64>>,
    /// Frames holding a read-ahead page not yet taken back.
    ahead: Vec<bool>,
    /// Pages read ahead, hits, misses: in total and at the warm-up's end.
    c: [u64; 3],
    warm: [u64; 3],
}

impl Readahead {
    pub(super) fn new(page_cluster: u32, io: &PagingIo, frames: u32) -> Readahead {
        let owners = (0..io.len())
            .map(|d| vec![u64::MAX; io.slots(d).area_slots().1 as usize + 1])
            .collect();
        Readahead {
            cluster: 1 << page_cluster,
            owners,
            ahead: vec![false; frames as usize],
            c: [0; 3],
            warm: [0; 3],
        }
    }

    pub(super) fn warm_up(&mut self) {
        self.warm = self.c;
    }
}

impl System<'_> {
    /// Gives `(owner, page)` the slot at `addr` (page table and, with readahead, its map).
    pub(super) fn give_slot(&mut self, owner: u32, page: u32, addr: SlotAddr) {
        let p = self.mem.pte_mut(owner, page);
        p.slot = addr.slot;
        p.dev = addr.dev;
        if let Some(ra) = self.readahead.as_mut() {
            if let Some(e) = ra.owners[addr.dev as usize].get_mut(addr.slot as usize) {
                *e = (u64::from(owner) << 32) | u64::from(page);
            }
        }
    }

    /// The reads of a demand fault: `io` (the faulting page, on `dev`) and, with readahead,
    /// the pages out of storage on the other slots of its cluster, mapped into free frames.
    pub(super) fn reads_with_readahead(&mut self, dev: u16, io: PageIo) -> Vec<PageIo> {
        let mut reads = vec![io];
        let Some(ra) = self.readahead.as_ref() else {
            return reads;
        };
        let start = io.slot & !(ra.cluster - 1);
        let candidates: Vec<(u32, u32, u32)> = (start..start + ra.cluster)
            .filter(|&s| s != io.slot)
            .filter_map(|s| {
                let e = *ra.owners[dev as usize].get(s as usize)?;
                (e != u64::MAX).then_some((s, (e >> 32) as u32, e as u32))
            })
            .collect();
        for (slot, owner, page) in candidates {
            let pte = self.mem.pte(owner, page).copied();
            let out = pte.is_some_and(|p| p.slot == slot && p.dev == dev && p.frame == NONE);
            if !out {
                continue;
            }
            let Some(f) = self.mem.take_free() else { break };
            self.mem.map(owner, page, f, FrameState::PageIn);
            self.supply.on_load(owner, page, f, self.supply_refs);
            self.steal.reused(f);
            self.survival.marks[f as usize] = Mark { user: NONE, at: 0 };
            self.sup_debt_ns += self.cost.page;
            let ra = self.readahead.as_mut().expect("checked above");
            ra.ahead[f as usize] = true;
            ra.c[0] += 1;
            reads.push(PageIo {
                op: IoOp::Read,
                slot,
                frame: f,
                queued: self.now,
            });
        }
        reads
    }

    /// A read into frame `f` completed: whether its page counts as referenced (`false` for a
    /// page read ahead that no fault has asked for).
    pub(super) fn read_referenced(&self, f: u32) -> bool {
        self.readahead
            .as_ref()
            .is_none_or(|ra| !ra.ahead[f as usize] || self.survival.marks[f as usize].user != NONE)
    }

    /// Whether frame `f` holds (or is reading) a page read ahead.
    pub(super) fn read_ahead(&self, f: u32) -> bool {
        self.readahead
            .as_ref()
            .is_some_and(|ra| ra.ahead[f as usize])
    }

    /// A fault found frame `f` still being read: a read-ahead page is referenced by `u`.
    pub(super) fn readahead_awaited(&mut self, f: u32, u: u32) {
        if self
            .readahead
            .as_ref()
            .is_some_and(|ra| ra.ahead[f as usize])
        {
            self.survival.referenced(f, u);
        }
    }

    /// Frame `f` now holds a demanded page.
    pub(super) fn readahead_forget(&mut self, f: u32) {
        if let Some(ra) = self.readahead.as_mut() {
            ra.ahead[f as usize] = false;
        }
    }

    /// Frame `f` is taken back: a read-ahead page in it was a hit if it was referenced.
    pub(super) fn readahead_taken(&mut self, f: u32) {
        let Some(ra) = self.readahead.as_mut() else {
            return;
        };
        if std::mem::take(&mut ra.ahead[f as usize]) {
            let hit = self.survival.marks[f as usize].user != NONE;
            ra.c[if hit { 1 } else { 2 }] += 1;
        }
    }

    /// The readahead's metrics since the warm-up (none without readahead).
    pub(super) fn readahead_metrics(&self, m: &mut BTreeMap<String, Metric>, time_s: f64) {
        let Some(ra) = &self.readahead else { return };
        let [n, hits, misses] = [0, 1, 2].map(|i| (ra.c[i] - ra.warm[i]) as f64);
        let t = time_s.max(f64::MIN_POSITIVE);
        put_metric(
            m,
            "readahead_rate",
            n / t,
            "pages/s",
            "Pages read ahead with a demand read (swap readahead), per second.",
        );
        put_metric(
            m,
            "readahead_hit_pct",
            if hits + misses > 0.0 {
                100.0 * hits / (hits + misses)
            } else {
                0.0
            },
            "%",
            "Read-ahead pages referenced before their frame was taken back, per read-ahead page taken back.",
        );
    }
}

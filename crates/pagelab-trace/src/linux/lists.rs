//! The LRU a replay runs: the two lists or MGLRU, each event passed to the one in use.

use super::{mglru, two_list, Workingset};

/// The LRU in use.
#[allow(clippy::large_enum_variant)] // one per replay
pub(super) enum Lists {
    TwoList(two_list::TwoList),
    Mglru(mglru::Mglru),
}

impl Lists {
    pub(super) fn touch(&mut self, p: u32) {
        match self {
            Lists::TwoList(l) => l.touch(p),
            Lists::Mglru(l) => l.touch(p),
        }
    }
    /// A page exec activated and moved onto the active list before the loop (two lists only).
    pub(super) fn add_exec_active(&mut self, p: u32, c: &mut Workingset) {
        match self {
            Lists::TwoList(l) => l.add_active(p),
            Lists::Mglru(l) => l.add(p, c),
        }
    }
    pub(super) fn add(&mut self, p: u32, c: &mut Workingset) {
        match self {
            Lists::TwoList(l) => l.add(p, c),
            Lists::Mglru(l) => l.add(p, c),
        }
    }
    /// A page no PTE maps, with `PG_referenced` set ([`report`]).
    pub(super) fn add_unmapped(&mut self, p: u32) {
        match self {
            Lists::TwoList(l) => l.add_unmapped(p),
            Lists::Mglru(l) => l.add_unmapped(p),
        }
    }
    pub(super) fn reclaim(&mut self, n: u32, out: &mut Vec<u32>, c: &mut Workingset) {
        match self {
            Lists::TwoList(l) => l.reclaim(n, out, c),
            Lists::Mglru(l) => l.reclaim(n, out, c),
        }
    }
    /// The vmpressure works so far, each a switch of the reclaiming task ([`Vmpressure`]).
    ///
    /// [`Vmpressure`]: crate::policy::kernel::Vmpressure
    pub(super) fn vmpressure_works(&self) -> u64 {
        match self {
            Lists::TwoList(l) => l.vmpressure.works,
            Lists::Mglru(l) => l.vmpressure.works,
        }
    }
    pub(super) fn is_workingset(&self, p: u32) -> bool {
        match self {
            Lists::TwoList(l) => l.is_workingset(p),
            Lists::Mglru(l) => l.is_workingset(p),
        }
    }
    /// A context switch brought the replayer back (`lru_gen_use_mm`): MGLRU's next aging walks
    /// its page tables.
    pub(super) fn switched_in(&mut self) {
        if let Lists::Mglru(l) = self {
            l.arm_walk();
        }
    }
    /// `do_wp_page`'s `lru_add_drain` when the page is in the two lists' batch (MGLRU's
    /// generations are the same whenever its batch is moved: see `linux_two_list.rs`).
    pub(super) fn drain_if_pending(&mut self, p: u32) {
        if let Lists::TwoList(l) = self {
            l.drain_if_pending(p);
        }
    }
    /// Counter updates outside the lists' own events (`fault_stats`; the two lists' 6.1 count).
    pub(super) fn fault_updates(&mut self, n: u64) {
        if let Lists::TwoList(l) = self {
            l.stat_updates(n);
        }
    }
    pub(super) fn flush_stats(&mut self, c: &Workingset) {
        if let Lists::TwoList(l) = self {
            l.flush_stats(c);
        }
    }
    /// Pages the last reclaim unmapped but kept in the swap cache (MGLRU's activate batch).
    pub(super) fn take_unmapped(&mut self) -> Vec<u32> {
        match self {
            Lists::TwoList(_) => Vec::new(),
            Lists::Mglru(l) => l.take_unmapped(),
        }
    }
    pub(super) fn reserve(&mut self, bound: u32) {
        match self {
            Lists::TwoList(l) => l.reserve(bound),
            Lists::Mglru(l) => l.reserve(bound),
        }
    }
}

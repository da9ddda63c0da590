//! Pages the eviction unmapped but could not free: MGLRU's look-around had queued them on the
//! activate batch, whose reference `pageout` finds (mm/vmscan.c `is_page_cache_freeable`;
//! docs/readings.md `linux-lookaround-batch`). Each stays charged and on its list, in the swap
//! cache, its PTE a swap entry. The next touch finds it there (mm/memory.c `do_swap_page` →
//! `swap_cache_get_folio`): a minor fault, no read, no refault.

use super::{Replay, RESIDENT, SWAP_CACHE};

impl Replay {
    /// The pages the last reclaim unmapped and kept: their PTEs gone (and their TLB entries).
    pub(super) fn mark_unmapped(&mut self) {
        for p in self.lists.take_unmapped() {
            self.flush_page(p);
            self.state[p as usize] = SWAP_CACHE;
            self.writable[p as usize] = false;
            self.dirty[p as usize] = false;
        }
    }

    /// A touch of a page in the swap cache: mapped again as a swap-in maps it, without a read.
    pub(super) fn swap_cache_hit(&mut self, page: u32, write: bool) {
        let i = page as usize;
        self.c.minor_faults += 1;
        self.state[i] = RESIDENT;
        self.map_swapped(i, write);
    }

    /// `do_swap_page`'s new PTE: a write fault maps the page writable and dirty; a read fault
    /// read-only in 6.1, and in 6.12 writable but clean (the page is exclusive).
    pub(super) fn map_swapped(&mut self, i: usize, write: bool) {
        self.writable[i] = write || self.is_6_12;
        self.dirty[i] = write;
    }
}

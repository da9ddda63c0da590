//! How many pages a swap readahead reads, as Linux sizes it (mm/swap_state.c, the same in 6.1
//! and 6.12): not the whole cluster every time, but a window grown by the read-ahead pages
//! that faults found since the last readahead, and shrunk at most by half a time.
//!
//! ```text
//!  hits since the last window ──► pages = hits + 2, rounded up to 4, 8, 16 ...
//!      no hits: 2 if this fault is next to the last (offset ± 1), else 1 (the page alone)
//!  pages ≤ max (2^page_cluster; VMA readahead also ≤ 2^5)   pages ≥ last window / 2
//! ```
//!
//! Cluster readahead (`swapin_nr_pages`, for rotating swap devices) keeps one state for the
//! whole system: the hits (4 at boot, "to start up with a small window"), the offset of the last
//! fault taken without hits, the last window. VMA readahead (`swap_vma_readahead`) keeps one per
//! mapping, with the address of its last fault, and places the window after a fault that
//! follows the last one, before one that precedes it, around it otherwise, within the 2 MiB
//! of one page-table page (`swap_ra_clamp_pfn`).

/// `__swapin_nr_pages`: the window after `hits` read-ahead pages were found, this fault at
/// `offset`, the last at `prev` [pages].
pub(crate) fn nr_pages(prev: u32, offset: u32, hits: u32, max: u32, prev_win: u32) -> u32 {
    let mut pages = hits + 2;
    if pages == 2 {
        // No hits to judge by: an adjacent offset still earns a second page.
        if offset != prev.wrapping_add(1) && offset != prev.wrapping_sub(1) {
            pages = 1;
        }
    } else {
        pages = pages.next_power_of_two().max(4);
    }
    pages.min(max).max(prev_win / 2)
}

/// VMA readahead's largest window: `1 << min(page_cluster, SWAP_RA_ORDER_CEILING)`, 5 on
/// 64-bit kernels (mm/swap.h) [log2 pages].
pub(crate) const VMA_ORDER_CEILING: u32 = 5;
/// Pages under one page-table page (x86-64's `PTRS_PER_PTE`): the VMA window stays inside
/// the 2 MiB around the fault (`swap_ra_clamp_pfn`) [pages].
pub(crate) const PMD_PAGES: u32 = 512;
/// `SWAP_RA_HITS_MAX`: a mapping's hits are kept in the low half of a page offset (63).
const VMA_HITS_MAX: u32 = 63;

/// Cluster readahead's state, one for the system (`swapin_readahead_hits`, `prev_offset`,
/// `last_readahead_pages`).
#[derive(Clone, Debug)]
pub(crate) struct ClusterWindow {
    hits: u32,
    prev_offset: u32,
    last: u32,
}

impl ClusterWindow {
    pub(crate) fn new() -> ClusterWindow {
        ClusterWindow {
            hits: 4,
            prev_offset: 0,
            last: 0,
        }
    }

    /// A fault found a read-ahead page (`swap_cache_get_folio`).
    pub(crate) fn hit(&mut self) {
        self.hits += 1;
    }

    /// The window of a fault at slot `offset`, at most `max` pages; the hits start again.
    pub(crate) fn next(&mut self, offset: u32, max: u32) -> u32 {
        if max <= 1 {
            return 1;
        }
        let hits = std::mem::take(&mut self.hits);
        let pages = nr_pages(self.prev_offset, offset, hits, max, self.last);
        if hits == 0 {
            self.prev_offset = offset;
        }
        self.last = pages;
        pages
    }
}

/// VMA readahead's state of one mapping (`vma->swap_readahead_info`: the last fault's page,
/// the window, the hits; 4 hits before the first fault).
#[derive(Clone, Copy, Debug)]
pub(crate) struct VmaWindow {
    page: u32,
    win: u32,
    hits: u32,
}

impl Default for VmaWindow {
    fn default() -> Self {
        VmaWindow {
            page: 0,
            win: 0,
            hits: 4,
        }
    }
}

impl VmaWindow {
    /// A fault found one of this mapping's read-ahead pages.
    pub(crate) fn hit(&mut self) {
        self.hits = (self.hits + 1).min(VMA_HITS_MAX);
    }

    /// The pages `[start, end)` read for a fault on `page` (the faulting one among them), at
    /// most `max` of them; the fault is remembered and the hits start again.
    pub(crate) fn next(&mut self, page: u32, max: u32) -> (u32, u32) {
        let prev = self.page;
        let win = nr_pages(prev, page, self.hits, max, self.win);
        *self = VmaWindow { page, win, hits: 0 };
        if win <= 1 {
            return (page, page + 1);
        }
        let (lo, hi) = if page == prev.wrapping_add(1) {
            (i64::from(page), i64::from(page) + i64::from(win))
        } else if prev == page.wrapping_add(1) {
            (i64::from(page) - i64::from(win) + 1, i64::from(page) + 1)
        } else {
            let left = i64::from((win - 1) / 2);
            (
                i64::from(page) - left,
                i64::from(page) + i64::from(win) - left,
            )
        };
        let pmd = i64::from(page - page % PMD_PAGES);
        let start = lo.max(pmd).max(0) as u32;
        let end = hi.min(pmd + i64::from(PMD_PAGES)) as u32;
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_hits_plus_two_rounded_up_capped_and_shrinks_by_half_at_most() {
        // No hits: the page alone, or two when next to the last fault (either side).
        assert_eq!(nr_pages(100, 50, 0, 8, 0), 1);
        assert_eq!(nr_pages(100, 101, 0, 8, 0), 2);
        assert_eq!(nr_pages(100, 99, 0, 8, 0), 2);
        // Hits: + 2, then the power of two at or above, at least 4.
        assert_eq!(nr_pages(0, 50, 1, 64, 0), 4);
        assert_eq!(nr_pages(0, 50, 2, 64, 0), 4);
        assert_eq!(nr_pages(0, 50, 3, 64, 0), 8);
        assert_eq!(nr_pages(0, 50, 7, 64, 0), 16);
        // Capped by 2^page_cluster; never below half the last window.
        assert_eq!(nr_pages(0, 50, 30, 8, 0), 8);
        assert_eq!(nr_pages(0, 50, 0, 8, 8), 4);
        assert_eq!(nr_pages(0, 50, 0, 8, 4), 2);
        assert_eq!(nr_pages(0, 50, 0, 8, 2), 1);
    }

    #[test]
    fn cluster_readahead_starts_small_and_decays_without_hits() {
        let mut w = ClusterWindow::new();
        // Boot's 4 hits: 6 rounded to 8; then no hits: 4, 2, 1 (halving), a random fault each.
        let wins: Vec<u32> = [500, 90, 3000, 77, 1200]
            .iter()
            .map(|&o| w.next(o, 8))
            .collect();
        assert_eq!(wins, [8, 4, 2, 1, 1]);
        // A fault next to the last one taken without hits earns two pages.
        assert_eq!(w.next(1201, 8), 2);
        // Hits found meanwhile grow it again: 3 hits, 5 → 8.
        (0..3).for_each(|_| w.hit());
        assert_eq!(w.next(40, 8), 8);
        // page_cluster 0: the page alone, whatever the hits.
        assert_eq!(ClusterWindow::new().next(7, 1), 1);
    }

    #[test]
    fn vma_readahead_reads_ahead_of_a_forward_walk_behind_a_backward_one_around_a_jump() {
        let mut w = VmaWindow::default();
        // First fault: 4 hits → 8 pages around page 100: 3 before, 4 after.
        assert_eq!(w.next(100, 8), (97, 105));
        // Next fault on 101 with 3 hits meanwhile: 8 pages from it on.
        (0..3).for_each(|_| w.hit());
        assert_eq!(w.next(101, 8), (101, 109));
        // A fault on 100 (behind the last), with 2 hits: 4 pages ending at it.
        (0..2).for_each(|_| w.hit());
        assert_eq!(w.next(100, 8), (97, 101));
        // Clamped to the page-table page: a fault at 512 after one far away reads from 512 on.
        (0..6).for_each(|_| w.hit());
        assert_eq!(w.next(512, 8), (512, 517));
        // The hits saturate at 63.
        (0..100).for_each(|_| w.hit());
        assert_eq!(w.hits, 63);
    }
}

//! What 6.1's per-CPU count of memcg counter updates takes besides the lists' own events.
//!
//! 6.1's `memcg_rstat_updated` (mm/memcontrol.c) adds every counter update on the CPU,
//! whatever the memcg, to one per-CPU count, and reclaim flushes the copies once more than a
//! batch a CPU has gathered ([`crate::policy::linux_two_list`]). So it also counts:
//! - a fault that charges no page: `pgfault` (`count_memcg_event_mm`) of a read that maps the
//!   zero page and of a write-protect fault;
//! - the touch list's file pages as the loop maps them: a read fault maps the file's pages of
//!   its aligned 64 KiB window at once (mm/memory.c `do_fault_around`, `fault_around_bytes`),
//!   one `pgfault` and one `NR_FILE_MAPPED` a page (`page_add_file_rmap`).
//!
//! The windows are counted from the list's start: where the list sits in its 64 KiB (its slot,
//! drawn with the layout) moves them by under 16 pages.

/// The touch list's header and one touch [bytes] (`replayer.c`).
const HEADER: u64 = 24;
const TOUCH: u64 = 4;
/// `fault_around_bytes` [bytes].
const WINDOW: u64 = 64 * 1024;
/// Updates per window: `pgfault` once, `NR_FILE_MAPPED` for each of its pages.
pub(super) const WINDOW_UPDATES: u64 = 1 + WINDOW / 4096;

/// Where the replay's loop begins, to place its touches in the list.
#[derive(Clone, Copy, Debug)]
pub(super) struct ListWindows {
    /// The replay's first reference of the loop (the ones before are the replayer's own).
    pub loop_start: u64,
}

impl ListWindows {
    /// The updates the list's mapping takes while the replay moves from `before` references
    /// to `after`: a window's for each one the loop's touches enter. The first window holds
    /// the header, which the replayer reads before its loop.
    pub(super) fn updates(&self, before: u64, after: u64) -> u64 {
        let window = |touch: u64| (HEADER + TOUCH * touch) / WINDOW;
        let (from, to) = (
            before.saturating_sub(self.loop_start),
            after.saturating_sub(self.loop_start),
        );
        if to <= from {
            return 0;
        }
        let entered = window(to - 1) - window(from.saturating_sub(1));
        entered * WINDOW_UPDATES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 16,378 touches fill the first 64 KiB with the header; the next opens the second window.
    #[test]
    fn a_window_is_counted_as_the_loop_enters_it() {
        let w = ListWindows { loop_start: 10 };
        assert_eq!(w.updates(0, 10), 0, "the replayer's own pages");
        assert_eq!(
            w.updates(10, 10 + 16_378),
            0,
            "the header's window, mapped before the loop"
        );
        assert_eq!(w.updates(10 + 16_378, 10 + 16_379), 17);
        assert_eq!(w.updates(0, 10 + 16_378 + 3 * 16_384), 3 * 17);
        let total: u64 = (0..60_000u64).map(|r| w.updates(r, r + 1)).sum();
        assert_eq!(total, w.updates(0, 60_000), "run by run as at once");
    }
}

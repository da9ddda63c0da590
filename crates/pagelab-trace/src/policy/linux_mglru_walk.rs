//! When MGLRU's aging walks the page tables, and which PTE tables it visits: the gates of
//! mm/vmscan.c in Debian's 6.1.192 and 6.12.117 (facts only; no code was taken).
//!
//! ```text
//!  iterate_mm_list   the first iteration forces the scan; later ones yield the mm only if its
//!                    task was switched in since the last walk (should_skip_mm: lru_gen_use_mm)
//!  walk_pmd_range    a PTE table is visited only if the CPU walked through its PMD entry since
//!                    a walk last tested and cleared that entry's accessed bit (6.1 on every
//!                    walk; 6.12 only on unforced ones), and, unforced, only if the table is in
//!                    the Bloom filter of the generation being aged
//!  Bloom filters     two (seq % 2): a walk that yields the mm first clears seq + 1's
//!                    (reset_bloom_filter); a visited table where one PTE in 8 was young goes
//!                    into seq + 1's (walk_pte_range → suitable_to_scan); a look-around window
//!                    with one young PTE in 8 into max_seq's
//! ```
//!
//! A table here is 512 pages of the mapping from its first page. The filters are exact sets:
//! the kernel's 2^15 bits with two hashes give no false positive for a handful of tables.

use super::kernel::Kernel;

/// PTEs per page table (one PMD entry's worth of pages).
pub const PTRS_PER_PTE: u32 = 512;

/// `suitable_to_scan`: at least one young PTE per cache line of them (x86-64: 64 B / 8 B).
pub fn suitable_to_scan(total: u32, young: u32) -> bool {
    young * 8 >= total
}

/// The gates of one mm's walks.
#[derive(Clone, Debug)]
pub struct WalkGate {
    kernel: Kernel,
    /// The PMD entry's accessed bit, per table.
    pmd_young: Vec<bool>,
    /// The two Bloom filters (by seq % 2): None before their first reset (`test_bloom_filter`
    /// then passes every table), else whether each table is in it.
    bloom: [Option<Vec<bool>>; 2],
    /// The mm's bit for this node (`mm->lru_gen.bitmap`): set at a context switch.
    armed: bool,
    /// Whether an iteration of the mm list has yielded the mm yet (the first forces the scan).
    iterated: bool,
}

/// One walk: whether it is forced, and the generation it ages (max_seq).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walk {
    pub force: bool,
    pub seq: u64,
}

impl WalkGate {
    pub fn new(kernel: Kernel) -> WalkGate {
        WalkGate {
            kernel,
            pmd_young: Vec::new(),
            bloom: [None, None],
            armed: false,
            iterated: false,
        }
    }

    fn table(page: u32) -> usize {
        (page / PTRS_PER_PTE) as usize
    }

    /// The CPU walked the page tables to `page` (a fault, a TLB miss, the kernel's rseq
    /// write): its PMD entry's accessed bit is set.
    pub fn walked_through(&mut self, page: u32) {
        let t = Self::table(page);
        if self.pmd_young.len() <= t {
            self.pmd_young.resize(t + 1, false);
        }
        self.pmd_young[t] = true;
    }

    /// The task was switched back in (`lru_gen_use_mm`).
    pub fn arm(&mut self) {
        self.armed = true;
    }

    /// `iterate_mm_list` for the aging of `seq`: the walk, or None when `should_skip_mm` skips
    /// the mm. A walk clears the filter of `seq + 1` first.
    pub fn begin(&mut self, seq: u64) -> Option<Walk> {
        let force = !self.iterated;
        if !std::mem::take(&mut self.armed) && !force {
            return None;
        }
        self.iterated = true;
        self.bloom[((seq + 1) % 2) as usize] = Some(Vec::new());
        Some(Walk { force, seq })
    }

    /// `walk_pmd_range` for the table holding `page`: whether its PTEs are visited. The PMD
    /// entry's accessed bit is tested and cleared (6.1 always, 6.12 only unforced), then,
    /// unforced, the filter of the generation aged is tested.
    pub fn visits(&mut self, w: Walk, page: u32) -> bool {
        let t = Self::table(page);
        if self.kernel == Kernel::V6_1 || !w.force {
            let young = self.pmd_young.get_mut(t).map(std::mem::take);
            if young != Some(true) {
                return false;
            }
        }
        w.force || self.in_filter(w.seq, t)
    }

    fn in_filter(&self, seq: u64, t: usize) -> bool {
        match &self.bloom[(seq % 2) as usize] {
            None => true,
            Some(f) => f.get(t).copied().unwrap_or(false),
        }
    }

    /// `update_bloom_filter`: the table holding `page` into the filter of `seq`, if that
    /// filter has been reset (the kernel does nothing while it is not allocated).
    pub fn mark(&mut self, seq: u64, page: u32) {
        let t = Self::table(page);
        if let Some(f) = &mut self.bloom[(seq % 2) as usize] {
            if f.len() <= t {
                f.resize(t + 1, false);
            }
            f[t] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first walk is forced; later ones need a switch, the PMD's accessed bit and (unforced)
    /// the table in the filter of the generation aged.
    #[test]
    fn a_walk_needs_a_switch_a_young_pmd_and_the_filter() {
        for kernel in [Kernel::V6_1, Kernel::V6_12] {
            let mut g = WalkGate::new(kernel);
            g.walked_through(10);
            let w = g.begin(3).expect("the first iteration is forced");
            assert!(w.force);
            assert!(g.visits(w, 10), "{kernel:?}");
            assert!(g.begin(4).is_none(), "no switch since: skipped");
            g.arm();
            let w = g.begin(4).unwrap();
            assert!(!w.force);
            g.walked_through(10);
            assert!(!g.visits(w, 10), "{kernel:?}: not in the filter of 4");
            g.mark(4, 10);
            assert!(!g.visits(w, 10), "{kernel:?}: the PMD bit was cleared");
            g.walked_through(10);
            assert!(g.visits(w, 10), "{kernel:?}");
            assert!(
                !g.visits(w, 600),
                "{kernel:?}: another table, never walked through"
            );
        }
    }

    /// 6.1 tests the PMD's accessed bit even on the forced first walk; 6.12 does not.
    #[test]
    fn six_one_s_forced_walk_still_needs_a_young_pmd() {
        let mut g = WalkGate::new(Kernel::V6_1);
        let w = g.begin(3).unwrap();
        assert!(!g.visits(w, 0));
        let mut g = WalkGate::new(Kernel::V6_12);
        let w = g.begin(3).unwrap();
        assert!(g.visits(w, 0));
    }

    /// A filter never reset passes every table; a walk resets the next generation's only.
    #[test]
    fn a_filter_passes_every_table_until_a_walk_resets_it() {
        let mut g = WalkGate::new(Kernel::V6_12);
        g.mark(5, 0); // not allocated: nothing happens
        assert!(g.in_filter(5, 0) && g.in_filter(6, 0));
        g.begin(5).unwrap(); // resets 6's (even) filter
        assert!(!g.in_filter(6, 0) && g.in_filter(5, 7));
        g.mark(6, 1024);
        assert!(g.in_filter(6, 1024 / PTRS_PER_PTE as usize));
    }

    #[test]
    fn one_young_pte_in_eight_is_suitable() {
        assert!(suitable_to_scan(64, 8));
        assert!(!suitable_to_scan(64, 7));
        assert!(!suitable_to_scan(371, 46));
        assert!(suitable_to_scan(371, 47));
    }
}

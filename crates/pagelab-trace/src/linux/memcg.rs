//! The memory cgroup's page counter as a fault charges it (mm/memcontrol.c, `try_charge_memcg`,
//! `consume_stock`, `refill_stock`; the same rules in 6.1 and 6.12).
//!
//! ```text
//!  fault needs one page ──► per-CPU stock has one? ──yes──► taken from the stock
//!                                 │no
//!                                 ▼
//!        usage + 64 ≤ limit? ──yes──► charge 64 (MEMCG_CHARGE_BATCH): one used, 63 stocked
//!                                 │no
//!        usage + 1 ≤ limit? ──yes──► charge one
//!                                 │no
//!        reclaim from the cgroup (try_to_free_mem_cgroup_pages, at least SWAP_CLUSTER_MAX),
//!        then try again from the top
//! ```
//!
//! The stock counts in `memory.current` but holds no page: pages resident = usage − stock. A
//! page freed (evicted) is uncharged at once (`mem_cgroup_uncharge`). The replay's cgroup has one
//! process on one CPU, so one stock.

/// Pages charged per batch (`MEMCG_CHARGE_BATCH`, include/linux/memcontrol.h: 64 since 6.1).
pub const CHARGE_BATCH: u32 = 64;

/// Pages a cgroup reclaim asks for at least (`SWAP_CLUSTER_MAX`, include/linux/swap.h;
/// `try_to_free_mem_cgroup_pages` takes `max(nr_pages, SWAP_CLUSTER_MAX)`).
pub const SWAP_CLUSTER_MAX: u32 = 32;

/// The cgroup's page counter and the per-CPU stock charged ahead.
#[derive(Clone, Debug)]
pub struct Charge {
    /// `memory.max` [pages].
    pub limit: u32,
    /// `memory.current` [pages]: resident pages plus the stock.
    pub usage: u32,
    /// Pages charged ahead and not yet used [pages].
    pub stock: u32,
}

impl Charge {
    /// An empty cgroup with a limit of `limit` pages.
    pub fn new(limit: u32) -> Charge {
        Charge {
            limit,
            usage: 0,
            stock: 0,
        }
    }

    /// Charges one page: `true` if it fits (from the stock, a batch or a single page), `false`
    /// if the cgroup must reclaim first. `kmem` [pages] is charged besides (zswap's pool).
    pub fn try_charge(&mut self, kmem: u32) -> bool {
        if self.stock > 0 {
            self.stock -= 1;
            return true;
        }
        let usage = self.usage + kmem;
        if usage + CHARGE_BATCH <= self.limit {
            self.usage += CHARGE_BATCH;
            self.stock = CHARGE_BATCH - 1;
            return true;
        }
        if usage < self.limit {
            self.usage += 1;
            return true;
        }
        false
    }

    /// Charges one kernel page (a page table) besides the `kmem` already charged: `true` if
    /// it fits. It comes out of the stock, or with a batch whose rest is stocked, or alone,
    /// as a page's charge does; the caller counts it as kernel memory from then on, so it
    /// leaves `usage` (pages on the LRU and the stock).
    pub fn try_charge_kernel(&mut self, kmem: u32) -> bool {
        if self.stock > 0 {
            self.stock -= 1;
            self.usage -= 1;
            return true;
        }
        let usage = self.usage + kmem;
        if usage + CHARGE_BATCH <= self.limit {
            self.usage += CHARGE_BATCH - 1;
            self.stock = CHARGE_BATCH - 1;
            return true;
        }
        usage < self.limit
    }

    /// `n` pages left memory: uncharged.
    pub fn uncharge(&mut self, n: u32) {
        self.usage -= n;
    }

    /// Pages resident now [pages].
    pub fn resident(&self) -> u32 {
        self.usage - self.stock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 pages: the first fault charges 64 at once; at 64 the batch no longer fits and pages
    /// are charged one by one up to 100; the 101st needs reclaim.
    #[test]
    fn batch_then_single_pages_then_reclaim() {
        let mut c = Charge::new(100);
        assert!(c.try_charge(0));
        assert_eq!((c.usage, c.stock, c.resident()), (64, 63, 1));
        for _ in 1..64 {
            assert!(c.try_charge(0));
        }
        assert_eq!((c.usage, c.stock), (64, 0));
        for _ in 64..100 {
            assert!(c.try_charge(0));
        }
        assert_eq!((c.usage, c.resident()), (100, 100));
        assert!(!c.try_charge(0));
        c.uncharge(70);
        assert!(c.try_charge(0), "64 fit again after 70 left");
        assert!(
            !Charge {
                limit: 100,
                usage: 99,
                stock: 0
            }
            .try_charge(1),
            "the pool counts"
        );
        assert_eq!((c.usage, c.stock, c.resident()), (94, 63, 31));
    }

    /// A kernel page comes out of the stock, else a batch or a single page, never past the
    /// limit with the kernel pages already charged.
    #[test]
    fn a_kernel_page_is_charged_as_a_page_is_and_leaves_the_lru_count() {
        let mut c = Charge::new(100);
        assert!(c.try_charge_kernel(0));
        assert_eq!(
            (c.usage, c.stock),
            (63, 63),
            "a batch: one to the kernel, 63 stocked"
        );
        assert!(c.try_charge_kernel(1));
        assert_eq!((c.usage, c.stock), (62, 62), "from the stock");
        let mut full = Charge {
            limit: 100,
            usage: 97,
            stock: 0,
        };
        assert!(full.try_charge_kernel(2), "97 + 2 < 100: one more fits");
        assert_eq!(full.usage, 97);
        assert!(!full.try_charge_kernel(3), "97 + 3 = 100: reclaim first");
    }
}

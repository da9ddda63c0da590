//! zswap in front of the swap device (mm/zswap.c; `zswap_frontswap_store` in 6.1,
//! `zswap_store` and `zswap_check_limits` in 6.12).
//!
//! ```text
//!  evicted page ──► pool at its cap (max_pool_percent of RAM)? ──yes──► rejected, to the device;
//!                   │                                                   "reached full" set;
//!                   │                                                   writeback starts
//!                   ├─ reached full and not yet below accept_threshold_percent of the cap
//!                   │      ──► rejected, to the device
//!                   └─ else compressed into the pool (zswpout); its bytes charged to the cgroup
//!  writeback (shrink worker): oldest entries to the device until below the threshold
//!  swap-in ──► decompressed (zswpin, a major fault); the entry freed with the swap slot
//! ```
//!
//! The pool's size is the pages its zpool holds: zbud pairs two objects per page (Debian 6.1's
//! default), z3fold three, zsmalloc packs bytes (6.12's default). 6.1's zsmalloc cannot write
//! back (its zpool has no `shrink`), so a full pool there only rejects until loads bring it
//! below the threshold.

use super::{Kernel, LinuxCounters};
use crate::TraceError;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// How zswap is set up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZswapParams {
    /// The guest's RAM [pages] (`totalram_pages`): the cap is a share of it.
    pub total_ram_pages: u64,
    /// Bytes one stored page takes (its compressed length) [bytes].
    pub compressed_bytes: u32,
    /// `max_pool_percent` [%] (default 20).
    #[serde(default = "twenty")]
    pub max_pool_percent: u32,
    /// `accept_threshold_percent` [%] (default 90).
    #[serde(default = "ninety")]
    pub accept_threshold_percent: u32,
    /// The zpool: "zbud", "z3fold" or "zsmalloc"; absent, Debian's default of the kernel
    /// (`CONFIG_ZSWAP_ZPOOL_DEFAULT`: zbud in 6.1, zsmalloc in 6.12).
    #[serde(default)]
    pub zpool: Option<String>,
}

fn twenty() -> u32 {
    20
}
fn ninety() -> u32 {
    90
}

impl ZswapParams {
    pub(super) fn check(&self) -> Result<(), TraceError> {
        let bad = |k: &str, what: &str| Err(TraceError::invalid(format!("zswap.{k}: {what}")));
        if self.total_ram_pages == 0 {
            return bad("total_ram_pages", "0; expected the guest's RAM in pages");
        }
        if self.compressed_bytes == 0 || self.compressed_bytes > 4096 {
            return bad("compressed_bytes", "expected 1 to 4096 bytes");
        }
        if self.max_pool_percent > 100 || self.accept_threshold_percent > 100 {
            return bad("max_pool_percent", "expected percentages from 0 to 100");
        }
        let known = ["zsmalloc", "zbud", "z3fold"];
        if self.zpool.as_deref().is_some_and(|z| !known.contains(&z)) {
            return bad("zpool", "expected zsmalloc, zbud or z3fold");
        }
        Ok(())
    }
}

/// The pool: entries in store order (the writeback LRU).
#[derive(Clone, Debug)]
pub struct Pool {
    p: ZswapParams,
    kernel: Kernel,
    /// Objects per pool page for zbud (2) and z3fold (3); 0 for zsmalloc (packed by bytes).
    per_page: u64,
    /// (page, stamp) in store order; an entry whose stamp is stale was loaded since.
    entries: VecDeque<(u32, u64)>,
    stored: HashMap<u32, u64>,
    stamp: u64,
    reached_full: bool,
    can_write_back: bool,
    written_back: Vec<u32>,
}

impl Pool {
    /// An empty pool.
    pub fn new(p: ZswapParams, kernel: Kernel) -> Pool {
        let zpool = p.zpool.clone().unwrap_or_else(|| {
            match kernel {
                Kernel::V6_1 => "zbud",
                Kernel::V6_12 => "zsmalloc",
            }
            .to_string()
        });
        // zbud pairs two objects in a page when each fits in half of it (less its header);
        // z3fold three in thirds. 6.1's zsmalloc has no zpool `shrink`, so no writeback.
        let fits = |n: u32| p.compressed_bytes <= (4096 - 64) / n;
        let per_page = match zpool.as_str() {
            "zbud" if fits(2) => 2,
            "z3fold" if fits(3) => 3,
            "zbud" | "z3fold" => 1,
            _ => 0,
        };
        let can_write_back = kernel == Kernel::V6_12 || zpool != "zsmalloc";
        Pool {
            per_page,
            kernel,
            p,
            entries: VecDeque::new(),
            stored: HashMap::new(),
            stamp: 0,
            reached_full: false,
            can_write_back,
            written_back: Vec::new(),
        }
    }

    /// Pages the zpool holds for `entries` objects (its `total_size`).
    fn pool_pages(&self, entries: usize) -> u64 {
        match self.per_page {
            0 => (entries as u64 * u64::from(self.p.compressed_bytes)).div_ceil(4096),
            k => (entries as u64).div_ceil(k),
        }
    }

    fn max_pages(&self) -> u64 {
        self.p.total_ram_pages * u64::from(self.p.max_pool_percent) / 100
    }

    /// 6.1 `zswap_is_full`: above the cap; 6.12 `zswap_check_limits`: at it or above.
    fn full(&self, cur: u64) -> bool {
        match self.kernel {
            Kernel::V6_1 => cur > self.max_pages(),
            Kernel::V6_12 => cur >= self.max_pages(),
        }
    }

    /// 6.1 `zswap_can_accept`: below RAM × threshold × cap share; 6.12: at or below the
    /// threshold share of the cap's pages (`zswap_accept_thr_pages`).
    fn can_accept(&self, cur: u64) -> bool {
        let (ram, thr, max) = (
            self.p.total_ram_pages,
            u64::from(self.p.accept_threshold_percent),
            u64::from(self.p.max_pool_percent),
        );
        match self.kernel {
            Kernel::V6_1 => ram * thr / 100 * max / 100 > cur,
            Kernel::V6_12 => cur <= self.max_pages() * thr / 100,
        }
    }

    /// Pages charged to the cgroup: the entries' compressed bytes (`obj_cgroup_charge_zswap`
    /// charges each entry's length, whatever the zpool).
    pub fn charged_pages(&self) -> u32 {
        (self.stored.len() as u64 * u64::from(self.p.compressed_bytes)).div_ceil(4096) as u32
    }

    /// Stores `page`: `false` if rejected (it goes to the device). A store that finds the pool
    /// at its cap sets "reached full" and starts writeback (6.1 `zswap_is_full`, 6.12
    /// `zswap_check_limits`); while reached full, stores are rejected until the pool is at or
    /// below the accept threshold.
    pub fn store(&mut self, page: u32, c: &mut LinuxCounters) -> bool {
        let cur = self.pool_pages(self.stored.len());
        if self.full(cur) {
            self.reached_full = true;
            c.zswap_rejected += 1;
            self.write_back(c);
            return false;
        }
        if self.reached_full {
            if !self.can_accept(cur) {
                c.zswap_rejected += 1;
                return false;
            }
            self.reached_full = false;
        }
        self.stamp += 1;
        self.entries.push_back((page, self.stamp));
        self.stored.insert(page, self.stamp);
        true
    }

    /// The shrink worker: oldest entries written back until the pool is below the threshold.
    fn write_back(&mut self, c: &mut LinuxCounters) {
        if !self.can_write_back {
            return;
        }
        while !self.can_accept(self.pool_pages(self.stored.len())) {
            let Some((x, stamp)) = self.entries.pop_front() else {
                break;
            };
            if self.stored.get(&x) == Some(&stamp) {
                self.stored.remove(&x);
                c.zswap_written_back += 1;
                self.written_back.push(x);
            }
        }
    }

    /// Loads `page` (swap-in): its entry is freed with its swap slot.
    pub fn load(&mut self, page: u32) {
        self.stored.remove(&page);
    }

    /// Pages written back since the last call (now on the device).
    pub fn take_written_back(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.written_back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1,000 pages of RAM: a cap of 200 pool pages. In 6.1 the pool is full above the cap: 401
    /// entries in zbud take 201 pages, so the 402nd store is rejected, and the shrink worker
    /// writes back the 43 oldest entries, to 179 pages (below 90 %: 180); the next store is
    /// accepted again. 6.12 is full at the cap. zsmalloc in 6.1 cannot write back.
    #[test]
    fn rejection_at_the_cap_and_writeback_to_the_threshold() {
        let p = ZswapParams {
            total_ram_pages: 1000,
            compressed_bytes: 100,
            max_pool_percent: 20,
            accept_threshold_percent: 90,
            zpool: None,
        };
        let mut c = LinuxCounters::default();
        let mut pool = Pool::new(p.clone(), Kernel::V6_1);
        assert!((0..401).all(|x| pool.store(x, &mut c)));
        assert_eq!(pool.charged_pages(), 10, "40,100 compressed bytes");
        assert!(!pool.store(401, &mut c));
        assert_eq!((c.zswap_rejected, c.zswap_written_back), (1, 43));
        assert_eq!(pool.take_written_back(), (0..43).collect::<Vec<_>>());
        assert!(pool.store(402, &mut c));
        let zbud = ZswapParams {
            zpool: Some("zbud".into()),
            ..p.clone()
        };
        let mut pool = Pool::new(zbud, Kernel::V6_12);
        assert!((0..399).all(|x| pool.store(x, &mut c)));
        assert!(!pool.store(399, &mut c), "6.12: full at 200 pages");
        let zs = ZswapParams {
            zpool: Some("zsmalloc".into()),
            compressed_bytes: 4096,
            ..p
        };
        let mut c = LinuxCounters::default();
        let mut pool = Pool::new(zs, Kernel::V6_1);
        assert!((0..201).all(|x| pool.store(x, &mut c)));
        assert!(!pool.store(201, &mut c));
        assert_eq!(c.zswap_written_back, 0);
        pool.load(0);
        assert!(
            !pool.store(202, &mut c),
            "200 pages: not below the 180-page threshold"
        );
    }
}

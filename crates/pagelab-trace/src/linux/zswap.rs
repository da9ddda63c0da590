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
//! The pool's size is its entries' compressed bytes rounded up to pages (zsmalloc packs objects
//! of one size class into whole pages). 6.1's zsmalloc cannot write back (its zpool has no
//! `shrink`), so a full pool there only rejects until loads bring it below the threshold.

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
    /// The zpool: "zsmalloc" (the default), "zbud" or "z3fold".
    #[serde(default = "zsmalloc")]
    pub zpool: String,
}

fn twenty() -> u32 {
    20
}
fn ninety() -> u32 {
    90
}
fn zsmalloc() -> String {
    "zsmalloc".to_string()
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
        if !["zsmalloc", "zbud", "z3fold"].contains(&self.zpool.as_str()) {
            return bad("zpool", "expected zsmalloc, zbud or z3fold");
        }
        Ok(())
    }
}

/// The pool: entries in store order (the writeback LRU).
#[derive(Clone, Debug)]
pub struct Pool {
    p: ZswapParams,
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
        let can_write_back = kernel == Kernel::V6_12 || p.zpool != "zsmalloc";
        Pool {
            p,
            entries: VecDeque::new(),
            stored: HashMap::new(),
            stamp: 0,
            reached_full: false,
            can_write_back,
            written_back: Vec::new(),
        }
    }

    fn pool_pages(&self, entries: usize) -> u64 {
        (entries as u64 * u64::from(self.p.compressed_bytes)).div_ceil(4096)
    }

    fn max_pages(&self) -> u64 {
        self.p.total_ram_pages * u64::from(self.p.max_pool_percent) / 100
    }

    fn accept_pages(&self) -> u64 {
        self.max_pages() * u64::from(self.p.accept_threshold_percent) / 100
    }

    /// Pages charged to the cgroup for the compressed bytes.
    pub fn charged_pages(&self) -> u32 {
        self.pool_pages(self.stored.len()) as u32
    }

    /// Stores `page`: `false` if rejected (it goes to the device). A store that finds the pool
    /// at its cap sets "reached full" and starts writeback (6.1 `zswap_is_full`, 6.12
    /// `zswap_check_limits`); while reached full, stores are rejected until the pool is at or
    /// below the accept threshold.
    pub fn store(&mut self, page: u32, c: &mut LinuxCounters) -> bool {
        let cur = self.pool_pages(self.stored.len());
        if cur >= self.max_pages() {
            self.reached_full = true;
            c.zswap_rejected += 1;
            self.write_back(c);
            return false;
        }
        if self.reached_full {
            if cur > self.accept_pages() {
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
        while self.pool_pages(self.stored.len()) > self.accept_pages() {
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

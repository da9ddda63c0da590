//! zswap in the trace replay of Linux: the replay's setup ([`ZswapParams`]) and its pool over
//! page numbers, every page one length (the replayer's page, measured), counting what the
//! kernel counts (`zswpout` is the caller's; `zswap_rejected`, `zswap_written_back` here).

use super::{Kernel, Limits, Pool, StoreVerdict, Zpool, PAGE_BYTES};
use crate::linux::LinuxCounters;
use crate::TraceError;
use serde::{Deserialize, Serialize};

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
    /// ([`Zpool::default_of`]).
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
    pub(crate) fn check(&self) -> Result<(), TraceError> {
        let bad = |k: &str, what: &str| Err(TraceError::invalid(format!("zswap.{k}: {what}")));
        if self.total_ram_pages == 0 {
            return bad("total_ram_pages", "0; expected the guest's RAM in pages");
        }
        if self.compressed_bytes == 0 || self.compressed_bytes > PAGE_BYTES {
            return bad("compressed_bytes", "expected 1 to 4096 bytes");
        }
        if self.max_pool_percent > 100 || self.accept_threshold_percent > 100 {
            return bad("max_pool_percent", "expected percentages from 0 to 100");
        }
        if self
            .zpool
            .as_deref()
            .is_some_and(|z| Zpool::parse(z).is_none())
        {
            return bad("zpool", "expected zsmalloc, zbud or z3fold");
        }
        Ok(())
    }
}

/// The replay's pool: the rules ([`Pool`]) over page numbers, and the pages written back since
/// the replay last asked.
#[derive(Clone, Debug)]
pub struct ReplayPool {
    pool: Pool<u32>,
    len: u32,
    written_back: Vec<u32>,
}

impl ReplayPool {
    /// An empty pool set up as `p` (checked) in `kernel`.
    pub fn new(p: ZswapParams, kernel: Kernel) -> ReplayPool {
        let zpool = p
            .zpool
            .as_deref()
            .and_then(Zpool::parse)
            .unwrap_or(Zpool::default_of(kernel));
        let limits = Limits::new(
            kernel,
            p.total_ram_pages,
            f64::from(p.max_pool_percent),
            f64::from(p.accept_threshold_percent),
        );
        ReplayPool {
            pool: Pool::new(kernel, zpool, limits),
            len: p.compressed_bytes,
            written_back: Vec::new(),
        }
    }

    /// Pages charged to the cgroup for the pool ([`Pool::charged_pages`]).
    pub fn charged_pages(&self) -> u32 {
        self.pool.charged_pages() as u32
    }

    /// Stores `page`: `false` if refused (it goes to the device; the kernel counts every
    /// refusal among its `reject_*`). A refusal that queues the shrink worker writes back at
    /// once.
    pub fn store(&mut self, page: u32, c: &mut LinuxCounters) -> bool {
        match self.pool.admit(self.len) {
            StoreVerdict::Store => {
                self.pool.insert(page, self.len);
                true
            }
            StoreVerdict::Full { shrink } => {
                c.zswap_rejected += 1;
                while let Some(x) = shrink.then(|| self.pool.next_writeback()).flatten() {
                    c.zswap_written_back += 1;
                    self.written_back.push(x);
                }
                false
            }
            StoreVerdict::Poor => {
                c.zswap_rejected += 1;
                false
            }
        }
    }

    /// Loads `page` (swap-in): its entry is freed with its swap slot.
    pub fn load(&mut self, page: u32) {
        self.pool.remove(page);
    }

    /// Pages written back since the last call (now on the device).
    pub fn take_written_back(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.written_back)
    }
}

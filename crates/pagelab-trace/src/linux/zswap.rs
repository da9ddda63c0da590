//! zswap's rules, once, for the trace replay of Linux ([`super::replay`]) and the system
//! simulator's compressed pool (`pagelab_sys::zswap`): which store the pool takes, which it
//! refuses, when it is full again, what its shrink worker writes back, and how many pages its
//! zpool holds (mm/zswap.c: `zswap_frontswap_store` in 6.1, `zswap_store` and
//! `zswap_check_limits` in 6.12).
//!
//! ```text
//!  evicted page, its compressed length ──► Pool::admit
//!    6.12, zero-filled ──► Store: the swap map's zero bit, outside the pool's limits
//!    pool at its cap (6.1: above it) ──► Full { shrink }: "reached full" set
//!    reached full, not yet back to accept_threshold_percent of the cap ──► Full { shrink }
//!    longer than the zpool's largest object ──► Poor
//!    else ──► Store: the caller makes room if it must, then Pool::insert
//!  Full { shrink: true } ──► Pool::next_writeback, oldest entry first, until the pool is
//!                            back at the threshold (none in 6.1 on zsmalloc)
//!  swap-in ──► Pool::remove: the entry is freed with its swap slot
//! ```
//!
//! A pool is parameterised by the kernel series (its limits and its zero-filled pages), by its
//! zpool's packing ([`Zpool`]: zbud pairs objects in a page, z3fold puts three, zsmalloc packs
//! bytes) and, through its callers, by where a page's compressed length comes from (one mean
//! length, or lengths measured on real programs' pages: [`PageLengths`]). What is timed (the
//! writeback's I/O, compression's cost, the frames a pool takes from a free list) stays with
//! the caller. Pages are keys of any kind: the replay's page numbers, the simulator's
//! (owner, page) pairs.

mod lengths;
mod replay;

#[cfg(test)]
mod tests;

pub use lengths::{Compressor, PageLengths, PageSizes};
pub use replay::{ReplayPool, ZswapParams};

use super::Kernel;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// Bytes of a page [bytes] (`PAGE_SIZE` on x86-64).
pub const PAGE_BYTES: u32 = 4096;

/// Header and chunk of a zbud page [bytes] (mm/zbud.c `ZHDR_SIZE_ALIGNED`, `CHUNK_SIZE`: a
/// page in 64 chunks); z3fold's header is one chunk too.
const CHUNK_BYTES: u32 = 64;

/// The allocator zswap's compressed pages live in (`zswap.zpool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Zpool {
    /// Two objects a page, each in one half (mm/zbud.c).
    Zbud,
    /// Three objects a page, each in one third (mm/z3fold.c).
    Z3fold,
    /// Objects packed by bytes into size classes (mm/zsmalloc.c; their slack not counted).
    Zsmalloc,
}

impl Zpool {
    /// Debian's `CONFIG_ZSWAP_ZPOOL_DEFAULT`: zbud in 6.1, zsmalloc in 6.12.
    pub fn default_of(kernel: Kernel) -> Zpool {
        match kernel {
            Kernel::V6_1 => Zpool::Zbud,
            Kernel::V6_12 => Zpool::Zsmalloc,
        }
    }

    /// The zpool named `name` ("zbud", "z3fold" or "zsmalloc").
    pub fn parse(name: &str) -> Option<Zpool> {
        match name {
            "zbud" => Some(Zpool::Zbud),
            "z3fold" => Some(Zpool::Z3fold),
            "zsmalloc" => Some(Zpool::Zsmalloc),
            _ => None,
        }
    }

    /// The largest object it takes [bytes]: zbud's page less its header and a chunk
    /// (`zbud_alloc`), z3fold's and zsmalloc's a page (`z3fold_alloc`, `zs_malloc`'s
    /// `ZS_MAX_ALLOC_SIZE`); longer, the store is rejected (`zswap_reject_compress_poor`).
    pub fn largest(self) -> u32 {
        match self {
            Zpool::Zbud => PAGE_BYTES - 2 * CHUNK_BYTES,
            Zpool::Z3fold | Zpool::Zsmalloc => PAGE_BYTES,
        }
    }

    /// Objects of `len` bytes sharing one pool page (zbud two when each fits in half of a page
    /// less its header, z3fold three in thirds, else one); 0 for zsmalloc, which packs bytes.
    fn sharing(self, len: u32) -> usize {
        let fits = |n: u32| len <= (PAGE_BYTES - CHUNK_BYTES) / n;
        match self {
            Zpool::Zsmalloc => 0,
            Zpool::Zbud if fits(2) => 2,
            Zpool::Z3fold if fits(3) => 3,
            Zpool::Zbud | Zpool::Z3fold => 1,
        }
    }
}

/// The pool's cap and its accept threshold [pool pages].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most pages the pool may hold.
    pub max_pages: u64,
    /// The threshold the pool must come back to once full: at it or below in 6.12, below it
    /// in 6.1.
    pub accept_pages: u64,
    kernel: Kernel,
}

impl Limits {
    /// The limits of a pool on `total_pages` pages of RAM (`totalram_pages`) with zswap's
    /// `max_pool_percent` and `accept_threshold_percent` [%]. The cap is `total × max / 100`
    /// (6.1 `zswap_is_full`, 6.12 `zswap_max_pages`); the threshold is `cap × thr / 100` in
    /// 6.12 (`zswap_accept_thr_pages`) and `total × thr / 100 × max / 100` in 6.1
    /// (`zswap_can_accept`), each division rounding down as the kernel's integers do.
    pub fn new(kernel: Kernel, total_pages: u64, max_percent: f64, thr_percent: f64) -> Limits {
        let max_pages = (total_pages as f64 * max_percent / 100.0).floor() as u64;
        let accept_pages = match kernel {
            Kernel::V6_1 => {
                ((total_pages as f64 * thr_percent / 100.0).floor() * max_percent / 100.0).floor()
            }
            Kernel::V6_12 => (max_pages as f64 * thr_percent / 100.0).floor(),
        } as u64;
        Limits {
            max_pages,
            accept_pages,
            kernel,
        }
    }

    /// Whether a pool of `cur` pages is full: above the cap in 6.1 (`zswap_is_full`), at it or
    /// above in 6.12 (`zswap_check_limits`).
    fn full(&self, cur: u64) -> bool {
        match self.kernel {
            Kernel::V6_1 => cur > self.max_pages,
            Kernel::V6_12 => cur >= self.max_pages,
        }
    }

    /// Whether a full pool of `cur` pages accepts again: below the threshold in 6.1
    /// (`zswap_can_accept`), at it or below in 6.12 (`zswap_check_limits`; the shrink worker
    /// stops there too, `shrink_worker`).
    fn accepts(&self, cur: u64) -> bool {
        match self.kernel {
            Kernel::V6_1 => cur < self.accept_pages,
            Kernel::V6_12 => cur <= self.accept_pages,
        }
    }
}

/// What the pool does with a page offered to it ([`Pool::admit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreVerdict {
    /// It goes in: nothing is changed yet; the caller makes room for it if it must and calls
    /// [`Pool::insert`].
    Store,
    /// Refused by the pool's limits (the page goes to its swap slot). With `shrink`, the shrink
    /// worker is queued: [`Pool::next_writeback`] until it returns none.
    Full {
        /// Whether the shrink worker runs.
        shrink: bool,
    },
    /// Refused: compressed longer than the zpool's largest object ([`Zpool::largest`]).
    Poor,
}

/// The pool's books: the entries held with their compressed lengths, in store order (the
/// writeback LRU), and the "reached full" flag.
#[derive(Clone, Debug)]
pub struct Pool<K> {
    kernel: Kernel,
    zpool: Zpool,
    limits: Limits,
    /// Entries held: the stamp of their store and their compressed length [bytes].
    stored: HashMap<K, (u64, u32)>,
    /// Stores of entries with bytes, oldest first; an entry whose stamp no longer matches was
    /// loaded or written back since (skipped when met).
    lru: VecDeque<(K, u64)>,
    next_stamp: u64,
    /// Compressed bytes held [bytes].
    bytes: u64,
    /// Entries with bytes by how many share a pool page (index 1, 2, 3; zbud and z3fold).
    sharing: [u64; 4],
    /// Set when a store finds the pool full; cleared when one finds it back at the threshold.
    reached_full: bool,
}

impl<K: Copy + Eq + Hash> Pool<K> {
    /// An empty pool.
    pub fn new(kernel: Kernel, zpool: Zpool, limits: Limits) -> Pool<K> {
        Pool {
            kernel,
            zpool,
            limits,
            stored: HashMap::new(),
            lru: VecDeque::new(),
            next_stamp: 0,
            bytes: 0,
            sharing: [0; 4],
            reached_full: false,
        }
    }

    /// Its limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Entries held (zero-filled ones included).
    pub fn len(&self) -> usize {
        self.stored.len()
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.stored.is_empty()
    }

    /// Whether `key` is held.
    pub fn holds(&self, key: K) -> bool {
        self.stored.contains_key(&key)
    }

    /// Pages the zpool holds ([`Pool::pages_with`] no more).
    pub fn pages(&self) -> u64 {
        self.pages_of(self.bytes, &self.sharing)
    }

    /// Pages the zpool would hold with one more object of `len` bytes.
    pub fn pages_with(&self, len: u32) -> u64 {
        let mut sharing = self.sharing;
        if len > 0 {
            sharing[self.zpool.sharing(len)] += 1;
        }
        self.pages_of(self.bytes + u64::from(len), &sharing)
    }

    /// The zpool's `total_size` in pages: zsmalloc's bytes rounded up to pages, zbud's and
    /// z3fold's objects over how many share a page.
    fn pages_of(&self, bytes: u64, sharing: &[u64; 4]) -> u64 {
        match self.zpool {
            Zpool::Zsmalloc => bytes.div_ceil(u64::from(PAGE_BYTES)),
            Zpool::Zbud | Zpool::Z3fold => (1..4).map(|k| sharing[k].div_ceil(k as u64)).sum(),
        }
    }

    /// Pages charged to the cgroup: the entries' compressed bytes, whatever the zpool
    /// (`obj_cgroup_charge_zswap` charges each entry's length).
    pub fn charged_pages(&self) -> u64 {
        self.bytes.div_ceil(u64::from(PAGE_BYTES))
    }

    /// Whether the shrink worker can write back: 6.1's zsmalloc has no zpool `shrink`.
    fn may_write_back(&self) -> bool {
        !(self.kernel == Kernel::V6_1 && self.zpool == Zpool::Zsmalloc)
    }

    /// Offers a page compressed to `len` bytes (0: zero-filled, or same-filled in 6.1). In
    /// 6.12 a zero-filled page never reaches zswap (mm/page_io.c `swap_writepage` sets the
    /// swap map's zero bit first), so the limits do not see it. 6.1 (`zswap_frontswap_store`):
    /// above the cap, "reached full" and the shrink worker; while reached full, refused until
    /// below the threshold; a same-filled page then takes no bytes. 6.12 (`zswap_store`,
    /// `zswap_check_limits`): at the cap "reached full"; refused while it stays set, and every
    /// refusal queues the shrink worker. Then a page longer than the zpool takes is refused.
    pub fn admit(&mut self, len: u32) -> StoreVerdict {
        if self.kernel == Kernel::V6_12 && len == 0 {
            return StoreVerdict::Store;
        }
        let cur = self.pages();
        if self.limits.full(cur) {
            self.reached_full = true;
            return StoreVerdict::Full { shrink: true };
        }
        if self.reached_full {
            if !self.limits.accepts(cur) {
                let shrink = self.kernel == Kernel::V6_12;
                return StoreVerdict::Full { shrink };
            }
            self.reached_full = false;
        }
        if len > self.zpool.largest() {
            return StoreVerdict::Poor;
        }
        StoreVerdict::Store
    }

    /// Takes `key` in with `len` compressed bytes (after [`StoreVerdict::Store`]); an entry it
    /// held is replaced. An entry of no bytes is never written back: it has no zpool object
    /// (6.1's same-filled entries) or is not zswap's (6.12's zero bit).
    pub fn insert(&mut self, key: K, len: u32) {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        if let Some((_, old)) = self.stored.insert(key, (stamp, len)) {
            self.forget(old);
        }
        self.bytes += u64::from(len);
        if len > 0 {
            self.sharing[self.zpool.sharing(len)] += 1;
            self.lru.push_back((key, stamp));
        }
    }

    /// Takes `key` out (a swap-in frees the entry with its slot); `false` if it was not held.
    pub fn remove(&mut self, key: K) -> bool {
        match self.stored.remove(&key) {
            Some((_, len)) => {
                self.forget(len);
                true
            }
            None => false,
        }
    }

    fn forget(&mut self, len: u32) {
        self.bytes -= u64::from(len);
        if len > 0 {
            self.sharing[self.zpool.sharing(len)] -= 1;
        }
    }

    /// The shrink worker's next entry: the oldest with bytes, taken out, while the pool is not
    /// back at its accept threshold (6.1 and 6.12 `shrink_worker`); none once it is, when
    /// nothing is left to write back, or when the zpool cannot write back.
    pub fn next_writeback(&mut self) -> Option<K> {
        if !self.may_write_back() || self.limits.accepts(self.pages()) {
            return None;
        }
        while let Some((key, stamp)) = self.lru.pop_front() {
            if self.stored.get(&key).map(|e| e.0) == Some(stamp) {
                self.remove(key);
                return Some(key);
            }
        }
        None
    }

    /// The books agree: the bytes and the sharing counts are the entries'.
    pub fn check(&self) -> Result<(), String> {
        let sum: u64 = self.stored.values().map(|e| u64::from(e.1)).sum();
        if sum != self.bytes {
            return Err(format!(
                "zswap counts {} bytes, its entries hold {sum}",
                self.bytes
            ));
        }
        let mut sharing = [0u64; 4];
        for &(_, len) in self.stored.values().filter(|e| e.1 > 0) {
            sharing[self.zpool.sharing(len)] += 1;
        }
        if sharing != self.sharing {
            return Err(format!(
                "zswap counts {:?} objects by page share, its entries {sharing:?}",
                self.sharing
            ));
        }
        Ok(())
    }
}

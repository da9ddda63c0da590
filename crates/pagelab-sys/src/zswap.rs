//! A compressed page pool in main storage between SELECT and the paging devices: Linux's
//! zswap (mm/zswap.c, `zswap_store`, `zswap_check_limits` and `shrink_worker` in 6.12) on the
//! VM/370 family's frame supply (ours; no paper of the lab has it).
//!
//! ```text
//!  SELECT's victim, to be written ──► its swap slot taken now (Linux's add_to_swap)
//!     pool at its cap, or full and not yet back to the accept threshold? ──► rejected:
//!        written to its slot as without the pool; the pool writes back its oldest entries
//!        to their slots until it is at or below the threshold (the shrink worker)
//!     zero-filled ──► kept as an entry of no bytes (6.12: the swap map's zero bit)
//!     compressed larger than a page ──► rejected (compress_poor): written
//!     else ──► compressed into the pool; the frame is free at once, no I/O
//!  fault on a page in the pool ──► decompressed into the fault's frame: resident at once,
//!                                  changed (the slot holds no copy); the entry leaves the pool
//! ```
//!
//! The pool holds its pages' compressed bytes packed into whole frames taken from the free
//! list, as zsmalloc packs objects (size classes' slack not counted): `ceil(bytes / page)`
//! frames. The cap is `max_pool_percent` of storage (default 20); a store finds the pool full
//! when it holds the cap or more (`zswap_check_limits`), and stays refused until the pool is
//! at or below `accept_threshold_percent` of the cap (default 90). A store that needs one
//! more frame and finds the free list empty is rejected too (`reject_alloc_fail`). Readings
//! (each a parameter or said here):
//! - a page's compressed length is drawn once per page from the lengths measured on real
//!   programs' anonymous pages with the kernel's compressor (`compressor`, `zswap/sizes.rs`,
//!   `data/page_compression.json`); without one every page takes a page over the mean
//!   `compression_ratio` (default 3 [A]), and none is zero-filled;
//! - the shrink worker runs at once, not from a work queue; writeback writes the page to the
//!   slot it was given at store, decompressed (one page-out of its own);
//! - a load frees the entry (6.12's loads are exclusive) and the frames the pool no longer
//!   needs go back to the free list at once (zsmalloc compaction taken as immediate);
//! - a frame supply that ranks pages itself (`memory.replacement` other than `clock`) keeps the
//!   pool's cap out of the pages it may hold, as it keeps `replacement_reserve` (the pool sits
//!   near its cap under pressure); without that it would rank pages storage no longer has room
//!   for, and SELECT would fall back on the scan;
//! - compression and decompression are supervisor time (`compress_us`, `decompress_us` [A]:
//!   a current processor's lzo-rle on 4 KiB; scale them to the machine modelled).

use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

mod sizes;
pub use sizes::{Compressor, PageSizes};

/// Bytes of a page, for the pool's packing [bytes].
pub const PAGE_BYTES: u32 = 4096;

/// Parameters of the compressed pool (`[memory.zswap]`; absent: no pool).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZswapSpec {
    /// Most of storage the pool may hold [% of `memory.frames`] (zswap default 20).
    #[serde(default = "twenty")]
    pub max_pool_percent: f64,
    /// Once full, the pool accepts again at or below this share of its cap [%] (zswap's
    /// `accept_threshold_percent`, default 90).
    #[serde(default = "ninety")]
    pub accept_threshold_percent: f64,
    /// The compressor whose lengths, measured on real programs' pages, each page takes
    /// (`lzo`, `lz4`, `zstd`); absent: every page `compression_ratio`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressor: Option<Compressor>,
    /// Pages stored per pool frame when no compressor is named [pages/frame] (default 3 [A]).
    #[serde(default = "three")]
    pub compression_ratio: f64,
    /// Supervisor time to compress one page [µs] (default 10 [A]).
    #[serde(default = "ten")]
    pub compress_us: f64,
    /// Supervisor time to decompress one page [µs] (default 4 [A]).
    #[serde(default = "four")]
    pub decompress_us: f64,
}

fn twenty() -> f64 {
    20.0
}
fn ninety() -> f64 {
    90.0
}
fn three() -> f64 {
    3.0
}
fn ten() -> f64 {
    10.0
}
fn four() -> f64 {
    4.0
}

impl Default for ZswapSpec {
    fn default() -> Self {
        ZswapSpec {
            max_pool_percent: 20.0,
            accept_threshold_percent: 90.0,
            compressor: None,
            compression_ratio: 3.0,
            compress_us: 10.0,
            decompress_us: 4.0,
        }
    }
}

impl ZswapSpec {
    /// Most frames the pool may hold on a storage of `frames` frames.
    pub fn cap_frames(&self, frames: u32) -> u32 {
        (self.max_pool_percent / 100.0 * f64::from(frames)).floor() as u32
    }

    /// Checks the values; the error is (key below `memory.zswap`, what was expected).
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        for (k, v) in [
            ("max_pool_percent", self.max_pool_percent),
            ("accept_threshold_percent", self.accept_threshold_percent),
        ] {
            if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
                return Err((k, "expected a share from 0 to 100 [%]"));
            }
        }
        if !(self.compression_ratio.is_finite() && self.compression_ratio >= 1.0) {
            return Err(("compression_ratio", "expected pages per pool frame ≥ 1"));
        }
        for (k, v) in [
            ("compress_us", self.compress_us),
            ("decompress_us", self.decompress_us),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err((k, "expected a cost ≥ 0 [µs]"));
            }
        }
        Ok(())
    }
}

/// What the pool did over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ZswapCounters {
    /// Pages compressed into the pool instead of written (zero-filled ones included).
    pub stores: u64,
    /// Of them, zero-filled pages (no bytes in the pool).
    pub zero_filled: u64,
    /// Faults served from the pool.
    pub loads: u64,
    /// Entries written back to their slots to bring the pool to its threshold.
    pub writebacks: u64,
    /// Stores refused: pool at its cap or not yet back under its threshold.
    pub rejects: u64,
    /// Stores refused: compressed larger than a page.
    pub rejects_poor: u64,
    /// Stores refused: no free frame for the pool to grow.
    pub rejects_alloc: u64,
    /// Integral of the frames the pool held [frame·s].
    pub frame_s: f64,
}

/// The pool's books: which pages it holds with their compressed lengths, in store order, and
/// the frames it holds them in.
#[derive(Clone, Debug)]
pub struct Zswap {
    /// Parameters.
    pub spec: ZswapSpec,
    /// Most frames the pool may hold.
    pub cap_frames: u32,
    /// Pages held: the stamp of their store and their compressed length [bytes].
    stored: HashMap<(u32, u32), (u64, u32)>,
    /// Stores of pages with bytes, oldest first (the writeback order); an entry whose stamp
    /// no longer matches was loaded or written back since (skipped when met).
    order: VecDeque<(u32, u32, u64)>,
    next_stamp: u64,
    /// Compressed bytes held [bytes].
    bytes: u64,
    /// Set when a store found the pool at its cap; cleared at the accept threshold.
    reached_full: bool,
    /// The measured lengths, when a compressor is named.
    sizes: Option<PageSizes>,
    /// Frames the pool holds (state [`crate::memory::FrameState::Pool`]).
    pub frames: Vec<u32>,
    /// What it did.
    pub c: ZswapCounters,
}

impl Zswap {
    /// An empty pool on a storage of `frames` frames.
    pub fn new(spec: ZswapSpec, frames: u32) -> Zswap {
        let cap_frames = spec.cap_frames(frames);
        let sizes = spec.compressor.map(PageSizes::measured);
        Zswap {
            spec,
            cap_frames,
            stored: HashMap::new(),
            order: VecDeque::new(),
            next_stamp: 0,
            bytes: 0,
            reached_full: false,
            sizes,
            frames: Vec::new(),
            c: ZswapCounters::default(),
        }
    }

    /// Pages held.
    pub fn len(&self) -> usize {
        self.stored.len()
    }

    /// Whether the pool holds no page.
    pub fn is_empty(&self) -> bool {
        self.stored.is_empty()
    }

    /// The compressed length of `(owner, page)` for a run seeded `seed` [bytes]: the measured
    /// lengths' draw for this page, or a page over the mean ratio (0: zero-filled).
    pub fn length_of(&self, seed: u64, owner: u32, page: u32) -> u32 {
        match &self.sizes {
            Some(s) => s.length(seed, owner, page),
            None => (f64::from(PAGE_BYTES) / self.spec.compression_ratio).ceil() as u32,
        }
    }

    /// Frames `bytes` compressed bytes take, packed.
    pub fn frames_for(&self, bytes: u64) -> u32 {
        bytes.div_ceil(u64::from(PAGE_BYTES)) as u32
    }

    /// Frames the pool needs now.
    pub fn frames_needed(&self) -> u32 {
        self.frames_for(self.bytes)
    }

    /// Whether a store of `len` bytes may go in (`zswap_check_limits`): not at the cap (nor
    /// over it with this page), and, once the cap was reached, back at or below the accept
    /// threshold. Records the cap being reached.
    pub fn admits(&mut self, len: u32) -> bool {
        let cur = self.frames_needed();
        if cur >= self.cap_frames || self.frames_with(len) > self.cap_frames {
            self.reached_full = true;
        } else if self.reached_full && !self.above_threshold() {
            self.reached_full = false;
        }
        !self.reached_full
    }

    /// Whether the shrink worker must write back more (above the accept threshold,
    /// `zswap_accept_thr_pages`).
    pub fn above_threshold(&self) -> bool {
        f64::from(self.frames_needed())
            > f64::from(self.cap_frames) * self.spec.accept_threshold_percent / 100.0
    }

    /// Whether a page of `len` bytes is too large for the pool (zsmalloc's largest object is
    /// a page: `reject_compress_poor`).
    pub fn poor(len: u32) -> bool {
        len > PAGE_BYTES
    }

    /// Frames the pool needs with one more page of `len` bytes.
    pub fn frames_with(&self, len: u32) -> u32 {
        self.frames_for(self.bytes + u64::from(len))
    }

    /// Whether `(owner, page)` is in the pool.
    pub fn holds(&self, owner: u32, page: u32) -> bool {
        self.stored.contains_key(&(owner, page))
    }

    /// Records `(owner, page)` as stored with `len` compressed bytes (its frames are the
    /// caller's business). A zero-filled page (no bytes) is never written back.
    pub fn insert(&mut self, owner: u32, page: u32, len: u32) {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        if let Some((_, old)) = self.stored.insert((owner, page), (stamp, len)) {
            self.bytes -= u64::from(old);
        }
        self.bytes += u64::from(len);
        if len > 0 {
            self.order.push_back((owner, page, stamp));
        }
    }

    /// Takes `(owner, page)` out of the pool; `false` if it was not there.
    pub fn remove(&mut self, owner: u32, page: u32) -> bool {
        match self.stored.remove(&(owner, page)) {
            Some((_, len)) => {
                self.bytes -= u64::from(len);
                true
            }
            None => false,
        }
    }

    /// Takes the oldest page with bytes out of the pool.
    pub fn pop_oldest(&mut self) -> Option<(u32, u32)> {
        while let Some((owner, page, stamp)) = self.order.pop_front() {
            if self.stored.get(&(owner, page)).map(|e| e.0) == Some(stamp) {
                self.remove(owner, page);
                return Some((owner, page));
            }
        }
        None
    }

    /// The pool's own books: frames held match what its bytes need, within the cap.
    pub fn check(&self) -> Result<(), String> {
        let sum: u64 = self.stored.values().map(|e| u64::from(e.1)).sum();
        if sum != self.bytes {
            return Err(format!(
                "zswap counts {} bytes, its entries hold {sum}",
                self.bytes
            ));
        }
        let need = self.frames_needed();
        if self.frames.len() as u32 != need {
            return Err(format!(
                "zswap holds {} pages in {} frames, needs {need}",
                self.len(),
                self.frames.len()
            ));
        }
        if need > self.cap_frames {
            return Err(format!(
                "zswap holds {need} frames, above its cap of {}",
                self.cap_frames
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(ratio: f64) -> Zswap {
        let spec = ZswapSpec {
            compression_ratio: ratio,
            ..ZswapSpec::default()
        };
        Zswap::new(spec, 100)
    }

    #[test]
    fn the_cap_is_a_share_of_storage_and_pages_share_frames() {
        let z = pool(3.0);
        assert_eq!(z.cap_frames, 20);
        // A third of a page each, rounded up (1,366 bytes): two share a frame, a third spills.
        let len = z.length_of(1, 0, 0);
        assert_eq!(len, 1366);
        assert_eq!(
            (0..=7)
                .map(|n| z.frames_for(n * u64::from(len)))
                .collect::<Vec<_>>(),
            [0, 1, 1, 2, 2, 2, 3, 3]
        );
    }

    #[test]
    fn a_full_pool_refuses_until_it_is_back_at_its_threshold() {
        // 100 frames: a cap of 20 pool frames, 18 at the 90 % threshold.
        let mut z = pool(1.0);
        assert!(z.admits(PAGE_BYTES));
        (0..20).for_each(|p| z.insert(0, p, PAGE_BYTES));
        assert!(!z.admits(0), "at the cap: full");
        z.remove(0, 0);
        assert!(
            z.above_threshold() && !z.admits(0),
            "19 frames: not yet back to 18"
        );
        z.remove(0, 1);
        assert!(
            !z.above_threshold() && z.admits(0),
            "18 frames: accepts again"
        );
        // Not full, but this page would take the pool over its cap: full from now on.
        (2..4).for_each(|p| assert!(z.remove(0, p)));
        z.insert(0, 2, 2 * PAGE_BYTES);
        assert_eq!(z.frames_needed(), 18);
        assert!(!z.admits(3 * PAGE_BYTES));
        assert!(
            z.admits(0),
            "at its threshold already: a page that fits goes in"
        );
        assert!(Zswap::poor(PAGE_BYTES + 1) && !Zswap::poor(PAGE_BYTES));
        // A zero-filled page takes no bytes and is never written back.
        z.insert(1, 7, 0);
        assert_eq!(z.frames_needed(), 18);
        assert!(std::iter::from_fn(|| z.pop_oldest()).all(|e| e != (1, 7)));
        assert!(z.holds(1, 7) && z.remove(1, 7));
    }

    #[test]
    fn writeback_takes_the_oldest_page_still_held() {
        let mut z = pool(3.0);
        z.insert(1, 10, 900);
        z.insert(2, 20, 900);
        z.insert(3, 30, 900);
        assert!(z.remove(1, 10), "loaded: gone from the pool");
        assert!(!z.remove(1, 10));
        z.insert(1, 10, 900); // stored again: now the newest
        assert_eq!(z.pop_oldest(), Some((2, 20)));
        assert_eq!(z.pop_oldest(), Some((3, 30)));
        assert_eq!(z.pop_oldest(), Some((1, 10)));
        assert_eq!(z.pop_oldest(), None);
        assert!(z.is_empty());
        z.check().unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        for (spec, key) in [
            (
                ZswapSpec {
                    max_pool_percent: 120.0,
                    ..ZswapSpec::default()
                },
                "max_pool_percent",
            ),
            (
                ZswapSpec {
                    compression_ratio: 0.5,
                    ..ZswapSpec::default()
                },
                "compression_ratio",
            ),
            (
                ZswapSpec {
                    decompress_us: f64::NAN,
                    ..ZswapSpec::default()
                },
                "decompress_us",
            ),
        ] {
            assert_eq!(spec.check().unwrap_err().0, key);
        }
    }
}

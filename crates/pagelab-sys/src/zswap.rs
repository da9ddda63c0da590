//! A compressed page pool in main storage between SELECT and the paging devices: Linux's
//! zswap (Documentation/admin-guide/mm/zswap.rst) on the VM/370 family's frame supply (ours;
//! no paper of the lab has it).
//!
//! ```text
//!  SELECT's victim, to be written ──► pool has room? ── yes ──► compressed into the pool:
//!        │                              │                       frame freed at once, no I/O
//!        │                              └─ at its cap ──► oldest entry written back to a slot
//!        ▼ (pool cannot grow: no free frame)                     (decompressed, one page-out)
//!  page-out to a paging device, as without the pool
//!
//!  fault on a page in the pool ──► decompressed into the fault's frame: resident at once,
//!                                  changed (no slot copy); the entry leaves the pool
//! ```
//!
//! The pool holds its pages in whole frames taken from the free list: `ceil(entries / ratio)`
//! of them, never more than `max_pool_percent` of storage (zswap's `max_pool_percent`, default
//! 20). Readings where zswap's documentation leaves a choice (each a parameter or said here):
//! - every page compresses by the one mean `compression_ratio` (default 3 [A]: zsmalloc with
//!   lzo-rle on typical anonymous memory; the model has no page contents);
//! - a store that finds the pool at its cap first writes back its oldest entries (zswap's
//!   LRU writeback when the pool limit is hit); a store that needs a new frame and finds the
//!   free list empty is rejected and the page goes to its device;
//! - a load frees the entry (zswap's exclusive loads) and the frames the pool no longer needs
//!   go back to the free list at once (zsmalloc compaction taken as immediate);
//! - a frame supply that ranks pages itself (`memory.replacement` other than `clock`) keeps the
//!   pool's cap out of the pages it may hold, as it keeps `replacement_reserve` (the pool sits
//!   at its cap under pressure); without that it would rank pages storage no longer has room
//!   for, and SELECT would fall back on the scan;
//! - compression and decompression are supervisor time (`compress_us`, `decompress_us` [A]:
//!   a current processor's lzo-rle on 4 KiB; scale them to the machine modelled).

use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// Parameters of the compressed pool (`[memory.zswap]`; absent: no pool).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZswapSpec {
    /// Most of storage the pool may hold [% of `memory.frames`] (zswap default 20).
    #[serde(default = "twenty")]
    pub max_pool_percent: f64,
    /// Pages stored per pool frame [pages/frame] (default 3 [A]).
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
        if !(self.max_pool_percent.is_finite() && (0.0..=100.0).contains(&self.max_pool_percent)) {
            return Err((
                "max_pool_percent",
                "expected a share of storage from 0 to 100 [%]",
            ));
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
    /// Pages compressed into the pool instead of written.
    pub stores: u64,
    /// Faults served from the pool.
    pub loads: u64,
    /// Entries written back to a paging device to make room.
    pub writebacks: u64,
    /// Stores refused because the pool could not grow (no free frame).
    pub rejects: u64,
    /// Integral of the frames the pool held [frame·s].
    pub frame_s: f64,
}

/// The pool's books: which pages it holds, in store order, and the frames it holds them in.
#[derive(Clone, Debug)]
pub struct Zswap {
    /// Parameters.
    pub spec: ZswapSpec,
    /// Most frames the pool may hold.
    pub cap_frames: u32,
    /// Pages held, with the stamp of their store.
    stored: HashMap<(u32, u32), u64>,
    /// Stores, oldest first; an entry whose stamp no longer matches was loaded or written
    /// back since (skipped when met).
    order: VecDeque<(u32, u32, u64)>,
    next_stamp: u64,
    /// Frames the pool holds (state [`crate::memory::FrameState::Pool`]).
    pub frames: Vec<u32>,
    /// What it did.
    pub c: ZswapCounters,
}

impl Zswap {
    /// An empty pool on a storage of `frames` frames.
    pub fn new(spec: ZswapSpec, frames: u32) -> Zswap {
        let cap_frames = spec.cap_frames(frames);
        Zswap {
            spec,
            cap_frames,
            stored: HashMap::new(),
            order: VecDeque::new(),
            next_stamp: 0,
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

    /// Frames `entries` compressed pages take.
    pub fn frames_for(&self, entries: usize) -> u32 {
        (entries as f64 / self.spec.compression_ratio).ceil() as u32
    }

    /// Whether one more page needs a frame more than the pool holds.
    pub fn needs_frame(&self) -> bool {
        self.frames_for(self.len() + 1) as usize > self.frames.len()
    }

    /// Whether `(owner, page)` is in the pool.
    pub fn holds(&self, owner: u32, page: u32) -> bool {
        self.stored.contains_key(&(owner, page))
    }

    /// Records `(owner, page)` as stored (its frames are the caller's business).
    pub fn insert(&mut self, owner: u32, page: u32) {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.stored.insert((owner, page), stamp);
        self.order.push_back((owner, page, stamp));
    }

    /// Takes `(owner, page)` out of the pool; `false` if it was not there.
    pub fn remove(&mut self, owner: u32, page: u32) -> bool {
        self.stored.remove(&(owner, page)).is_some()
    }

    /// Takes the oldest page out of the pool.
    pub fn pop_oldest(&mut self) -> Option<(u32, u32)> {
        while let Some((owner, page, stamp)) = self.order.pop_front() {
            if self.stored.get(&(owner, page)) == Some(&stamp) {
                self.stored.remove(&(owner, page));
                return Some((owner, page));
            }
        }
        None
    }

    /// The pool's own books: frames held match what its pages need, within the cap.
    pub fn check(&self) -> Result<(), String> {
        let need = self.frames_for(self.len());
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
        assert_eq!(
            (0..=7).map(|n| z.frames_for(n)).collect::<Vec<_>>(),
            [0, 1, 1, 1, 2, 2, 2, 3]
        );
        assert_eq!(pool(2.5).frames_for(5), 2);
        assert_eq!(pool(2.5).frames_for(6), 3);
    }

    #[test]
    fn writeback_takes_the_oldest_page_still_held() {
        let mut z = pool(3.0);
        z.insert(1, 10);
        z.insert(2, 20);
        z.insert(3, 30);
        assert!(z.remove(1, 10), "loaded: gone from the pool");
        assert!(!z.remove(1, 10));
        z.insert(1, 10); // stored again: now the newest
        assert_eq!(z.pop_oldest(), Some((2, 20)));
        assert_eq!(z.pop_oldest(), Some((3, 30)));
        assert_eq!(z.pop_oldest(), Some((1, 10)));
        assert_eq!(z.pop_oldest(), None);
        assert!(z.is_empty());
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

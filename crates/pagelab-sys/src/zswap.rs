//! A compressed page pool in main storage between SELECT and the paging devices: Linux's
//! zswap (mm/zswap.c, `zswap_store`, `zswap_check_limits` and `shrink_worker` in 6.12) on the
//! VM/370 family's frame supply (ours; no paper of the lab has it).
//!
//! ```text
//!  SELECT's victim, to be written ──► its swap slot taken now (Linux's add_to_swap)
//!     zero-filled ──► kept as an entry of no bytes, whatever the pool's fill (6.12: the swap
//!                     map's zero bit, set before zswap is asked)
//!     pool at its cap, or full and not yet back to the accept threshold? ──► rejected:
//!        written to its slot as without the pool; the pool writes back its oldest entries
//!        to their slots until it is at or below the threshold (the shrink worker)
//!     compressed larger than a page ──► rejected (compress_poor): written
//!     no free frame for the pool to grow ──► rejected (alloc_fail): written
//!     else ──► compressed into the pool; the frame is free at once, no I/O
//!  fault on a page in the pool ──► decompressed into the fault's frame: resident at once,
//!                                  changed (the slot holds no copy); the entry leaves the pool
//! ```
//!
//! The rules (the cap, the accept threshold, which store is refused, what the shrink worker
//! writes back, the zpool's pages) are zswap's as the trace replay of Linux follows them,
//! written once in `pagelab_trace::linux::zswap` ([`Pool`]) with their kernel citations; this
//! module sets them up for 6.12 and zsmalloc on `memory.frames` and holds the pool's frames,
//! and `system/zswap_io.rs` times what they decide. The pool holds its pages' compressed bytes
//! packed into whole frames taken from the free list, as zsmalloc packs objects (size classes'
//! slack not counted): `ceil(bytes / page)` frames. The cap is `max_pool_percent` of storage
//! (default 20), `frames × percent / 100` rounded down; a store finds the pool full when it
//! holds the cap or more, and stays refused until the pool is at or below
//! `accept_threshold_percent` of the cap (default 90). Readings (each a parameter or said here):
//! - a page's compressed length is drawn once per page from the lengths measured on real
//!   programs' anonymous pages with the kernel's compressor (`compressor`,
//!   [`PageSizes`], `crates/pagelab-trace/data/page_compression.json`); without one every page
//!   takes a page over the mean `compression_ratio` (default 3 [A]), and none is zero-filled;
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

use pagelab_trace::linux::zswap::{Limits, PageLengths, Pool, Zpool};
use pagelab_trace::linux::Kernel;
use serde::{Deserialize, Serialize};

pub use pagelab_trace::linux::zswap::{Compressor, PageSizes, StoreVerdict, PAGE_BYTES};

/// The kernel series whose zswap the pool follows.
const KERNEL: Kernel = Kernel::V6_12;

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
    /// The pool's cap and accept threshold on a storage of `frames` frames [frames].
    pub fn limits(&self, frames: u32) -> Limits {
        Limits::new(
            KERNEL,
            u64::from(frames),
            self.max_pool_percent,
            self.accept_threshold_percent,
        )
    }

    /// Most frames the pool may hold on a storage of `frames` frames.
    pub fn cap_frames(&self, frames: u32) -> u32 {
        self.limits(frames).max_pages as u32
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

/// The pool on storage: zswap's rules over (owner, page) keys ([`Pool`], shared with the trace
/// replay of Linux), where each page's length comes from, and the frames the pool holds.
#[derive(Clone, Debug)]
pub struct Zswap {
    /// Parameters.
    pub spec: ZswapSpec,
    /// Most frames the pool may hold.
    pub cap_frames: u32,
    pool: Pool<(u32, u32)>,
    lengths: PageLengths,
    /// Frames the pool holds (state [`crate::memory::FrameState::Pool`]).
    pub frames: Vec<u32>,
    /// What it did.
    pub c: ZswapCounters,
}

impl Zswap {
    /// An empty pool on a storage of `frames` frames.
    pub fn new(spec: ZswapSpec, frames: u32) -> Zswap {
        let limits = spec.limits(frames);
        let lengths = match spec.compressor {
            Some(c) => PageLengths::Measured(PageSizes::measured(c, KERNEL)),
            None => PageLengths::mean_ratio(spec.compression_ratio),
        };
        Zswap {
            spec,
            cap_frames: limits.max_pages as u32,
            pool: Pool::new(KERNEL, Zpool::Zsmalloc, limits),
            lengths,
            frames: Vec::new(),
            c: ZswapCounters::default(),
        }
    }

    /// Pages held.
    pub fn len(&self) -> usize {
        self.pool.len()
    }

    /// Whether the pool holds no page.
    pub fn is_empty(&self) -> bool {
        self.pool.is_empty()
    }

    /// The compressed length of `(owner, page)` for a run seeded `seed` [bytes]: the measured
    /// lengths' draw for this page, or a page over the mean ratio (0: zero-filled).
    pub fn length_of(&self, seed: u64, owner: u32, page: u32) -> u32 {
        self.lengths.of(seed, owner, page)
    }

    /// Frames the pool needs now.
    pub fn frames_needed(&self) -> u32 {
        self.pool.pages() as u32
    }

    /// Frames the pool needs with one more page of `len` bytes.
    pub fn frames_with(&self, len: u32) -> u32 {
        self.pool.pages_with(len) as u32
    }

    /// What the pool does with a page of `len` bytes ([`Pool::admit`]).
    pub fn admit(&mut self, len: u32) -> StoreVerdict {
        self.pool.admit(len)
    }

    /// Whether `(owner, page)` is in the pool.
    pub fn holds(&self, owner: u32, page: u32) -> bool {
        self.pool.holds((owner, page))
    }

    /// Records `(owner, page)` as stored with `len` compressed bytes (its frames are the
    /// caller's business). A zero-filled page (no bytes) is never written back.
    pub fn insert(&mut self, owner: u32, page: u32, len: u32) {
        self.pool.insert((owner, page), len);
    }

    /// Takes `(owner, page)` out of the pool; `false` if it was not there.
    pub fn remove(&mut self, owner: u32, page: u32) -> bool {
        self.pool.remove((owner, page))
    }

    /// The shrink worker's next page to write back, taken out of the pool
    /// ([`Pool::next_writeback`]); none once the pool is back at its threshold.
    pub fn next_writeback(&mut self) -> Option<(u32, u32)> {
        self.pool.next_writeback()
    }

    /// The pool's own books: frames held match what its bytes need, within the cap.
    pub fn check(&self) -> Result<(), String> {
        self.pool.check()?;
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
        let mut z = pool(3.0);
        assert_eq!(z.cap_frames, 20);
        // A third of a page each, rounded up (1,366 bytes): two share a frame, a third spills.
        let len = z.length_of(1, 0, 0);
        assert_eq!(len, 1366);
        let mut frames = vec![z.frames_needed()];
        for p in 0..7 {
            z.insert(0, p, len);
            frames.push(z.frames_needed());
        }
        assert_eq!(frames, [0, 1, 1, 2, 2, 2, 3, 3]);
        let odd = ZswapSpec {
            max_pool_percent: 29.0,
            ..ZswapSpec::default()
        };
        assert_eq!(
            odd.cap_frames(100),
            29,
            "100 × 29 / 100, as the kernel's integers"
        );
    }

    #[test]
    fn the_pool_follows_6_12_zsmalloc() {
        // 100 frames: a cap of 20 pool frames, 18 at the 90 % threshold; pages longer than a
        // page are poor; zero-filled pages pass a full pool (the swap map's zero bit).
        let mut z = pool(1.0);
        (0..20).for_each(|p| z.insert(0, p, PAGE_BYTES));
        assert_eq!(z.admit(0), StoreVerdict::Store);
        assert_eq!(z.admit(PAGE_BYTES), StoreVerdict::Full { shrink: true });
        let written: Vec<_> = std::iter::from_fn(|| z.next_writeback()).collect();
        assert_eq!(written, [(0, 0), (0, 1)]);
        assert_eq!(z.admit(PAGE_BYTES + 1), StoreVerdict::Poor);
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

//! Where a page's compressed length comes from ([`PageLengths`]): one length for every page
//! (the replay's measured page, or a page over a mean ratio), or the lengths of real programs'
//! anonymous pages, measured with the kernel's compressors' own algorithms
//! (`crates/pagelab-trace/data/page_compression.json`, made by
//! `scripts/measure_page_compression.py`; its "about" says how).
//!
//! A page's length is drawn once for the page: a hash of the run's seed, its owner and its
//! number picks a point of the measured distribution, so a page compresses alike each time it
//! is stored, and runs with the same seed draw the same lengths whatever else differs. The
//! measured pages fall in three kinds: zero-filled (no bytes; 6.12 keeps them in the swap map's
//! zero bit, mm/page_io.c `swap_writepage`), same-filled but not zero (6.1 stores the word, no
//! bytes, `zswap_is_page_same_filled`; 6.12 compresses it as a nearly uniform page: the length
//! measured for the replayer's page, `python/pagelab/linux/compressed.json`), and the rest with
//! the lengths measured for each.

use super::{Kernel, PAGE_BYTES};
use serde::{Deserialize, Serialize};

/// The measured data, embedded at build time.
const DATA: &str = include_str!("../../../data/page_compression.json");

/// Where each page's compressed length comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum PageLengths {
    /// Every page the same length [bytes].
    Fixed(u32),
    /// Each page its draw from the lengths measured on real programs.
    Measured(PageSizes),
}

impl PageLengths {
    /// Every page a page over `ratio` pages per pool page, rounded up [bytes].
    pub fn mean_ratio(ratio: f64) -> PageLengths {
        PageLengths::Fixed((f64::from(PAGE_BYTES) / ratio).ceil() as u32)
    }

    /// The length of `(owner, page)` in a run seeded `seed` [bytes] (0: zero-filled).
    pub fn of(&self, seed: u64, owner: u32, page: u32) -> u32 {
        match self {
            PageLengths::Fixed(len) => *len,
            PageLengths::Measured(s) => s.length(seed, owner, page),
        }
    }
}

/// A compressor zswap may use (`memory.zswap.compressor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compressor {
    /// LZO1X-1 (Debian's `CONFIG_ZSWAP_COMPRESSOR_DEFAULT` in 6.1).
    Lzo,
    /// LZ4 block, default acceleration.
    Lz4,
    /// Zstandard at the kernel crypto driver's level.
    Zstd,
}

impl Compressor {
    fn key(self) -> &'static str {
        match self {
            Compressor::Lzo => "lzo",
            Compressor::Lz4 => "lz4",
            Compressor::Zstd => "zstd",
        }
    }

    /// The length of a page of one byte then zeros (python/pagelab/linux/compressed.json).
    fn uniform_bytes(self) -> u32 {
        match self {
            Compressor::Lzo => 44,
            Compressor::Lz4 => 27,
            Compressor::Zstd => 19,
        }
    }
}

#[derive(Deserialize)]
struct File {
    pooled: Pooled,
}

#[derive(Deserialize)]
struct Pooled {
    pages: u64,
    zero_filled: u64,
    same_filled: u64,
    compressed: std::collections::BTreeMap<String, Vec<(u32, u64)>>,
}

/// The distribution of one compressor's lengths over the measured pages.
#[derive(Clone, Debug, PartialEq)]
pub struct PageSizes {
    /// Share of pages zero-filled, then same-filled [0-1, cumulative].
    zero: f64,
    same: f64,
    same_bytes: u32,
    /// Cumulative share at each length, over the pages that are neither [0-1].
    cdf: Vec<(f64, u32)>,
}

impl PageSizes {
    /// The measured lengths of `c` as `kernel`'s zswap sees them (the embedded data is
    /// checked by the tests): 6.1 stores a same-filled page in no bytes.
    pub fn measured(c: Compressor, kernel: Kernel) -> PageSizes {
        let f: File = serde_json::from_str(DATA).expect("data/page_compression.json parses");
        let p = f.pooled;
        let counts = &p.compressed[c.key()];
        let same_bytes = match kernel {
            Kernel::V6_1 => 0,
            Kernel::V6_12 => c.uniform_bytes(),
        };
        PageSizes::from_counts(p.pages, p.zero_filled, p.same_filled, counts, same_bytes)
    }

    fn from_counts(
        pages: u64,
        zero: u64,
        same: u64,
        counts: &[(u32, u64)],
        same_bytes: u32,
    ) -> PageSizes {
        let total: u64 = counts.iter().map(|c| c.1).sum();
        let mut acc = 0u64;
        let cdf = counts
            .iter()
            .map(|&(len, n)| {
                acc += n;
                (acc as f64 / total.max(1) as f64, len)
            })
            .collect();
        let n = pages.max(1) as f64;
        PageSizes {
            zero: zero as f64 / n,
            same: (zero + same) as f64 / n,
            same_bytes,
            cdf,
        }
    }

    /// The length of `(owner, page)` in a run seeded `seed` [bytes] (0: zero-filled).
    pub fn length(&self, seed: u64, owner: u32, page: u32) -> u32 {
        let u = unit(seed ^ (u64::from(owner) << 32 | u64::from(page)));
        if u < self.zero {
            return 0;
        }
        if u < self.same {
            return self.same_bytes;
        }
        let v = (u - self.same) / (1.0 - self.same).max(f64::MIN_POSITIVE);
        let i = self
            .cdf
            .partition_point(|&(c, _)| c <= v)
            .min(self.cdf.len() - 1);
        self.cdf[i].1
    }

    /// The mean length over pages [bytes].
    pub fn mean(&self) -> f64 {
        let mut prev = 0.0;
        let rest: f64 = self
            .cdf
            .iter()
            .map(|&(c, len)| {
                let m = (c - prev) * f64::from(len);
                prev = c;
                m
            })
            .sum();
        (self.same - self.zero) * f64::from(self.same_bytes) + (1.0 - self.same) * rest
    }
}

/// A uniform draw in [0, 1) from a 64-bit key (SplitMix64's finaliser).
fn unit(key: u64) -> f64 {
    let mut z = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_counts_and_a_page_keeps_its_length() {
        // 1,000 pages: 200 zero-filled, 100 same-filled, 700 at 100, 1,000 or 3,000 bytes.
        let s = PageSizes::from_counts(1000, 200, 100, &[(100, 350), (1000, 175), (3000, 175)], 44);
        let n = 200_000u32;
        let mut hist = std::collections::BTreeMap::new();
        for p in 0..n {
            *hist.entry(s.length(7, 3, p)).or_insert(0u32) += 1;
        }
        let share = |len: u32| f64::from(hist[&len]) / f64::from(n);
        for (len, want) in [
            (0, 0.2),
            (44, 0.1),
            (100, 0.35),
            (1000, 0.175),
            (3000, 0.175),
        ] {
            assert!(
                (share(len) - want).abs() < 0.005,
                "{len}: {} vs {want}",
                share(len)
            );
        }
        assert_eq!(s.length(7, 3, 11), s.length(7, 3, 11));
        let mean = 0.1 * 44.0 + 0.35 * 100.0 + 0.175 * 1000.0 + 0.175 * 3000.0;
        assert!((s.mean() - mean).abs() < 1e-9, "{}", s.mean());
    }

    #[test]
    fn the_measured_data_is_there_for_every_compressor() {
        for c in [Compressor::Lzo, Compressor::Lz4, Compressor::Zstd] {
            let s = PageSizes::measured(c, Kernel::V6_12);
            assert!(
                s.zero > 0.0 && s.same >= s.zero && s.same < 1.0,
                "{c:?}: {s:?}"
            );
            assert!(
                s.mean() > 0.0 && s.mean() < 4096.0,
                "{c:?}: mean {}",
                s.mean()
            );
        }
    }
}

//! Random: reclaim a frame chosen uniformly at random.
//!
//! Free frames are filled in order; at a fault with full memory a frame index is drawn
//! uniformly from `0..frames` out of the seeded substream `"policy.random"` of
//! [`pagelab_core::RngStreams`], so the same seed gives the same victims on any machine.
//! Belady (1966) used it as the baseline any sensible policy should beat.
//!
//! Parameters: `seed` (default 1). Deviations: none.

use super::{frame_table_of, has_frame, Memory, ParamInfo, Replacement, SpecParams, NIL};
use crate::TraceError;
use pagelab_core::{Rng, RngStreams};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// Parameters of Random.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RandomSpec {
    /// Seed of the victim stream [1] -- parameter, default 1.
    pub seed: u64,
}

impl Default for RandomSpec {
    fn default() -> Self {
        RandomSpec { seed: 1 }
    }
}

impl SpecParams for RandomSpec {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "seed",
        unit: "[1]",
        default: "1",
        doc: "seed of the victim stream",
    }];
}

/// Random state: frame table, page -> frame map and the random stream.
#[derive(Clone, Debug)]
pub struct Random {
    frame_page: Vec<u32>,
    cap: u32,
    page_frame: Vec<u32>,
    used: u32,
    rng: Rng,
}

impl Random {
    /// Random over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(spec: &RandomSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Random {
            frame_page: Vec::with_capacity(frames.min(page_bound) as usize),
            cap: frames,
            page_frame: vec![NIL; page_bound as usize],
            used: 0,
            rng: RngStreams::new(spec.seed).stream("policy.random", 0),
        })
    }
}

impl Replacement for Random {
    fn reserve_pages(&mut self, page_bound: u32) {
        if self.page_frame.len() < page_bound as usize {
            self.page_frame.resize(page_bound as usize, NIL);
        }
    }

    #[inline]
    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        if self.page_frame[page as usize] != NIL {
            return true;
        }
        let cap = self.cap;
        let f = if self.used < cap {
            self.frame_page.push(NIL);
            self.used += 1;
            self.used - 1
        } else {
            let f = self.rng.gen_range(0..cap);
            let victim = self.frame_page[f as usize];
            self.page_frame[victim as usize] = NIL;
            mem.reclaim(victim);
            f
        };
        self.frame_page[f as usize] = page;
        self.page_frame[page as usize] = f;
        false
    }

    fn is_resident(&self, page: u32) -> bool {
        has_frame(&self.page_frame, page)
    }

    fn resident(&self) -> u32 {
        self.used
    }

    fn frame_table(&self) -> Option<Vec<Option<u32>>> {
        Some(frame_table_of(&self.frame_page))
    }
}

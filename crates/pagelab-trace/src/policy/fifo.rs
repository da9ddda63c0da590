//! FIFO: reclaim the page that has been resident longest.
//!
//! Frames form a ring; free frames are filled in order 0, 1, 2, ..., then the hand points at
//! the oldest frame and advances by one at every fault. A hit changes nothing. FIFO is the
//! policy the M44/44X ran for its single-programmed measurements (Brawn & Gustavson 1968,
//! "the page selected by FIFO is the one which has been in core for the longest period of
//! time"), and the one that shows Belady's anomaly (more frames, more faults).
//!
//! The ring is the arrival order: with every victim's frame refilled in place, the frames
//! from the hand onwards are oldest first ([`ring_order`]), and the victim is the first of them
//! ([`search`], every frame a candidate). The M44 (pagelab-sys `m44/supply.rs`), whose
//! frames can be empty, still being filled or freed by a job's end, keeps its arrivals in a
//! queue and runs the same [`search`] over it.
//!
//! Parameters: none. Deviations: none.

use super::{frame_table_of, Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

/// FIFO has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FifoSpec {}

impl SpecParams for FifoSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// FIFO state: the frame ring and a residency flag per page.
#[derive(Clone, Debug)]
pub struct Fifo {
    frame_page: Vec<u32>,
    cap: u32,
    resident: Vec<bool>,
    hand: u32,
    used: u32,
}

impl Fifo {
    /// FIFO over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &FifoSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Fifo {
            frame_page: Vec::with_capacity(frames.min(page_bound) as usize),
            cap: frames,
            resident: vec![false; page_bound as usize],
            hand: 0,
            used: 0,
        })
    }
}

/// FIFO's victim: the first frame, in order of arrival (oldest first), that `candidate`
/// accepts; `None` if none does. In the trace lab every frame is a candidate and the order is
/// the ring from the hand ([`ring_order`]); in the M44 the order is its queue of arrivals and
/// the candidates are the frames still holding the page that arrived (BIFO also sparing one
/// job's). The one choice of both (pagelab-sys `m44/supply.rs`).
#[inline]
pub fn search<F: Copy>(
    arrivals: impl IntoIterator<Item = F>,
    mut candidate: impl FnMut(F) -> bool,
) -> Option<F> {
    arrivals.into_iter().find(|&f| candidate(f))
}

/// The arrival order of a full ring of `cap` frames refilled in place: from the hand, wrapping.
#[inline]
pub fn ring_order(cap: u32, hand: u32) -> impl Iterator<Item = u32> {
    (hand..cap).chain(0..hand)
}

/// The victim of a full ring: the frame under the hand.
#[inline(always)]
fn ring_victim(cap: u32, hand: u32) -> u32 {
    search(ring_order(cap, hand), |_| true).expect("a full ring has a frame under its hand")
}

impl Replacement for Fifo {
    fn reserve_pages(&mut self, page_bound: u32) {
        if self.resident.len() < page_bound as usize {
            self.resident.resize(page_bound as usize, false);
        }
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        if self.resident[page as usize] {
            return true;
        }
        let cap = self.cap;
        if self.used < cap {
            self.frame_page.push(page);
            self.used += 1;
        } else {
            let h = ring_victim(cap, self.hand) as usize;
            let victim = self.frame_page[h];
            self.resident[victim as usize] = false;
            mem.reclaim(victim);
            self.frame_page[h] = page;
            self.hand = if h as u32 + 1 == cap {
                0
            } else {
                self.hand + 1
            };
        }
        self.resident[page as usize] = true;
        false
    }

    /// The loop of [`Fifo::reference`] over tables borrowed once.
    fn run_block(&mut self, runs: &[Run], _now: u64, mem: &mut Memory) -> u64 {
        let mut m = mem.hot();
        let resident = &mut self.resident[..];
        let (cap, mut hand, mut faults) = (self.cap, self.hand, 0u64);
        for r in runs {
            let page = r.page as usize;
            m.dirty[page] |= r.kind.is_write();
            if resident[page] {
                continue;
            }
            faults += 1;
            if self.used < cap {
                self.frame_page.push(r.page);
                self.used += 1;
            } else {
                let h = ring_victim(cap, hand);
                let victim = std::mem::replace(&mut self.frame_page[h as usize], r.page);
                resident[victim as usize] = false;
                m.reclaim(victim);
                hand = if h + 1 == cap { 0 } else { h + 1 };
            }
            resident[page] = true;
        }
        self.hand = hand;
        m.finish();
        faults
    }

    fn is_resident(&self, page: u32) -> bool {
        self.resident.get(page as usize).copied().unwrap_or(false)
    }

    fn resident(&self) -> u32 {
        self.used
    }

    fn frame_table(&self) -> Option<Vec<Option<u32>>> {
        Some(frame_table_of(&self.frame_page))
    }

    fn state(&self) -> PolicyState {
        PolicyState {
            hand: Some(self.hand),
            ..PolicyState::default()
        }
    }
}

//! CLOCK: the one-bit core-table scan.
//!
//! Each frame has a reference bit, set by every reference to its page. At a fault with no free
//! frame, the hand sweeps the frames in order: a frame with bit 1 has its bit cleared and is
//! passed; the first frame with bit 0 is the victim; the hand stops just past it. This is the
//! global reference-bit replacement of CP-67 that Bard (1975, section 2) analyses: a page
//! survives one sweep of the hand per reference. Free frames are filled in order.
//!
//! Parameters: `bit_on_load` (default true). The faulting reference is a reference, so the
//! hardware sets the bit of the page it loads; with `false` a new page starts with its bit
//! clear and needs a second reference to survive one sweep. libCacheSim's `Clock` (one-bit
//! counter, `init-freq` 0 by default, a FIFO queue with reinsertion, which is this ring with the
//! hand) is `bit_on_load = false`; its `init-freq=1` is the default here.

use super::{
    frame_table_of, has_frame, Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL,
};
use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

/// Parameters of CLOCK.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClockSpec {
    /// Reference bit of a page just loaded [bool] -- parameter, default true (the faulting
    /// reference sets it, as the hardware does).
    pub bit_on_load: bool,
}

impl Default for ClockSpec {
    fn default() -> Self {
        ClockSpec { bit_on_load: true }
    }
}

impl SpecParams for ClockSpec {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "bit_on_load",
        unit: "[bool]",
        default: "true",
        doc: "reference bit of a page just loaded (the faulting reference sets it)",
    }];
}

/// The hand's sweep from frame `hand`: bits found set are cleared and passed; returns the
/// first frame whose bit is clear (the victim). `bit` is every frame's bit, all frames used.
#[inline(always)]
fn sweep(bit: &mut [bool], hand: u32) -> u32 {
    let cap = bit.len() as u32;
    let mut h = hand;
    while bit[h as usize] {
        bit[h as usize] = false;
        h = if h + 1 == cap { 0 } else { h + 1 };
    }
    h
}

/// CLOCK state: frame table, one bit per frame, page -> frame map and the hand.
#[derive(Clone, Debug)]
pub struct Clock {
    frame_page: Vec<u32>,
    cap: u32,
    bit: Vec<bool>,
    page_frame: Vec<u32>,
    hand: u32,
    used: u32,
    bit_on_load: bool,
}

impl Clock {
    /// CLOCK over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(spec: &ClockSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Clock {
            frame_page: Vec::with_capacity(frames.min(page_bound) as usize),
            cap: frames,
            bit: Vec::with_capacity(frames.min(page_bound) as usize),
            page_frame: vec![NIL; page_bound as usize],
            hand: 0,
            used: 0,
            bit_on_load: spec.bit_on_load,
        })
    }
}

impl Replacement for Clock {
    fn reserve_pages(&mut self, page_bound: u32) {
        if self.page_frame.len() < page_bound as usize {
            self.page_frame.resize(page_bound as usize, NIL);
        }
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, count: u32, _now: u64, mem: &mut Memory) -> bool {
        let f = self.page_frame[page as usize];
        if f != NIL {
            self.bit[f as usize] = true;
            return true;
        }
        let cap = self.cap;
        let f = if self.used < cap {
            self.frame_page.push(NIL);
            self.bit.push(false);
            self.used += 1;
            self.used - 1
        } else {
            let h = sweep(&mut self.bit, self.hand);
            let victim = self.frame_page[h as usize];
            self.page_frame[victim as usize] = NIL;
            mem.reclaim(victim);
            self.hand = if h + 1 == cap { 0 } else { h + 1 };
            h
        };
        self.frame_page[f as usize] = page;
        self.page_frame[page as usize] = f;
        self.bit[f as usize] = self.bit_on_load || count > 1;
        false
    }

    /// The loop of [`Clock::reference`] over tables borrowed once.
    fn run_block(&mut self, runs: &[Run], _now: u64, mem: &mut Memory) -> u64 {
        let mut m = mem.hot();
        let page_frame = &mut self.page_frame[..];
        let (cap, mut hand, mut faults) = (self.cap, self.hand, 0u64);
        for r in runs {
            let page = r.page as usize;
            m.dirty[page] |= r.kind.is_write();
            let f = page_frame[page];
            if f != NIL {
                self.bit[f as usize] = true;
                continue;
            }
            faults += 1;
            let f = if self.used < cap {
                self.frame_page.push(NIL);
                self.bit.push(false);
                self.used += 1;
                self.used - 1
            } else {
                let h = sweep(&mut self.bit, hand);
                let victim = self.frame_page[h as usize];
                page_frame[victim as usize] = NIL;
                m.reclaim(victim);
                hand = if h + 1 == cap { 0 } else { h + 1 };
                h
            };
            self.frame_page[f as usize] = r.page;
            page_frame[page] = f;
            self.bit[f as usize] = self.bit_on_load || r.count > 1;
        }
        self.hand = hand;
        m.finish();
        faults
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

    fn state(&self) -> PolicyState {
        PolicyState {
            hand: Some(self.hand),
            frame_bits: Some(self.bit.clone()),
            ..PolicyState::default()
        }
    }
}
